"""Rates from the words (dsl/rates.py): an amount per hour never meets one per year, and a number
the words state "per hour" is only met with hourly amounts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import EXAMPLES, lextrace_command, write_variant

from lextrace import load_statute
from lextrace.dsl import rates
from lextrace.dsl.parser import parse_encoding
from lextrace.statute import BUNDLED


def findings(source: str) -> list[tuple[int, str]]:
    """Returns the line and message of every rate finding of an encoding's text."""
    statute, _ = parse_encoding(source, str(BUNDLED))
    return [(f.span.line, f.message) for f in rates.findings(statute)]


def line_of(source: str, text: str) -> int:
    return source[: source.index(text)].count("\n") + 1


def test_the_bundled_statute_states_its_hourly_and_yearly_amounts_and_mixes_none(
    encoding_source: str,
) -> None:
    assert "input lowest_full_time_hourly_wage: money per hour" in encoding_source
    assert "input county_median_salary: money per year" in encoding_source
    assert findings(encoding_source) == []


@pytest.mark.parametrize(
    ("old", "new", "said"),
    [
        # The wage floor compared with the annual median salary instead of the lowest wage.
        (
            "lowest_full_time_hourly_wage >= wage_floor reading I13",
            "project_median_salary >= wage_floor reading I13",
            "meets an amount per year ('project_median_salary') with one per hour ('wage_floor')",
        ),
        # 120 percent of an annual salary taken as an hourly floor: "$15 per hour" meets it.
        (
            "max($15, 120% * state_minimum_wage)",
            "max($15, 120% * project_median_salary)",
            "the amount $15 in 'wage_floor' meets an amount per year, but the words of (c)(2) "
            "state it per hour",
        ),
        # The lowest hourly wage derived from the jobs' annual salaries.
        (
            "min of hourly_wage in full_time_jobs",
            "min of annual_salary in full_time_jobs",
            "'payroll_lowest_hourly_wage' is declared money per hour, but its value "
            "'min of annual_salary in full_time_jobs' is counted per year",
        ),
    ],
)
def test_an_amount_met_with_one_of_another_period_is_refused_at_its_line(
    encoding_source: str, old: str, new: str, said: str
) -> None:
    changed = encoding_source.replace(old, new, 1)
    assert changed != encoding_source
    found = findings(changed)
    assert any(line == line_of(changed, new) and said in m for line, m in found), found


def test_an_hourly_amount_the_words_state_is_refused_beside_a_yearly_one(
    encoding_source: str,
) -> None:
    # "(c)(2) ... that pay less than $15 per hour": the stated $15 compared with a salary.
    old = "lowest_full_time_hourly_wage >= $15"
    assert old in encoding_source
    changed = encoding_source.replace(old, "county_median_salary >= $15", 1)
    messages = [m for _, m in findings(changed)]
    assert any(
        "the amount $15" in m and "meets an amount per year" in m and "per hour" in m
        for m in messages
    ), messages
    # Marked reviewed, with its reason, the number is let through.
    reviewed = changed.replace(
        "implies bonuses_awarded reading I13;",
        'implies bonuses_awarded reading I13 reviewed $15 "a test";',
        1,
    )
    assert reviewed != changed
    assert not any("the amount $15" in m for _, m in findings(reviewed))


def test_check_refuses_a_mix_with_file_line_and_column_and_exits_2(
    tmp_path: Path, encoding_source: str
) -> None:
    variant = write_variant(
        tmp_path,
        encoding_source,
        "lowest_full_time_hourly_wage >= wage_floor reading I13",
        "project_median_salary >= wage_floor reading I13",
    )
    done = lextrace_command("check", "-e", str(variant))
    assert done.returncode == 2
    line = line_of(variant.read_text(encoding="utf-8"), "project_median_salary >= wage_floor")
    assert f"variant.lex:{line}:" in done.stderr and "per year" in done.stderr


def test_an_unknown_period_is_a_syntax_error_at_its_word(encoding_source: str) -> None:
    from lextrace.dsl.errors import EncodingError

    changed = encoding_source.replace("money per hour required", "money per fortnight required", 1)
    with pytest.raises(EncodingError) as caught:
        parse_encoding(changed, "variant.lex")
    assert caught.value.diagnostics[0].line == line_of(changed, "per fortnight")


def test_the_evaluator_and_the_proofs_take_an_hourly_amount_as_money(
    tmp_path: Path, encoding_source: str
) -> None:
    # The period is the checker's: without the declarations every result is the same.
    plain = encoding_source.replace(": money per hour", ": money").replace(
        ": money per year", ": money"
    )
    assert plain != encoding_source
    variant = write_variant(tmp_path, plain, "statute ", "statute ")
    without = load_statute(variant)
    bundled = load_statute()
    for example in sorted(EXAMPLES.glob("*.json")):
        scenario = json.loads(example.read_text(encoding="utf-8"))
        if not isinstance(scenario, dict) or "periods" in scenario:
            continue
        assert bundled.evaluate(scenario).values == without.evaluate(scenario).values, example
    assert (
        bundled.ast.inputs["state_minimum_wage"].type
        == without.ast.inputs["state_minimum_wage"].type
    )
