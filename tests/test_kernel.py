"""The compiled kernel (dsl/kernel.py) gives the scalar evaluator's results on every row it
keeps, defers the rows it cannot do exactly or that break a declared bound, and gives way to
the numpy engine where it cannot run."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import ROOT, text_table, wide_decimal_table
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from benchmarks.population import population, to_arrow, write_jsonl
from lextrace import load_statute
from lextrace.cli import main
from lextrace.dsl import columnar, kernel
from lextrace.dsl.kernel import CompiledEngine
from lextrace.tables import Runner
from lextrace.verify.strategies import scenarios

STATUTE = load_statute()
TRANSLATED = [
    ROOT / "statute" / "nj-34-1b-343.lex",
    ROOT / "statute" / "nsw-cgr-2020-cl-5.lex",
    ROOT / "statute" / "usc-26-132-c.lex",
    *(
        ROOT / "tests" / "other_statutes" / f"{name}.lex"
        for name in (
            "allowance",
            "fringe",
            "limit",
            "ratio",
            "ratio-amended",
            "relief",
            "threshold",
        )
    ),
]
STATUTES = {path.stem: load_statute(path) for path in TRANSLATED}
_ENGINES: dict[tuple[str, tuple[tuple[str, str], ...]], CompiledEngine] = {}


def engine_of(name: str, selected: dict[str, str]) -> CompiledEngine:
    """One compiled engine per encoding and selection (its kernels compile once)."""
    key = (name, tuple(sorted(selected.items())))
    if key not in _ENGINES:
        _ENGINES[key] = CompiledEngine(columnar.Engine(STATUTES[name].ast, selected))
    return _ENGINES[key]


def general_columns(statute, inputs: list[dict], codes: dict[str, int]) -> dict:
    """The input columns in their most general layout: every number over a denominator column
    of its own, every column with a mask of rows not given (one kernel for any rows)."""
    size = len(inputs)
    columns = {}
    for name, declared in statute.ast.inputs.items():
        if declared.type.kind == "list":
            continue
        column = columnar.input_column(declared, [row[name] for row in inputs], codes)
        if isinstance(column, columnar.Num) and column.den.whole:
            q = np.array(np.broadcast_to(column.q, (size,)), dtype=np.int64)
            one = columnar.Den(1, (np.ones(size, dtype=np.int64),))
            column = columnar.Num(q, np.zeros(size, dtype=np.int64), one, column.scale, column.bad)
        if column.bad is False:
            column.bad = np.zeros(size, dtype=bool)
        columns[name] = column
    return columns


def rounded_cents(value: Fraction) -> int:
    """An amount in whole cents, halves away from zero (as results are shown)."""
    magnitude = int(abs(value) * 100 + Fraction(1, 2))
    return -magnitude if value < 0 else magnitude


def row_values(engine: CompiledEngine, statute, name: str, column, size: int) -> list:
    """Each row's value of a result as the scalar evaluator gives it (money in cents)."""
    kind = statute.ast.definitions[name].type.kind
    if isinstance(column, columnar.Code):
        return [engine.engine.members[int(code)] for code in column.value]
    if isinstance(column, columnar.Flag):
        return [bool(flag) for flag in column.value]
    if kind == "money":
        return [int(cents) for cents in column.q]
    return columnar.exact_values(column, range(size))


def assert_kept_rows_exact(name: str, rows: list[dict], selected: dict[str, str]) -> np.ndarray:
    """Evaluates the rows with the compiled kernel and asserts every row it keeps equals the
    scalar evaluation; returns the rows it deferred."""
    statute = STATUTES[name]
    engine = engine_of(name, selected)
    inputs = [statute.validate(row) for row in rows]
    try:
        columns = general_columns(statute, inputs, engine.engine.codes)
    except OverflowError:  # beyond int64 when read: the table reader defers such rows
        assume(False)
    results, deferred = engine.run(columns, len(rows))
    expected = [statute.evaluate_inputs(i, selected).values for i in inputs]
    for result in statute.ast.result_names:
        got = row_values(engine, statute, result, results[result], len(rows))
        money = statute.ast.definitions[result].type.kind == "money"
        for row, values in enumerate(expected):
            want = values[result]
            if money and want is not None:
                want = rounded_cents(want)
            if not deferred[row]:
                assert got[row] == want, (result, rows[row])
    return deferred


