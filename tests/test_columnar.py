"""The columnar evaluator agrees exactly with the scalar one on every row it keeps."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lextrace import load_statute
from lextrace.dsl import ast, columnar
from lextrace.dsl.checker import definition_expressions, walk
from lextrace.verify.strategies import readings, scenarios

STATUTE = load_statute()
BASE = {
    "new_jobs": 10,
    "project_median_salary": "60000",
    "county_median_salary": "70000",
    "lowest_full_time_hourly_wage": "20",
    "state_minimum_wage": "15",
}


def run_columns(rows: list[dict], chosen: dict[str, str]) -> tuple[dict, np.ndarray, list]:
    selected = STATUTE.select_readings(chosen)
    inputs = [STATUTE.validate(row) for row in rows]
    engine = columnar.Engine(STATUTE.ast, selected)
    columns = {
        name: columnar.input_column(declared, [i[name] for i in inputs], engine.codes)
        for name, declared in STATUTE.ast.inputs.items()
    }
    results, deferred = engine.run(columns, len(rows))
    expected = [STATUTE.evaluate_inputs(i, selected).values for i in inputs]
    return {"engine": engine, "results": results}, deferred, expected


def exact_rows(state: dict, name: str, size: int) -> list:
    column = state["results"][name]
    if isinstance(column, columnar.Code):
        codes = np.broadcast_to(column.value, (size,))
        return [state["engine"].members[int(c)] for c in codes]
    return columnar.exact_values(column, range(size))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=st.lists(scenarios(STATUTE.ast), min_size=1, max_size=40), chosen=readings(STATUTE.ast))
def test_every_kept_row_equals_the_scalar_evaluation_exactly(rows, chosen) -> None:
    state, deferred, expected = run_columns(rows, chosen)
    for name in STATUTE.ast.result_names:
        got = exact_rows(state, name, len(rows))
        for row, values in enumerate(expected):
            if not deferred[row]:
                assert got[row] == values[name], (name, rows[row])
    assert not deferred.all()


def test_money_is_rounded_half_up_to_the_cent_like_the_scalar_path() -> None:
    column = columnar.Num(
        np.array([1, 2, -3, -2], dtype=np.int64),
        np.array([1, 1, 1, 0], dtype=np.int64),
        columnar.Den(2),
        100,
    )
    # 1.5 cents -> 2, 2.5 -> 3, -2.5 -> -3 (halves away from zero), -2 -> -2
    assert list(columnar.cents(column, 4)) == [2, 3, -3, -2]
    assert columnar.exact_values(column, [2]) == [Fraction(-5, 200)]


def test_rows_that_could_overflow_are_deferred_not_guessed() -> None:
    base = dict(BASE)
    huge = dict(base, new_jobs=10**17, project_median_salary="1" + "0" * 15)
    state, deferred, expected = run_columns([base, huge], {})
    assert list(deferred) == [False, True]
    got = exact_rows(state, "annual_credit", 2)
    assert got[0] == expected[0]["annual_credit"]


def test_a_missing_optional_input_defers_only_where_it_is_used() -> None:
    base = dict(BASE)
    limited = dict(base, board_approved_annual_limit="1000")
    state, deferred, expected = run_columns([base, limited], {})
    assert not deferred.any()
    assert exact_rows(state, "annual_credit", 2) == [e["annual_credit"] for e in expected]


def test_the_benchmark_population_with_its_edge_cases_agrees_row_by_row() -> None:
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from benchmarks.population import population

    rows = population(3000, seed=11)
    state, deferred, expected = run_columns(rows, {})
    assert not deferred.any()
    for name in STATUTE.ast.result_names:
        got = exact_rows(state, name, len(rows))
        wrong = [row for row in range(len(rows)) if got[row] != expected[row][name]]
        assert not wrong, (name, rows[wrong[0]])


fractions = st.fractions(min_value=-(10**6), max_value=10**6, max_denominator=10**4)


def assert_normal(column: columnar.Num, size: int) -> None:
    """Every remainder lies in [0, den): comparisons rely on it."""
    den = np.full(size, column.den.const, dtype=np.int64)
    for factor in column.den.factors:
        den = den * factor
    r = np.broadcast_to(np.asarray(column.r), (size,))
    bad = np.broadcast_to(column.bad, (size,))
    assert ((r >= 0) & (r < den) | bad).all()


def column_of(values: list[Fraction]) -> columnar.Num:
    den = np.array([v.denominator for v in values], dtype=np.int64)
    q, r = np.divmod(np.array([v.numerator for v in values], dtype=np.int64), den)
    return columnar.Num(q, r, columnar.Den(1, (den,)), 1)


@settings(max_examples=200, deadline=None)
@given(pairs=st.lists(st.tuples(fractions, fractions), min_size=1, max_size=20))
def test_each_operation_is_exact_on_every_row(pairs) -> None:
    left = [a for a, _ in pairs]
    right = [b for _, b in pairs]
    a, b = column_of(left), column_of(right)
    engine = columnar.Engine(STATUTE.ast, STATUTE.select_readings())
    chunk = columnar.Chunk(engine, {}, len(pairs))
    rows = range(len(pairs))
    cases = {
        "add": (chunk.add(a, b, 1), [x + y for x, y in pairs]),
        "sub": (chunk.add(a, b, -1), [x - y for x, y in pairs]),
        "mul": (chunk.multiply(a, b), [x * y for x, y in pairs]),
        "neg": (chunk.negate(a), [-x for x in left]),
    }
    for name, (column, expected) in cases.items():
        bad = np.broadcast_to(column.bad, (len(pairs),))
        got = columnar.exact_values(column, rows)
        assert all(bad[i] or got[i] == expected[i] for i in rows), name
        assert_normal(column, len(pairs))
    quotient = chunk.divide(a, b)
    bad = np.broadcast_to(quotient.bad, (len(pairs),))
    got = columnar.exact_values(quotient, rows)
    for i, (x, y) in enumerate(pairs):
        assert bool(bad[i]) if y == 0 else (bad[i] or got[i] == x / y)
    for op, check in {"<": "__lt__", "<=": "__le__", "=": "__eq__", ">=": "__ge__"}.items():
        flags = np.broadcast_to(chunk.compare(op, a, b).value, (len(pairs),))
        assert [bool(f) for f in flags] == [getattr(x, check)(y) for x, y in pairs], op


def test_remainders_that_add_up_to_a_whole_carry() -> None:
    half = column_of([Fraction(1, 2), Fraction(-1, 2)])
    engine = columnar.Engine(STATUTE.ast, STATUTE.select_readings())
    chunk = columnar.Chunk(engine, {}, 2)
    total = chunk.add(half, half, 1)
    assert columnar.exact_values(total, [0, 1]) == [1, -1]
    assert list(np.asarray(total.r)) == [0, 0]


# ---- cases chosen by an enum member, looked up in a table ---------------------------------------
# The facts the area tier is decided by, read from its cases in the encoding.
TIER_INPUTS = tuple(
    sorted(
        {
            node.name
            for expr in definition_expressions(STATUTE.ast.definitions["area_tier"])
            for node in walk(expr)
            if isinstance(node, ast.Ref) and node.name in STATUTE.ast.inputs
        }
    )
)


def tier_columns(engine: columnar.Engine) -> dict:
    """Every combination of the area facts, one row each (64 rows)."""
    rows = np.arange(2 ** len(TIER_INPUTS))
    return {name: columnar.Flag((rows >> bit) & 1 == 1) for bit, name in enumerate(TIER_INPUTS)}


def member_cases_both_ways(statute, name: str) -> tuple[columnar.Col, columnar.Col]:
    """Returns a definition by the member table and by the generic chain of choices."""
    engine = columnar.Engine(statute, STATUTE.select_readings())
    inputs = tier_columns(engine)
    size = 2 ** len(TIER_INPUTS)
    table = engine.definition(columnar.Chunk(engine, inputs, size), name, ())
    engine.member_cases = lambda *args: None  # type: ignore[method-assign]
    chain = engine.definition(columnar.Chunk(engine, inputs, size), name, ())
    return table, chain


def same_rows(a: columnar.Col, b: columnar.Col, size: int) -> None:
    """Both columns defer the same rows and agree on every other row."""
    bad_a = np.broadcast_to(a.bad, (size,))
    bad_b = np.broadcast_to(b.bad, (size,))
    assert list(bad_a) == list(bad_b)
    values_a = np.broadcast_to(a.q if isinstance(a, columnar.Num) else a.value, (size,))
    values_b = np.broadcast_to(b.q if isinstance(b, columnar.Num) else b.value, (size,))
    assert list(values_a[~bad_a]) == list(values_b[~bad_b])


def varied(cases_name: str, **changes) -> object:
    import dataclasses

    definitions = dict(STATUTE.ast.definitions)
    definitions[cases_name] = dataclasses.replace(definitions[cases_name], **changes)
    return dataclasses.replace(STATUTE.ast, definitions=definitions)


def test_cases_on_an_enum_member_are_a_table_equal_to_the_chain_of_choices() -> None:
    base = STATUTE.ast.definitions["base_amount"]
    first, second, *rest = base.cases
    variants = {
        "as encoded": STATUTE.ast,
        "a member named twice, exclusive": varied("base_amount", cases=[first, first, *rest]),
        "a member named twice, first match": varied(
            "base_amount", cases=[second, first, second, *rest], order="first-match"
        ),
        "a member no case names": varied("base_amount", cases=[first, *rest]),
        "a member no case names, otherwise": varied(
            "base_amount", cases=[first, *rest], otherwise=second.expr
        ),
    }
    for label, statute in variants.items():
        table, chain = member_cases_both_ways(statute, "base_amount")
        assert isinstance(table, columnar.Num), label
        same_rows(table, chain, 2 ** len(TIER_INPUTS))
    table, _ = member_cases_both_ways(variants["a member no case names"], "base_amount")
    assert np.asarray(table.bad).any()  # the rows of tier b2 are deferred, never guessed


def test_cases_on_a_member_defer_where_the_enum_value_is_not_known() -> None:
    engine = columnar.Engine(STATUTE.ast, STATUTE.select_readings())
    size = 4
    unknown = np.array([False, True, False, True])
    chosen = ["b1", "b2"]
    values = [columnar.Num(400, 0, columnar.Den(), 100), columnar.Num(350, 0, columnar.Den(), 100)]
    cases = STATUTE.ast.definitions["base_amount"]
    codes = {m: engine.codes[m] for m in engine.members}
    key = columnar.Code(np.array([codes["b1"], codes["b2"], codes["b3"], codes["b1"]]), unknown)
    looked_up = columnar._member_table(codes, chosen, values, cases, key)
    assert looked_up is not None
    assert list(np.asarray(looked_up.q)[:2]) == [400, 350]
    # b3 is named by no case and there is no otherwise: deferred, as are the unknown rows.
    assert list(np.broadcast_to(looked_up.bad, (size,))) == [False, True, True, True]


# ---- bounds noted on columns ---------------------------------------------------------------------
def test_noted_bounds_skip_checks_and_huge_columns_still_defer_rows() -> None:
    engine = columnar.Engine(STATUTE.ast, STATUTE.select_readings())
    chunk = columnar.Chunk(engine, {}, 3)
    small = np.array([1, -2, 3], dtype=np.int64)
    product, over = chunk.product(small, small)
    assert over is False and chunk.bound(product) == 9
    huge = np.array([1, 2**40, -(2**40)], dtype=np.int64)
    product, over = chunk.product(huge, np.array([5, 2**30, 1], dtype=np.int64))
    assert list(np.asarray(over)) == [False, True, False]
    total = chunk.sum(np.array([2**61, 1, 0], dtype=np.int64), np.array([2**61, 1, 0]), 1)
    assert list(np.asarray(chunk.large(total))) == [True, False, False]


@settings(max_examples=100, deadline=None)
@given(
    values=st.lists(st.integers(-(2**70), 2**70), min_size=1, max_size=30),
    nulls=st.lists(st.booleans(), min_size=30, max_size=30),
    places=st.sampled_from([0, 2, 3]),
    start=st.integers(0, 3),
)
def test_decimals_are_read_exactly_or_handed_to_the_scalar_path(
    values, nulls, places, start
) -> None:
    from decimal import Decimal

    import pyarrow as pa

    from lextrace.columns import _decimal_units, _missing

    given = [None if nulls[i] else Decimal(v).scaleb(-places) for i, v in enumerate(values)]
    array = pa.array([None] * start + given, pa.decimal128(38, places)).slice(start)
    for scale in (1, 100):
        missing = _missing(array)
        number, too_large = _decimal_units(array, scale, missing)
        got = columnar.exact_values(number, range(len(given)))
        for row, value in enumerate(given):
            if value is None:
                assert missing[row] and got[row] == 0 and not too_large[row]
                continue
            unscaled = int(value.scaleb(places))
            multiplier = Fraction(scale, 10**places).numerator
            beyond = not -(2**63) <= unscaled < 2**63 or abs(unscaled) * multiplier >= 2**62
            assert bool(too_large[row]) == beyond, row
            if not beyond:
                assert got[row] == Fraction(value), row


def test_the_allocator_keeps_freed_blocks_once_asked() -> None:
    assert columnar.keep_freed_memory() is columnar.keep_freed_memory()
