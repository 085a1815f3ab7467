"""Blocks of JSON Lines read into Arrow columns by compiled code (numba: the `compiled` extra),
several times faster than Arrow's JSON reader, for the lines nearly every batch holds.

Such a line is one flat JSON object whose members are declared fields, each given once, with
values of the plainest form (or null): `true`/`false` for a yes-or-no field, an integer for a
count, a number or a string holding one (at most 12 digits before the point and 6 after, no
exponent) for an amount, an ASCII string without escapes for text (but escaped slashes,
`\\/`, which pandas writes for every `/`). Whitespace between tokens is allowed.

A block holding any other line (another escape, a list, an unknown or repeated field, any
other spelling of a number, a blank line) is not read here: `CompiledLines.read` returns None
and the block goes to Arrow's reader, as before, so what is accepted or refused, and how it is
worded, never depends on which reader ran. The columns built are those Arrow's reader builds
for the same lines (a test reads random blocks both ways and compares them).
"""

from __future__ import annotations

import os
import threading
from typing import Any, NamedTuple

import numpy as np
import pyarrow as pa

from .columns import arrow_array, decimal_array

#: "arrow": every block read by Arrow's JSON reader; "compiled": by the compiled reader whatever
#: the input's size (see `compiled_reader`).
READER_VARIABLE = "LEXTRACE_JSON_READER"
#: Below this many bytes of input, the compiled reader is not worth loading numba (0.5 s).
WORTH_BYTES = 64 << 20

_BOOL, _COUNT, _DECIMAL, _TEXT = 0, 1, 2, 3
_SCALE_DIGITS = 6  # the decimal128(38, 6) columns of Arrow's schema, as the kernel scales
_FNV_START, _FNV_PRIME, _WORD = 14695981039346656037, 1099511628211, (1 << 64) - 1


def _hashed(name: bytes) -> int:
    """Returns the FNV-1a hash of a field's name, as the compiled reader computes it."""
    value = _FNV_START
    for byte in name:
        value = ((value ^ byte) * _FNV_PRIME) & _WORD
    return value


def _kind(type_: pa.DataType) -> int:
    """Returns how the compiled reader reads a column of Arrow's schema."""
    if pa.types.is_boolean(type_):
        return _BOOL
    if pa.types.is_int64(type_):
        return _COUNT
    if pa.types.is_decimal(type_) and type_.scale == _SCALE_DIGITS:
        return _DECIMAL
    if pa.types.is_string(type_):
        return _TEXT
    raise ValueError(f"no compiled reading of {type_}")


class Read(NamedTuple):
    """A block of JSON Lines read: its table, the lines giving null to a required field, and
    where each line starts and ends in the block."""

    table: pa.Table
    nulled: np.ndarray
    starts: np.ndarray
    ends: np.ndarray


