"""The fast path: an encoding compiled to one Python function per reading selection.

The reference evaluator (`evaluator.py`) walks closures, memoises every value and can record a
trace; it is the semantics. This module generates, from the same AST, the source of a function
that computes the definitions the results need as local variables, in dependency order, with
parameters expanded (`gross_amount(covered: true)` becomes its own variable) and the selected
readings folded into constants. What only one branch needs (a rule's value under its `when`, a
side of an `if`, a case's value, the right side of `and`) is computed inside an `if` block on
that branch's condition, as the reference computes on demand.

Numbers are integers. Money is held in cents; every other number is a pair of integers, a
numerator and a positive denominator, carried unreduced through sums, products and
comparisons (`a/b >= 3/10` is `10a >= 3b`), so no `Fraction` is built until a result leaves
the function. Whether a value needs a denominator is known before any scenario (a division or
a share needs one; a sum of amounts in cents does not), so whole amounts cost plain integer
arithmetic. Cases that test one value against distinct enum members become a table lookup.

Whenever the function meets anything the reference would treat as an error (division by zero,
a missing optional input, two exclusive cases at once, no case at all), or anything it does not
take (an amount that is not a whole number of cents, a division by a negative number), or
raises at all, it gives up and the caller runs the reference evaluator, which then returns the
same values or reports the error in its own words. So the fast path can only ever agree with
the reference or defer to it.
"""

from __future__ import annotations

import hashlib
import operator
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from math import gcd

from . import ast, dates
from .values import CENTS, Value

