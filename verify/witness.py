"""Counterexamples made canonical and readable: the same violation, with plain values.

A Z3 model is one point of the violating set, and which one depends on the solver's luck (the
configuration and seed that answered first, and when). The point written is instead chosen
by a fixed procedure that asks only yes-or-no questions of the violating set, so that it is
the same on every run: the readings first, then every input in declaration order (the second
scenario's varied input last), each is fixed to the most readable value that still leaves a
violation:

- a reading: its default, else its other options in order;
- an optional input: left out; a bool: its default, else false; an enum: its default, else its
  members in declaration order;
- a count: its default, else the smallest that will do;
- money, numbers and shares: the default, else the smallest in size in whole units (dollars),
  else in hundredths (cents); an amount of 1,000 or more is then rounded up to whole thousands
  when that still violates.

A question is first put to the evaluator (the current witness with the one value changed: a
confirmed violation answers yes at once), then to Z3 under a deterministic resource limit, with
a fixed seed and no time limit that could decide it, so the answers do not depend on the
machine's load. The point found is re-run by the evaluator; if anything fails, None is returned
and the caller keeps the model it had.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import z3

from lextrace.dsl import ast
from lextrace.dsl.scenario import default_value

from .model import Model, Term, readings_of, without_derived
from .solve import check_counted

# Z3 work allowed to one question and to one counterexample in all (Z3's deterministic
# resource count, not a time: about a second per 250,000 on hard questions here), and the
# number of questions allowed to one counterexample; past either, values stay as found.
RLIMIT = 300_000
WORK = 1_500_000
QUESTIONS = 400
# A safety net only: far above what RLIMIT allows, so that it never decides an answer.
SAFETY_MS = 60_000

Confirm = Callable[[list[dict[str, object]], dict[str, str]], bool]


@dataclass(frozen=True)
class Slot:
    """One variable of the violation to fix: an input's value or `given` flag in one copy of
    the inputs, or a reading."""

    variable: Term
    copy: int
    name: str
    role: str  # "value", "given" or "reading"


@dataclass
class Minimised:
    """A canonical counterexample: one scenario per copy (exact values) and the readings."""

    scenarios: list[dict[str, object]]
    readings: dict[str, str]
    questions: int


class Minimiser:
    """Fixes the variables of one violation, one by one, to readable values."""

    def __init__(
        self, copies: list[Model], facts: list[Term], model: z3.ModelRef, confirm: Confirm
    ) -> None:
        self.copies = copies
        self.statute = copies[0].statute
        self.facts = facts
        self.confirm = confirm
        self.slots = self._slots()
        self.fixed: dict[int, Any] = {}
        self.witness = {
            s.variable.get_id(): _python(model.eval(s.variable, model_completion=True))
            for s in self.slots
        }
        self.questions = 0
        self.spent = 0  # Z3's resource units used by this counterexample's questions

    def _slots(self) -> list[Slot]:
        found: list[Slot] = []
        seen: set[int] = set()

        def add(slot: Slot) -> None:
            if slot.variable.get_id() not in seen:
                seen.add(slot.variable.get_id())
                found.append(slot)

        for reading_id, variable in self.copies[0].readings.items():
            add(Slot(variable, 0, reading_id, "reading"))
        for index, copy in enumerate(self.copies):
            for name in self.statute.inputs:
                if name in copy.given:
                    add(Slot(copy.given[name], index, name, "given"))
                add(Slot(copy.inputs[name], index, name, "value"))
        return found

    # ---- the scenarios a point stands for ---------------------------------------------------
    def scenarios(self, point: dict[int, Any]) -> tuple[list[dict[str, object]], dict[str, str]]:
        """Returns the scenarios (exact values) and readings of a point (variable id -> value)."""
        scenarios = []
        for copy in self.copies:
            scenario: dict[str, object] = {}
            for name, declared in self.statute.inputs.items():
                if name in copy.given and not point[copy.given[name].get_id()]:
                    continue
                value = point[copy.inputs[name].get_id()]
                if declared.type.kind == "enum":
                    value = declared.type.members[value]
                scenario[name] = value
            scenarios.append(without_derived(self.statute, scenario))
        readings = {
            rid: self.statute.readings[rid].options[point[variable.get_id()]].name
            for rid, variable in self.copies[0].readings.items()
        }
        return scenarios, readings_of(self.statute, scenarios, readings)

    def violates(self, point: dict[int, Any]) -> bool:
        """True when the evaluator confirms a violation at this point."""
        try:
            return self.confirm(*self.scenarios(point))
        except Exception:  # an invalid scenario or an evaluator failure: not a witness here
            return False

    # ---- questions --------------------------------------------------------------------------
    def feasible(self, slot: Slot, value: Any = None, extra: Term | None = None) -> bool:
        """True when some violation keeps every fixed value, and `slot` = `value` (or
        `extra`). The evaluator answers first; Z3 when it cannot say yes."""
        if value is not None and self.quick(slot, value):
            return True
        if self.questions >= QUESTIONS:
            return False
        self.questions += 1
        condition = extra if extra is not None else slot.variable == _term(slot.variable, value)
        allowed = min(RLIMIT, WORK - self.spent)
        if allowed <= 0:
            return False  # the work budget is spent: the remaining values stay as found
        solver = z3.SolverFor("QF_AUFNIRA")
        solver.set(rlimit=allowed, timeout=SAFETY_MS, random_seed=0)
        solver.add(*self.facts, *self._fixed_terms(), condition)
        answer, used = check_counted(solver)
        self.spent += used
        if answer != z3.sat:
            return False
        model = solver.model()
        found = {
            s.variable.get_id(): _python(model.eval(s.variable, model_completion=True))
            for s in self.slots
        }
        if self.violates(found):
            self.witness = found
        return True

    def _fixed_terms(self) -> list[Term]:
        by_id = {s.variable.get_id(): s.variable for s in self.slots}
        return [by_id[i] == _term(by_id[i], v) for i, v in self.fixed.items()]

    # ---- choosing values --------------------------------------------------------------------
    def run(self) -> Minimised | None:
        """Returns the canonical counterexample, confirmed by the evaluator, or None."""
        if any(v is None for v in self.witness.values()) or not self.violates(self.witness):
            return None  # the evaluator does not see this violation: nothing to minimise
        for slot in self.slots:
            if slot.variable.get_id() in self.fixed:
                continue
            chosen = self._choose(slot)
            self.fixed[slot.variable.get_id()] = chosen
        point = dict(self.fixed)
        if not self.violates(point):
            return None
        scenarios, readings = self.scenarios(point)
        return Minimised(scenarios, readings, self.questions)

    def _choose(self, slot: Slot) -> Any:
        current = self.witness[slot.variable.get_id()]
        if slot.role == "reading":
            reading = self.statute.readings[slot.name]
            return self._first(slot, range(len(reading.options)), current)
        if slot.role == "given":
            return self._first(slot, [False, True], current)
        declared = self.statute.inputs[slot.name]
        copy = self.copies[slot.copy]
        if declared.name in copy.given and not self.fixed.get(copy.given[declared.name].get_id()):
            return current  # left out: its value is never read
        kind = declared.type.kind
        default = _default(declared)
        if kind == "bool":
            order = [default] if default is not None else []
            return self._first(slot, [*order, False, True], current)
        if kind == "enum":
            members = list(range(len(declared.type.members)))
            order = [default] if default is not None else []
            return self._first(slot, [*order, *members], current)
        if default is not None and self.feasible(slot, default):
            return default
        if kind == "count":
            return self._smallest(slot, Fraction(1), current)
        for unit in (Fraction(1), Fraction(1, 100)):
            if self.feasible(slot, extra=_multiple(slot.variable, unit)):
                value = self._smallest(slot, unit, current)
                if abs(value) >= 1000:
                    rounded = _round_up(value, Fraction(1000))
                    if rounded != value and self.feasible(slot, rounded):
                        return rounded
                return value
        return current

    def _first(self, slot: Slot, candidates: Any, current: Any) -> Any:
        tried = []
        for candidate in candidates:
            if candidate in tried:
                continue
            tried.append(candidate)
            if self.feasible(slot, candidate):
                return candidate
        return current

    def _smallest(self, slot: Slot, unit: Fraction, current: Any) -> Any:
        """Returns the value of least size, a whole multiple of `unit`, that keeps a violation
        (positive before negative). The witness only bounds the search: the answer is the
        least size for which Z3 finds a violation, whatever the witness."""
        variable = slot.variable

        def value_of(steps: int) -> Any:
            value = unit * steps
            return int(value) if z3.is_int(variable) else value

        def within(steps: int) -> bool:
            """True when some violation has |value| <= steps * unit."""
            if self.quick(slot, value_of(steps)):
                return True
            if steps == 0:
                return self.feasible(slot, value_of(0))
            bound = _number(unit * steps)
            size = z3.And(variable <= bound, variable >= -bound)
            return self.feasible(slot, extra=z3.And(_multiple(variable, unit), size))

        if within(0):
            return value_of(0)
        witness = self.witness[variable.get_id()]
        high = max(1, int(-(-abs(Fraction(witness)) // unit))) if witness is not None else 1
        while not within(high):
            if self.questions >= QUESTIONS or high >= 2**62:
                return current
            high *= 16
        low = 0  # within(low) is false, within(high) true
        while high - low > 1:
            middle = (low + high) // 2
            if within(middle):
                high = middle
            else:
                low = middle
        for steps in (high, -high):
            if self.feasible(slot, value_of(steps)):
                return value_of(steps)
        return current

    def quick(self, slot: Slot, value: Any) -> bool:
        """True when the witness with `slot` = `value` is a violation the evaluator confirms
        (the witness is then that point)."""
        point = {**self.witness, **self.fixed, slot.variable.get_id(): value}
        if self.violates(point):
            self.witness = point
            return True
        return False


def minimise(
    copies: list[Model], facts: list[Term], model: z3.ModelRef, confirm: Confirm
) -> Minimised | None:
    """Returns the canonical, readable counterexample of a violation (`facts`, of which
    `model` is one solution) confirmed by `confirm`, or None when it cannot be found (always
    when the violation gives a list, whose elements the minimiser does not fix: the model's
    own point is then written)."""
    for copy in copies:
        for name in copy.lists:
            given = copy.given.get(name)
            if given is None or z3.is_true(model.eval(given, model_completion=True)):
                return None
    return Minimiser(copies, facts, model, confirm).run()


def _default(declared: ast.Input) -> Any:
    """Returns an input's declared default as a point value (an enum as its index)."""
    if declared.default is None:
        return None
    value = default_value(declared)
    if declared.type.kind == "enum":
        return declared.type.members.index(value)
    if declared.type.kind == "count":
        return int(value)  # type: ignore[arg-type]
    return value


def _python(value: Term) -> Any:
    if z3.is_true(value):
        return True
    if z3.is_false(value):
        return False
    if z3.is_int_value(value):
        return value.as_long()
    if z3.is_rational_value(value):
        return Fraction(value.as_fraction())
    return None  # an algebraic number: not a value a scenario can state


def _number(value: Fraction) -> Term:
    return z3.RealVal(f"{value.numerator}/{value.denominator}")


def _term(variable: Term, value: Any) -> Term:
    if z3.is_bool(variable):
        return z3.BoolVal(bool(value))
    if z3.is_int(variable):
        return z3.IntVal(int(value))
    return _number(Fraction(value))


def _multiple(variable: Term, unit: Fraction) -> Term:
    if z3.is_int(variable):
        return (
            z3.BoolVal(True)
            if unit.denominator == 1 and unit.numerator == 1
            else z3.IsInt(z3.ToReal(variable) / _number(unit))
        )
    return z3.IsInt(variable / _number(unit))


def _round_up(value: Fraction, unit: Fraction) -> Fraction:
    steps = -(-abs(value) // unit)
    return (steps * unit) * (1 if value >= 0 else -1)
