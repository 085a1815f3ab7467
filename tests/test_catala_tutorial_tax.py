"""The Tutorial Tax Code, the Catala tutorial's income and household tax
(statute/catala-tutorial-tax.lex): checked, proved (bounded, over lists), its cases (the
tutorial's published tests among them) reproduced, its examples explained and batched."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from statute_cases import (
    EXAMPLES,
    STATUTES,
    Case,
    load_cases,
    mismatches,
    results_by_format,
    same_value,
)

from lextrace import load_statute
from lextrace.cli import main

ENCODING = STATUTES / "catala-tutorial-tax.lex"
CASES_FILE = STATUTES / "catala-tutorial-tax.cases.yaml"
EXAMPLE_FILES = sorted((EXAMPLES / "catala-tutorial-tax").glob("*.json"))
_, CASES = load_cases(CASES_FILE)


def test_check_passes_without_a_warning(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "-e", str(ENCODING)]) == 0
    out = capsys.readouterr()
    assert "word for word" in out.out
    assert "warning" not in (out.out + out.err).lower()


def test_verify_proves_every_check_bounded_over_the_household(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["verify", "-e", str(ENCODING), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    statuses = {check["name"]: check["status"] for check in report["checks"]}
    assert set(statuses.values()) <= {"PROVED", "BOUNDED"}
    # Every invariant rests on the list of individuals: bounded, never called PROVED.
    for invariant in (
        "income_tax_not_negative",
        "exempted_households_owe_no_income_tax",
        "no_rate_above_30_percent",
        "no_rate_above_25_percent_overseas",
        "at_least_10000_per_individual",
        "household_tax_not_negative",
        "no_deduction_without_income_tax",
    ):
        assert statuses[invariant] == "BOUNDED", invariant


def test_the_cases_reproduce_the_tutorials_published_results() -> None:
    encoding, cases = load_cases(CASES_FILE)
    assert encoding == ENCODING.resolve()
    published = {c.name: c.expect for c in cases if c.name.startswith("catala tutorial")}
    # The five results the Catala book prints for its test scopes, to the cent.
    assert [e for e in published.values()] == [
        {"income_tax": "4000.00"},
        {"income_tax": "60000.00"},
        {"household_tax_base": "30000.00"},
        {"household_tax": "7000.00"},
        {"income_tax": "15000.00", "household_tax_base": "30000.00", "household_tax": "15000.00"},
    ]
    assert all("catala" in c.source.lower() for c in cases if c.name in published)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case(case: Case) -> None:
    assert mismatches(load_statute(ENCODING), case) == []


def test_citations_follow_the_articles() -> None:
    scenario = json.loads(EXAMPLE_FILES[0].read_text(encoding="utf-8"))
    result = load_statute(ENCODING).evaluate(scenario, trace=True)
    citations = {name: citation for name, _, citation in result.table()}
    assert citations["income_tax"] == "Tutorial Tax Code, art. 1"
    assert citations["household_tax_base"] == "Tutorial Tax Code, art. 7"
    assert citations["household_tax"] == "Tutorial Tax Code, art. 8"


def test_the_deduction_is_made_individual_by_individual() -> None:
    # The tutorial's own example (chapter 2.3): the naive deduction from the total gives $0,
    # the deduction individual by individual $6,000.
    statute = load_statute(ENCODING)
    scenario = {
        "current_date": "1999-01-01",
        "individuals": [{"income": "20000"}, {"income": "200000"}],
    }
    assert str(statute.evaluate(scenario).values["household_tax"]) == "6000"
    naive = statute.evaluate(scenario, readings={"I3": "household-total"})
    assert str(naive.values["household_tax"]) == "0"


def test_explain_names_the_articles(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", str(EXAMPLE_FILES[0]), "-e", str(ENCODING)]) == 0
    out = capsys.readouterr().out
    assert "household_tax = $15,000.00" in out
    assert "art. 8" in out
    assert "individuals" in out


def test_batch_writes_the_examples_exactly_in_every_format(tmp_path: Path) -> None:
    statute = load_statute(ENCODING)
    scenarios = [json.loads(p.read_text(encoding="utf-8")) for p in EXAMPLE_FILES]
    assert len(scenarios) >= 2
    expected = [statute.evaluate(s).values for s in scenarios]
    kinds = {name: str(statute.ast.definitions[name].type) for name in expected[0]}
    for suffix, rows in results_by_format(tmp_path, ENCODING, scenarios).items():
        assert len(rows) == len(scenarios), suffix
        for row, values in zip(rows, expected, strict=True):
            for name, value in values.items():
                assert same_value(row[name], value, kinds[name]), (suffix, name, row[name])