FastFunction = Callable[[Mapping[str, Value]], dict[str, Value]]

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SIMPLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\(?-?[0-9]+\)?|'[A-Za-z0-9_]*'")
_INTEGER = re.compile(r"\(?-?[0-9]+\)?")
_COMPARE = {"=": "==", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


class Defer(Exception):
    """The fast path cannot decide this scenario: run the reference evaluator."""


class Unsupported(Exception):
    """The encoding uses something the generator does not translate (then no fast path)."""


# ---- run-time helpers of the generated code ---------------------------------------------------
def _fraction_from_coprime(numerator: int, denominator: int) -> Fraction:
    """Returns numerator/denominator (already in lowest terms, denominator > 0) without the
    constructor's normalisation; checked against the constructor when this module loads."""
    value = object.__new__(Fraction)
    value._numerator = numerator  # type: ignore[attr-defined]
    value._denominator = denominator  # type: ignore[attr-defined]
    return value


def _coprime_is_safe() -> bool:
    try:
        probe = _fraction_from_coprime(7, 4)
        return (
            probe == Fraction(7, 4)
            and hash(probe) == hash(Fraction(7, 4))
            and (probe * 4 == 7 and str(probe) == "7/4")
            and Fraction(7, 4)._numerator == 7  # type: ignore[attr-defined]
        )
    except (AttributeError, TypeError):
        return False


_COPRIME = _coprime_is_safe()
# A Fraction's parts read from its slots when this Python's Fraction has them (checked above).
_NUMERATOR, _DENOMINATOR = (
    ("_numerator", "_denominator") if _COPRIME else ("numerator", "denominator")
)


def _cents(amount: Fraction | int) -> int:
    """Returns an amount of money in whole cents; defers when it is not a whole number of
    cents (the reference evaluator takes any exact amount)."""
    numerator = amount.numerator * CENTS
    denominator = amount.denominator
    if denominator == 1:
        return numerator
    if numerator % denominator:
        raise Defer
    return numerator // denominator


_ZERO = Fraction(0)


def _ratio(
    numerator: int,
    denominator: int,
    _gcd: Callable[[int, int], int] = gcd,
    _new: Callable[[type], Fraction] = object.__new__,
) -> Fraction:
    """Returns the exact Fraction numerator/denominator (denominator > 0), reduced once.

    It runs for every result of every scenario: what it calls is bound once, as defaults."""
    if not numerator:
        return _ZERO
    common = _gcd(numerator, denominator)
    value = _new(Fraction)
    value._numerator = numerator // common  # type: ignore[attr-defined]
    value._denominator = denominator // common  # type: ignore[attr-defined]
    return value


def _ratio_by_constructor(numerator: int, denominator: int) -> Fraction:
    """Returns the exact Fraction numerator/denominator, through the constructor."""
    return Fraction(numerator, denominator)


if not _COPRIME:  # this Python's Fraction is built another way: use its constructor
    _ratio = _ratio_by_constructor  # type: ignore[assignment]


def _missing() -> Value:
    raise Defer


# ---- generated values ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Code:
    """Generated source of a value: a bool or enum member `text`, or a number `text / den`
    where both are integer expressions and `den` is positive ("1" for an integer)."""

    kind: str  # "num", "bool" or "str"
    text: str
    den: str = "1"

    @property
    def whole(self) -> bool:
        """True when the value is an integer (no denominator)."""
        return self.den == "1"


def _simple(text: str) -> bool:
    """True for a name or a literal: source that costs nothing to repeat."""
    return bool(_SIMPLE.fullmatch(text)) or text in ("True", "False")


def _is_integer(text: str) -> bool:
    """True for the source of an integer literal."""
    return bool(_INTEGER.fullmatch(text))


def _int_text(value: int) -> str:
    """Returns the source of an integer literal (negative ones in parentheses)."""
    return str(value) if value >= 0 else f"({value})"


def _is_literal(code: Code) -> bool:
    """True for a constant: an integer, a bool or an enum member."""
    text = code.text
    return code.whole and (_is_integer(text) or text in ("True", "False") or text.startswith("'"))


Key = tuple[str, tuple[Value, ...]]


class Generator:
    """Writes the source of the fast function of one statute under one reading selection."""

    def __init__(self, statute: ast.Statute, readings: Mapping[str, str]) -> None:
        self.statute = statute
        self.readings = readings
        self.constants: dict[str, object] = {}
        self.lines: list[str] = []
        # Each definition emitted, with the guards (conditions of enclosing `if` blocks) under
        # which its value is set; a later need under the same guards or more reuses it.
        self.emitted: dict[Key, tuple[frozenset[str], Code]] = {}
        self.guards: tuple[str, ...] = ()
        self.temporaries = 0
        self.inputs_used: set[str] = set()
        if dates.uses_dates(statute):
            # Calendar arithmetic stays in one place, the reference evaluator (dsl/dates.py).
            raise Unsupported("dates and durations")

    # ---- names -------------------------------------------------------------------------------
    @staticmethod
    def variable(key: Key, prefix: str = "d_") -> str:
        """Returns the local variable holding a definition's value for these arguments."""
        name, args = key
        if not args:
            return _identifier(f"{prefix}{name}")
        return _identifier(f"{prefix}{name}__" + "__".join(_arg_name(a) for a in args))

    def constant(self, value: object) -> str:
        """Returns the name of a module-level constant holding `value`."""
        name = f"_k{len(self.constants)}"
        self.constants[name] = value
        return name

    def temporary(self) -> str:
        """Returns a fresh local variable name."""
        self.temporaries += 1
        return f"t_{self.temporaries}"

    def emit(self, line: str) -> None:
        """Appends a line of the function's body inside the current guards."""
        self.lines.append("    " * len(self.guards) + line)

    def hold(self, text: str) -> str:
        """Returns `text` when it is simple, else a local variable set to it now."""
        if _simple(text):
            return text
        name = self.temporary()
        self.emit(f"{name} = {text}")
        return name

    def held(self, code: Code) -> Code:
        """Returns `code` with its parts in local variables (so they may be repeated)."""
        return Code(code.kind, self.hold(code.text), self.hold(code.den))

    # ---- expressions -------------------------------------------------------------------------
    def static_value(self, expr: ast.Expr, bound: Mapping[str, Value]) -> Value:
        """Returns the value of a call argument known before any scenario (a literal, a bound
        parameter, an enum member)."""
        if isinstance(expr, ast.Literal):
            return expr.value
        if isinstance(expr, ast.Ref) and expr.name in bound:
            return bound[expr.name]
        if (
            isinstance(expr, ast.Ref)
            and expr.name not in self.statute.inputs
            and (expr.name not in self.statute.definitions)
        ):
            return expr.name
        raise Unsupported(f"argument {expr!r} is not known statically")

    def key_of_call(self, expr: ast.Call, bound: Mapping[str, Value]) -> Key:
        """Returns the definition and arguments a call names."""
        definition = self.statute.definitions[expr.name]
        given = dict(expr.kwargs)
        return expr.name, tuple(self.static_value(given[p.name], bound) for p in definition.params)

    def expr(self, expr: ast.Expr, bound: Mapping[str, Value]) -> Code:
        """Returns the code of `expr`, emitting first the statements it needs."""
        statute = self.statute
        if isinstance(expr, ast.Literal):
            return _literal_code(expr)
        if isinstance(expr, ast.Ref):
            name = expr.name
            if name in bound:
                return _parameter_code(bound[name])
            if name in statute.inputs:
                return self.input(name)
            if name in statute.definitions:
                return self.need((name, ()))
            return Code("str", repr(_identifier(name)))  # an enum member
        if isinstance(expr, ast.Call):
            if expr.name in ("min", "max"):
                return self.extreme(expr.name, [self.expr(a, bound) for a in expr.args])
            if expr.name in ("floor", "ceil"):
                (only,) = expr.args
                if self.is_money(only):
                    raise Unsupported(f"{expr.name} of an amount of money")
                value = self.expr(only, bound)
                if value.whole:
                    return value
                if expr.name == "ceil":  # ceil(n / d) = -floor(-n / d)
                    return Code("num", f"(-(-({value.text}) // {value.den}))")
                return Code("num", f"({value.text} // {value.den})")
            return self.need(self.key_of_call(expr, bound))
        if isinstance(expr, ast.BinOp):
            # Money is held in cents: a product or quotient must keep one scale of cents.
            if expr.op == "*" and self.is_money(expr.left) and self.is_money(expr.right):
                raise Unsupported("money times money")
            if expr.op == "/" and self.is_money(expr.right) and not self.is_money(expr.left):
                raise Unsupported("a number divided by money")
            if expr.op == "/":  # the divisor first, as the reference evaluates it
                right = self.expr(expr.right, bound)
                left = self.expr(expr.left, bound)
            else:
                left = self.expr(expr.left, bound)
                right = self.expr(expr.right, bound)
            if expr.op == "*":
                return _product(left, right)
            if expr.op == "/":
                return self.quotient(left, right)
            return self.sum(left, right, expr.op)
        if isinstance(expr, ast.Compare):
            return self.compare(
                _COMPARE[expr.op], self.expr(expr.left, bound), self.expr(expr.right, bound)
            )
        if isinstance(expr, ast.BoolOp):
            left = self.expr(expr.left, bound)
            true, false = Code("bool", "True"), Code("bool", "False")
            if expr.op == "and":
                return self.choice(left, lambda: self.expr(expr.right, bound), lambda: false)
            if expr.op == "or":
                return self.choice(left, lambda: true, lambda: self.expr(expr.right, bound))
            return self.choice(left, lambda: self.expr(expr.right, bound), lambda: true)
        if isinstance(expr, ast.Not):
            operand = self.expr(expr.operand, bound)
            if operand.text in ("True", "False"):
                return Code("bool", "False" if operand.text == "True" else "True")
            return Code("bool", f"(not {operand.text})")
        if isinstance(expr, ast.Neg):
            value = self.expr(expr.operand, bound)
            return Code("num", f"(-{value.text})", value.den)
        if isinstance(expr, ast.If):
            return self.choice(
                self.expr(expr.condition, bound),
                lambda: self.expr(expr.then, bound),
                lambda: self.expr(expr.otherwise, bound),
            )
        if isinstance(expr, ast.Given):
            self.inputs_used.add(expr.name)
            return Code("bool", f"(i_{_identifier(expr.name)} is not None)")
        if isinstance(expr, ast.ReadingTest):
            return Code("bool", repr(self.readings[expr.reading] == expr.option))
        if isinstance(expr, ast.Aggregate):
            # Lists are not translated: the reference evaluator computes such an encoding.
            raise Unsupported("an aggregate over a list")
        if isinstance(expr, ast.BonusSum):
            # The bonuses that take no parameter add up the same under every argument: that
            # part of the sum is computed once and shared.
            total = self.fixed_bonuses()
            for bonus in statute.bonuses:
                if bonus.params:
                    term = self.need((bonus.name, tuple(bound[p.name] for p in bonus.params)))
                    total = self.sum(total, term, "+")
            return total
        raise Unsupported(f"expression {expr!r}")

    def fixed_bonuses(self) -> Code:
        """Returns the sum of the bonuses that take no parameter, computed once per guards."""
        key: Key = ("#fixed bonuses", ())
        guards = frozenset(self.guards)
        found = self.emitted.get(key)
        if found is not None and found[0] <= guards:
            return found[1]
        total = Code("num", "0")
        for bonus in self.statute.bonuses:
            if not bonus.params:
                total = self.sum(total, self.need((bonus.name, ())), "+")
        total = self.held(total)
        self.emitted[key] = (guards, total)
        return total

    def input(self, name: str) -> Code:
        """Returns the code of an input: its cents, its parts, or the value itself."""
        declared = self.statute.inputs[name]
        self.inputs_used.add(name)
        variable = _identifier(f"i_{name}")
        kind = declared.type.kind
        if kind in ("money", "number", "share"):
            self.convert(declared)
        if kind == "money":
            variable = f"c_{name}"
        present = variable
        if declared.optional:
            present = f"({variable} if {variable} is not None else _missing())"
        if kind in ("money", "count"):
            return Code("num", present)
        if kind in ("number", "share"):
            numerator = (
                f"in_{name}"
                if not declared.optional
                else f"(in_{name} if {variable} is not None else _missing())"
            )
            return Code("num", numerator, f"id_{name}")
        return Code("bool" if kind == "bool" else "str", present)

    def convert(self, declared: ast.Input) -> None:
        """Emits, where an amount or a number is first needed (not before: a scenario that
        never takes that branch never pays for it), its cents (`c_`) or its numerator and
        denominator (`in_`, `id_`)."""
        key: Key = ("#input", (declared.name,))
        guards = frozenset(self.guards)
        found = self.emitted.get(key)
        if found is not None and found[0] <= guards:
            return
        self.emitted[key] = (guards, Code("num", "0"))
        name = declared.name
        variable = _identifier(f"i_{name}")
        numerator = f"{variable}.{_NUMERATOR}"
        denominator = f"{variable}.{_DENOMINATOR}"
        if declared.type.kind == "money":
            # Whole cents: integer arithmetic. An amount with at most two decimals (the usual
            # case) needs no call.
            cents = (
                f"({numerator} * {CENTS} // {denominator} "
                f"if {CENTS} % {denominator} == 0 else _cents({variable}))"
            )
            if declared.optional:
                cents = f"(None if {variable} is None else _cents({variable}))"
            self.emit(f"c_{name} = {cents}")
            return
        read = f"{numerator}, {denominator}"
        if declared.optional:
            read = f"({read}) if {variable} is not None else (None, 1)"
        self.emit(f"in_{name}, id_{name} = {read}")

    def sum(self, left: Code, right: Code, op: str) -> Code:
        """Returns left + right or left - right (over a common denominator when needed)."""
        if right.text == "0":
            return left
        if left.text == "0" and op == "+":
            return right
        if left.den == right.den:
            return Code("num", f"({left.text} {op} {right.text})", left.den)
        if right.whole:
            den = self.hold(left.den)
            return Code("num", f"({left.text} {op} {right.text} * {den})", den)
        if left.whole:
            den = self.hold(right.den)
            return Code("num", f"({left.text} * {den} {op} {right.text})", den)
        left_den, right_den = self.hold(left.den), self.hold(right.den)
        return Code(
            "num",
            f"({left.text} * {right_den} {op} {right.text} * {left_den})",
            f"({left_den} * {right_den})",
        )

    def quotient(self, left: Code, right: Code) -> Code:
        """Returns left / right; a divisor that is not positive defers (zero is the
        reference's error, and a negative one would need its sign moved)."""
        if _is_integer(right.text) and _is_integer(right.den):
            divisor = Fraction(int(right.text.strip("()")), int(right.den))
            if divisor == 0:
                raise Unsupported("a division by the constant zero")
            sign = 1 if divisor > 0 else -1
            inverse = Code(
                "num", _int_text(sign * divisor.denominator), str(abs(divisor.numerator))
            )
            return _product(left, inverse)
        divisor = self.held(right)
        self.emit(f"if {divisor.text} <= 0: raise Defer")
        return _product(left, Code("num", divisor.den, divisor.text))

    def compare(self, op: str, left: Code, right: Code) -> Code:
        """Returns the comparison of two values (cross-multiplied for fractions)."""
        if left.kind != "num" or (left.whole and right.whole):
            return Code("bool", f"({left.text} {op} {right.text})")
        return Code(
            "bool",
            f"({_times(left.text, right.den)} {op} {_times(right.text, left.den)})",
        )

    def extreme(self, which: str, values: list[Code]) -> Code:
        """Returns min(...) or max(...) of the values."""
        if all(v.whole for v in values):
            return Code("num", f"{which}({', '.join(v.text for v in values)})")
        best = self.held(values[0])
        for value in values[1:]:
            value = self.held(value)
            keep = self.hold(self.compare("<=" if which == "min" else ">=", best, value).text)
            best = self.held(
                Code(
                    "num",
                    f"({best.text} if {keep} else {value.text})",
                    best.den
                    if best.den == value.den
                    else f"({best.den} if {keep} else {value.den})",
                )
            )
        return best

    def choice(
        self, condition: Code, then: Callable[[], Code], otherwise: Callable[[], Code]
    ) -> Code:
        """Returns `then() if condition else otherwise()`; what a side needs is computed
        inside an `if` block on that side only, and the blocks fold back into one conditional
        expression when neither needs any statement."""
        if condition.text in ("True", "False"):  # decided by a parameter or a reading
            return then() if condition.text == "True" else otherwise()
        test = condition.text
        start = len(self.lines)
        self.emit(f"if {test}:")
        self.guards = (*self.guards, test)
        yes = then()
        self.guards = self.guards[:-1]
        middle = len(self.lines)
        self.emit("else:")
        self.guards = (*self.guards, f"not {test}")
        no = otherwise()
        self.guards = self.guards[:-1]
        inline = middle == start + 1 and len(self.lines) == middle + 1
        den_differs = yes.kind == "num" and no.kind == "num" and yes.den != no.den
        if inline:
            del self.lines[start:]
            if not den_differs:
                if yes.text == no.text:
                    if "_missing(" in test:
                        self.hold(test)  # evaluated, as the reference evaluates it
                    return yes
                if yes.kind == "bool" and (yes.text, no.text) == ("True", "False"):
                    return Code("bool", test)
                if yes.kind == "bool" and yes.text == "True":
                    return Code("bool", f"({test} or {no.text})")
                if yes.kind == "bool" and no.text == "False":
                    return Code("bool", f"({test} and {yes.text})")
                return Code(yes.kind, f"({yes.text} if {test} else {no.text})", yes.den)
            test = self.hold(test)
            return Code(
                "num",
                f"({yes.text} if {test} else {no.text})",
                f"({yes.den} if {test} else {no.den})",
            )
        result = self.temporary()
        indent = "    " * (len(self.guards) + 1)
        lines_yes = [f"{indent}{result} = {yes.text}"]
        lines_no = [f"{indent}{result} = {no.text}"]
        den = yes.den
        if den_differs:
            den = f"{result}_d"
            lines_yes.append(f"{indent}{den} = {yes.den}")
            lines_no.append(f"{indent}{den} = {no.den}")
        self.lines[middle:middle] = lines_yes
        self.lines.extend(lines_no)
        return Code(yes.kind, result, den)

    def is_money(self, expr: ast.Expr) -> bool:
        """True when an expression is an amount of money (held in cents)."""
        statute = self.statute
        if isinstance(expr, ast.Literal):
            return expr.unit == "money"
        if isinstance(expr, ast.Ref):
            declared = statute.inputs.get(expr.name) or statute.definitions.get(expr.name)
            return declared is not None and declared.type.kind == "money"
        if isinstance(expr, ast.Call):
            if expr.name in ("min", "max"):
                return any(self.is_money(a) for a in expr.args)
            definition = statute.definitions.get(expr.name)
            return definition is not None and definition.type.kind == "money"
        if isinstance(expr, ast.BinOp):
            if expr.op in ("+", "-", "*"):
                return self.is_money(expr.left) or self.is_money(expr.right)
            return self.is_money(expr.left) and not self.is_money(expr.right)
        if isinstance(expr, ast.Neg):
            return self.is_money(expr.operand)
        if isinstance(expr, ast.If):
            return self.is_money(expr.then) or self.is_money(expr.otherwise)
        return isinstance(expr, ast.BonusSum)

    # ---- definitions -------------------------------------------------------------------------
    def need(self, key: Key) -> Code:
        """Returns the code of a definition's value, emitting its computation unless it is
        already set under the current guards."""
        guards = frozenset(self.guards)
        found = self.emitted.get(key)
        if found is not None and found[0] <= guards:
            return found[1]
        name, args = key
        definition = self.statute.definitions[name]
        bound = dict(zip((p.name for p in definition.params), args, strict=True))
        if definition.exceptions:
            code = self.excepted(definition, bound)
        elif isinstance(definition, ast.Rule):
            code = self.rule(definition, bound)
        else:
            code = self.cases(definition, bound)
        if not _is_literal(code):
            variable = self.variable(key)
            if not _simple(code.text):
                self.emit(f"{variable} = {code.text}")
                code = Code(code.kind, variable, code.den)
            if not _simple(code.den):
                denominator = self.variable(key, "dd_")
                self.emit(f"{denominator} = {code.den}")
                code = Code(code.kind, code.text, denominator)
        self.emitted[key] = (guards, code)
        return code

    def excepted(self, definition: ast.Rule | ast.Cases, bound: Mapping[str, Value]) -> Code:
        """Returns a definition with exceptions: every exception's condition is computed, as
        the reference computes them, two of equal priority that hold defer (the reference then
        reports the conflict), and the highest priority that holds gives the value, else the
        definition's own."""
        ordered = definition.exceptions_by_priority()
        held: list[Code] = []
        for exception in ordered:
            code = self.expr(exception.condition, bound)
            if code.text not in ("True", "False"):  # else decided by a parameter or a reading
                holder = f"x_{self.temporary()}"
                self.emit(f"{holder} = {code.text}")
                code = Code("bool", holder)
            held.append(code)
        self.exceptions_decided(held)
        priorities = [e.priority for e in ordered]
        for priority in dict.fromkeys(priorities):
            group = [h.text for h, p in zip(held, priorities, strict=True) if p == priority]
            if len(group) > 1:
                self.emit(f"if ({' + '.join(group)}) > 1: raise Defer")

        def from_index(index: int) -> Code:
            if index == len(ordered):
                self.chosen("exception", index)  # none holds: the definition's own value
                if isinstance(definition, ast.Rule):
                    return self.rule(definition, bound)
                return self.cases(definition, bound)
            exception = ordered[index]
            return self.choice(
                held[index],
                lambda: self.alternative("exception", index, exception.expr, bound),
                lambda: from_index(index + 1),
            )

        return from_index(0)

    def rule(self, rule: ast.Rule, bound: Mapping[str, Value]) -> Code:
        """Returns a rule's value, or the zero of its type where its condition fails."""
        assert rule.expr is not None
        value = rule.expr
        if rule.condition is None:
            return self.expr(value, bound)
        zero = Code("bool", "False") if rule.type.kind == "bool" else Code("num", "0")
        condition = self.rule_condition(self.expr(rule.condition, bound))
        return self.choice(condition, lambda: self.expr(value, bound), lambda: zero)

    def cases(self, cases: ast.Cases, bound: Mapping[str, Value]) -> Code:
        """Returns a piecewise definition's value: the first case that holds, or `otherwise`.

        Exclusive cases evaluate every condition, as the reference does, and two that hold at
        once defer, unless their form proves they cannot (distinct enum members of one value,
        a name and its negation, disjoint ranges of one number). Cases on distinct members
        with constant values are a table lookup."""
        conditions = [c.condition for c in cases.cases]
        exclusive = cases.order == "exclusive"
        lookup = self.lookup(cases, bound)
        if lookup is not None:
            return lookup
        if not exclusive:
            return self.chain(cases, bound, [None] * len(conditions))
        held: list[Code | None] = []
        proved = _exclusive_by_form(conditions, self.statute, bound) or _exclusive_by_ranges(
            conditions, self.statute, bound
        )
        for index, condition in enumerate(conditions):
            if condition is None:
                held.append(Code("bool", "True"))
                continue
            code = self.expr(condition, bound)
            if not proved or "_missing(" in code.text:
                holder = f"h{index}_{self.temporary()}"
                self.emit(f"{holder} = {code.text}")
                code = Code("bool", holder)
            held.append(code)
        # The `otherwise` case holds when no other does: it never counts as a second one.
        counted = [c for c, condition in zip(held, conditions, strict=True) if condition]
        if not proved and len(counted) > 1:
            self.emit(f"if ({' + '.join(c.text for c in counted if c)}) > 1: raise Defer")
        return self.chain(cases, bound, held)

    def chain(self, cases: ast.Cases, bound: Mapping[str, Value], held: list[Code | None]) -> Code:
        """Returns the first case that holds (conditions not yet computed are computed in
        order, each only when those before it failed), else `otherwise`."""

        def from_index(index: int) -> Code:
            if index == len(cases.cases):
                if cases.otherwise is not None:
                    return self.alternative("case", index, cases.otherwise, bound)
                return Code("num", "_missing()")
            case = cases.cases[index]
            condition = held[index]
            if condition is None:
                condition = (
                    Code("bool", "True")
                    if case.condition is None
                    else self.expr(case.condition, bound)
                )
            return self.choice(
                condition,
                lambda: self.alternative("case", index, case.expr, bound),
                lambda: from_index(index + 1),
            )

        return from_index(0)

    # ---- hooks of the traced variant (dsl/codegen_trace.py); here they add nothing ----------
    def alternative(
        self, kind: str, index: int, expr: ast.Expr, bound: Mapping[str, Value]
    ) -> Code:
        """Returns the code of the value of alternative `index` of a definition (a case, the
        `otherwise` after the last case, or an exception), inside the branch that chose it."""
        self.chosen(kind, index)
        return self.expr(expr, bound)

    def chosen(self, kind: str, index: int) -> None:
        """Called where the generated code has chosen alternative `index` of `kind`, before
        its value (the traced variant records the choice)."""

    def rule_condition(self, condition: Code) -> Code:
        """Returns the code a rule's condition is tested by (the traced variant keeps it)."""
        return condition

    def exceptions_decided(self, held: list[Code]) -> None:
        """Called with the codes of a definition's exception conditions, once all are set."""

    def lookup(self, cases: ast.Cases, bound: Mapping[str, Value]) -> Code | None:
        """Returns a table lookup for cases `x = m1`, `x = m2` ... on one value with distinct
        enum members and constant values (None when the cases are not of that form)."""
        conditions = [c.condition for c in cases.cases]
        if len(conditions) < 2 or not _exclusive_by_form(conditions, self.statute, bound):
            return None
        if not all(isinstance(c, ast.Compare) for c in conditions):
            return None
        values = [_constant_value(c.expr, bound) for c in cases.cases]
        default = None if cases.otherwise is None else _constant_value(cases.otherwise, bound)
        if any(v is None for v in values) or (cases.otherwise is not None and default is None):
            return None
        kinds = {type(v) for v in [*values, default] if v is not None}
        if len(kinds) != 1:
            return None
        subject = self.expr(conditions[0].left, bound)  # type: ignore[union-attr]
        members = [c.right.name for c in conditions]  # type: ignore[union-attr]
        table = self.constant(dict(zip(members, values, strict=True)))
        kind = "str" if kinds == {str} else "num"
        if default is None:
            return Code(kind, f"{table}[{subject.text}]")  # no case: KeyError, and it defers
        return Code(kind, f"{table}.get({subject.text}, {default!r})")

    # ---- the function ------------------------------------------------------------------------
    def source(self) -> str:
        """Returns the module source defining `evaluate(inputs) -> {result: value}`."""
        results = []
        for name in self.statute.result_names:
            value = exact_value(self.statute.definitions[name].type.kind, self.need((name, ())))
            results.append(f"{_identifier(name)!r}: {value}")
        ending = [f"    return {{{', '.join(results)}}}"]
        return "def evaluate(inputs):\n" + "\n".join(self.body(ending)) + "\n"

    def body(self, ending: list[str]) -> list[str]:
        """Returns the lines of the function's body: the inputs fetched, the statements, then
        `ending`."""
        names = sorted(self.inputs_used)
        body = []
        if names:
            # One C-level call fetches every input the rules use.
            fetch = self.constant(operator.itemgetter(*names))
            targets = ", ".join(_identifier("i_" + name) for name in names)
            body.append(
                f"    ({targets},) = {fetch}(inputs)"
                if len(names) > 1
                else f"    {targets} = {fetch}(inputs)"
            )
        body += [f"    {line}" for line in self.lines]
        return body + ending


def exact_value(kind: str, code: Code) -> str:
    """Returns the source of a value as the reference holds it: money and numbers as exact
    Fractions (money from its cents), counts, bools and enum members as they are."""
    if kind == "money":
        return f"_ratio({code.text}, {_times(code.den, str(CENTS))})"
    if kind in ("number", "share"):
        return f"_ratio({code.text}, {code.den})"
    return code.text


def _times(text: str, factor: str) -> str:
    """Returns the source of text * factor (nothing to multiply when the factor is 1)."""
    return text if factor == "1" else f"{text} * {factor}"


def _product(left: Code, right: Code) -> Code:
    """Returns left * right: numerators and denominators multiplied, unreduced."""
    if left.text == "0" or right.text == "0":
        return Code("num", "0")
    if right.text == "1":
        numerator = left.text
    elif left.text == "1":
        numerator = right.text
    else:
        numerator = f"({left.text} * {right.text})"
    if left.whole:
        den = right.den
    elif right.whole:
        den = left.den
    else:
        den = f"({left.den} * {right.den})"
    return Code("num", numerator, den)


def _literal_code(expr: ast.Literal) -> Code:
    """Returns the code of a literal: money in cents, a fraction as its two parts."""
    value = expr.value
    if isinstance(value, bool):
        return Code("bool", repr(value))
    if expr.unit == "money":
        value = value * CENTS
    return Code("num", _int_text(value.numerator), str(value.denominator))


def _parameter_code(value: Value) -> Code:
    """Returns the code of a parameter value or enum member (bools, plain identifiers)."""
    if isinstance(value, bool):
        return Code("bool", repr(value))
    if isinstance(value, str):
        return Code("str", repr(_identifier(value)))
    raise Unsupported(f"parameter value {value!r}")


def _constant_value(expr: ast.Expr, bound: Mapping[str, Value]) -> int | str | None:
    """Returns a case's value when it is a constant of the arithmetic (whole cents, a whole
    number) or an enum member; else None."""
    if isinstance(expr, ast.Literal) and not isinstance(expr.value, bool):
        scaled = expr.value * CENTS if expr.unit == "money" else expr.value
        return scaled.numerator if scaled.denominator == 1 else None
    return None


def _identifier(text: str) -> str:
    """Returns `text` when it is a plain identifier. The grammar only admits such names; this
    keeps anything else out of generated source whatever the AST holds."""
    if not _IDENTIFIER.fullmatch(text):
        raise Unsupported(f"{text!r} is not a plain identifier")
    return text


def _arg_name(value: Value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value).replace("-", "_")


def _exclusive_by_form(
    conditions: list[ast.Expr | None], statute: ast.Statute, bound: Mapping[str, Value]
) -> bool:
    """True when no two conditions can hold at once by their form alone: `x = m1`, `x = m2`
    ... on one name with distinct enum members, or a name and its negation."""
    if any(c is None for c in conditions):
        return False

    def member(expr: ast.Expr) -> str | None:
        named = isinstance(expr, ast.Ref) and expr.name not in bound
        is_value = named and (expr.name in statute.inputs or expr.name in statute.definitions)
        return expr.name if named and not is_value else None  # type: ignore[attr-defined]

    if len(conditions) == 2:
        first, second = conditions
        for one, other in ((first, second), (second, first)):
            if (
                isinstance(one, ast.Not)
                and isinstance(one.operand, ast.Ref)
                and isinstance(other, ast.Ref)
                and one.operand.name == other.name
            ):
                return True
    names, members = set(), []
    for condition in conditions:
        if not (
            isinstance(condition, ast.Compare)
            and condition.op == "="
            and isinstance(condition.left, ast.Ref)
            and member(condition.right) is not None
        ):
            return False
        names.add(condition.left.name)
        members.append(member(condition.right))
    return len(names) == 1 and len(set(members)) == len(members)


Bound = tuple[Fraction, bool]  # a limit and whether it is included


def _exclusive_by_ranges(
    conditions: list[ast.Expr | None], statute: ast.Statute, bound: Mapping[str, Value]
) -> bool:
    """True when each condition bounds one and the same number by constants (`n >= 251 and
    n <= 400`, `n > 1000`) and no two of the ranges overlap."""
    if len(conditions) < 2 or any(c is None for c in conditions):
        return False
    ranges = []
    subjects = set()
    for condition in conditions:
        found = _range(condition, statute, bound)  # type: ignore[arg-type]
        if found is None:
            return False
        subject, low, high = found
        subjects.add(subject)
        ranges.append((low, high))
    if len(subjects) != 1:
        return False
    for index, (low, high) in enumerate(ranges):
        for other_low, other_high in ranges[index + 1 :]:
            if not _disjoint(_tighter(low, other_low, max), _tighter(high, other_high, min)):
                return False
    return True


def _range(
    expr: ast.Expr, statute: ast.Statute, bound: Mapping[str, Value]
) -> tuple[str, Bound | None, Bound | None] | None:
    """Returns (name, lower limit, upper limit) of a conjunction of comparisons of one
    number with constants; None when the condition has another form."""
    if isinstance(expr, ast.BoolOp) and expr.op == "and":
        left = _range(expr.left, statute, bound)
        right = _range(expr.right, statute, bound)
        if left is None or right is None or left[0] != right[0]:
            return None
        return left[0], _tighter(left[1], right[1], max), _tighter(left[2], right[2], min)
    if not (
        isinstance(expr, ast.Compare)
        and isinstance(expr.left, ast.Ref)
        and expr.left.name not in bound
        and isinstance(expr.right, ast.Literal)
        and not isinstance(expr.right.value, bool)
    ):
        return None
    declared = statute.inputs.get(expr.left.name) or statute.definitions.get(expr.left.name)
    if declared is None or not declared.type.is_numeric:
        return None
    # Money literals and money values are compared in the same unit (dollars here).
    if (declared.type.kind == "money") != (expr.right.unit == "money"):
        return None
    limit = expr.right.value
    name = expr.left.name
    if expr.op in (">", ">="):
        return name, (limit, expr.op == ">="), None
    if expr.op in ("<", "<="):
        return name, None, (limit, expr.op == "<=")
    if expr.op == "=":
        return name, (limit, True), (limit, True)
    return None


def _tighter(a: Bound | None, b: Bound | None, pick: Callable[..., Fraction]) -> Bound | None:
    """Returns the tighter of two limits (`pick` is max for lower limits, min for upper)."""
    if a is None or b is None:
        return a or b
    if a[0] != b[0]:
        return a if pick(a[0], b[0]) == a[0] else b
    return (a[0], a[1] and b[1])


def _disjoint(low: Bound | None, high: Bound | None) -> bool:
    """True when no number lies between a lower and an upper limit."""
    if low is None or high is None:
        return False
    return low[0] > high[0] or (low[0] == high[0] and not (low[1] and high[1]))


_CACHE: dict[
    tuple[type[Generator], int, tuple[str, ...]], tuple[ast.Statute, Callable[..., object] | None]
] = {}
_TESTED: dict[int, tuple[ast.Statute, tuple[str, ...]]] = {}


def tested_readings(statute: ast.Statute) -> tuple[str, ...]:
    """Returns the readings a rule tests by name (`reading I8 is ...`): the only ones the
    generated code depends on, so one function serves every selection that agrees on them."""
    cached = _TESTED.get(id(statute))
    if cached is None or cached[0] is not statute:
        from .checker import definition_expressions, walk

        found = {
            node.reading
            for definition in statute.definitions.values()
            for expr in definition_expressions(definition)
            for node in walk(expr)
            if isinstance(node, ast.ReadingTest)
        }
        cached = (statute, tuple(sorted(found)))
        _TESTED[id(statute)] = cached
    return cached[1]


def fast_function(statute: ast.Statute, readings: Mapping[str, str]) -> FastFunction | None:
    """Returns the generated function of a statute under a reading selection (None when the
    encoding uses something the generator does not translate), made once and kept."""
    return generated_function(Generator, statute, readings, "fast path")  # type: ignore[return-value]


def generated_function(
    kind: type[Generator],
    statute: ast.Statute,
    readings: Mapping[str, str],
    label: str,
    helpers: Mapping[str, object] | None = None,
) -> Callable[..., object] | None:
    """Returns the function `kind` generates for a statute and reading selection, compiled
    (None when the encoding uses something it does not translate), made once and kept for
    the readings its encoding tests. `helpers` are the run-time names its source calls
    besides this module's."""
    selection = tuple(readings[r] for r in tested_readings(statute))
    cache_key = (kind, id(statute), selection)
    cached = _CACHE.get(cache_key)
    if cached is not None and cached[0] is statute:
        return cached[1]
    function = _compiled(kind, statute, readings, label, helpers)
    _CACHE[cache_key] = (statute, function)
    return function


def _compiled(
    kind: type[Generator],
    statute: ast.Statute,
    readings: Mapping[str, str],
    label: str,
    helpers: Mapping[str, object] | None,
) -> Callable[..., object] | None:
    try:
        generator = kind(statute, readings)
        source = generator.source()
    except Unsupported:
        return None
    namespace: dict[str, object] = {
        "Defer": Defer,
        "_missing": _missing,
        "_cents": _cents,
        "_ratio": _ratio,
        **(helpers or {}),
        **generator.constants,
    }
    digest = hashlib.sha256(source.encode()).hexdigest()[:12]
    code = compile(source, f"<lextrace {label} {digest}>", "exec")
    exec(code, namespace)
    return namespace["evaluate"]  # type: ignore[return-value]


def run_fast(
    statute: ast.Statute, inputs: Mapping[str, Value], readings: Mapping[str, str]
) -> dict[str, Value] | None:
    """Returns the results of validated inputs by the fast path, or None when it defers (the
    caller then runs the reference evaluator)."""
    function = fast_function(statute, readings)
    if function is None:
        return None
    try:
        return function(inputs)
    except Exception:
        return None


def generated_source(statute: ast.Statute, readings: Mapping[str, str]) -> str:
    """Returns the source the fast path runs for a statute and reading selection (for review)."""
    return Generator(statute, readings).source()
