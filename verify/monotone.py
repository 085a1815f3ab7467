"""Compositional proofs of monotone properties.

Raising one input (all else equal) must never lower a result. Proving that on two whole copies
of the statute at once is a hard nonlinear problem for Z3. Instead, every definition instance
that depends on the input is taken bottom-up, and its *direction* is proved locally: in the
second copy its direct dependencies that depend on the input are replaced by variables known
to have moved in their own proved direction relative to the first copy; everything else is
shared by the two copies. A result is proved to rise when its own local step proves so; each
step is sound on its own, so the chain is a proof. Local steps that recur (the same formula for
another input) are decided once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import z3

from .model import Model, Term
from .solve import decide, work
from .terms import SymbolIndex

Key = tuple[str, tuple[Any, ...]]
# The time a small, abstract formula gets before the next, more concrete tier is tried: small
# formulas are decided at once when they can be, but Z3's luck varies with the process's state.
QUICK_MS = 2000
# "same": a result that does not depend on the input, equal in both copies.
Direction = Literal["up", "down", "same", "unknown"]


@dataclass
class MonotoneProof:
    """The outcome of proving that raising `input_name` never lowers each result."""

    input_name: str
    directions: dict[Key, Direction] = field(default_factory=dict)
    steps: int = 0
    cached: int = 0
    undecided: list[Key] = field(default_factory=list)


class MonotoneProver:
    """Proves directions of definitions with respect to one input at a time."""

    def __init__(self, first: Model, second_for: Callable[[str], Model], timeout_ms: int) -> None:
        self.first = first
        self.second_for = second_for
        self.timeout_ms = timeout_ms
        # Keyed by AST ids; the facts are kept alive with the answer so that no id is reused.
        self.cache: dict[tuple[int, ...], tuple[list[Term], bool]] = {}
        self.facts: dict[tuple[str, Key], bool] = {}
        # When set (a verify/solve.work() value), no Z3 call is made past it.
        self.deadline: float | None = None
        self.symbols = SymbolIndex()
        # The invariants used as lemmas: the definitions each names, and its formula in each
        # copy of the model.
        self.lemma_keys: dict[str, frozenset[Key]] = {}
        self.stated: dict[tuple[int, str], tuple[Model, Term]] = {}

    def _unsat(self, facts: list[Term], quick: bool = False) -> bool:
        key = tuple(sorted(f.get_id() for f in facts))
        if key in self.cache:
            return self.cache[key][1]
        limit = min(self.timeout_ms, QUICK_MS) if quick else self.timeout_ms
        if self.deadline is not None:
            left = int((self.deadline - work()) * 1000)
            if left <= 0:
                return False  # the check's time is spent: not proved, and not cached
            limit = min(limit, left)
        answer, _ = decide(facts, limit)
        if answer != z3.unknown:
            self.cache[key] = (facts, answer == z3.unsat)
            return answer == z3.unsat
        return False  # undecided is not proved (and not cached: a later budget may decide)

    def depends(self, input_name: str) -> set[Key]:
        """Returns the definition instances whose value can depend on the input."""
        uses, input_uses = self.first.uses, self.first.input_uses
        found: set[Key] = set()
        changed = True
        while changed:
            changed = False
            for key, used in uses.items():
                if key in found:
                    continue
                if input_name in input_uses.get(key, ()) or used & found:
                    found.add(key)
                    changed = True
        return found

    def _local(
        self,
        key: Key,
        moving: set[Key],
        proof: MonotoneProof,
        second: Model,
        rises: Term,
        input_name: str,
        tier: str,
    ) -> tuple[list[Term], Term, Term]:
        """Returns the facts and the two terms of one local step for definition `key`.

        Tiers: `abstract` replaces the moving dependencies in both copies by variables that
        moved in their proved direction; `signs` also replaces the dependencies that do not
        move by one shared variable each, never negative when so proved; `one-sided` keeps
        the first copy whole."""
        abstract_first = tier != "one-sided"
        first = self.first
        term_before, term_after = first.memo[key], second.memo[key]
        hypotheses: list[Term] = []
        before_map: dict[Key, Term] = {}
        after_map: dict[Key, Term] = {}
        for used in sorted(first.uses.get(key, ()) & moving, key=repr):
            direction = proof.directions.get(used, "unknown")
            if direction == "unknown":
                continue
            name = f"{used[0]}{used[1]}"
            after_map[used] = _fresh_like(second.memo[used], f"{name}__after")
            original = first.memo[used]
            if abstract_first:
                original = _fresh_like(first.memo[used], f"{name}__before")
                before_map[used] = original
                hypotheses += self.facts_of(used, original)
            hypotheses += self.facts_of(used, after_map[used])
            hypotheses.append(moved_as(original, after_map[used], direction))
        if tier == "signs":
            for used in sorted(first.uses.get(key, ()) - moving, key=repr):
                shared = _fresh_like(first.memo[used], f"{used[0]}{used[1]}__shared")
                before_map[used] = shared
                after_map[used] = shared
                hypotheses += self.facts_of(used, shared)
        if abstract_first:
            hypotheses += self.lemmas(before_map, after_map, second)
        if after_map:
            term_after = z3.substitute(
                term_after, *[(second.memo[k], v) for k, v in after_map.items()]
            )
        if before_map:
            term_before = z3.substitute(
                term_before, *[(first.memo[k], v) for k, v in before_map.items()]
            )
        facts = [*first.constraints, *hypotheses]
        if input_name in first.input_uses.get(key, ()):
            facts += [rises, *second.constraints]
        return facts, term_before, term_after

    def facts_of(self, key: Key, variable: Term) -> list[Term]:
        """Returns what is proved of every value of a definition instance, stated of the
        variable standing for it: never negative, or one of its enum's members."""
        definition = self.first.statute.definitions[key[0]]
        found = []
        if definition.type.kind == "enum":
            if self.proved(
                ("range", key), lambda t: z3.And(t >= 0, t < len(definition.type.members))
            ):
                found.append(z3.And(variable >= 0, variable < len(definition.type.members)))
        elif (
            (definition.type.is_numeric or definition.type.kind == "bool")
            and not z3.is_bool(variable)
            and self.proved(("sign", key), lambda t: t >= 0)
        ):
            found.append(variable >= 0)
        return found

    def proved(self, name: tuple[str, Key], claim: Callable[[Term], Term]) -> bool:
        """Returns True when `claim` of the instance's term holds for every valid scenario.

        A definition's facts are first proved from what is proved of its direct dependencies
        (each replaced by a variable), then, failing that, from its whole formula."""
        if name not in self.facts:
            self.facts[name] = False  # a cycle of facts proves nothing
            key = name[1]
            term = self.first.memo.get(key)
            proved = False
            if term is not None and self.first.uses.get(key):
                substitutions, hypotheses = [], []
                for used in sorted(self.first.uses[key], key=repr):
                    variable = _fresh_like(self.first.memo[used], f"{used[0]}{used[1]}__fact")
                    substitutions.append((self.first.memo[used], variable))
                    hypotheses += self.facts_of(used, variable)
                abstract = z3.substitute(term, *substitutions)
                proved = self._unsat(
                    [*self.first.constraints, *hypotheses, z3.Not(claim(abstract))], quick=True
                )
            if not proved:
                proved = self._unsat([*self.first.constraints, z3.Not(claim(term))])
            self.facts[name] = proved
        return self.facts[name]

    def from_facts(self, claim: Term) -> bool:
        """Returns True when `claim` follows from the proved facts (signs, ranges) of the
        definitions it uses, each replaced by a variable: a quick, small proof."""
        substitutions, hypotheses = [], []
        for key, term in self.first.memo.items():
            if key[0] in self.first.statute.definitions:
                variable = _fresh_like(term, f"{key[0]}{key[1]}__fact")
                substitutions.append((term, variable))
        abstract = z3.substitute(claim, *substitutions)
        if abstract.eq(claim):
            return False
        present = self.symbols.of([abstract])
        for key, term in self.first.memo.items():
            variable = _fresh_like(term, f"{key[0]}{key[1]}__fact")
            if variable.get_id() in present:
                hypotheses += self.facts_of(key, variable)
        return self._unsat([*self.first.constraints, *hypotheses, z3.Not(abstract)], quick=True)

    def lemmas(
        self, before_map: dict[Key, Term], after_map: dict[Key, Term], second: Model
    ) -> list[Term]:
        """Returns the encoding's invariants (without parameters) that speak only of the
        abstracted definitions, proved, and stated of the variables standing for them."""
        found = []
        for invariant in self.first.statute.invariants:
            if invariant.params:
                continue
            keys = self._lemma_keys(invariant)
            if not keys or not (keys <= before_map.keys() and keys <= after_map.keys()):
                continue
            if not self.proved(
                ("invariant", (invariant.name, ())),
                lambda _t, i=invariant: self._stated(i, self.first),
            ):
                continue
            before, after = self._stated(invariant, self.first), self._stated(invariant, second)
            found.append(
                z3.substitute(before, *[(self.first.memo[k], before_map[k]) for k in keys])
            )
            found.append(z3.substitute(after, *[(second.memo[k], after_map[k]) for k in keys]))
        return found

    def _lemma_keys(self, invariant: Any) -> frozenset[Key]:
        """Returns the definitions (without arguments) an invariant names, worked out once."""
        found = self.lemma_keys.get(invariant.name)
        if found is None:
            definitions = self.first.statute.definitions
            found = frozenset((n, ()) for n in _names(invariant.expr) if n in definitions)
            self.lemma_keys[invariant.name] = found
        return found

    def _stated(self, invariant: Any, model: Model) -> Term:
        """Returns an invariant's formula in one copy of the model, built once per copy (each
        local step of each monotone check asks for it)."""
        key = (id(model), invariant.name)
        found = self.stated.get(key)
        if found is None:
            # The copy is kept with its formula, so that its id is not reused.
            found = self.stated[key] = (
                model,
                model.expr(invariant.expr, {}, z3.BoolVal(True), record=False),
            )
        return found[1]

    def prove(self, input_name: str, results: list[str], falls: bool = False) -> MonotoneProof:
        """Returns the proved direction of every instance the results need (w.r.t. the input):
        each step tried rising first, or falling first when the property says the results
        fall (a step that stays the same proves both, and is named by the first tried)."""
        first = self.first
        second = self.second_for(input_name)
        for result in results:
            second.term(result)
        declared = first.statute.inputs[input_name]
        before, after = first.inputs[input_name], second.inputs[input_name]
        rises = z3.And(z3.Not(before), after) if declared.type.kind == "bool" else after > before
        moving = self.depends(input_name)
        proof = MonotoneProof(input_name)
        order: list[Key] = []
        seen: set[Key] = set()

        def visit(key: Key) -> None:
            if key in seen or key not in moving:
                return
            seen.add(key)
            for used in sorted(first.uses.get(key, ()), key=repr):
                visit(used)
            order.append(key)

        for result in results:
            visit((result, ()))
            if (result, ()) not in moving:
                # A result that does not depend on the input is a function of what the two
                # copies share: it is the same in both, so it never falls.
                proof.directions[(result, ())] = "same"
        for key in order:
            proof.steps += 1
            direction: Direction = "unknown"
            # First with both copies' moving dependencies abstracted (a small formula), then
            # with the first copy's kept whole (when the step needs what they are made of).
            # The most abstract (smallest) formulas first, each tried briefly; the last tier
            # gets the whole timeout.
            for tier in ("signs", "abstract", "one-sided"):
                quick = tier != "one-sided"
                facts, before_term, after_term = self._local(
                    key, moving, proof, second, rises, input_name, tier
                )
                for candidate in ("down", "up") if falls else ("up", "down"):
                    claim = moved_as(before_term, after_term, candidate)  # type: ignore[arg-type]
                    size = len(self.cache)
                    if self._unsat([*facts, z3.Not(claim)], quick):
                        direction = candidate  # type: ignore[assignment]
                        if len(self.cache) == size:
                            proof.cached += 1
                        break
                if direction != "unknown":
                    break
            proof.directions[key] = direction
            if direction == "unknown":
                proof.undecided.append(key)
        return proof


def _names(expr: Any) -> set[str]:
    """Returns the names an expression refers to or calls."""
    from lextrace.dsl import ast
    from lextrace.dsl.checker import walk

    return {n.name for n in walk(expr) if isinstance(n, ast.Ref | ast.Call)}


def _fresh_like(term: Term, name: str) -> Term:
    if z3.is_bool(term):
        return z3.Bool(name)
    if z3.is_int(term):
        return z3.Int(name)
    if z3.is_real(term):
        return z3.Real(name)
    return z3.Const(name, term.sort())  # a duration


def moved_as(before: Term, after: Term, direction: Direction) -> Term:
    """Returns the fact that `after` moved from `before` in `direction` (false < true)."""
    if z3.is_bool(before):
        return z3.Implies(before, after) if direction == "up" else z3.Implies(after, before)
    return after >= before if direction == "up" else after <= before
