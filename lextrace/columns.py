"""Tables of scenarios in and out of the columnar evaluator: Arrow tables (Parquet, CSV) and JSON
Lines, read exactly, checked against the declared inputs, and the results written back.

Reading never goes through a binary float: decimals are taken from their Arrow unscaled integers
(JSON numbers reach Arrow as decimals read from their text), plain decimal and fraction text is
parsed as integers, and a column of binary floats for an amount is refused. A row that the
columnar path cannot take as it is (a value of the wrong type, a bound broken, a field missing,
an unknown field in a JSON line) is handed to the scalar path, which validates it field by field
and reports exactly what is wrong, so both paths give the same answer and the same message.
"""

from __future__ import annotations

import decimal
import difflib
import functools
import math
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import pyarrow as pa

from .dsl import ast
from .dsl.columnar import (
    BOUND_COMPARISONS,
    LIMIT,
    Array,
    Chunk,
    Code,
    Col,
    Den,
    Engine,
    Extremes,
    Flag,
    Num,
    Unsupported,
    cents,
    exact_values,
    reaching_limit,
    scale_of,
)
from .dsl.scenario import ExactNumber, default_value
from .dsl.trace import json_value
from .dsl.values import CENTS, Value, cents_string, to_cents
from .plain_text import could_be_plain, plain_decimals, plain_wholes


class TableError(ValueError):
    """A table that cannot be read at all (an unknown column, a float amount column)."""


# ---- Arrow arrays to input columns --------------------------------------------------------------
def floats_as_text(
    statute: ast.Statute, table: pa.Table | pa.RecordBatch
) -> tuple[pa.Table | pa.RecordBatch, list[str]]:
    """Returns the table with each float column of a numeric input written as its values'
    shortest decimals (Arrow's cast writes the shortest text that reads back as the same
    float, as Python's `repr` does), and the names of those columns, in order."""
    names: list[str] = []
    for index, field in enumerate(table.schema):
        declared = statute.inputs.get(field.name)
        if declared is None or not declared.type.is_numeric:
            continue
        if pa.types.is_floating(field.type):
            text = table.column(index).cast(pa.string())
            table = table.set_column(index, pa.field(field.name, pa.string()), text)
            names.append(field.name)
    return table, names


def arrow_array(values: Array, nulls: Array | None = None) -> pa.Array:
    """Returns a numpy column of integers or booleans as an Arrow array made from its buffer,
    null where `nulls` is set. `pa.array` would give the same, but imports numpy.ma on its
    first numpy column (about 20 ms of a batch's start-up)."""
    values = np.ascontiguousarray(values)
    validity, null_count = _validity(nulls)
    if values.dtype == np.bool_:
        data = pa.py_buffer(np.packbits(values, bitorder="little"))
        type_ = pa.bool_()
    else:
        data, type_ = pa.py_buffer(values), pa.from_numpy_dtype(values.dtype)
    return pa.Array.from_buffers(type_, len(values), [validity, data], null_count=null_count)


def _validity(nulls: Array | None) -> tuple[pa.Buffer | None, int]:
    """Returns an Arrow validity bitmap (None when no row is null) and the count of nulls."""
    null_count = 0 if nulls is None else int(np.count_nonzero(nulls))
    if not null_count:
        return None, 0
    valid = ~np.asarray(nulls, dtype=bool)
    return pa.py_buffer(np.packbits(valid, bitorder="little")), null_count


def _filled(array: pa.Array, value: object) -> pa.Array:
    """Returns the array with nulls replaced by `value` (itself when it has none)."""
    return array if array.null_count == 0 else array.fill_null(value)


