"""Shared checks for a bundled statute other than N.J.S.A. 34:1B-343: its cases file (the
agreed format of `lextrace test`) evaluated through the Python API, and its examples through
`lextrace batch` in every format."""

from __future__ import annotations

import csv
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from pathlib import Path

import pyarrow.parquet as pq
import yaml

from lextrace import ScenarioError, Statute
from lextrace.cli import main

ROOT = Path(__file__).resolve().parent.parent
STATUTES = ROOT / "statute"
EXAMPLES = ROOT / "examples"


@dataclass(frozen=True)
class Case:
    """One case of a cases file, its scenario read (inline or from its file)."""

    name: str
    scenario: dict[str, object]
    readings: dict[str, str] = field(default_factory=dict)
    expect: dict[str, object] = field(default_factory=dict)
    refuse: list[str] = field(default_factory=list)
    exact: bool = False
    source: str = ""


def load_cases(path: Path) -> tuple[Path, list[Case]]:
    """Returns the encoding a cases file names (relative to the file) and its cases."""
    document = yaml.safe_load(path.read_text(encoding="utf-8"))
    encoding = (path.parent / document["encoding"]).resolve()
    cases = []
    for raw in document["cases"]:
        scenario = raw["scenario"]
        if isinstance(scenario, str):
            scenario = json.loads((path.parent / scenario).read_text(encoding="utf-8"))
        cases.append(
            Case(
                name=raw["name"],
                scenario=scenario,
                readings=raw.get("readings") or {},
                expect=raw.get("expect") or {},
                refuse=raw.get("refuse") or [],
                exact=bool(raw.get("exact", False)),
                source=raw.get("source", ""),
            )
        )
    names = [case.name for case in cases]
    assert len(names) == len(set(names)), "case names must be unique"
    return encoding, cases


def cents(value: Fraction) -> Decimal:
    """Returns an exact amount rounded half-up to the cent."""
    exact = Decimal(value.numerator) / Decimal(value.denominator)
    return exact.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def mismatches(statute: Statute, case: Case) -> list[str]:
    """Returns every way the case's evaluation differs from what it expects (none: it passes)."""
    if case.refuse:
        try:
            statute.evaluate(case.scenario, case.readings)
        except ScenarioError as error:
            message = str(error)
            return [
                f"refusal lacks {word!r}: {message}" for word in case.refuse if word not in message
            ]
        return ["the scenario was evaluated, not refused"]
    values = statute.evaluate(case.scenario, case.readings).values
    types = {name: statute.ast.definitions[name].type for name in values}
    problems = []
    for name, expected in case.expect.items():
        if name not in values:
            problems.append(f"{name}: not a result")
            continue
        got = values[name]
        kind = str(types[name])
        if kind == "money":
            same = (
                got == Fraction(Decimal(str(expected)))
                if case.exact
                else cents(got) == Decimal(str(expected))
            )
        elif isinstance(expected, bool) or isinstance(got, bool):
            same = got is expected
        elif isinstance(got, Fraction | int):
            same = Fraction(got) == Fraction(str(expected))
        else:
            same = str(got) == str(expected)
        if not same:
            problems.append(f"{name}: expected {expected!r}, got {got!r}")
    return problems


def results_by_format(
    tmp_path: Path, encoding: Path, scenarios: list[Mapping[str, object]]
) -> dict[str, list[dict[str, object]]]:
    """Runs `lextrace batch` on the scenarios into JSON Lines, CSV and Parquet and returns the
    rows each format holds."""
    population = tmp_path / "population.jsonl"
    population.write_text("".join(json.dumps(s) + "\n" for s in scenarios), encoding="utf-8")
    rows: dict[str, list[dict[str, object]]] = {}
    for suffix in ("jsonl", "csv", "parquet"):
        output = tmp_path / f"results.{suffix}"
        assert main(["batch", str(population), "-e", str(encoding), "-o", str(output)]) == 0
        if suffix == "jsonl":
            rows[suffix] = [
                json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()
            ]
        elif suffix == "csv":
            with output.open(encoding="utf-8", newline="") as handle:
                rows[suffix] = list(csv.DictReader(handle))
        else:
            rows[suffix] = pq.read_table(output).to_pylist()
    return rows


def same_value(written: object, value: object, kind: str) -> bool:
    """Returns whether a value written by a batch (a string in CSV) is the exact result."""
    if isinstance(value, bool):
        return written is value or written == ("true" if value else "false")
    if kind == "money":
        return Decimal(str(written)) == cents(value)  # type: ignore[arg-type]
    if isinstance(value, Fraction | int):
        return Fraction(str(written)) == value
    return str(written) == str(value)
