"""`lextrace batch` on the columnar path: the same bytes as the scalar path, every format."""

from __future__ import annotations

import json
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pcsv
import pyarrow.parquet as pq
import pytest
from conftest import ROOT, text_table, too_large_scenario, wide_decimal_table
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(ROOT))
from benchmarks.population import population, write_csv, write_jsonl, write_parquet
from lextrace.cli import main
from lextrace.tables import Runner, arrow_chunks, table_rows

# Lines the Arrow reader cannot take as they stand; all but one (numbers written as JSON numbers,
# a share as a decimal) are bad scenarios.
IRREGULAR_LINES = [
    '{"new_jobs": -1, "project_median_salary": "1", "county_median_salary": "1", '
    '"lowest_full_time_hourly_wage": "20", "state_minimum_wage": "15"}',
    "null",
    '{"new_jobs": 1, "new_jobs": 2}',
    '{"new_jobs": true}',
    '{"new_jobs": 5, "project_median_salary": null, "county_median_salary": "1", '
    '"lowest_full_time_hourly_wage": "20", "state_minimum_wage": "15"}',
    '{"new_jobs": 5, "project_median_salary": 70000.5, "county_median_salary": 70000, '
    '"lowest_full_time_hourly_wage": 20, "state_minimum_wage": 15, "onsite_renewable_share": 0.5}',
    "[1, 2]",
    '{"new_jobs": 5, "projet_median_salary": "1"}',
]


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture(scope="module")
def scenarios() -> list[dict]:
    return population(3_000, seed=21)


@pytest.fixture(scope="module")
def mixed_file(tmp_path_factory: pytest.TempPathFactory, scenarios: list[dict]) -> Path:
    folder = tmp_path_factory.mktemp("batch")
    plain = folder / "plain.jsonl"
    write_jsonl(plain, scenarios)
    lines = plain.read_text(encoding="utf-8").splitlines()
    for index, bad in enumerate(IRREGULAR_LINES):
        lines.insert(7 + index * 311, bad)
    lines.insert(50, "")
    lines.insert(60, "   ")
    mixed = folder / "mixed.jsonl"
    mixed.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return mixed


