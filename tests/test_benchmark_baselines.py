"""Differential test: the hand-written benchmark baselines against each other and the project.

`benchmarks/baseline_scalar.py` and `benchmarks/baseline_numpy.py` are written independently from
the statute text and the interpretation register (default readings), so agreement with the
project's evaluator on a varied population is a real check of the encoding, and it is also what
makes the baselines trustworthy as benchmark references.
"""

from __future__ import annotations

import csv
import json
import sys
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq
import pytest

from lextrace import Statute

# The benchmarks folder sits beside tests/, outside the installed package.
ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import baseline_numpy, baseline_scalar  # noqa: E402
from benchmarks.population import (  # noqa: E402
    DEFAULTS,
    FIELDS,
    population,
    to_columns,
    to_python,
    write_csv,
    write_jsonl,
    write_parquet,
)

N = 2000
SEED = 20240343


@pytest.fixture(scope="module")
def rows() -> list[dict[str, Any]]:
    """The generated population (fixed seed)."""
    return population(N, SEED)


@pytest.fixture(scope="module")
def project(statute: Statute, rows: list[dict[str, Any]]) -> list[tuple[dict, dict]]:
    """The project's exact values and JSON results for every row."""
    out = []
    for row in rows:
        result = statute.evaluate(row)
        out.append((result.values, result.to_dict()))
    return out


