"""The proof model: the same AST the evaluator runs, translated to Z3 terms.

Inputs become Z3 variables constrained by their declarations (type, bounds, requirements);
readings with alternatives become variables ranging over their options, so a proof covers every
selectable reading. Money, numbers and shares are exact reals; counts and enum members are
integers; `floor` is Z3's `ToInt`. While translating, the model collects the obligations that
make the encoding well defined: no division by zero and no use of a value that is not given,
each under the conditions in which the evaluator would reach it.
"""

from __future__ import annotations

import datetime
import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

import z3

from lextrace.dsl import ast, dates
from lextrace.dsl.ast import param_values
from lextrace.dsl.checker import reachable_definitions, walk
from lextrace.dsl.values import Value

from .terms import all_of

Term = Any  # a z3 expression


@dataclass(frozen=True)
class Obligation:
    """A condition that must never hold for a valid scenario (a division by zero, a missing
    value used), located at the expression that would fail."""

    kind: str
    description: str
    span: ast.Span
    clause: ast.Clause
    violation: Term
    # The definition instance whose rule holds the expression (None: an invariant's own).
    instance: tuple[str, tuple[Value, ...]] | None = None


# A definition instance: its name and the constant values of its parameters.
Key = tuple[str, tuple[Value, ...]]

# Lists are modelled with a symbolic length of at most this many elements: a check that rests on
# a list is proved for such lists only, and reported BOUNDED, never PROVED (verify/checks.py).
LIST_BOUND = 4


@dataclass
class ListTerms:
    """A list input in the model: its length (at most the model's bound) and, for each
    possible element, a term per field (text fields, which only name elements, have none)."""

    length: Term
    elements: list[dict[str, Term]]


# A duration is a pair of integers, months and days (dsl/dates.py); a date is an integer, its
# day number (0001-01-01 is day 1), so `date + 30 days` is exact linear arithmetic.
_DURATION = z3.Datatype("Duration")
_DURATION.declare("duration", ("months", z3.IntSort()), ("days", z3.IntSort()))
DURATION = _DURATION.create()
_BEFORE_MONTH = (0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334)


def duration_term(months: Term | int, days: Term | int) -> Term:
    """Returns the Z3 duration of `months` and `days`."""
    return DURATION.duration(months, days)


def _leap(year: Term) -> Term:
    return all_of(year % 4 == 0, z3.Or(year % 100 != 0, year % 400 == 0))


def month_length(year: Term, month: Term) -> Term:
    """Returns the number of days of a month (1-12) of a year, exactly (leap years too)."""
    return z3.If(
        month == 2,
        z3.If(_leap(year), 29, 28),
        z3.If(z3.Or(month == 4, month == 6, month == 9, month == 11), 30, 31),
    )


def day_number(year: Term, month: Term, day: Term) -> Term:
    """Returns the day number of a year, month and day (Python's `date.toordinal`)."""
    before = year - 1
    result: Term = z3.IntVal(_BEFORE_MONTH[11])
    for index in range(10, -1, -1):
        result = z3.If(month == index + 1, _BEFORE_MONTH[index], result)
    leap_day = z3.If(all_of(month > 2, _leap(year)), 1, 0)
    return before * 365 + before / 4 - before / 100 + before / 400 + result + leap_day + day


def in_calendar(day: Term) -> Term:
    """Returns the condition that a day number is a date from 0001-01-01 to 9999-12-31."""
    return all_of(day >= dates.FIRST, day <= dates.LAST)


def _number(value: Fraction | int) -> Term:
    value = Fraction(value)
    return z3.RealVal(f"{value.numerator}/{value.denominator}")


@dataclass
class Shared:
    """Terms a model takes instead of declaring its own variables, so that two different
    statutes are compared over the same facts (`verify/diff.py`): the value of an input, its
    `given` flag, or the option index of a reading, each already in this statute's own encoding
    (enum member and option indices). The model still adds its own constraints on them."""

    inputs: dict[str, Term] = field(default_factory=dict)
    given: dict[str, Term] = field(default_factory=dict)
    readings: dict[str, Term] = field(default_factory=dict)
    # List inputs whose element variables are named without the model's tag, so that both
    # models of a comparison hold the same elements (their records declare the same fields).
    lists: set[str] = field(default_factory=set)


def none_holds(conditions: list[Term]) -> Term:
    """Returns "none of the conditions holds": when an `otherwise` case applies."""
    return all_of(*[z3.Not(c) for c in conditions]) if conditions else z3.BoolVal(True)


