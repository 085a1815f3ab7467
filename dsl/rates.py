"""Rates from the words: an amount "per hour" is never met with an amount per year.

A type may state the period its amount is counted in: `money per hour`, `money per year`
(dsl/ast.py, Type.per). The period is not part of the type's identity (to the evaluator and the
proofs an hourly amount is money), but `lextrace check` follows it through every expression:

- the period of a name is the one its declaration states (an input, a record's field, a rule,
  a table); an aggregate's is its field's; `+`, `-`, `min`, `max`, the branches of `if` and a
  comparison join the periods of their operands; a product or a quotient by a count, a number,
  a share or a percentage keeps the other operand's; a number stated in the encoding takes the
  period of what it meets;
- two amounts of different stated periods met by one of those operations are refused ("an
  amount per hour compared with one per year");
- a rule or case whose declared period differs from the period of its value is refused, and so
  is an input `derived by` a rule of another period;
- a number whose words state a period ("less than $15 per hour", "$500 per year") is refused
  where it meets an amount of another stated period, quoting the words.

A name with no stated period meets anything: the check is never stronger than the
declarations and the words.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction

from . import ast
from .numbers import stated_number_spans

_PER = re.compile(r"\s*(?:per|an|a|each)\s+(hour|day|week|month|year)\b", re.I)
_SCALING = ("count", "number", "share")


@dataclass(frozen=True)
class RateFinding:
    """An amount met with one of another period: where, in which clause, what and how to fix."""

    span: ast.Span
    clause: ast.Clause
    message: str
    hint: str


def stated_periods(words: str) -> dict[Fraction, set[str]]:
    """Returns the periods the words attach to each amount they state ("$15 per hour")."""
    text = ast.folded(words)
    found: dict[Fraction, set[str]] = {}
    for number in stated_number_spans(text):
        match = _PER.match(text, number.end)
        if match is not None and text[number.start] == "$":
            found.setdefault(number.value, set()).add(match.group(1).lower())
    return found


class _Rates:
    def __init__(self, statute: ast.Statute) -> None:
        self.statute = statute
        self.findings: list[RateFinding] = []

    def declared(self, name: str) -> str:
        statute = self.statute
        if name in statute.definitions:
            return statute.definitions[name].type.per
        if name in statute.inputs:
            return statute.inputs[name].type.per
        return ""

    def field_period(self, aggregate: ast.Aggregate) -> str:
        source = self.statute.inputs.get(aggregate.source)
        if source is None or aggregate.field is None:
            return ""
        record = self.statute.records.get(source.type.record)
        declared = record.fields.get(aggregate.field) if record is not None else None
        return declared.type.per if declared is not None else ""

    def scaling(self, expr: ast.Expr) -> bool:
        """True when `expr` is a quantity without a currency (a count, number, share or
        percentage): a product by it keeps the other operand's period."""
        if isinstance(expr, ast.Literal):
            return expr.unit in ("percent", "number")
        if isinstance(expr, ast.Ref | ast.Call):
            for table in (self.statute.definitions, self.statute.inputs):
                if expr.name in table:
                    return table[expr.name].type.kind in _SCALING
        return False

    def join(
        self,
        place: _Place,
        expr: ast.Expr,
        periods: list[tuple[str, ast.Expr]],
        silent: bool = False,
    ) -> str:
        stated = [(p, e) for p, e in periods if p]
        for period, operand in stated[1:]:
            if period != stated[0][0]:
                if silent:
                    return ""
                self.refuse(
                    place,
                    operand,
                    f"'{self.text(expr)}' in '{place.name}' meets an amount per "
                    f"{stated[0][0]} ('{self.text(stated[0][1])}') with one per {period} "
                    f"('{self.text(operand)}')",
                    "convert one of them with a rule stating its period, or declare the "
                    "period each is counted in",
                )
                return ""
        return stated[0][0] if stated else ""

    def period(self, place: _Place, expr: ast.Expr, around: str) -> str:
        """Returns the period of `expr` ("" when none is stated), checking what it is made of;
        `around` is the period of what it meets (for the numbers it states)."""
        if isinstance(expr, ast.Literal):
            self.literal(place, expr, around)
            return ""
        if isinstance(expr, ast.Ref):
            return self.declared(expr.name)
        if isinstance(expr, ast.Aggregate):
            if expr.condition is not None:
                self.period(place, expr.condition, "")
            if expr.value is not None:
                return self.period(place, expr.value, around)
            return self.field_period(expr)
        if isinstance(expr, ast.Call) and expr.name in ("min", "max"):
            return self.joined(place, expr, list(expr.args), around)
        if isinstance(expr, ast.Call):
            for arg in (*expr.args, *(value for _, value in expr.kwargs)):
                self.period(place, arg, "")
            return self.declared(expr.name)
        if isinstance(expr, ast.BinOp) and expr.op in ("+", "-"):
            return self.joined(place, expr, [expr.left, expr.right], around)
        if isinstance(expr, ast.BinOp) and expr.op in ("*", "/"):
            if self.scaling(expr.right):
                self.period(place, expr.right, "")
                return self.period(place, expr.left, around)
            if expr.op == "*" and self.scaling(expr.left):
                self.period(place, expr.left, "")
                return self.period(place, expr.right, around)
            self.period(place, expr.left, "")
            self.period(place, expr.right, "")
            return ""
        if isinstance(expr, ast.Compare):
            self.joined(place, expr, [expr.left, expr.right], "")
            return ""
        if isinstance(expr, ast.If):
            self.period(place, expr.condition, "")
            return self.joined(place, expr, [expr.then, expr.otherwise], around)
        if isinstance(expr, ast.Neg):
            return self.period(place, expr.operand, around)
        for child in _children(expr):
            self.period(place, child, "")
        return ""

    def joined(self, place: _Place, expr: ast.Expr, operands: list[ast.Expr], around: str) -> str:
        # The operands' own periods first (a stated number has none), then each number is
        # judged against the period of what it meets.
        shallow = [(self.shallow(place, o), o) for o in operands]
        meets = self.join(place, expr, [*shallow, *(((around, expr),) if around else ())], True)
        meets = meets or self.join(place, expr, shallow, True)
        periods = [(self.period(place, o, meets), o) for o in operands]
        return self.join(place, expr, periods) or meets

    def shallow(self, place: _Place, expr: ast.Expr) -> str:
        """The period of `expr` as far as its declarations state it, without checking it."""
        saved = self.findings
        self.findings = []
        try:
            return self.period(place, expr, "")
        finally:
            self.findings = saved

    def literal(self, place: _Place, literal: ast.Literal, around: str) -> None:
        if literal.unit != "money" or not around or not isinstance(literal.value, Fraction):
            return
        stated = place.periods.get(literal.value, set())
        if stated and around not in stated and literal.written_magnitude not in place.reviewed:
            self.refuse(
                place,
                literal,
                f"the amount {literal.text} in '{place.name}' meets an amount per {around}, but "
                f"the words of {place.clause.short_citation or 'the section'} state it per "
                f"{' or per '.join(sorted(stated))}",
                f"compare it with an amount per {sorted(stated)[0]}",
            )

    def refuse(self, place: _Place, node: ast.Expr, message: str, hint: str) -> None:
        self.findings.append(RateFinding(node.span, place.clause, message, hint))

    def text(self, expr: ast.Expr) -> str:
        return " ".join(self.statute.source[expr.span.start : expr.span.end].split())


