"""tests/other_statutes/threshold.lex in every consumer (the evaluator and its trace, the fast
and traced paths, the numpy and compiled engines, the proofs, the mutants):

- an `otherwise` case among exclusive cases ("(A) $400,000 in the case of a joint return, and
  (B) $200,000 in any other case") applies when no other case does, and is never counted as a
  second case that holds;
- `ceil` rounds a ratio up ("$50 for each $1,000 (or fraction thereof)")."""

from __future__ import annotations

import itertools
import math
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pytest

from lextrace import load_statute
from lextrace.dsl import kernel
from lextrace.dsl.loader import analyse
from lextrace.dsl.parser import parse_encoding
from lextrace.verify.mutants import generate
from lextrace.verify.report import run

THRESHOLD = Path(__file__).resolve().parent / "other_statutes" / "threshold.lex"
STATUTE = load_statute(THRESHOLD)
SCENARIOS = [
    {"qualifying_children": children, "modified_agi": agi, "joint_return": joint}
    for children, agi, joint in itertools.product(
        (0, 1, 3), ("0", "200000", "200000.01", "250000", "400000", "450500.50"), (False, True)
    )
]


def expected(scenario: dict[str, object]) -> dict[str, Decimal]:
    """The credit of 26 U.S.C. § 24(a), (b) computed here from the words."""
    threshold = Decimal(400_000 if scenario["joint_return"] else 200_000)
    excess = max(Decimal(str(scenario["modified_agi"])) - threshold, Decimal(0))
    steps = math.ceil(excess / 1000)  # "for each $1,000 (or fraction thereof)"
    before = Decimal(2000) * int(str(scenario["qualifying_children"]))
    return {
        "threshold_amount": threshold,
        "reduction_steps": steps,
        "credit": max(before - 50 * steps, Decimal(0)),
    }


def test_the_evaluator_takes_the_otherwise_case_only_when_no_other_case_holds() -> None:
    for scenario in SCENARIOS:
        result = STATUTE.evaluate(scenario)
        wanted = expected(scenario)
        for name, value in wanted.items():
            assert result.values[name] == value, (scenario, name)
        traced = STATUTE.evaluate(scenario, trace=True)
        assert traced.values == result.values


@pytest.mark.parametrize("engine", ["columnar", "compiled"])
def test_every_engine_gives_the_evaluators_results(engine: str) -> None:
    if engine == "compiled" and not kernel.available():
        engine = "columnar"  # the compiled extra is not installed: its engine cannot differ
    table = STATUTE.evaluate_many(pa.Table.from_pylist(SCENARIOS), engine=engine)
    assert table.column("error").null_count == len(SCENARIOS)
    for row, scenario in zip(table.to_pylist(), SCENARIOS, strict=True):
        wanted = expected(scenario)
        for name, value in wanted.items():
            assert row[name] == value, (scenario, name)


def test_the_trace_cites_the_otherwise_case_and_says_so() -> None:
    single = STATUTE.evaluate(SCENARIOS[0], trace=True)
    step = next(s for s in single.trace.to_json() if s["id"] == "threshold_amount")
    assert step["clause"] == "(b)(2)(B)"
    assert step["rule"] == "= $200,000 (otherwise)"
    joint = STATUTE.evaluate(SCENARIOS[1], trace=True)
    step = next(s for s in joint.trace.to_json() if s["id"] == "threshold_amount")
    assert step["clause"] == "(b)(2)(A)"
    assert step["rule"] == "= $400,000 when joint_return"


def test_the_proofs_never_count_the_otherwise_case_as_a_second_case() -> None:
    report = run(STATUTE.ast, 5.0, 30.0)
    by_name = {o.check.name: o.status for o in report.outcomes}
    assert report.ok, [(o.check.name, o.status, o.detail) for o in report.failures]
    assert not [name for name in by_name if name.startswith("exclusive: threshold_amount")]
    # It is reachable: some valid scenario is not a joint return.
    assert by_name["reachable: threshold_amount (b)(2)(B)"] == "PROVED"


def test_ceil_takes_one_ratio_like_floor(tmp_path: Path) -> None:
    source = THRESHOLD.read_text(encoding="utf-8")
    for wrong, message in (
        (
            "ceil(excess_income)",
            "ceil() counts whole steps of a ratio; given an amount of money per year",
        ),
        ("ceil(excess_income / $1,000, 2)", "ceil() takes one argument"),
    ):
        changed = source.replace("ceil(excess_income / $1,000)", wrong)
        (tmp_path / "threshold.txt").write_text(
            THRESHOLD.with_suffix(".txt").read_text(encoding="utf-8"), encoding="utf-8"
        )
        (tmp_path / "threshold.lex").write_text(changed, encoding="utf-8")
        found = [d.message for d in analyse(tmp_path / "threshold.lex").errors]
        assert message in found, found


def test_a_ceiling_has_its_own_mutants_and_the_proofs_kill_rounding_down() -> None:
    found = [m for m in generate(STATUTE.ast) if m.kind == "rounding"]
    assert [m.description for m in found] == [
        "(b)(1): drop ceil: excess_income / $1,000 in rule reduction_steps",
        "(b)(1): round down: ceil(excess_income / $1,000) in rule reduction_steps",
    ]
    down, _ = parse_encoding(found[1].apply(STATUTE.ast.source), "mutant.lex")
    report = run(down, 5.0, 30.0)
    broken = {o.check.name for o in report.outcomes if o.status == "VIOLATED"}
    assert "each_thousand_or_fraction" in broken


def test_an_input_only_a_failed_case_read_is_cited_to_that_cases_clause() -> None:
    """For a single filer, (A)'s condition read joint_return before (B)'s `otherwise` applied:
    the input is cited to (A), whose words name it."""
    single = STATUTE.evaluate(SCENARIOS[0], trace=True)
    text = single.trace.explain(("threshold_amount",))
    assert "joint_return = no  (input)  [26 U.S.C. § 24(b)(2)(A)]" in text
