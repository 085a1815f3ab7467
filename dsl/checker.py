"""Static checks of an encoding: names, types and units, definitions, traceable numbers, coverage.

`check_statute` returns diagnostics; errors make an encoding unusable, warnings are advice.
Each number a rule uses must be stated by the words of the clause the rule sits in (in digits
or in words), unless the rule marks it `reviewed` with a reason.
"""

from __future__ import annotations

import datetime
import re
import weakref
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction

from . import ast, dates
from .coverage import COMPUTING, NOT_YET_ENCODED
from .errors import Diagnostic, diagnostic_at, line_column
from .reserved import RESERVED_KEYS
from .suggest import closest
from .values import decimal_string, exact_string

BUILTINS = ("min", "max", "floor", "ceil", "date")
TEMPORAL = ("date", "duration")


@dataclass(frozen=True)
class EnumMember:
    """The type of a bare enum member name such as `b1`, before it meets its enum."""

    name: str


ExprType = ast.Type | EnumMember


def _is_zero(literal: ast.Literal) -> bool:
    return not isinstance(literal.value, bool) and literal.value == 0


def literals(expr: ast.Expr | None) -> Iterator[ast.Literal]:
    """Yields every literal inside an expression."""
    for node in walk(expr):
        if isinstance(node, ast.Literal):
            yield node


def walk(expr: ast.Expr | None) -> Iterator[ast.Expr]:
    """Yields an expression and all its sub-expressions, depth first."""
    if expr is None:
        return
    yield expr
    # The sub-expressions of `ast.children`, spelled out: a fifth faster than through it, and
    # walking is much of what `verify` does outside Z3.
    if isinstance(expr, ast.Call):
        for arg in expr.args:
            yield from walk(arg)
        for _, arg in expr.kwargs:
            yield from walk(arg)
    elif isinstance(expr, ast.BinOp | ast.Compare | ast.BoolOp):
        yield from walk(expr.left)
        yield from walk(expr.right)
    elif isinstance(expr, ast.Not | ast.Neg | ast.PartOf):
        yield from walk(expr.operand)
    elif isinstance(expr, ast.If):
        yield from walk(expr.condition)
        yield from walk(expr.then)
        yield from walk(expr.otherwise)
    elif isinstance(expr, ast.Aggregate):
        yield from walk(expr.value)
        yield from walk(expr.condition)


def computed_type(statute: ast.Statute, expr: ast.Aggregate) -> ast.Type:
    """Returns the type of `OP of (EXPRESSION) in LIST` in a checked encoding (see
    `_Checker.infer_computed`); a parameter it names takes the type the definitions declare
    for that name. Worked out once per statute and aggregate: a trace asks for it at each
    line and value it shows."""
    assert expr.value is not None
    memo = _kept_for(statute)
    key = ("computed_type", id(expr))
    if key not in memo:
        memo[key] = _computed_type(statute, expr)
    found = memo[key]
    assert isinstance(found, ast.Type)
    return found


def _computed_type(statute: ast.Statute, expr: ast.Aggregate) -> ast.Type:
    assert expr.value is not None
    names = {node.name for node in walk(expr.value) if isinstance(node, ast.Ref)}
    params: dict[str, ast.Param] = {}
    for definition in statute.definitions.values():
        for param in definition.params:
            if param.name in names:
                params.setdefault(param.name, param)
    scope = (*params.values(), *element_params(statute, expr))
    found = _Checker(statute).infer_computed(expr, scope, None)
    assert isinstance(found, ast.Type), f"unchecked aggregate {expr!r}"
    return found


def element_params(statute: ast.Statute, expr: ast.Aggregate) -> tuple[ast.Param, ...]:
    """Returns the fields of the elements an aggregate runs over, as the parameters its
    `where` condition sees (none when its list is not a list input of a declared record)."""
    record = statute.record_of(expr.source)
    if record is None:
        return ()
    return tuple(ast.Param(f.name, f.type, f.span) for f in record.fields.values())


def references(statute: ast.Statute, expr: ast.Expr | None) -> set[str]:
    """Returns the definitions an expression uses (bonus sums count every bonus)."""
    used: set[str] = set()
    for node in walk(expr):
        if (isinstance(node, ast.Ref) and node.name in statute.definitions) or (
            isinstance(node, ast.Call) and node.name in statute.definitions
        ):
            used.add(node.name)
        elif isinstance(node, ast.BonusSum):
            used.update(bonus.name for bonus in statute.bonuses)
    return used


def definition_expressions(definition: ast.Rule | ast.Cases) -> list[ast.Expr]:
    """Returns every expression a definition evaluates: value, conditions, cases, and the
    values and conditions of the exceptions to it."""
    found = own_expressions(definition)
    for exception in definition.exceptions:
        found.extend((exception.expr, exception.condition))
    return found


def own_expressions(definition: ast.Rule | ast.Cases) -> list[ast.Expr]:
    """Returns the expressions of a definition's own clauses: value, conditions, cases (not
    its exceptions')."""
    found: list[ast.Expr] = []
    if isinstance(definition, ast.Rule):
        found.extend(e for e in (definition.expr, definition.condition) if e is not None)
    else:
        if definition.otherwise is not None:
            found.append(definition.otherwise)
        for case in definition.cases:
            found.append(case.expr)
            if case.condition is not None:
                found.append(case.condition)
    return found


# What is worked out once per statute, kept while the statute lives (by the statute's id; the
# statute holds every object a key names).
_KEPT: dict[int, dict[object, object]] = {}


def _kept_for(statute: ast.Statute) -> dict[object, object]:
    """Returns the memo of `statute`, dropped when the statute is."""
    memo = _KEPT.get(id(statute))
    if memo is None:
        memo = _KEPT[id(statute)] = {}
        weakref.finalize(statute, _KEPT.pop, id(statute), None)
    return memo


def dependencies(statute: ast.Statute) -> dict[str, set[str]]:
    """Returns, for each definition, the definitions it uses directly (computed once for a
    statute whose definitions have not changed since: `verify` asks a few hundred times, a
    tenth of a second each on the bundled statute; not to be modified)."""
    memo = _kept_for(statute)
    kept = memo.get("dependencies")
    if isinstance(kept, tuple) and kept[0] is statute.definitions and kept[1] == len(kept[0]):
        return kept[2]  # type: ignore[no-any-return]
    graph = {
        name: set().union(
            *(references(statute, expr) for expr in definition_expressions(definition))
        )
        for name, definition in statute.definitions.items()
    }
    memo["dependencies"] = (statute.definitions, len(statute.definitions), graph)
    return graph


def reachable_definitions(statute: ast.Statute, roots: list[str] | tuple[str, ...]) -> set[str]:
    """Returns the definitions the named roots use, directly or not (the roots included)."""
    graph = dependencies(statute)
    reached: set[str] = set()
    stack = list(roots)
    while stack:
        name = stack.pop()
        if name in reached or name not in statute.definitions:
            continue
        reached.add(name)
        stack.extend(graph[name])
    return reached


def readings_used(statute: ast.Statute, roots: list[str] | tuple[str, ...]) -> set[str]:
    """Returns the readings the definitions behind the named roots rest on: those they are
    annotated with, and those their expressions test."""
    used: set[str] = set()
    for name in reachable_definitions(statute, roots):
        definition = statute.definitions[name]
        used.update(definition.readings)
        if isinstance(definition, ast.Cases):
            for case in definition.cases:
                used.update(case.readings)
        for exception in definition.exceptions:
            used.update(exception.readings)
        for expr in definition_expressions(definition):
            used.update(n.reading for n in walk(expr) if isinstance(n, ast.ReadingTest))
    return used


