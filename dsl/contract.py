"""The scenario contract, derived from the encoding's input declarations.

Each field: its type, default, bounds, description, and the clauses whose rules use it (so the
documentation of the input format can never drift from the encoding).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from . import ast
from .checker import own_expressions, walk


@dataclass(frozen=True)
class Field:
    """One field of the scenario format."""

    name: str
    type: str
    default: str
    constraints: str
    description: str
    clauses: tuple[str, ...]


def _source(statute: ast.Statute, expr: ast.Expr) -> str:
    return " ".join(statute.source[expr.span.start : expr.span.end].split())


def _uses(statute: ast.Statute) -> list[tuple[ast.Clause, list[ast.Expr]]]:
    """Returns each clause with the expressions written in it: rules, cases, invariants."""
    places: list[tuple[ast.Clause, list[ast.Expr]]] = []
    for definition in statute.definitions.values():
        if isinstance(definition, ast.Cases):
            places += [
                (c.clause, [e for e in (c.expr, c.condition) if e]) for c in definition.cases
            ]
            if definition.otherwise is not None:
                places.append((definition.clause, [definition.otherwise]))
        else:
            places.append((definition.clause, own_expressions(definition)))
    places += [(e.clause, [e.expr, e.condition]) for e in statute.exceptions]
    places += [(invariant.clause, [invariant.expr]) for invariant in statute.invariants]
    return places


def fields(statute: ast.Statute) -> list[Field]:
    """Returns the scenario format's fields, in declaration order, from the encoding."""
    used_by: dict[str, list[ast.Clause]] = {name: [] for name in statute.inputs}
    for clause, expressions in _uses(statute):
        for expr in expressions:
            for node in walk(expr):
                if isinstance(node, ast.Ref | ast.Given) and node.name in used_by:
                    used_by[node.name].append(clause)
                elif isinstance(node, ast.Aggregate) and node.source in used_by:
                    used_by[node.source].append(clause)
    for monotone in statute.monotones:
        for name, _ in monotone.inputs:
            if name in used_by:
                used_by[name].append(monotone.clause)
    # A year input is used where the inputs read from a table by it are.
    for declared in statute.inputs.values():
        if declared.from_table is not None and declared.from_table.year in used_by:
            used_by[declared.from_table.year].extend(used_by[declared.name])
    found = []
    for declared in statute.inputs.values():
        if declared.required:
            default = "required"
        elif declared.default is not None:
            default = _source(statute, declared.default)
        else:
            default = "null" if declared.optional else "-"
        constraints = []
        words = {"min": "at least", "above": "more than", "max": "at most"}
        for bound in declared.bounds:
            text = f"{words[bound.kind]} {_source(statute, bound.value)}"
            if bound.when is not None:
                text += f" when {_source(statute, bound.when)}"
            constraints.append(text)
        if declared.required_when is not None:
            constraints.append(f"required when {_source(statute, declared.required_when)}")
        if declared.optional:
            constraints.append("may be null")
        if declared.from_table is not None:
            source = declared.from_table
            constraints.append(f"when left out, read from table {source.table} by {source.year}")
        if declared.derived_by is not None:
            derived = declared.derived_by
            constraints.append(
                f"derived by {derived.rule} when {_source(statute, derived.condition)} "
                "(not given then)"
            )
        # The section itself has no short citation: it is cited in full.
        clauses = tuple(
            dict.fromkeys(c.short_citation or statute.citation(c) for c in used_by[declared.name])
        )
        found.append(
            Field(
                declared.name,
                _kind_text(declared.type),
                default,
                "; ".join(constraints),
                declared.description,
                clauses,
            )
        )
        if declared.type.kind == "list" and declared.type.record in statute.records:
            found.extend(_element_fields(statute, declared, clauses))
    return found


def _element_fields(
    statute: ast.Statute, declared: ast.Input, clauses: tuple[str, ...]
) -> list[Field]:
    """Returns the fields of a list input's elements, each named `list[].field`."""
    words = {"min": "at least", "above": "more than", "max": "at most"}
    found = []
    for field in statute.records[declared.type.record].fields.values():
        default = _source(statute, field.default) if field.default is not None else "required"
        constraints = "; ".join(
            f"{words[bound.kind]} {_source(statute, bound.value)}" for bound in field.bounds
        )
        found.append(
            Field(
                f"{declared.name}[].{field.name}",
                _kind_text(field.type),
                default,
                constraints,
                field.description,
                clauses,
            )
        )
    return found


def markdown_table(statute: ast.Statute) -> str:
    """Returns the scenario format's fields as a Markdown table."""
    rows = [
        "| field | type | default | constraints | meaning | used by |",
        "|---|---|---|---|---|---|",
    ]
    for field in fields(statute):
        rows.append(
            f"| `{field.name}` | {field.type} | {field.default} | "
            f"{field.constraints or ''} | {field.description} | "
            f"{', '.join(field.clauses)} |"
        )
    return "\n".join(rows)


def _kind_text(declared: ast.Type) -> str:
    """The type as the scenario format names it: `money` for an amount per hour too (the
    period is the encoding's, checked by dsl/rates.py; a scenario gives the amount alone)."""
    return str(dataclasses.replace(declared, per=""))
