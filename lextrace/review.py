"""The review of an amendment: one report of what changed between two versions of an encoding.

`lextrace review BASE [HEAD]` compares the encoding at BASE (a git revision, or an encoding
file) with HEAD (a revision, or the working tree when left out), each with the official text of
its own revision. The report holds, for a pull-request comment (Markdown) or a machine (JSON):

- the clauses whose words changed, each with its word diff, by citation;
- the rules changed, and those flagged "words changed: review" (their clause was reworded);
- `check` of the new version (its diagnostics) and `verify` (every proof, each failure with its
  counterexample scenario and the result the evaluator gives for it);
- the semantic diff: for each result, proved unchanged or shown to change, with a witness;
- with a population, the impact: how many scenarios change, by how much, the largest movers.

It fails (`ok` is False) when the new version does not check, a proof fails, or a result could
not be compared.
"""

from __future__ import annotations

import io
import json
import subprocess
import tarfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .dsl.errors import ScenarioError
from .dsl.loader import Analysis, analyse
from .dsl.reserved import READINGS_KEY
from .verify.limits import DEFAULT_BUDGET, DEFAULT_TIMEOUT, DIFF_TIMEOUT

WORKING_TREE = "the working tree"


class ReviewError(ValueError):
    """A revision or file that cannot be read; the message says which and why."""


@dataclass
class Side:
    """One version of the encoding: what it is (`label`), where it was written out, and what
    checking it found."""

    label: str
    path: Path
    analysis: Analysis
    shown: str = ""  # the encoding's path as a reader knows it (in the repository)


@dataclass
class Review:
    """Everything the review found; `verify`, `diff` and `impact` are None when they could not
    run (the new version does not check) or were not asked for."""

    base: Side
    head: Side
    verify: Any = None  # verify.report.Report
    diff: Any = None  # verify.diff.Diff
    impact: Any = None  # impact.Impact
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when the new version checks, every proof holds and every result compared."""
        return (
            not self.head.analysis.errors
            and self.verify is not None
            and self.verify.ok
            and (self.diff is None or self.diff.ok)
        )


def _git(repository: Path, *arguments: str, binary: bool = False) -> Any:
    """Runs git in `repository`; raises ReviewError with git's message when it fails."""
    try:
        done = subprocess.run(
            ["git", "-C", str(repository), *arguments],
            capture_output=True,
            check=False,
            text=not binary,
        )
    except FileNotFoundError:
        raise ReviewError("git is not installed: give BASE and HEAD as encoding files") from None
    if done.returncode != 0:
        message = done.stderr if not binary else done.stderr.decode("utf-8", "replace")
        raise ReviewError(f"git {' '.join(arguments)}: {message.strip()}")
    return done.stdout


def _repository(encoding: Path) -> tuple[Path, str]:
    """Returns the root of the git repository holding the encoding and its path there."""
    folder = encoding.resolve().parent
    root = Path(_git(folder, "rev-parse", "--show-toplevel").strip())
    return root, encoding.resolve().relative_to(root.resolve()).as_posix()


def _written_out(root: Path, revision: str, into: Path) -> Path:
    """Writes the tree of a revision into `into` (so that an encoding finds its official text
    and any file it names beside it, as at that revision) and returns `into`."""
    try:
        _git(root, "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}")
    except ReviewError:
        raise ReviewError(f"{revision}: no such revision in the repository {root}") from None
    archive = _git(root, "archive", "--format=tar", revision, binary=True)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def side(spec: str | None, encoding: Path, workdir: Path) -> Side:
    """Returns one version: the working tree's encoding (`spec` None), an encoding file (a
    `spec` that names one), or the encoding at a git revision, written out under `workdir`."""
    if spec is None:
        return Side(WORKING_TREE, encoding, analyse(encoding), str(encoding))
    given = Path(spec)
    if given.is_file():
        return Side(spec, given, analyse(given), spec)
    root, inside = _repository(encoding)
    into = workdir / f"rev-{len(list(workdir.iterdir()))}"
    into.mkdir()
    tree = _written_out(root, spec, into)
    path = tree / inside
    if not path.is_file():
        raise ReviewError(f"{spec}: the revision has no {inside}")
    commit = _git(root, "rev-parse", "--short", f"{spec}^{{commit}}").strip()
    return Side(f"{spec} ({commit})", path, analyse(path), inside)


