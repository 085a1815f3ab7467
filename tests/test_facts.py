"""The facts check: a rule reads only facts its clause's words name, a clause's rules read the
facts its words name, and every input is read (dsl/facts.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import lextrace_command, write_section_statute, write_variant

from lextrace.dsl import facts
from lextrace.dsl.errors import Diagnostic
from lextrace.dsl.loader import analyse
from lextrace.statute import BUNDLED
from lextrace.verify.diff import rule_changes

ROOT = Path(__file__).resolve().parent.parent

OPPORTUNITY_ZONE = (
    "bonus rule opportunity_zone_bonus: money = $1,000 when qualified_opportunity_zone;"
)
CORRIDOR = (
    "bonus rule opportunity_zone_bonus: money = $1,000 when qualified_opportunity_zone "
    "or employment_investment_corridor;"
)
TIER_B1 = "case area_tier = b1 when government_restricted_municipality or mega_project;"
BAND_I = "case large_employer_bonus = $500 when new_jobs >= 251 and new_jobs <= 400;"
BAND_I_RETAINED = (
    "case large_employer_bonus = $500 when new_jobs + retained_jobs >= 251 and new_jobs <= 400;"
)


def diagnostics(path: Path) -> list[Diagnostic]:
    """Returns what `lextrace check` finds in the encoding at `path`."""
    return analyse(path).diagnostics


def position(path: Path, text: str, after: str = "") -> tuple[int, int]:
    """Returns the line and column of `text` in the file, its first occurrence after `after`."""
    source = path.read_text(encoding="utf-8")
    offset = source.index(text, source.index(after) if after else 0)
    line = source.count("\n", 0, offset) + 1
    return line, offset - (source.rfind("\n", 0, offset) + 1) + 1


def only_error(path: Path) -> Diagnostic:
    found = [d for d in diagnostics(path) if d.severity == "error"]
    assert len(found) == 1, [d.render(None) for d in found]
    return found[0]


def test_the_bundled_encoding_and_its_amendment_drafts_pass_without_a_warning() -> None:
    for path in (BUNDLED, *sorted((ROOT / "statute" / "amendments").glob("*/*.lex"))):
        assert diagnostics(path) == [], path


def test_the_other_bundled_statutes_declare_their_facts_phrases_and_pass() -> None:
    for name in ("usc-26-132-c.lex", "nsw-cgr-2020-cl-5.lex"):
        analysis = analyse(ROOT / "statute" / name)
        assert analysis.statute is not None and analysis.diagnostics == [], name
        assert all(d.phrases for d in analysis.statute.inputs.values()), name


def test_a_bonus_given_to_a_fact_its_clause_never_names_is_refused(
    tmp_path: Path, encoding_source: str
) -> None:
    variant = write_variant(tmp_path, encoding_source, OPPORTUNITY_ZONE, CORRIDOR)
    error = only_error(variant)
    assert (error.line, error.column) == position(
        variant, "employment_investment_corridor;", after=CORRIDOR
    )
    assert error.clause == "N.J.S.A. 34:1B-343(c)(1)(q)"
    assert error.message == (
        "'opportunity_zone_bonus' reads input 'employment_investment_corridor', which the words "
        "of (c)(1)(q) and of the clauses enclosing it never name (it is named "
        '"employment and investment corridor")'
    )
    assert 'reads employment_investment_corridor "' in (error.hint or "")


def test_a_fact_the_words_name_that_no_rule_reads_is_refused(
    tmp_path: Path, encoding_source: str
) -> None:
    variant = write_variant(
        tmp_path,
        encoding_source,
        TIER_B1,
        "case area_tier = b1 when government_restricted_municipality;",
    )
    error = only_error(variant)
    # At the phrase in (b)(1)'s words.
    assert (error.line, error.column) == position(variant, "mega project,", after='(1) "for a')
    assert error.clause == "N.J.S.A. 34:1B-343(b)(1)"
    assert error.message == (
        "the words of (b)(1) name input 'mega_project' (\"mega project\"), which none of its "
        "rules reads"
    )
    assert 'unread mega_project "' in (error.hint or "")


def test_a_band_of_new_jobs_counted_on_retained_jobs_too_is_refused(
    tmp_path: Path, encoding_source: str
) -> None:
    # (c)(1)'s words speak of "each new or retained full-time job": that must not name the
    # count of retained jobs for the bands of (c)(1)(c), whose words say "new" only.
    variant = write_variant(tmp_path, encoding_source, BAND_I, BAND_I_RETAINED)
    error = only_error(variant)
    assert (error.line, error.column) == position(variant, "retained_jobs >= 251")
    assert error.clause == "N.J.S.A. 34:1B-343(c)(1)(c)(i)"
    assert error.message.startswith(
        "'large_employer_bonus' reads input 'retained_jobs', which the words of (c)(1)(c)(i) "
        "and of the clauses enclosing it never name"
    )


def test_a_reads_mark_lets_a_deliberate_use_through(tmp_path: Path, encoding_source: str) -> None:
    marked = CORRIDOR.removesuffix(";") + ' reads employment_investment_corridor "deliberate";'
    variant = write_variant(tmp_path, encoding_source, OPPORTUNITY_ZONE, marked)
    assert diagnostics(variant) == []


def test_a_reads_mark_not_needed_is_a_warning_and_fails_check_strict(
    tmp_path: Path, encoding_source: str
) -> None:
    marked = OPPORTUNITY_ZONE.removesuffix(";") + ' reads qualified_opportunity_zone "named";'
    variant = write_variant(tmp_path, encoding_source, OPPORTUNITY_ZONE, marked)
    [warning] = diagnostics(variant)
    assert warning.severity == "warning"
    assert (warning.line, warning.column) == position(variant, "reads qualified_opportunity_zone")
    assert "is marked 'reads qualified_opportunity_zone' but needs no mark" in warning.message
    lenient = lextrace_command("check", "--quiet", "--encoding", str(variant))
    assert lenient.returncode == 0, lenient.stderr
    strict = lextrace_command("check", "--strict", "--encoding", str(variant))
    assert strict.returncode == 2
    assert "needs no mark" in strict.stderr
    assert f"{variant}: 1 warning (--strict)" in strict.stderr
    bundled = lextrace_command("check", "--strict", "--quiet")
    assert bundled.returncode == 0, bundled.stderr


def test_an_unread_mark_lets_a_fact_the_words_name_go_unread(
    tmp_path: Path, encoding_source: str
) -> None:
    variant = write_variant(
        tmp_path,
        encoding_source,
        TIER_B1,
        "case area_tier = b1 when government_restricted_municipality;\n"
        '    unread mega_project "deliberately left out";',
    )
    assert diagnostics(variant) == []


def test_an_unread_mark_of_no_fact_is_refused(tmp_path: Path, encoding_source: str) -> None:
    variant = write_variant(
        tmp_path, encoding_source, TIER_B1, TIER_B1 + '\n    unread mega_projekt "typo";'
    )
    error = only_error(variant)
    assert (error.line, error.column) == position(variant, "mega_projekt")
    assert "no input or record field is named 'mega_projekt'" in error.message


def test_a_reads_mark_on_an_invariant_is_refused(tmp_path: Path, encoding_source: str) -> None:
    old = "annual_credit <= annual_total_before_limit reading I18;"
    variant = write_variant(
        tmp_path, encoding_source, old, old.removesuffix(";") + ' reads tax_year "no";'
    )
    error = only_error(variant)
    assert (error.line, error.column) == position(variant, 'reads tax_year "no"')
    assert "a 'reads' mark on invariant 'never_above_the_computed_total'" in error.message


def test_an_input_no_rule_reads_is_an_error(tmp_path: Path, encoding_source: str) -> None:
    old = "input mega_project: bool = false"
    variant = write_variant(
        tmp_path,
        encoding_source,
        old,
        'input spare_fact: bool = false named "the bonus" "a fact no rule reads";\n' + old,
    )
    error = only_error(variant)
    assert (error.line, error.column) == position(variant, "spare_fact")
    assert error.message == "input 'spare_fact' is never used: no rule reads it"


def test_an_input_without_phrases_is_a_warning_once_others_declare_some(
    tmp_path: Path, encoding_source: str
) -> None:
    variant = write_variant(tmp_path, encoding_source, '  named "small business"\n', "")
    [warning] = diagnostics(variant)
    assert warning.severity == "warning"
    assert (warning.line, warning.column) == position(variant, "small_business:")
    assert warning.message.startswith("input 'small_business' declares no phrases")
    assert warning.hint is not None and 'reads small_business "why"' in warning.hint


def test_an_encoding_that_names_no_fact_is_not_warned() -> None:
    path = ROOT / "tests" / "other_statutes" / "ratio.lex"
    assert "named" not in path.read_text(encoding="utf-8")
    assert diagnostics(path) == []


def test_a_phrase_no_clause_says_is_a_warning(tmp_path: Path, encoding_source: str) -> None:
    variant = write_variant(
        tmp_path, encoding_source, 'named "mega project"', 'named "mega project", "mega projects"'
    )
    [warning] = diagnostics(variant)
    assert (warning.line, warning.column) == position(variant, '"mega projects"')
    assert warning.message == (
        "the phrase \"mega projects\" of input 'mega_project' is in no clause's words"
    )


@pytest.mark.parametrize(
    ("replacement", "expected"),
    [
        ('named mega "mega project"', "unexpected 'mega'"),
        ('named "mega project" "mega projects",', "unexpected ','"),
        ('named ""', "an empty phrase in the 'named' of 'mega_project'"),
        (
            'named "mega project", "Mega  Project"',
            "the phrase 'Mega Project' is named twice for 'mega_project'",
        ),
    ],
)
def test_a_bad_named_is_reported_at_its_line_and_column(
    tmp_path: Path, encoding_source: str, replacement: str, expected: str
) -> None:
    variant = write_variant(tmp_path, encoding_source, 'named "mega project"', replacement)
    completed = lextrace_command("check", "--encoding", str(variant))
    assert completed.returncode == 2
    line, _ = position(variant, replacement)
    assert f"{variant}:{line}:" in completed.stderr
    assert expected in completed.stderr


def test_phrases_match_whatever_the_case_spacing_and_quotes_on_word_boundaries() -> None:
    assert facts.names("the Project\u2019s  median\n salary levels", "project's median salary")
    assert facts.names("a Mega Project, $4,000", "mega project")
    assert not facts.names("mega projects", "mega project")
    assert not facts.names("omega project", "mega project")
    assert not facts.names("each new or retained full-time job", "each retained full-time job")
    assert facts.names("“Gold” rating", '"gold" rating')


def test_the_facts_of_record_fields_are_checked_when_they_declare_phrases(
    tmp_path: Path,
) -> None:
    # A field read through an aggregate, in a clause whose words do not name it, and one the
    # words name that no rule of the clause reads.
    folder = ROOT / "tests" / "other_statutes"
    source = (folder / "payroll.lex").read_text(encoding="utf-8")
    for old, new in [
        ('hourly_wage: money above $0 "', 'hourly_wage: money above $0 named "hourly wage" "'),
        ('harmony: bool = false "', 'harmony: bool = false named "labor harmony agreement" "'),
        ("sum of annual_salary in jobs;", "sum of annual_salary in jobs where hourly_wage > $0;"),
        ("when any of harmony in jobs where", "when any of jobs where"),
    ]:
        assert old in source
        source = source.replace(old, new)
    variant = tmp_path / "payroll.lex"
    variant.write_text(source, encoding="utf-8")
    (tmp_path / "payroll.txt").write_text(
        (folder / "payroll.txt").read_text(encoding="utf-8"), encoding="utf-8"
    )
    found = [d for d in diagnostics(variant) if d.severity == "error"]
    assert [(d.clause, d.line, d.column) for d in found] == [
        ("Payroll Grant Act s.4(d)", *position(variant, "hourly_wage > $0")),
        ("Payroll Grant Act s.4(e)", *position(variant, "labor harmony\n      agreement")),
    ]
    assert found[0].message.startswith("'payroll_total' reads field 'hourly_wage' of record 'job'")
    assert "name field 'harmony' of record 'job'" in found[1].message


def test_a_change_of_phrases_is_no_change_for_the_semantic_diff(tmp_path: Path) -> None:
    old = analyse(BUNDLED).statute
    source = BUNDLED.read_text(encoding="utf-8")
    variant = write_variant(tmp_path, source, 'named "small business"', 'named "Small  business"')
    new = analyse(variant).statute
    assert old is not None and new is not None
    assert new.inputs["small_business"].phrases[0].text == "Small business"
    assert [c for c in rule_changes(old, new) if c.kind == "input"] == []


def test_a_rule_no_result_rests_on_is_an_error_even_under_an_invariant(
    tmp_path: Path, encoding_source: str
) -> None:
    # The re-entry bonus without its `bonus` mark: summed by nothing, though its invariants hold.
    variant = write_variant(
        tmp_path, encoding_source, "bonus rule reentry_bonus:", "rule reentry_bonus:"
    )
    analysis = analyse(variant)
    messages = [d.message for d in analysis.errors]
    assert messages == ["'reentry_bonus' is used by no result, only by invariants"]
    error = analysis.errors[0]
    line = next(
        number
        for number, text in enumerate(variant.read_text(encoding="utf-8").splitlines(), 1)
        if "rule reentry_bonus:" in text
    )
    assert error.line == line


def test_an_input_the_statute_never_names_passes_when_each_use_is_marked(
    tmp_path: Path, encoding_source: str
) -> None:
    """A fact of other law has no phrase in these words: `reads` at each use gives the reason,
    in place of the phrases the input cannot declare."""
    (tmp_path / "unmarked").mkdir()
    (tmp_path / "marked").mkdir()
    declared = 'input other_law_fact: bool = false "a fact another law decides";\n'
    source = encoding_source.replace(
        "input qualified_opportunity_zone", declared + "input qualified_opportunity_zone", 1
    )
    use = OPPORTUNITY_ZONE.removesuffix(";") + " and not other_law_fact"
    unmarked = write_variant(tmp_path / "unmarked", source, OPPORTUNITY_ZONE, use + ";")
    [warning] = diagnostics(unmarked)
    assert "input 'other_law_fact' declares no phrases" in warning.message
    reason = ' reads other_law_fact "decided by another law, which these words do not name";'
    marked = write_variant(tmp_path / "marked", source, OPPORTUNITY_ZONE, use + reason)
    assert diagnostics(marked) == []


INVESTMENT_MAXIMUM = "if mega_project or government_restricted_municipality then $5,000"


def test_two_facts_the_words_join_by_or_joined_by_and_are_refused(
    tmp_path: Path, encoding_source: str
) -> None:
    # (c)(1)(b): "unless the project qualifies as a mega project or the qualified business
    # facility is located in a government-restricted municipality".
    wrong = INVESTMENT_MAXIMUM.replace(" or ", " and ")
    variant = write_variant(tmp_path, encoding_source, INVESTMENT_MAXIMUM, wrong)
    error = only_error(variant)
    assert (error.line, error.column) == position(variant, "mega_project and", after=wrong)
    assert error.message == (
        "'investment_bonus_maximum' joins mega_project and government_restricted_municipality "
        "with 'and', but the words of (c)(1)(b) join them with “or”: “mega project or the "
        "qualified business facility is located in a government-restricted municipality”"
    )
    # A `reads` mark lets a deliberate `and` through, and is then no needless mark.
    marked = variant.read_text(encoding="utf-8").replace(
        "else $1,500 reading I3;", 'else $1,500 reading I3 reads mega_project "both here";', 1
    )
    variant.write_text(marked, encoding="utf-8")
    assert diagnostics(variant) == []


def test_facts_joined_by_or_across_a_sentence_or_by_and_are_not_joined_by_or() -> None:
    statute = analyse(BUNDLED).statute
    assert statute is not None
    mega, restricted = (
        facts.Fact(name, statute.inputs[name])
        for name in ("mega_project", "government_restricted_municipality")
    )
    joined = facts._joined_by_or
    assert joined("a mega project or a government-restricted municipality", mega, restricted)
    assert (
        joined("a mega project. or a government-restricted municipality", mega, restricted) is None
    )
    assert (
        joined("a mega project and or a government-restricted municipality", mega, restricted)
        is None
    )
    assert (
        joined("a mega project and a government-restricted municipality", mega, restricted) is None
    )
    # An idiom's "or" joins no two facts.
    idiom = "a mega project financed in whole or in part in a government-restricted municipality"
    assert joined(idiom, mega, restricted) is None
    assert joined(idiom.replace("in whole or in part", "or"), mega, restricted)


def test_a_fact_left_unread_names_where_the_rule_deriving_it_sits(
    tmp_path: Path, encoding_source: str
) -> None:
    derive = "    rule payroll_new_jobs: count = count of full_time_jobs where kind = new;\n"
    retained = (
        "    rule payroll_retained_jobs: count = count of full_time_jobs where kind = retained;\n"
    )
    moved = encoding_source.replace(derive, "", 1)
    variant = write_variant(tmp_path, moved, retained, retained + derive)
    error = only_error(variant)
    assert error.clause == "N.J.S.A. 34:1B-343(f)(1)"
    assert error.message.endswith(
        "which none of its rules reads (the rule deriving it, 'payroll_new_jobs', sits in (f)(2))"
    )


def write_earned_income(folder: Path, rule_b: str) -> Path:
    """Writes a statute of two facts, one's phrase inside the other's ("earned income" in
    "earned income amount"), whose clause (b) names only the longer; its rule is `rule_b`."""
    return write_section_statute(
        folder,
        "eic",
        [
            'input earned_income: money = $0 named "earned income" "the earned income"',
            'input earned_income_amount: money = $0 named "earned income amount" "the amount"',
        ],
        "credit, bonus",
        [
            (
                "The credit is 10 percent of the earned income.",
                "rule credit: money = 10% * earned_income;",
            ),
            ("The bonus is 5 percent of the earned income amount.", rule_b),
        ],
    )


def test_a_phrase_inside_another_facts_longer_phrase_does_not_name_it(tmp_path: Path) -> None:
    assert facts.names("the earned income amount", "earned income")
    assert not facts.names("the earned income amount", "earned income", ("earned income amount",))
    assert facts.names(
        "the earned income, and the earned income amount",
        "earned income",
        ("earned income amount",),
    )
    # The words of (b) name the amount, not the earned income: a bonus on it is refused there,
    # and (b)'s words ask no rule of (b) to read the earned income.
    right = write_earned_income(tmp_path, "rule bonus: money = 5% * earned_income_amount;")
    assert [d for d in diagnostics(right) if d.severity == "error"] == []
    wrong = write_earned_income(tmp_path, "rule bonus: money = 5% * earned_income;")
    messages = [d.message for d in diagnostics(wrong) if d.severity == "error"]
    assert any(
        m.startswith("'bonus' reads input 'earned_income', which the words of (b)")
        for m in messages
    ), messages
