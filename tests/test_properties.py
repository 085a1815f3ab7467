"""Hypothesis property tests of the evaluator of N.J.S.A. 34:1B-343.

The central property: on every valid scenario the evaluator equals the independent oracle of
``tests/oracle.py`` exactly, on every result key, under both readings of I8. The others are
consequences of the statute that hold whatever the facts: more new jobs never lower the annual
credit, a bonus fact never lowers the per-job amount, a retained job is worth exactly half a new
one (f), and no binary float appears anywhere in a result (I20).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import MONEY_KEYS, oracle

READINGS = ("covered-jobs", "business-wide")
RESULT_KEYS: tuple[str, ...] = ("area_tier", *MONEY_KEYS)

#: Boolean facts that can only add to the per-job amount when turned on: bonus facts of (c)(1)
#: and the area facts whose tier has a base and a cap at least as high as any lower tier.
#: government_restricted_municipality is left out on purpose: it changes the reference median
#: (I6), so it can lower the amount through (e).
MONOTONE_FLAGS: tuple[str, ...] = (
    "mega_project",
    "enhanced_area",
    "distressed_municipality",
    "qualified_opportunity_zone",  # (b)(4) tier over (b)(5) and the (q) bonus
    "employment_investment_corridor",
    "training_program",
    "training_by_state_institution_within_10_miles",
    "small_business",
    "targeted_industry",
    "qualified_incubator_facility",
    "child_care",
    "reentry_partnership_hire",
    "substantial_environmental_remediation",
    "college_collaboration",
    "marine_terminal_project",
    "south_jersey_port_district",
)


def money(cents: int) -> str:
    """Format a whole number of cents as a decimal money string, e.g. 6500050 -> "65000.50"."""
    return f"{cents // 100}.{cents % 100:02d}"


def money_value(low: int, high: int) -> st.SearchStrategy[Any]:
    """Money between ``low`` and ``high`` dollars: a 2-decimal string, or sometimes a plain int."""
    return st.one_of(
        st.integers(low * 100, high * 100).map(money),
        st.integers(low, high),
    )


@st.composite
def shares(draw: st.DrawFn) -> str:
    """A share in [0, 1] as an "n/d" string, biased towards the 1/3 and 1/2 thresholds."""
    special = ["0", "1", "1/3", "1/2", "333/1000", "499/1000", "2/6", "3/6"]
    if draw(st.booleans()):
        return draw(st.sampled_from(special))
    d = draw(st.integers(1, 12))
    n = draw(st.integers(0, d))
    return f"{n}/{d}"


@st.composite
def scenarios(draw: st.DrawFn) -> dict[str, Any]:
    """A valid scenario with every field of scenario-format.md, consistent across fields."""
    gov = draw(st.booleans())
    new_jobs = draw(
        st.one_of(
            st.integers(0, 1300),
            st.sampled_from([0, 250, 251, 400, 401, 600, 601, 800, 801, 1000, 1001]),
        )
    )
    retained_jobs = draw(st.integers(0, 400))
    county_cents = draw(st.integers(30_000_00, 150_000_00))
    # project median around the county median: shortfalls over and under 30 %, salary steps of 35 %
    ratio = draw(st.fractions(Fraction(1, 2), Fraction(4), max_denominator=200))
    project_cents = max(1, int(county_cents * ratio))
    if draw(st.booleans()):
        project_cents = county_cents  # exactly the median
    minimum_wage = draw(st.sampled_from(["12.00", "12.50", "14.13", "15.49", "15.92"]))
    floor = max(Fraction(15), Fraction(6, 5) * Fraction(minimum_wage))
    mills = int(floor * 1000)  # the floor has at most 3 decimals (1.2 x a cent amount)
    assert mills == floor * 1000
    lowest = draw(
        st.one_of(
            st.integers(10_00, 30_00).map(money),
            # exactly at the floor, one cent under, one cent over
            st.sampled_from([mills, mills - 10, mills + 10]).map(
                lambda m: f"{m // 1000}.{m % 1000:03d}"
            ),
        )
    )
    invest = draw(st.booleans())
    minimum_cents = draw(st.integers(1_000_000_00, 100_000_000_00)) if invest else 0
    investment_cents = (
        int(minimum_cents * draw(st.fractions(0, 5, max_denominator=100))) if invest else 0
    )
    scenario: dict[str, Any] = {
        "government_restricted_municipality": gov,
        "mega_project": draw(st.booleans()),
        "enhanced_area": draw(st.booleans()),
        "distressed_municipality": draw(st.booleans()),
        "qualified_opportunity_zone": draw(st.booleans()),
        "employment_investment_corridor": draw(st.booleans()),
        "mri_distress_score": draw(
            st.one_of(st.integers(0, 100), st.sampled_from([50, 51, "50.00", "50.01", "49.99"]))
        ),
        "industrial_rd_capital_investment": money(investment_cents),
        "minimum_capital_investment": money(minimum_cents),
        "new_jobs": new_jobs,
        "retained_jobs": retained_jobs,
        "labor_harmony_new_jobs": draw(st.integers(0, new_jobs)),
        "labor_harmony_retained_jobs": draw(st.integers(0, retained_jobs)),
        "training_program": draw(st.booleans()),
        "training_by_state_institution_within_10_miles": draw(st.booleans()),
        "small_business": draw(st.booleans()),
        "project_median_salary": money(project_cents),
        "county_median_salary": money(county_cents),
        "targeted_industry": draw(st.booleans()),
        "qualified_incubator_facility": draw(st.booleans()),
        "child_care": draw(st.booleans()),
        "reentry_partnership_hire": draw(st.booleans()),
        "green_building": draw(st.sampled_from(["none", "exceeds_silver", "exceeds_gold"])),
        "substantial_environmental_remediation": draw(st.booleans()),
        "college_collaboration": draw(st.booleans()),
        "onsite_renewable_share": draw(shares()),
        "marine_terminal_project": draw(st.booleans()),
        "south_jersey_port_district": draw(st.booleans()),
        "board_underrepresented_share": draw(shares()),
        "lowest_full_time_hourly_wage": lowest,
        "state_minimum_wage": minimum_wage,
        "board_approved_annual_limit": draw(
            st.one_of(st.none(), money_value(0, 5_000_000), st.just("0.00"))
        ),
        "eligibility_period_years": draw(st.integers(1, 10)),
    }
    if gov:
        # the municipality median near the project median: (c)(1)(f) and (e) against it (I6)
        scenario["municipality_median_salary"] = money(
            max(1, int(project_cents * draw(st.fractions(Fraction(1, 4), 2, max_denominator=50))))
        )
    return scenario


@pytest.fixture(scope="module")
def statute() -> Any:
    """The bundled encoding of N.J.S.A. 34:1B-343, loaded once."""
    from lextrace import load_statute

    return load_statute()


def evaluate(statute: Any, scenario: dict[str, Any], i8: str) -> Any:
    """Evaluate ``scenario`` under I8 = ``i8`` (the default reading is passed as ``None``)."""
    readings = None if i8 == "covered-jobs" else {"I8": i8}
    return statute.evaluate(scenario, readings=readings)


def find_floats(value: Any, path: str = "$") -> list[str]:
    """Every path inside ``value`` (dicts, lists, tuples, attributes' dicts) holding a float."""
    if isinstance(value, float):
        return [path]
    if isinstance(value, dict):
        found: list[str] = []
        for key, item in value.items():
            found += find_floats(key, f"{path}.<key {key!r}>")
            found += find_floats(item, f"{path}.{key}")
        return found
    if isinstance(value, list | tuple | set | frozenset):
        found = []
        for i, item in enumerate(value):
            found += find_floats(item, f"{path}[{i}]")
        return found
    return []


def test_find_floats_sees_nested_floats() -> None:
    """The float finder itself: nested floats are found, exact values are not."""
    assert find_floats({"a": [1, {"b": 0.5}], "c": Fraction(1, 3), "d": "0.5"}) == ["$.a[1].b"]
    assert find_floats({"a": (1, 2.0)}) == ["$.a[1]"]


@given(scenarios())
@settings(max_examples=50, deadline=None)
def test_strategy_is_consistent(scenario: dict[str, Any]) -> None:
    """The generated scenarios respect the consistency rules of scenario-format.md."""
    assert 0 <= scenario["labor_harmony_new_jobs"] <= scenario["new_jobs"]
    assert 0 <= scenario["labor_harmony_retained_jobs"] <= scenario["retained_jobs"]
    if Fraction(scenario["industrial_rd_capital_investment"]) > 0:
        assert Fraction(scenario["minimum_capital_investment"]) > 0
    if scenario["government_restricted_municipality"]:
        assert Fraction(scenario["municipality_median_salary"]) > 0
    assert Fraction(scenario["project_median_salary"]) > 0
    assert not find_floats(scenario)
    for key in ("onsite_renewable_share", "board_underrepresented_share"):
        assert 0 <= Fraction(scenario[key]) <= 1


@given(scenarios(), st.sampled_from(READINGS))
@settings(max_examples=200, deadline=None)
def test_evaluator_equals_oracle(statute: Any, scenario: dict[str, Any], i8: str) -> None:
    """The evaluator and the independent oracle agree exactly on every result key."""
    got = evaluate(statute, scenario, i8).values
    expected = oracle(scenario, i8=i8)
    for key in RESULT_KEYS:
        assert got[key] == expected[key], f"{key} [{i8}]"


@given(scenarios(), st.integers(1, 400), st.sampled_from(READINGS))
@settings(max_examples=200, deadline=None)
def test_more_new_jobs_never_lower_annual_credit(
    statute: Any, scenario: dict[str, Any], extra: int, i8: str
) -> None:
    """Adding new full-time jobs never lowers the annual credit (nor the total before (g))."""
    before = evaluate(statute, scenario, i8).values
    after = evaluate(statute, {**scenario, "new_jobs": scenario["new_jobs"] + extra}, i8).values
    assert after["annual_credit"] >= before["annual_credit"]
    assert after["annual_total_before_limit"] >= before["annual_total_before_limit"]


@given(scenarios(), st.sampled_from(MONOTONE_FLAGS), st.sampled_from(READINGS))
@settings(max_examples=200, deadline=None)
def test_bonus_fact_never_lowers_per_job_amount(
    statute: Any, scenario: dict[str, Any], flag: str, i8: str
) -> None:
    """Turning on one bonus (or higher-tier area) fact never lowers a per-job amount."""
    off = evaluate(statute, {**scenario, flag: False}, i8).values
    on = evaluate(statute, {**scenario, flag: True}, i8).values
    for key in ("per_job_new", "per_job_new_labor_harmony"):
        assert on[key] >= off[key], f"{flag} lowered {key}"


@given(scenarios(), st.sampled_from(READINGS))
@settings(max_examples=200, deadline=None)
def test_mri_above_50_never_lowers_per_job_amount(
    statute: Any, scenario: dict[str, Any], i8: str
) -> None:
    """(c)(1)(a): a distress score above 50 never gives less than a score of 50."""
    low = evaluate(statute, {**scenario, "mri_distress_score": 50}, i8).values
    high = evaluate(statute, {**scenario, "mri_distress_score": "50.01"}, i8).values
    for key in ("per_job_new", "per_job_new_labor_harmony"):
        assert high[key] >= low[key]


@given(scenarios(), st.sampled_from(READINGS))
@settings(max_examples=200, deadline=None)
def test_opportunity_zone_never_lowers_per_job_amount(
    statute: Any, scenario: dict[str, Any], i8: str
) -> None:
    """(b)(4), (c)(1)(q): the opportunity-zone fact can change the tier (b5 -> b4) and add (q);

    either way it never lowers the per-job amount, and an other-eligible-area facility becomes b4.
    """
    off = evaluate(statute, {**scenario, "qualified_opportunity_zone": False}, i8).values
    on = evaluate(statute, {**scenario, "qualified_opportunity_zone": True}, i8).values
    assert on["per_job_new"] >= off["per_job_new"]
    if off["area_tier"] == "b5":
        assert on["area_tier"] == "b4"
    else:
        assert on["area_tier"] == off["area_tier"]


@given(scenarios(), st.sampled_from(READINGS))
@settings(max_examples=200, deadline=None)
def test_retained_is_exactly_half_of_new(statute: Any, scenario: dict[str, Any], i8: str) -> None:
    """(f): a retained job gets exactly 50 % of a new job's amount, in both groups."""
    values = evaluate(statute, scenario, i8).values
    assert values["per_job_retained"] * 2 == values["per_job_new"]
    assert values["per_job_retained_labor_harmony"] * 2 == values["per_job_new_labor_harmony"]


@given(scenarios(), st.sampled_from(READINGS))
@settings(max_examples=200, deadline=None)
def test_no_float_anywhere(statute: Any, scenario: dict[str, Any], i8: str) -> None:
    """I20: no binary float in result.values nor in result.to_dict() (trace included), anywhere."""
    result = evaluate(statute, scenario, i8)
    assert find_floats(dict(result.values)) == []
    shown = result.to_dict()
    assert find_floats(shown) == []
    readings = None if i8 == "covered-jobs" else {"I8": i8}
    traced = statute.evaluate(scenario, readings=readings, trace=True).to_dict()
    assert "trace" in traced
    assert find_floats(traced) == []
    assert {key: traced[key] for key in MONEY_KEYS} == {key: shown[key] for key in MONEY_KEYS}
    for key in MONEY_KEYS:
        assert isinstance(result.values[key], Fraction), key
        assert isinstance(shown[key], str), key


@given(scenarios(), st.sampled_from(READINGS))
@settings(max_examples=200, deadline=None)
def test_limits_hold(statute: Any, scenario: dict[str, Any], i8: str) -> None:
    """(d), (j), (g): no per-job amount above $9,000; the annual credit within the board limit."""
    values = evaluate(statute, scenario, i8).values
    for key in ("per_job_new", "per_job_new_labor_harmony"):
        assert 0 <= values[key] <= 9000
    assert values["annual_credit"] <= values["annual_total_before_limit"]
    limit = scenario["board_approved_annual_limit"]
    if limit is not None:
        assert values["annual_credit"] <= Fraction(str(limit))
    years = scenario["eligibility_period_years"]
    assert values["eligibility_period_total"] == values["annual_credit"] * years
