"""The input contract declared in the encoding matches scenario-format.md, field by field.

The table below is written from scenario-format.md (an independent statement of the contract):
name, type, default ("required", or the default's text, or "null").
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lextrace import Statute
from lextrace.dsl.contract import fields

SCENARIO_FORMAT = {
    "government_restricted_municipality": ("bool", "false"),
    "mega_project": ("bool", "false"),
    "enhanced_area": ("bool", "false"),
    "distressed_municipality": ("bool", "false"),
    "qualified_opportunity_zone": ("bool", "false"),
    "employment_investment_corridor": ("bool", "false"),
    "mri_distress_score": ("number", "0"),
    "industrial_rd_capital_investment": ("money", "$0"),
    "minimum_capital_investment": ("money", "$0"),
    "new_jobs": ("count", "required"),
    "retained_jobs": ("count", "0"),
    "labor_harmony_new_jobs": ("count", "0"),
    "labor_harmony_retained_jobs": ("count", "0"),
    "training_program": ("bool", "false"),
    "training_by_state_institution_within_10_miles": ("bool", "false"),
    "small_business": ("bool", "false"),
    "project_median_salary": ("money", "required"),
    "county_median_salary": ("money", "required"),
    "municipality_median_salary": ("money", "null"),
    "targeted_industry": ("bool", "false"),
    "qualified_incubator_facility": ("bool", "false"),
    "child_care": ("bool", "false"),
    "reentry_partnership_hire": ("bool", "false"),
    "green_building": ("enum(none, exceeds_silver, exceeds_gold)", "none"),
    "substantial_environmental_remediation": ("bool", "false"),
    "college_collaboration": ("bool", "false"),
    "onsite_renewable_share": ("share", "0"),
    "marine_terminal_project": ("bool", "false"),
    "south_jersey_port_district": ("bool", "false"),
    "board_underrepresented_share": ("share", "0"),
    "lowest_full_time_hourly_wage": ("money", "required"),
    # of the eligibility period (docs/scenario-format.md): the annual report's jobs, the tax year
    "full_time_jobs": ("list of full_time_job", "null"),
    "full_time_jobs[].id": ("text", "required"),
    "full_time_jobs[].kind": ("enum(new, retained, other)", "required"),
    "full_time_jobs[].annual_salary": ("money", "required"),
    "full_time_jobs[].hourly_wage": ("money", "required"),
    "full_time_jobs[].labor_harmony": ("bool", "false"),
    "tax_year": ("count", "null"),
    "state_minimum_wage": ("money", "required"),
    "board_approved_annual_limit": ("money", "null"),
    "eligibility_period_years": ("count", "7"),
}


def test_fields_types_and_defaults_match_the_format(statute: Statute) -> None:
    declared = {f.name: (f.type, f.default) for f in fields(statute.ast)}
    assert declared == SCENARIO_FORMAT


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("mri_distress_score", "at least 0; at most 100"),
        ("minimum_capital_investment", "more than $0 when industrial_rd_capital_investment > $0"),
        ("labor_harmony_new_jobs", "at most new_jobs"),
        ("labor_harmony_retained_jobs", "at most retained_jobs"),
        ("project_median_salary", "more than $0"),
        ("municipality_median_salary", "required when government_restricted_municipality"),
        ("board_approved_annual_limit", "at least $0; may be null"),
        ("eligibility_period_years", "at least 1; at most 10"),
        (
            "new_jobs",
            "derived by payroll_new_jobs when full_time_jobs is given (not given then)",
        ),
    ],
)
def test_bounds_match_the_format(statute: Statute, name: str, words: str) -> None:
    constraints = {f.name: f.constraints for f in fields(statute.ast)}
    assert words in constraints[name]


def test_every_field_is_used_by_a_clause(statute: Statute) -> None:
    for field in fields(statute.ast):
        assert field.clauses, field.name


def test_the_ci_recipe_is_the_same_in_the_readme_and_the_docs() -> None:
    from conftest import ROOT

    def recipe(path: str) -> str:
        text = (ROOT / path).read_text(encoding="utf-8")
        return text[text.index("CI recipe") :].split("## The Python API")[0].strip()

    assert "lextrace verify -e statute/nj-34-1b-343.lex --sarif" in recipe("README.md")
    assert recipe("README.md") == recipe("docs/proofs.md")


def test_a_field_used_only_at_section_level_or_by_a_property_names_its_clauses(
    tmp_path: Path,
) -> None:
    from lextrace.dsl.loader import load

    (tmp_path / "fees.txt").write_text(
        "5. Fees.\na. The fee is $10 per item.\nb. A surcharge is never negative.\n",
        encoding="utf-8",
    )
    path = tmp_path / "fees.lex"
    path.write_text(
        """statute "Test Act s.5"
  title "Fees"
  official "fees.txt"

input items: count = 0 "items";
input surcharge: money = $0 min $0 "surcharge";
input discount: money = $0 min $0 max $1 "discount";

results fee_total;

section 5. "Fees." {
  rule fee_total: money = fee + surcharge - discount;
  a. "The fee is $10 per item." {
    rule fee: money = $10 * items;
  }
  b. "A surcharge is never negative." {
    invariant never_negative "a surcharge is never negative": surcharge >= $0 reviewed $0 "zero";
    monotone more_discount "a discount never raises the fee": fee_total rise with items;
  }
}
""",
        encoding="utf-8",
    )
    found = {field.name: field.clauses for field in fields(load(path))}
    assert found == {
        "items": ("(a)", "(b)"),
        "surcharge": ("Test Act s.5", "(b)"),
        "discount": ("Test Act s.5",),
    }
