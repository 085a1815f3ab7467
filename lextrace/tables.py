"""Batches at scale: scenarios streamed in chunks from JSON Lines, Parquet or CSV, evaluated by
the columnar evaluator, rows it cannot take evaluated one by one, results streamed out.

Memory stays bounded by the chunk size whatever the file size. Every row comes out in input
order, either with its results (the same bytes as `lextrace evaluate --format json` without the
trace, for JSON Lines) or with its error, named as the scalar path names it.
"""

from __future__ import annotations

import contextlib
import csv
import functools
import json
import os
import re
import stat
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, NamedTuple

import numpy as np
import pyarrow as pa

from .api import Result, Statute, located
from .batch_lines import (
    HINT_BYTES,
    blank_line,
    blank_row,
    json_array_hint,
    kept_of_line,
    not_utf8,
    wrong_width,
)
from .columns import (
    TableError,
    arrow_array,
    check_bounds,
    floats_as_text,
    input_columns,
    result_values,
    scalar_row,
    text_row,
    value_cells,
)
from .dsl import ast
from .dsl.columnar import Chunk, Engine, Extremes, Unsupported, keep_freed_memory
from .dsl.errors import ScenarioError
from .dsl.evaluator import EvaluationError
from .dsl.reserved import RESERVED_KEYS
from .dsl.scenario import ExactNumber, parse_text
from .dsl.values import cents_string
from .json_compiled import CompiledLines, compiled_reader

if TYPE_CHECKING:
    from .dsl.kernel import CompiledEngine

CHUNK_ROWS = 65_536
BLOCK_BYTES = 1 << 23
_SLACK_BYTES = 1 << 16  # room to finish a block's last line in its own buffer
PARSERS = 2  # threads parsing blocks of JSON Lines
# Blocks of JSON Lines are evaluated in chunks of at least this many rows: half a Parquet chunk,
# as the output lines of more rows at once are slower to join.
JOINED_ROWS = CHUNK_ROWS // 2


def arrow_uses_kept_memory() -> bool:
    """Keeps freed memory for reuse (`keep_freed_memory()`) and, when the C allocator agreed,
    has Arrow allocate from it too; returns True when both hold.

    Arrow's own allocator hands the pages of a freed chunk back to the system, and reading and
    writing the next chunk faults them in again; from the C heap kept above, each chunk's buffers
    reuse the last one's. The setting is the whole process's, as the allocator's is, so only the
    commands that stream a file through the columnar evaluator (`batch`, `impact`) ask for it;
    a pool chosen in `ARROW_DEFAULT_MEMORY_POOL` is left as chosen."""
    if not keep_freed_memory() or os.environ.get("ARROW_DEFAULT_MEMORY_POOL"):
        return False
    pa.set_memory_pool(pa.system_memory_pool())
    return True


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
    lines: Sequence[int] | None = None  # JSON Lines: each row's line number
    kept: dict[str, pa.Array] = field(default_factory=dict)  # the fields carried through
    kept_json: bool = False  # kept values are JSON texts (JSON Lines input), else Arrow values
    # Rows whose scenario pins other readings than the run's: row index -> its output line.
    pinned: dict[int, str] = field(default_factory=dict)
    # The input columns of binary floats read by their shortest decimals (--floats shortest).
    from_floats: tuple[str, ...] = ()
    # With --trace: each row's derivation as JSON text (row index -> text), for a table output.
    traces: dict[int, str] | None = None


