"""Scenarios: read from JSON, YAML or TOML exactly, and validated against the declared inputs.

The input declarations of the encoding are the contract: field names, types, defaults, bounds.
Money and numbers are read as exact decimals (never through a binary float); shares also accept
fractions such as "1/3". Every problem is reported with the field, what was expected and what
was given.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import datetime
import difflib
import json
import math
import numbers
import re
import sys
import tomllib
from collections.abc import Callable, Iterator, Mapping
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from pathlib import Path
from typing import Any, BinaryIO

from . import ast, dates, list_files
from .checker import walk
from .errors import FieldProblem, ScenarioError
from .evaluator import Evaluation, compiled
from .reserved import META_KEY, READINGS_KEY, RESERVED_KEYS
from .scenario_fast import quick_validator
from .suggest import closest
from .values import Derived, Value, decimal_string, exact_string

MAX_SCENARIO_BYTES = 1_000_000
_MAX_NUMBER_CHARS = 40
_MAX_EXPONENT = 30
_LIMIT = 10 ** (_MAX_EXPONENT + 1)  # numbers are read only below this size (and above 1/_LIMIT)
_OUT_OF_RANGE = (
    f"too long or too large: a number here has at most {_MAX_NUMBER_CHARS} characters and lies "
    f"between 1e-{_MAX_EXPONENT} and 1e{_MAX_EXPONENT + 1} in size"
)
_MAX_NESTING = "a document nested too deeply to read"
_DECIMAL = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")
_FRACTION = re.compile(r"\s*([+-]?\d+)\s*/\s*(\d+)\s*")


_NUMERIC = ("count", "number", "share", "money")


# True while scenarios are read for someone who may not name files here (`lextrace serve`): a list
# input given as a path is then refused, never read.
_INLINE_LISTS_ONLY: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "inline_lists_only", default=False
)


@contextlib.contextmanager
def inline_lists_only() -> Iterator[None]:
    """Within this block, a list input given as a string (the path of a CSV or Parquet file) is
    refused as a problem of its field, and no file is read: for scenarios that come from a
    network request, whose sender may not make the reader open files."""
    token = _INLINE_LISTS_ONLY.set(True)
    try:
        yield
    finally:
        _INLINE_LISTS_ONLY.reset(token)


class ExactNumber(str):
    """A number as written in the scenario file, kept as text until it is read exactly."""

    __slots__ = ()


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number")


def _read_int(text: str) -> int | ExactNumber:
    """Reads a JSON integer; a very long one stays text, refused by name as out of range
    (Python refuses to convert integers of more than 4,300 digits, with a traceback)."""
    return int(text) if len(text) <= _MAX_NUMBER_CHARS else ExactNumber(text)


class _DuplicateField(ValueError):
    """A document gives the same field twice: one of the two values would be silently lost."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(name)


def _unique_object(pairs: list[tuple[str, object]]) -> dict[str, object]:
    found: dict[str, object] = {}
    for name, value in pairs:
        if name in found:
            raise _DuplicateField(name)
        found[name] = value
    return found


def _show(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, ExactNumber):
        return str(value) if len(value) <= 40 else value[:37] + "..."
    if isinstance(value, Fraction):
        if max(abs(value.numerator), value.denominator) >= 10**40:
            return "a fraction of more than 40 digits"
        return exact_string(value)
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return json.dumps(shown, ensure_ascii=False)
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, datetime.date | datetime.time):
        return f"the date or time {value.isoformat()}"
    if isinstance(value, int) and abs(value) >= 10**40:
        return "a whole number of more than 40 digits"
    if isinstance(value, Decimal):
        shown = str(value)  # its own digits: Decimal('3.5') is 3.5, Decimal('NaN') NaN
        return shown if len(shown) <= 40 else shown[:37] + "..."
    if isinstance(value, int | float) and type(value).__module__ == "builtins":
        return repr(value)
    if _is_float(value) or isinstance(value, numbers.Integral):
        return str(value)  # a numpy number: its shortest text, without the type's name
    if isinstance(value, bytes):
        return "binary data"
    if type(value).__name__ in ("NAType", "NaTType"):
        return f"pandas' {value}"
    return f"a value of type {type(value).__name__}"


def _is_missing_value(value: object) -> bool:
    """Whether `value` is how a table marks a missing value: pandas' NA or NaT, or NaN."""
    if type(value).__name__ in ("NAType", "NaTType"):
        return True
    return _is_float(value) and value != value


