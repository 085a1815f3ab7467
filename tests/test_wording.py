"""Comparators and units read from the words: a comparison or a literal that contradicts what
the clause's words attach to its number is refused at the literal (dsl/wording.py)."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from conftest import write_variant

from lextrace.dsl import ast
from lextrace.dsl.loader import analyse, load
from lextrace.dsl.wording import negative_words, occurrences, per_step_amounts, steps
from lextrace.statute import BUNDLED


def errors(path: Path) -> list[str]:
    """Returns the rendered error diagnostics of the encoding at `path`, but for a rule no
    result uses: several variants add a rule only to hold the literal under test."""
    analysis = analyse(path)
    return [
        d.render(analysis.source)
        for d in analysis.errors
        if not d.message.endswith("is never used by a result")
    ]


def located(path: Path, new: str, literal: str) -> str:
    """Returns `path:line:column:` of `literal` inside the first `new` of the file at `path`."""
    source = path.read_text(encoding="utf-8")
    offset = source.index(new) + new.index(literal)
    line = source.count("\n", 0, offset) + 1
    column = offset - (source.rfind("\n", 0, offset) + 1) + 1
    return f"{path}:{line}:{column}:"


def assert_refused(path: Path, new: str, literal: str, *quoted: str) -> str:
    """Asserts one error, at `literal` in `new`, whose message quotes each of `quoted`;
    returns it."""
    found = errors(path)
    assert len(found) == 1, found
    first = found[0].splitlines()[0]
    assert first.startswith(located(path, new, literal) + " error"), first
    for words in quoted:
        assert words in first, first
    return first


# ---- the phrase table ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("words", "value", "ops"),
    [
        ("a score greater than 50, an increase", 50, {">"}),
        ("the investment exceeds 40 percent", 40, {">"}),
        ("the number is in excess of 1,000, $1,500", 1000, {">"}),
        ("more than 10 miles", 10, {">"}),
        ("a share above 20 percent", 20, {">"}),
        ("an amount that equals at least 50 percent of", 50, {">="}),
        ("if one-third or more of the members", Fraction(1, 3), {">="}),
        ("the capacity to enroll 10 percent or more of", 10, {">="}),
        ("not less than $300", 300, {">="}),
        ("a minimum of 25 jobs", 25, {">="}),
        ("jobs that pay less than $15 per hour", 15, {"<"}),
        ("a salary below 30 percent", 30, {"<"}),
        ("a business under 50 employees", 50, {"<"}),
        ("shall not exceed $8,000 per year", 8000, {"<="}),
        ("by an amount not to exceed $1,000;", 1000, {"<="}),
        ("at most 3 projects", 3, {"<="}),
        ("$2,000 or less", 2000, {"<="}),
        ("no more than 12 months", 12, {"<="}),
        ("with a maximum increase of $1,500 per year", 1500, {"<="}),
        ("an increase of $500 per year", 500, set()),
        ("between 251 and 400, $500", 251, {">", ">="}),
        ("between 251 and 400, $500", 400, {"<", "<="}),
    ],
)
def test_the_words_attach_a_comparator_to_a_number(
    words: str, value: Fraction | int, ops: set[str]
) -> None:
    found = [o for o in occurrences(words) if o.value == value]
    assert len(found) == 1, found
    assert found[0].ops == ops
    assert found[0].between == ("between" in words)


@pytest.mark.parametrize(
    ("words", "value", "kind"),
    [
        ("for each 35 percent by which", 35, "percent"),
        ("120 per cent of the minimum wage", 120, "percent"),
        ("reduced by 1 percentage point for each $2,000", 1, "percent"),
        ("by 2 percentage points", 2, "percent"),
        ("less than $15 per hour", 15, "money"),
        ("an allowance of 300 dollars", 300, "money"),
        ("one-third or more", Fraction(1, 3), "fraction"),
        ("in excess of 1,000", 1000, "plain"),
        ("ten new jobs", 10, "plain"),
        ("during any 12-month period", 12, "period"),
        ("the 3-year average", 3, "period"),
        ("a total of 12 weeks of leave", 12, "plain"),
    ],
)
def test_the_words_attach_a_unit_to_a_number(words: str, value: Fraction | int, kind: str) -> None:
    (found,) = [o for o in occurrences(words) if o.value == value]
    assert found.kind == kind


def test_negative_words_are_those_outside_the_comparator_phrases() -> None:
    def clause(words: str) -> ast.Clause:
        span = ast.Span(1, 1, 1, 1, 0, 0)
        return ast.Clause("a.", ("a",), span, items=[ast.TextPiece(words, span)])

    assert negative_words(clause("The authority shall not award a bonus ... less than $15"))
    assert negative_words(clause("No credit shall be awarded to a business with 10 jobs"))
    assert not negative_words(clause("the gross amount shall not exceed $8,000 per year"))
    assert not negative_words(clause("an increase of $1,000 per year"))
    # The words of an enclosing clause count too.
    parent = clause("The authority shall not award a credit:")
    child = clause("(1) to a business with fewer than 10 jobs")
    child.parent = parent
    assert negative_words(child)


# ---- the bundled statute's numbers, encoded against its words -----------------------------------

MISTAKES = [
    pytest.param(
        "$1,000 when mri_distress_score > 50",
        "$1,000 when mri_distress_score >= 50",
        "50",
        (
            "'mri_distress_score >= 50' in 'distress_score_bonus'",
            "(c)(1)(a)",
            "“greater than 50” means >",
        ),
        id="greater-than-as-at-least",
    ),
    pytest.param(
        "$1,000 when mri_distress_score > 50",
        "$1,000 when 50 <= mri_distress_score",
        "50",
        ("'50 <= mri_distress_score'", "“greater than 50” means >"),
        id="literal-on-the-left",
    ),
    pytest.param(
        "$1,000 when mri_distress_score > 50",
        "$1,000 when mri_distress_score > 50%",
        "50%",
        ("the number 50% in 'distress_score_bonus' is a percentage", "“greater than 50”"),
        id="bare-number-as-percentage",
    ),
    pytest.param(
        "when onsite_renewable_share >= 50%",
        "when onsite_renewable_share > 50%",
        "50%",
        ("'onsite_renewable_share > 50%'", "(c)(1)(o)", "“at least 50 percent” means >="),
        id="at-least-as-greater-than",
    ),
    pytest.param(
        "$1,500 when new_jobs > 1000",
        "$1,500 when new_jobs >= 1000",
        "1000",
        ("'new_jobs >= 1000'", "(c)(1)(c)(v)", "“in excess of 1,000” means >"),
        id="in-excess-of-as-at-least",
    ),
    pytest.param(
        "when board_underrepresented_share >= 1/3",
        "when board_underrepresented_share > 1/3",
        "1/3",
        ("(c)(1)(r)", "“one-third or more” means >="),
        id="or-more-as-greater-than",
    ),
    pytest.param(
        "lowest_full_time_hourly_wage < $15 or",
        "lowest_full_time_hourly_wage <= $15 or",
        "$15",
        (
            "'lowest_full_time_hourly_wage <= $15'",
            "(c)(2)",
            "“less than $15” means < (or its negation, under the clause's negative words)",
        ),
        id="less-than-as-at-most",
    ),
    pytest.param(
        "gross_amount(covered: covered) <= gross_cap + $1,000 reading I8;",
        "gross_amount(covered: covered) - gross_cap < $1,000 reading I8;",
        "$1,000",
        ("(c)(1)(j)", "“not to exceed $1,000” means <="),
        id="not-exceed-as-less-than",
    ),
    pytest.param(
        "floor(salary_excess / 35%)",
        "floor(salary_excess / 35)",
        "35",
        (
            "the number 35 in 'salary_bonus' is a plain number",
            "the words of (c)(1)(f) state it as a percentage",
            "“period for each 35 percent”",
        ),
        id="percentage-as-plain-number",
    ),
    pytest.param(
        "rule wage_floor: money per hour = max($15, 120% * state_minimum_wage) reading I13;",
        "rule wage_floor: money per hour = max($15, 120% * state_minimum_wage) reading I13;\n"
        "    rule floor_in_dollars: number = 15;",
        "15;",
        (
            "the number 15 in 'floor_in_dollars' is a plain number",
            "an amount of money",
            "“less than $15”",
        ),
        id="money-as-plain-number",
    ),
    pytest.param(
        "rule wage_floor: money per hour = max($15, 120% * state_minimum_wage) reading I13;",
        "rule wage_floor: money per hour = max($15, 120% * state_minimum_wage) reading I13;\n"
        "    rule floor_share: number = 15%;",
        "15%",
        ("the number 15% in 'floor_share' is a percentage", "an amount of money"),
        id="money-as-percentage",
    ),
]


@pytest.mark.parametrize(("old", "new", "literal", "quoted"), MISTAKES)
def test_a_comparison_or_unit_against_the_words_is_refused_at_its_literal(
    tmp_path: Path,
    encoding_source: str,
    old: str,
    new: str,
    literal: str,
    quoted: tuple[str, ...],
) -> None:
    assert errors(write_variant(tmp_path, encoding_source, old, old)) == []
    variant = write_variant(tmp_path, encoding_source, old, new)
    assert_refused(variant, new, literal, *quoted)


# `reviewed` takes a literal, and `1/3` is written as a division of two: a fraction cannot be
# reviewed (the grammar's `reviewed literal STRING`).
REVIEWABLE = [m for m in MISTAKES if m.id != "or-more-as-greater-than"]


@pytest.mark.parametrize(("old", "new", "literal", "quoted"), REVIEWABLE)
def test_reviewed_lets_a_mistake_through(
    tmp_path: Path,
    encoding_source: str,
    old: str,
    new: str,
    literal: str,
    quoted: tuple[str, ...],
) -> None:
    text = literal.rstrip(";")
    source = encoding_source.replace(old, new, 1)
    # The definition the mistake sits in ends at the first `;` after it.
    at = source.index(new) + len(new) - (1 if new.endswith(";") else 0)
    end = source.index(";", at)
    reviewed = source[:end] + f' reviewed {text} "a reading under review"' + source[end:]
    variant = write_variant(tmp_path, reviewed, "section 75.", "section 75.")
    assert errors(variant) == []


def test_an_equivalent_comparison_with_the_literal_on_the_left_passes(
    tmp_path: Path, encoding_source: str
) -> None:
    variant = write_variant(
        tmp_path,
        encoding_source,
        "$1,000 when mri_distress_score > 50",
        "$1,000 when 50 < mri_distress_score",
    )
    assert errors(variant) == []


# ---- between and readings ----------------------------------------------------------------------


def test_between_without_a_reading_is_refused(tmp_path: Path, encoding_source: str) -> None:
    variant = write_variant(
        tmp_path,
        encoding_source,
        "bonus cases large_employer_bonus: money exclusive otherwise $0 reading I4;",
        "bonus cases large_employer_bonus: money exclusive otherwise $0;",
    )
    found = errors(variant)
    # Two ends in each of (i) to (iv).
    assert len(found) == 8, found
    first = found[0].splitlines()
    new = "new_jobs >= 251 and new_jobs <= 400"
    assert first[0].startswith(located(variant, new, "251") + " error")
    assert "“between 251 and 400”" in first[0] and "(c)(1)(c)(i)" in first[0]
    assert "question of reading" in first[0]
    assert any("hint: cite the reading that settles it" in line for line in first)


def test_between_citing_a_reading_that_does_not_speak_of_its_ends_is_refused(
    tmp_path: Path, encoding_source: str
) -> None:
    # I5 (the training bonus) swapped in for I4 (the bands inclusive) settles nothing.
    variant = write_variant(
        tmp_path,
        encoding_source,
        "bonus cases large_employer_bonus: money exclusive otherwise $0 reading I4;",
        "bonus cases large_employer_bonus: money exclusive otherwise $0 reading I5;",
    )
    found = errors(variant)
    assert len(found) == 8, found
    first = found[0].splitlines()[0]
    assert first.startswith(located(variant, "new_jobs >= 251 and new_jobs <= 400", "251"))
    assert first.endswith(
        "whether “between” includes its ends is a question of reading, and the readings it "
        "cites (I5) do not speak of it (no “between”, “inclusive” or “exclusive” in their "
        "questions and options)"
    )


@pytest.mark.parametrize("option", ["either-way", "exclusive"])
@pytest.mark.parametrize(
    "new",
    [
        "new_jobs >= 251 and new_jobs <= 400",
        "new_jobs > 251 and new_jobs < 400",
        "new_jobs > 251 and new_jobs <= 400",
    ],
)
def test_between_with_a_reading_takes_the_end_it_settles(
    tmp_path: Path, encoding_source: str, new: str, option: str
) -> None:
    """A reading whose words do not say whether the ends are included lets a comparison take
    either end; one that says "exclusive" takes the strict comparisons only."""
    source = encoding_source.replace(
        '  default inclusive "Inclusive bands', f'  default {option} "Bands'
    )
    assert source != encoding_source
    variant = write_variant(tmp_path, source, "new_jobs >= 251 and new_jobs <= 400", new)
    found = errors(variant)
    # (ii) to (iv) and the invariants keep their inclusive comparisons: an exclusive I4
    # refuses them; (i) is the band under test.
    assert bool(found) == (option == "exclusive"), found
    at = located(variant, new, "new_jobs").rsplit(":", 2)[0]  # path:line of the case
    band = [f for f in found if f.startswith(at + ":")]
    if option == "either-way" or new == "new_jobs > 251 and new_jobs < 400":
        assert band == []
    else:
        assert band and all("I4 (exclusive), excludes the ends" in f for f in band), band


@pytest.mark.parametrize(
    ("new", "literal", "hint"),
    [
        ("new_jobs > 251 and new_jobs <= 400", "251", "compare with >="),
        ("new_jobs >= 251 and new_jobs < 400", "400", "compare with <="),
    ],
)
def test_an_end_the_inclusive_reading_includes_must_be_included(
    tmp_path: Path, encoding_source: str, new: str, literal: str, hint: str
) -> None:
    """The bundled I4 says the bands are inclusive: a strict comparison on an end of "between
    251 and 400" contradicts the reading the rule cites."""
    variant = write_variant(tmp_path, encoding_source, "new_jobs >= 251 and new_jobs <= 400", new)
    message = assert_refused(
        variant, new, literal, "“between 251 and 400”", "I4 (inclusive), includes the ends"
    )
    assert "excludes the end" in message
    assert f"hint: {hint}, or add: reviewed {literal}" in errors(variant)[0]


