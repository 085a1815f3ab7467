"""Dates and durations: the calendar arithmetic of the encoding language.

A date is a day of the proleptic Gregorian calendar, from 0001-01-01 to 9999-12-31 (Python's
`datetime.date`). A duration is a number of months and a number of days (a year is twelve
months, a week seven days), each of either sign. The arithmetic follows Catala's dates
library:

- `date + duration` adds the months first (the day of the month kept), then the days. When the
  day does not exist in the month reached (2024-01-31 + 1 month, 2024-02-29 + 1 year), the
  computation is ambiguous: the encoding's rounding decides (`dates round-down`: the last day of
  that month; `dates round-up`: the first day of the next month; `dates refuse-ambiguous`, the
  default: an evaluation error at the expression);
- `date - duration` is `date + (-duration)`; `date - date` is a duration in days;
- two durations compare (and are equal) when both are in days, or both in months and years; a
  comparison of a duration with months against one with days (is 1 month more than 30 days?)
  is ambiguous and always an evaluation error.
"""

from __future__ import annotations

import calendar
import datetime
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from . import ast

Rounding = ast.DateRounding
ROUNDINGS: tuple[Rounding, ...] = ("refuse-ambiguous", "round-down", "round-up")
DEFAULT_ROUNDING: Rounding = "refuse-ambiguous"

FIRST = datetime.date.min.toordinal()  # 0001-01-01 is day 1
LAST = datetime.date.max.toordinal()  # 9999-12-31

# The units a duration literal is written in, and what one of each is.
UNITS: dict[str, tuple[int, int]] = {
    "day": (0, 1),
    "days": (0, 1),
    "week": (0, 7),
    "weeks": (0, 7),
    "month": (1, 0),
    "months": (1, 0),
    "year": (12, 0),
    "years": (12, 0),
}

_ISO = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


class DateError(Exception):
    """A date computation the encoding does not define: an ambiguous month end, a comparison
    of months with days, a date outside the calendar."""


@dataclass(frozen=True, order=False)
class Duration:
    """A duration: `months` (a year is 12) and `days` (a week is 7), each of either sign."""

    months: int = 0
    days: int = 0

    def __add__(self, other: object) -> Duration:
        if not isinstance(other, Duration):
            return NotImplemented
        return Duration(self.months + other.months, self.days + other.days)

    def __sub__(self, other: object) -> Duration:
        if not isinstance(other, Duration):
            return NotImplemented
        return Duration(self.months - other.months, self.days - other.days)

    def __neg__(self) -> Duration:
        return Duration(-self.months, -self.days)

    def __str__(self) -> str:
        return show_duration(self)


ZERO = Duration()


def parse_iso(text: str) -> datetime.date | None:
    """Returns the date an ISO `YYYY-MM-DD` text names, None when it names no day of the
    calendar (2023-02-29, 2024-13-01) or is not of that form."""
    if not _ISO.fullmatch(text):
        return None
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        return None


def iso(value: datetime.date) -> str:
    """Returns a date as ISO `YYYY-MM-DD`."""
    return value.isoformat()


def show_duration(value: Duration) -> str:
    """Returns a duration for people: `2 years`, `1 year 6 months`, `30 days`, `0 days`."""
    parts = []
    years, months = divmod(abs(value.months), 12)
    sign = "-" if value.months < 0 else ""
    if years:
        parts.append(f"{sign}{years} year{'s' if years != 1 else ''}")
    if months:
        parts.append(f"{sign}{months} month{'s' if months != 1 else ''}")
    if value.days or not parts:
        parts.append(f"{value.days} day{'s' if abs(value.days) != 1 else ''}")
    return " ".join(parts)


_PIECE = re.compile(r"\s*(-?[0-9]{1,6})\s+(days?|weeks?|months?|years?)\s*")


def parse_duration(text: str) -> Duration | None:
    """Returns the duration a text such as `30 days`, `2 years`, `1 year 6 months` names,
    None when it names none."""
    months = days = 0
    position = 0
    if not text.strip():
        return None
    while position < len(text):
        match = _PIECE.match(text, position)
        if match is None:
            return None
        count = int(match.group(1))
        per_months, per_days = UNITS[match.group(2)]
        months += count * per_months
        days += count * per_days
        position = match.end()
    return Duration(months, days)


