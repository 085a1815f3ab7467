"""Columnar evaluation: many scenarios at once over numpy columns, exact.

The statute's rules are walked once per chunk of rows, each operation applied to whole columns.
Every number is held exactly as a mixed fraction in its base unit (cents for money): a whole part
`q`, a remainder `0 <= r < den` and a denominator made of a constant and of columns (a division by
a column, such as the reference median salary, adds that column as a factor). Values with the same
factors add without growing; a whole column times a count stays small because the remainder is
carried, not multiplied out.

Arithmetic runs on int64 columns. Before every product, and after every sum, magnitudes are
checked with a float estimate; a row where a value could leave the int64 range, where a division
by zero, a missing optional input, two exclusive cases or no case at all would occur, is marked
*deferred*. A deferred row is then evaluated by the scalar evaluator, which either agrees or
reports the error in its own words. So the columnar result is exact on every row it keeps, and a
row it cannot do exactly is never guessed.
"""

from __future__ import annotations

import ctypes
import math
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

import numpy as np

from . import ast
from .checker import walk
from .values import CENTS, Value

Array = np.ndarray[Any, Any]
Mask = Array | bool
_LIMIT = float(2**62)
_COMPARE = {
    "=": np.equal,
    "!=": np.not_equal,
    "<": np.less,
    "<=": np.less_equal,
    ">": np.greater,
    ">=": np.greater_equal,
}


def keep_freed_memory() -> bool:
    """Asks the C allocator (glibc) to keep freed blocks for reuse; returns True when it could.

    Every column operation allocates an array of a chunk's size. By default glibc hands blocks
    that large back to the system when they are freed, and the next one costs a page fault per
    page: more time than the arithmetic itself. Kept, they are reused at once.

    The setting is the whole process's, so the commands that run the columnar evaluator
    (`batch`, `impact`) ask for it; a program that embeds the evaluator decides for itself."""
    global _MEMORY_KEPT
    if _MEMORY_KEPT is None:
        _MEMORY_KEPT = False
        if sys.platform.startswith("linux"):
            try:
                libc = ctypes.CDLL(None)
                mallopt = libc.mallopt
            except (OSError, AttributeError):
                return False
            mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
            mmap_threshold, trim_threshold = -3, -1  # glibc's M_MMAP_THRESHOLD, M_TRIM_THRESHOLD
            _MEMORY_KEPT = bool(
                mallopt(mmap_threshold, _KEPT_BLOCK) and mallopt(trim_threshold, _KEPT_TOTAL)
            )
    return _MEMORY_KEPT


_MEMORY_KEPT: bool | None = None
_KEPT_BLOCK = 1 << 25  # blocks up to 32 MiB come from the heap, not from their own mapping
_KEPT_TOTAL = 1 << 27  # up to 128 MiB free at the heap's top is kept rather than returned


class Unsupported(Exception):
    """The encoding uses something the columnar evaluator does not handle."""


@dataclass(frozen=True, eq=False)
class Den:
    """A positive denominator: a constant times columns (compared by identity)."""

    const: int = 1
    factors: tuple[Array, ...] = ()

    @property
    def whole(self) -> bool:
        """True when the denominator is 1."""
        return self.const == 1 and not self.factors

    def same(self, other: Den) -> bool:
        """True when both are the same constant times the same columns."""
        if self.const != other.const or len(self.factors) != len(other.factors):
            return False
        _, unmatched = _match(other.factors, self.factors)
        return not unmatched


def _match(pool: tuple[Array, ...], wanted: tuple[Array, ...]) -> tuple[list[Array], list[Array]]:
    """Takes each wanted column out of the pool (by identity, once each); returns what is left
    of the pool and the wanted columns it did not hold."""
    left = list(pool)
    unmatched = []
    for factor in wanted:
        for index, candidate in enumerate(left):
            if candidate is factor:
                del left[index]
                break
        else:
            unmatched.append(factor)
    return left, unmatched


@dataclass
class Num:
    """An exact numeric column: value = (q + r / den) / scale, with 0 <= r < den."""

    q: Array | int
    r: Array | int
    den: Den
    scale: int
    bad: Mask = False


@dataclass
class Flag:
    """A boolean column (conditions, bool inputs)."""

    value: Array | bool
    bad: Mask = False


@dataclass
class Code:
    """An enum column as codes into a table of member names shared by the whole statute."""

    value: Array | int
    bad: Mask = False


Col = Num | Flag | Code


def _divmod(a: Array | int, b: Array | int) -> tuple[Array | int, Array | int]:
    """Returns floor division and remainder (numpy's divmod on int64 is several times slower
    than a floor division, a product and a difference)."""
    q = a // b
    return q, a - q * b


def _or(a: Mask, b: Mask) -> Mask:
    if a is False:
        return b
    if b is False:
        return a
    return a | b