class CompiledLines:
    """Reads blocks of JSON Lines into tables of `schema` (the one Arrow's reader is given),
    with the compiled kernel once it is loaded (in a thread of its own, started here); the
    fields `required` may not be given null."""

    def __init__(self, schema: pa.Schema, required: set[str]) -> None:
        self.schema = schema
        self.required = np.array([f.name in required for f in schema], dtype=bool)
        self.kinds = np.array([_kind(f.type) for f in schema], dtype=np.int8)
        encoded = [f.name.encode("utf-8") for f in schema]
        self.names = np.frombuffer(b"".join(encoded), dtype=np.uint8)
        self.name_starts = np.cumsum([0, *(len(name) for name in encoded)]).astype(np.int64)
        size = 1 << max(3, (4 * len(encoded)).bit_length())
        self.table = np.full(size, -1, dtype=np.int64)
        for index, name in enumerate(encoded):
            slot = _hashed(name) & (size - 1)
            while self.table[slot] >= 0:
                slot = (slot + 1) & (size - 1)
            self.table[slot] = index
        self._kernel: Any = None
        self._loading = threading.Thread(target=self._load, daemon=True)
        self._loading.start()

    def _load(self) -> None:
        try:
            from . import json_kernel

            # A writable buffer, as blocks are: numba compiles (or loads) one version per type.
            self._read(json_kernel, np.frombuffer(bytearray(b"{}"), dtype=np.uint8))
        except Exception:  # a kernel that fails to load leaves Arrow's reader in use
            return
        self._kernel = json_kernel

    def wait(self) -> bool:
        """Waits for the kernel to load; returns whether it did."""
        self._loading.join()
        return self._kernel is not None

    def read(self, block: bytearray) -> Read | None:
        """Returns the block's lines read (a line ends at a newline or at the block's end), or
        None when the kernel is not loaded yet or a line is not of the plain form (Arrow's
        reader then reads the block)."""
        kernel = self._kernel
        if kernel is None or not block:
            return None
        return self._read(kernel, np.frombuffer(block, dtype=np.uint8))

    def _read(self, kernel: Any, data: np.ndarray) -> Read | None:
        count, fields = kernel.line_count(data), len(self.kinds)
        starts = np.empty(count, dtype=np.int64)
        ends = np.empty(count, dtype=np.int64)
        values = np.zeros((fields, count), dtype=np.int64)
        given = np.zeros((fields, count), dtype=np.uint8)
        spans = np.empty((fields, count, 3), dtype=np.int64)  # read only where given
        stopped = kernel.read_lines(
            data,
            self.table,
            self.names,
            self.name_starts,
            self.kinds,
            values,
            given,
            spans,
            starts,
            ends,
        )
        if stopped >= 0:
            return None
        columns = [
            self._column(kernel, data, kind, values[index], given[index], spans[index], f.type)
            for index, (kind, f) in enumerate(zip(self.kinds.tolist(), self.schema, strict=True))
        ]
        nulled = (given[self.required] == 2).any(axis=0)
        table = pa.Table.from_arrays(columns, schema=self.schema)
        return Read(table, nulled, starts, ends)

    @staticmethod
    def _column(
        kernel: Any,
        data: np.ndarray,
        kind: int,
        values: np.ndarray,
        given: np.ndarray,
        spans: np.ndarray,
        type_: pa.DataType,
    ) -> pa.Array:
        count = len(values)
        present = given == 1
        if kind == _BOOL:
            return arrow_array(values.astype(bool), ~present)
        if kind == _COUNT:
            return arrow_array(values, ~present)
        if kind == _DECIMAL:
            return decimal_array(values, type_, ~present)
        nulls = count - int(np.count_nonzero(present))
        validity = None if nulls == 0 else pa.py_buffer(np.packbits(present, bitorder="little"))
        lengths = np.where(present, spans[:, 1] - spans[:, 0] - spans[:, 2], 0)
        offsets = np.empty(count + 1, dtype=np.int32)
        text = np.empty(int(lengths.sum()), dtype=np.uint8)
        kernel.gather(data, spans, given, offsets, text)
        buffers = [validity, pa.py_buffer(offsets), pa.py_buffer(text)]
        return pa.Array.from_buffers(type_, count, buffers, null_count=nulls)


def compiled_reader(
    schema: pa.Schema, required: set[str], size: int | None, keep: bool
) -> CompiledLines | None:
    """Returns the compiled reader for a JSON Lines input of `size` bytes (None: not known; the
    reader of standard input asks again with what it has read so far), or None where Arrow's
    reader reads the blocks.

    By default it is used when numba is installed, the input is large, and no field is kept
    (kept fields are read from the text as given), from the moment it is loaded.
    `LEXTRACE_JSON_READER=arrow` turns it off; `LEXTRACE_JSON_READER=compiled` uses it
    whatever the size, from the first block. Raises ValueError for another setting, or for
    `compiled` without numba."""
    import importlib.util

    setting = os.environ.get(READER_VARIABLE, "").strip().lower()
    if setting not in ("", "arrow", "compiled"):
        raise ValueError(
            f"{READER_VARIABLE}: expected arrow or compiled, given {os.environ[READER_VARIABLE]!r}"
        )
    installed = importlib.util.find_spec("numba") is not None
    if setting == "compiled" and not installed:
        raise ValueError(
            f"{READER_VARIABLE}=compiled needs numba: pip install 'lextrace[compiled]'"
        )
    if setting == "arrow" or keep or not installed:
        return None
    if setting == "compiled":
        reader = CompiledLines(schema, required)
        if not reader.wait():
            raise ValueError(f"{READER_VARIABLE}=compiled: the compiled reader did not load")
        return reader
    if size is None or size < WORTH_BYTES:
        return None
    return CompiledLines(schema, required)
