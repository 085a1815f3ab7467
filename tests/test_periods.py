"""The eligibility period year by year (docs/scenario-format.md, flat years): dated tables,
periods and their totals, checked against the independent oracle."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import oracle

from lextrace import exits, load_statute
from lextrace.cli import main
from lextrace.periods import PeriodResult

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
# The dated table of the contract, written out here independently of the encoding.
MINIMUM_WAGE = {
    2020: "11.00",
    2021: "12.00",
    2022: "13.00",
    2023: "14.13",
    2024: "15.13",
    2025: "15.49",
    2026: "15.92",
}
YEAR_FACTS = (
    "new_jobs",
    "retained_jobs",
    "labor_harmony_new_jobs",
    "labor_harmony_retained_jobs",
    "project_median_salary",
    "lowest_full_time_hourly_wage",
)


def flat(name: str) -> dict[str, Any]:
    return json.loads((EXAMPLES / f"{name}.json").read_text(encoding="utf-8"))


def period_scenario(years: list[tuple[int, str]], drop_wage: bool = True) -> dict[str, Any]:
    """A period built from example scenarios: each year takes its jobs from one example, the
    rest (the first example's) is given once at the top level."""
    top = flat(years[0][1])
    for key in (*YEAR_FACTS, "eligibility_period_years", "readings"):
        top.pop(key, None)
    if drop_wage:
        top.pop("state_minimum_wage", None)
    period = []
    for year, name in years:
        own = {k: v for k, v in flat(name).items() if k in YEAR_FACTS}
        period.append({"tax_year": year, **own})
    return {**top, "eligibility_period": period}


def year_as_flat(scenario: dict[str, Any], index: int) -> dict[str, Any]:
    top = {k: v for k, v in scenario.items() if k != "eligibility_period"}
    merged = {**top, **scenario["eligibility_period"][index]}
    merged.setdefault("state_minimum_wage", MINIMUM_WAGE[merged["tax_year"]])
    merged.pop("tax_year")
    return merged


NAMES = sorted(p.stem for p in EXAMPLES.glob("*.json"))


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.sampled_from(NAMES), min_size=1, max_size=7),
    st.integers(2020, 2026),
    st.sampled_from(["covered-jobs", "business-wide"]),
)
def test_each_year_is_its_flat_scenario_and_the_total_their_sum(
    names: list[str], first: int, i8: str
) -> None:
    years = [(first + i, name) for i, name in enumerate(names) if first + i <= 2026]
    scenario = period_scenario(years)
    result = load_statute().evaluate(scenario, {"I8": i8})
    assert isinstance(result, PeriodResult)
    credits = []
    for index, own in enumerate(result.results):
        expected = oracle(year_as_flat(scenario, index), i8)
        assert own.values["annual_credit"] == expected["annual_credit"]
        assert own.values["per_job_new"] == expected["per_job_new"]
        credits.append(expected["annual_credit"])
    assert result.totals["eligibility_period_total"] == sum(credits)


def test_the_period_result_has_the_contract_shape() -> None:
    scenario = period_scenario(
        [(2024, "distressed-manufacturer"), (2025, "incubator-training-startup")]
    )
    scenario["eligibility_period"][1]["state_minimum_wage"] = "15.60"
    output = load_statute().evaluate(scenario).to_dict(include_trace=False)
    assert list(output) == ["years", "eligibility_period_total", "readings"]
    first, second = output["years"]
    assert next(iter(first)) == "tax_year" and first["tax_year"] == 2024
    assert "eligibility_period_total" not in first
    assert list(first)[1:8] == [
        "area_tier",
        "per_job_new",
        "per_job_new_labor_harmony",
        "per_job_retained",
        "per_job_retained_labor_harmony",
        "annual_total_before_limit",
        "annual_credit",
    ]
    assert first["derived"] == {"state_minimum_wage": "15.13"}
    assert "derived" not in second  # it gives its own wage
    total = Fraction(first["annual_credit"]) + Fraction(second["annual_credit"])
    assert Fraction(output["eligibility_period_total"]) == total
    assert output["readings"]["I23"] == "year-by-year"
    assert "I19" not in output["readings"]


def test_a_year_outside_a_period_reads_the_table_and_keeps_the_flat_total() -> None:
    scenario = flat("distressed-manufacturer")
    scenario.pop("state_minimum_wage")
    scenario["tax_year"] = 2023
    result = load_statute().evaluate(scenario)
    output = result.to_dict(include_trace=False)
    assert output["derived"] == {"state_minimum_wage": "14.13"}
    expected = oracle({**scenario, "state_minimum_wage": "14.13"})
    assert result.values["eligibility_period_total"] == expected["eligibility_period_total"]
    assert "derived" not in load_statute().evaluate(flat("distressed-manufacturer")).to_dict()


def test_the_table_is_in_force_from_each_date_until_its_end() -> None:
    table = load_statute().ast.tables["nj_minimum_wage"]
    assert table.entry_for_year(2019) is None and table.entry_for_year(2027) is None
    for year, wage in MINIMUM_WAGE.items():
        entry = table.entry_for_year(year)
        assert entry is not None and entry.value.value == Fraction(wage)


