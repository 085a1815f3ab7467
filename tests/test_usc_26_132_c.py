"""26 U.S.C. § 132(c), the qualified employee discount (statute/usc-26-132-c.lex): checked,
proved, its cases (the published Catala tests among them) reproduced, its examples batched,
explained and compared with an amended copy."""

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
from lextrace.impact import impact

ENCODING = STATUTES / "usc-26-132-c.lex"
OFFICIAL = STATUTES / "usc-26-132-c.txt"
CASES_FILE = STATUTES / "usc-26-132-c.cases.yaml"
EXAMPLE_FILES = sorted((EXAMPLES / "usc-26-132-c").glob("*.json"))
_, CASES = load_cases(CASES_FILE)


def test_check_passes_without_a_warning(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "-e", str(ENCODING)]) == 0
    out = capsys.readouterr()
    assert "word for word" in out.out
    assert "warning" not in (out.out + out.err).lower()
    assert "1 discretionary, 1 text only" in out.out


def test_verify_proves_every_check_in_the_clauses_own_terms(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["verify", "-e", str(ENCODING), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    statuses = {check["name"]: check["status"] for check in report["checks"]}
    assert set(statuses.values()) == {"PROVED"}
    for invariant in (
        "never_more_than_the_discount",
        "property_within_its_gross_profit",
        "services_within_20_percent",
        "a_percent_of_the_sale_price",
        "the_discount_is_the_difference",
        "no_exclusion_for_real_or_investment_property",
    ):
        assert statuses[invariant] == "PROVED", invariant


def test_the_cases_file_names_this_encoding() -> None:
    encoding, cases = load_cases(CASES_FILE)
    assert encoding == ENCODING.resolve()
    published = [c for c in cases if "catala-examples" in c.source]
    # The three published tests, eight asserted results among them.
    assert len(published) == 3
    assert sum(len(c.expect) for c in published) == 8


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case(case: Case) -> None:
    assert mismatches(load_statute(ENCODING), case) == []


def test_citations_follow_the_code_and_labels_are_upper_case() -> None:
    result = load_statute(ENCODING).evaluate(
        {"kind": "services", "customer_price": "100", "employee_price": "70"}, trace=True
    )
    citations = {name: citation for name, _, citation in result.table()}
    assert citations["discount_limit"] == "26 U.S.C. § 132(c)(1)(B)"
    assert citations["gross_profit_percentage"] == "26 U.S.C. § 132(c)(2)(A)(ii)"
    assert citations["employee_discount"] == "26 U.S.C. § 132(c)(3)"


def test_batch_writes_the_examples_exactly_in_every_format(tmp_path: Path) -> None:
    statute = load_statute(ENCODING)
    scenarios = [json.loads(p.read_text(encoding="utf-8")) for p in EXAMPLE_FILES]
    assert len(scenarios) >= 3
    expected = [statute.evaluate(s).values for s in scenarios]
    kinds = {name: str(statute.ast.definitions[name].type) for name in expected[0]}
    for suffix, rows in results_by_format(tmp_path, ENCODING, scenarios).items():
        assert len(rows) == len(scenarios), suffix
        for row, values in zip(rows, expected, strict=True):
            for name, value in values.items():
                assert same_value(row[name], value, kinds[name]), (suffix, name, row[name])


def test_explain_traces_the_limit_to_its_clause(capsys: pytest.CaptureFixture[str]) -> None:
    example = EXAMPLES / "usc-26-132-c" / "department-store-employee.json"
    assert main(["explain", str(example), "-e", str(ENCODING)]) == 0
    out = capsys.readouterr().out
    assert "gross_profit_percentage = 0.35" in out
    assert "26 U.S.C. § 132(c)(1)(A)" in out


def test_impact_of_a_25_percent_services_limit(tmp_path: Path) -> None:
    amended = tmp_path / ENCODING.name
    amended.write_text(
        ENCODING.read_text(encoding="utf-8")
        .replace("20 percent of the price", "25 percent of the price")
        .replace("20% * customer_price", "25% * customer_price")
        .replace("services_within_20_percent", "services_within_25_percent")
        .replace("never exceeds 20 percent", "never exceeds 25 percent"),
        encoding="utf-8",
    )
    (tmp_path / OFFICIAL.name).write_text(
        OFFICIAL.read_text(encoding="utf-8").replace("20 percent", "25 percent"), encoding="utf-8"
    )
    population = tmp_path / "population.jsonl"
    population.write_text(
        "".join(p.read_text(encoding="utf-8").replace("\n", " ") + "\n" for p in EXAMPLE_FILES),
        encoding="utf-8",
    )
    report = impact(load_statute(ENCODING), load_statute(amended), str(population), "jsonl")
    results = {r.name: r for r in report.results}
    # Only the airline seat is a service: its limit goes from $84 to $105, and so its discount.
    assert results["discount_limit"].changed == 1 and results["discount_limit"].rose == 1
    assert (
        results["qualified_employee_discount"].total_after
        - results["qualified_employee_discount"].total_before
        == 2100
    )  # cents
    assert results["gross_profit_percentage"].changed == 0
    assert main(["impact", str(ENCODING), str(amended), str(population)]) == 0
