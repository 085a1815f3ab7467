"""Worked examples: one page per scenario in examples/, with its results and traced explanation.

Each page shows the facts of the scenario, the result table, the derivation of each result in
prose (every number put into its rule, every citation a link to its clause), the bonuses that did
not apply with the reason, and the whole trace as a table.
"""

from __future__ import annotations

from lextrace.dsl import ast
from lextrace.dsl.scenario import pinned_readings
from lextrace.dsl.trace import display

from .context import EXAMPLES_INDEX, STATUTE_PAGE, Example, Site, relative
from .explanation import derivations, facts_table, results_table
from .markdown import table


def example_page(site: Site, example: Example) -> str:
    """Returns the page of one worked example."""
    result = example.result
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
    parts = [
        f"# {example.title}",
        f"Scenario file `examples/{example.path.name}`, evaluated under "
        + (
            f"the readings it pins ({pinned}) and the defaults otherwise"
            if pinned
            else "the default readings"
        )
        + f" ({readings}). Reproduce it with `lextrace explain examples/{example.path.name}`.",
        "## The facts",
        f"Fields not listed take their declared defaults (see the "
        f"[scenario format]({relative(here, 'scenario-format.md')})).",
        facts_table(result, example.scenario),
        "## The results",
        results_table(result, link_for),
        "## How each result is reached",
        *derivations(result, link_for),
        "## The whole trace",
        "Every value the evaluation computed, in the order computed, with the rule or case that "
        "gave it and its clause.",
        result.trace.markdown(link=relative(here, STATUTE_PAGE)),
    ]
    return "\n\n".join(parts) + "\n"


def index_page(site: Site) -> str:
    """Returns the list of worked examples with their headline results."""
    statute = site.ast
    shown = [name for name in statute.result_names if name != "area_tier"][-3:]
    rows = []
    for example in site.examples:
        link = f"[{example.title}]({relative(EXAMPLES_INDEX, example.page)})"
        rows.append(
            [link]
            + [
                display(statute.definitions[name].type, example.result.values[name])
                for name in shown
            ]
        )
    return (
        "\n\n".join(
            [
                "# Worked examples",
                "Each scenario in `examples/` evaluated and explained, step by step, with links "
                f"to the clauses of {statute.name} that produce every number.",
                table(["example", *[f"`{n}`" for n in shown]], rows),
            ]
        )
        + "\n"
    )
