"""`Statute.evaluate_many`: dicts, Arrow, pandas and polars in; one Arrow table out, each row's
results equal to `Statute.evaluate` of that row, bad rows reported in `error`, none dropped."""

from __future__ import annotations

import json
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from conftest import EXAMPLES, too_large_scenario

from lextrace import ScenarioError, load_statute
from lextrace.result_tables import PROVENANCE_METADATA, READINGS_METADATA

STATUTE = load_statute()
EXAMPLE_NAMES = [
    "distressed-manufacturer",
    "gov-restricted-city-office",
    "no-credit-salary-shortfall",
    "suburban-office-board-limit",
    "labor-harmony-business-wide",
]


def example(name: str) -> dict[str, Any]:
    """An example's facts (the readings it may pin left out: a table's rows pin none)."""
    text = (EXAMPLES / f"{name}.json").read_text(encoding="utf-8")
    scenario = json.loads(text, parse_float=Decimal)
    scenario.pop("readings", None)
    # Amounts as decimal text, as a table column of them holds them (ints and texts mixed in
    # one column are no Arrow type).
    for field, value in scenario.items():
        kind = STATUTE.ast.inputs[field].type.kind
        if kind in ("money", "number", "share") and not isinstance(value, bool):
            scenario[field] = str(value)
    return scenario


def expected_row(scenario: dict[str, Any], readings: dict[str, str] | None = None) -> dict:
    """One row as evaluate_many must give it: `Statute.evaluate`'s JSON values, money as
    Decimal cents, and no error."""
    shown = STATUTE.evaluate(scenario, readings).to_dict(include_trace=False)
    row: dict[str, Any] = {}
    for name in STATUTE.ast.result_names:
        kind = STATUTE.ast.definitions[name].type.kind
        row[name] = Decimal(shown[name]) if kind == "money" else shown[name]
    row["error"] = None
    return row


def rows_of(table: pa.Table) -> list[dict[str, Any]]:
    return table.to_pylist()


def bad(scenario: dict[str, Any]) -> str:
    try:
        STATUTE.validate(scenario)
    except ScenarioError as error:
        return error.problems[0].render()
    raise AssertionError("the scenario is valid")


SCENARIOS = [example(name) for name in EXAMPLE_NAMES]
BAD = {**SCENARIOS[0], "new_jobs": -3}
ROWS = [SCENARIOS[0], BAD, *SCENARIOS[1:]]


def test_dicts_give_evaluates_results_and_bad_rows_in_place() -> None:
    table = STATUTE.evaluate_many(ROWS)
    assert table.num_rows == len(ROWS)
    got = rows_of(table)
    assert got[0] == expected_row(SCENARIOS[0])
    assert got[2:] == [expected_row(s) for s in SCENARIOS[1:]]
    # Rows are counted from 1, whatever form they come in.
    assert got[1]["error"].startswith("row 2: ") and bad(BAD) in got[1]["error"]
    assert all(got[1][name] is None for name in STATUTE.ast.result_names)
    assert table.schema.field("annual_credit").type == pa.decimal128(38, 2)
    readings = json.loads(table.schema.metadata[READINGS_METADATA])
    assert readings["I8"] == "covered-jobs"


def arrow_of(rows: list[dict[str, Any]]) -> pa.Table:
    """The rows as an Arrow table, a column for every field any row gives."""
    names = list(dict.fromkeys(name for row in rows for name in row))
    return pa.table({name: [row.get(name) for row in rows] for name in names})


def test_arrow_pandas_and_dicts_agree_row_for_row() -> None:
    texts = [dict(row) for row in ROWS]
    arrow = arrow_of(texts)
    from_dicts = STATUTE.evaluate_many(ROWS)
    from_arrow = STATUTE.evaluate_many(arrow)
    from_batch = STATUTE.evaluate_many(arrow.to_batches()[0])
    # Nullable dtypes (convert_dtypes): a count some rows leave out stays whole, not float.
    frame = pd.DataFrame(texts).convert_dtypes()
    from_pandas = STATUTE.evaluate_many(frame)
    for other in (from_arrow, from_batch, from_pandas):
        assert [r["error"] is None for r in rows_of(other)] == [
            r["error"] is None for r in rows_of(from_dicts)
        ]
        assert other.drop(["error"]).equals(from_dicts.drop(["error"]))
    assert rows_of(from_arrow)[1]["error"] == rows_of(from_dicts)[1]["error"]


