"""The semantic diff: clause and rule changes, and results proved equal or shown different.

Each variant is written into a temporary folder beside an amended copy of the official text
(the encoding's `official "nj-34-1b-343.txt"` header is relative to the encoding).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
import z3

from lextrace import load_statute
from lextrace.dsl import ast
from lextrace.dsl.errors import ScenarioError
from lextrace.dsl.values import cents_string
from lextrace.statute import BUNDLED, OFFICIAL
from lextrace.verify import diff as diff_module
from lextrace.verify.diff import (
    ResultComparison,
    compare_results,
    render_text,
    semantic_diff,
    to_json,
)

ROOT = Path(__file__).resolve().parent.parent

# (c)(1)(e) raised from $500 to $750: the words, the rule and the official text.
AMOUNT_CHANGES = [
    ("small business, an increase of $500 per", "small business, an increase of $750 per", "lex"),
    (
        "bonus rule small_business_bonus: money = $500",
        "bonus rule small_business_bonus: money = $750",
        "lex",
    ),
    (
        "small_business implies small_business_bonus = $500;",
        "small_business implies small_business_bonus = $750;",
        "lex",
    ),
    (
        "small business, an increase of $500 per year;",
        "small business, an increase of $750 per year;",
        "txt",
    ),
]
# (c)(1)(e) reworded without touching its rule.
WORDING_CHANGES = [
    ("that qualifies as a small business", "that is a small business", "lex"),
    ("that qualifies as a small business", "that is a small business", "txt"),
]


def write_variant(
    folder: Path, changes: list[tuple[str, str, str]], name: str = "nj-34-1b-343.lex"
) -> Path:
    """Writes an amended copy of the encoding and of its official text into `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    texts = {
        "lex": BUNDLED.read_text(encoding="utf-8"),
        "txt": OFFICIAL.read_text(encoding="utf-8"),
    }
    for old, new, kind in changes:
        assert texts[kind].count(old) == 1, f"{old!r} must occur once in the {kind} file"
        texts[kind] = texts[kind].replace(old, new)
    (folder / OFFICIAL.name).write_text(texts["txt"], encoding="utf-8")
    path = folder / name
    path.write_text(texts["lex"], encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def variants(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("variants")
    return {
        "amount": write_variant(base / "amount", AMOUNT_CHANGES),
        "wording": write_variant(base / "wording", WORDING_CHANGES),
    }


@pytest.fixture(scope="module")
def amount_diff(variants: dict[str, Path]) -> diff_module.Diff:
    old = load_statute(BUNDLED).ast
    new = load_statute(variants["amount"]).ast
    return semantic_diff(old, new, timeout_seconds=10.0)


# ---- the statute against itself ---------------------------------------------------------------


def test_self_diff_proves_every_result_equal() -> None:
    statute = load_statute(BUNDLED).ast
    found = semantic_diff(statute, statute)
    assert found.clauses == [] and found.rules == []
    assert found.results_added == [] and found.results_removed == []
    assert [r.name for r in found.results] == list(statute.result_names)
    assert all(r.status == "equal" for r in found.results), found.results
    assert all(r.witness is None for r in found.results)
    assert found.unchanged and found.ok


def test_compare_results_returns_typed_comparisons() -> None:
    statute = load_statute(BUNDLED).ast
    compared = compare_results(statute, statute, timeout_seconds=5.0)
    assert all(isinstance(c, ResultComparison) for c in compared)
    assert {c.status for c in compared} == {"equal"}
    assert all(c.seconds >= 0 for c in compared)


# ---- an amount change: (c)(1)(e) $500 -> $750 ---------------------------------------------------


def test_amount_change_reports_the_reworded_clause_with_its_word_diff(
    amount_diff: diff_module.Diff,
) -> None:
    assert [(c.citation, c.status) for c in amount_diff.clauses] == [("(c)(1)(e)", "reworded")]
    change = amount_diff.clauses[0]
    assert change.old_fingerprint != change.new_fingerprint
    edits = [op for op in change.word_diff if op.op != "equal"]
    assert [(op.op, op.old, op.new) for op in edits] == [("replace", ("$500",), ("$750",))]
    assert "[-$500-] {+$750+}" in render_text(amount_diff)


def test_amount_change_reports_the_changed_rule(amount_diff: diff_module.Diff) -> None:
    rules = {(r.kind, r.name): r for r in amount_diff.rules}
    # The rule, and the invariant that states its amount, which the amendment restates.
    assert set(rules) == {
        ("definition", "small_business_bonus"),
        ("invariant", "small_business_bonus_paid"),
        ("invariant", "small_business_bonus_only_if_small"),
    }
    rule = rules[("definition", "small_business_bonus")]
    assert rule.status == "changed"
    assert rule.new_citation == "(c)(1)(e)"
    assert rule.words_changed == ["(c)(1)(e)"]
    assert "$500" in (rule.old_text or "") and "$750" in (rule.new_text or "")


def test_amount_change_gives_a_witness_both_evaluators_confirm(
    amount_diff: diff_module.Diff, variants: dict[str, Path]
) -> None:
    results = {r.name: r for r in amount_diff.results}
    assert results["area_tier"].status == "equal"
    per_job = results["per_job_new"]
    assert per_job.status == "different", per_job
    assert per_job.witness is not None and per_job.readings is not None
    assert per_job.witness.get("small_business") is True

    # Evaluate the witness ourselves with both encodings.
    old, new = load_statute(BUNDLED), load_statute(variants["amount"])
    before = old.evaluate(per_job.witness, per_job.readings, trace=True)
    after = new.evaluate(per_job.witness, per_job.readings, trace=True)
    old_value, new_value = before["per_job_new"], after["per_job_new"]
    assert per_job.old_value == cents_string(old_value)  # type: ignore[arg-type]
    assert per_job.new_value == cents_string(new_value)  # type: ignore[arg-type]

    # What the amendment implies: $250 more of bonuses, capped by (d), reduced by (e).
    assert before.trace is not None and after.trace is not None
    memo_old, memo_new = before.trace.evaluation.memo, after.trace.evaluation.memo
    uncovered = (False,)
    assert memo_new[("bonus_total", uncovered)] - memo_old[("bonus_total", uncovered)] == Fraction(
        250
    )
    limit = memo_old[("gross_cap", ())] + memo_old[("cap_allowance", uncovered)]
    base = memo_old[("base_amount", ())]
    gross_old = min(base + memo_old[("bonus_total", uncovered)], limit)
    gross_new = min(base + memo_new[("bonus_total", uncovered)], limit)
    assert memo_old[("credit_barred", ())] is False
    kept = 1 - memo_old[("salary_shortfall", ())]
    assert new_value - old_value == (gross_new - gross_old) * kept  # type: ignore[operator]
    assert 0 < new_value - old_value <= 250  # type: ignore[operator]

    # Without the small business the two encodings agree on this scenario.
    plain = {**per_job.witness, "small_business": False}
    assert (
        old.evaluate(plain, per_job.readings)["per_job_new"]
        == new.evaluate(plain, per_job.readings)["per_job_new"]
    )


def test_every_different_result_is_confirmed_by_the_evaluators(
    amount_diff: diff_module.Diff, variants: dict[str, Path]
) -> None:
    old, new = load_statute(BUNDLED), load_statute(variants["amount"])
    for result in amount_diff.results:
        assert result.status in ("equal", "different"), result
        if result.status == "different":
            assert result.witness is not None
            before = old.evaluate(result.witness, result.readings)[result.name]
            after = new.evaluate(result.witness, result.readings)[result.name]
            assert before != after


# ---- words changed, rule unchanged ------------------------------------------------------------


def test_wording_change_flags_the_rule_and_proves_results_equal(
    variants: dict[str, Path],
) -> None:
    old = load_statute(BUNDLED).ast
    new = load_statute(variants["wording"]).ast
    found = semantic_diff(old, new)
    assert [(c.citation, c.status) for c in found.clauses] == [("(c)(1)(e)", "reworded")]
    assert [(r.name, r.status, r.words_changed) for r in found.rules] == [
        ("small_business_bonus", "review", ["(c)(1)(e)"]),
        ("small_business_bonus_paid", "review", ["(c)(1)(e)"]),
        ("small_business_bonus_only_if_small", "review", ["(c)(1)(e)"]),
    ]
    assert all(r.status == "equal" for r in found.results), found.results
    text = render_text(found)
    assert "words changed: review" in text
    assert "[-qualifies as-] {+is+}" in text


# ---- which scenarios each encoding accepts ------------------------------------------------------


def test_a_self_diff_accepts_the_same_scenarios_both_ways() -> None:
    statute = load_statute(BUNDLED).ast
    found = semantic_diff(statute, statute)
    assert [(s.direction, s.status) for s in found.scope] == [
        ("accepted now", "equal"),
        ("refused now", "equal"),
    ]
    assert found.unchanged


def test_a_dropped_bound_shows_a_scenario_accepted_now_that_the_old_encoding_refuses(
    tmp_path: Path,
) -> None:
    """`min $0` dropped from the board's limit: the results of scenarios valid under both are
    the same, but the new encoding now accepts a negative limit, which the old refused."""
    variant = write_variant(
        tmp_path,
        [
            (
                "input board_approved_annual_limit: money optional min $0",
                "input board_approved_annual_limit: money optional",
                "lex",
            )
        ],
    )
    old, new = load_statute(BUNDLED), load_statute(variant)
    found = semantic_diff(old.ast, new.ast)
    accepted, refused = found.scope
    assert (accepted.direction, accepted.status) == ("accepted now", "different")
    assert (refused.direction, refused.status) == ("refused now", "equal")
    assert accepted.witness is not None
    assert Fraction(str(accepted.witness["board_approved_annual_limit"])) < 0
    assert "board_approved_annual_limit" in accepted.refusal and "at least $0" in accepted.refusal
    # The evaluators agree: the new one runs the witness, the old one refuses it.
    new.evaluate(accepted.witness)
    with pytest.raises(ScenarioError):
        old.evaluate(accepted.witness)
    assert not found.unchanged and found.ok
    text = render_text(found)
    assert "accepted now  different" in text and "the old encoding refuses it: field" in text
    report = to_json(found)
    assert report["summary"]["scope"] == {"accepted now": "different", "refused now": "equal"}
    assert report["scope"][0]["witness"] == accepted.witness


def test_a_narrowed_bound_and_a_field_made_required_are_refused_now(tmp_path: Path) -> None:
    """The eligibility period capped at 8 years rather than 10, or the retained jobs made a
    required field: scenarios the old encoding accepted, the new one refuses."""
    narrowed = write_variant(
        tmp_path / "narrowed",
        [("count = 7 min 1 max 10", "count = 7 min 1 max 8", "lex")],
    )
    required = write_variant(
        tmp_path / "required",
        [
            (
                "input retained_jobs: count = 0 derived",
                "input retained_jobs: count required derived",
                "lex",
            )
        ],
    )
    old = load_statute(BUNDLED).ast
    for variant, field, words in (
        (narrowed, "eligibility_period_years", "at most 8"),
        (required, "retained_jobs", "the field is missing"),
    ):
        accepted, refused = semantic_diff(old, load_statute(variant).ast).scope
        assert accepted.status == "equal", variant
        assert refused.status == "different" and refused.witness is not None
        assert f"field '{field}'" in refused.refusal and words in refused.refusal
        load_statute(BUNDLED).evaluate(refused.witness)
        with pytest.raises(ScenarioError):
            load_statute(variant).evaluate(refused.witness)


RATIO = ROOT / "tests" / "other_statutes" / "ratio.lex"


def test_a_field_only_one_version_declares_is_a_scenario_the_other_refuses(
    tmp_path: Path,
) -> None:
    """A required input added: scenarios giving it were refused (an unknown field), and
    scenarios without it are refused now; the other way round when it is removed."""
    source = RATIO.read_text(encoding="utf-8")
    added = source.replace(
        'input whole: count = 1 min 1 "the whole";',
        'input whole: count = 1 min 1 "the whole";\ninput extra: count required "an extra";',
    ).replace(
        "rule twice: count = whole * 2 reviewed", "rule twice: count = whole * 2 + extra reviewed"
    )
    assert "extra reviewed" in added
    (tmp_path / "ratio.lex").write_text(added, encoding="utf-8")
    shutil.copy(RATIO.with_suffix(".txt"), tmp_path)
    old, new = load_statute(RATIO), load_statute(tmp_path / "ratio.lex")
    accepted, refused = semantic_diff(old.ast, new.ast).scope
    assert (accepted.status, refused.status) == ("different", "different")
    assert accepted.witness is not None and "extra" in accepted.witness
    assert "field 'extra': expected one of the fields" in accepted.refusal
    assert accepted.detail == "only the new encoding declares extra"
    new.evaluate(accepted.witness)
    assert refused.witness is not None and "extra" not in refused.witness
    assert "field 'extra'" in refused.refusal and "the field is missing" in refused.refusal
    assert refused.detail == "only the new encoding declares extra, and requires it"
    old.evaluate(refused.witness)
    back = semantic_diff(new.ast, old.ast).scope
    assert [s.detail for s in back] == [
        "only the old encoding declares extra, and requires it",
        "only the old encoding declares extra",
    ]


def test_changed_default_gives_a_witness_that_leaves_the_input_out(tmp_path: Path) -> None:
    """A scenario that omits an input means its default: a changed default changes results."""
    variant = write_variant(
        tmp_path,
        [("eligibility_period_years: count = 7", "eligibility_period_years: count = 5", "lex")],
    )
    found = semantic_diff(load_statute(BUNDLED).ast, load_statute(variant).ast)
    results = {r.name: r for r in found.results}
    assert results["annual_credit"].status == "equal"
    total = results["eligibility_period_total"]
    assert total.status == "different" and total.witness is not None
    assert "eligibility_period_years" not in total.witness
    assert [(r.kind, r.name) for r in found.rules] == [("input", "eligibility_period_years")]


def test_a_swapped_default_reading_changes_the_results_of_scenarios_that_pin_none(
    tmp_path: Path,
) -> None:
    """A scenario that pins no option reads each encoding's default: swapping which option of
    I8 is the default changes results, though every option, pinned, gives what it gave."""
    source = BUNDLED.read_text(encoding="utf-8")
    lines = source.split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("  default covered-jobs "))
    first, second = lines[at], lines[at + 1]
    assert second.startswith("  alternative business-wide ") and second.endswith(";")
    lines[at] = second.replace("alternative", "default", 1)[:-1]
    lines[at + 1] = first.replace("default", "alternative", 1) + ";"
    (tmp_path / OFFICIAL.name).write_text(OFFICIAL.read_text(encoding="utf-8"), encoding="utf-8")
    variant = tmp_path / BUNDLED.name
    variant.write_text("\n".join(lines), encoding="utf-8")
    found = semantic_diff(load_statute(BUNDLED).ast, load_statute(variant).ast)
    results = {r.name: r for r in found.results}
    credit = results["annual_credit"]
    assert credit.status == "different" and credit.readings is not None
    assert "I8" not in credit.readings  # pinned by neither: each side's default
    assert "I8 pinned by neither" in credit.detail
    assert Fraction(credit.new_value) > Fraction(credit.old_value)  # the raised cap for all
    assert any("default changed from covered-jobs to business-wide" in n for n in found.notes)
    assert not any("options differ" in n for n in found.notes)  # the same two, reordered
    assert [(r.kind, r.name) for r in found.rules] == [("reading", "I8")]


# ---- the command --------------------------------------------------------------------------------


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lextrace", "diff", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )


def test_cli_self_diff_text_exit_0() -> None:
    done = run_cli(str(BUNDLED), str(BUNDLED))
    assert done.returncode == 0, done.stderr
    assert "8 equal, 0 different, 0 bounded, 0 unknown, 0 error" in done.stdout
    assert "scenarios accepted now equal, refused now equal" in done.stdout


def test_cli_json_shape_on_the_amount_variant(variants: dict[str, Path]) -> None:
    done = run_cli(str(BUNDLED), str(variants["amount"]), "--format", "json", "--timeout", "10")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert set(report) >= {"old", "new", "clauses", "rules", "results", "summary"}
    clause = report["clauses"][0]
    assert clause["citation"] == "(c)(1)(e)" and clause["status"] == "reworded"
    assert {"op": "replace", "old": ["$500"], "new": ["$750"]} in clause["word_diff"]
    assert len(clause["new_fingerprint"]) == 64
    rule = report["rules"][0]
    assert rule["name"] == "small_business_bonus" and rule["status"] == "changed"
    results = {r["name"]: r for r in report["results"]}
    assert set(results["per_job_new"]) >= {
        "name",
        "status",
        "witness",
        "readings",
        "old_value",
        "new_value",
        "seconds",
    }
    assert results["per_job_new"]["status"] == "different"
    assert results["area_tier"]["status"] == "equal"
    assert report["summary"]["unknown"] == 0 and report["summary"]["error"] == 0


def test_cli_unusable_encoding_exits_2(tmp_path: Path) -> None:
    broken = tmp_path / "broken.lex"
    broken.write_text('statute "x"\nsection 1. {', encoding="utf-8")
    done = run_cli(str(BUNDLED), str(broken))
    assert done.returncode == 2
    assert "Traceback" not in done.stderr


def test_cli_exits_1_when_a_result_is_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    """A timeout is never reported as equal: the result is unknown and the command fails."""
    from lextrace.cli import main

    def undecided(facts: object, timeout_ms: int) -> tuple[object, z3.Solver]:
        return z3.unknown, z3.Solver()

    monkeypatch.setattr(diff_module, "decide", undecided)
    code = main(["diff", str(BUNDLED), str(BUNDLED), "--format", "json"])
    assert code == 1


def test_to_json_of_an_unknown_result_has_no_witness(monkeypatch: pytest.MonkeyPatch) -> None:
    def undecided(facts: object, timeout_ms: int) -> tuple[object, z3.Solver]:
        return z3.unknown, z3.Solver()

    monkeypatch.setattr(diff_module, "decide", undecided)
    statute = load_statute(BUNDLED).ast
    report = to_json(semantic_diff(statute, statute, timeout_seconds=0.5))
    assert all(r["status"] == "unknown" for r in report["results"])  # type: ignore[index]
    assert all(r["witness"] is None for r in report["results"])  # type: ignore[index]


def test_a_changed_derivation_from_the_payroll_is_never_proved_equal(tmp_path: Path) -> None:
    """The proof model takes an input derived from a list as given: a change to the rule that
    derives it cannot be proved equal, and is UNKNOWN for each result that rests on it."""
    changed = write_variant(
        tmp_path / "derivation",
        [
            (
                "min of hourly_wage in full_time_jobs reading I22;",
                "max of hourly_wage in full_time_jobs reading I22;",
                "lex",
            )
        ],
    )
    found = semantic_diff(load_statute(BUNDLED).ast, load_statute(changed).ast)
    statuses = {r.name: r.status for r in found.results}
    assert statuses["area_tier"] == "equal"  # it reads no wage
    assert statuses["per_job_new"] == "unknown"
    assert statuses["annual_credit"] == "unknown"
    detail = next(r.detail for r in found.results if r.name == "per_job_new")
    assert "rests on lowest_full_time_hourly_wage" in detail
    assert "payroll_lowest_hourly_wage" in detail
    (derived,) = [note for note in found.notes if note.startswith("derived when")]
    assert derived.startswith(
        "derived when full_time_jobs is given: new_jobs (by payroll_new_jobs)"
    )
    assert "lowest_full_time_hourly_wage (by payroll_lowest_hourly_wage)" in derived
    assert derived.endswith(
        "the results are compared with them as given, over the scenarios that do not derive them"
    )
    # The same derivation on both sides: the derived input is compared as given, soundly.
    same = semantic_diff(load_statute(BUNDLED).ast, load_statute(BUNDLED).ast)
    assert all(r.status == "equal" for r in same.results)


# ---- lists --------------------------------------------------------------------------------------
TUITION = ROOT / "tests" / "other_statutes" / "tuition.lex"


def test_a_self_diff_of_a_list_statute_is_bounded_never_different() -> None:
    """Both sides hold the same list: no difference, but lists are modelled up to a bound, so
    the comparison says `bounded`, not `equal` (and never a difference between two lists)."""
    statute = load_statute(TUITION).ast
    found = semantic_diff(statute, statute)
    assert {r.status for r in found.results} == {"bounded"}
    assert all("lists of up to 4 elements (students)" in r.detail for r in found.results)
    assert found.ok and not found.unchanged
    assert [s.status for s in found.scope] == ["equal", "equal"]


def test_a_changed_rate_over_a_list_has_one_witness_list_for_both_sides(tmp_path: Path) -> None:
    source = TUITION.read_text(encoding="utf-8").replace("+ 25% *", "+ 20% *")
    source = source.replace("plus 25 percent of so much", "plus 20 percent of so much")
    official = TUITION.with_suffix(".txt").read_text(encoding="utf-8")
    (tmp_path / "tuition.txt").write_text(
        official.replace("plus 25 percent of so much", "plus 20 percent of so much"),
        encoding="utf-8",
    )
    (tmp_path / "tuition.lex").write_text(source, encoding="utf-8")
    old, new = load_statute(TUITION), load_statute(tmp_path / "tuition.lex")
    found = semantic_diff(old.ast, new.ast)
    credit = next(r for r in found.results if r.name == "credit")
    assert credit.status == "different" and credit.witness is not None
    assert credit.detail == ""  # one scenario: no side holds a list of its own
    assert old.evaluate(credit.witness)["credit"] != new.evaluate(credit.witness)["credit"]
    assert cents_string(Fraction(str(old.evaluate(credit.witness)["credit"]))) == credit.old_value


def test_a_record_field_bound_dropped_is_a_scenario_accepted_now(tmp_path: Path) -> None:
    source = TUITION.read_text(encoding="utf-8").replace(
        "expenses: money min $0 named", "expenses: money named"
    )
    (tmp_path / "tuition.txt").write_text(
        TUITION.with_suffix(".txt").read_text(encoding="utf-8"), encoding="utf-8"
    )
    (tmp_path / "tuition.lex").write_text(source, encoding="utf-8")
    found = semantic_diff(load_statute(TUITION).ast, load_statute(tmp_path / "tuition.lex").ast)
    accepted, refused = found.scope
    assert (accepted.status, refused.status) == ("different", "equal")
    assert accepted.witness is not None
    assert "expenses': expected an amount of money at least $0" in accepted.refusal


def test_a_scope_witness_meets_the_records_requirements(tmp_path: Path) -> None:
    """A record that `requires` something of each element: the witness the solver finds for a
    dropped bound meets it, so the accepting evaluator runs it (an element breaking it would
    make both evaluators refuse the witness, an error)."""
    required = TUITION.read_text(encoding="utf-8").replace(
        '    "the student carries at least half the normal full-time work load";\n}',
        '    "the student carries at least half the normal full-time work load";\n'
        '  requires half_time or expenses > $0 "a full-time student is claimed with expenses";\n}',
    )
    assert required != TUITION.read_text(encoding="utf-8")
    for folder, source in (
        ("old", required),
        ("new", required.replace("money min $0 named", "money named")),
    ):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "tuition.lex").write_text(source, encoding="utf-8")
        shutil.copy(TUITION.with_suffix(".txt"), tmp_path / folder)
    old, new = (
        load_statute(tmp_path / "old" / "tuition.lex"),
        load_statute(tmp_path / "new" / "tuition.lex"),
    )
    accepted, refused = semantic_diff(old.ast, new.ast).scope
    assert (accepted.status, refused.status) == ("different", "equal"), accepted.detail
    assert accepted.witness is not None
    for student in accepted.witness["students"]:  # type: ignore[attr-defined]
        assert student["half_time"] or Fraction(str(student["expenses"])) > 0
    new.evaluate(accepted.witness)


# ---- dates ---------------------------------------------------------------------------------------

AGED_TEXT = (
    "1. Aged.\n(a) An additional amount of $600 is allowed for a taxpayer who has attained "
    "age 65 before the close of the taxable year.\n"
)


def _aged_encoding(tmp_path: Path, name: str, amount: str) -> ast.Statute:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "aged.txt").write_text(AGED_TEXT.replace("$600", amount), encoding="utf-8")
    (folder / "aged.lex").write_text(
        'statute "Aged Act s.1"\n  title "Aged"\n  official "aged.txt"\n  dates round-down\n\n'
        'input birth_date: date required min 1900-01-01 max 2100-12-31 "the date of birth";\n'
        'input close_of_year: date required min 1900-01-01 max 2100-12-31 "the close of the '
        'taxable year";\n\nresults aged_amount;\n\n'
        'section 1. "Aged." {\n'
        f'  (a) "An additional amount of {amount} is allowed for a taxpayer who has attained age '
        '65 before the close of the taxable year." {\n'
        "    rule aged_amount: money = "
        f"{amount} when birth_date + 65 years <= close_of_year\n"
        '      reviewed 65 years "attained age 65";\n'
        "  }\n}\n",
        encoding="utf-8",
    )
    return load_statute(folder / "aged.lex").ast


def test_dates_are_shared_by_both_sides_so_a_self_diff_of_date_arithmetic_is_equal(
    tmp_path: Path,
) -> None:
    old = _aged_encoding(tmp_path, "old", "$600")
    found = semantic_diff(old, old)
    assert [r.status for r in found.results] == ["equal"], found.results
    assert not any("does not share" in note for note in found.notes)


def test_a_changed_amount_behind_date_arithmetic_has_one_witness_for_both_sides(
    tmp_path: Path,
) -> None:
    old = _aged_encoding(tmp_path, "old", "$600")
    new = _aged_encoding(tmp_path, "new", "$750")
    (result,) = semantic_diff(old, new).results
    assert result.status == "different", result
    assert result.witness is not None
    assert (result.old_value, result.new_value) == ("600.00", "750.00")
    assert set(result.witness) == {"birth_date", "close_of_year"}  # one value of each date
