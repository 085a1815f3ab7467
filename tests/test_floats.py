"""Binary floats in a scenario from Python: refused by default with a message that says why
and what to pass; read by their shortest round-trip decimal with floats="shortest", which the
result's provenance records."""

from __future__ import annotations

import copy
import json
from fractions import Fraction

import numpy as np
import pytest
from conftest import EXAMPLES

from lextrace import ScenarioError, load_statute

STATUTE = load_statute()
EXACT = {
    "new_jobs": 300,
    "project_median_salary": "59500",
    "county_median_salary": "70000",
    "lowest_full_time_hourly_wage": "19.1",
    "state_minimum_wage": "15.92",
    "onsite_renewable_share": "0.25",
    "distressed_municipality": True,
}
AS_FLOATS = {
    **EXACT,
    "new_jobs": 300.0,
    "project_median_salary": np.float64(59500.0),
    "lowest_full_time_hourly_wage": 19.1,
    "state_minimum_wage": np.float64(15.92),
    "onsite_renewable_share": np.float32(0.25),
}
FLOAT_FIELDS = [
    "new_jobs",
    "project_median_salary",
    "lowest_full_time_hourly_wage",
    "state_minimum_wage",
    "onsite_renewable_share",
]


def _problems(scenario: dict[str, object], floats: str = "refuse") -> dict[str, object]:
    with pytest.raises(ScenarioError) as error:
        STATUTE.evaluate(scenario, floats=floats)
    return {p.field: p for p in error.value.problems}


def test_floats_are_refused_by_default_naming_each_field_and_the_way_out() -> None:
    problems = _problems(AS_FLOATS)
    assert sorted(problems) == sorted(FLOAT_FIELDS)
    wage = problems["lowest_full_time_hourly_wage"]
    assert wage.given == "19.1"
    assert "19.100000000000001421" in wage.hint and 'floats="shortest"' in wage.hint
    # numpy's floats are named by their own shortest text, not by their type's repr.
    assert problems["state_minimum_wage"].given == "15.92"
    assert problems["onsite_renewable_share"].given == "0.25"
    assert "holds its decimal exactly" in problems["onsite_renewable_share"].hint
    assert "pass the int 300" in problems["new_jobs"].hint


def test_shortest_reads_each_float_as_its_decimal_and_agrees_with_the_exact_scenario() -> None:
    exact = STATUTE.evaluate(EXACT)
    read = STATUTE.evaluate(AS_FLOATS, floats="shortest")
    assert read.values == exact.values
    assert read.inputs["lowest_full_time_hourly_wage"] == Fraction(191, 10)
    assert read.inputs["onsite_renewable_share"] == Fraction(1, 4)
    assert read.inputs["new_jobs"] == 300 and type(read.inputs["new_jobs"]) is int
    assert read.from_floats == tuple(f for f in STATUTE.ast.inputs if f in FLOAT_FIELDS)
    provenance = read.to_dict()["provenance"]
    assert provenance == {"floats": "shortest", "fields_from_floats": list(read.from_floats)}
    assert "provenance" not in exact.to_dict()
    assert "provenance" not in STATUTE.evaluate(EXACT, floats="shortest").to_dict()


def test_shortest_is_the_round_trip_text_not_the_binary_value() -> None:
    read = STATUTE.evaluate({**EXACT, "state_minimum_wage": 0.1 + 0.2}, floats="shortest")
    assert read.inputs["state_minimum_wage"] == Fraction("0.30000000000000004")
    read = STATUTE.evaluate({**EXACT, "state_minimum_wage": np.float32(15.92)}, floats="shortest")
    assert read.inputs["state_minimum_wage"] == Fraction("15.92")


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("new_jobs", 300.5, "read by its shortest decimal, 300.5"),
        ("new_jobs", float("nan"), "a NaN or an infinity"),
        ("state_minimum_wage", float("inf"), "a NaN or an infinity"),
        ("onsite_renewable_share", 1.5, "read by its shortest decimal, 1.5"),
    ],
)
def test_shortest_still_refuses_what_the_field_cannot_hold(
    field: str, value: float, words: str
) -> None:
    problems = _problems({**EXACT, field: value}, floats="shortest")
    assert list(problems) == [field]
    assert words in (problems[field].hint or "") or words in problems[field].expected


def test_an_unknown_way_of_reading_floats_is_an_error() -> None:
    with pytest.raises(ValueError, match="floats must be one of refuse, shortest"):
        STATUTE.evaluate(EXACT, floats="nearest")


def test_a_period_scenario_names_the_floats_by_their_paths() -> None:
    path = EXAMPLES / "eligibility-period" / "minimum-wage-withdraws-bonuses.json"
    scenario = json.loads(path.read_text(encoding="utf-8"))
    spoiled = copy.deepcopy(scenario)
    spoiled["county_median_salary"] = 60000.0
    job = spoiled["eligibility_period"][1]["full_time_jobs"][0]
    job["hourly_wage"] = float(job["hourly_wage"])
    read = STATUTE.evaluate(spoiled, floats="shortest")
    assert read.to_dict()["years"] == STATUTE.evaluate(scenario).to_dict()["years"]
    assert read.to_dict()["provenance"]["fields_from_floats"] == [
        "county_median_salary",
        "eligibility_period[1].full_time_jobs[0].hourly_wage",
    ]
    with pytest.raises(ScenarioError):
        STATUTE.evaluate(spoiled)