def test_readings_apply_to_every_row() -> None:
    wide = STATUTE.evaluate_many(SCENARIOS, {"I8": "business-wide"})
    assert rows_of(wide) == [expected_row(s, {"I8": "business-wide"}) for s in SCENARIOS]
    assert json.loads(wide.schema.metadata[READINGS_METADATA])["I8"] == "business-wide"


def test_a_dict_that_pins_a_reading_is_evaluated_under_it() -> None:
    pinned = {**SCENARIOS[4], "readings": {"I8": "business-wide"}}
    got = rows_of(STATUTE.evaluate_many([pinned, SCENARIOS[4]]))
    assert got == [expected_row(pinned), expected_row(SCENARIOS[4])]
    assert got[0]["annual_credit"] != got[1]["annual_credit"]


def test_kept_columns_come_first_and_unchanged() -> None:
    tagged = [{**s, "case": f"c{i}"} for i, s in enumerate(SCENARIOS)]
    with pytest.raises(ScenarioError):
        STATUTE.validate(tagged[0])  # "case" is not a field: it must be kept, not read
    for rows in (tagged, arrow_of(tagged)):
        table = STATUTE.evaluate_many(rows, keep=["case", "new_jobs"])
        assert table.column_names[:2] == ["case", "new_jobs"]
        assert table.column("case").to_pylist() == [f"c{i}" for i in range(len(SCENARIOS))]
        assert table.column("error").null_count == len(SCENARIOS)


def test_a_pandas_float_column_is_refused_unless_read_by_its_shortest_decimal() -> None:
    frame = pd.DataFrame(SCENARIOS)
    frame["lowest_full_time_hourly_wage"] = [19.5, 21.1, 30.0, 25.25, 19.5][: len(frame)]
    frame["new_jobs"] = frame["new_jobs"].astype(float)  # as pandas makes a column with a NaN
    with pytest.raises(ValueError, match=r"binary floating-point.*floats"):
        STATUTE.evaluate_many(frame)
    table = STATUTE.evaluate_many(frame, floats="shortest")
    exact = [
        {**s, "lowest_full_time_hourly_wage": w, "new_jobs": int(s["new_jobs"])}
        for s, w in zip(SCENARIOS, ["19.5", "21.1", "30", "25.25", "19.5"], strict=False)
    ]
    assert rows_of(table) == [expected_row(s) for s in exact]
    provenance = json.loads(table.schema.metadata[PROVENANCE_METADATA])
    floated = [name for name in frame.columns if frame[name].dtype.kind == "f"]
    assert {"new_jobs", "lowest_full_time_hourly_wage"} <= set(floated)
    assert provenance == {"floats": "shortest", "columns_from_floats": floated}


def test_a_nan_in_pandas_is_a_missing_field() -> None:
    frame = pd.DataFrame([SCENARIOS[0], {**SCENARIOS[0], "retained_jobs": None}])
    table = STATUTE.evaluate_many(frame, floats="shortest")
    without = {k: v for k, v in SCENARIOS[0].items() if k != "retained_jobs"}
    assert rows_of(table) == [expected_row(SCENARIOS[0]), expected_row(without)]


def test_python_values_of_every_exact_kind() -> None:
    first = SCENARIOS[0]
    typed = {
        **first,
        "new_jobs": np.int64(first["new_jobs"]),
        "project_median_salary": Decimal(first["project_median_salary"]),
        "county_median_salary": Fraction(first["county_median_salary"]),
    }
    assert rows_of(STATUTE.evaluate_many([typed])) == [expected_row(first)]
    floaty = {**first, "lowest_full_time_hourly_wage": 19.5}
    refused = rows_of(STATUTE.evaluate_many([floaty]))[0]["error"]
    assert "binary float" in refused and 'floats="shortest"' in refused
    read = rows_of(STATUTE.evaluate_many([floaty], floats="shortest"))[0]
    assert read == expected_row({**first, "lowest_full_time_hourly_wage": "19.5"})


