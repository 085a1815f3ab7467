"""The JSON Schema (draft 2020-12) of an encoding's scenario, generated from its declarations.

The schema says what a JSON scenario may hold: each field's type, default, literal bounds and enum
members, which fields are required, and the conditional requirements (`required when`, a bound
`when`, a field `derived by` a rule that must then be left out). It never refuses a scenario the
validator (dsl/scenario.py) accepts: a condition it cannot state exactly is stated only where it
surely holds, and a constraint it cannot state at all is named under `x-lextrace.unchecked` of
its field, so a reader knows the validator checks more. Numbers in the schema are exact: integers,
or decimals written out as their digits (`schema_text`).
"""

from __future__ import annotations

import datetime
import json
import re
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction
from typing import Any

from . import ast
from .contract import fields as contract_fields
from .reserved import META_KEY, READINGS_KEY
from .scenario import default_value

Schema = dict[str, Any] | bool
DIALECT = "https://json-schema.org/draft/2020-12/schema"

# The validator reads numbers only below this size (dsl/scenario.py, `_LIMIT`).
_NUMBER_LIMIT = 10**31
# Decimals by their sign: a digit other than 0 makes a number other than zero. Within 40
# characters a number other than zero with an exponent of three digits or more is at least
# 1e61 or below 1e-61 in size, beyond what the validator reads (TEXT_SIZE_NOTE).
_NONZERO = r"(\d*[1-9]\d*(\.\d*)?|\d*\.\d*[1-9]\d*)([eE][+-]?0*\d{1,2})?"
_POSITIVE = rf"\+?{_NONZERO}"
_NEGATIVE = rf"-{_NONZERO}"
# A zero's exponent is bounded only with its digits (dsl/scenario.py): within 40 characters
# it has at most three digits. The size of a number as text is bounded only so (TEXT_SIZE_NOTE).
_ZERO = r"[+-]?(0+(\.0*)?|\.0+)([eE][+-]?0*\d{1,3})?"
TEXT_SIZE_NOTE = (
    "the size of a number given as text: the validator reads zero and sizes from 1e-30 to "
    "below 1e31 (with an exponent of at most 70 for a zero); the schema refuses only an "
    "exponent of three digits or more"
)
_NOT_NEGATIVE = f"{_POSITIVE}|{_ZERO}"
_DECIMAL = f"{_NOT_NEGATIVE}|{_NEGATIVE}"
# A share as a fraction from 0 to 1: "1/3" (its denominator not zero; whether it is at most
# 1 is left to the validator).
_FRACTION = r"\+?\d+\s*/\s*\d*[1-9]\d*|-0+\s*/\s*\d*[1-9]\d*"
# A number given as text is read only with at most 40 characters (dsl/scenario.py).
_MAX_TEXT = 40
NUMBER_DEF = "lextrace.number"
_ISO_DATE = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"
_RELATIONS = {"min": "minimum", "above": "exclusiveMinimum", "max": "maximum"}
_WORDS = {"min": "at least", "above": "more than", "max": "at most"}


def _text(pattern: str) -> str:
    """A whole-string pattern for a number as text: spaces around it allowed (the validator
    strips them), at most 40 characters without them."""
    return rf"^\s*(?=\S{{1,{_MAX_TEXT}}}\s*$)({pattern})\s*$"


def _number_def() -> dict[str, Any]:
    """A JSON number the validator reads: below 1e31 in size, and zero or at least 1e-30."""
    tiny = Decimal("1E-30")
    return {
        "type": "number",
        "exclusiveMaximum": _NUMBER_LIMIT,
        "exclusiveMinimum": -_NUMBER_LIMIT,
        "not": {"exclusiveMinimum": -tiny, "exclusiveMaximum": tiny, "not": {"const": 0}},
        "description": "a number as the validator reads it: zero, or from 1e-30 to below 1e31",
    }


