"""The generated traced path builds the reference evaluator's trace exactly, or defers to it.

Every encoding bundled or kept for the tests: on scenarios drawn by the proof model's
strategies, the traced path's steps (order, every field), memo and readings equal the
reference's, and so do the JSON and the explanation; it defers exactly where the fast path
does; an encoding it does not translate has no traced function, and the reference traces it.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from conftest import EXAMPLES, overlapping_cases, repository_encodings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lextrace import Statute, api, load_statute
from lextrace.dsl import codegen, codegen_trace
from lextrace.dsl.evaluator import Evaluation, EvaluationError, evaluate
from lextrace.dsl.trace import Trace
from lextrace.dsl.values import Derived
from lextrace.verify.strategies import readings, scenarios

ROOT = Path(__file__).resolve().parents[1]
ENCODINGS = repository_encodings(amendments=True)
STATUTES = {path.relative_to(ROOT).as_posix(): load_statute(path) for path in ENCODINGS}
TRACED = {
    name: statute
    for name, statute in STATUTES.items()
    if codegen.fast_function(statute.ast, statute.select_readings())
}


def assert_same_trace(statute: Statute, ours: Evaluation, reference: Evaluation) -> None:
    """The two evaluations hold the same steps, in the same order, field by field."""
    assert list(ours.steps) == list(reference.steps)
    for key, expected in reference.steps.items():
        step = ours.steps[key]
        for name in expected.__dataclass_fields__:
            assert getattr(step, name) == getattr(expected, name), (key, name)
    assert ours.memo == reference.memo
    assert ours.reading_uses == reference.reading_uses
    mine, theirs = Trace(statute.ast, ours), Trace(statute.ast, reference)
    assert mine.to_json() == theirs.to_json()
    roots = statute.ast.result_names
    assert mine.explain(roots) == theirs.explain(roots)
    assert mine.markdown() == theirs.markdown()


def traced_or_deferred(statute: Statute, inputs: dict, selected: dict) -> Evaluation | None:
    """The traced path's evaluation, or None where it defers."""
    function = codegen_trace.traced_function(statute.ast, selected)
    assert function is not None
    try:
        return function(inputs, statute.program, selected)
    except Exception:
        return None


def test_the_traced_path_covers_what_the_fast_path_covers() -> None:
    # A traced function exists exactly where a fast function does: lists and dates are
    # left to the reference by both.
    for name, statute in STATUTES.items():
        selected = statute.select_readings()
        fast = codegen.fast_function(statute.ast, selected)
        traced = codegen_trace.traced_function(statute.ast, selected)
        assert (fast is None) == (traced is None), name
    assert len(TRACED) >= 8, sorted(TRACED)
    assert len(TRACED) < len(STATUTES), "an encoding the generators leave to the reference"


@pytest.mark.parametrize("name", sorted(TRACED))
def test_the_traced_path_equals_the_reference_trace(name: str) -> None:
    statute = TRACED[name]
    counts = {"traced": 0, "deferred": 0}

    @settings(
        max_examples=120,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    @given(scenario=scenarios(statute.ast), chosen=readings(statute.ast))
    def check(scenario: dict, chosen: dict) -> None:
        selected = statute.select_readings(chosen)
        inputs = statute.validate(scenario)
        if any(type(value) is Derived for value in inputs.values()):
            return  # facts derived from a list: the reference evaluator, always
        ours = traced_or_deferred(statute, inputs, selected)
        fast = codegen.run_fast(statute.ast, inputs, selected)
        # It defers exactly where the fast path does.
        assert (ours is None) == (fast is None)
        if ours is None:
            counts["deferred"] += 1
            return
        counts["traced"] += 1
        assert_same_trace(statute, ours, evaluate(statute.program, inputs, selected, True))
        assert {n: ours.memo[(n, ())] for n in statute.ast.result_names} == fast

    check()
    assert counts["traced"] > 0, counts


def test_every_exception_and_every_flag_combination_traces_the_same() -> None:
    # The allowance encoding: exceptions of several priorities, one general rule.
    statute = STATUTES["tests/other_statutes/allowance.lex"]
    selected = statute.select_readings()
    flags = ("student", "veteran", "disabled", "absent", "appeal_pending")
    seen_exceptions = set()
    for bits in itertools.product([False, True], repeat=len(flags)):
        for income in ("10000", "20000", "30000"):
            inputs = statute.validate({**dict(zip(flags, bits, strict=True)), "income": income})
            ours = traced_or_deferred(statute, inputs, selected)
            try:
                reference = evaluate(statute.program, inputs, selected, True)
            except EvaluationError:
                assert ours is None  # a conflict: the reference names it
                continue
            assert ours is not None
            assert_same_trace(statute, ours, reference)
            seen_exceptions |= {s.exception.name for s in ours.steps.values() if s.exception}
    assert len(seen_exceptions) >= 2, seen_exceptions


def test_the_api_traces_with_the_generated_path(
    statute: Statute, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = {
        path.name: statute.evaluate_file(path, trace=True).to_json_text()
        for path in sorted(EXAMPLES.glob("*.json"))
    }

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the reference evaluator ran")

    monkeypatch.setattr(api, "evaluate", refuse)
    flat = 0
    for path in sorted(EXAMPLES.glob("*.json")):
        try:
            result = statute.evaluate_file(path, trace=True)
        except AssertionError:
            continue  # a payroll or several periods: derived facts, the reference's
        flat += 1
        assert result.to_json_text() == expected[path.name]
    assert flat >= 3


def test_a_scenario_it_defers_is_traced_by_the_reference_in_its_words(
    tmp_path: Path, encoding_source: str
) -> None:
    variant, scenario = overlapping_cases(tmp_path, encoding_source)
    statute = load_statute(variant)
    selected = statute.select_readings()
    assert traced_or_deferred(statute, statute.validate(scenario), selected) is None
    with pytest.raises(EvaluationError, match="defined twice"):
        statute.evaluate(scenario, trace=True)


def test_the_traced_source_holds_only_identifiers_from_the_encoding(statute: Statute) -> None:
    source = codegen_trace.traced_source(statute.ast, statute.select_readings())
    assert source.startswith("def evaluate(inputs, program, readings):")
    assert '"' not in source  # the words, citations and descriptions are constants, not source
    for declared in statute.ast.inputs.values():
        assert declared.description not in source


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_api_gives_the_same_traced_result_with_or_without_it(data: st.DataObject) -> None:
    statute = STATUTES["statute/nj-34-1b-343.lex"]
    scenario = data.draw(scenarios(statute.ast))
    chosen = data.draw(readings(statute.ast))
    result = statute.evaluate(scenario, chosen, trace=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(api, "traced_function", lambda *args: None)
        reference = statute.evaluate(scenario, chosen, trace=True)
    assert result.to_json_text() == reference.to_json_text()
    assert result.explain() == reference.explain()