def review(
    base: str,
    head: str | None,
    encoding: Path,
    workdir: Path,
    population: str | None = None,
    population_format: str = "jsonl",
    timeout: float = DEFAULT_TIMEOUT,
    budget: float = DEFAULT_BUDGET,
    diff_timeout: float = DIFF_TIMEOUT,
) -> Review:
    """Returns the review of the encoding from BASE to HEAD (see the module docstring), its
    proofs as `lextrace verify` makes them (`timeout` per Z3 call, `budget` in all) and its
    comparison of each result as `lextrace diff` (`diff_timeout`); `workdir` holds the versions
    written out of git. Raises ReviewError for a revision or file that cannot be read."""
    from .api import Statute
    from .verify.diff import semantic_diff
    from .verify.report import run

    before, after = side(base, encoding, workdir), side(head, encoding, workdir)
    found = Review(before, after)
    if after.analysis.errors or after.analysis.statute is None:
        found.notes.append("the new version does not check: no proof, diff or impact")
        return found
    new = after.analysis.statute
    found.verify = run(new, timeout, budget)
    old = before.analysis.statute
    if before.analysis.errors or old is None:
        found.notes.append("the base version does not check: no diff or impact")
        return found
    found.diff = semantic_diff(old, new, diff_timeout)
    if population is not None:
        from .impact import impact

        found.impact = impact(Statute(old), Statute(new), population, population_format)
        # Named as the reader knows them, not by where they were written out.
        found.impact.old, found.impact.new = _named(before), _named(after)
    return found


def _named(version: Side) -> str:
    """Returns how the report names a version: its path in the repository and its revision."""
    where = version.shown or str(version.path)
    return where if version.label == WORKING_TREE else f"{where} at {version.label}"


# ---- the report --------------------------------------------------------------------------------
def _word_diff_markdown(ops: Any) -> str:
    """A word diff in Markdown: deleted words struck through, inserted ones in bold."""
    from .verify.diff import render_word_diff

    text = render_word_diff(ops)
    return text.replace("[-", "~~").replace("-]", "~~").replace("{+", "**").replace("+}", "**")


def _counterexample_lines(statute: Any, outcome: Any) -> list[str]:
    """A failed proof's counterexample scenarios, each with what the evaluator gives for it."""
    from .api import Statute

    lines: list[str] = []
    labels = ["scenario"] if len(outcome.counterexample or []) == 1 else ["before", "after"]
    for label, scenario in zip(labels, outcome.counterexample or [], strict=False):
        lines.append(f"<details><summary>counterexample {label}</summary>\n")
        # The readings it needs pinned in it: pasted into `lextrace explain`, it reproduces.
        shown = replayable(scenario, outcome.readings)
        lines.append("```json\n" + json.dumps(shown, indent=2, ensure_ascii=False) + "\n```")
        try:
            result = Statute(statute).evaluate(scenario, readings=outcome.readings)
        except (ScenarioError, ValueError) as error:
            lines.append(f"The evaluator refuses it: {error}")
        else:
            shown = result.to_dict(include_trace=False)
            values = ", ".join(f"`{k}` = {shown[k]}" for k in statute.result_names)
            lines.append(f"The evaluator gives: {values}.")
        lines.append("\n</details>")
    return lines


def replayable(scenario: dict[str, object], readings: dict[str, str] | None) -> dict[str, object]:
    """Returns a scenario with the readings it was found under pinned in it (the scenario
    format's `readings`), so that it gives the same results whatever the defaults are."""
    if not readings:
        return scenario
    existing = scenario.get(READINGS_KEY)
    pinned = {**(existing if isinstance(existing, dict) else {}), **readings}
    return {**scenario, READINGS_KEY: pinned}


def render_markdown(found: Review) -> str:
    """Returns the review as Markdown, for a pull-request comment or a job summary."""
    verdict = "passes" if found.ok else "**fails**"
    parts = [
        "## lextrace review",
        f"`{found.head.shown}`: {found.base.label} → {found.head.label}. The review {verdict}.",
    ]
    diff = found.diff
    if diff is not None:
        reworded = [c for c in diff.clauses if c.status == "reworded"]
        other = [c for c in diff.clauses if c.status != "reworded"]
        count = len(diff.clauses)
        parts.append(f"### Words changed ({count} clause{'s' if count != 1 else ''})")
        lines = [f"- **{c.citation}**: {_word_diff_markdown(c.word_diff)}" for c in reworded]
        lines += [f"- **{c.citation}** {c.status}: {c.new_words or c.old_words}" for c in other]
        parts.append("\n".join(lines) or "No clause's words changed.")
        parts.append(f"### Rules changed ({len(diff.rules)})")
        rows = []
        for rule in diff.rules:
            flag = f"words changed: review {', '.join(rule.words_changed)}"
            rows.append(
                f"| {rule.kind} | `{rule.name}` | {rule.new_citation or rule.old_citation or ''}"
                f" | {rule.status} | {flag if rule.words_changed else ''} |"
            )
        parts.append(
            "| kind | name | clause | change | |\n|---|---|---|---|---|\n" + "\n".join(rows)
            if rows
            else "No rule changed."
        )
    parts.append("### Check")
    diagnostics = found.head.analysis.diagnostics
    if diagnostics:
        # A block, so that each caret stays under its place; named as in the repository,
        # not where the revision was written out.
        rendered = "\n".join(d.render(found.head.analysis.source) for d in diagnostics)
        written, shown = str(found.head.path), found.head.shown
        if shown and written.endswith(shown) and written != shown:
            rendered = rendered.replace(written[: -len(shown)], "")  # the revision's tree
        parts.append("```text\n" + rendered + "\n```")
    else:
        parts.append("The new version checks: well formed, faithful to its official text.")
    if found.verify is not None:
        parts.append(_verify_markdown(found.verify))
    if diff is not None:
        parts.append(_results_markdown(diff))
    if found.impact is not None:
        from .impact import render_markdown as impact_markdown

        parts.append(impact_markdown(found.impact).replace("# Impact", "### Impact", 1))
    for note in found.notes:
        parts.append(f"_Note: {note}._")
    return "\n\n".join(parts) + "\n"


