"""The fast path: an encoding compiled to one Python function per reading selection.

The reference evaluator (`evaluator.py`) walks closures, memoises every value and can record a
trace; it is the semantics. This module generates, from the same AST, the source of a function
that computes the definitions the results need as local variables, in dependency order, with
parameters expanded (`gross_amount(covered: true)` becomes its own variable) and the selected
readings folded into constants. What only one branch needs (a rule's value under its `when`, a
side of a top-level `if`, a case's value) is computed inside an `if` block on that branch's
condition, as the reference computes on demand. Money is held in cents, so amounts are Python
integers; a `Fraction` appears only where a division or a non-integral amount (50%, 1/3) makes
one, and is brought back to an integer when it is whole.

Whenever the function meets anything the reference would treat as an error (division by zero,
a missing optional input, two exclusive cases at once, no case at all), or raises at all, it
gives up and the caller runs the reference evaluator, which then returns the same values or
reports the error in its own words. So the fast path can only ever agree with the reference or
defer to it.
"""

from __future__ import annotations

import hashlib
import operator
import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from fractions import Fraction
from math import gcd

from . import ast
from .values import CENTS, Value

FastFunction = Callable[[Mapping[str, Value]], dict[str, Value]]

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_COMPARE = {"=": "==", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


class Defer(Exception):
    """The fast path cannot decide this scenario: run the reference evaluator."""


class Unsupported(Exception):
    """The encoding uses something the generator does not translate (then no fast path)."""


def _whole(value: Fraction | int) -> Fraction | int:
    """Returns a whole Fraction as an int (kept exact either way)."""
    if type(value) is Fraction and value.denominator == 1:
        return value.numerator
    return value


def _divide(numerator: Fraction | int, denominator: Fraction | int) -> Fraction | int:
    """Returns numerator / denominator exactly, deferring on zero like the reference errs."""
    if not denominator:
        raise Defer
    if type(numerator) is int and type(denominator) is int:
        if numerator % denominator == 0:
            return numerator // denominator
        return Fraction(numerator, denominator)
    return _whole(Fraction(numerator) / denominator)


def _times(value: Fraction | int, numerator: int, denominator: int) -> Fraction | int:
    """Returns value * numerator / denominator exactly, an int when whole."""
    if type(value) is int:
        scaled = value * numerator
        if scaled % denominator == 0:
            return scaled // denominator
        return Fraction(scaled, denominator)
    return _whole(Fraction(value.numerator * numerator, value.denominator * denominator))


def _product(left: Fraction | int, right: Fraction | int) -> Fraction | int:
    """Returns left * right, an int when whole."""
    result = left * right
    return result if type(result) is int else _whole(result)


def _cents(amount: Fraction | int | None) -> Fraction | int | None:
    """Returns an amount of money in cents: an int when it is a whole number of cents."""
    if amount is None or type(amount) is int:
        return None if amount is None else amount * CENTS
    numerator, denominator = amount.numerator, amount.denominator
    if denominator == 1:
        return numerator * CENTS
    whole, rest = divmod(numerator * CENTS, denominator)
    return whole if rest == 0 else Fraction(numerator * CENTS, denominator)


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
        )
    except (AttributeError, TypeError):
        return False


_COPRIME = _coprime_is_safe()