class _Checker:
    def __init__(self, statute: ast.Statute) -> None:
        self.statute = statute
        self.diagnostics: list[Diagnostic] = []
        self.members: dict[str, list[ast.Type]] = {}
        # The numbers each clause states, worked out once: a clause holding many rules would
        # otherwise be read again for each of them.
        self.stated: dict[int, set[Fraction]] = {}
        # The names offered for a misspelt one: the input meant is not "never used".
        self.suggested: set[str] = set()
        # The date differences (`later - earlier`): durations counted in days.
        self.between_dates: set[int] = set()
        for type_ in statute.declared_types:
            self._note_members(type_)

    def _note_members(self, type_: ast.Type) -> None:
        for member in type_.members:
            self.members.setdefault(member, []).append(type_)

    def report(
        self,
        span: ast.Span,
        message: str,
        clause: ast.Clause | None = None,
        hint: str | None = None,
        severity: str = "error",
    ) -> None:
        self.diagnostics.append(
            diagnostic_at(self.statute, span, message, clause, hint=hint, severity=severity)
        )

    # ---- names ----------------------------------------------------------------------------
    def known_names(self, params: tuple[ast.Param, ...]) -> list[str]:
        return [
            *self.statute.inputs,
            *self.statute.definitions,
            *(p.name for p in params),
            *self.members,
        ]

    def did_you_mean(self, name: str, params: tuple[ast.Param, ...]) -> str | None:
        close = closest(name, self.known_names(params), cutoff=0.7)
        if close:
            self.suggested.add(close)
        return f"did you mean '{close}'?" if close else None

    # ---- types ----------------------------------------------------------------------------
    def infer(
        self, expr: ast.Expr, params: tuple[ast.Param, ...], clause: ast.Clause | None
    ) -> ExprType | None:
        """Returns the type of `expr`, reporting every problem; None when it has none."""
        statute = self.statute
        if isinstance(expr, ast.Literal):
            if expr.unit == "bool":
                return ast.BOOL
            if expr.unit == "money":
                return ast.MONEY
            if expr.unit == "date":
                return ast.DATE
            if expr.unit == "duration":
                return ast.DURATION
            if Fraction(expr.value).denominator == 1 and expr.unit == "number":
                return ast.COUNT
            return ast.NUMBER
        if isinstance(expr, ast.Ref):
            for param in reversed(params):  # the innermost element's fields come last
                if param.name == expr.name:
                    if param.type.kind == "text":
                        self.report(
                            expr.span,
                            f"'{expr.name}' is a text field: it names an element, it cannot "
                            "be computed with",
                            clause,
                        )
                        return None
                    return param.type
            if expr.name in statute.inputs:
                found = statute.inputs[expr.name].type
                if found.kind == "list":
                    self.report(
                        expr.span,
                        f"'{expr.name}' is a list: use it in an aggregate",
                        clause,
                        hint=f"for example count of {expr.name}",
                    )
                    return None
                return found
            if expr.name in statute.definitions:
                definition = statute.definitions[expr.name]
                if definition.params:
                    names = ", ".join(f"{p.name}: ..." for p in definition.params)
                    self.report(
                        expr.span,
                        f"'{expr.name}' takes parameters",
                        clause,
                        hint=f"write {expr.name}({names})",
                    )
                    return None
                return definition.type
            if expr.name in self.members:
                return EnumMember(expr.name)
            self.report(
                expr.span,
                f"unknown name '{expr.name}'",
                clause,
                hint=self.did_you_mean(expr.name, params),
            )
            return None
        if isinstance(expr, ast.Call):
            return self.infer_call(expr, params, clause)
        if isinstance(expr, ast.BinOp):
            return self.infer_arithmetic(expr, params, clause)
        if isinstance(expr, ast.Compare):
            self.infer_comparison(expr, params, clause)
            return ast.BOOL
        if isinstance(expr, ast.BoolOp):
            for side in (expr.left, expr.right):
                self.expect_bool(side, params, clause, f"'{expr.op}'")
            return ast.BOOL
        if isinstance(expr, ast.Not):
            self.expect_bool(expr.operand, params, clause, "'not'")
            return ast.BOOL
        if isinstance(expr, ast.Neg):
            operand = self.infer(expr.operand, params, clause)
            if isinstance(operand, ast.Type) and not (
                operand.is_numeric or operand == ast.DURATION
            ):
                self.report(expr.span, f"cannot negate a {operand}", clause)
                return None
            return ast.NUMBER if operand == ast.COUNT else operand
        if isinstance(expr, ast.PartOf):
            operand = self.infer(expr.operand, params, clause)
            if operand is not None and operand != ast.DATE:
                self.report(
                    expr.span,
                    f"'{expr.part} of' takes a date, given {_given(operand)}",
                    clause,
                )
            return ast.COUNT
        if isinstance(expr, ast.If):
            self.expect_bool(expr.condition, params, clause, "'if'")
            then = self.infer(expr.then, params, clause)
            otherwise = self.infer(expr.otherwise, params, clause)
            return self.unify(then, otherwise, expr, clause, "the two branches of 'if'")
        if isinstance(expr, ast.Given):
            declared = statute.inputs.get(expr.name)
            if declared is None:
                self.report(
                    expr.span,
                    f"'{expr.name}' is not an input",
                    clause,
                    hint=self.did_you_mean(expr.name, params),
                )
            elif not declared.optional:
                self.report(
                    expr.span,
                    f"'{expr.name}' is not optional, so it is always given",
                    clause,
                    hint="declare the input 'optional'",
                )
            return ast.BOOL
        if isinstance(expr, ast.ReadingTest):
            reading = statute.readings.get(expr.reading)
            if reading is None:
                self.report(expr.span, f"unknown reading {expr.reading}", clause)
            elif expr.option not in {o.name for o in reading.options}:
                names = ", ".join(o.name for o in reading.options)
                self.report(
                    expr.span,
                    f"reading {expr.reading} has no option '{expr.option}'",
                    clause,
                    hint=f"its options are {names}",
                )
            return ast.BOOL
        if isinstance(expr, ast.Aggregate):
            return self.infer_aggregate(expr, params, clause)
        if isinstance(expr, ast.BonusSum):
            for bonus in statute.bonuses:
                for param in bonus.params:
                    if not any(p.name == param.name and p.type == param.type for p in params):
                        self.report(
                            expr.span,
                            f"bonus '{bonus.name}' needs parameter "
                            f"'{param.name}: {param.type}', which this rule lacks",
                            clause,
                        )
            return ast.MONEY
        raise AssertionError(f"unhandled expression {expr!r}")  # pragma: no cover

    def infer_aggregate(
        self, expr: ast.Aggregate, params: tuple[ast.Param, ...], clause: ast.Clause | None
    ) -> ExprType | None:
        """Returns the type of an aggregate: a count for `count`, a bool for `any` and `all`,
        the field's unit for `sum`, `min`, `max` and the medians."""
        statute = self.statute
        what = f"'{expr.op} of'"
        record = statute.record_of(expr.source)
        if record is None:
            declared = statute.inputs.get(expr.source)
            if declared is not None and declared.type.kind != "list":
                message = f"{what} needs a list, and '{expr.source}' is a {declared.type}"
            else:
                message = f"'{expr.source}' is not a list input"
            hint = None if declared is not None else self.did_you_mean(expr.source, params)
            self.report(expr.span, message, clause, hint=hint)
            return None
        fields = element_params(statute, expr)
        if expr.condition is not None:
            self.expect_bool(expr.condition, (*params, *fields), clause, "'where'")
        if expr.value is not None:
            return self.infer_computed(expr, (*params, *fields), clause)
        field = record.fields.get(expr.field) if expr.field is not None else None
        if expr.field is not None and field is None:
            close = closest(expr.field, record.fields)
            self.report(
                expr.span,
                f"record '{record.name}' has no field '{expr.field}'",
                clause,
                hint=f"did you mean '{close}'?" if close else None,
            )
            return None
        if expr.op == "count":
            if field is not None:
                self.report(
                    expr.span,
                    "'count of' counts elements, not a field",
                    clause,
                    hint=f"write count of {expr.source}",
                )
            return ast.COUNT
        if expr.op in ("any", "all"):
            if field is not None and field.type != ast.BOOL:
                self.report(
                    expr.span,
                    f"{what} needs a bool field; '{field.name}' is a {field.type}",
                    clause,
                )
            return ast.BOOL
        if field is None:
            self.report(
                expr.span,
                f"{what} needs a field",
                clause,
                hint=f"write {expr.op} of FIELD in {expr.source}",
            )
            return None
        if field.type == ast.DATE and expr.op in ("min", "max"):
            return ast.DATE  # the earliest, the latest date
        if not field.type.is_numeric:
            self.report(
                expr.span,
                f"{what} needs a numeric field; '{field.name}' is a {field.type}",
                clause,
            )
            return None
        if expr.op == "sum":
            return ast.NUMBER if field.type == ast.SHARE else field.type
        if expr.op == "median" and field.type == ast.COUNT:
            return ast.NUMBER  # the mean of two middle counts may be a half
        return field.type

    def infer_computed(
        self, expr: ast.Aggregate, scope: tuple[ast.Param, ...], clause: ast.Clause | None
    ) -> ExprType | None:
        """Returns the type of `OP of (EXPRESSION) in LIST`: the expression's, computed for
        each element over its fields (a number for the sum of shares and the median of
        counts); it must be numeric."""
        assert expr.value is not None
        found = self.infer(expr.value, scope, clause)
        if found is None:
            return None
        if not isinstance(found, ast.Type) or not found.is_numeric:
            self.report(
                expr.value.span,
                f"'{expr.op} of' needs an amount for each element; this is a {found}",
                clause,
            )
            return None
        if expr.op == "sum" and found == ast.SHARE:
            return ast.NUMBER
        if expr.op == "median" and found == ast.COUNT:
            return ast.NUMBER
        return found

    def expect_bool(
        self, expr: ast.Expr, params: tuple[ast.Param, ...], clause: ast.Clause | None, where: str
    ) -> None:
        found = self.infer(expr, params, clause)
        if found is not None and found != ast.BOOL:
            self.report(
                expr.span, f"{where} needs a condition (bool), given {_given(found)}", clause
            )

    def unify(
        self,
        left: ExprType | None,
        right: ExprType | None,
        expr: ast.Expr,
        clause: ast.Clause | None,
        what: str,
    ) -> ExprType | None:
        if left is None or right is None:
            return left or right
        if isinstance(left, EnumMember) or isinstance(right, EnumMember):
            enum = right if isinstance(left, EnumMember) else left
            if isinstance(enum, ast.Type) and enum.kind == "enum":
                member = left if isinstance(left, EnumMember) else right
                assert isinstance(member, EnumMember)
                if member.name not in enum.members:
                    self.report(expr.span, f"'{member.name}' is not one of {enum}", clause)
                return enum
            return left
        if left == right:
            return left
        if left.is_dimensionless and right.is_dimensionless:
            return ast.NUMBER
        self.report(expr.span, f"{what} differ: {_describe(left)} and {_describe(right)}", clause)
        return None

    def infer_call(
        self, expr: ast.Call, params: tuple[ast.Param, ...], clause: ast.Clause | None
    ) -> ExprType | None:
        statute = self.statute
        if expr.name in BUILTINS:
            if expr.kwargs:
                self.report(expr.span, f"{expr.name}() takes no named arguments", clause)
            types = [self.infer(arg, params, clause) for arg in expr.args]
            if expr.name == "date":
                if len(expr.args) != 3:
                    self.report(expr.span, "date() takes a year, a month and a day", clause)
                for arg, found in zip(expr.args, types, strict=False):
                    if found is not None and found != ast.COUNT:
                        self.report(
                            arg.span,
                            f"date() takes whole numbers (counts), given {_given(found)}",
                            clause,
                        )
                return ast.DATE
            if expr.name in ("floor", "ceil"):
                if len(expr.args) != 1:
                    self.report(expr.span, f"{expr.name}() takes one argument", clause)
                    return ast.COUNT
                (only,) = types
                if isinstance(only, ast.Type) and not only.is_dimensionless:
                    self.report(
                        expr.args[0].span,
                        f"{expr.name}() counts whole steps of a ratio; given {_given(only)}",
                        clause,
                        hint="divide by an amount of the same unit first",
                    )
                return ast.COUNT
            if len(expr.args) < 2:
                self.report(expr.span, f"{expr.name}() takes two or more arguments", clause)
                return None
            result: ExprType | None = types[0]
            for arg, found in zip(expr.args[1:], types[1:], strict=True):
                result = self.unify(result, found, arg, clause, f"the arguments of {expr.name}()")
            if isinstance(result, ast.Type) and not (result.is_numeric or result == ast.DATE):
                self.report(expr.span, f"{expr.name}() compares amounts, given {result}", clause)
            return result
        definition = statute.definitions.get(expr.name)
        if definition is None:
            self.report(
                expr.span,
                f"unknown rule '{expr.name}'",
                clause,
                hint=self.did_you_mean(expr.name, params),
            )
            return None
        if expr.args:
            self.report(
                expr.span,
                f"name the arguments of '{expr.name}'",
                clause,
                hint=", ".join(f"{p.name}: ..." for p in definition.params),
            )
        given = dict(expr.kwargs)
        for param in definition.params:
            if param.name not in given:
                self.report(expr.span, f"'{expr.name}' needs the argument '{param.name}'", clause)
                continue
            found = self.infer(given[param.name], params, clause)
            if isinstance(found, EnumMember):  # a member named as the argument
                self.expect_assignable(
                    param.type, found, given[param.name], clause, f"argument '{param.name}'"
                )
            elif found is not None and not _assignable(param.type, found):
                self.report(
                    given[param.name].span,
                    f"argument '{param.name}' of "
                    f"'{expr.name}' must be a {param.type}, given {_given(found)}",
                    clause,
                )
        for name, arg in expr.kwargs:
            if name not in {p.name for p in definition.params}:
                self.report(arg.span, f"'{expr.name}' has no parameter '{name}'", clause)
        return definition.type

    def infer_arithmetic(
        self, expr: ast.BinOp, params: tuple[ast.Param, ...], clause: ast.Clause | None
    ) -> ExprType | None:
        left = self.infer(expr.left, params, clause)
        right = self.infer(expr.right, params, clause)
        if left is None or right is None:
            return None
        if any(isinstance(t, ast.Type) and t.kind in TEMPORAL for t in (left, right)):
            return self.infer_calendar(expr, left, right, clause)
        if not (
            isinstance(left, ast.Type)
            and left.is_numeric
            and isinstance(right, ast.Type)
            and right.is_numeric
        ):
            self.report(
                expr.span,
                f"'{expr.op}' needs amounts or numbers, given "
                f"{_describe(left)} and {_describe(right)}",
                clause,
            )
            return None
        money_left, money_right = left == ast.MONEY, right == ast.MONEY
        if expr.op in "+-":
            if money_left != money_right:
                self.report(
                    expr.span,
                    f"cannot {'add' if expr.op == '+' else 'subtract'} "
                    f"{_describe(left)} and {_describe(right)}: the units differ",
                    clause,
                    hint="multiply a share or number by an amount first",
                )
                return None
            if money_left:
                return ast.MONEY
            return ast.COUNT if left == right == ast.COUNT else ast.NUMBER
        if expr.op == "*":
            if money_left and money_right:
                self.report(expr.span, "cannot multiply money by money", clause)
                return None
            if money_left or money_right:
                return ast.MONEY
            return ast.COUNT if left == right == ast.COUNT else ast.NUMBER
        # division
        if money_right and not money_left:
            self.report(expr.span, f"cannot divide a {_describe(left)} by money", clause)
            return None
        if money_left and not money_right:
            return ast.MONEY
        return ast.NUMBER

    def infer_calendar(
        self, expr: ast.BinOp, left: ExprType, right: ExprType, clause: ast.Clause | None
    ) -> ExprType | None:
        """Returns the type of arithmetic on dates and durations: date +/- duration is a date,
        date - date a duration (in days), duration +/- duration a duration; anything else is
        reported."""
        op = expr.op
        if op in "+-":
            if left == ast.DATE and right == ast.DURATION:
                return ast.DATE
            if op == "+" and left == ast.DURATION and right == ast.DATE:
                return ast.DATE
            if op == "-" and left == ast.DATE and right == ast.DATE:
                self.between_dates.add(id(expr))
                return ast.DURATION
            if left == ast.DURATION and right == ast.DURATION:
                return ast.DURATION
        verb = {"+": "add", "-": "subtract", "*": "multiply", "/": "divide"}[op]
        hint = None
        if ast.DATE in (left, right) and any(
            isinstance(t, ast.Type) and t.is_dimensionless for t in (left, right)
        ):
            hint = "a duration is written with its unit: 30 days, 6 months, 2 years"
        elif left == right == ast.DATE:
            hint = "subtract two dates for the duration between them"
        joined = "and" if op in "+-" else "by" if op == "/" else "and"
        self.report(
            expr.span,
            f"cannot {verb} {_describe(left)} {joined} {_describe(right)}",
            clause,
            hint=hint,
        )
        return None

    def check_duration_units(self, expr: ast.Compare, clause: ast.Clause | None) -> None:
        """Reports a comparison of a duration counted in days with one counted in months,
        each as its form says (`later - earlier` in days, `12 months` in months): whether a
        month is more than 30 days depends on the month, so no scenario could be decided.
        Durations whose unit only a scenario says are left to the evaluator and `verify`."""
        units = self._counted_in(expr.left), self._counted_in(expr.right)
        if None in units or units[0] == units[1]:
            return
        between = {id(expr.left), id(expr.right)} & self.between_dates
        self.report(
            expr.span,
            "cannot compare a duration in days with one in months: whether a month is more "
            "than 30 days depends on the month",
            clause,
            hint="add the months to the earlier date and compare the dates: "
            "later >= earlier + 12 months"
            if between
            else "write both durations in days, or both in months or years",
        )

    def _counted_in(self, expr: ast.Expr) -> str | None:
        """Returns "days" or "months" when the form of a duration expression says which it is
        counted in (a literal's unit, a date difference, a sum or difference of such), else
        None."""
        from .numbers import unit_word

        if isinstance(expr, ast.Literal) and expr.unit == "duration":
            return "months" if unit_word(expr.duration_unit) in ("month", "year") else "days"
        if id(expr) in self.between_dates:
            return "days"
        if isinstance(expr, ast.Neg):
            return self._counted_in(expr.operand)
        if isinstance(expr, ast.BinOp) and expr.op in "+-":
            left, right = self._counted_in(expr.left), self._counted_in(expr.right)
            return left if left == right else None
        return None

    def infer_comparison(
        self, expr: ast.Compare, params: tuple[ast.Param, ...], clause: ast.Clause | None
    ) -> None:
        left = self.infer(expr.left, params, clause)
        right = self.infer(expr.right, params, clause)
        if left is None or right is None:
            return
        if (
            isinstance(left, EnumMember)
            or isinstance(right, EnumMember)
            or (left.kind == "enum" or right.kind == "enum")
        ):
            if expr.op not in ("=", "!="):
                self.report(
                    expr.span,
                    f"'{expr.op}' does not order the members of an enum",
                    clause,
                    hint="compare with '=' or '!='",
                )
            unified = self.unify(left, right, expr, clause, "the two sides of the comparison")
            if isinstance(unified, ast.Type) and unified.kind != "enum":
                self.report(
                    expr.span, f"cannot compare {_describe(left)} and {_describe(right)}", clause
                )
            return
        if any(t.kind in TEMPORAL for t in (left, right)):
            if left != right:
                self.report(
                    expr.span,
                    f"cannot compare {_describe(left)} with {_describe(right)}",
                    clause,
                    hint="a date compares with a date, a duration with a duration (30 days)",
                )
            elif left == ast.DURATION:
                self.check_duration_units(expr, clause)
            return
        if left == ast.BOOL or right == ast.BOOL:
            if left != right or expr.op not in ("=", "!="):
                self.report(
                    expr.span,
                    f"cannot compare {_describe(left)} and {_describe(right)} with '{expr.op}'",
                    clause,
                )
            return
        if (left == ast.MONEY) != (right == ast.MONEY):
            self.report(
                expr.span,
                f"cannot compare {_describe(left)} with {_describe(right)}: the units differ",
                clause,
            )

    # ---- definitions ----------------------------------------------------------------------
    def check_definitions(self) -> None:
        statute = self.statute
        for definition in statute.definitions.values():
            clause = definition.clause
            params = definition.params
            self.check_readings(definition.readings, definition.span, clause)
            for param in params:
                # The proofs enumerate parameter values: only finite ranges can be.
                if param.type.kind not in ("bool", "enum"):
                    self.report(
                        param.span,
                        f"a rule's parameters range over bool or enum values only, "
                        f"given '{param.name}: {param.type}'",
                        clause,
                    )
            if definition.type.kind in ("list", "text"):
                self.report(
                    definition.name_span,
                    f"'{definition.name}' is declared {definition.type}: a rule's value is one "
                    "amount, count, condition or enum member",
                    clause,
                )
            if isinstance(definition, ast.Rule):
                assert definition.expr is not None
                found = self.infer(definition.expr, params, clause)
                self.expect_assignable(
                    definition.type, found, definition.expr, clause, f"rule '{definition.name}'"
                )
                if definition.condition is not None:
                    self.expect_bool(definition.condition, params, clause, "'when'")
                    if definition.type.kind in ("enum", "date"):
                        self.report(
                            definition.condition.span,
                            f"a {definition.type.kind} rule cannot have 'when': it has no zero "
                            "to fall back on",
                            clause,
                            hint="use 'cases' with an 'otherwise'",
                        )
            else:
                self.check_cases(definition)
        for exception in statute.exceptions:
            self.check_exception(exception)
        for name, span in statute.results:
            definition = statute.definitions.get(name)
            if definition is None:
                self.report(
                    span,
                    f"result '{name}' is not defined by any rule",
                    hint=self.did_you_mean(name, ()),
                )
            elif definition.params:
                self.report(span, f"result '{name}' takes parameters; a result must not")
        self.check_cycles()

    # ---- references by citation --------------------------------------------------------------
    def placed_expressions(
        self,
    ) -> Iterator[tuple[ast.Expr, ast.Clause | None, tuple[ast.Param, ...], bool]]:
        """Yields every expression of the encoding with the clause it is written in, the
        parameters in scope, and whether it belongs to a definition (whose references to
        another section's rules must cite them)."""
        for definition in self.statute.definitions.values():
            params = definition.params
            if isinstance(definition, ast.Rule):
                for expr in (definition.expr, definition.condition):
                    if expr is not None:
                        yield expr, definition.clause, params, True
            else:
                if definition.otherwise is not None:
                    yield definition.otherwise, definition.clause, params, True
                for case in definition.cases:
                    for expr in (case.expr, case.condition):
                        if expr is not None:
                            yield expr, case.clause, params, True
        for exception in self.statute.exceptions:
            target = self.statute.definitions.get(exception.target)
            params = target.params if target is not None else ()
            for expr in (exception.expr, exception.condition):
                yield expr, exception.clause, params, True
        for invariant in self.statute.invariants:
            yield invariant.expr, invariant.clause, invariant.params, False
        for declared in self.statute.inputs.values():
            for expr in (declared.default, declared.required_when):
                if expr is not None:
                    yield expr, None, (), False
            for bound in declared.bounds:
                yield bound.value, None, (), False
                if bound.when is not None:
                    yield bound.when, None, (), False

    def check_citations(self) -> None:
        """A name written `under` a citation must be a definition sitting in the cited clause
        or below it; a definition naming another section's definition must cite it."""
        from . import citations

        statute = self.statute
        for expr, home, params, strict in self.placed_expressions():
            for node in walk(expr):
                if not isinstance(node, ast.Ref | ast.Call):
                    continue
                target = statute.definitions.get(node.name)
                written = f"{node.name}(...)" if isinstance(node, ast.Call) else node.name
                if node.cited is None:
                    if (
                        strict
                        and target is not None
                        and home is not None
                        and target.clause.section is not home.section
                    ):
                        where = target.clause.own_citation
                        self.report(
                            node.span,
                            f"'{node.name}' is defined in another section ({where}): a "
                            "definition names another section's rule by its citation",
                            home,
                            hint=f'write {written} under "{where}"',
                        )
                    continue
                cited = node.cited
                if target is None:
                    what = (
                        "an input, a fact of the scenario"
                        if node.name in statute.inputs
                        else "a parameter"
                        if any(p.name == node.name for p in params)
                        else "an enum member"
                        if node.name in self.members
                        else None
                    )
                    if what is not None:  # an unknown name is reported where it is typed
                        nowhere = (
                            f', and no clause of this encoding is cited "{cited.text}"'
                            if citations.resolve(statute, cited.text) is None
                            else ""
                        )
                        self.report(
                            node.span,
                            f"'{node.name}' is {what}: only a rule or a 'cases' definition "
                            f"sits under a citation{nowhere}",
                            home,
                            hint=f"write {node.name} without 'under'",
                        )
                    continue
                clause = citations.resolve(statute, cited.text)
                if clause is None:
                    close = citations.closest(statute, cited.text)
                    example = target.clause.own_citation
                    self.report(
                        cited.span,
                        f'no clause of this encoding is cited "{cited.text}"',
                        home,
                        hint=f'did you mean "{close}"?'
                        if close
                        else f'cite a clause as its pages do, for example "{example}"',
                    )
                elif not citations.covers(clause, target):
                    where = target.clause.own_citation
                    self.report(
                        cited.span,
                        f"'{node.name}' is not under {cited.text}: it is defined in {where}",
                        home,
                        hint=f'write {written} under "{where}"',
                    )

    def check_exception(self, exception: ast.ExceptionRule) -> None:
        """An exception's value is of its target's type (with the target's parameters in
        scope), its condition a bool, its name no definition's, and no other exception to the
        same target has its priority and the same words (a likely copy)."""
        statute = self.statute
        clause = exception.clause
        self.check_readings(exception.readings, exception.span, clause)
        if exception.name in statute.definitions or exception.name in statute.inputs:
            what = "an input" if exception.name in statute.inputs else "a definition"
            self.report(
                exception.name_span,
                f"exception '{exception.name}' has the name of {what}: name it apart",
                clause,
            )
        target = statute.definitions.get(exception.target)
        if target is None:
            return  # reported by the parser
        params = target.params
        found = self.infer(exception.expr, params, clause)
        self.expect_assignable(
            target.type,
            found,
            exception.expr,
            clause,
            f"exception '{exception.name}' to '{target.name}'",
        )
        self.expect_bool(exception.condition, params, clause, "'when'")
        if exception.priority < 1:
            self.report(
                exception.priority_span,
                f"the priority of exception '{exception.name}' is {exception.priority}: a "
                "priority is a whole number of at least 1",
                clause,
            )

    def check_cases(self, definition: ast.Cases) -> None:
        if not definition.cases:
            self.report(
                definition.name_span,
                f"'{definition.name}' has no case",
                definition.clause,
                hint=f"add 'case {definition.name} = ... when ...;' in the clauses that define it",
            )
        if definition.otherwise is not None:
            found = self.infer(definition.otherwise, (), definition.clause)
            self.expect_assignable(
                definition.type,
                found,
                definition.otherwise,
                definition.clause,
                f"the 'otherwise' of '{definition.name}'",
            )
        otherwise_cases = [c for c in definition.cases if c.condition is None]
        if len(otherwise_cases) + (definition.otherwise is not None) > 1:
            self.report(
                definition.name_span,
                f"'{definition.name}' has more than one 'otherwise'",
                definition.clause,
            )
        for index, case in enumerate(definition.cases):
            if case.condition is None and index != len(definition.cases) - 1:
                self.report(
                    case.span,
                    f"the 'otherwise' case of '{definition.name}' must come last",
                    case.clause,
                )
            self.check_readings(case.readings, case.span, case.clause)
            found = self.infer(case.expr, (), case.clause)
            self.expect_assignable(
                definition.type, found, case.expr, case.clause, f"a case of '{definition.name}'"
            )
            if case.condition is not None:
                self.expect_bool(case.condition, (), case.clause, "'when'")

    def expect_assignable(
        self,
        declared: ast.Type,
        found: ExprType | None,
        expr: ast.Expr,
        clause: ast.Clause | None,
        what: str,
    ) -> None:
        if found is None:
            return
        if (
            declared == ast.SHARE
            and isinstance(expr, ast.Literal)
            and expr.unit != "money"
            and not isinstance(expr.value, bool)
            and 0 <= expr.value <= 1
        ):
            return
        if isinstance(found, EnumMember):
            if declared.kind != "enum" or found.name not in declared.members:
                self.report(
                    expr.span, f"{what} is declared {declared}, given '{found.name}'", clause
                )
            return
        if not _assignable(declared, found):
            self.report(
                expr.span,
                f"{what} is declared {declared}, but its value is a {_describe(found)}",
                clause,
            )

    def check_readings(self, readings: tuple[str, ...], span: ast.Span, clause: ast.Clause) -> None:
        for reading in readings:
            if reading not in self.statute.readings:
                close = closest(reading, self.statute.readings)
                self.report(
                    _word_span(self.statute.source, span, reading),
                    f"unknown reading {reading}",
                    clause,
                    hint=f"did you mean {close}? (or declare {reading} with 'reading "
                    f'{reading} "question" default ...;\')'
                    if close
                    else "declare it with 'reading ID \"question\" default ...;'",
                )

    def check_cycles(self) -> None:
        graph = dependencies(self.statute)
        state: dict[str, int] = {}

        def visit(name: str, chain: list[str]) -> None:
            state[name] = 1
            for used in sorted(graph.get(name, ())):
                if state.get(used) == 1:
                    cycle = [*chain[chain.index(used) :], used] if used in chain else [name, used]
                    definition = self.statute.definitions[name]
                    self.report(
                        definition.name_span,
                        "circular definition: " + " -> ".join(cycle),
                        definition.clause,
                    )
                elif used not in state:
                    visit(used, [*chain, used])
            state[name] = 2

        for name in self.statute.definitions:
            if name not in state:
                visit(name, [name])

    # ---- records and list inputs -------------------------------------------------------------
    def check_records(self) -> None:
        """Reports list inputs of undeclared records, text inputs, and record fields that are
        lists, would hide an input or a rule inside `where`, or carry options no field takes."""
        statute = self.statute
        for declared in statute.inputs.values():
            kind = declared.type.kind
            if kind == "list" and declared.type.record not in statute.records:
                close = closest(declared.type.record, statute.records)
                self.report(
                    declared.span,
                    f"input '{declared.name}' is a list of '{declared.type.record}', which is "
                    "not a declared record",
                    hint=f"did you mean '{close}'?"
                    if close
                    else f"declare it with 'record {declared.type.record} \"...\" {{ ... }}'",
                )
            elif kind == "text":
                self.report(
                    declared.span,
                    f"input '{declared.name}' is text: text is the type of a record's field "
                    "that names its element",
                )
        for record in statute.records.values():
            if record.name in statute.inputs or record.name in statute.definitions:
                self.report(record.span, f"record '{record.name}' has the name of an input or rule")
            for declared in record.fields.values():
                where = f"field '{declared.name}' of record '{record.name}'"
                if declared.type.kind == "list":
                    self.report(declared.span, f"{where} is a list: a field holds one value")
                if declared.name in statute.inputs or declared.name in statute.definitions:
                    self.report(
                        declared.span,
                        f"{where} has the name of an input or rule, which it would hide in "
                        "'where' conditions",
                        hint="rename one of the two",
                    )
                if declared.name in self.members:
                    self.report(
                        declared.span, f"{where} has the name of an enum member", hint="rename it"
                    )
                if declared.required or declared.optional or declared.required_when is not None:
                    self.report(
                        declared.span,
                        f"{where}: a field is required unless it has a default; it takes no "
                        "'required' or 'optional'",
                    )
                if declared.default is not None:
                    if declared.type.kind == "text":
                        self.report(declared.span, f"{where} is text and cannot have a default")
                    else:
                        found = self.infer(declared.default, (), None)
                        self.expect_assignable(
                            declared.type,
                            found,
                            declared.default,
                            None,
                            f"the default of {where}",
                        )
                if declared.type == ast.DURATION:
                    self.report(declared.span, _NO_DURATION_FACT.format(where=where))
                for bound in declared.bounds:
                    if declared.type == ast.DATE:
                        if not (
                            isinstance(bound.value, ast.Literal) and bound.value.unit == "date"
                        ):
                            self.report(bound.span, f"a bound of {where} is a date written out")
                    elif not declared.type.is_numeric:
                        self.report(bound.span, f"a {declared.type} field has no bounds")
                    elif not isinstance(bound.value, ast.Literal) or bound.when is not None:
                        self.report(
                            bound.span,
                            f"a bound of {where} is a number written out, without 'when'",
                        )
                    elif (bound.value.unit == "money") != (declared.type == ast.MONEY):
                        self.report(
                            bound.value.span,
                            f"the bound of {where} must be a {declared.type}",
                        )
            fields = tuple(ast.Param(f.name, f.type, f.span) for f in record.fields.values())
            for requirement in record.requirements:
                self.expect_bool(
                    requirement.condition, fields, None, f"a requirement of record '{record.name}'"
                )

    # ---- inputs derived from other evidence ------------------------------------------------
    def check_derivations(self) -> None:
        """An input `derived by RULE when CONDITION` names a definition without parameters,
        of the input's type, that does not itself use the input; the condition is a yes/no
        over other inputs. `unique` belongs to a record's fields."""
        statute = self.statute
        for declared in statute.inputs.values():
            if declared.unique:
                self.report(
                    declared.span,
                    f"input '{declared.name}' is 'unique': only a record's field can be",
                )
            derived = declared.derived_by
            if derived is None:
                continue
            rule = statute.definitions.get(derived.rule)
            if rule is None:
                self.report(
                    derived.span,
                    f"input '{declared.name}' is derived by '{derived.rule}', which is not a rule",
                    hint=self.did_you_mean(derived.rule, ()),
                )
                continue
            if rule.params:
                self.report(derived.span, f"'{derived.rule}' takes parameters: it derives no input")
            elif not _assignable(declared.type, rule.type):
                self.report(
                    derived.span,
                    f"input '{declared.name}' is {declared.type}, but '{derived.rule}' is "
                    f"{rule.type}",
                )
            self.expect_bool(
                derived.condition, (), None, f"the condition deriving '{declared.name}'"
            )
            names = {n.name for n in walk(derived.condition) if isinstance(n, ast.Ref | ast.Given)}
            if names & set(statute.definitions) or declared.name in names:
                self.report(
                    derived.condition.span,
                    f"the condition deriving '{declared.name}' names only other inputs",
                )
            used: set[str] = set()
            for name in reachable_definitions(statute, [derived.rule]):
                for expr in definition_expressions(statute.definitions[name]):
                    used.update(n.name for n in walk(expr) if isinstance(n, ast.Ref | ast.Given))
            if declared.name in used:
                self.report(
                    derived.span,
                    f"'{derived.rule}' uses '{declared.name}', the input it derives",
                )

    # ---- inputs ---------------------------------------------------------------------------
    def check_inputs(self) -> None:
        for declared in self.statute.inputs.values():
            if declared.name in self.statute.definitions:
                self.report(declared.span, f"'{declared.name}' is both an input and a rule")
            if declared.name in RESERVED_KEYS:
                self.report(
                    declared.span,
                    f"an input cannot be named '{declared.name}': a scenario's "
                    f"'{declared.name}' key is reserved",
                    hint="the reserved keys are " + ", ".join(f"'{k}'" for k in RESERVED_KEYS),
                )
            if declared.type == ast.DURATION:
                self.report(
                    declared.span, _NO_DURATION_FACT.format(where=f"input '{declared.name}'")
                )
            if declared.required and declared.default is not None:
                self.report(
                    declared.span,
                    f"input '{declared.name}' is required and has a default; choose one",
                )
            if not (declared.required or declared.optional or declared.default is not None):
                self.report(
                    declared.span,
                    f"input '{declared.name}' has no default and is neither required nor "
                    "optional, so a scenario that leaves it out has no value for it",
                    hint="add '= DEFAULT', 'required' or 'optional'",
                )
            if declared.default is not None:
                found = self.infer(declared.default, (), None)
                self.expect_assignable(
                    declared.type,
                    found,
                    declared.default,
                    None,
                    f"the default of '{declared.name}'",
                )
            if declared.required_when is not None:
                self.expect_bool(declared.required_when, (), None, "'required when'")
            for bound in declared.bounds:
                if declared.type.kind == "list":
                    # A list's bounds are on its number of elements.
                    if not (
                        isinstance(bound.value, ast.Literal)
                        and bound.value.unit == "number"
                        and Fraction(bound.value.value).denominator == 1
                    ):
                        self.report(
                            bound.span,
                            f"a bound of the list '{declared.name}' is a number of elements "
                            "written out",
                        )
                    continue
                if declared.type == ast.DATE:
                    found = self.infer(bound.value, (), None)
                    if found is not None and found != ast.DATE:
                        self.report(
                            bound.value.span,
                            f"the bound of '{declared.name}' must be a date, given {_given(found)}",
                        )
                    if bound.when is not None:
                        self.expect_bool(bound.when, (), None, "'when'")
                    continue
                if not declared.type.is_numeric:
                    self.report(bound.span, f"a {declared.type} input has no bounds")
                    continue
                found = self.infer(bound.value, (), None)
                if (
                    found is not None
                    and isinstance(found, ast.Type)
                    and ((found == ast.MONEY) != (declared.type == ast.MONEY))
                ):
                    self.report(
                        bound.value.span,
                        f"the bound of '{declared.name}' must be a "
                        f"{declared.type}, given {_given(found)}",
                    )
                if bound.when is not None:
                    self.expect_bool(bound.when, (), None, "'when'")

    # ---- numbers and coverage ---------------------------------------------------------------
    def check_numbers(self) -> None:
        for definition in self.statute.definitions.values():
            self.check_numbers_of(
                definition.name,
                definition.clause,
                definition.reviewed,
                own_expressions(definition)
                if isinstance(definition, ast.Rule)
                else [definition.otherwise]
                if definition.otherwise
                else [],
            )
            if isinstance(definition, ast.Cases):
                for case in definition.cases:
                    self.check_numbers_of(
                        definition.name, case.clause, case.reviewed, [case.expr, case.condition]
                    )
        for exception in self.statute.exceptions:
            # An exception's numbers are the words of its own clause, not its target's.
            self.check_numbers_of(
                exception.name,
                exception.clause,
                exception.reviewed,
                [exception.expr, exception.condition],
            )
        for invariant in self.statute.invariants:
            self.check_numbers_of(
                invariant.name, invariant.clause, invariant.reviewed, [invariant.expr]
            )

    def check_numbers_of(
        self,
        name: str,
        clause: ast.Clause,
        reviewed: tuple[ast.Reviewed, ...],
        expressions: list[ast.Expr | None],
    ) -> None:
        from .numbers import stated_numbers

        stated = self.stated.get(id(clause))
        if stated is None:
            stated = self.stated[id(clause)] = stated_numbers(clause.words)
        exempt = {_written(r.literal) for r in reviewed}
        used: set[object] = set()
        named_days = _month_and_day_named(expressions, clause.words)
        for expr in expressions:
            for literal in literals(expr):
                if id(literal) in named_days:  # date(year, 12, 31) for "December 31"
                    used.add(literal.written_magnitude)
                    continue
                if literal.unit in TEMPORAL:
                    used.add(_written(literal))
                    self.check_time_literal(name, clause, literal, exempt)
                    continue
                magnitude = literal.written_magnitude
                if magnitude is None or _is_zero(literal):
                    continue
                used.add(magnitude)
                if magnitude in stated or magnitude in exempt:
                    continue
                restated = _stated_otherwise(literal, clause.words)
                self.report(
                    literal.span,
                    f"the number {literal.text} in '{name}' is not stated in the words of "
                    f"{clause.short_citation or 'the section'}",
                    clause,
                    hint=f"the words state it as {restated[0]}: write {restated[1]}"
                    if restated
                    else f"cite the clause that states it, or add: reviewed {literal.text} "
                    '"why this number is right"',
                )
        for item in reviewed:
            if _written(item.literal) not in used:
                self.report(
                    item.span,
                    f"reviewed number {item.literal.text} is not used in '{name}'",
                    clause,
                    severity="warning",
                )

    def check_time_literal(
        self, name: str, clause: ast.Clause, literal: ast.Literal, exempt: set[object]
    ) -> None:
        """Reports a date or a duration that the clause's words do not state (a date as
        `2024-01-01`, `January 1, 2024` or `1 January 2024`; a duration with its unit, in
        digits or words: `2 years`, `five years`, `thirty (30) days`), unless reviewed."""
        from .numbers import stated_durations

        written = _written(literal)
        if written in exempt:
            return
        if literal.unit == "date":
            day = datetime.date.fromordinal(int(literal.value))
            if day in dates.stated_dates(clause.words):
                return
            what = f"the date {literal.text}"
        else:
            if written in stated_durations(clause.words):
                return
            what = f"the duration {literal.text}"
        self.report(
            literal.span,
            f"{what} in '{name}' is not stated in the words of "
            f"{clause.short_citation or 'the section'}",
            clause,
            hint=f"cite the clause that states it, or add: reviewed {literal.text} "
            '"why this is right"',
        )

    def check_coverage(self) -> None:
        for clause in self.statute.clauses:
            for text in clause.texts:
                # Words `lextrace init` marked as not yet encoded are a to-do, not a reading.
                if text.mark == "text_only" and text.reason != NOT_YET_ENCODED:
                    self.check_text_only(clause, text)
            if not clause.path:
                continue
            self.check_authorised(clause)
            has_rules = any(isinstance(i, (*COMPUTING, ast.Invariant)) for i in clause.items)
            if has_rules or clause.children:
                continue
            unmarked = [t for t in clause.texts if t.mark is None]
            if unmarked or not clause.texts:
                self.report(
                    clause.span,
                    f"clause {clause.short_citation} is not accounted for",
                    clause,
                    hint="encode its rule, or mark its words "
                    "'discretionary \"reason\"' or 'text_only \"reason\"'",
                )

    def check_authorised(self, clause: ast.Clause) -> None:
        """Refuses a rule, a case or an exception in a clause all of whose words are marked
        (discretionary or text only): the marks say those words set no rule, so none is left
        to authorise it."""
        if not clause.texts or any(t.mark is None for t in clause.texts):
            return
        items = [item for item in clause.items if isinstance(item, COMPUTING)]
        if not items:
            return
        marks = " and ".join(dict.fromkeys((t.mark or "").replace("_", " ") for t in clause.texts))
        kind = "exception" if isinstance(items[0], ast.ExceptionRule) else "rule"
        self.report(
            items[0].span,
            f"{kind} '{items[0].name}' sits in {clause.short_citation}, all of whose words are "
            f"marked {marks}: they set no rule, so none of them authorises it",
            clause,
            hint="move it into the clause whose words state it, or take the mark off the words "
            "it encodes",
        )

    def check_text_only(self, clause: ast.Clause, text: ast.TextPiece) -> None:
        """Warns when words marked text only state an amount of money or a percentage: text
        only says the words set no amount, and a rule may be missing."""
        from . import wording

        words = text.words
        amounts = [
            words[number.start : end]  # as written: "$15", "120 percent", "1,000 dollars"
            for number, kind, end in wording.stated_units(words)
            if kind in ("money", "percent")
        ]
        if amounts:
            self.report(
                text.span,
                f"the words of {clause.short_citation or 'the section'} marked text only state "
                f"{', '.join(dict.fromkeys(amounts))}",
                clause,
                severity="warning",
                hint="text only is for words that set no amount: encode the rule they set, or "
                "mark them discretionary if an authority decides it",
            )

    def check_use(self) -> None:
        statute = self.statute
        roots = set(statute.result_names)
        roots |= {d.derived_by.rule for d in statute.inputs.values() if d.derived_by is not None}
        for monotone in statute.monotones:
            roots |= {name for name, _ in monotone.results}
        computing = reachable_definitions(statute, sorted(roots))
        for invariant in statute.invariants:
            roots |= references(statute, invariant.expr)
        reached = reachable_definitions(statute, sorted(roots))
        # A rule no result rests on is a mistake of the encoding (a bonus left out of its
        # group, an amount never added), even when an invariant speaks of it.
        for name, definition in statute.definitions.items():
            if name in computing:
                continue
            if name in reached:
                self.report(
                    definition.name_span,
                    f"'{name}' is used by no result, only by invariants",
                    definition.clause,
                    hint="a rule the statute's results never rest on: include it where its "
                    "words say it counts (a group such as `bonus`, or the rule that adds it), "
                    "or write what the invariant needs inside the invariant",
                )
            else:
                self.report(
                    definition.name_span,
                    f"'{name}' is never used by a result",
                    definition.clause,
                    hint="use it in the rule its words feed, or remove it",
                )
        used_inputs: set[str] = set()
        for name in reached:
            for expr in definition_expressions(statute.definitions[name]):
                used_inputs.update(n.name for n in walk(expr) if isinstance(n, ast.Ref | ast.Given))
                used_inputs.update(n.source for n in walk(expr) if isinstance(n, ast.Aggregate))
        for declared in statute.inputs.values():
            for expr in (
                declared.required_when,
                *(b.value for b in declared.bounds),
                *(b.when for b in declared.bounds),
            ):
                used_inputs.update(n.name for n in walk(expr) if isinstance(n, ast.Ref))
        for declared in statute.inputs.values():
            if declared.from_table is not None:
                used_inputs.add(declared.from_table.year)
        if statute.periods is not None:
            used_inputs.add(statute.periods.by)
        for name, declared in statute.inputs.items():
            if name not in used_inputs and name not in self.suggested:
                self.report(
                    declared.span,
                    f"input '{name}' is never used: no rule reads it",
                    hint="encode the rule that reads it, or remove the input",
                )

    # ---- dated tables, periods and their totals --------------------------------------------------
    def check_tables(self) -> None:
        """A table holds numbers of its type; an input read from a table has its type and a
        year input (a count) to read it by."""
        statute = self.statute
        for table in statute.tables.values():
            if not table.type.is_numeric:
                self.report(
                    table.span, f"table '{table.name}' is {table.type}: a table holds numbers"
                )
                continue
            for entry in table.entries:
                self.expect_assignable(
                    table.type,
                    self.infer(entry.value, (), None),
                    entry.value,
                    None,
                    f"the value from {entry.start} of table '{table.name}'",
                )
        for declared in statute.inputs.values():
            source = declared.from_table
            if source is None:
                continue
            table = statute.tables.get(source.table)
            if table is None:
                self.report(
                    source.span,
                    f"input '{declared.name}' is read from '{source.table}', which is not a table",
                    hint=self.did_you_mean(source.table, ())
                    if not statute.tables
                    else f"the tables: {', '.join(statute.tables)}",
                )
            elif not _assignable(declared.type, table.type):
                self.report(
                    source.span,
                    f"input '{declared.name}' is {declared.type}, but table '{table.name}' "
                    f"holds {table.type}",
                )
            year = statute.inputs.get(source.year)
            if year is None or year.type != ast.COUNT or year.from_table is not None:
                self.report(
                    source.span,
                    f"a table is read by a year: '{source.year}' must be a count input given "
                    "by the scenario",
                )

    def check_periods(self) -> None:
        """The periods are ordered by a count input; the facts named given only in a period,
        or not in the period form, are inputs; a total sums a numeric result into another
        declared result."""
        statute = self.statute
        periods = statute.periods
        if periods is not None:
            by = statute.inputs.get(periods.by)
            if by is None or by.type != ast.COUNT:
                self.report(
                    periods.span,
                    f"the periods are ordered by '{periods.by}', which must be a count input",
                )
            for name in (*periods.only, *periods.without):
                if name not in statute.inputs:
                    self.report(
                        periods.span, f"'{name}' is not an input", hint=self.did_you_mean(name, ())
                    )
                elif name == periods.by:
                    self.report(periods.span, f"'{name}' orders the periods: every period gives it")
            both = set(periods.only) & set(periods.without)
            if both:
                self.report(periods.span, f"'{sorted(both)[0]}' is both 'each' and 'without'")
        results = set(statute.result_names)
        totals = {total.name for total in statute.totals}
        for total in statute.totals:
            self.check_readings(total.readings, total.span, total.clause)
            if periods is None or total.periods != periods.name:
                self.report(
                    total.span,
                    f"'{total.periods}' is not the encoding's periods",
                    total.clause,
                    hint='declare them: periods NAME by YEAR at most N "...";',
                )
            if total.name not in results:
                self.report(
                    total.span, f"total '{total.name}' is not a declared result", total.clause
                )
            summed = statute.definitions.get(total.summed)
            if total.summed not in results or summed is None or total.summed in totals:
                self.report(
                    total.span,
                    f"a total sums a result of each period: '{total.summed}' is not one",
                    total.clause,
                )
            elif not summed.type.is_numeric:
                self.report(
                    total.span,
                    f"'{total.summed}' is {summed.type}: only numbers are summed",
                    total.clause,
                )
            elif total.name in statute.definitions and not _assignable(
                statute.definitions[total.name].type, summed.type
            ):
                self.report(
                    total.span,
                    f"'{total.name}' is {statute.definitions[total.name].type}, but the sum of "
                    f"'{total.summed}' is {summed.type}",
                    total.clause,
                )
            else:
                self.check_total_sums_its_rule(total)

    def check_total_sums_its_rule(self, total: ast.Total) -> None:
        """Warns of a total that sums a result its own one-period rule does not read: the
        period form and the one-period form then add up different amounts (summing the amount
        before a limit, where the rule multiplies the limited one)."""
        own = self.statute.definitions.get(total.name)
        if not isinstance(own, ast.Rule):
            return
        read = {
            node.name
            for expr in (own.expr, own.condition)
            for node in walk(expr)
            if isinstance(node, ast.Ref | ast.Call)
        }
        if total.summed in read:
            return
        from_results = sorted(name for name in read if name in self.statute.result_names)
        self.report(
            total.span,
            f"total '{total.name}' sums '{total.summed}', which its rule for one period does "
            f"not read (it reads {', '.join(from_results or sorted(read)) or 'no definition'})",
            total.clause,
            hint=f"sum the result the rule of '{total.name}' is made of, or make that rule read "
            f"'{total.summed}'",
            severity="warning",
        )

    def check_invariants(self) -> None:
        names: dict[str, ast.Span] = {}
        for invariant in self.statute.invariants:
            self.check_unique(names, invariant.name, invariant.span, invariant.clause)
            self.check_readings(invariant.readings, invariant.span, invariant.clause)
            self.expect_bool(
                invariant.expr, invariant.params, invariant.clause, f"invariant '{invariant.name}'"
            )
            for param in invariant.params:
                if param.type.kind not in ("bool", "enum"):
                    self.report(
                        param.span,
                        "an invariant's parameters range over bool or enum values only",
                        invariant.clause,
                    )
        for monotone in self.statute.monotones:
            self.check_unique(names, monotone.name, monotone.span, monotone.clause)
            self.check_readings(monotone.readings, monotone.span, monotone.clause)
            for name, span in monotone.results:
                definition = self.statute.definitions.get(name)
                if definition is None or definition.params or not definition.type.is_numeric:
                    self.report(
                        span,
                        f"'{name}' is not a numeric rule without parameters",
                        monotone.clause,
                        hint=self.did_you_mean(name, ()),
                    )
            for name, span in monotone.inputs:
                if name not in self.statute.inputs:
                    self.report(
                        span,
                        f"'{name}' is not an input",
                        monotone.clause,
                        hint=self.did_you_mean(name, ()),
                    )
                elif self.statute.inputs[name].optional:
                    self.report(
                        span, f"'{name}' is optional: it has no order to rise in", monotone.clause
                    )
                elif self.statute.inputs[name].type.kind == "list":
                    self.report(
                        span, f"'{name}' is a list: it has no order to rise in", monotone.clause
                    )

    def check_unique(
        self, names: dict[str, ast.Span], name: str, span: ast.Span, clause: ast.Clause
    ) -> None:
        if name in names:
            self.report(
                span,
                f"the property '{name}' is declared twice (first at line {names[name].line})",
                clause,
            )
        names[name] = span


