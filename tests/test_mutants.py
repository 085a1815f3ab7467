"""The mutation run: deterministic mutants of the rules only, each caught where it should be.

The full run (`lextrace mutants --tests`) takes minutes; these tests run a handful of mutants.
"""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from lextrace.dsl import ast
from lextrace.dsl.loader import analyse_text, load
from lextrace.dsl.parser import parse_encoding, parses_as_expression
from lextrace.statute import BUNDLED, OFFICIAL
from lextrace.verify.mutants import (
    KINDS,
    STATUSES,
    Edit,
    Job,
    Mutant,
    MutantResult,
    MutationReport,
    ProofKill,
    _Generator,
    builtin_equivalence,
    check_category,
    edit_regions,
    equivalence,
    generate,
    percent,
    render_text,
    run_job,
    select,
    to_json,
)

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def original() -> ast.Statute:
    """The bundled encoding, parsed and checked."""
    return load(BUNDLED)


@pytest.fixture(scope="module")
def mutants(original: ast.Statute) -> list[Mutant]:
    """Every mutant of the bundled encoding."""
    return generate(original)


@pytest.fixture(scope="module")
def again() -> list[Mutant]:
    """Every mutant of the bundled encoding, generated again from a fresh parse."""
    return generate(load(BUNDLED))


def _job(original: ast.Statute, mutant: Mutant, cases: tuple[str, ...] = ()) -> Job:
    return Job(
        mutant,
        original.source,
        OFFICIAL.name,
        OFFICIAL.read_text(encoding="utf-8"),
        timeout=2.0,
        budget=60.0,
        tests=bool(cases),
        cases=cases,
    )


def _find(mutants: list[Mutant], description: str) -> Mutant:
    found = [m for m in mutants if m.description == description]
    assert len(found) == 1, [m.description for m in mutants if description[:12] in m.description]
    return found[0]


def _texts(statute: ast.Statute) -> list[tuple[tuple[str, ...], str]]:
    return [(c.path, piece.text) for c in statute.clauses for piece in c.texts]


def test_generation_is_deterministic_and_covers_every_kind(
    original: ast.Statute, mutants: list[Mutant], again: list[Mutant]
) -> None:
    assert again == mutants
    assert len(mutants) >= 60
    assert {m.kind for m in mutants} == set(KINDS)
    assert [m.id for m in mutants] == [f"M{i:03d}" for i in range(1, len(mutants) + 1)]
    assert len({m.apply(original.source) for m in mutants}) == len(mutants)
    for mutant in mutants:
        assert mutant.description.startswith(f"{mutant.citation}: ")
        assert mutant.description.endswith(f" in {mutant.owner}")
        first = min(e.start for e in mutant.edits)
        assert original.source.count("\n", 0, first) + 1 == mutant.line


@pytest.mark.parametrize(
    "encoding",
    [
        "statute/catala-tutorial-tax.lex",
        "statute/nsw-cgr-2020-cl-5.lex",
        "statute/usc-26-132-c.lex",
        "tests/other_statutes/payroll.lex",
    ],
)
def test_judging_an_edit_by_its_expression_keeps_what_a_whole_parse_keeps(encoding: str) -> None:
    statute = load(ROOT / encoding)
    whole = _Generator(statute)
    whole.parses = whole._parses_whole  # type: ignore[method-assign]
    assert generate(statute) == whole.generate()


def test_an_edit_that_breaks_the_syntax_is_refused(original: ast.Statute) -> None:
    generator = _Generator(original)
    expr = generator.sites[0].expr
    inside = Edit(expr.span.end, expr.span.end, " +")
    assert not parses_as_expression(original.source[expr.span.start : expr.span.end] + " +")
    assert not generator.parses((inside,))
    assert generator.parses(
        (Edit(expr.span.start, expr.span.start, "("), Edit(expr.span.end, expr.span.end, ")"))
    )
    # Outside every expression, the whole source is parsed.
    assert not generator.parses((Edit(0, 0, "rule "),))


