"""The proof report: every check of the encoding with its citation, status and time, and each
counterexample rendered as a traced explanation.

The proofs are run when the site is built, by the same verifier as `lextrace verify`.
"""

from __future__ import annotations

import json

from lextrace.api import Statute
from lextrace.dsl.scenario import ScenarioError
from lextrace.verify.checks import BOUNDED, Outcome
from lextrace.verify.report import Report

from .context import PROOF_PAGE, Site
from .explanation import LinkFor, cite, derivations, results_table
from .markdown import escape, table


def verdict(report: Report) -> str:
    """Returns what a report shows in a few words: every check PROVED, every check PROVED or
    BOUNDED (a proof for lists up to the model's length only), or how many failed."""
    if not report.ok:
        return f"{len(report.failures)} check(s) failed"
    if any(o.status == BOUNDED for o in report.outcomes):
        return "no check failed: every check PROVED, or BOUNDED (proved for short lists only)"
    return "every check PROVED"


def summary(report: Report) -> str:
    """Returns the one-line verdict of a report with its counts and total time."""
    counts = ", ".join(f"{n} {status}" for status, n in sorted(report.counts().items()))
    seconds = f"{report.seconds:.2f} s"
    return f"**{len(report.outcomes)} checks: {verdict(report)}** ({counts}) in {seconds}."


def checks_table(report: Report, link_for: LinkFor) -> str:
    """Returns the table of checks: name, kind, clause, status, time."""
    rows = [
        [
            f"`{o.check.name}`",
            o.check.kind,
            cite(o.check.clause, link_for),
            o.status if o.status == "PROVED" else f"**{o.status}**",
            f"{o.seconds * 1000:.0f} ms",
            escape(o.check.description)
            + (f" ({escape(o.detail)})" if o.status == BOUNDED and o.detail else ""),
        ]
        for o in report.outcomes
    ]
    return table(["check", "kind", "clause", "status", "time", "what it states"], rows)


def counterexample(statute: Statute, outcome: Outcome, link_for: LinkFor) -> list[str]:
    """Returns a failed check's counterexample as scenarios and traced explanations, each in a
    collapsible block."""
    parts = [f"### `{outcome.check.name}`: {outcome.status}"]
    parts.append(
        f"{cite(outcome.check.clause, link_for)}: {escape(outcome.check.description)}"
        + (f" {escape(outcome.detail)}" if outcome.detail else "")
    )
    if not outcome.counterexample:
        return parts
    labels = ["scenario"] if len(outcome.counterexample) == 1 else ["before", "after"]
    readings = ", ".join(f"{k} {v}" for k, v in (outcome.readings or {}).items())
    for label, scenario in zip(labels, outcome.counterexample, strict=False):
        inner = [scenario_json(scenario)]
        try:
            result = statute.evaluate(scenario, readings=outcome.readings, trace=True)
        except ScenarioError as error:
            inner.append(f"The evaluator refuses this scenario: {escape(str(error))}")
        else:
            inner.append(results_table(result, link_for))
            inner.extend(derivations(result, link_for, level=""))
        parts.append(
            f'??? failure "Counterexample {label} (readings: {readings or "defaults"})"\n\n'
            + indent("\n\n".join(inner))
        )
    return parts


def scenario_json(scenario: dict[str, object]) -> str:
    """Returns a scenario as a fenced JSON block (its values are already JSON values)."""
    return f"```json\n{json.dumps(scenario, indent=2, ensure_ascii=False)}\n```"


def indent(markdown: str) -> str:
    """Returns Markdown indented to sit inside an admonition."""
    return "\n".join(f"    {line}" if line else "" for line in markdown.split("\n"))


def report_sections(
    statute: Statute, report: Report, link_for: LinkFor, level: str = "##"
) -> list[str]:
    """Returns the Markdown of a report: verdict, table of checks, then each failure."""
    parts = [summary(report), checks_table(report, link_for)]
    failures = report.failures
    if failures:
        parts.append(f"{level} Counterexamples")
        parts.append(
            "Each failed check's counterexample, re-run by the evaluator and explained step by "
            "step."
        )
        for outcome in failures:
            parts.extend(counterexample(statute, outcome, link_for))
    return parts


def page(site: Site) -> str:
    """Returns the proof report of the encoding."""
    report = site.proved(site.ast)
    here = site.path(PROOF_PAGE)
    return (
        "\n\n".join(
            [
                "# Proof report",
                f"The checks of {site.ast.name} as `lextrace verify` runs them, proved by Z3 "
                "for every valid scenario when this site was built. Invariants and monotone "
                "properties are written in the encoding inside their clauses; well-formedness "
                "checks (cases exhaustive and exclusive, no division by zero, bonuses within "
                "their stated amounts) are generated from the rules.",
                *report_sections(site.statute, report, lambda c: site.clause_link(c, here)),
            ]
        )
        + "\n"
    )
