"""Hypothesis strategies derived from an encoding's input declarations.

`scenarios(statute)` draws scenarios in the scenario format from the declared types, defaults,
bounds and requirements, so no strategy is written by hand per field and a new input in an
amendment is fuzzed as soon as it is declared. Values sit near the declared bounds often, and
money is drawn in whole cents (as a scenario file states it). `readings(statute)` draws a
selection of readings among the declared options.
"""

from __future__ import annotations

import calendar
import datetime
from fractions import Fraction
from typing import Any

from hypothesis import assume
from hypothesis import strategies as st

from lextrace.dsl import ast, dates
from lextrace.dsl.errors import ScenarioError
from lextrace.dsl.scenario import validate
from lextrace.dsl.values import Derived, Value

# How far above its lower bound an unbounded amount is drawn, in cents; wide enough to cross
# every statutory threshold, small enough to keep the examples readable.
MONEY_SPAN_CENTS = 10**9
NUMBER_SPAN_HUNDREDTHS = 10**6
COUNT_SPAN = 3_000
# The days an unbounded date is drawn between: 1900-01-01 to 2100-12-31 (2000 a leap year,
# 1900 and 2100 not).
DATE_SPAN = (datetime.date(1900, 1, 1).toordinal(), datetime.date(2100, 12, 31).toordinal())


def _literal(expr: ast.Expr, drawn: dict[str, Value]) -> Fraction | None:
    """Returns the value of a bound: a literal, or an input already drawn (None if not yet)."""
    if isinstance(expr, ast.Literal) and not isinstance(expr.value, bool):
        return Fraction(expr.value)
    if isinstance(expr, ast.Ref):
        value = drawn.get(expr.name)
        if isinstance(value, datetime.date):  # a date bound: its day number
            return Fraction(value.toordinal())
        if isinstance(value, Fraction | int) and not isinstance(value, bool):
            return Fraction(value)
    return None


def _condition_holds(
    statute: ast.Statute, expr: ast.Expr | None, drawn: dict[str, Value]
) -> bool | None:
    """Returns whether a `when` condition holds for the inputs drawn so far (None: unknown)."""
    if expr is None:
        return True
    from lextrace.dsl.checker import walk
    from lextrace.dsl.evaluator import Evaluation, EvaluationError, compiled

    names = {
        n.name
        for n in walk(expr)
        if isinstance(n, ast.Ref | ast.Given) and n.name in statute.inputs
    }
    if not names <= set(drawn):
        return None
    program = compiled(statute)
    try:
        return bool(program.condition(expr)(Evaluation(program, drawn, {}, False), {}))
    except (EvaluationError, KeyError, TypeError):
        return None


def _bounds(
    statute: ast.Statute, declared: ast.Input, drawn: dict[str, Value]
) -> tuple[Fraction | None, bool, Fraction | None]:
    """Returns (lower, lower is strict, upper) from the bounds that apply to what is drawn."""
    lower: Fraction | None = None
    strict = False
    upper: Fraction | None = None
    for bound in declared.bounds:
        if _condition_holds(statute, bound.when, drawn) is False:
            continue
        value = _literal(bound.value, drawn)
        if value is None:
            continue
        if bound.kind == "max":
            upper = value if upper is None else min(upper, value)
        elif lower is None or value > lower or (value == lower and bound.kind == "above"):
            lower, strict = value, bound.kind == "above"
    return lower, strict, upper


def _numbers(
    kind: str, lower: Fraction | None, strict: bool, upper: Fraction | None
) -> st.SearchStrategy[Any]:
    scale = 100  # money in cents, numbers in hundredths
    if kind == "count":
        low = int(lower or 0) + (1 if strict else 0)
        high = int(upper) if upper is not None else low + COUNT_SPAN
        return st.integers(low, max(low, high))
    low = int((lower or 0) * scale) + (1 if strict else 0)
    span = MONEY_SPAN_CENTS if kind == "money" else NUMBER_SPAN_HUNDREDTHS
    high = int(upper * scale) if upper is not None else low + span
    high = max(low, high)
    edges = st.sampled_from(sorted({low, min(high, low + 1), high}))
    return st.one_of(edges, st.integers(low, high)).map(
        lambda units: _decimal(Fraction(units, scale))
    )


