"""Boundary tests of every clause of N.J.S.A. 34:1B-343.

Each case states its expected value explicitly (derived from the statute and the interpretation
register); the evaluator must give it, and the independent oracle of ``tests/oracle.py`` must give
it too (a cross-check of the expectation itself).

Unless a case says otherwise the scenario is the plain one of :data:`REQUIRED`: 10 new jobs in an
"other eligible area" ((b)(5): base $500, cap (d)(5) $3,000), project median equal to the county
median (no (c)(1)(f) bonus, no (e) reduction) and a lowest wage of $20.00 above the (c)(2) floor of
max($15, 1.2 x $15.92 = $19.104). So ``per_job_new == 500 + the bonuses under test``.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from oracle import oracle

REQUIRED: dict[str, Any] = {
    "new_jobs": 10,
    "project_median_salary": "60000.00",
    "county_median_salary": "60000.00",
    "lowest_full_time_hourly_wage": "20.00",
    "state_minimum_wage": "15.92",
}

#: Bonuses worth $6,500 together, enough to reach every cap of (d):
#: (a) 1000 + (e) 500 + (h) 500 + (k) 1000 + (l) 500 + (n) 1000 + (r) 2000.
MANY_BONUSES: dict[str, Any] = {
    "mri_distress_score": 75,
    "small_business": True,
    "targeted_industry": True,
    "child_care": True,
    "reentry_partnership_hire": True,
    "college_collaboration": True,
    "board_underrepresented_share": "1/2",
}


def sc(**facts: Any) -> dict[str, Any]:
    """The plain scenario of :data:`REQUIRED` with ``facts`` added or overriding it."""
    return {**REQUIRED, **facts}


@pytest.fixture(scope="module")
def statute() -> Any:
    """The bundled encoding of N.J.S.A. 34:1B-343, loaded once."""
    from lextrace import load_statute

    return load_statute()


def check(
    statute: Any,
    scenario: dict[str, Any],
    expected: dict[str, Any],
    i8: str = "covered-jobs",
) -> None:
    """Assert that the evaluator and the oracle both give ``expected`` (a subset of the keys)."""
    readings = None if i8 == "covered-jobs" else {"I8": i8}
    got = statute.evaluate(scenario, readings=readings).values
    reference = oracle(scenario, i8=i8)
    for key, value in expected.items():
        assert reference[key] == value, f"oracle disagrees with the stated expectation on {key}"
        assert got[key] == value, f"{key}: evaluator gave {got[key]!r}, expected {value!r}"


def check_new(statute: Any, scenario: dict[str, Any], per_job_new: Any) -> None:
    """Assert the per-new-job amount (uncovered group) only."""
    check(statute, scenario, {"per_job_new": Fraction(per_job_new)})


# --- (b), (d), I1: area tier, base and cap -------------------------------------------------------


@pytest.mark.parametrize(
    ("facts", "tier", "base"),
    [
        (
            {"government_restricted_municipality": True, "municipality_median_salary": "60000"},
            "b1",
            4000,
        ),
        ({"mega_project": True}, "b1", 4000),
        ({"enhanced_area": True}, "b2", 3500),
        ({"distressed_municipality": True}, "b3", 3000),
        ({"employment_investment_corridor": True}, "b4", 2500),
        ({}, "b5", 500),
        # I1: the first tier whose condition holds governs.
        (
            {"mega_project": True, "enhanced_area": True, "distressed_municipality": True},
            "b1",
            4000,
        ),
        (
            {
                "enhanced_area": True,
                "distressed_municipality": True,
                "employment_investment_corridor": True,
            },
            "b2",
            3500,
        ),
        ({"distressed_municipality": True, "employment_investment_corridor": True}, "b3", 3000),
    ],
)
def test_area_tier_and_base(statute: Any, facts: dict[str, Any], tier: str, base: int) -> None:
    """(b)(1)..(b)(5): the base amount of the area tier."""
    check(statute, sc(**facts), {"area_tier": tier, "per_job_new": Fraction(base)})


def test_opportunity_zone_tier_and_bonus(statute: Any) -> None:
    """(b)(4) base $2,500 plus (c)(1)(q) $1,000 for a qualified opportunity zone."""
    check(
        statute,
        sc(qualified_opportunity_zone=True),
        {"area_tier": "b4", "per_job_new": Fraction(3500)},
    )


def test_distressed_opportunity_zone_keeps_tier_b3_and_q_bonus(statute: Any) -> None:
    """I1: a distressed municipality in an opportunity zone is b3 ($3,000), and (q) still adds."""
    check(
        statute,
        sc(distressed_municipality=True, qualified_opportunity_zone=True),
        {"area_tier": "b3", "per_job_new": Fraction(4000)},
    )


@pytest.mark.parametrize(
    ("facts", "cap"),
    [
        ({"mega_project": True}, 8000),  # (d)(1): 4000 + 6500 -> 8000
        ({"government_restricted_municipality": True, "municipality_median_salary": "60000"}, 8000),
        ({"enhanced_area": True}, 6000),  # (d)(2)
        ({"distressed_municipality": True}, 5000),  # (d)(3)
        ({"employment_investment_corridor": True}, 4000),  # (d)(4)
        ({}, 3000),  # (d)(5)
    ],
)
def test_cap_per_tier(statute: Any, facts: dict[str, Any], cap: int) -> None:
    """(d): the gross amount never exceeds the tier's cap; covered (j) jobs may go 1000 over."""
    scenario = sc(**facts, **MANY_BONUSES, labor_harmony_new_jobs=1)
    check(
        statute,
        scenario,
        {
            "per_job_new": Fraction(cap),
            "per_job_new_labor_harmony": Fraction(cap + 1000),
        },
    )


