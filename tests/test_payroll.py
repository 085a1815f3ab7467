"""The credit from the annual report's jobs (docs/scenario-format.md, the payroll): every
counted fact derived by a rule of the encoding, checked against the flat form and the
independent oracle."""

from __future__ import annotations

import csv
import json
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import oracle

from lextrace import ScenarioError, exits, load_statute
from lextrace.cli import main
from lextrace.periods import PeriodResult

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
COUNTED = (
    "new_jobs",
    "retained_jobs",
    "labor_harmony_new_jobs",
    "labor_harmony_retained_jobs",
    "project_median_salary",
    "lowest_full_time_hourly_wage",
)


def facts() -> dict[str, Any]:
    """The distressed manufacturer's facts without its six counted ones."""
    scenario = json.loads((EXAMPLES / "distressed-manufacturer.json").read_text("utf-8"))
    for key in (*COUNTED, "readings"):
        scenario.pop(key, None)
    return scenario


def contract_payroll() -> list[dict[str, Any]]:
    """300 new jobs (50 under the labor harmony agreement), 100 retained, one other job."""
    jobs: list[dict[str, Any]] = [
        {
            "id": f"N{i}",
            "kind": "new",
            "annual_salary": "59500",
            "hourly_wage": "19.50",
            "labor_harmony": i < 50,
        }
        for i in range(300)
    ]
    jobs += [
        {"id": f"R{i}", "kind": "retained", "annual_salary": "59500", "hourly_wage": "20.00"}
        for i in range(100)
    ]
    jobs.append({"id": "O1", "kind": "other", "annual_salary": "30000", "hourly_wage": "19.75"})
    return jobs


def counted(jobs: list[dict[str, Any]], i21: str = "mean-of-middle") -> dict[str, Any]:
    """The six facts of a payroll, worked out here from the contract's table."""
    covered = [j for j in jobs if j["kind"] in ("new", "retained")]
    salaries = sorted(Fraction(j["annual_salary"]) for j in covered)
    middle = len(salaries) // 2
    if len(salaries) % 2:
        median = salaries[middle]
    elif i21 == "lower-middle":
        median = salaries[middle - 1]
    else:
        median = (salaries[middle - 1] + salaries[middle]) / 2
    return {
        "new_jobs": sum(j["kind"] == "new" for j in jobs),
        "retained_jobs": sum(j["kind"] == "retained" for j in jobs),
        "labor_harmony_new_jobs": sum(
            j["kind"] == "new" and j.get("labor_harmony", False) for j in jobs
        ),
        "labor_harmony_retained_jobs": sum(
            j["kind"] == "retained" and j.get("labor_harmony", False) for j in jobs
        ),
        "project_median_salary": median,
        "lowest_full_time_hourly_wage": min(Fraction(j["hourly_wage"]) for j in jobs),
    }


def test_the_contract_example_derives_its_six_facts() -> None:
    result = load_statute().evaluate({**facts(), "full_time_jobs": contract_payroll()})
    output = result.to_dict(include_trace=False)
    assert output["derived"] == {
        "new_jobs": 300,
        "retained_jobs": 100,
        "labor_harmony_new_jobs": 50,
        "labor_harmony_retained_jobs": 0,
        "project_median_salary": "59500.00",
        "lowest_full_time_hourly_wage": "19.50",
    }
    flat = load_statute().evaluate({**facts(), **counted(contract_payroll())})
    assert result.values == flat.values
    assert output["readings"]["I21"] == "mean-of-middle"
    assert output["readings"]["I22"] == "every-full-time-job"
    assert "I21" not in flat.to_dict()["readings"]  # a flat year derives nothing


def money(low: int, high: int) -> st.SearchStrategy[str]:
    return st.integers(low, high).map(lambda cents: f"{cents // 100}.{cents % 100:02d}")


JOB = st.fixed_dictionaries(
    {
        "kind": st.sampled_from(["new", "new", "retained", "other"]),
        "annual_salary": money(2_000_000, 12_000_000),
        "hourly_wage": money(1_200, 4_000),
        "labor_harmony": st.booleans(),
    }
)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(JOB, min_size=1, max_size=30),
    st.sampled_from(["covered-jobs", "business-wide"]),
    st.sampled_from(["mean-of-middle", "lower-middle"]),
)
def test_a_payroll_gives_the_year_of_the_flat_scenario_holding_its_facts(
    jobs: list[dict[str, Any]], i8: str, i21: str
) -> None:
    for index, job in enumerate(jobs):
        job["id"] = f"J{index}"
        if job["kind"] == "other":
            job["labor_harmony"] = False
    if not any(j["kind"] in ("new", "retained") for j in jobs):
        jobs[0]["kind"] = "new"
    statute = load_statute()
    readings = {"I8": i8, "I21": i21}
    from_payroll = statute.evaluate({**facts(), "full_time_jobs": jobs}, readings)
    flat = {**facts(), **counted(jobs, i21)}
    assert from_payroll.values == statute.evaluate(flat, readings).values
    expected = oracle(flat, i8)
    assert from_payroll.values["annual_credit"] == expected["annual_credit"]
    derived = from_payroll.inputs
    for name, value in counted(jobs, i21).items():
        assert derived[name] == value, name


