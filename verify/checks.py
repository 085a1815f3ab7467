"""The checks that `lextrace verify` proves, built from the encoding, and how they are run.

Checks come from two places. The encoding states invariants and monotone properties inside the
clauses they come from. The AST itself yields well-formedness checks: every piecewise definition
is exhaustive and its exclusive cases never overlap, every case can apply, no division by zero
and no missing value is reachable, every bonus stays within the amounts its clause states.

Each check ends PROVED (Z3: unsat), BOUNDED (unsat, but the check rests on a list input, which
the model holds at a bounded length: proved for such lists only), VIOLATED (a counterexample
scenario, re-run by the evaluator to confirm it), UNKNOWN (a timeout or Z3 unknown), VACUOUS
(the premise can never hold) or ERROR (the evaluator does not reproduce the counterexample: a
bug in the translation).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from functools import partial
from itertools import product
from typing import Any

import z3

from lextrace.dsl import ast
from lextrace.dsl.ast import param_values
from lextrace.dsl.evaluator import (
    Evaluation,
    EvaluationError,
    compiled,
    evaluate,
    step_label,
)
from lextrace.dsl.obligations import every_invariant, stated_money
from lextrace.dsl.values import Value, dollars

from .model import (
    Model,
    Term,
    decimal_constraints,
    in_whole_cents,
    none_holds,
    scenario_text,
)
from .monotone import MonotoneProver, moved_as
from .opaque import holds_whatever_the_rules
from .replay import judge_derived, judge_evaluates, judge_expr, judge_monotone, judge_value
from .search import Found, Probe, Search
from .solve import Decided, decide, work
from .terms import SymbolIndex
from .witness import minimise

PROVED, VIOLATED, UNKNOWN, VACUOUS, ERROR = "PROVED", "VIOLATED", "UNKNOWN", "VACUOUS", "ERROR"
# Proved for lists of at most the model's bound (verify/model.py, LIST_BOUND) only: not PROVED.
BOUNDED = "BOUNDED"
FAILING = {VIOLATED, UNKNOWN, VACUOUS, ERROR}
# The kind of obligation a missing value is (verify/model.py): decided before the others.
MISSING = "missing value"
# The kind of obligation a gap between the cases of a definition is.
NO_CASE = "no case applies"
# The kind of obligation two cases (or exceptions of one priority) that both apply are.
OVERLAP = "both apply"
# How many inputs a message on a hard check names.
HARD_NAMES = 6
# The most cases a check is split into when Z3 cannot decide it whole.
SPLIT_CASES = 32


@dataclass
class Confirmation:
    """What the evaluator says of a counterexample: True when it reproduces the breach."""

    reproduced: bool
    detail: str


@dataclass
class Check:
    """One property to prove: `claim` must hold for every valid scenario (two for `pair`)."""

    name: str
    kind: str
    description: str
    clause: ast.Clause
    span: ast.Span
    claim: Term
    premise: Term | None = None
    pair: bool = False
    confirm: Callable[[list[dict[str, Value]], dict[str, str]], Confirmation] | None = None
    second: Model | None = None
    compositional: tuple[str, list[str]] | None = None  # (input, results) of a monotone check
    falls: bool = False  # a monotone check's results must never rise (`fall with`)
    lemma: str | None = None  # an invariant that, once proved, serves later proofs
    replay: dict[str, Any] | None = None  # what a counterexample file names (verify/replay.py)
    # A satisfiability check (its premise, with a `True` claim) proved only by a witness: the
    # scenario Z3 finds, which the evaluator must confirm (else ERROR).
    witness: Callable[[list[dict[str, Value]], dict[str, str]], Confirmation] | None = None
    # A claim built only when the check is proved. Z3's heuristics depend on the terms alive
    # in its context: a claim built early, kept alive, can turn another proof into a timeout.
    build: Callable[[], Term] | None = None
    # What the search before Z3 judges on concrete scenarios (verify/search.py).
    probe: Probe | None = None
    # Why the check is refused without a proof (a property that could only pass vacuously).
    refused: str | None = None
    # A well-definedness check (a missing value, a division by zero): its kind and violation.
    obligation: tuple[str, Term] | None = None
    # An invariant's test that it is proved even with the rules it names left free (opaque.py).
    checks_no_rule: Callable[[int], bool] | None = None


@dataclass
class Outcome:
    """The result of one check."""

    check: Check
    status: str
    seconds: float
    counterexample: list[dict[str, object]] | None = None
    readings: dict[str, str] | None = None
    detail: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def failed(self) -> bool:
        """True unless the check was proved."""
        return self.status in FAILING


class Verifier:
    """Builds the checks of a statute and proves them with Z3."""

    def __init__(self, statute: ast.Statute, timeout_seconds: float = 10.0) -> None:
        self.statute = statute
        self.timeout_ms = max(1, int(timeout_seconds * 1000))
        self.first = Model(statute, "")
        self.second_copies: dict[str, Model] = {}
        self.program = compiled(statute)
        self.monotone = MonotoneProver(self.first, self.second, self.timeout_ms)
        # When set, Z3 decides each check case by case, each case within this many ms.
        self.split_ms: int | None = None
        self.split_note = ""
        # False: a monotone check not proved compositionally is left undecided, not put to
        # Z3 whole (two copies of the rules: the costliest formula there is).
        self.whole_pairs = True
        # Whether each check rests on a list, by id (the check kept alive with its answer).
        self._on_lists: dict[int, tuple[Check, bool]] = {}
        # Per model (kept alive here with its answer): whether a constraint ties a list's terms
        # to other terms; the same for every check on that model, so walked once.
        self._ties_lists: dict[int, tuple[Model, bool]] = {}
        # Per model (kept alive with it): its lists' own term ids and its constraints' ids.
        self._model_ids: dict[int, tuple[Model, set[int], set[int]]] = {}
        self._symbols = SymbolIndex()
        self._searcher: Search | None = None
        # The violations of the well-definedness checks found VIOLATED: every other check is
        # decided where the encoding is defined, so that one missing value is one failure.
        self.undefined: list[tuple[str, Term]] = []
        for name in statute.result_names:
            self.first.term(name)

    # ---- building the checks ----------------------------------------------------------------
    def checks(self) -> list[Check]:
        """Returns every check, the encoding's own properties first."""
        found: list[Check] = []
        found.extend(self.invariant_checks())
        found.extend(self.monotone_checks())
        found.extend(self.case_checks())
        found.extend(self.exception_checks())
        found.extend(self.bonus_checks())
        found.extend(self.count_checks())
        found.extend(self.derivation_checks())
        found.extend(self.obligation_checks())
        # A check is reported by its name: two of one name would show one outcome twice.
        seen: dict[str, int] = {}
        for check in found:
            seen[check.name] = seen.get(check.name, 0) + 1
            if seen[check.name] > 1:
                check.name = f"{check.name} #{seen[check.name]}"
        return found

    def citation(self, clause: ast.Clause) -> str:
        """Returns the full citation of a clause."""
        return self.statute.citation(clause)

    def invariant_checks(self) -> Iterator[Check]:
        model = self.first
        # The invariants the encoding states, then the limits its words state (obligations).
        for invariant in every_invariant(self.statute):
            for values in param_values(invariant.params):
                bound = {
                    p.name: model.constant(v) for p, v in zip(invariant.params, values, strict=True)
                }
                claim = model.expr(invariant.expr, bound, z3.BoolVal(True), record=False)
                premise = None
                if isinstance(invariant.expr, ast.BoolOp) and invariant.expr.op == "implies":
                    premise = model.expr(invariant.expr.left, bound, z3.BoolVal(True), record=False)
                suffix = _param_suffix(invariant.params, values)
                yield Check(
                    name=f"{invariant.name}{suffix}",
                    kind="invariant",
                    description=invariant.description,
                    clause=invariant.clause,
                    span=invariant.span,
                    claim=claim,
                    premise=premise,
                    confirm=self._confirm_expr(invariant.expr, invariant.params, values),
                    lemma=invariant.name
                    if not invariant.params and invariant.from_words is None
                    else None,
                    probe=Probe(single=self._holds_not(invariant.expr, invariant.params, values)),
                    replay={"name": invariant.name, "args": _args(invariant.params, values)},
                    checks_no_rule=partial(holds_whatever_the_rules, model, invariant.expr, bound),
                )

    def second(self, vary: str) -> Model:
        """Returns the copy of the model in which only input `vary` differs."""
        if vary not in self.second_copies:
            self.second_copies[vary] = Model(
                self.statute, "__after", collect=False, base=self.first, vary=vary
            )
        return self.second_copies[vary]

    def monotone_checks(self) -> Iterator[Check]:
        """Yields one check per monotone property and input it names: raising the input never
        lowers any of the results (`rise with`), or never raises any of them (`fall with`).
        It is proved compositionally (see verify/monotone.py); when that fails, the two whole
        copies are searched for a counterexample."""
        first = self.first
        for monotone in self.statute.monotones:
            results = [name for name, _ in monotone.results]
            for input_name, _ in monotone.inputs:
                declared = self.statute.inputs[input_name]
                depends = self.monotone.depends(input_name)
                if not any((r, ()) in depends for r in results):
                    yield Check(
                        name=f"{monotone.name}[{input_name}]",
                        kind="monotone",
                        description=f"{monotone.description} (raising {input_name})",
                        clause=monotone.clause,
                        span=monotone.span,
                        claim=z3.BoolVal(True),
                        refused=f"none of {', '.join(results)} is computed from "
                        f"{input_name}: no rule reads it, so the property says nothing",
                        replay={"name": monotone.name, "input": input_name},
                    )
                    continue
                second = self.second(input_name)
                before, after = first.inputs[input_name], second.inputs[input_name]
                rises = (
                    z3.And(z3.Not(before), after)
                    if declared.type.kind == "bool"
                    else after > before
                )
                premise = z3.And(rises, *second.constraints)
                moved = [
                    moved_as(first.term(r), second.term(r), "down" if monotone.falls else "up")
                    for r in results
                ]
                claim = z3.Implies(premise, z3.And(*moved))
                yield Check(
                    name=f"{monotone.name}[{input_name}]",
                    kind="monotone",
                    description=f"{monotone.description} (raising {input_name})",
                    clause=monotone.clause,
                    span=monotone.span,
                    claim=claim,
                    premise=premise,
                    pair=True,
                    confirm=self._confirm_monotone(input_name, results, monotone.falls),
                    second=second,
                    compositional=(input_name, results),
                    falls=monotone.falls,
                    probe=Probe(input=input_name, results=tuple(results), falls=monotone.falls),
                    replay={"name": monotone.name, "input": input_name},
                )

    def case_checks(self) -> Iterator[Check]:
        model = self.first
        true = z3.BoolVal(True)
        for definition in self.statute.definitions.values():
            if not isinstance(definition, ast.Cases):
                continue
            for values in param_values(definition.params):
                bound = {
                    p.name: model.constant(v)
                    for p, v in zip(definition.params, values, strict=True)
                }
                conditioned = [
                    (case, model.expr(case.condition, bound, true, record=False))
                    for case in definition.cases
                    if case.condition is not None
                ]
                # The `otherwise` case (last) applies when no other does, in either order; it
                # is never one of two exclusive cases that both hold.
                conditions = conditioned + [
                    (case, none_holds([c for _, c in conditioned]))
                    for case in definition.cases
                    if case.condition is None
                ]
                citation = self.citation(definition.clause)
                demand, computing = self._computed(definition.name, values)
                if definition.otherwise is None and all(c.condition for c in definition.cases):
                    applies = z3.Or(*[c for _, c in conditions])
                    none_holds_judge = self._where_computed(
                        definition.name,
                        values,
                        self._none_holds(
                            [c.condition for c in definition.cases], definition.params, values
                        ),
                    )
                    yield Check(
                        name=f"exhaustive: {definition.name}",
                        kind="well-formed",
                        description=f"some case of '{definition.name}' applies to every valid "
                        f"scenario{computing} ({citation} and its subclauses)",
                        clause=definition.clause,
                        span=definition.span,
                        claim=z3.Implies(demand, applies),
                        confirm=self._confirm_by(none_holds_judge, (definition.name, values)),
                        # A gap, once found, is assumed away from the other checks: one failure.
                        obligation=(NO_CASE, z3.And(demand, z3.Not(applies))),
                        probe=Probe(single=none_holds_judge),
                    )
                if definition.order == "exclusive":
                    for (case_a, a), (case_b, b) in _pairs(conditioned):
                        both_judge = self._where_computed(
                            definition.name,
                            values,
                            self._both_hold(
                                case_a.condition, case_b.condition, definition.params, values
                            ),
                        )
                        yield Check(
                            name=f"exclusive: {definition.name} {case_a.clause.short_citation} / "
                            f"{case_b.clause.short_citation}",
                            kind="well-formed",
                            description=f"the cases of '{definition.name}' in "
                            f"{self.citation(case_a.clause)} and "
                            f"{self.citation(case_b.clause)} never both apply{computing}",
                            # At the later case, in its clause: the one that overlaps.
                            clause=case_b.clause,
                            span=case_b.span,
                            claim=z3.Not(z3.And(demand, a, b)),
                            confirm=self._confirm_by(both_judge, (definition.name, values)),
                            # An overlap, once found, is assumed away from the other checks.
                            obligation=(OVERLAP, z3.And(demand, a, b)),
                            probe=Probe(single=both_judge),
                        )
                earlier: list[Term] = []
                clauses = [case.clause.short_citation for case, _ in conditions]
                for number, (case, condition) in enumerate(conditions, start=1):
                    where = case.clause.short_citation
                    if clauses.count(where) > 1:
                        where += f" case {number}"
                    reachable = (
                        z3.And(condition, *[z3.Not(e) for e in earlier])
                        if (definition.order == "first-match")
                        else condition
                    )
                    yield Check(
                        name=f"reachable: {definition.name} {where}",
                        kind="well-formed",
                        description=f"the case of '{definition.name}' in "
                        f"{self.citation(case.clause)} applies to some valid scenario",
                        clause=case.clause,
                        span=case.span,
                        claim=z3.BoolVal(True),
                        premise=reachable,
                    )
                    earlier.append(condition)

    def exception_checks(self) -> Iterator[Check]:
        """Yields, for each definition with exceptions and each value of its parameters: that
        no two exceptions of equal priority can both apply (a conflict), that its own rule
        applies to some valid scenario (no exception does), and that each exception gives the
        value of some valid scenario; the last two by a witness the evaluator confirms."""
        model = self.first
        for definition in self.statute.definitions.values():
            if not definition.exceptions:
                continue
            for values in param_values(definition.params):
                model.term(definition.name, values)
                conditions = model.exception_conditions[(definition.name, values)]
                suffix = _param_suffix(definition.params, values)
                demand, computing = self._computed(definition.name, values)
                for (first, a), (second, b) in _pairs(conditions):
                    if first.priority != second.priority:
                        continue
                    both_judge = self._where_computed(
                        definition.name,
                        values,
                        self._both_hold(
                            first.condition, second.condition, definition.params, values
                        ),
                    )
                    yield Check(
                        name=f"no conflict: {definition.name}{suffix} {first.name} / {second.name}",
                        kind="well-formed",
                        description=f"the exceptions '{first.name}' "
                        f"({self.citation(first.clause)}) and '{second.name}' "
                        f"({self.citation(second.clause)}), both of priority "
                        f"{first.priority}, never both apply{computing}",
                        clause=second.clause,
                        span=second.span,
                        claim=z3.Not(z3.And(demand, a, b)),
                        confirm=self._confirm_by(both_judge, (definition.name, values)),
                        obligation=(OVERLAP, z3.And(demand, a, b)),
                        probe=Probe(single=both_judge),
                    )
                yield Check(
                    name=f"general rule reachable: {definition.name}{suffix}",
                    kind="well-formed",
                    description=f"the rule of '{definition.name}' in "
                    f"{self.citation(definition.clause)} applies to some valid scenario: no "
                    "exception to it does",
                    clause=definition.clause,
                    span=definition.span,
                    claim=z3.BoolVal(True),
                    premise=z3.And(*[z3.Not(c) for _, c in conditions]),
                    witness=self._witness(definition.name, values, None),
                )
                for exception, condition in conditions:
                    others = [
                        z3.Not(c)
                        for e, c in conditions
                        if e is not exception and e.priority >= exception.priority
                    ]
                    yield Check(
                        name=f"exception reachable: {exception.name}{suffix}",
                        kind="well-formed",
                        description=f"the exception '{exception.name}' "
                        f"({self.citation(exception.clause)}) gives the value of "
                        f"'{definition.name}' for some valid scenario",
                        clause=exception.clause,
                        span=exception.span,
                        claim=z3.BoolVal(True),
                        premise=z3.And(condition, *others),
                        witness=self._witness(definition.name, values, exception),
                    )

    def bonus_checks(self) -> Iterator[Check]:
        model = self.first
        for bonus in self.statute.bonuses:
            money = stated_money(bonus.clause)
            if not money:
                continue
            highest = max(money)
            for values in param_values(bonus.params):
                term = model.term(bonus.name, values)
                suffix = _param_suffix(bonus.params, values)
                yield Check(
                    name=f"bonus within its clause: {bonus.name}{suffix}",
                    kind="bound",
                    description=f"'{bonus.name}' is never negative and never more than the "
                    f"{dollars(highest)} its clause states ({self.citation(bonus.clause)})",
                    clause=bonus.clause,
                    span=bonus.span,
                    claim=z3.And(term >= 0, term <= z3.RealVal(str(highest))),
                    confirm=self._confirm_value(bonus.name, values, Fraction(0), highest),
                    probe=Probe(single=self._outside(bonus.name, values, Fraction(0), highest)),
                    replay={
                        "name": bonus.name,
                        "args": _args(bonus.params, values),
                        "low": "0",
                        "high": str(highest),
                    },
                )

    def count_checks(self) -> Iterator[Check]:
        """Yields, for every rule declared a count, that it is never negative: a count of jobs,
        steps or days below zero is a mistake in its formula, whatever the scenario."""
        model = self.first
        for definition in self.statute.definitions.values():
            if definition.type.kind != "count":
                continue
            for values in param_values(definition.params):
                yield Check(
                    name=f"count never negative: {definition.name}"
                    f"{_param_suffix(definition.params, values)}",
                    kind="bound",
                    description=f"'{definition.name}' is a count, so never negative "
                    f"({self.citation(definition.clause)})",
                    clause=definition.clause,
                    span=definition.span,
                    claim=z3.BoolVal(True),
                    build=lambda name=definition.name, values=values: model.term(name, values) >= 0,
                    confirm=self._confirm_value(definition.name, values, Fraction(0), None),
                    probe=Probe(single=self._outside(definition.name, values, Fraction(0), None)),
                    replay={"name": definition.name, "args": _args(definition.params, values)}
                    | {"low": "0"},
                )

    def _words(self, node: ast.Expr) -> str:
        """Returns an expression as the encoding writes it, on one line."""
        return " ".join(self.statute.source[node.span.start : node.span.end].split())

    def derivation_checks(self) -> Iterator[Check]:
        """Yields, for every input derived from a list (`derived by RULE when CONDITION`) that
        declares bounds, that its rule's value keeps them wherever a scenario derives it. The
        evaluator refuses a scenario whose derived value breaks a bound (the evidence is then
        inconsistent), so a rule that can break one refuses evidence the words allow: the
        labor-harmony jobs counted among the retained ones too, past `max new_jobs`."""
        model = self.first
        for declared in self.statute.inputs.values():
            derived = declared.derived_by
            if derived is None or not declared.bounds:
                continue
            rule = self.statute.definitions[derived.rule]
            kept = model.bound_facts(declared, model.term(derived.rule))
            bounds = ", ".join(
                f"{bound.kind} {self._words(bound.value)}"
                + (f" when {self._words(bound.when)}" if bound.when else "")
                for bound in declared.bounds
            )
            yield Check(
                name=f"derived within its bounds: {declared.name}",
                kind="well-formed",
                description=f"'{derived.rule}' derives '{declared.name}' within the bounds "
                f"the input declares ({bounds}) wherever a scenario derives it, when "
                f"{self._words(derived.condition)} ({self.citation(rule.clause)})",
                clause=rule.clause,
                span=declared.span,
                claim=z3.Implies(
                    z3.And(model.derivable(), model.derivation_condition(declared)),
                    z3.And(*kept),
                ),
                confirm=self._confirm_derived(declared.name),
                replay={"derived": declared.name},
            )

    def _computed(self, name: str, values: tuple[Value, ...]) -> tuple[Term, str]:
        """Returns when an evaluation computes the definition instance, and the words that
        say so in a check's description (none when every evaluation does)."""
        demand = self.first.demand((name, values))
        return demand, "" if z3.is_true(demand) else " where an evaluation computes it"

    def obligation_checks(self) -> Iterator[Check]:
        for obligation in self.first.obligations:
            where = f"line {obligation.span.line}, column {obligation.span.column}"
            if obligation.instance is not None:
                name, values = obligation.instance
                suffix = _param_suffix(self.statute.definitions[name].params, values)
                where += f", {suffix[1:-1]}" if suffix else ""
            yield Check(
                name=f"{obligation.kind}: {self.citation(obligation.clause)} ({where})",
                kind="well-formed",
                description=f"no valid scenario reaches this: {obligation.description}",
                clause=obligation.clause,
                span=obligation.span,
                claim=z3.Not(obligation.violation),
                confirm=self._confirm_evaluates(),
                obligation=(obligation.kind, obligation.violation),
            )

    # ---- judging concrete evaluations (the search before Z3) --------------------------------
    def _holds_not(
        self, expr: ast.Expr, params: tuple[ast.Param, ...], values: tuple[Value, ...]
    ) -> Callable[[Evaluation], bool]:
        compiled_expr = self.program.expr(expr)
        bound = _args(params, values)
        return lambda evaluation: not compiled_expr(evaluation, dict(bound))

    def _where_computed(
        self, name: str, values: tuple[Value, ...], single: Callable[[Evaluation], bool]
    ) -> Callable[[Evaluation], bool]:
        """Returns the judge `single` asked only of scenarios whose evaluation computes the
        definition instance, as the check's claim is (`Model.demand`). A scenario whose
        evaluation fails is judged all the same: the evaluator then confirms or not."""
        if name not in self.first.evaluated:
            return single
        results = self.statute.result_names

        def judge(evaluation: Evaluation) -> bool:
            try:
                for result in results:
                    evaluation.get(result)
            except (EvaluationError, ZeroDivisionError):
                return single(evaluation)
            return (name, values) in evaluation.memo and single(evaluation)

        return judge

    def _none_holds(
        self,
        conditions: list[ast.Expr | None],
        params: tuple[ast.Param, ...],
        values: tuple[Value, ...],
    ) -> Callable[[Evaluation], bool]:
        compiled_ = [self.program.condition(c) for c in conditions if c is not None]
        bound = _args(params, values)
        return lambda evaluation: not any(c(evaluation, dict(bound)) for c in compiled_)

    def _both_hold(
        self,
        first: ast.Expr | None,
        second: ast.Expr | None,
        params: tuple[ast.Param, ...],
        values: tuple[Value, ...],
    ) -> Callable[[Evaluation], bool]:
        if first is None or second is None:
            return lambda evaluation: False
        one, other = self.program.condition(first), self.program.condition(second)
        bound = _args(params, values)
        return lambda evaluation: bool(
            one(evaluation, dict(bound)) and other(evaluation, dict(bound))
        )

    def _outside(
        self, name: str, args: tuple[Value, ...], low: Fraction, high: Fraction | None
    ) -> Callable[[Evaluation], bool]:
        def outside(evaluation: Evaluation) -> bool:
            value = evaluation.get(name, args)
            return bool(value < low or (high is not None and value > high))  # type: ignore[operator]

        return outside

    def search(
        self, checks: list[Check], limit: int, deadline: float | None = None
    ) -> dict[str, Found]:
        """Returns the counterexamples the search before Z3 finds among its first `limit`
        scenarios (those tried by `deadline`, a time.perf_counter() value), by check name."""
        probes = {c.name: c.probe for c in checks if c.probe is not None}
        if self._searcher is None:
            self._searcher = Search(self.statute, self.program)
        return self._searcher.run(probes, limit, deadline)  # type: ignore[arg-type]

    def searched(self, check: Check, found: Found) -> Outcome | None:
        """Returns the VIOLATED outcome of a counterexample the search found, once the
        check's own judge (the evaluator) confirms it; None when it does not."""
        started = time.perf_counter()
        if check.confirm is None:
            return None
        try:
            confirmation = check.confirm(found.inputs, found.readings)
        except EvaluationError:
            return None
        if not confirmation.reproduced or not self._evaluates(check, found.inputs, found.readings):
            return None
        assert self._searcher is not None
        raised = check.compositional[0] if check.compositional is not None else None
        found = self._searcher.simpler(
            found,
            raised,
            lambda inputs, chosen: (
                self._evaluates(check, inputs, chosen) and check.confirm(inputs, chosen).reproduced
            ),
        )
        confirmation = check.confirm(found.inputs, found.readings)
        readings = {
            rid: option
            for rid, option in found.readings.items()
            if option != self.statute.readings[rid].default.name
        }
        outcome = Outcome(
            check,
            VIOLATED,
            time.perf_counter() - started,
            [dict(s) for s in found.scenarios],
            readings,
            detail=f"{confirmation.detail} (found by the search before Z3, scenario {found.tried})",
        )
        outcome.extra["found_by"] = "search"
        return outcome

    # ---- confirming counterexamples with the evaluator ------------------------------------
    def _run(self, inputs: dict[str, Value], readings: dict[str, str]) -> Evaluation:
        selected = {rid: r.default.name for rid, r in self.statute.readings.items()}
        selected.update(readings)
        return evaluate(self.program, inputs, selected)

    def _confirm_expr(
        self, expr: ast.Expr, params: tuple[ast.Param, ...], values: tuple[Value, ...]
    ) -> Callable[..., Confirmation]:
        bound = {p.name: v for p, v in zip(params, values, strict=True)}

        def confirm(scenarios: list[dict[str, Value]], readings: dict[str, str]) -> Confirmation:
            found = judge_expr(self.program, expr, bound, scenarios[0], readings)
            return Confirmation(found.violated, found.detail)

        return confirm

    def _confirm_monotone(
        self, input_name: str, results: list[str], falls: bool
    ) -> Callable[..., Confirmation]:
        def confirm(scenarios: list[dict[str, Value]], readings: dict[str, str]) -> Confirmation:
            found = judge_monotone(self.program, input_name, results, scenarios, readings, falls)
            return Confirmation(found.violated, found.detail)

        return confirm

    def _confirm_evaluates(
        self, first: tuple[str, tuple[Value, ...]] | None = None
    ) -> Callable[..., Confirmation]:
        def confirm(scenarios: list[dict[str, Value]], readings: dict[str, str]) -> Confirmation:
            found = judge_evaluates(self.program, scenarios[0], readings, first)
            return Confirmation(found.violated, found.detail)

        return confirm

    def _confirm_by(
        self, judge: Callable[[Evaluation], bool], first: tuple[str, tuple[Value, ...]]
    ) -> Callable[..., Confirmation]:
        """Returns the confirmation of a gap or an overlap by what the check claims: `judge`
        (no case applies, two cases both apply) must hold on the evaluator, which must then
        fail on the definition instance `first`. Another failure met first (another
        definition's gap) confirms nothing: it is that definition's own check's."""

        def confirm(scenarios: list[dict[str, Value]], readings: dict[str, str]) -> Confirmation:
            selected = {rid: r.default.name for rid, r in self.statute.readings.items()}
            selected.update(readings)
            evaluation = Evaluation(self.program, scenarios[0], selected, False)
            try:
                claimed = judge(evaluation)
            except (EvaluationError, ZeroDivisionError) as error:
                return Confirmation(False, f"the evaluator fails before it can tell: {error}")
            if not claimed:
                return Confirmation(False, "the evaluator finds the cases apply as they should")
            found = judge_evaluates(self.program, scenarios[0], readings, first)
            return Confirmation(found.violated, found.detail)

        return confirm

    def _confirm_derived(self, name: str) -> Callable[..., Confirmation]:
        def confirm(scenarios: list[dict[str, Value]], readings: dict[str, str]) -> Confirmation:
            found = judge_derived(self.program, name, scenarios[0], readings)
            return Confirmation(found.violated, found.detail)

        return confirm

    def _witness(
        self, name: str, args: tuple[Value, ...], exception: ast.ExceptionRule | None
    ) -> Callable[..., Confirmation]:
        """Returns the judge of a witness scenario: the evaluator, tracing `name(args)`, must
        take its value from `exception` (None: from the definition's own rule)."""

        def confirm(scenarios: list[dict[str, Value]], readings: dict[str, str]) -> Confirmation:
            selected = {rid: r.default.name for rid, r in self.statute.readings.items()}
            selected.update(readings)
            evaluation = Evaluation(self.program, scenarios[0], selected, True)
            evaluation.get(name, args)
            step = evaluation.steps[(name, args)]
            applied = step.exception.name if step.exception is not None else None
            wanted = exception.name if exception is not None else None
            said = f"exception {applied} applies" if applied else "no exception applies"
            return Confirmation(applied == wanted, f"the evaluator confirms it: {said}")

        return confirm

    def _confirm_value(
        self, name: str, args: tuple[Value, ...], low: Fraction, high: Fraction | None
    ) -> Callable[..., Confirmation]:
        def confirm(scenarios: list[dict[str, Value]], readings: dict[str, str]) -> Confirmation:
            found = judge_value(self.program, name, args, low, high, scenarios[0], readings)
            return Confirmation(found.violated, found.detail)

        return confirm

    # ---- proving --------------------------------------------------------------------------
    def _proved(self, check: Check, started: float, detail: str) -> Outcome:
        if self._rests_on_lists(check):
            bound = self.first.list_bound
            note = f"proved for lists of up to {bound} elements only"
            return Outcome(
                check,
                BOUNDED,
                time.perf_counter() - started,
                detail=f"{note}; {detail}" if detail else note,
            )
        if check.lemma is not None:
            self.monotone.facts[("invariant", (check.lemma, ()))] = True
        return Outcome(check, PROVED, time.perf_counter() - started, detail=detail)

    def _rests_on_lists(self, check: Check) -> bool:
        """True when a proof of `check` may depend on the bound on the length of lists: its
        claim or premise mentions a list's terms, or a constraint ties a list's terms to other
        inputs or readings (then the bound may narrow what the others can be)."""
        if not self.statute.list_inputs:
            return False
        key = id(check)
        if key not in self._on_lists:
            self._on_lists[key] = (check, self._walk_lists(check))
        return self._on_lists[key][1]

    def _walk_lists(self, check: Check) -> bool:
        models = [self.first] if check.second is None else [self.first, check.second]
        listed = set().union(*(self._ids(model)[0] for model in models))
        terms = [t for t in (check.claim, check.premise) if t is not None]
        constraints = set().union(*(self._ids(model)[1] for model in models))
        premise, claim = check.premise, check.claim
        if premise is not None and z3.is_implies(claim) and claim.arg(0).eq(premise):
            # The input constraints inside a premise are judged below, one by one.
            parts = premise.children() if z3.is_and(premise) else [premise]
            terms = [claim.arg(1), *(t for t in parts if t.get_id() not in constraints)]
        if self._symbols.of(terms) & listed:
            return True
        return any(self._constraints_tie_lists(model, listed) for model in models)

    def _ids(self, model: Model) -> tuple[set[int], set[int]]:
        """Returns the ids of a model's lists' own terms (each list's length, whether it is
        given, its elements' fields) and of its constraints, read once per model."""
        key = id(model)
        if key not in self._model_ids:
            listed = {
                term.get_id()
                for name, terms in model.lists.items()
                for term in (
                    model.inputs[name],
                    *((model.given[name],) if name in model.given else ()),
                    *(t for e in terms.elements for t in e.values()),
                )
            }
            constraints = {c.get_id() for c in model.constraints}
            self._model_ids[key] = (model, listed, constraints)
        return self._model_ids[key][1], self._model_ids[key][2]

    def _constraints_tie_lists(self, model: Model, listed: set[int]) -> bool:
        key = id(model)
        if key not in self._ties_lists:
            ties = False
            for constraint in model.constraints:
                symbols = self._symbols.of([constraint])
                if symbols & listed and symbols - listed:
                    ties = True
                    break
            self._ties_lists[key] = (model, ties)
        return self._ties_lists[key][1]

    def _decide(self, check: Check, *facts: Term) -> tuple[Any, Decided]:
        """Returns Z3's answer for the facts under the input constraints, and its solver.

        A check that does not rest on a list is decided over scenarios that give no evidence
        an input is derived from (`derived by ... when ...`): a derived value is a value the
        input may take, so such scenarios cover every other, and a counterexample is then a
        scenario that gives its inputs directly."""
        constraints = list(self.first.constraints)
        if check.second is not None:
            constraints += check.second.constraints
        models = [self.first] if check.second is None else [self.first, check.second]
        if not self._rests_on_lists(check):
            constraints += [z3.Not(c) for model in models for c in model.derivation_conditions()]
        else:
            constraints += self._derivations_named(check, models)
        # A missing value found is assumed away from every later check, the other missing
        # values included: a use the evaluator reaches only past the first (a rule's value past
        # its condition on the same input) is not a second failure. Other inputs' missing
        # values are still found, with this one given.
        constraints += [
            z3.Not(violation)
            for kind, violation in self.undefined
            if check.obligation is None or kind == MISSING
        ]
        if self.split_ms is None:
            return decide([*constraints, *facts], self.timeout_ms)
        return self._split(check, [*constraints, *facts])

    def _derivations_named(self, check: Check, models: list[Model]) -> list[Term]:
        """Returns the facts tying each input derived from a list to its rule's value where a
        scenario derives it, for the inputs the check names: without them, a derived input
        would be free beside the list it is derived from, and a property relating the two
        would be broken by a scenario the evaluator never makes."""
        if not any(d.derived_by for d in self.statute.inputs.values()):
            return []
        named = self._symbols.of([t for t in (check.claim, check.premise) if t is not None])
        return [
            link
            for model in models
            for name, link in model.derivation_links().items()
            if model.inputs[name].get_id() in named
        ]

    def _split(self, check: Check, facts: list[Term]) -> tuple[Any, Decided]:
        """Returns Z3's answer decided case by case: one case per combination of the values
        of the enum and bool inputs and the readings the facts read (at most SPLIT_CASES),
        all within `split_ms`; unsat only when every case is unsat, sat as soon as one is.

        Most cases are decided in milliseconds: each is first given an even share of the
        time, then the undecided ones share what is left."""
        cases = self._cases(facts) or [[]]
        deadline = work() + (self.split_ms or 1) / 1000
        last: Decided | None = None
        pending = list(range(len(cases)))
        for _ in range(2):
            undecided = []
            for number, index in enumerate(pending):
                share = (deadline - work()) * 1000 / (len(pending) - number)
                if share < 1:
                    undecided.append(index)
                    continue
                answer, solver = decide([*facts, *cases[index]], int(share))
                last = solver
                if answer == z3.sat:
                    return answer, solver
                if answer == z3.unknown:
                    undecided.append(index)
            pending = undecided
            if not pending:
                break
        if last is None:
            last = Decided(None, facts, z3.main_ctx())
        if pending:
            self.split_note = f"{len(pending)} of {len(cases)} cases undecided"
            return z3.unknown, last
        return z3.unsat, last

    def _cases(self, facts: list[Term]) -> list[list[Term]]:
        """Returns the cases to split `facts` into: the enum inputs and readings they read
        first (each member a case), then their bool inputs, as long as the cases number at
        most SPLIT_CASES."""
        symbols = self._symbols.of(facts)
        splits: list[list[Term]] = []
        enums = [
            (len(d.type.members), self.first.inputs[d.name])
            for d in self.statute.inputs.values()
            if d.type.kind == "enum" and d.name in self.first.inputs
        ] + [
            (len(self.statute.readings[rid].options), variable)
            for rid, variable in self.first.readings.items()
        ]
        bools = [
            self.first.inputs[d.name]
            for d in self.statute.inputs.values()
            if d.type.kind == "bool" and d.name in self.first.inputs
        ]
        count = 1
        for size, variable in enums:
            if variable.get_id() in symbols and count * size <= SPLIT_CASES:
                splits.append([variable == k for k in range(size)])
                count *= size
        for variable in bools:
            if variable.get_id() in symbols and count * 2 <= SPLIT_CASES:
                splits.append([variable, z3.Not(variable)])
                count *= 2
        return [list(case) for case in product(*splits)] if splits else []

    def _confirms(
        self, check: Check, validate: Callable[[dict[str, object]], dict[str, Value]]
    ) -> Callable[[list[dict[str, object]], dict[str, str]], bool]:
        """Returns whether the evaluator reproduces the check's breach at given scenarios
        (invalid scenarios raise)."""

        def confirms(scenarios: list[dict[str, object]], readings: dict[str, str]) -> bool:
            if check.confirm is None:
                return True
            inputs = [validate(s) for s in scenarios]
            if not self._evaluates(check, inputs, readings):
                return False
            try:
                return check.confirm(inputs, readings).reproduced
            except EvaluationError:
                return True  # a gap or an overlap of the encoding: a breach too

        return confirms

    def _assumed(self) -> str:
        """Returns what a vacuity found says of the gaps and overlaps assumed away from it
        (none: nothing)."""
        kinds = [kind for kind, _ in self.undefined if kind != MISSING]
        if not kinds:
            return ""
        found = ", ".join(f"{kinds.count(k)} '{k}'" for k in dict.fromkeys(kinds))
        return (
            " where the encoding is defined (what the failing well-formedness checks found is "
            f"assumed away: {found}; mend those first)"
        )

    def _evaluates(
        self, check: Check, inputs: list[dict[str, Value]], readings: dict[str, str]
    ) -> bool:
        """True when the check is a well-formedness check (a gap, an overlap, a missing value
        is what it finds), or when the evaluator evaluates every scenario without failing: a
        property's counterexample is a scenario the encoding defines, where the property is
        false, not another definition's gap (its own check reports that one)."""
        if check.kind == "well-formed":
            return True
        return not any(judge_evaluates(self.program, i, readings).violated for i in inputs)

    def prove(
        self, check: Check, validate: Callable[[dict[str, object]], dict[str, Value]]
    ) -> Outcome:
        """Returns the outcome of one check; `validate` turns a scenario into exact inputs."""
        started = time.perf_counter()
        if check.refused is not None:
            return Outcome(check, VACUOUS, 0.0, detail=check.refused)
        if check.build is not None:
            check.claim, check.build = check.build(), None
        if check.premise is not None:
            answer, solver = self._decide(check, check.premise)
            if answer == z3.unknown:
                return Outcome(
                    check,
                    UNKNOWN,
                    time.perf_counter() - started,
                    detail=f"vacuity check: {solver.reason_unknown()}",
                )
            if answer == z3.unsat:
                return Outcome(
                    check,
                    VACUOUS,
                    time.perf_counter() - started,
                    detail="the premise never holds for a valid scenario" + self._assumed(),
                )
        if check.checks_no_rule is not None and check.checks_no_rule(min(self.timeout_ms, 2000)):
            return Outcome(
                check,
                VACUOUS,
                time.perf_counter() - started,
                detail="proved even with every rule it names left free: it checks no rule (a "
                "tautology, or what the inputs' declarations already say)",
            )
        if check.witness is not None:
            return self._witnessed(check, started, solver, validate)
        if z3.is_true(check.claim):  # what remains to decide is `not true`: nothing
            return self._proved(check, started, "")
        if check.kind == "invariant" and self.monotone.from_facts(check.claim):
            return self._proved(check, started, "from what is proved of the definitions it uses")
        if check.compositional is not None:
            input_name, results = check.compositional
            # The local steps share one timeout; the whole formula below has its own.
            self.monotone.deadline = work() + self.timeout_ms / 1000
            try:
                proof = self.monotone.prove(input_name, results, check.falls)
            finally:
                self.monotone.deadline = None
            wanted = "down" if check.falls else "up"
            if all(proof.directions.get((r, ())) in (wanted, "same") for r in results):
                # Through `_proved`: local steps over a list's bounded elements prove no more
                # than the whole formula would (BOUNDED).
                detail = f"{proof.steps} local steps, {proof.cached} shared with other inputs"
                return self._proved(check, started, detail)
            undecided = ", ".join(step_label(k, None) + str(k[1] or "") for k in proof.undecided)
            if not self.whole_pairs:
                return Outcome(
                    check,
                    UNKNOWN,
                    time.perf_counter() - started,
                    detail=f"local steps not decided: {undecided or 'none'}",
                )
        # Not proved compositionally: the whole formula decides, with a counterexample if any.
        answer, solver = self._decide(check, z3.Not(check.claim))
        if answer == z3.unsat:
            return self._proved(check, started, "")
        if answer == z3.unknown:
            detail = solver.reason_unknown() or "undecided"
            if check.compositional is not None:
                detail += f"; local steps not decided: {undecided or 'none'}"
            if self.split_note:
                detail += f"; split by cases: {self.split_note}"
                self.split_note = ""
            hard = hardness([check.claim, *([check.premise] if check.premise is not None else [])])
            if hard:
                detail += f"; {hard}"
            return Outcome(check, UNKNOWN, time.perf_counter() - started, detail=detail)
        model = solver.model()
        copies = [self.first] if check.second is None else [self.first, check.second]
        # The same violation at a canonical, readable point (verify/witness.py), so that two
        # runs write the same counterexample; failing that, the model as found, in whole
        # cents when possible (which a scenario file can state exactly).
        found = minimise(copies, list(solver.assertions()), model, self._confirms(check, validate))
        if found is not None:
            exact, readings = found.scenarios, found.readings
            in_cents = z3.sat if all(in_whole_cents(s) for s in exact) else z3.unknown
        else:
            decimals = decimal_constraints(self.first)
            if check.second is not None:
                decimals += decimal_constraints(check.second)
            in_cents, cents_solver = decide([*solver.assertions(), *decimals], self.timeout_ms)
            if in_cents == z3.sat:
                model = cents_solver.model()
            exact = [copy.scenario(model, exact=True)[0] for copy in copies]
            readings = self.first.scenario(model)[1]
        scenarios = [scenario_text(self.statute, s) for s in exact]
        outcome = Outcome(check, VIOLATED, time.perf_counter() - started, scenarios, readings)
        outcome.extra["minimised"] = found is not None
        if in_cents != z3.sat:
            outcome.extra["not_in_cents"] = True
        if check.confirm is not None:
            try:
                inputs = [validate(s) for s in exact]
            except Exception as error:
                outcome.status = ERROR
                outcome.detail = f"the counterexample is not a valid scenario: {error}"
                return outcome
            try:
                confirmation = check.confirm(inputs, readings)
            except EvaluationError as error:
                # The scenario reaches a gap or an overlap of the encoding: a breach too.
                confirmation = Confirmation(True, f"the evaluator fails here: {error}")
            outcome.detail = confirmation.detail
            if in_cents != z3.sat:
                outcome.detail += (
                    " (no counterexample in whole cents was found in time: some "
                    "amounts are exact fractions a scenario file cannot state)"
                )
            if not confirmation.reproduced:
                outcome.status = ERROR
                outcome.detail = (
                    "the evaluator does not reproduce the counterexample (a bug in "
                    "the translation to Z3): " + confirmation.detail
                )
        outcome.seconds = time.perf_counter() - started
        return outcome

    def _witnessed(
        self,
        check: Check,
        started: float,
        solver: Decided,
        validate: Callable[[dict[str, object]], dict[str, Value]],
    ) -> Outcome:
        """Returns the outcome of a check proved by a witness: PROVED when the evaluator
        confirms the scenario Z3 found for the premise (it exists, whatever the lengths of its
        lists), ERROR when it does not."""
        exact, readings = self.first.scenario(solver.model(), exact=True)
        shown = scenario_text(self.statute, exact)
        assert check.witness is not None
        try:
            confirmation = check.witness([validate(exact)], readings)
        except Exception as error:
            return Outcome(
                check,
                ERROR,
                time.perf_counter() - started,
                [shown],
                readings,
                detail=f"the witness is not confirmed by the evaluator: {error}",
            )
        if not confirmation.reproduced:
            return Outcome(
                check,
                ERROR,
                time.perf_counter() - started,
                [shown],
                readings,
                detail="the evaluator does not confirm the witness (a bug in the translation "
                "to Z3): " + confirmation.detail,
            )
        outcome = Outcome(
            check, PROVED, time.perf_counter() - started, detail=f"witness: {confirmation.detail}"
        )
        outcome.extra["witness"] = shown
        return outcome


