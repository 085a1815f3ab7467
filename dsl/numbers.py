"""The numbers a clause's words state, in digits ("$1,500", "40 percent") or words ("one-third").

Used by the checker: every number a rule uses must be stated by the clause the rule sits in.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

_NUMERAL = re.compile(r"(?<![\w.])\$?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?")
# A fraction in digits ("20/200", the visual acuity of a definition of blindness).
_DIGIT_FRACTION = re.compile(r"(?<![\w.,/])(\d+)/([1-9]\d*)(?![\w/]|[.,]\d)")
_WORD_NUMBERS = {
    "one": Fraction(1),
    "two": Fraction(2),
    "three": Fraction(3),
    "four": Fraction(4),
    "five": Fraction(5),
    "six": Fraction(6),
    "seven": Fraction(7),
    "eight": Fraction(8),
    "nine": Fraction(9),
    "ten": Fraction(10),
    "eleven": Fraction(11),
    "twelve": Fraction(12),
    "thirteen": Fraction(13),
    "fourteen": Fraction(14),
    "fifteen": Fraction(15),
    "sixteen": Fraction(16),
    "seventeen": Fraction(17),
    "eighteen": Fraction(18),
    "nineteen": Fraction(19),
    "twenty": Fraction(20),
    "thirty": Fraction(30),
    "forty": Fraction(40),
    "fifty": Fraction(50),
    "sixty": Fraction(60),
    "seventy": Fraction(70),
    "eighty": Fraction(80),
    "ninety": Fraction(90),
    "hundred": Fraction(100),
    "half": Fraction(1, 2),
    "one-half": Fraction(1, 2),
    "one-third": Fraction(1, 3),
    "two-thirds": Fraction(2, 3),
    "one-quarter": Fraction(1, 4),
    "one-fourth": Fraction(1, 4),
    "three-quarters": Fraction(3, 4),
    "three-fourths": Fraction(3, 4),
    "one-fifth": Fraction(1, 5),
    "one-tenth": Fraction(1, 10),
}
_WORD = re.compile(r"[a-z]+(?:-[a-z]+)?")
_TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_ONES = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
# "twenty-one" ... "ninety-nine"
_WORD_NUMBERS.update(
    {
        f"{tens}-{ones}": _WORD_NUMBERS[tens] + _WORD_NUMBERS[ones]
        for tens in _TENS
        for ones in _ONES
    }
)
# The units of time a duration is stated in, singular.
TIME_UNITS = ("day", "week", "month", "year")
_UNIT_WORDS = {
    "day": "day",
    "days": "day",
    "week": "week",
    "weeks": "week",
    "month": "month",
    "months": "month",
    "year": "year",
    "years": "year",
}
# A number in digits or words, an optional "(30)" after words, then a unit of time:
# "2 years", "five years", "thirty (30) days", "a 2-year period", "90 calendar days".
_DURATION = re.compile(
    r"(?<![\w.])([0-9]+|[a-z]+(?:-[a-z]+)?)(?:\s*\(([0-9]+)\))?[\s-]+(?:calendar\s+)?"
    r"(" + "|".join(f"{unit}s?" for unit in TIME_UNITS) + r")\b"
)


@dataclass(frozen=True)
class StatedNumber:
    """One number as `words` state it: its exact value, where it is written (`start` at its
    `$` when it has one, `end` after its last digit or letter) and whether it is in words."""

    value: Fraction
    start: int
    end: int
    in_words: bool


def stated_number_spans(words: str) -> list[StatedNumber]:
    """Returns every number `words` state, in digits ("$1,500", "40", and "20/200" both as a
    fraction and as its two numbers) or in words ("one-third", "ten"), in the order they are
    written."""
    found: list[StatedNumber] = []
    for match in _NUMERAL.finditer(words):
        if _is_label(words, match.start(), match.end()):
            continue
        whole, decimals = match.group(1).replace(",", ""), match.group(2) or ""
        found.append(StatedNumber(Fraction(whole + decimals), match.start(), match.end(), False))
    for match in _DIGIT_FRACTION.finditer(words):
        value = Fraction(int(match.group(1)), int(match.group(2)))
        found.append(StatedNumber(value, match.start(), match.end(), False))
    for match in _WORD.finditer(words.lower()):
        if match.group() in _WORD_NUMBERS:
            found.append(
                StatedNumber(_WORD_NUMBERS[match.group()], match.start(), match.end(), True)
            )
    return sorted(found, key=lambda number: number.start)


_LABEL_END = re.compile(r"[A-Za-z]{0,2}\)")
_WORD_BEFORE = re.compile(r"([\w-]+)\s*$")


def _is_label(words: str, start: int, end: int) -> bool:
    """True when the digits at words[start:end] are a subdivision's label or a reference to one
    ("subsection (b)(1)", "paragraph (2)"), not a number: in parentheses, and not restating
    the number written in words before them ("thirty (30) days")."""
    if start == 0 or words[start - 1] != "(" or not _LABEL_END.match(words, end):
        return False
    before = _WORD_BEFORE.search(words, 0, start - 1)
    return before is None or before.group(1).lower() not in _WORD_NUMBERS


def stated_numbers(words: str) -> set[Fraction]:
    """Returns every number `words` states, as exact values (commas and `$` dropped)."""
    return {number.value for number in stated_number_spans(words)}


def unit_word(unit: str) -> str:
    """Returns the singular of a unit of time: `day`, `week`, `month`, `year`."""
    return _UNIT_WORDS[unit]


def stated_durations(words: str) -> set[tuple[Fraction, str]]:
    """Returns every duration `words` state, as (number, singular unit): "2 years" and
    "two years" give (2, "year"), "thirty (30) days" (30, "day"), "a 5-year period"
    (5, "year")."""
    found: set[tuple[Fraction, str]] = set()
    for match in _DURATION.finditer(words.lower()):
        number, digits, unit = match.groups()
        values = {Fraction(digits)} if digits else set()
        if number.isdigit():
            values.add(Fraction(number))
        elif number in _WORD_NUMBERS:
            values.add(_WORD_NUMBERS[number])
        found.update((value, _UNIT_WORDS[unit]) for value in values)
    return found
