"""`lextrace impact`: an amendment over a population, checked against scenario-by-scenario
evaluation through the Python API."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from conftest import ROOT

sys.path.insert(0, str(ROOT))
from benchmarks.population import population, write_jsonl, write_parquet
from lextrace import load_statute
from lextrace.cli import main
from lextrace.dsl.values import to_cents
from lextrace.impact import impact, render_markdown, to_json
from lextrace.statute import AMENDMENTS, BUNDLED

PORT = AMENDMENTS / "uncapped-port-bonus" / "nj-34-1b-343.lex"
SMALL = AMENDMENTS / "small-business-750" / "nj-34-1b-343.lex"


@pytest.fixture(scope="module")
def scenarios() -> list[dict]:
    return population(1_500, seed=33)


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory, scenarios: list[dict]) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("impact")
    found = {"jsonl": folder / "p.jsonl", "parquet": folder / "p.parquet"}
    write_jsonl(found["jsonl"], scenarios)
    write_parquet(found["parquet"], scenarios)
    return found


@pytest.mark.parametrize("amendment", [PORT, SMALL], ids=["port", "small-business"])
def test_counts_and_totals_equal_scenario_by_scenario_evaluation(
    amendment: Path, scenarios: list[dict], files: dict[str, Path]
) -> None:
    old, new = load_statute(BUNDLED), load_statute(amendment)
    report = impact(old, new, str(files["parquet"]), "parquet")
    before = [old.evaluate(s).values for s in scenarios]
    after = [new.evaluate(s).values for s in scenarios]
    assert report.rows == len(scenarios) and report.failed == 0
    changed_any = 0
    for b, a in zip(before, after, strict=True):
        changed_any += any(b[r.name] != a[r.name] for r in report.results)
    assert report.changed == changed_any > 0
    assert report.headline == "eligibility_period_total"  # the last money result
    for result in report.results:
        if result.kind == "enum":
            assert result.changed == sum(
                b[result.name] != a[result.name] for b, a in zip(before, after, strict=True)
            )
            continue
        deltas = [
            to_cents(a[result.name]) - to_cents(b[result.name])
            for b, a in zip(before, after, strict=True)
        ]
        assert result.changed == sum(d != 0 for d in deltas)
        assert result.rose == sum(d > 0 for d in deltas)
        assert result.total_before == sum(to_cents(b[result.name]) for b in before)
        assert result.total_after == sum(to_cents(a[result.name]) for a in after)
    headline = [
        to_cents(a[report.headline]) - to_cents(b[report.headline])
        for b, a in zip(before, after, strict=True)
    ]
    top = sorted(range(len(headline)), key=lambda i: (-abs(headline[i]), i))[:10]
    assert [m.row - 1 for m in report.movers] == [i for i in top if headline[i] != 0]


def test_the_changed_rules_are_named_with_their_clauses(files: dict[str, Path]) -> None:
    report = impact(load_statute(BUNDLED), load_statute(PORT), str(files["jsonl"]), "jsonl")
    causes = {c.rule: c for c in report.causes}
    assert causes["port_employment_bonus"].citation.endswith("(c)(1)(s)")
    assert causes["port_employment_bonus"].status == "added"
    per_job_new = next(r for r in report.results if r.name == "per_job_new")
    assert causes["gross_amount"].scenarios >= per_job_new.changed > 0


def test_an_encoding_against_itself_changes_nothing(files: dict[str, Path]) -> None:
    statute = load_statute(BUNDLED)
    report = impact(statute, statute, str(files["jsonl"]), "jsonl")
    assert report.changed == 0 and not report.movers and not report.causes
    assert all(r.total_before == r.total_after for r in report.results)


def test_reports_as_json_and_markdown_with_a_chart(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    report = impact(load_statute(BUNDLED), load_statute(SMALL), str(files["parquet"]), "parquet")
    page = render_markdown(report)
    assert "<svg" in page and "## Which changed rules cause it" in page
    assert "| `small_business_bonus` |" in page
    data = to_json(report)
    assert data["changed"] == report.changed
    code = main(["impact", str(BUNDLED), str(SMALL), str(files["parquet"]), "--format", "json"])
    out = capsys.readouterr().out
    assert code == 0 and json.loads(out)["changed"] == report.changed


def test_an_unreadable_population_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["impact", str(BUNDLED), str(SMALL), str(tmp_path / "missing.parquet")])
    err = capsys.readouterr().err
    assert code == 2 and "missing.parquet" in err


def test_a_report_file_is_written_whole_or_not_at_all(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "impact.md"
    arguments = ["impact", str(BUNDLED), str(SMALL), str(files["parquet"]), "--format", "markdown"]
    assert main([*arguments, "-o", str(page)]) == 0
    assert "<svg" in page.read_text(encoding="utf-8")
    assert [p.name for p in tmp_path.iterdir()] == ["impact.md"]  # no temporary file left
    missing = tmp_path / "no-such-folder" / "impact.md"
    assert main([*arguments, "-o", str(missing)]) == 2
    assert "cannot write" in capsys.readouterr().err and not missing.parent.exists()


def _aged(folder: Path, amount: str) -> Path:
    """An encoding whose rule adds years to a date (rows the scalar path evaluates)."""
    folder.mkdir()
    words = (
        f"An additional amount of {amount} is allowed for a taxpayer who has attained age 65 "
        "before the close of the taxable year."
    )
    (folder / "aged.txt").write_text(f"1. Aged.\n(a) {words}\n", encoding="utf-8")
    (folder / "aged.lex").write_text(
        'statute "Aged Act s.1"\n  title "Aged"\n  official "aged.txt"\n  dates round-down\n\n'
        'input birth_date: date required min 1900-01-01 max 2100-12-31 "the date of birth";\n'
        'input close_of_year: date required min 1900-01-01 max 2100-12-31 "the close";\n\n'
        'results aged_amount;\n\nsection 1. "Aged." {\n'
        f'  (a) "{words}" {{\n'
        f"    rule aged_amount: money = {amount} when birth_date + 65 years <= close_of_year\n"
        '      reviewed 65 years "attained age 65";\n  }\n}\n',
        encoding="utf-8",
    )
    return folder / "aged.lex"


def test_a_changed_rule_is_counted_on_rows_the_scalar_path_evaluates(tmp_path: Path) -> None:
    old, new = _aged(tmp_path / "old", "$600"), _aged(tmp_path / "new", "$750")
    population = tmp_path / "people.jsonl"
    people = [
        ("1950-06-01", "2020-12-31"),
        ("1990-01-01", "2020-12-31"),
        ("1955-12-31", "2020-12-31"),
    ]
    population.write_text(
        "".join(
            json.dumps({"birth_date": birth, "close_of_year": close}) + "\n"
            for birth, close in people
        ),
        encoding="utf-8",
    )
    report = impact(load_statute(old), load_statute(new), str(population), "jsonl")
    (cause,) = report.causes
    assert cause.rule == "aged_amount"
    assert cause.scenarios == 2  # the two people aged 65 by the close of the year
    (result,) = report.results
    assert result.changed == 2


def test_a_new_input_the_population_never_gives_is_noted(tmp_path: Path) -> None:
    old = _aged(tmp_path / "old", "$600")
    new = _aged(tmp_path / "new", "$600")
    # The new version also reads whether the taxpayer is blind (an input the old one lacks).
    text = new.read_text(encoding="utf-8")
    text = text.replace(
        "input close_of_year:",
        'input blind: bool = false "the taxpayer is blind";\ninput close_of_year:',
    ).replace("<= close_of_year\n", "<= close_of_year and not blind\n")
    new.write_text(text, encoding="utf-8")
    population = tmp_path / "people.jsonl"
    row = {"birth_date": "1950-06-01", "close_of_year": "2020-12-31"}
    population.write_text(json.dumps(row) + "\n", encoding="utf-8")
    report = impact(load_statute(old), load_statute(new), str(population), "jsonl")
    assert report.changed == 0 and report.never_given == ["blind"]
    assert "the population never gives `blind`" in render_markdown(report)
    population.write_text(json.dumps({**row, "blind": True}) + "\n", encoding="utf-8")
    report = impact(load_statute(old), load_statute(new), str(population), "jsonl")
    assert report.changed == 1 and report.never_given == []
