"""A fast counterexample search, run before Z3, from the encoding's own numbers.

Z3 decides a check over every valid scenario, but a nonlinear rule (`floor(x / (40% * y))`)
can make it time out on a check a plain scenario breaks. So, before Z3, concrete scenarios
built from the encoding itself are run through the reference evaluator (exact) and each check
is judged on them:

- the values tried for an input: every number the rules and bounds state, one cent (or one
  hundredth, one unit for a count) and one unit either side of it, zero, a few powers of ten,
  the input's bounds and default; each member of an enum; a bool both ways;
- the scenarios: a few base scenarios (every input at its default or least value, then at
  quantiles of its values, bools and enums cycled), each varied one input at a time through
  all its values, and a fixed number of scenarios mixing the values at random (seeded, so two
  runs try the same scenarios); each base under every reading's options in turn;
- a two-scenario (monotone) check is judged on neighbours: the input raised from each value
  tried to the next, the rest of the scenario unchanged (a value lowered between any two
  values is lowered between two neighbours).

A check broken by a scenario is VIOLATED with that scenario as its counterexample, which the
evaluator confirms by construction (the check's own judge is re-run on it); Z3 is then not
asked. Finding nothing proves nothing: the check goes to Z3. Nothing here is specific to one
statute; the order of the scenarios is fixed, so the counterexamples found are the same on
every run.
"""

from __future__ import annotations

import datetime
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fractions import Fraction

from lextrace.dsl import ast
from lextrace.dsl.checker import walk
from lextrace.dsl.errors import ScenarioError
from lextrace.dsl.evaluator import Evaluation, EvaluationError, Program
from lextrace.dsl.scenario import default_value, validate
from lextrace.dsl.values import Value

from .model import scenario_text
from .replay import moved_wrong

# How many scenarios the search evaluates at most, and how many of them mix values at random:
# a few seconds of the evaluator on a large encoding.
MAX_SCENARIOS = 2_000
QUICK_SCENARIOS = 500
# How many of the least values of an input the readable counterexample tries, of each kind.
CANDIDATES = 8
QUANTILES = (Fraction(1, 2), Fraction(1), Fraction(1, 4), Fraction(3, 4))
POWERS_OF_TEN = tuple(Fraction(10) ** k for k in range(0, 10))

# A judge of one check on concrete evaluations: True when the check is broken there.
Single = Callable[[Evaluation], bool]


@dataclass
class Probe:
    """What the search asks of one check: `single` on one evaluation, or, for a pair, that
    raising `input` lowers none of `results` (raises none of them, when `falls`)."""

    single: Single | None = None
    input: str | None = None
    results: tuple[str, ...] = ()
    falls: bool = False


@dataclass
class Found:
    """A counterexample found by the search: its scenarios (one, or before and after) in the
    scenario format, their validated inputs, and the readings selected."""

    scenarios: list[dict[str, object]]
    inputs: list[dict[str, Value]]
    readings: dict[str, str]
    tried: int


def stated_numbers(statute: ast.Statute) -> tuple[dict[str, set[Fraction]], dict[str, set[str]]]:
    """Returns, for each input, the numbers the encoding states near it: in the expressions
    that name it, and in those that name a definition computed from such an expression (two
    steps up), so that a threshold on a ratio or a difference of inputs is near each input;
    and, for each input, the other inputs named in those expressions (its partners)."""
    units = list(_units(statute))
    names = [
        {n.name for e in exprs for n in walk(e) if isinstance(n, ast.Ref | ast.Call | ast.Given)}
        for _, exprs in units
    ]
    numbers = [
        {
            Fraction(n.value)
            for e in exprs
            for n in walk(e)
            if isinstance(n, ast.Literal) and not isinstance(n.value, bool)
        }
        for _, exprs in units
    ]
    found: dict[str, set[Fraction]] = {}
    partners: dict[str, set[str]] = {}
    for name in statute.inputs:
        near = {name}
        for _ in range(3):
            near |= {
                owner
                for (owner, _), used in zip(units, names, strict=True)
                if owner and used & near
            }
        found[name] = {
            number
            for used, stated in zip(names, numbers, strict=True)
            if used & near
            for number in stated
        }
        direct = set().union(*(used for used in names if name in used))
        partners[name] = {other for other in _reached(direct, units, names) if other != name}
    return found, partners


