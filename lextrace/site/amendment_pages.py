"""Amendments: for each draft of the statute, the word diff of its clauses, the semantic diff with
its witnesses, the proofs of the amended encoding and its impact over a population.

The diff and the proofs are computed when the site is built, as `lextrace diff` and
`lextrace verify` compute them; the impact as `lextrace impact` does, over the site's population
(or, when it has none, over its worked examples).
"""

from __future__ import annotations

import html
import json
import tempfile
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from lextrace.api import Statute, load_statute
from lextrace.dsl.reserved import READINGS_KEY
from lextrace.dsl.scenario import json_values
from lextrace.dsl.values import dollars
from lextrace.impact import impact, render_markdown
from lextrace.verify.diff import Diff, WordOp, semantic_diff
from lextrace.verify.report import Report

from .context import AMENDMENTS_INDEX, Site, relative
from .markdown import code, escape, table
from .proof_page import indent, report_sections, scenario_json, verdict


@dataclass(frozen=True)
class Amendment:
    """One amendment draft: its name, page, encoding, diff against the statute, the report of
    its proofs and its impact over a population."""

    name: str
    page: str
    encoding: Path
    statute: Statute
    diff: Diff
    report: Report
    impact: str = ""


def amendments(site: Site) -> list[Amendment]:
    """Returns every amendment draft of the site with its diff, proofs and impact, in the order
    given."""
    found = []
    with tempfile.TemporaryDirectory() as folder:
        population = _population(site, Path(folder))
        taken: set[str] = set()
        for name, encoding in site.amendment_drafts:
            while name in taken:
                name += "-2"
            taken.add(name)
            statute = load_statute(encoding)
            shown = "No population to compare over: this site has no worked example."
            if population is not None:
                path, words = population
                report = impact(site.statute, statute, str(path), path.suffix[1:], top=5)
                shown = render_markdown(report).split("\n", 1)[1]  # the page's own title goes
                # The report names its files as given; the page names them as it shows paths.
                shown = (
                    shown.replace(f"`{path}`", words)
                    .replace(f"`{site.statute.ast.path}`", f"`{site.shown(site.encoding)}`")
                    .replace(f"`{statute.ast.path}`", f"`{site.shown(encoding)}`")
                )
                shown = shown.replace("\n## ", "\n### ")
            found.append(
                Amendment(
                    name,
                    site.path(f"amendments/{name}.md"),
                    encoding,
                    statute,
                    semantic_diff(site.ast, statute.ast),
                    site.proved(statute.ast),
                    shown,
                )
            )
    return found


