"""Worked examples: one page per scenario file or case, with its results and traced
explanation.

Each page shows the facts of the scenario, the result table (with what a case expects beside
it), the derivation of each result in prose (every number put into its rule, every citation a
link to its clause), the bonuses that did not apply with the reason, and the whole trace as a
table.
"""

from __future__ import annotations

from collections.abc import Iterable

from lextrace.api import Result
from lextrace.dsl import ast
from lextrace.dsl.scenario import pinned_readings, read_exact
from lextrace.dsl.trace import display
from lextrace.periods import PeriodResult, derived_from

from .context import EXAMPLES_INDEX, STATUTE_PAGE, Example, Site, relative
from .explanation import defaults_table, derivations, facts_table, results_table
from .markdown import EXAMPLE_BOOST, escape, front_matter, table


def origin(site: Site, example: Example) -> str:
    """Returns where an example comes from and how to reproduce it, in a sentence's words."""
    shown = site.shown(example.path)
    cases = site.shown(example.source or example.path)
    if example.expected is not None and not example.case:
        return f"Case “{escape(example.name)}” of the cases file `{cases}`."
    sentence = (
        f"Scenario file `{shown}`. Reproduce it with `lextrace explain {shown}`"
        + ("" if site.default_encoding else f" --encoding {site.shown(site.encoding)}")
        + "."
    )
    if example.case:
        sentence += f" It is case “{escape(example.case)}” of the cases file `{cases}`."
    return sentence


def expectations(site: Site, example: Example) -> str:
    """Returns the table of the results a case expects beside those computed."""
    statute = site.ast
    rows = []
    for name, expected in (example.expected or {}).items():
        type_ = _result_type(statute, name)
        computed = (
            display(type_, example.result.values[name])
            if type_ is not None and name in example.result.values
            else "not a result of this encoding"
        )
        rows.append([f"`{name}`", escape(_expected(type_, expected)), computed])
    return table(["result", "the case expects", "computed"], rows)


def _result_type(statute: ast.Statute, key: str) -> ast.Type | None:
    """Returns the type of a result a case names: `annual_credit`, a period's
    `annual_credit[2024]`, or a total over the periods; None for no result of the encoding."""
    name = key.split("[", 1)[0]
    totals = {total.name: total.summed for total in statute.totals}
    declared = statute.definitions.get(totals.get(name, name))
    return declared.type if declared is not None else None


def _expected(type_: ast.Type | None, expected: object) -> str:
    """Returns an expected value as the computed one beside it is shown (`4250.00` as
    `$4,250.00`), or as the case writes it when it is not a value of the result's type."""
    if isinstance(expected, bool):
        return "yes" if expected else "no"
    if type_ is not None and type_.kind in ("money", "number", "share", "count"):
        number = read_exact(expected)
        if number is not None:
            return display(type_, number if type_.kind != "count" else int(number))
    return str(expected)


def period_page(site: Site, example: Example) -> str:
    """Returns the page of a worked example of several periods: the facts given once, then
    each period's facts, derived facts, results and derivations, then the totals."""
    result = example.result
    assert isinstance(result, PeriodResult)
    statute = site.ast
    assert statute.periods is not None
    here = example.page

    def link_for(clause: ast.Clause) -> str:
        return site.clause_link(clause, here)

    readings = ", ".join(
        f"{site.reading_link(rid, here)} {option}" for rid, option in result.readings.items()
    )
    shared = [k for k in example.scenario if k != statute.periods.name]
    parts = [
        front_matter(boost=EXAMPLE_BOOST),
        f"# {example.title}",
        f"{origin(site, example)} Evaluated period by period under the default readings"
        + (f" ({readings})" if readings else "")
        + ".",
        "## The facts given once",
        "They apply to every period that does not give them itself; fields not listed take "
        "their declared defaults.",
        facts_table(result.results[0], shared),  # type: ignore[arg-type]
    ]
    keys = result.period_keys
    for period, own in zip(result.periods, result.results, strict=True):
        parts.append(f"## {statute.periods.by} {period.year}")
        own_fields = [k for k in period.scenario if k not in shared]
        parts.append(facts_table(own, own_fields))  # type: ignore[arg-type]
        if period.derived:
            parts.append(
                table(
                    ["derived fact", "value", "from"],
                    [
                        [
                            f"`{name}`",
                            display(statute.inputs[name].type, period.inputs[name]),
                            escape(derived_from(statute, statute.inputs[name])),
                        ]
                        for name in period.derived
                    ],
                )
            )
        parts.append(results_table(own, link_for, keys))  # type: ignore[arg-type]
        parts += derivations(own, link_for, keys, level="####")  # type: ignore[arg-type]
    parts.append("## The period's totals")
    rows = []
    for total in statute.totals:
        value = display(result.total_type(total), result.totals[total.name])
        terms = " + ".join(
            display(result.total_type(total), own.values[total.summed])  # type: ignore[attr-defined]
            for own in result.results
        )
        cited = f"[{total.clause.short_citation or statute.name}]({link_for(total.clause)})"
        rows.append([f"`{total.name}`", value, f"the sum of `{total.summed}`: {terms}", cited])
    parts.append(table(["total", "value", "how", "clause"], rows))
    if example.expected:
        parts += ["## What the case expects", expectations(site, example)]
    return "\n\n".join(parts) + "\n"


