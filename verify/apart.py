"""The proofs of several encodings, each run in a new process of its own, two at a time.

Z3 spends different work on the same formulas depending on what the process decided before:
the proofs of one amendment draft, run five times in one process, took 8, 8, 24, 8 and 24
seconds, each run deciding the same formulas in contexts of their own. A run in a new
process takes what `lextrace verify` takes. So a caller that proves many encodings (the site
builds the proof report of every statute and draft) starts them all here, in new processes
that run while it does the rest of its work, and takes each report when it needs it.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from lextrace.dsl import ast

from .checks import Outcome, Verifier
from .limits import DEFAULT_BUDGET, DEFAULT_TIMEOUT
from .report import Report, run

# What a report's outcomes carry back from their process: each check's name and its outcome's
# fields, plain data (a check holds Z3 terms, which do not cross processes).
Carried = tuple[list[tuple[str, str, float, Any, Any, str, dict[str, Any]]], float]


def _proved(path: str, timeout_seconds: float, budget_seconds: float) -> Carried:
    """Returns the outcomes of `lextrace verify` of the encoding at `path`, as plain data."""
    from lextrace.dsl.loader import load

    report = run(load(path), timeout_seconds, budget_seconds)
    outcomes = [
        (o.check.name, o.status, o.seconds, o.counterexample, o.readings, o.detail, o.extra)
        for o in report.outcomes
    ]
    return outcomes, report.seconds


class Apart:
    """Proof runs of encodings started at once, each in a new process (at most two at a time),
    their reports taken by `report()`. Without processes (a platform that refuses them), each
    report is proved in this process when asked for."""

    def __init__(
        self,
        paths: Iterable[Path],
        timeout_seconds: float = DEFAULT_TIMEOUT,
        budget_seconds: float = DEFAULT_BUDGET,
    ) -> None:
        self.timeout_seconds = timeout_seconds
        self.budget_seconds = budget_seconds
        self._started: dict[Path, Future[Carried]] = {}
        self._pool: ProcessPoolExecutor | None = None
        try:
            self._pool = ProcessPoolExecutor(
                max_workers=max(1, min(2, os.cpu_count() or 1)),
                mp_context=multiprocessing.get_context("spawn"),
                max_tasks_per_child=1,  # each run in a new process: the point of it all
            )
            for path in paths:
                key = Path(path).resolve()
                if key not in self._started:
                    self._started[key] = self._pool.submit(
                        _proved, str(key), timeout_seconds, budget_seconds
                    )
        except (OSError, NotImplementedError, BrokenProcessPool):
            self.close()

    def report(self, statute: ast.Statute) -> Report:
        """Returns the report of `statute`: the one proved apart for its file when started,
        else proved here."""
        future = self._started.pop(Path(statute.path).resolve(), None)
        if future is None:
            return run(statute, self.timeout_seconds, self.budget_seconds)
        try:
            carried, seconds = future.result()
        except (OSError, BrokenProcessPool):
            return run(statute, self.timeout_seconds, self.budget_seconds)
        checks = {check.name: check for check in Verifier(statute, self.timeout_seconds).checks()}
        if [name for name, *_ in carried] != list(checks):  # the file changed meanwhile
            return run(statute, self.timeout_seconds, self.budget_seconds)
        outcomes = [
            Outcome(checks[name], status, spent, counterexample, readings, detail, extra)
            for name, status, spent, counterexample, readings, detail, extra in carried
        ]
        return Report(statute, outcomes, seconds)

    def close(self) -> None:
        """Stops the runs not yet taken and their processes."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        self._started.clear()