def _verify_markdown(report: Any) -> str:
    """The proofs: the counts, then each failure with its counterexample."""
    counts = ", ".join(f"{n} {status}" for status, n in sorted(report.counts().items()))
    lines = [f"### Proofs ({len(report.outcomes)} checks: {counts})"]
    if report.ok:
        lines.append("Every check holds (BOUNDED: proved for the bounded sizes it names).")
    for outcome in report.failures:
        statute = report.statute
        lines.append(
            f"- **{outcome.status}** `{outcome.check.name}` "
            f"({statute.citation(outcome.check.clause)}): "
            f"{' '.join(outcome.check.description.split())}"
            + (f" {outcome.detail}" if outcome.detail else "")
        )
        lines.extend(_counterexample_lines(statute, outcome))
    return "\n".join(lines)


def _results_markdown(diff: Any) -> str:
    """The semantic diff's results: those that change, with a witness."""
    lines = ["### Results (proved over every scenario valid under both versions)"]
    rows = []
    shown: dict[str, str] = {}
    for result in diff.results:
        witness = (
            json.dumps(replayable(result.witness, result.readings), ensure_ascii=False)
            if result.witness is not None
            else ""
        )
        if witness in shown:
            witness = f"the witness of `{shown[witness]}`"
        elif witness:
            shown[witness] = result.name
            witness = f"`{witness}`"
        change = f"{result.old_value} → {result.new_value}" if result.witness else ""
        note = " ".join(result.detail.split())
        rows.append(f"| `{result.name}` | {result.status} | {change} | {witness} | {note} |")
    lines.append(
        "| result | status | old → new | witness | note |\n|---|---|---|---|---|\n"
        + "\n".join(rows)
    )
    # What the diff says of the versions as a whole: a reading's default changed, ...
    lines.extend(f"- Note: {note}" for note in diff.notes)
    for name in diff.results_added:
        lines.append(f"- `{name}` added")
    for name in diff.results_removed:
        lines.append(f"- `{name}` removed")
    for scope in diff.scope:
        if scope.status == "equal":
            continue
        line = f"- Scenarios {scope.direction}: **{scope.status}**"
        if scope.witness is not None:
            line += f", e.g. `{json.dumps(scope.witness, ensure_ascii=False)}`"
        said = scope.refusal if scope.status == "different" else scope.detail
        lines.append(line + (f" ({said})" if said else ""))
    return "\n".join(lines)


def to_json(found: Review) -> dict[str, object]:
    """Returns the review as a JSON-ready object: `ok`, `base`, `head`, `check` (the new
    version's diagnostics), `verify`, `diff`, `impact` (each null when it did not run) and
    `notes`."""
    from .verify.diff import to_json as diff_json
    from .verify.report import to_json as verify_json

    def described(side: Side) -> dict[str, object]:
        return {"version": side.label, "encoding": side.shown}

    impact = None
    if found.impact is not None:
        from .impact import to_json as impact_json

        impact = impact_json(found.impact)
    return {
        "ok": found.ok,
        "base": described(found.base),
        "head": described(found.head),
        "check": [
            {
                "line": d.line,
                "column": d.column,
                "severity": d.severity,
                "message": d.message,
            }
            for d in found.head.analysis.diagnostics
        ],
        "verify": verify_json(found.verify) if found.verify is not None else None,
        "diff": diff_json(found.diff) if found.diff is not None else None,
        "impact": impact,
        "notes": found.notes,
    }