def test_cap_not_reached(statute: Any) -> None:
    """(d)(5): 500 + 2000 (r) = 2500 stays under the $3,000 cap."""
    check_new(statute, sc(board_underrepresented_share="1/2"), 2500)


# --- (c)(1)(a), I2: MRI distress score strictly greater than 50 ----------------------------------


@pytest.mark.parametrize(
    ("score", "per_job_new"),
    [(0, 500), (50, 500), ("50.00", 500), ("50.01", 1500), (51, 1500), (100, 1500)],
)
def test_mri_distress_score(statute: Any, score: Any, per_job_new: int) -> None:
    """(c)(1)(a): $1,000 only when the score is greater than 50."""
    check_new(statute, sc(mri_distress_score=score), per_job_new)


# --- (c)(1)(b), I3: capital investment in 40 % steps ---------------------------------------------

MINIMUM = "10000000.00"  # one 40 % step is $4,000,000


@pytest.mark.parametrize(
    ("investment", "bonus"),
    [
        ("0", 0),
        ("10000000.00", 0),  # equal to the minimum: not "in excess"
        ("13999999.99", 0),  # just under 1.4 x
        ("14000000.00", 500),  # exactly 1.4 x: one step
        ("17999999.99", 500),  # just under 1.8 x
        ("18000000.00", 1000),  # exactly 1.8 x: two steps
        ("21999999.99", 1000),
        ("22000000.00", 1500),  # 2.2 x: three steps = the $1,500 maximum
        ("26000000.00", 1500),  # 2.6 x: four steps, still $1,500
        ("100000000.00", 1500),
    ],
)
def test_investment_steps(statute: Any, investment: str, bonus: int) -> None:
    """(c)(1)(b): $500 per full 40 % of the minimum, at most $1,500 (other tiers)."""
    scenario = sc(industrial_rd_capital_investment=investment, minimum_capital_investment=MINIMUM)
    check_new(statute, scenario, 500 + bonus)


