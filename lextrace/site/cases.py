"""The cases of a cases file that make worked examples: each case that expects results, with its
scenario (inline, or a file relative to the cases file) and the readings it pins.

The file is read as `lextrace test` reads it; `lextrace test` checks the expectations. A case
that expects a refusal has no evaluation to explain and is left out.
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
    """Returns the cases of a cases file (YAML, JSON or TOML) that expect results, in file order,
    read by `lextrace test`'s own reader (lextrace/cases.py). Raises SiteError naming the file
    and the field for a file that cannot be used."""
    from lextrace.cases import CasesError, load_cases

    try:
        cases = load_cases(path)
    except CasesError as error:
        raise SiteError(error.render()) from None
    found: list[Case] = []
    for index, case in enumerate(cases.cases):
        if case.expect is None:
            continue  # an expected refusal has no evaluation to explain
        where = f"{path}: cases[{index}]"
        if case.scenario_file is not None:
            try:
                scenario = read_scenario_file(case.scenario_file)
            except ScenarioError as error:
                raise SiteError(f"{where}.scenario: {error}") from None
            if not isinstance(scenario, dict):
                raise SiteError(f"{where}.scenario: {case.scenario_file} holds no scenario object")
            source, origin = str(case.scenario_file), case.scenario_file
        else:
            scenario = dict(case.scenario or {})
            source, origin = f"{path} (cases[{index}])", path
        if case.readings:
            scenario = {**scenario, READINGS_KEY: {**_pinned(scenario), **case.readings}}
        found.append(Case(case.name, scenario, origin, source, dict(case.expect)))
    return found


def _pinned(scenario: dict[str, object]) -> dict[str, object]:
    """Returns the readings a scenario already pins."""
    pinned = scenario.get(READINGS_KEY, {})
    return pinned if isinstance(pinned, dict) else {}