class Model:
    """The Z3 translation of a statute for one copy of the inputs (`tag` names the copy)."""

    def __init__(
        self,
        statute: ast.Statute,
        tag: str = "",
        collect: bool = True,
        base: Model | None = None,
        vary: str | None = None,
        shared: Shared | None = None,
        list_bound: int = LIST_BOUND,
        evaluate_results: bool = True,
        calendar_of: Model | None = None,
    ) -> None:
        """With `base` and `vary`, the copy shares every variable of `base` but `vary`'s (for
        relational properties: identical subterms stay identical for the solver). With
        `shared`, the inputs and readings it names take its terms (see `Shared`). A list input
        has at most `list_bound` elements. With `evaluate_results` (the default), the results
        and every definition no result uses are translated first, and each obligation is asked
        where the evaluator computes it. With `calendar_of`, a date shared with that model is
        decomposed into the same year, month and day (both then compute `date + 1 year` from
        the same integers)."""
        self.statute = statute
        self.list_bound = list_bound
        self.lists: dict[str, ListTerms] = {}
        # The definitions a scenario's evaluation computes (when their guards hold): an empty
        # minimum, maximum or median there refuses the scenario.
        self.evaluated = reachable_definitions(statute, statute.result_names)
        # The rules deriving inputs (`derived by RULE when CONDITION`), each with the conditions
        # under which a scenario derives its inputs; and the definitions only they use. Those
        # are computed when a scenario derives an input, so their obligations hold there (see
        # `demand`), not wherever their own rules could fail.
        self.derivations: dict[str, list[ast.Expr]] = {}
        for declared in statute.inputs.values():
            if declared.derived_by is not None:
                rule, condition = declared.derived_by.rule, declared.derived_by.condition
                self.derivations.setdefault(rule, []).append(condition)
        self.deriving = reachable_definitions(statute, list(self.derivations)) - self.evaluated
        self._derivations_translated = False
        self._links: dict[str, Term] | None = None
        # Per definition only rules deriving inputs use: when its minimum, maximum or median
        # has an element to take (else the evaluator refuses a scenario deriving the input).
        self.refusals: dict[str, list[Term]] = {}
        self._derivable: Term | None = None
        self.shared = shared
        self.base = base
        self.vary = vary
        self.tag = tag
        self.collect = collect
        self.inputs: dict[str, Term] = {}
        self.given: dict[str, Term] = {}
        self.readings: dict[str, Term] = {}
        self.constraints: list[Term] = []
        # Each input's constraints (its type, bounds, requirement), in `constraints` too; for
        # a list, its elements' (each present element's field types and bounds) apart.
        self.input_facts: dict[str, list[Term]] = {}
        self.element_facts: dict[str, list[Term]] = {}
        self.obligations: list[Obligation] = []
        self.memo: dict[tuple[str, tuple[Value, ...]], Term] = {}
        # For each definition with exceptions and its arguments, each exception (the highest
        # priority first) with the term of its condition: the checks of verify/checks.py.
        self.exception_conditions: dict[
            tuple[str, tuple[Value, ...]], list[tuple[ast.ExceptionRule, Term]]
        ] = {}
        self.clauses: list[ast.Clause] = [statute.sections[0]]
        # Which definition instances and inputs each definition instance uses directly.
        self.building: list[tuple[str, tuple[Value, ...]]] = []
        self.uses: dict[tuple[str, tuple[Value, ...]], set[tuple[str, tuple[Value, ...]]]] = {}
        self.input_uses: dict[tuple[str, tuple[Value, ...]], set[str]] = {}
        # The types of the names bound where an expression is translated (an aggregate's
        # fields), and the year, month and day of each date term decomposed so far.
        self.scope: dict[str, ast.Type] = {}
        self.civil: dict[int, tuple[Term, Term, Term]] = {}
        self.civil_days: dict[int, Term] = {}
        if calendar_of is not None:
            self.civil, self.civil_days = calendar_of.civil, calendar_of.civil_days
        # Fresh variables are numbered within the family of models that may meet in one
        # formula (a copy and its base, two sides of a diff), not by Z3's process-wide counter:
        # their names steer Z3's heuristics, so a name that depended on what the process made
        # before would make an answer depend on it too (seen: 0.6 s of work or 3.4 s).
        related = base or calendar_of
        self.fresh_numbers: itertools.count[int] = (
            related.fresh_numbers if related is not None else itertools.count()
        )
        self.member_index = {
            member: index
            for type_ in statute.declared_types
            for index, member in enumerate(type_.members)
        }
        # Where each definition instance is used while a result is evaluated: the instance
        # using it and when that use is computed. A definition's obligations hold where it is
        # demanded (`demand`), not wherever its own rule could fail.
        self.sites: dict[Key, list[tuple[Key, Term]]] = {}
        self._pending_obligations: list[tuple[Key | None, Obligation]] = []
        self._pending_constraints: list[tuple[Key, Term]] = []
        self._demand: dict[Key, Term] | None = None
        self._declare_inputs()
        self._declare_readings()
        if evaluate_results:
            self._evaluate_results()

    # ---- variables ------------------------------------------------------------------------
    def _name(self, name: str) -> str:
        return f"{name}{self.tag}"

    def new_variable(self, sort: z3.SortRef, prefix: str) -> Term:
        """Returns a new variable of `sort`, its name unique within this family of models
        (`!` is in no declared name) and the same in every process that builds the same
        models in the same order."""
        return z3.Const(f"{prefix}{self.tag}!{next(self.fresh_numbers)}", sort)

    def _declare_inputs(self) -> None:
        for declared in self.statute.inputs.values():
            if self.base is not None and declared.name != self.vary:
                self.inputs[declared.name] = self.base.inputs[declared.name]
                if declared.name in self.base.given:
                    self.given[declared.name] = self.base.given[declared.name]
                continue
            if self.shared is not None and declared.name in self.shared.inputs:
                self.inputs[declared.name] = self.shared.inputs[declared.name]
                if declared.name in self.shared.given:
                    self.given[declared.name] = self.shared.given[declared.name]
                continue
            kind = declared.type.kind
            if kind == "bool":
                variable = z3.Bool(self._name(declared.name))
            elif kind in ("count", "enum", "list", "date"):  # a list: its length
                variable = z3.Int(self._name(declared.name))
            else:
                variable = z3.Real(self._name(declared.name))
            self.inputs[declared.name] = variable
            if declared.optional:
                self.given[declared.name] = z3.Bool(self._name(f"{declared.name}__given"))
        for declared in self.statute.inputs.values():
            if declared.type.kind == "list":
                self._declare_list(declared)
        for declared in self.statute.inputs.values():
            if self.base is not None and not self._reads_vary(declared):
                # The same variables under the same declaration: the base's very terms.
                facts = self.base.input_facts[declared.name]
            else:
                facts = self._input_constraints(declared)
            self.input_facts[declared.name] = facts
            self.constraints.extend(facts)

    def _reads_vary(self, declared: ast.Input) -> bool:
        """Whether the declaration of an input may speak of what this copy has of its own: it
        is the input this copy varies, or its bounds or its requirement name that input, or
        name a rule (which may read it, or which this copy gives another term)."""
        expressions = [
            *(b.value for b in declared.bounds),
            *(b.when for b in declared.bounds),
            declared.required_when,
        ]
        definitions = self.statute.definitions
        return declared.name == self.vary or any(
            (isinstance(node, ast.Ref) and node.name == self.vary)
            or (isinstance(node, ast.Ref | ast.Call) and node.name in definitions)
            or isinstance(node, ast.BonusSum)
            for expr in expressions
            for node in walk(expr)
        )

    def _declare_list(self, declared: ast.Input) -> None:
        """Declares a list input's element terms (shared with `base` unless it is `vary`) and
        constrains each element that is present by its record's types and bounds."""
        name = declared.name
        if self.base is not None and name != self.vary and name in self.base.lists:
            self.lists[name] = self.base.lists[name]
            self.element_facts[name] = self.base.element_facts[name]
            return
        record = self.statute.records[declared.type.record]
        length = self.inputs[name]
        shared = self.shared is not None and name in self.shared.lists
        tagged = (lambda variable: variable) if shared else self._name
        elements: list[dict[str, Term]] = []
        element_facts: list[Term] = []
        for index in range(self.list_bound):
            element: dict[str, Term] = {}
            for declared_field in record.fields.values():
                variable = f"{name}__{index}__{declared_field.name}"
                kind = declared_field.type.kind
                if kind == "text":
                    continue
                if kind == "bool":
                    term = z3.Bool(tagged(variable))
                elif kind in ("count", "enum", "date"):
                    term = z3.Int(tagged(variable))
                else:
                    term = z3.Real(tagged(variable))
                element[declared_field.name] = term
                facts = self._type_facts(declared_field.type, term)
                for bound in declared_field.bounds:
                    limit = self.expr(bound.value, {}, z3.BoolVal(True), record=False)
                    facts.append(
                        {"min": term >= limit, "above": term > limit, "max": term <= limit}[
                            bound.kind
                        ]
                    )
                element_facts.extend(z3.Implies(index < length, fact) for fact in facts)
            elements.append(element)
        self.constraints.extend(element_facts)
        self.element_facts[name] = element_facts
        self.lists[name] = ListTerms(length, elements)

    def record_requirements(self, name: str) -> list[Term]:
        """Returns what the record of the list input `name` `requires` of each present
        element, as the evaluator refuses an element that breaks it (`verify/diff.py`'s scope
        comparison). Not in `constraints`: a proof over more elements than the evaluator
        accepts still holds, and with them Z3 takes several times longer over every check of
        the bundled statute."""
        declared = self.statute.inputs[name]
        record = self.statute.records[declared.type.record]
        terms = self.lists[name]
        return [
            z3.Implies(index < terms.length, condition)
            for index, element in enumerate(terms.elements)
            for condition in self._requirements(record, element)
        ]

    def _requirements(self, record: ast.Record, element: dict[str, Term]) -> list[Term]:
        """Returns the terms of a record's `requires` conditions for one element (a condition
        naming a text field, which the model does not hold, is left out: the model then
        admits more elements, not fewer)."""
        terms = []
        outer = self.scope
        self.scope = {**outer, **{f.name: f.type for f in record.fields.values()}}
        try:
            for requirement in record.requirements:
                names = {n.name for n in walk(requirement.condition) if isinstance(n, ast.Ref)}
                if any(record.fields[n].type.kind == "text" for n in names if n in record.fields):
                    continue
                terms.append(
                    self.expr(requirement.condition, element, z3.BoolVal(True), record=False)
                )
        finally:
            self.scope = outer
        return terms

    @staticmethod
    def _type_facts(type_: ast.Type, variable: Term) -> list[Term]:
        """Returns what a value's type alone says of it (a count is not negative...)."""
        if type_.kind == "count":
            return [variable >= 0]
        if type_.kind == "enum":
            return [all_of(variable >= 0, variable < len(type_.members))]
        if type_.kind == "share":
            return [all_of(variable >= 0, variable <= 1)]
        if type_.kind == "date":
            return [in_calendar(variable)]
        return []

    def _input_constraints(self, declared: ast.Input) -> list[Term]:
        variable = self.inputs[declared.name]
        kind = declared.type.kind
        facts: list[Term] = []
        if kind == "list":
            facts.append(all_of(variable >= 0, variable <= self.list_bound))
        if kind == "count":
            facts.append(variable >= 0)
        elif kind == "enum":
            facts.append(all_of(variable >= 0, variable < len(declared.type.members)))
        elif kind == "share":
            facts.append(all_of(variable >= 0, variable <= 1))
        elif kind == "date":
            facts.append(in_calendar(variable))
        facts.extend(self.bound_facts(declared, variable))
        given = self.given.get(declared.name)
        if given is not None:
            # Bounds and types speak of a given value only.
            facts = [z3.Implies(given, fact) for fact in facts]
            if declared.required_when is not None:
                condition = self.expr(declared.required_when, {}, z3.BoolVal(True), record=False)
                facts.append(z3.Implies(condition, given))
        return facts

    def bound_facts(self, declared: ast.Input, value: Term) -> list[Term]:
        """Returns the facts that `value` keeps the bounds an input declares (`min`, `above`,
        `max`, each under its `when`): of the input's own variable, or of the rule that
        derives it."""
        facts = []
        for bound in declared.bounds:
            limit = self.expr(bound.value, {}, z3.BoolVal(True), record=False)
            relation = {
                "min": value >= limit,
                "above": value > limit,
                "max": value <= limit,
            }[bound.kind]
            if bound.when is not None:
                relation = z3.Implies(
                    self.expr(bound.when, {}, z3.BoolVal(True), record=False), relation
                )
            facts.append(relation)
        return facts

    def _declare_readings(self) -> None:
        if self.base is not None:
            self.readings = self.base.readings
            return
        shared = self.shared.readings if self.shared is not None else {}
        for reading in self.statute.readings.values():
            if reading.id in shared:
                variable = shared[reading.id]
                self.readings[reading.id] = variable
                self.constraints.append(all_of(variable >= 0, variable < len(reading.options)))
            elif reading.alternatives:
                variable = z3.Int(f"reading_{reading.id}")  # shared by every copy
                self.readings[reading.id] = variable
                self.constraints.append(all_of(variable >= 0, variable < len(reading.options)))

    # ---- demand: where the evaluator computes a definition ---------------------------------
    def _evaluate_results(self) -> None:
        """Translates what an evaluation computes (the results, and through them what they
        use, each use with its guard), then every definition no result uses (checked on its
        own), and fixes where each is demanded."""
        statute = self.statute
        for name in statute.result_names:
            self.term(name)
        for name, definition in statute.definitions.items():
            if name in self.evaluated or name in self.deriving:
                continue
            for args in param_values(definition.params):
                self.term(name, args)
        self._seal()

    def _seal(self) -> None:
        self._demand = {}
        self.obligations.extend(
            replace(obligation, violation=_both(self.demand(key), obligation.violation))
            for key, obligation in self._pending_obligations
        )
        self.constraints.extend(
            z3.Implies(self.demand(key), constraint)
            for key, constraint in self._pending_constraints
        )
        self._pending_obligations.clear()
        self._pending_constraints.clear()

    def _demanded(self, key: Key, demand: dict[Key, Term]) -> Term:
        if key not in demand:
            name = key[0]
            if name in self.statute.result_names or (
                name not in self.evaluated and name not in self.deriving
            ):
                demand[key] = z3.BoolVal(True)
            else:
                # The use graph is acyclic (the checker refuses a cycle).
                uses = [
                    _both(self._demanded(user, demand), guard)
                    for user, guard in self.sites.get(key, [])
                ]
                uses += [self._holds(condition) for condition in self.derivations.get(name, [])]
                if any(z3.is_true(use) for use in uses):
                    demand[key] = z3.BoolVal(True)
                else:
                    demand[key] = z3.Or(*uses) if uses else z3.BoolVal(False)
        return demand[key]

    def demand(self, key: Key) -> Term:
        """Returns when the evaluation of a scenario computes the definition instance `key`:
        true for a result and for a definition neither a result nor a rule deriving an input
        uses (it is checked on its own); for the others, the disjunction of the uses that
        compute it, and for a rule deriving an input, of the conditions under which a scenario
        derives it. An instance first translated after the results (by an invariant) and used
        by none of those is never computed by an evaluation."""
        if self._demand is None:
            return z3.BoolVal(True)
        return self._demanded(key, self._demand)

    # ---- definitions ----------------------------------------------------------------------
    def term(self, name: str, args: tuple[Value, ...] = (), guard: Term | None = None) -> Term:
        """Returns the Z3 term of a definition for constant arguments; `guard`, when given, is
        when the definition being translated computes this use."""
        key = (name, args)
        if name in self.deriving and not self._derivations_translated:
            self._translate_derivations()
        if self.building:
            self.uses[self.building[-1]].add(key)
            if guard is not None:
                self.sites.setdefault(key, []).append((self.building[-1], guard))
        if key not in self.memo:
            definition = self.statute.definitions[name]
            bound = {
                p.name: self.constant(value)
                for p, value in zip(definition.params, args, strict=True)
            }
            self.clauses.append(definition.clause)
            self.building.append(key)
            self.uses.setdefault(key, set())
            self.input_uses.setdefault(key, set())
            try:
                self.memo[key] = self._definition(definition, bound)
            finally:
                self.clauses.pop()
                self.building.pop()
        return self.memo[key]

    def _translate_derivations(self) -> None:
        """Translates every rule deriving an input, and so what it uses, each use with its
        guard: where a definition only they use is computed is then known (`demand`),
        whichever of them is asked for first."""
        self._derivations_translated = True
        building, self.building = self.building, []
        try:
            for rule in self.derivations:
                self.term(rule)
        finally:
            self.building = building

    def constant(self, value: Value) -> Term:
        """Returns the Z3 constant of a parameter value."""
        if isinstance(value, bool):
            return z3.BoolVal(value)
        if isinstance(value, str):
            return z3.IntVal(self.member_index[value])
        assert value is not None
        return _number(value)

    def _definition(self, definition: ast.Rule | ast.Cases, bound: Mapping[str, Term]) -> Term:
        if not definition.exceptions:
            return self._own(definition, bound, z3.BoolVal(True))
        # Every exception's condition is evaluated; the highest priority that holds gives the
        # value (a conflict of equal priorities is a check of its own); none, the definition's
        # own, reached only then.
        true = z3.BoolVal(True)
        conditions: list[tuple[ast.ExceptionRule, Term]] = []
        for exception in definition.exceptions_by_priority():
            self.clauses.append(exception.clause)
            conditions.append((exception, self.expr(exception.condition, bound, true)))
            self.clauses.pop()
        key = self.building[-1]
        self.exception_conditions[key] = conditions
        none_holds = all_of(*[z3.Not(c) for _, c in conditions])
        result = self._own(definition, bound, none_holds)
        for index in reversed(range(len(conditions))):
            exception, condition = conditions[index]
            higher = [z3.Not(c) for _, c in conditions[:index]]
            self.clauses.append(exception.clause)
            value = self.expr(exception.expr, bound, all_of(condition, *higher))
            self.clauses.pop()
            result = z3.If(condition, value, result)
        return result

    def _own(
        self, definition: ast.Rule | ast.Cases, bound: Mapping[str, Term], reached: Term
    ) -> Term:
        """Returns a definition's own value (its rule or cases), computed when `reached`."""
        if isinstance(definition, ast.Rule):
            assert definition.expr is not None
            if definition.condition is None:
                return self.expr(definition.expr, bound, reached)
            condition = self.expr(definition.condition, bound, reached)
            value = self.expr(definition.expr, bound, _both(reached, condition))
            return z3.If(condition, value, self.zero(definition.type))
        conditions = []
        guard = reached
        for case in definition.cases:
            if case.condition is None:
                # Last: in first-match order it is reached only when none before it held; in
                # exclusive cases it holds when none of the others does.
                others = [c for c, _ in conditions] if definition.order == "exclusive" else []
                conditions.append((none_holds(others), case))
            else:
                self.clauses.append(case.clause)
                condition = self.expr(case.condition, bound, guard)
                self.clauses.pop()
                conditions.append((condition, case))
                if definition.order == "first-match":
                    guard = all_of(guard, z3.Not(condition))
        if definition.otherwise is not None:
            fallback = self.expr(definition.otherwise, bound, guard)
        else:
            # Unreachable when the cases are exhaustive, which is proved separately.
            fallback = self.fresh(definition)
        result = fallback
        guards = []
        running = reached
        for condition, _ in conditions:
            guards.append(all_of(running, condition))
            if definition.order == "first-match":
                running = all_of(running, z3.Not(condition))
        for (condition, case), case_guard in reversed(list(zip(conditions, guards, strict=True))):
            self.clauses.append(case.clause)
            value = self.expr(case.expr, bound, case_guard)
            self.clauses.pop()
            result = z3.If(condition, value, result)
        return result

    def fresh(self, definition: ast.Rule | ast.Cases) -> Term:
        """Returns an unconstrained value of the definition's type."""
        name = f"{definition.name}__unreachable{self.tag}"
        kind = definition.type.kind
        if kind == "bool":
            return z3.Bool(name)
        if kind in ("count", "enum", "date"):
            return z3.Int(name)
        if kind == "duration":
            return z3.Const(name, DURATION)
        return z3.Real(name)

    def zero(self, type_: ast.Type) -> Term:
        """Returns the value of a rule whose condition fails: false or zero."""
        if type_.kind == "bool":
            return z3.BoolVal(False)
        if type_.kind == "count":
            return z3.IntVal(0)
        if type_.kind == "duration":
            return duration_term(0, 0)
        return z3.RealVal(0)

    # ---- expressions ----------------------------------------------------------------------
    def expr(
        self,
        expr: ast.Expr,
        bound: Mapping[str, Term],
        guard: Term,
        record: bool = True,
    ) -> Term:
        """Returns the Z3 term of `expr`; `guard` is when the evaluator would compute it."""
        statute = self.statute
        if isinstance(expr, ast.Literal):
            if isinstance(expr.value, bool):
                return z3.BoolVal(expr.value)
            if expr.unit == "duration":
                months, days = dates.UNITS[expr.duration_unit]
                count = int(expr.value)
                return duration_term(months * count, days * count)
            value = Fraction(expr.value)
            # Whole amounts stay integers: Z3 reasons far better about `min($200 * floor(x),
            # $1,000)` in integers than about integers converted to reals inside a choice.
            if value.denominator == 1:
                return z3.IntVal(value.numerator)
            return _number(value)
        if isinstance(expr, ast.Ref):
            name = expr.name
            if name in bound:
                return bound[name]
            if name in statute.inputs:
                if self.building:
                    self.input_uses[self.building[-1]].add(name)
                if name in self.given and record:
                    self.oblige(
                        "missing value",
                        f"'{name}' is used but may not be given",
                        expr,
                        all_of(guard, z3.Not(self.given[name])),
                    )
                return self.inputs[name]
            if name in statute.definitions:
                return self.term(name, guard=guard)
            return z3.IntVal(self.member_index[name])
        if isinstance(expr, ast.Call):
            return self._call(expr, bound, guard, record)
        if isinstance(expr, ast.BinOp):
            left = self.expr(expr.left, bound, guard, record)
            right = self.expr(expr.right, bound, guard, record)
            if dates.kind_of(statute, expr, self.scope) is not None:
                return self._calendar(expr, left, right, guard, record)
            if expr.op == "+":
                return left + right
            if expr.op == "-":
                return left - right
            if expr.op == "*":
                return left * right
            if record:
                self.oblige(
                    "division by zero", "the divisor may be zero", expr, all_of(guard, right == 0)
                )
            return (
                z3.ToReal(left) / z3.ToReal(right)
                if _is_int(left) and _is_int(right)
                else left / right
            )
        if isinstance(expr, ast.Compare):
            left = self.expr(expr.left, bound, guard, record)
            right = self.expr(expr.right, bound, guard, record)
            if dates.kind_of(statute, expr.left, self.scope) == "duration":
                left, right = self._duration_units(expr, left, right, guard, record)
            return {
                "=": lambda: left == right,
                "!=": lambda: left != right,
                "<": lambda: left < right,
                "<=": lambda: left <= right,
                ">": lambda: left > right,
                ">=": lambda: left >= right,
            }[expr.op]()
        if isinstance(expr, ast.BoolOp):
            left = self.expr(expr.left, bound, guard, record)
            if expr.op == "and":
                return all_of(left, self.expr(expr.right, bound, all_of(guard, left), record))
            if expr.op == "or":
                return z3.Or(
                    left, self.expr(expr.right, bound, all_of(guard, z3.Not(left)), record)
                )
            return z3.Implies(left, self.expr(expr.right, bound, all_of(guard, left), record))
        if isinstance(expr, ast.Not):
            return z3.Not(self.expr(expr.operand, bound, guard, record))
        if isinstance(expr, ast.Neg):
            operand = self.expr(expr.operand, bound, guard, record)
            if dates.kind_of(statute, expr, self.scope) == "duration":
                return duration_term(-DURATION.months(operand), -DURATION.days(operand))
            return -operand
        if isinstance(expr, ast.PartOf):
            year, month, day = self.civil_of(self.expr(expr.operand, bound, guard, record))
            return {"year": year, "month": month, "day": day}[expr.part]
        if isinstance(expr, ast.If):
            condition = self.expr(expr.condition, bound, guard, record)
            then = self.expr(expr.then, bound, all_of(guard, condition), record)
            otherwise = self.expr(expr.otherwise, bound, all_of(guard, z3.Not(condition)), record)
            return z3.If(condition, then, otherwise)
        if isinstance(expr, ast.Given):
            if self.building:
                self.input_uses[self.building[-1]].add(expr.name)
            return self.given[expr.name]
        if isinstance(expr, ast.ReadingTest):
            reading = statute.readings[expr.reading]
            index = [o.name for o in reading.options].index(expr.option)
            if expr.reading in self.readings:
                return self.readings[expr.reading] == index
            return z3.BoolVal(index == 0)
        if isinstance(expr, ast.Aggregate):
            return self._aggregate(expr, bound, guard, record)
        if isinstance(expr, ast.BonusSum):
            total = z3.RealVal(0)
            for bonus in statute.bonuses:
                total = total + self.call_definition(
                    bonus.name, {p.name: bound[p.name] for p in bonus.params}, guard
                )
            return total
        raise AssertionError(f"unhandled expression {expr!r}")  # pragma: no cover

    def _aggregate(
        self, expr: ast.Aggregate, bound: Mapping[str, Term], guard: Term, record: bool
    ) -> Term:
        """Returns the term of an aggregate over the (at most `list_bound`) elements of a list
        input: exact for such lists. An empty minimum, maximum or median refuses the scenario
        (a constraint, when a result's evaluation computes it), else is any value."""
        name = expr.source
        if self.building:
            self.input_uses[self.building[-1]].add(name)
        if name in self.given and record:
            self.oblige(
                "missing value",
                f"'{name}' is used but may not be given",
                expr,
                all_of(guard, z3.Not(self.given[name])),
            )
        terms = self.lists[name]
        inside = [index < terms.length for index in range(self.list_bound)]
        outer = self.scope
        self.scope = {**outer, **dates.record_scope(self.statute, expr)}
        try:
            meets = [
                self.expr(expr.condition, {**bound, **element}, all_of(guard, within), record)
                if expr.condition is not None
                else z3.BoolVal(True)
                for element, within in zip(terms.elements, inside, strict=True)
            ]
            present = [all_of(within, meet) for within, meet in zip(inside, meets, strict=True)]
            if expr.value is not None:
                # Each element's amount, computed where the element counts.
                values = [
                    self.expr(expr.value, {**bound, **element}, all_of(guard, counted), record)
                    for element, counted in zip(terms.elements, present, strict=True)
                ]
            else:
                values = [e[expr.field] for e in terms.elements] if expr.field is not None else []
        finally:
            self.scope = outer
        count = z3.Sum([z3.If(p, 1, 0) for p in present]) if present else z3.IntVal(0)
        op = expr.op
        if op == "count":
            return count
        if op == "any":
            if values:
                return z3.Or([all_of(p, v) for p, v in zip(present, values, strict=True)])
            return z3.Or(present) if present else z3.BoolVal(False)
        if op == "all":
            if values:
                return all_of([z3.Implies(p, v) for p, v in zip(present, values, strict=True)])
            held = [z3.Implies(w, m) for w, m in zip(inside, meets, strict=True)]
            return all_of(held) if held else z3.BoolVal(True)
        if op == "sum":
            zero = z3.IntVal(0) if values and _is_int(values[0]) else z3.RealVal(0)
            terms = [z3.If(p, v, zero) for p, v in zip(present, values, strict=True)]
            return z3.Sum(terms) if terms else zero
        if self.building and self.building[-1][0] in self.deriving:
            # Refused where a scenario derives the input, not assumed: see `derivable`.
            self.refusals.setdefault(self.building[-1][0], []).append(z3.Implies(guard, count > 0))
        if self.building and self.building[-1][0] in self.evaluated:
            # Refused only where an evaluation computes it: where the definition is demanded.
            key = self.building[-1]
            if self._demand is None:
                self._pending_constraints.append((key, z3.Implies(guard, count > 0)))
            else:
                self.constraints.append(z3.Implies(_both(self.demand(key), guard), count > 0))
        fallback = self.new_variable(values[0].sort() if values else z3.RealSort(), "empty")
        if op in ("min", "max"):
            result = fallback
            seen: Term = z3.BoolVal(False)
            for p, v in zip(present, values, strict=True):
                better = v < result if op == "min" else v > result
                result = z3.If(all_of(p, z3.Or(z3.Not(seen), better)), v, result)
                seen = z3.Or(seen, p)
            return result
        low = self._order_statistic(present, values, (count + 1) / 2, fallback)
        high = self._order_statistic(present, values, count / 2 + 1, fallback)
        if op == "median_low":
            return low
        if op == "median_high":
            return high
        return (z3.ToReal(low) + z3.ToReal(high)) / 2 if _is_int(low) else (low + high) / 2

    @staticmethod
    def _order_statistic(present: list[Term], values: list[Term], k: Term, fallback: Term) -> Term:
        """Returns the k-th smallest (from 1) of the present values: a value with fewer than k
        present values below it and at least k at or below it (ties share one value)."""
        result = fallback
        for j in reversed(range(len(values))):
            below = z3.Sum(
                [
                    z3.If(all_of(p, v < values[j]), 1, 0)
                    for p, v in zip(present, values, strict=True)
                ]
            )
            at_most = z3.Sum(
                [
                    z3.If(all_of(p, v <= values[j]), 1, 0)
                    for p, v in zip(present, values, strict=True)
                ]
            )
            result = z3.If(all_of(present[j], below < k, at_most >= k), values[j], result)
        return result

    # ---- dates -------------------------------------------------------------------------------
    def civil_of(self, day: Term) -> tuple[Term, Term, Term]:
        """Returns the year, month and day of a date term: fresh integers tied to it exactly
        (for a day in the calendar) by the day number of dsl/dates.py's calendar."""
        key = day.get_id()
        found = self.civil.get(key)
        if found is None:
            year, month, of_month = (
                self.new_variable(z3.IntSort(), part) for part in ("year", "month", "day")
            )
            self.constraints.append(
                z3.Implies(
                    in_calendar(day),
                    all_of(
                        year >= 1,
                        year <= 9999,
                        month >= 1,
                        month <= 12,
                        of_month >= 1,
                        of_month <= month_length(year, month),
                        day == day_number(year, month, of_month),
                    ),
                )
            )
            found = self.civil[key] = (year, month, of_month)
            self.civil_days[key] = day
        return found

    def _calendar(
        self, expr: ast.BinOp, left: Term, right: Term, guard: Term, record: bool
    ) -> Term:
        """Returns `+` or `-` of dates and durations as dsl/dates.py computes them: the months
        added first (the day kept, or rounded as the encoding says), then the days; an
        ambiguous day under `refuse-ambiguous` and a date outside the calendar are obligations."""
        is_duration = [t.sort() == DURATION for t in (left, right)]
        if all(is_duration):
            months = DURATION.months(left), DURATION.months(right)
            days = DURATION.days(left), DURATION.days(right)
            if expr.op == "+":
                return duration_term(months[0] + months[1], days[0] + days[1])
            return duration_term(months[0] - months[1], days[0] - days[1])
        if not any(is_duration):  # date - date
            return duration_term(0, left - right)
        day, length = (right, left) if is_duration[0] else (left, right)
        sign = -1 if expr.op == "-" else 1
        months = z3.simplify(sign * DURATION.months(length))
        days = z3.simplify(sign * DURATION.days(length))
        if z3.is_int_value(months) and months.as_long() == 0:
            result = day + days
            outside = z3.Not(in_calendar(result))
        else:
            year, month, of_month = self.civil_of(day)
            index = year * 12 + (month - 1) + months
            new_year, new_month = index / 12, index % 12 + 1
            length_reached = month_length(new_year, new_month)
            ambiguous = of_month > length_reached
            kept = z3.If(ambiguous, length_reached, of_month)
            base = day_number(new_year, new_month, kept)
            if self.statute.date_rounding == "round-up":
                base = base + z3.If(ambiguous, 1, 0)
            elif self.statute.date_rounding == "refuse-ambiguous" and record:
                self.oblige(
                    "ambiguous date",
                    "the day of the month does not exist in the month reached (refused by "
                    "'dates refuse-ambiguous')",
                    expr,
                    all_of(guard, in_calendar(day), ambiguous),
                )
            result = base + days
            outside = z3.Or(new_year < 1, new_year > 9999, z3.Not(in_calendar(result)))
        if record:
            self.oblige(
                "date outside the calendar",
                "the date computed is before 0001-01-01 or after 9999-12-31",
                expr,
                all_of(guard, in_calendar(day), outside),
            )
        return result

    def _duration_units(
        self, expr: ast.Compare, left: Term, right: Term, guard: Term, record: bool
    ) -> tuple[Term, Term]:
        """Returns two durations as numbers of one unit, days when both are in days, else
        months; a comparison of months with days is an obligation."""
        months = DURATION.months(left), DURATION.months(right)
        days = DURATION.days(left), DURATION.days(right)
        in_days = all_of(months[0] == 0, months[1] == 0)
        if record:
            self.oblige(
                "ambiguous comparison",
                "a duration in months is compared with one in days",
                expr,
                all_of(guard, z3.Not(in_days), z3.Not(all_of(days[0] == 0, days[1] == 0))),
            )
        return z3.If(in_days, days[0], months[0]), z3.If(in_days, days[1], months[1])

    def _call(self, expr: ast.Call, bound: Mapping[str, Term], guard: Term, record: bool) -> Term:
        args = [self.expr(a, bound, guard, record) for a in expr.args]
        if expr.name == "date":
            year, month, day = args
            if record:
                valid = all_of(
                    year >= 1,
                    year <= 9999,
                    month >= 1,
                    month <= 12,
                    day >= 1,
                    day <= month_length(year, month),
                )
                self.oblige(
                    "no such date",
                    "date() of a day the calendar does not have",
                    expr,
                    all_of(guard, z3.Not(valid)),
                )
            return day_number(year, month, day)
        if expr.name == "floor":
            return z3.ToInt(args[0]) if not _is_int(args[0]) else args[0]
        if expr.name == "ceil":
            return -z3.ToInt(-args[0]) if not _is_int(args[0]) else args[0]
        if expr.name in ("min", "max"):
            result = args[0]
            for other in args[1:]:
                if expr.name == "min":
                    result = z3.If(other < result, other, result)
                else:
                    result = z3.If(other > result, other, result)
            return result
        given = {name: self.expr(arg, bound, guard, record) for name, arg in expr.kwargs}
        return self.call_definition(expr.name, given, guard)

    def call_definition(
        self, name: str, given: Mapping[str, Term], guard: Term | None = None
    ) -> Term:
        """Returns a definition's term for argument terms, splitting on symbolic arguments;
        `guard`, when given, is when the definition being translated computes the call."""
        definition = self.statute.definitions[name]
        values: list[list[tuple[Term, Value]]] = []
        for param in definition.params:
            term = z3.simplify(given[param.name])
            if z3.is_true(term):
                values.append([(z3.BoolVal(True), True)])
            elif z3.is_false(term):
                values.append([(z3.BoolVal(True), False)])
            elif z3.is_int_value(term):
                values.append([(z3.BoolVal(True), param.type.members[term.as_long()])])
            elif param.type.kind == "bool":
                values.append([(term, True), (z3.Not(term), False)])
            else:
                values.append([(term == i, m) for i, m in enumerate(param.type.members)])
        combinations: list[tuple[Term, tuple[Value, ...]]] = [(z3.BoolVal(True), ())]
        for options in values:
            combinations = [
                (all_of(condition, option_condition), (*args, value))
                for condition, args in combinations
                for option_condition, value in options
            ]

        def instance(condition: Term, args: tuple[Value, ...]) -> Term:
            return self.term(name, args, None if guard is None else _both(guard, condition))

        result = instance(*combinations[-1])
        for condition, args in reversed(combinations[:-1]):
            result = z3.If(condition, instance(condition, args), result)
        return result

    def oblige(self, kind: str, description: str, expr: ast.Expr, violation: Term) -> None:
        """Records a condition that must be unsatisfiable for valid scenarios."""
        if not self.collect:
            return
        key = self.building[-1] if self.building else None
        obligation = Obligation(kind, description, expr.span, self.clauses[-1], violation, key)
        if self._demand is None and key is not None:
            self._pending_obligations.append((key, obligation))
        elif key is not None:
            self.obligations.append(
                replace(obligation, violation=_both(self.demand(key), violation))
            )
        else:
            self.obligations.append(obligation)

    # ---- models back to scenarios ---------------------------------------------------------
    def derivation_conditions(self) -> list[Term]:
        """Returns, for each input `derived by` a rule, the term of the condition under which
        a scenario derives it instead of giving it."""
        return [
            self._holds(d.derived_by.condition)
            for d in self.statute.inputs.values()
            if d.derived_by is not None
        ]

    def derivable(self) -> Term:
        """Returns when every input a scenario derives has a value its rule can give: each
        minimum, maximum or median those rules take (where a scenario derives the input) has
        an element. The evaluator refuses the others ("the median of no element"); they are
        left out of the constraints, which would tie every check to the lists. Made once."""
        if self._derivable is not None:
            return self._derivable
        facts = []
        for declared in self.statute.inputs.values():
            if declared.derived_by is None:
                continue
            self.term(declared.derived_by.rule)
            used = reachable_definitions(self.statute, [declared.derived_by.rule])
            held = [fact for name in sorted(used) for fact in self.refusals.get(name, [])]
            if held:
                facts.append(z3.Implies(self.derivation_condition(declared), all_of(*held)))
        self._derivable = all_of(*facts) if facts else z3.BoolVal(True)
        return self._derivable

    def derivation_condition(self, declared: ast.Input) -> Term:
        """Returns the term of the condition under which a scenario derives `declared` (an
        input `derived by` a rule) instead of giving it."""
        assert declared.derived_by is not None
        return self._holds(declared.derived_by.condition)

    def _holds(self, condition: ast.Expr) -> Term:
        """Returns the term of a condition over the inputs (a `derived by ... when`)."""
        return self.expr(condition, {}, z3.BoolVal(True), record=False)

    def derivation_links(self) -> dict[str, Term]:
        """Returns, for each input `derived by RULE when CONDITION`, by name, the fact that a
        scenario deriving it holds its rule's value (`CONDITION implies input = RULE`), as
        the evaluator derives it. Made once: it translates the rules deriving inputs."""
        if self._links is None:
            self._links = {
                d.name: z3.Implies(
                    self._holds(d.derived_by.condition),
                    self.inputs[d.name] == self.term(d.derived_by.rule),
                )
                for d in self.statute.inputs.values()
                if d.derived_by is not None
            }
        return self._links

    def scenario(
        self, model: z3.ModelRef, exact: bool = False
    ) -> tuple[dict[str, object], dict[str, str]]:
        """Returns the scenario and readings a Z3 model gives: numbers as the scenario format
        writes them (decimal strings), or as exact Fractions when `exact`."""
        scenario: dict[str, object] = {}
        for declared in self.statute.inputs.values():
            name = declared.name
            if name in self.given and not z3.is_true(
                model.eval(self.given[name], model_completion=True)
            ):
                continue
            value = model.eval(self.inputs[name], model_completion=True)
            kind = declared.type.kind
            if kind == "list":
                scenario[name] = self._list_scenario(declared, model, value.as_long(), exact)
            elif kind == "bool":
                scenario[name] = z3.is_true(value)
            elif kind == "count":
                scenario[name] = value.as_long()
            elif kind == "date":
                scenario[name] = _iso(value)
            elif kind == "enum":
                scenario[name] = declared.type.members[value.as_long()]
            else:
                number = Fraction(value.as_fraction())
                scenario[name] = number if exact else _scenario_number(number, kind)
        readings = {}
        for reading_id, variable in self.readings.items():
            index = model.eval(variable, model_completion=True).as_long()
            readings[reading_id] = self.statute.readings[reading_id].options[index].name
        scenario = without_derived(self.statute, scenario)
        return scenario, readings_of(self.statute, [scenario], readings)

    def _list_scenario(
        self, declared: ast.Input, model: z3.ModelRef, length: int, exact: bool
    ) -> list[dict[str, object]]:
        """Returns the elements of a list input in a Z3 model, as a scenario writes them; a
        text field (not modelled) names each element by its position, `jobs-1`, `jobs-2`..."""
        record = self.statute.records[declared.type.record]
        elements: list[dict[str, object]] = []
        for index in range(length):
            terms = self.lists[declared.name].elements[index]
            element: dict[str, object] = {}
            for key, declared_field in record.fields.items():
                kind = declared_field.type.kind
                if kind == "text":
                    element[key] = f"{declared.name}-{index + 1}"
                    continue
                value = model.eval(terms[key], model_completion=True)
                if kind == "bool":
                    element[key] = z3.is_true(value)
                elif kind == "count":
                    element[key] = value.as_long()
                elif kind == "date":
                    element[key] = _iso(value)
                elif kind == "enum":
                    element[key] = declared_field.type.members[value.as_long()]
                else:
                    number = Fraction(value.as_fraction())
                    element[key] = number if exact else _scenario_number(number, kind)
            elements.append(element)
        return elements


