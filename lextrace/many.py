"""Many scenarios from Python: `Statute.evaluate_many(rows)`.

The rows may be an Arrow table or record batch, a pandas or polars DataFrame (taken through
Arrow), or any iterable of scenario dicts. Arrow input runs on the columnar engine, chunk by
chunk, as `lextrace batch` runs a Parquet file, and a row it cannot take goes to the scalar
path; dicts are validated and evaluated one by one. Either way the answer is one Arrow table,
one row per scenario in order: the `keep` columns, every result (money as decimal(38, 2) rounded
half-up to the cent, enum members and exact numbers as text), and `error`, null for a row
evaluated and the refusal's message for a row refused. A bad row never raises and never drops.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import islice
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from .columns import floats_as_text
from .dsl.errors import ScenarioError
from .dsl.evaluator import EvaluationError
from .dsl.scenario import FLOATS
from .result_tables import MONEY_DIGITS, arrow_results, float_metadata, readings_metadata
from .tables import CHUNK_ROWS, EvaluatedChunk, Runner, table_rows

if TYPE_CHECKING:
    from .api import Statute

OUTPUTS = ("arrow", "pandas", "polars")
ENGINES = ("columnar", "compiled")


def evaluate_many(
    statute: Statute,
    rows: object,
    readings: Mapping[str, str] | None = None,
    keep: Sequence[str] = (),
    floats: str = "refuse",
    output: str = "arrow",
    engine: str = "columnar",
) -> Any:
    """Returns the results of many scenarios as one table (see the module docstring): an Arrow
    table, or a pandas or polars DataFrame when `output` says so. `floats="shortest"` reads a
    float column of a number, money, share or count by each value's shortest decimal; else such
    a column is refused (ValueError), as a binary float is by `Statute.evaluate`.
    `engine="compiled"` evaluates Arrow input with the rules compiled (dsl/kernel.py: numba,
    the `compiled` extra; ValueError without it); the results are the same."""
    if floats not in FLOATS:
        raise ValueError(f"floats must be one of {', '.join(FLOATS)}, not {floats!r}")
    if output not in OUTPUTS:
        raise ValueError(f"output must be one of {', '.join(OUTPUTS)}, not {output!r}")
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    if engine == "compiled":
        from .dsl.kernel import NEEDS_NUMBA, available

        if not available():
            raise ValueError(f"engine='compiled' {NEEDS_NUMBA}")
    selected = statute.select_readings(readings)
    runner = Runner(statute, selected, dict(readings or {}), compiled=engine == "compiled")
    runner.money_digits = MONEY_DIGITS
    runner.floats = floats
    table = _arrow_input(rows)
    from_floats: list[str] = []
    if table is None:
        if type(rows).__module__.split(".")[0] == "pandas":
            rows = _frame_records(rows)
        chunks = _dict_chunks(runner, rows, keep)  # type: ignore[arg-type]
    else:
        if floats == "shortest":
            table, from_floats = floats_as_text(statute.ast, table)
        chunks = _arrow_chunks(runner, table, keep, from_floats)
    pieces = [arrow_results(statute, chunk, list(keep)) for chunk in chunks]
    result = (
        pa.concat_tables(pieces)
        if pieces
        else arrow_results(statute, _empty_chunk(statute, keep, table), list(keep))
    )
    used = {rid: selected[rid] for rid in statute.readings_used}
    metadata = readings_metadata(used)
    if from_floats:
        metadata.update(float_metadata(from_floats))
    result = result.replace_schema_metadata(metadata)
    if output == "pandas":
        return result.to_pandas()
    if output == "polars":
        import polars

        return polars.from_arrow(result)
    return result


def _arrow_input(rows: object) -> pa.Table | None:
    """Returns the rows as an Arrow table when they are one (or a record batch, or a pandas or
    polars DataFrame), None for an iterable of dicts."""
    if isinstance(rows, pa.Table):
        return rows
    if isinstance(rows, pa.RecordBatch):
        return pa.Table.from_batches([rows])
    module = type(rows).__module__.split(".")[0]
    if module == "pandas":
        # A missing value (NaN, None, pd.NA) becomes null: the field is then left out.
        try:
            return pa.Table.from_pandas(rows, preserve_index=False)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            # A column Arrow cannot type (Fractions, Decimals mixed with text): row by row,
            # as the dicts they are.
            return None
    if module == "polars":
        return rows.to_arrow()  # type: ignore[attr-defined,no-any-return]
    if hasattr(rows, "__arrow_c_stream__"):
        return pa.table(rows)
    if isinstance(rows, Mapping | str | bytes) or not isinstance(rows, Iterable):
        raise TypeError(
            "rows must be an iterable of scenario dicts, an Arrow table or record batch, or a "
            f"pandas or polars DataFrame, not {type(rows).__name__}"
        )
    return None


def _frame_records(frame: Any) -> Iterator[dict[str, object]]:
    """Yields a DataFrame's rows as scenario dicts, a missing value (NaN, None, pd.NA) left
    out, as the Arrow path leaves out a null."""
    import pandas

    for record in frame.to_dict(orient="records"):
        yield {
            str(name): value
            for name, value in record.items()
            if not (pandas.api.types.is_scalar(value) and pandas.isna(value))
        }


def _arrow_chunks(
    runner: Runner, table: pa.Table, keep: Sequence[str], from_floats: list[str]
) -> Iterator[EvaluatedChunk]:
    """Evaluates a table chunk by chunk on the columnar engine."""
    statute = runner.statute.ast
    carried = [name for name in keep if name not in statute.inputs]
    missing = [name for name in keep if name not in table.column_names]
    if missing:
        raise ValueError(f"keep names no column of the rows: {', '.join(missing)}")
    first = 0
    for batch in table.to_batches(max_chunksize=CHUNK_ROWS):
        kept = {name: batch.column(name) for name in keep}
        rows = table_rows(batch, "", first, statute, carried=carried, numbers_as_text=from_floats)
        if carried:
            batch = batch.select([n for n in batch.schema.names if n not in carried])
        chunk = runner.evaluate(batch, first, rows)
        chunk.kept = kept
        yield chunk
        first += batch.num_rows


def _dict_chunks(
    runner: Runner, rows: Iterable[Mapping[str, object]], keep: Sequence[str]
) -> Iterator[EvaluatedChunk]:
    """Evaluates scenario dicts one by one, in chunks of rows."""
    names = runner.statute.ast.result_names
    carried = {name for name in keep if name not in runner.statute.ast.inputs}
    iterator = iter(rows)
    first = 0
    while True:
        chunk_rows = list(islice(iterator, CHUNK_ROWS))
        if not chunk_rows:
            return
        size = len(chunk_rows)
        values: dict[str, Any] = {name: np.empty(size, dtype=object) for name in names}
        errors: dict[int, ScenarioError | EvaluationError] = {}

        def row(index: int, chunk_rows: list[Any] = chunk_rows, first: int = first) -> Any:
            scenario = chunk_rows[index]
            if carried and isinstance(scenario, Mapping):
                scenario = {k: v for k, v in scenario.items() if k not in carried}
            return scenario, f"row {first + index + 1}"

        for index in range(size):
            outcome = runner.scalar(row, index)
            if isinstance(outcome, ScenarioError | EvaluationError):
                errors[index] = outcome
                continue
            cells = runner.cells(outcome)
            beyond = runner.beyond_columns(cells, row, index)
            if beyond is not None:
                errors[index] = beyond
                continue
            for name, cell in cells.items():
                values[name][index] = cell
        kept = {name: _kept(chunk_rows, name) for name in keep}
        yield EvaluatedChunk(first, size, values, errors, kept=kept)
        first += size


def _kept(chunk_rows: list[Any], name: str) -> pa.Array:
    """A kept field of scenario dicts as a column: as Arrow types its values, else as text."""
    values = [s.get(name) if isinstance(s, Mapping) else None for s in chunk_rows]
    try:
        return pa.array(values)
    except (pa.ArrowException, TypeError, ValueError):
        return pa.array([None if v is None else str(v) for v in values], type=pa.string())


def _empty_chunk(statute: Statute, keep: Sequence[str], table: pa.Table | None) -> EvaluatedChunk:
    """Returns the chunk of no rows: its kept columns of the table's types (text without one)."""
    names = statute.ast.result_names
    kept = {
        name: pa.array(
            [],
            type=table.schema.field(name).type
            if table is not None and name in table.schema.names
            else pa.string(),
        )
        for name in keep
    }
    return EvaluatedChunk(0, 0, {n: np.empty(0, dtype=object) for n in names}, {}, kept=kept)