class Runner:
    """Evaluates chunks of scenarios for one statute under one reading selection."""

    def __init__(
        self,
        statute: Statute,
        selected: Mapping[str, str],
        chosen: Mapping[str, str] | None = None,
        compiled: bool = False,
    ) -> None:
        """`chosen` is the selection made outside the scenarios (`--reading`), which a row's
        pinned readings may agree with but not contradict; by default, all of `selected`.
        `compiled` evaluates the rules and bounds with the compiled kernel (dsl/kernel.py,
        needs numba) when the encoding translates, else with the numpy engine."""
        self.statute = statute
        self.selected = dict(selected)
        self.chosen = dict(selected if chosen is None else chosen)
        self.used = {rid: self.selected[rid] for rid in statute.readings_used}
        # An encoding the columnar evaluator does not take (lists of records) has every row
        # evaluated by the scalar path, which gives the same results one scenario at a time.
        self.engine: Engine | None
        try:
            self.engine = Engine(statute.ast, selected)
        except Unsupported:
            self.engine = None
        self.compiled: CompiledEngine | None = None
        if compiled and self.engine is not None:
            from .dsl.kernel import CompiledEngine  # only when asked: it loads numba

            with contextlib.suppress(Unsupported):  # the numpy engine evaluates it instead
                self.compiled = CompiledEngine(self.engine)
        self.other_fields_allowed = False  # an impact run reads one table for two encodings
        self.slow: np.ndarray = np.zeros(0, dtype=bool)
        # How the scalar path reads a binary float (dsl/scenario.py): "refuse" or "shortest".
        self.floats = "refuse"
        # Every row traced: each goes to the scalar path, which alone derives a trace.
        self.trace = False
        # Set when the results go to table columns (Parquet, CSV, Arrow): money then has at
        # most 38 digits (decimal(38, 2)), and a row with more is that row's error.
        self.money_digits: int | None = None

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
        if self.engine is None or self.trace:
            slow = np.ones(size, dtype=bool)
            values: dict[str, Any] = {name: [None] * size for name in ast_.result_names}
        else:
            declared = [name for name in table.column_names if name in ast_.inputs]
            if len(declared) != len(table.column_names) and self.other_fields_allowed:
                table = table.select(declared)
            extremes: Extremes = {}
            columns, slow = input_columns(ast_, self.engine, table, extremes)
            if refused is not None:
                slow |= refused
            if self.compiled is not None:  # the bounds and the rules in one compiled loop
                results, deferred = self.compiled.run(columns, size)
            else:
                # One chunk for the bounds and the run: each column is measured once.
                chunk = Chunk(self.engine, columns, size, extremes)
                slow |= check_bounds(ast_, self.engine, columns, size, chunk)
                results, deferred = self.engine.run(columns, size, chunk)
            slow |= deferred
            values = result_values(ast_, self.engine, results, size)
        self.slow = slow
        errors: dict[int, ScenarioError | EvaluationError] = {}
        pinned: dict[int, str] = {}
        traces: dict[int, str] | None = {} if self.trace else None
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
                cells = self.cells(outcome)
                beyond = self.beyond_columns(cells, rows, row)
                if beyond is not None:
                    errors[row] = beyond
                    for name in ast_.result_names:
                        values[name][row] = None
                    continue
                for name, cell in cells.items():
                    values[name][row] = cell
                if traces is not None and outcome.trace is not None:
                    traces[row] = json.dumps(outcome.trace.to_json(), ensure_ascii=False)
                if outcome.readings != self.used or traces is not None:
                    pinned[row] = outcome.to_json_text() + "\n"
        return EvaluatedChunk(first_row, size, values, errors, pinned=pinned, traces=traces)

    def beyond_columns(self, cells: dict[str, object], rows: Any, row: int) -> BeyondColumn | None:
        """Returns the error of a row with an amount of more digits than a money column holds
        (only when the results go to table columns), else None."""
        if self.money_digits is None:
            return None
        limit = 10**self.money_digits
        for name in self.statute.ast.result_names:
            cents = cells.get(name)
            kind = self.statute.ast.definitions[name].type.kind
            if kind == "money" and isinstance(cents, int) and abs(cents) >= limit:
                _, source = rows(row)
                amount = cents_string(Fraction(cents, 100))
                return BeyondColumn(
                    f"{source}: result '{name}' is {amount}, more than the "
                    f"{self.money_digits} digits of a decimal({self.money_digits}, 2) column: "
                    "write JSON Lines (or evaluate the scenario alone) for its exact value"
                )
        return None

    @functools.cached_property
    def own_fields(self) -> frozenset[str]:
        """The keys a scenario of this encoding may give: its inputs, the reserved keys and
        its periods."""
        periods = self.statute.ast.periods
        return frozenset(
            {*self.statute.ast.inputs, *RESERVED_KEYS, *([periods.name] if periods else [])}
        )

    def cells(self, outcome: Result) -> dict[str, object]:
        """Returns one scalar result as output cells (cents for money)."""
        return value_cells(self.statute.ast, outcome.values)

    def scalar(
        self, rows: Any, row: int, trace: bool | None = None
    ) -> Result | ScenarioError | EvaluationError:
        """Returns one row's result by the scalar path (under the readings it pins, if any),
        traced when `trace` (else as the runner traces), or its error."""
        try:
            scenario, source = rows(row)
            if self.other_fields_allowed and isinstance(scenario, Mapping):
                # An impact run reads one population for two versions: a field only the other
                # version declares is left out here, as its column is on the columnar path.
                scenario = {k: v for k, v in scenario.items() if k in self.own_fields}
            # A scenario of periods is evaluated period by period by `evaluate`, not here:
            # the flat validation refuses it at its field.
            inputs = self.statute.validate(scenario, source, self.floats)
            selected = self.statute.readings_for(scenario, self.chosen, source)
            traced = self.trace if trace is None else trace
            try:
                return self.statute.evaluate_inputs(inputs, selected, traced)
            except ScenarioError as error:  # refused while evaluated: told from its row
                return located(error, source)
        except (ScenarioError, EvaluationError) as error:
            return error


class BeyondColumn(EvaluationError):
    """A row whose result has more digits than its output column holds: the row's error, in
    place, rather than a table that cannot be written."""


class Task(NamedTuple):
    """A chunk to evaluate: its table of declared inputs, its first row, the reader of a row
    for the scalar path, the rows the reader could not take, line numbers (JSON Lines), and
    the fields carried through (JSON texts when `kept_json`, else Arrow values)."""

    table: pa.Table | pa.RecordBatch
    first: int
    rows: Any
    refused: np.ndarray | None
    lines: Sequence[int] | None
    kept: dict[str, pa.Array]
    kept_json: bool = False
    from_floats: tuple[str, ...] = ()