def test_a_row_of_periods_or_not_a_dict_is_an_error_row() -> None:
    periods = json.loads(
        (EXAMPLES / "eligibility-period" / "seven-year-payroll.json").read_text(encoding="utf-8")
    )
    got = rows_of(STATUTE.evaluate_many([periods, "not a scenario", SCENARIOS[0]]))
    assert "eligibility_period" in got[0]["error"]
    assert "a JSON object of fields" in got[1]["error"]
    assert got[2] == expected_row(SCENARIOS[0])


def test_outputs_and_bad_arguments() -> None:
    frame = STATUTE.evaluate_many(SCENARIOS, output="pandas")
    assert isinstance(frame, pd.DataFrame) and len(frame) == len(SCENARIOS)
    assert frame["annual_credit"].tolist() == [expected_row(s)["annual_credit"] for s in SCENARIOS]
    empty = STATUTE.evaluate_many([])
    assert empty.num_rows == 0 and "annual_credit" in empty.column_names
    with pytest.raises(ValueError, match="output must be one of"):
        STATUTE.evaluate_many(SCENARIOS, output="excel")
    with pytest.raises(ValueError, match="floats must be one of"):
        STATUTE.evaluate_many(SCENARIOS, floats="round")
    with pytest.raises(TypeError, match="iterable of scenario dicts"):
        STATUTE.evaluate_many(SCENARIOS[0])


def test_polars_in_and_out() -> None:
    import polars

    frame = polars.DataFrame(SCENARIOS[:3])
    got = STATUTE.evaluate_many(frame, output="polars")
    assert isinstance(got, polars.DataFrame)
    assert got.to_dicts() == STATUTE.evaluate_many(SCENARIOS[:3]).to_pylist()


def test_a_large_table_runs_columnar_and_equals_the_scalar_rows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from benchmarks.population import population
    from lextrace.tables import Runner

    scalar_rows: list[int] = []
    original = Runner.scalar

    def counted(self: Runner, rows: Any, row: int) -> Any:
        scalar_rows.append(row)
        return original(self, rows, row)

    monkeypatch.setattr(Runner, "scalar", counted)

    rows = [
        {k: str(v) if k == "mri_distress_score" else v for k, v in row.items()}
        for row in population(3_000, seed=5)
    ]
    table = STATUTE.evaluate_many(arrow_of(rows))
    assert table.column("error").null_count == len(rows)
    assert len(scalar_rows) < len(rows) // 100  # the columnar engine took the rest
    sample = list(range(0, len(rows), 97))
    got = rows_of(table.take(sample))
    assert got == [expected_row(rows[i]) for i in sample]