def test_between_with_a_reading_still_refuses_the_wrong_direction(
    tmp_path: Path, encoding_source: str
) -> None:
    new = "new_jobs >= 251 and new_jobs >= 400"
    variant = write_variant(tmp_path, encoding_source, "new_jobs >= 251 and new_jobs <= 400", new)
    assert_refused(variant, new, "400", "“between 251 and 400” means < or <=")


# ---- polarity ----------------------------------------------------------------------------------


def test_a_negated_comparison_is_accepted_where_the_words_are_negative(
    tmp_path: Path, encoding_source: str
) -> None:
    # (c)(2) "shall not award a bonus ... that pay less than $15": the bonuses are awarded when
    # the wage is at least $15.
    old = "rule wage_floor: money per hour = max($15, 120% * state_minimum_wage) reading I13;"
    variant = write_variant(
        tmp_path,
        encoding_source,
        old,
        old + "\n    rule pays_the_floor: bool = lowest_full_time_hourly_wage >= $15;",
    )
    assert errors(variant) == []


def test_the_same_negation_is_refused_where_the_words_are_positive(
    tmp_path: Path, encoding_source: str
) -> None:
    new = "bonus rule distress_score_bonus: money = $1,000 when mri_distress_score <= 50"
    variant = write_variant(
        tmp_path,
        encoding_source,
        "bonus rule distress_score_bonus: money = $1,000 when mri_distress_score > 50",
        new,
    )
    assert_refused(variant, new, "50", "“greater than 50” means >")


