"""The traced fast path: the generated function of `codegen.py`, recording the trace as well.

It computes the same values as the fast path, with the same integer arithmetic, and builds as
it goes the `Evaluation` the reference evaluator would have built with `tracing=True`: the same
steps in the same order (each after the steps it used), each with the same value, clause,
words, condition, case or exception, the inputs and definitions it used in the order it used
them, the readings it rests on, and the cases and exceptions that did not apply. So every
rendering of the trace (`Trace.to_json`, `explain`, the Markdown of the site) is the same
whichever evaluator computed it.

What the reference records, and where, decides what this generator emits:
- a use is recorded each time a definition or input is read inside a step, memo hits
  included (`Evaluation.get`, `Evaluation.input`); here, one `append` at each such place;
- a reading test is recorded in the step it is evaluated in; a rule's own readings, a case's
  and an exception's are added when the step is complete;
- the branch a definition took (which case, which exception, whether a rule's condition held)
  is kept in a local variable set inside that branch.

Like the fast path, it defers (raises) whenever the reference would report an error or the
arithmetic leaves what it takes, and then the caller runs the reference evaluator; an encoding
it does not translate (lists, dates) has no traced function at all. Table lookups of enum
cases are not used here: the reference evaluates each case's condition, and records the use.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction

from . import ast
from .codegen import (
    CENTS,
    Code,
    Generator,
    Key,
    Unsupported,
    _is_integer,
    exact_value,
    generated_function,
)
from .evaluator import INPUT, Evaluation, Program, Step
from .values import Value

TracedFunction = Callable[[Mapping[str, Value], Program, Mapping[str, str]], Evaluation]


@dataclass
class _Open:
    """A step being generated: the local variables of its uses, its tested readings and the
    branch it took."""

    key: Key
    uses: str
    readings: str
    case: str | None = None
    exception: str | None = None
    applied: str | None = None
    exceptions_held: tuple[str, ...] = ()


class TracingGenerator(Generator):
    """Writes the source of the traced function of one statute under one reading selection."""

    def __init__(self, statute: ast.Statute, readings: Mapping[str, str]) -> None:
        super().__init__(statute, readings)
        self.open: list[_Open] = []
        self.named: dict[object, str] = {}

    def key_constant(self, key: Key) -> str:
        """Returns the name of the constant holding a key (one name per key)."""
        return self.constant_for(("key", key), key)

    def constant_for(self, identity: object, value: object) -> str:
        """Returns the name of the constant holding `value`, one per `identity`."""
        name = self.named.get(identity)
        if name is None:
            name = self.named[identity] = self.constant(value)
        return name

    def used(self, key: Key) -> None:
        """Emits the record of a use in the step being computed (none at the top level)."""
        if self.open:
            self.emit(f"{self.open[-1].uses}.append({self.key_constant(key)})")

    # ---- what the reference records -------------------------------------------------------
    def input(self, name: str) -> Code:
        """Returns an input's code, recording its use."""
        self.used((INPUT, (name,)))
        return super().input(name)

    def expr(self, expr: ast.Expr, bound: Mapping[str, Value]) -> Code:
        """Returns the code of `expr`, recording what the reference records of it."""
        if isinstance(expr, ast.ReadingTest):
            reading = repr(expr.reading)
            if self.open:
                self.emit(f"{self.open[-1].readings}.add({reading})")
            self.emit(f"reading_uses.add({reading})")
        elif isinstance(expr, ast.Given):
            self.used((INPUT, (expr.name,)))
        elif isinstance(expr, ast.BonusSum):
            # Each bonus read in the encoding's order, as the reference sums them.
            total = Code("num", "0")
            for bonus in self.statute.bonuses:
                key = (bonus.name, tuple(bound[p.name] for p in bonus.params))
                total = self.sum(total, self.need(key), "+")
            return total
        return super().expr(expr, bound)

    def lookup(self, cases: ast.Cases, bound: Mapping[str, Value]) -> Code | None:
        """No table lookup: each case's condition is evaluated, as the reference does."""
        return None

    def chosen(self, kind: str, index: int) -> None:
        """Emits, inside the branch that chose it, which case or exception gave the value."""
        step = self.open[-1]
        if kind == "case":
            if step.case is None:
                step.case = f"wc_{self.temporary()}"
            self.emit(f"{step.case} = {index}")
        else:
            if step.exception is None:
                step.exception = f"we_{self.temporary()}"
            self.emit(f"{step.exception} = {index}")

    def rule_condition(self, condition: Code) -> Code:
        """Keeps a rule's condition in a variable: the step records whether it held."""
        step = self.open[-1]
        if condition.text in ("True", "False"):  # decided by a parameter or a reading
            step.applied = condition.text
            return condition
        step.applied = f"a_{self.temporary()}"
        self.emit(f"{step.applied} = bool({condition.text})")
        return Code("bool", step.applied)

    def exceptions_decided(self, held: list[Code]) -> None:
        """Keeps the codes of the exception conditions: the step lists those that failed."""
        self.open[-1].exceptions_held = tuple(code.text for code in held)

    # ---- steps ----------------------------------------------------------------------------
    def need(self, key: Key) -> Code:
        """Returns a definition's code, recording its use; where its value is computed, its
        step is built after it, as the reference completes a step after what it used."""
        self.used(key)
        found = self.emitted.get(key)
        if found is not None and found[0] <= frozenset(self.guards):
            return found[1]
        step = _Open(key, f"u_{self.temporary()}", f"r_{self.temporary()}")
        self.emit(f"{step.uses} = []")
        self.emit(f"{step.readings} = set()")
        self.open.append(step)
        try:
            code = super().need(key)
        finally:
            self.open.pop()
        self.complete(step, code)
        return code

    def complete(self, step: _Open, code: Code) -> None:
        """Emits the construction of a step from the branch it took, and its record."""
        name, _ = step.key
        definition = self.statute.definitions[name]
        key = self.key_constant(step.key)
        value = self.step_value(definition.type.kind, code)
        if step.exception is None and definition.exceptions:
            raise Unsupported("an exception chosen outside the generated branches")
        own = self.own_step(definition, step, key, value)
        if step.exception is None:
            self.emit(f"s = {own}")
        else:
            ordered = definition.exceptions_by_priority()
            table = self.constant_for(
                ("exceptions", name),
                tuple((e.clause, e.words, e.condition, frozenset(e.readings), e) for e in ordered),
            )
            exceptions = self.constant_for(("ordered", name), tuple(ordered))
            named = self.constant_for(("definition", name), definition)
            held = "".join(f"{text}, " for text in step.exceptions_held)
            self.emit(f"if {step.exception} < {len(ordered)}:")
            self.emit(f"    e = {table}[{step.exception}]")
            self.emit(
                f"    s = _Step({key}, {named}, {value}, e[0], e[1], True, e[2], None, "
                f"{step.uses}, {step.readings} | e[3], [], [], e[4], "
                f"[x for x, h in zip({exceptions}, ({held})) if not h])"
            )
            self.emit("else:")
            self.emit(f"    s = {own}")
            self.emit(f"    s.skipped_exceptions = list({exceptions})")
        self.emit(f"memo[{key}] = s.value")
        self.emit(f"steps[{key}] = s")

    def own_step(self, definition: ast.Rule | ast.Cases, step: _Open, key: str, value: str) -> str:
        """Returns the source of the step of a definition's own value (no exception applied)."""
        name = definition.name
        named = self.constant_for(("definition", name), definition)
        readings = self.constant_for(("readings", name), frozenset(definition.readings))
        if isinstance(definition, ast.Rule):
            condition = self.constant_for(("condition", name), definition.condition)
            applied = step.applied or "None"
            return (
                f"_Step({key}, {named}, {value}, {named}.clause, {named}.words, {applied}, "
                f"{condition}, None, {step.uses}, {step.readings} | {readings})"
            )
        if step.case is None:
            raise Unsupported("a case chosen outside the generated branches")
        table = self.constant_for(("cases", name), _case_table(definition))
        return (
            f"_case_step({key}, {named}, {value}, {table}[{step.case}], {step.uses}, "
            f"{step.readings} | {readings})"
        )

    def step_value(self, kind: str, code: Code) -> str:
        """Returns the source of a step's value as the reference holds it (a constant when the
        code is one)."""
        numeric = kind in ("money", "number", "share")
        if numeric and _is_integer(code.text) and _is_integer(code.den):
            scale = CENTS if kind == "money" else 1
            exact = Fraction(int(code.text.strip("()")), int(code.den) * scale)
            return self.constant(exact)
        return exact_value(kind, code)

    # ---- the function ---------------------------------------------------------------------
    def source(self) -> str:
        """Returns the module source defining `evaluate(inputs, program, readings)`, which
        returns the traced Evaluation."""
        for name in self.statute.result_names:
            self.need((name, ()))
        prelude = [
            "    evaluation = _Evaluation(program, inputs, readings, True)",
            "    memo, steps = evaluation.memo, evaluation.steps",
            "    reading_uses = evaluation.reading_uses",
        ]
        lines = self.body(["    return evaluation"])
        return "def evaluate(inputs, program, readings):\n" + "\n".join(prelude + lines) + "\n"