def alternative_selection(statute) -> dict[str, str]:
    """Every reading with alternatives at its last option."""
    chosen = {rid: r.options[-1].name for rid, r in statute.ast.readings.items() if r.alternatives}
    return statute.select_readings(chosen)


@pytest.mark.parametrize("name", sorted(STATUTES))
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_kept_row_of_any_encoding_equals_the_scalar_evaluation(name, data) -> None:
    statute = STATUTES[name]
    rows = data.draw(st.lists(scenarios(statute.ast), min_size=1, max_size=30))
    rows = [row for row in rows if not any(isinstance(v, list) for v in row.values())]
    assume(rows)
    for selected in (statute.select_readings(), alternative_selection(statute)):
        assert_kept_rows_exact(name, rows, selected)


def _examples(name: str) -> Path:
    return ROOT / "examples" / ("" if name == "nj-34-1b-343" else name)


@pytest.mark.parametrize("name", sorted(n for n in STATUTES if any(_examples(n).glob("*.json"))))
def test_the_kernel_keeps_the_bundled_examples(name) -> None:
    """Not vacuous: the compiled rules keep the statute's own worked examples (generated rows
    may all be deferred, as three at the largest amounts were)."""
    statute = STATUTES[name]
    folder = _examples(name)
    rows = [json.loads(path.read_text(encoding="utf-8")) for path in sorted(folder.glob("*.json"))]
    rows = [
        r for r in rows if isinstance(r, dict) and not any(isinstance(v, list) for v in r.values())
    ]
    assert rows
    deferred = assert_kept_rows_exact(name, rows, statute.select_readings())
    assert not deferred.all()


def test_the_benchmark_population_is_kept_whole_and_exact() -> None:
    """Typed Parquet-like columns (whole cents, no mask): no row deferred, every row exact."""
    rows = population(3_000, seed=11)
    rows = [row for row in rows if "full_time_jobs" not in row]
    runner = Runner(STATUTE, STATUTE.select_readings(), compiled=True)
    assert runner.compiled is not None
    table = to_arrow(rows)
    from lextrace.tables import table_rows

    chunk = runner.evaluate(table, 0, table_rows(table, "<rows>", 0))
    assert not runner.slow.any()
    assert chunk.errors == {}
    numpy_runner = Runner(STATUTE, STATUTE.select_readings())
    reference = numpy_runner.evaluate(table, 0, table_rows(table, "<rows>", 0))
    for result in STATUTE.ast.result_names:
        got, want = chunk.values[result], reference.values[result]
        if isinstance(got, pa.Array):
            got, want = got.to_pylist(), want.to_pylist()
        assert list(np.asarray(got)) == list(np.asarray(want)), result
    expected = [STATUTE.evaluate(row).values for row in rows[:300]]
    cents = chunk.values["annual_credit"]
    assert [int(c) for c in cents[:300]] == [rounded_cents(e["annual_credit"]) for e in expected]


def test_huge_amounts_are_deferred_and_their_rows_equal_the_columnar_results() -> None:
    rows = population(200, seed=5)
    changes = {
        3: {"project_median_salary": "1" + "0" * 25},  # beyond int64 cents
        8: {"industrial_rd_capital_investment": "1" + "0" * 16, "minimum_capital_investment": "1"},
        13: {"new_jobs": 10**15, "labor_harmony_new_jobs": 0},
        21: {"board_approved_annual_limit": None},
        34: {"eligibility_period_years": 10, "project_median_salary": "999999999999999.99"},
        40: {"county_median_salary": "46116860184273879.03"},  # 2**62 cents: past the kernel's
    }
    source = wide_decimal_table(rows, changes)
    compiled = STATUTE.evaluate_many(source, engine="compiled")
    assert compiled.equals(STATUTE.evaluate_many(source))
    scalar = STATUTE.evaluate_many(source.to_pylist())
    assert compiled.column("annual_credit").equals(scalar.column("annual_credit"))
    assert compiled.column("error").equals(scalar.column("error"))