def _out_of_range(value: object) -> bool:
    """Whether `value` is a number, or a number written as text, refused only for its size."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int | Fraction):
        return abs(value) >= _LIMIT
    if isinstance(value, str):
        text = value.strip()
        if _FRACTION.fullmatch(value):
            return len(value) > _MAX_NUMBER_CHARS
        return bool(_DECIMAL.fullmatch(text)) and _parse_decimal(text) is None
    return False


def _parse_decimal(text: str) -> Fraction | None:
    text = text.strip()
    if len(text) > _MAX_NUMBER_CHARS or not _DECIMAL.fullmatch(text):
        return None
    try:
        number = Decimal(text)
    except InvalidOperation:
        return None
    exponent = number.as_tuple().exponent
    if not isinstance(exponent, int) or abs(exponent) > _MAX_EXPONENT + _MAX_NUMBER_CHARS:
        return None
    if number != 0 and abs(number.adjusted()) > _MAX_EXPONENT:
        return None
    return Fraction(number)


def read_exact(value: object) -> Fraction | None:
    """Returns a JSON/YAML/TOML number or decimal string, or a Python int, Fraction, Decimal or
    numpy integer, as an exact Fraction; None for anything else, binary floats included (they
    hold most decimal amounts only approximately)."""
    if isinstance(value, bool) or _is_numpy_bool(value) or isinstance(value, float):
        return None
    if isinstance(value, Decimal):
        if not value.is_finite() or (value != 0 and abs(value.adjusted()) > _MAX_EXPONENT):
            return None
        return Fraction(value)
    if isinstance(value, int | Fraction):
        return Fraction(value) if abs(value) < _LIMIT else None
    if isinstance(value, numbers.Integral):  # numpy and other integer types
        whole = int(value)
        return Fraction(whole) if abs(whole) < _LIMIT else None
    if isinstance(value, str | ExactNumber):
        return _parse_decimal(str(value))
    return None


def _is_numpy_bool(value: object) -> bool:
    kind = type(value)
    return kind.__name__ in ("bool", "bool_") and kind.__module__ == "numpy"


def _float_hint(given: object) -> str:
    """Returns why a binary float is refused, and what to pass instead."""
    value = float(given)  # type: ignore[arg-type]
    written = _show(given)
    if value.is_integer():
        return (
            f"a binary float is refused even when whole: pass the int {int(value)}, a Decimal "
            'or a Fraction, or read floats by their shortest decimal (floats="shortest")'
        )
    held = f"{Decimal(value):f}"
    if held.rstrip("0").rstrip(".") == written:
        return (
            "a binary float is refused, even one that holds its decimal exactly: pass "
            f'"{written}", a Decimal or a Fraction, or read floats by their shortest decimal '
            '(floats="shortest")'
        )
    return (
        f"a binary float holds most decimals only approximately ({written} is held as "
        f'{held[:24]}...): pass a decimal string such as "{written}", a Decimal or a Fraction, '
        'or read floats by their shortest decimal (floats="shortest")'
    )


FLOATS = ("refuse", "shortest")
"""How a binary float in a scenario is read: refused (the default), or by its shortest
round-trip decimal (`repr(19.1)` is "19.1")."""
PROVENANCE_KEY = "provenance"
"""The key of a result's JSON that says how its inputs were read, when not as written."""


def _check_floats(floats: str) -> None:
    if floats not in FLOATS:
        raise ValueError(f"floats must be one of {', '.join(FLOATS)}, not {floats!r}")


def float_provenance(fields: tuple[str, ...]) -> dict[str, object]:
    """Returns the provenance record of a result whose `fields` (by their paths) were binary
    floats read by their shortest round-trip decimal (floats="shortest")."""
    return {"floats": "shortest", "fields_from_floats": list(fields)}


def field_root(path: str) -> str:
    """Returns the input a field path names: `full_time_jobs` for `full_time_jobs[3].id`."""
    return path.split(".")[0].split("[")[0]


def _is_float(value: object) -> bool:
    """Whether `value` is a binary float: Python's, or a numpy floating scalar."""
    if isinstance(value, float):
        return True
    kind = type(value)
    return (
        kind.__module__ == "numpy"
        and isinstance(value, numbers.Real)
        and not isinstance(value, numbers.Integral)
        and "float" in kind.__name__
    )


def shortest_decimal(value: object) -> Decimal | None:
    """Returns a binary float as the decimal its shortest round-trip text writes (`repr` for
    Python's floats, `str` for numpy's, which is shortest at their own precision); None for a
    NaN or an infinity."""
    text = repr(value) if isinstance(value, float) and type(value) is float else str(value)
    try:
        number = Decimal(text)
    except InvalidOperation:
        return None
    return number if number.is_finite() else None


