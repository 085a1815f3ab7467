"""Community Gaming Regulation 2020 (NSW) cl 5, housie or bingo
(statute/nsw-cgr-2020-cl-5.lex): checked, proved, its cases (the published Catala and OpenFisca
tests among them) reproduced, its examples batched, explained and compared with an amended copy."""

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

ENCODING = STATUTES / "nsw-cgr-2020-cl-5.lex"
OFFICIAL = STATUTES / "nsw-cgr-2020-cl-5.txt"
CASES_FILE = STATUTES / "nsw-cgr-2020-cl-5.cases.yaml"
EXAMPLE_FILES = sorted((EXAMPLES / "nsw-cgr-2020-cl-5").glob("*.json"))
_, CASES = load_cases(CASES_FILE)


def test_check_passes_without_a_warning(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "-e", str(ENCODING)]) == 0
    out = capsys.readouterr()
    assert "word for word" in out.out
    assert "warning" not in (out.out + out.err).lower()
    assert "3 text only" in out.out


def test_verify_proves_every_check_in_the_clauses_own_terms(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["verify", "-e", str(ENCODING), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    statuses = {check["name"]: check["status"] for check in report["checks"]}
    assert set(statuses.values()) == {"PROVED"}
    for invariant in (
        "charity_housie_permitted_only_when_every_requirement_holds",
        "the_charity_gets_its_share",
        "the_prize_limit_is_within_both_caps",
        "prizes_within_both_caps",
        "at_most_48_tickets",
        "session_prizes_within_40",
        "jackpot_within_200",
        "nothing_kept_back",
        "game_prizes_within_70",
        "one_bonus_prize_of_at_most_70",
        "no_money_prizes",
    ):
        assert statuses[invariant] == "PROVED", invariant


def test_the_cases_file_holds_the_published_tests() -> None:
    encoding, cases = load_cases(CASES_FILE)
    assert encoding == ENCODING.resolve()
    catala = [c for c in cases if "catala-examples" in c.source]
    openfisca = [c for c in cases if "openfisca" in c.source.lower()]
    assert len(catala) == 9  # 4 charity housie, 5 club bingo
    assert len(openfisca) == 17  # 6 charity housie, 6 social housie, 5 club bingo
    # Published results that say yes and no are both among them.
    assert {c.expect["permitted"] for c in catala + openfisca} == {True, False}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case(case: Case) -> None:
    assert mismatches(load_statute(ENCODING), case) == []


def test_citations_follow_the_regulation() -> None:
    scenario = json.loads(EXAMPLE_FILES[0].read_text(encoding="utf-8"))
    result = load_statute(ENCODING).evaluate(scenario, trace=True)
    citations = {name: citation for name, _, citation in result.table()}
    assert citations["charity_prize_limit"] == "Community Gaming Regulation 2020 (NSW) cl 5(2)(d)"
    assert citations["permitted"] == "Community Gaming Regulation 2020 (NSW) cl 5(2)"


def test_batch_writes_the_examples_exactly_in_every_format(tmp_path: Path) -> None:
    statute = load_statute(ENCODING)
    scenarios = [json.loads(p.read_text(encoding="utf-8")) for p in EXAMPLE_FILES]
    assert len(scenarios) >= 3
    expected = [statute.evaluate(s).values for s in scenarios]
    assert {v["permitted"] for v in expected} == {True, False}
    kinds = {name: str(statute.ast.definitions[name].type) for name in expected[0]}
    for suffix, rows in results_by_format(tmp_path, ENCODING, scenarios).items():
        assert len(rows) == len(scenarios), suffix
        for row, values in zip(rows, expected, strict=True):
            for name, value in values.items():
                assert same_value(row[name], value, kinds[name]), (suffix, name, row[name])


def test_explain_names_the_requirement_that_fails(capsys: pytest.CaptureFixture[str]) -> None:
    example = EXAMPLES / "nsw-cgr-2020-cl-5" / "charity-housie-christmas-jackpot.json"
    assert main(["explain", str(example), "-e", str(ENCODING)]) == 0
    out = capsys.readouterr().out
    assert "permitted = no" in out
    assert "charity_prizes_within = no" in out
    assert "cl 5(2)(d)" in out


def test_impact_of_a_5000_dollar_prize_cap(tmp_path: Path) -> None:
    amended = tmp_path / ENCODING.name
    amended.write_text(
        ENCODING.read_text(encoding="utf-8").replace("$10,000", "$5,000"), encoding="utf-8"
    )
    (tmp_path / OFFICIAL.name).write_text(
        OFFICIAL.read_text(encoding="utf-8").replace("$10,000", "$5,000"), encoding="utf-8"
    )
    population = tmp_path / "population.jsonl"
    population.write_text(
        "".join(p.read_text(encoding="utf-8").replace("\n", " ") + "\n" for p in EXAMPLE_FILES),
        encoding="utf-8",
    )
    report = impact(load_statute(ENCODING), load_statute(amended), str(population), "jsonl")
    results = {r.name: r for r in report.results}
    # The Christmas session's limit falls from $10,000 to $5,000; the weekly one's ($4,800,
    # 75 percent of its proceeds) and the other activities' do not move.
    assert results["charity_prize_limit"].changed == 1
    assert results["charity_prize_limit"].fell == 1
    assert results["charity_prize_limit"].largest_fall == -500000  # cents
    assert results["permitted"].changed == 0  # it was already refused
    assert main(["impact", str(ENCODING), str(amended), str(population)]) == 0


def test_a_case_copied_into_the_wrong_clause_is_one_overlap_and_one_gap_each_shown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # (3)'s case given club bingo's condition: social housie has no case, club bingo two.
    source = ENCODING.read_text(encoding="utf-8")
    social = "and social_remainder_returned\n      when activity = social_housie;"
    assert source.count(social) == 1
    wrong = tmp_path / ENCODING.name
    wrong.write_text(source.replace(social, social.replace("social_housie", "club_bingo")), "utf-8")
    (tmp_path / OFFICIAL.name).write_text(OFFICIAL.read_text(encoding="utf-8"), "utf-8")
    assert main(["verify", "-e", str(wrong), "--format", "json"]) == 1
    checks = {c["name"]: c for c in json.loads(capsys.readouterr().out)["checks"]}
    violated = {name for name, c in checks.items() if c["status"] == "VIOLATED"}
    # Each failure once, by its own check, with a scenario of its own kind: the gap for
    # social housie, the overlap for club bingo; no invariant is "broken" by either.
    assert violated == {"exhaustive: permitted", "exclusive: permitted (3) / (4)"}
    gap, overlap = checks["exhaustive: permitted"], checks["exclusive: permitted (3) / (4)"]
    assert gap["counterexample"]["activity"] == "social_housie"
    assert "no case of 'permitted'" in gap["detail"]
    assert overlap["counterexample"]["activity"] == "club_bingo"
    assert "'permitted' is defined twice" in overlap["detail"]
    assert overlap["citation"].endswith("cl 5(4)")  # the later case, where it is reported
    vacuous = [c for c in checks.values() if c["status"] == "VACUOUS"]
    assert vacuous and all("mend those first" in c["detail"] for c in vacuous), vacuous