def _broken_rows() -> list[dict]:
    """Scenarios that break each kind of declared bound of the bundled statute once."""
    base = population(40, seed=3)
    base = [row for row in base if "full_time_jobs" not in row]
    changes = [
        {"mri_distress_score": "101"},  # max
        {"mri_distress_score": "-1"},  # min
        {"industrial_rd_capital_investment": "5", "minimum_capital_investment": "0"},  # when
        {"new_jobs": 3, "labor_harmony_new_jobs": 4},  # max another field
        {"county_median_salary": "0"},  # above
        {"government_restricted_municipality": True, "municipality_median_salary": None},
        {"tax_year": 2019},
        {"eligibility_period_years": 11},
        {"board_approved_annual_limit": "-1"},
        {"onsite_renewable_share": "3/2"},  # a share above one
        {"retained_jobs": -1},  # a count below zero
    ]
    rows = []
    for index, row in enumerate(base):
        if index % 3 == 0 and changes:
            changed = dict(row, **changes.pop())
            rows.append({k: v for k, v in changed.items() if v is not None})
        else:
            rows.append(row)
    return rows


def test_rows_breaking_a_bound_get_the_scalar_paths_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = _broken_rows()
    source = tmp_path / "rows.parquet"
    pq.write_table(text_table(STATUTE, rows), source)
    outputs = {}
    for engine in ("columnar", "compiled"):
        target = tmp_path / f"{engine}.jsonl"
        code = main(["batch", str(source), "--engine", engine, "-o", str(target)])
        assert code == 2
        outputs[engine] = target.read_text(encoding="utf-8")
        err = capsys.readouterr().err
        assert "failed" in err
    assert outputs["compiled"] == outputs["columnar"]
    records = [json.loads(line) for line in outputs["compiled"].splitlines()]
    assert sum("error" in record for record in records) == 11
    lines = tmp_path / "rows.jsonl"
    write_jsonl(lines, rows)
    scalar = tmp_path / "scalar.jsonl"
    main(["batch", str(lines), "--engine", "scalar", "-o", str(scalar)])
    compiled_lines = tmp_path / "compiled-lines.jsonl"
    main(["batch", str(lines), "--engine", "compiled", "-o", str(compiled_lines)])
    capsys.readouterr()
    assert compiled_lines.read_text(encoding="utf-8") == scalar.read_text(encoding="utf-8")


