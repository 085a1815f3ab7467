"""`lextrace batch` on the columnar path: read in chunks, evaluate, write, atomically.

Imported only when a batch runs, so that other commands never load numpy or Arrow.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from decimal import Decimal
from functools import partial
from typing import IO, Any

import click
import numpy as np
import pyarrow as pa

from .api import Statute
from .batch_lines import error_record, record
from .cli import atomic_file, error_problems
from .columns import json_lines
from .result_tables import (
    MONEY_DIGITS,
    arrow_results,
    error_message,
    float_metadata,
    readings_metadata,
)
from .tables import (
    CHUNK_ROWS,
    EvaluatedChunk,
    Runner,
    TableError,
    Task,
    arrow_uses_kept_memory,
    evaluate_in_order,
    read_tasks,
)

Fail = Callable[[str], Exception]


def run(
    statute: Statute,
    selected: dict[str, str],
    chosen: dict[str, str],
    file: str,
    input_format: str,
    output: str | None,
    output_format: str,
    strict: bool,
    progress: bool | None,
    bad_input: Fail,
    keep: list[str] | None = None,
    floats: str = "refuse",
    trace: bool = False,
    compiled: bool = False,
) -> int:
    """Evaluates every scenario of `file`, one output record per line or row, with the
    fields of `keep` carried through first; returns how many rows failed. Raises `bad_input`
    errors (exit 2) for files that cannot be read or written. `compiled` runs the rules
    compiled (dsl/kernel.py)."""
    arrow_uses_kept_memory()
    keep = keep or []
    runner = Runner(statute, selected, chosen, compiled=compiled)
    runner.floats = floats
    runner.trace = trace
    if output_format != "jsonl":
        runner.money_digits = MONEY_DIGITS
    readings = json.dumps({rid: selected[rid] for rid in statute.readings_used}, ensure_ascii=False)
    chunks = _chunks(runner, file, input_format, bad_input, keep)
    failures = 0

    def counted() -> Iterator[EvaluatedChunk]:
        nonlocal failures
        noted = False
        for chunk in chunks:
            if chunk.from_floats and not noted:
                noted = True
                click.echo(
                    f"{file}: read by their shortest decimals (--floats shortest): "
                    f"{', '.join(chunk.from_floats)}",
                    err=True,
                )
            for row in sorted(chunk.errors):
                failures += 1
                click.echo(error_message(chunk.errors[row]), err=True)
                if strict:
                    raise bad_input(f"stopped at {_where(chunk, row, file)} (--strict)")
            yield chunk

    stream = _with_progress(counted(), file, input_format, progress)
    with _target(output, output_format, bad_input) as sink:
        if output_format == "jsonl":
            write = partial(_write_jsonl, sink, statute, readings=readings, keep=keep)
            _one_at_a_time(partial(write, c) for c in stream)
        else:
            used = {rid: selected[rid] for rid in statute.readings_used}
            _write_table(stream, statute, sink, output_format, keep, used)
    return failures


def _where(chunk: EvaluatedChunk, row: int, file: str) -> str:
    if chunk.lines:
        return f"line {chunk.lines[row]}"
    return f"row {chunk.first_row + row + 1} of {file}"


def _chunks(
    runner: Runner, file: str, input_format: str, bad_input: Fail, keep: list[str]
) -> Iterator[EvaluatedChunk]:
    """Yields the evaluated chunks of the input file, in order."""
    # JSON Lines are parsed in a thread of the reader's own: one more thread evaluating would
    # only compete for the two cores.
    workers = 1 if input_format == "jsonl" else 2
    try:
        tasks = _tasks(runner, file, input_format, bad_input, keep)
        yield from evaluate_in_order(runner, tasks, workers)
    except TableError as error:
        raise bad_input(f"{file}: {error}" if input_format != "jsonl" else str(error)) from None
    except (OSError, pa.ArrowException) as error:
        raise bad_input(f"{file}: cannot read as {input_format}: {error}") from None


def _tasks(
    runner: Runner, file: str, input_format: str, bad_input: Fail, keep: list[str]
) -> Iterator[Task]:
    """Yields each chunk to evaluate: (table, first row, row source, refused rows, lines)."""
    statute = runner.statute.ast
    if input_format != "jsonl":
        if file == "-":
            raise bad_input(f"{input_format} input must be a file, not standard input")
        yield from read_tasks(statute, file, input_format, keep=keep, floats=runner.floats)
        return
    try:
        handle: IO[bytes] = sys.stdin.buffer if file == "-" else open(file, "rb")  # noqa: SIM115
    except OSError as error:
        raise bad_input(f"{file}: cannot read: {error.strerror}") from None
    try:
        yield from read_tasks(statute, file, input_format, handle, keep)
    finally:
        if handle is not sys.stdin.buffer:
            handle.close()


def _write_jsonl(
    sink: IO[bytes], statute: Statute, chunk: EvaluatedChunk, readings: str, keep: list[str]
) -> None:
    sink.write(_jsonl(statute, chunk, readings, keep))


def _jsonl(
    statute: Statute, chunk: EvaluatedChunk, readings: str, keep: list[str]
) -> bytes | memoryview:
    """Returns the output lines of a chunk: kept fields, then results with readings (its own
    readings for a row that pins some), or the row's error."""
    kept = [(name, _json_texts(chunk.kept[name], chunk.kept_json)) for name in keep]
    lines = json_lines(statute.ast, _filled(statute, chunk), chunk.size, readings, kept)
    if not chunk.errors and not chunk.pinned and lines.offset == 0 and lines.null_count == 0:
        # The lines are already contiguous UTF-8 in Arrow's buffer: write them as they are.
        offsets = np.frombuffer(lines.buffers()[1], dtype=np.int32, count=len(lines) + 1)
        return memoryview(lines.buffers()[2])[int(offsets[0]) : int(offsets[-1])]
    texts = lines.to_pylist()
    for row, line in chunk.pinned.items():
        values = [texts_[row].as_py() for _, texts_ in kept]
        texts[row] = record(values, keep, line.rstrip("\n")) + "\n"
    for row, error in chunk.errors.items():
        number = chunk.lines[row] if chunk.lines else chunk.first_row + row + 1
        values = [texts_[row].as_py() for _, texts_ in kept]
        texts[row] = record(values, keep, error_record(number, error_problems(error))) + "\n"
    return "".join(texts).encode("utf-8")


