"""Deciding formulas with Z3: a small portfolio within one limit of work.

Z3's nonlinear integer-real arithmetic is decided by heuristics whose luck depends on the
configuration and the random seed. A formula is tried briefly under several configurations and
seeds in turn, then with the work left; the first definite answer wins. `unknown` is returned
only when every attempt failed within the limit.

Every limit is counted in Z3's own resource units (its `rlimit`), never in the time a call
took, so that a check ends the same way on a busy CI machine as on an idle laptop: a proof that
passes once passes in every run of `lextrace verify` with the same Z3 (see `decide`). Limits
are still spoken of in seconds, each second being UNITS_PER_SECOND units (about a second of
Z3's work on a 2020s x86 core). A clock cap of CALL_SLACK times the limit (and a second) stops
a call whose work Z3 does not count, and one of RUN_SLACK times the budget a whole run
(verify/report.py).

Only the work of the checks themselves is counted, read from Z3 just before and just after each
one: Z3 counts its work per context, so building formulas, simplifying them and checks made
elsewhere in the process raise the same count, and billed to the next check they would spend its
limit before it began.
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Sequence
from typing import Any

import z3
from z3 import z3core

# (logic, seed) pairs tried in order; None is Z3's default portfolio.
ATTEMPTS: tuple[tuple[str | None, int], ...] = (
    ("QF_AUFNIRA", 0),
    (None, 0),
    (None, 3),
    (None, 1),
    ("QF_AUFNIRA", 5),
    (None, 4),
    ("QF_AUFNIRA", 1),
    (None, 5),
    (None, 2),
    ("QF_AUFNIRA", 3),
)
SLICE_MS = 400
# Z3 resource units to one second of a limit (measured on the machine CI runs on, idle: a
# little over 3 million a second for the bundled statute's hard checks).
UNITS_PER_SECOND = 3_000_000
# How many times its limit a call may take on the clock before it is stopped anyway, plus
# CLOCK_GRACE_MS. The cap must never bind on honest work, or an answer would depend on the
# machine's load: a call's clock time per unit of work varies with the formula (up to 1.6 times
# its limit on an idle machine, measured) and with the load (up to 3.2 times under three busy
# processes on two cores, which cut a monotone proof short on CI with a factor of 3). Z3 now and
# then spends seconds in a step that counts no work (seen: 0.1 s of work in 5.7 s); this cap
# still ends such a call.
CALL_SLACK = 10
# Added to every call's clock cap: a short call can lose a whole scheduler slice on a busy
# machine.
CLOCK_GRACE_MS = 1000
# How many times its budget a whole run may take on the clock: a last guard, for a machine many
# times slower than CI's.
RUN_SLACK = 10


class _Meter:
    """The Z3 work spent by this process's checks, in seconds of a limit (see
    UNITS_PER_SECOND)."""

    def __init__(self) -> None:
        self.units = 0

    def spent(self) -> float:
        return self.units / UNITS_PER_SECOND


def rlimit_count(solver: z3.Solver) -> int | None:
    """Returns Z3's resource count of the solver's context so far: the count of the whole
    context, which grows with every check of every solver and with every simplification
    (None when Z3 does not report it)."""
    statistics = solver.statistics()
    if "rlimit count" not in statistics.keys():  # noqa: SIM118 - no `in` of its own
        return None
    return int(statistics.get_key_value("rlimit count"))


METER = _Meter()


def check_counted(solver: z3.Solver) -> tuple[Any, int]:
    """Returns the solver's answer and the Z3 resource units its check alone used, which are
    added to this process's work (`work()`).

    The count is read just before and just after the check: the context's count also grows
    with work no limit is meant to charge (building the formulas, simplifying them, checks
    made elsewhere in the process), and that work must not be billed to the next check."""
    before = rlimit_count(solver)
    answer = solver.check()
    after = rlimit_count(solver)
    used = 0 if before is None or after is None else max(0, after - before)
    METER.units += used
    return answer, used


def work() -> float:
    """Returns the Z3 work this process has spent, in seconds of a limit: the clock every
    limit of `lextrace verify` is read on."""
    return METER.spent()


# How many fresh Z3 contexts are kept made ahead (see FreshContexts).
CONTEXTS_AHEAD = 2


class FreshContexts:
    """New, empty Z3 contexts, made ahead on a thread of their own.

    Making a context costs about a millisecond and a half, as much as deciding a small formula,
    and every formula is decided in a new one (see `decide`). Z3 releases Python's lock while
    it makes one, so a thread makes the next few on another core while the checks run. A
    context made ahead is as empty as one made on the spot: answers are unchanged."""

    def __init__(self, ahead: int = CONTEXTS_AHEAD) -> None:
        self._ready: queue.Queue[z3.Context] = queue.Queue(maxsize=ahead)
        self._maker: threading.Thread | None = None
        self._lock = threading.Lock()

    def take(self) -> z3.Context:
        """Returns a new, empty Z3 context."""
        with self._lock:
            if self._maker is None:
                self._maker = threading.Thread(
                    target=self._make, name="lextrace-z3-contexts", daemon=True
                )
                self._maker.start()
        return self._ready.get()

    def _make(self) -> None:
        while True:
            self._ready.put(z3.Context())

    def forked(self) -> None:
        """Starts afresh in a child process: a fork copies none of the parent's threads, so
        the child makes its own contexts (else it would wait for a maker it does not have)."""
        self._ready = queue.Queue(maxsize=self._ready.maxsize)
        self._maker = None
        self._lock = threading.Lock()


CONTEXTS = FreshContexts()
if hasattr(os, "register_at_fork"):  # POSIX
    os.register_at_fork(after_in_child=CONTEXTS.forked)


class Decided:
    """What `decide` answers with besides sat, unsat or unknown: the model (when sat) and the
    reason (when unknown), in the context of the facts it was given."""

    def __init__(self, solver: z3.Solver | None, facts: Sequence[Any], ctx: z3.Context) -> None:
        self._solver = solver
        self._facts = list(facts)
        self._ctx = ctx

    def model(self) -> z3.ModelRef:
        """Returns the model of the facts (after a sat answer), over the facts' own terms."""
        assert self._solver is not None
        return self._solver.model().translate(self._ctx)

    def model_with(self, extra: Sequence[Any]) -> z3.ModelRef | None:
        """Returns a model of the facts and `extra` too, asked of the solver that answered sat
        (within its own limit), or None when it finds none."""
        assert self._solver is not None
        own = self._solver.ctx
        self._solver.push()
        try:
            self._solver.add(*[fact.translate(own) for fact in extra])
            if check_counted(self._solver)[0] != z3.sat:
                return None
            return self._solver.model().translate(self._ctx)
        finally:
            self._solver.pop()

    def assertions(self) -> list[Any]:
        """Returns the facts decided."""
        return list(self._facts)

    def reason_unknown(self) -> str:
        """Returns Z3's reason for its last unknown answer ("" when none)."""
        return self._solver.reason_unknown() if self._solver is not None else ""


