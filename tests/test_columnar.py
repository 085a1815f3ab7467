"""The columnar evaluator agrees exactly with the scalar one on every row it keeps."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lextrace import load_statute
from lextrace.dsl import columnar
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