def json_number(value: Fraction | int) -> int | Decimal | None:
    """Returns an exact number as a JSON Schema number (an int, or a Decimal with its digits),
    None when it has no finite decimal (1/3)."""
    value = Fraction(value)
    if value.denominator == 1:
        return int(value.numerator)
    denominator = value.denominator
    for prime in (2, 5):
        while denominator % prime == 0:
            denominator //= prime
    if denominator != 1:
        return None
    return Decimal(value.numerator) / Decimal(value.denominator)


def _default_json(declared: ast.Input) -> object:
    """The JSON form of a field's default: a bool, enum member, integer, decimal string or
    ISO date; a non-decimal share as its fraction ("1/3")."""
    value = default_value(declared)
    if isinstance(value, bool | str):
        return value
    if isinstance(value, datetime.date):
        return value.isoformat()
    assert isinstance(value, Fraction | int)
    number = json_number(value)
    if isinstance(number, int):
        return number
    if number is not None:
        return str(number)
    return f"{Fraction(value).numerator}/{Fraction(value).denominator}"


class _Builder:
    """Builds one encoding's schema; `unchecked` collects, per field, what it cannot state."""

    def __init__(self, statute: ast.Statute, list_files: bool) -> None:
        self.statute = statute
        self.list_files = list_files
        self.unchecked: dict[str, list[str]] = {}

    def source(self, expr: ast.Expr) -> str:
        return " ".join(self.statute.source[expr.span.start : expr.span.end].split())

    def note(self, path: str, what: str) -> None:
        self.unchecked.setdefault(path, []).append(what)

    # ---- one value ----------------------------------------------------------------------

    def value_schema(self, declared: ast.Input, path: str) -> dict[str, Any]:
        """The schema of one field's value (its type and literal bounds), without `null`."""
        kind = declared.type.kind
        if kind == "bool":
            return {"type": "boolean"}
        if kind == "enum":
            return {"type": "string", "enum": list(declared.type.members)}
        if kind == "text":
            return {"type": "string", "pattern": r"\S"}
        if kind == "date":
            for bound in declared.bounds:
                self.note(path, f"{_WORDS[bound.kind]} {self.source(bound.value)}")
            return {"type": "string", "format": "date", "pattern": _ISO_DATE}
        if kind == "list":
            return self.list_schema(declared, path)
        if kind == "duration":
            self.note(path, "a duration's form")
            return {}
        limits: list[tuple[ast.BoundKind, Fraction]] = []
        for bound in declared.bounds:
            if bound.when is not None:
                continue  # stated where its condition holds (`conditions`)
            limit = self.literal(bound.value)
            if limit is None or json_number(limit) is None:
                self.note(path, f"{_WORDS[bound.kind]} {self.source(bound.value)}")
                continue
            limits.append((bound.kind, limit))
        value, text_exact = self.numeric(kind, limits)
        if not text_exact:
            self.note(path, "the bounds of a number given as text (only its sign is checked)")
        return value

    def numeric(
        self, kind: str, limits: list[tuple[ast.BoundKind, Fraction]]
    ) -> tuple[dict[str, Any], bool]:
        """The schema of a number of `kind` (count, number, share, money) within `limits`, and
        whether it checks a number given as text exactly too (it checks only its sign)."""
        if kind == "count":
            number: dict[str, Any] = {
                "type": "integer",
                "minimum": 0,
                "exclusiveMaximum": _NUMBER_LIMIT,
            }
        else:
            number = {"$ref": f"#/$defs/{NUMBER_DEF}"}
        if kind == "share":
            limits = [("min", Fraction(0)), ("max", Fraction(1)), *limits]
        for bound_kind, limit in limits:
            self.tighten(number, bound_kind, limit)
        if kind == "count":
            return number, True
        positive = any(
            (k == "above" and limit >= 0) or (k == "min" and limit > 0) for k, limit in limits
        )
        not_negative = positive or any(k == "min" and limit == 0 for k, limit in limits)
        pattern = _POSITIVE if positive else _NOT_NEGATIVE if not_negative else _DECIMAL
        texts = [{"type": "string", "pattern": _text(pattern)}]
        if kind == "share":
            fraction = rf"^(?=.{{1,{_MAX_TEXT}}}$)\s*({_FRACTION})\s*$"
            texts.append({"type": "string", "pattern": fraction})
        exact = kind != "share" and all(limit == 0 and k != "max" for k, limit in limits)
        return {"anyOf": [number, *texts]}, exact

    def tighten(self, number: dict[str, Any], kind: ast.BoundKind, limit: Fraction) -> None:
        """Adds a bound to a number's schema, keeping the tighter of two of the same kind."""
        keyword = _RELATIONS[kind]
        value = json_number(limit)
        old = number.get(keyword)
        if kind == "max" and "maximum" in number:
            number[keyword] = min(old, value)  # type: ignore[type-var]
        elif old is not None and kind != "max":
            number[keyword] = max(old, value)  # type: ignore[type-var]
        else:
            number[keyword] = value

    def literal(self, expr: ast.Expr) -> Fraction | None:
        if (
            isinstance(expr, ast.Literal)
            and not isinstance(expr.value, bool)
            and expr.unit not in ("date", "duration")
        ):
            return Fraction(expr.value)
        return None

    def list_schema(self, declared: ast.Input, path: str) -> dict[str, Any]:
        """A list input: an array of its record's objects (or a list file's path)."""
        record = declared.type.record
        array: dict[str, Any] = {"type": "array", "items": {"$ref": f"#/$defs/{record}"}}
        for bound in declared.bounds:
            limit = self.literal(bound.value)
            if bound.when is not None or limit is None or limit.denominator != 1:
                self.note(path, f"{_WORDS[bound.kind]} {self.source(bound.value)} elements")
                continue
            size = int(limit)
            if bound.kind == "min":
                array["minItems"] = max(array.get("minItems", 0), size)
            elif bound.kind == "above":
                array["minItems"] = max(array.get("minItems", 0), size + 1)
            else:
                array["maxItems"] = min(array.get("maxItems", size), size)
        if not self.list_files:
            return array
        file = {
            "type": "string",
            "pattern": r"\.([cC][sS][vV]|[pP][aA][rR][qQ][uU][eE][tT]|[pP][qQ])$",
            "description": f"the path of a CSV or Parquet file of {record} rows",
        }
        self.note(path, "a list file's rows, and that it can be read")
        return {"anyOf": [array, file]}

    def record_schema(self, record: ast.Record) -> dict[str, Any]:
        """The schema of one element of a list input."""
        properties: dict[str, Any] = {}
        required: list[str] = []
        for declared in record.fields.values():
            path = f"{record.name}.{declared.name}"
            field = self.value_schema(declared, path)
            field = {**field, "description": declared.description}
            if declared.default is not None:
                field["default"] = _default_json(declared)
            else:
                required.append(declared.name)
            if declared.unique:
                self.note(path, f"no two {record.name} elements share it")
            properties[declared.name] = field
        for requirement in record.requirements:
            self.note(record.name, f"requires {self.source(requirement.condition)}")
        schema: dict[str, Any] = {
            "type": "object",
            "description": record.description,
            "properties": properties,
            "additionalProperties": False,
        }
        if required:
            schema["required"] = required
        if self.unchecked.get(record.name):
            schema["x-lextrace"] = {"unchecked": self.unchecked[record.name]}
        for name, field in properties.items():
            notes = self.unchecked.get(f"{record.name}.{name}")
            if notes:
                field["x-lextrace"] = {"unchecked": notes}
        return schema

    # ---- conditions ---------------------------------------------------------------------

    def condition(self, expr: ast.Expr) -> tuple[Schema, bool]:
        """Returns a schema that a valid scenario meets only when the condition holds, and
        whether it meets it exactly then (so the schema's negation is the condition's)."""
        if isinstance(expr, ast.BoolOp) and expr.op in ("and", "or"):
            left, left_exact = self.condition(expr.left)
            right, right_exact = self.condition(expr.right)
            exact = left_exact and right_exact
            if expr.op == "and":
                if left is False or right is False:
                    return False, exact
                return {"allOf": [left, right]}, exact
            parts = [s for s in (left, right) if s is not False]
            if not parts:
                return False, exact
            return (parts[0] if len(parts) == 1 else {"anyOf": parts}), exact
        if isinstance(expr, ast.Not):
            inner, exact = self.condition(expr.operand)
            if not exact:
                return False, False
            return ({"not": inner} if inner is not False else True), True
        if isinstance(expr, ast.Given) and expr.name in self.statute.inputs:
            declared = self.statute.inputs[expr.name]
            present = _given(expr.name)
            exact = declared.derived_by is None and declared.from_table is None
            if not exact or declared.default is None:
                return present, exact
            # An input with a default is never null once read.
            return True, True
        if isinstance(expr, ast.Ref) and expr.name in self.statute.inputs:
            declared = self.statute.inputs[expr.name]
            if declared.type.kind == "bool":
                return self.atom(declared, {"const": True}, lambda value: value is True, True)
        if isinstance(expr, ast.Compare):
            return self.comparison(expr)
        return False, False

    def atom(
        self,
        declared: ast.Input,
        value: dict[str, Any],
        holds: Callable[[object], bool],
        exact: bool,
    ) -> tuple[Schema, bool]:
        """The condition "the field's value meets `value`", given or by its default."""
        name = declared.name
        present = {"required": [name], "properties": {name: value}}
        read_otherwise = declared.derived_by is not None or declared.from_table is not None
        if read_otherwise:
            return present, False
        if declared.default is None:
            return present, exact and not declared.optional and not declared.required_when
        if holds(default_value(declared)):
            return {"anyOf": [present, {"not": {"required": [name]}}]}, exact
        return present, exact

    def comparison(self, expr: ast.Compare) -> tuple[Schema, bool]:
        """`FIELD op LITERAL` (either side) of a bool, enum or number field."""
        left, right, op = expr.left, expr.right, expr.op
        if not isinstance(left, ast.Ref) or left.name not in self.statute.inputs:
            left, right = right, left
            op = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}.get(op, op)
        if not isinstance(left, ast.Ref) or left.name not in self.statute.inputs:
            return False, False
        declared = self.statute.inputs[left.name]
        kind = declared.type.kind
        if kind == "enum" and isinstance(right, ast.Ref) and right.name in declared.type.members:
            member = right.name
            if op == "=":
                return self.atom(declared, {"const": member}, lambda v: v == member, True)
            if op == "!=":
                others = [m for m in declared.type.members if m != member]
                return self.atom(declared, {"enum": others}, lambda v: v != member, True)
            return False, False
        if kind == "bool" and isinstance(right, ast.Literal) and isinstance(right.value, bool):
            wanted = right.value if op == "=" else not right.value
            if op not in ("=", "!="):
                return False, False
            return self.atom(declared, {"const": wanted}, lambda v: v is wanted, True)
        limit = self.literal(right)
        if not declared.type.is_numeric or limit is None or json_number(limit) is None:
            return False, False
        number = json_number(limit)
        keyword = {
            "<": "exclusiveMaximum",
            "<=": "maximum",
            ">": "exclusiveMinimum",
            ">=": "minimum",
            "=": "const",
        }.get(op)
        if keyword is None:
            return False, False

        def holds(value: object) -> bool:
            given = Fraction(value)  # type: ignore[call-overload]
            return {
                "<": given < limit,
                "<=": given <= limit,
                ">": given > limit,
                ">=": given >= limit,
                "=": given == limit,
            }[op]

        if kind == "count":
            return self.atom(declared, {"type": "integer", keyword: number}, holds, True)
        value: dict[str, Any] = {"$ref": f"#/$defs/{NUMBER_DEF}", keyword: number}
        sign = {"<": _NEGATIVE, "<=": f"{_NEGATIVE}|{_ZERO}", ">": _POSITIVE, ">=": _NOT_NEGATIVE}
        if limit != 0 or (op not in sign and op != "="):
            # A number given as text is compared only with zero: else the condition is left
            # unstated for it.
            return self.atom(declared, value, holds, False)
        text = {"type": "string", "pattern": _text(sign.get(op, _ZERO))}
        return self.atom(declared, {"anyOf": [value, text]}, holds, kind != "share")

    def conditions(self, statute: ast.Statute) -> list[dict[str, Any]]:
        """The `if`/`then` requirements of the one-year scenario."""
        found: list[dict[str, Any]] = []
        for declared in statute.inputs.values():
            name = declared.name
            if declared.required_when is not None:
                when, _ = self.condition(declared.required_when)
                if when is False:
                    self.note(name, f"required when {self.source(declared.required_when)}")
                else:
                    found.append({"if": when, "then": _given(name)})
            for bound in declared.bounds:
                if bound.when is None:
                    continue
                found.extend(self.conditional_bound(declared, bound))
            derived = declared.derived_by
            if derived is not None:
                when, exact = self.condition(derived.condition)
                left_out = {"not": {"required": [name]}}
                if when is not False:
                    rule: dict[str, Any] = {"if": when, "then": left_out}
                    if declared.required and exact:
                        rule["else"] = {"required": [name]}
                    found.append(rule)
                if declared.required and not exact:
                    self.note(name, f"required unless {self.source(derived.condition)}")
        return found

    def conditional_bound(self, declared: ast.Input, bound: ast.Bound) -> list[dict[str, Any]]:
        """A bound that applies `when` a condition holds, as `if`/`then`."""
        assert bound.when is not None
        name = declared.name
        stated = f"{_WORDS[bound.kind]} {self.source(bound.value)} when {self.source(bound.when)}"
        limit = self.literal(bound.value)
        when, _ = self.condition(bound.when)
        if limit is None or json_number(limit) is None or when is False:
            self.note(name, stated)
            return []
        value, text_exact = self.numeric(declared.type.kind, [(bound.kind, limit)])
        if not text_exact:
            self.note(name, f"{stated}, for a number given as text")
        then: dict[str, Any] = {"properties": {name: value}}
        if declared.default is not None and declared.derived_by is None:
            breaks = not _meets(Fraction(default_value(declared)), bound.kind, limit)  # type: ignore[arg-type]
            if breaks and declared.from_table is None:
                then["required"] = [name]  # its default breaks the bound
        return [{"if": when, "then": then}]