def test_without_numba_the_compiled_engine_is_refused_in_words(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(kernel, "available", lambda: False)
    with pytest.raises(ValueError, match=r"needs numba: pip install 'lextrace\[compiled\]'"):
        STATUTE.evaluate_many(to_arrow(population(3, seed=1)), engine="compiled")
    source = tmp_path / "rows.jsonl"
    write_jsonl(source, population(3, seed=1))
    assert main(["batch", str(source), "--engine", "compiled"]) == 2
    err = capsys.readouterr().err
    assert "--engine compiled needs numba" in err
    assert "Traceback" not in err
    with pytest.raises(columnar.Unsupported):
        CompiledEngine(columnar.Engine(STATUTE.ast, STATUTE.select_readings()))


def test_an_encoding_the_translation_refuses_runs_on_the_numpy_engine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(self):  # type: ignore[no-untyped-def]
        raise columnar.Unsupported("a construct the kernel does not translate")

    monkeypatch.setattr(kernel._Translation, "source", refuse)
    runner = Runner(STATUTE, STATUTE.select_readings(), compiled=True)
    assert runner.compiled is None and runner.engine is not None
    table = to_arrow(population(50, seed=2))
    assert STATUTE.evaluate_many(table, engine="compiled").equals(STATUTE.evaluate_many(table))


def test_an_unknown_engine_is_refused() -> None:
    with pytest.raises(ValueError, match="engine must be one of columnar, compiled"):
        STATUTE.evaluate_many([], engine="fast")


def test_one_kernel_serves_every_statute_object_and_runner_of_an_encoding() -> None:
    table = to_arrow(population(20, seed=8))
    STATUTE.evaluate_many(table, engine="compiled")
    compiled = len(kernel._COMPILED)
    load_statute().evaluate_many(table, engine="compiled")
    STATUTE.evaluate_many(table, engine="compiled")
    assert len(kernel._COMPILED) == compiled


ARITHMETIC = """statute "K" official "k.txt"
input a: money = $0 "an amount";
input b: money = $0 "another amount";
input n: number = 0 "a number";
input m: number = 1 "another number";
input k: number = 0 max 1000 "a number read on one branch";
results quotient, scaled, floored, least, most, chosen, ratio, sign, both, picked;
section 1. "K." {
  (a) "Amounts, 3 and $5." {
    rule quotient: money = a / m;
    rule scaled: money = a * n / 3 - b;
    rule floored: money = floor(n * a / b) * $5;
    rule least: money = min(a, b * n);
    rule most: money = max(a / m, b / 3);
    rule chosen: money = if a * m > b then a / m - b else b / n;
    rule ratio: number = (a + b) / (a - b);
    rule sign: bool = -(a / m) >= b * n;
    rule both: bool = a > b and a / k > b;
    rule picked: money = if a > b then a else b * k;
  }
}
"""

fractions_ = st.one_of(
    st.fractions(min_value=-1000, max_value=1000, max_denominator=1000),
    st.fractions(min_value=-(10**12), max_value=10**12, max_denominator=10**6),
)


def compiled_encoding(folder: Path, text: str):
    """Loads a one-clause encoding (official text "Amounts, 3 and $5.") and its kernel."""
    (folder / "k.txt").write_text("1. K.\n(a) Amounts, 3 and $5.\n", "utf-8")
    (folder / "k.lex").write_text(text, "utf-8")
    statute = load_statute(folder / "k.lex")
    return statute, CompiledEngine(columnar.Engine(statute.ast, statute.select_readings()))


@pytest.fixture(scope="module")
def arithmetic(tmp_path_factory: pytest.TempPathFactory):
    return compiled_encoding(tmp_path_factory.mktemp("kernel"), ARITHMETIC)


def readable(statute, engine: CompiledEngine, row: dict) -> bool:
    """True when the row's inputs fit int64 in base units (the table reader defers others)."""
    try:
        general_columns(statute, [statute.validate(row)], engine.engine.codes)
    except OverflowError:
        return False
    return True


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values=st.lists(st.tuples(fractions_, fractions_, fractions_, fractions_), max_size=20))
def test_arithmetic_on_fractions_is_exact_or_deferred_on_every_row(arithmetic, values) -> None:
    """Sums, products, quotients (by zero too), floors, min, max, choices and comparisons of
    fractions of any size: each row kept equals the exact value; a row whose evaluation fails
    (a division by zero on the branch it takes) is deferred, for the scalar path to report."""
    statute, engine = arithmetic
    rows = [dict(zip("abnm", row, strict=True)) for row in values]
    rows = [row for row in rows if readable(statute, engine, row)]
    rows.append({"a": 7, "b": 2, "n": Fraction(1, 3), "m": 0})  # divides by zero
    rows.append({"a": 10**11, "b": Fraction(1, 10**6), "n": 1, "m": 1})  # floor(...) * $5
    rows.append({"a": Fraction(1, 3), "b": Fraction(1, 3), "n": 0, "m": 1})  # a - b = 0
    inputs = [statute.validate(row) for row in rows]
    columns = general_columns(statute, inputs, engine.engine.codes)
    results, deferred = engine.run(columns, len(rows))
    from lextrace.dsl.evaluator import EvaluationError

    for row, given_inputs in enumerate(inputs):
        try:
            values_ = statute.evaluate_inputs(given_inputs, statute.select_readings()).values
        except EvaluationError:
            assert deferred[row], rows[row]
            continue
        small = all(
            abs(v.numerator) <= 1000 and v.denominator <= 1000
            for v in map(Fraction, given_inputs.values())
        )
        # Values this small cannot leave int64 in these rules: such a row is never deferred.
        assert small <= (not deferred[row]), rows[row]
        if deferred[row]:
            continue
        for result in statute.ast.result_names:
            got = row_values(engine, statute, result, results[result], len(rows))[row]
            want = values_[result]
            if statute.ast.definitions[result].type.kind == "money":
                want = rounded_cents(want)
            assert got == want, (result, rows[row])
    assert deferred[-3] and deferred[-1]  # 7 / 0; (a + b) / 0


