"""The proofs: every check of the bundled statute proved; a breaking amendment refuted with a
counterexample the evaluator reproduces; vacuous, unknown and mistranslated checks all fail."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from xml.etree import ElementTree

import pytest
from conftest import lextrace_command, write_variant

from lextrace import Statute, load_statute
from lextrace.dsl.scenario import validate
from lextrace.statute import AMENDMENTS, BUNDLED
from lextrace.verify.checks import ERROR, PROVED, UNKNOWN, VACUOUS, VIOLATED, Outcome, Verifier
from lextrace.verify.report import run

# The limit of (d)(5), read from its words, that the breaking draft exceeds.
CAP_B5 = "gross_amount within the words: $3,000 (d)(5)(covered=false)"

BREAKING = AMENDMENTS / "uncapped-port-bonus" / "nj-34-1b-343.lex"
KEEPING = AMENDMENTS / "small-business-750" / "nj-34-1b-343.lex"


lextrace = lextrace_command


@pytest.fixture(scope="module")
def bundled(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """The proof report of the bundled statute, from `lextrace verify` in a fresh process (as a
    user or CI runs it), with its JSON, JUnit and SARIF outputs."""
    folder = tmp_path_factory.mktemp("proofs")
    completed = lextrace(
        "verify",
        # How each check ends, not how fast: the test files run side by side.
        "--timeout",
        "10",
        "--budget",
        "120",
        "--format",
        "json",
        "--junit",
        str(folder / "proofs.xml"),
        "--sarif",
        str(folder / "proofs.sarif"),
    )
    report = json.loads(completed.stdout)
    return {
        "exit": completed.returncode,
        "report": report,
        "junit": ElementTree.parse(folder / "proofs.xml").getroot(),
        "sarif": json.loads((folder / "proofs.sarif").read_text(encoding="utf-8")),
    }


@pytest.fixture(scope="module")
def breaking(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """One `lextrace verify` of the breaking amendment, with every output asked for at once:
    its JSON report, counterexample files, SARIF and JUnit."""
    folder = tmp_path_factory.mktemp("breaking")
    completed = lextrace(
        "verify", str(BREAKING), "--format", "json", "--counterexamples", str(folder / "cx"),
        "--sarif", str(folder / "out.sarif"), "--junit", str(folder / "out.xml"),
    )  # fmt: skip
    return {
        "exit": completed.returncode,
        "report": json.loads(completed.stdout),
        "counterexamples": folder / "cx",
        "sarif": json.loads((folder / "out.sarif").read_text(encoding="utf-8")),
        "junit": ElementTree.parse(folder / "out.xml").getroot(),
    }


def test_every_check_of_the_bundled_statute_is_proved(bundled: dict) -> None:
    checks = bundled["report"]["checks"]
    # Only the rules deriving the counted facts from a payroll rest on a list: those are
    # proved for lists of a bounded length (BOUNDED), every other check for all scenarios.
    bounded = [c for c in checks if c["status"] == "BOUNDED"]
    assert bounded and all(
        "payroll_" in c["name"]
        or "full_time_jobs" in c["description"]
        or "payroll_" in c["description"]
        for c in bounded
    ), bounded
    assert [c for c in checks if c["status"] not in (PROVED, "BOUNDED")] == []
    assert {c["kind"] for c in checks} == {"invariant", "monotone", "well-formed", "bound"}
    assert len(checks) >= 100
    assert bundled["report"]["ok"] is True and bundled["exit"] == 0


def test_the_issue_invariants_are_all_there(bundled: dict) -> None:
    names = {c["name"] for c in bundled["report"]["checks"]}
    for expected in [
        "allowance_at_most_1000(covered=true)",
        "gross_amount within the words: $5,000 (d)(3)(covered=false)",
        "no_credit_30_percent_below",
        "reduced_by_the_shortfall(covered=true)",
        "no_bonus_below_the_wage_floor(covered=false)",
        "retained_is_half_of_new",
        "within_the_board_limit",
        "amounts_not_negative",
        "bonuses_never_lower[new_jobs]",
        "bonuses_never_lower[child_care]",
        "exhaustive: gross_cap",
        "derived within its bounds: labor_harmony_new_jobs",
        "derived within its bounds: project_median_salary",
        "exclusive: large_employer_bonus (c)(1)(c)(iv) / (c)(1)(c)(v)",
        "bonus within its clause: investment_bonus",
    ]:
        assert expected in names
    assert any(name.startswith("division by zero:") for name in names)


def test_report_formats(bundled: dict) -> None:
    first = bundled["report"]["checks"][0]
    assert bundled["report"]["usable"] is True  # an unusable encoding says false (its errors)
    assert {"name", "citation", "status", "seconds"} <= set(first)
    assert first["citation"].startswith("N.J.S.A. 34:1B-343(")
    suite = bundled["junit"]
    assert suite.get("failures") == "0"
    assert len(suite.findall("testcase")) == len(bundled["report"]["checks"])
    sarif = bundled["sarif"]
    assert sarif["version"] == "2.1.0" and sarif["runs"][0]["results"] == []


def test_breaking_amendment_fails_with_a_counterexample_explain_reproduces(
    breaking: dict,
) -> None:
    out = breaking["counterexamples"]
    assert breaking["exit"] == 1
    report = breaking["report"]
    violated = {c["name"]: c for c in report["checks"] if c["status"] == VIOLATED}
    assert CAP_B5 in violated
    assert all(c["status"] in (PROVED, VIOLATED, "BOUNDED") for c in report["checks"])
    check = violated[CAP_B5]
    assert check["citation"] == "N.J.S.A. 34:1B-343(d)(5)"
    written = out / "gross_amount-within-the-words-3-000-d-5-covered-false.json"
    recorded = json.loads(written.read_text(encoding="utf-8"))
    assert recorded.pop("readings") == check["readings"]
    assert recorded.pop("lextrace")["violates"]["check"] == CAP_B5
    assert recorded == check["counterexample"]
    explained = lextrace("explain", str(written), "--encoding", str(BREAKING))
    assert explained.returncode == 0, explained.stderr
    # The breach, in the evaluator's own trace: a (d)(5) facility whose gross amount is above
    # the $3,000 cap plus any labor harmony allowance.
    amendment = load_statute(BREAKING)
    steps = amendment.evaluate(
        check["counterexample"], check["readings"], trace=True
    ).trace.evaluation.steps
    assert steps[("area_tier", ())].value == "b5"
    allowance = steps[("cap_allowance", (False,))].value
    assert steps[("gross_amount", (False,))].value > 3000 + allowance
    assert "port_employment_bonus = $1,500.00" in explained.stdout


def test_amendment_that_keeps_the_invariants_is_proved() -> None:
    assert lextrace("verify", str(KEEPING), "--timeout", "10", "--budget", "120").returncode == 0


def test_vacuous_invariant_fails(tmp_path: Path, encoding_source: str) -> None:
    variant = write_variant(
        tmp_path,
        encoding_source,
        "  invariant amounts_not_negative",
        '  invariant impossible "A premise that never holds.":\n'
        "    new_jobs < 0 implies annual_credit = $0;\n"
        "  invariant amounts_not_negative",
    )
    report = run(load_statute(variant).ast)
    outcome = next(o for o in report.outcomes if o.check.name == "impossible")
    assert outcome.status == VACUOUS
    assert not report.ok


def test_an_invariant_that_checks_no_rule_fails_and_a_real_one_is_proved(
    tmp_path: Path, encoding_source: str
) -> None:
    variant = write_variant(
        tmp_path,
        encoding_source,
        "  invariant amounts_not_negative",
        '  invariant restated "The bonus equals itself.":\n'
        "    small_business implies small_business_bonus = small_business_bonus;\n"
        '  invariant either_way "A tier or not.":\n'
        "    annual_credit <= $0 or annual_credit > $0;\n"
        '  invariant declared "Jobs are not negative.":\n'
        "    new_jobs >= 0;\n"
        '  invariant real "The credit is never negative.":\n'
        "    annual_credit >= $0;\n"
        "  invariant amounts_not_negative",
    )
    outcomes = prove_only(variant, ("restated", "either_way", "declared", "real"))
    for name in ("restated", "either_way", "declared"):
        assert outcomes[name].status == VACUOUS, outcomes[name]
        assert "it checks no rule" in outcomes[name].detail
    assert outcomes["real"].status == PROVED, outcomes["real"]


def prove_only(statute_path: Path, prefixes: tuple[str, ...]) -> dict[str, Outcome]:
    """Proves only the checks whose names start with one of `prefixes`."""
    statute = load_statute(statute_path).ast
    verifier = Verifier(statute, timeout_seconds=5)
    return {
        check.name: verifier.prove(check, lambda s: validate(statute, s))
        for check in verifier.checks()
        if check.name.startswith(prefixes)
    }


def test_overlapping_cases_and_division_by_zero_are_found(
    tmp_path: Path, encoding_source: str
) -> None:
    variant = write_variant(
        tmp_path,
        encoding_source,
        "case gross_cap = $4,000 when area_tier = b4;",
        "case gross_cap = $4,000 when area_tier = b3;",
    )
    outcomes = prove_only(variant, ("exclusive: gross_cap", "exhaustive: gross_cap"))
    assert outcomes["exclusive: gross_cap (d)(3) / (d)(4)"].status == VIOLATED
    assert outcomes["exclusive: gross_cap (d)(1) / (d)(2)"].status == PROVED
    assert outcomes["exhaustive: gross_cap"].status == VIOLATED
    source = encoding_source.replace(
        "min $0 above $0 when industrial_rd_capital_investment > $0", "min $0"
    )
    variant = write_variant(tmp_path, source, "section 75.", "section 75.")
    outcomes = prove_only(variant, ("division by zero: N.J.S.A. 34:1B-343(c)(1)(b)",))
    (division,) = outcomes.values()
    assert division.status == VIOLATED
    assert division.counterexample[0]["minimum_capital_investment"] == "0"
    assert "division by zero" in division.detail


def test_a_counterexample_the_evaluator_does_not_reproduce_is_an_error(
    statute: Statute,
) -> None:
    breaking = load_statute(BREAKING).ast
    verifier = Verifier(breaking)
    verifier.program = statute.program  # an evaluator that disagrees with the proof model
    check = next(c for c in verifier.checks() if c.name == CAP_B5)
    outcome = verifier.prove(check, lambda s: validate(breaking, s))
    assert outcome.status == ERROR
    assert "does not reproduce" in outcome.detail


def test_unknown_fails_unless_allowed(statute: Statute) -> None:
    report = run(statute.ast, budget_seconds=0.000001)
    assert any(o.status == UNKNOWN for o in report.outcomes)
    assert not report.ok
    report.allow_unknown = True
    assert report.ok
    completed = lextrace("verify", "--budget", "0.01")
    assert completed.returncode == 1
    assert "UNKNOWN" in completed.stdout
    assert lextrace("verify", "--budget", "0.01", "--allow-unknown").returncode == 0


def test_sarif_points_at_the_encoding_lines(breaking: dict) -> None:
    results = breaking["sarif"]["runs"][0]["results"]
    assert results
    lines = BREAKING.read_text(encoding="utf-8").splitlines()
    for result in results:
        location = result["locations"][0]["physicalLocation"]
        assert location["artifactLocation"]["uri"].endswith("uncapped-port-bonus/nj-34-1b-343.lex")
        line = lines[location["region"]["startLine"] - 1]
        assert "invariant" in line or "monotone" in line or "case" in line or "rule" in line
    assert breaking["junit"].get("failures") == str(len(results))
    # A counterexample found under readings says which: without them it may not reproduce.
    failed = [c for c in breaking["report"]["checks"] if c["status"] not in ("PROVED", "BOUNDED")]
    assert len(failed) == len(results)
    pinned = [c for c in failed if c.get("readings")]
    assert pinned  # the check is not vacuous
    for check, result in zip(failed, results, strict=True):
        text = result["message"]["text"]
        shown = ", ".join(f"{rid}={option}" for rid, option in check.get("readings", {}).items())
        assert (f"Under the readings {shown}" in text) == bool(shown), text


def test_json_and_sarif_words_read_as_one_paragraph(bundled: dict, breaking: dict) -> None:
    def laid_out(text: str) -> bool:
        return text != " ".join(text.split())

    descriptions = [c["description"] for c in bundled["report"]["checks"]]
    # Several checks' descriptions span lines in the encoding; none keeps the layout.
    source = BUNDLED.read_text(encoding="utf-8")
    assert '"The amount is increased with the bonuses: turning on any one\n' in source
    assert any(
        d.startswith("The amount is increased with the bonuses: turning on any one b")
        for d in descriptions
    )
    assert not [d for d in descriptions if laid_out(d)]
    messages = [r["message"]["text"] for r in breaking["sarif"]["runs"][0]["results"]]
    assert messages
    for message in messages:
        assert not laid_out(message), message
        assert ".." not in message, message


def test_outcome_failure_statuses() -> None:
    for status, failed in [
        (PROVED, False),
        (VIOLATED, True),
        (UNKNOWN, True),
        (VACUOUS, True),
        (ERROR, True),
    ]:
        assert Outcome(check=None, status=status, seconds=0.0).failed is failed  # type: ignore[arg-type]


def test_diff_of_the_bundled_statute_and_the_keeping_amendment(statute: Statute) -> None:
    """Every result either proved equal or with a witness both evaluators confirm: the change
    of (c)(1)(e) from $500 to $750 moves a small business's gross amount by at most $250."""
    from lextrace.verify.diff import compare_results

    amendment = load_statute(KEEPING)
    comparisons = {c.name: c for c in compare_results(statute.ast, amendment.ast)}
    assert comparisons["area_tier"].status == "equal"
    different = [c for c in comparisons.values() if c.status == "different"]
    assert {c.name for c in different} >= {"per_job_new", "annual_credit"}
    for comparison in different:
        witness = comparison.witness
        assert witness is not None and witness.get("small_business") is True
        old = statute.evaluate(witness, comparison.readings)
        new = amendment.evaluate(witness, comparison.readings)
        assert old.to_dict()[comparison.name] == comparison.old_value
        assert new.to_dict()[comparison.name] == comparison.new_value
        assert comparison.old_value != comparison.new_value
    per_job = comparisons["per_job_new"]
    rise = Fraction(per_job.new_value) - Fraction(per_job.old_value)
    assert 0 < rise <= 250


