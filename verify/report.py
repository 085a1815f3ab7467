"""Run every check of a statute and report: text, JSON, JUnit XML and SARIF 2.1.0.

A report fails when any check is VIOLATED, VACUOUS or ERROR, or UNKNOWN unless unknowns are
allowed. Every Z3 call has a timeout, and the whole run a budget: checks left when the budget
is spent end UNKNOWN.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree

from lextrace.dsl import ast
from lextrace.dsl.scenario import validate

from .checks import BOUNDED, PROVED, UNKNOWN, Outcome, Verifier


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
        """True when every check passed."""
        return not self.failures

    def counts(self) -> dict[str, int]:
        """Returns how many checks ended with each status."""
        found: dict[str, int] = {}
        for outcome in self.outcomes:
            found[outcome.status] = found.get(outcome.status, 0) + 1
        return found


def run(
    statute: ast.Statute,
    timeout_seconds: float = 10.0,
    budget_seconds: float = 120.0,
    allow_unknown: bool = False,
) -> Report:
    """Returns the report of proving every check of `statute` (each within `timeout_seconds`,
    all within `budget_seconds`)."""
    started = time.perf_counter()
    verifier = Verifier(statute, timeout_seconds)
    outcomes: list[Outcome] = []
    for check in verifier.checks():
        spent = time.perf_counter() - started
        if spent > budget_seconds:
            outcomes.append(
                Outcome(
                    check,
                    UNKNOWN,
                    0.0,
                    detail=f"not run: the budget of {budget_seconds:g} s is spent",
                )
            )
            continue
        verifier.timeout_ms = max(1, int(min(timeout_seconds, budget_seconds - spent) * 1000))
        verifier.monotone.timeout_ms = verifier.timeout_ms
        outcomes.append(verifier.prove(check, lambda s: validate(statute, s)))
    return Report(statute, outcomes, time.perf_counter() - started, allow_unknown)


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