def test_whole_inputs_near_the_int64_limit_are_deferred_not_wrapped(
    arithmetic, tmp_path: Path
) -> None:
    """Whole cents up to int64's limit: sums that would wrap around are never kept."""
    statute, engine = arithmetic
    top = 2**63 - 1
    rows = [
        {"a": Fraction(top - 1000, 100), "b": Fraction(top - 2000, 100), "m": 1, "k": 1},
        {"a": Fraction(2**62, 100), "b": 1, "m": 1, "k": 1},
        {"a": 5, "b": 3, "m": 1, "k": 1},
    ]
    inputs = [statute.validate(row) for row in rows]
    columns = {
        name: columnar.input_column(declared, [i[name] for i in inputs], engine.engine.codes)
        for name, declared in statute.ast.inputs.items()
    }
    assert all(c.den.whole for c in columns.values())
    results, deferred = engine.run(columns, len(rows))
    assert deferred.tolist() == [True, True, False]
    want = statute.evaluate_inputs(inputs[2], statute.select_readings()).values
    assert results["ratio"].q[2] == int(want["ratio"])  # (5 + 3) / (5 - 3) = 4
    sums = ARITHMETIC.split("results")[0].replace(
        'input k: number = 0 max 1000 "a number read on one branch";\n', ""
    )
    sums += 'results total;\nsection 1. "K." {\n  (a) "Amounts, 3 and $5." {\n'
    sums += "    rule total: money = a + b - $5 * n * m;\n  }\n}\n"
    statute, engine = compiled_encoding(tmp_path, sums)
    inputs = [statute.validate({k: v for k, v in row.items() if k != "k"}) for row in rows]
    columns = {
        name: columnar.input_column(declared, [i[name] for i in inputs], engine.engine.codes)
        for name, declared in statute.ast.inputs.items()
    }
    results, deferred = engine.run(columns, len(rows))
    assert deferred.tolist() == [True, True, False]  # a + b: only a sum, no product, reads a
    assert results["total"].q[2] == 800


def test_a_bound_is_checked_where_the_value_does_not_fit_nor_is_used(arithmetic) -> None:
    """k is read on one branch only, and bounded: a row whose k breaks the bound is deferred
    (the scalar path refuses it) even when its value is too large to form and not used."""
    statute, engine = arithmetic
    huge = Fraction(2**62 + 1, 2)  # its numerator fits int64; q * d does not fit the kernel
    rows = [
        {"a": 2, "b": 1, "n": 1, "m": 1, "k": huge},
        {"a": 2, "b": 1, "n": 1, "m": 1, "k": 1001},
        {"a": 2, "b": 1, "n": 1, "m": 1, "k": 1000},
        {"a": 1, "b": 2, "n": 1, "m": 1, "k": Fraction(1, 3)},
    ]
    codes = engine.engine.codes
    columns = {
        name: columnar.input_column(declared, [row.get(name) for row in rows], codes)
        for name, declared in statute.ast.inputs.items()
    }
    columns = {
        name: columnar.Num(c.q, c.r, c.den, c.scale, np.zeros(len(rows), dtype=bool))
        if isinstance(c, columnar.Num) and c.bad is False
        else c
        for name, c in columns.items()
    }
    _, deferred = engine.run(columns, len(rows))
    assert deferred.tolist() == [True, True, False, False]
    from lextrace import ScenarioError

    for row in rows[:2]:
        with pytest.raises(ScenarioError, match="field 'k'"):
            statute.validate(row)
