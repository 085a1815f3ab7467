"""Text columns of plain numbers, cast by Arrow in one call: never a text read otherwise than
the exact text reader would, and every column the plain-decimal pattern matches so cast."""

from __future__ import annotations

import re
from fractions import Fraction

import pyarrow as pa
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lextrace.plain_text import LONGEST_TEXT, could_be_plain, plain_decimals, plain_wholes

# Texts made mostly of the bytes that matter, with a few others (a plus, an exponent, a space,
# a slash, a letter beyond ASCII) so that near misses are common.
texts = st.text(alphabet=st.sampled_from("0123456789" * 3 + "..--+e /é"), max_size=12)
long_texts = st.from_regex(r"-?[0-9]{28,34}(\.[0-9]{5,8})?", fullmatch=True)
columns = st.lists(st.none() | texts | long_texts, max_size=30)

# What the cast used to be kept for, and must still be: the texts the exact reader reads as
# plain decimals with at most six places (within LONGEST_TEXT bytes: longer ones are beyond
# any int64 amount), and plain whole numbers within 18 digits.
PLAIN = re.compile(r"-?[0-9]{1,30}(\.[0-9]{1,6})?")
WHOLE = re.compile(r"[0-9]{1,18}")
# What the cast may take beyond those: any plain decimal it holds exactly.
DECIMAL = re.compile(r"-?[0-9]+(\.[0-9]+)?")


def _sliced(values: list[str | None], large: bool, cut: int) -> tuple[pa.Array, list[str | None]]:
    """The texts as a slice of a larger array (offsets and bytes begin inside its buffers)."""
    array = pa.array(["9", *values, "9"], pa.large_string() if large else pa.string())
    cut = min(cut, len(values))
    return array.slice(1 + cut, len(values) - cut), values[cut:]


@settings(max_examples=500, deadline=None)
@given(values=columns, large=st.booleans(), cut=st.integers(0, 3))
@example(["1.5", "2"], False, 0)
@example(["5.", "3"], False, 0)  # a point at a text's end, a digit after it
@example(["3", ".5"], False, 0)  # a point at a text's start, a digit before it
@example(["-", "3"], False, 0)  # a minus alone, a digit after it
@example(["-.5"], False, 0)
@example(["1.2.3"], False, 0)
@example(["5-3", "--5"], False, 0)
@example(["", None], False, 0)
@example(["1.1234560", "1.1234567"], False, 0)  # a seventh place: zero, and not
@example(["1" * 31, "-" + "1" * 30], False, 0)  # the longest texts cast
@example(["4" + "0" * 32], False, 0)  # a text Arrow's cast reads as another number
def test_plain_decimals_are_cast_exactly(values: list[str | None], large: bool, cut: int) -> None:
    array, values = _sliced(values, large, cut)
    given_texts = [v for v in values if v is not None]
    cast = plain_decimals(array, 6)
    if given_texts and all(PLAIN.fullmatch(v) and len(v) <= LONGEST_TEXT for v in given_texts):
        assert cast is not None
        assert could_be_plain(array)
    if cast is None:
        return
    assert given_texts
    for text, number in zip(values, cast.to_pylist(), strict=True):
        if text is None:
            assert number is None
            continue
        assert DECIMAL.fullmatch(text), text
        assert Fraction(number) == Fraction(text)


@settings(max_examples=300, deadline=None)
@given(
    values=st.lists(
        st.none() | texts | st.from_regex(r"[0-9]{17,21}", fullmatch=True), max_size=20
    ),
    large=st.booleans(),
    cut=st.integers(0, 3),
)
@example(["9223372036854775807", "9223372036854775808"], False, 0)  # int64's greatest, and one more
@example(["-5"], False, 0)
def test_plain_wholes_are_cast_exactly(values: list[str | None], large: bool, cut: int) -> None:
    array, values = _sliced(values, large, cut)
    given_texts = [v for v in values if v is not None]
    cast = plain_wholes(array)
    if given_texts and all(WHOLE.fullmatch(v) for v in given_texts):
        assert cast is not None
    if cast is None:
        return
    for text, number in zip(values, cast.to_pylist(), strict=True):
        assert number is None if text is None else (text.isascii() and int(text) == number)


@pytest.mark.parametrize(
    ("values", "plain"),
    [
        (["0", "-0.5", "123456.000001"], True),
        (["1e3"], False),
        (["+1"], False),
        ([" 1"], False),
        (["1/3"], False),
        ([None, None], False),
        ([], False),
    ],
)
def test_plain_decimals_by_example(values: list[str | None], plain: bool) -> None:
    assert (plain_decimals(pa.array(values, pa.string()), 6) is not None) is plain