@pytest.mark.parametrize(
    ("old", "right", "wrong", "polarity"),
    [
        # A comparison under `not` may be the negation of the words' comparator.
        (
            "$1,000 when mri_distress_score > 50",
            "$1,000 when not (mri_distress_score <= 50)",
            "$1,000 when not (mri_distress_score < 50)",
            "under `not`",
        ),
        # An invariant may state the other side of the words' condition; a moved boundary (50
        # itself earning nothing, against "greater than 50") is still refused.
        (
            "not (mri_distress_score > 50) implies distress_score_bonus = $0",
            "mri_distress_score <= 50 implies distress_score_bonus = $0",
            "mri_distress_score < 50 implies distress_score_bonus = $0",
            "in an invariant",
        ),
    ],
    ids=["under-not", "invariant"],
)
def test_a_comparison_may_be_the_negation_where_its_polarity_allows(
    tmp_path: Path, encoding_source: str, old: str, right: str, wrong: str, polarity: str
) -> None:
    assert errors(write_variant(tmp_path, encoding_source, old, right)) == []
    variant = write_variant(tmp_path, encoding_source, old, wrong)
    assert_refused(variant, wrong, "50", f"“greater than 50” means > (or its negation, {polarity})")


# ---- a statute of its own ----------------------------------------------------------------------