def test_the_lower_middle_reading_takes_the_lower_of_two_middle_salaries() -> None:
    jobs = [
        {"id": "A", "kind": "new", "annual_salary": "50000", "hourly_wage": "20"},
        {"id": "B", "kind": "retained", "annual_salary": "60000", "hourly_wage": "20"},
    ]
    statute = load_statute()
    scenario = {**facts(), "full_time_jobs": jobs}
    mean = statute.evaluate(scenario).to_dict(include_trace=False)["derived"]
    lower = statute.evaluate(scenario, {"I21": "lower-middle"}).to_dict(include_trace=False)
    assert mean["project_median_salary"] == "55000.00"
    assert lower["derived"]["project_median_salary"] == "50000.00"


def test_the_trace_names_the_jobs_the_median_and_the_lowest_wage_rest_on() -> None:
    jobs = [
        {"id": "A-1", "kind": "new", "annual_salary": "50000", "hourly_wage": "21"},
        {"id": "B-2", "kind": "retained", "annual_salary": "70000", "hourly_wage": "19.80"},
        {"id": "C-3", "kind": "new", "annual_salary": "60000", "hourly_wage": "22"},
        {"id": "D-4", "kind": "other", "annual_salary": "90000", "hourly_wage": "30"},
    ]
    text = load_statute().evaluate({**facts(), "full_time_jobs": jobs}, trace=True).explain()
    text = " ".join(text.replace("│", " ").split())  # the words as they read, unwrapped
    assert "payroll_median_salary = $60,000.00 [N.J.S.A. 34:1B-343(e)(1)]" in text
    assert "the middle: full_time_jobs[2] C-3" in text
    assert "payroll_lowest_hourly_wage = $19.80 [N.J.S.A. 34:1B-343(c)(2)]" in text
    assert "the lowest: full_time_jobs[1] B-2" in text
    assert "payroll_new_jobs = 2 [N.J.S.A. 34:1B-343(f)(1)]" in text


def _refused(tmp_path: Path, scenario: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> str:
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(scenario), encoding="utf-8")
    assert main(["evaluate", str(path)]) == exits.BAD_INPUT
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err


JOBS = [
    {"id": "A", "kind": "new", "annual_salary": "50000", "hourly_wage": "20"},
    {"id": "B", "kind": "retained", "annual_salary": "60000", "hourly_wage": "20"},
]


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (
            lambda s: s.update(new_jobs=2),
            "field 'new_jobs': expected no new_jobs when full_time_jobs is given: it is derived "
            "by payroll_new_jobs (N.J.S.A. 34:1B-343(f)(1))",
        ),
        (
            lambda s: s["full_time_jobs"][1].update(id="A"),
            "field 'full_time_jobs[1].id': expected an id no other full_time_job has "
            "(full_time_jobs[0] has this one)",
        ),
        (
            lambda s: s["full_time_jobs"][1].update(id=""),
            "field 'full_time_jobs[1].id': expected a non-empty string",
        ),
        (
            lambda s: s["full_time_jobs"][1].update(kind="other", labor_harmony=True),
            "field 'full_time_jobs[1]': expected an element meeting not (kind = other and "
            'labor_harmony), given kind "other", labor_harmony true (a job of kind other with',
        ),
        (
            lambda s: [j.update(kind="other") for j in s["full_time_jobs"]],
            "field 'full_time_jobs': expected at least one element meeting its condition",
        ),
        (
            lambda s: s["full_time_jobs"][0].update(annual_salary="0"),
            "field 'full_time_jobs[0].annual_salary': expected an amount of money more than $0",
        ),
        (
            lambda s: s["full_time_jobs"][0].update(kind="temporary"),
            "field 'full_time_jobs[0].kind': expected one of",
        ),
        (
            lambda s: s["full_time_jobs"][0].update(hourly_wage=True),
            "field 'full_time_jobs[0].hourly_wage'",
        ),
    ],
    ids=["both", "same-id", "empty-id", "other-harmony", "no-median", "no-salary", "kind", "wage"],
)
def test_a_bad_payroll_is_refused_at_its_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: Any, words: str
) -> None:
    scenario = {**facts(), "full_time_jobs": json.loads(json.dumps(JOBS))}
    change(scenario)
    assert words in _refused(tmp_path, scenario, capsys)


