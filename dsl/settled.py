"""Comparisons the declarations settle: `jobs >= 0` on a count always holds, and decides nothing.

A rule, a case or an exception that compares a value that can never be negative with zero,
`>= 0` (or `0 <=`) or `< 0` (or `0 >`), states a condition that always holds or never holds:
it reads like a condition of the words ("enters into a labor harmony agreement" as
`covered_jobs > 0`) mistyped. Never negative, from the declarations alone: a number at least 0
as written, a `count` or `share` input, a money or number input whose unconditional literal
bound is at least 0 (`min $0`, `above $0`), a count of a list's elements, and sums, products,
quotients, `min`, `max`, `floor` and `ceil` of those. Rules are not followed (what a rule's
value can be is for `lextrace verify`), nor are invariants checked: they may state what the
declarations already say.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from . import ast
from .checker import walk
from .wording import placements

_PRESERVING = ("min", "max", "floor", "ceil")


@dataclass(frozen=True)
class SettledFinding:
    """A comparison that always or never holds: where, in which clause, what and how to fix."""

    span: ast.Span
    clause: ast.Clause
    message: str
    hint: str


def findings(statute: ast.Statute) -> list[SettledFinding]:
    """Returns each comparison of a rule, a case or an exception that the declarations settle
    (see the module's docstring), in encoding order."""
    found = []
    for placed in placements(statute):
        if placed.is_property:
            continue
        for expr in placed.expressions:
            for node in walk(expr):
                if isinstance(node, ast.Compare):
                    finding = _settled(statute, placed.name, placed.clause, node)
                    if finding is not None:
                        found.append(finding)
    return sorted(found, key=lambda f: (f.span.line, f.span.column))


def _settled(
    statute: ast.Statute, name: str, clause: ast.Clause, compare: ast.Compare
) -> SettledFinding | None:
    if _zero(compare.right):
        side, op = compare.left, compare.op
    elif _zero(compare.left):
        side, op = compare.right, {">": "<", "<=": ">="}.get(compare.op, "")
    else:
        return None
    if op not in (">=", "<") or not _never_negative(statute, side):
        return None
    written = ast.folded(statute.source[compare.span.start : compare.span.end])
    value = ast.folded(statute.source[side.span.start : side.span.end])
    holds = "always holds" if op == ">=" else "never holds"
    return SettledFinding(
        compare.span,
        clause,
        f"'{written}' in '{name}' {holds}: {value} is never negative, so the comparison "
        "decides nothing",
        'compare as the words mean ("more than none" is > 0), or drop the comparison',
    )


def _zero(expr: ast.Expr) -> bool:
    return (
        isinstance(expr, ast.Literal)
        and not isinstance(expr.value, bool)
        and expr.unit not in ("date", "duration")
        and expr.value == 0
    )


def _never_negative(statute: ast.Statute, expr: ast.Expr) -> bool:
    """True when the declarations alone keep `expr` at 0 or above (see the module's
    docstring)."""
    if isinstance(expr, ast.Literal):
        return (
            not isinstance(expr.value, bool)
            and expr.unit not in ("date", "duration")
            and expr.value >= 0
        )
    if isinstance(expr, ast.Ref):
        declared = statute.inputs.get(expr.name)
        return declared is not None and _input_never_negative(declared)
    if isinstance(expr, ast.Aggregate):
        return expr.op == "count"
    if isinstance(expr, ast.BinOp):
        return expr.op in ("+", "*", "/") and all(
            _never_negative(statute, side) for side in (expr.left, expr.right)
        )
    if isinstance(expr, ast.Call) and expr.name in _PRESERVING and not expr.kwargs:
        return bool(expr.args) and all(_never_negative(statute, arg) for arg in expr.args)
    return False


def _input_never_negative(declared: ast.Input) -> bool:
    if declared.type.kind in ("count", "share"):
        return True
    if declared.type.kind not in ("money", "number"):
        return False
    return any(
        bound.when is None
        and bound.kind in ("min", "above")
        and isinstance(bound.value, ast.Literal)
        and not isinstance(bound.value.value, bool)
        and Fraction(bound.value.value) >= 0
        for bound in declared.bounds
    )
