"""The outcomes of test cases as text, JSON and JUnit XML."""

from __future__ import annotations

import textwrap
from xml.etree import ElementTree

from .cases import FileRun, Outcome
from .reading_cover import render_cover


def totals(runs: list[FileRun]) -> dict[str, int]:
    """Returns the number of cases run, passed and failed."""
    cases = sum(len(run.outcomes) for run in runs)
    failed = sum(len(run.failures) for run in runs)
    return {"cases": cases, "passed": cases - failed, "failed": failed}


def _where(outcome: Outcome) -> str:
    case = outcome.case
    return f"{case.file}:{case.line}" if case.line is not None else case.file


def failure_lines(outcome: Outcome) -> list[str]:
    """Returns what went wrong in a failed case: each result that differs (its value, the
    expected value, and its trace), or what happened instead of the refusal or the results."""
    lines = []
    for mismatch in outcome.mismatches:
        lines.append(
            f"{mismatch.result} = {mismatch.value}, expected {mismatch.expected} "
            f"({mismatch.compared})"
        )
        if mismatch.trace:
            lines.append(f"trace of {mismatch.result}:")
            lines += ["  " + line for line in mismatch.trace.splitlines()]
    if outcome.detail:
        lines += outcome.detail.splitlines()
    return lines


def render_text(runs: list[FileRun]) -> str:
    """Returns one line per case (ok or FAIL), what went wrong under each failure, and the
    totals."""
    lines = []
    for run in runs:
        lines.append(f"{run.path}: {run.statute} ({run.encoding})")
        for outcome in run.outcomes:
            if outcome.passed:
                lines.append(f"  ok    {outcome.case.name}")
                continue
            lines.append(f"  FAIL  {outcome.case.name}  ({_where(outcome)})")
            lines += [textwrap.indent(line, "        ") for line in failure_lines(outcome)]
        if run.readings:
            lines.append("  readings the cases tell apart:")
            lines += ["  " + line for line in render_cover(run.readings)]
    count = totals(runs)
    lines.append(
        f"{count['cases']} case{'s' if count['cases'] != 1 else ''}: "
        f"{count['passed']} passed, {count['failed']} failed"
    )
    return "\n".join(lines)


def to_json(runs: list[FileRun]) -> dict[str, object]:
    """Returns the outcomes as a JSON object: `ok`, the totals, and every case of every file."""
    count = totals(runs)
    return {
        "ok": count["failed"] == 0,
        "totals": count,
        "files": [
            {
                "file": str(run.path),
                "statute": run.statute,
                "encoding": run.encoding,
                "cases": [_case_json(outcome) for outcome in run.outcomes],
                "readings": [cover.to_json() for cover in run.readings],
            }
            for run in runs
        ],
    }


def _case_json(outcome: Outcome) -> dict[str, object]:
    return {
        "name": outcome.case.name,
        "line": outcome.case.line,
        "status": "passed" if outcome.passed else "failed",
        "mismatches": [
            {
                "result": m.result,
                "value": m.value,
                "expected": m.expected,
                "compared": m.compared,
                "trace": m.trace,
            }
            for m in outcome.mismatches
        ],
        "detail": outcome.detail or None,
        "seconds": round(outcome.seconds, 6),
    }


def to_junit(runs: list[FileRun]) -> str:
    """Returns the outcomes as JUnit XML: a test suite per cases file, a test case per case."""
    count = totals(runs)
    suites = ElementTree.Element(
        "testsuites",
        name="lextrace test",
        tests=str(count["cases"]),
        failures=str(count["failed"]),
        time=f"{sum(o.seconds for run in runs for o in run.outcomes):.3f}",
    )
    for run in runs:
        suite = ElementTree.SubElement(
            suites,
            "testsuite",
            name=str(run.path),
            tests=str(len(run.outcomes)),
            failures=str(len(run.failures)),
            time=f"{sum(o.seconds for o in run.outcomes):.3f}",
        )
        for outcome in run.outcomes:
            attributes = {
                "classname": run.statute,
                "name": outcome.case.name,
                "file": str(run.path),
                "time": f"{outcome.seconds:.3f}",
            }
            if outcome.case.line is not None:
                attributes["line"] = str(outcome.case.line)
            case = ElementTree.SubElement(suite, "testcase", attributes)
            if not outcome.passed:
                lines = failure_lines(outcome)
                failure = ElementTree.SubElement(
                    case,
                    "failure",
                    message=lines[0] if lines else "failed",
                    type="mismatch" if outcome.mismatches else "refusal",
                )
                failure.text = "\n".join(lines)
    return ElementTree.tostring(suites, encoding="unicode", xml_declaration=True)
