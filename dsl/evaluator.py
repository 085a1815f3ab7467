"""The exact evaluator: the AST compiled once into closures, run per scenario.

Every value is exact (Fraction, int, bool, enum member name). With `trace=True` each evaluated
definition is recorded as a `Step`: its value, the clause (and case) that produced it, whether
its condition held, the values it used and the readings it rests on; without a trace the same
closures run with nothing recorded.
"""

from __future__ import annotations

import datetime
import math
import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from . import ast, dates
from .checker import computed_type
from .errors import FieldProblem, ScenarioError
from .values import Derived, Value

Key = tuple[str, tuple[Value, ...]]
Compiled = Callable[["Evaluation", Mapping[str, Value]], Value]


class EvaluationError(Exception):
    """A scenario reached a state the encoding does not define (a gap, an overlap, a division
    by zero). Valid scenarios never do on a checked and proved encoding."""


class EmptyAggregate(ScenarioError):
    """A scenario asks for the minimum, maximum or median of no element: it is refused (bad
    input, exit 2) at the list it gives, like any other field it gets wrong."""


class UndefinedDate(ScenarioError, EvaluationError):
    """A scenario for which a date computation has no defined value (a day the month reached
    does not have, under `dates refuse-ambiguous`; months compared with days; a date outside
    the calendar): it is refused (exit 2) with the expression and why. It is an evaluation
    error too: `lextrace verify` reports a scenario that reaches one as a breach."""


def _undefined(error: Exception, expr: ast.Expr, statute: ast.Statute) -> UndefinedDate:
    """Returns the refusal of a scenario at the date computation `expr`."""
    text = " ".join(statute.source[expr.span.start : expr.span.end].split())
    where = f"{statute.path}:{expr.span.line}:{expr.span.column}"
    hint = None
    if "ambiguous" in str(error):
        hint = (
            "this encoding refuses an ambiguous day; 'dates round-down' or 'dates round-up' "
            "in its header rounds it"
        )
    return UndefinedDate(
        [
            FieldProblem(
                "<scenario>",
                f"a scenario for which `{text}` at {where} has a value",
                str(error),
                hint,
            )
        ]
    )


@dataclass(frozen=True)
class AggregateUse:
    """An aggregate a step computed: its value, how many elements its list had and how many
    it covered (those meeting its condition), and the elements its value rests on (by index
    in the list): the element of a min or max, the one or two middle elements of a median, an
    element that makes `any` true or `all` false."""

    expr: ast.Aggregate
    value: Value
    total: int
    covered: int
    elements: tuple[int, ...]
    # Of `OP of (EXPRESSION) in LIST`: each covered element's amount, by index.
    amounts: tuple[tuple[int, Value], ...] = ()


@dataclass
class Step:
    """One evaluated definition: the value, where it comes from, and what it used."""

    key: Key
    definition: ast.Rule | ast.Cases
    value: Value
    clause: ast.Clause
    words: ast.TextPiece | None
    applied: bool | None = None  # None: unconditional; False: its condition failed
    condition: ast.Expr | None = None
    case: ast.Case | None = None
    uses: list[Key] = field(default_factory=list)
    readings: set[str] = field(default_factory=set)
    skipped_cases: list[ast.Case] = field(default_factory=list)
    aggregates: list[AggregateUse] = field(default_factory=list)
    # The exception that gave the value (None: the definition's own), and, when the definition
    # has exceptions, those whose conditions did not hold.
    exception: ast.ExceptionRule | None = None
    skipped_exceptions: list[ast.ExceptionRule] = field(default_factory=list)

    @property
    def label(self) -> str:
        """The definition's name with its arguments, e.g. `gross_amount(covered=true)`."""
        return step_label(self.key, self.definition)


def step_label(key: Key, definition: ast.Rule | ast.Cases | None) -> str:
    """Returns `name` or `name(param=value, ...)` for a definition evaluated with arguments."""
    name, args = key
    if not args or definition is None:
        return name
    parts = [f"{p.name}={_show_arg(v)}" for p, v in zip(definition.params, args, strict=True)]
    return f"{name}({', '.join(parts)})"