def test_the_trace_names_the_table_and_the_total_its_years() -> None:
    scenario = period_scenario(
        [(2024, "distressed-manufacturer"), (2025, "distressed-manufacturer")]
    )
    text = load_statute().evaluate(scenario, trace=True).explain()
    assert "from table nj_minimum_wage for tax_year 2024, in force from 2024-01-01" in text
    assert "N.J.S.A. 34:11-56a4" in text
    assert "eligibility_period_total = $" in text
    assert "= sum of annual_credit over eligibility_period = $" in text
    assert text.count("eligibility_period_total =") == 1  # not each year's 7-year figure


BASE = [
    (2024, "distressed-manufacturer"),
    (2025, "distressed-manufacturer"),
    (2027, "distressed-manufacturer"),
]


def _bad(change: Any) -> dict[str, Any]:
    scenario = period_scenario(BASE)
    scenario["eligibility_period"][2]["state_minimum_wage"] = "16.40"
    change(scenario)
    return scenario


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda s: s.update(new_jobs=5), "field 'new_jobs': expected no new_jobs at the top level"),
        (
            lambda s: s["eligibility_period"][1].update(tax_year=2024),
            "field 'eligibility_period[1].tax_year': expected a tax_year after 2024",
        ),
        (
            lambda s: s["eligibility_period"][2].pop("state_minimum_wage"),
            "field 'eligibility_period[2].state_minimum_wage': expected an amount of money for "
            "tax_year 2027: the table nj_minimum_wage covers 2020-01-01 to 2026-12-31 only",
        ),
        (
            lambda s: s["eligibility_period"][1].update(new_jobs=-1),
            "field 'eligibility_period[1].new_jobs': expected a whole number",
        ),
        (
            lambda s: s.update(eligibility_period=s["eligibility_period"] * 4),
            "field 'eligibility_period': expected at most 10 periods, given 12 periods",
        ),
        (
            lambda s: s.update(eligibility_period_years=3),
            "field 'eligibility_period_years': expected no eligibility_period_years",
        ),
        (
            lambda s: s["eligibility_period"][0].pop("tax_year"),
            "field 'eligibility_period[0].tax_year': expected tax_year for each period",
        ),
        (lambda s: s.update(eligibility_period=[]), "expected a list of 1 to 10 periods"),
        (lambda s: s.update(tax_year=2024), "field 'tax_year': expected no tax_year"),
        (
            # A top-level fact every period gives again is never read, but still refused.
            lambda s: [
                s.update(small_business="yes"),
                *(p.update(small_business=False) for p in s["eligibility_period"]),
            ],
            "field 'small_business': expected true or false, given \"yes\"",
        ),
    ],
    ids=[
        "year-fact-on-top",
        "not-rising",
        "outside-table",
        "bad-fact",
        "too-many",
        "flat-only-field",
        "no-year",
        "empty",
        "year-on-top",
        "shadowed-on-top",
    ],
)
def test_bad_periods_are_refused_at_their_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: Any, words: str
) -> None:
    path = tmp_path / "period.json"
    path.write_text(json.dumps(_bad(change)), encoding="utf-8")
    assert main(["evaluate", str(path)]) == exits.BAD_INPUT
    err = capsys.readouterr().err
    assert words in err
    assert "Traceback" not in err
    if "tax_year for each period" in words:
        assert "state_minimum_wage" not in err  # the missing year is reported once


def test_a_year_before_the_table_is_refused_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario = flat("distressed-manufacturer")
    scenario.pop("state_minimum_wage")
    scenario["tax_year"] = 2019
    path = tmp_path / "one.json"
    path.write_text(json.dumps(scenario), encoding="utf-8")
    assert main(["evaluate", str(path)]) == exits.BAD_INPUT
    err = capsys.readouterr().err
    assert "field 'tax_year': expected a whole number at least 2020, given 2019" in err
    assert "state_minimum_wage" not in err


def test_batch_refuses_a_period_row_and_keeps_the_others(tmp_path: Path) -> None:
    rows = [
        flat("distressed-manufacturer"),
        period_scenario(BASE[:2]),
        flat("distressed-manufacturer"),
    ]
    source = tmp_path / "in.jsonl"
    source.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    output = tmp_path / "out.jsonl"
    assert main(["batch", str(source), "-o", str(output)]) == exits.BAD_INPUT
    records = [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()]
    assert len(records) == 3
    assert [p["field"] for p in records[1]["error"]] == ["eligibility_period"]
    assert records[0]["annual_credit"] == records[2]["annual_credit"]