@pytest.mark.parametrize(
    ("facts", "investment", "per_job_new"),
    [
        # mega project: base 4000; the maximum is $5,000, so 4 steps give $2,000 (not $1,500)
        ({"mega_project": True}, "22000000.00", 5500),
        ({"mega_project": True}, "26000000.00", 6000),
        ({"mega_project": True}, "29999999.99", 6000),
        ({"mega_project": True}, "30000000.00", 6500),
        ({"mega_project": True}, "42000000.00", 8000),  # 8 steps $4,000: 8000, at the cap
        ({"mega_project": True}, "100000000.00", 8000),  # 22 steps -> $5,000 -> capped at 8000
        (
            {"government_restricted_municipality": True, "municipality_median_salary": "60000"},
            "26000000.00",
            6000,
        ),
    ],
)
def test_investment_maximum_mega_and_gov(
    statute: Any, facts: dict[str, Any], investment: str, per_job_new: int
) -> None:
    """(c)(1)(b): the $5,000 maximum for a mega project or a government-restricted municipality.

    Beyond $1,500 the bonus keeps growing; the $5,000 maximum itself never shows in an amount,
    since 4000 + 4000 already reaches the (d)(1) cap of 8000 (and 9000 for a covered job).
    """
    scenario = sc(
        **facts, industrial_rd_capital_investment=investment, minimum_capital_investment=MINIMUM
    )
    check_new(statute, scenario, per_job_new)


# --- (c)(1)(c), I4: large numbers of new jobs ----------------------------------------------------


@pytest.mark.parametrize(
    ("new_jobs", "bonus"),
    [
        (250, 0),
        (251, 500),
        (400, 500),
        (401, 750),
        (600, 750),
        (601, 1000),
        (800, 1000),
        (801, 1250),
        (1000, 1250),
        (1001, 1500),
        (5000, 1500),
    ],
)
def test_new_job_bands(statute: Any, new_jobs: int, bonus: int) -> None:
    """(c)(1)(c)(i)..(v): inclusive bands on the number of new full-time jobs."""
    check_new(statute, sc(new_jobs=new_jobs), 500 + bonus)


def test_job_band_counts_new_jobs_only(statute: Any) -> None:
    """(c)(1)(c) is about new jobs: 200 new + 300 retained jobs get no band bonus."""
    check_new(statute, sc(new_jobs=200, retained_jobs=300), 500)


# --- (c)(1)(d), I5: training ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("training", "within_10_miles", "bonus"),
    [(False, False, 0), (True, False, 500), (True, True, 1000), (False, True, 0)],
)
def test_training(statute: Any, training: bool, within_10_miles: bool, bonus: int) -> None:
    """(c)(1)(d): $500, or $1,000 when provided by a State institution within 10 miles."""
    scenario = sc(
        training_program=training, training_by_state_institution_within_10_miles=within_10_miles
    )
    check_new(statute, scenario, 500 + bonus)


# --- single-fact bonuses (e), (h), (i), (k), (l), (n) --------------------------------------------


@pytest.mark.parametrize(
    ("facts", "bonus"),
    [
        ({"small_business": True}, 500),  # (e)
        ({"targeted_industry": True}, 500),  # (h)
        ({"qualified_incubator_facility": True}, 500),  # (i)
        ({"child_care": True}, 1000),  # (k)
        ({"reentry_partnership_hire": True}, 500),  # (l)
        ({"college_collaboration": True}, 0),  # (n) needs a targeted industry (I10)
        ({"targeted_industry": True, "college_collaboration": True}, 1500),  # (h) + (n)
    ],
)
def test_single_fact_bonuses(statute: Any, facts: dict[str, Any], bonus: int) -> None:
    """(c)(1)(e), (h), (i), (k), (l), (n)."""
    check_new(statute, sc(**facts), 500 + bonus)


# --- (c)(1)(f), I6, I7: salary above the reference median ----------------------------------------