def _iso(value: Term) -> str:
    """Returns the ISO text of a date's day number in a model (clamped to the calendar: a
    model may leave an unconstrained day anywhere)."""
    day = min(max(value.as_long(), dates.FIRST), dates.LAST)
    return dates.iso(datetime.date.fromordinal(day))


def _is_int(term: Term) -> bool:
    return z3.is_int(term)


def _scenario_number(value: Fraction, kind: str) -> str:
    """Returns an exact number as the scenario format writes it: a decimal string when it has
    one, else (shares only) a fraction string; other kinds fall back to the fraction."""
    denominator = value.denominator
    twos = fives = 0
    while denominator % 2 == 0:
        denominator //= 2
        twos += 1
    while denominator % 5 == 0:
        denominator //= 5
        fives += 1
    if denominator == 1:
        places = max(twos, fives)
        scaled = value * 10**places
        digits = f"{abs(scaled.numerator):0{places + 1}d}"
        sign = "-" if value < 0 else ""
        return f"{sign}{digits[:-places]}.{digits[-places:]}" if places else f"{sign}{digits}"
    return f"{value.numerator}/{value.denominator}"


def scenario_text(statute: ast.Statute, exact: Mapping[str, object]) -> dict[str, object]:
    """Returns a scenario of exact values as the scenario format writes it: money, numbers
    and shares as decimal strings (a share without one as a fraction string)."""
    found: dict[str, object] = {}
    for name, value in exact.items():
        declared = statute.inputs[name]
        kind = declared.type.kind
        if kind in ("money", "number", "share"):
            found[name] = _scenario_number(Fraction(value), kind)  # type: ignore[arg-type]
        elif kind == "list" and isinstance(value, list | tuple):
            fields = statute.records[declared.type.record].fields
            found[name] = [
                {
                    key: _scenario_number(Fraction(item), fields[key].type.kind)  # type: ignore[arg-type]
                    if fields[key].type.kind in ("money", "number", "share")
                    else item
                    for key, item in element.items()
                }
                for element in value
            ]
        else:
            found[name] = value
    return found