def mini(tmp_path: Path, words: str, rule: str, reading: bool = False) -> Path:
    """Writes a one-clause statute whose words are `words` and whose clause holds `rule`
    (over the inputs `score: number` and `wage: money`), and returns its path."""
    register = 'reading I1 "Are the ends included?"\n  default inclusive "Yes.";\n'
    (tmp_path / "mini.txt").write_text(f"1. a. {words}\n", encoding="utf-8")
    source = (
        'statute "Mini Act 1"\n  title "A mini act"\n  official "mini.txt"\n\n'
        + (register if reading else "")
        # Only the inputs the rule reads: an input no rule reads is an error of its own.
        + ('input score: number = 0 "a score";\n' if "score" in rule else "")
        + ('input wage: money = $0 "a wage";\n' if "wage" in rule else "")
        + "\n"
        + "results result;\n\n"
        + f'section 1. {{\na. "{words}" {{\n  {rule}\n}}\n}}\n'
    )
    path = tmp_path / "mini.lex"
    path.write_text(source, encoding="utf-8")
    return path


def test_a_fraction_word_is_written_as_a_fraction(tmp_path: Path) -> None:
    words = "A credit of $100 when one-half or more of the score is met."
    assert errors(mini(tmp_path, words, "rule result: money = $100 when score >= 1/2;")) == []
    new = "rule result: money = $100 when score >= 0.5;"
    path = mini(tmp_path, words, new)
    assert_refused(path, new, "0.5", "is a plain number", "as a fraction", "“one-half or more”")