def scale_of(type_: ast.Type) -> int:
    """Returns the base unit a value of this type is held in: cents for money, else 1."""
    return CENTS if type_.kind == "money" else 1


class Chunk:
    """The evaluation of one chunk of rows: inputs, memo of definitions, deferred rows."""

    def __init__(self, engine: Engine, inputs: Mapping[str, Col], size: int) -> None:
        self.engine = engine
        self.inputs = inputs
        self.size = size
        self.memo: dict[tuple[str, tuple[Value, ...]], Col] = {}
        self.bad: Array = np.zeros(size, dtype=bool)
        self.den_values: dict[int, Array | int] = {}
        self.bounds: dict[int, tuple[Array, int]] = {}

    # ---- checked integer arithmetic ---------------------------------------------------------
    def bound(self, a: Array | int) -> int:
        """Returns a bound on the magnitude of every row of a column (or of a number): the one
        noted when the column was made, else its largest magnitude (then noted)."""
        if not isinstance(a, np.ndarray):
            return abs(int(a))
        if a.dtype == np.bool_:
            return 1
        noted = self.bounds.get(id(a))
        if noted is not None and noted[0] is a:
            return noted[1]
        found = 0 if a.size == 0 else max(int(a.max()), -int(a.min()))
        self.bounds[id(a)] = (a, found)
        return found

    def note(self, a: Array | int, bound: int) -> Array | int:
        """Notes a bound on the magnitude of a new column's rows; returns the column."""
        if isinstance(a, np.ndarray):
            self.bounds[id(a)] = (a, bound)
        return a

    def product(self, a: Array | int, b: Array | int) -> tuple[Array | int, Mask]:
        """Returns a * b and the rows where the product could leave the int64 range."""
        if isinstance(a, int) and isinstance(b, int):
            return a * b, False
        if (isinstance(a, int) and abs(a) <= 1) or (isinstance(b, int) and abs(b) <= 1):
            return a * b, False
        # Bounded as a whole (the usual case), no row can overflow: skip the row-wise check.
        bound = self.bound(a) * self.bound(b)
        if bound < _LIMIT:
            return self.note(np.multiply(a, b), bound), False
        estimate = np.abs(np.asarray(a, dtype=np.float64)) * np.abs(np.asarray(b, dtype=np.float64))
        with np.errstate(over="ignore"):
            return np.multiply(a, b), estimate >= _LIMIT

    def large(self, a: Array | int) -> Mask:
        """Returns the rows where a sum could grow out of range in a later operation."""
        if self.bound(a) < _LIMIT:
            return False
        return np.abs(a) >= 2**62

    def sum(self, a: Array | int, b: Array | int, sign: int) -> Array | int:
        """Returns a + b (sign 1) or a - b (sign -1), its bound noted when both are known
        to stay far inside the int64 range (else `large` measures it)."""
        total = a + b if sign > 0 else a - b
        bound = self.bound(a) + self.bound(b)
        return self.note(total, bound) if bound < _LIMIT else total

    def den_value(self, den: Den) -> tuple[Array | int, Mask]:
        """Returns the value of a denominator, and the rows where it is too large."""
        value: Array | int = den.const
        bad: Mask = False
        for factor in den.factors:
            value, over = self.product(value, factor)
            bad = _or(bad, over)
        return value, bad

    # ---- common denominators ----------------------------------------------------------------
    def common(self, a: Den, b: Den) -> Den:
        """Returns the least common denominator of two (factors matched by identity)."""
        _, extra = _match(a.factors, b.factors)
        return Den(math.lcm(a.const, b.const), (*a.factors, *extra))

    def to_den(self, x: Num, target: Den) -> tuple[Array | int, Mask]:
        """Returns x's remainder over the (larger) denominator `target`."""
        if x.den.same(target):
            return x.r, False
        extra, _ = _match(target.factors, x.den.factors)
        multiplier, bad = self.den_value(Den(target.const // x.den.const, tuple(extra)))
        r, over = self.product(x.r, multiplier)
        return r, _or(bad, over)

    def aligned(self, a: Num, b: Num) -> tuple[Den, Array | int, Array | int, Mask]:
        """Returns the common denominator and both remainders over it."""
        if a.scale != b.scale:
            raise Unsupported("values of different units meet")
        den = a.den if a.den.same(b.den) else self.common(a.den, b.den)
        ra, bad_a = self.to_den(a, den)
        rb, bad_b = self.to_den(b, den)
        return den, ra, rb, _or(bad_a, bad_b)

    # ---- operations -------------------------------------------------------------------------
    def add(self, a: Num, b: Num, sign: int) -> Num:
        """Returns a + b (sign 1) or a - b (sign -1)."""
        den, ra, rb, bad = self.aligned(a, b)
        q = self.sum(a.q, b.q, sign)
        bad = _or(bad, self.large(q))
        if den.whole:
            return Num(q, 0, den, a.scale, _or(_or(a.bad, b.bad), bad))
        value, over = self.den_value(den)
        r = ra + rb if sign > 0 else ra - rb
        if sign > 0:
            carry = r >= value
            q, r = self.sum(q, carry, 1), r - carry * value
        else:
            borrow = r < 0
            q, r = self.sum(q, borrow, -1), r + borrow * value
        return Num(q, r, den, a.scale, _or(_or(a.bad, b.bad), _or(bad, over)))

    def multiply(self, a: Num, b: Num) -> Num:
        """Returns a * b."""
        if not a.den.whole and b.den.whole:
            a, b = b, a
        bad = _or(a.bad, b.bad)
        scale = a.scale * b.scale
        if a.den.whole:
            q, over = self.product(a.q, b.q)
            bad = _or(bad, over)
            if b.den.whole:
                return self._rescale(Num(q, 0, Den(), scale, bad), a.scale, b.scale)
            if isinstance(a.q, int) and a.q in (0, 1):  # the remainder stays below the den
                return self._rescale(Num(q, b.r * a.q, b.den, scale, bad), a.scale, b.scale)
            carried, over = self.product(b.r, a.q)
            value, over_den = self.den_value(b.den)
            extra, rest = _divmod(carried, value)
            # The denominator is at least 1: the quotient is no larger than the dividend.
            q = self.sum(q, self.note(extra, self.bound(carried)), 1)
            bad = _or(bad, _or(_or(over, over_den), self.large(q)))
            return self._rescale(Num(q, rest, b.den, scale, bad), a.scale, b.scale)
        na, bad_a = self.numerator(a)
        nb, bad_b = self.numerator(b)
        n, over = self.product(na, nb)
        den = Den(a.den.const * b.den.const, a.den.factors + b.den.factors)
        value, over_den = self.den_value(den)
        q, r = _divmod(n, value)
        bad = _or(_or(bad, _or(bad_a, bad_b)), _or(over, over_den))
        return self._rescale(Num(q, r, den, scale, bad), a.scale, b.scale)

    def _rescale(self, x: Num, scale_a: int, scale_b: int) -> Num:
        # money * number is money: the product of base units carries one money scale.
        if scale_a > 1 and scale_b > 1:
            raise Unsupported("money times money")
        return x

    def numerator(self, x: Num) -> tuple[Array | int, Mask]:
        """Returns q * den + r, the value over its denominator."""
        if x.den.whole:
            return x.q, False
        value, bad = self.den_value(x.den)
        n, over = self.product(x.q, value)
        return n + x.r, _or(bad, over)

    def divide(self, a: Num, b: Num) -> Num:
        """Returns a / b; rows dividing by zero are deferred."""
        if a.scale < b.scale:
            raise Unsupported("a number divided by money")
        scale = a.scale // b.scale if a.scale % b.scale == 0 else 0
        if scale == 0:
            raise Unsupported("units that do not divide")
        na, bad_a = self.numerator(a)
        nb, bad_b = self.numerator(b)
        # (na / da) / (nb / db) = na * db / (da * nb), common factors of da and db cancelled.
        da_factors, db_factors = _match(a.den.factors, b.den.factors)
        shared = math.gcd(a.den.const, b.den.const)
        db_value, bad_db = self.den_value(Den(b.den.const // shared, tuple(db_factors)))
        numerator, over = self.product(na, db_value)
        zero: Mask
        if isinstance(nb, int) and nb > 0:
            zero, den = False, Den(a.den.const // shared * nb, tuple(da_factors))
        elif isinstance(nb, np.ndarray) and nb.size and int(nb.min()) > 0:
            # Every divisor positive (amounts with a lower bound): no sign, no zero to mend.
            zero, den = False, Den(a.den.const // shared, (*da_factors, nb))
        else:
            zero = nb == 0
            sign = np.where(np.asarray(nb) < 0, -1, 1)
            divisor = np.where(zero, 1, np.abs(nb))
            numerator = numerator * sign
            den = Den(a.den.const // shared, (*da_factors, divisor))
        value, over_den = self.den_value(den)
        q, r = _divmod(numerator, value)
        bad = _or(_or(a.bad, b.bad), _or(_or(bad_a, bad_b), _or(bad_db, over)))
        bad = _or(bad, _or(over_den, zero))
        return Num(q, r, den, scale, bad)

    def negate(self, x: Num) -> Num:
        """Returns -x."""
        if x.den.whole:
            return Num(-x.q, 0, x.den, x.scale, x.bad)
        value, bad = self.den_value(x.den)
        fractional = np.asarray(x.r) > 0
        q = -x.q - fractional
        r = np.where(fractional, value - x.r, 0)
        return Num(q, r, x.den, x.scale, _or(x.bad, bad))

    def compare(self, op: str, a: Col, b: Col) -> Flag:
        """Returns the comparison of two columns."""
        bad = _or(a.bad, b.bad)
        if isinstance(a, Num) and isinstance(b, Num) and a.den.whole and b.den.whole:
            if a.scale != b.scale:
                raise Unsupported("values of different units meet")
            return Flag(_COMPARE[op](a.q, b.q), bad)
        if isinstance(a, Num) and isinstance(b, Num):
            _, ra, rb, over = self.aligned(a, b)
            # np.asarray: with constant columns these are Python bools, where ~ is not "not".
            less = np.asarray((a.q < b.q) | ((a.q == b.q) & (ra < rb)))
            equal = np.asarray((a.q == b.q) & (ra == rb))
            result = {
                "=": equal,
                "!=": np.logical_not(equal),
                "<": less,
                "<=": less | equal,
                ">": np.logical_not(less | equal),
                ">=": np.logical_not(less),
            }[op]
            return Flag(result, _or(bad, over))
        left, right = a.value, b.value  # type: ignore[union-attr]
        if op == "=":
            return Flag(np.equal(left, right), bad)
        if op == "!=":
            return Flag(np.not_equal(left, right), bad)
        raise Unsupported(f"'{op}' between non-numbers")

    def choose(self, condition: Flag, then: Col, otherwise: Col) -> Col:
        """Returns `then` where the condition holds, else `otherwise` (each row's errors are
        those of the branch it takes, as the reference evaluator computes on demand)."""
        c = condition.value
        if not isinstance(c, np.ndarray) or c.ndim == 0:
            # A condition known for every row (a reading, a parameter): one branch is taken.
            taken = then if bool(c) else otherwise
            return replace(taken, bad=_or(condition.bad, taken.bad))
        bad = _or(condition.bad, _branch_bad(c, then.bad, otherwise.bad))
        if isinstance(then, Num) and isinstance(otherwise, Num):
            den, rt, ro, over = self.aligned(then, otherwise)
            q = _select(c, then.q, otherwise.q)
            r = 0 if den.whole else _select(c, rt, ro)
            return Num(q, r, den, then.scale, _or(bad, over))
        if isinstance(then, Flag) and isinstance(otherwise, Flag):
            return Flag(_select_flag(c, then.value, otherwise.value), bad)
        if isinstance(then, Code) and isinstance(otherwise, Code):
            return Code(np.where(c, _code(then.value), _code(otherwise.value)), bad)
        raise Unsupported("branches of different kinds")


def _extreme(name: str, a: Col, b: Col) -> Num | None:
    """Returns min or max of two whole numbers of one unit (None for other columns): every
    argument is evaluated, so every argument's errors count."""
    if not (isinstance(a, Num) and isinstance(b, Num) and a.den.whole and b.den.whole):
        return None
    if a.scale != b.scale:
        raise Unsupported("values of different units meet")
    pick = np.minimum if name == "min" else np.maximum
    if isinstance(a.q, int) and isinstance(b.q, int):
        q: Array | int = int(pick(a.q, b.q))
    else:
        q = pick(a.q, b.q)
    return Num(q, 0, Den(), a.scale, _or(a.bad, b.bad))


def _select(c: Array, then: Array | int, otherwise: Array | int) -> Array | int:
    """Returns `then` where c holds, else `otherwise` (a multiplication by the condition
    where one side is zero: cheaper than np.where)."""
    if isinstance(then, int) and isinstance(otherwise, int):
        if then == otherwise:
            return then
        if otherwise == 0:
            return c * np.int64(then)
        if then == 0:
            return np.logical_not(c) * np.int64(otherwise)
    elif isinstance(otherwise, int) and otherwise == 0 and then.dtype == np.int64:
        return then * c
    elif isinstance(then, int) and then == 0 and otherwise.dtype == np.int64:
        return otherwise * np.logical_not(c)
    return np.where(c, then, otherwise)


def _code(value: Array | int) -> Array | np.int16:
    """Returns member codes as int16 (a quarter of the memory of int64 codes)."""
    return np.int16(value) if isinstance(value, int) else value


def _select_flag(c: Array, then: Array | bool, otherwise: Array | bool) -> Array | bool:
    """Returns `then` where c holds, else `otherwise`, for boolean columns."""
    if isinstance(then, bool | np.bool_) and isinstance(otherwise, bool | np.bool_):
        if then == otherwise:
            return bool(then)
        return c.copy() if then else np.logical_not(c)
    return (c & then) | (np.logical_not(c) & otherwise)


def _same_ref(a: ast.Expr, b: ast.Expr) -> bool:
    return isinstance(a, ast.Ref) and isinstance(b, ast.Ref) and a.name == b.name


def _member_table(
    codes: Mapping[str, int],
    chosen: Sequence[str],
    values: Sequence[Col],
    cases: ast.Cases,
    key: Code,
) -> Col | None:
    """Returns the value of member cases for each row, looked up by the key's code: the first
    case naming the member (exclusive cases naming it twice, or none without `otherwise`,
    defer the row). None when the values are not whole constants of one kind."""
    otherwise = values[len(chosen)] if cases.otherwise is not None else None
    if all(isinstance(v, Code) and isinstance(v.value, int) for v in values):
        entries = [int(v.value) for v in values]  # type: ignore[union-attr]
    elif all(
        isinstance(v, Num) and v.den.whole and isinstance(v.q, int) and v.scale == values[0].scale
        for v in values
    ):
        entries = [int(v.q) for v in values]  # type: ignore[union-attr]
    else:
        return None
    size = max(codes.values(), default=0) + 1
    table = np.zeros(size, dtype=np.int64 if isinstance(values[0], Num) else np.int16)
    deferred = np.zeros(size, dtype=bool)
    for code in range(size):
        naming = [i for i, member in enumerate(chosen) if codes[member] == code]
        if naming:
            table[code] = entries[naming[0]]
            deferred[code] = cases.order == "exclusive" and len(naming) > 1
        elif otherwise is not None:
            table[code] = entries[-1]
        else:
            deferred[code] = True
    index = np.asarray(key.value, dtype=np.intp)
    bad = _or(key.bad, deferred[index] if deferred.any() else False)
    if isinstance(values[0], Num):
        return Num(table[index], 0, Den(), values[0].scale, bad)
    return Code(table[index], bad)


def _branch_bad(c: Array | bool, then_bad: Mask, otherwise_bad: Mask) -> Mask:
    if then_bad is False and otherwise_bad is False:
        return False
    if not isinstance(c, np.ndarray) or c.ndim == 0:
        return then_bad if bool(c) else otherwise_bad
    if otherwise_bad is False:
        return c & then_bad
    if then_bad is False:
        return np.logical_not(c) & otherwise_bad
    return (c & then_bad) | (np.logical_not(c) & otherwise_bad)


class Engine:
    """The columnar evaluator of one statute under one reading selection."""

    def __init__(self, statute: ast.Statute, readings: Mapping[str, str]) -> None:
        self.statute = statute
        self.readings = dict(readings)
        members: list[str] = []
        for type_ in (
            *(i.type for i in statute.inputs.values()),
            *(d.type for d in statute.definitions.values()),
        ):
            for member in type_.members:
                if member not in members:
                    members.append(member)
        self.members = members
        self.codes = {member: index for index, member in enumerate(members)}
        self.last_memo: dict[tuple[str, tuple[Value, ...]], Col] = {}
        _refuse_unsupported(statute)

    # ---- expressions ------------------------------------------------------------------------
    def literal(self, value: Fraction | bool, scale: int) -> Col:
        """Returns a constant column (broadcast)."""
        if isinstance(value, bool):
            return Flag(value)
        based = Fraction(value) * scale
        q, r = divmod(based.numerator, based.denominator)
        return Num(q, r, Den(based.denominator), scale)

    def expr(self, chunk: Chunk, expr: ast.Expr, bound: Mapping[str, Value], scale: int) -> Col:
        """Returns the column of an expression; `scale` is the unit a literal takes."""
        statute = self.statute
        if isinstance(expr, ast.Literal):
            if expr.unit == "money":
                scale = CENTS
            elif expr.unit in ("percent", "number"):
                scale = 1 if scale == 0 else scale
            return self.literal(expr.value, scale if expr.unit != "percent" else 1)
        if isinstance(expr, ast.Ref):
            name = expr.name
            if name in bound:
                return self.constant(bound[name])
            if name in statute.inputs:
                return chunk.inputs[name]
            if name in statute.definitions:
                return self.definition(chunk, name, ())
            return Code(self.codes[name])
        if isinstance(expr, ast.Call):
            if expr.name in ("min", "max"):
                values = [self.expr(chunk, a, bound, scale) for a in expr.args]
                result = values[0]
                for value in values[1:]:
                    extreme = _extreme(expr.name, result, value)
                    if extreme is not None:
                        result = extreme
                        continue
                    keep = chunk.compare("<=" if expr.name == "min" else ">=", result, value)
                    chosen = chunk.choose(keep, result, value)
                    # min/max evaluate every argument: every error counts.
                    chosen.bad = _or(chosen.bad, _or(result.bad, value.bad))
                    result = chosen
                return result
            if expr.name == "floor":
                (only,) = expr.args
                value = self.expr(chunk, only, bound, scale)
                assert isinstance(value, Num)
                q = value.q if value.scale == 1 else (value.q // value.scale) * value.scale
                return Num(q, 0, Den(), value.scale, value.bad)
            definition = statute.definitions[expr.name]
            given = dict(expr.kwargs)
            args = tuple(_static(given[p.name], bound, statute) for p in definition.params)
            return self.definition(chunk, expr.name, args)
        if isinstance(expr, ast.BinOp):
            left = self.expr(chunk, expr.left, bound, scale)
            right = self.expr(chunk, expr.right, bound, 1 if expr.op in "*/" else scale)
            assert isinstance(left, Num) and isinstance(right, Num)
            if expr.op == "+":
                return chunk.add(left, right, 1)
            if expr.op == "-":
                return chunk.add(left, right, -1)
            if expr.op == "*":
                return chunk.multiply(left, right)
            return chunk.divide(left, right)
        if isinstance(expr, ast.Compare):
            left_scale = self.unit_of(expr.left, bound) or self.unit_of(expr.right, bound)
            left = self.expr(chunk, expr.left, bound, left_scale or 1)
            right = self.expr(chunk, expr.right, bound, left_scale or 1)
            return chunk.compare(expr.op, left, right)
        if isinstance(expr, ast.BoolOp):
            a = self.expr(chunk, expr.left, bound, 1)
            b = self.expr(chunk, expr.right, bound, 1)
            assert isinstance(a, Flag) and isinstance(b, Flag)
            if expr.op == "and":
                return Flag(a.value & b.value, _or(a.bad, _branch_bad(a.value, b.bad, False)))
            if expr.op == "or":
                return Flag(a.value | b.value, _or(a.bad, _branch_bad(a.value, False, b.bad)))
            implied = np.logical_or(np.logical_not(a.value), b.value)
            return Flag(implied, _or(a.bad, _branch_bad(a.value, b.bad, False)))
        if isinstance(expr, ast.Not):
            operand = self.expr(chunk, expr.operand, bound, 1)
            assert isinstance(operand, Flag)
            return Flag(np.logical_not(operand.value), operand.bad)
        if isinstance(expr, ast.Neg):
            operand = self.expr(chunk, expr.operand, bound, scale)
            assert isinstance(operand, Num)
            return chunk.negate(operand)
        if isinstance(expr, ast.If):
            condition = self.expr(chunk, expr.condition, bound, 1)
            assert isinstance(condition, Flag)
            return chunk.choose(
                condition,
                self.expr(chunk, expr.then, bound, scale),
                self.expr(chunk, expr.otherwise, bound, scale),
            )
        if isinstance(expr, ast.Given):
            missing = chunk.inputs[expr.name].bad
            return Flag(np.logical_not(missing) if missing is not False else True)
        if isinstance(expr, ast.ReadingTest):
            return Flag(self.readings[expr.reading] == expr.option)
        if isinstance(expr, ast.BonusSum):
            total: Col = Num(0, 0, Den(), CENTS)
            for bonus in statute.bonuses:
                value = self.definition(
                    chunk, bonus.name, tuple(bound[p.name] for p in bonus.params)
                )
                assert isinstance(total, Num) and isinstance(value, Num)
                total = chunk.add(total, value, 1)
            return total
        raise Unsupported(f"expression {type(expr).__name__}")

    def unit_of(self, expr: ast.Expr, bound: Mapping[str, Value]) -> int | None:
        """Returns the unit of a named value (money or not), None for literals and others."""
        if isinstance(expr, ast.Ref):
            if expr.name in self.statute.inputs:
                return scale_of(self.statute.inputs[expr.name].type)
            if expr.name in self.statute.definitions:
                return scale_of(self.statute.definitions[expr.name].type)
        if isinstance(expr, ast.Call) and expr.name in self.statute.definitions:
            return scale_of(self.statute.definitions[expr.name].type)
        for node in walk(expr):
            if isinstance(node, ast.Literal) and node.unit == "money":
                return CENTS
            if node is not expr:
                found = self.unit_of(node, bound)
                if found is not None and isinstance(node, ast.Ref | ast.Call):
                    return found
        return None

    def constant(self, value: Value) -> Col:
        """Returns a parameter's value as a constant column."""
        if isinstance(value, bool):
            return Flag(value)
        if isinstance(value, str):
            return Code(self.codes[value])
        raise Unsupported(f"parameter value {value!r}")

    # ---- definitions ------------------------------------------------------------------------
    def definition(self, chunk: Chunk, name: str, args: tuple[Value, ...]) -> Col:
        """Returns a definition's column for these arguments, computed once per chunk."""
        key = (name, args)
        found = chunk.memo.get(key)
        if found is not None:
            return found
        definition = self.statute.definitions[name]
        bound = dict(zip((p.name for p in definition.params), args, strict=True))
        scale = scale_of(definition.type)
        if isinstance(definition, ast.Rule):
            assert definition.expr is not None
            value = self.expr(chunk, definition.expr, bound, scale)
            if definition.condition is not None:
                condition = self.expr(chunk, definition.condition, bound, 1)
                assert isinstance(condition, Flag)
                value = chunk.choose(condition, value, self.zero(definition.type))
        else:
            value = self.cases(chunk, definition, bound, scale)
        value = self.as_type(value, definition.type)
        if value.bad is not False and not np.any(value.bad):
            value.bad = False  # no row is deferred: later operations skip the masks
        chunk.memo[key] = value
        return value

    def cases(self, chunk: Chunk, cases: ast.Cases, bound: Mapping[str, Value], scale: int) -> Col:
        """Returns a piecewise definition: the first case that holds (exclusive cases that
        both hold, or none without `otherwise`, defer the row)."""
        looked_up = self.member_cases(chunk, cases, bound, scale)
        if looked_up is not None:
            return looked_up
        conditions: list[Flag] = []
        values: list[Col] = []
        for case in cases.cases:
            if case.condition is None:
                conditions.append(Flag(True))
            else:
                condition = self.expr(chunk, case.condition, bound, 1)
                assert isinstance(condition, Flag)
                conditions.append(condition)
            values.append(self.expr(chunk, case.expr, bound, scale))
        if cases.otherwise is not None:
            result = self.expr(chunk, cases.otherwise, bound, scale)
        else:
            result = Code(0) if cases.type.kind == "enum" else self.zero(cases.type)
            none_holds: Array | bool = True
            for condition in conditions:
                none_holds = np.logical_and(none_holds, np.logical_not(condition.value))
            result.bad = none_holds
        for condition, value in zip(reversed(conditions), reversed(values), strict=True):
            result = chunk.choose(condition, value, result)
        if cases.order == "exclusive" and len(conditions) > 1:
            holding = sum(np.asarray(c.value, dtype=np.int8) for c in conditions)
            result.bad = _or(result.bad, np.asarray(holding) > 1)
            for condition in conditions:  # every condition is evaluated
                result.bad = _or(result.bad, condition.bad)
        return result

    def member_cases(
        self, chunk: Chunk, cases: ast.Cases, bound: Mapping[str, Value], scale: int
    ) -> Col | None:
        """Returns cases of constants chosen by which member one enum value is (`x = m1`,
        `x = m2`...) as a table indexed by the member's code, or None for other cases."""
        subject: ast.Expr | None = None
        chosen: list[str] = []
        for case in cases.cases:
            test = self.member_test(case.condition, bound)
            if test is None or (subject is not None and not _same_ref(subject, test[0])):
                return None
            subject, member = test
            chosen.append(member)
        pieces = [case.expr for case in cases.cases]
        if cases.otherwise is not None:
            pieces.append(cases.otherwise)
        if subject is None or not all(self.is_constant(piece, bound) for piece in pieces):
            return None
        values = [self.expr(chunk, piece, bound, scale) for piece in pieces]
        key = self.expr(chunk, subject, bound, 1)
        if not isinstance(key, Code) or not isinstance(key.value, np.ndarray):
            return None
        return _member_table(self.codes, chosen, values, cases, key)

    def member_test(
        self, condition: ast.Expr | None, bound: Mapping[str, Value]
    ) -> tuple[ast.Ref, str] | None:
        """Returns (the value, the member) of a condition `value = member`, else None."""
        if not (isinstance(condition, ast.Compare) and condition.op == "="):
            return None
        for subject, member in (
            (condition.left, condition.right),
            (condition.right, condition.left),
        ):
            if (
                isinstance(subject, ast.Ref)
                and not self.is_member(subject, bound)
                and self.is_member(member, bound)
            ):
                assert isinstance(member, ast.Ref)
                return subject, member.name
        return None

    def is_member(self, expr: ast.Expr, bound: Mapping[str, Value]) -> bool:
        """True for a reference to an enum member by name."""
        statute = self.statute
        return (
            isinstance(expr, ast.Ref)
            and expr.name not in bound
            and expr.name not in statute.inputs
            and expr.name not in statute.definitions
            and expr.name in self.codes
        )

    def is_constant(self, expr: ast.Expr, bound: Mapping[str, Value]) -> bool:
        """True for a numeric literal or an enum member."""
        if isinstance(expr, ast.Literal):
            return not isinstance(expr.value, bool)
        return self.is_member(expr, bound)

    def zero(self, type_: ast.Type) -> Col:
        """Returns the value of a rule whose condition fails."""
        if type_.kind == "bool":
            return Flag(False)
        if type_.kind == "enum":
            raise Unsupported("an enum rule with a condition")
        return Num(0, 0, Den(), scale_of(type_))

    def as_type(self, value: Col, type_: ast.Type) -> Col:
        """Checks a definition's column has the unit of its declared type."""
        if isinstance(value, Num) and value.scale != scale_of(type_):
            raise Unsupported("a value of another unit than declared")
        return value

    # ---- the run ----------------------------------------------------------------------------
    def run(self, inputs: Mapping[str, Col], size: int) -> tuple[dict[str, Col], Array]:
        """Returns every result's column and the rows deferred to the scalar evaluator."""
        chunk = Chunk(self, inputs, size)
        with np.errstate(over="ignore"):
            results = {name: self.definition(chunk, name, ()) for name in self.statute.result_names}
        self.last_memo = chunk.memo
        deferred = np.zeros(size, dtype=bool)
        for column in results.values():
            if column.bad is not False:
                deferred |= np.broadcast_to(column.bad, (size,))
        return results, deferred


def _static(expr: ast.Expr, bound: Mapping[str, Value], statute: ast.Statute) -> Value:
    if isinstance(expr, ast.Literal):
        return expr.value
    if isinstance(expr, ast.Ref) and expr.name in bound:
        return bound[expr.name]
    if isinstance(expr, ast.Ref) and expr.name not in statute.inputs:
        return expr.name
    raise Unsupported("a call argument not known before the scenario")


def _refuse_unsupported(statute: ast.Statute) -> None:
    """Raises Unsupported for constructs this evaluator does not translate."""
    for definition in statute.definitions.values():
        for param in definition.params:
            if param.type.kind not in ("bool", "enum"):
                raise Unsupported("a numeric parameter")


# ---- results for people and files -------------------------------------------------------------
def cents(column: Num, size: int) -> Array:
    """Returns a money column in whole cents, rounded half-up (halves away from zero)."""
    q = np.broadcast_to(np.asarray(column.q, dtype=np.int64), (size,))
    if column.den.whole:
        return q.copy()
    value: Array | int = column.den.const
    for factor in column.den.factors:
        value = value * factor
    r = np.broadcast_to(np.asarray(column.r, dtype=np.int64), (size,))
    positive_round = q + (2 * r >= value)
    if size == 0 or q.min() >= 0:  # no negative amount (the usual case): nothing to mend
        return positive_round
    # For a negative value -(|v|): |v| = (-q - 1) + (value - r) / value when r > 0.
    negative_round = -((-q - 1) + (2 * (value - r) >= value))
    negative = (q < 0) & (r > 0)
    return np.where(negative, negative_round, np.where(q < 0, q, positive_round))


def exact_values(column: Num, rows: Sequence[int]) -> list[Fraction]:
    """Returns the exact values of some rows of a numeric column (in the value's unit)."""
    values = []
    for row in rows:
        q = int(np.asarray(column.q).reshape(-1)[row if np.ndim(column.q) else 0])
        r = int(np.asarray(column.r).reshape(-1)[row if np.ndim(column.r) else 0])
        den = column.den.const
        for factor in column.den.factors:
            den *= int(factor[row])
        values.append(Fraction(q * den + r, den * column.scale))
    return values


# ---- input columns ------------------------------------------------------------------------------
def input_column(declared: ast.Input, values: Sequence[Value], members: Mapping[str, int]) -> Col:
    """Returns the column of one input from validated Python values (None: not given).

    Numbers are held exactly: whole amounts in base units; a column of fractions (shares such
    as 1/3, amounts with fractions of a cent) keeps each row's own denominator as a factor.
    """
    size = len(values)
    missing = np.fromiter((v is None for v in values), dtype=bool, count=size)
    bad: Mask = missing if missing.any() else False
    kind = declared.type.kind
    if kind == "bool":
        return Flag(np.fromiter((bool(v) for v in values), dtype=bool, count=size), bad)
    if kind == "enum":
        codes = np.fromiter(
            (members[v] if isinstance(v, str) else 0 for v in values), dtype=np.int16, count=size
        )
        return Code(codes, bad)
    scale = scale_of(declared.type)
    based = [Fraction(v) * scale if v is not None else Fraction(0) for v in values]
    numerators = [f.numerator for f in based]
    denominators = [f.denominator for f in based]
    if max(denominators, default=1) == 1:
        return Num(_int64(numerators, size), 0, Den(), scale, bad)
    den = _int64(denominators, size)
    q, r = np.divmod(_int64(numerators, size), den)
    return Num(q, r, Den(1, (den,)), scale, bad)


def _int64(values: Sequence[int], size: int) -> Array:
    """Returns an int64 column; values beyond its range raise OverflowError (the caller then
    evaluates those scenarios one by one)."""
    return np.fromiter(values, dtype=np.int64, count=size)
