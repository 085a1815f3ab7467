"""A deterministic population of realistic N.J.S.A. 34:1B-343 scenarios, and its file formats.

Written independently from the statute text and the scenario format, not from the project's
code. `population` draws JSON-ready scenario dicts (scenario-format field names; money as decimal
strings with two decimals, shares as fraction strings) that cover every area tier, the bonus
flags, the statutory boundaries (job bands, the wage floor, the 30 % salary shortfall, the 35 %
and 40 % steps, the 1/2 and 1/3 shares) and the optional fields. The writers store them as JSON
Lines, Parquet and CSV; `to_python` and `to_columns` convert them to the input types of
`baseline_scalar.credit` and `baseline_numpy.credit_columns`.
"""

from __future__ import annotations

import csv
import gc
import json
from collections.abc import Iterable, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

Row = dict[str, Any]

KINDS: dict[str, str] = {
    "government_restricted_municipality": "bool",
    "mega_project": "bool",
    "enhanced_area": "bool",
    "distressed_municipality": "bool",
    "qualified_opportunity_zone": "bool",
    "employment_investment_corridor": "bool",
    "mri_distress_score": "score",
    "industrial_rd_capital_investment": "money",
    "minimum_capital_investment": "money",
    "new_jobs": "count",
    "retained_jobs": "count",
    "labor_harmony_new_jobs": "count",
    "labor_harmony_retained_jobs": "count",
    "training_program": "bool",
    "training_by_state_institution_within_10_miles": "bool",
    "small_business": "bool",
    "project_median_salary": "money",
    "county_median_salary": "money",
    "municipality_median_salary": "optional money",
    "targeted_industry": "bool",
    "qualified_incubator_facility": "bool",
    "child_care": "bool",
    "reentry_partnership_hire": "bool",
    "green_building": "green building",
    "substantial_environmental_remediation": "bool",
    "college_collaboration": "bool",
    "onsite_renewable_share": "share",
    "marine_terminal_project": "bool",
    "south_jersey_port_district": "bool",
    "board_underrepresented_share": "share",
    "lowest_full_time_hourly_wage": "money",
    "state_minimum_wage": "money",
    "board_approved_annual_limit": "optional money",
    "eligibility_period_years": "count",
}
"""Every scenario field, in the order of the scenario format, with the kind of its values."""


def _of_kind(kind: str) -> tuple[str, ...]:
    return tuple(name for name, its in KINDS.items() if its == kind)


FIELDS: tuple[str, ...] = tuple(KINDS)
BOOL_FIELDS = _of_kind("bool")
COUNT_FIELDS = _of_kind("count")
MONEY_FIELDS = _of_kind("money")
OPTIONAL_MONEY_FIELDS = _of_kind("optional money")
SHARE_FIELDS = _of_kind("share")

DEFAULTS: dict[str, Any] = {
    **dict.fromkeys(BOOL_FIELDS, False),
    "mri_distress_score": 0,
    "industrial_rd_capital_investment": "0.00",
    "minimum_capital_investment": "0.00",
    "retained_jobs": 0,
    "labor_harmony_new_jobs": 0,
    "labor_harmony_retained_jobs": 0,
    "municipality_median_salary": None,
    "green_building": "none",
    "onsite_renewable_share": "0",
    "board_underrepresented_share": "0",
    "board_approved_annual_limit": None,
    "eligibility_period_years": 7,
}
"""The value a missing optional field takes (the required fields have none)."""

GREEN_BUILDING_CODES: dict[str, int] = {"none": 0, "exceeds_silver": 1, "exceeds_gold": 2}
"""The `green_building_code` column of `to_columns` (same codes as `baseline_numpy`)."""

_JOB_BOUNDARIES = np.array([0, 1, 250, 251, 400, 401, 600, 601, 800, 801, 1000, 1001, 2000])
_SHARE_DENOMINATORS = np.array([1, 2, 3, 4, 5, 10, 100, 1000])
_MINIMUM_WAGES = np.array([1313, 1500, 1513, 1549, 1592, 1625, 1700])


# --- generation ----------------------------------------------------------------------------------


_CENT_SUFFIXES = [f".{c:02d}" for c in range(100)]