def test_columnar_output_and_messages_equal_the_scalar_path(
    mixed_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    columnar, scalar = tmp_path / "columnar.jsonl", tmp_path / "scalar.jsonl"
    code_c, _, err_c = run(["batch", str(mixed_file), "-o", str(columnar)], capsys)
    code_s, _, err_s = run(
        ["batch", str(mixed_file), "--engine", "scalar", "-o", str(scalar)], capsys
    )
    assert code_c == code_s == 2
    assert err_c == err_s
    bad = len(IRREGULAR_LINES) - 1 + 2  # and the two blank lines
    assert f"{bad} lines of" in err_c
    assert columnar.read_bytes() == scalar.read_bytes()
    errors = [json.loads(x) for x in columnar.read_text("utf-8").splitlines() if '"error"' in x]
    assert len(errors) == bad


def test_parquet_and_csv_give_the_same_results_as_json_lines(
    scenarios: list[dict], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sources = {"jsonl": write_jsonl, "parquet": write_parquet, "csv": write_csv}
    outputs = {}
    for kind, write in sources.items():
        source = tmp_path / f"in.{kind}"
        write(source, scenarios)
        target = tmp_path / f"out-{kind}.jsonl"
        code, _, err = run(["batch", str(source), "-o", str(target)], capsys)
        assert code == 0, err
        outputs[kind] = target.read_bytes()
    assert outputs["jsonl"] == outputs["parquet"] == outputs["csv"]


def test_parquet_output_holds_exact_decimals_and_an_error_column(
    mixed_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines_out = tmp_path / "out.jsonl"
    table_out = tmp_path / "out.parquet"
    run(["batch", str(mixed_file), "-o", str(lines_out)], capsys)
    code, _, _ = run(["batch", str(mixed_file), "-o", str(table_out)], capsys)
    assert code == 2
    table = pq.read_table(table_out)
    assert str(table.schema.field("annual_credit").type) == "decimal128(38, 2)"
    rows = table.to_pylist()
    expected = [json.loads(x) for x in lines_out.read_text("utf-8").splitlines()]
    assert len(rows) == len(expected)
    for row, line in zip(rows, expected, strict=True):
        if "error" in line:
            assert row["error"] and row["annual_credit"] is None
        else:
            assert row["error"] is None
            assert f"{row['annual_credit']:.2f}" == line["annual_credit"]
            assert row["area_tier"] == line["area_tier"]


def test_an_amount_beyond_a_money_column_is_its_rows_error_in_every_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    row = too_large_scenario()
    source = tmp_path / "big.jsonl"
    good = (ROOT / "examples" / "distressed-manufacturer.json").read_text("utf-8")
    source.write_text(json.dumps(row) + "\n" + json.dumps(json.loads(good)) + "\n", "utf-8")
    lines_out = tmp_path / "out.jsonl"
    assert run(["batch", str(source), "-o", str(lines_out)], capsys)[0] == 0  # exact in JSON
    exact = json.loads(lines_out.read_text("utf-8").splitlines()[0])["eligibility_period_total"]
    for suffix in ("parquet", "csv"):
        target = tmp_path / f"out.{suffix}"
        code, _, err = run(["batch", str(source), "-o", str(target)], capsys)
        assert code == 2, err
        assert f"big.jsonl:1: result 'eligibility_period_total' is {exact}, more than" in err
        table = (
            pq.read_table(target)
            if suffix == "parquet"
            else pcsv.read_csv(
                target, convert_options=pcsv.ConvertOptions(strings_can_be_null=True)
            )
        )
        assert table.num_rows == 2
        assert table.column("error")[0].as_py().startswith(f"{source}:1: result")
        assert table.column("annual_credit")[0].as_py() is None
        assert table.column("error")[1].as_py() is None


def test_strict_stops_and_writes_nothing(
    mixed_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "never.jsonl"
    code, _, err = run(["batch", str(mixed_file), "--strict", "-o", str(target)], capsys)
    assert code == 2 and "(--strict)" in err and "line 8" in err
    assert not target.exists() and not list(tmp_path.glob(".never*"))


def test_amounts_stored_as_binary_floats_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import pyarrow as pa

    table = pa.table({"new_jobs": [1], "project_median_salary": [59500.5]})
    path = tmp_path / "floats.parquet"
    pq.write_table(table, path)
    code, out, err = run(["batch", str(path)], capsys)
    assert code == 2 and out == ""
    assert "column 'project_median_salary' holds binary floating-point numbers" in err


def test_an_unknown_column_is_named_with_a_suggestion(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "unknown.csv"
    path.write_text("new_jobs,projet_median_salary\n1,2\n", encoding="utf-8")
    code, _, err = run(["batch", str(path)], capsys)
    assert code == 2
    assert "unknown column 'projet_median_salary' (did you mean 'project_median_salary'?)" in err
    # A column meant to be carried through (an identifier) is told how.
    path.write_text("case_id,new_jobs\nA,1\n", encoding="utf-8")
    code, _, err = run(["batch", str(path)], capsys)
    assert code == 2 and "unknown column 'case_id'" in err and "--keep case_id" in err
    assert main(["batch", str(path), "--keep", "case_id"]) in (0, 2)
    assert "unknown column" not in capsys.readouterr().err


def test_unusual_arrow_types_are_read_or_handed_to_the_scalar_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import pyarrow as pa

    table = pa.table(
        {
            "new_jobs": pa.array([5, 2**63 + 5], pa.uint64()),
            "project_median_salary": pa.array(["60000", "70000"]).dictionary_encode(),
            "county_median_salary": pa.array([70000, 70000], pa.int32()),
            "lowest_full_time_hourly_wage": ["20", "20"],
            "state_minimum_wage": ["15", "15"],
            "green_building": pa.array(["none", "exceeds_gold"]).dictionary_encode(),
        }
    )
    source = tmp_path / "odd.parquet"
    pq.write_table(table, source)
    code, out, err = run(["batch", str(source)], capsys)
    assert code == 0, err
    assert out == _expected_lines([{k: v for k, v in row.items()} for row in table.to_pylist()])
    assert '"annual_total_before_limit": "230584300921369395' in out  # beyond int64, exact


def _statute():
    from lextrace import load_statute

    return load_statute()


def _valid(row: dict) -> bool:
    from lextrace import ScenarioError

    try:
        _statute().validate(row)
    except ScenarioError:
        return False
    return True


def _expected_lines(rows: list[dict]) -> str:
    statute = _statute()
    return "".join(
        json.dumps(statute.evaluate(row).to_dict(include_trace=False), ensure_ascii=False) + "\n"
        for row in rows
    )


def _table_of(rows: list[dict]):
    return text_table(_statute(), rows)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_any_valid_scenarios_in_any_format_give_the_scalar_results(
    data: st.DataObject, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from lextrace.verify.strategies import scenarios

    rows = data.draw(st.lists(scenarios(_statute().ast), min_size=1, max_size=12))
    kind = data.draw(st.sampled_from(["jsonl", "parquet", "csv"]))
    # Fields with a default left out of every row: a table then has no such column at all.
    defaulted = sorted(n for n, d in _statute().ast.inputs.items() if d.default is not None)
    for name in data.draw(st.sets(st.sampled_from(defaulted))):
        for row in rows:
            row.pop(name, None)
    rows = [row for row in rows if _valid(row)]  # a default may break a bound of another field
    if kind != "jsonl":  # a table's cell holds no list (a CSV cell may name a list's file)
        rows = [row for row in rows if not any(isinstance(v, list) for v in row.values())]
    assume(rows)
    source = tmp_path / f"fuzz.{kind}"
    if kind == "jsonl":
        source.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    elif kind == "parquet":
        pq.write_table(_table_of(rows), source)
    else:
        import pyarrow.csv as pcsv

        pcsv.write_csv(_table_of(rows), source)
    target = tmp_path / "out.jsonl"
    code, _, err = run(["batch", str(source), "-o", str(target)], capsys)
    assert code == 0, err
    assert target.read_text(encoding="utf-8") == _expected_lines(rows)


def test_huge_and_missing_amounts_in_a_decimal_parquet_file_give_the_scalar_results(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Decimals beyond int64, amounts whose products overflow, nulls: rows the columnar path
    cannot do exactly are deferred to the scalar path; every line equals the scalar one."""
    rows = population(200, seed=5)
    huge = {
        3: {"project_median_salary": "1" + "0" * 25},  # beyond int64 cents
        5: {"county_median_salary": "92233720368547758.07"},  # int64 cents, no headroom
        8: {"industrial_rd_capital_investment": "1" + "0" * 16, "minimum_capital_investment": "1"},
        13: {"new_jobs": 10**15, "labor_harmony_new_jobs": 0},
        21: {"board_approved_annual_limit": None},
        34: {"eligibility_period_years": 10, "project_median_salary": "999999999999999.99"},
    }
    source = tmp_path / "huge.parquet"
    pq.write_table(wide_decimal_table(rows, huge), source)
    from lextrace.columns import scalar_row

    target = tmp_path / "out.jsonl"
    code, _, err = run(["batch", str(source), "-o", str(target)], capsys)
    assert code == 0, err
    expected = _expected_lines([scalar_row(row) for row in pq.read_table(source).to_pylist()])
    assert target.read_text(encoding="utf-8") == expected
    # The columnar path did keep rows and defer others: too large to read (3, 5), products
    # beyond int64 (8, 13).
    from lextrace.tables import Runner, arrow_chunks, table_rows

    statute = _statute()
    runner = Runner(statute, statute.select_readings())
    ((batch, errors),) = arrow_chunks(str(source), "parquet", statute.ast)
    assert errors == {}
    runner.evaluate(batch, 0, table_rows(batch, str(source), 0))
    assert set(np.flatnonzero(runner.slow).tolist()) == {3, 5, 8, 13}


@settings(max_examples=150, deadline=None)
@given(
    cells=st.lists(
        st.one_of(
            st.none(),
            st.integers(0, 8)
            .flatmap(
                lambda places: st.decimals(
                    min_value=-(10**29), max_value=10**29, places=places, allow_nan=False
                )
            )
            .map(lambda d: format(d, "f")),
            st.sampled_from(["1e3", "+5", ".5", "5.", "1/3", " 7", "0x10", "1_000"]),
        ),
        min_size=1,
        max_size=20,
    ),
    money=st.booleans(),
)
# Past the exact reader's bound on the unreduced numerator, within Arrow's on the value.
@example(cells=["461168601842.73880"], money=True)
def test_text_numbers_read_through_arrow_equal_the_exact_text_reader(cells, money) -> None:
    # CSV cells are text: plain decimals go through Arrow's exact decimal cast, anything else
    # through the reader of each distinct text. Both must give the same value, or the same
    # row handed to the scalar path.
    from lextrace.columns import _column, _exact_texts, _plain_number
    from lextrace.dsl.columnar import Engine, exact_values

    loaded = _statute()
    statute = loaded.ast
    name = "county_median_salary" if money else "mri_distress_score"
    declared = statute.inputs[name]
    array = pa.array(cells, type=pa.string())
    missing = np.array([c is None for c in cells])
    engine = Engine(statute, loaded.select_readings())
    fast, fast_bad = _column(declared, engine, array, name, missing)
    slow, slow_bad = _exact_texts(array, 100 if declared.type.kind == "money" else 1)
    kept = [row for row in range(len(cells)) if cells[row] is not None]
    fast_bad, slow_bad = (
        np.broadcast_to(fast_bad, len(cells)),
        np.broadcast_to(slow_bad, len(cells)),
    )
    # What the exact reader cannot read goes to the scalar path either way. Near the int64
    # limit the two readers draw the line apart (the exact reader bounds the unreduced
    # numerator, Arrow's cast the value): what the Arrow path alone keeps must then be the
    # text's exact value. Either path may hand over a value near the limit (the scalar path
    # then computes it), never a usual amount.
    for row in kept:
        if slow_bad[row] and not fast_bad[row]:
            assert _plain_number(cells[row]) is not None, cells[row]
            assert exact_values(fast, [row]) == [Fraction(cells[row])], cells[row]
    for row in kept:
        if not slow_bad[row] and abs(Fraction(cells[row])) < 10**12:
            assert not fast_bad[row], cells[row]
    good = [row for row in kept if not fast_bad[row] and not slow_bad[row]]
    assert fast.scale == slow.scale
    assert exact_values(fast, good) == exact_values(slow, good)


@pytest.mark.parametrize(
    "cells",
    [
        ["0.25"] * 99 + ["1/3"],  # decimals past the rows tried first, then a fraction
        ["1/3"] + ["0.25"] * 99,  # a fraction among the rows tried first
        [None] * 70 + ["0.5", "2/7"],  # nothing given in the rows tried first
    ],
    ids=["fraction-late", "fraction-early", "nulls-first"],
)
def test_text_shares_read_the_same_whatever_rows_are_tried_first(cells) -> None:
    from lextrace import load_statute
    from lextrace.columns import _column, _exact_texts
    from lextrace.dsl.columnar import Engine, exact_values

    loaded = load_statute()
    declared = loaded.ast.inputs["onsite_renewable_share"]
    array = pa.array(cells, type=pa.string())
    missing = np.array([c is None for c in cells])
    engine = Engine(loaded.ast, loaded.select_readings())
    read, bad = _column(declared, engine, array, declared.name, missing)
    exact, exact_bad = _exact_texts(array, 1)
    given_rows = [row for row, cell in enumerate(cells) if cell is not None]
    assert exact_values(exact, given_rows) == exact_values(read, given_rows)
    assert not np.broadcast_to(bad, len(cells))[given_rows].any()
    assert not np.broadcast_to(exact_bad, len(cells))[given_rows].any()
    assert exact_values(read, given_rows) == [Fraction(cells[row]) for row in given_rows]


# ---- every line or row keeps its identity -------------------------------------------------------
ENGINES = [[], ["--engine", "scalar"]]
GOOD = (ROOT / "examples" / "batch.jsonl").read_text(encoding="utf-8").splitlines()


def _records(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines()]


@pytest.mark.parametrize("engine", ENGINES, ids=["columnar", "scalar"])
def test_a_blank_line_is_an_error_record_in_its_place(
    engine: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # (head -2 batch.jsonl; echo; tail -1 batch.jsonl): four lines, four records.
    source = tmp_path / "blank.jsonl"
    source.write_text("\n".join([*GOOD[:2], "", GOOD[-1]]) + "\n", encoding="utf-8")
    code, out, err = run(["batch", str(source), *engine], capsys)
    records = _records(out)
    assert code == 2 and len(records) == 4
    assert records[2] == {
        "line": 3,
        "error": [
            {"field": "<scenario>", "expected": "a JSON object of fields", "given": "a blank line"}
        ],
    }
    assert "error" not in records[3] and f"{source}:3: expected a JSON object" in err


@pytest.mark.parametrize("engine", ENGINES, ids=["columnar", "scalar"])
@pytest.mark.parametrize(
    ("text", "blank"),
    [
        ("a\nb\n", []),  # a final newline ends the last line: two lines
        ("a\nb", []),  # a last line without one is a line all the same
        ("a\nb\n\n", [3]),  # a newline more is a blank third line
        ("a\n \r\nb\n", [2]),  # white space only is blank
    ],
)
def test_lines_are_counted_as_the_file_holds_them(
    engine: list[str],
    text: str,
    blank: list[int],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    source = tmp_path / "lines.jsonl"
    lines = [{"a": GOOD[0], "b": GOOD[1]}.get(line, line) for line in text.split("\n")]
    source.write_bytes("\n".join(lines).encode())
    _, out, _ = run(["batch", str(source), *engine], capsys)
    records = _records(out)
    assert len(records) == len(text.removesuffix("\n").split("\n"))
    assert [r["line"] for r in records if "error" in r] == blank


@pytest.mark.parametrize("engine", ENGINES, ids=["columnar", "scalar"])
def test_a_line_that_is_not_utf8_fails_alone(
    engine: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "bytes.jsonl"
    bad = b'{"id": "x2", "new_jobs": 1, "green_building": "n\xffne"}'
    source.write_bytes(b"\n".join([GOOD[0].encode(), bad, GOOD[1].encode()]) + b"\n")
    code, out, err = run(["batch", str(source), "--keep", "id", *engine], capsys)
    records = _records(out)
    assert code == 2 and len(records) == 3
    assert records[1]["id"] == "x2" and records[1]["line"] == 2
    assert records[1]["error"][0]["expected"] == "UTF-8 text"
    at = bad.index(b"\xff") + 1
    assert f"{source}:2: expected UTF-8 text, given a byte that is not UTF-8 at byte {at}" in err
    assert "error" not in records[0] and "error" not in records[2]


def test_csv_rows_of_the_wrong_width_or_bytes_fail_alone_with_their_row_number(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import pyarrow.csv as pcsv

    rows = [json.loads(line) for line in GOOD[:4]]
    source = tmp_path / "in.csv"
    pcsv.write_csv(_table_of(rows), source)
    lines = source.read_bytes().split(b"\n")
    header = lines[0].decode().split(",")
    width = len(header)
    lines.insert(2, b"300,true,false,7")  # row 2: short
    lines.insert(4, lines[3] + b",1,2")  # row 4: long
    lines.insert(5, b"")  # row 5: blank
    cells = lines[6].split(b",")
    column = next(i for i, cell in enumerate(cells) if cell.strip(b'"') == b"true")
    cells[column] = b"tr\xffe"  # row 6: not UTF-8
    lines[6] = b",".join(cells)
    source.write_bytes(b"\n".join(lines))
    code, out, err = run(["batch", str(source)], capsys)
    records = _records(out)
    assert code == 2 and len(records) == 7
    assert [r["line"] for r in records if "error" in r] == [2, 4, 5, 6]
    assert f"{source}: row 2: expected a row of {width} cells, given 4 cells" in err
    assert f"{source}: row 4: expected a row of {width} cells, given {width + 2} cells" in err
    assert f"{source}: row 5: expected a row of fields, given a blank row" in err
    assert f"{source}: row 6: field '{header[column].strip(chr(34))}': expected UTF-8 text" in err
    assert out.splitlines()[6] == _expected_lines(rows[3:4]).strip()


@pytest.mark.parametrize("engine", ENGINES, ids=["columnar", "scalar"])
def test_an_output_that_is_the_input_is_refused_before_anything_is_written(
    engine: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import os

    source = tmp_path / "same.jsonl"
    source.write_text("\n".join(GOOD) + "\n", encoding="utf-8")
    before = source.read_bytes()
    (tmp_path / "link.jsonl").symlink_to(source)
    os.link(source, tmp_path / "hard.jsonl")
    spellings = [source, tmp_path / "." / "same.jsonl", tmp_path / "link.jsonl"]
    for target in [*spellings, tmp_path / "hard.jsonl"]:
        code, out, err = run(["batch", str(source), "-o", str(target), *engine], capsys)
        assert code == 2 and out == ""
        assert f"{target}: is the input file {source}" in err
    assert source.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hard.jsonl", "link.jsonl", "same.jsonl"]


@pytest.mark.parametrize("engine", ENGINES, ids=["columnar", "scalar"])
def test_a_json_array_gets_one_hint_at_json_lines(
    engine: list[str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import io

    source = tmp_path / "array.jsonl"
    text = "\n  [\n" + ",\n".join(GOOD[:3]) + "\n]\n"
    source.write_text(text, encoding="utf-8")
    code, out, err = run(["batch", str(source), *engine], capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "expected valid JSON" not in err
    assert f"{source}: holds a JSON array, and batch reads JSON Lines" in err
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    code, out, err = run(["batch", "-", *engine], capsys)
    assert code == 2 and out == "" and err.startswith("<stdin>: holds a JSON array")


def _kept_source(tmp_path: Path) -> Path:
    rows = [json.loads(line) for line in GOOD[:4]]
    ids = ['"a1"', "2", "3.50", '{"b": [1, {"c": "\\u00e9"}]}']
    lines = [f'{{"id": {i}, "tag": "t{n}", ' + GOOD[n][1:] for n, i in enumerate(ids)]
    lines.insert(2, '{"tag": "no id", ' + GOOD[0][1:])
    lines.insert(3, '{"id": "u", "stray": 1, ' + GOOD[0][1:])
    source = tmp_path / "kept.jsonl"
    source.write_text("\n".join(lines) + "\n\n", encoding="utf-8")
    assert len(rows) == 4
    return source


@pytest.mark.parametrize("cut", [False, True], ids=["one-block", "blocks-joined"])
def test_kept_json_fields_come_first_as_given_on_both_paths(
    cut: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    if cut:  # a block per line or two, joined in threes: each kept value stays on its row
        import lextrace.tables as tables

        monkeypatch.setattr(tables, "BLOCK_BYTES", 97)
        monkeypatch.setattr(tables, "_SLACK_BYTES", 5)
        monkeypatch.setattr(tables, "JOINED_ROWS", 3)
    source = _kept_source(tmp_path)
    args = ["batch", str(source), "--keep", "id", "--keep", "tag,new_jobs"]
    code, columnar, err = run(args, capsys)
    assert code == 2
    assert run([*args, "--engine", "scalar"], capsys)[1] == columnar
    lines = columnar.splitlines()
    assert len(lines) == 7
    assert lines[0].startswith('{"id": "a1", "tag": "t0", "new_jobs": 850, "area_tier": ')
    assert lines[1].startswith('{"id": 2, "tag": "t1", "new_jobs": 260, "area_tier"')
    assert lines[2].startswith('{"id": null, "tag": "no id", "new_jobs": 850, "area_tier"')
    assert lines[3].startswith('{"id": "u", "tag": null, "new_jobs": 850, "line": 4, "error": ')
    assert "field 'stray'" in err  # neither declared nor kept: refused as before
    assert lines[4].startswith('{"id": 3.50, "tag": "t2", ')
    assert lines[5].startswith('{"id": {"b": [1, {"c": "\\u00e9"}]}, "tag": "t3", ')
    assert lines[6].startswith('{"id": null, "tag": null, "new_jobs": null, "line": 7, "error"')
    # The results are those of the scenario without the kept fields.
    plain = json.loads(lines[0])
    assert {k: plain[k] for k in list(plain)[3:]} == json.loads(
        _expected_lines([json.loads(GOOD[0])])
    )


def test_kept_fields_keep_their_type_in_tables(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import pyarrow.csv as pcsv

    rows = [json.loads(line) for line in GOOD[:3]]
    table = _table_of(rows)
    table = table.add_column(0, "id", pa.array([7, None, 9], pa.int32()))
    parquet = tmp_path / "in.parquet"
    pq.write_table(table, parquet)
    out = tmp_path / "out.parquet"
    code, _, err = run(["batch", str(parquet), "--keep", "id", "-o", str(out)], capsys)
    assert code == 0, err
    result = pq.read_table(out)
    assert result.schema.names[:2] == ["id", "area_tier"]
    assert result.schema.field("id").type == pa.int32()
    assert result.column("id").to_pylist() == [7, None, 9]
    code, lines, _ = run(["batch", str(parquet), "--keep", "id"], capsys)
    assert [json.loads(x)["id"] for x in lines.splitlines()] == [7, None, 9]
    # CSV text as given, in CSV and in JSON Lines.
    csv_in = tmp_path / "in.csv"
    pcsv.write_csv(table.set_column(0, "id", pa.array(["007", "", "x,y"])), csv_in)
    csv_out = tmp_path / "out.csv"
    code, _, err = run(["batch", str(csv_in), "--keep", "id", "-o", str(csv_out)], capsys)
    assert code == 0, err
    written = pcsv.read_csv(
        csv_out,
        convert_options=pcsv.ConvertOptions(
            column_types={"id": pa.string()}, strings_can_be_null=True
        ),
    )
    assert written.column("id").to_pylist() == ["007", None, "x,y"]
    code, lines, _ = run(["batch", str(csv_in), "--keep", "id"], capsys)
    assert [json.loads(x)["id"] for x in lines.splitlines()] == ["007", None, "x,y"]
    # From JSON Lines to a table: a JSON string's text, any other value's JSON text.
    code, _, _ = run(["batch", str(_kept_source(tmp_path)), "--keep", "id", "-o", str(out)], capsys)
    ids = pq.read_table(out).column("id").to_pylist()
    assert ids == ["a1", "2", None, "u", "3.50", '{"b": [1, {"c": "\\u00e9"}]}', None]


def test_a_kept_field_may_not_take_the_name_of_an_output_field(
    capsys: pytest.CaptureFixture[str],
) -> None:
    source = str(ROOT / "examples" / "batch.jsonl")
    for name in ("annual_credit", "error", "line"):
        code, out, err = run(["batch", source, "--keep", f"id,{name}"], capsys)
        assert code == 2 and out == ""
        assert f"--keep {name}: the output already has a field '{name}'" in err


@pytest.mark.parametrize("kind", ["jsonl", "csv", "parquet"])
def test_every_row_of_a_large_batch_keeps_its_place_and_id(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Three chunks' worth of rows, with blank lines, bytes that are not UTF-8, short CSV rows
    and missing fields spread over chunk and block boundaries: one record per row, in order,
    each with its id (benchmarks/row_identity.py runs this on a million rows)."""
    from benchmarks.row_identity import WRITERS, mismatches

    source = tmp_path / f"identity.{kind}"
    expected = WRITERS[kind](source, 200_000)
    output = tmp_path / "out.jsonl"
    code, _, err = run(["batch", str(source), "--keep", "id", "-o", str(output)], capsys)
    failed = sum(1 for _, bad in expected if bad)
    unit = "lines" if kind == "jsonl" else "rows"  # a table has rows
    assert code == 2 and f"{failed} {unit} of {source} failed" in err and failed > 100
    assert mismatches(output, expected) == []


@pytest.mark.parametrize(
    ("field", "spelled"),
    [
        ("mega_project", '"mega_project"'),
        ("retained_jobs", '"retained_jobs"'),
        ("project_median_salary", '"project_median_salary"'),
        # JSON may spell a name with escapes: Arrow reads it decoded, and so must the search.
        ("retained_jobs", '"retained\\u005fjobs"'),
        ("retained_jobs", '"\\u0072etained_jobs"'),
    ],
    ids=["bool", "count", "money", "escaped-inside", "escaped-first"],
)
def test_an_explicit_null_in_a_block_arrow_reads_whole_is_refused(
    field: str,
    spelled: str,
    scenarios: list[dict],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Every line is an object: the block is read in one go, and the null Arrow reads for a
    # field that is not optional (one with a default, one required) must still be found.
    source = tmp_path / "nulls.jsonl"
    write_jsonl(source, scenarios[:500])
    lines = source.read_text(encoding="utf-8").splitlines()
    given = {k: v for k, v in json.loads(lines[123]).items() if k != field}
    lines[123] = json.dumps(given)[:-1] + f", {spelled} :  null}}"
    lines[124] = json.dumps({k: v for k, v in json.loads(lines[124]).items() if k != field})
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    columnar, scalar = tmp_path / "columnar.jsonl", tmp_path / "scalar.jsonl"
    code_c, _, err_c = run(
        ["batch", str(source), "--engine", "columnar", "-o", str(columnar)], capsys
    )
    code_s, _, err_s = run(["batch", str(source), "--engine", "scalar", "-o", str(scalar)], capsys)
    assert code_c == code_s == 2
    assert err_c == err_s
    assert columnar.read_bytes() == scalar.read_bytes()
    out = columnar.read_text("utf-8").splitlines()
    assert json.loads(out[123])["line"] == 124 and field in out[123]
    assert len(out) == 500


@settings(max_examples=200, deadline=None)
@given(
    places=st.integers(0, 6),
    money=st.booleans(),
    values=st.lists(st.one_of(st.none(), st.integers(-(10**12), 10**12)), min_size=1, max_size=30),
)
def test_the_extremes_noted_while_reading_decimals_are_the_columns_own(places, money, values):
    # A bound check is skipped, and a product left unchecked, on the strength of these: each
    # must be the least and the greatest whole part the column holds.
    from decimal import Decimal

    from lextrace.columns import _decimal_units
    from lextrace.dsl.values import CENTS

    array = pa.array(
        [None if v is None else Decimal(v).scaleb(-places) for v in values],
        pa.decimal128(38, places),
    )
    missing = np.array([v is None for v in values])
    extremes: dict = {}
    number, too_large = _decimal_units(array, CENTS if money else 1, missing, extremes)
    assert not too_large.any()
    # Noted whenever no row could leave int64 (measured on the way); never a wrong figure.
    if all(v is None or v >= 0 for v in values):
        assert len(extremes) == 1
    for column, least, greatest in extremes.values():
        assert column is number.q
        assert (least, greatest) == (int(number.q.min()), int(number.q.max()))


@settings(max_examples=300, deadline=None)
@given(
    whole=st.lists(st.integers(-50, 50), min_size=1, max_size=12),
    fraction=st.booleans(),
    limit=st.integers(-50, 50),
    op=st.sampled_from([">=", ">", "<="]),
)
def test_a_bound_skipped_by_the_extremes_holds_on_every_row(whole, fraction, limit, op) -> None:
    from lextrace.dsl.columnar import Chunk, Den, Num

    statute = _statute()
    engine = Runner(statute, statute.select_readings()).engine
    q = np.array(whole, dtype=np.int64)
    # With a fraction, every odd row holds one third more than its whole part.
    r = (np.arange(len(whole)) % 2).astype(np.int64) if fraction else 0
    column = Num(q, r, Den(3) if fraction else Den(), 1)
    chunk = Chunk(engine, {}, len(whole))
    bound = Num(limit, 0, Den(), 1)
    holds = np.broadcast_to(chunk.compare(op, column, bound).value, (len(whole),))
    if chunk.always_holds(op, column, bound):
        assert holds.all()
    # Exactly when every row holds, for whole columns: no comparison is made for nothing.
    if not fraction:
        assert chunk.always_holds(op, column, bound) == bool(holds.all())


def test_a_row_breaking_a_bound_past_the_first_rows_is_still_found(tmp_path: Path) -> None:
    # The least row decides whether a bound is checked row by row: one bad row at the very end
    # of a chunk must still be found, and named by the scalar path.
    rows = population(3_000, seed=8)
    rows[-1] = {**rows[-1], "mri_distress_score": "-1"}
    rows[1_500] = {**rows[1_500], "eligibility_period_years": 11}
    source = tmp_path / "bounds.parquet"
    write_parquet(source, rows)
    statute = _statute()
    runner = Runner(statute, statute.select_readings())
    ((batch, _),) = arrow_chunks(str(source), "parquet", statute.ast)
    chunk = runner.evaluate(batch, 0, table_rows(batch, str(source), 0))
    assert sorted(chunk.errors) == [1_500, 2_999]
    assert "mri_distress_score" in str(chunk.errors[2_999])
    assert "eligibility_period_years" in str(chunk.errors[1_500])


@pytest.mark.parametrize(
    ("block", "slack", "joined"),
    [(97, 5, 10**6), (97, 5, 7), (1000, 16, 40), (4096, 1 << 16, 1)],
    ids=["tiny-all-joined", "tiny-some-joined", "small", "roomy"],
)
def test_blocks_cut_anywhere_give_the_same_lines_and_numbers(
    block: int,
    slack: int,
    joined: int,
    mixed_file: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A block ends inside a line, then the line is finished from its slack or, longer than
    # the slack, read on to its end; every line must come out once, in place, numbered as the
    # file numbers it (a last line without a newline included); blocks joined into chunks of
    # `joined` rows or more are evaluated as one (a row's line number and its scalar reading
    # found in the block it came from).
    import lextrace.tables as tables

    source = tmp_path / "cut.jsonl"
    text = mixed_file.read_bytes()[:60_000]
    source.write_bytes(text[: text.rfind(b"\n")] + b"\n\xff\xfe\n" + text[:300].split(b"\n")[0])
    expected = tmp_path / "expected.jsonl"
    code_s, _, _ = run(["batch", str(source), "--engine", "scalar", "-o", str(expected)], capsys)
    monkeypatch.setattr(tables, "BLOCK_BYTES", block)
    monkeypatch.setattr(tables, "_SLACK_BYTES", slack)
    monkeypatch.setattr(tables, "JOINED_ROWS", joined)
    target = tmp_path / "out.jsonl"
    code_c, _, _ = run(["batch", str(source), "-o", str(target)], capsys)
    assert code_c == code_s == 2
    assert target.read_bytes() == expected.read_bytes()
    lines = source.read_bytes().split(b"\n")
    assert len(target.read_text("utf-8").splitlines()) == len(lines)


def test_blocks_are_evaluated_joined_in_chunks_of_at_least_the_joined_rows(
    mixed_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every chunk but the last holds JOINED_ROWS rows or more, made of whole blocks: its rows
    # are the file's lines in order, numbered from where the chunk before ended.
    import lextrace.tables as tables

    monkeypatch.setattr(tables, "BLOCK_BYTES", 1000)
    monkeypatch.setattr(tables, "JOINED_ROWS", 50)
    tasks = list(tables.read_tasks(_statute().ast, str(mixed_file), "jsonl"))
    lines = mixed_file.read_bytes().count(b"\n")
    assert len(tasks) > 3
    assert all(task.table.num_rows >= 50 for task in tasks[:-1])
    assert tasks[-1].table.num_rows > 0
    numbers = [number for task in tasks for number in task.lines]
    assert numbers == list(range(1, lines + 1))
    assert [task.first for task in tasks] == [int(n) - 1 for n in (t.lines[0] for t in tasks)]
    assert sum(task.table.num_rows for task in tasks) == lines


@settings(max_examples=300, deadline=None)
@given(text=st.lists(st.sampled_from([b"null", b"nul", b"l", b"n", b"u", b'"a":', b" ", b"\n"])))
def test_every_null_in_a_block_is_found_at_any_alignment(text) -> None:
    from lextrace.tables import _null_positions

    joined = b"".join(text)
    expected, at = [], joined.find(b"null")
    while at >= 0:
        expected.append(at)
        at = joined.find(b"null", at + 1)
    assert _null_positions(bytearray(joined)).tolist() == expected


@settings(max_examples=200, deadline=None)
@given(
    fractions=st.lists(
        st.tuples(st.integers(0, 10**6), st.integers(1, 10**12)), min_size=1, max_size=40
    ),
    small=st.booleans(),
    money=st.booleans(),
)
def test_text_fractions_are_exact_over_one_denominator_or_each_their_own(
    fractions, small, money
) -> None:
    # Few small denominators: every value over their least common one (a constant); many or
    # large ones: each row over its own. Either way each value is the text's, exactly.
    from lextrace.columns import _exact_texts
    from lextrace.dsl.columnar import exact_values

    if small:
        fractions = [(n, d % 12 + 1) for n, d in fractions]
    cells = [f"{n}/{d}" for n, d in fractions]
    scale = 100 if money else 1
    number, bad = _exact_texts(pa.array(cells, pa.string()), scale)
    assert not np.broadcast_to(bad, len(cells)).any()
    if small:
        assert not number.den.factors  # one constant denominator
    assert number.scale == scale
    assert exact_values(number, range(len(cells))) == [Fraction(n, d) for n, d in fractions]


@settings(max_examples=500, deadline=None)
@given(data=st.binary(max_size=12))
@example(data=b"\xed\xa0\x80")  # a surrogate
@example(data=b"\xc0\xaf")  # an overlong form
@example(data=b"\xf4\x90\x80\x80")  # beyond U+10FFFF
def test_a_block_is_utf8_exactly_when_python_decodes_it(data) -> None:
    from lextrace.tables import _utf8

    try:
        data.decode("utf-8")
        decodes = True
    except UnicodeDecodeError:
        decodes = False
    assert _utf8(bytearray(data)) == decodes


@settings(max_examples=200, deadline=None)
@given(
    distinct=st.lists(
        st.decimals(min_value=-(10**20), max_value=10**20, places=2, allow_nan=False).map(
            lambda d: format(d, "f")
        ),
        min_size=1,
        max_size=4,
        unique=True,
    ),
    picks=st.lists(st.one_of(st.none(), st.integers(0, 3)), min_size=8, max_size=40),
    money=st.booleans(),
)
def test_a_dictionary_of_few_decimal_texts_reads_as_its_texts_decoded(distinct, picks, money):
    # Each distinct text is cast once and looked up per row: the values, the rows too large
    # for int64 and the null rows must be those of the same texts read one per row.
    from lextrace import load_statute
    from lextrace.columns import _column
    from lextrace.dsl.columnar import Engine, exact_values

    loaded = load_statute()
    name = "county_median_salary" if money else "mri_distress_score"
    declared = loaded.ast.inputs[name]
    cells = [None if p is None else distinct[p % len(distinct)] for p in picks]
    plain = pa.array(cells, pa.string())
    encoded = plain.dictionary_encode()
    assume(2 * len(encoded.dictionary) <= len(encoded))
    missing = np.array([c is None for c in cells])
    engine = Engine(loaded.ast, loaded.select_readings())
    got, got_bad = _column(declared, engine, encoded, name, missing)
    want, want_bad = _column(declared, engine, plain, name, missing)
    got_bad, want_bad = (np.broadcast_to(b, len(cells)) for b in (got_bad, want_bad))
    assert got_bad.tolist() == want_bad.tolist()
    kept = [row for row in range(len(cells)) if not want_bad[row]]
    assert exact_values(got, kept) == exact_values(want, kept)


@pytest.mark.parametrize("irregular", [False, True], ids=["whole-block", "line-by-line"])
def test_a_number_of_33_digits_is_read_as_written(
    irregular: bool, scenarios: list[dict], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Arrow reads some numbers of 33 digits into decimal128(38, 6) as other numbers, silently:
    # its cast of text reads "4" and 32 zeros as 59717633079061536536625392568231.788544 (see
    # lextrace/plain_text.py), its JSON reader, alone, 2**128 rounded up to a million as
    # 0.788544. Read from JSON Lines, such a line must give what the scalar path gives for it.
    source = tmp_path / "long.jsonl"
    write_jsonl(source, scenarios[:300])
    lines = source.read_text(encoding="utf-8").splitlines()
    for index, number in (
        (17, "400000000000000000000000000000000"),
        (250, str(-(-(2**128) // 10**6))),
    ):
        given = json.loads(lines[index])
        given.pop("project_median_salary", None)
        lines[index] = json.dumps(given)[:-1] + f', "project_median_salary": {number}}}'
    if irregular:
        lines[5] = "3"  # not an object: the block is read line by line
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    columnar, scalar = tmp_path / "columnar.jsonl", tmp_path / "scalar.jsonl"
    code_c, _, err_c = run(
        ["batch", str(source), "--engine", "columnar", "-o", str(columnar)], capsys
    )
    code_s, _, err_s = run(["batch", str(source), "--engine", "scalar", "-o", str(scalar)], capsys)
    assert (code_c, err_c) == (code_s, err_s)
    assert columnar.read_bytes() == scalar.read_bytes()


@pytest.mark.parametrize(
    "text",
    [
        "400000000000000000000000000000000",  # Arrow's cast reads it as another number
        str(-(-(2**128) // 10**6)),  # Arrow's JSON reader reads it as 0.788544
        "1" * 31,  # the longest text the cast is given
        "65000.5000000",  # a seventh place, a zero: Arrow's cast keeps the value
        "65000.5000001",  # a seventh place that is not a zero: the cast fails, text by text
        "6.5e4",
    ],
)
def test_a_csv_amount_is_read_as_written(
    text: str, scenarios: list[dict], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Text cells of plain decimals are cast by Arrow in one call (lextrace/plain_text.py);
    # whatever the text, a row gives what the scalar path gives for it (a traced row is
    # evaluated by the scalar path alone).
    source = tmp_path / "amounts.csv"
    write_csv(source, scenarios[:200])
    lines = source.read_text(encoding="utf-8").splitlines()
    column = lines[0].split(",").index("project_median_salary")
    cells = lines[77].split(",")
    cells[column] = text
    lines[77] = ",".join(cells)
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    columnar, traced = tmp_path / "columnar.jsonl", tmp_path / "traced.jsonl"
    code_c, _, err_c = run(["batch", str(source), "-o", str(columnar)], capsys)
    code_t, _, err_t = run(["batch", str(source), "--trace", "-o", str(traced)], capsys)
    assert (code_c, err_c) == (code_t, err_t)
    untraced = []
    for line in traced.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        record.pop("trace", None)
        untraced.append(record)
    assert [json.loads(x) for x in columnar.read_text(encoding="utf-8").splitlines()] == untraced
    assert len(untraced) == 200


def test_small_row_groups_are_read_in_whole_chunks_with_the_same_results(
    scenarios: list[dict], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import pyarrow.parquet as pq

    whole = tmp_path / "whole.parquet"
    write_parquet(whole, scenarios)
    # Each row group has its own dictionaries for the text columns (enum members, shares).
    grouped = tmp_path / "grouped.parquet"
    pq.write_table(pq.read_table(whole), grouped, row_group_size=257)
    assert pq.ParquetFile(grouped).metadata.num_row_groups == 12
    chunks = list(arrow_chunks(str(grouped), "parquet", _statute().ast, size=1000))
    assert [batch.num_rows for batch, _ in chunks] == [1000, 1000, 1000]
    table = pq.read_table(whole)
    for index, (batch, errors) in enumerate(chunks):
        assert not errors
        expected = table.slice(1000 * index, 1000)
        for name in ("green_building", "onsite_renewable_share", "new_jobs"):
            assert batch.column(name).to_pylist() == expected.column(name).to_pylist()
    outputs = []
    for source in (whole, grouped):
        target = tmp_path / f"out-{source.stem}.jsonl"
        code, _, err = run(["batch", str(source), "-o", str(target)], capsys)
        assert code == 0, err
        outputs.append(target.read_bytes())
    assert outputs[0] == outputs[1]