GAP_TEXT = (
    "1. (a) The rate is 10 percent for 1 child and 20 percent for 2 or more children. (b) The"
    " amount is $100 for 1 child and $200 for 2 or more children. (c) The credit is the rate of"
    " the amount, for 1 child or more.\n"
)
GAP_ENCODING = """statute "Gap Act 1"
  title "A gap act"
  official "gap.txt"

input children: count = 0 max 5 "children";

results credit;

section 1. {
  cases rate: number exclusive;
  cases amount: money exclusive;
  (a) "The rate is 10 percent for 1 child and 20 percent for 2 or more children." {
    case rate = 10% when children = 1;
    case rate = 20% when children = 2;
  }
  (b) "The amount is $100 for 1 child and $200 for 2 or more children." {
    case amount = $100 when children = 1;
    case amount = $200 when children = 2;
  }
  (c) "The credit is the rate of the amount, for 1 child or more." {
    rule credit: money = rate * amount when children >= 1;
    invariant credit_not_negative "The credit is never negative.": credit >= $0;
  }
}
"""


def test_each_gap_is_one_failure_named_by_its_own_definition(tmp_path: Path) -> None:
    # "2 or more" written "= 2" in two tables: two gaps, two failures, each telling its own
    # definition; the invariant is decided where both are defined (and holds), not failed
    # by the gap it meets on the way.
    (tmp_path / "gap.txt").write_text(GAP_TEXT, encoding="utf-8")
    (tmp_path / "gap.lex").write_text(GAP_ENCODING, encoding="utf-8")
    report = run(load_statute(tmp_path / "gap.lex").ast, 5.0, 30.0)
    failed = {o.check.name: o for o in report.failures}
    assert sorted(failed) == ["exhaustive: amount", "exhaustive: rate"]
    assert "no case of 'rate'" in failed["exhaustive: rate"].detail
    assert "no case of 'amount'" in failed["exhaustive: amount"].detail
    statuses = {o.check.name: o.status for o in report.outcomes}
    assert statuses["credit_not_negative"] == PROVED