def json_duration(value: Duration) -> dict[str, int]:
    """Returns a duration for JSON: `{"months": 24, "days": 0}`."""
    return {"months": value.months, "days": value.days}


def add(day: datetime.date, duration: Duration, rounding: Rounding) -> datetime.date:
    """Returns `day + duration`: the months added first, keeping the day of the month (rounded
    by `rounding` when that month is too short), then the days. Raises DateError when the day
    is ambiguous and `rounding` refuses, or the result is outside the calendar."""
    result = day
    if duration.months:
        index = day.year * 12 + (day.month - 1) + duration.months
        year, month = divmod(index, 12)
        month += 1
        if not 1 <= year <= 9999:
            raise DateError(f"{iso(day)} + {show_duration(duration)} is outside the calendar")
        length = calendar.monthrange(year, month)[1]
        if day.day <= length:
            result = datetime.date(year, month, day.day)
        elif rounding == "round-down":
            result = datetime.date(year, month, length)
        elif rounding == "round-up":
            result = datetime.date(year, month, length) + datetime.timedelta(days=1)
        else:
            raise DateError(
                f"{iso(day)} + {show_duration(duration)} is ambiguous: "
                f"{year:04d}-{month:02d} has no day {day.day}"
            )
    ordinal = result.toordinal() + duration.days
    if not FIRST <= ordinal <= LAST:
        raise DateError(f"{iso(day)} + {show_duration(duration)} is outside the calendar")
    return datetime.date.fromordinal(ordinal)


def between(later: datetime.date, earlier: datetime.date) -> Duration:
    """Returns `later - earlier`, a duration in days (negative when `later` is earlier)."""
    return Duration(0, later.toordinal() - earlier.toordinal())


def comparable(left: Duration, right: Duration) -> tuple[int, int]:
    """Returns the two durations as numbers of one unit (days, or months); raises DateError
    when one has months and the other days: whether a month is more than 30 days depends on
    the month."""
    if left.months == 0 and right.months == 0:
        return left.days, right.days
    if left.days == 0 and right.days == 0:
        return left.months, right.months
    raise DateError(
        f"{show_duration(left)} and {show_duration(right)} cannot be compared: one counts "
        "months, the other days"
    )


def compare(op: str, left: Duration, right: Duration) -> bool:
    """Returns the comparison `op` of two durations (see `comparable`)."""
    a, b = comparable(left, right)
    return _ORDER[op](a, b)


_ORDER: dict[str, Callable[[int, int], bool]] = {
    "=": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}


def make(year: int, month: int, day: int) -> datetime.date:
    """Returns the date of a year, month and day; raises DateError when there is none."""
    try:
        return datetime.date(year, month, day)
    except (ValueError, OverflowError):
        raise DateError(f"there is no date {year}-{month}-{day}") from None


def part(which: str, day: datetime.date) -> int:
    """Returns the year, month (1-12) or day of the month (1-31) of a date."""
    return {"year": day.year, "month": day.month, "day": day.day}[which]


# ---- the words of a statute -------------------------------------------------------------------

_MONTHS = {name.lower(): index for index, name in enumerate(calendar.month_name) if name}
_WRITTEN_DATES = (
    re.compile(r"\b([0-9]{4})-([0-9]{2})-([0-9]{2})\b"),
    re.compile(r"\b([A-Z][a-z]+)\s+([0-9]{1,2}),?\s+([0-9]{4})\b"),  # January 1, 2024
    re.compile(r"\b([0-9]{1,2})\s+([A-Z][a-z]+),?\s+([0-9]{4})\b"),  # 1 January 2024
)


_MONTH_DAYS = (
    re.compile(r"\b([A-Z][a-z]+)\s+([0-9]{1,2})\b"),  # December 31
    re.compile(r"\b([0-9]{1,2})\s+([A-Z][a-z]+)\b"),  # 31 December
)


def stated_month_days(words: str) -> set[tuple[int, int]]:
    """Returns every (month, day) `words` state by a month's name and a day of it, with or
    without a year: "December 31 of the tax year" states (12, 31)."""
    found: set[tuple[int, int]] = set()
    for index, pattern in enumerate(_MONTH_DAYS):
        for match in pattern.finditer(words):
            name, day = (match[1], match[2]) if index == 0 else (match[2], match[1])
            month = _MONTHS.get(name.lower(), 0)
            if month and 1 <= int(day) <= calendar.monthrange(2000, month)[1]:
                found.add((month, int(day)))
    return found