def _show_arg(value: Value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


INPUT = "input"


class Evaluation:
    """One run of a compiled statute over one scenario's validated inputs."""

    __slots__ = (
        "frames",
        "inputs",
        "memo",
        "program",
        "reading_uses",
        "readings",
        "steps",
        "tracing",
    )

    def __init__(
        self,
        program: Program,
        inputs: Mapping[str, Value],
        readings: Mapping[str, str],
        tracing: bool,
    ) -> None:
        self.program = program
        self.inputs = inputs
        self.readings = readings
        self.memo: dict[Key, Value] = {}
        self.tracing = tracing
        self.steps: dict[Key, Step] = {}
        self.frames: list[Step] = []
        self.reading_uses: set[str] = set()

    def input(self, name: str) -> Value:
        """Returns an input's value, recording the use when tracing; an input the scenario
        derives is the value of its rule (recorded as that rule's use)."""
        value = self.inputs[name]
        if type(value) is Derived:
            return self.get(value.rule)
        if self.tracing and self.frames:
            self.frames[-1].uses.append((INPUT, (name,)))
        return value

    def reading(self, reading_id: str) -> str:
        """Returns the selected option of a reading, recording the use when tracing."""
        if self.tracing:
            self.reading_uses.add(reading_id)
            if self.frames:
                self.frames[-1].readings.add(reading_id)
        return self.readings[reading_id]

    def get(self, name: str, args: tuple[Value, ...] = ()) -> Value:
        """Returns the value of a definition for these arguments, evaluating it once."""
        key = (name, args)
        if self.tracing and self.frames:
            self.frames[-1].uses.append(key)
        if key in self.memo:
            return self.memo[key]
        value = self.program.run(self, name, args)
        self.memo[key] = value
        return value


def _zero(type_: ast.Type) -> Value:
    if type_.kind == "bool":
        return False
    if type_.kind == "count":
        return 0
    if type_.kind == "duration":
        return dates.ZERO
    return Fraction(0)


_ARITHMETIC = {"+": operator.add, "-": operator.sub, "*": operator.mul}
_COMPARISONS = {
    "=": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


class Program:
    """A statute compiled into closures, ready to evaluate any number of scenarios."""

    def __init__(self, statute: ast.Statute) -> None:
        self.statute = statute
        self.enum_members = {member for type_ in statute.declared_types for member in type_.members}
        self._conditions: dict[int, tuple[ast.Expr, Compiled]] = {}
        # The types of the names bound where an expression is compiled (an aggregate's fields).
        self.scope: dict[str, ast.Type] = {}
        self.compiled: dict[str, Callable[[Evaluation, tuple[Value, ...]], Value]] = {}
        for name, definition in statute.definitions.items():
            self.compiled[name] = self._definition(definition)

    def condition(self, expr: ast.Expr) -> Compiled:
        """Returns the closure of an expression outside the rules (a condition on inputs),
        compiled on first use and kept: validation runs these for every scenario."""
        found = self._conditions.get(id(expr))
        if found is None or found[0] is not expr:
            found = (expr, self.expr(expr))
            self._conditions[id(expr)] = found
        return found[1]

    def run(self, evaluation: Evaluation, name: str, args: tuple[Value, ...]) -> Value:
        """Evaluates one definition (used by Evaluation.get on a memo miss)."""
        return self.compiled[name](evaluation, args)

    # ---- definitions ----------------------------------------------------------------------
    def _definition(
        self, definition: ast.Rule | ast.Cases
    ) -> Callable[[Evaluation, tuple[Value, ...]], Value]:
        param_names = tuple(p.name for p in definition.params)
        if isinstance(definition, ast.Rule):
            general = self._rule(definition, param_names)
        else:
            general = self._cases(definition, param_names)
        if not definition.exceptions:
            return general
        return self._excepted(definition, param_names, general)

    def _excepted(
        self,
        definition: ast.Rule | ast.Cases,
        param_names: tuple[str, ...],
        general: Callable[[Evaluation, tuple[Value, ...]], Value],
    ) -> Callable[[Evaluation, tuple[Value, ...]], Value]:
        """Returns a definition with exceptions: every exception's condition is evaluated, the
        highest priority that holds gives the value, none holding the definition's own; two of
        equal priority that hold are a conflict, an evaluation error naming both."""
        compiled = [
            (exception, self.expr(exception.condition), self.expr(exception.expr))
            for exception in definition.exceptions_by_priority()
        ]
        citation = self.statute.citation

        def choose(
            evaluation: Evaluation, bound: Mapping[str, Value], step: Step | None
        ) -> tuple[ast.ExceptionRule, Compiled] | None:
            chosen: tuple[ast.ExceptionRule, Compiled] | None = None
            holding: dict[int, ast.ExceptionRule] = {}
            for exception, condition_of, value_of in compiled:
                if not condition_of(evaluation, bound):
                    if step is not None:
                        step.skipped_exceptions.append(exception)
                    continue
                # Any two of one priority are a conflict, whichever higher one applies: the
                # order between them is what the encoding leaves unsaid.
                other = holding.setdefault(exception.priority, exception)
                if other is not exception:
                    raise EvaluationError(
                        f"'{definition.name}' has two exceptions of priority "
                        f"{exception.priority} for this scenario: '{other.name}' "
                        f"({citation(other.clause)}) and '{exception.name}' "
                        f"({citation(exception.clause)})"
                    )
                if chosen is None:
                    chosen = (exception, value_of)
            return chosen

        def run(evaluation: Evaluation, args: tuple[Value, ...]) -> Value:
            bound = dict(zip(param_names, args, strict=True))
            if not evaluation.tracing:
                found = choose(evaluation, bound, None)
                if found is None:
                    return general(evaluation, args)
                return found[1](evaluation, bound)
            key = (definition.name, args)
            step = Step(key, definition, None, definition.clause, definition.words)
            evaluation.frames.append(step)
            try:
                found = choose(evaluation, bound, step)
                if found is not None:
                    exception, value_of = found
                    step.exception = exception
                    step.clause, step.words = exception.clause, exception.words
                    step.condition, step.applied = exception.condition, True
                    step.readings |= set(exception.readings)
                    step.value = value_of(evaluation, bound)
            finally:
                evaluation.frames.pop()
            if found is not None:
                evaluation.steps[key] = step
                return step.value
            value = general(evaluation, args)
            own = evaluation.steps[key]
            # The definition's own step, after what deciding its exceptions used.
            own.uses[:0] = step.uses
            own.readings |= step.readings
            own.aggregates[:0] = step.aggregates
            own.skipped_exceptions = step.skipped_exceptions
            return value

        return run

    def _rule(
        self, rule: ast.Rule, param_names: tuple[str, ...]
    ) -> Callable[[Evaluation, tuple[Value, ...]], Value]:
        assert rule.expr is not None
        value_of = self.expr(rule.expr)
        condition_of = self.expr(rule.condition) if rule.condition is not None else None
        zero = _zero(rule.type)
        readings = set(rule.readings)

        def run(evaluation: Evaluation, args: tuple[Value, ...]) -> Value:
            bound = dict(zip(param_names, args, strict=True))
            if not evaluation.tracing:
                if condition_of is not None and not condition_of(evaluation, bound):
                    return zero
                return value_of(evaluation, bound)
            step = Step(
                (rule.name, args),
                rule,
                None,
                rule.clause,
                rule.words,
                condition=rule.condition,
                readings=set(readings),
            )
            evaluation.frames.append(step)
            try:
                if condition_of is not None:
                    step.applied = bool(condition_of(evaluation, bound))
                    value = value_of(evaluation, bound) if step.applied else zero
                else:
                    value = value_of(evaluation, bound)
            finally:
                evaluation.frames.pop()
            step.value = value
            evaluation.steps[step.key] = step
            return value

        return run

    def _cases(
        self, cases: ast.Cases, param_names: tuple[str, ...]
    ) -> Callable[[Evaluation, tuple[Value, ...]], Value]:
        compiled = [
            (
                case,
                self.expr(case.condition) if case.condition is not None else None,
                self.expr(case.expr),
            )
            for case in cases.cases
        ]
        otherwise_of = self.expr(cases.otherwise) if cases.otherwise is not None else None
        exclusive = cases.order == "exclusive"
        readings = set(cases.readings)

        def choose(
            evaluation: Evaluation, bound: Mapping[str, Value], step: Step | None
        ) -> tuple[ast.Case | None, Value]:
            chosen: tuple[ast.Case, Compiled] | None = None
            for case, condition_of, value_of in compiled:
                if condition_of is None and chosen is not None:
                    # The `otherwise` case (always last) holds when no other case does.
                    if step is not None:
                        step.skipped_cases.append(case)
                    continue
                holds = condition_of is None or bool(condition_of(evaluation, bound))
                if not holds:
                    if step is not None:
                        step.skipped_cases.append(case)
                    continue
                if chosen is None:
                    chosen = (case, value_of)
                    if not exclusive:
                        break
                else:
                    raise EvaluationError(
                        f"'{cases.name}' is defined twice for this scenario: by "
                        f"{self.statute.citation(chosen[0].clause)} and by "
                        f"{self.statute.citation(case.clause)}"
                    )
            if chosen is not None:
                return chosen[0], chosen[1](evaluation, bound)
            if otherwise_of is not None:
                return None, otherwise_of(evaluation, bound)
            raise EvaluationError(
                f"no case of '{cases.name}' ({self.statute.citation(cases.clause)}) applies "
                "to this scenario"
            )

        def run(evaluation: Evaluation, args: tuple[Value, ...]) -> Value:
            bound = dict(zip(param_names, args, strict=True))
            if not evaluation.tracing:
                return choose(evaluation, bound, None)[1]
            step = Step(
                (cases.name, args), cases, None, cases.clause, cases.words, readings=set(readings)
            )
            evaluation.frames.append(step)
            try:
                case, value = choose(evaluation, bound, step)
            finally:
                evaluation.frames.pop()
            step.value = value
            if case is not None:
                step.case = case
                step.clause = case.clause
                step.words = case.words
                step.condition = case.condition
                step.readings |= set(case.readings)
            evaluation.steps[step.key] = step
            return value

        return run

    # ---- expressions ----------------------------------------------------------------------
    def expr(self, expr: ast.Expr) -> Compiled:
        """Returns a closure computing `expr` for an evaluation and its bound parameters."""
        statute = self.statute
        if isinstance(expr, ast.Literal):
            constant: Value = _constant(expr)
            return lambda evaluation, bound: constant
        if isinstance(expr, ast.Ref):
            name = expr.name
            definition = statute.definitions.get(name)
            if name in statute.inputs:
                if statute.inputs[name].optional:
                    where = f"{statute.path}:{expr.span.line}:{expr.span.column}"

                    def optional_input(evaluation: Evaluation, bound: Mapping[str, Value]) -> Value:
                        value = evaluation.input(name)
                        if value is None:
                            raise EvaluationError(f"'{name}' is not given but is used at {where}")
                        return value

                    return optional_input
                return lambda evaluation, bound: (
                    bound[name] if name in bound else evaluation.input(name)
                )
            if definition is not None:
                return lambda evaluation, bound: (
                    bound[name] if name in bound else evaluation.get(name)
                )
            if name in self.enum_members:
                return lambda evaluation, bound: bound.get(name, name)
            return lambda evaluation, bound: bound[name]
        if isinstance(expr, ast.Call):
            return self._call(expr)
        if isinstance(expr, ast.BinOp):
            left, right = self.expr(expr.left), self.expr(expr.right)
            if dates.kind_of(statute, expr, self.scope) is not None:
                return self._calendar(expr, left, right)
            if expr.op == "/":
                where = f"{statute.path}:{expr.span.line}:{expr.span.column}"

                def divide(evaluation: Evaluation, bound: Mapping[str, Value]) -> Value:
                    denominator = right(evaluation, bound)
                    if denominator == 0:
                        raise EvaluationError(f"division by zero at {where}")
                    return Fraction(left(evaluation, bound)) / denominator  # type: ignore[arg-type]

                return divide
            function = _ARITHMETIC[expr.op]
            return lambda evaluation, bound: function(
                left(evaluation, bound), right(evaluation, bound)
            )
        if isinstance(expr, ast.Compare):
            left, right = self.expr(expr.left), self.expr(expr.right)
            compare = _COMPARISONS[expr.op]
            if dates.kind_of(statute, expr.left, self.scope) == "duration":
                return self._compare_durations(expr, left, right)
            return lambda evaluation, bound: compare(
                left(evaluation, bound), right(evaluation, bound)
            )
        if isinstance(expr, ast.BoolOp):
            left, right = self.expr(expr.left), self.expr(expr.right)
            if expr.op == "and":
                return lambda evaluation, bound: (
                    bool(left(evaluation, bound)) and bool(right(evaluation, bound))
                )
            if expr.op == "implies":
                return lambda evaluation, bound: (
                    not left(evaluation, bound) or bool(right(evaluation, bound))
                )
            return lambda evaluation, bound: (
                bool(left(evaluation, bound)) or bool(right(evaluation, bound))
            )
        if isinstance(expr, ast.Not):
            operand = self.expr(expr.operand)
            return lambda evaluation, bound: not operand(evaluation, bound)
        if isinstance(expr, ast.Neg):
            operand = self.expr(expr.operand)
            return lambda evaluation, bound: -operand(evaluation, bound)  # type: ignore[operator]
        if isinstance(expr, ast.If):
            condition, then, otherwise = (
                self.expr(e) for e in (expr.condition, expr.then, expr.otherwise)
            )
            return lambda evaluation, bound: (
                then(evaluation, bound)
                if condition(evaluation, bound)
                else otherwise(evaluation, bound)
            )
        if isinstance(expr, ast.PartOf):
            operand, part = self.expr(expr.operand), expr.part
            return lambda evaluation, bound: dates.part(part, operand(evaluation, bound))  # type: ignore[arg-type]
        if isinstance(expr, ast.Given):
            name = expr.name
            return lambda evaluation, bound: evaluation.input(name) is not None
        if isinstance(expr, ast.ReadingTest):
            reading_id, option = expr.reading, expr.option
            return lambda evaluation, bound: evaluation.reading(reading_id) == option
        if isinstance(expr, ast.Aggregate):
            return self._aggregate(expr)
        if isinstance(expr, ast.BonusSum):
            bonuses = [(b.name, tuple(p.name for p in b.params)) for b in statute.bonuses]

            def total(evaluation: Evaluation, bound: Mapping[str, Value]) -> Value:
                return sum(
                    (
                        evaluation.get(name, tuple(bound[p] for p in params))
                        for name, params in bonuses
                    ),
                    Fraction(0),
                )

            return total
        raise AssertionError(f"unhandled expression {expr!r}")  # pragma: no cover

    def _aggregate(self, expr: ast.Aggregate) -> Compiled:
        """Returns the closure of an aggregate over a list input (see ast.Aggregate); when
        tracing, the step it runs in records what it rests on (AggregateUse)."""
        statute = self.statute
        source, op, name = expr.source, expr.op, expr.field
        outer = self.scope
        self.scope = {**outer, **dates.record_scope(statute, expr)}
        try:
            condition = self.expr(expr.condition) if expr.condition is not None else None
            computed = self.expr(expr.value) if expr.value is not None else None
        finally:
            self.scope = outer
        record = statute.record_of(source)
        assert record is not None
        if expr.value is not None:
            whole = computed_type(statute, expr).kind == "count"
        else:
            whole = name is not None and record.fields[name].type.kind == "count"
        where = f"{statute.path}:{expr.span.line}:{expr.span.column}"
        text = " ".join(statute.source[expr.span.start : expr.span.end].split())

        def selected(evaluation: Evaluation, bound: Mapping[str, Value]) -> tuple[list[int], int]:
            items = evaluation.input(source)
            if items is None:
                raise EvaluationError(f"'{source}' is not given but is used at {where}")
            assert isinstance(items, tuple)
            if condition is None:
                return list(range(len(items))), len(items)
            uses = evaluation.frames[-1].uses if evaluation.tracing and evaluation.frames else None
            before = len(uses) if uses is not None else 0
            chosen = [
                index
                for index, element in enumerate(items)
                if condition(evaluation, {**bound, **element})  # type: ignore[dict-item]
            ]
            if uses is not None:  # what the condition used, once, not once per element
                uses[before:] = list(dict.fromkeys(uses[before:]))
            return chosen, len(items)

        def run(evaluation: Evaluation, bound: Mapping[str, Value]) -> Value:
            chosen, total = selected(evaluation, bound)
            items = evaluation.inputs[source]
            assert isinstance(items, tuple)
            # Each covered element's value: its field, or its amount, computed once.
            amount: Callable[[int], Value]
            if computed is not None:
                frames = evaluation.frames if evaluation.tracing else None
                uses = frames[-1].uses if frames else None
                before = len(uses) if uses is not None else 0
                amounts = {i: computed(evaluation, {**bound, **items[i]}) for i in chosen}  # type: ignore[dict-item]
                if uses is not None:  # what the amounts used, once, not once per element
                    uses[before:] = list(dict.fromkeys(uses[before:]))
                amount = amounts.__getitem__
            else:
                amount = lambda i: items[i][name]  # type: ignore[index] # noqa: E731

            rests_on: tuple[int, ...] = ()
            value: Value
            if op == "count":
                value = len(chosen)
            elif op == "sum":
                start: Fraction | int = 0 if whole else Fraction(0)
                value = sum((amount(i) for i in chosen), start)  # type: ignore[arg-type]
            elif op in ("any", "all"):
                if name is None:
                    holds = bool(chosen) if op == "any" else len(chosen) == total
                    if op == "any" and chosen:
                        rests_on = (chosen[0],)
                    elif op == "all" and not holds:
                        rests_on = (next(i for i, c in enumerate(_marks(chosen, total)) if not c),)
                else:
                    found = [i for i in chosen if bool(amount(i)) == (op == "any")]
                    holds = bool(found) if op == "any" else not found
                    rests_on = tuple(found[:1])
                value = holds
            else:
                if not chosen:
                    raise _empty(expr, text, where, total)
                ordered = sorted(chosen, key=lambda i: amount(i))  # type: ignore[arg-type, return-value]
                if op == "min":
                    rests_on = (ordered[0],)
                elif op == "max":
                    rests_on = (ordered[-1],)
                else:
                    low, high = ordered[(len(ordered) - 1) // 2], ordered[len(ordered) // 2]
                    rests_on = {"median_low": (low,), "median_high": (high,)}.get(
                        op, (low,) if low == high else (low, high)
                    )
                values = [amount(i) for i in rests_on]
                mean = op == "median"
                value = Fraction(sum(values), len(values)) if mean else values[0]  # type: ignore[arg-type]
            if evaluation.tracing and evaluation.frames:
                each = tuple((i, amount(i)) for i in chosen) if computed is not None else ()
                evaluation.frames[-1].aggregates.append(
                    AggregateUse(expr, value, total, len(chosen), rests_on, each)
                )
            return value

        return run

    def _calendar(self, expr: ast.BinOp, left: Compiled, right: Compiled) -> Compiled:
        """Returns the closure of `+` or `-` on dates and durations (see dsl/dates.py); an
        ambiguous day or a date outside the calendar is an evaluation error at `expr`."""
        rounding, op, statute = self.statute.date_rounding, expr.op, self.statute

        def run(evaluation: Evaluation, bound: Mapping[str, Value]) -> Value:
            a, b = left(evaluation, bound), right(evaluation, bound)
            try:
                if isinstance(a, dates.Duration) and isinstance(b, dates.Duration):
                    return a + b if op == "+" else a - b
                if isinstance(b, dates.Duration):
                    return dates.add(a, b if op == "+" else -b, rounding)  # type: ignore[arg-type]
                if isinstance(a, dates.Duration):
                    return dates.add(b, a, rounding)  # type: ignore[arg-type]
                return dates.between(a, b)  # type: ignore[arg-type]
            except dates.DateError as error:
                raise _undefined(error, expr, statute) from None

        return run

    def _compare_durations(self, expr: ast.Compare, left: Compiled, right: Compiled) -> Compiled:
        """Returns the closure of a comparison of two durations; one of months with one of
        days is an evaluation error at `expr`."""
        op, statute = expr.op, self.statute

        def run(evaluation: Evaluation, bound: Mapping[str, Value]) -> Value:
            try:
                return dates.compare(op, left(evaluation, bound), right(evaluation, bound))  # type: ignore[arg-type]
            except dates.DateError as error:
                raise _undefined(error, expr, statute) from None

        return run

    def _call(self, expr: ast.Call) -> Compiled:
        args = [self.expr(a) for a in expr.args]
        if expr.name == "date":
            statute = self.statute

            def make(evaluation: Evaluation, bound: Mapping[str, Value]) -> Value:
                parts = [int(a(evaluation, bound)) for a in args]  # type: ignore[arg-type]
                try:
                    return dates.make(*parts)
                except dates.DateError as error:
                    raise _undefined(error, expr, statute) from None

            return make
        if expr.name in ("floor", "ceil"):
            (only,) = args
            rounded = math.floor if expr.name == "floor" else math.ceil
            return lambda evaluation, bound: rounded(only(evaluation, bound))  # type: ignore[arg-type]
        if expr.name in ("min", "max"):
            choose = min if expr.name == "min" else max
            return lambda evaluation, bound: choose(a(evaluation, bound) for a in args)
        definition = self.statute.definitions[expr.name]
        given = dict(expr.kwargs)
        ordered = [self.expr(given[p.name]) for p in definition.params]
        name = expr.name
        return lambda evaluation, bound: evaluation.get(
            name, tuple(a(evaluation, bound) for a in ordered)
        )


def _constant(literal: ast.Literal) -> Value:
    """Returns a literal's value: a date as a `datetime.date`, a duration as a Duration."""
    if literal.unit == "date":
        return datetime.date.fromordinal(int(literal.value))
    if literal.unit == "duration":
        months, days = dates.UNITS[literal.duration_unit]
        count = int(literal.value)
        return dates.Duration(months * count, days * count)
    return literal.value


def _marks(chosen: list[int], total: int) -> list[bool]:
    """Returns, for each index below `total`, whether it is among `chosen`."""
    marks = [False] * total
    for index in chosen:
        marks[index] = True
    return marks


def _empty(expr: ast.Aggregate, text: str, where: str, total: int) -> EmptyAggregate:
    """Returns the refusal of an aggregate that has no element to take its value from."""
    meeting = ""
    if expr.condition is not None:
        meeting = " meeting its condition"
    given = "an empty list" if total == 0 else f"{total} elements, none{meeting}"
    return EmptyAggregate(
        [
            FieldProblem(
                expr.source,
                f"at least one element{meeting}, for `{text}` at {where}",
                given,
                f"the {expr.op.replace('_', ' ')} of no element has no value",
            )
        ]
    )


def evaluate(
    program: Program,
    inputs: Mapping[str, Value],
    readings: Mapping[str, str],
    tracing: bool = False,
) -> Evaluation:
    """Returns the evaluation of every result of the statute for validated inputs.

    `readings` maps every reading ID to its selected option. The evaluation holds the memo of
    values and, when `tracing`, the step of every definition evaluated.
    """
    evaluation = Evaluation(program, inputs, readings, tracing)
    for name in program.statute.result_names:
        evaluation.get(name)
    return evaluation


_COMPILED: dict[int, tuple[ast.Statute, Program]] = {}


def compiled(statute: ast.Statute) -> Program:
    """Returns the statute compiled once and kept (for conditions on inputs, which run with
    the same semantics as the rules)."""
    cached = _COMPILED.get(id(statute))
    if cached is None or cached[0] is not statute:
        cached = (statute, Program(statute))
        _COMPILED[id(statute)] = cached
    return cached[1]
