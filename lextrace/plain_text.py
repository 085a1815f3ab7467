"""Text columns of plain numbers, cast by Arrow in one call: the texts Arrow's exact casts read
as the scalar reader does (an optional minus, digits, optionally a point and more digits).

Any other column (fractions, exponents, a plus sign, spaces, ".5") is read text by text. The
texts are told apart by their bytes, with numpy: every byte a digit, a point or a minus, and no
text beginning or ending with a point or ending with a minus. The forms those bytes can still
make that are not plain numbers ("1.2.3", "5-3", "--5") are refused by the cast itself, which
fails as a whole rather than read them: the column then goes text by text.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

_POINT, _MINUS, _SLASH, _ZERO = ord("."), ord("-"), ord("/"), ord("0")
# The longest text cast: a minus and 30 digits. Arrow's cast to decimal128(38, 6) does not
# always refuse what it cannot hold: pyarrow 26 reads "4" followed by 32 zeros as another
# number, silently. Longer texts (far beyond any int64 amount) are read text by text.
LONGEST_TEXT = 31


def plain_decimals(array: pa.Array, places: int) -> pa.Array | None:
    """Returns a string column cast exactly to decimal128(38, places) when every text that is
    not null (and one is) is a plain decimal of at most LONGEST_TEXT bytes; None otherwise.
    Arrow's cast refuses a text with more places than `places` that are not all zeros."""
    if not _plain_bytes(array, decimal=True):
        return None
    try:
        return array.cast(pa.decimal128(38, places))
    except pa.ArrowInvalid:
        return None


def plain_wholes(array: pa.Array) -> pa.Array | None:
    """Returns a string column cast to int64 when every text that is not null (and one is) is
    a string of digits within int64's range; None otherwise."""
    if not _plain_bytes(array, decimal=False):
        return None
    try:
        return array.cast(pa.int64())
    except pa.ArrowInvalid:  # beyond int64's range
        return None


def could_be_plain(array: pa.Array) -> bool:
    """True when the texts' bytes allow plain decimals (what `plain_decimals` checks before it
    casts): a cheap test of whether a dictionary is worth decoding for the cast."""
    return _plain_bytes(array, decimal=True)


def _plain_bytes(array: pa.Array, decimal: bool) -> bool:
    """True when every text that is not null (and one is) is made of digits only, or, when
    `decimal`, of digits, points and minus signs, neither beginning with a point nor ending
    with one or with a minus, not beginning with "-.", and at most LONGEST_TEXT bytes. A null
    row's bytes (Arrow leaves them empty) are checked with the rest, so they can make the
    answer False, never True."""
    size = len(array)
    if size == 0 or array.null_count == size:
        return False
    _, offsets_buffer, data_buffer = array.buffers()[:3]
    width = np.int64 if pa.types.is_large_string(array.type) else np.int32
    raw = np.frombuffer(offsets_buffer, dtype=width, count=array.offset + size + 1)
    offsets = raw[array.offset :]
    first = int(offsets[0])
    starts, ends = offsets[:-1], offsets[1:]
    if array.null_count:
        valid = np.asarray(array.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
        starts, ends = starts[valid], ends[valid]
    lengths = ends - starts
    if int(lengths.min()) == 0 or (decimal and int(lengths.max()) > LONGEST_TEXT):
        return False
    data = np.frombuffer(data_buffer, dtype=np.uint8, count=int(offsets[-1]))
    span = data[first:]
    if not decimal:
        return int(np.subtract(span, _ZERO, dtype=np.uint8).max()) <= 9
    # From '-' (45) to '9' (57), '/' (47) alone is not a digit, a point or a minus.
    shifted = np.subtract(span, _MINUS, dtype=np.uint8)
    if int(shifted.max()) > ord("9") - _MINUS or np.any(shifted == _SLASH - _MINUS):
        return False
    leading, trailing = data[starts], data[ends - 1]
    if np.any(leading == _POINT) or np.any((trailing == _POINT) | (trailing == _MINUS)):
        return False
    # A text that begins with '-' has a second byte: it does not end with '-'.
    signed = starts[leading == _MINUS]
    return not np.any(data[signed + 1] == _POINT)