@pytest.mark.parametrize(
    ("project_median", "bonus"),
    [
        ("100000.00", 0),  # equal: not "in excess"
        ("134999.99", 0),  # just under 35 %
        ("135000.00", 200),  # exactly 35 %
        ("169999.99", 200),
        ("170000.00", 400),  # 70 %
        ("205000.00", 600),  # 105 %
        ("240000.00", 800),  # 140 %
        ("274999.99", 800),
        ("275000.00", 1000),  # 175 %: five steps, the $1,000 maximum
        ("310000.00", 1000),  # 210 %: six steps, still $1,000
        ("1000000.00", 1000),
    ],
)
def test_salary_steps(statute: Any, project_median: str, bonus: int) -> None:
    """(c)(1)(f): $200 per full 35 % above the county median, at most $1,000."""
    scenario = sc(project_median_salary=project_median, county_median_salary="100000.00")
    check_new(statute, scenario, 500 + bonus)


def test_salary_reference_is_municipality_when_gov_restricted(statute: Any) -> None:
    """I6: in a government-restricted municipality the reference is the municipality median.

    67,500 is 35 % above the municipality's 50,000 (+$200) although it is 32.5 % below the county's
    100,000 (which would have meant no credit at all).
    """
    scenario = sc(
        government_restricted_municipality=True,
        project_median_salary="67500.00",
        county_median_salary="100000.00",
        municipality_median_salary="50000.00",
    )
    check(statute, scenario, {"area_tier": "b1", "per_job_new": Fraction(4200)})


def test_municipality_median_ignored_outside_gov_restricted(statute: Any) -> None:
    """I6: outside a government-restricted municipality the county median is the reference."""
    scenario = sc(
        project_median_salary="67500.00",
        county_median_salary="50000.00",
    )
    check_new(statute, scenario, 700)


# --- (e), I15, I16: shortfall below the reference median -----------------------------------------


@pytest.mark.parametrize(
    ("project_median", "per_job_new"),
    [
        ("100000.00", Fraction(2000)),  # no shortfall
        ("99999.99", Fraction(2000) * (1 - Fraction(1, 10_000_000))),  # 0.00001 %
        ("85000.00", Fraction(1700)),  # 15 %: 2000 * 0.85
        ("70000.01", Fraction(2000) * Fraction(7_000_001, 10_000_000)),  # just under 30 %
        ("70000.00", Fraction(0)),  # exactly 30 %: no credit
        ("50000.00", Fraction(0)),  # 50 %
    ],
)
def test_salary_shortfall(statute: Any, project_median: str, per_job_new: Fraction) -> None:
    """(e): reduction by the shortfall in percentage points; none at all from 30 % on.

    Gross = 500 (b)(5) + 1000 (k) child care + 500 (e) small business = 2000.
    """
    scenario = sc(
        project_median_salary=project_median,
        county_median_salary="100000.00",
        child_care=True,
        small_business=True,
    )
    check_new(statute, scenario, per_job_new)


def test_shortfall_applies_after_cap(statute: Any) -> None:
    """I15: the cap first, then the reduction: min(500 + 6500, 3000) * 0.9 = 2700 (not 6300)."""
    scenario = sc(**MANY_BONUSES, project_median_salary="54000.00")
    check_new(statute, scenario, 2700)


def test_thirty_percent_zeroes_every_amount(statute: Any) -> None:
    """(e): at 30 % below, every amount (both groups, totals, period) is zero."""
    scenario = sc(
        distressed_municipality=True,
        new_jobs=100,
        retained_jobs=40,
        labor_harmony_new_jobs=10,
        labor_harmony_retained_jobs=5,
        project_median_salary="42000.00",
        board_approved_annual_limit="1000.00",
    )
    zero = Fraction(0)
    check(
        statute,
        scenario,
        {
            "area_tier": "b3",
            "per_job_new": zero,
            "per_job_new_labor_harmony": zero,
            "per_job_retained": zero,
            "per_job_retained_labor_harmony": zero,
            "annual_total_before_limit": zero,
            "annual_credit": zero,
            "eligibility_period_total": zero,
        },
    )