def _reached(
    start: set[str], units: list[tuple[str, list[ast.Expr]]], names: list[set[str]]
) -> set[str]:
    """Returns the inputs among `start` and those the definitions named in it are computed
    from, however deep."""
    uses: dict[str, set[str]] = {}
    for (owner, _), used in zip(units, names, strict=True):
        if owner:
            uses.setdefault(owner, set()).update(used)
    seen: set[str] = set()
    stack = list(start)
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        stack.extend(uses.get(name, ()))
    return seen


def _units(statute: ast.Statute) -> Iterator[tuple[str, list[ast.Expr]]]:
    """Yields each definition's expressions (named by it), each invariant's and each input's
    bounds and default (named by the input)."""
    for definition in statute.definitions.values():
        exprs: list[ast.Expr | None] = []
        if isinstance(definition, ast.Rule):
            exprs += [definition.expr, definition.condition]
        elif isinstance(definition, ast.Cases):
            exprs.append(definition.otherwise)
            for case in definition.cases:
                exprs += [case.expr, case.condition]
        for exception in definition.exceptions:
            exprs += [exception.expr, exception.condition]
        yield definition.name, [e for e in exprs if e is not None]
    for invariant in statute.invariants:
        yield "", [invariant.expr]
    for declared in statute.inputs.values():
        exprs = [b.value for b in declared.bounds] + [b.when for b in declared.bounds if b.when]
        if declared.default is not None:
            exprs.append(declared.default)
        yield declared.name, [ast.Ref(declared.span, declared.name), *exprs]


def _limits(declared: ast.Input) -> tuple[Fraction | None, bool, Fraction | None]:
    """Returns (lower, strict, upper) from the input's unconditional literal bounds."""
    lower: Fraction | None = None
    strict = False
    upper: Fraction | None = None
    for bound in declared.bounds:
        if bound.when is not None or not isinstance(bound.value, ast.Literal):
            continue
        value = bound.value.value
        if isinstance(value, bool):
            continue
        value = Fraction(value)
        if bound.kind == "max":
            upper = value if upper is None else min(upper, value)
        elif lower is None or value > lower or (value == lower and bound.kind == "above"):
            lower, strict = value, bound.kind == "above"
    return lower, strict, upper


def values_of(
    declared: ast.Input, numbers: set[Fraction], round_only: bool = False
) -> list[object]:
    """Returns the exact values the search tries for an input, in ascending order (bools
    false first, enum members in declaration order); empty for lists and text. `round_only`:
    only the numbers themselves, not one step either side (the values of base scenarios)."""
    kind = declared.type.kind
    if kind == "bool":
        return [False, True]
    if kind == "enum":
        return list(declared.type.members)
    if kind not in ("count", "money", "number", "share", "date"):
        return []
    lower, strict, upper = _limits(declared)
    if kind == "date":
        days = {d for d in (lower, upper) if d is not None}
        if declared.default is not None:
            days.add(Fraction(default_value(declared).toordinal()))  # type: ignore[union-attr]
        found = sorted({d + s for d in days for s in (-1, 0, 1)})
        return [datetime.date.fromordinal(int(d)) for d in found if 1 <= d <= 3_652_059]
    step = Fraction(1) if kind == "count" else Fraction(1, 100)
    seeds = {Fraction(0), *numbers, *POWERS_OF_TEN}
    if kind == "share":
        seeds = {Fraction(0), Fraction(1), Fraction(1, 2), *(n for n in numbers if n <= 1)}
    seeds |= {b for b in (lower, upper) if b is not None}
    if declared.default is not None:
        default = default_value(declared)
        if isinstance(default, int | Fraction) and not isinstance(default, bool):
            seeds.add(Fraction(default))
    around = {s + d for s in seeds for d in (-step, Fraction(0), step)}
    if round_only:
        around = seeds
    if kind == "count":
        around = {Fraction(int(v)) for v in around if v.denominator == 1}
    found = []
    for value in sorted(around):
        if value < 0 and kind != "number":
            continue
        if lower is not None and (value < lower or (strict and value == lower)):
            continue
        if upper is not None and value > upper:
            continue
        if kind == "share" and not 0 <= value <= 1:
            continue
        found.append(int(value) if kind == "count" else value)
    return found