_NO_DURATION_FACT = (
    "{where} is a duration: a fact of a scenario is a date (the days between two dates are "
    "computed), or a count of days"
)


def _assignable(declared: ast.Type, found: ast.Type) -> bool:
    if declared == found:
        return True
    if declared == ast.NUMBER and found.is_dimensionless:
        return True
    return (
        declared.kind == "enum"
        and found.kind == "enum"
        and set(found.members) <= set(declared.members)
    )


def _month_and_day_named(expressions: list[ast.Expr | None], words: str) -> set[int]:
    """Returns the ids of the month and day literals of `date(..., M, D)` calls whose month
    and day the words name ("December 31" for `date(tax_year, 12, 31)`)."""
    named = dates.stated_month_days(words)
    found: set[int] = set()
    for expr in expressions:
        for node in walk(expr):
            if not (isinstance(node, ast.Call) and node.name == "date" and len(node.args) == 3):
                continue
            month, day = node.args[1], node.args[2]
            if not (isinstance(month, ast.Literal) and isinstance(day, ast.Literal)):
                continue
            if (month.value, day.value) in named:
                found.update((id(month), id(day)))
    return found


def _stated_otherwise(literal: ast.Literal, words: str) -> tuple[str, str] | None:
    """Returns how the words state a number a rule writes in another form, and how to write it
    as they do: 0.35 where they say "35 percent" (write 35%), 50% where they say "one-half"
    (write 1/2). None when they state it in no form."""
    from . import wording

    if literal.unit not in ("number", "percent") or isinstance(literal.value, bool):
        return None
    value = Fraction(literal.value)
    for number, kind, _ in wording.stated_units(words):
        written = words[number.start : number.end]
        if literal.unit == "number" and kind == "percent" and number.value == value * 100:
            return f"{written} percent", f"{decimal_string(number.value, 12)}%"
        if literal.unit == "percent" and kind != "percent" and number.value == value:
            return written, exact_string(value)
    return None


