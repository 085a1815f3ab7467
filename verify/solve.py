"""Deciding formulas with Z3: a small portfolio within one time limit.

Z3's nonlinear integer-real arithmetic is decided by heuristics whose luck depends on the
configuration and the random seed. A formula is tried briefly under several configurations and
seeds in turn, then with the time left; the first definite answer wins. `unknown` is returned
only when every attempt failed within the limit.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import z3

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


def decide(facts: Sequence[Any], timeout_ms: int) -> tuple[Any, z3.Solver]:
    """Returns Z3's answer (sat, unsat or unknown) for the conjunction of `facts`, and the
    solver that gave it (holding the model when sat), within `timeout_ms` in all."""
    deadline = time.perf_counter() + timeout_ms / 1000
    last: z3.Solver | None = None
    rounds = [(logic, seed, SLICE_MS) for logic, seed in ATTEMPTS]
    rounds.append(("QF_AUFNIRA", 0, timeout_ms))
    rounds.append((None, 0, timeout_ms))
    for logic, seed, slice_ms in rounds:
        left = int((deadline - time.perf_counter()) * 1000)
        if left <= 0:
            break
        solver = z3.SolverFor(logic) if logic else z3.Solver()
        solver.set(timeout=max(1, min(slice_ms, left)), random_seed=seed)
        solver.add(*facts)
        answer = solver.check()
        last = solver
        if answer != z3.unknown:
            return answer, solver
    if last is None:
        last = z3.Solver()
    return z3.unknown, last