def _spread(mutants: list[Mutant], per_kind: int) -> list[Mutant]:
    """Up to `per_kind` mutants of each kind, spread evenly over its mutants in source order."""
    chosen: list[Mutant] = []
    for kind in KINDS:
        of_kind = [m for m in mutants if m.kind == kind]
        step = max(1, -(-len(of_kind) // per_kind))
        chosen.extend(of_kind[::step])
    return chosen


def test_mutants_edit_rules_only_never_the_statute_words(
    original: ast.Statute, mutants: list[Mutant]
) -> None:
    """Every mutant's edits lie inside the rules and outside the words; a spread of each kind's
    mutants (a parse costs a tenth of a second) is parsed again and keeps every clause's words."""
    regions = edit_regions(original)
    words = [piece.span for clause in original.clauses for piece in clause.texts]
    for mutant in mutants:
        for edit in mutant.edits:
            assert any(r.start <= edit.start and edit.end <= r.end for r in regions), mutant
            assert not any(w.start < edit.end and edit.start < w.end for w in words), mutant
        mutated = mutant.apply(original.source)
        assert mutated != original.source
        start = min(e.start for e in mutant.edits)
        assert mutated[:start] == original.source[:start]
        tail = len(original.source) - max(e.end for e in mutant.edits)
        assert mutated[len(mutated) - tail :] == original.source[len(original.source) - tail :]
    parsed = _spread(mutants, per_kind=6)
    assert {m.kind for m in parsed} == set(KINDS) and len(parsed) < len(mutants)
    for mutant in parsed:
        statute, _ = parse_encoding(mutant.apply(original.source), f"{mutant.id}.lex")
        assert _texts(statute) == _texts(original), mutant.id


def _mutated(
    original: ast.Statute, mutants: list[Mutant], kind: str, owner: str, wanted: str
) -> Mutant:
    """The one mutant of `kind` in `owner` whose source contains `wanted` (which the original
    does not)."""
    assert wanted not in original.source
    found = [
        m
        for m in mutants
        if m.kind == kind and m.owner == owner and wanted in m.apply(original.source)
    ]
    assert len(found) == 1, [m.description for m in mutants if m.kind == kind]
    return found[0]


# (kind, owner, a text of the mutated source at the site, how it reads in the original)
NEW_KINDS = [
    (
        "boundary",
        "rule distress_score_bonus",
        "when mri_distress_score >= 50 reading I2",
        "when mri_distress_score > 50 reading I2",
    ),
    (
        "comparison",
        "rule distress_score_bonus",
        "when mri_distress_score < 50 reading I2",
        "when mri_distress_score > 50 reading I2",
    ),
    (
        "unit",
        "rule salary_bonus",
        "floor(salary_excess / 35)",
        "floor(salary_excess / 35%)",
    ),
    (
        "unit",
        "rule board_diversity_bonus",
        "board_underrepresented_share >= 33% reading",
        "board_underrepresented_share >= 1/3 reading",
    ),
    (
        "fact-added",
        "rule opportunity_zone_bonus",
        "$1,000 when qualified_opportunity_zone or employment_investment_corridor;",
        "$1,000 when qualified_opportunity_zone;",
    ),
    (
        "fact-dropped",
        "case area_tier",
        "case area_tier = b1 when government_restricted_municipality;",
        "case area_tier = b1 when government_restricted_municipality or mega_project;",
    ),
    (
        "condition-moved",
        "case salary_reference",
        "county_median_salary when government_restricted_municipality;",
        "county_median_salary when not government_restricted_municipality;",
    ),
    (
        "condition-moved",
        "case large_employer_bonus",
        "$1,500 when (new_jobs + retained_jobs) > 1000;",
        "$1,500 when new_jobs > 1000;",
    ),
    (
        "misplaced-amount",
        "rule gross_amount",
        "(min(base_amount + bonus_total(covered: covered), gross_cap) + "
        "cap_allowance(covered: covered))",
        "min(base_amount + bonus_total(covered: covered),\n        gross_cap + cap_allowance",
    ),
    (
        "misplaced-amount",
        "rule gross_amount",
        "(base_amount + min(bonus_total(covered: covered), gross_cap + "
        "cap_allowance(covered: covered)))",
        "min(base_amount + bonus_total(covered: covered),\n        gross_cap + cap_allowance",
    ),
    (
        "rounding",
        "rule salary_bonus",
        "min($200 * (salary_excess / 35%), $1,000)",
        "min($200 * floor(salary_excess / 35%), $1,000)",
    ),
    (
        "rounding",
        "rule salary_bonus",
        "min($200 * (floor(salary_excess / 35%) + 1), $1,000)",
        "min($200 * floor(salary_excess / 35%), $1,000)",
    ),
]


@pytest.mark.parametrize(("kind", "owner", "wanted", "before"), NEW_KINDS)
def test_each_new_kind_makes_its_edit_at_a_known_site(
    original: ast.Statute,
    mutants: list[Mutant],
    again: list[Mutant],
    kind: str,
    owner: str,
    wanted: str,
    before: str,
) -> None:
    assert before in original.source
    mutant = _mutated(original, mutants, kind, owner, wanted)
    mutated = mutant.apply(original.source)
    statute, _ = parse_encoding(mutated, f"{mutant.id}.lex")  # it parses
    assert statute.result_names == original.result_names
    # Deterministic: the same mutant, under the same id, from a fresh parse of the encoding.
    assert _mutated(original, again, kind, owner, wanted) == mutant


def test_boundary_flips_strictness_and_comparison_reverses_the_test(
    original: ast.Statute, mutants: list[Mutant]
) -> None:
    pairs = {
        "boundary": [{"<", "<="}, {">", ">="}],
        "comparison": [{"<", ">"}, {"<=", ">="}, {"=", "!="}],
    }
    seen = dict.fromkeys(pairs, 0)
    for mutant in mutants:
        if mutant.kind in pairs:
            (edit,) = mutant.edits
            assert {original.source[edit.start : edit.end], edit.text} in pairs[mutant.kind]
            seen[mutant.kind] += 1
    assert seen["boundary"] >= 10 and seen["comparison"] > seen["boundary"]


def test_a_limited_sample_is_seeded_and_spread_over_the_kinds(mutants: list[Mutant]) -> None:
    sample = select(mutants, len(KINDS), seed=7)
    assert sample == select(mutants, len(KINDS), seed=7)
    assert {m.kind for m in sample} == set(KINDS)
    assert [m.id for m in sample] == sorted(m.id for m in sample)
    assert select(mutants, None) == mutants


def test_dropping_the_cap_of_the_gross_amount_is_killed_by_the_checks(
    original: ast.Statute, mutants: list[Mutant]
) -> None:
    mutant = next(
        m
        for m in mutants
        if m.kind == "dropped-cap"
        and m.owner == "rule gross_amount"
        and m.edits[0].text.startswith("(base_amount")
    )
    result = run_job(_job(original, mutant))
    # The cap of (d) and the allowance of (c)(1)(j) are then rules no result rests on.
    assert result.status == "check"
    assert any("gross_cap' is used by no result" in e for e in result.check_errors)


def test_the_allowance_added_after_the_cap_is_killed_by_the_proofs(
    original: ast.Statute, mutants: list[Mutant]
) -> None:
    mutant = _mutated(
        original,
        mutants,
        "misplaced-amount",
        "rule gross_amount",
        "gross_cap) + cap_allowance(covered: covered))",
    )
    result = run_job(_job(original, mutant))
    assert result.status == "proof"
    assert result.check_errors == []
    assert result.proofs_alone is True
    # What killed it: the first failing proof, with the counterexample that shows it.
    assert result.killer == result.proof_kills[0].name
    assert any(
        k.name.startswith("gross_is_at_most_the_sum")
        and k.status == "VIOLATED"
        and k.counterexample
        for k in result.proof_kills
    )


def test_a_changed_amount_is_killed_by_the_number_check(
    original: ast.Statute, mutants: list[Mutant]
) -> None:
    mutant = _find(mutants, "(d)(3): $5,000 -> $5,500 in case gross_cap")
    assert mutant.kind == "amount" and mutant.citation == "(d)(3)"
    result = run_job(_job(original, mutant))
    assert result.status == "check"
    assert result.numbers_only
    assert "$5,500" in result.check_errors[0]
    # Its category names no number, no rule and no clause: the same for every such mutant.
    assert result.killer == result.check_kinds[0]
    assert "$5,500" not in result.killer and "gross_cap" not in result.killer
    assert "(d)(3)" not in result.killer
    # The proofs were run as well, ignoring the number check: a cap raised to $5,500 breaks
    # the limit the words of (d)(3) state, proved without a hand-written invariant.
    assert result.proofs_alone is True
    assert any("gross_amount within the words: $5,000 (d)(3)" in f for f in result.proof_failures)


def test_equivalence_proves_a_rewriting_equal_and_finds_a_change(
    original: ast.Statute,
) -> None:
    start = original.source.index("$3,000 when area_tier = b5")
    same = Mutant(
        "X1", "amount", "(d)(5)", 1, "case gross_cap", "", (Edit(start, start + 6, "$3000"),)
    )
    other = Mutant(
        "X2", "amount", "(d)(5)", 1, "case gross_cap", "", (Edit(start, start + 6, "$2000"),)
    )
    for mutant, wanted in ((same, "equivalent"), (other, "different")):
        statute, _ = parse_encoding(mutant.apply(original.source), "mutant.lex")
        assert equivalence(original, statute, 5.0).verdict == wanted
        verdicts = builtin_equivalence(original, statute, 5.0, stop=wanted == "different")
        if wanted == "equivalent":
            assert verdicts == dict.fromkeys(original.result_names, "equal")
        else:
            assert list(verdicts.values())[-1] == "different"


def test_a_check_category_keeps_the_words_and_drops_what_is_particular() -> None:
    class Diagnostic:
        def __init__(self, message: str, code: str | None = None) -> None:
            self.message, self.code = message, code

    one = check_category(Diagnostic("the number $5,500 in 'gross_cap' is not stated in (d)(3)"))
    two = check_category(Diagnostic("the number 45% in 'per_job' is not stated in (f)(2)"))
    assert one == two == "the number N in '…' is not stated in (…)"
    assert check_category(Diagnostic("anything", code="units")) == "units"


def _synthetic(mutants: list[Mutant], tests: bool) -> MutationReport:
    """A report of six results, one of each status and a second proof kill, without Z3."""
    proof = ProofKill("cap_b1", "invariant", "VIOLATED", True)
    other = ProofKill("bonus_bound", "bound", "VACUOUS", False)
    by_kind = {m.kind: m for m in mutants}
    results = [
        MutantResult(by_kind["unit"], "check", ["1:1: x"], ["the number N in '…'"]),
        MutantResult(
            by_kind["unit"],
            "proof",
            proof_failures=["VIOLATED cap_b1"],
            proof_kills=[proof],
            proofs_alone=True,
        ),
        MutantResult(
            by_kind["fact-added"],
            "proof",
            proof_failures=["VACUOUS bonus_bound", "VIOLATED cap_b1"],
            proof_kills=[other, proof],
            proofs_alone=True,
        ),
        MutantResult(
            by_kind["fact-added"], "tests", unknown=1, unknown_checks=["m1"], tests_detail="x"
        ),
        MutantResult(by_kind["fact-added"], "unknown", unknown=2, unknown_checks=["m2", "m3"]),
        MutantResult(by_kind["rounding"], "survived"),
        MutantResult(by_kind["rounding"], "equivalent"),
    ]
    return MutationReport("s", "s.lex", len(mutants), results, 1.0, 2.0, 60.0, tests)


def test_the_report_names_the_killing_checks_and_the_rate_without_tests_by_kind(
    mutants: list[Mutant],
) -> None:
    report = _synthetic(mutants, tests=True)
    totals = report.totals()
    rows = report.by_kind()
    assert sum(totals[k] for k in ("killed", "equivalent", "survived", "unknown")) == 7
    for row in rows.values():
        assert sum(row[status] for status in STATUSES) == row["mutants"]
        killers = row["killers"]
        assert sum(n for _, n in killers["check"]) == row["check"]
        assert sum(n for _, n in killers["proof"]) == row["proof"]
    assert rows["fact-added"]["killers"]["proof"] == [("bonus_bound", 1)]
    assert rows["unit"]["killers"] == {
        "check": [("the number N in '…'", 1)],
        "proof": [("cap_b1", 1)],
    }
    # Without the tests, the mutant they killed is unknown (a proof of it ended UNKNOWN).
    assert (
        rows["fact-added"]["killed_without_tests"],
        rows["fact-added"]["decided_without_tests"],
    ) == (1, 1)
    assert (totals["killed_without_tests"], totals["decided_without_tests"]) == (3, 4)
    assert report.kill_rate == Fraction(4, 5)  # the unknown and the equivalent left out
    assert report.kill_rate_without_tests == Fraction(3, 4)
    text = render_text(report)
    assert "      by proof: 1 cap_b1" in text
    assert "      by check: 1 the number N in '…'" in text
    assert "neither killed nor survived" in text and "[UNKNOWN: m2, m3]" in text
    assert "  fact-added          1/1   = 100.00 %" in text
    assert "  all                 3/4   = 75.00 %" in text
    assert "1 survived, 1 unknown" in text
    data = to_json(report)
    assert data["kill_rate_without_tests"] == {"fraction": "3/4", "percent": "75.00"}
    assert data["unknown"] == [report.results[4].mutant.id]
    unit = data["by_kind"]["unit"]
    assert unit["killers"]["proof"] == [{"name": "cap_b1", "count": 1}]
    assert unit["kill_rate_without_tests"] == {"fraction": "1/1", "percent": "100.00"}
    assert (unit["killed_without_tests"], unit["decided_without_tests"]) == (2, 2)
    entries = data["mutants"]
    assert [e["killer"] for e in entries] == [
        "the number N in '…'",
        "cap_b1",
        "bonus_bound",
        "cases",
        None,
        None,
        None,
    ]
    assert entries[1]["proof_kills"] == [
        {"check": "cap_b1", "kind": "invariant", "status": "VIOLATED", "counterexample": True}
    ]
    assert [e["status_without_tests"] for e in entries][3] == "unknown"
    # Without --tests the two rates are one.
    plain = _synthetic(mutants, tests=False)
    plain.results = [r for r in plain.results if r.status != "tests"]
    assert plain.kill_rate == plain.kill_rate_without_tests == Fraction(3, 4)


def test_a_mutant_whose_proofs_end_unknown_is_neither_killed_nor_survived(
    original: ast.Statute, mutants: list[Mutant]
) -> None:
    # The (g) limit applied also when equal to the total: no check can tell (it is equivalent).
    mutant = _mutated(
        original,
        mutants,
        "boundary",
        "exception board_limit",
        "board_approved_annual_limit <= annual_total_before_limit",
    )
    # A Z3 call of one millisecond decides few checks: the rest end UNKNOWN.
    job = _job(original, mutant)
    result = run_job(Job(**{**job.__dict__, "timeout": 0.001}))
    assert result.unknown > 0 and len(result.unknown_checks) == result.unknown
    assert result.status == "unknown" and not result.killed and result.killer is None


def test_rates_are_exact_and_rounded_half_up() -> None:
    assert percent(Fraction(2, 3)) == "66.67"
    assert percent(Fraction(1, 8)) == "12.50"
    assert percent(Fraction(1)) == "100.00"
    assert percent(None) == "n/a"


def _lextrace(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lextrace", *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_the_json_report(tmp_path: Path) -> None:
    # A small statute: the report's shape does not depend on the encoding's size.
    completed = _lextrace(
        "mutants", "-e", str(ROOT / "statute/usc-26-132-c.lex"), "--limit", "3", "--seed", "1",
        "--jobs", "1", "--format", "json",
    )  # fmt: skip
    assert completed.returncode == 0, completed.stderr
    assert "Traceback" not in completed.stderr
    report = json.loads(completed.stdout)
    assert report["statute"] == "26 U.S.C."
    assert report["generated"] >= 40 and report["limit"] == 3 and report["seed"] == 1
    totals = report["totals"]
    assert totals["mutants"] == 3 == len(report["mutants"])
    assert (
        totals["killed_by_check"]
        + totals["killed_by_proof"]
        + totals["killed_by_tests"]
        + totals["equivalent"]
        + totals["survived"]
        + totals["unknown"]
        == 3
    )
    assert totals["killed"] + totals["equivalent"] + totals["survived"] + totals["unknown"] == 3
    assert report["kill_rate_without_tests"] == report["kill_rate"]  # no --tests
    for row in report["by_kind"].values():
        assert sum(c["count"] for c in row["killers"]["check"]) == row["check"]
        assert sum(c["count"] for c in row["killers"]["proof"]) == row["proof"]
    assert set(report["by_kind"]) <= set(KINDS)
    for entry in report["mutants"]:
        assert {"id", "kind", "citation", "line", "description", "status", "killed_by"} <= set(
            entry
        )
        assert entry["status"] in STATUSES
        assert (entry["killer"] is None) == (entry["killed_by"] is None)
        assert entry["killed_by"] in ("check", "proof", "tests", None)
        assert entry["kind"] in KINDS
    if report["kill_rate"] is not None:
        numerator, denominator = map(int, report["kill_rate"]["fraction"].split("/"))
        assert report["kill_rate"]["percent"] == percent(Fraction(numerator, denominator))


def test_an_unusable_encoding_exits_2(tmp_path: Path) -> None:
    broken = tmp_path / "broken.lex"
    broken.write_text('statute "x"\n', encoding="utf-8")
    completed = _lextrace("mutants", str(broken))
    assert completed.returncode == 2
    assert "Traceback" not in completed.stderr
    assert "broken.lex" in completed.stderr


# ---- --tests: the encoding's own cases ----------------------------------------------------------

RATIO = Path(__file__).resolve().parent / "other_statutes"
RATIO_CASES = """cases:
  - name: a third
    scenario: {part: 1, whole: 3}
    expect: {ratio: "1/3", twice: 6, exceeds: false, band: low}
  - name: more than the whole
    scenario: {part: 4, whole: 2}
    expect: {ratio: "2", twice: 4, exceeds: true, band: high}
  - name: the whole itself
    scenario: {part: 2, whole: 2}
    expect: {exceeds: false}
"""


def _ratio(tmp_path: Path, cases: str | None) -> Path:
    """A copy of the ratio statute in `tmp_path`, with `cases` beside it as its cases file."""
    for name in ("ratio.lex", "ratio.txt"):
        (tmp_path / name).write_text((RATIO / name).read_text(encoding="utf-8"), encoding="utf-8")
    if cases is not None:
        (tmp_path / "ratio.cases.yaml").write_text(cases, encoding="utf-8")
    return tmp_path / "ratio.lex"


def test_a_mutant_the_proofs_let_through_is_killed_by_the_bundled_cases(
    original: ast.Statute, mutants: list[Mutant]
) -> None:
    # (c)(1)(d)'s $1,000 given to any program, not only one of a State institution nearby.
    mutant = _find(mutants, "(c)(1)(d): $500 -> $1,000 in rule training_bonus")
    cases = str(BUNDLED.with_name(BUNDLED.stem + ".cases.yaml"))
    result = run_job(_job(original, mutant, (cases,)))
    assert result.status == "tests"
    # The checks and every proof ran and let it through: only the cases kill it.
    assert result.check_errors == [] and result.proof_failures == []
    assert result.proof_kills == [] and result.proofs_alone is False
    assert result.tests_detail.startswith("case '")
    assert "expected" in result.tests_detail and "(to the cent)" in result.tests_detail


def test_another_amount_of_the_clause_given_for_each_step_is_killed_by_the_check(
    original: ast.Statute, mutants: list[Mutant]
) -> None:
    """(c)(1)(f) states $1,000 (its maximum) and gives $200 for each step: $1,000 a step once
    passed every check and proof, and only the cases killed it."""
    mutant = _find(mutants, "(c)(1)(f): $200 -> $1,000 in rule salary_bonus")
    result = run_job(_job(original, mutant))
    assert result.status == "check"
    assert any("gives $1,000 for each step" in error for error in result.check_errors)


def test_tests_run_the_cases_beside_an_encoding_of_another_statute(tmp_path: Path) -> None:
    encoding = _ratio(tmp_path, RATIO_CASES)
    completed = _lextrace(
        "mutants", "--tests", "-e", str(encoding), "--jobs", "1", "--format", "json"
    )
    assert completed.returncode == 0, completed.stderr
    report = json.loads(completed.stdout)
    assert report["tests"] is True
    assert report["cases"] == [str((tmp_path / "ratio.cases.yaml").resolve())]
    assert report["totals"]["killed_by_tests"] >= 3
    assert report["totals"]["survived"] == 0  # the case at part = whole kills the flipped >
    by_tests = [m for m in report["mutants"] if m["killed_by"] == "tests"]
    assert all(m["tests_detail"].startswith("case '") for m in by_tests)


def test_tests_without_cases_or_with_cases_failing_on_the_original_exit_2(tmp_path: Path) -> None:
    encoding = _ratio(tmp_path, None)
    missing = _lextrace("mutants", "--tests", "-e", str(encoding))
    assert missing.returncode == 2
    assert f"no test cases to run: {tmp_path / 'ratio.cases.yaml'} does not exist" in (
        missing.stderr
    )
    wrong = tmp_path / "wrong.yaml"
    wrong.write_text(
        "cases:\n  - {name: wrong, scenario: {part: 1, whole: 3}, expect: {twice: 7}}\n",
        encoding="utf-8",
    )
    failing = _lextrace("mutants", "-e", str(encoding), "--cases", str(wrong))  # implies --tests
    assert failing.returncode == 2
    assert "the test cases fail on the original: case 'wrong' fails: twice = 6, expected 7" in (
        failing.stderr
    )
    wrong.write_text("cases:\n  - {name: wrong, scenario: {part: 1}, expect: {twice: x}}\n")
    bad = _lextrace("mutants", "-e", str(encoding), "--cases", str(wrong))
    assert bad.returncode == 2
    assert f"{wrong}:2:56: case 'wrong': expect.twice: expected a whole number, given \"x\"" in (
        bad.stderr
    )
    assert "Traceback" not in missing.stderr + failing.stderr + bad.stderr


def test_a_stopped_run_ends_its_workers_at_once() -> None:
    import contextlib
    import os
    import signal
    import time
    import uuid

    marker = uuid.uuid4().hex

    def marked() -> list[int]:
        """The processes (the run and its workers) whose environment carries the marker."""
        found = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                environ = Path("/proc", entry, "environ").read_bytes()
            except OSError:
                continue
            if f"LEXTRACE_TEST_RUN={marker}".encode() in environ:
                found.append(int(entry))
        return found

    process = subprocess.Popen(
        [sys.executable, "-m", "lextrace", "mutants", "--jobs", "2", "--format", "json"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "LEXTRACE_TEST_RUN": marker},
    )
    try:
        deadline = time.monotonic() + 120
        # The run and its first worker: the second may be starting, the window where a stop
        # once left a worker outside the pool, to die printing a traceback.
        while len(marked()) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(marked()) >= 2, "the workers never started"
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=60)
        deadline = time.monotonic() + 15
        while marked() and time.monotonic() < deadline:
            time.sleep(0.2)
        left = marked()
    finally:
        for pid in marked():  # whatever the outcome, nothing of this run outlives the test
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
    assert process.returncode == 128 + signal.SIGTERM, stderr
    assert "Traceback" not in stderr
    assert left == []  # no worker goes on with the 400 mutants queued


def test_a_date_moves_by_a_day_and_a_duration_by_one_of_its_units() -> None:
    # A date never becomes a number (its day count): each mutant of one is a day either side,
    # and still type-checks, so that only the checks, proofs or cases can kill it.
    for path, literal, wanted in [
        (ROOT / "statute" / "catala-tutorial-tax.lex", "2001-01-01", {"2001-01-02", "2000-12-31"}),
        (ROOT / "tests" / "other_statutes" / "residence.lex", "5 years", {"6 years", "4 years"}),
    ]:
        original = load(path)
        moved = {
            edit.text: mutant
            for mutant in generate(original)
            if mutant.kind == "amount"
            for edit in mutant.edits
            if original.source[edit.start : edit.end] == literal
        }
        assert set(moved) == wanted, (path.name, sorted(moved))
        for mutant in moved.values():
            analysis = analyse_text(path, mutant.apply(original.source))
            assert not any("cannot compare" in d.message for d in analysis.errors), mutant
