"""Scenario input: exact reading of JSON, YAML and TOML, and a clear refusal of bad fields."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from lextrace import ReadingError, ScenarioError, Statute, load_statute
from lextrace.dsl.scenario import read_scenario_file

BASE: dict[str, Any] = {
    "new_jobs": 10,
    "project_median_salary": "60000",
    "county_median_salary": "60000",
    "lowest_full_time_hourly_wage": "20.00",
    "state_minimum_wage": "15.92",
}


def refusal(statute: Statute, **changes: Any) -> str:
    """Returns the message with which the statute refuses BASE changed by `changes`
    (a value of `...` removes the field)."""
    scenario = {**BASE, **changes}
    scenario = {k: v for k, v in scenario.items() if v is not ...}
    with pytest.raises(ScenarioError) as caught:
        statute.evaluate(scenario)
    return caught.value.render()


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"new_jobs": ...}, ["field 'new_jobs'", "expected a whole number", "missing"]),
        ({"new_job": 3}, ["field 'new_job'", "unknown field", "did you mean 'new_jobs'?"]),
        # A word of a longer name, too far from it in spelling for difflib alone.
        ({"zone": True}, ["field 'zone'", "did you mean 'qualified_opportunity_zone'?"]),
        ({"corridor": True}, ["did you mean 'employment_investment_corridor'?"]),
        ({"new_jobs": -3}, ["field 'new_jobs'", "at least 0", "given -3"]),
        ({"new_jobs": True}, ["field 'new_jobs'", "whole number", "given true"]),
        ({"new_jobs": "12"}, ["field 'new_jobs'", "whole number", 'given "12"']),
        ({"retained_jobs": 2.5}, ["field 'retained_jobs'", "whole number", "given 2.5"]),
        (
            {"project_median_salary": "sixty"},
            ["field 'project_median_salary'", "amount of money", 'given "sixty"'],
        ),
        ({"project_median_salary": "0"}, ["field 'project_median_salary'", "more than $0"]),
        ({"county_median_salary": None}, ["field 'county_median_salary'", "given null"]),
        (
            {"onsite_renewable_share": "3/2"},
            ["field 'onsite_renewable_share'", "share from 0 to 1"],
        ),
        ({"onsite_renewable_share": "1/0"}, ["non-zero denominator"]),
        ({"board_underrepresented_share": 1.01}, ["field 'board_underrepresented_share'"]),
        (
            {"labor_harmony_new_jobs": 11},
            ["field 'labor_harmony_new_jobs'", "at most new_jobs (= 10)", "given 11"],
        ),
        (
            {"government_restricted_municipality": True},
            [
                "field 'municipality_median_salary'",
                "required when government_restricted_municipality",
            ],
        ),
        (
            {"industrial_rd_capital_investment": "100"},
            [
                "field 'minimum_capital_investment'",
                "more than $0 when industrial_rd_capital_investment",
            ],
        ),
        ({"green_building": "gold"}, ["field 'green_building'", '"exceeds_gold"']),
        ({"mri_distress_score": 101}, ["field 'mri_distress_score'", "at most 100"]),
        ({"eligibility_period_years": 0}, ["field 'eligibility_period_years'", "at least 1"]),
        ({"small_business": "yes"}, ["field 'small_business'", "true or false"]),
        ({"state_minimum_wage": "1e999999"}, ["field 'state_minimum_wage'", 'given "1e999999"']),
    ],
)
def test_bad_fields_are_refused_by_name(
    statute: Statute, changes: dict[str, Any], words: list[str]
) -> None:
    message = refusal(statute, **changes)
    for word in words:
        assert word in message, message


def test_every_problem_is_reported_at_once(statute: Statute) -> None:
    message = refusal(statute, new_jobs=-1, small_business="no", foo=1)
    assert "'new_jobs'" in message and "'small_business'" in message and "'foo'" in message


def test_money_is_read_exactly_from_numbers_and_strings(statute: Statute) -> None:
    inputs = statute.validate(
        {
            **BASE,
            "project_median_salary": "65000.10",
            "onsite_renewable_share": "1/3",
            "mri_distress_score": "50.01",
        }
    )
    assert inputs["project_median_salary"] == Fraction(6500010, 100)
    assert inputs["onsite_renewable_share"] == Fraction(1, 3)
    assert inputs["mri_distress_score"] == Fraction(5001, 100)
    assert inputs["eligibility_period_years"] == 7  # the default of (a), I19


@pytest.mark.parametrize(
    ("name", "text"),
    [
        (
            "s.json",
            '{"new_jobs": 10, "project_median_salary": 60000.10,'
            ' "county_median_salary": 0.1e6, "lowest_full_time_hourly_wage": 20,'
            ' "state_minimum_wage": 15.92, "onsite_renewable_share": 0.1}',
        ),
        (
            "s.yaml",
            "new_jobs: 10\nproject_median_salary: 60000.10\ncounty_median_salary: 100000.0\n"
            "lowest_full_time_hourly_wage: 20\nstate_minimum_wage: 15.92\n"
            "onsite_renewable_share: 0.1\n",
        ),
        (
            "s.toml",
            "new_jobs = 10\nproject_median_salary = 60000.10\n"
            "county_median_salary = 100000.0\nlowest_full_time_hourly_wage = 20\n"
            "state_minimum_wage = 15.92\nonsite_renewable_share = 0.1\n",
        ),
    ],
)
def test_files_are_read_without_binary_floats(
    statute: Statute, tmp_path: Path, name: str, text: str
) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    inputs = statute.validate(read_scenario_file(path))
    assert inputs["project_median_salary"] == Fraction(6000010, 100)
    assert inputs["onsite_renewable_share"] == Fraction(1, 10)  # a float would not be exact
    assert inputs["state_minimum_wage"] == Fraction(1592, 100)


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"", ["an empty file"]),
        (b'{"new_jobs": 1,', ["valid JSON"]),
        (b"[1, 2]", ["a JSON object of fields", "a list"]),
        (b'{"new_jobs": NaN}', ["NaN is not a number"]),
        (b'{"new_jobs": Infinity}', ["Infinity is not a number"]),
        (b'{"new_jobs": "\xff"}', ["UTF-8", "offset"]),
    ],
)
def test_malformed_files_are_refused(
    statute: Statute, tmp_path: Path, content: bytes, words: list[str]
) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    with pytest.raises(ScenarioError) as caught:
        statute.validate(read_scenario_file(path), str(path))
    for word in words:
        assert word in caught.value.render()


def test_unknown_reading_is_refused(statute: Statute) -> None:
    with pytest.raises(ReadingError, match="has no option 'everyone'"):
        statute.evaluate(BASE, {"I8": "everyone"})
    with pytest.raises(ReadingError, match="unknown reading 'I99'"):
        statute.evaluate(BASE, {"I99": "x"})


# ---- values a Python program holds -----------------------------------------------------------
def test_python_ints_decimals_fractions_and_numpy_values_are_read_exactly(
    statute: Statute,
) -> None:
    from decimal import Decimal

    import numpy as np

    as_text = statute.evaluate({**BASE, "targeted_industry": True, "retained_jobs": 4}).values
    held = {
        **BASE,
        "new_jobs": np.int64(10),
        "retained_jobs": np.uint8(4),
        "targeted_industry": np.bool_(True),
        "project_median_salary": Decimal("60000.00"),
        "county_median_salary": 60000,
        "lowest_full_time_hourly_wage": Fraction(20),
        "state_minimum_wage": Decimal("15.92"),
    }
    assert statute.evaluate(held).values == as_text


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("lowest_full_time_hourly_wage", 19.1, "19.1 is held as 19.1000000000000014"),
        ("lowest_full_time_hourly_wage", 19.5, 'holds its decimal exactly: pass "19.5"'),
        ("new_jobs", 300.0, "refused even when whole: pass the int 300"),
    ],
)
def test_a_binary_float_is_refused_saying_why_and_what_to_pass(
    statute: Statute, field: str, value: float, said: str
) -> None:
    message = refusal(statute, **{field: value})
    assert f"field '{field}'" in message and f"given {value!r}" in message
    assert said in message and "Decimal" in message


def test_a_decimal_that_is_not_a_finite_amount_is_refused(statute: Statute) -> None:
    from decimal import Decimal

    for value in (Decimal("NaN"), Decimal("Infinity"), Decimal("1E+40")):
        message = refusal(statute, project_median_salary=value)
        assert "field 'project_median_salary'" in message
        assert f"given {value}" in message and "type Decimal" not in message
    # A Decimal refused for its type's sake is shown by its digits too.
    assert refusal(statute, new_jobs=Decimal("3.5")).endswith("given 3.5")


def test_a_scenario_file_name_holding_a_nul_byte_is_refused_as_a_scenario_error(
    statute: Statute,
) -> None:
    # The operating system takes no such name (Python raises ValueError, not OSError): the
    # caller gets the scenario error every unreadable file gives, naming the file.
    for read in (read_scenario_file, statute.evaluate_file):
        with pytest.raises(ScenarioError) as refused:
            read(Path("scen\x00ario.json"))
        assert "'scen\\x00ario.json'" in str(refused.value)
        assert "a name holding a NUL byte" in str(refused.value)


def test_a_yaml_scenario_with_dates_is_written_as_json_that_reads_back_the_same() -> None:
    import json

    from lextrace.dsl.scenario import json_values, parse_text

    statute = load_statute(Path(__file__).parent.parent / "statute" / "catala-tutorial-tax.lex")
    text = (
        "current_date: 1999-01-01\noverseas_territories: false\nindividuals:\n"
        "  - {income: 15000.50, number_of_children: 0}\n"
        "  - {income: 80000, number_of_children: 2}\n"
    )
    read = parse_text(text, "yaml", "household.yaml")
    assert isinstance(read, dict)
    written = json.dumps(json_values(read))  # a date object would not be JSON
    assert '"current_date": "1999-01-01"' in written
    again = parse_text(written, "json", "household.json")
    assert isinstance(again, dict)
    assert statute.evaluate(again).to_dict() == statute.evaluate(read).to_dict()


def test_a_default_that_breaks_a_bound_is_said_to_be_a_missing_field(statute: Statute) -> None:
    # The minimum capital investment must be above $0 once an investment is given; left out,
    # its default, 0, breaks that: the message says the field is missing.
    message = refusal(
        statute, industrial_rd_capital_investment="100", minimum_capital_investment=...
    )
    assert "field 'minimum_capital_investment'" in message
    assert message.endswith("given 0 (the field is missing, and its default breaks this)")
    given = refusal(statute, industrial_rd_capital_investment="100", minimum_capital_investment=0)
    assert given.endswith("given 0")


def test_a_missing_value_of_a_table_is_told_to_be_left_out(statute: Statute) -> None:
    import pandas as pd

    for missing, shown in ((pd.NA, "given pandas' <NA>"), (float("nan"), "given nan")):
        message = refusal(statute, retained_jobs=missing)
        assert shown in message, message
        assert message.endswith(
            "(a missing value: leave the field out of the scenario to take its default)"
        )
    with pytest.raises(ScenarioError) as refused:
        statute.evaluate(pd.Series({**BASE}))
    assert "pass row.to_dict()" in str(refused.value)
