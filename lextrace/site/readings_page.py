"""The interpretation register: each reading, the clauses it touches, its alternatives, and
which worked examples rest on it and change with it.

An example *rests* on a reading when a rule or case its trace passed through is written under the
reading or tests it (see `Site.readings_rested_on`). It *changes* with the reading when choosing
one of the reading's alternatives changes one of its results; this is computed by evaluating the
example under each alternative.
"""

from __future__ import annotations

from lextrace.api import Result
from lextrace.dsl import ast
from lextrace.dsl.coverage import COMPUTING
from lextrace.dsl.reserved import READINGS_KEY
from lextrace.dsl.trace import display
from lextrace.dsl.values import Value
from lextrace.periods import PeriodResult

from .context import READINGS_PAGE, Site, reading_anchor, relative
from .markdown import escape, table


def clauses_touched(statute: ast.Statute, reading_id: str) -> list[ast.Clause]:
    """Returns the clauses whose rules, cases or checks rest on a reading, in document order."""
    touched: list[ast.Clause] = []
    for clause in statute.clauses:
        items = [i for i in clause.items if isinstance(i, (*COMPUTING, ast.Invariant))]
        monotones = [m for m in statute.monotones if m.clause is clause]
        if any(reading_id in i.readings for i in [*items, *monotones]):
            touched.append(clause)
    return touched


def page(site: Site) -> str:
    """Returns the interpretation register page."""
    statute = site.ast
    here = site.path(READINGS_PAGE)
    parts = [
        "# Interpretation register",
        f"Every clause of {statute.name} that can be read more than one way has a named reading "
        "in the encoding. The default is what the evaluator and the proofs use; an alternative "
        "is chosen with `--reading ID=OPTION` (or `readings=` in the Python API).",
        table(
            ["reading", "question", "default"],
            [
                [
                    site.reading_link(r.id, here),
                    escape(r.question),
                    f"`{r.default.name}`",
                ]
                for r in statute.readings.values()
            ],
        )
        if statute.readings
        else "This encoding names no reading: it reads every clause one way.",
    ]
    for reading in statute.readings.values():
        parts.append(
            f"## {reading.id}: {escape(reading.question)} {{ #{reading_anchor(reading.id)} }}"
        )
        parts.append(f"**Default `{reading.default.name}`**: {escape(reading.default.description)}")
        for alternative in reading.alternatives:
            parts.append(f"**Alternative `{alternative.name}`**: {escape(alternative.description)}")
        touched = clauses_touched(statute, reading.id)
        parts.append(
            "Clauses that rest on it: "
            + (", ".join(site.cite(c, here) for c in touched) or "none (recorded only)")
        )
        parts.append(_dependants(site, reading))
    return "\n\n".join(parts) + "\n"


def _dependants(site: Site, reading: ast.Reading) -> str:
    """Returns which examples change under each alternative, and how."""
    statute = site.ast
    here = site.path(READINGS_PAGE)
    using = [
        f"[{e.title}]({relative(here, e.page)})"
        for e in site.examples
        if reading.id in site.readings_rested_on(e)
    ]
    used = "Worked examples whose evaluation rests on it: " + (", ".join(using) or "none") + "."
    if not reading.alternatives:
        return used + " It has no alternative, so no result can change with it."
    rows = []
    for alternative in reading.alternatives:
        for example in site.examples:
            # An example that pins readings is compared as if it did not: default against
            # alternative.
            unpinned = {k: v for k, v in example.scenario.items() if k != READINGS_KEY}
            source = str(example.path)  # a list file is found beside the scenario
            default = (
                example.result
                if unpinned == example.scenario
                else site.statute.evaluate(unpinned, source=source)
            )
            other = site.statute.evaluate(
                unpinned, readings={reading.id: alternative.name}, source=source
            )
            before, after = result_values(statute, default), result_values(statute, other)
            for label, (type_, value) in before.items():
                if after[label][1] == value:
                    continue
                rows.append(
                    [
                        f"[{example.title}]({relative(here, example.page)})",
                        f"`{alternative.name}`",
                        label,
                        display(type_, value),
                        display(type_, after[label][1]),
                    ]
                )
    if not rows:
        return used + " No worked example changes under the alternatives."
    return (
        used
        + " Those whose results change under an alternative:\n\n"
        + table(["example", "alternative", "result", "default gives", "alternative gives"], rows)
    )


def result_values(
    statute: ast.Statute, result: Result | PeriodResult
) -> dict[str, tuple[ast.Type, Value]]:
    """Returns each value a result reports, by its label (`` `name` ``, or `` `name` (2024) ``
    for a period's), with the type it is shown in."""
    if not isinstance(result, PeriodResult):
        return {
            f"`{name}`": (statute.definitions[name].type, value)
            for name, value in result.values.items()
        }
    found: dict[str, tuple[ast.Type, Value]] = {}
    for period, own in zip(result.periods, result.results, strict=True):
        for name in result.period_keys:
            found[f"`{name}` ({period.year})"] = (
                statute.definitions[name].type,
                own.values[name],  # type: ignore[attr-defined]
            )
    for total in statute.totals:
        found[f"`{total.name}`"] = (result.total_type(total), result.totals[total.name])
    return found