class _Validator:
    def __init__(
        self, statute: ast.Statute, source: str | None = None, floats: str = "refuse"
    ) -> None:
        self.statute = statute
        self.problems: list[FieldProblem] = []
        self.source = source  # the scenario's file: list files are found beside it
        self.floats = floats
        # The fields whose value was a binary float read by its shortest decimal, in order.
        self.from_floats: list[str] = []

    def problem(self, field: str, expected: str, given: object, hint: str | None = None) -> None:
        if hint is None and _is_missing_value(given):
            hint = "a missing value: leave the field out of the scenario to take its default"
        if hint is None and _out_of_range(given):
            hint = _OUT_OF_RANGE
        if hint is None and _is_float(given):
            number = float(given)  # type: ignore[arg-type]
            if number == number and abs(number) < 1e300:
                hint = _float_hint(given)
        self.problems.append(FieldProblem(field, expected, _show(given), hint))

    def unknown(self, field: str, hint: str | None) -> None:
        self.problems.append(
            FieldProblem(
                field, "one of the fields of the scenario format", "an unknown field", hint
            )
        )

    def convert(self, declared: ast.Input, raw: object, path: str | None = None) -> Value:
        """Returns the exact value of one field (`path` names it in messages: an input's name,
        or `jobs[3].annual_salary` for a field of a list's element); None after a problem."""
        kind = declared.type.kind
        name = declared.name if path is None else path
        if kind == "list":
            return self.convert_list(declared, raw)
        if kind == "text" and raw is not None:
            if isinstance(raw, str) and not isinstance(raw, ExactNumber) and raw.strip():
                return raw
            self.problem(name, "a non-empty string", raw)
            return None
        if raw is None:
            if declared.optional:
                return None
            self.problem(name, self.describe(declared), raw)
            return None
        if kind == "bool":
            if isinstance(raw, bool):
                return raw
            if _is_numpy_bool(raw):
                return bool(raw)
            self.problem(name, "true or false", raw)
            return None
        if kind == "date":
            return self.convert_date(name, raw)
        if self.floats == "shortest" and kind in _NUMERIC and _is_float(raw):
            number = shortest_decimal(raw)
            if number is None:
                self.problem(name, "a finite number", raw, "a NaN or an infinity has no value")
                return None
            before = len(self.problems)
            value = self.convert(declared, number, path)
            if len(self.problems) == before:
                self.from_floats.append(name)
            for index in range(before, len(self.problems)):
                problem = self.problems[index]  # named by the float given, not the decimal
                self.problems[index] = FieldProblem(
                    problem.field,
                    problem.expected,
                    _show(raw),
                    f"read by its shortest decimal, {number}",
                )
            return value
        if kind == "enum":
            if (
                isinstance(raw, str)
                and not isinstance(raw, ExactNumber)
                and (raw in declared.type.members)
            ):
                return raw
            choices = ", ".join(f'"{m}"' for m in declared.type.members)
            close = (
                difflib.get_close_matches(raw, declared.type.members, n=1)
                if isinstance(raw, str)
                else []
            )
            self.problem(
                name, f"one of {choices}", raw, f'did you mean "{close[0]}"?' if close else None
            )
            return None
        if kind == "count":
            number = (
                read_exact(raw)
                if not isinstance(raw, str) or isinstance(raw, ExactNumber)
                else None
            )
            if number is None or number.denominator != 1 or number < 0:
                self.problem(name, self.describe(declared), raw)
                return None
            return int(number)
        if kind == "share":
            number = read_exact(raw)
            if number is None and isinstance(raw, str) and not isinstance(raw, ExactNumber):
                match = _FRACTION.fullmatch(raw)
                if match and len(raw) <= _MAX_NUMBER_CHARS:
                    if int(match.group(2)) == 0:
                        self.problem(
                            name,
                            "a share from 0 to 1 (a fraction needs a non-zero denominator)",
                            raw,
                        )
                        return None
                    number = Fraction(int(match.group(1)), int(match.group(2)))
            if number is None or not 0 <= number <= 1:
                self.problem(
                    name, 'a share from 0 to 1, as a number or a fraction such as "1/3"', raw
                )
                return None
            return number
        # money and number
        number = read_exact(raw)
        if number is None:
            what = (
                'an amount of money: a number such as 65000.50 or "65000.50" (from Python: '
                "an int, str, Decimal or Fraction)"
                if kind == "money"
                else "a number"
            )
            self.problem(name, what, raw)
            return None
        return number

    def derive(
        self,
        declared: ast.Input,
        scenario: Mapping[str, object],
        values: dict[str, Value],
        invalid: set[str],
    ) -> None:
        """Marks an input `derived by RULE when CONDITION` as derived when the condition holds
        (a scenario that gives it too is refused, naming both), else reads it as any input."""
        derived = declared.derived_by
        assert derived is not None
        name = declared.name
        before = len(self.problems)
        condition = derived.condition
        decidable = self.references_valid(condition, invalid)
        if not decidable and name not in scenario:
            # Whether it is derived rests on a field already refused: that one problem is told,
            # not this field's absence as well.
            invalid.add(name)
            return
        if decidable and self.holds(condition, values):
            rule = self.statute.definitions[derived.rule]
            if name in scenario:
                self.problem(
                    name,
                    f"no {name} when {self.source_of(condition)}: it is derived by "
                    f"{derived.rule} ({self.statute.citation(rule.clause)})",
                    scenario[name],
                    "give one of the two",
                )
            values[name] = Derived(derived.rule)
        elif name in scenario:
            values[name] = self.convert(declared, scenario[name])
        elif declared.required:
            self.problem(name, self.describe(declared), None, "the field is missing")
        elif declared.default is not None:
            values[name] = default_value(declared)
        if len(self.problems) > before:
            invalid.add(name)

    def convert_date(self, name: str, raw: object) -> Value:
        """Returns a date given as an ISO string ("2024-01-01") or as a YAML or TOML date
        (taken exactly); a date with a time of day, or any other value, is a problem."""
        if isinstance(raw, datetime.datetime):
            self.problem(name, _DATE, raw, "give the day alone, without a time of day")
            return None
        if isinstance(raw, datetime.date):
            return raw
        if isinstance(raw, str) and not isinstance(raw, ExactNumber):
            found = dates.parse_iso(raw)
            if found is not None:
                return found
            hint = None
            if re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", raw):
                hint = "that day is not in the calendar"
            self.problem(name, _DATE, raw, hint)
            return None
        self.problem(name, _DATE, raw)
        return None

    def from_table(self, declared: ast.Input, values: dict[str, Value], invalid: set[str]) -> None:
        """Gives an input left out of the scenario its table's value in force on 1 January of
        the scenario's year; a missing or uncovered year is a problem at the input's field when
        the input is required."""
        source = declared.from_table
        assert source is not None
        table = self.statute.tables[source.table]
        name = declared.name
        year = values.get(source.year)
        if source.year in invalid:
            invalid.add(name)
            return
        if year is None:
            if declared.required:
                self.problem(
                    name,
                    self.describe(declared),
                    None,
                    f"the field is missing; or give {source.year} to read it from the table "
                    f"{table.name}",
                )
                invalid.add(name)
            elif declared.default is not None:
                values[name] = default_value(declared)
            return
        entry = table.entry_for_year(int(year))
        if entry is None:
            first = table.entries[0].start if table.entries else table.until
            self.problems.append(
                FieldProblem(
                    name,
                    f"{self.describe(declared)} for {source.year} {year}: the table "
                    f"{table.name} covers {first} to {table.until} only",
                    "nothing",
                    f"give {name} for {year}",
                )
            )
            invalid.add(name)
            return
        values[name] = Fraction(entry.value.value)

    def convert_list(self, declared: ast.Input, raw: object) -> Value:
        """Returns a list input as a tuple of elements (each a dict of its fields, defaults
        applied), naming each bad field by its path: `jobs[3].annual_salary` (0-based)."""
        name = declared.name
        record = self.statute.records[declared.type.record]
        if raw is None:
            if not declared.optional:
                self.problem(name, f"a list of {record.name} objects", raw)
            return None
        located: Callable[[int], str] | None = None
        if isinstance(raw, str) and not isinstance(raw, ExactNumber) and _INLINE_LISTS_ONLY.get():
            self.problem(
                name,
                f"a list of {record.name} objects given inline",
                raw,
                "a file is not read here: give the list itself",
            )
            return None
        if isinstance(raw, str) and not isinstance(raw, ExactNumber):
            try:
                raw, located = list_files.read(
                    list_files.resolve(raw, self.source), record, ExactNumber
                )
            except list_files.ListFileError as error:
                self.problem(
                    name,
                    f"a list of {record.name} objects, or the path of a CSV or Parquet file "
                    "of them",
                    raw,
                    str(error),
                )
                return None
        if not isinstance(raw, list | tuple):
            self.problem(name, f"a list of {record.name} objects ({record.description})", raw)
            return None
        before = len(self.problems)
        if located is not None:
            try:
                return self.list_elements(declared, record, raw, before)
            finally:
                self.locate(name, before, located)
        return self.list_elements(declared, record, raw, before)

    def locate(self, name: str, before: int, located: Callable[[int], str]) -> None:
        """Adds to each problem of a list read from a file the row and column it is at."""
        pattern = re.compile(rf"{re.escape(name)}\[([0-9]+)\](?:\.(\w+))?")
        for index in range(before, len(self.problems)):
            problem = self.problems[index]
            match = pattern.fullmatch(problem.field)
            if match is None:
                continue
            where = located(int(match.group(1)))
            if match.group(2):
                where += f", column {match.group(2)}"
            hint = f"{where}; {problem.hint}" if problem.hint else where
            self.problems[index] = FieldProblem(
                problem.field, problem.expected, problem.given, hint
            )

    def list_elements(
        self, declared: ast.Input, record: ast.Record, raw: list | tuple, before: int
    ) -> Value:
        """Returns the elements of a list input read from `raw` (see `convert_list`)."""
        name = declared.name
        elements: list[dict[str, object]] = []
        fields = list(record.fields)
        for index, item in enumerate(raw):
            at = f"{name}[{index}]"
            if not isinstance(item, Mapping):
                expected = f"a {record.name} object with the fields {', '.join(fields)}"
                self.problem(at, expected, item)
                continue
            for key in item:
                if key not in record.fields:
                    close = closest(str(key), fields)
                    self.problems.append(
                        FieldProblem(
                            f"{at}.{key}",
                            f"one of the fields of a {record.name}: {', '.join(fields)}",
                            "an unknown field",
                            f"did you mean '{close}'?" if close else None,
                        )
                    )
            element: dict[str, object] = {}
            for field in record.fields.values():
                path = f"{at}.{field.name}"
                if field.name in item:
                    value = self.convert(field, item[field.name], path)
                    if value is not None:
                        self.check_field_bounds(field, value, path)
                elif field.default is not None:
                    value = default_value(field)
                else:
                    self.problem(path, self.describe(field), None, "the field is missing")
                    value = None
                element[field.name] = value
            elements.append(element)
        self.check_unique(record, name, elements)
        if len(self.problems) > before:
            return None
        for index, element in enumerate(elements):
            self.check_requirements(record, f"{name}[{index}]", element)
        if len(self.problems) > before:
            return None
        return tuple(elements)

    def check_unique(
        self, record: ast.Record, name: str, elements: list[dict[str, object]]
    ) -> None:
        """Adds a problem for each element that repeats another's value of a `unique` field."""
        for field in record.fields.values():
            if not field.unique:
                continue
            first: dict[object, int] = {}
            for index, element in enumerate(elements):
                value = element.get(field.name)
                if value is None:
                    continue
                if value in first:
                    self.problem(
                        f"{name}[{index}].{field.name}",
                        f"{_article(field.name)} {field.name} no other {record.name} has "
                        f"({name}[{first[value]}] "
                        "has this one)",
                        value,
                    )
                else:
                    first[value] = index

    def check_requirements(self, record: ast.Record, at: str, element: dict[str, object]) -> None:
        """Adds a problem for each `requires` condition of its record an element fails."""
        if not record.requirements:
            return
        program = compiled(self.statute)
        evaluation = Evaluation(program, {}, {}, tracing=False)
        for requirement in record.requirements:
            if program.condition(requirement.condition)(evaluation, element):
                continue
            named = dict.fromkeys(
                n.name
                for n in walk(requirement.condition)
                if isinstance(n, ast.Ref) and n.name in element
            )
            given = ", ".join(f"{key} {_show(element[key])}" for key in named)
            # The condition is what is expected; the reason, the encoder's words, says why.
            self.problems.append(
                FieldProblem(
                    at,
                    f"an element meeting {self.source_of(requirement.condition)}",
                    given or "this element",
                    requirement.reason,
                )
            )

    def check_field_bounds(self, field: ast.Input, value: Value, path: str) -> None:
        """Adds a problem when a field's value breaks one of its (literal) bounds."""
        if isinstance(value, bool | str | tuple) or value is None:
            return
        for bound in field.bounds:
            limit = self.bound_value(bound.value, {})
            if limit is None:
                continue
            if {"min": value >= limit, "above": value > limit, "max": value <= limit}[bound.kind]:
                continue
            relation = {"min": "at least", "above": "more than", "max": "at most"}[bound.kind]
            kind = "a whole number" if field.type.kind == "count" else self.describe(field)
            self.problem(
                path, f"{kind} {relation} {self.source_of(bound.value)}", _exact_text(value)
            )

    def describe(self, declared: ast.Input) -> str:
        if declared.type.kind == "list":
            return f"a list of {declared.type.record} objects"
        if declared.type.kind == "text":
            return "a non-empty string"
        if declared.type.kind == "count":
            return _whole_number(declared)
        return {
            "bool": "true or false",
            "share": "a share from 0 to 1",
            "money": "an amount of money",
            "number": "a number",
            "date": _DATE,
            "enum": "one of " + ", ".join(f'"{m}"' for m in declared.type.members),
        }[declared.type.kind]

    def bound_value(
        self, expr: ast.Expr, values: Mapping[str, Value]
    ) -> Fraction | datetime.date | None:
        if isinstance(expr, ast.Literal) and expr.unit == "date":
            return datetime.date.fromordinal(int(expr.value))
        if isinstance(expr, ast.Literal) and not isinstance(expr.value, bool):
            return Fraction(expr.value)
        if isinstance(expr, ast.Ref):
            found = values.get(expr.name)
            if isinstance(found, datetime.date):
                return found
            return (
                None
                if found is None or not isinstance(found, Fraction | int) or isinstance(found, bool)
                else Fraction(found)
            )
        return None

    def holds(self, expr: ast.Expr | None, values: Mapping[str, Value]) -> bool:
        if expr is None:
            return True
        program = compiled(self.statute)
        evaluation = Evaluation(program, values, {}, tracing=False)
        return bool(program.condition(expr)(evaluation, {}))

    def check_bounds(
        self, values: dict[str, Value], invalid: set[str], defaulted: set[str] | None = None
    ) -> None:
        """Adds a problem for each value that breaks one of its input's bounds; a value in
        `defaulted` is a field left out, whose declared default breaks it (said so)."""
        for declared in self.statute.inputs.values():
            name = declared.name
            value = values.get(name)
            if name in invalid:
                continue
            if value is None:
                if (
                    declared.required_when is not None
                    and self.references_valid(declared.required_when, invalid)
                    and self.holds(declared.required_when, values)
                ):
                    condition = self.source_of(declared.required_when)
                    self.problem(
                        name,
                        f"{self.describe(declared)} (required when {condition})",
                        None,
                        "the field is missing",
                    )
                continue
            if isinstance(value, bool | str | Derived):
                continue
            if isinstance(value, tuple):  # a list: its bounds are on its number of elements
                value = len(value)
            for bound in declared.bounds:
                if not self.references_valid(bound.value, invalid) or (
                    bound.when is not None and not self.references_valid(bound.when, invalid)
                ):
                    continue
                if bound.when is not None and not self.holds(bound.when, values):
                    continue
                limit = self.bound_value(bound.value, values)
                if limit is None:
                    continue
                ok = {
                    "min": value >= limit,
                    "above": value > limit,
                    "max": value <= limit,
                }[bound.kind]
                if ok:
                    continue
                relation = {"min": "at least", "above": "more than", "max": "at most"}[bound.kind]
                shown_limit = self.source_of(bound.value)
                if isinstance(bound.value, ast.Ref):
                    shown_limit += f" (= {_exact_text(limit)})"
                when = f" when {self.source_of(bound.when)}" if bound.when is not None else ""
                # "a whole number at most 10", not "a whole number of at least 0 at most 10"
                kind = "a whole number" if declared.type.kind == "count" else None
                if declared.type.kind == "list":
                    self.problems.append(
                        FieldProblem(
                            name,
                            f"a list of {relation} {shown_limit} {declared.type.record} "
                            f"elements{when}",
                            "an empty list" if value == 0 else f"{value} elements",
                        )
                    )
                    continue
                self.problem(
                    name,
                    f"{kind or self.describe(declared)} {relation} {shown_limit}{when}",
                    _exact_text(value),
                    "the field is missing, and its default breaks this"
                    if defaulted and name in defaulted
                    else None,
                )

    def references_valid(self, expr: ast.Expr, invalid: set[str]) -> bool:
        """True when `expr` reads no field already refused (by name, or by `is given`)."""
        return not any(isinstance(n, ast.Ref | ast.Given) and n.name in invalid for n in walk(expr))

    def source_of(self, expr: ast.Expr) -> str:
        return " ".join(self.statute.source[expr.span.start : expr.span.end].split())


