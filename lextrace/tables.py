"""Batches at scale: scenarios streamed in chunks from JSON Lines, Parquet or CSV, evaluated by
the columnar evaluator, rows it cannot take evaluated one by one, results streamed out.

Memory stays bounded by the chunk size whatever the file size. Every row comes out in input
order, either with its results (the same bytes as `lextrace evaluate --format json` without the
trace, for JSON Lines) or with its error, named as the scalar path names it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import numpy as np
import pyarrow as pa

from .api import Result, Statute
from .columns import (
    TableError,
    check_bounds,
    input_columns,
    result_values,
    scalar_row,
    text_row,
    value_cells,
)
from .dsl import ast
from .dsl.columnar import Engine
from .dsl.errors import ScenarioError
from .dsl.evaluator import EvaluationError
from .dsl.scenario import parse_text

CHUNK_ROWS = 65_536
BLOCK_BYTES = 1 << 23


def format_of(path: str, given: str | None) -> str:
    """Returns the table format of a file: as given, else from its extension (JSON Lines by
    default, and for standard input)."""
    if given:
        return given
    suffix = Path(path).suffix.lower()
    return {".parquet": "parquet", ".pq": "parquet", ".csv": "csv"}.get(suffix, "jsonl")


@dataclass
class EvaluatedChunk:
    """The outcome of one chunk: results per column, errors per row, where rows start."""

    first_row: int
    size: int
    values: dict[str, Any]
    errors: dict[int, ScenarioError | EvaluationError]  # row index in the chunk -> its error
    lines: list[int] | None = None  # JSON Lines: each row's line number
    # Rows whose scenario pins other readings than the run's: row index -> its output line.
    pinned: dict[int, str] = field(default_factory=dict)


class Runner:
    """Evaluates chunks of scenarios for one statute under one reading selection."""

    def __init__(
        self,
        statute: Statute,
        selected: Mapping[str, str],
        chosen: Mapping[str, str] | None = None,
    ) -> None:
        """`chosen` is the selection made outside the scenarios (`--reading`), which a row's
        pinned readings may agree with but not contradict; by default, all of `selected`."""
        self.statute = statute
        self.selected = dict(selected)
        self.chosen = dict(selected if chosen is None else chosen)
        self.used = {rid: self.selected[rid] for rid in statute.readings_used}
        self.engine = Engine(statute.ast, selected)
        self.other_fields_allowed = False  # an impact run reads one table for two encodings
        self.slow: np.ndarray = np.zeros(0, dtype=bool)

    def evaluate(
        self,
        table: pa.Table | pa.RecordBatch,
        first_row: int,
        rows: Any,
        refused: np.ndarray | None = None,
    ) -> EvaluatedChunk:
        """Returns the results of a chunk; `rows(i)` gives row i as (scenario, source) for the
        scalar path (or raises ScenarioError with the row's own error); `refused` marks rows
        the reader could not decode."""
        ast_ = self.statute.ast
        size = table.num_rows
        declared = [name for name in table.column_names if name in ast_.inputs]
        if len(declared) != len(table.column_names) and self.other_fields_allowed:
            table = table.select(declared)
        columns, slow = input_columns(ast_, self.engine, table)
        if refused is not None:
            slow |= refused
        slow |= check_bounds(ast_, self.engine, columns, size)
        results, deferred = self.engine.run(columns, size)
        slow |= deferred
        self.slow = slow
        values = result_values(ast_, self.engine, results, size)
        errors: dict[int, ScenarioError | EvaluationError] = {}
        pinned: dict[int, str] = {}
        slow_rows = np.flatnonzero(slow)
        if len(slow_rows):
            for name in ast_.result_names:
                values[name] = np.array(values[name], dtype=object)
            for row in slow_rows.tolist():
                outcome = self.scalar(rows, row)
                if isinstance(outcome, ScenarioError | EvaluationError):
                    errors[row] = outcome
                    for name in ast_.result_names:
                        values[name][row] = None
                    continue
                for name, cell in value_cells(ast_, outcome.values).items():
                    values[name][row] = cell
                if outcome.readings != self.used:
                    pinned[row] = json.dumps(outcome.to_json(), ensure_ascii=False) + "\n"
        return EvaluatedChunk(first_row, size, values, errors, pinned=pinned)

    def scalar(self, rows: Any, row: int) -> Result | ScenarioError | EvaluationError:
        """Returns one row's result by the scalar path (under the readings it pins, if any),
        or its error."""
        try:
            scenario, source = rows(row)
            return self.statute.evaluate(scenario, self.chosen, source=source)
        except (ScenarioError, EvaluationError) as error:
            return error


Task = tuple[pa.Table | pa.RecordBatch, int, Any, Any, list[int] | None]
"""A chunk to evaluate: (table, first row, row source, rows refused by the reader, lines)."""


def read_tasks(
    statute: ast.Statute, path: str, table_format: str, handle: IO[bytes] | None = None
) -> Iterator[Task]:
    """Yields each chunk of a population file to evaluate, in order: (table, first row, row
    source for the scalar path, rows the reader refused, line numbers). JSON Lines are read
    from `handle` when given (standard input, say), else from `path`."""
    source = "<stdin>" if path == "-" else path
    if table_format == "jsonl":
        if handle is None:
            with open(path, "rb") as opened:
                yield from read_tasks(statute, path, table_format, opened)
            return
        first = 0
        for table, lines, rows, refused in JsonLines(statute, handle, source).chunks():
            yield table, first, rows, refused, lines
            first += table.num_rows
        return
    first = 0
    text = statute if table_format == "csv" else None
    for batch in arrow_chunks(path, table_format, statute):
        yield batch, first, table_rows(batch, source, first, text), None, None
        first += batch.num_rows


def evaluate_in_order(
    runner: Runner, tasks: Iterator[Task], workers: int = 2
) -> Iterator[EvaluatedChunk]:
    """Yields the evaluated chunks in input order, evaluated on `workers` threads (numpy works
    without the interpreter's lock, so two chunks run at once on two cores), with at most a
    few chunks in memory at a time."""
    from collections import deque
    from concurrent.futures import ThreadPoolExecutor

    def evaluate(task: Task) -> EvaluatedChunk:
        table, first, rows, refused, lines = task
        chunk = runner.evaluate(table, first, rows, refused)
        chunk.lines = lines
        return chunk

    with ThreadPoolExecutor(max_workers=workers) as pool:
        pending: deque[Any] = deque()
        for task in tasks:
            pending.append(pool.submit(evaluate, task))
            if len(pending) > workers:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()


# ---- JSON Lines ---------------------------------------------------------------------------------
def _arrow_schema(statute: ast.Statute) -> pa.Schema:
    """Returns the Arrow schema JSON lines are read with: numbers as decimals read from their
    text (never through a binary float), shares and enum members as text."""
    types = {"bool": pa.bool_(), "count": pa.int64(), "share": pa.string(), "enum": pa.string()}
    return pa.schema(
        [(name, types.get(d.type.kind, pa.decimal128(38, 6))) for name, d in statute.inputs.items()]
    )


class JsonLines:
    """Chunks of a JSON Lines file as Arrow tables, read by Arrow's JSON reader.

    A line Arrow cannot read as it stands (a value of another type, an unknown or repeated
    field, an explicit null, anything malformed) is found by splitting the chunk in halves, and
    goes, as its own text, to the scalar path, which reads it exactly as `lextrace evaluate`
    would and names what is wrong.
    """

    def __init__(self, statute: ast.Statute, handle: IO[bytes], source: str) -> None:
        import pyarrow.json as pj

        self.statute = statute
        self.handle = handle
        self.source = source
        self.schema = _arrow_schema(statute)
        self.options = pj.ParseOptions(
            explicit_schema=self.schema, unexpected_field_behavior="error"
        )
        self.read_json = pj.read_json
        self.not_optional = {n for n, d in statute.inputs.items() if not d.optional}
        self.text_fields = [
            n for n, d in statute.inputs.items() if d.type.kind in ("enum", "share")
        ]

    def _blocks(self) -> Iterator[tuple[int, bytes]]:
        """Yields (number of the block's first line, block) for blocks of whole lines."""
        number = 1
        tail = b""
        while True:
            block = self.handle.read(BLOCK_BYTES)
            if not block:
                break
            block = tail + block
            cut = block.rfind(b"\n")
            if cut < 0:
                tail = block
                continue
            tail = block[cut + 1 :]
            yield number, block[: cut + 1]
            number += block.count(b"\n", 0, cut + 1)
        if tail:
            yield number, tail

    def chunks(self) -> Iterator[tuple[pa.Table, list[int], Any, np.ndarray]]:
        """Yields (table, line numbers, row source, rows for the scalar path) per block.

        The next block is parsed in a second thread while this one is evaluated (Arrow parses
        without holding the interpreter's lock)."""
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=1) as pool:
            pending = None
            for first, block in self._blocks():
                upcoming = pool.submit(self._block, first, block)
                if pending is not None:
                    chunk = pending.result()
                    if chunk is not None:
                        yield chunk
                pending = upcoming
            if pending is not None:
                chunk = pending.result()
                if chunk is not None:
                    yield chunk

    def _block(
        self, first: int, block: bytes
    ) -> tuple[pa.Table, list[int], Any, np.ndarray] | None:
        """Reads a block in one go when Arrow can, else line by line."""
        data = np.frombuffer(block, dtype=np.uint8)
        ends = np.flatnonzero(data == 10)
        if len(ends) == 0 or ends[-1] != len(data) - 1:
            ends = np.append(ends, len(data))
        starts = np.concatenate(([0], ends[:-1] + 1))
        # A JSON line normally starts with "{" and ends with "}"; any other line is checked for
        # being blank, and a block holding one that is not goes line by line.
        shaped = np.zeros(len(starts), dtype=bool)
        inside = (starts < len(data)) & (ends > starts)
        last = np.where(inside, ends - 1, 0)
        shaped[inside] = (data[starts[inside]] == ord("{")) & (data[last[inside]] == ord("}"))
        filled = shaped.copy()
        for index in np.flatnonzero(~shaped).tolist():
            filled[index] = bool(block[starts[index] : ends[index]].strip())
        irregular = bool((filled & ~shaped).any())
        numbers = (first + np.flatnonzero(filled)).tolist()
        starts, ends = starts[filled], ends[filled]
        if not numbers:
            return None
        spans = list(zip(numbers, starts.tolist(), ends.tolist(), strict=True))
        if not irregular and not self._required_null(block):
            table = self._read([block])
            if table is not None and table.num_rows == len(numbers):
                table = table.select(self.schema.names).cast(self.schema)
                rows = _Lines(block, spans)
                return table, numbers, self._rows(rows), np.zeros(len(numbers), dtype=bool)
        return self._table([(n, block[a:b]) for n, a, b in spans])

    def _required_null(self, text: bytes) -> bool:
        """True when some field that is not optional is given an explicit null."""
        at = text.find(b"null")
        while at >= 0:
            before = text.rfind(b":", 0, at)
            if before >= 0 and not text[before + 1 : at].strip():
                close = text.rfind(b'"', 0, before)
                open_ = text.rfind(b'"', 0, close)
                key = text[open_ + 1 : close].decode("utf-8", "replace")
                quoted = close > 0 and open_ >= 0 and not text[close + 1 : before].strip()
                if quoted and key in self.not_optional:
                    return True
            at = text.find(b"null", at + 4)
        return False

    def _rows(self, batch: Any) -> Any:
        def row(index: int) -> tuple[object, str]:
            number, raw = batch[index]
            where = f"{self.source}:{number}"
            try:
                text = raw.decode("utf-8").rstrip("\r")
            except UnicodeDecodeError:
                raise TableError(f"{self.source}:{number}: the line is not UTF-8 text") from None
            return parse_text(text, "json", where, first_line=number), where

        return row

    def _read(self, lines: list[bytes]) -> pa.Table | None:
        try:
            data = lines[0] if len(lines) == 1 else b"\n".join(lines)
            table = self.read_json(pa.BufferReader(data), parse_options=self.options)
            for name in self.text_fields:
                if name in table.column_names:
                    table.column(name).validate(full=True)  # text must be UTF-8
        except (pa.ArrowException, ValueError):
            return None
        return table

    def _readable(self, lines: list[bytes], start: int, found: list[tuple[int, pa.Table]]) -> None:
        """Reads lines[start:] pieces with Arrow, halving a piece that fails down to single
        lines; a line it cannot read is left out of `found` (the scalar path takes it)."""
        table = self._read(lines)
        if table is not None and table.num_rows == len(lines):
            found.append((start, table))
            return
        if len(lines) == 1:
            return
        half = len(lines) // 2
        self._readable(lines[:half], start, found)
        self._readable(lines[half:], start + half, found)

    def _table(self, batch: list[tuple[int, bytes]]) -> tuple[pa.Table, list[int], Any, np.ndarray]:
        # An explicit null is not an absent field (which takes its default): a line giving null
        # to a field that is not optional goes to the scalar path, which refuses it by name.
        texts = [line for _, line in batch]
        # Arrow reads objects only: any other line (a bare value, trailing text) is refused.
        plain = [
            i
            for i, line in enumerate(texts)
            if _object_shaped(line) and not (b"null" in line and self._required_null(line))
        ]
        pieces: list[tuple[int, pa.Table]] = []
        if plain:
            self._readable([texts[i] for i in plain], 0, pieces)
        schema = self.schema
        kept = np.zeros(len(batch), dtype=bool)
        order: list[int] = []
        tables = []
        for start, table in sorted(pieces, key=lambda piece: piece[0]):
            rows = plain[start : start + table.num_rows]
            order.extend(rows)
            tables.append(table.select(schema.names).cast(schema))
        kept[order] = True
        if not tables:  # no line could be read: a chunk of nulls, every row to the scalar path
            table = pa.table({f.name: pa.nulls(len(batch), f.type) for f in schema})
            return table, [n for n, _ in batch], self._rows(batch), ~kept
        read = pa.concat_tables(tables)
        # Row i of the chunk is row position[i] of `read`, or null when refused.
        position = np.full(len(batch), -1, dtype=np.int64)
        position[order] = np.arange(len(order))
        indices = pa.array(position, mask=position < 0)
        table = read.take(indices)
        refused = ~kept
        lines = [number for number, _ in batch]
        return table, lines, self._rows(batch), refused


def _object_shaped(line: bytes) -> bool:
    """True for a line that starts with "{" and ends with "}" (spaces aside)."""
    text = line.strip()
    return text.startswith(b"{") and text.endswith(b"}")


class _Lines:
    """The numbered lines of a block, sliced only when one is asked for."""

    def __init__(self, block: bytes, spans: list[tuple[int, int, int]]) -> None:
        self.block = block
        self.spans = spans

    def __getitem__(self, index: int) -> tuple[int, bytes]:
        number, start, end = self.spans[index]
        return number, self.block[start:end]


# ---- Arrow files --------------------------------------------------------------------------------
def arrow_chunks(
    path: str, table_format: str, statute: ast.Statute, size: int = CHUNK_ROWS
) -> Iterator[pa.RecordBatch]:
    """Yields record batches of a Parquet or CSV file, read in chunks. CSV cells are read as
    text and converted exactly by the declared types (an empty cell is an absent field)."""
    if table_format == "parquet":
        import pyarrow.parquet as pq

        schema = pq.read_schema(path)
        # Text columns (enum members, shares) come as dictionaries: each distinct text is then
        # read once per chunk, and Parquet usually stores them so already.
        texts = [
            field.name
            for field in schema
            if field.name in statute.inputs
            and (pa.types.is_string(field.type) or pa.types.is_large_string(field.type))
        ]
        # One thread per batch reads faster here than Arrow's pool on small batches.
        yield from pq.ParquetFile(path, read_dictionary=texts).iter_batches(
            batch_size=size, use_threads=False
        )
        return
    import pyarrow.csv as pcsv

    reader = pcsv.open_csv(
        path,
        read_options=pcsv.ReadOptions(block_size=1 << 23),
        convert_options=pcsv.ConvertOptions(
            strings_can_be_null=True,
            column_types={name: pa.string() for name in statute.inputs},
        ),
    )
    yield from reader


def table_rows(
    batch: pa.RecordBatch, source: str, first_row: int, statute: ast.Statute | None = None
) -> Any:
    """Returns the scalar-path reader of a batch's rows (CSV text typed by the declarations
    when `statute` is given)."""

    def row(index: int) -> tuple[object, str]:
        values = batch.slice(index, 1).to_pylist()[0]
        scenario = scalar_row(values) if statute is None else text_row(statute, values)
        return scenario, f"{source}: row {first_row + index + 1}"

    return row
