"""The numbers a clause's words state, in digits ("$1,500", "40 percent") or words ("one-third").

Used by the checker: every number a rule uses must be stated by the clause the rule sits in.
"""

from __future__ import annotations

import re
from fractions import Fraction

_NUMERAL = re.compile(r"(?<![\w.])\$?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?")
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
    "twelve": Fraction(12),
    "twenty": Fraction(20),
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


def stated_numbers(words: str) -> set[Fraction]:
    """Returns every number `words` states, as exact values (commas and `$` dropped)."""
    found: set[Fraction] = set()
    for match in _NUMERAL.finditer(words):
        whole, decimals = match.group(1).replace(",", ""), match.group(2) or ""
        found.add(Fraction(whole + decimals))
    for match in _WORD.finditer(words.lower()):
        if match.group() in _WORD_NUMBERS:
            found.add(_WORD_NUMBERS[match.group()])
    return found