def test_between_in_another_statute_needs_its_reading(tmp_path: Path) -> None:
    words = "A credit of $100 when the score is between 10 and 20."
    rule = "rule result: money = $100 when score >= 10 and score <= 20"
    refused = errors(mini(tmp_path, words, rule + ";"))
    assert len(refused) == 2 and all("question of reading" in m for m in refused), refused
    assert errors(mini(tmp_path, words, rule + " reading I1;", reading=True)) == []


def test_a_number_without_a_comparator_phrase_is_not_checked(tmp_path: Path) -> None:
    words = "A credit of $100 for a score of 10."
    assert errors(mini(tmp_path, words, "rule result: money = $100 when score < 10;")) == []


def test_any_phrase_of_a_number_stated_twice_is_accepted(tmp_path: Path) -> None:
    words = "A credit of $100 when the score exceeds 10, and none when it is at most 10."
    for op in (">", "<="):
        assert errors(mini(tmp_path, words, f"rule result: money = $100 when score {op} 10;")) == []
    new = "rule result: money = $100 when score < 10;"
    assert_refused(
        mini(tmp_path, words, new), new, "10;", "“exceeds 10” means >", "“at most 10” means <="
    )


def test_the_same_number_in_the_literals_unit_is_accepted(tmp_path: Path) -> None:
    words = "A credit of $10 when the score exceeds 10."
    assert errors(mini(tmp_path, words, "rule result: money = $10 when score > 10;")) == []


def test_a_period_s_length_used_as_a_plain_number_is_refused(tmp_path: Path) -> None:
    # The words' only 12 is a period's length: a plain 12 in the rule is the wrong number (12
    # weeks written where the words give 26), as a plain 35 is for "35 percent".
    words = "A credit of $26 for each of 26 workweeks of leave during a single 12-month period."
    right = "rule result: money = $26 * min(score, 26);"
    assert errors(mini(tmp_path, words, right)) == []
    new = "rule result: money = $26 * min(score, 12);"
    path = mini(tmp_path, words, new)
    assert_refused(
        path, new, "12)", "is a plain number", "the length of a period: “during a single 12-month"
    )
    assert "hint: write it as a duration such as 12 months" in errors(path)[0]
    # Where the words also state the number bare, a plain literal may be either.
    words = "A credit of $26 for each of 12 workweeks of leave during a single 12-month period."
    assert errors(mini(tmp_path, words, new)) == []