def read_tasks(
    statute: ast.Statute,
    path: str,
    table_format: str,
    handle: IO[bytes] | None = None,
    keep: Sequence[str] = (),
    floats: str = "refuse",
) -> Iterator[Task]:
    """Yields each chunk of a population file to evaluate, in order, one row per line (JSON
    Lines: blank lines and lines that are not UTF-8 included) or per row (a CSV row of the
    wrong width included). JSON Lines are read from `handle` when given (standard input, say),
    else from `path`. The fields of `keep` are carried through."""
    source = "<stdin>" if path == "-" else path
    if table_format == "jsonl":
        if handle is None:
            with open(path, "rb") as opened:
                yield from read_tasks(statute, path, table_format, opened, keep)
            return
        first = 0
        reader = JsonLines(statute, handle, source, keep)
        for table, lines, rows, refused, kept in _joined_blocks(reader.chunks()):
            yield Task(table, first, rows, refused, lines, kept, True)
            first += table.num_rows
        return
    first = 0
    text = statute
    carried = [name for name in keep if name not in statute.inputs]
    for batch, errors in arrow_chunks(path, table_format, statute, keep=keep):
        kept = {
            name: batch.column(name)
            if name in batch.schema.names
            else pa.nulls(batch.num_rows, pa.string())
            for name in keep
        }
        from_floats: list[str] = []
        if floats == "shortest":
            batch, from_floats = floats_as_text(statute, batch)
        rows = table_rows(batch, source, first, text, errors, carried, from_floats)
        if carried:
            batch = batch.select([n for n in batch.schema.names if n not in carried])
        refused = None
        if errors:
            refused = np.zeros(batch.num_rows, dtype=bool)
            refused[list(errors)] = True
        yield Task(batch, first, rows, refused, None, kept, False, tuple(from_floats))
        first += batch.num_rows


Parsed = tuple[pa.Table, Sequence[int], Any, np.ndarray, dict[str, pa.Array]]
"""A parsed block of JSON Lines: (table, line numbers, row source, refused rows, kept fields)."""


def _joined_blocks(parsed: Iterator[Parsed]) -> Iterator[Parsed]:
    """Yields consecutive parsed blocks joined into chunks of at least JOINED_ROWS rows (the
    last one smaller): a block of JSON Lines holds a few thousand rows, and each chunk evaluated
    has a fixed cost (at 10,000 rows a chunk, more than half the evaluation's time)."""
    size = JOINED_ROWS
    pending: list[Parsed] = []
    held = 0
    for block in parsed:  # every block's table has the declared schema (`JsonLines._declared`)
        pending.append(block)
        held += block[0].num_rows
        if held >= size:
            yield _parsed_together(pending)
            pending, held = [], 0
    if pending:
        yield _parsed_together(pending)


def _parsed_together(blocks: list[Parsed]) -> Parsed:
    """Returns parsed blocks as one: their tables, line numbers, rows and kept fields end to
    end."""
    if len(blocks) == 1:
        return blocks[0]
    tables, numbers, sources, refused, kept = zip(*blocks, strict=True)
    starts = np.cumsum([0, *(table.num_rows for table in tables)])

    def row(index: int) -> tuple[object, str]:
        block = int(np.searchsorted(starts, index, side="right")) - 1
        return sources[block](index - int(starts[block]))

    joined_kept = {name: pa.concat_arrays([k[name] for k in kept]) for name in kept[0]}
    lines = [number for block_numbers in numbers for number in block_numbers]
    return pa.concat_tables(tables), lines, row, np.concatenate(refused), joined_kept


def evaluate_in_order(
    runner: Runner, tasks: Iterator[Task], workers: int = 2
) -> Iterator[EvaluatedChunk]:
    """Yields the evaluated chunks in input order, evaluated on `workers` threads (numpy works
    without the interpreter's lock, so two chunks run at once on two cores), with at most a
    few chunks in memory at a time."""
    from collections import deque
    from concurrent.futures import ThreadPoolExecutor

    def evaluate(task: Task) -> EvaluatedChunk:
        chunk = runner.evaluate(task.table, task.first, task.rows, task.refused)
        chunk.lines, chunk.kept, chunk.kept_json = task.lines, task.kept, task.kept_json
        chunk.from_floats = task.from_floats
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
        [
            (name, types.get(d.type.kind, pa.decimal128(38, 6)))
            for name, d in statute.inputs.items()
            if d.type.kind != "list"  # a line giving a list goes to the scalar path
        ]
    )


