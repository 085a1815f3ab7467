"""The generated fast path agrees exactly with the reference evaluator, or defers to it."""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

from conftest import EXAMPLES, overlapping_cases, write_variant
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lextrace import Statute, load_statute
from lextrace.dsl import ast, codegen
from lextrace.dsl.evaluator import evaluate
from lextrace.dsl.values import Derived
from lextrace.verify.strategies import readings, scenarios

STATUTE = load_statute()
AMENDED = [
    load_statute(path)
    for path in sorted((Path(__file__).parents[1] / "statute" / "amendments").glob("*/*.lex"))
]


def reference(statute: Statute, inputs: dict, selected: dict) -> dict:
    evaluation = evaluate(statute.program, inputs, selected)
    return {name: evaluation.memo[(name, ())] for name in statute.ast.result_names}


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenario=scenarios(STATUTE.ast), chosen=readings(STATUTE.ast))
def test_fast_path_equals_the_reference_exactly(scenario, chosen) -> None:
    selected = STATUTE.select_readings(chosen)
    inputs = STATUTE.validate(scenario)
    if any(type(value) is Derived for value in inputs.values()):
        # Facts derived from a payroll are computed by the reference evaluator, always.
        assert STATUTE.evaluate_inputs(inputs, selected).values == reference(
            STATUTE, inputs, selected
        )
        return
    fast = codegen.run_fast(STATUTE.ast, inputs, selected)
    assert fast is not None, "the bundled statute never needs the reference for a flat year"
    expected = reference(STATUTE, inputs, selected)
    assert fast == expected
    for name, value in fast.items():
        assert not isinstance(value, float), name


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_fast_path_equals_the_reference_on_the_amendment_drafts(data) -> None:
    for statute in AMENDED:
        scenario = data.draw(scenarios(statute.ast))
        selected = statute.select_readings(data.draw(readings(statute.ast)))
        inputs = statute.validate(scenario)
        if any(type(value) is Derived for value in inputs.values()):
            # Facts derived from a payroll are computed by the reference evaluator, always.
            assert statute.evaluate_inputs(inputs, selected).values == reference(
                statute, inputs, selected
            )
            continue
        fast = codegen.run_fast(statute.ast, inputs, selected)
        assert fast is not None
        assert fast == reference(statute, inputs, selected)


def test_examples_agree_and_the_api_uses_the_fast_path(statute: Statute) -> None:
    for path in sorted(EXAMPLES.glob("*.json")):
        fast = statute.evaluate_file(path)
        traced = statute.evaluate_file(path, trace=True)
        assert fast.trace is None and traced.trace is not None
        assert fast.values == traced.values, path.name
        assert fast.to_dict() == traced.to_dict(include_trace=False)


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
    variant, scenario = overlapping_cases(tmp_path, encoding_source)
    statute = load_statute(variant)
    inputs = statute.validate(scenario)
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


def exclusivity_checks(statute: Statute) -> int:
    """How many distinct exclusivity checks the generated source holds: a rule computed for
    each value of a parameter (`bonus_total(covered: ...)`) repeats its checks, with other
    temporaries, and counts once."""
    source = codegen.generated_source(statute.ast, statute.select_readings())
    return len(
        {
            re.sub(r"t_\d+", "t", line.strip())
            for line in source.splitlines()
            if line.endswith(") > 1: raise Defer")
        }
    )


def test_exclusivity_is_skipped_only_where_the_form_proves_it(
    tmp_path: Path, encoding_source: str
) -> None:
    statute = load_statute()
    source = codegen.generated_source(statute.ast, statute.select_readings())
    # `area_tier = b1` ... `= b5` with constant amounts: one table lookup, no check.
    assert "d_base_amount = _k" in source and "[d_area_tier]" in source
    # The job bands are disjoint ranges of new_jobs: proved exclusive, no check either.
    assert exclusivity_checks(statute) == 0
    # The same member twice is not exclusive: the check comes back (and the run defers).
    twice = load_statute(
        write_variant(
            tmp_path,
            encoding_source,
            "case base_amount = $3,500 when area_tier = b2;",
            "case base_amount = $3,500 when area_tier = b1;",
        )
    )
    assert exclusivity_checks(twice) == 1
    # Overlapping bands (400 in two of them) are not proved exclusive: checked.
    overlapping = load_statute(
        write_variant(
            tmp_path,
            encoding_source,
            "new_jobs >= 401 and new_jobs <= 600;",
            'new_jobs >= 400 and new_jobs <= 600 reviewed 400 "an overlap, on purpose";',
        )
    )
    assert exclusivity_checks(overlapping) == 1
    inputs = overlapping.validate(
        {
            "new_jobs": 400,
            "project_median_salary": "60000",
            "county_median_salary": "60000",
            "lowest_full_time_hourly_wage": "20",
            "state_minimum_wage": "15",
        }
    )
    assert codegen.run_fast(overlapping.ast, inputs, overlapping.select_readings()) is None
    assert codegen.run_fast(statute.ast, inputs, statute.select_readings()) is not None


def _band(low: tuple[str, int] | None, high: tuple[str, int] | None) -> ast.Expr:
    """`new_jobs OP low and new_jobs OP high` (either side may be left out)."""
    span = ast.Span(1, 1, 1, 1, 0, 0)
    jobs = ast.Ref(span, "new_jobs")
    parts = [
        ast.Compare(span, op, jobs, ast.Literal(span, Fraction(limit), "number", str(limit)))
        for op, limit in [side for side in (low, high) if side is not None]
    ]
    return parts[0] if len(parts) == 1 else ast.BoolOp(span, "and", parts[0], parts[1])


def test_ranges_are_exclusive_only_when_no_number_lies_in_two() -> None:
    def exclusive(*bands: ast.Expr) -> bool:
        return codegen._exclusive_by_ranges(list(bands), STATUTE.ast, {})

    assert exclusive(_band(("<", 5), None), _band((">=", 5), None))
    assert exclusive(_band(("<=", 4), None), _band((">", 4), None))
    assert not exclusive(_band(("<=", 5), None), _band((">=", 5), None))
    assert exclusive(
        _band((">=", 1), ("<=", 3)), _band((">=", 4), ("<=", 9)), _band((">", 9), None)
    )
    assert not exclusive(_band((">=", 1), ("<=", 4)), _band((">=", 4), ("<=", 9)))
    assert exclusive(_band(("=", 2), None), _band(("=", 3), None))
    assert not exclusive(_band(("=", 2), None), _band((">=", 2), ("<=", 2)))
    # Another name, or a test that is not a range, proves nothing.
    span = ast.Span(1, 1, 1, 1, 0, 0)
    retained = ast.Compare(
        span, ">", ast.Ref(span, "retained_jobs"), ast.Literal(span, Fraction(9), "number", "9")
    )
    assert not exclusive(_band(("<", 5), None), retained)
    assert not exclusive(_band(("<", 5), None), ast.Ref(span, "small_business"))