def _given(name: str) -> dict[str, Any]:
    """The schema of "the field is given": present and not null."""
    return {"required": [name], "properties": {name: {"not": {"type": "null"}}}}


def _meets(value: Fraction, kind: ast.BoundKind, limit: Fraction) -> bool:
    return {"min": value >= limit, "above": value > limit, "max": value <= limit}[kind]


def _table_or_required(declared: ast.Input) -> dict[str, Any]:
    """A required input that its table gives when the year is: the input, or the year."""
    year = declared.from_table.year  # type: ignore[union-attr]
    return {
        "anyOf": [
            {"required": [declared.name]},
            _given(year),
        ]
    }


def scenario_schema(statute: ast.Statute, list_files: bool = True) -> dict[str, Any]:
    """Returns the JSON Schema (draft 2020-12) of the encoding's scenario, from its input
    declarations; with `list_files` False a list input must be given inline (not as a path)."""
    builder = _Builder(statute, list_files)
    clauses = {field.name: list(field.clauses) for field in contract_fields(statute)}
    properties: dict[str, Any] = {}
    required: list[str] = []
    extra: list[dict[str, Any]] = []
    for declared in statute.inputs.values():
        name = declared.name
        field: dict[str, Any] = dict(builder.value_schema(declared, name))
        if declared.optional:
            field = {"anyOf": [field, {"type": "null"}]} if field else {}
        field["description"] = declared.description
        if declared.default is not None:
            field["default"] = _default_json(declared)
        properties[name] = field
        if declared.required and declared.derived_by is None:
            if declared.from_table is not None:
                extra.append(_table_or_required(declared))
            else:
                required.append(name)
        if declared.from_table is not None:
            source = declared.from_table
            builder.note(name, f"the table {source.table} covers the {source.year} given")
    extra += builder.conditions(statute)
    records = {name: builder.record_schema(record) for name, record in statute.records.items()}
    for name, field in properties.items():
        meta: dict[str, Any] = {
            "type": str(statute.inputs[name].type),
            "clauses": clauses.get(name, []),
        }
        if builder.unchecked.get(name):
            meta["unchecked"] = builder.unchecked[name]
        field["x-lextrace"] = meta
    properties[READINGS_KEY] = {
        "type": "object",
        "description": "the readings the scenario is evaluated under: reading ID -> option",
        "properties": {
            reading.id: {
                "enum": [option.name for option in reading.options],
                "description": reading.question,
                "default": reading.default.name,
            }
            for reading in statute.readings.values()
        },
        "additionalProperties": False,
    }
    properties[META_KEY] = {
        "type": "object",
        "description": "lextrace's record of where the scenario comes from",
    }
    one_year: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
    }
    if required:
        one_year["required"] = required
    if extra:
        one_year["allOf"] = extra
    schema: dict[str, Any] = {
        "$schema": DIALECT,
        "title": f"A scenario of {statute.name}",
        "description": (
            f"The facts of one scenario of {statute.name}, as JSON. Generated from the "
            "encoding's input declarations; the validator checks what each field's "
            "x-lextrace.unchecked names as well."
        ),
    }
    if statute.periods is None:
        schema.update(one_year)
    else:
        periods = _periods_schema(statute, properties)
        schema["type"] = "object"
        schema["if"] = {"required": [statute.periods.name]}
        schema["then"] = periods
        schema["else"] = one_year
    schema["$defs"] = {NUMBER_DEF: _number_def(), **records}
    schema["x-lextrace"] = {"unchecked": [TEXT_SIZE_NOTE]}
    return schema


