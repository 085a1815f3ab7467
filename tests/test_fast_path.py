"""The generated fast path agrees exactly with the reference evaluator, or defers to it."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from conftest import EXAMPLES, write_variant
from hypothesis import HealthCheck, given, settings

from lextrace import Statute, load_statute
from lextrace.dsl import codegen
from lextrace.dsl.evaluator import evaluate
from lextrace.verify.strategies import readings, scenarios

STATUTE = load_statute()


def reference(statute: Statute, inputs: dict, selected: dict) -> dict:
    evaluation = evaluate(statute.program, inputs, selected)
    return {name: evaluation.memo[(name, ())] for name in statute.ast.result_names}


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenario=scenarios(STATUTE.ast), chosen=readings(STATUTE.ast))
def test_fast_path_equals_the_reference_exactly(scenario, chosen) -> None:
    selected = STATUTE.select_readings(chosen)
    inputs = STATUTE.validate(scenario)
    fast = codegen.run_fast(STATUTE.ast, inputs, selected)
    assert fast is not None, "the bundled statute never needs the reference"
    expected = reference(STATUTE, inputs, selected)
    assert fast == expected
    for name, value in fast.items():
        assert not isinstance(value, float), name


def test_examples_agree_and_the_api_uses_the_fast_path(statute: Statute) -> None:
    for path in sorted(EXAMPLES.glob("*.json")):
        fast = statute.evaluate_file(path)
        traced = statute.evaluate_file(path, trace=True)
        assert fast.trace is None and traced.trace is not None
        assert fast.values == traced.values, path.name
        assert fast.to_json() == traced.to_json(include_trace=False)


def test_fractions_stay_exact_and_whole_values_become_integers(statute: Statute) -> None:
    result = statute.evaluate(
        {
            "new_jobs": 3,
            "project_median_salary": "69999.99",
            "county_median_salary": "70000.00",
            "lowest_full_time_hourly_wage": "20",
            "state_minimum_wage": "15",
        }
    )
    per_job = result.values["per_job_new"]
    assert isinstance(per_job, Fraction) and per_job.denominator != 1
    assert per_job == Fraction(500) * Fraction(6999999, 7000000)


def test_an_error_defers_to_the_reference_and_its_message(
    tmp_path: Path, encoding_source: str
) -> None:
    # Two exclusive cases that both hold: the fast path defers, the reference names them.
    variant = write_variant(
        tmp_path,
        encoding_source,
        "case salary_reference = county_median_salary when not government_restricted_municipality;",
        "case salary_reference = county_median_salary when true;",
    )
    statute = load_statute(variant)
    inputs = statute.validate(
        {
            "government_restricted_municipality": True,
            "municipality_median_salary": "60000",
            "new_jobs": 1,
            "project_median_salary": "60000",
            "county_median_salary": "60000",
            "lowest_full_time_hourly_wage": "20",
            "state_minimum_wage": "15",
        }
    )
    selected = statute.select_readings()
    assert codegen.run_fast(statute.ast, inputs, selected) is None
    try:
        statute.evaluate_inputs(inputs, selected)
    except Exception as error:
        assert "defined twice" in str(error)
    else:  # pragma: no cover
        raise AssertionError("the reference evaluator must refuse this scenario")


def test_generated_source_holds_only_identifiers_from_the_encoding(statute: Statute) -> None:
    source = codegen.generated_source(statute.ast, statute.select_readings())
    assert source.startswith("def evaluate(inputs):")
    assert '"' not in source  # no string from the encoding's words or descriptions
    for declared in statute.ast.inputs.values():
        assert declared.description not in source


def test_exclusivity_is_skipped_only_where_the_form_proves_it(
    tmp_path: Path, encoding_source: str
) -> None:
    statute = load_statute()
    source = codegen.generated_source(statute.ast, statute.select_readings())
    # `area_tier = b1` ... `= b5`: one name, distinct members: no check is generated.
    assert "d_base_amount_c0 + d_base_amount_c1" not in source
    # The job bands are ranges: exclusive in fact, not by form, so they are still checked.
    assert "d_large_employer_bonus_c0 + d_large_employer_bonus_c1" in source
    # The same member twice is not exclusive: the check comes back (and the run defers).
    variant = write_variant(
        tmp_path,
        encoding_source,
        "case base_amount = $3,500 when area_tier = b2;",
        "case base_amount = $3,500 when area_tier = b1;",
    )
    twice = load_statute(variant)
    assert "d_base_amount_c0 + d_base_amount_c1" in codegen.generated_source(
        twice.ast, twice.select_readings()
    )
