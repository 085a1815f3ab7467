"""Independent reference computation of N.J.S.A. 34:1B-343 (Emerge per-job tax credit).

Written from the statute text and the interpretation register (readings I1..I20) only, as the
test side's oracle. It deliberately shares no code with the evaluator: every number of the
statute is spelled out here, and all arithmetic is exact (``fractions.Fraction``, never float).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

__all__ = ["DEFAULTS", "MONEY_KEYS", "cents", "num", "oracle"]

#: Defaults of the optional scenario fields (scenario-format.md).
DEFAULTS: dict[str, Any] = {
    "government_restricted_municipality": False,
    "mega_project": False,
    "enhanced_area": False,
    "distressed_municipality": False,
    "qualified_opportunity_zone": False,
    "employment_investment_corridor": False,
    "mri_distress_score": 0,
    "industrial_rd_capital_investment": 0,
    "minimum_capital_investment": 0,
    "retained_jobs": 0,
    "labor_harmony_new_jobs": 0,
    "labor_harmony_retained_jobs": 0,
    "training_program": False,
    "training_by_state_institution_within_10_miles": False,
    "small_business": False,
    "municipality_median_salary": None,
    "targeted_industry": False,
    "qualified_incubator_facility": False,
    "child_care": False,
    "reentry_partnership_hire": False,
    "green_building": "none",
    "substantial_environmental_remediation": False,
    "college_collaboration": False,
    "onsite_renewable_share": 0,
    "marine_terminal_project": False,
    "south_jersey_port_district": False,
    "board_underrepresented_share": 0,
    "board_approved_annual_limit": None,
    "eligibility_period_years": 7,
}

#: The result keys that carry money (all except ``area_tier``).
MONEY_KEYS: tuple[str, ...] = (
    "per_job_new",
    "per_job_new_labor_harmony",
    "per_job_retained",
    "per_job_retained_labor_harmony",
    "annual_total_before_limit",
    "annual_credit",
    "eligibility_period_total",
)

# (b) base amount and (d) cap, by area tier (I1: one tier governs both).
BASE: dict[str, Fraction] = {
    "b1": Fraction(4000),
    "b2": Fraction(3500),
    "b3": Fraction(3000),
    "b4": Fraction(2500),
    "b5": Fraction(500),
}
CAP: dict[str, Fraction] = {
    "b1": Fraction(8000),
    "b2": Fraction(6000),
    "b3": Fraction(5000),
    "b4": Fraction(4000),
    "b5": Fraction(3000),
}


def num(value: Any) -> Fraction:
    """Read a scenario number exactly: int, decimal string, fraction string or Fraction.

    Never goes through a binary float: a float (as JSON may give) is read from its shortest
    decimal repr via ``str``. A bool is refused.
    """
    if isinstance(value, bool):
        raise TypeError(f"not a number: {value!r}")
    if isinstance(value, Fraction):
        return value
    return Fraction(str(value))


def cents(x: Fraction) -> str:
    """Round ``x`` half-up (away from zero on a tie) to the cent and format it: ``"4250.00"``."""
    hundredths = x * 100
    sign = -1 if hundredths < 0 else 1
    a = abs(hundredths)
    whole = a.numerator // a.denominator
    if a - whole >= Fraction(1, 2):
        whole += 1
    whole *= sign
    prefix = "-" if whole < 0 else ""
    whole = abs(whole)
    return f"{prefix}{whole // 100}.{whole % 100:02d}"


def _area_tier(s: dict[str, Any]) -> str:
    """I1: the first of (b)(1)..(b)(5) whose condition holds."""
    if s["government_restricted_municipality"] or s["mega_project"]:
        return "b1"
    if s["enhanced_area"]:
        return "b2"
    if s["distressed_municipality"]:
        return "b3"
    if s["qualified_opportunity_zone"] or s["employment_investment_corridor"]:
        return "b4"
    return "b5"


def _job_band_bonus(new_jobs: int) -> Fraction:
    """(c)(1)(c), I4: inclusive bands on the number of new full-time jobs."""
    if new_jobs > 1000:
        return Fraction(1500)
    if new_jobs >= 801:
        return Fraction(1250)
    if new_jobs >= 601:
        return Fraction(1000)
    if new_jobs >= 401:
        return Fraction(750)
    if new_jobs >= 251:
        return Fraction(500)
    return Fraction(0)


def oracle(scenario: dict[str, Any], i8: str = "covered-jobs") -> dict[str, Fraction | str]:
    """Compute the result keys of scenario-format.md for ``scenario`` under reading I8 = ``i8``."""
    if i8 not in ("covered-jobs", "business-wide"):
        raise ValueError(f"unknown I8 reading: {i8!r}")
    s: dict[str, Any] = {**DEFAULTS, **scenario}

    gov = bool(s["government_restricted_municipality"])
    mega = bool(s["mega_project"])
    new_jobs = int(s["new_jobs"])
    retained_jobs = int(s["retained_jobs"])
    lh_new = int(s["labor_harmony_new_jobs"])
    lh_retained = int(s["labor_harmony_retained_jobs"])

    # (b), (d), I1: area tier, base amount and cap.
    tier = _area_tier(s)
    base = BASE[tier]
    cap = CAP[tier]

    # I6: the reference median for (c)(1)(f) and (e).
    project_median = num(s["project_median_salary"])
    reference = num(s["municipality_median_salary" if gov else "county_median_salary"])

    # (c)(1) bonuses common to every job of the business.
    bonuses = Fraction(0)

    # (a), I2: MRI distress score strictly greater than 50.
    if num(s["mri_distress_score"]) > 50:
        bonuses += 1000

    # (b), I3: $500 per full 40 % of the minimum by which the investment exceeds the minimum.
    investment = num(s["industrial_rd_capital_investment"])
    minimum = num(s["minimum_capital_investment"])
    if investment > minimum:
        step = Fraction(40, 100) * minimum
        increments = (investment - minimum) // step
        maximum = Fraction(5000) if (mega or gov) else Fraction(1500)
        bonuses += min(500 * increments, maximum)

    # (c), I4: large numbers of new full-time jobs.
    bonuses += _job_band_bonus(new_jobs)

    # (d), I5: training program; $1,000 when by a State institution within 10 miles.
    if s["training_program"]:
        bonuses += 1000 if s["training_by_state_institution_within_10_miles"] else 500

    # (e): small business.
    if s["small_business"]:
        bonuses += 500

    # (f), I7: $200 per full 35 % above the reference median, at most $1,000.
    if project_median > reference:
        excess = (project_median - reference) / reference
        bonuses += min(200 * (excess // Fraction(35, 100)), Fraction(1000))

    # (h): targeted industry.
    if s["targeted_industry"]:
        bonuses += 500

    # (i): qualified incubator facility.
    if s["qualified_incubator_facility"]:
        bonuses += 500

    # (k): child care.
    if s["child_care"]:
        bonuses += 1000

    # (l): re-entry partnership with at least one hire.
    if s["reentry_partnership_hire"]:
        bonuses += 500

    # (m), I9: LEED Gold $500; else LEED Silver or remediation $250.
    if s["green_building"] == "exceeds_gold":
        bonuses += 500
    elif s["green_building"] == "exceeds_silver" or s["substantial_environmental_remediation"]:
        bonuses += 250

    # (n), I10: targeted industry and college collaboration.
    if s["targeted_industry"] and s["college_collaboration"]:
        bonuses += 1000

    # (o), I11: on-site renewables at least one half of the electric supply needs.
    if num(s["onsite_renewable_share"]) >= Fraction(1, 2):
        bonuses += 500

    # (p), I12: marine terminal in the South Jersey Port District, not government-restricted.
    if s["marine_terminal_project"] and s["south_jersey_port_district"] and not gov:
        bonuses += 1500

    # (q): qualified opportunity zone.
    if s["qualified_opportunity_zone"]:
        bonuses += 1000

    # (r), I11: one third or more of the governing board from underrepresented communities.
    if num(s["board_underrepresented_share"]) >= Fraction(1, 3):
        bonuses += 2000

    # (c)(2), I13: no bonus at all when a full-time job pays below the wage floor.
    wage_floor = max(Fraction(15), Fraction(6, 5) * num(s["state_minimum_wage"]))
    bonuses_awarded = num(s["lowest_full_time_hourly_wage"]) >= wage_floor
    if not bonuses_awarded:
        bonuses = Fraction(0)

    # (j), I8: $2,000 for covered jobs, and the cap of (d) may be exceeded by up to $1,000.
    business_gets_j = bonuses_awarded and (lh_new + lh_retained) > 0
    covered_bonus = bonuses + (2000 if bonuses_awarded else 0)
    covered_cap = cap + (1000 if bonuses_awarded else 0)
    uncovered_cap = cap + (1000 if (i8 == "business-wide" and business_gets_j) else 0)

    # (d), I15: gross amount = base + bonuses, capped first.
    gross_uncovered = min(base + bonuses, uncovered_cap)
    gross_covered = min(base + covered_bonus, covered_cap)

    # (e), I16: reduction by the shortfall below the reference median; none at 30 % or more.
    shortfall = (reference - project_median) / reference if project_median < reference else 0
    factor = Fraction(0) if shortfall >= Fraction(30, 100) else 1 - Fraction(shortfall)
    net_uncovered = gross_uncovered * factor
    net_covered = gross_covered * factor

    # (f), I17: 100 % per new job, 50 % per retained job.
    per_job_new = net_uncovered
    per_job_new_lh = net_covered
    per_job_retained = net_uncovered / 2
    per_job_retained_lh = net_covered / 2

    total = (
        per_job_new * (new_jobs - lh_new)
        + per_job_new_lh * lh_new
        + per_job_retained * (retained_jobs - lh_retained)
        + per_job_retained_lh * lh_retained
    )

    # (g), I18: the board's annual limit.
    limit = s["board_approved_annual_limit"]
    annual_credit = min(total, num(limit)) if limit is not None else total

    # (a), I19: credited annually for each year of the eligibility period.
    period_total = annual_credit * int(s["eligibility_period_years"])

    return {
        "area_tier": tier,
        "per_job_new": per_job_new,
        "per_job_new_labor_harmony": per_job_new_lh,
        "per_job_retained": per_job_retained,
        "per_job_retained_labor_harmony": per_job_retained_lh,
        "annual_total_before_limit": total,
        "annual_credit": annual_credit,
        "eligibility_period_total": period_total,
    }
