"""The compiled JSON Lines reader (lextrace/json_compiled.py) reads a block exactly as Arrow's
reader does, or not at all: the same table, the same refused lines, the same line bounds; and a
batch gives the same bytes whichever reader ran."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.population import population, write_jsonl
from lextrace.api import load_statute
from lextrace.cli import main
from lextrace.json_compiled import READER_VARIABLE, CompiledLines, Read, compiled_reader
from lextrace.tables import JsonLines, _arrow_schema

pytest.importorskip("numba", reason="the compiled reader is the `compiled` extra's")

STATUTE = load_statute().ast
SCHEMA = _arrow_schema(STATUTE)
REQUIRED = {n for n, d in STATUTE.inputs.items() if not d.optional}
KINDS = {f.name: f.type for f in SCHEMA}


@pytest.fixture(scope="module")
def compiled() -> CompiledLines:
    reader = CompiledLines(SCHEMA, REQUIRED)
    assert reader.wait()
    return reader


def _arrow_reader(tmp_path: Path) -> JsonLines:
    handle = (tmp_path / "none.jsonl").open("wb+")
    reader = JsonLines(STATUTE, handle, "block.jsonl")
    reader.compiled = None
    return reader


# ---- lines in every form ------------------------------------------------------------------------
@st.composite
def _plain(draw: st.DrawFn, type_: pa.DataType) -> str:
    """Returns the JSON text of a value of the column's type, of the plain form."""
    if draw(st.integers(0, 15)) == 0:
        return "null"
    if pa.types.is_boolean(type_):
        return draw(st.sampled_from(["true", "false"]))
    if pa.types.is_int64(type_):
        return str(draw(st.one_of(st.integers(-(10**18) + 1, 10**18 - 1), st.integers(-3, 3))))
    if pa.types.is_decimal(type_):
        whole = str(draw(st.integers(0, 10 ** draw(st.integers(1, 12)) - 1)))
        places = draw(st.integers(0, 6))
        fraction = str(draw(st.integers(0, 10**places - 1))).zfill(places) if places else ""
        number = ("-" if draw(st.booleans()) else "") + whole + ("." + fraction if places else "")
        return f'"{number}"' if draw(st.booleans()) else number
    text = json.dumps(draw(st.text("abcxyz019/_ -", max_size=8)))
    # pandas escapes every slash ("1\/5"): the same text.
    return text.replace("/", "\\/") if draw(st.booleans()) else text


def _odd(type_: pa.DataType) -> st.SearchStrategy[str]:
    """Returns JSON texts of values Arrow's reader may take or refuse, but not of the plain
    form."""
    if pa.types.is_boolean(type_):
        return st.sampled_from(["1", '"true"', "True"])
    if pa.types.is_int64(type_):
        return st.sampled_from(["5.0", "1e3", '"5"', "007", str(10**19), "-", "[1]"])
    if pa.types.is_decimal(type_):
        return st.sampled_from(
            ["1.1234567", '"2.1234567"', "1" + "0" * 12, "1e5", ".5", '"5."', '"+5"', '" 5"', "05"]
        )
    return st.sampled_from(
        ['"\\u0061"', '"caf\\u00e9"', '"caf\u00e9"', "0.5", '"a\tb"', '"a\\\\b"', '"1\\"']
    )


@st.composite
def _line(draw: st.DrawFn) -> tuple[str, bool]:
    """Returns a JSON line (or something else) and whether it is of the plain form."""
    odd = draw(st.integers(0, 59))
    if odd == 0:
        return draw(st.sampled_from(["", "  ", "null", "[1, 2]", "{", '{"new_jobs": [1]}'])), False
    names = draw(st.lists(st.sampled_from(sorted(KINDS)), unique=True, max_size=12))
    colon = draw(st.sampled_from([":", ": ", " : "]))
    comma = draw(st.sampled_from([",", ", "]))
    members = [f'"{name}"{colon}{draw(_plain(KINDS[name]))}' for name in names]
    plain = True
    if names and odd == 1:
        members.append(members[0])  # a repeated field
        plain = False
    if names and odd in (2, 3, 4):
        at = draw(st.integers(0, len(names) - 1))
        members[at] = f'"{names[at]}"{colon}{draw(_odd(KINDS[names[at]]))}'
        plain = False
    if odd == 5:
        members.append(f'"not_a_field"{colon}1')
        plain = False
    line = "{" + comma.join(members) + "}"
    if odd == 6:
        line += " x"
        plain = False
    if odd == 7:
        line = " " + line + "\t "
    return line, plain


