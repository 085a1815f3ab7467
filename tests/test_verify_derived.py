"""`lextrace verify` on an input derived from a list (`derived by RULE when CONDITION`): the
rules only the derivation uses are asked to hold where a scenario derives the input, not
without the list; a property relating the input to its rule is decided with the input holding
the rule's value there, as the evaluator derives it."""

from __future__ import annotations

from pathlib import Path

from conftest import ROOT

from lextrace import load_statute
from lextrace.verify.checks import BOUNDED, PROVED, VIOLATED
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