def _article(word: str) -> str:
    """Returns "an" before a word that opens with a vowel's letter, else "a"."""
    return "an" if word[:1].lower() in "aeiou" else "a"


def _whole_number(declared: ast.Input) -> str:
    """Returns what a count input expects, with the bounds it always has (`min 1998 max 2100`:
    "a whole number from 1998 to 2100"); a count is never below 0."""
    least, most = Fraction(0), None
    for bound in declared.bounds:
        if bound.when is not None or not isinstance(bound.value, ast.Literal):
            continue
        value = Fraction(bound.value.value)
        if bound.kind == "max":
            most = value if most is None else min(most, value)
        else:  # the least whole number the bound allows
            least = max(least, math.ceil(value) if bound.kind == "min" else math.floor(value) + 1)
    if most is None:
        return f"a whole number of at least {least}"
    return f"a whole number from {least} to {math.floor(most)}"


def _exact_text(value: Value) -> str:
    if isinstance(value, Fraction | int) and not isinstance(value, bool):
        return ExactNumber(decimal_string(value, places=6))
    if isinstance(value, datetime.date):
        return ExactNumber(dates.iso(value))  # shown as written, without quotes
    return str(value)


_DATE = 'a date written YYYY-MM-DD, such as "2024-01-01"'


def validate(
    statute: ast.Statute,
    scenario: object,
    source: str | None = None,
    floats: str = "refuse",
    from_floats: list[str] | None = None,
) -> dict[str, Value]:
    """Returns the scenario's inputs, exact and complete (defaults applied).

    Raises ScenarioError naming every offending field: unknown or missing fields, wrong types,
    values out of bounds, fields required by another field's value. A binary float is refused
    unless `floats` is "shortest", which reads it by its shortest round-trip decimal and appends
    its field to `from_floats`. A plain, well-formed scenario is read by the encoding's generated
    validator (dsl/scenario_fast.py); anything it declines, by `validate_fully`, with the same
    result.
    """
    _check_floats(floats)
    if type(scenario) is dict:
        quick = quick_validator(statute)(scenario)
        if quick is not None:
            return quick
    return validate_fully(statute, scenario, source, floats, from_floats)