def test_a_bare_figure_is_a_percentage_only_under_words_that_speak_of_one(
    tmp_path: Path,
) -> None:
    # A table's figures stand bare under their heading: "The credit percentage is: ... 34".
    table = "The credit percentage is: in the case of an eligible individual with 1 child, 34."
    assert errors(mini(tmp_path, table, "rule result: money = wage * 34%;")) == []
    plain = "A credit when the score is greater than 50."
    new = "rule result: money = $1 when score > 50%;"
    path = mini(tmp_path, plain, new.replace("$1", "$0"))
    assert_refused(path, new.replace("$1", "$0"), "50%", "is a percentage", "“greater than 50”")
    assert "hint: write it as a plain number (50: 50% is a hundredth of it)" in errors(path)[0]


def test_the_bundled_statute_parses_to_the_occurrences_the_check_reads() -> None:
    """The examples of the docs: the words of (c)(1)(a) and (c)(1)(f) as the check reads them."""
    statute = load(BUNDLED)
    clauses = {clause.labels: clause for clause in statute.clauses}
    (fifty,) = [o for o in occurrences(clauses["(c)(1)(a)"].words) if o.value == 50]
    assert (fifty.ops, fifty.excerpt) == (frozenset({">"}), "greater than 50")
    (steps,) = [o for o in occurrences(clauses["(c)(1)(f)"].words) if o.value == 35]
    assert steps.kind == "percent" and steps.ops == frozenset()


# ---- a fraction in digits ------------------------------------------------------------------------

SIGHT_WORDS = (
    "An individual is blind only if his central visual acuity does not exceed 20/200 in the "
    "better eye."
)


def _sight(tmp_path: Path, rule: str) -> Path:
    """An encoding whose words state a fraction in digits, with `rule` in its clause."""
    (tmp_path / "sight.txt").write_text(f"1. Sight.\n(a) {SIGHT_WORDS}\n", encoding="utf-8")
    path = tmp_path / "sight.lex"
    path.write_text(
        'statute "Sight Act s.1"\n  title "Sight"\n  official "sight.txt"\n\n'
        'input acuity: number required min 0 "the central visual acuity in the better eye";\n\n'
        "results blind;\n\n"
        f'section 1. "Sight." {{\n  (a) "{SIGHT_WORDS}" {{\n    {rule}\n  }}\n}}\n',
        encoding="utf-8",
    )
    return path


def test_a_fraction_the_words_state_in_digits_is_stated(tmp_path: Path) -> None:
    from lextrace.dsl.numbers import stated_numbers

    assert Fraction(1, 10) in stated_numbers("does not exceed 20/200 in the better eye")
    assert Fraction(1, 2) not in stated_numbers("on 1/2/2020")  # a date, not a fraction
    assert errors(_sight(tmp_path, "rule blind: bool = acuity <= 20/200;")) == []


def test_a_comparison_against_a_fraction_in_digits_is_read_from_its_words(tmp_path: Path) -> None:
    rule = "rule blind: bool = acuity >= 20/200;"
    assert_refused(_sight(tmp_path, rule), rule, "20/200", "“not exceed 20/200” means <=")
    assert "reviewed 20/200" in errors(tmp_path / "sight.lex")[0]  # the hint the grammar takes


def test_a_fraction_can_be_marked_reviewed(tmp_path: Path) -> None:
    rule = 'rule blind: bool = acuity >= 20/200\n      reviewed 20/200 "measured the other way";'
    assert errors(_sight(tmp_path, rule)) == []
    statute = load(tmp_path / "sight.lex")
    (mark,) = statute.definitions["blind"].reviewed
    assert (mark.literal.value, mark.literal.text) == (Fraction(1, 10), "20/200")


def test_a_fraction_mark_with_denominator_zero_is_refused_at_it(tmp_path: Path) -> None:
    rule = 'rule blind: bool = acuity <= 20/200\n      reviewed 20/0 "no such number";'
    found = errors(_sight(tmp_path, rule))
    assert any("a fraction's denominator is 0" in error for error in found), found


