"""Amendments: for each draft in statute/amendments/, the word diff of its clauses, the semantic
diff with its witnesses, and the proofs of the amended encoding.

The diff and the proofs are computed when the site is built, as `lextrace diff` and
`lextrace verify` compute them.
"""

from __future__ import annotations

import html
import sys
import tempfile
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from lextrace.api import Statute, load_statute
from lextrace.impact import impact, render_markdown
from lextrace.dsl.values import dollars
from lextrace.statute import AMENDMENTS
from lextrace.verify.diff import Diff, WordOp, semantic_diff
from lextrace.verify.report import Report, run

from .context import AMENDMENTS_INDEX, STATUTE_PAGE, Site, relative
from .markdown import code, escape, table
from .proof_page import indent, report_sections, scenario_json


@dataclass(frozen=True)
class Amendment:
    """One amendment draft: its folder name, encoding, diff against the bundled statute, the
    report of its proofs and its impact over a sample population."""

    name: str
    statute: Statute
    diff: Diff
    report: Report
    impact: str = ""

    @property
    def page(self) -> str:
        """The amendment's page under docs/."""
        return f"amendments/{self.name}.md"


def amendments(site: Site, folder: Path = AMENDMENTS) -> list[Amendment]:
    """Returns every amendment draft with its diff and proofs, sorted by folder name."""
    found = []
    with tempfile.TemporaryDirectory() as folder_for_population:
        population = sample_population(site, Path(folder_for_population))
        for encoding in sorted(folder.glob("*/*.lex")):
            statute = load_statute(encoding)
            report = impact(site.statute, statute, str(population), "parquet", top=5)
            page = render_markdown(report).split("\n", 1)[1]  # the page's own title goes
            page = page.replace(str(population), f"a generated population of {SAMPLE:,}")
            found.append(
                Amendment(
                    encoding.parent.name,
                    statute,
                    semantic_diff(site.ast, statute.ast),
                    run(statute.ast),
                    page.replace("\n## ", "\n### "),
                )
            )
    return found


SAMPLE = 10_000


def sample_population(site: Site, folder: Path) -> Path:
    """Writes the deterministic sample population of the benchmarks (every clause boundary
    represented) as Parquet, for the impact sections."""
    sys.path.insert(0, str(site.root))
    try:
        from benchmarks.population import population, write_parquet
    finally:
        sys.path.remove(str(site.root))
    path = folder / "population.parquet"
    write_parquet(path, population(SAMPLE, seed=2026))
    return path


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
    bundled = {c.short_citation: c for c in site.ast.clauses}
    parts = [
        f"# Amendment draft `{amendment.name}`",
        f"**{escape(amendment.statute.ast.title)}**",
        f"Encoding `statute/amendments/{amendment.name}/{Path(amendment.statute.ast.path).name}`"
        f", compared with the bundled {site.ast.name} by `lextrace diff` and proved by "
        "`lextrace verify` when this site was built.",
        "## Words changed",
    ]
    if not diff.clauses:
        parts.append("No clause's words change.")
    for change in diff.clauses:
        short = change.citation.removeprefix(site.ast.name)
        clause = bundled.get(short)
        title = f"[{short}]({relative(here, STATUTE_PAGE, clause.anchor)})" if clause else short
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
            f"[{a.name}]({relative(AMENDMENTS_INDEX, a.page)})",
            escape(a.statute.ast.title),
            str(len(a.diff.clauses)),
            str(sum(1 for r in a.diff.results if r.witness)),
            "every check PROVED" if a.report.ok else f"{len(a.report.failures)} failed",
        ]
        for a in found
    ]
    return (
        "\n\n".join(
            [
                "# Amendments",
                "Hypothetical amendment drafts of the statute, none of them law, kept to show what "
                "the diff and the proofs say about a change before it is made.",
                table(
                    ["draft", "what it is", "clauses reworded", "results that change", "proofs"],
                    rows,
                ),
            ]
        )
        + "\n"
    )