def _dollars(cents: Fraction | int) -> Fraction:
    """Returns an amount held in cents as an exact Fraction of dollars."""
    if type(cents) is int:
        if _COPRIME:
            common = gcd(cents, CENTS)
            return _fraction_from_coprime(cents // common, CENTS // common)
        return Fraction(cents, CENTS)
    return cents / CENTS


def _missing() -> Value:
    raise Defer


Key = tuple[str, tuple[Value, ...]]


class Generator:
    """Writes the source of the fast function of one statute under one reading selection."""

    def __init__(self, statute: ast.Statute, readings: Mapping[str, str]) -> None:
        self.statute = statute
        self.readings = readings
        self.constants: dict[str, object] = {}
        self.lines: list[str] = []
        # Each definition emitted, with the guards (conditions of enclosing `if` blocks) under
        # which its variable is set; a later need under the same guards or more reuses it.
        self.emitted: dict[Key, frozenset[str]] = {}
        self.guards: tuple[str, ...] = ()
        self.temporaries = 0
        self.inputs_used: set[str] = set()

    # ---- names ---------------------------------------------------------------------------
    @staticmethod
    def variable(key: Key) -> str:
        """Returns the local variable holding a definition's value for these arguments."""
        name, args = key
        if not args:
            return _identifier(f"d_{name}")
        return _identifier(f"d_{name}__" + "__".join(_arg_name(a) for a in args))

    def constant(self, value: object) -> str:
        """Returns the name of a module-level constant holding `value`."""
        name = f"_k{len(self.constants)}"
        self.constants[name] = value
        return name

    # ---- expressions ---------------------------------------------------------------------
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

    def expr(self, expr: ast.Expr, bound: Mapping[str, Value]) -> str:
        """Returns Python source computing `expr`, emitting the definitions it needs first."""
        statute = self.statute
        if isinstance(expr, ast.Literal):
            value = expr.value
            if isinstance(value, bool):
                return repr(value)
            if expr.unit == "money":
                value = value * CENTS
            if value.denominator == 1:
                return repr(value.numerator)
            return self.constant(value)
        if isinstance(expr, ast.Ref):
            name = expr.name
            if name in bound:
                return _literal(bound[name])
            if name in statute.inputs:
                self.inputs_used.add(name)
                if statute.inputs[name].optional:
                    return f"(i_{name} if i_{name} is not None else _missing())"
                return f"i_{name}"
            if name in statute.definitions:
                return self.need((name, ()))
            return _literal(name)  # an enum member
        if isinstance(expr, ast.Call):
            if expr.name in ("min", "max"):
                args = ", ".join(self.expr(a, bound) for a in expr.args)
                return f"{expr.name}({args})"
            if expr.name == "floor":
                (only,) = expr.args
                if self.is_money(only):
                    raise Unsupported("floor of an amount of money")
                return f"(({self.expr(only, bound)}) // 1)"
            return self.need(self.key_of_call(expr, bound))
        if isinstance(expr, ast.BinOp):
            left, right = self.expr(expr.left, bound), self.expr(expr.right, bound)
            # Money is held in cents: a product or quotient must keep one scale of cents.
            if expr.op == "*" and self.is_money(expr.left) and self.is_money(expr.right):
                raise Unsupported("money times money")
            if expr.op == "/" and self.is_money(expr.right) and not self.is_money(expr.left):
                raise Unsupported("a number divided by money")
            if expr.op == "/":
                factor = _scaled_fraction(expr.right) or _whole_literal(expr.right)
                if factor is not None and factor > 0:
                    # x / (p/q) is x * q/p: exact, and no Fraction when x * q divides by p.
                    return f"_times({left}, {factor.denominator}, {factor.numerator})"
                return f"_divide({left}, {right})"
            if expr.op == "*" and _is_one(expr.left):
                return right
            if expr.op == "*" and _is_one(expr.right):
                return left
            if expr.op == "*":
                for literal, other in ((expr.left, right), (expr.right, left)):
                    factor = _scaled_fraction(literal)
                    if factor is not None:
                        return f"_times({other}, {factor.numerator}, {factor.denominator})"
                if _whole_literal(expr.left) is not None or _whole_literal(expr.right) is not None:
                    return f"({left} * {right})"  # an integer times a whole stays an integer
                if self.is_count(expr.left) or self.is_count(expr.right):
                    # A count times an amount: whole amounts stay integers without a check,
                    # and a fraction of a cent stays exact as a Fraction.
                    return f"({left} * {right})"
                return f"_product({left}, {right})"
            return f"({left} {expr.op} {right})"
        if isinstance(expr, ast.Compare):
            op = _COMPARE[expr.op]
            constant = _fraction_literal(expr.right)
            money_literal = isinstance(expr.right, ast.Literal) and expr.right.unit == "money"
            if constant is not None and money_literal:
                constant = constant * CENTS
            if constant is not None and constant.denominator != 1:
                # x >= p/q as x.num * q >= p * x.den: integers only, for an int or a Fraction
                # x alike (an int's numerator is itself, its denominator 1).
                variable = self.temporary(self.expr(expr.left, bound))
                return (
                    f"({variable}.numerator * {constant.denominator} {op} "
                    f"{constant.numerator} * {variable}.denominator)"
                )
            left, right = self.expr(expr.left, bound), self.expr(expr.right, bound)
            return f"({left} {op} {right})"
        if isinstance(expr, ast.BoolOp):
            # A side known before the scenario (a parameter, a reading) decides statically;
            # the right side is then not even emitted, as the reference would not evaluate it.
            left = self.expr(expr.left, bound)
            decided = {("and", "False"): "False", ("or", "True"): "True"}
            decided[("implies", "False")] = "True"
            if (expr.op, left) in decided:
                return decided[(expr.op, left)]
            right = self.expr(expr.right, bound)
            if (expr.op, left) in (("and", "True"), ("or", "False"), ("implies", "True")):
                return right
            if _IDENTIFIER.fullmatch(left) and right in ("True", "False"):
                # The left side is a value already computed (nothing left to raise).
                return {
                    ("and", "True"): left,
                    ("and", "False"): "False",
                    ("or", "True"): "True",
                    ("or", "False"): left,
                    ("implies", "True"): "True",
                    ("implies", "False"): f"(not {left})",
                }[(expr.op, right)]
            if expr.op == "implies":
                return f"(not {left} or {right})"
            return f"({left} {expr.op} {right})"
        if isinstance(expr, ast.Not):
            operand = self.expr(expr.operand, bound)
            if operand in ("True", "False"):
                return "False" if operand == "True" else "True"
            return f"(not {operand})"
        if isinstance(expr, ast.Neg):
            return f"(-{self.expr(expr.operand, bound)})"
        if isinstance(expr, ast.If):
            condition = self.expr(expr.condition, bound)
            if condition in ("True", "False"):
                return self.expr(expr.then if condition == "True" else expr.otherwise, bound)
            then = self.expr(expr.then, bound)
            otherwise = self.expr(expr.otherwise, bound)
            return f"({then} if {condition} else {otherwise})"
        if isinstance(expr, ast.Given):
            self.inputs_used.add(expr.name)
            return f"(i_{expr.name} is not None)"
        if isinstance(expr, ast.ReadingTest):
            return repr(self.readings[expr.reading] == expr.option)
        if isinstance(expr, ast.BonusSum):
            terms = [
                self.need((b.name, tuple(bound[p.name] for p in b.params))) for b in statute.bonuses
            ]
            return "(" + " + ".join(terms or ["0"]) + ")"
        raise Unsupported(f"expression {expr!r}")

    def temporary(self, source: str) -> str:
        """Returns `source` when it is a plain name, else a local variable holding it (emitted
        now, so computed before the expression it serves)."""
        if _IDENTIFIER.fullmatch(source):
            return source
        self.temporaries += 1
        name = f"t_{self.temporaries}"
        self.emit(f"{name} = {source}")
        return name

    def emit(self, line: str) -> None:
        """Appends a line of the function's body inside the current guards."""
        self.lines.append("    " * len(self.guards) + line)

    @contextmanager
    def guard(self, condition: str) -> Iterator[None]:
        """Emits what is needed inside an `if condition:` block: definitions only one branch
        needs are computed only when that branch is taken (as the reference evaluator computes
        on demand). `condition` is a name or `not name`, fixed once set."""
        self.emit(f"if {condition}:")
        start = len(self.lines)
        self.guards = (*self.guards, condition)
        try:
            yield
        finally:
            self.guards = self.guards[:-1]
            if len(self.lines) == start:
                self.lines.pop()  # nothing to guard

    def is_count(self, expr: ast.Expr) -> bool:
        """True for a whole-number count: a count input or rule, or arithmetic on counts."""
        statute = self.statute
        if isinstance(expr, ast.Ref):
            declared = statute.inputs.get(expr.name) or statute.definitions.get(expr.name)
            return declared is not None and declared.type.kind == "count"
        if isinstance(expr, ast.BinOp) and expr.op in ("+", "-", "*"):
            return self.is_count(expr.left) and self.is_count(expr.right)
        return False

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
            if expr.op in ("+", "-"):
                return self.is_money(expr.left) or self.is_money(expr.right)
            if expr.op == "*":
                return self.is_money(expr.left) or self.is_money(expr.right)
            return self.is_money(expr.left) and not self.is_money(expr.right)
        if isinstance(expr, ast.Neg):
            return self.is_money(expr.operand)
        if isinstance(expr, ast.If):
            return self.is_money(expr.then) or self.is_money(expr.otherwise)
        return isinstance(expr, ast.BonusSum)

    # ---- definitions ---------------------------------------------------------------------
    def need(self, key: Key) -> str:
        """Returns the variable of a definition, emitting its computation unless it is already
        set under the current guards."""
        variable = self.variable(key)
        guards = frozenset(self.guards)
        found = self.emitted.get(key)
        if found is not None and found <= guards:
            return variable
        self.emitted[key] = guards
        name, args = key
        definition = self.statute.definitions[name]
        bound = dict(zip((p.name for p in definition.params), args, strict=True))
        if isinstance(definition, ast.Rule):
            self.rule(definition, bound, variable)
        else:
            self.cases(definition, bound, variable)
        return variable

    def rule(self, rule: ast.Rule, bound: Mapping[str, Value], variable: str) -> None:
        """Emits `variable = value`, or the zero of its type where its condition fails; what
        only the value (or only one branch of an `if`) needs is computed only when needed."""
        assert rule.expr is not None
        if rule.condition is not None:
            condition = self.temporary(self.expr(rule.condition, bound))
            if condition in ("True", "False"):  # decided by a parameter or a reading
                value = self.branch(rule.expr, bound) if condition == "True" else None
                self.emit(f"{variable} = {value or _zero(rule.type)}")
                return
            with self.guard(condition):
                value = self.branch(rule.expr, bound)
            self.emit(f"{variable} = ({value} if {condition} else {_zero(rule.type)})")
            return
        self.emit(f"{variable} = {self.branch(rule.expr, bound)}")

    def branch(self, expr: ast.Expr, bound: Mapping[str, Value]) -> str:
        """Returns the source of an expression; a top-level `if` computes what each branch
        needs inside that branch only."""
        if not isinstance(expr, ast.If):
            return self.expr(expr, bound)
        condition = self.temporary(self.expr(expr.condition, bound))
        if condition in ("True", "False"):
            return self.expr(expr.then if condition == "True" else expr.otherwise, bound)
        with self.guard(condition):
            then = self.expr(expr.then, bound)
        with self.guard(f"not {condition}"):
            otherwise = self.expr(expr.otherwise, bound)
        return f"({then} if {condition} else {otherwise})"

    def cases(self, cases: ast.Cases, bound: Mapping[str, Value], variable: str) -> None:
        """Emits a piecewise definition: its conditions, the exclusivity check of `exclusive`
        cases (two that hold defer to the reference evaluator), then the first case that
        holds, or `otherwise`; what a case's value needs is computed only under its
        condition."""
        conditions = []
        for index, case in enumerate(cases.cases):
            if case.condition is None:
                conditions.append("True")
                continue
            holds = f"{variable}_c{index}"
            self.emit(f"{holds} = {self.expr(case.condition, bound)}")
            conditions.append(holds)
        exclusive_by_form = _exclusive_by_form(
            [c.condition for c in cases.cases], self.statute, bound
        )
        if cases.order == "exclusive" and len(conditions) > 1 and not exclusive_by_form:
            self.emit(f"if ({' + '.join(conditions)}) > 1: raise Defer")
        branches = []
        for index, case in enumerate(cases.cases):
            if conditions[index] == "True":
                value = self.expr(case.expr, bound)
            else:
                with self.guard(conditions[index]):
                    value = self.expr(case.expr, bound)
            branches.append((conditions[index], value))
        otherwise = cases.otherwise
        chain = self.expr(otherwise, bound) if otherwise is not None else "_missing()"
        for condition, value in reversed(branches):
            chain = f"({value} if {condition} else {chain})"
        self.emit(f"{variable} = {chain}")

    # ---- the function --------------------------------------------------------------------
    def source(self) -> str:
        """Returns the module source defining `evaluate(inputs) -> {result: value}`."""
        results = []
        for name in self.statute.result_names:
            variable = self.need((name, ()))
            kind = self.statute.definitions[name].type.kind
            value = f"_dollars({variable})" if kind == "money" else variable
            results.append(f"{_identifier(name)!r}: {value}")
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
        for name in names:
            kind = self.statute.inputs[name].type.kind
            variable = _identifier("i_" + name)
            if kind == "money":
                # Whole cents: integer arithmetic, exact and fast.
                body.append(f"    {variable} = _cents({variable})")
            elif kind in ("number", "share"):
                body.append(f"    {variable} = _whole({variable})")
        body += [f"    {line}" for line in self.lines]
        body.append(f"    return {{{', '.join(results)}}}")
        return "def evaluate(inputs):\n" + "\n".join(body) + "\n"


def _identifier(text: str) -> str:
    """Returns `text` when it is a plain identifier. The grammar only admits such names; this
    keeps anything else out of generated source whatever the AST holds."""
    if not _IDENTIFIER.fullmatch(text):
        raise Unsupported(f"{text!r} is not a plain identifier")
    return text


def _literal(value: Value) -> str:
    """Returns the source of a parameter value or enum member (bools, plain identifiers)."""
    if isinstance(value, bool):
        return repr(value)
    if isinstance(value, str):
        return repr(_identifier(value))
    raise Unsupported(f"parameter value {value!r}")


def _arg_name(value: Value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value).replace("-", "_")


def _zero(type_: ast.Type) -> str:
    return "False" if type_.kind == "bool" else "0"


def _fraction_literal(expr: ast.Expr) -> Fraction | None:
    """Returns the value of a literal amount that is not whole, else None."""
    literal = isinstance(expr, ast.Literal) and not isinstance(expr.value, bool)
    if literal and expr.value.denominator != 1:  # type: ignore[attr-defined, union-attr]
        return expr.value  # type: ignore[attr-defined, return-value]
    return None


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


def _scaled_fraction(expr: ast.Expr) -> Fraction | None:
    """Returns a literal's value in the arithmetic's units (cents for money) when it is not
    whole, else None."""
    value = _fraction_literal(expr)
    if value is None:
        return None
    assert isinstance(expr, ast.Literal)
    scaled = value * CENTS if expr.unit == "money" else value
    return scaled if scaled.denominator != 1 else None


def _whole_literal(expr: ast.Expr) -> Fraction | None:
    """Returns a literal's value in the arithmetic's units when it is whole, else None."""
    if not isinstance(expr, ast.Literal) or isinstance(expr.value, bool):
        return None
    scaled = expr.value * CENTS if expr.unit == "money" else expr.value
    return Fraction(scaled) if scaled.denominator == 1 else None


def _is_one(expr: ast.Expr) -> bool:
    return isinstance(expr, ast.Literal) and not isinstance(expr.value, bool) and expr.value == 1


_CACHE: dict[tuple[int, tuple[str, ...]], tuple[ast.Statute, FastFunction | None]] = {}
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
    selection = tuple(readings[r] for r in tested_readings(statute))
    cache_key = (id(statute), selection)
    cached = _CACHE.get(cache_key)
    if cached is not None and cached[0] is statute:
        return cached[1]
    try:
        generator = Generator(statute, readings)
        source = generator.source()
    except Unsupported:
        function = None
    else:
        namespace: dict[str, object] = {
            "Defer": Defer,
            "_whole": _whole,
            "_divide": _divide,
            "_missing": _missing,
            "_cents": _cents,
            "_times": _times,
            "_product": _product,
            "_dollars": _dollars,
            **generator.constants,
        }
        digest = hashlib.sha256(source.encode()).hexdigest()[:12]
        code = compile(source, f"<lextrace fast path {digest}>", "exec")
        exec(code, namespace)
        function = namespace["evaluate"]  # type: ignore[assignment]
    _CACHE[cache_key] = (statute, function)
    return function


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