def validate_fully(
    statute: ast.Statute,
    scenario: object,
    source: str | None = None,
    floats: str = "refuse",
    from_floats: list[str] | None = None,
) -> dict[str, Value]:
    """Returns what `validate` returns, always by walking the declarations (the reference
    reading of a scenario, which names every problem)."""
    _check_floats(floats)
    validator = _Validator(statute, source, floats)
    if not isinstance(scenario, Mapping):
        # A pandas row is a Series: its dict is the scenario (its missing values left out).
        hint = "pass row.to_dict()" if type(scenario).__name__ == "Series" else None
        raise ScenarioError(
            [FieldProblem("<scenario>", "a JSON object of fields", _show(scenario), hint)], source
        )
    declared_names = list(statute.inputs)
    for name in scenario:
        if name in RESERVED_KEYS:
            continue
        if statute.periods is not None and name == statute.periods.name:
            # Only this problem: the facts the periods would give are not missing here.
            validator.problem(
                name,
                "the facts of one period: a scenario of periods is evaluated period by period, "
                "by lextrace evaluate and explain (and Statute.evaluate)",
                scenario[name],
                "give each period as a scenario of its own here",
            )
            raise ScenarioError(validator.problems, source)
        if name not in statute.inputs:
            if isinstance(name, str):
                label = name if len(name) <= 60 else name[:57] + "..."
            else:  # a YAML key that is not text: null, true, 1.5, a date ...
                label = _show(name) if name is None or isinstance(name, bool) else str(name)
            close = closest(label, declared_names)
            validator.unknown(label, f"did you mean '{close}'?" if close else None)
    values: dict[str, Value] = {}
    invalid: set[str] = set()
    defaulted: set[str] = set()  # fields left out, given their declared defaults
    derivable: list[ast.Input] = []
    for declared in statute.inputs.values():
        name = declared.name
        before = len(validator.problems)
        if declared.derived_by is not None:
            values[name] = None  # derived or given, once the facts it depends on are known
            derivable.append(declared)
        elif name in scenario:
            values[name] = validator.convert(declared, scenario[name])
        elif declared.from_table is not None:
            values[name] = None  # read from its table once the year is known, below
        elif declared.required:
            validator.problem(name, validator.describe(declared), None, "the field is missing")
            values[name] = None
        elif declared.default is not None:
            values[name] = default_value(declared)
            defaulted.add(name)
        else:
            values[name] = None
        if len(validator.problems) > before:
            invalid.add(name)
    for declared in derivable:
        validator.derive(declared, scenario, values, invalid)
    if not validator.problems or invalid != set(statute.inputs):
        validator.check_bounds(values, invalid, defaulted)
    # A value from a table once the year it is read by has passed its own checks.
    refused = {problem.field for problem in validator.problems}
    for declared in statute.inputs.values():
        if declared.from_table is not None and declared.name not in scenario:
            if declared.from_table.year in refused:
                invalid.add(declared.name)
            else:
                validator.from_table(declared, values, invalid)
    _check_reserved(validator, statute, scenario)
    if validator.problems:
        raise ScenarioError(validator.problems, source)
    if from_floats is not None:
        order = {name: index for index, name in enumerate(statute.inputs)}
        from_floats.extend(sorted(validator.from_floats, key=lambda path: order[field_root(path)]))
    return values


