"""Plain-Python baseline of N.J.S.A. 34:1B-343 (the Emerge per-job tax credit), one scenario.

Written independently from the statute text and the default readings of the interpretation
register (I1-I20, I8 = covered-jobs), not from the project's encoding or evaluator. It is the speed
baseline the design compares one evaluation against, and an exact oracle for the differential
test: amounts are kept in integer cents, and a `Fraction` of cents appears only where the (e)
salary-shortfall reduction makes the amount non-integral.

Input: one scenario with every field present (see `benchmarks.population.to_python`), in
scenario-format field names, already converted: bools, ints, money as integer cents, shares (and
the MRI score) as `int` or `fractions.Fraction`, `board_approved_annual_limit` and
`municipality_median_salary` as cents or None. Nothing is validated and no trace is built.

Output: `area_tier` ("b1".."b5") and seven money results as exact cents (`int` or `Fraction`);
`cents_str` renders one the way the project's JSON does (half-up to the cent, "4250.00").
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

Cents = int | Fraction

MONEY_RESULTS: tuple[str, ...] = (
    "per_job_new",
    "per_job_new_labor_harmony",
    "per_job_retained",
    "per_job_retained_labor_harmony",
    "annual_total_before_limit",
    "annual_credit",
    "eligibility_period_total",
)
"""The money results, in the order of the scenario format's result table."""

# (b) base amount, (d) cap and (c)(1)(b) investment-bonus maximum of each area tier (I1, I3),
# in cents.
_TIERS: dict[str, tuple[int, int, int]] = {
    "b1": (400_000, 800_000, 500_000),
    "b2": (350_000, 600_000, 150_000),
    "b3": (300_000, 500_000, 150_000),
    "b4": (250_000, 400_000, 150_000),
    "b5": (50_000, 300_000, 150_000),
}


