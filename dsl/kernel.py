"""Compiled columnar evaluation: one loop of machine code over a chunk's rows, exact.

The numpy engine (dsl/columnar.py) applies each operation to whole columns, so a statute of a
few hundred operations passes over a chunk's memory a few hundred times. This module translates
the same rules, from the same AST, into one loop that evaluates each row from its inputs to its
results in registers. The loop is Python source generated here and compiled by numba (the
optional `compiled` extra) once per encoding, reading selection and layout of the input
columns; it runs without the interpreter's lock, so the threads of a batch run side by side.

Every number is an exact fraction n/d of int64s in its base unit (cents for money). The
denominator is known at translation as a constant times named values (a value divided by, an
input's own denominator), as dsl/columnar.py's Den is: values over the same factors add and are
compared without their denominator growing, and no common factor is ever searched for at run
time. Each operation checks that what it makes stays below 2**62 in magnitude (against a bound
worked out at translation when one side is a constant; else the product is estimated in floating
point first, with a margin far wider than its rounding, and formed in integers only when it
fits). A row where a value would not fit, that divides by zero, reads a missing input, meets two
exclusive cases or none, or breaks a declared bound of an input, is marked deferred, and the
scalar evaluator evaluates it, as for the numpy engine. Errors count only on the branch a row
takes. Anything this translation does not handle raises Unsupported at translation, and the
numpy engine evaluates the encoding instead (lextrace/tables.py's Runner).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, NamedTuple

import numpy as np

from . import ast, kernel_cache
from .columnar import (
    BOUND_COMPARISONS,
    LIMIT,
    Code,
    Col,
    Den,
    Engine,
    Flag,
    Num,
    Unsupported,
    _static,
    literal_scale,
    scale_of,
)
from .values import CENTS, Value

Array = np.ndarray[Any, Any]

NEEDS_NUMBA = "needs numba: pip install 'lextrace[compiled]'"
"""What the compiled engine says when numba is not installed."""

_HELPERS = f'''
import numba

LIMIT = {LIMIT}
PRODUCT_LIMIT = 4.0e18  # below 2**62 (4.61e18) by far more than a float product's rounding


@numba.njit(nogil=True, error_model="numpy", cache=CACHE)
def product(a, b):
    # The float only bounds the magnitude (relative error below 1e-15, so a product estimated
    # under 4.0e18 is exactly under 2**62); the value itself is the integer product.
    if abs(float(a)) * abs(float(b)) >= PRODUCT_LIMIT:
        return 0, True
    return a * b, False


@numba.njit(nogil=True, error_model="numpy", cache=CACHE)
def divisor(n):
    """Returns the sign of n, |n| (1 for 0: that row is deferred) and "n is 0"."""
    if n < 0:
        return -1, -n, False
    if n == 0:
        return 1, 1, True
    return 1, n, False


@numba.njit(nogil=True, error_model="numpy", cache=CACHE)
def cents(n, d):
    """Returns n / d rounded to a whole number, halves away from zero (as the results are)."""
    if n >= 0:
        q = n // d
        return q + (2 * (n - q * d) >= d)
    q = (-n) // d
    return -(q + (2 * (-n - q * d) >= d))


@numba.njit(nogil=True, error_model="numpy", cache=CACHE)
def fraction_input(q, r, d):
    n, over = product(q, d)
    n = n + r
    return n, over or not (-LIMIT < n < LIMIT) or not (0 < d < LIMIT)
'''


@dataclass(frozen=True)
class _Den:
    """A positive denominator: a constant times the values of named variables (a column
    divided by, an input's own denominator), matched by name as dsl/columnar.py's Den matches
    columns by identity: values over the same factors add without their denominator growing."""

    const: int = 1
    factors: tuple[str, ...] = ()

    @property
    def whole(self) -> bool:
        """True when the denominator is 1."""
        return self.const == 1 and not self.factors

    def same(self, other: _Den) -> bool:
        """True when both are the same constant times the same variables."""
        return self.const == other.const and sorted(self.factors) == sorted(other.factors)


def _unmatched(pool: tuple[str, ...], wanted: tuple[str, ...]) -> tuple[str, ...]:
    """Returns the wanted factors the pool does not hold (each factor of the pool used once)."""
    left = list(pool)
    missing = []
    for factor in wanted:
        if factor in left:
            left.remove(factor)
        else:
            missing.append(factor)
    return tuple(missing)


@dataclass(frozen=True)
class _Value:
    """A value of the generated code: the text of its parts (names or constants)."""

    kind: str  # "num", "flag" or "code"
    value: str  # num: the numerator; flag: the truth; code: the member's code
    bad: str = "False"  # the text of "this row is deferred" (False: never)
    den: _Den = _Den()  # num: the denominator (whole: 1 on every row)
    scale: int = 1

    @property
    def whole(self) -> bool:
        """True when the value is known to be whole on every row."""
        return self.den.whole


@dataclass(frozen=True)
class _Layout:
    """How one input column is held: what the kernel is passed for it."""

    kind: str  # "whole", "fraction", "flag" or "code"
    factors: int = 0  # fraction: the columns of its denominator
    const: int = 1  # fraction: the constant of its denominator
    has_bad: bool = False


def _or(*parts: str) -> str:
    """Returns the text of "any of these holds"."""
    kept = [p for p in parts if p != "False"]
    if not kept:
        return "False"
    if "True" in kept:
        return "True"
    # Bitwise on booleans: no branch for the processor to mispredict row by row.
    return " | ".join(f"({p})" if " " in p else p for p in dict.fromkeys(kept))


class _Translation:
    """The generated loop of one encoding, reading selection and input layout."""

    def __init__(self, engine: Engine, layouts: Mapping[str, _Layout]) -> None:
        self.engine = engine
        self.statute = engine.statute
        self.layouts = layouts
        self.lines: list[str] = []
        self.memo: dict[tuple[str, tuple[Value, ...]], _Value] = {}
        self.inputs: dict[str, _Value] = {}
        self.used: list[str] = []  # inputs read, in order
        self.given: dict[str, str] = {}
        self.den_values: dict[tuple[object, ...], tuple[str, str]] = {}
        self.count = 0

    def fresh(self) -> str:
        """Returns a new variable name."""
        self.count += 1
        return f"v{self.count}"

    def emit(self, line: str) -> None:
        """Appends a line to the loop's body."""
        self.lines.append(line)

    def named(self, text: str) -> str:
        """Returns a name holding the text's value (the text itself when it is one already)."""
        if text.isidentifier() or _is_number(text):
            return text
        name = self.fresh()
        self.emit(f"{name} = {text}")
        return name

    # ---- values ---------------------------------------------------------------------------
    def literal(self, value: Fraction | bool, scale: int) -> _Value:
        """Returns a constant, a number in the base unit `scale` gives."""
        if isinstance(value, bool):
            return _Value("flag", str(value))
        based = Fraction(value) * scale
        if abs(based.numerator) >= LIMIT or based.denominator >= LIMIT:
            raise Unsupported("a constant beyond the int64 range")
        return _Value("num", str(based.numerator), den=_Den(based.denominator), scale=scale)

    def constant(self, value: Value) -> _Value:
        """Returns a parameter's value (a truth or an enum member), known at translation."""
        if isinstance(value, bool):
            return _Value("flag", str(value))
        if isinstance(value, str):
            return _Value("code", str(self.engine.codes[value]))
        raise Unsupported(f"parameter value {value!r}")

    def input(self, name: str) -> _Value:
        """Returns an input's value on row i, read once in the loop (as its layout holds it)."""
        found = self.inputs.get(name)
        if found is not None:
            return found
        layout = self.layouts[name]
        index = len(self.used)
        self.used.append(name)
        bad = f"b{index}[i]" if layout.has_bad else "False"
        declared = self.statute.inputs[name]
        scale = scale_of(declared.type)
        if layout.kind == "whole":
            n = self.named(f"x{index}[i]")
            # Kept below 2**62 in magnitude, as every value: a sum of two then fits in int64.
            over = self.named(f"not (-{LIMIT} < {n} < {LIMIT})")
            value = _Value("num", n, _or(bad, over), scale=scale)
        elif layout.kind == "fraction":
            factors = tuple(self.named(f"f{index}_{k}[i]") for k in range(layout.factors))
            den = _Den(layout.const, factors)
            value_d, over = self.den_value(den)
            n, o = self.fresh(), self.fresh()
            self.emit(f"{n}, {o} = fraction_input(x{index}[i], r{index}[i], {value_d})")
            value = _Value("num", n, _or(bad, over, o), den, scale)
        elif layout.kind == "flag":
            value = _Value("flag", f"x{index}[i]", bad)
        else:
            value = _Value("code", f"x{index}[i]", bad)
        if value.bad != "False":
            value = _Value(value.kind, value.value, self.named(value.bad), value.den, value.scale)
        self.given[name] = bad
        self.inputs[name] = value
        return value

    def den_value(self, den: _Den) -> tuple[str, str]:
        """Returns the texts of a denominator's value and of "it does not fit" (computed once
        for each constant and set of variables)."""
        if not den.factors:
            return str(den.const), "False"
        if den.const == 1 and len(den.factors) == 1:
            return den.factors[0], "False"
        key = (den.const, *sorted(den.factors))
        found = self.den_values.get(key)
        if found is not None:
            return found
        value, over = str(den.const), "False"
        for factor in sorted(den.factors):
            value, over_factor = self.product(value, factor)
            over = _or(over, over_factor)
        found = self.den_values[key] = (value, self.named(over))
        return found

    def common(self, a: _Den, b: _Den) -> _Den:
        """Returns the least common denominator of two (variables matched by name)."""
        return _Den(math.lcm(a.const, b.const), (*a.factors, *_unmatched(a.factors, b.factors)))

    def over(self, x: _Value, target: _Den) -> tuple[str, str]:
        """Returns the texts of x's numerator over the (larger) denominator `target`, and of
        "it does not fit"."""
        if x.den.same(target) or x.value == "0":
            return x.value, "False"
        extra = _unmatched(x.den.factors, target.factors)
        multiplier, over = self.den_value(_Den(target.const // x.den.const, extra))
        n, over_n = self.product(x.value, multiplier)
        return n, _or(over, over_n)

    def aligned(self, a: _Value, b: _Value) -> tuple[_Den, str, str, str]:
        """Returns the common denominator, both numerators over it and "they do not fit"."""
        if a.kind == "num" and b.kind == "num" and a.scale != b.scale:
            raise Unsupported("values of different units meet")
        den = a.den if a.den.same(b.den) else self.common(a.den, b.den)
        na, over_a = self.over(a, den)
        nb, over_b = self.over(b, den)
        return den, na, nb, _or(over_a, over_b)

    def choose(self, condition: _Value, then: _Value, otherwise: _Value) -> _Value:
        """Returns `then` where the condition holds, else `otherwise`; a row's errors are those
        of the branch it takes (and the condition's)."""
        c = condition.value
        if c in ("True", "False"):
            taken = then if c == "True" else otherwise
            return replace(taken, bad=_or(condition.bad, taken.bad))
        if then.kind != otherwise.kind:
            raise Unsupported("branches of different kinds")
        c = self.named(c)
        den, over = _Den(), "False"
        then_value, otherwise_value = then.value, otherwise.value
        if then.kind == "num":
            den, then_value, otherwise_value, over = self.aligned(then, otherwise)
        value = self.named(_pick(c, then_value, otherwise_value))
        branch = "False"
        if then.bad != "False" or otherwise.bad != "False":
            branch = self.named(_pick(c, then.bad, otherwise.bad))
        bad = self.named(_or(condition.bad, branch, over))
        return _Value(then.kind, value, bad, den, then.scale)

    def product(self, a: str, b: str) -> tuple[str, str]:
        """Returns the texts of a * b and of "it might not fit" (checked against a constant
        bound when one side is a constant, the usual case, else estimated in floating point)."""
        if _is_number(a) and _is_number(b):
            value = int(a) * int(b)
            return (str(value), "False") if abs(value) < LIMIT else ("0", "True")
        if _is_number(b):
            a, b = b, a
        if _is_number(a):
            c = int(a)
            if c in (0, 1):
                return ("0" if c == 0 else b), "False"
            bound = (LIMIT - 1) // abs(c)
            return self.named(f"{b} * {c}"), self.named(f"not (-{bound} <= {b} <= {bound})")
        n, over = self.fresh(), self.fresh()
        self.emit(f"{n}, {over} = product({a}, {b})")
        return n, over

    def whole_sum(self, a: str, b: str, sign: str) -> tuple[str, str]:
        """Returns the texts of a + b (sign "+") or a - b and of "it does not fit"."""
        if _is_number(a) and _is_number(b):
            value = int(a) + int(b) if sign == "+" else int(a) - int(b)
            return (str(value), "False") if abs(value) < LIMIT else ("0", "True")
        if b == "0":
            return a, "False"
        if a == "0" and sign == "+":
            return b, "False"
        n = self.named(f"{a} {sign} {b}")
        return n, self.named(f"not (-{LIMIT} < {n} < {LIMIT})")

    def compare(self, op: str, a: _Value, b: _Value) -> _Value:
        """Returns the comparison of two values (numbers over their common denominator)."""
        if op not in ("<", "<=", ">", ">=", "=", "!="):  # the only text of the AST copied
            raise Unsupported(f"comparison {op!r}")
        bad = _or(a.bad, b.bad)
        if a.kind == "num" and b.kind == "num":
            python_op = "==" if op == "=" else op
            _, na, nb, over = self.aligned(a, b)
            return _Value("flag", self.named(f"{na} {python_op} {nb}"), self.named(_or(bad, over)))
        if a.kind != b.kind or op not in ("=", "!="):
            raise Unsupported(f"'{op}' between non-numbers")
        python_op = "==" if op == "=" else "!="
        return _Value("flag", self.named(f"{a.value} {python_op} {b.value}"), self.named(bad))

    def arithmetic(self, op: str, a: _Value, b: _Value) -> _Value:
        """Returns a + b, a - b, a * b or a / b (a row dividing by zero is deferred)."""
        if op not in ("+", "-", "*", "/"):
            raise Unsupported(f"operation {op!r}")
        if a.kind != "num" or b.kind != "num":
            raise Unsupported("arithmetic on a non-number")
        bad = _or(a.bad, b.bad)
        if op in "+-":
            den, na, nb, over = self.aligned(a, b)
            n, over_n = self.whole_sum(na, nb, op)
            return _Value("num", n, self.named(_or(bad, over, over_n)), den, a.scale)
        if op == "*":
            if a.scale > 1 and b.scale > 1:
                raise Unsupported("money times money")
            n, over = self.product(a.value, b.value)
            const = a.den.const * b.den.const
            if const >= LIMIT:
                raise Unsupported("a constant denominator beyond the int64 range")
            den = _Den(const, (*a.den.factors, *b.den.factors))
            return _Value("num", n, self.named(_or(bad, over)), den, a.scale * b.scale)
        if a.scale < b.scale or a.scale % b.scale:
            raise Unsupported("units that do not divide")
        # (na / da) / (nb / db) = na * db / (da * nb), common factors of da and db cancelled.
        shared = math.gcd(a.den.const, b.den.const)
        da = _unmatched(b.den.factors, a.den.factors)
        db = _unmatched(a.den.factors, b.den.factors)
        db_value, over_db = self.den_value(_Den(b.den.const // shared, db))
        n, over_n = self.product(a.value, db_value)
        const = a.den.const // shared
        if _is_number(b.value):
            by = int(b.value)
            if by == 0:
                return _Value("num", "0", "True", scale=a.scale // b.scale)
            if by < 0:
                n = self.named(f"-{n}")
            const *= abs(by)
            if const >= LIMIT:
                raise Unsupported("a constant denominator beyond the int64 range")
            den, zero = _Den(const, da), "False"
        else:
            sign, divisor, zero = self.fresh(), self.fresh(), self.fresh()
            self.emit(f"{sign}, {divisor}, {zero} = divisor({b.value})")
            n = self.named(f"{n} * {sign}")
            den = _Den(const, (*da, divisor))
        _, over_den = self.den_value(den)
        bad = _or(bad, over_db, over_n, zero, over_den)
        return _Value("num", n, self.named(bad), den, a.scale // b.scale)

    # ---- expressions ----------------------------------------------------------------------
    def expr(self, expr: ast.Expr, bound: Mapping[str, Value], scale: int) -> _Value:
        """Returns the value of an expression, as Engine.expr does for columns."""
        statute = self.statute
        if isinstance(expr, ast.Literal):
            return self.literal(expr.value, literal_scale(expr, scale))
        if isinstance(expr, ast.Ref):
            name = expr.name
            if name in bound:
                return self.constant(bound[name])
            if name in statute.inputs:
                return self.input(name)
            if name in statute.definitions:
                return self.definition(name, ())
            return _Value("code", str(self.engine.codes[name]))
        if isinstance(expr, ast.Call):
            return self.call(expr, bound, scale)
        if isinstance(expr, ast.BinOp):
            left = self.expr(expr.left, bound, scale)
            right = self.expr(expr.right, bound, 1 if expr.op in "*/" else scale)
            return self.arithmetic(expr.op, left, right)
        if isinstance(expr, ast.Compare):
            unit = self.engine.unit_of(expr.left, bound) or self.engine.unit_of(expr.right, bound)
            left = self.expr(expr.left, bound, unit or 1)
            right = self.expr(expr.right, bound, unit or 1)
            return self.compare(expr.op, left, right)
        if isinstance(expr, ast.BoolOp):
            a = self.expr(expr.left, bound, 1)
            b = self.expr(expr.right, bound, 1)
            if a.kind != "flag" or b.kind != "flag":
                raise Unsupported("a logical operation on a non-condition")
            right_bad = "False" if b.bad == "False" else f"({a.value} & {b.bad})"
            if expr.op == "and":
                value = f"{a.value} & {b.value}"
            elif expr.op == "or":
                value = f"{a.value} | {b.value}"
            else:
                value = f"(not {a.value}) | {b.value}"
            return _Value("flag", self.named(value), self.named(_or(a.bad, right_bad)))
        if isinstance(expr, ast.Not):
            operand = self.expr(expr.operand, bound, 1)
            if operand.kind != "flag":
                raise Unsupported("'not' of a non-condition")
            return _Value("flag", self.named(f"not {operand.value}"), operand.bad)
        if isinstance(expr, ast.Neg):
            operand = self.expr(expr.operand, bound, scale)
            if operand.kind != "num":
                raise Unsupported("a negated non-number")
            return _Value(
                "num", self.named(f"-{operand.value}"), operand.bad, operand.den, operand.scale
            )
        if isinstance(expr, ast.If):
            condition = self.expr(expr.condition, bound, 1)
            then = self.expr(expr.then, bound, scale)
            otherwise = self.expr(expr.otherwise, bound, scale)
            return self.choose(condition, then, otherwise)
        if isinstance(expr, ast.Given):
            self.input(expr.name)
            missing = self.given[expr.name]
            return _Value("flag", "True" if missing == "False" else self.named(f"not {missing}"))
        if isinstance(expr, ast.ReadingTest):
            return _Value("flag", str(self.engine.readings[expr.reading] == expr.option))
        if isinstance(expr, ast.BonusSum):
            return self.bonus_sum(bound)
        raise Unsupported(f"expression {type(expr).__name__}")

    def call(self, expr: ast.Call, bound: Mapping[str, Value], scale: int) -> _Value:
        """Returns min, max, floor or a definition called with arguments."""
        if expr.name in ("min", "max"):
            values = [self.expr(a, bound, scale) for a in expr.args]
            result = values[0]
            op = "<=" if expr.name == "min" else ">="
            for value in values[1:]:
                keep = self.compare(op, result, value)
                chosen = self.choose(_Value("flag", keep.value), result, value)
                bad = self.named(_or(keep.bad, result.bad, value.bad))
                result = _Value(chosen.kind, chosen.value, bad, chosen.den, chosen.scale)
            return result
        if expr.name in ("floor", "ceil"):
            (only,) = expr.args
            value = self.expr(only, bound, scale)
            if value.kind != "num":
                raise Unsupported(f"{expr.name} of a non-number")
            q = value.value
            up = expr.name == "ceil"  # ceil(n / d) = -floor(-n / d)
            if not value.whole:
                den, over = self.den_value(value.den)
                q = self.named(
                    f"-((-({value.value})) // {den})" if up else f"{value.value} // {den}"
                )
                value = replace(value, bad=self.named(_or(value.bad, over)))
            if value.scale != 1:
                s = value.scale
                q = self.named(f"-((-({q})) // {s}) * {s}" if up else f"({q} // {s}) * {s}")
            return _Value("num", q, value.bad, scale=value.scale)
        definition = self.statute.definitions[expr.name]
        given = dict(expr.kwargs)
        args = tuple(_static(given[p.name], bound, self.statute) for p in definition.params)
        return self.definition(expr.name, args)

    def bonus_sum(self, bound: Mapping[str, Value]) -> _Value:
        """Returns the sum of the bonuses (for these arguments)."""
        total: _Value | None = None
        for bonus in self.statute.bonuses:
            args = tuple(bound[p.name] for p in bonus.params)
            value = self.definition(bonus.name, args)
            total = value if total is None else self.arithmetic("+", total, value)
        return total if total is not None else _Value("num", "0", scale=CENTS)

    # ---- definitions ----------------------------------------------------------------------
    def definition(self, name: str, args: tuple[Value, ...]) -> _Value:
        """Returns a definition's value for these arguments, translated once."""
        key = (name, args)
        found = self.memo.get(key)
        if found is not None:
            return found
        definition = self.statute.definitions[name]
        bound = dict(zip((p.name for p in definition.params), args, strict=True))
        scale = scale_of(definition.type)
        if isinstance(definition, ast.Rule):
            assert definition.expr is not None
            value = self.expr(definition.expr, bound, scale)
            if definition.condition is not None:
                condition = self.expr(definition.condition, bound, 1)
                value = self.choose(condition, value, self.zero(definition.type))
        else:
            value = self.cases(definition, bound, scale)
        if definition.exceptions:
            value = self.excepted(definition, bound, scale, value)
        value = self.as_type(value, definition.type)
        self.memo[key] = value
        return value

    def zero(self, type_: ast.Type) -> _Value:
        """Returns the value of a rule whose condition fails."""
        if type_.kind == "bool":
            return _Value("flag", "False")
        if type_.kind == "enum":
            raise Unsupported("an enum rule with a condition")
        return _Value("num", "0", scale=scale_of(type_))

    def as_type(self, value: _Value, type_: ast.Type) -> _Value:
        """Returns the value, checked to have the unit of its declared type."""
        if value.kind == "num" and value.scale != scale_of(type_):
            raise Unsupported("a value of another unit than declared")
        return value

    def excepted(
        self,
        definition: ast.Rule | ast.Cases,
        bound: Mapping[str, Value],
        scale: int,
        general: _Value,
    ) -> _Value:
        """Returns a definition with exceptions: the value of the exception of the highest
        priority whose condition holds, else `general`; two of equal priority holding defer."""
        ordered = definition.exceptions_by_priority()
        conditions = [self.expr(e.condition, bound, 1) for e in ordered]
        result = self.as_type(general, definition.type)
        for exception, condition in zip(reversed(ordered), reversed(conditions), strict=True):
            value = self.as_type(self.expr(exception.expr, bound, scale), definition.type)
            result = self.choose(condition, value, result)
        bad = result.bad
        priorities = [e.priority for e in ordered]
        for priority in dict.fromkeys(priorities):
            group = [c for c, p in zip(conditions, priorities, strict=True) if p == priority]
            if len(group) > 1:
                bad = _or(bad, self.more_than_one(group))
        bad = _or(bad, *(c.bad for c in conditions))
        return _Value(result.kind, result.value, self.named(bad), result.den, result.scale)

    def more_than_one(self, conditions: list[_Value]) -> str:
        """Returns the name of "more than one of the conditions holds"."""
        holding = " + ".join(f"int({c.value})" for c in conditions)
        return self.named(f"({holding}) > 1")

    def cases(self, cases: ast.Cases, bound: Mapping[str, Value], scale: int) -> _Value:
        """Returns a piecewise definition: the first case that holds (exclusive cases that
        both hold, or none without `otherwise`, defer the row)."""
        conditions: list[_Value] = []
        values: list[_Value] = []
        for case in cases.cases:
            if case.condition is None:
                conditions.append(_Value("flag", "True"))
            else:
                conditions.append(self.expr(case.condition, bound, 1))
            values.append(self.expr(case.expr, bound, scale))
        if cases.otherwise is not None:
            result = self.expr(cases.otherwise, bound, scale)
        else:
            enum = cases.type.kind == "enum"
            result = _Value("code", "0") if enum else self.zero(cases.type)
            none = " & ".join(f"(not {c.value})" for c in conditions) or "True"
            result = _Value(result.kind, result.value, self.named(none), result.den, result.scale)
        for condition, value in zip(reversed(conditions), reversed(values), strict=True):
            result = self.choose(condition, value, result)
        # The `otherwise` case holds when no other does: it never counts as a second one.
        counted = [c for c, case in zip(conditions, cases.cases, strict=True) if case.condition]
        if cases.order == "exclusive" and len(counted) > 1:
            bad = _or(result.bad, self.more_than_one(counted), *(c.bad for c in conditions))
            result = _Value(result.kind, result.value, self.named(bad), result.den, result.scale)
        return result

    # ---- declared bounds ------------------------------------------------------------------
    def broken(self) -> str:
        """Returns the text of "this row breaks a declared bound or a `required when`", as
        lextrace/columns.py's check_bounds decides it (the scalar path then names the field).
        A row whose check cannot be decided in int64 counts as breaking it: the scalar path
        decides."""
        parts: list[str] = []
        for declared in self.statute.inputs.values():
            if declared.name not in self.layouts:  # a list: its rows go to the scalar path
                continue
            column = self.input(declared.name)
            missing = self.given[declared.name]
            given = "True" if missing == "False" else self.named(f"not {missing}")
            scale = scale_of(declared.type)
            checks: list[tuple[str, _Value, _Value | None]] = [
                (
                    BOUND_COMPARISONS[bound.kind],
                    self.expr(bound.value, {}, scale),
                    None if bound.when is None else self.expr(bound.when, {}, 1),
                )
                for bound in declared.bounds
            ]
            if declared.type.kind == "share":
                checks.append((">=", self.literal(Fraction(0), 1), None))
                checks.append(("<=", self.literal(Fraction(1), 1), None))
            elif declared.type.kind == "count":
                checks.append((">=", self.literal(Fraction(0), 1), None))
            for op, limit, when in checks:
                holds = self.compare(op, column, limit)
                fails = f"not {holds.value}"
                if when is not None:
                    fails = _or(f"({fails}) & {when.value}", when.bad)
                parts.append(self.named(f"({_or(fails, holds.bad)}) & {given}"))
            if declared.required_when is not None and missing != "False":
                needed = self.expr(declared.required_when, {}, 1)
                parts.append(self.named(f"({_or(needed.value, needed.bad)}) & {missing}"))
        return _or(*parts)

    def parameters(self) -> list[tuple[str, str]]:
        """Returns the kernel's parameters for the inputs it reads, in order, each with the
        type of its rows (`int64`, `bool` or `int16`)."""
        params = []
        for index, name in enumerate(self.used):
            layout = self.layouts[name]
            kind = {"flag": "bool", "code": "int16"}.get(layout.kind, "int64")
            params.append((f"x{index}", kind))
            if layout.kind == "fraction":
                params.append((f"r{index}", "int64"))
                params.extend((f"f{index}_{k}", "int64") for k in range(layout.factors))
            if layout.has_bad:
                params.append((f"b{index}", "bool"))
        return params

    # ---- the loop -------------------------------------------------------------------------
    def source(
        self,
    ) -> tuple[str, list[str], dict[str, _Value], list[tuple[str, str]], list[tuple[str, str]]]:
        """Returns the module text, the inputs the kernel reads (in the order of its
        parameters), each result's value, and the kernel's input and output parameters after
        `size`, each with the type of its rows."""
        results = {name: self.definition(name, ()) for name in self.statute.result_names}
        outputs: list[tuple[str, str]] = []
        broken = self.broken()
        out = []
        for index, (name, value) in enumerate(results.items()):
            kind = self.statute.definitions[name].type.kind
            if value.kind == "num":
                den, over = self.den_value(value.den)
                if over != "False":
                    results[name] = value = replace(value, bad=self.named(_or(value.bad, over)))
                outputs.append((f"o{index}_q", "int64"))
                if value.whole:
                    out.append(f"    o{index}_q[i] = {value.value}")
                elif kind == "money":  # output in whole cents, rounded as every result is
                    out.append(f"    o{index}_q[i] = cents({value.value}, {den})")
                else:
                    out.append(f"    q = {value.value} // {den}")
                    out.append(f"    o{index}_q[i] = q")
                    out.append(f"    o{index}_r[i] = {value.value} - q * {den}")
                    out.append(f"    o{index}_d[i] = {den}")
                    outputs.extend(((f"o{index}_r", "int64"), (f"o{index}_d", "int64")))
            else:
                out.append(f"    o{index}[i] = {value.value}")
                outputs.append((f"o{index}", "bool" if value.kind == "flag" else "int16"))
        # The inputs the bounds read may come after the parameters listed above.
        inputs = self.parameters()
        deferred = _or(broken, *(v.bad for v in results.values()))
        body = [f"    {line}" for line in self.lines] + [
            f"    deferred[i] = {deferred}",
        ]
        outputs.append(("deferred", "bool"))
        names = ["size"] + [name for name, _ in inputs + outputs]
        # A deferred row's values are never read; computing them anyway keeps the loop free of
        # branches (and a division by a zero denominator of a deferred row is avoided: d >= 1).
        text = "\n".join(
            [
                _HELPERS,
                # numpy's error model: a division by zero (only on a deferred row, whose values
                # are never read) gives 0 instead of raising.
                '@numba.njit(nogil=True, error_model="numpy", cache=CACHE)',
                f"def kernel({', '.join(names)}):",
                "  for i in range(size):",
                *[f"  {line}" for line in body],
                *[f"  {line}" for line in out],
                "",
            ]
        )
        return text, list(self.used), results, inputs, outputs


def _pick(c: str, then: str, otherwise: str) -> str:
    """Returns the text of `then` where c holds, else `otherwise`."""
    if then == otherwise:
        return then
    return f"{then} if {c} else {otherwise}"


def _is_number(text: str) -> bool:
    """True for the text of an integer constant."""
    return text.lstrip("-").isdigit()


def available() -> bool:
    """True when numba (the `compiled` extra) can be imported."""
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True


def _layout(column: Col) -> _Layout:
    """Returns how an input column is held (the kernel is compiled for each layout)."""
    has_bad = column.bad is not False
    if isinstance(column, Flag):
        return _Layout("flag", has_bad=has_bad)
    if isinstance(column, Code):
        return _Layout("code", has_bad=has_bad)
    if column.den.whole:
        return _Layout("whole", has_bad=has_bad)
    return _Layout("fraction", len(column.den.factors), column.den.const, has_bad)


def _full(value: Array | int | bool, size: int, dtype: Any) -> Array:
    """Returns a column as a contiguous array of `dtype` (a constant repeated on every row)."""
    if isinstance(value, np.ndarray) and value.shape == (size,):
        return np.ascontiguousarray(value, dtype=dtype)
    return np.full(size, value, dtype=dtype)


class _Kernel(NamedTuple):
    """A compiled loop, the inputs it reads (in the order of its parameters) and the value
    of each result in it."""

    function: Callable[..., None]
    used: list[str]
    results: dict[str, _Value]


class CompiledEngine:
    """The compiled evaluator of one statute under one reading selection: the same `run` as
    Engine's, a kernel compiled for each layout of input columns it meets."""

    def __init__(self, engine: Engine) -> None:
        if not available():
            raise Unsupported(f"the compiled engine {NEEDS_NUMBA}")
        self.engine = engine
        self.statute = engine.statute
        self.kernels: dict[tuple[_Layout, ...], _Kernel] = {}
        # Fails now, not at the first chunk, for an encoding the translation does not take.
        layouts = {
            name: _default_layout(declared)
            for name, declared in self.statute.inputs.items()
            if declared.type.kind != "list"
        }
        _Translation(engine, layouts).source()

    def kernel(self, layouts: Mapping[str, _Layout]) -> _Kernel:
        """Returns the kernel for this layout of input columns, compiled at its first use (two
        threads asking at once translate it twice, and `_compiled` compiles it once)."""
        key = tuple(layouts[name] for name in sorted(layouts))
        found = self.kernels.get(key)
        if found is None:
            text, used, results, inputs, outputs = _Translation(self.engine, layouts).source()
            function = _compiled(text, inputs, outputs)
            found = self.kernels[key] = _Kernel(function, used, results)
        return found

    def run(self, inputs: Mapping[str, Col], size: int) -> tuple[dict[str, Col], Array]:
        """Returns every result's column (money in whole cents, rounded) and the rows for the
        scalar evaluator: those the rules defer and those that break a declared bound."""
        layouts = {name: _layout(column) for name, column in inputs.items()}
        kernel, used, results = self.kernel(layouts)
        arguments: list[Any] = [size]
        for name in used:
            column = inputs[name]
            if isinstance(column, Flag):
                arguments.append(_full(column.value, size, np.bool_))
            elif isinstance(column, Code):
                arguments.append(_full(column.value, size, np.int16))
            else:
                arguments.append(_full(column.q, size, np.int64))
                if not column.den.whole:
                    arguments.append(_full(column.r, size, np.int64))
                    arguments.extend(_full(f, size, np.int64) for f in column.den.factors)
            if column.bad is not False:
                arguments.append(_full(column.bad, size, np.bool_))
        columns: dict[str, Col] = {}
        for name, value in results.items():
            type_ = self.statute.definitions[name].type
            if value.kind == "num":
                q = np.empty(size, dtype=np.int64)
                arguments.append(q)
                if value.whole or type_.kind == "money":  # money: in whole cents already
                    columns[name] = Num(q, 0, Den(), value.scale)
                else:
                    r, d = np.empty(size, dtype=np.int64), np.empty(size, dtype=np.int64)
                    arguments.extend((r, d))
                    columns[name] = Num(q, r, Den(1, (d,)), value.scale)
            elif value.kind == "flag":
                flags = np.empty(size, dtype=np.bool_)
                arguments.append(flags)
                columns[name] = Flag(flags)
            else:
                codes = np.empty(size, dtype=np.int16)
                arguments.append(codes)
                columns[name] = Code(codes)
        deferred = np.empty(size, dtype=np.bool_)
        arguments.append(deferred)
        kernel(*arguments)
        return columns, deferred


_COMPILED: dict[str, Callable[..., None]] = {}
_COMPILED_LOCK = threading.Lock()


def _compiled(
    text: str, inputs: list[tuple[str, str]], outputs: list[tuple[str, str]]
) -> Callable[..., None]:
    """Returns the kernel of a generated module compiled for its parameters' types, made once
    per process for each text (the same encoding, readings and layout give the same text,
    whichever Statute object asks). Inputs are typed read-only, which takes writable arrays
    too: one compilation serves columns Arrow lends and columns made here."""
    from numba import types

    with _COMPILED_LOCK:
        found = _COMPILED.get(text)
        if found is None:
            kept = kernel_cache.prepared(text)
            if kept is None:  # compiled in memory, every process
                kept = kernel_cache.Kept({"CACHE": False}, "<lextrace kernel>", text.encode())
            exec(compile(kept.source, kept.filename, "exec"), kept.namespace)
            dispatcher = kept.namespace["kernel"]
            signature = [types.int64]
            for params, readonly in ((inputs, True), (outputs, False)):
                signature += [
                    types.Array(getattr(types, kind), 1, "C", readonly=readonly)
                    for _, kind in params
                ]
            dispatcher.compile(tuple(signature))
            dispatcher.disable_compile()  # another type would be a translation's error
            found = _COMPILED[text] = dispatcher
    return found


def _default_layout(declared: ast.Input) -> _Layout:
    """Returns the most common layout of an input (to try the translation before any rows)."""
    kind = declared.type.kind
    if kind == "bool":
        return _Layout("flag", has_bad=True)
    if kind == "enum":
        return _Layout("code", has_bad=True)
    return _Layout("whole", has_bad=True)