def value_problems(
    statute: ast.Statute, name: str, raw: object, source: str | None = None, floats: str = "refuse"
) -> list[FieldProblem]:
    """Returns the problems of one input's value read alone: its type and its literal bounds
    (a value that other fields shadow must still be one the field can hold)."""
    validator = _Validator(statute, source, floats)
    declared = statute.inputs[name]
    value = validator.convert(declared, raw)
    if not validator.problems and value is not None and declared.type.kind != "list":
        validator.check_field_bounds(
            dataclasses.replace(declared, bounds=tuple(b for b in declared.bounds if not b.when)),
            value,
            name,
        )
    return validator.problems


def derive(
    statute: ast.Statute, evaluation: Evaluation, inputs: Mapping[str, Value]
) -> dict[str, Value]:
    """Returns the inputs with each derived one's value (its rule's, from `evaluation`), after
    checking the input's bounds on the derived values; raises ScenarioError when one breaks
    a bound (the evidence it was derived from is then inconsistent)."""
    values = dict(inputs)
    rules = {}
    for name, value in inputs.items():
        if type(value) is Derived:
            values[name] = evaluation.get(value.rule)
            rules[name] = value.rule
    validator = _Validator(statute)
    validator.check_bounds(values, set())
    if validator.problems:
        raise ScenarioError([_derived_problem(statute, p, rules) for p in validator.problems])
    return values


def _derived_problem(
    statute: ast.Statute, problem: FieldProblem, rules: Mapping[str, str]
) -> FieldProblem:
    """Returns a bound broken by a derived value told as derived, not as given: by which rule,
    from which of the scenario's fields (the evidence that is inconsistent)."""
    rule = rules.get(problem.field)
    if rule is None:
        return problem
    declared = statute.inputs[problem.field]
    assert declared.derived_by is not None
    condition = _Validator(statute).source_of(declared.derived_by.condition)
    clause = statute.citation(statute.definitions[rule].clause)
    return dataclasses.replace(
        problem,
        given=f"{problem.given} (derived by {rule}, {clause}, as {condition})",
        hint=problem.hint
        or "the fields it is derived from break this bound: they, or the rule, are wrong",
    )