def _dates(lower: Fraction | None, strict: bool, upper: Fraction | None) -> st.SearchStrategy[str]:
    """Returns ISO dates within the bounds (by default 1900 to 2100), often a month's last day,
    29 February or the first of a month: where calendar arithmetic has its cases."""
    low = int(lower) + (1 if strict else 0) if lower is not None else DATE_SPAN[0]
    high = int(upper) if upper is not None else max(low, DATE_SPAN[1])
    high = max(low, high)

    def month_ends(year: int, month: int) -> list[int]:
        first = datetime.date(year, month, 1).toordinal()
        length = calendar.monthrange(year, month)[1]
        return [first, first + length - 1]

    start, end = datetime.date.fromordinal(low), datetime.date.fromordinal(high)
    edges = st.builds(
        lambda year, month, pick: month_ends(year, month)[pick],
        st.integers(start.year, end.year),
        st.integers(1, 12),
        st.integers(0, 1),
    ).filter(lambda day: low <= day <= high)
    days = st.one_of(st.sampled_from(sorted({low, high})), edges, st.integers(low, high))
    return days.map(lambda day: dates.iso(datetime.date.fromordinal(day)))


def _decimal(value: Fraction) -> str:
    cents = value * 100
    whole, part = divmod(int(cents), 100)
    return f"{whole}.{part:02d}"


def _share() -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from(["0", "1", "1/2", "1/3", "499/1000", "333/1000"]),
        st.integers(1, 1000).flatmap(lambda d: st.integers(0, d).map(lambda n: f"{n}/{d}")),
    )


def _value(
    draw: st.DrawFn, statute: ast.Statute, declared: ast.Input, drawn: dict[str, Value]
) -> object:
    """Draws one value of a scalar input or record field, within the bounds that apply."""
    kind = declared.type.kind
    if kind == "bool":
        return draw(st.booleans())
    if kind == "enum":
        return draw(st.sampled_from(declared.type.members))
    if kind == "share":
        return draw(_share())
    lower, strict, upper = _bounds(statute, declared, drawn)
    if kind == "date":
        return draw(_dates(lower, strict, upper))
    return draw(_numbers(kind, lower, strict, upper))


def _elements(
    draw: st.DrawFn, statute: ast.Statute, declared: ast.Input, size: int
) -> list[dict[str, object]]:
    """Draws the elements of a list input: a length within its bounds (and `size`), each
    element's text fields named by position, its other fields drawn (a field with a default
    sometimes left out)."""
    lower, strict, upper = _bounds(statute, declared, {})
    low = int(lower or 0) + (1 if strict else 0)
    high = max(low, min(size, int(upper)) if upper is not None else size)
    length = draw(st.integers(low, high))
    record = statute.records[declared.type.record]
    elements = []
    for index in range(length):
        for _ in range(8):  # an element must meet its record's requirements
            element: dict[str, object] = {}
            for field in record.fields.values():
                if field.type.kind == "text":
                    element[field.name] = f"{declared.name}-{index + 1}"
                elif field.default is None or draw(st.integers(0, 3)) != 0:
                    element[field.name] = _value(draw, statute, field, {})
            if _meets(statute, record, element):
                break
        else:
            assume(False)
        elements.append(element)
    return elements


def _meets(statute: ast.Statute, record: ast.Record, element: dict[str, object]) -> bool:
    """Returns whether an element (as a scenario gives it) meets its record's requirements."""
    if not record.requirements:
        return True
    from lextrace.dsl.evaluator import Evaluation, compiled
    from lextrace.dsl.scenario import default_value

    values: dict[str, object] = {}
    for field in record.fields.values():
        value = element.get(field.name)
        if value is None and field.default is not None:
            value = default_value(field)
        if isinstance(value, str) and field.type.kind in ("money", "number"):
            value = Fraction(value)
        values[field.name] = value
    program = compiled(statute)
    evaluation = Evaluation(program, {}, {}, False)
    return all(
        bool(program.condition(r.condition)(evaluation, values)) for r in record.requirements
    )


