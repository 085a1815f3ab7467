"""Columnar evaluation: many scenarios at once over numpy columns, exact.

The statute's rules are walked once per chunk of rows, each operation applied to whole columns.
Every number is held exactly as a mixed fraction in its base unit (cents for money): a whole part
`q`, a remainder `0 <= r < den` and a denominator made of a constant and of columns (a division by
a column, such as the reference median salary, adds that column as a factor). Values with the same
factors add without growing; a whole column times a count stays small because the remainder is
carried, not multiplied out. A remainder is divided out (normalised) only where it must be: where
the value is compared, floored or output, or once for a definition used at several places; a
quotient, a product or a sum used once is left undivided, so a chain of them costs one division.

Arithmetic runs on int64 columns. Every column carries a bound on its magnitude, worked out
from the bounds of what it was made of; where a bound cannot rule out leaving the int64 range,
products and sums are checked row by row, in integers. A row where a value could leave the
int64 range, where a division by zero, a missing optional input, two exclusive cases or no case
at all would occur, is marked *deferred*. A deferred row is then evaluated by the scalar
evaluator, which either agrees or reports the error in its own words. So the columnar result is
exact on every row it keeps, and a row it cannot do exactly is never guessed.
"""

from __future__ import annotations

import ctypes
import math
import sys
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

import numpy as np

from . import ast, dates
from .checker import definition_expressions, reachable_definitions, walk
from .values import CENTS, Value

Array = np.ndarray[Any, Any]
Extremes = dict[int, tuple[Array, int, int]]
"""The least and greatest row of columns, by the column's id (the column kept beside)."""
Mask = Array | bool
LIMIT = 2**62
"""Magnitudes are kept below this (half the int64 range): a sum of two such values still fits."""
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
        if self is other or (not self.factors and not other.factors):
            return self.const == other.const
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
    """An exact numeric column: value = (q + r / den) / scale.

    Normal (`normal` true), 0 <= r < den; otherwise the remainder may be any integer (a sum or
    a product not yet divided out), and `Chunk.normal` divides it out when a comparison, a
    floor or an output needs the normal form. A whole denominator always has r = 0."""

    q: Array | int
    r: Array | int
    den: Den
    scale: int
    bad: Mask = False
    normal: bool = True


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