def _json_texts(array: pa.Array, is_json: bool) -> pa.Array:
    """Returns kept values as JSON texts ("null" where absent): JSON Lines input's as given,
    a table's converted from their Arrow type."""
    import pyarrow.compute as pc

    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    if is_json:
        return array.fill_null("null")
    if pa.types.is_dictionary(array.type):
        array = array.dictionary_decode()
    if pa.types.is_string(array.type) or pa.types.is_large_string(array.type):
        array = array.cast(pa.string())
        plain = not pc.any(pc.match_substring_regex(array, r'["\\\x00-\x1f]')).as_py()
        if plain:  # nothing to escape: quoting is all JSON needs
            quoted = pc.binary_join_element_wise('"', array, '"', "")
            return quoted.fill_null("null")
    elif pa.types.is_integer(array.type):
        return array.cast(pa.string()).fill_null("null")
    return pa.array([_json_value(value) for value in array.to_pylist()], type=pa.string())


def _json_value(value: object) -> str:
    """Returns a table cell as JSON text: decimals as their exact digits."""
    if isinstance(value, Decimal):
        return str(value) if value.is_finite() else json.dumps(str(value))
    return json.dumps(value, ensure_ascii=False, default=str)


_PLACEHOLDER: dict[str, object] = {"enum": "", "bool": False}


def _filled(statute: Statute, chunk: EvaluatedChunk) -> dict[str, Any]:
    """Returns the chunk's result columns with error rows given placeholder values (their
    lines are replaced by the error object)."""
    if not chunk.errors:
        return chunk.values
    filled = {}
    for name, column in chunk.values.items():
        column = np.array(column, dtype=object)
        placeholder = _PLACEHOLDER.get(statute.ast.definitions[name].type.kind, 0)
        for row in chunk.errors:
            column[row] = placeholder
        filled[name] = column
    return filled


