"""A traced evaluation rendered for the site: results table, prose derivations, whole trace.

Shared by the worked examples, the counterexamples of the proof report and the witnesses of the
amendment pages. `link_for` gives a clause's link from the page, or None for plain citations
(used for encodings other than the bundled one, whose clauses have no anchor on the site).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from lextrace.api import Result
from lextrace.dsl import ast
from lextrace.dsl.evaluator import INPUT, Key
from lextrace.dsl.prose import Narrator
from lextrace.dsl.trace import display

from .markdown import table

LinkFor = Callable[[ast.Clause], str] | None


def cite(clause: ast.Clause, link_for: LinkFor) -> str:
    """Returns a clause's citation, linked when pages are linked."""
    citation = clause.own_citation
    return f"[{citation}]({link_for(clause)})" if link_for else citation


def results_table(result: Result, link_for: LinkFor, names: Iterable[str] | None = None) -> str:
    """Returns the result table: each result (every one by default), its value and the clause
    that gave it."""
    assert result.trace is not None
    narrator = Narrator(result.trace, link_for)
    statute = result.statute
    rows = []
    for name in names if names is not None else statute.result_names:
        step = result.trace.evaluation.steps[(name, ())]
        rows.append(
            [
                f"`{name}`",
                display(statute.definitions[name].type, result.values[name]),
                cite(narrator.explain(step).clause, link_for),
            ]
        )
    return table(["result", "value", "clause"], rows)


def derivations(
    result: Result, link_for: LinkFor, names: Iterable[str] | None = None, level: str = "###"
) -> list[str]:
    """Returns, for each named result (every result by default), a heading (a bold line when
    `level` is empty) and its derivation in prose; steps told under an earlier result are not
    repeated."""
    assert result.trace is not None
    narrator = Narrator(result.trace, link_for)
    explained: set[Key] = set()
    parts: list[str] = []
    for name in names if names is not None else result.statute.result_names:
        parts.append(f"{level} `{name}`" if level else f"**`{name}`**")
        parts.append(narrator.markdown(name, explained))
    return parts


def defaults_table(result: Result, scenario_fields: Iterable[str]) -> str | None:
    """Returns the facts the scenario leaves out that the evaluation read, with the value each
    took (its declared default, or its dated table's entry) and where it comes from; None when
    there are none or the result has no trace."""
    if result.trace is None:
        return None
    given = set(scenario_fields)
    read = {
        str(args[0])
        for step in result.trace.steps
        for name, args in step.uses
        if name == INPUT and str(args[0]) not in given
    }
    rows = [
        [
            f"`{name}`",
            display(declared.type, result.inputs[name]),
            "declared default" if name not in result.derived else result.trace.input_origin(name),
            declared.description.replace("\n", " "),
        ]
        for name, declared in result.statute.inputs.items()
        if name in read and result.inputs.get(name) is not None
    ]
    return table(["fact", "value", "from", "meaning"], rows) if rows else None


def facts_table(result: Result, scenario_fields: Iterable[str]) -> str:
    """Returns the facts given in a scenario with their values and meanings."""
    statute = result.statute
    given = set(scenario_fields)
    return table(
        ["fact", "value", "meaning"],
        [
            [
                f"`{name}`",
                display(declared.type, result.inputs[name]),
                declared.description.replace("\n", " "),
            ]
            for name, declared in statute.inputs.items()
            if name in given
        ],
    )
