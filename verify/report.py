"""Run every check of a statute and report: text, JSON, JUnit XML and SARIF 2.1.0.

A report fails when any check is VIOLATED, VACUOUS or ERROR, or UNKNOWN unless unknowns are
allowed. Every Z3 call has a timeout, and the whole run a budget: a concrete search first, a
short Z3 call per check, then the undecided checks searched further and split by cases; checks
left when the budget is spent end UNKNOWN, saying what made them hard.

Timeouts and the budget are counted in Z3's work (verify/solve.work), not on the clock, so a
run ends the same way however busy the machine is.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree

from lextrace.dsl import ast
from lextrace.dsl.errors import EncodingError
from lextrace.dsl.scenario import validate

from .checks import (
    BOUNDED,
    MISSING,
    PROVED,
    UNKNOWN,
    VIOLATED,
    Check,
    Outcome,
    Verifier,
    hardness,
)
from .limits import DEFAULT_BUDGET, DEFAULT_TIMEOUT
from .search import MAX_SCENARIOS, QUICK_SCENARIOS
from .solve import RUN_SLACK, work

# The rounds of Z3 calls over the checks still undecided: seconds per call (at most the
# timeout), and whether checks are split by cases. Most checks are decided in milliseconds; a
# hard one waits for the later rounds, after the others: a whole call of the full timeout
# (a check that needs a little more than 3 s on a busy machine), then the case splits.
TIERS = ((0.5, False), (3.0, False), (float("inf"), False), (float("inf"), True))
# How many timeouts the cases of one split check share in all.
SPLIT_TIMEOUTS = 3
# The order in which the kinds of check are first tried: cheapest first.
COST = {"well-formed": 0, "bound": 1, "invariant": 2, "monotone": 3}


@dataclass
class Report:
    """The outcomes of every check of one encoding."""

    statute: ast.Statute
    outcomes: list[Outcome]
    seconds: float
    allow_unknown: bool = False

    @property
    def failures(self) -> list[Outcome]:
        """The outcomes that make the run fail."""
        return [
            o
            for o in self.outcomes
            if o.failed and not (self.allow_unknown and o.status == UNKNOWN)
        ]

    @property
    def ok(self) -> bool:
        """True when there are checks and every one passed: a run with none proves nothing."""
        return bool(self.outcomes) and not self.failures

    def counts(self) -> dict[str, int]:
        """Returns how many checks ended with each status."""
        found: dict[str, int] = {}
        for outcome in self.outcomes:
            found[outcome.status] = found.get(outcome.status, 0) + 1
        return found


def run(
    statute: ast.Statute,
    timeout_seconds: float = DEFAULT_TIMEOUT,
    budget_seconds: float = DEFAULT_BUDGET,
    allow_unknown: bool = False,
) -> Report:
    """Returns the report of every check of `statute`, all within `budget_seconds`.

    First a short search of concrete scenarios (verify/search.py) on every check; then Z3 in
    rounds over the checks still undecided, each round with longer calls (TIERS, at most
    `timeout_seconds` each): the cheap kinds first in each round, the whole search before the
    last round, and, in the last, each check split by cases (verify/checks.py,
    Verifier._split). A check the budget leaves undecided ends UNKNOWN, saying what made it
    hard."""
    started = time.perf_counter()
    deadline = work() + budget_seconds
    # Only a run Z3 does not account for (a machine many times slower) meets this one.
    stop = started + budget_seconds * RUN_SLACK
    validator = lambda s: validate(statute, s)  # noqa: E731
    verifier = Verifier(statute, timeout_seconds)
    checks = verifier.checks()
    by_name: dict[str, Outcome] = {}
    # The well-definedness checks come first, a missing value before a division by zero: one
    # found VIOLATED is assumed away from the others (Verifier.undefined); then the cheap
    # kinds before the costly.
    undecided = sorted(checks, key=_cost)
    found = verifier.search(undecided, QUICK_SCENARIOS)
    for tier, (seconds, split) in enumerate(TIERS):
        if tier == len(TIERS) - 1 and undecided:
            found |= verifier.search(undecided, MAX_SCENARIOS, stop)
        left_over: list[Check] = []
        for check in undecided:
            if check.name in found:
                searched = verifier.searched(check, found[check.name])
                if searched is not None:
                    by_name[check.name] = searched
                    if check.obligation is not None:  # as for one Z3 finds, below
                        verifier.undefined.append(check.obligation)
                    continue
            left = deadline - work()
            if left <= 0 or time.perf_counter() > stop:
                left_over.append(check)
                continue
            call = min(timeout_seconds, seconds, left)
            verifier.timeout_ms = max(1, int(call * 1000))
            verifier.monotone.timeout_ms = verifier.timeout_ms
            verifier.whole_pairs = split
            verifier.split_ms = (
                max(1, int(min(timeout_seconds * SPLIT_TIMEOUTS, left) * 1000)) if split else None
            )
            outcome = verifier.prove(check, validator)
            verifier.split_ms = None
            previous = by_name.get(check.name)
            if previous is not None:
                outcome.seconds += previous.seconds
            by_name[check.name] = outcome
            if outcome.status == UNKNOWN:
                left_over.append(check)
            elif outcome.status == VIOLATED and check.obligation is not None:
                verifier.undefined.append(check.obligation)
        undecided = left_over
    for check in undecided:
        previous = by_name.get(check.name)
        if previous is not None and work() <= deadline and time.perf_counter() <= stop:
            continue  # decided as far as it can be: its own message says why not
        hard = _hardness(check)
        said = previous.detail if previous else ""
        by_name[check.name] = Outcome(
            check,
            UNKNOWN,
            previous.seconds if previous else 0.0,
            detail=(said + "; " if said else "")
            + f"not decided within the budget of {budget_seconds:g} s of Z3 work"
            + (" (stopped on the clock)" if time.perf_counter() > stop else "")
            + (f"; {hard}" if hard and hard not in said else ""),
        )
    outcomes = [by_name[c.name] for c in checks]
    return Report(statute, outcomes, time.perf_counter() - started, allow_unknown)


def _hardness(check: Check) -> str:
    """Returns what makes a check hard for Z3 (its nonlinear terms), for its message."""
    return hardness([t for t in (check.claim, check.premise) if t is not None])


def _cost(check: Check) -> tuple[int, int]:
    """Returns the rank of a check in the first pass: the well-definedness checks (missing
    values first), then the cheap kinds before the costly."""
    if check.obligation is not None:
        return (0, 0 if check.obligation[0] == MISSING else 1)
    return (1, COST.get(check.kind, len(COST)))


def _line(outcome: Outcome) -> str:
    check = outcome.check
    line = (
        f"{outcome.status:<8} {outcome.seconds * 1000:7.1f} ms  {check.name}  "
        f"[{check.clause.short_citation or 'section'}]"
    )
    if outcome.status == BOUNDED:  # said on its line: it is not a proof for every length
        line += f"  ({outcome.detail})"
    return line


def render_text(report: Report, verbose: bool = False) -> str:
    """Returns the report for people: one line per check, details of every failure."""
    lines = []
    for outcome in report.outcomes:
        if verbose or outcome.status != PROVED:
            lines.append(_line(outcome))
        if outcome.failed:
            lines.append(f"         {outcome.check.description}")
            lines.append(
                f"         at {report.statute.path}:{outcome.check.span.line}:"
                f"{outcome.check.span.column} "
                f"({report.statute.citation(outcome.check.clause)})"
            )
            if outcome.detail:
                lines.append(f"         {outcome.detail}")
            for index, scenario in enumerate(outcome.counterexample or []):
                label = (
                    "counterexample"
                    if len(outcome.counterexample or []) == 1
                    else ("before", "after")[index]
                )
                lines.append(f"         {label}: {json.dumps(scenario)}")
            if outcome.readings:
                lines.append(
                    "         readings: "
                    + ", ".join(f"{k}={v}" for k, v in outcome.readings.items())
                )
    counts = report.counts()
    if not counts:
        lines.append(
            f"0 checks of {report.statute.name}: nothing is proved. The encoding states no "
            "invariant or monotone property, and no rule of it carries an obligation (a cap "
            "the words set, a division, a date computed, the least of a list that may be "
            "empty); state what the statute promises as invariants (docs/proofs.md)"
        )
        return "\n".join(lines)
    summary = ", ".join(f"{counts[s]} {s}" for s in sorted(counts))
    lines.append(
        f"{len(report.outcomes)} checks of {report.statute.name}: {summary} "
        f"in {report.seconds:.2f} s"
    )
    return "\n".join(lines)


def to_json(report: Report) -> dict[str, object]:
    """Returns the report as JSON: {"checks": [{name, citation, status, seconds, ...}]}."""
    checks = []
    for outcome in report.outcomes:
        entry: dict[str, object] = {
            "name": outcome.check.name,
            "kind": outcome.check.kind,
            "citation": report.statute.citation(outcome.check.clause),
            "status": outcome.status,
            "seconds": round(outcome.seconds, 6),
            "description": outcome.check.description,
            "line": outcome.check.span.line,
            "column": outcome.check.span.column,
        }
        if outcome.detail:
            entry["detail"] = outcome.detail
        if outcome.counterexample is not None:
            entry["counterexample"] = (
                outcome.counterexample[0]
                if len(outcome.counterexample) == 1
                else {"before": outcome.counterexample[0], "after": outcome.counterexample[1]}
            )
            entry["readings"] = outcome.readings
        checks.append(entry)
    return {
        "statute": report.statute.name,
        "encoding": report.statute.path,
        "usable": True,
        "ok": report.ok,
        "seconds": round(report.seconds, 6),
        "counts": report.counts(),
        "checks": checks,
    }


def to_junit(report: Report) -> str:
    """Returns the report as JUnit XML, one test case per check."""
    suite = ElementTree.Element(
        "testsuite",
        name=f"lextrace verify {report.statute.name}",
        tests=str(len(report.outcomes)),
        failures=str(len(report.failures)),
        time=f"{report.seconds:.3f}",
    )
    for outcome in report.outcomes:
        case = ElementTree.SubElement(
            suite,
            "testcase",
            classname=report.statute.citation(outcome.check.clause),
            name=outcome.check.name,
            time=f"{outcome.seconds:.3f}",
        )
        if outcome in report.failures:
            failure = ElementTree.SubElement(
                case, "failure", message=outcome.status, type=outcome.check.kind
            )
            failure.text = "\n".join(
                [
                    outcome.check.description,
                    outcome.detail,
                    *(json.dumps(s) for s in outcome.counterexample or []),
                ]
            )
    return ElementTree.tostring(suite, encoding="unicode", xml_declaration=True)


def _then(text: str, more: str) -> str:
    """Returns `text` ended as a sentence (a description may already end with its period),
    followed by `more`."""
    text = text.rstrip()
    return f"{text}{'' if text.endswith(('.', '!', '?')) else '.'} {more}"


def to_sarif(report: Report) -> dict[str, object]:
    """Returns the report as SARIF 2.1.0, each failure located at its line of the encoding."""
    rules = {}
    results = []
    for outcome in report.outcomes:
        check = outcome.check
        rule_id = check.kind
        rules.setdefault(
            rule_id,
            {
                "id": rule_id,
                "shortDescription": {
                    "text": {
                        "invariant": "an invariant stated in the statute's terms",
                        "monotone": "a monotone property over two scenarios",
                        "well-formed": "a well-formedness condition of the encoding",
                        "bound": "a bonus within the amounts its clause states",
                    }.get(rule_id, rule_id)
                },
            },
        )
        if outcome not in report.failures:
            continue
        text = f"{outcome.status}: {check.name}: {check.description}"
        if outcome.detail:
            text = _then(text, outcome.detail)
        if outcome.counterexample:
            text = _then(
                text, "Counterexample: " + " / ".join(json.dumps(s) for s in outcome.counterexample)
            )
        if outcome.readings:
            # Without them the counterexample does not reproduce under the defaults.
            text = _then(
                text,
                "Under the readings "
                + ", ".join(f"{rid}={option}" for rid, option in outcome.readings.items()),
            )
        results.append(
            {
                "ruleId": rule_id,
                "level": "error",
                "message": {"text": text},
                "locations": [
                    {
                        "physicalLocation": {
                            "artifactLocation": {"uri": Path(report.statute.path).as_posix()},
                            "region": {
                                "startLine": check.span.line,
                                "startColumn": check.span.column,
                                "endLine": check.span.end_line,
                                "endColumn": check.span.end_column,
                            },
                        },
                        "logicalLocations": [{"name": report.statute.citation(check.clause)}],
                    }
                ],
            }
        )
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "lextrace",
                        "informationUri": "https://pypi.org/project/lextrace/",
                        "rules": list(rules.values()),
                    }
                },
                "results": results,
            }
        ],
    }


def _diagnostics(error: EncodingError) -> list[dict[str, object]]:
    return [
        {
            "file": d.path,
            "line": d.line,
            "column": d.column,
            "severity": d.severity,
            "message": d.message,
            **({"clause": d.clause} if d.clause else {}),
            **({"hint": d.hint} if d.hint else {}),
        }
        for d in error.diagnostics
    ]


def unusable_json(encoding: str, error: EncodingError) -> dict[str, object]:
    """Returns the JSON report of an encoding that cannot be verified (it does not parse or
    check): no checks, every diagnostic located by file, line and column."""
    return {
        "statute": None,
        "encoding": encoding,
        "usable": False,
        "ok": False,
        "errors": _diagnostics(error),
        "counts": {},
        "checks": [],
    }


def unusable_sarif(encoding: str, error: EncodingError) -> dict[str, object]:
    """Returns the SARIF 2.1.0 log of an encoding that cannot be verified: one result per
    diagnostic, at its line and column."""
    results = [
        {
            "ruleId": "unusable-encoding",
            "level": "error" if d.severity == "error" else "warning",
            "message": {"text": d.message + (f" (hint: {d.hint})" if d.hint else "")},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": Path(d.path).as_posix()},
                        "region": {"startLine": max(1, d.line), "startColumn": max(1, d.column)},
                    }
                }
            ],
        }
        for d in error.diagnostics
    ]
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "lextrace",
                        "informationUri": "https://pypi.org/project/lextrace/",
                        "rules": [
                            {
                                "id": "unusable-encoding",
                                "shortDescription": {
                                    "text": "the encoding does not parse or check: nothing proved"
                                },
                            }
                        ],
                    }
                },
                "results": results,
                "invocations": [{"executionSuccessful": False}],
            }
        ],
    }