def hardness(terms: list[Term]) -> str:
    """Returns what makes the terms hard for Z3, for a message: the nonlinear operations
    (a product or quotient of two unknowns, a floor of one) and the inputs inside them."""
    kinds: dict[str, int] = {}
    inputs: set[str] = set()
    names_of: dict[int, frozenset[str]] = {}  # shared: nonlinear terms share their subterms
    seen: set[int] = set()
    stack = list(terms)
    while stack:
        term = stack.pop()
        if term.get_id() in seen:
            continue
        seen.add(term.get_id())
        kind = term.decl().kind() if z3.is_app(term) else None
        label = None
        if (
            kind == z3.Z3_OP_MUL
            and sum(not z3.is_rational_value(a) and not z3.is_int_value(a) for a in term.children())
            > 1
        ):
            label = "product"
        elif kind in (z3.Z3_OP_DIV, z3.Z3_OP_IDIV) and not (
            z3.is_rational_value(term.arg(1)) or z3.is_int_value(term.arg(1))
        ):
            label = "division"
        elif kind == z3.Z3_OP_TO_INT:
            label = "floor"
        if label is not None:
            kinds[label] = kinds.get(label, 0) + 1
            for child in term.children():
                inputs |= _input_names(child, names_of)
        stack.extend(term.children())
    if not kinds:
        return ""
    plural = {"product": "products", "division": "divisions", "floor": "floors"}
    shown = ", ".join(f"{n} {plural[k] if n > 1 else k}" for k, n in sorted(kinds.items()))
    named = sorted(n for n in inputs if "__" not in n and not n.startswith("reading_"))
    more = f" and {len(named) - HARD_NAMES} more" if len(named) > HARD_NAMES else ""
    over = f" of unknowns, over {', '.join(named[:HARD_NAMES])}{more}" if named else ""
    return f"nonlinear arithmetic: {shown}{over}"