class JsonLines:
    """Chunks of a JSON Lines file as Arrow tables, read by Arrow's JSON reader, one row per
    line: "a\\nb" and "a\\nb\\n" hold two lines, "a\\n\\n" two (the second blank).

    A line Arrow cannot read as it stands (a value of another type, an unknown or repeated
    field, an explicit null, anything malformed, a blank line, bytes that are not UTF-8) is
    found by splitting the chunk in halves, and goes, as its own bytes, to the scalar path,
    which reads it exactly as `lextrace evaluate` would and names what is wrong.
    """

    def __init__(
        self, statute: ast.Statute, handle: IO[bytes], source: str, keep: Sequence[str] = ()
    ) -> None:
        import pyarrow.json as pj

        self.statute = statute
        self.handle = handle
        self.source = source
        self.keep = list(keep)
        self.carried = {name for name in keep if name not in statute.inputs}
        self.schema = _arrow_schema(statute)
        self.scalar_keys = tuple(
            f'"{name}"'.encode()
            for name in (
                *(d.name for d in statute.list_inputs),
                *((statute.periods.name,) if statute.periods is not None else ()),
            )
        )
        # A field carried through may hold any JSON value: Arrow infers it (and any unknown
        # field, which `_read` then refuses as "error" would).
        self.options = pj.ParseOptions(
            explicit_schema=self.schema,
            unexpected_field_behavior="infer" if self.carried else "error",
        )
        self.allowed = set(self.schema.names) | self.carried
        self.read_json = pj.read_json
        self.read_options = pj.ReadOptions
        self.not_optional = {n for n, d in statute.inputs.items() if not d.optional}
        self.text_fields = [
            n for n, d in statute.inputs.items() if d.type.kind in ("enum", "share")
        ]
        self.size = _size(handle)
        self.compiled = self._compiled(self.size)

    def _compiled(self, size: int | None) -> CompiledLines | None:
        """Returns the compiled reader for `size` bytes of input (see `compiled_reader`)."""
        try:
            return compiled_reader(self.schema, self.not_optional, size, bool(self.keep))
        except ValueError as error:
            raise TableError(str(error)) from None

    def _blocks(self) -> Iterator[bytearray]:
        """Yields blocks of whole lines (the last one as the file ends), each read into its own
        buffer with room to finish its last line: reading on to the line's end then adds to
        the buffer without copying it (CPython keeps a bytearray's allocation when it shrinks
        by less than half)."""
        started = False
        read = 0
        while True:
            block = bytearray(BLOCK_BYTES + _SLACK_BYTES)
            with memoryview(block) as view:
                size = self.handle.readinto(view[:BLOCK_BYTES])
            del block[size:]
            if not size:
                break
            if not started:
                started = True
                hint = json_array_hint(bytes(block[:HINT_BYTES]))
                if hint is not None:
                    raise TableError(f"{self.source}: {hint}")
            if block[-1] != 10:  # "\n": the last line goes on past the block
                block += self.handle.readline()
            if self.size is None and self.compiled is None:  # standard input: large enough yet?
                read += len(block)
                self.compiled = self._compiled(read)
            yield block

    def chunks(
        self,
    ) -> Iterator[tuple[pa.Table, Sequence[int], Any, np.ndarray, dict[str, pa.Array]]]:
        """Yields (table, line numbers, row source, rows for the scalar path, kept fields) per
        block.

        The next blocks are parsed in two more threads while this one is evaluated (Arrow
        parses without holding the interpreter's lock, one block per thread: parsing is most
        of the work)."""
        from concurrent.futures import Future, ThreadPoolExecutor

        first = 1

        def numbered(parsed: Any) -> tuple[pa.Table, Sequence[int], Any, np.ndarray, Any]:
            # Lines are numbered in order here; a block is parsed before its first line's number
            # is known (the blocks before it are still being parsed).
            nonlocal first
            table, lines, rows, refused, kept = parsed
            lines.first = first
            first += len(lines)
            return table, lines.numbers(), rows, refused, kept

        with ThreadPoolExecutor(max_workers=PARSERS) as pool:
            pending: deque[Future[Any]] = deque()
            for block in self._blocks():
                pending.append(pool.submit(self._block, block))
                if len(pending) > PARSERS:
                    yield numbered(pending.popleft().result())
            while pending:
                yield numbered(pending.popleft().result())

    def _block(
        self, block: bytearray
    ) -> tuple[pa.Table, _Lines, Any, np.ndarray, dict[str, pa.Array]]:
        """Reads a block in one go when Arrow can, else line by line; its lines are numbered
        once the blocks before it are counted (`chunks`)."""
        read = None if self.compiled is None else self.compiled.read(block)
        if read is not None:  # every line of the plain form
            lines = _Lines(block, read.starts, read.ends)
            return read.table, lines, self._rows(lines), read.nulled, {}
        data = np.frombuffer(block, dtype=np.uint8)
        ends = np.flatnonzero(data == 10)
        if len(ends) == 0 or ends[-1] != len(data) - 1:
            ends = np.append(ends, len(data))
        starts = np.concatenate(([0], ends[:-1] + 1))
        # A JSON line normally starts with "{" and ends with "}"; any other line is checked for
        # being blank, and a block holding one that is not goes line by line.
        shaped = np.zeros(len(starts), dtype=bool)
        inside = ends > starts
        last = np.where(inside, ends - 1, 0)
        shaped[inside] = (data[starts[inside]] == ord("{")) & (data[last[inside]] == ord("}"))
        filled = shaped.copy()
        for index in np.flatnonzero(~shaped).tolist():
            filled[index] = bool(block[starts[index] : ends[index]].strip())
        irregular = bool((filled & ~shaped).any())
        lines = _Lines(block, starts, ends)
        undecodable = _undecodable_lines(block, starts, ends)
        readable = filled if undecodable is None else filled & ~undecodable
        if not irregular:
            if undecodable is None:
                table = self._read([block])  # Arrow leaves blank lines out
            else:
                pieces = zip(starts[readable].tolist(), ends[readable].tolist(), strict=True)
                table = self._read([block[start:end] for start, end in pieces])
            if table is not None and table.num_rows == int(readable.sum()):
                table = self._declared(table)
                refused = ~readable
                if self._reads_null_where_not_optional(table):
                    # An explicit null is not an absent field (which takes its default): such
                    # a line goes to the scalar path, which refuses it by name.
                    refused |= self._required_nulls(block, starts) & readable
                if not readable.all():
                    table = _spread(table, readable)
                return table, lines, self._rows(lines), refused, self._kept(lines, readable)
        return self._table(lines, undecodable)

    def _kept(self, lines: _Lines, read: np.ndarray) -> dict[str, pa.Array]:
        """Returns the kept fields of each line as JSON text (null when absent); `read` marks
        the lines Arrow read, known to be valid JSON."""
        if not self.keep:
            return {}
        block, ends = lines.block, lines.ends.astype(np.int64)
        data = np.frombuffer(block, dtype=np.uint8)
        # In valid JSON an unescaped `"name"` followed by a colon is that member's key, and
        # with one "{" on the line every key is at the top level: such lines are searched in
        # the whole block at once, any other line member by member.
        braces = _per_line(data == ord("{"), ends)
        escapes = _per_line(data == ord("\\"), ends)
        quick = read & (braces == 1) & (escapes == 0)
        columns = {}
        for name in self.keep:
            values = np.full(len(lines), None, dtype=object)
            key = re.compile(re.escape(json.dumps(name).encode()) + rb"[ \t]*:[ \t]*")
            found = [(m.start(), m.end()) for m in key.finditer(block)]
            if found:
                at = np.array([start for start, _ in found], dtype=np.int64)
                line = np.searchsorted(ends, at)
                line, first = np.unique(line, return_index=True)  # the first of repeats
                for index, hit in zip(line.tolist(), first.tolist(), strict=True):
                    if not quick[index]:
                        continue
                    match = _SCALAR.match(block, found[hit][1], int(ends[index]))
                    if match is None:  # an object or array: member by member below
                        quick[index] = False
                        continue
                    values[index] = match.group().decode("utf-8", "replace")
            columns[name] = values
        for index in np.flatnonzero(~quick).tolist():
            for name, value in zip(
                self.keep, kept_of_line(lines[index][1], self.keep), strict=True
            ):
                columns[name][index] = value
        return {
            name: pa.array(values.tolist(), type=pa.string()) for name, values in columns.items()
        }

    def _reads_null_where_not_optional(self, table: pa.Table) -> bool:
        """True when a field that is not optional holds a null in the table read: only then
        may a line give it an explicit null (an absent field reads as null too), which the
        text of the block is then searched for."""
        return any(
            table.column(name).null_count
            for name in table.column_names
            if name in self.not_optional
        )

    def _declared(self, table: pa.Table) -> pa.Table:
        """Returns the table read with the declared columns, in order, of the declared types
        (Arrow's reader already gives them so, but for fields it inferred)."""
        table = table.select(self.schema.names)
        return table if table.schema.equals(self.schema) else table.cast(self.schema)

    def _required_nulls(self, block: bytearray, starts: np.ndarray) -> np.ndarray:
        """Returns the lines of a block that give null to a field that is not optional."""
        found = np.zeros(len(starts), dtype=bool)
        for at in _null_positions(block).tolist():
            if not found[line := int(np.searchsorted(starts, at, side="right")) - 1]:
                found[line] = self._gives_null(block, at)
        return found

    def _required_null(self, text: bytes | bytearray) -> bool:
        """True when some field that is not optional is given an explicit null."""
        return any(self._gives_null(text, at) for at in _null_positions(text).tolist())

    def _gives_null(self, text: bytes | bytearray, at: int) -> bool:
        """True when the `null` at `at` is the value of a member that is not optional."""
        before = text.rfind(b":", 0, at)
        if before < 0 or text[before + 1 : at].strip():
            return False
        close = text.rfind(b'"', 0, before)
        open_ = text.rfind(b'"', 0, close)
        if close <= 0 or open_ < 0 or text[close + 1 : before].strip():
            return False
        # The opening quote is the first one before the closing quote that is not escaped.
        while open_ > 0 and _escaped(text, open_):
            open_ = text.rfind(b'"', 0, open_)
        if open_ < 0:
            return True  # not a member as JSON has it: the scalar path reads the line
        key = bytes(text[open_ : close + 1])
        try:
            name = json.loads(key) if b"\\" in key else key[1:-1].decode("utf-8")
        except ValueError:
            return True
        return name in self.not_optional

    def _rows(self, batch: Any) -> Any:
        carried = self.carried

        def row(index: int) -> tuple[object, str]:
            number, raw = batch[index]
            where = f"{self.source}:{number}"
            if not raw.strip():
                raise blank_line(where)
            try:
                text = raw.decode("utf-8").rstrip("\r")
            except UnicodeDecodeError as error:
                raise not_utf8(where, error) from None
            scenario = parse_text(text, "json", where, first_line=number)
            if carried and isinstance(scenario, dict):
                scenario = {k: v for k, v in scenario.items() if k not in carried}
            return scenario, where

        return row

    def _read(self, lines: list[bytes]) -> pa.Table | None:
        try:
            data = lines[0] if len(lines) == 1 else b"\n".join(lines)
            # One block of Arrow's for all the lines, read on this thread: one chunk per column,
            # and less work than Arrow's pool spends on blocks of a megabyte.
            options = self.read_options(block_size=min(len(data) + 1, 1 << 30), use_threads=False)
            table = self.read_json(
                pa.BufferReader(data), read_options=options, parse_options=self.options
            )
            for name in self.text_fields:
                if name in table.column_names:
                    table.column(name).validate(full=True)  # text must be UTF-8
        except (pa.ArrowException, ValueError):
            return None
        if self.carried and not self.allowed.issuperset(table.column_names):
            return None  # a field neither declared nor kept: the scalar path names it
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

    def _table(
        self, lines: _Lines, undecodable: np.ndarray | None = None
    ) -> tuple[pa.Table, _Lines, Any, np.ndarray, dict[str, pa.Array]]:
        # An explicit null is not an absent field (which takes its default): a line giving null
        # to a field that is not optional goes to the scalar path, which refuses it by name.
        texts = [lines[index][1] for index in range(len(lines))]
        # Arrow reads objects only: any other line (a bare value, trailing text, a blank line)
        # is refused.
        # A line that gives a list (or periods) is read by the scalar path too (see Runner).
        scalar_keys = self.scalar_keys
        plain = [
            i
            for i, line in enumerate(texts)
            if _object_shaped(line)
            and not (b"null" in line and self._required_null(line))
            and not (undecodable is not None and undecodable[i])
            and not (scalar_keys and any(key in line for key in scalar_keys))
        ]
        pieces: list[tuple[int, pa.Table]] = []
        if plain:
            self._readable([texts[i] for i in plain], 0, pieces)
        schema = self.schema
        kept = np.zeros(len(texts), dtype=bool)
        order: list[int] = []
        tables = []
        for start, table in sorted(pieces, key=lambda piece: piece[0]):
            rows = plain[start : start + table.num_rows]
            order.extend(rows)
            tables.append(self._declared(table))
        kept[order] = True
        carried = self._kept(lines, kept)
        if not tables:  # no line could be read: a chunk of nulls, every row to the scalar path
            table = pa.table({f.name: pa.nulls(len(texts), f.type) for f in schema})
            return table, lines, self._rows(lines), ~kept, carried
        table = _spread(pa.concat_tables(tables), kept)
        return table, lines, self._rows(lines), ~kept, carried