def in_whole_cents(exact: Mapping[str, object]) -> bool:
    """True when every number of a scenario of exact values is a whole number of cents."""
    values = list(exact.values())
    for value in exact.values():
        if isinstance(value, list | tuple):  # a list input's elements
            values.extend(v for element in value for v in element.values())
    return all(
        (Fraction(v) * 100).denominator == 1
        for v in values
        if isinstance(v, Fraction | int) and not isinstance(v, bool)
    )


def decimal_constraints(model: Model, places: int = 2) -> list[Term]:
    """Returns constraints that make every money and number input a whole number of cents
    (`places` decimals), so that a counterexample can be written as a scenario file."""
    facts = []
    for declared in model.statute.inputs.values():
        if declared.type.kind in ("money", "number"):
            variable = model.inputs[declared.name]
            facts.append(z3.IsInt(variable * 10**places))
        elif declared.type.kind == "list":
            fields = model.statute.records[declared.type.record].fields
            for element in model.lists[declared.name].elements:
                facts.extend(
                    z3.IsInt(term * 10**places)
                    for key, term in element.items()
                    if fields[key].type.kind in ("money", "number")
                )
    return facts


def concrete_values(
    model: Model, inputs: dict[str, Value], readings: dict[str, str], names: list[str]
) -> dict[str, Value]:
    """Returns the values the proof model gives the definitions `names` for one concrete
    scenario (validated inputs) and readings: every input variable is replaced by its value and
    Z3 simplifies each term to a constant. Used to check that the evaluator and the proof model
    agree exactly."""
    statute = model.statute
    pairs = []
    for name, variable in model.inputs.items():
        value = inputs.get(name)
        if name in model.given:
            pairs.append((model.given[name], z3.BoolVal(value is not None)))
        if value is None:
            continue
        kind = statute.inputs[name].type.kind
        if kind == "list":
            pairs.extend(_list_pairs(model, name, value))  # type: ignore[arg-type]
        elif kind == "bool":
            pairs.append((variable, z3.BoolVal(bool(value))))
        elif kind == "enum":
            pairs.append((variable, z3.IntVal(statute.inputs[name].type.members.index(value))))
        elif kind == "count":
            pairs.append((variable, z3.IntVal(int(value))))  # type: ignore[arg-type]
        elif kind == "date":
            pairs.append((variable, z3.IntVal(value.toordinal())))  # type: ignore[union-attr]
        else:
            pairs.append((variable, _number(Fraction(value))))  # type: ignore[arg-type]
    for reading_id, variable in model.readings.items():
        options = [o.name for o in statute.readings[reading_id].options]
        pairs.append((variable, z3.IntVal(options.index(readings[reading_id]))))
    for name in names:
        model.term(name)  # every date decomposition the results need is made
    for day, parts in list(model.civil.items()):
        # The year, month and day of a date are tied to it by constraints, not by terms:
        # once the day is known, they are too.
        known = z3.simplify(z3.substitute(model.civil_days[day], *pairs))
        if z3.is_int_value(known) and dates.FIRST <= known.as_long() <= dates.LAST:
            civil = datetime.date.fromordinal(known.as_long())
            pairs.extend(
                (term, z3.IntVal(value))
                for term, value in zip(parts, (civil.year, civil.month, civil.day), strict=True)
            )
    found: dict[str, Value] = {}
    for name in names:
        term = z3.simplify(z3.substitute(model.term(name), *pairs))
        definition = statute.definitions[name]
        if definition.type.kind == "date" and z3.is_int_value(term):
            found[name] = datetime.date.fromordinal(term.as_long())
        elif definition.type.kind == "duration" and z3.is_app(term) and term.num_args() == 2:
            months, days = (z3.simplify(term.arg(i)) for i in (0, 1))
            if not (z3.is_int_value(months) and z3.is_int_value(days)):
                raise ValueError(f"the proof model leaves {name} unevaluated: {term}")
            found[name] = dates.Duration(months.as_long(), days.as_long())
        elif definition.type.kind == "enum":
            found[name] = definition.type.members[term.as_long()]
        elif z3.is_bool(term):
            found[name] = z3.is_true(term)
        elif z3.is_int_value(term):
            found[name] = Fraction(term.as_long())
        elif z3.is_rational_value(term):
            found[name] = Fraction(term.as_fraction())
        else:
            raise ValueError(f"the proof model leaves {name} unevaluated: {term}")
    return found


