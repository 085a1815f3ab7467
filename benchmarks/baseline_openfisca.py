"""An idiomatic OpenFisca model of N.J.S.A. 34:1B-343 (the Emerge per-job tax credit), over columns.

An optional benchmark baseline: how a conventional microsimulation encoding of the statute fares
against the project, in speed and in agreement to the cent. It is written independently from the
statute text (`nj-34-1b-343.txt`) and the default readings of the interpretation register, not
from the project's encoding nor from the other baselines (`benchmarks.baseline_numpy` gives only
the column contract and the reference it is measured against).

It is built the way an OpenFisca country package is: one single entity (`business`), a
`TaxBenefitSystem`, one `Variable` per input fact and per rule, each with its citation in
`reference` and a vectorised `formula(business, period, parameters)`; the statute's amounts,
thresholds and rates are OpenFisca parameters (a `ParameterNode` built here from a dict, with
descriptions, units and references; the new-jobs schedule of (c)(1)(c) is a single-amount scale).
Every variable has a yearly `definition_period` and the benchmark evaluates the year
`PERIOD`.

The arithmetic is binary floating point on purpose, as OpenFisca does it: money and shares are
`value_type = float`, which OpenFisca stores as float32, and nothing emulates exact arithmetic.
`credit_columns(cols, float64=True)` runs the same formulas with the float variables stored as
float64 instead, to tell the logic of the model from the precision of its storage. Money results
are converted to int64 cents only at the end, with `np.round(x * 100)` (ties to even). What that
costs: float32 cannot hold every cent above $131,072 (an annual total is often millions), and a
comparison the statute makes exactly can land on the wrong side when a value sits exactly on its
boundary (a project median exactly 30 % below the reference, or exactly 35 % above it; with
float32 also a wage exactly 1.2 x the minimum wage). Elsewhere float64 storage agrees to the cent
or within one (half-cent ties, the (e) proportion).

Readings followed (the register's defaults): I1 one area tier for base and cap, (b)(1) covering
a government-restricted municipality or a mega project; I2 MRI strictly above 50; I3 whole 40 %
steps of the minimum investment, maximum $5,000 for a mega project or a government-restricted
municipality, else $1,500; I4 inclusive bands of new jobs; I5 $500, or $1,000 for a State
institution within 10 miles; I6 the municipality's median as reference for a government-
restricted municipality, else the county's, for both (c)(1)(f) and (e); I7 whole 35 % steps above
the reference, at most $1,000; I8 covered-jobs (only jobs under the labor harmony agreement get the
$2,000 and the cap raised by $1,000); I9 LEED Gold $500, else Silver or remediation $250; I10
targeted industry and collaboration; I11 renewable share >= 1/2 and board share >= 1/3 (compared
here as floats, not as fractions); I12 marine terminal in the South Jersey Port District outside a
government-restricted municipality; I13 below max($15, 1.2 x minimum wage) no (c)(1) bonus at all;
I15 the cap of (d) before the reduction of (e); I16 reduction by the shortfall in percentage
points, no credit at a shortfall of 30 % or more; I17 100 % per new job, 50 % per retained job;
I18 the board's limit when given; I19 the annual credit times the years of the eligibility period.
I14 ((c)(3)) and the staff analysis of (g) are discretionary and not modelled; I20 (exact
arithmetic) is deliberately not followed.

openfisca-core is not a dependency of the project: `available()` is False when it does not import,
and the benchmark then skips this baseline. Run it alone with
`python -m benchmarks.baseline_openfisca` (population of 200,000 rows, timing and agreement).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks.baseline_numpy import MONEY_RESULTS as MONEY_RESULTS

try:
    from openfisca_core.entities import build_entity
    from openfisca_core.indexed_enums import Enum
    from openfisca_core.model_api import YEAR, ParameterNode, Variable, max_, min_, select, where
    from openfisca_core.simulations import SimulationBuilder
    from openfisca_core.taxbenefitsystems import TaxBenefitSystem
except ImportError:  # the benchmark skips this baseline
    _OPENFISCA = False
else:
    _OPENFISCA = True

PERIOD = "2026"
"""The year every simulation is computed for (any year from 2022 on gives the same result)."""

IN_FORCE = "2021-01-07"
"""The date the parameters take effect: the approval of P.L.2020, c.156. Only the text as amended
by P.L.2021, c.160 is encoded; its history before the amendment is not."""

CITE = "N.J.S.A. 34:1B-343"
"""The citation every parameter and variable reference starts with."""

Array = np.ndarray
"""A column of values, one per business (OpenFisca's `EnumArray` for an enum variable)."""
Population = Any
"""An OpenFisca population (`openfisca_core.populations.Population`): a formula's first argument;
`business(name, period)` is that variable's column."""
Period = Any
"""An OpenFisca period (`openfisca_core.periods.Period`), here the year `PERIOD`."""
Parameters = Callable[[Any], Any]
"""What a formula receives as `parameters`: `parameters(period)` is the tree in force then."""

BOOL_INPUTS: tuple[str, ...] = (
    "government_restricted_municipality",
    "mega_project",
    "enhanced_area",
    "distressed_municipality",
    "qualified_opportunity_zone",
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
"""Yes/no input variables, named as the scenario fields (and as the input columns)."""

COUNT_INPUTS: tuple[str, ...] = (
    "new_jobs",
    "retained_jobs",
    "labor_harmony_new_jobs",
    "labor_harmony_retained_jobs",
    "eligibility_period_years",
)
"""Integer input variables."""

MONEY_INPUTS: tuple[str, ...] = (
    "industrial_rd_capital_investment",
    "minimum_capital_investment",
    "project_median_salary",
    "county_median_salary",
    "municipality_median_salary",
    "lowest_full_time_hourly_wage",
    "state_minimum_wage",
    "board_approved_annual_limit",
)
"""Money input variables, in dollars (the columns hold int64 cents)."""

SHARE_INPUTS: tuple[str, ...] = (
    "mri_distress_score",
    "onsite_renewable_share",
    "board_underrepresented_share",
)
"""The MRI score and the two shares, as floats (the columns hold numerator and denominator)."""


# --- parameters ----------------------------------------------------------------------------------


def _parameter(
    value: float, description: str, clause: str, unit: str = "currency-USD"
) -> dict[str, Any]:
    """The data of one OpenFisca parameter in force from `IN_FORCE`, citing `clause`."""
    return {
        "description": description,
        "metadata": {"unit": unit, "reference": f"{CITE}{clause}"},
        "values": {IN_FORCE: {"value": value}},
    }


def _by_tier(description: str, clause: str, amounts: tuple[float, ...]) -> dict[str, Any]:
    """A node of five parameters, one per area tier b1..b5 of subsection (b) or (d)."""
    node: dict[str, Any] = {"description": description}
    for number, amount in enumerate(amounts, start=1):
        node[f"b{number}"] = _parameter(
            amount, f"{description}, ({clause[1]})({number})", f"{clause}({number})"
        )
    return node


def _single_amount_scale(
    description: str, clause: str, bands: tuple[tuple[int, int], ...]
) -> dict[str, Any]:
    """A single-amount scale: the amount of the band whose lower threshold the base reaches."""
    return {
        "description": description,
        "metadata": {
            "type": "single_amount",
            "threshold_unit": "job",
            "amount_unit": "currency-USD",
            "reference": f"{CITE}{clause}",
        },
        "brackets": [
            {"threshold": {IN_FORCE: {"value": low}}, "amount": {IN_FORCE: {"value": amount}}}
            for low, amount in bands
        ],
    }


PARAMETERS: dict[str, Any] = {
    "emerge": {
        "description": "Emerge program: tax credit per new or retained full-time job",
        "base_amount": _by_tier(
            "Base amount per job and year", "(b)", (4_000, 3_500, 3_000, 2_500, 500)
        ),
        "gross_amount_cap": _by_tier(
            "Maximum gross amount per job and year", "(d)", (8_000, 6_000, 5_000, 4_000, 3_000)
        ),
        "bonus": {
            "description": "Bonuses added to the base amount, per job and year",
            "distress_score": {
                "threshold": _parameter(
                    50, "MRI distress score that must be exceeded", "(c)(1)(a)", "score"
                ),
                "amount": _parameter(1_000, "MRI distress bonus", "(c)(1)(a)"),
            },
            "capital_investment": {
                "step_rate": _parameter(
                    0.40,
                    "Step of investment above the minimum, as a share of it",
                    "(c)(1)(b)",
                    "/1",
                ),
                "amount_per_step": _parameter(500, "Bonus per step", "(c)(1)(b)"),
                "maximum": _parameter(1_500, "Maximum bonus", "(c)(1)(b)"),
                "maximum_mega_project_or_restricted": _parameter(
                    5_000,
                    "Maximum bonus for a mega project or a government-restricted municipality",
                    "(c)(1)(b)",
                ),
            },
            "new_jobs": _single_amount_scale(
                "Bonus for large numbers of new full-time jobs",
                "(c)(1)(c)",
                ((0, 0), (251, 500), (401, 750), (601, 1_000), (801, 1_250), (1_001, 1_500)),
            ),
            "training": {
                "amount": _parameter(500, "Industry-specific training program", "(c)(1)(d)"),
                "state_institution_nearby": _parameter(
                    1_000,
                    "Training provided by a State educational institution within 10 miles",
                    "(c)(1)(d)",
                ),
            },
            "small_business": _parameter(500, "Small business", "(c)(1)(e)"),
            "median_salary": {
                "step_percent": _parameter(
                    35,
                    "Step of the project median above the reference median, in percent",
                    "(c)(1)(f)",
                    "percent",
                ),
                "amount_per_step": _parameter(200, "Bonus per step", "(c)(1)(f)"),
                "maximum": _parameter(1_000, "Maximum bonus", "(c)(1)(f)"),
            },
            "targeted_industry": _parameter(500, "Targeted industry", "(c)(1)(h)"),
            "incubator": _parameter(500, "Qualified incubator facility", "(c)(1)(i)"),
            "labor_harmony": {
                "amount": _parameter(
                    2_000, "Jobs in the portion subject to a labor harmony agreement", "(c)(1)(j)"
                ),
                "cap_allowance": _parameter(
                    1_000, "Amount by which such jobs may exceed the cap of (d)", "(c)(1)(j)"
                ),
            },
            "child_care": _parameter(1_000, "Child care", "(c)(1)(k)"),
            "reentry": _parameter(500, "Re-entry program partnership and hire", "(c)(1)(l)"),
            "green_building": {
                "exceeds_silver_or_remediation": _parameter(
                    250, "Exceeds LEED Silver, or substantial remediation", "(c)(1)(m)"
                ),
                "exceeds_gold": _parameter(500, "Exceeds LEED Gold", "(c)(1)(m)"),
            },
            "college_collaboration": _parameter(
                1_000, "Targeted industry collaborating with a college", "(c)(1)(n)"
            ),
            "renewable_energy": {
                "minimum_share": _parameter(
                    0.5, "Share of the electric supply needs generated on site", "(c)(1)(o)", "/1"
                ),
                "amount": _parameter(500, "On-site renewable energy", "(c)(1)(o)"),
            },
            "marine_terminal": _parameter(
                1_500, "Marine terminal in the South Jersey Port District", "(c)(1)(p)"
            ),
            "opportunity_zone": _parameter(1_000, "Qualified opportunity zone", "(c)(1)(q)"),
            "board_diversity": {
                "minimum_share": _parameter(
                    1 / 3,
                    "Share of the board from an underrepresented community",
                    "(c)(1)(r)",
                    "/1",
                ),
                "amount": _parameter(2_000, "Diverse governing board", "(c)(1)(r)"),
            },
        },
        "wage_floor": {
            "hourly": _parameter(15, "Lowest hourly pay that allows a bonus", "(c)(2)"),
            "minimum_wage_multiple": _parameter(
                1.2, "Multiple of the State minimum wage that allows a bonus", "(c)(2)", "/1"
            ),
        },
        "salary_shortfall": {
            "no_credit_percent": _parameter(
                30,
                "Shortfall below the reference median that denies the credit",
                "(e)",
                "percent",
            ),
        },
        "allowed_share": {
            "new_job": _parameter(1.0, "Share of the gross amount per new job", "(f)(1)", "/1"),
            "retained_job": _parameter(
                0.5, "Share of the gross amount per retained job", "(f)(2)", "/1"
            ),
        },
    },
}
"""The parameter tree of the model, as an OpenFisca YAML directory would hold it."""


# --- the model -----------------------------------------------------------------------------------

if _OPENFISCA:
    Business = build_entity(
        key="business",
        plural="businesses",
        label="An eligible business and its qualified business facility",
        doc="The Emerge program computes its credit per business, for one tax year.",
        is_person=True,
    )

    class AreaTier(Enum):
        """The paragraph of subsection (b) that applies, which also sets the cap of (d) (I1)."""

        b1 = "Government-restricted municipality or mega project"
        b2 = "Enhanced area"
        b3 = "Distressed municipality"
        b4 = "Qualified opportunity zone or employment and investment corridor"
        b5 = "Other eligible area"

    class GreenBuilding(Enum):
        """LEED rating the qualified business facility exceeds ((c)(1)(m))."""

        none = "Neither"
        exceeds_silver = "Exceeds Silver, not Gold"
        exceeds_gold = "Exceeds Gold"

    def _input(name: str, kind: type, label: str, clause: str, **more: Any) -> type:
        """An input variable (no formula) of the business for a year; `more` adds attributes
        such as `default_value`."""
        attributes: dict[str, Any] = {
            "value_type": kind,
            "entity": Business,
            "definition_period": YEAR,
            "label": label,
            "reference": f"{CITE}{clause}",
            **more,
        }
        return type(name, (Variable,), attributes)

    INPUT_VARIABLES: list[type] = [
        _input(
            "government_restricted_municipality",
            bool,
            "Facility in a government-restricted municipality",
            "(b)(1)",
        ),
        _input("mega_project", bool, "The project is a mega project", "(b)(1)"),
        _input("enhanced_area", bool, "Facility in an enhanced area", "(b)(2)"),
        _input("distressed_municipality", bool, "Facility in a distressed municipality", "(b)(3)"),
        _input(
            "qualified_opportunity_zone", bool, "Project in a qualified opportunity zone", "(b)(4)"
        ),
        _input(
            "employment_investment_corridor",
            bool,
            "Project in an employment and investment corridor",
            "(b)(4)",
        ),
        _input(
            "mri_distress_score",
            float,
            "Municipal Revitalization Index distress score",
            "(c)(1)(a)",
        ),
        _input(
            "industrial_rd_capital_investment",
            float,
            "Capital investment in industrial or R&D premises for such use",
            "(c)(1)(b)",
        ),
        _input(
            "minimum_capital_investment",
            float,
            "Minimum capital investment required under N.J.S.A. 34:1B-339(b)",
            "(c)(1)(b)",
        ),
        _input("new_jobs", int, "New full-time jobs", "(f)(1)"),
        _input("retained_jobs", int, "Retained full-time jobs", "(f)(2)"),
        _input(
            "labor_harmony_new_jobs",
            int,
            "New jobs in the portion subject to a labor harmony agreement",
            "(c)(1)(j)",
        ),
        _input(
            "labor_harmony_retained_jobs",
            int,
            "Retained jobs in the portion subject to a labor harmony agreement",
            "(c)(1)(j)",
        ),
        _input(
            "training_program",
            bool,
            "Funds an industry-specific training program, or pays a State institution for one",
            "(c)(1)(d)",
        ),
        _input(
            "training_by_state_institution_within_10_miles",
            bool,
            "That program is provided by a State educational institution within 10 miles",
            "(c)(1)(d)",
        ),
        _input("small_business", bool, "Qualifies as a small business", "(c)(1)(e)"),
        _input(
            "project_median_salary",
            float,
            "Median salary of the new and retained full-time jobs",
            "(e)",
        ),
        _input("county_median_salary", float, "Existing median salary of the county", "(e)"),
        _input(
            "municipality_median_salary",
            float,
            "Median salary of the government-restricted municipality",
            "(e)",
        ),
        _input("targeted_industry", bool, "Engaged primarily in a targeted industry", "(c)(1)(h)"),
        _input(
            "qualified_incubator_facility",
            bool,
            "Facility in a qualified incubator facility",
            "(c)(1)(i)",
        ),
        _input("child_care", bool, "Provides its employees access to child care", "(c)(1)(k)"),
        _input(
            "reentry_partnership_hire",
            bool,
            "Re-entry program partnership and at least one participant hired full-time",
            "(c)(1)(l)",
        ),
        _input(
            "green_building",
            Enum,
            "LEED rating exceeded",
            "(c)(1)(m)",
            possible_values=GreenBuilding,
            default_value=GreenBuilding.none,
        ),
        _input(
            "substantial_environmental_remediation",
            bool,
            "Completes substantial environmental remediation",
            "(c)(1)(m)",
        ),
        _input(
            "college_collaboration",
            bool,
            "Full-time collaborative relationship with a college or university",
            "(c)(1)(n)",
        ),
        _input(
            "onsite_renewable_share",
            float,
            "On-site renewable generation as a share of the electric supply needs",
            "(c)(1)(o)",
        ),
        _input("marine_terminal_project", bool, "Marine terminal project", "(c)(1)(p)"),
        _input(
            "south_jersey_port_district", bool, "Within the South Jersey Port District", "(c)(1)(p)"
        ),
        _input(
            "board_underrepresented_share",
            float,
            "Share of the governing board from an underrepresented community",
            "(c)(1)(r)",
        ),
        _input(
            "lowest_full_time_hourly_wage",
            float,
            "Lowest hourly pay of any full-time job at the facility",
            "(c)(2)",
        ),
        _input(
            "state_minimum_wage", float, "State minimum wage under N.J.S.A. 34:11-56a4", "(c)(2)"
        ),
        _input("has_board_approved_annual_limit", bool, "The board set an annual limit", "(g)"),
        _input("board_approved_annual_limit", float, "Board-approved annual limit", "(g)"),
        _input(
            "eligibility_period_years",
            int,
            "Years in the eligibility period",
            "(a)",
            default_value=7,
        ),
    ]

    # --- (b) and (d): the area tier, the base amount and the cap --------------------------------

    class area_tier(Variable):
        value_type = Enum
        possible_values = AreaTier
        default_value = AreaTier.b5
        entity = Business
        definition_period = YEAR
        label = "Area tier: the first paragraph of (b) whose condition holds (I1)"
        reference = f"{CITE}(b)"

        def formula(business: Population, period: Period, parameters: Parameters) -> Array:
            restricted = business("government_restricted_municipality", period)
            return select(
                [
                    restricted + business("mega_project", period),
                    business("enhanced_area", period),
                    business("distressed_municipality", period),
                    business("qualified_opportunity_zone", period)
                    + business("employment_investment_corridor", period),
                ],
                [AreaTier.b1, AreaTier.b2, AreaTier.b3, AreaTier.b4],
                default=AreaTier.b5,
            )

    def _per_tier(business: Population, period: Period, node: Any) -> Array:
        """The value of a parameter node b1..b5 for each business's area tier."""
        tier = business("area_tier", period)
        return select(
            [tier == AreaTier.b1, tier == AreaTier.b2, tier == AreaTier.b3, tier == AreaTier.b4],
            [node.b1, node.b2, node.b3, node.b4],
            default=node.b5,
        )

    class base_amount(Variable):
        value_type = float
        entity = Business
        definition_period = YEAR
        label = "Base amount of the credit per job"
        reference = f"{CITE}(b)"

        def formula(business: Population, period: Period, parameters: Parameters) -> Array:
            return _per_tier(business, period, parameters(period).emerge.base_amount)

    class gross_amount_cap(Variable):
        value_type = float
        entity = Business
        definition_period = YEAR
        label = "Limit on the gross amount per job"
        reference = f"{CITE}(d)"

        def formula(business: Population, period: Period, parameters: Parameters) -> Array:
            return _per_tier(business, period, parameters(period).emerge.gross_amount_cap)

    # --- (c)(1): the bonuses ----------------------------------------------------------------------

    class distress_score_bonus(Variable):
        value_type = float
        entity = Business
        definition_period = YEAR
        label = "Bonus for an MRI distress score greater than 50"
        reference = f"{CITE}(c)(1)(a)"

        def formula(business: Population, period: Period, parameters: Parameters) -> Array:
            p = parameters(period).emerge.bonus.distress_score
            return where(business("mri_distress_score", period) > p.threshold, p.amount, 0)

    class capital_investment_bonus(Variable):
        value_type = float
        entity = Business
        definition_period = YEAR
        label = "Bonus per 40 % of industrial or R&D investment above the minimum"
        reference = f"{CITE}(c)(1)(b)"

        def formula(business: Population, period: Period, parameters: Parameters) -> Array:
            p = parameters(period).emerge.bonus.capital_investment
            investment = business("industrial_rd_capital_investment", period)
            minimum = business("minimum_capital_investment", period)
            above = investment > minimum
            step = p.step_rate * where(above, minimum, 1)
            steps = np.floor(where(above, (investment - minimum) / step, 0))
            restricted = business("government_restricted_municipality", period)
            maximum = where(
                restricted + business("mega_project", period),
                p.maximum_mega_project_or_restricted,
                p.maximum,
            )
            return min_(p.amount_per_step * steps, maximum)

    class new_jobs_bonus(Variable):
        value_type = float
        entity = Business
        definition_period = YEAR
        label = "Bonus for large numbers of new full-time jobs"
        reference = f"{CITE}(c)(1)(c)"

        def formula(business: Population, period: Period, parameters: Parameters) -> Array:
            scale = parameters(period).emerge.bonus.new_jobs
            return scale.calc(business("new_jobs", period))

    class training_bonus(Variable):
        value_type = float
        entity = Business
        definition_period = YEAR
        label = "Bonus for an industry-specific training program"
        reference = f"{CITE}(c)(1)(d)"

        def formula(business: Population, period: Period, parameters: Parameters) -> Array:
            p = parameters(period).emerge.bonus.training
            nearby = business("training_by_state_institution_within_10_miles", period)
            amount = where(nearby, p.state_institution_nearby, p.amount)
            return where(business("training_program", period), amount, 0)

    class small_business_bonus(Variable):
        value_type = float
        entity = Business
        definition_period = YEAR
        label = "Bonus for a small business"
        reference = f"{CITE}(c)(1)(e)"

        def formula(business: Population, period: Period, parameters: Parameters) -> Array:
            amount = parameters(period).emerge.bonus.small_business
            return where(business("small_business", period), amount, 0)

    class reference_median_salary(Variable):
        value_type = float
        entity = Business
        definition_period = YEAR
        label = "Median salary the project's is compared with (I6)"
        reference = f"{CITE}(c)(1)(f)"

        def formula(business: Population, period: Period, parameters: Parameters) -> Array:
            return where(
                business("government_restricted_municipality", period),
                business("municipality_median_salary", period),
                business("county_median_salary", period),
            )

    class median_salary_bonus(Variable):
        value_type = float
        entity = Business
        definition_period = YEAR
        label = "Bonus per 35 % by which the project's median salary exceeds the reference"
        reference = f"{CITE}(c)(1)(f)"

        def formula(business: Population, period: Period, parameters: Parameters) -> Array:
            p = parameters(period).emerge.bonus.median_salary
            project = business("project_median_salary", period)
            reference = business("reference_median_salary", period)
            excess_percent = max_(project - reference, 0) / reference * 100
            steps = np.floor(excess_percent / p.step_percent)
            return min_(p.amount_per_step * steps, p.maximum)

    class targeted_industry_bonus(Variable):
        value_type = float
        entity = Business
        definition_period = YEAR
        label = "Bonus for a business engaged primarily in a targeted industry"
        reference = f"{CITE}(c)(1)(h)"

        def formula(business: Population, period: Period, parameters: Parameters) -> Array:
            amount = parameters(period).emerge.bonus.targeted_industry
            return where(business("targeted_industry", period), amount, 0)

    class incubator_bonus(Variable):
        value_type = float
        entity = Business
        definition_period = YEAR
        label = "Bonus for a facility in a qualified incubator facility"
        reference = f"{CITE}(c)(1)(i)"

        def formula(business: Population, period: Period, parameters: Parameters) -> Array:
            amount = parameters(period).emerge.bonus.incubator
            return where(business("qualified_incubator_facility", period), amount, 0)

    class labor_harmony_bonus(Variable):
        value_type = float
        entity = Business
        definition_period = YEAR
        label = "Bonus per job in the portion subject to a labor harmony agreement (I8)"
        reference = f"{CITE}(c)(1)(j)"

        def formula(business: Population, period: Period, parameters: Parameters) -> Array:
            amount = parameters(period).emerge.bonus.labor_harmony.amount
            return where(business("meets_wage_floor", period), amount, 0)

    class child_care_bonus(Variable):
        value_type = float
        entity = Business
        definition_period = YEAR
        label = "Bonus for access to child care"
        reference = f"{CITE}(c)(1)(k)"

        def formula(business: Population, period: Period, parameters: Parameters) -> Array:
            amount = parameters(period).emerge.bonus.child_care
            return where(business("child_care", period), amount, 0)

    class reentry_bonus(Variable):
        value_type = float
        entity = Business
        definition_period = YEAR
        label = "Bonus for a re-entry program partnership with a hire"
        reference = f"{CITE}(c)(1)(l)"

        def formula(business: Population, period: Period, parameters: Parameters) -> Array:
            amount = parameters(period).emerge.bonus.reentry
            return where(business("reentry_partnership_hire", period), amount, 0)

    class green_building_bonus(Variable):
        value_type = float
        entity = Business
        definition_period = YEAR
        label = "Bonus for a LEED rating or substantial environmental remediation (I9)"
        reference = f"{CITE}(c)(1)(m)"

        def formula(business: Population, period: Period, parameters: Parameters) -> Array:
            p = parameters(period).emerge.bonus.green_building
            rating = business("green_building", period)
            remediation = business("substantial_environmental_remediation", period)
            return select(
                [
                    rating == GreenBuilding.exceeds_gold,
                    (rating == GreenBuilding.exceeds_silver) + remediation,
                ],
                [p.exceeds_gold, p.exceeds_silver_or_remediation],
                default=0,
            )

    class college_collaboration_bonus(Variable):
        value_type = float
        entity = Business
        definition_period = YEAR
        label = "Bonus for a targeted industry collaborating with a college or university"
        reference = f"{CITE}(c)(1)(n)"

        def formula(business: Population, period: Period, parameters: Parameters) -> Array:
            amount = parameters(period).emerge.bonus.college_collaboration
            eligible = business("targeted_industry", period) * business(
                "college_collaboration", period
            )
            return where(eligible, amount, 0)

    class renewable_energy_bonus(Variable):
        value_type = float
        entity = Business
        definition_period = YEAR
        label = "Bonus for on-site renewable energy of at least half the supply needs"
        reference = f"{CITE}(c)(1)(o)"

        def formula(business: Population, period: Period, parameters: Parameters) -> Array:
            p = parameters(period).emerge.bonus.renewable_energy
            share = business("onsite_renewable_share", period)
            return where(share >= p.minimum_share, p.amount, 0)

    class marine_terminal_bonus(Variable):
        value_type = float
        entity = Business
        definition_period = YEAR
        label = "Bonus for a marine terminal project in the South Jersey Port District (I12)"
        reference = f"{CITE}(c)(1)(p)"

        def formula(business: Population, period: Period, parameters: Parameters) -> Array:
            amount = parameters(period).emerge.bonus.marine_terminal
            eligible = (
                business("marine_terminal_project", period)
                * business("south_jersey_port_district", period)
                * np.logical_not(business("government_restricted_municipality", period))
            )
            return where(eligible, amount, 0)

    class opportunity_zone_bonus(Variable):
        value_type = float
        entity = Business
        definition_period = YEAR
        label = "Bonus for a facility in a qualified opportunity zone"
        reference = f"{CITE}(c)(1)(q)"

        def formula(business: Population, period: Period, parameters: Parameters) -> Array:
            amount = parameters(period).emerge.bonus.opportunity_zone
            return where(business("qualified_opportunity_zone", period), amount, 0)

    class board_diversity_bonus(Variable):
        value_type = float
        entity = Business
        definition_period = YEAR
        label = "Bonus for a governing board one-third or more from underrepresented communities"
        reference = f"{CITE}(c)(1)(r)"

        def formula(business: Population, period: Period, parameters: Parameters) -> Array:
            p = parameters(period).emerge.bonus.board_diversity
            share = business("board_underrepresented_share", period)
            return where(share >= p.minimum_share, p.amount, 0)

    # --- (c)(2), (d): the wage floor and the gross amounts ----------------------------------------

    class meets_wage_floor(Variable):
        value_type = bool
        entity = Business
        definition_period = YEAR
        label = "No full-time job pays less than $15 an hour or 120 % of the minimum wage (I13)"
        reference = f"{CITE}(c)(2)"

        def formula(business: Population, period: Period, parameters: Parameters) -> Array:
            p = parameters(period).emerge.wage_floor
            floor = max_(p.hourly, p.minimum_wage_multiple * business("state_minimum_wage", period))
            return business("lowest_full_time_hourly_wage", period) >= floor

    BONUSES: tuple[str, ...] = (
        "distress_score_bonus",
        "capital_investment_bonus",
        "new_jobs_bonus",
        "training_bonus",
        "small_business_bonus",
        "median_salary_bonus",
        "targeted_industry_bonus",
        "incubator_bonus",
        "child_care_bonus",
        "reentry_bonus",
        "green_building_bonus",
        "college_collaboration_bonus",
        "renewable_energy_bonus",
        "marine_terminal_bonus",
        "opportunity_zone_bonus",
        "board_diversity_bonus",
    )
    """The bonuses of (c)(1) every job receives ((c)(1)(j) applies only to covered jobs)."""

    class bonus_amount(Variable):
        value_type = float
        entity = Business
        definition_period = YEAR
        label = "Sum of the (c)(1) bonuses of every job, none below the wage floor"
        reference = f"{CITE}(c)(1)"

        def formula(business: Population, period: Period, parameters: Parameters) -> Array:
            total = sum(business(name, period) for name in BONUSES)
            return where(business("meets_wage_floor", period), total, 0)

    class gross_amount(Variable):
        value_type = float
        entity = Business
        definition_period = YEAR
        label = "Gross amount per job not covered by a labor harmony agreement"
        reference = f"{CITE}(d)"

        def formula(business: Population, period: Period, parameters: Parameters) -> Array:
            amount = business("base_amount", period) + business("bonus_amount", period)
            return min_(amount, business("gross_amount_cap", period))

    class gross_amount_labor_harmony(Variable):
        value_type = float
        entity = Business
        definition_period = YEAR
        label = "Gross amount per job covered by a labor harmony agreement (I8 covered-jobs)"
        reference = f"{CITE}(d)"

        def formula(business: Population, period: Period, parameters: Parameters) -> Array:
            allowance = parameters(period).emerge.bonus.labor_harmony.cap_allowance
            bonus = business("labor_harmony_bonus", period)
            amount = business("base_amount", period) + business("bonus_amount", period) + bonus
            cap = business("gross_amount_cap", period) + where(bonus > 0, allowance, 0)
            return min_(amount, cap)

    # --- (e): the salary shortfall ----------------------------------------------------------------

    class salary_shortfall_percent(Variable):
        value_type = float
        entity = Business
        definition_period = YEAR
        label = "Percentage by which the project's median salary is below the reference"
        reference = f"{CITE}(e)"

        def formula(business: Population, period: Period, parameters: Parameters) -> Array:
            project = business("project_median_salary", period)
            reference = business("reference_median_salary", period)
            return max_(reference - project, 0) / reference * 100

    class credit_allowed(Variable):
        value_type = bool
        entity = Business
        definition_period = YEAR
        label = "The project's median salary is less than 30 % below the reference"
        reference = f"{CITE}(e)"

        def formula(business: Population, period: Period, parameters: Parameters) -> Array:
            limit = parameters(period).emerge.salary_shortfall.no_credit_percent
            return business("salary_shortfall_percent", period) < limit

    class salary_reduction_factor(Variable):
        value_type = float
        entity = Business
        definition_period = YEAR
        label = "Share of the gross amount left after the (e) reduction (I15, I16)"
        reference = f"{CITE}(e)"

        def formula(business: Population, period: Period, parameters: Parameters) -> Array:
            factor = 1 - business("salary_shortfall_percent", period) / 100
            return where(business("credit_allowed", period), factor, 0)

    # --- (f): per job; (g) and (a): the totals ----------------------------------------------------

    def _per_job(gross: str, share: str) -> Callable[[Population, Period, Parameters], Array]:
        """The formula of a per-job credit: the reduced gross amount times the share of (f)."""

        def formula(business: Population, period: Period, parameters: Parameters) -> Array:
            allowed = parameters(period).emerge.allowed_share[share]
            factor = business("salary_reduction_factor", period)
            return business(gross, period) * factor * allowed

        return formula

    class per_job_new(Variable):
        value_type = float
        entity = Business
        definition_period = YEAR
        label = "Credit per new job not covered by a labor harmony agreement"
        reference = f"{CITE}(f)(1)"
        formula = _per_job("gross_amount", "new_job")

    class per_job_new_labor_harmony(Variable):
        value_type = float
        entity = Business
        definition_period = YEAR
        label = "Credit per new job covered by a labor harmony agreement"
        reference = f"{CITE}(f)(1)"
        formula = _per_job("gross_amount_labor_harmony", "new_job")

    class per_job_retained(Variable):
        value_type = float
        entity = Business
        definition_period = YEAR
        label = "Credit per retained job not covered by a labor harmony agreement"
        reference = f"{CITE}(f)(2)"
        formula = _per_job("gross_amount", "retained_job")

    class per_job_retained_labor_harmony(Variable):
        value_type = float
        entity = Business
        definition_period = YEAR
        label = "Credit per retained job covered by a labor harmony agreement"
        reference = f"{CITE}(f)(2)"
        formula = _per_job("gross_amount_labor_harmony", "retained_job")

    class annual_total_before_limit(Variable):
        value_type = float
        entity = Business
        definition_period = YEAR
        label = "Credit for all new and retained jobs for the year, before the board's limit"
        reference = f"{CITE}(f)"

        def formula(business: Population, period: Period, parameters: Parameters) -> Array:
            new = business("new_jobs", period)
            new_covered = business("labor_harmony_new_jobs", period)
            retained = business("retained_jobs", period)
            retained_covered = business("labor_harmony_retained_jobs", period)
            return (
                (new - new_covered) * business("per_job_new", period)
                + new_covered * business("per_job_new_labor_harmony", period)
                + (retained - retained_covered) * business("per_job_retained", period)
                + retained_covered * business("per_job_retained_labor_harmony", period)
            )

    class annual_credit(Variable):
        value_type = float
        entity = Business
        definition_period = YEAR
        label = "Credit for the year, at most the amount the board found necessary (I18)"
        reference = f"{CITE}(g)"

        def formula(business: Population, period: Period, parameters: Parameters) -> Array:
            total = business("annual_total_before_limit", period)
            limit = business("board_approved_annual_limit", period)
            return where(
                business("has_board_approved_annual_limit", period), min_(total, limit), total
            )

    class eligibility_period_total(Variable):
        value_type = float
        entity = Business
        definition_period = YEAR
        label = "Credit over the eligibility period: the annual credit for each year (I19)"
        reference = f"{CITE}(a)"

        def formula(business: Population, period: Period, parameters: Parameters) -> Array:
            years = business("eligibility_period_years", period)
            return business("annual_credit", period) * years

    class EmergeTaxBenefitSystem(TaxBenefitSystem):
        """The Emerge credit as an OpenFisca tax and benefit system: one entity, the parameters
        of `PARAMETERS` and the variables above."""

        def __init__(self) -> None:
            super().__init__([Business])
            self.parameters = ParameterNode("", data=PARAMETERS)
            self.add_variables(*INPUT_VARIABLES)
            self.add_variables(
                area_tier,
                base_amount,
                gross_amount_cap,
                distress_score_bonus,
                capital_investment_bonus,
                new_jobs_bonus,
                training_bonus,
                small_business_bonus,
                reference_median_salary,
                median_salary_bonus,
                targeted_industry_bonus,
                incubator_bonus,
                labor_harmony_bonus,
                child_care_bonus,
                reentry_bonus,
                green_building_bonus,
                college_collaboration_bonus,
                renewable_energy_bonus,
                marine_terminal_bonus,
                opportunity_zone_bonus,
                board_diversity_bonus,
                meets_wage_floor,
                bonus_amount,
                gross_amount,
                gross_amount_labor_harmony,
                salary_shortfall_percent,
                credit_allowed,
                salary_reduction_factor,
                per_job_new,
                per_job_new_labor_harmony,
                per_job_retained,
                per_job_retained_labor_harmony,
                annual_total_before_limit,
                annual_credit,
                eligibility_period_total,
            )


# --- the column interface ------------------------------------------------------------------------


def available() -> bool:
    """True when openfisca-core imports, so that this baseline can run."""
    return _OPENFISCA


def version() -> str:
    """The installed openfisca-core's version ("" when it is not installed)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("openfisca-core")
    except PackageNotFoundError:
        return ""


@functools.cache
def tax_benefit_system(float64: bool = False) -> Any:
    """The model's `TaxBenefitSystem`, built once per process (and per storage precision).

    With `float64`, every `value_type = float` variable is stored as float64 instead of
    OpenFisca's float32: the same formulas, to separate their logic from the precision of storage.
    """
    if not _OPENFISCA:
        raise RuntimeError("openfisca-core is not installed")
    system = EmergeTaxBenefitSystem()
    if float64:
        for variable in system.variables.values():
            if variable.value_type is float:
                variable.dtype = np.float64
    return system


def credit_columns(cols: dict[str, np.ndarray], *, float64: bool = False) -> dict[str, np.ndarray]:
    """Computes the eight results of N.J.S.A. 34:1B-343 with OpenFisca for a column batch.

    Takes the input columns of `benchmarks.baseline_numpy.credit_columns` and returns the same
    names: int8 `area_tier` (1..5 for "b1".."b5") and each of `MONEY_RESULTS` as int64 cents,
    `np.round` of the float result times 100. One simulation per call, for the year `PERIOD`.
    """
    system = tax_benefit_system(float64)
    n = len(cols["new_jobs"])
    simulation = SimulationBuilder().build_default_simulation(system, count=n)
    for name in BOOL_INPUTS:
        simulation.set_input(name, PERIOD, cols[name])
    for name in COUNT_INPUTS:
        simulation.set_input(name, PERIOD, cols[name])
    for name in MONEY_INPUTS:
        simulation.set_input(name, PERIOD, cols[name] / 100)
    for name in SHARE_INPUTS:
        simulation.set_input(name, PERIOD, cols[name + "_num"] / cols[name + "_den"])
    simulation.set_input(
        "has_board_approved_annual_limit", PERIOD, cols["board_approved_annual_limit_valid"]
    )
    simulation.set_input("green_building", PERIOD, cols["green_building_code"])

    tier = simulation.calculate("area_tier", PERIOD)
    out: dict[str, np.ndarray] = {"area_tier": (np.asarray(tier) + 1).astype(np.int8)}
    for name in MONEY_RESULTS:
        dollars = np.asarray(simulation.calculate(name, PERIOD), dtype=np.float64)
        out[name] = np.round(dollars * 100).astype(np.int64)
    return out


# --- the benchmark on its own --------------------------------------------------------------------


def _best_of(repeats: int, run: Callable[[], object]) -> float:
    """The shortest wall time of `repeats` runs, in seconds."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def _agreement(label: str, ours: dict[str, np.ndarray], exact: dict[str, np.ndarray]) -> None:
    """Prints how many rows equal the exact baseline in every output, and per output the rows
    that differ, the rows more than a cent away and the largest difference."""
    names = ("area_tier", *MONEY_RESULTS)
    n = len(exact["area_tier"])
    equal = np.ones(n, dtype=np.bool_)
    near = np.ones(n, dtype=np.bool_)
    print(f"{label}:")
    for name in names:
        difference = np.abs(ours[name].astype(np.int64) - exact[name].astype(np.int64))
        tolerance = 0 if name == "area_tier" else 1
        equal &= difference == 0
        near &= difference <= tolerance
        print(
            f"  {name:<32} mismatches {int(np.count_nonzero(difference)):>7}"
            f"  beyond 1 cent {int(np.count_nonzero(difference > tolerance)):>7}"
            f"  max |diff| {int(difference.max()):>12} cents"
        )
    print(f"  exact rows: {int(equal.sum())}/{n}")
    print(f"  rows within 1 cent (area tier equal): {int(near.sum())}/{n}")


def main() -> None:
    """Times this baseline and the numpy one on 200,000 rows and prints their agreement."""
    from importlib.metadata import version

    from benchmarks import baseline_numpy
    from benchmarks.population import population, to_columns

    if not available():
        print("openfisca-core is not installed: nothing to measure")
        return
    n = 200_000
    cols = to_columns(population(n, seed=2026))
    exact = baseline_numpy.credit_columns(cols)
    print(f"openfisca-core {version('openfisca-core')}, numpy {np.__version__}, {n} rows")
    for float64 in (False, True):
        credit_columns(cols, float64=float64)  # builds the tax-benefit system outside the timing
        seconds = _best_of(3, functools.partial(credit_columns, cols, float64=float64))
        storage = "float64" if float64 else "float32 (OpenFisca's default)"
        print(f"openfisca, {storage}: {n / seconds:,.0f} rows/s")
    seconds = _best_of(3, lambda: baseline_numpy.credit_columns(cols))
    print(f"numpy exact baseline: {n / seconds:,.0f} rows/s")
    _agreement("openfisca (float32) against the exact numpy baseline", credit_columns(cols), exact)
    _agreement(
        "openfisca with float64 storage against the exact numpy baseline",
        credit_columns(cols, float64=True),
        exact,
    )


if __name__ == "__main__":
    main()