def _size(handle: IO[bytes]) -> int | None:
    """Returns the size in bytes of a regular file's contents from where it is read, else
    None (standard input, a pipe)."""
    try:
        status = os.fstat(handle.fileno())
        at = handle.tell()
    except (OSError, AttributeError, ValueError):
        return None
    return status.st_size - at if stat.S_ISREG(status.st_mode) else None


def _undecodable_lines(
    block: bytes | bytearray, starts: np.ndarray, ends: np.ndarray
) -> np.ndarray | None:
    """Returns the lines holding bytes that are not UTF-8, or None when the block has none (one
    check of the whole block by Arrow's validator, in the usual case)."""
    if _utf8(block):
        return None
    try:
        block.decode("utf-8")
    except UnicodeDecodeError as error:
        first = int(np.searchsorted(ends, error.start))
    else:
        return None
    bad = np.zeros(len(starts), dtype=bool)
    for index in range(first, len(starts)):
        try:
            block[int(starts[index]) : int(ends[index])].decode("utf-8")
        except UnicodeDecodeError:
            bad[index] = True
    return bad


def _utf8(block: bytes | bytearray) -> bool:
    """True when the bytes are UTF-8, as Python's decoder reads it (no surrogates, no overlong
    forms), checked by Arrow without a copy or the interpreter's lock."""
    offsets = pa.py_buffer(np.array([0, len(block)], dtype=np.int64))
    text = pa.Array.from_buffers(pa.large_string(), 1, [None, offsets, pa.py_buffer(block)])
    try:
        text.validate(full=True)
    except pa.ArrowInvalid:
        return False
    return True


