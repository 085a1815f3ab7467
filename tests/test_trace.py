"""The trace: golden derivations, why-not explanations, the JSON steps, the hidden maxima.

Golden files under tests/golden/ are reviewed derivations; after a deliberate change to the
encoding or the renderer, regenerate them with LEXTRACE_UPDATE_GOLDEN=1 and review the diff.
"""

from __future__ import annotations

import json
import os
from fractions import Fraction
from pathlib import Path

import pytest
from conftest import EXAMPLES

from lextrace import Statute

GOLDEN = Path(__file__).resolve().parent / "golden"
GOLDEN_EXAMPLES = [
    "distressed-manufacturer",
    "corridor-warehouse-below-wage-floor",
    "no-credit-salary-shortfall",
]


def example(name: str) -> dict[str, object]:
    """Returns the scenario of examples/NAME.json."""
    return json.loads((EXAMPLES / f"{name}.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", GOLDEN_EXAMPLES)
def test_golden_derivation(statute: Statute, name: str) -> None:
    explained = statute.evaluate(example(name), trace=True).explain(width=100) + "\n"
    golden = GOLDEN / f"{name}.txt"
    if os.environ.get("LEXTRACE_UPDATE_GOLDEN"):
        golden.write_text(explained, encoding="utf-8")
    assert explained == golden.read_text(encoding="utf-8")


def test_trace_steps_carry_citation_words_rule_and_inputs(statute: Statute) -> None:
    steps = {
        s["id"]: s
        for s in statute.evaluate(example("distressed-manufacturer"), trace=True).to_dict()["trace"]
    }
    base = steps["base_amount"]
    assert base["citation"] == "N.J.S.A. 34:1B-343(b)(3)"
    assert base["words"].startswith("for a qualified business facility located within a distressed")
    assert base["rule"] == "= $3,000 when area_tier = b3"
    assert base["uses"] == {"area_tier": "b3"}
    gross = steps["gross_amount(covered=false)"]
    assert gross["citation"] == "N.J.S.A. 34:1B-343(d)"
    assert set(gross["uses"]) == {
        "base_amount",
        "bonus_total(covered=false)",
        "gross_cap",
        "cap_allowance(covered=false)",
    }
    assert gross["readings"] == ["I15"]


def test_json_words_read_as_the_statute_reads_not_as_the_source_is_laid_out(
    statute: Statute,
) -> None:
    result = statute.evaluate(example("distressed-manufacturer"), trace=True)
    steps = result.to_dict()["trace"]
    words = [s["words"] for s in steps if s["words"]]
    assert words
    for text in words:
        assert text == " ".join(text.split()), text  # no line break, indentation or edge space
    base = next(s for s in steps if s["id"] == "base_amount")
    assert base["words"] == (
        "for a qualified business facility located within a distressed municipality, $3,000 "
        "per year;"
    )
    # The AST keeps the source as written (the fidelity check locates words by offset in it).
    raw = next(step.words for step in result.trace.steps if step.label == "base_amount")
    assert raw is not None and "\n" in raw.text and raw.words == base["words"]


def test_bonus_that_did_not_apply_says_why(statute: Statute) -> None:
    steps = {
        s["id"]: s
        for s in statute.evaluate(example("distressed-manufacturer"), trace=True).to_dict()["trace"]
    }
    child_care = steps["child_care_bonus"]
    assert child_care["applied"] is False
    assert child_care["value"] == "0.00"
    assert child_care["why_not"] == "not applied: child_care is false"
    assert child_care["uses"] == {"child_care": False}


def test_no_case_applied_lists_the_conditions(statute: Statute) -> None:
    scenario = {
        **example("distressed-manufacturer"),
        "new_jobs": 100,
        "retained_jobs": 0,
        "labor_harmony_new_jobs": 0,
    }
    steps = {s["id"]: s for s in statute.evaluate(scenario, trace=True).to_dict()["trace"]}
    why_not = steps["large_employer_bonus"]["why_not"]
    assert why_not.startswith(
        "no case applied: N.J.S.A. 34:1B-343(c)(1)(c)(i) needs new_jobs >= 251 and new_jobs <= 400"
    )
    assert "(c)(1)(c)(v) needs new_jobs > 1000" in why_not


def test_investment_maximum_of_5000_shows_in_the_trace(statute: Statute) -> None:
    """The $5,000 maximum of (c)(1)(b) is hidden by the $8,000 cap in the results; the trace
    shows the bonus itself. 2,000,000 above a 1,000,000 minimum is 5 steps of 400,000: $2,500;
    6,000,000 above is 15 steps: $7,500, held at $5,000 for a mega project."""
    scenario = {
        **example("mega-project-gov-restricted"),
        "industrial_rd_capital_investment": "7000000",
        "minimum_capital_investment": "1000000",
    }
    result = statute.evaluate(scenario, trace=True)
    steps = result.trace.evaluation.steps
    assert steps[("investment_steps", ())].value == 15
    assert steps[("investment_bonus", ())].value == Fraction(5000)
    result = statute.evaluate(
        {**scenario, "industrial_rd_capital_investment": "3000000"}, trace=True
    )
    assert result.trace.evaluation.steps[("investment_bonus", ())].value == Fraction(2500)


def test_results_without_trace_equal_results_with_trace(statute: Statute) -> None:
    for path in sorted(EXAMPLES.glob("*.json")):
        scenario = json.loads(path.read_text(encoding="utf-8"))
        plain = statute.evaluate(scenario)
        traced = statute.evaluate(scenario, trace=True)
        assert plain.values == traced.values
        assert plain.trace is None