def decide(facts: Sequence[Any], timeout_ms: int) -> tuple[Any, Decided]:
    """Returns Z3's answer (sat, unsat or unknown) for the conjunction of `facts`, and what
    else it said (the model when sat), within `timeout_ms` of work in all.

    The facts are decided in a Z3 context of their own, into which they are copied: Z3's
    heuristics depend on the state of the context they run in (the terms it has made, in what
    order), so in a shared one an answer would depend on everything the process decided
    before (another encoding's checks, the tests run before in the same worker). In a context
    of its own, the answer depends on the facts and on what little Z3 keeps for the whole
    process: the same facts took 0.45 s of work in a new process and 1.6 s after another
    encoding's proofs. So a check near its limit is decided the same way by every run of
    `lextrace verify` (one process, the same order), not by every process."""
    ctx = facts[0].ctx if facts else z3.main_ctx()
    own = CONTEXTS.take()
    copied = _copied(facts, ctx, own)
    limit = work() + timeout_ms / 1000
    last: z3.Solver | None = None
    rounds = [(logic, seed, SLICE_MS) for logic, seed in ATTEMPTS]
    rounds.append(("QF_AUFNIRA", 0, timeout_ms))
    rounds.append((None, 0, timeout_ms))
    for logic, seed, slice_ms in rounds:
        left_ms = int((limit - work()) * 1000)
        if left_ms <= 0:
            break
        call_ms = max(1, min(slice_ms, left_ms))
        solver = z3.SolverFor(logic, ctx=own) if logic else z3.Solver(ctx=own)
        solver.set(
            rlimit=max(1, call_ms * UNITS_PER_SECOND // 1000),
            timeout=call_ms * CALL_SLACK + CLOCK_GRACE_MS,
            random_seed=seed,
        )
        _assert_all(solver, copied)
        answer, _ = check_counted(solver)
        last = solver
        if answer != z3.unknown:
            return answer, Decided(solver, facts, ctx)
    return z3.unknown, Decided(last, facts, ctx)


def _copied(facts: Sequence[Any], ctx: z3.Context, own: z3.Context) -> z3.AstVector:
    """Returns the facts copied into the context `own`, in order, in one call to Z3 (copying
    them one by one wraps each copy in Python objects that are only asserted and dropped)."""
    vector = z3.AstVector(ctx=ctx)
    for fact in facts:
        vector.push(z3.BoolSort(ctx).cast(fact) if not z3.is_expr(fact) else fact)
    return vector.translate(own)


def _assert_all(solver: z3.Solver, facts: z3.AstVector) -> None:
    """Asserts every fact of the vector, in order, as `Solver.add` would (each is a formula
    already): straight through Z3's C API, without a Python object per fact."""
    ref, handle, vector = solver.ctx.ref(), solver.solver, facts.vector
    for index in range(len(facts)):
        z3core.Z3_solver_assert(ref, handle, z3core.Z3_ast_vector_get(ref, vector, index))