def _write_csv(path: Path, jobs: list[dict[str, Any]]) -> None:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(
            handle, ["id", "kind", "annual_salary", "hourly_wage", "labor_harmony"]
        )
        writer.writeheader()
        for job in jobs:
            row = {**job, "labor_harmony": "true" if job.get("labor_harmony") else "false"}
            writer.writerow(row)


def test_a_payroll_in_a_csv_or_parquet_file_gives_the_same_year(tmp_path: Path) -> None:
    jobs = contract_payroll()
    folder = tmp_path / "report"
    folder.mkdir()
    _write_csv(folder / "jobs.csv", jobs)
    table = pa.table(
        {
            "id": [j["id"] for j in jobs],
            "kind": [j["kind"] for j in jobs],
            "annual_salary": pa.array(
                [Decimal(j["annual_salary"]) for j in jobs], pa.decimal128(12, 2)
            ),
            "hourly_wage": pa.array(
                [Decimal(j["hourly_wage"]) for j in jobs], pa.decimal128(12, 2)
            ),
            "labor_harmony": [bool(j.get("labor_harmony")) for j in jobs],
        }
    )
    pq.write_table(table, folder / "jobs.parquet")
    inline = load_statute().evaluate({**facts(), "full_time_jobs": jobs})
    for name in ("jobs.csv", "jobs.parquet"):
        scenario = folder / f"scenario-{name}.json"
        scenario.write_text(json.dumps({**facts(), "full_time_jobs": name}), encoding="utf-8")
        result = load_statute().evaluate_file(scenario)
        assert result.values == inline.values, name
        assert result.to_dict(include_trace=False)["derived"]["new_jobs"] == 300


def test_a_bad_payroll_file_is_named_with_its_row_and_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    jobs = json.loads(json.dumps(JOBS))
    jobs[1]["annual_salary"] = "lots"
    _write_csv(tmp_path / "jobs.csv", jobs)
    err = _refused(tmp_path, {**facts(), "full_time_jobs": "jobs.csv"}, capsys)
    assert "field 'full_time_jobs[1].annual_salary'" in err
    assert "jobs.csv, row 3, column annual_salary" in err
    (tmp_path / "floats.parquet").unlink(missing_ok=True)
    pq.write_table(
        pa.table({"id": ["A"], "kind": ["new"], "annual_salary": [5.0], "hourly_wage": [20.0]}),
        tmp_path / "floats.parquet",
    )
    err = _refused(tmp_path, {**facts(), "full_time_jobs": "floats.parquet"}, capsys)
    assert "binary floats" in err
    err = _refused(tmp_path, {**facts(), "full_time_jobs": "missing.csv"}, capsys)
    assert "field 'full_time_jobs'" in err and "missing.csv" in err
    # The facts the payroll would give are not also said to be missing.
    assert "new_jobs" not in err and "the field is missing" not in err, err
    # A name no file can have (a NUL byte): refused at the field, not a traceback.
    err = _refused(tmp_path, {**facts(), "full_time_jobs": "jobs\x00.csv"}, capsys)
    assert "field 'full_time_jobs'" in err and "a file name holds no NUL byte" in err


def test_a_period_takes_a_payroll_each_year(tmp_path: Path) -> None:
    jobs = contract_payroll()
    later = [dict(j, hourly_wage="18.00") if j["id"] == "O1" else j for j in jobs]
    scenario = {
        **facts(),
        "eligibility_period": [
            {"tax_year": 2024, "full_time_jobs": jobs},
            {"tax_year": 2025, "full_time_jobs": later},
        ],
    }
    scenario.pop("state_minimum_wage")
    result = load_statute().evaluate(scenario)
    assert isinstance(result, PeriodResult)
    first, second = result.to_dict(include_trace=False)["years"]
    assert first["derived"]["new_jobs"] == 300
    assert first["derived"]["state_minimum_wage"] == "15.13"
    assert second["derived"]["lowest_full_time_hourly_wage"] == "18.00"
    # $18.00 is below 120 percent of 2025's $15.49 ($18.588): (c)(2) withdraws the bonuses.
    assert Fraction(second["annual_credit"]) < Fraction(first["annual_credit"])
    bad = json.loads(json.dumps(scenario))
    bad["eligibility_period"][1]["full_time_jobs"][2]["annual_salary"] = "-1"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad), encoding="utf-8")
    assert main(["evaluate", str(path)]) == exits.BAD_INPUT