def _list_pairs(model: Model, name: str, elements: tuple[dict[str, Value], ...]) -> list[Any]:
    """Returns the substitution of a list input's terms by a concrete list's values; raises
    ValueError for a list longer than the model's bound."""
    terms = model.lists[name]
    if len(elements) > model.list_bound:
        raise ValueError(
            f"'{name}' has {len(elements)} elements; the model holds at most {model.list_bound}"
        )
    fields = model.statute.records[model.statute.inputs[name].type.record].fields
    pairs: list[Any] = [(terms.length, z3.IntVal(len(elements)))]
    for element, slots in zip(elements, terms.elements, strict=False):
        for key, term in slots.items():
            value = element[key]
            type_ = fields[key].type
            if type_.kind == "bool":
                pairs.append((term, z3.BoolVal(bool(value))))
            elif type_.kind == "enum":
                pairs.append((term, z3.IntVal(type_.members.index(value))))  # type: ignore[arg-type]
            elif type_.kind == "count":
                pairs.append((term, z3.IntVal(int(value))))  # type: ignore[arg-type]
            elif type_.kind == "date":
                pairs.append((term, z3.IntVal(value.toordinal())))  # type: ignore[union-attr]
            else:
                pairs.append((term, _number(Fraction(value))))  # type: ignore[arg-type]
    return pairs