def _input_names(term: Term, names_of: dict[int, frozenset[str]]) -> frozenset[str]:
    """Returns the names of the uninterpreted constants in a term (inputs, readings);
    `names_of` holds those of the subterms already seen, by their id, and is added to."""
    stack: list[tuple[Term, list[Term] | None]] = [(term, None)]
    while stack:
        node, children = stack.pop()
        key = node.get_id()
        if key in names_of:
            continue
        if children is None:
            children = node.children()
            stack.append((node, children))
            stack.extend((child, None) for child in children if child.get_id() not in names_of)
        elif z3.is_const(node) and node.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            names_of[key] = frozenset((node.decl().name(),))
        else:
            names_of[key] = frozenset().union(*(names_of[c.get_id()] for c in children))
    return names_of[term.get_id()]


def _args(params: tuple[ast.Param, ...], values: tuple[Value, ...]) -> dict[str, Value]:
    return {p.name: v for p, v in zip(params, values, strict=True)}


def _param_suffix(params: tuple[ast.Param, ...], values: tuple[Value, ...]) -> str:
    if not params:
        return ""
    shown = ", ".join(
        f"{p.name}={'true' if v is True else 'false' if v is False else v}"
        for p, v in zip(params, values, strict=True)
    )
    return f"({shown})"


def _pairs(items: list[Any]) -> Iterator[tuple[Any, Any]]:
    for i, first in enumerate(items):
        for second in items[i + 1 :]:
            yield first, second