def test_batch_reads_a_parquet_float_column_only_with_floats_shortest(tmp_path: Any) -> None:
    import pyarrow.parquet as pq

    from lextrace.cli import main

    frame = pd.DataFrame(SCENARIOS).convert_dtypes()
    frame["lowest_full_time_hourly_wage"] = [19.5, 21.1, 30.0, 25.25, 19.1]
    source = tmp_path / "rows.parquet"
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), source)
    refused = tmp_path / "refused.parquet"
    assert main(["batch", str(source), "-o", str(refused)]) == 2
    assert not refused.exists()
    read = tmp_path / "read.parquet"
    assert main(["batch", str(source), "-o", str(read), "--floats", "shortest"]) == 0
    table = pq.read_table(read)
    exact = [
        {**s, "lowest_full_time_hourly_wage": w}
        for s, w in zip(SCENARIOS, ["19.5", "21.1", "30", "25.25", "19.1"], strict=True)
    ]
    assert table.to_pylist() == [expected_row(s) for s in exact]
    assert json.loads(table.schema.metadata[PROVENANCE_METADATA]) == {
        "floats": "shortest",
        "columns_from_floats": ["lowest_full_time_hourly_wage"],
    }
    # The readings the results were evaluated under, as evaluate_many's tables name them.
    wide = tmp_path / "wide.parquet"
    assert main(["batch", str(source), "-o", str(wide), "--floats", "shortest",
                 "--reading", "I8=business-wide"]) == 0  # fmt: skip
    metadata = pq.read_schema(wide).metadata
    assert json.loads(metadata[READINGS_METADATA])["I8"] == "business-wide"
    assert (
        metadata[READINGS_METADATA]
        == STATUTE.evaluate_many([], {"I8": "business-wide"}).schema.metadata[READINGS_METADATA]
    )
    lines = tmp_path / "read.jsonl"
    assert main(["batch", str(source), "-o", str(lines), "--floats", "shortest"]) == 0
    records = [json.loads(line) for line in lines.read_text(encoding="utf-8").splitlines()]
    assert [r["annual_credit"] for r in records] == [
        str(expected_row(s)["annual_credit"]) for s in exact
    ]
    assert STATUTE.evaluate_many(pq.read_table(source), floats="shortest").equals(
        STATUTE.evaluate_many(exact).replace_schema_metadata(
            STATUTE.evaluate_many(pq.read_table(source), floats="shortest").schema.metadata
        )
    )


def test_every_column_type_gives_the_scalar_paths_results() -> None:
    from benchmarks.population import population, to_arrow
    from benchmarks.run import column_variants

    typed = to_arrow(population(2_000, seed=11))
    for label, variant in {"typed": typed, **column_variants(typed)}.items():
        columnar = STATUTE.evaluate_many(variant)
        dicts = [{k: v for k, v in row.items() if v is not None} for row in variant.to_pylist()]
        assert columnar.equals(STATUTE.evaluate_many(dicts)), label
        assert columnar.column("error").null_count == variant.num_rows, label


def test_no_rows_give_an_empty_table_with_the_kept_columns() -> None:
    for rows in ([], pa.table({"case": pa.array([], pa.int64())})):
        table = STATUTE.evaluate_many(rows, keep=["case"])
        assert table.num_rows == 0
        assert table.column_names[0] == "case" and table.column_names[-1] == "error"
    typed = STATUTE.evaluate_many(pa.table({"case": pa.array([], pa.int64())}), keep=["case"])
    assert typed.schema.field("case").type == pa.int64()


def test_an_amount_beyond_a_money_column_is_its_rows_error() -> None:
    # Exact in JSON (evaluate), but more digits than decimal(38, 2) holds: the row's error in
    # place, the other rows evaluated, never a table that cannot be built.
    scenario = too_large_scenario()
    exact = STATUTE.evaluate(scenario).to_dict(include_trace=False)["eligibility_period_total"]
    assert len(str(exact).replace(".", "")) > 38
    got = rows_of(STATUTE.evaluate_many([scenario, SCENARIOS[0]]))
    assert got[0]["error"].startswith(f"row 1: result 'eligibility_period_total' is {exact}")
    assert "more than the 38 digits of a decimal(38, 2) column" in got[0]["error"]
    assert all(got[0][name] is None for name in STATUTE.ast.result_names)
    assert got[1] == expected_row(SCENARIOS[0])


def test_a_frame_arrow_cannot_type_is_read_row_by_row() -> None:
    # A column of Fractions, and one of Decimals mixed with text: no Arrow type holds them, and
    # evaluate takes each value; so the frame is read as its rows' dicts, NaN left out.
    scenarios = [SCENARIOS[0], SCENARIOS[1]]
    frame = pd.DataFrame(scenarios).convert_dtypes()  # a count some rows leave out stays whole
    frame["project_median_salary"] = [
        Fraction(Decimal(s["project_median_salary"])) for s in scenarios
    ]
    frame["county_median_salary"] = [
        Decimal(scenarios[0]["county_median_salary"]),
        scenarios[1]["county_median_salary"],
    ]
    got = rows_of(STATUTE.evaluate_many(frame))
    assert got == [expected_row(s) for s in scenarios]
