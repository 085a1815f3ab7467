"""The cases of a cases file that make worked examples: each case that expects results, with its
scenario (inline, or a file relative to the cases file) and the readings it pins.

Only what the site needs is read here: `lextrace test` checks the expectations. A case that
expects a refusal has no evaluation to explain and is left out.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lextrace.dsl.errors import ScenarioError
from lextrace.dsl.reserved import READINGS_KEY
from lextrace.dsl.scenario import read_scenario_file

from .context import SiteError


@dataclass(frozen=True)
class Case:
    """One case: its name, its scenario (readings pinned), the file the scenario comes from,
    how evaluation errors name it, and the results it expects."""

    name: str
    scenario: dict[str, object]
    path: Path
    source: str
    expect: dict[str, object]


def read_cases(path: Path) -> list[Case]:
    """Returns the cases of a cases file (YAML, JSON or TOML) that expect results, in file order.
    Raises SiteError naming the file and the field for a file that cannot be used."""
    try:
        document = read_scenario_file(path)
    except ScenarioError as error:
        raise SiteError(str(error)) from None
    if not isinstance(document, dict) or not isinstance(document.get("cases"), list):
        raise SiteError(f"{path}: cases: expected a list of cases under `cases`")
    found: list[Case] = []
    for index, entry in enumerate(document["cases"]):
        where = f"{path}: cases[{index}]"
        if not isinstance(entry, dict):
            raise SiteError(f"{where}: expected a mapping, given {type(entry).__name__}")
        name = entry.get("name")
        if not isinstance(name, str) or not name.strip():
            raise SiteError(f"{where}.name: expected the case's name, given {name!r}")
        if "refuse" in entry:
            continue
        scenario, source, origin = _scenario(path, where, entry.get("scenario"))
        readings = entry.get("readings", {})
        if not isinstance(readings, dict):
            raise SiteError(f"{where}.readings: expected a mapping ID: OPTION, given {readings!r}")
        if readings:
            scenario = {**scenario, READINGS_KEY: {**_pinned(scenario), **readings}}
        expect = entry.get("expect", {})
        if not isinstance(expect, dict):
            raise SiteError(f"{where}.expect: expected a mapping result: value, given {expect!r}")
        found.append(Case(name, scenario, origin, source, expect))
    return found


def _scenario(path: Path, where: str, given: object) -> tuple[dict[str, object], str, Path]:
    """Returns a case's scenario, how errors name it, and the file it comes from."""
    if isinstance(given, dict):
        return given, f"{path} ({where.split(': ')[-1]})", path
    if isinstance(given, str):
        file = path.parent / given
        try:
            scenario = read_scenario_file(file)
        except ScenarioError as error:
            raise SiteError(f"{where}.scenario: {error}") from None
        if not isinstance(scenario, dict):
            raise SiteError(f"{where}.scenario: {file} holds no scenario object")
        return scenario, str(file), file
    raise SiteError(
        f"{where}.scenario: expected a scenario (a mapping or a file name), given {given!r}"
    )


def _pinned(scenario: dict[str, object]) -> dict[str, object]:
    """Returns the readings a scenario already pins."""
    pinned = scenario.get(READINGS_KEY, {})
    return pinned if isinstance(pinned, dict) else {}