# --- (c)(2), I13: the wage floor -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("minimum_wage", "lowest", "bonuses_awarded"),
    [
        ("12.00", "15.00", True),  # floor max(15, 14.40) = 15.00: exactly at it
        ("12.00", "14.99", False),  # one cent under
        ("12.00", "15.01", True),
        ("12.50", "15.00", True),  # 1.2 x 12.50 = 15.00 exactly: both equal
        ("12.50", "14.99", False),
        ("15.92", "19.104", True),  # floor max(15, 19.104) = 19.104: exactly at it
        ("15.92", "19.094", False),  # one cent under
        ("15.92", "19.10", False),  # the cent amount just under 19.104
        ("15.92", "19.11", True),
        ("15.92", "15.00", False),  # $15 is not enough when 1.2 x minimum is higher
    ],
)
def test_wage_floor(statute: Any, minimum_wage: str, lowest: str, bonuses_awarded: bool) -> None:
    """(c)(2): no bonus at all (not even (j)) below max($15, 120 % of the minimum wage).

    Facts: (e) small business $500 and one covered job. Awarded: uncovered 500 + 500 = 1000,
    covered 500 + 500 + 2000 = 3000. Not awarded: both 500 (base only, cap not raised).
    """
    scenario = sc(
        state_minimum_wage=minimum_wage,
        lowest_full_time_hourly_wage=lowest,
        small_business=True,
        labor_harmony_new_jobs=1,
    )
    expected = (
        {"per_job_new": Fraction(1000), "per_job_new_labor_harmony": Fraction(3000)}
        if bonuses_awarded
        else {"per_job_new": Fraction(500), "per_job_new_labor_harmony": Fraction(500)}
    )
    check(statute, scenario, expected)


def test_wage_floor_keeps_base_in_every_tier(statute: Any) -> None:
    """(c)(2): the base still applies: a mega project paying $14 keeps $4,000, no bonus."""
    scenario = sc(mega_project=True, lowest_full_time_hourly_wage="14.00", **MANY_BONUSES)
    check_new(statute, scenario, 4000)


# --- (c)(1)(m), I9: LEED and remediation ---------------------------------------------------------


@pytest.mark.parametrize(
    ("green", "remediation", "bonus"),
    [
        ("none", False, 0),
        ("none", True, 250),
        ("exceeds_silver", False, 250),
        ("exceeds_silver", True, 250),  # not cumulative
        ("exceeds_gold", False, 500),
        ("exceeds_gold", True, 500),
    ],
)
def test_green_building(statute: Any, green: str, remediation: bool, bonus: int) -> None:
    """(c)(1)(m): $500 above Gold; otherwise $250 above Silver or with remediation."""
    scenario = sc(green_building=green, substantial_environmental_remediation=remediation)
    check_new(statute, scenario, 500 + bonus)


# --- (c)(1)(o), (r), I11: shares compared exactly ------------------------------------------------


@pytest.mark.parametrize(
    ("share", "bonus"),
    [("0", 0), ("499/1000", 0), ("1/2", 500), ("500/1000", 500), ("501/1000", 500), ("1", 500)],
)
def test_renewable_share(statute: Any, share: str, bonus: int) -> None:
    """(c)(1)(o): at least 50 % of the electric supply needs."""
    check_new(statute, sc(onsite_renewable_share=share), 500 + bonus)


@pytest.mark.parametrize(
    ("share", "bonus"),
    [("0", 0), ("333/1000", 0), ("3333/10000", 0), ("1/3", 2000), ("2/6", 2000), ("1/2", 2000)],
)
def test_board_share(statute: Any, share: str, bonus: int) -> None:
    """(c)(1)(r): one-third or more of the governing board, compared exactly."""
    check_new(statute, sc(board_underrepresented_share=share), 500 + bonus)


# --- (c)(1)(p), I12: marine terminal -------------------------------------------------------------


