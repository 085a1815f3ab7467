"""An amount computed for each element of a list, then aggregated: `sum of (EXPRESSION) in LIST`
(tests/other_statutes/tuition.lex). The parser and the checker, the evaluator and its trace,
the proof model (held to the evaluator by Hypothesis), the words checks and the deferral of
the fast and columnar paths."""

from __future__ import annotations

import marshal
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lextrace import load_statute
from lextrace.dsl import cache
from lextrace.dsl.checker import check_statute
from lextrace.dsl.codegen import fast_function
from lextrace.dsl.errors import EncodingError
from lextrace.dsl.loader import load
from lextrace.verify.checks import BOUNDED, VIOLATED
from lextrace.verify.model import Model, concrete_values
from lextrace.verify.report import run
from lextrace.verify.strategies import readings, scenarios

HERE = Path(__file__).resolve().parent / "other_statutes"
TUITION = HERE / "tuition.lex"
SCENARIO = {
    "students": [
        {"id": "Ann", "expenses": "3000"},
        {"id": "Bo", "expenses": "1500.50"},
        {"id": "Cy", "expenses": "9000", "half_time": False},
        {"id": "Di", "expenses": "5000"},
    ]
}
# 100% of the first $2,000 and 25% of the next $2,000, for each half-time student.
EACH = {"Ann": Fraction(2250), "Bo": Fraction(300100, 200), "Di": Fraction(2500)}


def test_each_element_gets_its_own_amount_then_the_aggregate() -> None:
    statute = load_statute(TUITION)
    values = statute.evaluate(SCENARIO).values
    assert values["credit"] == sum(EACH.values())
    assert values["largest_credit"] == Fraction(2500)
    assert values["median_credit"] == Fraction(2250)  # of three: the middle one
    two = {"students": SCENARIO["students"][:2]}  # Ann and Bo: an even count
    mean = statute.evaluate(two).values["median_credit"]
    low = statute.evaluate(two, statute.select_readings({"I1": "lower-middle"}))
    assert mean == (EACH["Ann"] + EACH["Bo"]) / 2
    assert low.values["median_credit"] == EACH["Bo"]


def test_the_trace_shows_each_elements_amount() -> None:
    result = load_statute(TUITION).evaluate(SCENARIO, trace=True)
    text = result.explain(width=300)
    assert "each: students[0] Ann $2,250.00, students[1] Bo $1,500.50, students[3] Di" in text
    assert "the highest: students[3] Di" in text
    steps = {step["id"]: step for step in result.to_dict()["trace"]}  # type: ignore[union-attr]
    (used,) = steps["credit"]["aggregates"]
    assert used["amounts"] == [
        {"index": 0, "value": "2250.00"},
        {"index": 1, "value": "1500.50"},
        {"index": 3, "value": "2500.00"},
    ]


def test_the_cache_round_trip_keeps_the_computed_amount() -> None:
    statute = load(TUITION)
    again = cache.load_dump(cache.dump(statute))
    # The data, not marshal's bytes (which also record which strings the process interned).
    assert marshal.loads(cache.dump(again)) == marshal.loads(cache.dump(statute))
    assert check_statute(again) == []


def write_encoding(tmp_path: Path, body: str) -> Path:
    (tmp_path / "t.txt").write_text("1. T.\na. The words $1 $2.\n", encoding="utf-8")
    path = tmp_path / "t.lex"
    path.write_text(
        f"""statute "T" official "t.txt"
record job "a job" {{
  id: text "its name";
  pay: money above $0 "its pay";
  hours: count = 40 "its hours";
  covered: bool = false "covered";
}}
input jobs: list of job required "the jobs";
results r;
section 1. "T." {{
  a. "The words $1 $2." {{
    {body}
  }}
}}
""",
        encoding="utf-8",
    )
    return path


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("rule r: count = count of (pay) in jobs;", "'count of' takes no computed amount"),
        ("rule r: bool = any of (covered) in jobs;", "'any of' takes no computed amount"),
        ("rule r: money = sum of (covered) in jobs;", "needs an amount for each element; this"),
        ("rule r: money = sum of (pay + hours) in jobs;", "cannot add money and count"),
        ("rule r: money = sum of (paid * 2) in jobs;", "unknown name 'paid'"),
        ("rule r: money = sum of (pay * $3) in jobs;", "the number $3 in 'r' is not stated"),
    ],
)
def test_the_checker_refuses_a_bad_computed_amount(tmp_path: Path, body: str, message: str) -> None:
    with pytest.raises(EncodingError) as raised:
        load(write_encoding(tmp_path, body))
    assert message in str(raised.value)


def test_the_amount_has_the_units_of_its_expression(tmp_path: Path) -> None:
    path = write_encoding(
        tmp_path,
        "rule r: money = (sum of (pay * hours) in jobs) + (max of (pay - $1) in jobs)"
        " + $2 * (median of (hours) in jobs where covered);",
    )
    assert [d for d in check_statute(load(path)) if d.severity == "error"] == []


def test_what_the_amounts_use_is_listed_once_not_once_per_element(tmp_path: Path) -> None:
    path = write_encoding(
        tmp_path,
        "rule base: money = $1;\n    rule r: money = sum of (pay + base) in jobs;",
    )
    statute = load_statute(path)
    jobs = [{"id": f"J-{n}", "pay": "10"} for n in range(3)]
    result = statute.evaluate({"jobs": jobs}, trace=True)
    assert result.values["r"] == Fraction(33)
    step = next(s for s in result.trace.evaluation.steps.values() if s.definition.name == "r")
    assert [key[0] for key in step.uses].count("base") == 1


def test_the_fast_path_defers_the_encoding_to_the_reference_evaluator() -> None:
    statute = load_statute(TUITION)
    assert fast_function(statute.ast, statute.select_readings({})) is None


def test_the_invariants_are_bounded_and_a_wrong_one_is_violated_and_confirmed(
    tmp_path: Path,
) -> None:
    outcomes = {o.check.name: o for o in run(load_statute(TUITION).ast).outcomes}
    assert {o.status for o in outcomes.values()} == {BOUNDED}
    source = TUITION.read_text(encoding="utf-8").replace(
        "credit <= $2,500 * (count", "credit <= $2,000 * (count"
    )
    (tmp_path / "tuition.txt").write_text(
        TUITION.with_suffix(".txt").read_text(encoding="utf-8"), encoding="utf-8"
    )
    wrong = tmp_path / "tuition.lex"
    wrong.write_text(source, encoding="utf-8")
    found = {o.check.name: o for o in run(load_statute(wrong).ast).outcomes}
    broken = found["at_most_2500_each"]
    assert broken.status == VIOLATED
    assert "the evaluator finds the property false" in broken.detail


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_proof_model_and_the_evaluator_agree(data: st.DataObject) -> None:
    statute = load_statute(TUITION)
    model = Model(statute.ast, "__agree", collect=False)
    scenario = data.draw(scenarios(statute.ast))
    selected = statute.select_readings(data.draw(readings(statute.ast)))
    assert len(scenario["students"]) <= model.list_bound
    result = statute.evaluate(scenario, selected)
    names = list(statute.ast.result_names)
    if not any(s.get("half_time", True) for s in scenario["students"]):
        names = ["credit"]  # the largest and the median have no value then
    found = concrete_values(model, result.inputs, selected, names)
    assert found == {name: result.values[name] for name in names}
