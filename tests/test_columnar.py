"""The columnar evaluator agrees exactly with the scalar one on every row it keeps."""

from __future__ import annotations

import math
import sys
from fractions import Fraction

import numpy as np
from hypothesis import HealthCheck, assume, given, settings
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
    # A list is no column: a row giving one goes to the scalar path (lextrace/columns.py).
    columns = {
        name: columnar.input_column(declared, [i[name] for i in inputs], engine.codes)
        for name, declared in STATUTE.ast.inputs.items()
        if declared.type.kind != "list"
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
    # A payroll row is evaluated by the scalar path (tests/test_payroll.py checks the batch).
    rows = [row for row in rows if "full_time_jobs" not in row]
    assume(rows)
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
        # Exact as made (a remainder perhaps not divided out yet), and once normalised.
        for form in (column, chunk.normal(column)):
            bad = np.broadcast_to(form.bad, (len(pairs),))
            got = columnar.exact_values(form, rows)
            assert all(bad[i] or got[i] == expected[i] for i in rows), name
        assert_normal(chunk.normal(column), len(pairs))
        if column.normal:
            assert_normal(column, len(pairs))
    quotient = chunk.divide(a, b)
    for form in (quotient, chunk.normal(quotient)):
        bad = np.broadcast_to(form.bad, (len(pairs),))
        got = columnar.exact_values(form, rows)
        for i, (x, y) in enumerate(pairs):
            assert bool(bad[i]) if y == 0 else (bad[i] or got[i] == x / y)
    assert_normal(chunk.normal(quotient), len(pairs))
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
    # glibc takes the setting (mallopt); elsewhere the process allocates as it would anyway.
    assert columnar.keep_freed_memory() is sys.platform.startswith("linux")
    assert columnar.keep_freed_memory() is sys.platform.startswith("linux")  # answered again


# ---- remainders divided out lazily ---------------------------------------------------------------
def constant(value: Fraction) -> columnar.Num:
    """A literal as the engine makes it: whole part, remainder, constant denominator."""
    q, r = divmod(value.numerator, value.denominator)
    return columnar.Num(q, r, columnar.Den(value.denominator), 1)


def whole_column(values: list[int]) -> columnar.Num:
    return columnar.Num(np.array(values, dtype=np.int64), 0, columnar.Den(), 1)


small_fractions = st.fractions(min_value=-(10**4), max_value=10**4, max_denominator=50)


@settings(max_examples=200, deadline=None)
@given(
    rows=st.lists(
        st.tuples(fractions, fractions, st.integers(-(10**6), 10**6), small_fractions),
        min_size=1,
        max_size=20,
    )
)
def test_lazy_values_are_compared_floored_and_output_exactly(rows) -> None:
    """A quotient, a product by a count and by a constant, and sums of them are left
    undivided; compared, normalised, floored or rounded to cents they equal Fraction's."""
    engine = columnar.Engine(STATUTE.ast, STATUTE.select_readings())
    size = len(rows)
    chunk = columnar.Chunk(engine, {}, size)
    a = column_of([x for x, _, _, _ in rows])
    b = column_of([y for _, y, _, _ in rows])
    k = whole_column([n for _, _, n, _ in rows])
    c = constant(rows[0][3])
    quotient = chunk.divide(a, b)
    counted = chunk.multiply(k, quotient)
    scaled = chunk.multiply(c, counted)
    total = chunk.add(chunk.add(scaled, counted, 1), quotient, -1)
    expected = [
        None if y == 0 else (x / y * n * rows[0][3] + x / y * n - x / y) for x, y, n, _ in rows
    ]
    assert not quotient.normal  # left undivided until it is needed
    bad = np.broadcast_to(total.bad, (size,))
    kept = [i for i in range(size) if not bad[i]]
    assert all(expected[i] is not None for i in kept)  # a division by zero always defers
    assert columnar.exact_values(total, kept) == [expected[i] for i in kept]
    normal = chunk.normal(total)
    assert_normal(normal, size)
    assert columnar.exact_values(normal, kept) == [expected[i] for i in kept]
    # Floored and rounded half-up to a whole unit, as the output is.
    floors = np.broadcast_to(np.asarray(normal.q), (size,))
    assert [int(floors[i]) for i in kept] == [math.floor(expected[i]) for i in kept]
    money = columnar.Num(total.q, total.r, total.den, 100, total.bad, total.normal)
    rounded = columnar.cents(money, size)
    for i in kept:
        value = expected[i]
        half_up = math.floor(abs(value) + Fraction(1, 2)) * (1 if value >= 0 else -1)
        assert rounded[i] == half_up
    for op, check in {"<": "__lt__", "<=": "__le__", "=": "__eq__", ">": "__gt__"}.items():
        for other in (c, whole_column([n for _, _, n, _ in rows])):
            flags = np.broadcast_to(chunk.compare(op, total, other).value, (size,))
            values = columnar.exact_values(other, range(size))
            assert [bool(flags[i]) for i in kept] == [
                getattr(expected[i], check)(values[i]) for i in kept
            ], op


@settings(max_examples=100, deadline=None)
@given(pairs=st.lists(st.tuples(fractions, small_fractions), min_size=1, max_size=20))
def test_a_product_by_a_constant_stays_normal_only_when_it_can(pairs) -> None:
    engine = columnar.Engine(STATUTE.ast, STATUTE.select_readings())
    chunk = columnar.Chunk(engine, {}, len(pairs))
    x = column_of([v for v, _ in pairs])
    for factor in {pairs[0][1], Fraction(1, 2), Fraction(1, 7)}:
        product = chunk.multiply(constant(factor), x)
        got = columnar.exact_values(product, range(len(pairs)))
        assert got == [v * factor for v, _ in pairs]
        if product.normal:
            assert_normal(product, len(pairs))
        if factor.numerator == 1 and factor.denominator > 1:
            assert product.normal  # divided by a constant, never by a column


def test_lazy_remainders_that_grow_huge_defer_their_rows() -> None:
    engine = columnar.Engine(STATUTE.ast, STATUTE.select_readings())
    chunk = columnar.Chunk(engine, {}, 3)
    third = column_of([Fraction(1, 3), Fraction(2, 3), Fraction(-1, 3)])
    count = whole_column([2**61, 5, 2**40])
    product = chunk.multiply(count, third)
    assert not product.normal
    total = chunk.add(product, product, 1)
    bad = list(np.broadcast_to(total.bad, (3,)))
    assert bad[0] and not bad[1]
    kept = [i for i in range(3) if not bad[i]]
    expected = [Fraction(2, 3) * 2**62, Fraction(20, 3), Fraction(-(2**41), 3)]
    assert columnar.exact_values(chunk.normal(total), kept) == [expected[i] for i in kept]


def test_huge_amounts_with_fractions_of_a_cent_defer_and_match_the_scalar_path() -> None:
    """Per-job amounts reduced by an odd salary shortfall are fractions of a cent: times huge
    job counts the undivided remainders leave the int64 range, and only those rows defer."""
    reduced = dict(BASE, project_median_salary="59999.99", retained_jobs=3)
    huge = dict(reduced, new_jobs=4 * 10**15, retained_jobs=10**15)
    state, deferred, expected = run_columns([reduced, huge, reduced], {})
    assert list(deferred) == [False, True, False]
    for name in STATUTE.ast.result_names:
        got = exact_rows(state, name, 3)
        assert [got[0], got[2]] == [expected[0][name], expected[2][name]], name


def test_selections_are_exact_even_where_the_difference_wraps() -> None:
    c = np.array([True, False, True, False])
    high = np.array([2**62 - 1, 1, -(2**62) + 1, 0], dtype=np.int64)
    low = np.array([-(2**62) + 1, 2**62 - 1, 2**62 - 1, -5], dtype=np.int64)
    assert list(columnar._select(c, high, low)) == [2**62 - 1, 2**62 - 1, -(2**62) + 1, -5]
    assert list(columnar._select(c, 7, low)) == [7, 2**62 - 1, 7, -5]
    assert list(columnar._select(c, high, -3)) == [2**62 - 1, -3, -(2**62) + 1, -3]
    assert list(columnar._select(c, 7, -3)) == [7, -3, 7, -3]
    assert list(columnar._select(c, 2**62, -(2**62))) == [2**62, -(2**62), 2**62, -(2**62)]
    codes = columnar._select_code(c, np.int16(4), np.array([0, 9, 2, 3], dtype=np.int16))
    assert list(codes) == [4, 9, 4, 3] and codes.dtype == np.int16


def test_values_used_once_stay_undivided_and_shared_ones_are_normalised() -> None:
    """Results and definitions used at several places are held in normal form; a value
    used once (a quotient only floored later, say) is divided out only where it is used."""
    shared = columnar._shared_definitions(STATUTE.ast)
    assert set(STATUTE.ast.result_names) <= shared
    state, deferred, _ = run_columns([BASE, dict(BASE, project_median_salary="80000")], {})
    assert not deferred.any()
    memo = state["engine"].last_memo
    for (name, _), value in memo.items():
        if isinstance(value, columnar.Num) and name in shared:
            assert value.normal, name
    assert any(isinstance(v, columnar.Num) and not v.normal for v in memo.values())


def test_products_that_reach_the_limit_are_found_exactly_in_integers() -> None:
    limit = 2**62
    a = np.array([2**31, 2**31, -(2**31), 3, -(2**63), 7, 0, 2**62], dtype=np.int64)
    b = np.array([2**31 - 1, 2**31, 2**31, (limit - 1) // 3, 1, -(limit // 7 + 1), 5, 0])
    expected = [abs(int(x) * int(y)) >= limit for x, y in zip(a, b, strict=True)]
    # A side that alone reaches the limit counts, even times zero (the row is only deferred).
    expected[-1] = True
    assert columnar._reaches_limit(a, b).tolist() == expected
    assert expected == [False, True, True, False, True, True, False, True]