@pytest.mark.parametrize(
    ("facts", "tier", "per_job_new"),
    [
        ({"marine_terminal_project": True, "south_jersey_port_district": True}, "b5", 2000),
        ({"marine_terminal_project": True}, "b5", 500),  # outside the port district
        ({"south_jersey_port_district": True}, "b5", 500),  # not a marine terminal
        # inside the port district but in a government-restricted municipality: no (p)
        (
            {
                "marine_terminal_project": True,
                "south_jersey_port_district": True,
                "government_restricted_municipality": True,
                "municipality_median_salary": "60000",
            },
            "b1",
            4000,
        ),
        # a mega project outside a government-restricted municipality keeps (p)
        (
            {
                "marine_terminal_project": True,
                "south_jersey_port_district": True,
                "mega_project": True,
            },
            "b1",
            5500,
        ),
    ],
)
def test_marine_terminal(statute: Any, facts: dict[str, Any], tier: str, per_job_new: int) -> None:
    """(c)(1)(p): marine terminal in the South Jersey Port District, not government-restricted."""
    check(statute, sc(**facts), {"area_tier": tier, "per_job_new": Fraction(per_job_new)})


# --- (c)(1)(j), (d), I8: labor harmony groups ----------------------------------------------------

# b5 with (k) 1000 + (r) 2000: uncovered 500 + 3000 = 3500 (over the plain cap of 3000),
# covered 500 + 3000 + 2000 = 5500 -> cap 3000 + 1000 = 4000.
LH_BONUSES: dict[str, Any] = {"child_care": True, "board_underrepresented_share": "1/3"}


def test_labor_harmony_covered_jobs(statute: Any) -> None:
    """I8 covered-jobs: uncovered jobs keep the plain cap; covered jobs get +2000 and cap + 1000."""
    scenario = sc(
        **LH_BONUSES,
        new_jobs=10,
        labor_harmony_new_jobs=4,
        retained_jobs=6,
        labor_harmony_retained_jobs=2,
    )
    check(
        statute,
        scenario,
        {
            "per_job_new": Fraction(3000),
            "per_job_new_labor_harmony": Fraction(4000),
            "per_job_retained": Fraction(1500),
            "per_job_retained_labor_harmony": Fraction(2000),
            # 3000*6 + 4000*4 + 1500*4 + 2000*2 = 18000 + 16000 + 6000 + 4000
            "annual_total_before_limit": Fraction(44000),
        },
    )


def test_labor_harmony_business_wide(statute: Any) -> None:
    """I8 business-wide: uncovered jobs of a business receiving (j) may use cap + 1000 too."""
    scenario = sc(
        **LH_BONUSES,
        new_jobs=10,
        labor_harmony_new_jobs=4,
        retained_jobs=6,
        labor_harmony_retained_jobs=2,
    )
    check(
        statute,
        scenario,
        {
            "per_job_new": Fraction(3500),
            "per_job_new_labor_harmony": Fraction(4000),
            "per_job_retained": Fraction(1750),
            "per_job_retained_labor_harmony": Fraction(2000),
            # 3500*6 + 4000*4 + 1750*4 + 2000*2 = 21000 + 16000 + 7000 + 4000
            "annual_total_before_limit": Fraction(48000),
        },
        i8="business-wide",
    )


def test_business_wide_through_covered_retained_jobs_only(statute: Any) -> None:
    """I8 business-wide: covered retained jobs alone make the business receive (j)."""
    scenario = sc(**LH_BONUSES, new_jobs=10, retained_jobs=6, labor_harmony_retained_jobs=1)
    check(statute, scenario, {"per_job_new": Fraction(3500)}, i8="business-wide")
    check(statute, scenario, {"per_job_new": Fraction(3000)}, i8="covered-jobs")


def test_business_wide_without_covered_jobs(statute: Any) -> None:
    """I8 business-wide: no covered job means no (j) bonus, so the plain cap stays."""
    scenario = sc(**LH_BONUSES, new_jobs=10)
    check(
        statute,
        scenario,
        {
            "per_job_new": Fraction(3000),
            # the covered group's amount is still stated (it multiplies 0 jobs)
            "per_job_new_labor_harmony": Fraction(4000),
            "annual_total_before_limit": Fraction(30000),
        },
        i8="business-wide",
    )