@dataclass(frozen=True)
class _Place:
    """Where expressions sit: the definition's name, its clause, the periods its words attach
    to each amount, and the amounts marked `reviewed` there."""

    name: str
    clause: ast.Clause
    periods: dict[Fraction, set[str]]
    reviewed: frozenset[Fraction | None] = frozenset()


def _children(expr: ast.Expr) -> Iterator[ast.Expr]:
    for value in vars(expr).values():
        if isinstance(value, ast.Expr):
            yield value
        elif isinstance(value, tuple):
            for item in value:
                if isinstance(item, ast.Expr):
                    yield item
                elif isinstance(item, tuple):
                    yield from (part for part in item if isinstance(part, ast.Expr))


def findings(statute: ast.Statute) -> list[RateFinding]:
    """Returns every place where amounts of different stated periods meet, or a number the
    words state per one period meets an amount of another (see the module's docstring), in
    encoding order."""
    rates = _Rates(statute)
    words: dict[int, dict[Fraction, set[str]]] = {}

    def place(name: str, clause: ast.Clause, reviewed: tuple[ast.Reviewed, ...] = ()) -> _Place:
        if id(clause) not in words:
            words[id(clause)] = stated_periods(clause.words)
        exempt = frozenset(item.literal.written_magnitude for item in reviewed)
        return _Place(name, clause, words[id(clause)], exempt)

    for definition in statute.definitions.values():
        here = place(definition.name, definition.clause, definition.reviewed)
        declared = definition.type.per
        values: list[ast.Expr] = []
        if isinstance(definition, ast.Rule):
            values = [definition.expr] if definition.expr is not None else []
            if definition.condition is not None:
                rates.period(here, definition.condition, "")
        elif isinstance(definition, ast.Cases):
            values = [definition.otherwise] if definition.otherwise is not None else []
            for case in definition.cases:
                case_place = place(definition.name, case.clause, case.reviewed)
                _value(rates, case_place, case.expr, declared, definition.name)
                if case.condition is not None:
                    rates.period(case_place, case.condition, "")
        for value in values:
            _value(rates, here, value, declared, definition.name)
    for invariant in statute.invariants:
        here = place(invariant.name, invariant.clause, invariant.reviewed)
        rates.period(here, invariant.expr, "")
    for declared_input in statute.inputs.values():
        derived = declared_input.derived_by
        if derived is None or derived.rule not in statute.definitions:
            continue
        rule = statute.definitions[derived.rule]
        if rule.type.per and declared_input.type.per and rule.type.per != declared_input.type.per:
            rates.refuse(
                place(rule.name, rule.clause),
                ast.Ref(declared_input.span, declared_input.name),
                f"{declared_input.name} is counted per {declared_input.type.per}, but the rule "
                f"{rule.name} that derives it is counted per {rule.type.per}",
                "derive it from a rule of its own period",
            )
    return sorted(rates.findings, key=lambda f: (f.span.line, f.span.column))


def _value(rates: _Rates, here: _Place, value: ast.Expr, declared: str, name: str) -> None:
    found = rates.period(here, value, declared)
    if declared and found and found != declared:
        rates.refuse(
            here,
            value,
            f"'{name}' is declared money per {declared}, but its value "
            f"'{rates.text(value)}' is counted per {found}",
            f"declare it per {found}, or convert the value",
        )