def _scenario(draw: st.DrawFn, statute: ast.Statute, list_size: int) -> dict[str, object]:
    scenario: dict[str, object] = {}
    drawn: dict[str, Value] = {}
    # The lists first: a list given derives the inputs `derived by` a rule when it is given,
    # which the scenario then leaves out. An optional list is given one time in four.
    for declared in statute.inputs.values():
        if declared.type.kind != "list":
            continue
        drawn[declared.name] = None
        if declared.required or draw(st.integers(0, 3)) == 0:
            elements = _elements(draw, statute, declared, list_size)
            scenario[declared.name] = elements
            drawn[declared.name] = tuple(elements)
    for declared in statute.inputs.values():
        kind = declared.type.kind
        if kind == "list":
            continue
        derived = declared.derived_by
        if derived is not None and _condition_holds(statute, derived.condition, drawn) is True:
            continue
        required = (
            declared.required or _condition_holds(statute, declared.required_when, drawn) is True
        )
        if not required and draw(st.integers(0, 3)) == 0:
            continue  # left out: the default applies (or null for an optional input)
        if kind == "bool":
            value: object = draw(st.booleans())
        elif kind == "enum":
            value = draw(st.sampled_from(declared.type.members))
        elif kind == "share":
            value = draw(_share())
        elif kind == "date":
            lower, strict, upper = _bounds(statute, declared, drawn)
            value = draw(_dates(lower, strict, upper))
        else:
            lower, strict, upper = _bounds(statute, declared, drawn)
            value = draw(_numbers(kind, lower, strict, upper))
        scenario[declared.name] = value
        if kind == "date":
            drawn[declared.name] = datetime.date.fromisoformat(str(value))
            continue
        drawn[declared.name] = (
            Fraction(value) if isinstance(value, str) and kind in ("money", "number") else value  # type: ignore[assignment]
        )
    try:
        inputs = validate(statute, scenario)
        if any(type(v) is Derived for v in inputs.values()):
            # A derivation may refuse the scenario (the median of no job): only valid ones.
            from lextrace.dsl.evaluator import Evaluation, compiled
            from lextrace.dsl.scenario import derive

            chosen = {rid: r.default.name for rid, r in statute.readings.items()}
            derive(statute, Evaluation(compiled(statute), inputs, chosen, False), inputs)
    except ScenarioError:
        assume(False)
    return scenario


def scenarios(statute: ast.Statute, list_size: int = 4) -> st.SearchStrategy[dict[str, object]]:
    """Returns a strategy of valid scenarios (scenario-format values) for the statute; a list
    input has at most `list_size` elements (the proof model's bound by default)."""

    # A closure, not a composite taking the statute: Hypothesis prints a strategy's
    # arguments, and the whole tree would run to megabytes.
    @st.composite
    def scenario(draw: st.DrawFn) -> dict[str, object]:
        return _scenario(draw, statute, list_size)

    return scenario()


def readings(statute: ast.Statute) -> st.SearchStrategy[dict[str, str]]:
    """Returns a strategy of reading selections: each reading with alternatives takes one of
    its options."""
    choices = {
        reading_id: st.sampled_from([o.name for o in reading.options])
        for reading_id, reading in statute.readings.items()
        if reading.alternatives
    }
    return st.fixed_dictionaries(choices)


def period_scenarios(
    statute: ast.Statute, list_size: int = 4
) -> st.SearchStrategy[dict[str, object]]:
    """Returns a strategy of valid scenarios of periods, for an encoding that declares them:
    one to `at most` periods, each a valid scenario of its own (without the facts the period
    form refuses), their year input strictly rising within its bounds, the facts not given
    `each` period sometimes given once at the top level instead."""
    periods = statute.periods
    if periods is None:
        raise ValueError(f"{statute.name} declares no periods")
    declared = statute.inputs[periods.by]
    low, _, high = _bounds(statute, declared, {})
    first = int(low or 0)
    last = int(high) if high is not None else first + 100

    @st.composite
    def scenario(draw: st.DrawFn) -> dict[str, object]:
        count = draw(st.integers(1, min(periods.at_most, 4, last - first + 1)))
        years = sorted(draw(st.sets(st.integers(first, last), min_size=count, max_size=count)))
        shared_keys = [
            name
            for name in statute.inputs
            if name not in periods.only and name not in periods.without and name != periods.by
        ]
        top: dict[str, object] = {}
        chosen = draw(st.sets(st.sampled_from(shared_keys))) if shared_keys else set()
        own_periods = []
        for year in years:
            own = {
                k: v
                for k, v in draw(scenarios(statute, list_size)).items()
                if k not in periods.without
            }
            own[periods.by] = year
            own_periods.append(own)
        # A fact given once at the top level: the first period's value, left out of every
        # period that has the same value.
        for name in sorted(chosen):
            if name in own_periods[0]:
                top[name] = own_periods[0][name]
                for own in own_periods:
                    if own.get(name) == top[name]:
                        own.pop(name)
        candidate = {**top, periods.name: own_periods}
        from lextrace.periods import split

        try:
            split(statute, candidate)
        except ScenarioError:
            assume(False)
        return candidate

    return scenario()