def _money(cents: np.ndarray) -> list[str]:
    """Decimal strings with two decimals ("59500.00") for non-negative int cents."""
    dollars, rest = np.divmod(cents, 100)
    # str() + a table lookup is about twice as fast as an f-string with a format spec.
    return [
        str(d) + _CENT_SUFFIXES[r] for d, r in zip(dollars.tolist(), rest.tolist(), strict=True)
    ]


def _shares(rng: np.random.Generator, n: int, boundary: int, zero: float) -> list[str]:
    """Fraction strings in [0, 1], many exactly on or beside 1/`boundary`, some "0"."""
    den = rng.choice(_SHARE_DENOMINATORS, n)
    num = rng.integers(0, den + 1)
    # On the boundary (1/2, 1/3, and the nearest hundredths/thousandths beside it).
    near = rng.random(n) < 0.3
    den = np.where(near, rng.choice([boundary, 100, 1000], n), den)
    offset = rng.integers(-1, 2, n)
    num = np.where(near, np.maximum(den // boundary + offset * (den != boundary), 0), num)
    num = np.where(rng.random(n) < zero, 0, num)
    out = []
    for a, b in zip(num.tolist(), den.tolist(), strict=True):
        out.append("0" if a == 0 else ("1" if a == b else f"{a}/{b}"))
    return out


def _skewed_jobs(rng: np.random.Generator, n: int, zero: float) -> np.ndarray:
    """Job counts 0..2000, mostly small, some on the (c)(1)(c) band edges, some zero."""
    jobs = np.rint(2000 * rng.random(n) ** 2).astype(np.int64)
    jobs = np.where(rng.random(n) < 0.2, rng.choice(_JOB_BOUNDARIES, n), jobs)
    return np.where(rng.random(n) < zero, 0, jobs)


def population(n: int, seed: int = 0) -> list[Row]:
    """`n` realistic, varied scenarios, the same for the same `n` and `seed`.

    Rows are JSON-ready scenario objects: money as decimal strings ("59500.00"), shares as
    fraction strings ("1/3", "0"), the MRI score as an int or a decimal string ("50.01"). Most
    carry every field explicitly; about a quarter leave out the optional fields that hold their
    default, as a hand-written scenario would. `municipality_median_salary` is present for every
    government-restricted facility and for some others (where it must be ignored);
    `board_approved_annual_limit` for a quarter of the rows (and null for a few).
    """
    # Millions of new dicts would trigger many full cyclic-GC passes; they hold no cycles.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _population(n, seed)
    finally:
        if gc_was_enabled:
            gc.enable()


def _population(n: int, seed: int) -> list[Row]:
    """The body of `population`."""
    rng = np.random.default_rng(seed)
    cols: dict[str, Any] = {}

    def flag(p: float | np.ndarray) -> np.ndarray:
        return rng.random(n) < p

    # Area: one primary tier, plus lower-tier facts that overlap it (I1 must pick the first).
    area = rng.choice(6, n, p=[0.12, 0.05, 0.15, 0.2, 0.23, 0.25])
    gov = area == 0
    cols["government_restricted_municipality"] = gov
    cols["mega_project"] = (area == 1) | (gov & flag(0.2))
    cols["enhanced_area"] = (area == 2) | ((area < 2) & flag(0.15))
    cols["distressed_municipality"] = (area == 3) | ((area < 3) & flag(0.25))
    qoz_or_corridor = (area == 4) | ((area < 4) & flag(0.3))
    qoz = qoz_or_corridor & flag(0.5)
    cols["qualified_opportunity_zone"] = qoz
    cols["employment_investment_corridor"] = (qoz_or_corridor & ~qoz) | (qoz & flag(0.2))

    # MRI score in hundredths: zero, exactly 50, just above 50, or anywhere in 0..100.
    mri = rng.integers(0, 10_001, n)
    kind = rng.random(n)
    mri = np.where(kind < 0.3, 0, np.where(kind < 0.4, 5000, np.where(kind < 0.45, 5001, mri)))
    mri = np.where((kind >= 0.45) & flag(0.5), mri // 100 * 100, mri)
    cols["mri_distress_score"] = [
        m // 100 if m % 100 == 0 else f"{m // 100}.{m % 100:02d}" for m in mri.tolist()
    ]

    # Investment: half none; else a minimum of $1M..$100M and 0..5x of it, some on a 40 % step.
    invests = flag(0.5)
    minimum = rng.integers(10, 1001, n) * 10_000_000
    ratio_bp = rng.integers(0, 50_001, n)  # investment / minimum, in basis points
    on_step = flag(0.2)
    ratio_bp = np.where(on_step, 10_000 + 4_000 * rng.integers(0, 11, n), ratio_bp)
    ratio_bp = np.where(on_step & flag(0.3), ratio_bp - 1, ratio_bp)
    investment = minimum * ratio_bp // 10_000
    cols["industrial_rd_capital_investment"] = _money(np.where(invests, investment, 0))
    cols["minimum_capital_investment"] = _money(np.where(invests | flag(0.05), minimum, 0))

    new_jobs = _skewed_jobs(rng, n, 0.03)
    retained_jobs = _skewed_jobs(rng, n, 0.5)
    cols["new_jobs"] = new_jobs.tolist()
    cols["retained_jobs"] = retained_jobs.tolist()
    harmony = flag(0.3)
    cols["labor_harmony_new_jobs"] = np.where(harmony, rng.integers(0, new_jobs + 1), 0).tolist()
    cols["labor_harmony_retained_jobs"] = np.where(
        harmony & flag(0.6), rng.integers(0, retained_jobs + 1), 0
    ).tolist()

    training = flag(0.3)
    cols["training_program"] = training
    cols["training_by_state_institution_within_10_miles"] = flag(np.where(training, 0.5, 0.05))
    cols["small_business"] = flag(0.3)

    # Medians in whole dollars, so the 30 % and 35 % boundaries below fall on exact cents.
    county = rng.integers(45_000, 110_001, n) * 100
    municipality = rng.integers(35_000, 95_001, n) * 100
    reference = np.where(gov, municipality, county)
    ratio_pm = rng.integers(550, 1_801, n)  # project / reference, per mille
    edge = rng.random(n)
    ratio_pm = np.where(edge < 0.05, 700, ratio_pm)  # exactly 30 % below: no credit
    ratio_pm = np.where((edge >= 0.05) & (edge < 0.1), 1_350, ratio_pm)  # one 35 % step
    ratio_pm = np.where((edge >= 0.1) & (edge < 0.15), 1_000, ratio_pm)
    project = reference * ratio_pm // 1000
    nudge = (edge >= 0.15) & (edge < 0.25)
    project = project + np.where(nudge, rng.integers(-1, 2, n), 0)
    project = np.where(flag(0.2), project + rng.integers(0, 100, n), project)
    cols["project_median_salary"] = _money(np.maximum(project, 100))
    cols["county_median_salary"] = _money(county)
    has_municipality = gov | flag(0.15)
    municipality_str = _money(municipality)

    cols["targeted_industry"] = flag(0.4)
    cols["qualified_incubator_facility"] = flag(0.1)
    cols["child_care"] = flag(0.2)
    cols["reentry_partnership_hire"] = flag(0.15)
    cols["green_building"] = rng.choice(
        np.array(["none", "exceeds_silver", "exceeds_gold"]), n, p=[0.6, 0.25, 0.15]
    ).tolist()
    cols["substantial_environmental_remediation"] = flag(0.15)
    cols["college_collaboration"] = flag(0.2)
    cols["onsite_renewable_share"] = _shares(rng, n, 2, 0.5)
    cols["marine_terminal_project"] = flag(0.08) | (gov & flag(0.1))
    cols["south_jersey_port_district"] = flag(0.2)
    cols["board_underrepresented_share"] = _shares(rng, n, 3, 0.4)

    # Wage floor (c)(2): max($15, 1.2 x minimum wage), rounded up to whole cents since wages are
    # whole cents; wages on it, a cent below, or anywhere around it.
    minimum_wage = rng.choice(_MINIMUM_WAGES, n)
    floor = np.maximum(1500, -(-6 * minimum_wage // 5))
    wage = floor + rng.integers(-300, 1_500, n)
    spot = rng.random(n)
    wage = np.where(spot < 0.1, floor, np.where(spot < 0.15, floor - 1, wage))
    cols["lowest_full_time_hourly_wage"] = _money(np.maximum(wage, 100))
    cols["state_minimum_wage"] = _money(minimum_wage)

    # Board limit (g): a quarter of scenarios, $100 to $20M (log-uniform), a few exactly $0.
    has_limit = flag(0.25)
    limit = np.rint(10 ** rng.uniform(4, 9.3, n)).astype(np.int64)
    limit = np.where(flag(0.03), 0, limit)
    limit_str = _money(limit)

    years = rng.integers(1, 11, n)
    cols["eligibility_period_years"] = np.where(flag(0.4), 7, years).tolist()

    for name in BOOL_FIELDS:
        cols[name] = cols[name].tolist()
    keys = [f for f in FIELDS if f not in OPTIONAL_MONEY_FIELDS]
    rows = [
        dict(zip(keys, values, strict=True))
        for values in zip(*(cols[k] for k in keys), strict=True)
    ]

    for i in np.flatnonzero(has_municipality).tolist():
        rows[i]["municipality_median_salary"] = municipality_str[i]
    for i in np.flatnonzero(has_limit).tolist():
        rows[i]["board_approved_annual_limit"] = limit_str[i]
    null_limit = ~has_limit & flag(0.05)
    for i in np.flatnonzero(null_limit).tolist():
        rows[i]["board_approved_annual_limit"] = None
    for i in np.flatnonzero(flag(0.25)).tolist():
        row = rows[i]
        for key, default in DEFAULTS.items():
            if key in row and row[key] == default and type(row[key]) is type(default):
                del row[key]
    return rows


# --- conversions ---------------------------------------------------------------------------------


def parse_cents(value: str | int) -> int:
    """Exact integer cents of a money value: a decimal string ("59500.5", "12") or an int."""
    if type(value) is int:
        return 100 * value
    if not isinstance(value, str):
        raise TypeError(f"money must be a decimal string or an int, given {value!r}")
    whole, _, decimals = value.partition(".")
    if len(decimals) > 2:
        if decimals[2:].strip("0"):
            raise ValueError(f"{value!r} is not a whole number of cents")
        decimals = decimals[:2]
    sign = -1 if whole.startswith("-") else 1
    return int(whole) * 100 + sign * int(decimals.ljust(2, "0"))


def parse_number(value: str | int) -> Fraction | int:
    """An exact number from a decimal or fraction string or an int (an int when integral)."""
    if type(value) is int:
        return value
    number = Fraction(value)
    return number.numerator if number.denominator == 1 else number


def to_python(row: Row) -> dict[str, Any]:
    """One JSON-ready scenario as `baseline_scalar.credit` takes it: every field present, money
    as int cents, shares and the MRI score as int or Fraction, absent optional money as None."""
    s = {**DEFAULTS, **row}
    for name in MONEY_FIELDS:
        s[name] = parse_cents(s[name])
    for name in OPTIONAL_MONEY_FIELDS:
        if s[name] is not None:
            s[name] = parse_cents(s[name])
    for name in (*SHARE_FIELDS, "mri_distress_score"):
        s[name] = parse_number(s[name])
    return s


def _fraction_parts(values: Iterable[str | int]) -> tuple[np.ndarray, np.ndarray]:
    """Numerator and denominator arrays of exact numbers (fraction/decimal strings or ints)."""
    nums: list[int] = []
    dens: list[int] = []
    cache: dict[Any, tuple[int, int]] = {}
    for value in values:
        parts = cache.get(value)
        if parts is None:
            number = Fraction(value)
            parts = cache[value] = (number.numerator, number.denominator)
        nums.append(parts[0])
        dens.append(parts[1])
    return np.array(nums, dtype=np.int64), np.array(dens, dtype=np.int64)


def to_columns(rows: Sequence[Row]) -> dict[str, np.ndarray]:
    """The rows in `baseline_numpy.credit_columns`'s column layout (defaults filled in)."""
    cols: dict[str, np.ndarray] = {}
    for name in BOOL_FIELDS:
        cols[name] = np.array([r.get(name, False) for r in rows], dtype=np.bool_)
    for name in COUNT_FIELDS:
        default = DEFAULTS.get(name, 0)
        cols[name] = np.array([r.get(name, default) for r in rows], dtype=np.int64)
    for name in MONEY_FIELDS:
        default = DEFAULTS.get(name, "0")
        cols[name] = np.array([parse_cents(r.get(name, default)) for r in rows], dtype=np.int64)
    for name in OPTIONAL_MONEY_FIELDS:
        values = [r.get(name) for r in rows]
        cols[name + "_valid"] = np.array([v is not None for v in values], dtype=np.bool_)
        cols[name] = np.array([0 if v is None else parse_cents(v) for v in values], dtype=np.int64)
    for name in (*SHARE_FIELDS, "mri_distress_score"):
        num, den = _fraction_parts(r.get(name, DEFAULTS[name]) for r in rows)
        cols[name + "_num"] = num
        cols[name + "_den"] = den
    cols["green_building_code"] = np.array(
        [GREEN_BUILDING_CODES[r.get("green_building", "none")] for r in rows], dtype=np.int8
    )
    return cols


# --- writers -------------------------------------------------------------------------------------


def write_jsonl(path: str | Path, rows: Iterable[Row]) -> None:
    """Writes one scenario object per line, exactly as generated (omitted defaults stay out)."""
    with open(path, "wb") as out:
        for row in rows:
            out.write(json.dumps(row, separators=(",", ":")).encode())
            out.write(b"\n")


def _decimal_array(cents: np.ndarray, valid: np.ndarray | None, precision: int) -> pa.Array:
    """A decimal128(precision, 2) Arrow array from int64 cents, built from its 128-bit buffer."""
    words = np.empty((len(cents), 2), dtype=np.int64)
    words[:, 0] = cents
    words[:, 1] = cents >> 63  # sign extension of the little-endian two's complement
    buffers = [None, pa.py_buffer(words)]
    null_count = 0
    if valid is not None:
        buffers[0] = pa.py_buffer(np.packbits(valid, bitorder="little"))
        null_count = int(len(valid) - valid.sum())
    return pa.Array.from_buffers(pa.decimal128(precision, 2), len(cents), buffers, null_count)


def to_arrow(rows: Sequence[Row]) -> pa.Table:
    """The rows as an Arrow table: money decimal128(18, 2) (the two optional ones nullable),
    the MRI score decimal128(5, 2), shares and green_building strings, bools, int64 counts."""
    cols = to_columns(rows)
    arrays: dict[str, pa.Array] = {}
    for name in FIELDS:
        if name in BOOL_FIELDS or name in COUNT_FIELDS:
            arrays[name] = pa.array(cols[name])
        elif name in MONEY_FIELDS:
            arrays[name] = _decimal_array(cols[name], None, 18)
        elif name in OPTIONAL_MONEY_FIELDS:
            arrays[name] = _decimal_array(cols[name], cols[name + "_valid"], 18)
        elif name in SHARE_FIELDS:
            arrays[name] = pa.array([str(r.get(name, DEFAULTS[name])) for r in rows], pa.string())
        elif name == "green_building":
            arrays[name] = pa.array([r.get(name, "none") for r in rows], pa.string())
        elif name == "mri_distress_score":
            num, den = cols[name + "_num"], cols[name + "_den"]
            if np.any(100 % den):
                raise ValueError("an MRI score is not a whole number of hundredths")
            arrays[name] = _decimal_array(num * (100 // den), None, 5)
    return pa.table(arrays)


def write_parquet(
    path: str | Path, rows: Sequence[Row], decimals_as_integers: bool = False
) -> None:
    """Writes the rows as Parquet with the column types of `to_arrow`, defaults filled in.
    Decimals are stored as fixed-length byte arrays (Arrow's default), or, with
    `decimals_as_integers`, as INT64 (how Spark and DuckDB store a precision up to 18)."""
    pq.write_table(to_arrow(rows), path, store_decimal_as_integer=decimals_as_integers)


def _csv_cell(value: Any) -> str:
    """A CSV cell: booleans as true/false, null as the empty cell, anything else as text."""
    if value is None:
        return ""
    if value is True:
        return "true"
    if value is False:
        return "false"
    return str(value)


def write_csv(path: str | Path, rows: Iterable[Row]) -> None:
    """Writes a header of every field and one line per scenario, defaults filled in; a missing
    optional money value is an empty cell."""
    with open(path, "w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow(FIELDS)
        for row in rows:
            writer.writerow([_csv_cell(row.get(f, DEFAULTS.get(f))) for f in FIELDS])
