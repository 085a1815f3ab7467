"""Which readings the test cases tell apart (`lextrace test`).

A reading with alternatives is a choice the words leave open; its default is the one applied
when nothing pins another. A case *tells the default apart* when it runs under the default
(neither the case nor its scenario pins the reading) and gives other results under another
option: swap the default, and that case fails. A case pinned to an option tests that option
only. A reading whose default no case tells apart is reported, so that a change of default
cannot pass the cases unseen.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from .api import Statute
from .cases import Case, UndefinedScenario, evaluate_case
from .dsl.errors import ScenarioError
from .dsl.reserved import READINGS_KEY
from .dsl.scenario import read_scenario_file


@dataclass
class ReadingCover:
    """How the cases cover one reading with alternatives."""

    reading: str
    default: str
    # The first case that runs under the default and gives other results under `under`.
    told_apart_by: str | None = None
    under: str | None = None
    # Each other option, with the cases run under it (pinned).
    options: dict[str, list[str]] = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        """Returns the cover as the JSON report of `lextrace test` gives it."""
        return {
            "reading": self.reading,
            "default": self.default,
            "default_told_apart_by": self.told_apart_by,
            "under": self.under,
            "options": self.options,
        }


def reading_cover(statute: Statute, cases: Sequence[Case]) -> list[ReadingCover]:
    """Returns, for each reading of `statute` with alternatives, the case
    that tells its default apart (if any) and the cases run under each other option."""
    readings = statute.ast.readings
    covers = {
        rid: ReadingCover(
            rid,
            readings[rid].default.name,
            options={option.name: [] for option in readings[rid].alternatives},
        )
        for rid in readings
        if len(readings[rid].options) > 1
    }
    if not covers:
        return []
    for case in cases:
        if case.refuse is not None:
            continue
        try:
            result = evaluate_case(statute, case, trace=False)[0]
        except UndefinedScenario:  # the case fails, and says so; it tells nothing apart
            continue
        if result is None:
            continue
        pinned = {**_scenario_readings(case), **case.readings}
        for rid, cover in covers.items():
            chosen = result.readings.get(rid, cover.default)
            if chosen != cover.default:
                cover.options.setdefault(chosen, []).append(case.name)
            elif cover.told_apart_by is None and rid not in pinned:
                other = _differs_under(statute, case, rid, list(cover.options), result.values)
                if other is not None:
                    cover.told_apart_by, cover.under = case.name, other
    return list(covers.values())


def _differs_under(
    statute: Statute,
    case: Case,
    rid: str,
    options: list[str],
    values: Mapping[str, object],
) -> str | None:
    """Returns the first option of `rid` under which the case gives other results, if any."""
    for option in options:
        changed = dataclasses.replace(case, readings={**case.readings, rid: option})
        try:
            other = evaluate_case(statute, changed, trace=False)[0]
        except UndefinedScenario:
            return option  # defined under the default, undefined under the option: apart
        if other is None or other.values != values:
            return option
    return None


def _scenario_readings(case: Case) -> Mapping[str, object]:
    """Returns the readings the case's scenario pins in its own `readings` field."""
    scenario: object = case.scenario
    if case.scenario_file is not None:
        try:
            scenario = read_scenario_file(case.scenario_file)
        except ScenarioError:
            return {}
    pinned = scenario.get(READINGS_KEY) if isinstance(scenario, Mapping) else None
    return pinned if isinstance(pinned, Mapping) else {}


def render_cover(covers: Sequence[ReadingCover]) -> list[str]:
    """Returns the lines `lextrace test` prints for the readings the cases tell apart."""
    lines = []
    for cover in covers:
        if cover.told_apart_by is not None:
            default = (
                f"the default told apart by '{cover.told_apart_by}' (other results under "
                f"{cover.under})"
            )
        else:
            others = ", ".join(cover.options) or "another option"
            default = (
                f"the default told apart by no case (each case pins {cover.reading} or gives the "
                f"same results under {others})"
            )
        runs = [
            f"{option} run by {len(names)} case{'s' if len(names) != 1 else ''}"
            for option, names in cover.options.items()
        ]
        lines.append(f"  {cover.reading} (default {cover.default}): {'; '.join([default, *runs])}")
    return lines
