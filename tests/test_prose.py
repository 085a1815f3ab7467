"""Traced explanations in prose: every number in a sentence is the evaluator's number."""

from __future__ import annotations

import re

from conftest import EXAMPLES, write_flag_statute
from hypothesis import HealthCheck, given, settings

from lextrace import Statute, load_statute
from lextrace.dsl.prose import Narrator
from lextrace.dsl.trace import display
from lextrace.dsl.values import percent
from lextrace.verify.strategies import readings, scenarios

STATUTE = load_statute()


def test_each_sentence_states_the_value_the_evaluator_computed(statute: Statute) -> None:
    for path in sorted(EXAMPLES.glob("*.json")):
        result = statute.evaluate_file(path, trace=True)
        assert result.trace is not None
        narrator = Narrator(result.trace)
        for step in result.trace.steps:
            sentence = narrator.explain(step)
            shown = display(step.definition.type, step.value)
            assert sentence.value.startswith(shown), step.label
            if step.definition.type.kind == "number" and 0 < abs(step.value) < 1:
                assert sentence.value == f"{shown} ({percent(step.value)})"  # a ratio, also in %
            if step.applied is not False and isinstance(step.value, bool | str) is False:
                # a formula ends with its value, a stated amount names it
                assert shown in sentence.text, (path.name, step.label, sentence.text)


def test_the_cap_that_governs_is_named_with_its_clause(statute: Statute) -> None:
    scenario = {
        "distressed_municipality": True,
        "mri_distress_score": 62,
        "small_business": True,
        "targeted_industry": True,
        "child_care": True,
        "new_jobs": 300,
        "project_median_salary": "59500.00",
        "county_median_salary": "70000.00",
        "lowest_full_time_hourly_wage": "19.50",
        "state_minimum_wage": "15.92",
    }
    result = statute.evaluate(scenario, trace=True)
    assert result.trace is not None
    text = Narrator(result.trace, lambda clause: f"statute.md#{clause.anchor}").markdown(
        "per_job_new"
    )
    gross = next(line for line in text.splitlines() if line.startswith("- **gross amount"))
    assert "the limit `gross_cap + cap_allowance(covered: covered)` of [(d)(3)]" in gross
    assert "(statute.md#d-3) governs" in gross
    shortfall = next(line for line in text.splitlines() if "**salary shortfall**" in line)
    assert "($70,000.00 - $59,500.00) / $70,000.00 = 0.15" in shortfall
    assert "project_median_salary is $59,500.00" in shortfall


def test_a_bonus_that_did_not_apply_says_which_condition_failed(statute: Statute) -> None:
    result = statute.evaluate_file(EXAMPLES / "distressed-manufacturer.json", trace=True)
    assert result.trace is not None
    text = Narrator(result.trace).markdown("per_job_new")
    not_applied = text.split("Not applied:")[1]
    assert (
        "**small business bonus** ($0.00) under (c)(1)(e): not applied, because small_business "
        "(small_business is no) is false." in not_applied
    )


def test_results_told_one_after_another_do_not_repeat_steps(statute: Statute) -> None:
    result = statute.evaluate_file(EXAMPLES / "distressed-manufacturer.json", trace=True)
    assert result.trace is not None
    narrator = Narrator(result.trace)
    told: set = set()
    texts = [narrator.markdown(name, told) for name in result.statute.result_names]
    bullets = [line for text in texts for line in text.splitlines() if line.startswith("- ")]
    assert len(bullets) == len(set(bullets))
    assert told == set(result.trace.evaluation.steps)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenario=scenarios(STATUTE.ast), chosen=readings(STATUTE.ast))
def test_every_result_of_any_scenario_can_be_told(scenario, chosen) -> None:
    result = STATUTE.evaluate(scenario, readings=chosen, trace=True)
    assert result.trace is not None
    narrator = Narrator(result.trace)
    for name in STATUTE.ast.result_names:
        text = narrator.markdown(name)
        shown = display(STATUTE.ast.definitions[name].type, result.values[name])
        assert re.search(rf"^\*\*[^*]+: {re.escape(shown)}\*\*", text), (name, text[:200])


def test_an_optional_input_left_out_reads_not_given() -> None:
    from pathlib import Path

    limited = load_statute(Path(__file__).resolve().parent / "other_statutes" / "limit.lex")
    for scenario, words in [({}, "(not given < $100)"), ({"limit": "40"}, "($40.00 < $100)")]:
        result = limited.evaluate(scenario, trace=True)
        assert result.trace is not None
        narrator = Narrator(result.trace)
        texts = [narrator.explain(step) for step in result.trace.steps]
        assert any(words in s.text for s in texts), texts


def test_a_condition_calling_a_rule_with_parameters_shows_the_call_and_its_value(
    tmp_path,
) -> None:
    (tmp_path / "aged.txt").write_text(
        "1. Amounts.\n(a) An additional amount of $600 is allowed for the taxpayer if the "
        "taxpayer is aged, and for the spouse if the spouse is aged.\n"
    )
    (tmp_path / "aged.lex").write_text(
        'statute "Aged Act s.1"\n  title "Amounts"\n  official "aged.txt"\n\n'
        'input taxpayer_aged: bool = false "the taxpayer is aged";\n'
        'input spouse_aged: bool = false "the spouse is aged";\n\n'
        "results taxpayer_amount, spouse_amount;\n\n"
        'section 1. "Amounts." {\n'
        '  (a) "An additional amount of $600 is allowed for the taxpayer if the taxpayer is '
        'aged, and for the spouse if the spouse is aged." {\n'
        "    rule aged(of_spouse: bool): bool = if of_spouse then spouse_aged else taxpayer_aged;\n"
        "    rule taxpayer_amount: money = $600 when aged(of_spouse: false);\n"
        "    rule spouse_amount: money = $600 when aged(of_spouse: true) and taxpayer_aged;\n"
        "  }\n}\n"
    )
    statute = load_statute(tmp_path / "aged.lex")
    result = statute.evaluate({"spouse_aged": True}, trace=True)
    assert result.trace is not None
    narrator = Narrator(result.trace)
    texts = {step.definition.name: narrator.explain(step).text for step in result.trace.steps}
    assert (
        "aged(of_spouse: false) (aged(of_spouse: false) is no) is false"
        in (texts["taxpayer_amount"])
    )
    assert "aged(of_spouse: true) is yes, taxpayer_aged is no" in texts["spouse_amount"]


def test_a_yes_or_no_stated_is_not_called_an_amount(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = write_flag_statute(tmp_path, "true when wage > $5")
    result = load_statute(path).evaluate({"wage": "6"}, trace=True)
    assert result.trace is not None
    text = Narrator(result.trace).markdown("flag")
    assert "yes" in text and "the amount stated" not in text, text