def _word_span(source: str, span: ast.Span, word: str) -> ast.Span:
    """Returns the span of the last time `word` is written as a whole word within `span` (a
    reading's id among a rule's annotations), or `span` itself when it is not."""
    found = None
    for match in re.finditer(
        rf"(?<![\w.-]){re.escape(word)}(?![\w-])", source[span.start : span.end]
    ):
        found = match
    if found is None:
        return span
    start, end = span.start + found.start(), span.start + found.end()
    line, column = line_column(source, start)
    return ast.Span(line, column, line, column + end - start, start, end)


def _written(literal: ast.Literal) -> object:
    """Returns what the number check matches a literal by: its magnitude, a duration's with
    its unit (`(2, "year")`), a date's day."""
    from .numbers import unit_word

    if literal.unit == "duration":
        return (literal.written_magnitude, unit_word(literal.duration_unit))
    if literal.unit == "date":
        return ("date", literal.value)
    return literal.written_magnitude


def _describe(found: ExprType) -> str:
    if isinstance(found, EnumMember):
        return f"enum member '{found.name}'"
    return str(found)


# How a value of each type kind is spoken of after "given", with its article.
_SPOKEN = {
    "money": "an amount of money",
    "count": "a count",
    "number": "a number",
    "share": "a share",
    "bool": "a condition (bool)",
    "date": "a date",
    "duration": "a duration",
    "text": "a text",
}