@pytest.fixture(scope="module")
def scalar(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The scalar baseline's exact results for every row."""
    return [baseline_scalar.credit(to_python(row)) for row in rows]


@pytest.fixture(scope="module")
def numpy_json(rows: list[dict[str, Any]]) -> list[dict[str, str]]:
    """The numpy baseline's results for every row, shaped like the project's JSON."""
    out = baseline_numpy.credit_columns(to_columns(rows))
    tiers = [baseline_numpy.TIER_NAMES[code] for code in out["area_tier"].tolist()]
    money = {name: baseline_numpy.cents_str(out[name]) for name in baseline_numpy.MONEY_RESULTS}
    return [
        {"area_tier": tier, **{name: money[name][i] for name in money}}
        for i, tier in enumerate(tiers)
    ]


def _disagreements(rows: list[dict[str, Any]], pairs: list[tuple[Any, Any]]) -> str:
    """A readable report of the first few rows where the two sides differ."""
    lines = []
    for i, (left, right) in enumerate(pairs):
        if left != right:
            keys = [k for k in left if left[k] != right.get(k)]
            diff = {k: (left[k], right.get(k)) for k in keys}
            lines.append(f"row {i}: {json.dumps(rows[i])}\n  differs: {diff}")
    return f"{len(lines)} of {len(pairs)} rows differ\n" + "\n".join(lines[:5])


def test_population_exercises_every_path(rows: list[dict[str, Any]]) -> None:
    """The population must reach each branch, or agreement below would prove little."""
    cols = to_columns(rows)
    out = baseline_numpy.credit_columns(cols)
    gov = cols["government_restricted_municipality"]
    reference = np.where(gov, cols["municipality_median_salary"], cols["county_median_salary"])
    median = cols["project_median_salary"]
    wage = cols["lowest_full_time_hourly_wage"]
    floor_met = (wage >= 1500) & (5 * wage >= 6 * cols["state_minimum_wage"])
    limited = cols["board_approved_annual_limit_valid"] & (
        out["annual_credit"] < out["annual_total_before_limit"]
    )
    assert set(out["area_tier"].tolist()) == {1, 2, 3, 4, 5}
    assert (gov & ~cols["mega_project"]).any() and (cols["mega_project"] & ~gov).any()
    assert (10 * (reference - median) == 3 * reference).sum() > 10  # exactly 30 % below
    assert ((median < reference) & (10 * (reference - median) < 3 * reference)).sum() > 100
    assert (20 * (median - reference) == 7 * reference).sum() > 10  # exactly one 35 % step
    assert (~floor_met).sum() > 50 and (wage * 5 == 6 * cols["state_minimum_wage"]).any()
    assert limited.sum() > 50 and (cols["board_approved_annual_limit_valid"] & ~limited).sum() > 50
    assert (cols["labor_harmony_new_jobs"] > 0).sum() > 200
    assert (cols["labor_harmony_retained_jobs"] > 0).sum() > 100
    cap = np.array([0, 800_000, 600_000, 500_000, 400_000, 300_000])[out["area_tier"]]
    assert (out["per_job_new_labor_harmony"] > cap).sum() > 50  # the (c)(1)(j) cap allowance
    assert set(cols["new_jobs"].tolist()) >= {250, 251, 400, 401, 1000, 1001}
    assert any(len(row) < len(FIELDS) - 2 for row in rows)  # some rows rely on the defaults


def test_scalar_baseline_equals_project_exactly(
    rows: list[dict[str, Any]], project: list[tuple[dict, dict]], scalar: list[dict[str, Any]]
) -> None:
    """The exact values agree: the scalar baseline's cents against the project's Fractions."""
    pairs = []
    for (values, _), mine in zip(project, scalar, strict=True):
        ours = {k: v if k == "area_tier" else baseline_scalar.dollars(v) for k, v in mine.items()}
        pairs.append((ours, {k: values[k] for k in ours}))
    assert all(a == b for a, b in pairs), _disagreements(rows, pairs)


def test_scalar_baseline_rounds_like_project(
    rows: list[dict[str, Any]], project: list[tuple[dict, dict]], scalar: list[dict[str, Any]]
) -> None:
    """The scalar baseline's half-up cent strings are the project's JSON strings."""
    pairs = []
    for (_, as_json), mine in zip(project, scalar, strict=True):
        ours = baseline_scalar.to_json(mine)
        pairs.append((ours, {k: as_json[k] for k in ours}))
    assert all(a == b for a, b in pairs), _disagreements(rows, pairs)


def test_numpy_baseline_equals_project_to_the_cent(
    rows: list[dict[str, Any]], project: list[tuple[dict, dict]], numpy_json: list[dict[str, str]]
) -> None:
    """The column baseline, rounded with integer operations, gives the project's JSON values."""
    pairs = [
        (mine, {k: as_json[k] for k in mine})
        for (_, as_json), mine in zip(project, numpy_json, strict=True)
    ]
    assert all(a == b for a, b in pairs), _disagreements(rows, pairs)


def test_numpy_baseline_is_exact_at_its_stated_bounds() -> None:
    """At the input magnitudes its docstring allows, int64 still gives the exact results."""
    base = to_python(population(1, SEED)[0])
    extreme = []
    for median_ratio in (Fraction(7001, 10_000), Fraction(99_999, 100_000), Fraction(3)):
        s = dict(base)
        s.update(
            government_restricted_municipality=False,
            county_median_salary=10**10,
            project_median_salary=int(10**10 * median_ratio),
            new_jobs=2 * 10**8,
            retained_jobs=2 * 10**8,
            labor_harmony_new_jobs=10**8 - 1,
            labor_harmony_retained_jobs=10**8 + 1,
            industrial_rd_capital_investment=10**17 - 1,
            minimum_capital_investment=1,
            lowest_full_time_hourly_wage=10**5,
            eligibility_period_years=10**4,
            board_approved_annual_limit=None,
        )
        extreme.append(s)
        extreme.append({**s, "board_approved_annual_limit": 10**17 - 1})
    cols = to_columns([_to_row(s) for s in extreme])
    out = baseline_numpy.credit_columns(cols)
    for i, s in enumerate(extreme):
        expected = baseline_scalar.credit(s)
        for name in baseline_numpy.MONEY_RESULTS:
            assert int(out[name][i]) == baseline_scalar.round_half_up(expected[name]), (i, name)


def _to_row(s: dict[str, Any]) -> dict[str, Any]:
    """A scalar-baseline input back as a JSON-ready row (money in decimal strings)."""
    row: dict[str, Any] = {}
    for key, value in s.items():
        if isinstance(value, bool) or value is None or isinstance(value, str):
            row[key] = value
        elif key in (
            "mri_distress_score",
            "onsite_renewable_share",
            "board_underrepresented_share",
        ):
            row[key] = str(value)
        elif key in (
            "new_jobs",
            "retained_jobs",
            "labor_harmony_new_jobs",
            "labor_harmony_retained_jobs",
            "eligibility_period_years",
        ):
            row[key] = value
        else:
            row[key] = f"{value // 100}.{value % 100:02d}"
    return row


def test_writers_round_trip(tmp_path: Path, rows: list[dict[str, Any]]) -> None:
    """JSON Lines, Parquet and CSV hold the same scenarios (defaults filled in for the latter)."""
    sample = rows[:300]
    full = [{f: row.get(f, DEFAULTS.get(f)) for f in FIELDS} for row in sample]

    write_jsonl(tmp_path / "s.jsonl", sample)
    lines = (tmp_path / "s.jsonl").read_bytes().splitlines()
    assert [json.loads(line) for line in lines] == sample

    write_parquet(tmp_path / "s.parquet", sample)
    table = pq.read_table(tmp_path / "s.parquet")
    assert table.column_names == list(FIELDS)
    assert str(table.schema.field("county_median_salary").type) == "decimal128(18, 2)"
    assert table.schema.field("board_approved_annual_limit").nullable
    for got, want in zip(table.to_pylist(), full, strict=True):
        assert _normalised(got) == _normalised(want)

    write_csv(tmp_path / "s.csv", sample)
    with open(tmp_path / "s.csv", newline="", encoding="utf-8") as f:
        read = list(csv.DictReader(f))
    for got, want in zip(read, full, strict=True):
        assert _normalised(got) == _normalised(want)


def _normalised(row: dict[str, Any]) -> dict[str, Any]:
    """Field values in one comparable form: exact numbers as Fractions, bools, None, text."""
    out: dict[str, Any] = {}
    for key, value in row.items():
        if value in ("", None):
            out[key] = None
        elif value in ("true", "false"):
            out[key] = value == "true"
        elif isinstance(value, bool) or key == "green_building":
            out[key] = value
        elif isinstance(value, Decimal | int | str):
            out[key] = Fraction(value)
        else:
            out[key] = value
    return out
