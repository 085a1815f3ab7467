"""`lextrace verify` on an input derived from a list (`derived by RULE when CONDITION`): the
rules only the derivation uses are asked to hold where a scenario derives the input, not
without the list; a property relating the input to its rule is decided with the input holding
the rule's value there, as the evaluator derives it."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import ROOT, lextrace_command

from lextrace import load_statute
from lextrace.dsl.errors import ScenarioError
from lextrace.dsl.scenario import validate
from lextrace.verify.checks import BOUNDED, PROVED, VIOLATED, Outcome, Verifier
from lextrace.verify.replay import counterexample_files
from lextrace.verify.report import run

ENCODING = ROOT / "tests" / "other_statutes" / "derived.lex"
SOURCE = ENCODING.read_text(encoding="utf-8")
INVARIANT = "jobs is given implies qualifying_jobs = payroll_count;"


def outcomes(path: Path) -> dict[str, tuple[str, str]]:
    """Each check's status and detail, by name."""
    report = run(load_statute(path).ast)
    return {o.check.name: (o.status, o.detail) for o in report.outcomes}


def variant(tmp_path: Path, old: str, new: str) -> Path:
    """A copy of the encoding with `old` replaced by `new`, beside its official text."""
    assert old in SOURCE
    path = tmp_path / "derived.lex"
    path.write_text(SOURCE.replace(old, new), encoding="utf-8")
    official = ENCODING.with_suffix(".txt")
    (tmp_path / official.name).write_text(official.read_text(encoding="utf-8"), encoding="utf-8")
    return path


def test_rules_only_the_derivation_uses_hold_where_the_input_is_derived() -> None:
    found = outcomes(ENCODING)
    # `well_paid` reads the list without a guard of its own: it is computed only when the
    # list is given, because only the rule deriving `qualifying_jobs` uses it.
    missing = [name for name in found if name.startswith("missing value")]
    assert missing
    assert all(found[name][0] in (PROVED, BOUNDED) for name in missing), found
    assert all(status in (PROVED, BOUNDED) for status, _ in found.values()), found


def test_a_property_relating_the_input_to_its_rule_is_proved() -> None:
    status, detail = outcomes(ENCODING)["counted_from_the_payroll"]
    assert status == BOUNDED, detail  # it rests on the list: proved up to the list bound


def test_a_false_relation_is_violated_with_a_counterexample_the_evaluator_confirms(
    tmp_path: Path,
) -> None:
    wrong = variant(
        tmp_path, INVARIANT, "jobs is given implies qualifying_jobs = payroll_count + well_paid;"
    )
    status, detail = outcomes(wrong)["counted_from_the_payroll"]
    assert status == VIOLATED
    assert "the evaluator finds the property false" in detail


def test_a_rule_a_result_uses_still_needs_the_list_it_reads(tmp_path: Path) -> None:
    # The grant reads the list's count too: computed for every scenario, with or without it.
    wrong = variant(
        tmp_path, "$500 * qualifying_jobs;", "$500 * qualifying_jobs when well_paid >= 0;"
    )
    found = outcomes(wrong)
    violated = [
        detail
        for name, (status, detail) in found.items()
        if name.startswith("missing value") and status == VIOLATED
    ]
    assert violated and "'jobs' is not given" in violated[0]


NJ = ROOT / "statute" / "nj-34-1b-343.lex"
# (c)(1)(j): the new full-time jobs in the portion subject to the agreement.
LABOR_HARMONY_NEW = "count of full_time_jobs where kind = new and labor_harmony;"
BOUNDED_DERIVED = (
    "labor_harmony_new_jobs",  # max new_jobs
    "labor_harmony_retained_jobs",  # max retained_jobs
    "project_median_salary",  # above $0
    "lowest_full_time_hourly_wage",  # above $0
)


def derived_outcomes(path: Path) -> dict[str, Outcome]:
    """The outcome of each `derived within its bounds` check of an encoding, by name."""
    statute = load_statute(path).ast
    verifier = Verifier(statute, 10)
    return {
        check.name: verifier.prove(check, lambda s: validate(statute, s))
        for check in verifier.checks()
        if check.name.startswith("derived within its bounds: ")
    }


def test_each_derived_input_that_declares_bounds_is_proved_within_them() -> None:
    found = derived_outcomes(NJ)
    assert set(found) == {f"derived within its bounds: {name}" for name in BOUNDED_DERIVED}
    # A payroll of no new and no retained job has no median: the evaluator refuses it (the
    # eligibility-period format), so it is no counterexample to `above $0`.
    assert {name: o.status for name, o in found.items()} == dict.fromkeys(found, BOUNDED)


def test_a_derivation_that_breaks_its_inputs_bound_is_refuted_as_the_evaluator_refuses_it(
    tmp_path: Path,
) -> None:
    # The labor-harmony jobs counted among the retained ones too: past `max new_jobs`.
    source = NJ.read_text(encoding="utf-8")
    assert source.count(LABOR_HARMONY_NEW) == 1
    wrong = tmp_path / NJ.name
    wrong.write_text(
        source.replace(LABOR_HARMONY_NEW, "count of full_time_jobs where labor_harmony;"),
        encoding="utf-8",
    )
    official = NJ.with_suffix(".txt")
    (tmp_path / official.name).write_text(official.read_text(encoding="utf-8"), "utf-8")
    found = derived_outcomes(wrong)
    outcome = found.pop("derived within its bounds: labor_harmony_new_jobs")
    assert outcome.status == VIOLATED, outcome.detail
    assert {o.status for o in found.values()} == {BOUNDED}
    assert "the evaluator refuses the scenario: field 'labor_harmony_new_jobs'" in outcome.detail
    # The counterexample, evaluated as a user would: refused, the value told as derived.
    assert outcome.counterexample is not None
    with pytest.raises(ScenarioError) as refused:
        load_statute(wrong).evaluate(outcome.counterexample[0])
    (problem,) = refused.value.problems
    assert problem.field == "labor_harmony_new_jobs"
    assert problem.expected.startswith("a whole number at most new_jobs (= ")
    assert "(derived by payroll_labor_harmony_new_jobs, N.J.S.A. 34:1B-343(c)(1)(j), as " in (
        problem.given
    )
    # Its counterexample file replays with `lextrace explain`: the check, VIOLATED, refused.
    report = SimpleNamespace(statute=load_statute(wrong).ast, failures=[outcome])
    ((path, text),) = counterexample_files(report, tmp_path)
    path.write_text(text, encoding="utf-8")
    explained = lextrace_command("explain", str(path))
    assert explained.returncode == 0, explained.stderr
    lines = explained.stdout.splitlines()
    assert lines[0].endswith(f"the evaluator refuses {path}")
    assert "Check derived within its bounds: labor_harmony_new_jobs (well-formed)" in lines[2]
    assert any(
        line.strip().startswith(
            "VIOLATED: the evaluator refuses the scenario: field 'labor_harmony_new_jobs'"
        )
        for line in lines
    ), explained.stdout
    assert lines[-1].startswith("No derivation: the scenario is refused: ")