def _case_table(cases: ast.Cases) -> tuple[tuple[object, ...], ...]:
    """Returns, for each alternative of a piecewise definition (each case, then `otherwise`),
    what its step records: clause, words, condition, case, readings, and the cases skipped
    (first-match: those before it; exclusive: all the others, as at most one holds)."""
    entries: list[tuple[object, ...]] = []
    alternatives: list[ast.Case | None] = [*cases.cases, None]
    for index, case in enumerate(alternatives):
        if cases.order == "exclusive":
            skipped = tuple(c for c in cases.cases if c is not case)
        else:
            skipped = tuple(cases.cases[:index])
        if case is None:
            entries.append((cases.clause, cases.words, None, None, frozenset(), skipped))
        else:
            entries.append(
                (case.clause, case.words, case.condition, case, frozenset(case.readings), skipped)
            )
    return tuple(entries)


def _case_step(
    key: Key,
    cases: ast.Cases,
    value: Value,
    entry: tuple[object, ...],
    uses: list[Key],
    readings: set[str],
) -> Step:
    """Returns the step of a piecewise definition whose alternative `entry` gave the value."""
    clause, words, condition, case, own, skipped = entry
    return Step(
        key,
        cases,
        value,
        clause,  # type: ignore[arg-type]
        words,  # type: ignore[arg-type]
        None,
        condition,  # type: ignore[arg-type]
        case,  # type: ignore[arg-type]
        uses,
        readings | own,  # type: ignore[operator]
        list(skipped),  # type: ignore[call-overload]
    )


def traced_function(statute: ast.Statute, readings: Mapping[str, str]) -> TracedFunction | None:
    """Returns the generated traced function of a statute under a reading selection (None when
    the encoding uses something the generator does not translate), made once and kept."""
    function = generated_function(
        TracingGenerator,
        statute,
        readings,
        "traced path",
        {"_Step": Step, "_case_step": _case_step, "_Evaluation": Evaluation},
    )
    return function  # type: ignore[return-value]


def traced_source(statute: ast.Statute, readings: Mapping[str, str]) -> str:
    """Returns the source the traced path runs for a statute and reading selection."""
    return TracingGenerator(statute, readings).source()