def _population(site: Site, folder: Path) -> tuple[Path, str] | None:
    """Returns the population the impact sections compare over, with how the pages name it:
    the site's own, else its worked examples (None when it has neither)."""
    if site.population is not None:
        return site.population(folder)
    if not site.examples:
        return None
    path = folder / "examples.jsonl"
    lines = [
        json.dumps(
            json_values({k: v for k, v in e.scenario.items() if k != READINGS_KEY}),
            ensure_ascii=False,
        )
        for e in site.examples
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path, f"the {len(lines)} worked examples"


def word_diff_html(ops: list[WordOp]) -> str:
    """Returns a word diff with removed words struck through and added words underlined."""
    pieces = []
    for op in ops:
        if op.op == "equal":
            pieces.append(html.escape(" ".join(op.old)))
            continue
        if op.old:
            pieces.append(f"<del>{html.escape(' '.join(op.old))}</del>")
        if op.new:
            pieces.append(f"<ins>{html.escape(' '.join(op.new))}</ins>")
    return " ".join(pieces)


def amendment_page(site: Site, amendment: Amendment) -> str:
    """Returns the page of one amendment draft."""
    here = amendment.page
    diff = amendment.diff
    enacted = {c.short_citation: c for c in site.ast.clauses}
    parts = [
        f"# Amendment draft `{amendment.name}`",
        f"**{escape(amendment.statute.ast.title)}**",
        f"Encoding `{site.shown(amendment.encoding)}`, compared with "
        f"{site.ast.name} by `lextrace diff` and proved by `lextrace verify` when this site "
        "was built.",
        "## Words changed",
    ]
    if not diff.clauses:
        parts.append("No clause's words change.")
    for change in diff.clauses:
        short = change.citation.removeprefix(site.ast.name)
        clause = enacted.get(short)
        title = f"[{short}]({site.clause_link(clause, here)})" if clause else short
        parts.append(f"**{title}** ({change.status})")
        if change.word_diff:
            parts.append(f'<p class="word-diff">{word_diff_html(change.word_diff)}</p>')
        elif change.new_words:
            parts.append(f"> {escape(change.new_words)}")
    parts.append("## Rules changed")
    if not diff.rules:
        parts.append("No rule changes.")
    for rule in diff.rules:
        parts.append(f"**`{rule.name}`** ({rule.kind}, {rule.status})")
        if rule.note:
            parts.append(escape(rule.note))
        language = "text" if rule.kind == "header" else "lextrace"
        if rule.old_text:
            parts.append("Before:\n\n" + code(rule.old_text, language))
        if rule.new_text:
            parts.append("After:\n\n" + code(rule.new_text, language))
    parts.append("## Results compared")
    parts.append(
        "Each result both encodings declare is either proved equal for every scenario, or "
        "given a witness: a scenario where the two differ, confirmed by both evaluators."
    )
    parts.append(
        table(
            ["result", "verdict", "before", "after", "time"],
            [
                [
                    f"`{r.name}`",
                    r.status,
                    _shown(amendment, r.name, r.old_value),
                    _shown(amendment, r.name, r.new_value),
                    f"{r.seconds * 1000:.0f} ms",
                ]
                for r in diff.results
            ],
        )
    )
    for result in diff.results:
        if result.witness:
            before = _shown(amendment, result.name, result.old_value)
            after = _shown(amendment, result.name, result.new_value)
            parts.append(
                f'??? example "Witness for `{result.name}`: {before} before, {after} after"\n\n'
                + indent(scenario_json(result.witness))
            )
    parts.append("## Scenarios accepted")
    parts.append(
        "Whether either encoding accepts a scenario the other refuses (a bound or a requirement "
        "changed, a field added or removed): proved not, or shown by a witness that one "
        "evaluator runs and the other refuses."
    )
    parts.append(
        table(
            ["scenarios", "verdict", "refused with"],
            [[s.direction, s.status, escape(s.refusal or s.detail)] for s in diff.scope],
        )
    )
    for scope in diff.scope:
        if scope.witness is not None:
            parts.append(
                f'??? example "Witness: a scenario {scope.direction}"\n\n'
                + indent(scenario_json(scope.witness))
            )
    parts.append("## Impact over a population")
    parts.append(amendment.impact)
    parts.append("## Proofs of the amended encoding")
    parts.extend(report_sections(amendment.statute, amendment.report, None, level="###"))
    return "\n\n".join(parts) + "\n"


def _shown(amendment: Amendment, name: str, value: str | None) -> str:
    """Returns a compared result's value for people: dollars for money."""
    if value is None:
        return "-"
    definition = amendment.statute.ast.definitions.get(name)
    if definition is not None and definition.type.kind == "money":
        return dollars(Fraction(value))
    return value


def index_page(site: Site, found: list[Amendment]) -> str:
    """Returns the list of amendment drafts with their verdicts."""
    rows = [
        [
            f"[{a.name}]({relative(site.path(AMENDMENTS_INDEX), a.page)})",
            escape(a.statute.ast.title),
            str(len(a.diff.clauses)),
            str(sum(1 for r in a.diff.results if r.witness)),
            verdict(a.report),
        ]
        for a in found
    ]
    return (
        "\n\n".join(
            [
                "# Amendments",
                f"Amendment drafts of {site.ast.name}, proposals rather than law, kept to show "
                "what the diff and the proofs say about a change before it is made.",
                table(
                    ["draft", "what it is", "clauses reworded", "results that change", "proofs"],
                    rows,
                ),
            ]
        )
        + "\n"
    )
