"""Every scenario of examples/ worked out by hand from N.J.S.A. 34:1B-343.

Each ``hand_*`` function below is a derivation written from the statute text and the
interpretation register (I1..I20) alone: the arithmetic is spelled out clause by clause, with the
clause cited in a comment. The evaluator is compared to these numbers; the independent oracle of
``tests/oracle.py`` is compared to them too, as a second check (never the other way round).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from oracle import MONEY_KEYS, cents, oracle

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
RESULT_KEYS: tuple[str, ...] = ("area_tier", *MONEY_KEYS)

Expected = dict[str, Fraction | str]


def load_example(name: str) -> dict[str, Any]:
    """Read ``examples/<name>.json`` (as the CLI would: plain ``json``, money as strings)."""
    return json.loads((EXAMPLES / f"{name}.json").read_text(encoding="utf-8"))


def result(
    tier: str,
    new: Fraction,
    new_lh: Fraction,
    retained: Fraction,
    retained_lh: Fraction,
    total: Fraction,
    annual: Fraction,
    period: Fraction,
) -> Expected:
    """Pack hand-derived amounts under the result keys of scenario-format.md."""
    return {
        "area_tier": tier,
        "per_job_new": Fraction(new),
        "per_job_new_labor_harmony": Fraction(new_lh),
        "per_job_retained": Fraction(retained),
        "per_job_retained_labor_harmony": Fraction(retained_lh),
        "annual_total_before_limit": Fraction(total),
        "annual_credit": Fraction(annual),
        "eligibility_period_total": Fraction(period),
    }


# ---------------------------------------------------------------------------------------------
# Hand derivations, one per example file.
# Wage floor (c)(2): max($15, 120 % of the State minimum wage).
#   minimum wage 15.92 -> max(15, 19.104) = 19.104;  minimum wage 15.49 -> max(15, 18.588) = 18.588.
# ---------------------------------------------------------------------------------------------


def hand_distressed_manufacturer(i8: str) -> Expected:
    """Distressed municipality, MRI 62, 300 new (50 covered) + 100 retained, 15 % under median."""
    assert Fraction("19.50") >= Fraction(6, 5) * Fraction("15.92")  # (c)(2) 19.50 >= 19.104
    base = Fraction(3000)  # (b)(3) distressed municipality
    cap = Fraction(5000)  # (d)(3) distressed municipality
    bonuses = (
        1000  # (c)(1)(a) MRI 62 > 50
        + 500  # (c)(1)(c)(i) 300 new jobs, 251..400
        + 500  # (c)(1)(h) targeted industry
    )  # (c)(1)(f) none: 59,500 < 70,000
    gross = min(base + bonuses, cap)  # (d)(3): min(5000, 5000) = 5000
    # (j) covered jobs: +2000 and the cap may be exceeded by up to $1,000. Under business-wide the
    # uncovered cap is 6000 but 5000 does not reach it: same result under both I8 readings.
    gross_lh = min(base + bonuses + 2000, cap + 1000)  # min(7000, 6000) = 6000
    factor = 1 - Fraction(70000 - 59500, 70000)  # (e) 10,500 / 70,000 = 15 % below county median
    new = gross * factor  # (f)(1) 5000 * 0.85 = 4250
    new_lh = gross_lh * factor  # (f)(1) 6000 * 0.85 = 5100
    retained = new / 2  # (f)(2) 2125
    retained_lh = new_lh / 2  # (f)(2) 2550 (no covered retained jobs)
    total = new * (300 - 50) + new_lh * 50 + retained * 100  # 1,062,500 + 255,000 + 212,500
    assert total == 1_530_000
    return result("b3", new, new_lh, retained, retained_lh, total, total, total * 7)  # (a) 7 yrs


def hand_mega_project_gov_restricted(i8: str) -> Expected:
    """Mega project in a government-restricted municipality: (b) at its $5,000 max, cap binds."""
    base = Fraction(4000)  # (b)(1) government-restricted municipality / mega project
    cap = Fraction(8000)  # (d)(1)
    # (c)(1)(b): (540M - 100M) / (40 % of 100M = 40M) = 11 increments -> $5,500 -> max $5,000
    investment_bonus = min(500 * ((540_000_000 - 100_000_000) // 40_000_000), 5000)
    assert investment_bonus == 5000
    # (c)(1)(f), I6: reference = municipality median 52,000 (not the county's 75,000):
    # (98,000 - 52,000) / 52,000 = 88.46 % -> 2 full steps of 35 % -> $400
    salary_bonus = 200 * (Fraction(98000 - 52000, 52000) // Fraction(35, 100))
    assert salary_bonus == 400
    bonuses = (
        investment_bonus
        + 1500  # (c)(1)(c)(v) 1,200 new jobs > 1,000
        + salary_bonus
    )  # (c)(1)(p) none: marine terminal, but in a government-restricted municipality
    gross = min(base + bonuses, cap)  # (d)(1): min(10900, 8000) = 8000
    gross_lh = min(base + bonuses + 2000, cap + 1000)  # (j) would-be covered job: 9000
    new = gross  # (e) no reduction: 98,000 above the municipality median
    retained = new / 2  # (f)(2) 4000
    total = new * 1200 + retained * 400  # 9,600,000 + 1,600,000
    assert total == 11_200_000
    annual = min(total, Fraction(12_000_000))  # (g) board limit 12,000,000 does not bind
    return result("b1", new, gross_lh, retained, gross_lh / 2, total, annual, annual * 10)


def hand_enhanced_area_research_lab(i8: str) -> Expected:
    """Enhanced area, targeted industry with a college collaboration, training within 10 miles."""
    base = Fraction(3500)  # (b)(2) enhanced area
    cap = Fraction(6000)  # (d)(2)
    # (c)(1)(f): (112,000 - 80,000) / 80,000 = 40 % -> one full 35 % step -> $200
    salary_bonus = 200 * (Fraction(112000 - 80000, 80000) // Fraction(35, 100))
    assert salary_bonus == 200
    bonuses = (
        1000  # (c)(1)(c)(iii) 650 new jobs, 601..800
        + 1000  # (c)(1)(d) training by a State institution within 10 miles
        + salary_bonus
        + 500  # (c)(1)(h) targeted industry
        + 1000  # (c)(1)(n) targeted industry + college collaboration
    )
    gross = min(base + bonuses, cap)  # (d)(2): min(7200, 6000) = 6000
    gross_lh = min(base + bonuses + 2000, cap + 1000)  # (j) would-be covered job: 7000
    new = gross  # (e) no reduction: above the county median
    retained = new / 2  # (f)(2) 3000
    total = new * 650 + retained * 150  # 3,900,000 + 450,000
    assert total == 4_350_000
    return result("b2", new, gross_lh, retained, gross_lh / 2, total, total, total * 7)


def hand_opportunity_zone_small_business(i8: str) -> Expected:
    """Opportunity zone small business, 12.5 % below the county median, 5-year period."""
    assert Fraction("19.00") >= Fraction(6, 5) * Fraction("15.49")  # (c)(2) 19.00 >= 18.588
    base = Fraction(2500)  # (b)(4) qualified opportunity zone
    cap = Fraction(4000)  # (d)(4)
    bonuses = 1000 + 500  # (c)(1)(q) opportunity zone; (c)(1)(e) small business
    gross = min(base + bonuses, cap)  # min(4000, 4000) = 4000
    gross_lh = min(base + bonuses + 2000, cap + 1000)  # (j) would-be covered job: 5000
    factor = 1 - Fraction(64000 - 56000, 64000)  # (e) 8,000 / 64,000 = 12.5 % below
    new = gross * factor  # 4000 * 0.875 = 3500
    retained = new / 2  # (f)(2) 1750
    total = new * 40 + retained * 10  # 140,000 + 17,500
    assert total == 157_500
    return result(
        "b4", new, gross_lh * factor, retained, gross_lh * factor / 2, total, total, total * 5
    )


def hand_corridor_warehouse_below_wage_floor(i8: str) -> Expected:
    """Employment and investment corridor paying $17.50 < $19.104: no bonus at all, not even (j)."""
    assert Fraction("17.50") < Fraction(6, 5) * Fraction("15.92")  # (c)(2) floor not met
    base = Fraction(2500)  # (b)(4) employment and investment corridor
    cap = Fraction(4000)  # (d)(4)
    bonuses = 0  # (c)(2): the MRI 70, training and 260-job bonuses are not awarded
    gross = min(base + bonuses, cap)  # 2500
    gross_lh = min(base + bonuses + 0, cap)  # no (j) bonus and no raised cap either: 2500
    factor = 1 - Fraction(52000 - 48000, 52000)  # (e) 4,000 / 52,000 = 1/13 = 7.69 % below
    new = gross * factor  # 2500 * 12/13 = 30000/13 = 2307.692...
    assert new == Fraction(30000, 13)
    new_lh = gross_lh * factor  # same 30000/13
    total = new * (260 - 60) + new_lh * 60  # 30000/13 * 260 = 600,000
    assert total == 600_000
    return result("b4", new, new_lh, new / 2, new_lh / 2, total, total, total * 7)


def hand_suburban_office_board_limit(i8: str) -> Expected:
    """Other eligible area, many bonuses capped at $3,000, board limit of $450,000 binds."""
    base = Fraction(500)  # (b)(5) other eligible area
    cap = Fraction(3000)  # (d)(5)
    bonuses = (
        1000  # (c)(1)(k) child care
        + 500  # (c)(1)(l) re-entry partnership with a hire
        + 250  # (c)(1)(m) exceeds LEED Silver
        + 500  # (c)(1)(o) renewables 3/5 >= 1/2
        + 2000  # (c)(1)(r) board 2/5 >= 1/3
    )  # (c)(1)(f) none: (72,000 - 70,000) / 70,000 = 2.9 % < 35 %
    gross = min(base + bonuses, cap)  # (d)(5): min(4750, 3000) = 3000
    gross_lh = min(base + bonuses + 2000, cap + 1000)  # (j) would-be covered job: 4000
    new = gross  # (e) no reduction
    retained = new / 2  # (f)(2) 1500
    total = new * 80 + retained * 200  # 240,000 + 300,000
    assert total == 540_000
    annual = min(total, Fraction(450_000))  # (g) board limit binds
    assert annual == 450_000
    return result("b5", new, gross_lh, retained, gross_lh / 2, total, annual, annual * 7)


def hand_labor_harmony_business_wide(i8: str) -> Expected:
    """Distressed municipality, 200 of 500 new and 100 of 300 retained jobs covered (j).

    The uncovered gross (6250) exceeds the plain cap (5000): under I8 = business-wide the
    uncovered jobs may use the raised cap (6000) too, so the two readings differ.
    """
    base = Fraction(3000)  # (b)(3) distressed municipality
    cap = Fraction(5000)  # (d)(3)
    bonuses = (
        1000  # (c)(1)(a) MRI 55 > 50
        + 750  # (c)(1)(c)(ii) 500 new jobs, 401..600
        + 1000  # (c)(1)(k) child care
        + 500  # (c)(1)(m) exceeds LEED Gold
    )  # (c)(1)(f) none: 2.9 % above the county median
    assert base + bonuses == 6250
    gross_lh = min(base + bonuses + 2000, cap + 1000)  # (j) covered: min(8250, 6000) = 6000
    # I8 covered-jobs: min(6250, 5000) = 5000;  I8 business-wide: min(6250, 5000 + 1000) = 6000
    uncovered_cap = cap if i8 == "covered-jobs" else cap + 1000
    gross = min(base + bonuses, uncovered_cap)
    new, new_lh = gross, gross_lh  # (e) no reduction
    retained, retained_lh = gross / 2, gross_lh / 2  # (f)(2)
    total = new * (500 - 200) + new_lh * 200 + retained * (300 - 100) + retained_lh * 100
    # covered-jobs:  5000*300 + 6000*200 + 2500*200 + 3000*100 = 3,500,000
    # business-wide: 6000*300 + 6000*200 + 3000*200 + 3000*100 = 3,900,000
    assert total == (3_500_000 if i8 == "covered-jobs" else 3_900_000)
    return result("b3", new, new_lh, retained, retained_lh, total, total, total * 7)


def hand_no_credit_salary_shortfall(i8: str) -> Expected:
    """Project median exactly 30 % below the county median: (e) no credit at all."""
    shortfall = Fraction(65000 - 45500, 65000)  # (e) 19,500 / 65,000
    assert shortfall == Fraction(30, 100)  # "30 percent or more below" -> no tax credit
    zero = Fraction(0)
    return result("b3", zero, zero, zero, zero, zero, zero, zero)


def hand_port_district_marine_terminal(i8: str) -> Expected:
    """Marine terminal in the South Jersey Port District (p); 30 covered retained jobs (j)."""
    base = Fraction(500)  # (b)(5) other eligible area
    cap = Fraction(3000)  # (d)(5)
    # (c)(1)(b): (33M - 20M) / (40 % of 20M = 8M) = 1.625 -> 1 increment -> $500
    investment_bonus = 500 * ((33_000_000 - 20_000_000) // 8_000_000)
    assert investment_bonus == 500
    bonuses = investment_bonus + 1500  # (c)(1)(p) marine terminal, port district, not gov.
    gross = min(base + bonuses, cap)  # 2500 (under business-wide the cap 4000 changes nothing)
    gross_lh = min(base + bonuses + 2000, cap + 1000)  # (j): min(4500, 4000) = 4000
    new, new_lh = gross, gross_lh  # (e) project median equals the county median: no reduction
    retained, retained_lh = gross / 2, gross_lh / 2  # (f)(2) 1250, 2000
    total = new * 90 + retained_lh * 30  # 225,000 + 60,000 (all retained jobs are covered)
    assert total == 285_000
    return result("b5", new, new_lh, retained, retained_lh, total, total, total * 7)


def hand_brownfield_remediation_plant(i8: str) -> Expected:
    """Distressed municipality, 850 new jobs, remediation, (b) at its $1,500 max, 4 % shortfall."""
    base = Fraction(3000)  # (b)(3) distressed municipality
    cap = Fraction(5000)  # (d)(3)
    # (c)(1)(b): (60M - 20M) / 8M = 5 increments -> $2,500 -> max $1,500 (not mega/gov.)
    investment_bonus = min(500 * ((60_000_000 - 20_000_000) // 8_000_000), 1500)
    assert investment_bonus == 1500
    bonuses = (
        investment_bonus
        + 1250  # (c)(1)(c)(iv) 850 new jobs, 801..1,000
        + 250  # (c)(1)(m) substantial environmental remediation
    )
    gross = min(base + bonuses, cap)  # (d)(3): min(6000, 5000) = 5000
    gross_lh = min(base + bonuses + 2000, cap + 1000)  # (j) would-be covered job: 6000
    factor = 1 - Fraction(65000 - 62400, 65000)  # (e) 2,600 / 65,000 = 4 % below
    new = gross * factor  # 5000 * 0.96 = 4800
    total = new * 850
    assert total == 4_080_000
    return result(
        "b3", new, gross_lh * factor, new / 2, gross_lh * factor / 2, total, total, total * 10
    )


def hand_incubator_training_startup(i8: str) -> Expected:
    """Small business in a qualified incubator, training not within 10 miles, salary 3 steps up."""
    base = Fraction(500)  # (b)(5) other eligible area
    cap = Fraction(3000)  # (d)(5)
    # (c)(1)(f): (130,000 - 60,000) / 60,000 = 116.7 % -> 3 full 35 % steps -> $600
    salary_bonus = 200 * (Fraction(130000 - 60000, 60000) // Fraction(35, 100))
    assert salary_bonus == 600
    bonuses = (
        500  # (c)(1)(d) training program (not by a State institution within 10 miles)
        + 500  # (c)(1)(e) small business
        + salary_bonus
        + 500  # (c)(1)(i) qualified incubator facility
    )
    gross = min(base + bonuses, cap)  # 2600, under the cap
    gross_lh = min(base + bonuses + 2000, cap + 1000)  # (j) would-be covered job: 4000
    total = gross * 25
    assert total == 65_000
    return result("b5", gross, gross_lh, gross / 2, gross_lh / 2, total, total, total * 7)


def hand_gov_restricted_city_office(i8: str) -> Expected:
    """Government-restricted municipality, all 180 new jobs covered; shortfall vs the city median.

    I6: the reference is the municipality median 58,000, so the shortfall is 15 % (against the
    county's 72,000 it would have been 31.5 %: no credit).
    """
    assert Fraction("19.20") >= Fraction(6, 5) * Fraction("15.92")  # (c)(2) 19.20 >= 19.104
    base = Fraction(4000)  # (b)(1) government-restricted municipality
    cap = Fraction(8000)  # (d)(1)
    # (c)(1)(b): (9M - 5M) / (40 % of 5M = 2M) = 2 increments -> $1,000 (max $5,000 here)
    investment_bonus = min(500 * ((9_000_000 - 5_000_000) // 2_000_000), 5000)
    bonuses = (
        investment_bonus
        + 250  # (c)(1)(m) exceeds Silver (remediation too, but still $250: I9)
        + 2000  # (c)(1)(r) board share exactly 1/3
    )
    gross = min(base + bonuses, cap)  # 7250 (under business-wide: cap 9000, same)
    gross_lh = min(base + bonuses + 2000, cap + 1000)  # (j): min(9250, 9000) = 9000
    factor = 1 - Fraction(58000 - 49300, 58000)  # (e) 8,700 / 58,000 = 15 % below
    new = gross * factor  # 7250 * 0.85 = 6162.50
    new_lh = gross_lh * factor  # 9000 * 0.85 = 7650
    total = new_lh * 180  # every new job is covered
    assert total == 1_377_000
    return result("b1", new, new_lh, new / 2, new_lh / 2, total, total, total * 7)


HAND: dict[str, Callable[[str], Expected]] = {
    "brownfield-remediation-plant": hand_brownfield_remediation_plant,
    "corridor-warehouse-below-wage-floor": hand_corridor_warehouse_below_wage_floor,
    "distressed-manufacturer": hand_distressed_manufacturer,
    "enhanced-area-research-lab": hand_enhanced_area_research_lab,
    "gov-restricted-city-office": hand_gov_restricted_city_office,
    "incubator-training-startup": hand_incubator_training_startup,
    "labor-harmony-business-wide": hand_labor_harmony_business_wide,
    "mega-project-gov-restricted": hand_mega_project_gov_restricted,
    "no-credit-salary-shortfall": hand_no_credit_salary_shortfall,
    "opportunity-zone-small-business": hand_opportunity_zone_small_business,
    "port-district-marine-terminal": hand_port_district_marine_terminal,
    "suburban-office-board-limit": hand_suburban_office_board_limit,
}

#: A few display values stated literally (rounded half-up to the cent), covered-jobs reading.
LITERAL_JSON: dict[str, dict[str, str]] = {
    "distressed-manufacturer": {
        "per_job_new": "4250.00",
        "per_job_new_labor_harmony": "5100.00",
        "per_job_retained": "2125.00",
        "annual_credit": "1530000.00",
        "eligibility_period_total": "10710000.00",
    },
    "corridor-warehouse-below-wage-floor": {
        "per_job_new": "2307.69",  # 30000/13 = 2307.6923...
        "per_job_retained": "1153.85",  # 15000/13 = 1153.8461...
        "annual_credit": "600000.00",
    },
    "gov-restricted-city-office": {
        "per_job_new": "6162.50",
        "per_job_retained": "3081.25",
        "per_job_new_labor_harmony": "7650.00",
        "annual_credit": "1377000.00",
    },
    "suburban-office-board-limit": {
        "annual_total_before_limit": "540000.00",
        "annual_credit": "450000.00",
        "eligibility_period_total": "3150000.00",
    },
    "no-credit-salary-shortfall": {
        "per_job_new": "0.00",
        "per_job_new_labor_harmony": "0.00",
        "annual_credit": "0.00",
    },
}

NAMES = sorted(HAND)
READINGS = ("covered-jobs", "business-wide")


@pytest.fixture(scope="module")
def statute() -> Any:
    """The bundled encoding of N.J.S.A. 34:1B-343, loaded once."""
    from lextrace import load_statute

    return load_statute()


def evaluate(statute: Any, scenario: dict[str, Any], i8: str) -> Any:
    """Evaluate ``scenario`` under I8 = ``i8``, whatever reading the file pins (a what-if; the
    default reading is passed as ``None``)."""
    unpinned = {key: value for key, value in scenario.items() if key != "readings"}
    readings = None if i8 == "covered-jobs" else {"I8": i8}
    return statute.evaluate(unpinned, readings=readings)


# --- the examples themselves ---------------------------------------------------------------------


def test_every_example_has_a_hand_derivation() -> None:
    """No example file may go unchecked, and no derivation may lose its file."""
    assert sorted(p.stem for p in EXAMPLES.glob("*.json")) == NAMES
    assert len(NAMES) >= 10


def test_batch_file_lists_the_examples_in_file_name_order() -> None:
    """examples/batch.jsonl holds the same scenarios, one per line, in file-name order."""
    lines = (EXAMPLES / "batch.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == [load_example(n) for n in NAMES]


def test_examples_together_reach_every_tier() -> None:
    """The examples cover every area tier (b)(1)..(b)(5) (by the hand derivations)."""
    tiers = {HAND[name]("covered-jobs")["area_tier"] for name in NAMES}
    assert tiers == {"b1", "b2", "b3", "b4", "b5"}


# --- the oracle against the hand derivations (runs without the evaluator) ------------------------


@pytest.mark.parametrize("i8", READINGS)
@pytest.mark.parametrize("name", NAMES)
def test_oracle_agrees_with_hand_derivation(name: str, i8: str) -> None:
    """The test-side oracle reproduces every hand derivation exactly, under both I8 readings."""
    expected = HAND[name](i8)
    got = oracle(load_example(name), i8=i8)
    assert got == expected
    for key in MONEY_KEYS:
        assert isinstance(got[key], Fraction)


def test_business_wide_differs_for_the_labor_harmony_example() -> None:
    """The hand derivations themselves differ between the two I8 readings for this example."""
    covered = hand_labor_harmony_business_wide("covered-jobs")
    wide = hand_labor_harmony_business_wide("business-wide")
    assert covered["per_job_new"] == 5000
    assert wide["per_job_new"] == 6000
    assert covered["annual_credit"] == 3_500_000
    assert wide["annual_credit"] == 3_900_000


@pytest.mark.parametrize(
    ("x", "shown"),
    [
        (Fraction(30000, 13), "2307.69"),
        (Fraction(12345, 1000), "12.35"),  # half-up on a tie
        (Fraction(12344999, 1000000), "12.34"),
        (Fraction(0), "0.00"),
        (Fraction(1_530_000), "1530000.00"),
        (Fraction(1, 200), "0.01"),
    ],
)
def test_cents_rounds_half_up(x: Fraction, shown: str) -> None:
    """The display helper rounds half-up to the cent."""
    assert cents(x) == shown


# --- the evaluator against the hand derivations --------------------------------------------------


@pytest.mark.parametrize("i8", READINGS)
@pytest.mark.parametrize("name", NAMES)
def test_evaluator_exact_values(statute: Any, name: str, i8: str) -> None:
    """result.values holds exactly the hand-derived amounts (Fractions) and the area tier."""
    expected = HAND[name](i8)
    got = evaluate(statute, load_example(name), i8)
    for key in RESULT_KEYS:
        assert got.values[key] == expected[key], f"{name} [{i8}] {key}"
    for key in MONEY_KEYS:
        assert not isinstance(got.values[key], float), key


@pytest.mark.parametrize("i8", READINGS)
@pytest.mark.parametrize("name", NAMES)
def test_evaluator_json_in_cents(statute: Any, name: str, i8: str) -> None:
    """to_json() shows every money key rounded half-up to the cent, and the I8 reading used."""
    expected = HAND[name](i8)
    shown = evaluate(statute, load_example(name), i8).to_dict()
    assert shown["area_tier"] == expected["area_tier"]
    for key in MONEY_KEYS:
        value = expected[key]
        assert isinstance(value, Fraction)
        assert shown[key] == cents(value), f"{name} [{i8}] {key}"
    assert shown["readings"]["I8"] == i8


@pytest.mark.parametrize("name", sorted(LITERAL_JSON))
def test_evaluator_literal_cents(statute: Any, name: str) -> None:
    """Some displayed amounts, stated literally."""
    shown = evaluate(statute, load_example(name), "covered-jobs").to_dict()
    for key, text in LITERAL_JSON[name].items():
        assert shown[key] == text, f"{name} {key}"


def test_evaluator_business_wide_differs(statute: Any) -> None:
    """The labor-harmony example: uncovered jobs get 6000 (raised cap) only under business-wide."""
    scenario = load_example("labor-harmony-business-wide")
    covered = evaluate(statute, scenario, "covered-jobs")
    wide = evaluate(statute, scenario, "business-wide")
    assert covered.values["per_job_new"] == 5000
    assert covered.values["per_job_retained"] == 2500
    assert wide.values["per_job_new"] == 6000
    assert wide.values["per_job_retained"] == 3000
    assert covered.values["per_job_new_labor_harmony"] == wide.values["per_job_new_labor_harmony"]
    assert covered.to_dict()["annual_credit"] == "3500000.00"
    assert wide.to_dict()["annual_credit"] == "3900000.00"
    assert wide.to_dict()["eligibility_period_total"] == "27300000.00"


def test_evaluator_default_reading_is_covered_jobs(statute: Any) -> None:
    """Without a readings argument or a pinned reading, I8 is covered-jobs."""
    unpinned = evaluate(statute, load_example("labor-harmony-business-wide"), "covered-jobs")
    shown = unpinned.to_dict()
    assert shown["readings"]["I8"] == "covered-jobs"
    assert shown["per_job_new"] == "5000.00"


def test_the_labor_harmony_example_is_computed_under_the_reading_it_pins(statute: Any) -> None:
    """The file pins I8 = business-wide, as its name says: evaluated as it stands (no readings
    argument), it gives the business-wide figures of the hand derivation."""
    scenario = load_example("labor-harmony-business-wide")
    assert scenario["readings"] == {"I8": "business-wide"}
    shown = statute.evaluate(scenario).to_dict()
    assert shown["readings"]["I8"] == "business-wide"
    wide = hand_labor_harmony_business_wide("business-wide")
    for key in MONEY_KEYS:
        assert shown[key] == cents(wide[key]), key  # type: ignore[arg-type]
    assert shown["per_job_new"] == "6000.00" and shown["annual_credit"] == "3900000.00"
