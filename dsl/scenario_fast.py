"""The fast path of scenario validation: one generated Python function per encoding.

`scenario.validate` walks the input declarations for every scenario so that it can name every
problem. Most scenarios a program sends have none: a flat dict of ints, bools, decimal strings
and enum members. For those, this module generates, from the same declarations, straight-line
code that converts each field and tests each bound, with the conditions on other inputs (`when`,
`required when`, `derived by ... when`) translated once.

The generated function accepts only what it is sure of, exactly as `validate` reads it, and
returns the same values. Anything else (an unknown or reserved field, a list, a value of another
type, a bound not met, a derived input, a value from a table, any exception) makes it decline
with None, and the caller runs `validate`, which then returns the same values or names every
problem. So the fast path can only agree with the full validator or defer to it.
"""

from __future__ import annotations

import datetime
import hashlib
import re
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

from . import ast, dates
from .codegen import _DENOMINATOR, _NUMERATOR, _identifier, _ratio
from .evaluator import Evaluation, compiled
from .values import Value

QuickValidator = Callable[[Mapping[str, object]], dict[str, Value] | None]

# What `scenario._parse_decimal` reads, restricted to the plain forms ("-1234.5"): at most 40
# characters (a sign, 29 whole digits, a point and 9 decimals), so that none of the limits it
# applies to size ever bites.
_PLAIN_DECIMAL = re.compile(r"-?[0-9]{1,29}(?:\.[0-9]{1,9})?")
# A share written as a fraction ("1/3"), as `scenario._FRACTION` reads it, without spaces or
# sign, and with a denominator that is not 0.
_PLAIN_FRACTION = re.compile(r"([0-9]{1,18})/([1-9][0-9]{0,17})")
_LIMIT = 10**31  # scenario._LIMIT: a whole number is read only below it
_POWERS = tuple(10**n for n in range(10))
_MISSING = object()
_COMPARE = {"=": "==", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


def _quoted(name: str) -> str:
    """Returns a name of the encoding as a string literal of generated source; a name that is
    not a plain identifier (the grammar admits no other) is refused, so nothing else ever
    enters the source."""
    return repr(_identifier(name))


def _plain_decimal(
    text: str,
    _match: Callable[..., Any] = _PLAIN_DECIMAL.fullmatch,
) -> Fraction | None:
    """Returns a plain decimal string ("65000.50", "-3") as the exact Fraction that
    `scenario._parse_decimal` gives it; None for any other text (the full path decides)."""
    if _match(text) is None:
        return None
    whole, _, part = text.partition(".")
    if not part:
        return _ratio(int(whole), 1)
    return _ratio(int(whole + part), _POWERS[len(part)])


def _plain_share(
    text: str, _fraction: Callable[..., Any] = _PLAIN_FRACTION.fullmatch
) -> Fraction | None:
    """Returns a share written as a plain decimal or fraction ("0.5", "1/3") as the exact
    Fraction `scenario.validate` gives it; None for any other text."""
    decimal = _plain_decimal(text)
    if decimal is not None:
        return decimal
    found = _fraction(text)
    if found is None:
        return None
    return Fraction(int(found.group(1)), int(found.group(2)))


class _Generator:
    def __init__(self, statute: ast.Statute) -> None:
        self.statute = statute
        self.lines: list[str] = []
        self.constants: dict[str, object] = {}

    def constant(self, value: object) -> str:
        name = f"K{len(self.constants)}"
        self.constants[name] = value
        return name

    def emit(self, line: str, depth: int = 1) -> None:
        self.lines.append("    " * depth + line)

    # ---- conditions on the inputs ----------------------------------------------------------
    def condition(self, expr: ast.Expr) -> str:
        """Returns Python code of a condition over `out` (the values so far), after emitting
        the tests that decline when a value it reads is missing (the reference would fail)."""
        read: list[str] = []
        code = self.inline(expr, read)
        if code is None:
            program = compiled(self.statute)
            test = program.condition(expr)

            def holds(values: Mapping[str, Value]) -> bool:
                return bool(test(Evaluation(program, values, {}, tracing=False), {}))

            return f"{self.constant(holds)}(out)"
        for name in dict.fromkeys(read):
            self.emit(f"if out[{_quoted(name)}] is None:")
            self.emit("return None", 2)
        return code

    def inline(self, expr: ast.Expr, read: list[str]) -> str | None:
        """Returns the condition as plain Python when it is made of inputs, literals, enum
        members, `is given`, `not`, `and`, `or` and comparisons; None otherwise."""
        statute = self.statute
        if isinstance(expr, ast.Given):
            return f"(out[{_quoted(expr.name)}] is not None)"
        if isinstance(expr, ast.Ref):
            declared = statute.inputs.get(expr.name)
            if declared is not None:
                if declared.type.kind not in ("bool", "count", "number", "share", "money", "enum"):
                    return None
                read.append(expr.name)
                return f"out[{_quoted(expr.name)}]"
            if expr.name in statute.definitions:
                return None
            if expr.name in compiled(statute).enum_members:
                return _quoted(expr.name)
            return None
        if isinstance(expr, ast.Literal):
            if isinstance(expr.value, bool):
                return repr(expr.value)
            if expr.unit in ("date", "duration"):
                return None
            return self.constant(Fraction(expr.value))
        if isinstance(expr, ast.Not):
            operand = self.inline(expr.operand, read)
            return None if operand is None else f"(not {operand})"
        if isinstance(expr, ast.BoolOp):
            left, right = self.inline(expr.left, read), self.inline(expr.right, read)
            if left is None or right is None:
                return None
            if expr.op == "implies":
                return f"((not {left}) or {right})"
            if expr.op in ("and", "or"):
                return f"({left} {expr.op} {right})"
            return None
        if isinstance(expr, ast.Compare) and expr.op in _COMPARE:
            left, right = self.inline(expr.left, read), self.inline(expr.right, read)
            if left is None or right is None:
                return None
            return f"({left} {_COMPARE[expr.op]} {right})"
        return None

    # ---- one field -------------------------------------------------------------------------
    def field(self, declared: ast.Input) -> None:
        """Emits the reading of one input given by the scenario, or its absence."""
        name = declared.name
        self.emit(f"v = get({_quoted(name)}, MISSING)")
        self.emit("if v is MISSING:")
        if declared.from_table is not None or declared.required:
            self.emit("return None", 2)  # a table's value, or a missing field: the full path
        elif declared.default is not None and declared.type.kind == "list":
            self.emit("return None", 2)
        elif declared.default is not None:
            from .scenario import default_value

            self.emit(f"out[{_quoted(name)}] = {self.constant(default_value(declared))}", 2)
        else:
            self.emit(f"out[{_quoted(name)}] = None", 2)
        if declared.optional and declared.type.kind != "list":
            self.emit("elif v is None:")  # an optional input may be given as null
            self.emit(f"out[{_quoted(name)}] = None", 2)
        self.emit("else:")
        self.convert(declared)

    def convert(self, declared: ast.Input) -> None:
        """Emits the conversion of a given value `v` into `out`, declining what the full path
        might read otherwise."""
        name, kind = declared.name, declared.type.kind
        target = f"out[{_quoted(name)}]"
        if kind == "bool":
            self.emit("if v is not True and v is not False:", 2)
            self.emit("return None", 3)
            self.emit(f"{target} = v", 2)
        elif kind == "enum":
            members = self.constant(frozenset(declared.type.members))
            self.emit(f"if type(v) is not str or v not in {members}:", 2)
            self.emit("return None", 3)
            self.emit(f"{target} = v", 2)
        elif kind == "text":
            self.emit("if type(v) is not str or not v.strip():", 2)
            self.emit("return None", 3)
            self.emit(f"{target} = v", 2)
        elif kind == "count":
            self.emit("if type(v) is not int or v < 0 or v >= LIMIT:", 2)
            self.emit("return None", 3)
            self.emit(f"{target} = v", 2)
        elif kind in ("money", "number", "share"):
            self.emit("t = type(v)", 2)
            self.emit("if t is int:", 2)
            self.emit("if not -LIMIT < v < LIMIT:", 3)
            self.emit("return None", 4)
            self.emit("v = Fraction(v)", 3)
            if kind == "share":  # a fraction ("1/3") only as a string, not a JSON number
                self.emit("elif t is str:", 2)
                self.emit("v = share(v)", 3)
                self.emit("if v is None:", 3)
                self.emit("return None", 4)
            self.emit("elif t is str or t is ExactNumber:", 2)
            self.emit("v = plain(v)", 3)
            self.emit("if v is None:", 3)
            self.emit("return None", 4)
            self.emit("elif t is not Fraction or not -LIMIT < v < LIMIT:", 2)
            self.emit("return None", 3)
            if kind == "share":
                self.emit("if not 0 <= v <= 1:", 2)
                self.emit("return None", 3)
            self.emit(f"{target} = v", 2)
        elif kind == "date":
            self.emit("if type(v) is datetime_date:", 2)
            self.emit(f"{target} = v", 3)
            self.emit("elif type(v) is str:", 2)
            self.emit("v = parse_iso(v)", 3)
            self.emit("if v is None:", 3)
            self.emit("return None", 4)
            self.emit(f"{target} = v", 3)
            self.emit("else:", 2)
            self.emit("return None", 3)
        else:  # a list given by the scenario, a duration, ...: the full path
            self.emit("return None", 2)

    # ---- the checks after every field is read ----------------------------------------------
    def required_when(self, declared: ast.Input) -> None:
        assert declared.required_when is not None
        self.emit(f"if out[{_quoted(declared.name)}] is None:")
        self.lines_at(2, lambda: self._decline_when(declared.required_when))

    def _decline_when(self, expr: ast.Expr) -> None:
        code = self.condition(expr)
        self.emit(f"if {code}:")
        self.emit("return None", 2)

    def lines_at(self, depth: int, emit: Callable[[], None]) -> None:
        """Runs `emit`, indenting what it emits by depth - 1 more levels."""
        start = len(self.lines)
        emit()
        self.lines[start:] = ["    " * (depth - 1) + line for line in self.lines[start:]]

    def bounds(self, declared: ast.Input) -> None:
        """Emits the tests of an input's bounds, as `check_bounds` makes them."""
        kind = declared.type.kind
        if kind in ("bool", "enum", "text") or not declared.bounds:
            return
        name = declared.name
        self.emit(f"v = out[{_quoted(name)}]")
        self.emit("if v is not None:")

        def tests() -> None:
            for bound in declared.bounds:
                self.bound(bound, kind)

        self.lines_at(2, tests)

    def bound(self, bound: ast.Bound, kind: str) -> None:
        value = bound.value
        if isinstance(value, ast.Literal) and value.unit == "date":
            limit = self.constant(datetime.date.fromordinal(int(value.value)))
        elif isinstance(value, ast.Literal) and not isinstance(value.value, bool):
            stated = Fraction(value.value)
            if kind in ("count", "money", "number", "share"):
                self._limit_test(bound, *self._cross(kind, stated))
                return
            limit = self.constant(stated)
        elif isinstance(value, ast.Ref) and value.name in self.statute.inputs:
            limit = "limit"
            self.emit(f"limit = out.get({_quoted(value.name)})")
            # As `bound_value`: a missing or non-numeric value sets no limit.
            self.emit(
                "if limit is not None and type(limit) is not bool and "
                "isinstance(limit, int | Fraction | datetime_date):"
            )
            self.lines_at(2, lambda: self._limit_test(bound, "v", "limit"))
            return
        else:
            return  # `bound_value` gives no limit for any other expression
        self._limit_test(bound, "v", limit)

    @staticmethod
    def _cross(kind: str, limit: Fraction) -> tuple[str, str]:
        """Returns the two sides of `v` against a stated limit in integers: a count is an int,
        any other number a Fraction, compared by its parts (its denominator is positive)."""
        top, bottom = limit.numerator, limit.denominator
        if kind == "count":
            return ("v" if bottom == 1 else f"v * {bottom}"), str(top)
        numerator, denominator = f"v.{_NUMERATOR}", f"v.{_DENOMINATOR}"
        left = numerator if bottom == 1 else f"{numerator} * {bottom}"
        right = "0" if top == 0 else f"{top} * {denominator}"
        return left, right

    def _limit_test(self, bound: ast.Bound, value: str, limit: str) -> None:
        failed = {
            "min": f"{value} < {limit}",
            "above": f"{value} <= {limit}",
            "max": f"{value} > {limit}",
        }
        test = failed[bound.kind]
        if bound.when is None:
            self.emit(f"if {test}:")
            self.emit("return None", 2)
            return
        code = self.condition(bound.when)
        self.emit(f"if {code} and {test}:")
        self.emit("return None", 2)

    # ---- the function ----------------------------------------------------------------------
    def source(self) -> str:
        statute = self.statute
        self.constants["KNOWN"] = frozenset(statute.inputs)
        self.emit("if type(scenario) is not dict or not scenario.keys() <= KNOWN:")
        self.emit("return None", 2)
        self.emit("get = scenario.get")
        self.emit("out = {}")
        derivable = []
        for declared in statute.inputs.values():
            if declared.derived_by is not None:
                self.emit(f"out[{_quoted(declared.name)}] = None")
                derivable.append(declared)
            else:
                self.field(declared)
        for declared in derivable:
            # Derived when its condition holds: the full path marks it so; else read as any.
            assert declared.derived_by is not None
            self._decline_when(declared.derived_by.condition)
            self.field(declared)
        for declared in statute.inputs.values():
            if declared.required_when is not None:
                self.required_when(declared)
            self.bounds(declared)
        self.emit("return out")
        body = "\n".join("    " + line for line in self.lines)
        return (
            "def validate(scenario):\n    try:\n" + body + "\n    except Exception:\n"
            "        return None\n"
        )


_CACHE: dict[int, tuple[ast.Statute, QuickValidator]] = {}


def quick_validator(statute: ast.Statute) -> QuickValidator:
    """Returns the generated fast validator of an encoding's scenarios, made once and kept: it
    returns a scenario's values exactly as `scenario.validate` would, or None to decline."""
    cached = _CACHE.get(id(statute))
    if cached is not None and cached[0] is statute:
        return cached[1]
    from .scenario import ExactNumber

    generator = _Generator(statute)
    source = generator.source()
    namespace: dict[str, object] = {
        "MISSING": _MISSING,
        "LIMIT": _LIMIT,
        "Fraction": Fraction,
        "ExactNumber": ExactNumber,
        "plain": _plain_decimal,
        "share": _plain_share,
        "parse_iso": dates.parse_iso,
        "datetime_date": datetime.date,
        **generator.constants,
    }
    digest = hashlib.sha256(source.encode()).hexdigest()[:12]
    exec(compile(source, f"<lextrace scenario check {digest}>", "exec"), namespace)
    function: QuickValidator = namespace["validate"]  # type: ignore[assignment]
    _CACHE[id(statute)] = (statute, function)
    return function


def quick_source(statute: ast.Statute) -> str:
    """Returns the source of the generated validator (for review and tests)."""
    return _Generator(statute).source()