# A JSON value other than an object or array, on a line known to be valid JSON.
_SCALAR = re.compile(rb'"[^"\\]*"|-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?|true|false|null')


def _per_line(marks: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Returns how many marked bytes each line (ending before `ends`) holds."""
    return np.bincount(np.searchsorted(ends, np.flatnonzero(marks)), minlength=len(ends))


def _spread(table: pa.Table, present: np.ndarray) -> pa.Table:
    """Returns the table with a row of nulls inserted wherever `present` is False (its rows
    go, in order, where it is True)."""
    position = np.full(len(present), -1, dtype=np.int64)
    position[present] = np.arange(int(present.sum()))
    return table.take(arrow_array(position, position < 0))


def _object_shaped(line: bytes) -> bool:
    """True for a line that starts with "{" and ends with "}" (spaces aside)."""
    text = line.strip()
    return text.startswith(b"{") and text.endswith(b"}")


_NULL_WORD = int.from_bytes(b"null", "little")


def _escaped(text: bytes | bytearray, at: int) -> bool:
    """True when the character at `at` follows an odd number of backslashes."""
    count = 0
    while at - count - 1 >= 0 and text[at - count - 1] == 0x5C:
        count += 1
    return count % 2 == 1


def _null_positions(text: bytes | bytearray) -> np.ndarray:
    """Returns where `null` starts in the text, in order: four searches of aligned 4-byte
    words in numpy (without the interpreter's lock), one per offset."""
    found = []
    for offset in range(4):
        count = (len(text) - offset) // 4
        if count > 0:
            words = np.frombuffer(text, dtype="<u4", count=count, offset=offset)
            found.append(np.flatnonzero(words == _NULL_WORD) * 4 + offset)
    return np.sort(np.concatenate(found)) if found else np.zeros(0, dtype=np.int64)


class _Lines:
    """The lines of a block, sliced only when one is asked for; numbered from `first` (set
    once the lines of the blocks before are counted)."""

    def __init__(self, block: bytearray, starts: np.ndarray, ends: np.ndarray) -> None:
        self.block = block
        self.starts = starts
        self.ends = ends
        self.first = 1

    def __len__(self) -> int:
        return len(self.starts)

    def __getitem__(self, index: int) -> tuple[int, bytes]:
        start, end = int(self.starts[index]), int(self.ends[index])
        return self.first + index, bytes(self.block[start:end])

    def numbers(self) -> range:
        """Returns the number of each line in the file."""
        return range(self.first, self.first + len(self))


# ---- Arrow files --------------------------------------------------------------------------------
RowErrors = dict[int, ScenarioError]
"""The rows of a batch the reader could not take (index in the batch -> the row's error)."""


def arrow_chunks(
    path: str,
    table_format: str,
    statute: ast.Statute,
    size: int = CHUNK_ROWS,
    keep: Sequence[str] = (),
) -> Iterator[tuple[pa.RecordBatch, RowErrors]]:
    """Yields record batches of a Parquet or CSV file, read in chunks, each with the rows the
    reader could not take: cells that are not UTF-8; for CSV, rows of the wrong width (in their
    place, as rows of nulls) and blank rows. CSV cells are read as text and converted exactly by
    the declared types (an empty cell is an absent field); kept columns stay text as given."""
    source = path
    if table_format == "parquet":
        import pyarrow.parquet as pq

        schema = pq.read_schema(path)
        # Text columns of few values (enum members, shares) come as dictionaries: each distinct
        # text is then read once per chunk, and Parquet usually stores them so already. Amounts
        # as text are mostly distinct: Arrow's own cast reads them faster undecoded.
        texts = [
            field.name
            for field in schema
            if field.name in statute.inputs
            and statute.inputs[field.name].type.kind in ("enum", "share", "bool")
            and (pa.types.is_string(field.type) or pa.types.is_large_string(field.type))
        ]
        # Arrow's pool decodes the columns of a batch at once (the decimals' decoding is most
        # of the reading): on two cores, about half the time of one thread.
        batches = pq.ParquetFile(path, read_dictionary=texts).iter_batches(
            batch_size=size, use_threads=True
        )
        first = 0
        for batch in _coalesced(batches, size):
            batch, errors = _undecodable(batch, source, first)
            yield batch, errors
            first += batch.num_rows
        return
    yield from _csv_chunks(path, statute, keep)


def _coalesced(batches: Iterator[pa.RecordBatch], size: int) -> Iterator[pa.RecordBatch]:
    """Yields the rows of consecutive batches, those of fewer than `size / 2` rows joined into
    batches of `size` rows (the last one smaller).

    A Parquet reader gives no batch across row groups when it reads columns as dictionaries
    (each row group has its own), so a file written in small row groups (by a streaming writer,
    say) would give as many small chunks, each with a chunk's fixed cost: twice the time of the
    same rows in one row group, for 8,192-row groups."""
    pending: list[pa.RecordBatch] = []
    held = 0
    for batch in batches:
        if not pending and 2 * batch.num_rows >= size:  # large enough: no copy
            yield batch
            continue
        pending.append(batch)
        held += batch.num_rows
        while held >= size:
            joined = _joined(pending)
            yield joined.slice(0, size)
            rest = joined.slice(size)
            pending, held = ([rest] if rest.num_rows else []), rest.num_rows
    if held:
        yield _joined(pending)


def _joined(batches: list[pa.RecordBatch]) -> pa.RecordBatch:
    """Returns consecutive batches of one schema as one batch (dictionaries unified)."""
    if len(batches) == 1:
        return batches[0]
    table = pa.Table.from_batches(batches).unify_dictionaries().combine_chunks()
    (batch,) = table.to_batches()
    return batch


def _csv_chunks(
    path: str, statute: ast.Statute, keep: Sequence[str]
) -> Iterator[tuple[pa.RecordBatch, RowErrors]]:
    import pyarrow.csv as pcsv

    # Arrow calls the handler, with each bad row's number (header = 1), as it parses, ahead of
    # the batches it yields; the row then goes in its place in the batch that holds it.
    skipped: deque[tuple[int, int, int, str]] = deque()

    def handler(row: Any) -> str:
        if row.number is None:
            return "error"
        skipped.append((row.number - 2, row.expected_columns, row.actual_columns, row.text))
        return "skip"

    reader = pcsv.open_csv(
        path,
        # One parsing thread: row numbers are known only so (evaluation has both cores).
        read_options=pcsv.ReadOptions(block_size=1 << 23, use_threads=False),
        parse_options=pcsv.ParseOptions(ignore_empty_lines=False, invalid_row_handler=handler),
        convert_options=pcsv.ConvertOptions(
            check_utf8=False,  # checked per cell below: a bad cell fails its row only
            strings_can_be_null=True,
            column_types={name: pa.string() for name in [*statute.inputs, *keep]},
        ),
    )
    first = 0
    for batch in reader:
        batch, errors = _placed(batch, skipped, first, path, keep)
        batch, bad = _undecodable(batch, path, first)
        errors.update((row, error) for row, error in bad.items() if row not in errors)
        errors.update(_blank_rows(batch, path, first, errors))
        yield batch, errors
        first += batch.num_rows
    if skipped:  # bad rows after the last good one
        empty = pa.RecordBatch.from_pylist([], schema=reader.schema)
        batch, errors = _placed(empty, skipped, first, path, keep, final=True)
        yield batch, errors


def _placed(
    batch: pa.RecordBatch,
    skipped: deque[tuple[int, int, int, str]],
    first: int,
    source: str,
    keep: Sequence[str],
    final: bool = False,
) -> tuple[pa.RecordBatch, RowErrors]:
    """Returns the batch with the rows Arrow skipped before its last row (or all, when
    `final`) put back in their place as rows of nulls but for the kept cells they have, and
    their errors."""
    errors: RowErrors = {}
    cells: dict[int, list[str]] = {}
    end = first + batch.num_rows  # the data rows this batch covers grow with each put back
    while skipped and (final or skipped[0][0] < end):
        row, expected, given, text = skipped.popleft()
        errors[row - first] = wrong_width(f"{source}: row {row + 1}", expected, given)
        cells[row - first] = next(csv.reader([text]), [])
        end += 1
    if not errors:
        return batch, errors
    present = np.ones(end - first, dtype=bool)
    present[list(errors)] = False
    position = np.full(len(present), -1, dtype=np.int64)
    position[present] = np.arange(batch.num_rows)
    placed = batch.take(arrow_array(position, position < 0))
    names = placed.schema.names
    columns = list(placed.columns)
    for name in keep:
        if name not in names:
            continue
        at = names.index(name)
        values = columns[at].to_pylist()
        for row, found in cells.items():
            values[row] = found[at] if at < len(found) and found[at] != "" else None
        columns[at] = pa.array(values, type=columns[at].type)
    return pa.RecordBatch.from_arrays(columns, names=names), errors


def _undecodable(
    batch: pa.RecordBatch, source: str, first: int
) -> tuple[pa.RecordBatch, RowErrors]:
    """Returns the batch with text cells that are not UTF-8 made null, and their rows' errors
    (none, and the batch itself, in the usual case: one check per text column)."""
    errors: RowErrors = {}
    columns = list(batch.columns)
    for index, column in enumerate(columns):
        values = column.dictionary if pa.types.is_dictionary(column.type) else column
        if not (pa.types.is_string(values.type) or pa.types.is_large_string(values.type)):
            continue
        try:
            values.validate(full=True)
            continue
        except pa.ArrowInvalid:
            pass
        import pyarrow.compute as pc

        if pa.types.is_dictionary(column.type):
            column = column.dictionary_decode()
        name = batch.schema.names[index]
        bad = np.zeros(len(column), dtype=bool)
        for row, raw in enumerate(column.cast(pa.binary()).to_pylist()):
            try:
                raw is None or raw.decode("utf-8")
            except UnicodeDecodeError as error:
                bad[row] = True
                where = f"{source}: row {first + row + 1}"
                errors.setdefault(row, not_utf8(where, error, name))
        columns[index] = pc.if_else(arrow_array(bad), pa.scalar(None, column.type), column)
    if not errors:
        return batch, errors
    return pa.RecordBatch.from_arrays(columns, names=batch.schema.names), errors


def _blank_rows(batch: pa.RecordBatch, source: str, first: int, errors: RowErrors) -> RowErrors:
    """Returns the errors of the rows whose every cell is empty (blank lines of a CSV file)."""
    if batch.num_columns == 0 or any(c.null_count == 0 for c in batch.columns):
        return {}
    empty = np.ones(batch.num_rows, dtype=bool)
    for column in batch.columns:
        empty &= np.asarray(column.is_null().to_numpy(zero_copy_only=False), dtype=bool)
    return {
        row: blank_row(f"{source}: row {first + row + 1}")
        for row in np.flatnonzero(empty).tolist()
        if row not in errors
    }


def table_rows(
    batch: pa.RecordBatch,
    source: str,
    first_row: int,
    statute: ast.Statute | None = None,
    errors: RowErrors | None = None,
    carried: Sequence[str] = (),
    numbers_as_text: Sequence[str] = (),
) -> Any:
    """Returns the scalar-path reader of a batch's rows, each named `SOURCE: row N` (`row N`
    without a source), counted from 1 (CSV text typed by the declarations when `statute` is
    given); a row in `errors` raises its error, the `carried` columns (kept,
    not declared) are left out of the scenario, and the text of the `numbers_as_text` columns
    (floats written as their shortest decimals) is read as numbers."""

    def row(index: int) -> tuple[object, str]:
        if errors and index in errors:
            raise errors[index]
        values = batch.slice(index, 1).to_pylist()[0]
        for name in carried:
            values.pop(name, None)
        for name in numbers_as_text:
            if isinstance(values.get(name), str):
                values[name] = ExactNumber(values[name])
        # Text cells are read as a CSV's are, as the columnar path reads a text column.
        scenario = scalar_row(values) if statute is None else text_row(statute, scalar_row(values))
        where = f"row {first_row + index + 1}"
        return scenario, f"{source}: {where}" if source else where

    return row
