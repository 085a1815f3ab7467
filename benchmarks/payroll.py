"""A seven-year eligibility period from payrolls: the scenario and an independent baseline.

`write_period` writes one CSV payroll per year (`jobs_per_year` full-time jobs, the same for
the same seed) and the scenario naming them. `baseline_period` computes the same period
without lextrace: each year's six counted facts worked out from its CSV with the standard
library (the median of the new and retained salaries, the mean of the two middle ones for an
even count; the lowest hourly wage of every job), the minimum wage from the contract's table,
then `baseline_scalar.credit` for the year; the total is the sum of the years' credits.
"""

from __future__ import annotations

import csv
import json
import random
from fractions import Fraction
from pathlib import Path
from typing import Any

from benchmarks.baseline_scalar import credit
from benchmarks.population import to_python

FIRST_YEAR = 2020
MINIMUM_WAGE = {2020: "11.00", 2021: "12.00", 2022: "13.00", 2023: "14.13", 2024: "15.13",
                2025: "15.49", 2026: "15.92"}  # fmt: skip
FACTS = {
    "distressed_municipality": True,
    "targeted_industry": True,
    "county_median_salary": "65000.00",
}


def write_period(folder: Path, jobs_per_year: int, years: int = 7, seed: int = 1) -> Path:
    """Writes the payrolls and the scenario into `folder`; returns the scenario's path."""
    rng = random.Random(seed)
    period = []
    for year in range(FIRST_YEAR, FIRST_YEAR + years):
        name = f"jobs-{year}.csv"
        with (folder / name).open("w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["id", "kind", "annual_salary", "hourly_wage", "labor_harmony"])
            for index in range(jobs_per_year):
                kind = rng.choice(["new", "new", "retained", "other"])
                harmony = kind != "other" and rng.random() < 0.2
                salary = f"{rng.randint(40_000, 120_000)}.{rng.randint(0, 99):02d}"
                wage = f"{rng.randint(19, 60)}.{rng.randint(0, 99):02d}"
                writer.writerow([f"J{year}-{index}", kind, salary, wage, str(harmony).lower()])
        period.append({"tax_year": year, "full_time_jobs": name})
    scenario = folder / "period.json"
    scenario.write_text(json.dumps({**FACTS, "eligibility_period": period}), encoding="utf-8")
    return scenario


def _year_facts(path: Path) -> dict[str, Any]:
    with path.open(encoding="utf-8", newline="") as handle:
        jobs = list(csv.DictReader(handle))
    covered = sorted(Fraction(j["annual_salary"]) for j in jobs if j["kind"] != "other")
    middle = len(covered) // 2
    median = covered[middle] if len(covered) % 2 else (covered[middle - 1] + covered[middle]) / 2

    def count(kind: str, harmony: bool = False) -> int:
        return sum(
            j["kind"] == kind and (not harmony or j["labor_harmony"] == "true") for j in jobs
        )

    return {
        "new_jobs": count("new"),
        "retained_jobs": count("retained"),
        "labor_harmony_new_jobs": count("new", True),
        "labor_harmony_retained_jobs": count("retained", True),
        "project_median_salary": median,
        "lowest_full_time_hourly_wage": min((j["hourly_wage"] for j in jobs), key=Fraction),
    }


def baseline_period(scenario: Path) -> tuple[list[dict[str, Any]], Fraction]:
    """Returns each year's baseline result (amounts in cents) and the period's total credit
    in dollars, exact."""
    data = json.loads(scenario.read_text(encoding="utf-8"))
    years = []
    for year in data["eligibility_period"]:
        facts = _year_facts(scenario.parent / year["full_time_jobs"])
        row = {
            **{k: v for k, v in data.items() if k != "eligibility_period"},
            **facts,
            "state_minimum_wage": MINIMUM_WAGE[year["tax_year"]],
        }
        # The median may fall between two cents: it enters exactly, in cents.
        median = row.pop("project_median_salary")
        converted = to_python({**row, "project_median_salary": "1"})
        converted["project_median_salary"] = median * 100
        years.append(credit(converted))
    return years, sum((Fraction(y["annual_credit"]) for y in years), Fraction(0)) / 100