def test_explain_and_markdown_show_every_period(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "period.json"
    path.write_text(json.dumps(period_scenario(BASE[:2])), encoding="utf-8")
    assert main(["explain", str(path)]) == exits.OK
    out = capsys.readouterr().out
    assert "== tax_year 2024 (eligibility_period[0])" in out
    assert "== tax_year 2025 (eligibility_period[1])" in out
    assert main(["evaluate", "--format", "markdown", str(path)]) == exits.OK
    out = capsys.readouterr().out
    assert "## Derivation, 2024" in out and "## Derivation, 2025" in out


ENCODING = """\
statute "Toll Act"
  official "toll.txt"

input year: count optional min 2000 "the year";
input toll: money required from tolls by year "the toll";
input trips: count = 1 "trips";

table tolls: money "the toll" source "the Toll Order"
  from 2020-01-01 $2
  from 2022-01-01 $3
  until 2023-12-31;

periods years by year at most 3 "the years" each trips;

results paid;

section 1. "The toll is paid on each trip." {
  rule paid: money = toll * trips;
}
"""


@pytest.mark.parametrize(
    ("old", "new", "words"),
    [
        ("from 2022-01-01 $3", "from 2019-01-01 $3", "the table's dates must rise"),
        ("from 2022-01-01 $3", "from 2022-02-30 $3", "2022-02-30 is not a date of the calendar"),
        ("until 2023-12-31", "until 2021-12-31", "the table ends (2021-12-31) before"),
        ("from tolls by year", "from tools by year", "'tools', which is not a table"),
        ("from tolls by year", "from tolls by toll", "'toll' must be a count input given"),
        ("by year at most 3", "by toll at most 3", "ordered by 'toll', which must be a count"),
        ("each trips", "each trip", "'trip' is not an input"),
        ("$2\n", "true\n", "table 'tolls'"),
    ],
    ids=[
        "dates-fall",
        "no-such-day",
        "ends-early",
        "unknown-table",
        "year-not-a-count",
        "periods-by-money",
        "unknown-fact",
        "not-money",
    ],
)
def test_bad_tables_and_periods_are_refused_in_the_encoding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], old: str, new: str, words: str
) -> None:
    (tmp_path / "toll.txt").write_text("1. The toll is paid on each trip.\n", encoding="utf-8")
    good = tmp_path / "toll.lex"
    good.write_text(ENCODING, encoding="utf-8")
    assert main(["check", "-e", str(good)]) == exits.OK
    capsys.readouterr()
    assert old in ENCODING
    good.write_text(ENCODING.replace(old, new, 1), encoding="utf-8")
    assert main(["check", "-e", str(good)]) == exits.BAD_INPUT
    err = capsys.readouterr().err
    assert words in err and f"{good}:" in err


def test_a_total_must_name_results_and_the_periods(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "toll.txt").write_text("1. The toll is paid on each trip.\n", encoding="utf-8")
    path = tmp_path / "toll.lex"
    text = ENCODING.replace("results paid;", "results paid, all_paid;").replace(
        "  rule paid: money = toll * trips;\n",
        "  rule paid: money = toll * trips;\n  rule all_paid: money = paid;\n"
        "  total all_paid = sum of paid over years;\n",
    )
    path.write_text(text, encoding="utf-8")
    assert main(["check", "-e", str(path)]) == exits.OK
    statute = load_statute(path)
    result = statute.evaluate({"years": [{"year": 2021, "trips": 2}, {"year": 2022, "trips": 1}]})
    assert isinstance(result, PeriodResult)
    assert result.totals["all_paid"] == Fraction(7)
    for old, new, words in [
        ("over years", "over months", "'months' is not the encoding's periods"),
        ("sum of paid", "sum of toll", "'toll' is not one"),
        ("total all_paid", "total none_paid", "total 'none_paid' is not a declared result"),
    ]:
        path.write_text(text.replace(old, new, 1), encoding="utf-8")
        assert main(["check", "-e", str(path)]) == exits.BAD_INPUT
        assert words in capsys.readouterr().err
    # A result its one-period rule does not read: the two forms add up different amounts.
    other = text.replace("results paid, all_paid;", "results paid, all_paid, doubled;").replace(
        "  rule all_paid: money = paid;\n",
        "  rule all_paid: money = paid;\n  rule doubled: money = paid * 2;\n",
    )
    path.write_text(other.replace("sum of paid", "sum of doubled"), encoding="utf-8")
    assert main(["check", "--strict", "-e", str(path)]) == exits.BAD_INPUT
    err = capsys.readouterr().err
    assert "total 'all_paid' sums 'doubled', which its rule for one period does not read" in err
    path.write_text(other, encoding="utf-8")
    main(["check", "-e", str(path)])
    assert "sums 'paid'" not in capsys.readouterr().err


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_any_scenario_of_periods_is_its_years_evaluated_alone_and_summed(data: Any) -> None:
    from lextrace.verify.strategies import period_scenarios, readings

    statute = load_statute()
    scenario = data.draw(period_scenarios(statute.ast))
    chosen = data.draw(readings(statute.ast))
    result = statute.evaluate(scenario, chosen)
    assert isinstance(result, PeriodResult)
    top = {k: v for k, v in scenario.items() if k != "eligibility_period"}
    total = Fraction(0)
    for own, year_result in zip(scenario["eligibility_period"], result.results, strict=True):
        alone = statute.evaluate({**top, **own}, chosen)
        for key in result.period_keys:
            assert year_result.values[key] == alone.values[key], key
        total += alone.values["annual_credit"]
    assert result.totals["eligibility_period_total"] == total