def derivation_readings(statute: ast.Statute, names: list[str]) -> set[str]:
    """Returns the readings the rules deriving the named inputs rest on."""
    from .checker import readings_used

    rules = [statute.inputs[n].derived_by.rule for n in names if statute.inputs[n].derived_by]
    return readings_used(statute, rules)


def derived_from_tables(statute: ast.Statute, scenario: Mapping[str, object]) -> list[str]:
    """Returns the inputs a valid scenario leaves to their tables and gives the year to read
    them by (their values come from `Table.entry_for_year`), in declaration order."""
    return [
        declared.name
        for declared in statute.inputs.values()
        if declared.from_table is not None
        and declared.name not in scenario
        and scenario.get(declared.from_table.year) is not None
    ]


def _check_reserved(validator: _Validator, statute: ast.Statute, scenario: Mapping) -> None:
    """Adds a problem for each bad pinned reading and for a metadata value that is not an
    object."""
    if META_KEY in scenario and not isinstance(scenario[META_KEY], Mapping):
        validator.problem(
            META_KEY, "an object (lextrace's record of the scenario)", scenario[META_KEY]
        )
    if READINGS_KEY not in scenario:
        return
    pinned = scenario[READINGS_KEY]
    if not isinstance(pinned, Mapping):
        validator.problem(
            READINGS_KEY, "an object of reading ID -> option (one of the reading's options)", pinned
        )
        return
    known = list(statute.readings)
    for reading_id, option in pinned.items():
        reading = statute.readings.get(reading_id) if isinstance(reading_id, str) else None
        field = f"{READINGS_KEY}.{reading_id}"
        if reading is None:
            close = difflib.get_close_matches(str(reading_id), known, n=1, cutoff=0.6)
            validator.problems.append(
                FieldProblem(
                    field,
                    f"one of the readings of the encoding ({', '.join(known) or 'none'})",
                    "an unknown reading",
                    f"did you mean '{close[0]}'?" if close else None,
                )
            )
            continue
        names = [o.name for o in reading.options]
        if not isinstance(option, str) or isinstance(option, ExactNumber) or option not in names:
            choices = ", ".join(f'"{n}"' for n in names)
            validator.problem(field, f"one of {choices}", option)


def pinned_readings(scenario: Mapping[str, object]) -> dict[str, str]:
    """Returns the readings a validated scenario pins (reading ID -> option), or {}."""
    pinned = scenario.get(READINGS_KEY)
    if not isinstance(pinned, Mapping):
        return {}
    return {str(k): str(v) for k, v in pinned.items()}


def default_value(declared: ast.Input) -> Value:
    """Returns the value an input takes when a scenario leaves it out (it must have a
    default): an enum member's name, a bool, an int count or an exact Fraction."""
    expr = declared.default
    if isinstance(expr, ast.Ref):
        return expr.name
    assert isinstance(expr, ast.Literal)
    if isinstance(expr.value, bool):
        return expr.value
    if expr.unit == "date":
        return datetime.date.fromordinal(int(expr.value))
    if declared.type.kind == "count":
        return int(expr.value)
    return Fraction(expr.value)


# ---- reading files -------------------------------------------------------------------------


def yaml_loader() -> Any:
    """Returns the YAML loader class scenarios are read with: safe, floats kept as exact text,
    each field given once, every value it cannot construct refused at its position."""
    return _yaml_loader()


def _yaml_loader() -> Any:
    import yaml

    class ExactLoader(yaml.SafeLoader):
        """Safe YAML loading, with floats kept as exact text, each field given once, and every
        value the YAML library cannot construct refused at its position."""

        def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
            try:
                return super().construct_object(node, deep)
            except (yaml.YAMLError, RecursionError):
                raise
            except Exception as error:  # PyYAML's constructors raise ValueError, KeyError ...
                tag = str(node.tag).rpartition(":")[2]
                value = node.value if isinstance(node.value, str) else ""
                detail = f" ({error})" if isinstance(error, ValueError) else ""
                shown = f" {json.dumps(value[:40])}" if value else ""
                raise yaml.constructor.ConstructorError(
                    None, None, f"a value{shown} that is not a valid {tag}{detail}", node.start_mark
                ) from None

        def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> Any:
            seen: set[tuple[str, str]] = set()
            for key_node, _ in node.value:
                if isinstance(key_node, yaml.ScalarNode):
                    key = (str(key_node.tag), key_node.value)
                    if key in seen:
                        raise yaml.constructor.ConstructorError(
                            None,
                            None,
                            f"the field '{key_node.value}' given twice",
                            key_node.start_mark,
                        )
                    seen.add(key)
            return super().construct_mapping(node, deep)

    def exact_float(loader: yaml.SafeLoader, node: yaml.Node) -> ExactNumber:
        return ExactNumber(loader.construct_scalar(node))  # type: ignore[arg-type]

    def exact_int(loader: yaml.SafeLoader, node: yaml.Node) -> int | ExactNumber:
        text = loader.construct_scalar(node)  # type: ignore[arg-type]
        if isinstance(text, str) and len(text) > _MAX_NUMBER_CHARS:
            return ExactNumber(text)
        return loader.construct_yaml_int(node)  # type: ignore[no-any-return]

    ExactLoader.add_constructor("tag:yaml.org,2002:float", exact_float)
    ExactLoader.add_constructor("tag:yaml.org,2002:int", exact_int)
    return ExactLoader