def _given(found: ExprType) -> str:
    """Returns how a message names what was given: "an amount of money per year", "a count",
    "enum member 'b1'"."""
    if isinstance(found, ast.Type) and found.kind in _SPOKEN:
        spoken = _SPOKEN[found.kind]
        return f"{spoken} per {found.per}" if found.per else spoken
    if isinstance(found, EnumMember):
        return _describe(found)
    return f"a value of {found}"  # an enum's or a list's type, named in full


def check_statute(statute: ast.Statute) -> list[Diagnostic]:
    """Returns every static problem of a parsed encoding: names, types and units, definitions,
    cycles, untraceable numbers, unaccounted clauses, unused inputs, comparators and units
    against the words (dsl/wording.py), amounts of different periods (dsl/rates.py),
    comparisons the declarations settle (dsl/settled.py), the greater or the lesser of values
    against the words that choose (dsl/choices.py), comparisons with dates against the words'
    "after" and "before" (dsl/date_words.py), facts the words do not name (dsl/facts.py);
    a rule or an input no result rests on."""
    # The checks that read the words are imported here, not with the module: the evaluator
    # imports this module for `walk` and `computed_type`, and a cached encoding is not checked.
    from . import choices, date_words, facts, rates, settled, wording

    checker = _Checker(statute)
    checker.check_records()
    checker.check_inputs()
    checker.check_definitions()
    checker.check_citations()
    checker.check_tables()
    checker.check_derivations()
    checker.check_periods()
    checker.check_invariants()
    checker.check_numbers()
    for finding in [
        *wording.findings(statute),
        *rates.findings(statute),
        *settled.findings(statute),
        *choices.findings(statute),
        *date_words.findings(statute),
    ]:
        checker.report(finding.span, finding.message, finding.clause, hint=finding.hint)
    checker.check_coverage()
    checker.check_use()
    checker.diagnostics.extend(facts.check_facts(statute))
    return sorted(checker.diagnostics, key=lambda d: (d.line, d.column))
