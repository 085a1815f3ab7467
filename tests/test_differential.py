"""Hypothesis, from the declared inputs: the evaluator and the proof model agree exactly, every
invariant of the encoding holds on random scenarios, and the parser never crashes."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.lark import from_lark

from lextrace import EncodingError, Statute
from lextrace.dsl.ast import param_values
from lextrace.dsl.checker import check_statute
from lextrace.dsl.evaluator import evaluate
from lextrace.dsl.parser import _parser, parse_encoding
from lextrace.statute import BUNDLED
from lextrace.verify.model import Model, concrete_values
from lextrace.verify.strategies import readings, scenarios

SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


@pytest.fixture(scope="module")
def proof_model(statute: Statute) -> Model:
    """The Z3 translation of the bundled statute."""
    return Model(statute.ast)


@st.composite
def scenario_and_readings(draw: st.DrawFn, statute: Statute) -> tuple[dict, dict]:
    """A valid scenario and a reading selection, both derived from the declarations."""
    return draw(scenarios(statute.ast)), draw(readings(statute.ast))


def test_evaluator_and_proof_model_agree_exactly(statute: Statute, proof_model: Model) -> None:
    names = [*statute.ast.result_names, "gross_amount", "salary_shortfall", "wage_floor"]
    names = [n for n in names if not statute.ast.definitions[n].params]

    @SETTINGS
    @given(scenario_and_readings(statute))
    def check(pair: tuple[dict, dict]) -> None:
        scenario, chosen = pair
        selected = statute.select_readings(chosen)
        result = statute.evaluate(scenario, chosen, trace=False)
        evaluation = evaluate(statute.program, result.inputs, selected)
        from_z3 = concrete_values(proof_model, result.inputs, selected, names)
        for name in names:
            expected = evaluation.get(name)
            got = from_z3[name]
            if isinstance(expected, str | bool):
                assert got == expected, name
            else:
                assert Fraction(got) == Fraction(expected), name  # type: ignore[arg-type]

    check()


def test_every_invariant_holds_on_random_scenarios(statute: Statute) -> None:
    program = statute.program
    compiled = [
        (invariant, program.expr(invariant.expr), param_values(invariant.params))
        for invariant in statute.ast.invariants
    ]
    assert len(compiled) >= 15

    @SETTINGS
    @given(scenario_and_readings(statute))
    def check(pair: tuple[dict, dict]) -> None:
        scenario, chosen = pair
        selected = statute.select_readings(chosen)
        evaluation = evaluate(program, statute.validate(scenario), selected)
        for invariant, holds, values in compiled:
            for args in values:
                bound = {p.name: v for p, v in zip(invariant.params, args, strict=True)}
                assert holds(evaluation, bound), (invariant.name, args)

    check()


def test_strategies_cover_the_declared_inputs(statute: Statute) -> None:
    seen: dict[str, set[object]] = {name: set() for name in statute.ast.inputs}

    @settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
    @given(scenarios(statute.ast))
    def collect(scenario: dict) -> None:
        for name, value in scenario.items():
            seen[name].add(str(value))

    collect()
    for name, values in seen.items():
        assert len(values) >= 2, f"the strategy never varies {name}"


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(from_lark(_parser(), start="start"))
def test_parser_fuzzed_from_the_grammar_never_crashes(source: str) -> None:
    try:
        statute, _ = parse_encoding(source, "fuzz.lex")
    except EncodingError as error:
        assert error.diagnostics and error.diagnostics[0].line >= 1
        return
    for diagnostic in check_statute(statute):
        assert diagnostic.line >= 1 and diagnostic.message


@settings(max_examples=150, deadline=None)
@given(st.randoms(use_true_random=False), st.integers(1, 5))
def test_mutated_real_encoding_gives_a_result_or_a_clean_error(
    rng: random.Random, edits: int
) -> None:
    source = BUNDLED.read_text(encoding="utf-8")
    for _ in range(edits):
        at = rng.randrange(len(source))
        action = rng.randrange(3)
        if action == 0:
            source = source[:at] + source[at + rng.randrange(1, 20) :]
        elif action == 1:
            source = (
                source[:at]
                + rng.choice(['"', "{", "}", ";", "(", "$", "x", "1", " "])
                + source[at:]
            )
        else:
            source = source[:at] + source[at : at + 3].swapcase() + source[at + 3 :]
    try:
        statute, _ = parse_encoding(source, "mutated.lex")
    except EncodingError as error:
        assert error.render().splitlines()[0].startswith("mutated.lex:")
        return
    for diagnostic in check_statute(statute):
        assert diagnostic.path == "mutated.lex" and diagnostic.line >= 1