def _both(first: Term, second: Term) -> Term:
    """Returns `first and second`, just `second` when `first` is the constant true (so that a
    definition without exceptions keeps the terms it always had)."""
    if z3.is_true(first):
        return second
    if z3.is_false(first):
        return first
    return all_of(first, second)


def without_derived(statute: ast.Statute, scenario: dict[str, object]) -> dict[str, object]:
    """Returns a scenario without the inputs it derives (`derived by RULE when CONDITION`,
    the condition holding on what it gives), which a scenario may not also give."""
    derived = [d for d in statute.inputs.values() if d.derived_by is not None]
    if not derived:
        return scenario
    from lextrace.dsl.evaluator import Evaluation, compiled

    program = compiled(statute)
    values = {name: scenario.get(name) for name in statute.inputs}
    evaluation = Evaluation(program, values, {}, False)  # type: ignore[arg-type]
    kept = dict(scenario)
    for declared in derived:
        assert declared.derived_by is not None
        try:
            holds = bool(program.condition(declared.derived_by.condition)(evaluation, {}))
        except Exception:  # a condition beyond what the scenario's values can decide
            continue
        if holds:
            kept.pop(declared.name, None)
    return kept


def readings_of(
    statute: ast.Statute, scenarios: list[dict[str, object]], readings: dict[str, str]
) -> dict[str, str]:
    """Returns the readings a counterexample records: without those only the derivation of
    inputs from a list rests on, when none of its scenarios gives a list."""
    lists = {d.name for d in statute.inputs.values() if d.type.kind == "list"}
    if any(name in scenario for scenario in scenarios for name in lists):
        return readings
    dropped = derivation_only_readings(statute)
    return {rid: option for rid, option in readings.items() if rid not in dropped}


def derivation_only_readings(statute: ast.Statute) -> set[str]:
    """Returns the readings that only the rules deriving inputs rest on."""
    from lextrace.dsl.checker import readings_used, references

    rules = [d.derived_by.rule for d in statute.inputs.values() if d.derived_by is not None]
    if not rules:
        return set()
    roots = set(statute.result_names)
    for invariant in statute.invariants:
        roots |= references(statute, invariant.expr)
    for monotone in statute.monotones:
        roots |= {name for name, _ in monotone.results}
    return readings_used(statute, rules) - readings_used(statute, sorted(roots))