def test_business_wide_below_wage_floor(statute: Any) -> None:
    """(c)(2) + I8 business-wide: below the wage floor there is no (j) and no raised cap."""
    scenario = sc(
        **LH_BONUSES, new_jobs=10, labor_harmony_new_jobs=5, lowest_full_time_hourly_wage="18.00"
    )
    check(
        statute,
        scenario,
        {
            "per_job_new": Fraction(500),
            "per_job_new_labor_harmony": Fraction(500),
            "annual_total_before_limit": Fraction(5000),
        },
        i8="business-wide",
    )


def test_covered_cap_raise_is_at_most_1000(statute: Any) -> None:
    """(j): the covered job may exceed the cap by no more than $1,000 (mega: 8000 -> 9000)."""
    scenario = sc(mega_project=True, **MANY_BONUSES, labor_harmony_new_jobs=10)
    check(
        statute,
        scenario,
        {
            "per_job_new_labor_harmony": Fraction(9000),
            "annual_total_before_limit": Fraction(90000),
        },
    )


def test_covered_job_under_cap_gets_full_2000(statute: Any) -> None:
    """(j): a covered job below the raised cap gets the whole $2,000: 500 + 2000 = 2500."""
    check(
        statute,
        sc(labor_harmony_new_jobs=3),
        {
            "per_job_new": Fraction(500),
            "per_job_new_labor_harmony": Fraction(2500),
            "annual_total_before_limit": Fraction(500 * 7 + 2500 * 3),
        },
    )


# --- (f), I17: new vs retained -------------------------------------------------------------------


def test_retained_is_half(statute: Any) -> None:
    """(f): 100 % per new job, 50 % per retained job; 30000/13-style odd amounts stay exact."""
    scenario = sc(
        distressed_municipality=True, new_jobs=3, retained_jobs=7, project_median_salary="55384.62"
    )
    # shortfall = (60000 - 55384.62) / 60000 = 4615.38 / 60000
    factor = 1 - Fraction("4615.38") / 60000
    check(
        statute,
        scenario,
        {
            "per_job_new": 3000 * factor,
            "per_job_retained": 1500 * factor,
            "annual_total_before_limit": 3000 * factor * 3 + 1500 * factor * 7,
        },
    )


# --- (g), I18: the board's annual limit ----------------------------------------------------------


@pytest.mark.parametrize(
    ("limit", "annual"),
    [
        (None, 5000),  # no limit given
        ("5000.01", 5000),  # above the total: does not bind
        ("5000.00", 5000),  # equal
        ("4999.99", Fraction("4999.99")),  # below: binds
        ("1200.50", Fraction("1200.50")),
        ("0", 0),
    ],
)
def test_board_limit(statute: Any, limit: Any, annual: Any) -> None:
    """(g): annual credit = min(annual total, board limit); the total before (g) is unchanged."""
    scenario = sc(board_approved_annual_limit=limit)
    check(
        statute,
        scenario,
        {
            "annual_total_before_limit": Fraction(5000),  # 10 jobs * 500
            "annual_credit": Fraction(annual),
            "eligibility_period_total": Fraction(annual) * 7,
        },
    )


# --- (a), I19: eligibility period ----------------------------------------------------------------


@pytest.mark.parametrize(("years", "total"), [(1, 5000), (7, 35000), (10, 50000)])
def test_eligibility_period(statute: Any, years: int, total: int) -> None:
    """(a): the annual credit for each year of the eligibility period (default 7)."""
    check(
        statute, sc(eligibility_period_years=years), {"eligibility_period_total": Fraction(total)}
    )


def test_eligibility_period_default_is_seven(statute: Any) -> None:
    """(a), I19: 7 years when the field is missing."""
    check(statute, sc(), {"eligibility_period_total": Fraction(35000)})
