"""The encoding language: parsing, citations from structure, static checks and fidelity."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from conftest import write_section_statute, write_variant

from lextrace import load_statute
from lextrace.dsl import ast
from lextrace.dsl.coverage import coverage, summary
from lextrace.dsl.errors import EncodingError, ScenarioError
from lextrace.dsl.fidelity import carried_text, normalise
from lextrace.dsl.loader import analyse, load
from lextrace.dsl.numbers import stated_numbers
from lextrace.dsl.parser import parse_encoding
from lextrace.statute import BUNDLED, OFFICIAL


def messages(path: Path) -> list[str]:
    """Returns the rendered error diagnostics of the encoding at `path`."""
    analysis = analyse(path)
    return [d.render(analysis.source) for d in analysis.errors]


# ---- the bundled encoding ---------------------------------------------------------------------


def test_bundled_encoding_has_no_diagnostics() -> None:
    analysis = analyse(BUNDLED)
    assert analysis.statute is not None
    assert [d.render(analysis.source) for d in analysis.diagnostics] == []


def test_carried_text_equals_official_text() -> None:
    statute = load(BUNDLED)
    assert carried_text(statute) == normalise(OFFICIAL.read_text(encoding="utf-8"))


def test_citations_come_from_the_structure() -> None:
    statute = load(BUNDLED)
    definitions = statute.definitions
    assert statute.citation(definitions["labor_harmony_bonus"].clause) == (
        "N.J.S.A. 34:1B-343(c)(1)(j)"
    )
    assert definitions["per_job_retained"].clause.short_citation == "(f)(2)"
    assert definitions["large_employer_bonus"].clause.short_citation == "(c)(1)(c)"
    cases = definitions["large_employer_bonus"]
    assert isinstance(cases, ast.Cases)
    assert [c.clause.short_citation for c in cases.cases] == [
        "(c)(1)(c)(i)",
        "(c)(1)(c)(ii)",
        "(c)(1)(c)(iii)",
        "(c)(1)(c)(iv)",
        "(c)(1)(c)(v)",
    ]
    assert definitions["distress_score_bonus"].clause.anchor == "c-1-a"


def test_every_subdivision_of_the_statute_is_a_clause() -> None:
    statute = load(BUNDLED)
    citations = [c.short_citation for c in statute.clauses]
    bonuses = [f"(c)(1)({letter})" for letter in "abcdefghijklmnopqr"]
    for expected in [
        "(a)",
        "(b)(5)",
        *bonuses,
        "(c)(1)(c)(v)",
        "(c)(3)",
        "(d)(5)",
        "(e)(2)",
        "(f)(2)",
        "(g)",
    ]:
        assert expected in citations


def test_coverage_accounts_for_every_clause() -> None:
    statute = load(BUNDLED)
    items = {item.clause.short_citation: item for item in coverage(statute)}
    assert "unaccounted" not in summary(statute)
    assert items["(c)(3)"].status == "discretionary"
    assert items["(c)(1)(g)"].status == "text only"
    assert items["(g)"].status == "encoded"
    assert [mark for mark, _ in items["(g)"].marks] == ["discretionary"]
    assert items["(c)"].status == "introductory"


def test_inputs_match_the_scenario_format() -> None:
    statute = load(BUNDLED)
    inputs = statute.inputs
    assert inputs["new_jobs"].required and inputs["new_jobs"].type == ast.COUNT
    assert inputs["onsite_renewable_share"].type == ast.SHARE
    assert inputs["green_building"].type.members == ("none", "exceeds_silver", "exceeds_gold")
    assert inputs["board_approved_annual_limit"].optional
    assert inputs["municipality_median_salary"].required_when is not None
    assert statute.result_names == (
        "area_tier",
        "per_job_new",
        "per_job_new_labor_harmony",
        "per_job_retained",
        "per_job_retained_labor_harmony",
        "annual_total_before_limit",
        "annual_credit",
        "eligibility_period_total",
    )


def test_stated_numbers_reads_digits_and_words() -> None:
    words = "one-third or more ... $1,500 per year ... 40 percent ... $15 per hour, 1,000"
    found = stated_numbers(words)
    assert {Fraction(1, 3), Fraction(1500), Fraction(40), Fraction(15), Fraction(1000)} <= found
    assert Fraction(2000) not in found


def test_a_label_in_parentheses_is_not_a_stated_number() -> None:
    # "(b)(1)" and "paragraph (2)" name subdivisions; "thirty (30)" restates a number.
    found = stated_numbers("the amount under subsection (b)(1) and paragraph (2A), 100 percent")
    assert found == {Fraction(100)}
    assert stated_numbers("one hundred twenty (120) days") >= {Fraction(120)}


# ---- syntax errors ----------------------------------------------------------------------------


def test_syntax_error_names_line_column_and_expectation() -> None:
    source = (
        'statute "X" official "x.txt"\nsection 1. {\n a. "words" {\n  rule x: money = ;\n }\n}\n'
    )
    with pytest.raises(EncodingError) as caught:
        parse_encoding(source, "bad.lex")
    rendered = caught.value.render()
    assert rendered.startswith("bad.lex:4:19: error: unexpected ';'")
    assert "expected" in rendered and "an amount such as $1,000" in rendered
    assert "    4 |   rule x: money = ;" in rendered
    assert rendered.splitlines()[2].endswith("^")


def test_a_plain_number_with_a_thousands_separator_gets_the_digits_to_write() -> None:
    source = (
        'statute "X" official "x.txt"\nsection 1. {\n a. "words" {\n'
        "  rule x: bool = hours > 1,250;\n }\n}\n"
    )
    with pytest.raises(EncodingError) as caught:
        parse_encoding(source, "bad.lex")
    rendered = caught.value.render()
    assert rendered.startswith("bad.lex:4:27: error: unexpected ','"), rendered
    assert "hint: a plain number has no thousands separator: write 1250" in rendered


def test_truncated_file_is_reported_at_its_end() -> None:
    with pytest.raises(EncodingError) as caught:
        parse_encoding('statute "X"\nsection 1. {\n a. "w" {', "cut.lex")
    assert "cut.lex:3:" in caught.value.render()
    assert "the file ends too early" in caught.value.render()
    assert 'the blocks that line 2 (section 1. {) and line 3 (a. "w" {) open' in (
        caught.value.render()
    )


MISSING_BRACE = """statute "X"
input n: count = 0 "n";
results x, y;
section 1. {
  a. "The first
      clause." {
    rule x: count = n;
    # a comment at the left margin does not end the block
  b. "The second clause." {
    rule y: count = n;
  }
}
"""


def test_a_missing_brace_is_reported_where_the_indentation_says_it_belongs() -> None:
    with pytest.raises(EncodingError) as caught:
        parse_encoding(MISSING_BRACE, "brace.lex")
    rendered = caught.value.render()
    assert rendered.startswith(
        "brace.lex:9:3: error: the file ends too early: a '}' seems to be missing before this line"
    )
    assert 'the block that line 5 (a. "The first) opens holds this line' in rendered


def test_a_missing_brace_in_a_file_without_indentation_is_reported_at_the_end() -> None:
    flat = "\n".join(line.strip() for line in MISSING_BRACE.splitlines())
    with pytest.raises(EncodingError) as caught:
        parse_encoding(flat, "flat.lex")
    rendered = caught.value.render()
    assert rendered.startswith("flat.lex:12:2: error: the file ends too early\n")
    assert "never closed: the block that line 4 (section 1. {) opens" in rendered


MISSING_OPENING_BRACE = """statute "X"
input n: count = 0 "n";
results x, y;
section 1. {
  a. "The first
      clause."
    rule x: count = n;
  }
  b. "The second clause." {
    rule y: count = n;
  }
}
"""


def test_a_missing_opening_brace_is_one_error_at_the_brace_that_closes_too_early() -> None:
    with pytest.raises(EncodingError) as caught:
        parse_encoding(MISSING_OPENING_BRACE, "open.lex")
    rendered = caught.value.render()
    # Not the cascade of "expected 'section'" after the section was closed by a's '}'.
    assert rendered.startswith(
        "open.lex:8:3: error: this '}' closes no block: a '{' seems to be missing before it"
    )
    assert "open the block of line 5 (a. \"The first) with a '{' after its words" in rendered
    assert len(caught.value.diagnostics) == 1


def test_an_extra_closing_brace_is_reported_where_it_stands() -> None:
    source = MISSING_BRACE.replace(
        "    rule y: count = n;\n  }\n}\n", "    rule y: count = n;\n  }\n}\n}\n"
    )
    source = source.replace(
        'clause." {\n    rule x: count = n;', 'clause." {\n    rule x: count = n;\n  }'
    )
    with pytest.raises(EncodingError) as caught:
        parse_encoding(source, "extra.lex")
    rendered = caught.value.render()
    assert "extra.lex:14:1: error: this '}' closes no block" in rendered


# ---- static checks ----------------------------------------------------------------------------

CHECKS = [
    pytest.param(
        "bonus rule small_business_bonus: money = $500 when small_business;",
        "bonus rule small_business_bonus: money = $500 + onsite_renewable_share "
        "when small_business;",
        "cannot add money and share: the units differ",
        id="money-plus-share",
    ),
    pytest.param(
        "when mri_distress_score > 50 reading I2;",
        "when new_jobs > county_median_salary reading I2;",
        "cannot compare count with money per year: the units differ",
        id="count-compared-to-money",
    ),
    pytest.param(
        "bonus rule child_care_bonus: money = $1,000 when child_care;",
        "bonus rule child_care_bonus: money = $1,000 when chid_care;",
        "unknown name 'chid_care'",
        id="unknown-name",
    ),
    pytest.param(
        "bonus rule child_care_bonus: money = $1,000 when child_care;",
        "bonus rule child_care_bonus: money = $1,000 when chid_care;",
        "did you mean 'child_care'?",
        id="did-you-mean",
    ),
    pytest.param(
        "bonus rule incubator_bonus: money = $500 when qualified_incubator_facility;",
        "bonus rule incubator_bonus: money = $700 when qualified_incubator_facility;",
        "the number $700 in 'incubator_bonus' is not stated in the words of (c)(1)(i)",
        id="untraceable-number",
    ),
    pytest.param(
        "rule wage_floor: money per hour = max($15, 120% * state_minimum_wage) reading I13;",
        "rule wage_floor: money per hour = max($15, 1.2 * state_minimum_wage) reading I13;",
        "hint: the words state it as 120 percent: write 120%",
        id="a-percentage-written-as-a-decimal",
    ),
    pytest.param(
        "case gross_cap = $3,000 when area_tier = b5;",
        "case gross_cap = $3,000 when area_tier > b5;",
        "'>' does not order the members of an enum",
        id="enum-ordering",
    ),
    pytest.param(
        "bonus rule reentry_bonus: money = $500 when reentry_partnership_hire;",
        "bonus rule reentry_bonus: money = $500 when reentry_partnership_hire;\n"
        "      rule small_business_bonus: money = $500;",
        "'small_business_bonus' is defined twice",
        id="duplicate-definition",
    ),
    pytest.param(
        "case salary_reference = county_median_salary when not government_restricted_municipality;",
        "case salary_referenc = county_median_salary when not government_restricted_municipality;",
        "case of 'salary_referenc', which has no 'cases salary_referenc' declaration",
        id="case-without-cases",
    ),
    pytest.param(
        "rule wage_floor: money per hour = max($15, 120% * state_minimum_wage) reading I13;",
        "rule wage_floor: money per hour = max($15, 120% * state_minimum_wage, bonuses_awarded) "
        "reading I13;",
        "the arguments of max() differ",
        id="max-of-money-and-bool",
    ),
    pytest.param(
        "rule credit_barred: bool = salary_shortfall >= 30% reading I16;",
        "rule credit_barred: bool = salary_shortfall >= 30% or net_amount(covered: false) > $0 "
        "reading I16;",
        "circular definition",
        id="cycle",
    ),
    pytest.param(
        "rule per_job_new: money = 100% * net_amount(covered: false) reading I17;",
        "rule per_job_new: money = 100% * net_amount(coverd: false) reading I17;",
        "'net_amount' needs the argument 'covered'",
        id="missing-argument",
    ),
    pytest.param(
        "rule per_job_new: money = 100% * net_amount(covered: false) reading I17;",
        "rule per_job_new: money = 100% * net_amount(covered: false) reading I71;",
        "unknown reading I71",
        id="unknown-reading",
    ),
    pytest.param(
        "rule per_job_new: money = 100% * net_amount(covered: false) reading I17;",
        "rule per_job_new: money = 100% * net_amount(covered: false) reading I71;",
        "hint: did you mean I7? (or declare I71",
        id="unknown-reading-close-to-one",
    ),
    pytest.param(
        "rule annual_credit: money =",
        "rule annual_credit: count =",
        "rule 'annual_credit' is declared count, but its value is a money",
        id="declared-type",
    ),
    pytest.param(
        '(3) "The authority may adopt',
        '(3) "The authority may adopt',
        None,
        id="unchanged-is-clean",
    ),
    pytest.param(
        '    discretionary "criteria the authority may adopt by regulation in response to economic '
        'conditions: none are adopted in this encoding, so no rule follows from this paragraph"',
        "",
        "clause (c)(3) is not accounted for",
        id="unaccounted-clause",
    ),
    pytest.param(
        "input retained_jobs: count = 0",
        "input retained_jobs: count",
        "input 'retained_jobs' has no default and is neither required nor optional",
        id="input-without-default",
    ),
    pytest.param(
        "rule cap_allowance(covered: bool): money = $1,000",
        "rule cap_allowance(covered: count): money = $1,000",
        "a rule's parameters range over bool or enum values only, given 'covered: count'",
        id="rule-parameter-not-finite",
    ),
]


@pytest.mark.parametrize(("old", "new", "expected"), CHECKS)
def test_checker_refuses_bad_encodings(
    tmp_path: Path, encoding_source: str, old: str, new: str, expected: str | None
) -> None:
    found = messages(write_variant(tmp_path, encoding_source, old, new))
    if expected is None:
        assert found == []
    else:
        assert any(expected in message for message in found), found
        # Every error is located: file:line:column, then the source line and a caret.
        for message in found:
            first, source_line, caret = message.splitlines()[:3]
            assert first.startswith(f"{tmp_path / 'variant.lex'}:")
            assert "|" in source_line and caret.strip().startswith("^")


def test_reviewed_number_is_accepted_with_its_reason(tmp_path: Path, encoding_source: str) -> None:
    variant = write_variant(
        tmp_path,
        encoding_source,
        "bonus rule incubator_bonus: money = $500 when qualified_incubator_facility;",
        "bonus rule incubator_bonus: money = $700 when qualified_incubator_facility\n"
        '        reviewed $700 "a hypothetical amount under review";',
    )
    assert messages(variant) == []


def test_every_number_in_a_rule_is_stated_by_its_own_clause() -> None:
    """The bundled encoding passes the traceability check with no reviewed exception."""
    statute = load(BUNDLED)
    assert all(not d.reviewed for d in statute.definitions.values())


def test_several_errors_are_all_reported(tmp_path: Path, encoding_source: str) -> None:
    source = (
        encoding_source.replace("when small_business;", "when smal_business;")
        .replace("when child_care;", "when child_car;")
        .replace("$500 when qualified_incubator_facility", "$700 when qualified_incubator_facility")
    )
    path = write_variant(tmp_path, source, "section 75.", "section 75.")
    found = messages(path)
    assert sum("unknown name" in m for m in found) == 2
    assert sum("$700" in m for m in found) >= 1


# ---- fidelity ---------------------------------------------------------------------------------


def test_changed_words_holding_quotation_marks_are_quoted_apart_from_them(
    tmp_path: Path, encoding_source: str
) -> None:
    variant = write_variant(
        tmp_path,
        encoding_source,
        "“Gold” rating standards, an additional",
        "“Golden” rating standards, an additional",
    )
    (message,) = messages(variant)
    assert "the carried text says «“Golden”» where the official text says «“Gold”»" in message


def test_one_changed_word_is_located_with_clause_and_difference(
    tmp_path: Path, encoding_source: str
) -> None:
    variant = write_variant(
        tmp_path,
        encoding_source,
        "increase of $2,000 per year for the",
        "increase of $2,000 per annum for the",
    )
    found = messages(variant)
    assert len(found) == 1
    message = found[0]
    assert "[N.J.S.A. 34:1B-343(c)(1)(j)]" in message
    assert "the carried text says “annum” where the official text says “year”" in message
    line = next(
        number
        for number, text in enumerate(variant.read_text(encoding="utf-8").splitlines(), start=1)
        if "per annum for the" in text
    )
    assert message.startswith(f"{variant}:{line}:")


def test_dropped_and_added_words_are_reported(tmp_path: Path, encoding_source: str) -> None:
    dropped = messages(
        write_variant(tmp_path, encoding_source, "a doctoral university,", "a university,")
    )
    assert any("leaves out “doctoral”" in m and "(c)(1)(n)" in m for m in dropped)
    added = messages(
        write_variant(
            tmp_path,
            encoding_source,
            "in other eligible areas, $500",
            "in other eligible areas, clearly $500",
        )
    )
    assert any(
        "adds “clearly”, which the official text lacks" in m and "(b)(5)" in m for m in added
    )


def test_whitespace_does_not_matter(tmp_path: Path, encoding_source: str) -> None:
    variant = write_variant(
        tmp_path, encoding_source, "$2,000 per year for the", "$2,000\n         per   year\tfor the"
    )
    assert messages(variant) == []


def test_several_syntax_errors_are_all_reported_once() -> None:
    source = (
        'statute "X" official "x.txt"\n'
        'input a: money = $0 "a";\n'
        'input b: money = "b";\n'
        "section 1. {\n"
        ' a. "words; with a semicolon" {\n'
        "  rule x: money = ;\n"
        "  rule y: money = a + ;\n"
        "  rule z: money = a;\n"
        " }\n"
        "}\n"
    )
    with pytest.raises(EncodingError) as caught:
        parse_encoding(source, "three.lex")
    located = [(d.line, d.column) for d in caught.value.diagnostics]
    assert located == [(3, 18), (6, 19), (7, 23)]
    assert caught.value.render().endswith("three.lex: 3 errors; the encoding is not usable")


def test_misspelled_keyword_gets_a_suggestion() -> None:
    source = 'statute "X" official "x.txt"\nsection 1. {\n a. "w" {\n  rul x: money = $0;\n }\n}\n'
    with pytest.raises(EncodingError) as caught:
        parse_encoding(source, "typo.lex")
    (diagnostic,) = caught.value.diagnostics
    assert (diagnostic.line, diagnostic.column) == (4, 3)
    assert diagnostic.hint == "did you mean 'rule'?"


# ---- an encoding of another statute -----------------------------------------------------------
FEES_TEXT = """5. Fees.
a. The fee is $10 per item for a small kind, $20 for a large kind.
"""
FEES_ENCODING = """statute "Test Act s.5"
  title "Fees"
  official "fees.txt"