@settings(
    max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(lines=st.lists(_line(), min_size=1, max_size=12), newline=st.booleans())
def test_a_block_is_read_as_arrow_reads_it_or_left_to_arrow(
    lines: list[tuple[str, bool]], newline: bool, compiled: CompiledLines, tmp_path: Path
) -> None:
    block = "\n".join(text for text, _ in lines) + ("\n" if newline else "")
    read = compiled.read(bytearray(block.encode("utf-8")))
    if not newline and len(lines) > 1 and lines[-1][0] == "":
        lines = lines[:-1]  # "a\n" holds one line
    if all(plain for _, plain in lines):
        assert read is not None, block
    else:
        assert read is None, block
        return
    table, numbered, _, refused, kept = _arrow_reader(tmp_path)._block(
        bytearray(block.encode("utf-8"))
    )
    # A refused line goes to the scalar path: what the table holds in its row is never read.
    assert read.nulled.tolist() == refused.tolist(), block
    assert read.table.filter(pa.array(~read.nulled)).equals(table.filter(pa.array(~refused)))
    assert read.starts.tolist() == numbered.starts.tolist()
    assert read.ends.tolist() == numbered.ends.tolist()
    assert kept == {}


def test_an_empty_block_and_an_empty_object_read_as_arrow_reads_them(
    compiled: CompiledLines, tmp_path: Path
) -> None:
    assert compiled.read(bytearray()) is None
    read = compiled.read(bytearray(b"{}\n{ }\n"))
    assert read is not None and read.table.num_rows == 2
    table = _arrow_reader(tmp_path)._block(bytearray(b"{}\n{ }\n"))[0]
    assert read.table.equals(table)
    assert read.nulled.tolist() == [False, False]


# ---- a whole batch ------------------------------------------------------------------------------
IRREGULAR = [
    "",
    '{"new_jobs": 1, "new_jobs": 2}',
    '{"new_jobs": 5, "project_median_salary": null}',
    '{"new_jobs": "5"}',
    '{"green_building": "caf\\u00e9"}',
    "[1]",
]


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("compiled")
    plain = folder / "plain.jsonl"
    write_jsonl(plain, population(2_000, seed=5))
    lines = plain.read_text(encoding="utf-8").splitlines()
    for index, bad in enumerate(IRREGULAR):
        lines.insert(100 + index * 300, bad)
    source = folder / "mixed.jsonl"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return source


def _batch(source: Path, target: Path, *extra: str) -> int:
    return main(["batch", str(source), "-o", str(target), *extra])


def test_a_batch_writes_the_same_bytes_whichever_reader_reads_it(
    mixed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import lextrace.tables as tables

    # Small blocks: most hold only plain lines (the compiled reader's), some an irregular one
    # (Arrow's, then the scalar path's for that line).
    monkeypatch.setattr(tables, "BLOCK_BYTES", 20_000)
    counted: list[bool] = []
    read = CompiledLines.read

    def counting(self: CompiledLines, block: bytearray):
        result = read(self, block)
        counted.append(result is not None)
        return result

    monkeypatch.setattr(CompiledLines, "read", counting)
    monkeypatch.setenv(READER_VARIABLE, "compiled")
    by_compiled = tmp_path / "compiled.jsonl"
    assert _batch(mixed, by_compiled) == 2
    err_compiled = capsys.readouterr().err
    monkeypatch.setenv(READER_VARIABLE, "arrow")
    by_arrow = tmp_path / "arrow.jsonl"
    assert _batch(mixed, by_arrow) == 2
    err_arrow = capsys.readouterr().err
    assert by_compiled.read_bytes() == by_arrow.read_bytes()
    assert err_compiled == err_arrow
    assert f"{len(IRREGULAR)} lines of" in err_compiled
    # Both readers ran in the first batch: not a comparison of Arrow's with itself.
    assert sum(counted) > len(counted) // 2 and not all(counted)


def test_a_null_for_a_required_field_in_a_plain_block_goes_to_the_scalar_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "nulls.jsonl"
    write_jsonl(source, population(200, seed=8))
    lines = source.read_text(encoding="utf-8").splitlines()
    line = json.loads(lines[50])
    line["new_jobs"] = None
    lines[50] = json.dumps(line)
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    monkeypatch.setenv(READER_VARIABLE, "compiled")
    target, scalar = tmp_path / "out.jsonl", tmp_path / "scalar.jsonl"
    assert _batch(source, target) == 2
    assert _batch(source, scalar, "--engine", "scalar") == 2
    assert target.read_bytes() == scalar.read_bytes()
    out = target.read_text("utf-8").splitlines()
    assert json.loads(out[50])["line"] == 51 and "new_jobs" in out[50]
    assert len(out) == 200


def test_the_reader_is_chosen_by_size_kept_fields_and_setting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from lextrace.json_compiled import WORTH_BYTES

    monkeypatch.delenv(READER_VARIABLE, raising=False)
    assert compiled_reader(SCHEMA, REQUIRED, 1000, False) is None  # not worth loading numba
    assert compiled_reader(SCHEMA, REQUIRED, WORTH_BYTES, True) is None  # kept fields
    assert isinstance(compiled_reader(SCHEMA, REQUIRED, WORTH_BYTES, False), CompiledLines)
    assert compiled_reader(SCHEMA, REQUIRED, None, False) is None  # asked again when read
    monkeypatch.setenv(READER_VARIABLE, "arrow")
    assert compiled_reader(SCHEMA, REQUIRED, WORTH_BYTES, False) is None
    monkeypatch.setenv(READER_VARIABLE, "compiled")
    assert isinstance(compiled_reader(SCHEMA, REQUIRED, 10, False), CompiledLines)
    monkeypatch.setenv(READER_VARIABLE, "fast")
    with pytest.raises(ValueError, match="expected arrow or compiled, given 'fast'"):
        compiled_reader(SCHEMA, REQUIRED, 10, False)


def test_a_wrong_setting_is_a_clear_error_with_exit_code_2(
    mixed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(READER_VARIABLE, "fastest")
    target = tmp_path / "out.jsonl"
    assert _batch(mixed, target) == 2
    err = capsys.readouterr().err
    assert "LEXTRACE_JSON_READER: expected arrow or compiled, given 'fastest'" in err
    assert "Traceback" not in err and not target.exists()


def test_standard_input_is_read_by_the_compiled_reader_once_enough_of_it_is_read(
    mixed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import io
    import sys

    import lextrace.json_compiled as json_compiled
    import lextrace.tables as tables

    monkeypatch.delenv(READER_VARIABLE, raising=False)
    # Standard input has no size: the reader is loaded once this much of it has been read.
    monkeypatch.setattr(tables, "BLOCK_BYTES", 20_000)
    monkeypatch.setattr(json_compiled, "WORTH_BYTES", 100_000)
    made: list[CompiledLines] = []
    read: list[bool] = []
    real = json_compiled.CompiledLines

    def made_and_loaded(schema: pa.Schema, required: set[str]) -> CompiledLines:
        reader = real(schema, required)
        reader.wait()  # loaded before the next block: the test does not race the loader
        made.append(reader)
        own = reader.read

        def counted(block: bytearray) -> Read | None:
            result = own(block)
            read.append(result is not None)
            return result

        reader.read = counted  # type: ignore[method-assign]
        return reader

    monkeypatch.setattr(json_compiled, "CompiledLines", made_and_loaded)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(mixed.read_bytes())))
    assert main(["batch", "-", "-o", str(tmp_path / "piped.jsonl")]) == 2
    monkeypatch.setenv(READER_VARIABLE, "arrow")
    assert _batch(mixed, tmp_path / "arrow.jsonl") == 2
    capsys.readouterr()
    assert len(made) == 1 and any(read)
    assert (tmp_path / "piped.jsonl").read_bytes() == (tmp_path / "arrow.jsonl").read_bytes()


def test_json_lines_written_by_pandas_are_read_by_the_compiled_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pd = pytest.importorskip("pandas")
    # pandas writes every slash escaped ("1\/5"), as JSON allows: the plain form still. (Its
    # nullable integers keep counts whole where some rows leave them out.)
    source = tmp_path / "pandas.jsonl"
    frame = pd.DataFrame(population(1_000, seed=3)).convert_dtypes()
    frame.to_json(source, orient="records", lines=True)
    assert b"\\/" in source.read_bytes()
    monkeypatch.setenv(READER_VARIABLE, "compiled")
    read = CompiledLines.read
    counted: list[bool] = []

    def counting(self: CompiledLines, block: bytearray) -> Read | None:
        result = read(self, block)
        counted.append(result is not None)
        return result

    monkeypatch.setattr(CompiledLines, "read", counting)
    assert _batch(source, tmp_path / "compiled.jsonl") in (0, 2)
    monkeypatch.setenv(READER_VARIABLE, "arrow")
    assert _batch(source, tmp_path / "arrow.jsonl") in (0, 2)
    capsys.readouterr()
    assert counted and all(counted)
    assert (tmp_path / "compiled.jsonl").read_bytes() == (tmp_path / "arrow.jsonl").read_bytes()