def test_batch_sends_a_payroll_row_to_the_reference_path_and_keeps_the_fast_one(
    tmp_path: Path,
) -> None:
    statute = load_statute()
    assert statute._selection(statute.select_readings())[0] is not None  # fast path kept
    flat = {**facts(), **counted(contract_payroll())}
    flat["project_median_salary"] = "59500"
    flat["lowest_full_time_hourly_wage"] = "19.50"
    rows = [flat, {**facts(), "full_time_jobs": contract_payroll()}, flat]
    source = tmp_path / "in.jsonl"
    source.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    output = tmp_path / "out.jsonl"
    assert main(["batch", str(source), "-o", str(output)]) == exits.OK
    records = [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()]
    assert len(records) == 3
    assert records[0]["annual_credit"] == records[1]["annual_credit"] == records[2]["annual_credit"]


PERIOD_EXAMPLES = sorted((EXAMPLES / "eligibility-period").glob("*.json"))
MINIMUM_WAGE = {2020: "11.00", 2021: "12.00", 2022: "13.00", 2023: "14.13", 2024: "15.13",
                2025: "15.49", 2026: "15.92"}  # fmt: skip


def _jobs(given: Any, folder: Path) -> list[dict[str, Any]]:
    if isinstance(given, list):
        return given
    with (folder / given).open(encoding="utf-8", newline="") as handle:
        return [
            {**row, "labor_harmony": row["labor_harmony"] == "true"}
            for row in csv.DictReader(handle)
        ]


@pytest.mark.parametrize("path", PERIOD_EXAMPLES, ids=[p.stem for p in PERIOD_EXAMPLES])
def test_the_payroll_examples_agree_with_the_oracle_year_by_year(path: Path) -> None:
    scenario = json.loads(path.read_text(encoding="utf-8"))
    years = scenario.pop("eligibility_period", None) or [
        {"tax_year": scenario.pop("tax_year"), "full_time_jobs": scenario.pop("full_time_jobs")}
    ]
    result = load_statute().evaluate_file(path)
    results = result.results if isinstance(result, PeriodResult) else [result]
    credits = []
    for year, own in zip(years, results, strict=True):
        flat = {**scenario, **counted(_jobs(year["full_time_jobs"], path.parent))}
        flat["state_minimum_wage"] = year.get("state_minimum_wage", MINIMUM_WAGE[year["tax_year"]])
        expected = oracle(flat)
        assert own.values["annual_credit"] == expected["annual_credit"], year["tax_year"]
        credits.append(expected["annual_credit"])
    if isinstance(result, PeriodResult):
        assert result.totals["eligibility_period_total"] == sum(credits)


def test_the_site_shows_a_payroll_period_year_by_year(tmp_path: Path) -> None:
    from conftest import lextrace_command

    folder = EXAMPLES / "eligibility-period"
    out = tmp_path / "site"
    done = lextrace_command("site", "--examples", str(folder), "-o", str(out), "--strict")
    assert done.returncode == 0, done.stderr
    page = (out / "examples" / "minimum-wage-withdraws-bonuses" / "index.html").read_text("utf-8")
    for words in (
        "tax_year 2024",
        "tax_year 2025",
        "The period",
        "derived fact",
        "payroll_median_salary",
    ):
        assert words in page, words
    index = (out / "examples" / "index.html").read_text("utf-8")
    assert "each of 7 periods" in index and "$74,000.00" in index


def test_a_list_file_with_no_size_is_read_only_up_to_the_bound(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A device has no size to check first (/dev/zero under a .csv name reads on forever): the
    # read stops at the bound and the field is refused, as a file too large is.
    from lextrace.dsl import list_files

    monkeypatch.setattr(list_files, "MAX_FILE_BYTES", 4096)
    (tmp_path / "jobs.csv").symlink_to("/dev/zero")
    err = _refused(tmp_path, {**facts(), "full_time_jobs": "jobs.csv"}, capsys)
    assert "field 'full_time_jobs'" in err and "more than 4096 bytes" in err


def test_a_payroll_with_no_new_or_retained_job_is_refused_at_its_path(tmp_path: Path) -> None:
    # The median of no job is refused while the year is evaluated: still from the scenario's
    # file, and in a period at the year's own path.
    only_other = [{"id": "x", "kind": "other", "annual_salary": "1", "hourly_wage": "20"}]
    year = {"tax_year": 2025, "full_time_jobs": only_other}
    counted = {
        "tax_year": 2024,
        "new_jobs": 10,
        "project_median_salary": "50000",
        "lowest_full_time_hourly_wage": "20",
    }
    top = {"distressed_municipality": True, "county_median_salary": "60000"}
    path = tmp_path / "period.json"
    path.write_text(json.dumps({**top, "eligibility_period": [counted, year]}), "utf-8")
    with pytest.raises(ScenarioError) as raised:
        load_statute().evaluate_file(path)
    assert raised.value.source == str(path)
    assert raised.value.field == "eligibility_period[1].full_time_jobs"
    with pytest.raises(ScenarioError) as raised:
        load_statute().evaluate({**top, **year}, source="one.json")
    assert str(raised.value).startswith("one.json: field 'full_time_jobs': expected at least one")