class Search:
    """Concrete scenarios of one encoding, evaluated once each, on which checks are judged."""

    def __init__(self, statute: ast.Statute, program: Program) -> None:
        self.statute = statute
        self.program = program
        numbers, self.partners = stated_numbers(statute)
        # The fractions a partner's value is scaled by: p, 1 - p and 1 + p for each share
        # stated near the input, and 1 (a threshold on a ratio or a difference of inputs).
        self.scales = {
            name: sorted(
                {Fraction(1)} | {f for p in stated if 0 < p < 1 for f in (p, 1 - p, 1 + p)}
            )
            for name, stated in numbers.items()
        }
        self.values: dict[str, list[object]] = {}
        self.round: dict[str, list[object]] = {}
        for declared in statute.inputs.values():
            if declared.type.kind == "list":
                continue
            found = values_of(declared, numbers[declared.name])
            if found:
                self.values[declared.name] = found
                self.round[declared.name] = (
                    values_of(declared, numbers[declared.name], round_only=True) or found
                )
        self.readings = {rid: r.default.name for rid, r in statute.readings.items()}
        self.usable = all(
            d.name in self.values or not d.required for d in statute.inputs.values()
        ) and not any(d.required and d.type.kind == "list" for d in statute.inputs.values())
        self.tried = 0
        self.deadline: float | None = None
        self.limit = MAX_SCENARIOS

    # ---- the scenarios ----------------------------------------------------------------
    def _bases(self) -> list[dict[str, object]]:
        bases: list[dict[str, object]] = []
        defaults: dict[str, object] = {}
        least: dict[str, object] = {}
        for name, options in self.values.items():
            declared = self.statute.inputs[name]
            least[name] = options[0]
            if declared.default is not None:
                defaults[name] = default_value(declared)
            elif declared.required or declared.required_when is not None:
                rounds = self.round[name]
                defaults[name] = rounds[len(rounds) // 2]
        bases.append(defaults)
        bases.append(least)
        for index, quantile in enumerate(QUANTILES):
            base: dict[str, object] = {}
            for position, (name, options) in enumerate(self.round.items()):
                kind = self.statute.inputs[name].type.kind
                if kind in ("bool", "enum"):
                    base[name] = options[(index + position) % len(options)]
                else:
                    base[name] = options[min(len(options) - 1, int(quantile * (len(options) - 1)))]
            bases.append(base)
        return bases

    def _options(self, name: str, base: dict[str, object]) -> list[object]:
        """Returns the values tried for `name` around `base`: its own, and its partners'
        values in `base` scaled by the shares stated near it, one step either side."""
        options = self.values[name]
        kind = self.statute.inputs[name].type.kind
        if kind not in ("money", "number", "count"):
            return options
        step = Fraction(1) if kind == "count" else Fraction(1, 100)
        extra: set[Fraction] = set()
        for partner in sorted(p for p in self.partners[name] if p in self.statute.inputs):
            value = base.get(partner)
            if not isinstance(value, int | Fraction) or isinstance(value, bool) or value <= 0:
                continue
            for scale in self.scales[name]:
                point = Fraction(value) * scale
                point = Fraction(round(point / step)) * step
                extra |= {point - step, point, point + step}
        if not extra:
            return options
        low = options[0] if options else Fraction(0)
        merged = sorted({Fraction(o) for o in options} | {e for e in extra if e >= low})  # type: ignore[arg-type]
        return [int(v) if kind == "count" else v for v in merged]

    def _reading_choices(self) -> list[dict[str, str]]:
        choices = [dict(self.readings)]
        for rid, reading in self.statute.readings.items():
            for option in reading.options:
                if option.name != self.readings[rid]:
                    choices.append({**self.readings, rid: option.name})
        return choices

    def _evaluate(
        self, exact: dict[str, object], readings: dict[str, str]
    ) -> tuple[Evaluation, dict[str, object], dict[str, Value]] | None:
        """Returns the evaluation of a scenario (None when it is not valid)."""
        if self.tried >= self.limit or (
            self.deadline is not None and time.perf_counter() > self.deadline
        ):
            return None
        text = scenario_text(self.statute, {k: v for k, v in exact.items() if v is not None})
        text = {k: (v.isoformat() if isinstance(v, datetime.date) else v) for k, v in text.items()}
        try:
            inputs = validate(self.statute, text)
        except (ScenarioError, ValueError, TypeError):
            return None
        self.tried += 1
        return Evaluation(self.program, inputs, readings, False), text, inputs

    # ---- judging ----------------------------------------------------------------------
    def run(
        self, probes: dict[str, Probe], limit: int = MAX_SCENARIOS, deadline: float | None = None
    ) -> dict[str, Found]:
        """Returns a counterexample for each probe (by check name) that one of the first
        `limit` scenarios breaks (the same scenarios, in the same order, on every run, but
        none after `deadline`, a time.perf_counter() value); the probes a scenario breaks are
        judged no further."""
        self.tried = 0
        self.limit = limit
        self.deadline = deadline
        reserve = limit // 8  # the scenarios that mix values at random
        found: dict[str, Found] = {}
        if not self.usable or not probes:
            return found
        singles = {n: p.single for n, p in probes.items() if p.single is not None}
        pairs = {n: p for n, p in probes.items() if p.input is not None}
        raised = {p.input for p in pairs.values()}

        def judge(result: tuple[Evaluation, dict[str, object], dict[str, Value]]) -> None:
            evaluation, text, inputs = result
            for name, single in list(singles.items()):
                if _broken(single, evaluation):
                    found[name] = Found([text], [inputs], dict(evaluation.readings), self.tried)
                    del singles[name]

        def judge_pair(before: tuple, after: tuple, input_name: str) -> None:
            for name, probe in list(pairs.items()):
                if probe.input != input_name:
                    continue
                if _moved_wrong(before[0], after[0], probe.results, probe.falls):
                    found[name] = Found(
                        [before[1], after[1]],
                        [before[2], after[2]],
                        dict(before[0].readings),
                        self.tried,
                    )
                    del pairs[name]

        bases = self._bases()
        for readings in self._reading_choices():
            for base in bases:
                if self.tried >= limit - reserve:
                    break
                result = self._evaluate(base, readings)
                if result is not None:
                    judge(result)
        for base in bases:
            for name in self.values:
                options = self._options(name, base)
                previous = None
                for value in options:
                    if not singles and not pairs:
                        return found
                    if self.tried >= limit - reserve:
                        break
                    result = self._evaluate({**base, name: value}, self.readings)
                    if result is None:
                        continue
                    judge(result)
                    if previous is not None and name in raised:
                        judge_pair(previous, result, name)
                    previous = result
        rng = random.Random(0)
        names = list(self.values)
        choices = self._reading_choices()
        for _ in range(2 * reserve):  # invalid mixes are not counted as tried
            if (not singles and not pairs) or self.tried >= limit:
                break
            exact = {n: rng.choice(self.values[n]) for n in names}
            readings = rng.choice(choices)
            result = self._evaluate(exact, readings)
            if result is None:
                continue
            judge(result)
            for input_name in sorted(raised & set(names)):
                options = self.values[input_name]
                at = options.index(exact[input_name])
                if at + 1 < len(options):
                    after = self._evaluate({**exact, input_name: options[at + 1]}, readings)
                    if after is not None:
                        judge_pair(result, after, input_name)
        return found

    def simpler(
        self,
        found: Found,
        raised: str | None,
        reproduces: Callable[[list[dict[str, Value]], dict[str, str]], bool],
    ) -> Found:
        """Returns the counterexample made readable: the readings at their defaults, then each
        input in declaration order at its default, else the smallest round value, else the
        smallest value tried, that still breaks the check (`reproduces`, the evaluator); a
        pair's raised input is left as found. The same on every run."""
        # The values are tried in order of size, up to the current value.
        scenarios = [dict(s) for s in found.scenarios]
        readings = dict(found.readings)

        def attempt(candidate: list[dict[str, object]], chosen: dict[str, str]) -> bool:
            try:
                inputs = [validate(self.statute, s) for s in candidate]
                return reproduces(inputs, chosen)
            except (ScenarioError, EvaluationError, ValueError, TypeError, ZeroDivisionError):
                return False

        for rid, option in sorted(readings.items()):
            default = self.readings[rid]
            if option != default and attempt(scenarios, {**readings, rid: default}):
                readings[rid] = default
        # Twice: an input bounded by a later one (at most new_jobs) drops once that one has.
        for name in [*self.values, *self.values]:
            if name == raised or name not in scenarios[0]:
                continue
            declared = self.statute.inputs[name]
            if declared.optional and declared.default is None:  # left out: no value
                left_out = [{k: v for k, v in s.items() if k != name} for s in scenarios]
                if attempt(left_out, readings):
                    scenarios = left_out
                    continue
            candidates: list[object] = []
            if declared.default is not None:
                candidates.append(default_value(declared))
            tried = sorted(set(self.round[name] + self.values[name]), key=_size)
            # Whole numbers first (whole dollars), the smallest first, below the current value.
            current = validate(self.statute, scenarios[0])[name]
            candidates += [v for v in tried if _whole(v)][: CANDIDATES * 4]
            candidates += tried[:CANDIDATES]
            if declared.type.kind in ("bool", "enum", "date"):
                # Its default, else its values in order (false first), before the current one.
                order = list(dict.fromkeys([*candidates[:1], *self.values[name]]))
                candidates = order[: order.index(current)] if current in order else order
            else:
                candidates = [v for v in candidates if _rank(v) < _rank(current)]
            for value in candidates:
                text = _text(self.statute, name, value)
                if all(s.get(name) == text for s in scenarios):
                    break  # the current value is already the most readable that breaks it
                changed = [{**s, name: text} for s in scenarios]
                if attempt(changed, readings):
                    scenarios = changed
                    break
        inputs = [validate(self.statute, s) for s in scenarios]
        return Found(scenarios, inputs, readings, found.tried)


def _whole(value: object) -> bool:
    return not isinstance(value, Fraction) or value.denominator == 1


def _size(value: object) -> tuple[int, object]:
    if isinstance(value, Fraction | int) and not isinstance(value, bool):
        return (0, abs(value))
    return (1, 0)


def _rank(value: object) -> tuple[bool, tuple[int, object]]:
    """How readable a value is: a whole number before a fraction, then the smaller."""
    return (not _whole(value), _size(value))


def _text(statute: ast.Statute, name: str, value: object) -> object:
    shown = scenario_text(statute, {name: value})[name]
    return shown.isoformat() if isinstance(shown, datetime.date) else shown


def _broken(single: Single, evaluation: Evaluation) -> bool:
    """Whether the judge finds the check broken; a scenario the evaluator cannot evaluate
    (a gap, a missing value) is left to the checks that are about exactly that."""
    try:
        return bool(single(evaluation))
    except (EvaluationError, ScenarioError, ZeroDivisionError, KeyError, TypeError):
        return False


def _moved_wrong(
    before: Evaluation, after: Evaluation, results: tuple[str, ...], falls: bool
) -> bool:
    """Whether a result went the way the property forbids: down (or up, when it `falls`)."""
    try:
        return any(moved_wrong(before.get(r), after.get(r), falls) for r in results)
    except (EvaluationError, ScenarioError, ZeroDivisionError, KeyError, TypeError):
        return False
