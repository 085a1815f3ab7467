"""Exact values and their display: money rounded half-up to the cent, shares as percentages.

Nothing here ever goes through a binary float.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from fractions import Fraction

from .dates import Duration


@dataclass(frozen=True)
class Derived:
    """In a scenario's validated inputs, an input it does not give but derives (`derived by
    RULE when ...`): the evaluation computes it by `rule`, in the clause that says how."""

    rule: str


# A list input's value is a tuple of its elements, each a dict of field -> value; a date is a
# `datetime.date`, a duration a `dates.Duration`.
Value = (
    Fraction
    | int
    | bool
    | str
    | datetime.date
    | Duration
    | tuple[dict[str, object], ...]
    | Derived
    | None
)

CENTS = 100  # cents to the dollar: money is rounded, and computed exactly, in cents


def to_cents(amount: Fraction | int) -> int:
    """Returns `amount` in whole cents, rounded half-up (halves away from zero). (I20)"""
    scaled = Fraction(amount) * CENTS
    magnitude = abs(scaled)
    whole = magnitude.numerator // magnitude.denominator
    if magnitude - whole >= Fraction(1, 2):
        whole += 1
    return whole if scaled >= 0 else -whole


def cents_string(amount: Fraction | int) -> str:
    """Returns `amount` as a decimal string rounded to the cent, e.g. `4250.00`. (I20)"""
    cents = to_cents(amount)
    sign = "-" if cents < 0 else ""
    cents = abs(cents)
    return f"{sign}{cents // CENTS}.{cents % CENTS:02d}"


def dollars(amount: Fraction | int) -> str:
    """Returns `amount` as dollars for people, e.g. `$4,250.00`; marks inexact cents with `≈`."""
    cents = to_cents(amount)
    sign = "-" if cents < 0 else ""
    cents = abs(cents)
    text = f"{sign}${cents // CENTS:,}.{cents % CENTS:02d}"
    return text if Fraction(amount) * CENTS == to_cents(amount) else f"≈{text}"


def exact_string(value: Fraction | int) -> str:
    """Returns an exact rational as text: `3/20`, `7`, `-1/3`."""
    value = Fraction(value)
    if value.denominator == 1:
        return str(value.numerator)
    return f"{value.numerator}/{value.denominator}"


def decimal_string(value: Fraction | int, places: int = 4) -> str:
    """Returns a number as a decimal; exact when it terminates within `places`, else `≈...`."""
    value = Fraction(value)
    scaled = value * 10**places
    rounded = to_cents(scaled / 100)  # half-up at `places` decimals
    sign = "-" if rounded < 0 else ""
    digits = f"{abs(rounded):0{places + 1}d}"
    text = f"{sign}{digits[:-places]}.{digits[-places:]}".rstrip("0").rstrip(".")
    return text if scaled.denominator == 1 else f"≈{text}"


def percent(value: Fraction | int) -> str:
    """Returns a ratio as a percentage, e.g. `15%`, `≈33.3333%`."""
    return decimal_string(Fraction(value) * 100) + "%"