def _write_table(
    chunks: Iterator[EvaluatedChunk],
    statute: Statute,
    sink: Any,
    output_format: str,
    keep: list[str],
    readings: dict[str, str],
) -> None:
    """Writes chunks as Parquet or CSV: money as decimal(38, 2), an `error` column; a Parquet
    file's schema metadata names the readings used (`lextrace.readings`) and the columns read
    from binary floats (`lextrace.provenance`), as `Statute.evaluate_many`'s tables do.

    Each table is written in a thread of its own while the next chunks are read and evaluated
    (Arrow encodes without holding the interpreter's lock); one write at a time, in order."""
    writer: Any = None
    target = _native(sink)

    def write(table: pa.Table) -> None:
        nonlocal writer
        if writer is None:
            writer = _writer(target, table.schema, output_format)
        writer.write_table(table)

    def results(chunk: EvaluatedChunk) -> pa.Table:
        table = arrow_results(statute, chunk, keep)
        metadata = readings_metadata(readings)
        if chunk.from_floats:
            metadata.update(float_metadata(chunk.from_floats))
        return table.replace_schema_metadata(metadata)

    try:
        _one_at_a_time(partial(write, results(chunk)) for chunk in chunks)
        if writer is not None:
            writer.close()
    finally:
        if target is not sink:
            target.close()


def _native(sink: Any) -> Any:
    """Returns where Arrow writes a table: the temporary file's own path opened by Arrow when
    the output is a file (each write through a Python file object would take the
    interpreter's lock, a fifth of the writing time), else the stream as it is."""
    if sink is sys.stdout.buffer or not isinstance(getattr(sink, "name", None), str):
        return sink
    return pa.OSFile(sink.name, "wb")


def _one_at_a_time(work: Iterator[Callable[[], object]]) -> None:
    """Runs each piece of work, in order, on a thread of its own, while the main thread
    prepares the next one (formatting and writing run in Arrow and in the operating system,
    without the interpreter's lock); one piece at a time, so memory stays bounded."""
    from concurrent.futures import Future, ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1) as worker:
        pending: Future[object] | None = None
        for piece in work:
            if pending is not None:
                pending.result()
            pending = worker.submit(piece)
        if pending is not None:
            pending.result()


def _writer(sink: Any, schema: pa.Schema, output_format: str) -> Any:
    """Returns the Parquet or CSV writer of a table schema."""
    if output_format == "parquet":
        import pyarrow.parquet as pq

        # Dictionaries only for text: on exact amounts they cost more than they save.
        texts = [f.name for f in schema if pa.types.is_string(f.type)]
        return pq.ParquetWriter(sink, schema, use_dictionary=texts)
    import pyarrow.csv as pcsv

    return pcsv.CSVWriter(sink, schema)


@contextmanager
def _target(output: str | None, output_format: str, bad_input: Fail) -> Iterator[Any]:
    """Yields where to write: standard output, or `output` written atomically."""
    if output is None:
        if output_format == "parquet":
            raise bad_input("Parquet output needs --output FILE")
        sys.stdout.flush()
        yield sys.stdout.buffer
        sys.stdout.buffer.flush()
        return
    with atomic_file(output, "wb") as handle:
        yield handle


def _with_progress(
    chunks: Iterator[EvaluatedChunk], file: str, input_format: str, progress: bool | None
) -> Iterator[EvaluatedChunk]:
    """Shows a progress bar on standard error for long runs (when it is a terminal, or when
    asked), counted in rows."""
    show = progress if progress is not None else sys.stderr.isatty()
    total = _row_estimate(file, input_format) if show else None  # a pass over the file
    if total is None or total < 4 * CHUNK_ROWS:
        yield from chunks
        return
    with click.progressbar(length=total, label="scenarios", file=sys.stderr) as bar:
        for chunk in chunks:
            bar.update(chunk.size)
            yield chunk


def _row_estimate(file: str, input_format: str) -> int | None:
    if file == "-":
        return None
    if input_format == "parquet":
        import pyarrow.parquet as pq

        try:
            return int(pq.ParquetFile(file).metadata.num_rows)
        except (OSError, pa.ArrowException):
            return None
    try:
        with open(file, "rb") as handle:
            return sum(chunk.count(b"\n") for chunk in iter(lambda: handle.read(1 << 20), b""))
    except OSError:
        return None