def credit(s: dict[str, Any]) -> dict[str, Any]:
    """Computes the eight results of N.J.S.A. 34:1B-343 for one scenario (default readings).

    Money results are exact cents: an `int`, or a `Fraction` when the (e) reduction leaves a
    fraction of a cent. Per-job amounts are rates: they are reported even when no job of that
    kind exists.
    """
    gov = s["government_restricted_municipality"]
    if gov or s["mega_project"]:
        tier = "b1"
    elif s["enhanced_area"]:
        tier = "b2"
    elif s["distressed_municipality"]:
        tier = "b3"
    elif s["qualified_opportunity_zone"] or s["employment_investment_corridor"]:
        tier = "b4"
    else:
        tier = "b5"
    base, cap, investment_max = _TIERS[tier]

    # I6: one reference median serves both (c)(1)(f) and (e).
    reference = s["municipality_median_salary"] if gov else s["county_median_salary"]
    median = s["project_median_salary"]
    # (e), I16: 30 percent or more below the reference means no credit at all.
    if 10 * (reference - median) >= 3 * reference:
        return {
            "area_tier": tier,
            "per_job_new": 0,
            "per_job_new_labor_harmony": 0,
            "per_job_retained": 0,
            "per_job_retained_labor_harmony": 0,
            "annual_total_before_limit": 0,
            "annual_credit": 0,
            "eligibility_period_total": 0,
        }

    bonus = 0
    labor_harmony_bonus = 0
    wage = s["lowest_full_time_hourly_wage"]
    # (c)(2), I13: the floor is max($15, 1.2 x minimum wage); below it no (c)(1) bonus at all.
    if wage >= 1500 and 5 * wage >= 6 * s["state_minimum_wage"]:
        if s["mri_distress_score"] > 50:  # (c)(1)(a), I2
            bonus += 100_000
        investment = s["industrial_rd_capital_investment"]
        minimum = s["minimum_capital_investment"]
        if investment > minimum:  # (c)(1)(b), I3: whole steps of 40 % of the minimum
            steps = 5 * (investment - minimum) // (2 * minimum)
            bonus += min(50_000 * steps, investment_max)
        new = s["new_jobs"]
        if new > 250:  # (c)(1)(c), I4
            if new <= 400:
                bonus += 50_000
            elif new <= 600:
                bonus += 75_000
            elif new <= 800:
                bonus += 100_000
            elif new <= 1000:
                bonus += 125_000
            else:
                bonus += 150_000
        if s["training_program"]:  # (c)(1)(d), I5
            bonus += 100_000 if s["training_by_state_institution_within_10_miles"] else 50_000
        if s["small_business"]:  # (c)(1)(e)
            bonus += 50_000
        if median > reference:  # (c)(1)(f), I7: whole steps of 35 %
            steps = 20 * (median - reference) // (7 * reference)
            bonus += min(20_000 * steps, 100_000)
        targeted = s["targeted_industry"]
        if targeted:  # (c)(1)(h)
            bonus += 50_000
        if s["qualified_incubator_facility"]:  # (c)(1)(i)
            bonus += 50_000
        if s["child_care"]:  # (c)(1)(k)
            bonus += 100_000
        if s["reentry_partnership_hire"]:  # (c)(1)(l)
            bonus += 50_000
        green = s["green_building"]  # (c)(1)(m), I9
        if green == "exceeds_gold":
            bonus += 50_000
        elif green == "exceeds_silver" or s["substantial_environmental_remediation"]:
            bonus += 25_000
        if targeted and s["college_collaboration"]:  # (c)(1)(n), I10
            bonus += 100_000
        share = s["onsite_renewable_share"]  # (c)(1)(o), I11: exact comparison with 1/2
        if 2 * share.numerator >= share.denominator:
            bonus += 50_000
        # (c)(1)(p), I12: never inside a government-restricted municipality.
        if s["marine_terminal_project"] and s["south_jersey_port_district"] and not gov:
            bonus += 150_000
        if s["qualified_opportunity_zone"]:  # (c)(1)(q)
            bonus += 100_000
        share = s["board_underrepresented_share"]  # (c)(1)(r), I11: exact comparison with 1/3
        if 3 * share.numerator >= share.denominator:
            bonus += 200_000
        labor_harmony_bonus = 200_000  # (c)(1)(j): covered jobs only (I8)

    gross = base + bonus
    uncovered = gross if gross < cap else cap  # (d), I15: cap before the reduction
    # I8 covered-jobs: the (j) bonus and the $1,000 cap allowance go to covered jobs only.
    covered = gross + labor_harmony_bonus
    if covered > cap + 100_000:
        covered = cap + 100_000

    new = s["new_jobs"]
    retained = s["retained_jobs"]
    harmony_new = s["labor_harmony_new_jobs"]
    harmony_retained = s["labor_harmony_retained_jobs"]
    # (f), I17: a retained job earns half, so count in half-jobs to stay in integers.
    uncovered_halves = 2 * (new - harmony_new) + retained - harmony_retained
    covered_halves = 2 * harmony_new + harmony_retained
    twice_total = uncovered * uncovered_halves + covered * covered_halves

    per_new: Cents
    per_new_harmony: Cents
    per_retained: Cents
    per_retained_harmony: Cents
    total: Cents
    if median < reference:
        # (e), I16: minus the shortfall in percentage points, i.e. gross x median / reference.
        per_new = Fraction(uncovered * median, reference)
        per_new_harmony = Fraction(covered * median, reference)
        per_retained = Fraction(uncovered * median, 2 * reference)
        per_retained_harmony = Fraction(covered * median, 2 * reference)
        total = Fraction(twice_total * median, 2 * reference)
    else:
        # Every statutory amount is whole dollars, so cents are even and halving stays integral.
        per_new = uncovered
        per_new_harmony = covered
        per_retained = uncovered // 2
        per_retained_harmony = covered // 2
        total = twice_total // 2

    limit = s["board_approved_annual_limit"]  # (g), I18
    annual = total if limit is None or total <= limit else limit
    return {
        "area_tier": tier,
        "per_job_new": per_new,
        "per_job_new_labor_harmony": per_new_harmony,
        "per_job_retained": per_retained,
        "per_job_retained_labor_harmony": per_retained_harmony,
        "annual_total_before_limit": total,
        "annual_credit": annual,
        "eligibility_period_total": annual * s["eligibility_period_years"],  # (a), I19
    }


def round_half_up(cents: Cents) -> int:
    """Rounds a non-negative exact amount of cents to a whole cent, halves up (I20)."""
    if type(cents) is int:
        return cents
    return (2 * cents.numerator + cents.denominator) // (2 * cents.denominator)


def cents_str(cents: Cents) -> str:
    """Renders a non-negative exact amount of cents as dollars rounded half-up: "4250.00"."""
    whole = round_half_up(cents)
    return f"{whole // 100}.{whole % 100:02d}"


def dollars(cents: Cents) -> Fraction:
    """The exact amount in dollars, as the project's `Result.values` reports money."""
    return Fraction(cents, 100)


def to_json(result: dict[str, Any]) -> dict[str, str]:
    """The results as the project's `to_json` shows them: area tier and money strings."""
    out = {"area_tier": result["area_tier"]}
    for name in MONEY_RESULTS:
        out[name] = cents_str(result[name])
    return out
