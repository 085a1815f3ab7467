"""Exact numpy baseline of N.J.S.A. 34:1B-343 (the Emerge per-job tax credit), over columns.

Written independently from the statute text and the default readings of the interpretation
register (I1-I20, I8 = covered-jobs), not from the project's encoding or evaluator. It is the
throughput baseline for batch evaluation and a second oracle for the differential test. Only
integer arithmetic is used: a reduced amount (e) is kept as a rational whose denominator is twice
the reference median salary in cents, and every result is rounded half-up to the cent at the end
with integer division, exactly as the project rounds its exact values for display.

Input columns (`benchmarks.population.to_columns` builds them), one entry per scenario:

- bool: the scenario's yes/no fields under their own names, plus
  `municipality_median_salary_valid` and `board_approved_annual_limit_valid`;
- int64 counts: `new_jobs`, `retained_jobs`, `labor_harmony_new_jobs`,
  `labor_harmony_retained_jobs`, `eligibility_period_years`;
- int64 money in cents: `industrial_rd_capital_investment`, `minimum_capital_investment`,
  `project_median_salary`, `county_median_salary`, `municipality_median_salary`,
  `lowest_full_time_hourly_wage`, `state_minimum_wage`, `board_approved_annual_limit` (the
  value of an invalid entry is ignored);
- int64 numerator/denominator pairs: `mri_distress_score_num`/`_den`,
  `onsite_renewable_share_num`/`_den`, `board_underrepresented_share_num`/`_den`;
- int8 `green_building_code`: 0 none, 1 exceeds_silver, 2 exceeds_gold.

Output: int8 `area_tier` (1..5 for "b1".."b5") and the seven money results as int64 cents
rounded half-up.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from benchmarks.baseline_scalar import MONEY_RESULTS as MONEY_RESULTS

I64 = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]


TIER_NAMES: tuple[str, ...] = ("", "b1", "b2", "b3", "b4", "b5")
"""`TIER_NAMES[code]` is the area tier a code in the `area_tier` column stands for."""

GREEN_BUILDING_CODES: dict[str, int] = {"none": 0, "exceeds_silver": 1, "exceeds_gold": 2}
"""The `green_building_code` of each `green_building` value."""

# Indexed by tier code (index 0 unused): (b) base, (d) cap, (c)(1)(b) maximum, in cents.
_BASE = np.array([0, 400_000, 350_000, 300_000, 250_000, 50_000], dtype=np.int64)
_CAP = np.array([0, 800_000, 600_000, 500_000, 400_000, 300_000], dtype=np.int64)
_INVESTMENT_MAX = np.array([0, 500_000, 150_000, 150_000, 150_000, 150_000], dtype=np.int64)


def _bonus(condition: Bools, cents: int) -> I64:
    """`cents` where the condition holds, else 0."""
    return condition.astype(np.int64) * cents


def _round_half_up(numerator: I64, denominator: I64) -> I64:
    """numerator / denominator rounded half-up (both non-negative, denominator > 0)."""
    quotient, remainder = np.divmod(numerator, denominator)
    return quotient + (2 * remainder >= denominator)


def credit_columns(cols: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Computes the eight results of N.J.S.A. 34:1B-343 for every scenario of a column batch.

    Exact with int64 (no intermediate can overflow) when the inputs satisfy:

    - every money input is in [0, 10**17) cents (bounds `10 * difference`, `6 * wage`,
      `5 * (investment - minimum)`);
    - the reference median salary (county, or municipality when government-restricted) is at
      most 10**10 cents ($100 million) and `new_jobs + retained_jobs <= 4 * 10**8`: a sum over
      the jobs of remainders below `2 * reference` stays under 8 * 10**18;
    - `eligibility_period_years <= 10**4`;
    - share and MRI numerators and denominators are at most 3 * 10**18 (compared after
      multiplying by 3 or by 50: the MRI denominator must be at most 1.8 * 10**17).

    Per-job gross amounts are at most $9,000 (the largest cap plus the (c)(1)(j) allowance), so
    `2 * gross * median` stays below 2 * 10**16 for any median within the bound above.
    """
    gov = cols["government_restricted_municipality"]
    # I1: the first of (b)(1)..(b)(5) that holds, assigned from the last so the first wins.
    tier = np.full(gov.shape, 5, dtype=np.int8)
    tier[cols["qualified_opportunity_zone"] | cols["employment_investment_corridor"]] = 4
    tier[cols["distressed_municipality"]] = 3
    tier[cols["enhanced_area"]] = 2
    tier[gov | cols["mega_project"]] = 1
    base = _BASE[tier]
    cap = _CAP[tier]

    # I6: one reference median serves both (c)(1)(f) and (e).
    reference = np.where(gov, cols["municipality_median_salary"], cols["county_median_salary"])
    median = cols["project_median_salary"]
    # (e), I16: 30 percent or more below the reference means no credit at all.
    credited = 10 * (reference - median) < 3 * reference

    bonus = _bonus(cols["mri_distress_score_num"] > 50 * cols["mri_distress_score_den"], 100_000)

    investment = cols["industrial_rd_capital_investment"]
    minimum = cols["minimum_capital_investment"]
    # (c)(1)(b), I3: whole steps of 40 % of the minimum; a zero minimum only pairs with zero
    # investment, and the steps are clipped before scaling so huge ratios cannot overflow.
    steps = np.where(
        investment > minimum, 5 * (investment - minimum) // (2 * np.maximum(minimum, 1)), 0
    )
    bonus += np.minimum(50_000 * np.minimum(steps, 100), _INVESTMENT_MAX[tier])

    new = cols["new_jobs"]
    # (c)(1)(c), I4: inclusive bands of new jobs.
    bonus += _bonus(new > 250, 50_000) + _bonus(new > 400, 25_000) + _bonus(new > 600, 25_000)
    bonus += _bonus(new > 800, 25_000) + _bonus(new > 1000, 25_000)

    training = cols["training_program"]  # (c)(1)(d), I5
    bonus += _bonus(training, 50_000)
    bonus += _bonus(training & cols["training_by_state_institution_within_10_miles"], 50_000)
    bonus += _bonus(cols["small_business"], 50_000)

    # (c)(1)(f), I7: whole steps of 35 % above the reference, at most five.
    excess_steps = np.where(median > reference, 20 * (median - reference) // (7 * reference), 0)
    bonus += 20_000 * np.minimum(excess_steps, 5)

    targeted = cols["targeted_industry"]
    bonus += _bonus(targeted, 50_000)
    bonus += _bonus(cols["qualified_incubator_facility"], 50_000)
    bonus += _bonus(cols["child_care"], 100_000)
    bonus += _bonus(cols["reentry_partnership_hire"], 50_000)
    green = cols["green_building_code"]  # (c)(1)(m), I9
    bonus += np.where(
        green == 2,
        50_000,
        np.where((green == 1) | cols["substantial_environmental_remediation"], 25_000, 0),
    )
    bonus += _bonus(targeted & cols["college_collaboration"], 100_000)  # (c)(1)(n), I10
    bonus += _bonus(  # (c)(1)(o), I11
        2 * cols["onsite_renewable_share_num"] >= cols["onsite_renewable_share_den"], 50_000
    )
    bonus += _bonus(  # (c)(1)(p), I12
        cols["marine_terminal_project"] & cols["south_jersey_port_district"] & ~gov, 150_000
    )
    bonus += _bonus(cols["qualified_opportunity_zone"], 100_000)  # (c)(1)(q)
    bonus += _bonus(  # (c)(1)(r), I11
        3 * cols["board_underrepresented_share_num"] >= cols["board_underrepresented_share_den"],
        200_000,
    )

    wage = cols["lowest_full_time_hourly_wage"]
    # (c)(2), I13: below max($15, 1.2 x minimum wage) no (c)(1) bonus at all, (j) included.
    floor_met = (wage >= 1500) & (5 * wage >= 6 * cols["state_minimum_wage"])
    bonus *= floor_met
    gross = base + bonus
    # (d), I15, I8 covered-jobs: cap first; covered jobs get the (j) bonus and $1,000 more cap.
    uncovered = np.minimum(gross, cap) * credited
    covered = np.minimum(gross + _bonus(floor_met, 200_000), cap + 100_000) * credited

    # (e), I16: a reduced amount is gross x median / reference. Every amount below is a numerator
    # over `denominator` = 2 x reference (or 2 when not reduced): the 2 carries the half of (f).
    reduced = median < reference
    factor = np.where(reduced, median, 1)
    denominator = 2 * np.where(reduced, reference, 1)
    new_uncovered = 2 * uncovered * factor
    new_covered = 2 * covered * factor
    retained_uncovered = uncovered * factor
    retained_covered = covered * factor

    harmony_new = cols["labor_harmony_new_jobs"]
    harmony_retained = cols["labor_harmony_retained_jobs"]
    retained = cols["retained_jobs"]
    counts = (new - harmony_new, harmony_new, retained - harmony_retained, harmony_retained)
    numerators = (new_uncovered, new_covered, retained_uncovered, retained_covered)
    # Sum quotients and remainders apart, so no count multiplies a full numerator.
    whole = np.zeros_like(denominator)
    part = np.zeros_like(denominator)
    for count, numerator in zip(counts, numerators, strict=True):
        quotient, remainder = np.divmod(numerator, denominator)
        whole += count * quotient
        part += count * remainder
    carry, part = np.divmod(part, denominator)
    whole += carry  # the annual total is exactly whole + part / denominator, 0 <= part < den

    # (g), I18: the limit is whole cents, so it is the minimum as soon as `whole` reaches it.
    limited = cols["board_approved_annual_limit_valid"] & (
        whole >= cols["board_approved_annual_limit"]
    )
    annual_whole = np.where(limited, cols["board_approved_annual_limit"], whole)
    annual_part = np.where(limited, 0, part)

    years = cols["eligibility_period_years"]  # (a), I19: exact annual credit x years
    period_carry, period_part = np.divmod(years * annual_part, denominator)

    return {
        "area_tier": tier,
        "per_job_new": _round_half_up(new_uncovered, denominator),
        "per_job_new_labor_harmony": _round_half_up(new_covered, denominator),
        "per_job_retained": _round_half_up(retained_uncovered, denominator),
        "per_job_retained_labor_harmony": _round_half_up(retained_covered, denominator),
        "annual_total_before_limit": whole + (2 * part >= denominator),
        "annual_credit": annual_whole + (2 * annual_part >= denominator),
        "eligibility_period_total": years * annual_whole
        + period_carry
        + (2 * period_part >= denominator),
    }


def cents_str(cents: np.ndarray) -> list[str]:
    """Renders int64 cents as dollar strings like the project's JSON ("4250.00")."""
    return [f"{c // 100}.{c % 100:02d}" for c in cents.tolist()]
