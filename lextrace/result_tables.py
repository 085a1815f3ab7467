"""The results of a chunk of scenarios as an Arrow table, as `lextrace batch` writes Parquet and
CSV and `Statute.evaluate_many` returns: the kept columns, each result (money decimal(38, 2),
enum members and exact numbers as text) and `error`, null for a row evaluated."""

from __future__ import annotations

import json
from collections.abc import Sequence
from decimal import Decimal

import numpy as np
import pyarrow as pa

from .api import Statute
from .columns import arrow_array, decimal_cents, member_names
from .dsl.errors import ScenarioError
from .dsl.values import exact_string
from .tables import EvaluatedChunk

PROVENANCE_METADATA = b"lextrace.provenance"
READINGS_METADATA = b"lextrace.readings"


def readings_metadata(readings: dict[str, str]) -> dict[bytes, bytes]:
    """Returns the schema metadata naming the readings a results table was evaluated under
    (those its results use): `lextrace.readings`, as JSON."""
    return {READINGS_METADATA: json.dumps(readings).encode()}


# The digits of a money column (decimal128's most): a row whose amount has more is that row's
# error (`Runner.money_digits`), never a table that cannot be written.
MONEY_DIGITS = 38


def float_metadata(columns: Sequence[str]) -> dict[bytes, bytes]:
    """Returns the schema metadata of a results table some of whose input columns held binary
    floats read by their shortest decimals: `lextrace.provenance`, as JSON."""
    provenance = {"floats": "shortest", "columns_from_floats": list(columns)}
    return {PROVENANCE_METADATA: json.dumps(provenance).encode()}


def arrow_results(statute: Statute, chunk: EvaluatedChunk, keep: list[str]) -> pa.Table:
    """Returns a chunk's kept columns, results and `error` column as one Arrow table."""
    arrays: dict[str, pa.Array] = {name: kept_column(chunk, name) for name in keep}
    failed = np.zeros(chunk.size, dtype=bool)
    failed[list(chunk.errors)] = True
    for name in statute.ast.result_names:
        kind = statute.ast.definitions[name].type.kind
        column = chunk.values[name]
        if kind == "money":
            try:
                cents = (
                    np.array([0 if v is None else v for v in column], dtype=np.int64)
                    if (chunk.errors or column.dtype == object)
                    else np.asarray(column, dtype=np.int64)
                )
                arrays[name] = decimal_cents(cents, failed)
            except OverflowError:  # beyond int64: through exact Decimals, as far as 38 digits
                values = [None if v is None else Decimal(int(v)).scaleb(-2) for v in column]
                arrays[name] = pa.array(values, type=pa.decimal128(MONEY_DIGITS, 2))
        elif kind == "enum":
            names = member_names(column)
            if chunk.errors:
                import pyarrow.compute as pc

                names = pc.if_else(arrow_array(failed), pa.scalar(None, pa.string()), names)
            arrays[name] = names
        elif kind in ("number", "share"):
            # Exact, as in JSON Lines: "3/20", "7" (a binary float could not hold them).
            arrays[name] = pa.array(
                [
                    None if f or v is None else exact_string(v)
                    for v, f in zip(column, failed, strict=True)
                ],
                type=pa.string(),
            )
        else:
            arrays[name] = pa.array(
                [None if f else v for v, f in zip(column, failed, strict=True)],
                type=pa.bool_() if kind == "bool" else pa.int64(),
            )
    if chunk.traces is not None:
        traces = [chunk.traces.get(row) for row in range(chunk.size)]
        arrays["trace"] = pa.array(traces, type=pa.string())
    if chunk.errors:
        messages = [None] * chunk.size
        for row, error in chunk.errors.items():
            messages[row] = error_message(error)
        arrays["error"] = pa.array(messages, type=pa.string())
    else:
        arrays["error"] = pa.nulls(chunk.size, pa.string())
    return pa.table(arrays)


def kept_column(chunk: EvaluatedChunk, name: str) -> pa.Array:
    """Returns a kept field as an output column: a table's as given; from JSON Lines, text (a
    JSON string's own text, any other value's JSON text)."""
    column = chunk.kept[name]
    if not chunk.kept_json:
        return column
    texts = [
        None if text is None else (json.loads(text) if text[:1] == '"' else text)
        for text in column.to_pylist()
    ]
    return pa.array(texts, type=pa.string())


def error_message(error: Exception) -> str:
    """Returns a row's error as the scalar path words it."""
    return error.render() if isinstance(error, ScenarioError) else str(error)