def _bits(buffer: pa.Buffer, offset: int, size: int) -> Array:
    """Returns `size` bits of an Arrow bitmap from bit `offset`, as booleans."""
    raw = np.frombuffer(buffer, dtype=np.uint8, count=(offset + size + 7) // 8)
    return np.unpackbits(raw, bitorder="little", count=offset + size)[offset:].view(bool)


def _int64(array: pa.Array) -> tuple[Array, Array]:
    """Returns an integer column as int64 and the rows beyond its range (set to 0 here; the
    scalar path reads them)."""
    if array.type == pa.uint64():
        import pyarrow.compute as pc

        limit = pa.scalar(LIMIT, pa.uint64())
        too_large = np.asarray(pc.greater(array, limit).to_numpy(zero_copy_only=False), bool)
        array = pc.if_else(arrow_array(too_large), pa.scalar(0, pa.uint64()), array)
        return np.asarray(array.cast(pa.int64()).to_numpy(zero_copy_only=False)), too_large
    if array.type != pa.int64():
        array = array.cast(pa.int64())
    values = array.to_numpy(zero_copy_only=False)
    return np.asarray(values, dtype=np.int64), np.zeros(len(array), dtype=bool)


def _missing(array: pa.Array) -> Array:
    """Returns the rows where the array holds null."""
    if array.null_count == 0:
        return np.zeros(len(array), dtype=bool)
    validity = array.buffers()[0]
    if validity is None or pa.types.is_dictionary(array.type):
        return np.asarray(array.is_null().to_numpy(zero_copy_only=False), dtype=bool)
    return np.logical_not(_bits(validity, array.offset, len(array)))


def _flags(array: pa.Array, missing: Array) -> Array:
    """Returns a boolean array's values, False where null."""
    values = _bits(array.buffers()[1], array.offset, len(array))
    return values & np.logical_not(missing) if array.null_count else values.copy()


def _decimal_units(
    array: pa.Array, scale: int, missing: Array, extremes: Extremes | None = None
) -> tuple[Num, Array]:
    """Returns a decimal column as an exact Num in base units (cents for money), and the rows
    whose value does not fit int64 (handed to the scalar path). Null rows read as 0. The whole
    part's least and greatest rows are noted in `extremes`, when measured on the way."""
    array = (
        array.cast(pa.decimal128(38, array.type.scale)) if array.type.bit_width != 128 else array
    )
    places = array.type.scale
    buffers = array.buffers()
    words = np.frombuffer(buffers[1], dtype=np.int64, count=2 * (len(array) + array.offset))
    words = words[2 * array.offset :].reshape(-1, 2)
    unscaled, high = words[:, 0].copy(), words[:, 1]
    if array.null_count:
        unscaled *= np.logical_not(missing)
    # value = unscaled / 10**places; in base units: unscaled * scale / 10**places.
    factor = Fraction(scale, 10**places)
    numerator, denominator = factor.numerator, factor.denominator
    too_large, measured = _beyond(unscaled, high, missing, numerator)
    if too_large is not None:
        unscaled *= np.logical_not(too_large)
    else:
        too_large = np.zeros(len(array), dtype=bool)
    if numerator != 1:
        unscaled *= numerator
    q = unscaled if denominator == 1 else unscaled // denominator
    if measured is not None and extremes is not None:
        # A whole part is floor(unscaled * numerator / denominator), rising with the value.
        least, greatest = (value * numerator // denominator for value in measured)
        extremes[id(q)] = (q, least, greatest)
    if denominator == 1:
        return Num(q, 0, Den(), scale), too_large
    r = unscaled - q * denominator
    if not r.any():  # whole in base units (cents): integer arithmetic from here on
        return Num(q, 0, Den(), scale), too_large
    return Num(q, r, Den(denominator), scale), too_large


def _dictionary_units(array: pa.DictionaryArray, cast: pa.Array, scale: int) -> tuple[Num, Array]:
    """Returns a dictionary of plain decimal texts, whose values `cast` holds as decimals, as
    an exact Num in base units, as _decimal_units does for the texts decoded (null rows read
    as 0): each distinct text cast once, then looked up per row."""
    values = array.dictionary
    number, too_large = _decimal_units(cast, scale, np.zeros(len(values), dtype=bool))
    index = _indices(array, len(values))  # null rows: the entry appended after the values

    def per_row(per_value: Array, null: object) -> Array:
        return np.append(per_value, np.array([null], dtype=per_value.dtype))[index]

    q = per_row(np.asarray(number.q, dtype=np.int64), 0)
    r = number.r if isinstance(number.r, int) else per_row(number.r, 0)
    return Num(q, r, number.den, scale), per_row(too_large, False)


def _beyond(
    unscaled: Array, high: Array, missing: Array, numerator: int
) -> tuple[Array | None, tuple[int, int] | None]:
    """Returns the rows of a decimal column that do not fit int64 once multiplied by
    `numerator` (kept below LIMIT), or None when no row is (proved by the extremes); and,
    when no row is, the least and the greatest unscaled value."""
    if len(unscaled) == 0:
        return None, None
    low_min, low_max = int(unscaled.min()), int(unscaled.max())
    high_min, high_max = int(high.min()), int(high.max())
    in_range = max(-low_min, low_max) * numerator < LIMIT
    if high_min == high_max == 0 and low_min >= 0 and in_range:
        return None, (low_min, low_max)
    if high_min == high_max == -1 and low_max < 0 and in_range:
        return None, (low_min, low_max)
    too_large = (high != (unscaled >> 63)) & np.logical_not(missing)
    return too_large | reaching_limit(unscaled, numerator), None


def _exact_texts(array: pa.Array, scale: int) -> tuple[Num, Array]:
    """Returns exact numbers written as text (each distinct text parsed once), and the rows
    whose text is not a plain decimal or fraction: those go to the scalar path, which reads
    every form the scenario format admits and refuses the rest by name."""
    encoded = array if pa.types.is_dictionary(array.type) else array.dictionary_encode()
    table = _text_table(tuple(encoded.dictionary.to_pylist()), scale)
    indices = _indices(encoded, len(table.numerators) - 1)
    bad = table.unreadable[indices]
    if table.common is not None:
        # Every distinct value over one constant denominator: a whole part and a remainder
        # per distinct value, looked up, with no division row by row.
        q = table.whole[indices]
        if table.common == 1:
            return Num(q, 0, Den(), scale), bad
        return Num(q, table.remainder[indices], Den(table.common), scale), bad
    den = table.denominators[indices]
    numerator = table.numerators[indices]
    q = numerator // den
    r = numerator - q * den
    if not r.any():
        return Num(q, 0, Den(), scale), bad
    return Num(q, r, Den(1, (den,)), scale), bad


@dataclass(frozen=True)
class _TextTable:
    """The exact values of distinct texts (one more entry, 0 and readable, for null rows):
    numerators in base units over denominators, and where their least common denominator is
    small (`common`), each value's whole part and remainder over it."""

    numerators: Array
    denominators: Array
    unreadable: Array
    common: int | None
    whole: Array
    remainder: Array


@functools.lru_cache(maxsize=64)
def _text_table(distinct: tuple[object, ...], scale: int) -> _TextTable:
    """Returns the exact values of distinct texts (see _TextTable)."""
    numerators = [0] * (len(distinct) + 1)
    denominators = [1] * (len(distinct) + 1)
    unreadable = [False] * (len(distinct) + 1)
    for index, text in enumerate(distinct):
        parts = _plain_number(text) if isinstance(text, str) else None
        if parts is None or abs(parts[0] * scale) >= LIMIT or parts[1] >= LIMIT:
            unreadable[index] = True
            continue
        numerators[index] = parts[0] * scale
        denominators[index] = parts[1]
    least = 1
    for denominator in dict.fromkeys(denominators):
        least = math.lcm(least, denominator)
        if least >= LIMIT:  # many distinct denominators: each row keeps its own
            break
    small = least < LIMIT
    pairs = zip(numerators, denominators, strict=True)
    over = [n * (least // d) for n, d in pairs] if small else []
    small = small and all(abs(value) < LIMIT for value in over)
    common = least if small else None
    return _TextTable(
        np.array(numerators, dtype=np.int64),
        np.array(denominators, dtype=np.int64),
        np.array(unreadable, dtype=bool),
        common,
        np.array([value // least for value in over] if small else [], dtype=np.int64),
        np.array([value % least for value in over] if small else [], dtype=np.int64),
    )


def _indices(encoded: pa.DictionaryArray, null_index: int) -> Array:
    """Returns a dictionary array's indices as intp, `null_index` where null."""
    indices = _filled(encoded.indices, null_index).to_numpy(zero_copy_only=False)
    return np.asarray(indices, dtype=np.intp)


_PLAIN_DECIMAL = re.compile(r"(-?)([0-9]{1,30})(?:\.([0-9]{1,30}))?")
_PLAIN_FRACTION = re.compile(r"([0-9]{1,30})/([0-9]{1,30})")


@functools.lru_cache(maxsize=1 << 16)
def _plain_number(text: str) -> tuple[int, int] | None:
    """Returns (numerator, denominator > 0) of `12`, `-12.50` or `1/3` (ASCII digits only);
    None for any other text."""
    match = _PLAIN_DECIMAL.fullmatch(text)
    if match:
        sign, whole, fraction = match.groups()
        digits = int(whole + (fraction or ""))
        return (-digits if sign else digits), 10 ** len(fraction or "")
    match = _PLAIN_FRACTION.fullmatch(text)
    if match and int(match.group(2)) > 0:
        return int(match.group(1)), int(match.group(2))
    return None


def input_columns(
    statute: ast.Statute,
    engine: Engine,
    table: pa.Table | pa.RecordBatch,
    extremes: Extremes | None = None,
) -> tuple[dict[str, Col], Array]:
    """Returns the input columns of a table of scenarios and the rows for the scalar path.
    The least and greatest rows measured on the way are noted in `extremes` (for `Chunk`).

    Raises TableError for a column no scenario may have (an unknown field, amounts stored as
    binary floats)."""
    size = table.num_rows
    names = set(table.column_names)
    unknown = sorted(names - set(statute.inputs))
    if unknown:
        close = difflib.get_close_matches(unknown[0], list(statute.inputs), n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        raise TableError(
            f"unknown column '{unknown[0]}'{hint}; `lextrace fields` lists the fields, and a "
            f"column to carry through to the output is kept: --keep {unknown[0]} (from Python: "
            f"keep=['{unknown[0]}'])"
        )
    slow = np.zeros(size, dtype=bool)
    columns: dict[str, Col] = {}
    for name, declared in statute.inputs.items():
        if declared.type.kind == "list":
            # The columnar evaluator computes no list: a row that gives one goes to the scalar
            # path (the results it evaluates here never use one; see dsl/columnar.py).
            if name in names:
                array = table.column(name)
                if isinstance(array, pa.ChunkedArray):
                    array = array.combine_chunks()
                slow |= ~_missing(array)
            continue
        if name not in names:
            columns[name] = _absent(declared, engine, size)
            if declared.required:
                slow[:] = True
            continue
        array = table.column(name)
        if isinstance(array, pa.ChunkedArray):
            array = array.combine_chunks()
        missing = _missing(array)
        column, bad = _column(declared, engine, array, name, missing, extremes)
        slow |= bad
        if missing.any():
            if declared.optional:
                column.bad = missing if column.bad is False else (column.bad | missing)
            elif declared.required:
                slow |= missing
            else:
                column = _fill_default(declared, engine, column, missing)
        columns[name] = column
    return columns, slow


def _absent(declared: ast.Input, engine: Engine, size: int) -> Col:
    """Returns the column of an input no row gives: its default, or not given."""
    if declared.default is None:
        return (
            Num(0, 0, Den(), scale_of(declared.type), np.ones(size, dtype=bool))
            if (declared.type.is_numeric)
            else Flag(False, np.ones(size, dtype=bool))
        )
    return _default_column(declared, engine)


def _default_column(declared: ast.Input, engine: Engine) -> Col:
    value = default_value(declared)
    if isinstance(value, str):
        return Code(engine.codes[value])
    if isinstance(value, bool):
        return Flag(value)
    assert value is not None
    return engine.literal(Fraction(value), scale_of(declared.type))


def _fill_default(declared: ast.Input, engine: Engine, column: Col, missing: Array) -> Col:
    default = _default_column(declared, engine)
    if isinstance(column, Num) and isinstance(default, Num):
        if not default.den.whole:
            raise Unsupported("a fractional default")
        q = np.where(missing, default.q, column.q)
        r = column.r if column.den.whole else np.where(missing, 0, column.r)
        return Num(q, r, column.den, column.scale, column.bad)
    if isinstance(column, Flag) and isinstance(default, Flag):
        return Flag(np.where(missing, default.value, column.value), column.bad)
    if isinstance(column, Code) and isinstance(default, Code):
        return Code(np.where(missing, default.value, column.value), column.bad)
    raise Unsupported("a default of another kind")


def _is_text(arrow: pa.DataType) -> bool:
    return bool(pa.types.is_string(arrow) or pa.types.is_large_string(arrow))


def _column(
    declared: ast.Input,
    engine: Engine,
    array: pa.Array,
    name: str,
    missing: Array,
    extremes: Extremes | None = None,
) -> tuple[Col, Array]:
    """Returns one input column and the rows whose value the columnar path cannot take."""
    kind = declared.type.kind
    size = len(array)
    no_rows = np.zeros(size, dtype=bool)
    arrow = array.type
    if pa.types.is_dictionary(arrow):
        if not (_is_text(arrow.value_type) and kind != "bool"):
            array = array.dictionary_decode()
        arrow = array.type
    if kind == "bool":
        if pa.types.is_boolean(arrow):
            return Flag(_flags(array, missing)), no_rows
        if _is_text(arrow):
            import pyarrow.compute as pc

            lowered = pc.utf8_lower(_filled(array, "false"))
            truth = np.asarray(pc.equal(lowered, "true").to_numpy(zero_copy_only=False))
            falsity = np.asarray(pc.equal(lowered, "false").to_numpy(zero_copy_only=False))
            return Flag(truth), ~(truth | falsity)
        return Flag(np.zeros(size, dtype=bool)), ~missing
    if kind == "enum":
        return _codes(declared, engine, array, missing)
    if pa.types.is_dictionary(arrow):
        # Few distinct texts are cast once each; a dictionary as large as the rows (Parquet's
        # dictionary of a whole row group, given with every batch) is cheaper decoded.
        few = 2 * len(array.dictionary) <= len(array) and not array.dictionary.null_count
        text = _is_text(arrow.value_type)
        if few and text and kind != "count":
            cast = plain_decimals(array.dictionary, _TEXT_PLACES)
            if cast is not None:
                return _dictionary_units(array, cast, scale_of(declared.type))
        # Plain decimals are read fastest by Arrow's cast, decoded; other texts (fractions,
        # exponents) are read once per distinct value, from the dictionary.
        if kind == "count" or (text and could_be_plain(array.dictionary)):
            array = array.dictionary_decode()
        arrow = array.type
    if pa.types.is_floating(arrow):
        raise TableError(
            f"column '{name}' holds binary floating-point numbers, which cannot be read exactly: "
            "store it as decimal or as text, or read each float by its shortest decimal "
            '(lextrace batch --floats shortest; floats="shortest" in Python)'
        )
    scale = scale_of(declared.type)
    if kind == "count":
        whole = plain_wholes(array) if _is_text(arrow) else None
        if whole is not None:
            array, arrow = whole, pa.int64()
        if pa.types.is_integer(arrow):
            values, too_large = _int64(_filled(array, 0))
            return Num(values, 0, Den(), 1), too_large
        if pa.types.is_string(arrow) or pa.types.is_large_string(arrow):
            number, bad = _exact_texts(array, 1)
            fractional = np.asarray(number.r) != 0
            return Num(number.q, 0, Den(), 1), bad | fractional
        return Num(np.zeros(size, dtype=np.int64), 0, Den(), 1), ~_missing(array)
    if pa.types.is_decimal(arrow):
        try:
            return _decimal_units(array, scale, missing, extremes)
        except pa.ArrowInvalid:  # a decimal256 beyond decimal128: the scalar path reads it
            return Num(np.zeros(size, dtype=np.int64), 0, Den(), scale), ~_missing(array)
    if pa.types.is_integer(arrow):
        values, too_large = _int64(_filled(array, 0))
        too_large |= reaching_limit(values, scale)
        return Num(np.where(too_large, 0, values) * scale, 0, Den(), scale), too_large
    # Plain decimals (CSV cells): Arrow's exact decimal parser, no Python per text.
    decimals = plain_decimals(array, _TEXT_PLACES) if _is_text(arrow) else None
    if decimals is not None:
        return _decimal_units(decimals, scale, missing, extremes)
    if _is_text(arrow) or pa.types.is_dictionary(arrow):
        return _exact_texts(array, scale)
    return Num(np.zeros(size, dtype=np.int64), 0, Den(), scale), ~missing


# The places a text decimal is cast to: beyond them, Arrow's cast refuses a text whose extra
# places are not zeros (it would lose them), and the text is read by the exact text reader.
_TEXT_PLACES = 6


def _codes(
    declared: ast.Input, engine: Engine, array: pa.Array, missing: Array
) -> tuple[Col, Array]:
    """Returns an enum column as codes, and the rows naming no member of the enum."""
    size = len(array)
    if pa.types.is_dictionary(array.type):
        encoded = array
    elif _is_text(array.type):
        encoded = array.dictionary_encode()
    else:
        return Code(np.zeros(size, dtype=np.int16)), ~missing
    members = set(declared.type.members)
    lookup = np.array(
        [engine.codes[m] if m in members else -1 for m in encoded.dictionary.to_pylist()] + [-1],
        dtype=np.int16,
    )
    codes = lookup[_indices(encoded, len(lookup) - 1)]
    unknown = codes < 0
    if not unknown.any():
        return Code(codes), unknown
    return Code(np.where(unknown, 0, codes)), unknown & ~missing


def check_bounds(
    statute: ast.Statute,
    engine: Engine,
    columns: Mapping[str, Col],
    size: int,
    chunk: Chunk | None = None,
) -> Array:
    """Returns the rows that break a declared bound or a `required when` (the scalar path then
    names the field and the bound). A bound that the column's least or greatest row already
    meets is met by every row, and costs no comparison row by row."""
    if chunk is None:
        chunk = Chunk(engine, columns, size)
    broken = np.zeros(size, dtype=bool)
    with np.errstate(over="ignore"):
        for declared in statute.inputs.values():
            if declared.name not in columns:  # a list: its rows go to the scalar path
                continue
            column = columns[declared.name]
            for bound in declared.bounds:
                limit = engine.expr(chunk, bound.value, {}, scale_of(declared.type))
                op = BOUND_COMPARISONS[bound.kind]
                if chunk.always_holds(op, column, limit):
                    continue
                holds = chunk.compare(op, column, limit)
                fails = ~np.broadcast_to(holds.value, (size,))
                if bound.when is not None:
                    when = engine.expr(chunk, bound.when, {}, 1)
                    fails &= np.broadcast_to(when.value, (size,))
                    fails |= np.broadcast_to(when.bad, (size,))
                given = ~np.broadcast_to(column.bad, (size,))
                broken |= (fails | np.broadcast_to(holds.bad, (size,))) & given
            if declared.type.kind == "share":
                one = engine.literal(Fraction(1), 1)
                zero = engine.literal(Fraction(0), 1)
                if not chunk.always_holds(">=", column, zero):
                    broken |= np.broadcast_to(chunk.compare("<", column, zero).value, (size,))
                if not chunk.always_holds("<=", column, one):
                    broken |= np.broadcast_to(chunk.compare(">", column, one).value, (size,))
            elif declared.type.kind == "count":
                assert isinstance(column, Num)
                if not chunk.always_holds(">=", column, engine.literal(Fraction(0), 1)):
                    broken |= np.broadcast_to(np.asarray(column.q) < 0, (size,))
            if declared.required_when is not None:
                needed = engine.expr(chunk, declared.required_when, {}, 1)
                absent = np.broadcast_to(column.bad, (size,))
                broken |= np.broadcast_to(needed.value, (size,)) & absent
    return broken


# ---- results ------------------------------------------------------------------------------------
def result_values(
    statute: ast.Statute, engine: Engine, results: Mapping[str, Col], size: int
) -> dict[str, Any]:
    """Returns each result as a column for output: cents (int64) for money, member names (an
    Arrow string array) for enums, numpy arrays of ints and bools, exact Fractions (a list)
    for other numbers."""
    out: dict[str, Any] = {}
    for name in statute.result_names:
        column = results[name]
        kind = statute.definitions[name].type.kind
        if isinstance(column, Code):
            # Gathered whole, not built as Python strings row by row (which holds the
            # interpreter's lock, so the other thread's chunk waits).
            codes = np.broadcast_to(column.value, (size,))
            out[name] = member_texts(engine.members, codes)
        elif isinstance(column, Flag):
            out[name] = np.broadcast_to(column.value, (size,))
        elif kind == "money":
            out[name] = cents(column, size)
        elif kind == "count":
            out[name] = np.broadcast_to(np.asarray(column.q), (size,))
        else:
            out[name] = exact_values(column, range(size))
    return out


def member_texts(members: Sequence[str], codes: Array) -> pa.Array:
    """Returns each row's member name, for enum codes (indices into `members`), as an Arrow
    string array: by Arrow's `take` when pyarrow.compute is loaded already, else gathered
    from numpy buffers (`gathered_texts`). Loading pyarrow.compute is a thirtieth of a second
    of start-up, and a batch of typed Parquet columns needs it for nothing else."""
    compute = sys.modules.get("pyarrow.compute")
    if compute is None:
        return gathered_texts(members, codes)
    indices = arrow_array(np.asarray(codes, dtype=np.int64))
    return compute.take(pa.array(members, type=pa.string()), indices)


def gathered_texts(members: Sequence[str], codes: Array) -> pa.Array:
    """Returns `member_texts` built from numpy buffers: the members' UTF-8 padded to one
    width, each row's gathered, then the padding dropped."""
    encoded = [member.encode() for member in members]
    lengths = np.array([len(text) for text in encoded], dtype=np.int64)
    width = int(lengths.max(initial=0))
    padded = np.zeros((len(encoded), width), dtype=np.uint8)
    for index, text in enumerate(encoded):
        padded[index, : len(text)] = np.frombuffer(text, dtype=np.uint8)
    filled = np.arange(width) < lengths[:, np.newaxis]
    ends = np.cumsum(lengths[codes])
    if len(ends) and ends[-1] > np.iinfo(np.int32).max:  # beyond 32-bit offsets: not a chunk's
        raise ValueError(f"{len(codes)} rows of member names exceed a string array's 2 GiB")
    offsets = np.zeros(len(codes) + 1, dtype=np.int32)
    offsets[1:] = ends
    data = padded.take(codes, axis=0)[filled.take(codes, axis=0)]
    return pa.Array.from_buffers(
        pa.string(), len(codes), [None, pa.py_buffer(offsets), pa.py_buffer(data)]
    )


def member_names(column: Any) -> pa.Array:
    """Returns an enum result column (member names: the Arrow string array result_values
    gives, or any sequence of strings) as an Arrow string array."""
    if isinstance(column, pa.Array):
        return column
    return pa.array(np.asarray(column, dtype=object).tolist(), type=pa.string())


def json_lines(
    statute: ast.Statute,
    values: Mapping[str, Any],
    size: int,
    readings: str,
    kept: Sequence[tuple[str, pa.Array]] = (),
) -> pa.Array:
    """Returns, for each row, the JSON line of its results and readings (newline included),
    formatted as `Result.to_json` is by `json.dumps`, so both paths write the same bytes; the
    `kept` fields (name, JSON text of each row's value) come first."""
    import json

    import pyarrow.compute as pc

    parts: list[Any] = ["{"]
    for name, texts in kept:
        parts += [f"{json.dumps(name, ensure_ascii=False)}: ", texts, ", "]
    for index, name in enumerate(statute.result_names):
        kind = statute.definitions[name].type.kind
        column = values[name]
        separator = ", " if index else ""
        key = json.dumps(name)
        if kind == "money":
            try:
                cells = decimal_cents(np.asarray(column, dtype=np.int64)).cast(pa.string())
            except OverflowError:  # a row the scalar path computed beyond int64
                texts = [cents_string(Fraction(int(v), CENTS)) for v in column]
                cells = pa.array(texts, type=pa.string())
            parts += [f'{separator}{key}: "', cells, '"']
        elif kind == "enum":
            names = member_names(column)
            # Members are plain identifiers (the grammar's), so quoting is all JSON needs.
            parts += [f'{separator}{key}: "', names, '"']
        elif kind == "bool":
            flags = ["true" if v else "false" for v in column]
            parts += [f"{separator}{key}: ", pa.array(flags, type=pa.string())]
        elif kind == "count":
            counts = arrow_array(np.asarray(column, dtype=np.int64)).cast(pa.string())
            parts += [f"{separator}{key}: ", counts]
        else:
            type_ = statute.definitions[name].type
            texts = [json.dumps(json_value(type_, v)) for v in column]
            parts += [f"{separator}{key}: ", pa.array(texts, type=pa.string())]
    parts += [f', "readings": {readings}}}\n']
    if not any(isinstance(part, pa.Array) for part in parts):
        return pa.array(["".join(parts)] * size, type=pa.string())
    # Adjacent texts made one first: Arrow's join takes time for each part, on every row.
    merged: list[Any] = []
    for part in parts:
        if isinstance(part, str) and merged and isinstance(merged[-1], str):
            merged[-1] += part
        else:
            merged.append(part)
    return pc.binary_join_element_wise(*merged, "")


def decimal_cents(cents_column: Array, nulls: Array | None = None) -> pa.Array:
    """Returns cents as an Arrow decimal(38, 2) array, built from the unscaled integers."""
    return decimal_array(cents_column, pa.decimal128(38, 2), nulls)


def decimal_array(unscaled: Array, type_: pa.DataType, nulls: Array | None = None) -> pa.Array:
    """Returns int64 unscaled values as an Arrow decimal128 array of `type_` (its scale says
    where the point is), null where `nulls` is set."""
    words = np.empty((len(unscaled), 2), dtype=np.int64)
    words[:, 0] = unscaled
    words[:, 1] = unscaled >> 63
    validity, null_count = _validity(nulls)
    return pa.Array.from_buffers(
        type_,
        len(unscaled),
        [validity, pa.py_buffer(words)],  # the buffer keeps `words` alive: no copy
        null_count=null_count,
    )


def scalar_row(row: Mapping[str, object]) -> dict[str, object]:
    """Returns a table row as the scalar path reads a scenario: decimals as exact number text,
    absent (null) fields left out."""
    scenario: dict[str, object] = {}
    for name, value in row.items():
        if value is not None:
            scenario[name] = _scalar_value(value)
    return scenario


def _scalar_value(value: object) -> object:
    """Returns a cell as the scalar path reads it: decimals as exact number text, inside a
    list of records (a Parquet list of structs) too."""
    if isinstance(value, decimal.Decimal):
        return ExactNumber(str(value))
    if isinstance(value, list):
        return [_scalar_value(item) for item in value]
    if isinstance(value, dict):
        return {k: _scalar_value(v) for k, v in value.items() if v is not None}
    return value


def text_row(statute: ast.Statute, row: Mapping[str, object]) -> dict[str, object]:
    """Returns a row of text cells (CSV) as the scalar path reads a scenario: numbers as exact
    number text, `true`/`false` as booleans, empty cells left out."""
    scenario: dict[str, object] = {}
    for name, value in row.items():
        if value is None:
            continue
        declared = statute.inputs.get(name)
        kind = declared.type.kind if declared is not None else None
        if kind == "bool" and isinstance(value, str) and value.lower() in ("true", "false"):
            scenario[name] = value.lower() == "true"
        elif kind in ("count", "money", "number") and isinstance(value, str):
            scenario[name] = ExactNumber(value.strip())
        else:
            scenario[name] = value
    return scenario


def value_cells(statute: ast.Statute, result_values_: Mapping[str, Value]) -> dict[str, object]:
    """Returns one scalar result as output cells (cents for money), to merge into columns."""
    cells: dict[str, object] = {}
    for name in statute.result_names:
        value = result_values_[name]
        kind = statute.definitions[name].type.kind
        cells[name] = to_cents(value) if kind == "money" and value is not None else value  # type: ignore[arg-type]
    return cells