def _periods_schema(statute: ast.Statute, properties: dict[str, Any]) -> dict[str, Any]:
    """The scenario of several periods: the shared facts at the top, each period's own in the
    list (the requirements of a merged period are the validator's to check)."""
    periods = statute.periods
    assert periods is not None
    own = {
        name: field
        for name, field in properties.items()
        if name not in periods.without and name not in (READINGS_KEY, META_KEY)
    }
    top = {
        name: field
        for name, field in properties.items()
        if name not in periods.only and name not in periods.without and name != periods.by
    }
    top[periods.name] = {
        "type": "array",
        "description": periods.description,
        "minItems": 1,
        "maxItems": periods.at_most,
        "items": {
            "type": "object",
            "properties": own,
            "required": [periods.by],
            "additionalProperties": False,
            "description": f"one period's facts; {periods.by} rises strictly from one to the next",
        },
        "x-lextrace": {
            "unchecked": [
                f"that {periods.by} rises strictly from one period to the next",
                "the requirements of each period merged with the facts of the top level",
            ]
        },
    }
    return {"type": "object", "properties": top, "additionalProperties": False}


_EXACT = re.compile(r'"\\u0000([-0-9.Ee+]+)\\u0000"')


def schema_text(schema: dict[str, Any], indent: int | None = 2) -> str:
    """Returns the schema as JSON text, each Decimal written as its digits (never through a
    binary float)."""

    def marked(value: object) -> object:
        if isinstance(value, Decimal):
            return f"\x00{value}\x00"
        if isinstance(value, dict):
            return {key: marked(item) for key, item in value.items()}
        if isinstance(value, list):
            return [marked(item) for item in value]
        return value

    text = json.dumps(marked(schema), indent=indent, ensure_ascii=False)
    return _EXACT.sub(lambda match: match.group(1), text)