# ---- steps: "for each 35 percent", "for each $1,000 (or fraction thereof)" ------------------


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        ("an increase of $200 for each 35 percent by which it exceeds", [(35, "percent", "floor")]),
        (
            "reduced by $50 for each $1,000 (or fraction thereof) by which it exceeds",
            [(1000, "money", "ceil")],
        ),
        ("$10 for every 5 units, or any part thereof, over the limit", [(5, "plain", "ceil")]),
        ("$500 for each qualifying job", []),
        ("for each additional amount that exceeds the minimum by 40 percent", []),
    ],
)
def test_the_steps_the_words_count(words: str, expected: list[tuple[int, str, str]]) -> None:
    assert [(s.value, s.kind, s.rounding) for s in steps(words)] == expected


def test_a_step_divided_without_floor_is_refused(tmp_path: Path, encoding_source: str) -> None:
    """(c)(1)(f): "$200 ... for each 35 percent by which the project's median salary levels
    exceeds": whole steps of 35 percent."""
    new = "min($200 * (salary_excess / 35%), $1,000)"
    variant = write_variant(
        tmp_path, encoding_source, "min($200 * floor(salary_excess / 35%), $1,000)", new
    )
    message = assert_refused(
        variant, new, "35%", "'salary_excess / 35%' in 'salary_bonus' is unrounded",
        "“for each 35 percent” counts whole steps",
    )  # fmt: skip
    assert "(c)(1)(f)" in message
    assert "hint: write floor(salary_excess / 35%)" in errors(variant)[0]


def test_a_part_of_a_step_counts_as_a_whole_one(tmp_path: Path) -> None:
    words = "A reduction of $50 for each $1,000 (or fraction thereof) by which the wage exceeds."
    assert errors(mini(tmp_path, words, "rule result: money = $50 * ceil(wage / $1,000);")) == []
    for written, given in (
        ("floor(wage / $1,000)", "inside floor(...)"),
        ("(wage / $1,000)", "unrounded"),
    ):
        new = f"rule result: money = $50 * {written};"
        message = assert_refused(mini(tmp_path, words, new), new, "$1,000", given)
        assert (
            "“for each $1,000 (or fraction thereof)” counts a part of a step as a whole one"
            in message
        )
    reviewed = 'rule result: money = $50 * (wage / $1,000) reviewed $1,000 "a prorated reduction";'
    assert errors(mini(tmp_path, words, reviewed)) == []


def test_children_lists_what_walk_walks() -> None:
    """`ast.children` (the step check's descent) and the checker's `walk` (spelled out for
    speed) must agree on every expression of every bundled encoding."""
    from lextrace.dsl.checker import definition_expressions, walk

    def descend(expr: ast.Expr) -> list[ast.Expr]:
        return [expr, *(n for child in ast.children(expr) for n in descend(child))]

    for path in sorted(BUNDLED.parent.glob("*.lex")):
        statute = load(path)
        for definition in statute.definitions.values():
            for expr in definition_expressions(definition):
                if expr is not None:
                    assert [id(n) for n in descend(expr)] == [id(n) for n in walk(expr)]


# ---- amounts given for each step ---------------------------------------------------------------


def test_the_amounts_the_words_give_for_each_step() -> None:
    words = (
        "an increase of $500 per year for each additional amount of investment that exceeds the "
        "minimum by 40 percent, with a maximum increase of $1,500 per year, or $5,000 per year"
    )
    assert [(a.value, a.kind, a.excerpt) for a in per_step_amounts(words)] == [
        (500, "money", "$500 per year for each")
    ]
    assert [a.value for a in per_step_amounts("reduced by $50 for each $1,000 by which")] == [50]
    # A step of a percentage: "1 percentage point" is 1%, written `1%`.
    assert [
        (a.value, a.kind) for a in per_step_amounts("by 1 percentage point for each $2,000")
    ] == [(1, "percent")]