def example_page(site: Site, example: Example) -> str:
    """Returns the page of one worked example."""
    result = example.result
    if isinstance(result, PeriodResult):
        return period_page(site, example)
    assert result.trace is not None
    here = example.page

    def link_for(clause: ast.Clause) -> str:
        return site.clause_link(clause, here)

    readings = ", ".join(
        f"{site.reading_link(rid, here)} {option}" for rid, option in result.readings.items()
    )
    pinned = ", ".join(
        f"{site.reading_link(rid, here)} {option}"
        for rid, option in pinned_readings(example.scenario).items()
    )
    under = (
        f"the readings it pins ({pinned}) and the defaults otherwise"
        if pinned
        else "the default readings"
    )
    fields = (
        f"the [scenario format]({relative(here, 'scenario-format.md')})"
        if site.guides
        else "`lextrace fields`"
    )
    parts = [
        front_matter(boost=EXAMPLE_BOOST),
        f"# {example.title}",
        f"{origin(site, example)} Evaluated under {under}"
        + (f" ({readings})" if readings else "")
        + ".",
        "## The facts",
        "The facts the scenario gives:",
        facts_table(result, example.scenario),
        *_defaults(result, example.scenario, fields),
        "## The results",
        results_table(result, link_for),
    ]
    if example.expected:
        parts.append(expectations(site, example))
    parts += [
        "## How each result is reached",
        *derivations(result, link_for),
        "## The whole trace",
        "Every value the evaluation computed, in the order computed, with the rule or case that "
        "gave it and its clause.",
        result.trace.markdown(link=relative(here, site.path(STATUTE_PAGE))),
    ]
    return "\n\n".join(parts) + "\n"


def _defaults(result: Result, given: Iterable[str], fields: str) -> list[str]:
    """Returns the facts the scenario leaves out that the results read, with their values."""
    found = defaults_table(result, given)
    if found is None:
        return [f"Fields not given take their declared defaults (see {fields})."]
    return [
        "The facts it leaves out that the results read, with the value each took (every "
        f"other field not given takes its declared default too; see {fields}):",
        found,
    ]


def headline_results(statute: ast.Statute) -> list[str]:
    """Returns the results the index shows for each example: the last three that are not
    categories (an enum's member names the kind of case, not its outcome), or the last three."""
    names = list(statute.result_names)
    amounts = [n for n in names if statute.definitions[n].type.kind != "enum"]
    return (amounts or names)[-3:]


def headline(statute: ast.Statute, example: Example, name: str) -> str:
    """Returns a result of an example for the index: of a scenario of periods, its total, or
    the number of periods for a result reported each period."""
    result = example.result
    if isinstance(result, PeriodResult):
        if name in result.totals:
            total = next(t for t in statute.totals if t.name == name)
            return display(result.total_type(total), result.totals[name])
        return f"each of {len(result.periods)} periods"
    return display(statute.definitions[name].type, result.values[name])


def index_page(site: Site) -> str:
    """Returns the list of worked examples with their headline results."""
    statute = site.ast
    here = site.path(EXAMPLES_INDEX)
    shown = headline_results(statute)
    rows = []
    for example in site.examples:
        link = f"[{example.title}]({relative(here, example.page)})"
        rows.append([link] + [headline(statute, example, name) for name in shown])
    listing = (
        table(["example", *[f"`{n}`" for n in shown]], rows)
        if rows
        else "No worked example was given (scenario files, or a cases file)."
    )
    return (
        "\n\n".join(
            [
                "# Worked examples",
                "Each worked example evaluated and explained, step by step, with links to the "
                f"clauses of {statute.name} that produce every number.",
                listing,
            ]
        )
        + "\n"
    )