def _reaches_limit(a: Array | int, b: Array | int) -> Array:
    """Returns the rows where |a| * |b| reaches the checked limit, decided in integers without
    forming the product (a row where either side alone reaches it counts too)."""
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    huge = reaching_limit(a) | reaching_limit(b)
    size_a = np.abs(np.where(huge, 0, a))
    size_b = np.abs(np.where(huge, 0, b))
    # |a| * |b| >= L  exactly when  |a| > (L - 1) // |b|  (for |b| >= 1).
    return huge | (size_a > (LIMIT - 1) // np.maximum(size_b, 1))


def reaching_limit(values: Array, factor: int = 1) -> Array:
    """Returns the rows where |value| * factor (factor >= 1) reaches LIMIT, in integers."""
    least = -(-LIMIT // factor)  # the smallest magnitude that reaches it
    return (values >= least) | (values <= -least)


def _below(r: Array | int, den: Array | int) -> bool:
    """True when 0 <= r < den on every row (two comparisons instead of a division)."""
    if not isinstance(r, np.ndarray):
        return isinstance(den, int) and 0 <= r < den
    if r.size == 0 or int(r.min()) < 0:
        return False
    if isinstance(den, int):
        return int(r.max()) < den
    return bool(np.all(r < den))


def _more_than_one(conditions: Sequence[Flag]) -> Mask:
    """Returns the rows where more than one of the conditions holds."""
    holding: Array | int = 0
    small = len(conditions) < 256  # the count fits a byte
    for condition in conditions:
        value = condition.value
        if small and isinstance(value, np.ndarray) and value.dtype == np.bool_:
            holding = holding + value.view(np.uint8)
        else:
            holding = holding + np.asarray(value, dtype=np.int64)
    return _mask(np.asarray(holding) > 1)


def _mask(rows: Array | bool | np.bool_) -> Mask:
    """Returns a row mask as an array with some row set, or as a Python bool (False: no row;
    a numpy scalar would make every later mask operation a whole-column one)."""
    if isinstance(rows, np.ndarray) and rows.ndim > 0:
        return rows if rows.any() else False
    return bool(rows)


def _or(a: Mask, b: Mask) -> Mask:
    if a is False:
        return b
    if b is False:
        return a
    return a | b


BOUND_COMPARISONS = {"min": ">=", "above": ">", "max": "<="}
"""The comparison each kind of declared bound asks of an input's value against its limit."""


def literal_scale(literal: ast.Literal, scale: int) -> int:
    """Returns the base unit a literal is held in where a value of unit `scale` is expected:
    cents for money, 1 for a percent, the context's unit for a bare number (1 for none)."""
    if literal.unit == "money":
        return CENTS
    if literal.unit == "percent":
        return 1
    return 1 if scale == 0 else scale


def scale_of(type_: ast.Type) -> int:
    """Returns the base unit a value of this type is held in: cents for money, else 1."""
    return CENTS if type_.kind == "money" else 1


class Chunk:
    """The evaluation of one chunk of rows: inputs, memo of definitions, deferred rows."""

    def __init__(
        self,
        engine: Engine,
        inputs: Mapping[str, Col],
        size: int,
        extremes: Extremes | None = None,
    ) -> None:
        """`extremes` holds the least and greatest row of input columns already measured
        (keyed by the column's id, the column kept beside), as the table reader notes them."""
        self.engine = engine
        self.inputs = inputs
        self.size = size
        self.memo: dict[tuple[str, tuple[Value, ...]], Col] = {}
        self.bad: Array = np.zeros(size, dtype=bool)
        self.den_values: dict[tuple[int, ...], tuple[Den, Array | int, Mask]] = {}
        # Bounds noted on new columns, by the column's id beside a weak reference to it: a
        # column no longer used is freed at once (its memory reused by the next operation)
        # rather than kept to the chunk's end, and a dead reference tells a reused id.
        self.bounds: dict[int, tuple[weakref.ref[Array], int]] = {}
        self.extremes: Extremes = dict(extremes or {})
        self.fixed_bonuses: Num | None = None

    # ---- checked integer arithmetic ---------------------------------------------------------
    def bound(self, a: Array | int) -> int:
        """Returns a bound on the magnitude of every row of a column (or of a number): the one
        noted when the column was made, else its largest magnitude (measured once)."""
        if not isinstance(a, np.ndarray):
            return abs(int(a))
        if a.dtype == np.bool_:
            return 1
        known = self.known_bound(a)
        if known is not None:
            return known
        least, greatest = self.extreme(a)
        return max(greatest, -least)

    def extreme(self, a: Array) -> tuple[int, int]:
        """Returns the least and the greatest row of an integer column (0, 0 for no row),
        measured once per column."""
        noted = self.extremes.get(id(a))
        if noted is not None and noted[0] is a:
            return noted[1], noted[2]
        found = (0, 0) if a.size == 0 else (int(a.min()), int(a.max()))
        self.extremes[id(a)] = (a, *found)
        return found

    def always_holds(self, op: str, column: Col, limit: Col) -> bool:
        """True when `column op limit` holds on every row, as the column's extreme rows show (a
        limit known before the rows, a column in normal form: whole part q, remainder in
        [0, 1)). False when it cannot be shown so; the rows are then compared one by one."""
        if not (isinstance(column, Num) and isinstance(limit, Num)) or column.scale != limit.scale:
            return False
        if not (column.normal and limit.den.whole and limit.bad is False):
            return False
        if not isinstance(limit.q, int) or not isinstance(column.q, np.ndarray):
            return False
        fractional = not column.den.whole and not (isinstance(column.r, int) and column.r == 0)
        least, greatest = self.extreme(column.q)
        if op == ">=":
            return least >= limit.q  # the remainder only adds
        if op == ">":
            return least > limit.q
        if op == "<=":  # q + r/den <= q when whole, < q + 1 otherwise
            return greatest < limit.q if fractional else greatest <= limit.q
        return False

    def known_bound(self, a: Array | int) -> int | None:
        """Returns the bound noted or measured for a column (or a number's magnitude), None if
        none is."""
        if not isinstance(a, np.ndarray):
            return abs(int(a))
        noted = self.bounds.get(id(a))
        if noted is not None and noted[0]() is a:
            return noted[1]
        measured = self.extremes.get(id(a))
        if measured is not None and measured[0] is a:
            return max(measured[2], -measured[1])
        return None

    def selected(self, c: Array, then: Array | int, otherwise: Array | int) -> Array | int:
        """Returns `then` where c holds, else `otherwise`, its bound noted when both are
        known (no new reduction for it)."""
        chosen = _select(c, then, otherwise)
        bound_then, bound_otherwise = self.known_bound(then), self.known_bound(otherwise)
        if bound_then is None or bound_otherwise is None:
            return chosen
        return self.note(chosen, max(bound_then, bound_otherwise))

    def note(self, a: Array | int, bound: int) -> Array | int:
        """Notes a bound on the magnitude of a new column's rows; returns the column."""
        if isinstance(a, np.ndarray):
            self.bounds[id(a)] = (weakref.ref(a), bound)
        return a

    def product(self, a: Array | int, b: Array | int) -> tuple[Array | int, Mask]:
        """Returns a * b and the rows where the product could leave the int64 range."""
        if isinstance(a, int):
            if isinstance(b, int) or a == 0:
                return a * b, False
            if a == 1:
                return b, False
            if a == -1:
                return -b, False
        elif isinstance(b, int):
            if b == 0:
                return 0, False
            if b == 1:
                return a, False
            if b == -1:
                return -a, False
        # Bounded as a whole (the usual case), no row can overflow: skip the row-wise check.
        bound = self.bound(a) * self.bound(b)
        if bound < LIMIT:
            return self.note(np.multiply(a, b), bound), False
        with np.errstate(over="ignore"):
            return np.multiply(a, b), _reaches_limit(a, b)

    def large(self, a: Array | int) -> Mask:
        """Returns the rows where a sum could grow out of range in a later operation."""
        if self.bound(a) < LIMIT:
            return False
        return reaching_limit(a)

    def sum(self, a: Array | int, b: Array | int, sign: int) -> Array | int:
        """Returns a + b (sign 1) or a - b (sign -1), its bound noted when both are known
        to stay far inside the int64 range (else `large` measures it)."""
        total = a + b if sign > 0 else a - b
        bound = self.bound(a) + self.bound(b)
        return self.note(total, bound) if bound < LIMIT else total

    def den_value(self, den: Den) -> tuple[Array | int, Mask]:
        """Returns the value of a denominator, and the rows where it is too large (computed
        once per chunk for each constant and set of columns)."""
        if not den.factors:
            return den.const, False
        if den.const == 1 and len(den.factors) == 1:
            return den.factors[0], False
        key = (den.const, *sorted(id(f) for f in den.factors))
        found = self.den_values.get(key)
        if found is not None:
            return found[1], found[2]
        value: Array | int = den.const
        bad: Mask = False
        for factor in den.factors:
            value, over = self.product(value, factor)
            bad = _or(bad, over)
        self.den_values[key] = (den, value, bad)  # the den keeps its columns (and ids) alive
        return value, bad

    def normal(self, x: Num) -> Num:
        """Returns x in normal form (remainder in [0, den)): the remainder's whole part is
        divided out into q."""
        if x.normal:
            return x
        value, over = self.den_value(x.den)
        if _below(x.r, value):  # already in [0, den) (a share of a whole, say): no division
            return Num(x.q, x.r, x.den, x.scale, _or(x.bad, over))
        extra, r = _divmod(x.r, value)
        # The denominator is at least 1: the quotient is no larger than the dividend.
        q = self.sum(x.q, self.note(extra, self.bound(x.r)), 1)
        bad = _or(_or(x.bad, over), self.large(q))
        return Num(q, self.note(r, self.bound(value)), x.den, x.scale, bad)

    def lazy(self, q: Array | int, r: Array | int, den: Den, scale: int, bad: Mask) -> Num:
        """Returns q + r / den with a remainder not yet divided out (normal when it is 0)."""
        if isinstance(r, int) and r == 0:
            return Num(q, 0, den, scale, bad)
        if den.whole:
            q = self.sum(q, r, 1)
            return Num(q, 0, den, scale, _or(bad, self.large(q)))
        return Num(q, r, den, scale, _or(bad, self.large(r)), normal=False)

    # ---- common denominators ----------------------------------------------------------------
    def common(self, a: Den, b: Den) -> Den:
        """Returns the least common denominator of two (factors matched by identity)."""
        _, extra = _match(a.factors, b.factors)
        return Den(math.lcm(a.const, b.const), (*a.factors, *extra))

    def to_den(self, x: Num, target: Den) -> tuple[Array | int, Mask]:
        """Returns x's remainder over the (larger) denominator `target`."""
        if x.den.same(target) or (isinstance(x.r, int) and x.r == 0):
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
        if not (a.normal and b.normal):
            # Left undivided: a sum of sums needs one division at the end, not one each.
            r = self.sum(ra, rb, sign)
            return self.lazy(q, r, den, a.scale, _or(_or(a.bad, b.bad), bad))
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
            # The remainder is carried, not divided out: q*k + (r*k)/den.
            carried, over = self.product(b.r, a.q)
            if isinstance(a.q, int) and a.q in (0, 1) and b.normal:  # it stays below the den
                return self._rescale(Num(q, carried, b.den, scale, bad), a.scale, b.scale)
            result = self.lazy(q, carried, b.den, scale, _or(bad, over))
            return self._rescale(result, a.scale, b.scale)
        if not a.den.factors and isinstance(a.q, int) and isinstance(a.r, int):
            return self._rescale(self.by_constant(b, a), a.scale, b.scale)
        if not b.den.factors and isinstance(b.q, int) and isinstance(b.r, int):
            return self._rescale(self.by_constant(a, b), a.scale, b.scale)
        na, bad_a = self.numerator(a)
        nb, bad_b = self.numerator(b)
        n, over = self.product(na, nb)
        den = Den(a.den.const * b.den.const, a.den.factors + b.den.factors)
        bad = _or(_or(bad, _or(bad_a, bad_b)), over)
        return self._rescale(self.lazy(0, n, den, scale, bad), a.scale, b.scale)

    def by_constant(self, x: Num, constant: Num) -> Num:
        """Returns x times a constant fraction p/s (s > 1): (q*p) // s whole, the rest over
        s * den; normal when x is and p = 1 (no division by a column)."""
        s = constant.den.const
        p = constant.q * s + int(constant.r)
        t, over = self.product(x.q, p)
        q, low = _divmod(t, s)
        value, over_den = self.den_value(x.den)
        spread, over_spread = self.product(self.note(low, s), value)
        carried, over_r = self.product(x.r, p)
        r = self.sum(spread, carried, 1)
        den = Den(s * x.den.const, x.den.factors)
        bad = _or(_or(x.bad, constant.bad), _or(_or(over, over_den), _or(over_spread, over_r)))
        q = self.note(q, self.bound(t))
        if p == 1 and x.normal:
            return Num(q, r, den, x.scale * constant.scale, bad)
        return self.lazy(q, r, den, x.scale * constant.scale, bad)

    def _rescale(self, x: Num, scale_a: int, scale_b: int) -> Num:
        # money * number is money: the product of base units carries one money scale.
        if scale_a > 1 and scale_b > 1:
            raise Unsupported("money times money")
        return x

    def numerator(self, x: Num) -> tuple[Array | int, Mask]:
        """Returns q * den + r, the value over its denominator."""
        if x.den.whole:
            return x.q, False
        if isinstance(x.q, int) and x.q == 0:
            return x.r, False
        value, bad = self.den_value(x.den)
        n, over = self.product(x.q, value)
        total = self.sum(n, x.r, 1)
        return total, _or(_or(bad, over), self.large(total))

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
        elif isinstance(nb, np.ndarray) and nb.size and int(nb.min()) >= 0:
            # No divisor negative (amounts with a lower bound): no sign to mend.
            least = int(nb.min())
            zero = False if least > 0 else nb == 0
            divisor = nb if least > 0 else nb + zero  # 1 where it is 0 (those rows defer)
            den = Den(a.den.const // shared, (*da_factors, divisor))
        else:
            zero = nb == 0
            sign = np.where(np.asarray(nb) < 0, -1, 1)
            divisor = np.where(zero, 1, np.abs(nb))
            numerator = numerator * sign
            den = Den(a.den.const // shared, (*da_factors, divisor))
        _, over_den = self.den_value(den)
        bad = _or(_or(a.bad, b.bad), _or(_or(bad_a, bad_b), _or(bad_db, over)))
        bad = _or(bad, _or(over_den, zero))
        # The quotient is left undivided: divided out once, where it is compared or floored.
        return self.lazy(0, numerator, den, scale, bad)

    def negate(self, x: Num) -> Num:
        """Returns -x."""
        if x.den.whole:
            return Num(-x.q, 0, x.den, x.scale, x.bad)
        if not x.normal:
            return Num(-x.q, -x.r, x.den, x.scale, x.bad, normal=False)
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
            a, b = self.normal(a), self.normal(b)
            bad = _or(bad, _or(a.bad, b.bad))
            _, ra, rb, over = self.aligned(a, b)
            return Flag(_ordered(op, a.q, ra, b.q, rb), _or(bad, over))
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
            q = self.selected(c, then.q, otherwise.q)
            r = 0 if den.whole else self.selected(c, rt, ro)
            return Num(q, r, den, then.scale, _or(bad, over), then.normal and otherwise.normal)
        if isinstance(then, Flag) and isinstance(otherwise, Flag):
            return Flag(_select_flag(c, then.value, otherwise.value), bad)
        if isinstance(then, Code) and isinstance(otherwise, Code):
            return Code(_select_code(c, _code(then.value), _code(otherwise.value)), bad)
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


def _ordered(op: str, qa: Array | int, ra: Array | int, qb: Array | int, rb: Array | int) -> Array:
    """Returns the comparison of qa + ra/d with qb + rb/d (remainders in [0, d)): by the
    whole parts, then the remainders; only what the operator needs is computed."""
    # np.asarray: with constant columns these are Python bools, where ~ is not "not".
    if op in ("<", ">="):
        if isinstance(rb, int) and rb == 0:  # ra >= 0: below b exactly when qa < qb
            less = np.asarray(np.less(qa, qb))
        else:
            less = np.asarray((qa < qb) | ((qa == qb) & (ra < rb)))
        return less if op == "<" else np.logical_not(less)
    if op in ("<=", ">"):
        if isinstance(ra, int) and ra == 0:  # rb >= 0: at most b exactly when qa <= qb
            at_most = np.asarray(np.less_equal(qa, qb))
        else:
            at_most = np.asarray((qa < qb) | ((qa == qb) & (ra <= rb)))
        return at_most if op == "<=" else np.logical_not(at_most)
    equal = np.asarray((qa == qb) & (ra == rb))
    return equal if op == "=" else np.logical_not(equal)


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
    if not (_int64_like(then) and _int64_like(otherwise)):
        return np.where(c, then, otherwise)
    if isinstance(then, int) and isinstance(otherwise, int):
        if not _int64_like(then - otherwise):
            return np.where(c, np.int64(then), np.int64(otherwise))
        return np.int64(otherwise) + c * np.int64(then - otherwise)
    # otherwise + c * (then - otherwise): exact in int64 even where the difference wraps
    # (arithmetic modulo 2**64, the result is one of the two). np.where with a scalar branch
    # goes through numpy's buffered iterator, several times slower on fresh columns.
    if isinstance(then, int):
        return otherwise + c * (np.int64(then) - otherwise)
    if isinstance(otherwise, int):
        return np.int64(otherwise) + c * (then - np.int64(otherwise))
    return otherwise + c * (then - otherwise)


def _int64_like(value: Array | int) -> bool:
    """True for an int64 column or a number inside the int64 range."""
    if isinstance(value, np.ndarray):
        return value.dtype == np.int64
    return -(2**63) <= value < 2**63


def _select_code(c: Array, then: Array | np.int16, otherwise: Array | np.int16) -> Array:
    """Returns codes `then` where c holds, else `otherwise`: otherwise + c * (then - otherwise)
    in int16 (codes are small and nonnegative: the difference fits; a few times faster than
    np.where, which goes through a buffered iterator for scalar branches)."""
    step = np.subtract(then, otherwise, dtype=np.int16)
    return np.add(otherwise, np.multiply(c, step, dtype=np.int16), dtype=np.int16)


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
        for type_ in statute.declared_types:
            for member in type_.members:
                if member not in members:
                    members.append(member)
        self.members = members
        self.codes = {member: index for index, member in enumerate(members)}
        self.last_memo: dict[tuple[str, tuple[Value, ...]], Col] = {}
        self.shared = _shared_definitions(statute)
        self.literals: dict[tuple[int, int, int], tuple[int, int, Den]] = {}
        _refuse_unsupported(statute)

    # ---- expressions ------------------------------------------------------------------------
    def literal(self, value: Fraction | bool, scale: int) -> Col:
        """Returns a constant column (broadcast)."""
        if isinstance(value, bool):
            return Flag(value)
        key = (value.numerator, value.denominator, scale)
        found = self.literals.get(key)
        if found is None:
            based = Fraction(value) * scale
            q, r = divmod(based.numerator, based.denominator)
            found = self.literals[key] = (q, r, Den(based.denominator))
        q, r, den = found
        return Num(q, r, den, scale)  # a new Num each time: callers may set its `bad`

    def expr(self, chunk: Chunk, expr: ast.Expr, bound: Mapping[str, Value], scale: int) -> Col:
        """Returns the column of an expression; `scale` is the unit a literal takes."""
        statute = self.statute
        if isinstance(expr, ast.Literal):
            return self.literal(expr.value, literal_scale(expr, scale))
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
                    if isinstance(result, Num) and isinstance(value, Num):
                        # Compared, so divided out: the chosen value keeps the normal form.
                        result, value = chunk.normal(result), chunk.normal(value)
                    keep = chunk.compare("<=" if expr.name == "min" else ">=", result, value)
                    chosen = chunk.choose(keep, result, value)
                    # min/max evaluate every argument: every error counts.
                    chosen.bad = _or(chosen.bad, _or(result.bad, value.bad))
                    result = chosen
                return result
            if expr.name in ("floor", "ceil"):
                (only,) = expr.args
                value = self.expr(chunk, only, bound, scale)
                assert isinstance(value, Num)
                value = chunk.normal(value)
                q = value.q
                if expr.name == "ceil":
                    # (q + r / den) / scale with 0 <= r < den: rounded up, a remainder counts
                    # as one more unit of q, then q rounds up to a whole multiple of scale.
                    r = value.r
                    q = q + (int(r != 0) if isinstance(r, int) else (r != 0).astype(np.int64))
                    q = q if value.scale == 1 else -(-q // value.scale) * value.scale
                elif value.scale != 1:
                    q = (q // value.scale) * value.scale
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
            return self.bonus_sum(chunk, bound)
        raise Unsupported(f"expression {type(expr).__name__}")

    def bonus_sum(self, chunk: Chunk, bound: Mapping[str, Value]) -> Num:
        """Returns the sum of the bonuses. The bonuses without parameters are summed once per
        chunk, whatever the arguments of the rule asking (exact sums in any order)."""
        fixed = chunk.fixed_bonuses
        if fixed is None:
            fixed, owned = Num(0, 0, Den(), CENTS), False
            for bonus in self.statute.bonuses:
                if not bonus.params:
                    value = self.definition(chunk, bonus.name, ())
                    fixed, owned = self.accumulate(chunk, fixed, value, owned)
            chunk.fixed_bonuses = fixed
        total = fixed
        for bonus in self.statute.bonuses:
            if bonus.params:
                args = tuple(bound[p.name] for p in bonus.params)
                total = self.plus(chunk, total, self.definition(chunk, bonus.name, args))
        return total

    def accumulate(self, chunk: Chunk, total: Num, value: Col, owned: bool) -> tuple[Num, bool]:
        """Returns total + value, and whether the sum's column is its own (no other value
        holds it): whole amounts are then added into it in place, with no new column."""
        assert isinstance(value, Num)
        if owned and total.den.whole and value.den.whole and value.scale == total.scale:
            bound = chunk.bound(total.q) + chunk.bound(value.q)
            if bound < LIMIT:
                assert isinstance(total.q, np.ndarray)
                np.add(total.q, value.q, out=total.q)
                chunk.note(total.q, bound)
                return Num(total.q, 0, total.den, total.scale, _or(total.bad, value.bad)), True
        result = self.plus(chunk, total, value)
        fresh = isinstance(result.q, np.ndarray) and result.q.dtype == np.int64
        fresh = fresh and result.q is not total.q and result.q is not value.q
        return result, fresh and result.den.whole

    def plus(self, chunk: Chunk, total: Num, value: Col) -> Num:
        """Returns total + value (value itself when the total is a constant 0)."""
        assert isinstance(value, Num)
        if isinstance(total.q, int) and total.q == 0 and total.den.whole and total.bad is False:
            if value.scale != total.scale:
                raise Unsupported("values of different units meet")
            return value
        return chunk.add(total, value, 1)

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
        if definition.exceptions:
            value = self.excepted(chunk, definition, bound, scale, value)
        value = self.as_type(value, definition.type)
        if isinstance(value, Num) and name in self.shared:
            value = chunk.normal(value)
        if value.bad is not False and not np.any(value.bad):
            value.bad = False  # no row is deferred: later operations skip the masks
        chunk.memo[key] = value
        return value

    def excepted(
        self,
        chunk: Chunk,
        definition: ast.Rule | ast.Cases,
        bound: Mapping[str, Value],
        scale: int,
        general: Col,
    ) -> Col:
        """Returns a definition with exceptions: per row, the value of the exception of the
        highest priority whose condition holds, else `general` (the definition's own); a row
        where two of equal priority hold, or where any condition is deferred, is deferred."""
        ordered = definition.exceptions_by_priority()
        conditions: list[Flag] = []
        for exception in ordered:
            condition = self.expr(chunk, exception.condition, bound, 1)
            assert isinstance(condition, Flag)
            conditions.append(condition)
        result = self.as_type(general, definition.type)
        for exception, condition in zip(reversed(ordered), reversed(conditions), strict=True):
            value = self.as_type(self.expr(chunk, exception.expr, bound, scale), definition.type)
            result = chunk.choose(condition, value, result)
        priorities = [e.priority for e in ordered]
        for priority in dict.fromkeys(priorities):
            group = [c for c, p in zip(conditions, priorities, strict=True) if p == priority]
            if len(group) > 1:
                result.bad = _or(result.bad, _more_than_one(group))
        for condition in conditions:  # every condition is evaluated
            result.bad = _or(result.bad, condition.bad)
        return result

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
            result.bad = _mask(none_holds)
        for condition, value in zip(reversed(conditions), reversed(values), strict=True):
            result = chunk.choose(condition, value, result)
        # The `otherwise` case holds when no other does: it never counts as a second one.
        counted = [c for c, case in zip(conditions, cases.cases, strict=True) if case.condition]
        if cases.order == "exclusive" and len(counted) > 1:
            result.bad = _or(result.bad, _more_than_one(counted))
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
    def run(
        self, inputs: Mapping[str, Col], size: int, chunk: Chunk | None = None
    ) -> tuple[dict[str, Col], Array]:
        """Returns every result's column and the rows deferred to the scalar evaluator; `chunk`
        is the chunk of these inputs when one was made already (its measures are reused)."""
        if chunk is None:
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


def _shared_definitions(statute: ast.Statute) -> frozenset[str]:
    """Returns the definitions held in normal form once computed: the results (output needs
    it) and those used at more than one place (divided out once rather than at each use).
    Any other value stays as it was made, divided out only where it is compared or floored."""
    uses: dict[str, int] = {}
    for name in reachable_definitions(statute, statute.result_names):
        for expr in definition_expressions(statute.definitions[name]):
            for node in walk(expr):
                if isinstance(node, ast.BonusSum):
                    used = [bonus.name for bonus in statute.bonuses]
                elif isinstance(node, ast.Ref | ast.Call) and node.name in statute.definitions:
                    used = [node.name]
                else:
                    continue
                for name_used in used:
                    uses[name_used] = uses.get(name_used, 0) + 1
    shared = {name for name, count in uses.items() if count > 1}
    return frozenset(shared | set(statute.result_names))


def _refuse_unsupported(statute: ast.Statute) -> None:
    """Raises Unsupported for constructs this evaluator does not translate: numeric
    parameters, dates and durations, and aggregates over lists in what the results use (a
    column holds one value per scenario; a batch of such an encoding is evaluated scenario by
    scenario by the reference evaluator). Lists only some scenarios give, to derive inputs
    from, are left to the scalar path row by row (lextrace/columns.py)."""
    if dates.uses_dates(statute):
        raise Unsupported("dates and durations")
    for name in reachable_definitions(statute, statute.result_names):
        for expr in definition_expressions(statute.definitions[name]):
            if any(isinstance(node, ast.Aggregate) for node in walk(expr)):
                raise Unsupported("an aggregate over a list")
    for definition in statute.definitions.values():
        for param in definition.params:
            if param.type.kind not in ("bool", "enum"):
                raise Unsupported("a numeric parameter")


# ---- results for people and files -------------------------------------------------------------
def cents(column: Num, size: int) -> Array:
    """Returns a money column in whole cents, rounded half-up (halves away from zero)."""
    if not column.normal:
        column = _normal_form(column)
    q = np.broadcast_to(np.asarray(column.q, dtype=np.int64), (size,))
    if column.den.whole:
        return q.copy()
    value = _den_product(column.den)
    r = np.broadcast_to(np.asarray(column.r, dtype=np.int64), (size,))
    positive_round = q + (2 * r >= value)
    if size == 0 or q.min() >= 0:  # no negative amount (the usual case): nothing to mend
        return positive_round
    # For a negative value -(|v|): |v| = (-q - 1) + (value - r) / value when r > 0.
    negative_round = -((-q - 1) + (2 * (value - r) >= value))
    negative = (q < 0) & (r > 0)
    return np.where(negative, negative_round, np.where(q < 0, q, positive_round))


def _den_product(den: Den) -> Array | int:
    """Returns a denominator's value (a lone column itself, not a copy times 1)."""
    value: Array | int = den.const
    for factor in den.factors:
        value = factor if isinstance(value, int) and value == 1 else value * factor
    return value


def _normal_form(column: Num) -> Num:
    """Returns a column with its remainder divided out (every kept row's q and r are below
    2**62 in magnitude, so their sum stays inside int64)."""
    value = _den_product(column.den)
    extra, r = _divmod(column.r, value)
    with np.errstate(over="ignore"):
        return Num(column.q + extra, r, column.den, column.scale, column.bad)


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