input kind: enum(small, large) = small "the kind";
input items: count = 0 "items";

results fee_total, fee_of_its_kind;

section 5. "Fees." {
  a. "The fee is $10 per item for a small kind, $20 for a large kind." {
    rule fee(k: enum(small, large)): money = if k = small then $10 else $20;
    rule fee_total: money = fee(k: ARGUMENT) * items;
    rule fee_of_its_kind: money = fee(k: kind);
  }
}
"""


@pytest.mark.parametrize(("argument", "per_item"), [("large", 20), ("small", 10), ("kind", 10)])
def test_an_enum_member_may_be_an_argument(tmp_path: Path, argument: str, per_item: int) -> None:
    from lextrace import Statute

    (tmp_path / "fees.txt").write_text(FEES_TEXT, encoding="utf-8")
    path = tmp_path / "fees.lex"
    path.write_text(FEES_ENCODING.replace("ARGUMENT", argument), encoding="utf-8")
    analysis = analyse(path)
    assert analysis.errors == []
    result = Statute(load(path)).evaluate({"items": 3})
    assert result.values["fee_total"] == 3 * per_item
    assert result.values["fee_of_its_kind"] == 10


def test_an_argument_that_is_no_member_of_the_parameter_is_refused(tmp_path: Path) -> None:
    (tmp_path / "fees.txt").write_text(FEES_TEXT, encoding="utf-8")
    path = tmp_path / "fees.lex"
    path.write_text(FEES_ENCODING.replace("ARGUMENT", "huge"), encoding="utf-8")
    assert any("unknown name 'huge'" in m for m in messages(path))


def test_the_members_of_an_enum_parameter_are_names_in_every_consumer(tmp_path: Path) -> None:
    from lextrace import Statute
    from lextrace.verify.report import run

    (tmp_path / "fees.txt").write_text(FEES_TEXT, encoding="utf-8")
    path = tmp_path / "fees.lex"
    source = FEES_ENCODING.replace("enum(small, large)): money", "enum(tiny, huge)): money")
    source = source.replace("if k = small then", "if k = tiny then")
    source = source.replace("fee(k: ARGUMENT)", "fee(k: huge)")
    source = source.replace("    rule fee_of_its_kind: money = fee(k: kind);\n", "")
    source = source.replace("results fee_total, fee_of_its_kind;", "results fee_total;")
    source = source.replace('input kind: enum(small, large) = small "the kind";\n', "")
    path.write_text(source, encoding="utf-8")
    assert [d.message for d in analyse(path).errors] == []
    statute = Statute(load(path))
    assert statute.evaluate({"items": 2}).values["fee_total"] == 40  # the reference path
    assert statute.evaluate({"items": 2}, trace=True).values["fee_total"] == 40
    assert all(o.status == "PROVED" for o in run(statute.ast, 10.0, 60.0).outcomes)


@pytest.mark.parametrize(
    ("old", "new", "where"),
    [
        ('new full-time jobs";', 'new full-time jobs"', 'new full-time jobs"'),
        (
            "  per_job_retained_labor_harmony, annual_total_before_limit, annual_credit, "
            "eligibility_period_total;",
            "  per_job_retained_labor_harmony, annual_total_before_limit, annual_credit, "
            "eligibility_period_total",
            "eligibility_period_total",
        ),
    ],
)
def test_a_missing_semicolon_is_one_error_where_the_declaration_ends(
    tmp_path: Path, encoding_source: str, old: str, new: str, where: str
) -> None:
    path = write_variant(tmp_path, encoding_source, old, new)
    analysis = analyse(path)
    assert len(analysis.errors) == 1, [d.message for d in analysis.errors]
    error = analysis.errors[0]
    assert error.message == "a ';' is missing at the end of this declaration"
    line = analysis.source.splitlines()[error.line - 1]
    assert line[: error.column - 1].endswith(where)


def test_a_fraction_written_as_a_percentage_is_pointed_to_the_words() -> None:
    from fractions import Fraction

    from lextrace.dsl import ast
    from lextrace.dsl.checker import _stated_otherwise

    at = ast.Span(1, 1, 1, 4, 0, 3)
    half = ast.Literal(at, Fraction(1, 2), "percent", "50%")
    assert _stated_otherwise(half, "one-half of the amount") == ("one-half", "1/2")
    eighth = ast.Literal(at, Fraction(1, 8), "number", "0.125")
    assert _stated_otherwise(eighth, "12.5 percent of the wages") == ("12.5 percent", "12.5%")
    assert _stated_otherwise(eighth, "12.5 of the wages") is None


def test_words_marked_text_only_that_state_an_amount_are_warned_of(
    tmp_path: Path, encoding_source: str
) -> None:
    # The duty of (c)(1)(r) sets no amount; the sentence of (c)(2) before it does ($15 an
    # hour, 120 percent of the minimum wage): marked text only, its rule would go unwritten.
    variant = write_variant(
        tmp_path,
        encoding_source,
        'text_only "a duty of the authority in administering the bonus: it sets no amount"',
        'text_only "a duty of the authority in administering the bonus: it sets no amount"\n'
        '      "$15 per hour or 120 percent" text_only "mistaken"',
    )
    analysis = analyse(variant)
    warnings = [d for d in analysis.diagnostics if d.severity == "warning"]
    assert [d.message for d in warnings if "text only" in d.message] == [
        "the words of (c)(1)(r) marked text only state $15, 120 percent"
    ], [d.render(analysis.source) for d in analysis.diagnostics]
    untouched = analyse(BUNDLED)
    assert not [d for d in untouched.diagnostics if "text only" in d.message]


def test_an_unknown_reading_is_pointed_at_itself(tmp_path: Path, encoding_source: str) -> None:
    variant = write_variant(
        tmp_path,
        encoding_source,
        "rule per_job_new: money = 100% * net_amount(covered: false) reading I17;",
        "rule per_job_new: money = 100% * net_amount(covered: false) reading I71;",
    )
    (message,) = messages(variant)
    first, source_line, caret = message.splitlines()[:3]
    column = int(first.split(":")[2])
    assert source_line.split("| ", 1)[1][column - 1 :].startswith("I71;")
    assert caret.strip() == "^^^"


def test_the_dependency_graph_is_kept_while_the_definitions_stay_the_same() -> None:
    from lextrace.dsl.checker import dependencies

    statute = load(BUNDLED)
    graph = dependencies(statute)
    assert dependencies(statute) is graph  # kept
    statute.definitions["copy_of_annual_credit"] = statute.definitions["annual_credit"]
    again = dependencies(statute)
    assert again is not graph and again["copy_of_annual_credit"] == graph["annual_credit"]
    other = load(BUNDLED)
    assert dependencies(other) is not again and "copy_of_annual_credit" not in dependencies(other)


def write_loss_statute(folder: Path, bound: str) -> Path:
    """Writes a statute whose money input `income` is bounded `bound`; its one result is 10
    percent of the income, never below $0."""
    income = f'input income: money required {bound} "the income, a loss below zero"'
    words = "The credit is 10 percent of the income."
    rule = "rule credit: money = max(10% * income, $0);"
    return write_section_statute(folder, "loss", [income], "credit", [(words, rule)])


def test_a_bound_may_be_below_zero_and_holds_on_every_path(tmp_path: Path) -> None:
    path = write_loss_statute(tmp_path, "min -$10,000,000 max $100,000,000")
    assert messages(path) == []
    statute = load_statute(path)
    assert statute.evaluate({"income": "-5000"}).amount("credit") == 0
    with pytest.raises(ScenarioError) as refused:
        statute.evaluate({"income": "-10000000.01"})
    assert refused.value.problems[0].expected == "an amount of money at least -$10,000,000"
    # The columnar path keeps the same bound.
    table = statute.evaluate_many([{"income": "-10000000"}, {"income": "-10000000.01"}])
    assert table.column("credit").to_pylist()[0] == 0
    assert table.column("error").to_pylist()[0] is None and table.column("error")[1].is_valid
    # A date or a yes or no has no sign.
    dated = write_loss_statute(tmp_path, "min -2024-01-01")
    assert any("2024-01-01 has no sign" in m for m in messages(dated)), messages(dated)