def _malformed(kind: str, given: str, source: str) -> ScenarioError:
    return ScenarioError([FieldProblem("<file>", f"valid {kind}", given)], source)


def _duplicate(error: _DuplicateField, source: str) -> ScenarioError:
    return ScenarioError(
        [FieldProblem(error.name, "each field at most once", "the field twice")], source
    )


def json_values(value: object) -> object:
    """Returns a scenario as read from a JSON, YAML or TOML file (`parse_text`) in JSON values
    that read back the same: a YAML or TOML date or time as its ISO text, lists and objects
    converted member by member, everything else as it is."""
    if isinstance(value, dict):
        return {key: json_values(member) for key, member in value.items()}
    if isinstance(value, list):
        return [json_values(member) for member in value]
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    return value


def parse_text(text: str, kind: str, source: str, first_line: int = 1) -> object:
    """Returns the object a JSON, YAML or TOML document holds, numbers kept exact.

    Raises ScenarioError with the position when the document is malformed, gives a field twice,
    or is nested too deeply to read. A JSON or YAML position counts lines from `first_line` (a
    line of a batch file is reported with its own number).
    """
    if kind == "json":
        try:
            return json.loads(
                text,
                parse_float=ExactNumber,
                parse_int=_read_int,
                parse_constant=_reject_constant,
                object_pairs_hook=_unique_object,
            )
        except json.JSONDecodeError as error:
            message = error.msg.removesuffix(" at")  # "Unterminated string starting at"
            raise _malformed(
                "JSON",
                f"{message} at line {error.lineno + first_line - 1} column {error.colno}",
                source,
            ) from None
        except _DuplicateField as error:
            raise _duplicate(error, source) from None
        except ValueError as error:
            raise ScenarioError(
                [FieldProblem("<file>", "valid JSON numbers", str(error))], source
            ) from None
        except RecursionError:
            raise _malformed("JSON", _MAX_NESTING, source) from None
    if kind == "toml":
        try:
            return tomllib.loads(text, parse_float=ExactNumber)
        except tomllib.TOMLDecodeError as error:
            raise _malformed("TOML", str(error), source) from None
        except ValueError:  # Python refuses integers of more than 4,300 digits
            limit = sys.get_int_max_str_digits()
            raise _malformed("TOML", f"a number of more than {limit:,} digits", source) from None
        except RecursionError:
            raise _malformed("TOML", _MAX_NESTING, source) from None
    import yaml

    try:
        return yaml.load(text, Loader=_yaml_loader())
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + first_line} column {mark.column + 1}" if mark else ""
        problem = getattr(error, "problem", None) or str(error)
        raise _malformed("YAML", f"{problem}{where}", source) from None
    except RecursionError:
        raise _malformed("YAML", _MAX_NESTING, source) from None


def kind_of(path: Path) -> str:
    """Returns `json`, `yaml` or `toml` from a scenario file's suffix (JSON by default)."""
    suffix = path.suffix.lower()
    if suffix in (".yaml", ".yml"):
        return "yaml"
    if suffix == ".toml":
        return "toml"
    return "json"


def read_bounded(handle: BinaryIO, source: str) -> bytes:
    """Returns what `handle` holds (standard input, say), read no further than one byte past
    MAX_SCENARIO_BYTES; raises ScenarioError when it holds more."""
    data = handle.read(MAX_SCENARIO_BYTES + 1)
    if len(data) > MAX_SCENARIO_BYTES:
        raise ScenarioError(
            [
                FieldProblem(
                    "<file>",
                    f"at most {MAX_SCENARIO_BYTES:,} bytes",
                    f"more than {MAX_SCENARIO_BYTES:,} bytes",
                )
            ],
            source,
        )
    return data


def read_scenario_file(path: Path) -> object:
    """Returns the scenario object stored in a JSON, YAML or TOML file.

    Raises ScenarioError when the file is missing, too large, not UTF-8, or malformed.
    """
    source = str(path)
    try:
        size = path.stat().st_size
        if size > MAX_SCENARIO_BYTES:
            raise ScenarioError(
                [
                    FieldProblem(
                        "<file>", f"at most {MAX_SCENARIO_BYTES:,} bytes", f"{size:,} bytes"
                    )
                ],
                source,
            )
        with path.open("rb") as handle:  # a pipe or a device has no size: read, bounded
            data = read_bounded(handle, source)
    except FileNotFoundError:
        raise ScenarioError(
            [FieldProblem("<file>", "an existing scenario file", "no such file")], source
        ) from None
    except IsADirectoryError:
        raise ScenarioError(
            [FieldProblem("<file>", "a scenario file", "a directory")], source
        ) from None
    except OSError as error:
        raise ScenarioError(
            [FieldProblem("<file>", "a readable scenario file", error.strerror or "unreadable")],
            source,
        ) from None
    except ValueError:  # the operating system takes no file name holding a NUL byte
        raise ScenarioError(
            [FieldProblem("<file>", "a file name", "a name holding a NUL byte")], repr(source)
        ) from None
    return parse_bytes(data, kind_of(path), source, "an empty file")


def parse_bytes(data: bytes, kind: str, source: str, empty: str) -> object:
    """Returns the object a JSON, YAML or TOML document in `data` holds, numbers kept exact.

    Raises ScenarioError when the bytes are not UTF-8, hold nothing (`empty` says what was
    given), or are malformed."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        problem = f"a byte that is not UTF-8 at offset {error.start}"
        raise ScenarioError([FieldProblem("<file>", "UTF-8 text", problem)], source) from None
    if not text.strip():
        raise ScenarioError([FieldProblem("<file>", "a scenario object", empty)], source)
    return parse_text(text, kind, source)