def stated_dates(words: str) -> set[datetime.date]:
    """Returns every date `words` state: `2024-01-01`, `January 1, 2024`, `1 January 2024`."""
    return {day for _, _, day in date_spans(words)}


def date_spans(words: str) -> list[tuple[int, int, datetime.date]]:
    """Returns where `words` state each date (start, end, the date), in order of place:
    `2024-01-01`, `January 1, 2024`, `1 January 2024`."""
    found: list[tuple[int, int, datetime.date]] = []
    for index, pattern in enumerate(_WRITTEN_DATES):
        for match in pattern.finditer(words):
            a, b, c = match.groups()
            if index == 0:
                parts = (int(a), int(b), int(c))
            elif index == 1:
                parts = (int(c), _MONTHS.get(a.lower(), 0), int(b))
            else:
                parts = (int(c), _MONTHS.get(b.lower(), 0), int(a))
            try:
                found.append((match.start(), match.end(), datetime.date(*parts)))
            except ValueError:
                continue
    return sorted(found, key=lambda span: span[0])


# ---- which expressions are dates -------------------------------------------------------------


def kind_of(
    statute: ast.Statute, expr: ast.Expr, scope: Mapping[str, ast.Type] | None = None
) -> str | None:
    """Returns "date" or "duration" for an expression of that type in a checked encoding, None
    for any other (`scope` holds the types of the names bound around it: a rule's parameters,
    the fields of an aggregate's elements). The evaluator and the proof model use it to choose
    calendar arithmetic where the checker found dates."""
    scope = scope or {}
    if isinstance(expr, ast.Literal):
        return expr.unit if expr.unit in ("date", "duration") else None
    if isinstance(expr, ast.Ref):
        if expr.name in scope:
            found = scope[expr.name]
        elif expr.name in statute.inputs:
            found = statute.inputs[expr.name].type
        elif expr.name in statute.definitions:
            found = statute.definitions[expr.name].type
        else:
            return None
        return found.kind if found.kind in ("date", "duration") else None
    if isinstance(expr, ast.BinOp):
        left = kind_of(statute, expr.left, scope)
        right = kind_of(statute, expr.right, scope)
        if left == "date" and right == "date":
            return "duration"
        if "date" in (left, right):
            return "date"
        return "duration" if "duration" in (left, right) else None
    if isinstance(expr, ast.Neg):
        return kind_of(statute, expr.operand, scope)
    if isinstance(expr, ast.If):
        return kind_of(statute, expr.then, scope) or kind_of(statute, expr.otherwise, scope)
    if isinstance(expr, ast.Call):
        if expr.name == "date":
            return "date"
        if expr.name in ("min", "max"):
            return next((k for a in expr.args if (k := kind_of(statute, a, scope))), None)
        definition = statute.definitions.get(expr.name)
        if definition is not None and definition.type.kind in ("date", "duration"):
            return definition.type.kind
        return None
    if isinstance(expr, ast.Aggregate) and expr.op in ("min", "max") and expr.field:
        record = statute.record_of(expr.source)
        declared = record.fields.get(expr.field) if record is not None else None
        return "date" if declared is not None and declared.type.kind == "date" else None
    return None


def record_scope(statute: ast.Statute, expr: ast.Aggregate) -> dict[str, ast.Type]:
    """Returns the types of the fields an aggregate's `where` condition names."""
    record = statute.record_of(expr.source)
    return {} if record is None else {f.name: f.type for f in record.fields.values()}


def uses_dates(statute: ast.Statute) -> bool:
    """True when the encoding declares or computes a date or a duration anywhere: the fast
    path and the columnar batch defer such an encoding to the reference evaluator."""
    from .checker import definition_expressions, walk

    if any(t.kind in ("date", "duration") for t in statute.declared_types):
        return True
    expressions = [
        *(e for d in statute.definitions.values() for e in definition_expressions(d)),
        *(invariant.expr for invariant in statute.invariants),
    ]
    return any(
        (isinstance(node, ast.Literal) and node.unit in ("date", "duration"))
        or isinstance(node, ast.PartOf)
        or (isinstance(node, ast.Call) and node.name == "date")
        for expr in expressions
        for node in walk(expr)
    )