def test_a_step_count_times_another_stated_amount_is_refused(
    tmp_path: Path, encoding_source: str
) -> None:
    """(c)(1)(b) gives $500 a step and states $5,000 as a maximum: $5,000 a step passes the
    number check (the clause states it) but not the words' amount for each step."""
    old = "min($500 * investment_steps, investment_bonus_maximum)"
    new = "min($5,000 * investment_steps, investment_bonus_maximum)"
    variant = write_variant(tmp_path, encoding_source, old, new)
    assert_refused(
        variant, new, "$5,000",
        "'$5,000 * investment_steps' in 'investment_bonus' gives $5,000 for each step",
        "the words of (c)(1)(b) give “$500 per year for each”",
    )  # fmt: skip
    # A count that is not a count of steps (a plain input) is not held to it.
    words = "A grant of $500 for each job, and at most $5,000."
    rule = "rule result: money = min($5,000 * jobs, $5,000);"
    assert errors(mini_jobs(tmp_path, words, rule)) == []


def mini_jobs(tmp_path: Path, words: str, rule: str) -> Path:
    """`mini` over a count input `jobs`."""
    path = mini(tmp_path, words, rule)
    source = path.read_text(encoding="utf-8").replace(
        "\nresults result;", 'input jobs: count = 0 "jobs";\n\nresults result;'
    )
    path.write_text(source, encoding="utf-8")
    return path


NSW = BUNDLED.parent / "nsw-cgr-2020-cl-5.lex"


def nsw_variant(tmp_path: Path, old: str, new: str) -> Path:
    """Writes the NSW clause's encoding with `old` replaced by `new`, beside its text."""
    source = NSW.read_text(encoding="utf-8")
    assert old in source
    (tmp_path / NSW.with_suffix(".txt").name).write_bytes(NSW.with_suffix(".txt").read_bytes())
    path = tmp_path / NSW.name
    path.write_text(source.replace(old, new, 1), encoding="utf-8")
    return path


def test_a_comparison_with_a_rule_holding_the_number_is_read_from_the_words(
    tmp_path: Path,
) -> None:
    # "not less than 12.5% of the gross proceeds": the 12.5% is in the rule compared with.
    old = "paid_to_benefiting_organisation >= charity_minimum_to_benefiting_organisation"
    new = "paid_to_benefiting_organisation > charity_minimum_to_benefiting_organisation"
    path = nsw_variant(tmp_path, old, new)
    first = assert_refused(
        path,
        new,
        "paid_to_benefiting_organisation",
        "compares with charity_minimum_to_benefiting_organisation (12.5% in (2)(b))",
        "“not less than 12.5%” means >=",
    )
    assert first
    # Marked reviewed in the rule that states the number, it passes.
    rule = "rule charity_minimum_to_benefiting_organisation: money = 12.5% * gross_proceeds"
    source = path.read_text(encoding="utf-8").replace(
        f"{rule}\n        when activity = charity_housie reading I1;",
        f'{rule}\n        when activity = charity_housie reading I1 reviewed 12.5% "why";',
    )
    path.write_text(source, encoding="utf-8")
    assert errors(path) == []


def test_a_number_times_an_amount_is_compared_as_the_words_say(tmp_path: Path) -> None:
    old = "permitted implies expenses <= 12.5% * gross_proceeds"
    new = "permitted implies expenses < 12.5% * gross_proceeds"
    path = nsw_variant(tmp_path, old, new)
    assert_refused(path, new, "12.5%", "“not exceed 12.5%” means <=")


def test_two_limits_the_words_join_with_and_joined_with_or_are_refused(tmp_path: Path) -> None:
    words = "A credit of $100 when the wage does not exceed $500 and does not exceed $400."
    wrong = "rule result: money = $100 when wage <= $500 or wage <= $400;"
    (error,) = errors(mini(tmp_path, words, wrong))
    assert error.splitlines()[0].endswith(
        "'wage <= $500 or wage <= $400' in 'result' joins with `or` two limits the words of "
        "(a) join with “and”: “not exceed $500” and “not exceed $400” must both hold"
    )
    right = "rule result: money = $100 when wage <= $500 and wage <= $400;"
    assert errors(mini(tmp_path, words, right)) == []
    # Under `not`, `or` is the words' "and" turned around (De Morgan).
    negated = "rule result: money = $100 when not (wage > $500 or wage > $400);"
    assert errors(mini(tmp_path, words, negated)) == []
    # Limits on opposite sides: "and" lists two groups, each a reason alone.
    groups = "A credit of $100 for a score under 18 and a score over 65."
    either = "rule result: money = $100 when score < 18 or score > 65;"
    assert errors(mini(tmp_path, groups, either)) == []
