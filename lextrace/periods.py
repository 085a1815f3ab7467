"""A scenario of several periods (a tax year each): split, validated and evaluated period by
period, then totalled.

An encoding that declares `periods NAME by YEAR at most N` accepts a scenario giving `NAME`, a
list of periods. Each period is one scenario of its own: its fields, and every field of the top
level that it does not give itself. Facts declared `each` are given in a period only, facts
declared `without` not at all in this form. `YEAR` is given in every period, strictly rising.
Each `total` of the encoding is the sum of a result over the periods, cited to its clause.
Problems name their path: `eligibility_period[1].new_jobs` (periods are counted from 0).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from .dsl import ast, checker
from .dsl.errors import FieldProblem, ScenarioError
from .dsl.reserved import READINGS_KEY, RESERVED_KEYS
from .dsl.scenario import (
    PROVENANCE_KEY,
    derived_from_tables,
    field_root,
    float_provenance,
    validate,
    value_problems,
)
from .dsl.trace import display, json_value
from .dsl.values import Value
from .serialised import Serialised


@dataclass
class Period:
    """One period's scenario as evaluated: its own fields merged over the top level's."""

    index: int
    year: int
    scenario: dict[str, object]
    inputs: dict[str, Value]
    derived: tuple[str, ...]


def is_period_scenario(statute: ast.Statute, scenario: Mapping[str, object]) -> bool:
    """True when the encoding declares periods and the scenario gives them."""
    return (
        statute.periods is not None
        and isinstance(scenario, Mapping)
        and statute.periods.name in scenario
    )


def split(
    statute: ast.Statute,
    scenario: Mapping[str, object],
    source: str | None = None,
    floats: str = "refuse",
    from_floats: list[str] | None = None,
) -> list[Period]:
    """Returns the periods of a scenario, each validated; raises ScenarioError naming every
    problem by its path (see the module docstring). `floats` and `from_floats` are as for
    `dsl.scenario.validate`; a field is named by its path in the periods' list."""
    periods = statute.periods
    assert periods is not None
    problems: list[FieldProblem] = []
    raw = scenario[periods.name]
    name = periods.name
    if not isinstance(raw, list) or not raw:
        raise ScenarioError(
            [FieldProblem(name, f"a list of 1 to {periods.at_most} periods", _shown(raw))],
            source,
        )
    if len(raw) > periods.at_most:
        problems.append(
            FieldProblem(name, f"at most {periods.at_most} periods", f"{len(raw)} periods")
        )
    shared = {k: v for k, v in scenario.items() if k != name and k not in RESERVED_KEYS}
    for key in shared:
        if key in periods.only:
            problems.append(
                FieldProblem(
                    key,
                    f"no {key} at the top level: it is given in each period, as {name}[0].{key}",
                    _shown(shared[key]),
                )
            )
        elif key in periods.without or key == periods.by:
            what = "is given in each period" if key == periods.by else "is not used"
            problems.append(
                FieldProblem(
                    key, f"no {key}: it {what} with {name}", _shown(shared[key]), f"remove {key}"
                )
            )
    found: list[Period] = []
    last_year: int | None = None
    reported: set[str] = set()
    for index, own in enumerate(raw):
        where = f"{name}[{index}]"
        if not isinstance(own, Mapping):
            problems.append(FieldProblem(where, "an object of one period's facts", _shown(own)))
            continue
        for key in own:
            if key in periods.without or key in RESERVED_KEYS or key == name:
                problems.append(
                    FieldProblem(f"{where}.{key}", f"no {key} in a period", _shown(own[key]))
                )
        # Facts read by the year are not reported again when the year itself is missing.
        by_year: set[str] = set()
        if periods.by not in own:
            problems.append(
                FieldProblem(f"{where}.{periods.by}", f"{periods.by} for each period", "nothing")
            )
            by_year = {
                d.name
                for d in statute.inputs.values()
                if d.from_table is not None and d.from_table.year == periods.by
            }
        merged = {**shared, **{k: v for k, v in own.items() if k not in RESERVED_KEYS}}
        read_from_floats: list[str] = []
        try:
            inputs = validate(statute, merged, source, floats, read_from_floats)
            if from_floats is not None:
                from_floats.extend(
                    f"{where}.{field}" if field_root(field) in own else field
                    for field in read_from_floats
                )
        except ScenarioError as error:
            for problem in error.problems:
                head = field_root(problem.field)
                if head in by_year:
                    continue
                if head in shared and head not in own:
                    if problem.field not in reported:  # a top-level fact: reported once
                        reported.add(problem.field)
                        problems.append(problem)
                else:
                    problems.append(_moved(problem, f"{where}.{problem.field}"))
            continue
        year = inputs.get(periods.by)
        if not isinstance(year, int):
            continue
        if last_year is not None and year <= last_year:
            problems.append(
                FieldProblem(
                    f"{where}.{periods.by}",
                    f"a {periods.by} after {last_year}: the periods rise strictly",
                    str(year),
                )
            )
        last_year = year
        found.append(
            Period(index, year, merged, inputs, tuple(derived_from_tables(statute, merged)))
        )
    problems += _shadowed(statute, scenario, shared, source, floats)
    if problems:
        raise ScenarioError(problems, source)
    return found


def _shadowed(
    statute: ast.Statute,
    scenario: Mapping[str, object],
    shared: Mapping[str, object],
    source: str | None,
    floats: str,
) -> list[FieldProblem]:
    """The problems of the top-level facts that every period gives again: never read in a
    period, each must still be a value its field can hold."""
    periods = statute.periods
    assert periods is not None
    own = [p for p in scenario[periods.name] if isinstance(p, Mapping)]  # type: ignore[attr-defined]
    found: list[FieldProblem] = []
    for key, value in shared.items():
        if key in statute.inputs and own and all(key in period for period in own):
            found += value_problems(statute, key, value, source, floats)
    return found


def _moved(problem: FieldProblem, path: str) -> FieldProblem:
    return FieldProblem(path, problem.expected, problem.given, problem.hint)


def _shown(value: object) -> str:
    if isinstance(value, list):
        return f"a list of {len(value)}"
    if isinstance(value, Mapping):
        return "an object"
    return "nothing" if value is None else repr(value)


@dataclass
class PeriodResult(Serialised):
    """The result of a scenario of periods: each period's result, and the totals."""

    statute: ast.Statute
    periods: list[Period]
    results: list[object]  # lextrace.api.Result, one per period
    totals: dict[str, Value]
    readings: dict[str, str]
    trace: object | None = field(default=None)
    # The fields given as binary floats and read by their shortest decimal, by their paths.
    from_floats: tuple[str, ...] = ()

    def __getitem__(self, key: str) -> Value:
        """Returns one value the result reports: `RESULT[YEAR]` or a total (see `values`)."""
        return self.values[key]

    @property
    def values(self) -> dict[str, Value]:
        """Every value the result reports, flat: each period's results as `RESULT[YEAR]`
        (`annual_credit[2025]`), then the totals by their names."""
        found: dict[str, Value] = {}
        for period, result in zip(self.periods, self.results, strict=True):
            for key in self.period_keys:
                found[f"{key}[{period.year}]"] = result.values[key]  # type: ignore[attr-defined]
        found.update(self.totals)
        return found

    @property
    def period_keys(self) -> tuple[str, ...]:
        """The results each period reports: every result but the totals."""
        totals = {total.name for total in self.statute.totals}
        return tuple(name for name in self.statute.result_names if name not in totals)

    def to_dict(self, include_trace: bool | None = None) -> dict[str, object]:
        """Returns `{"<periods>": [...], <totals>, "readings"}`: each period its year, its
        results (exact, money to the cent) and `derived`, the facts it took from a table;
        with its trace unless `include_trace` is False."""
        statute = self.statute
        assert statute.periods is not None
        by = statute.periods.by
        years: list[dict[str, object]] = []
        for period, result in zip(self.periods, self.results, strict=True):
            own = result.to_dict(include_trace)  # type: ignore[attr-defined]
            entry: dict[str, object] = {by: period.year}
            entry.update({k: own[k] for k in self.period_keys})
            if period.derived:
                entry["derived"] = {
                    name: json_value(statute.inputs[name].type, period.inputs[name])
                    for name in period.derived
                }
            if "trace" in own:
                entry["trace"] = own["trace"]
            years.append(entry)
        output: dict[str, object] = {"years": years}
        for total in statute.totals:
            output[total.name] = json_value(self.total_type(total), self.totals[total.name])
        output[READINGS_KEY] = dict(self.readings)
        if self.from_floats:
            output[PROVENANCE_KEY] = float_provenance(self.from_floats)
        return output

    def total_type(self, total: ast.Total) -> ast.Type:
        """The type a total is reported in: that of the result it sums."""
        return self.statute.definitions[total.summed].type

    def table(self) -> list[tuple[str, str, str]]:
        """Returns (key, value for people, citation) for each period's results, then each
        total."""
        statute = self.statute
        assert statute.periods is not None
        rows: list[tuple[str, str, str]] = []
        keys = set(self.period_keys)
        for period, result in zip(self.periods, self.results, strict=True):
            for key, value, citation in result.table():  # type: ignore[attr-defined]
                if key in keys:
                    rows.append((f"{period.year} {key}", value, citation))
            for name in period.derived:
                declared = statute.inputs[name]
                rows.append(
                    (
                        f"{period.year} {name}",
                        display(declared.type, period.inputs[name]),
                        derived_from(statute, declared),
                    )
                )
        for total in statute.totals:
            value = display(self.total_type(total), self.totals[total.name])
            rows.append((total.name, value, statute.citation(total.clause)))
        return rows

    def explain(self, width: int = 100) -> str:
        """Returns each period's derivation under its year, then how each total is made."""
        statute = self.statute
        assert statute.periods is not None
        parts: list[str] = []
        for period, result in zip(self.periods, self.results, strict=True):
            parts.append(
                f"== {statute.periods.by} {period.year} ({statute.periods.name}[{period.index}])"
            )
            parts.append(result.trace.explain(self.period_keys, width=width))  # type: ignore[attr-defined]
        for total in statute.totals:
            terms = " + ".join(
                display(self.total_type(total), r.values[total.summed])  # type: ignore[attr-defined]
                for r in self.results
            )
            value = display(self.total_type(total), self.totals[total.name])
            parts.append(
                f"{total.name} = {value}  [{statute.citation(total.clause)}]\n"
                f"│ = sum of {total.summed} over {total.periods} = {terms}"
            )
        return "\n".join(parts)


def derived_from(statute: ast.Statute, declared: ast.Input) -> str:
    """Returns where a derived input's value comes from: the citation of the rule deriving it,
    or its table and the table's source."""
    if declared.derived_by is not None and declared.derived_by.rule in statute.definitions:
        rule = statute.definitions[declared.derived_by.rule]
        return f"{statute.citation(rule.clause)}, by {rule.name}"
    assert declared.from_table is not None
    table = statute.tables[declared.from_table.table]
    return f"table {table.name}: {table.source}"


def readings_used(statute: ast.Statute) -> list[str]:
    """Returns the readings a scenario of periods rests on, in the register's order: those of
    the results each period reports, and those of the totals."""
    totals = {total.name for total in statute.totals}
    roots = [name for name in statute.result_names if name not in totals]
    used = checker.readings_used(statute, roots)
    used.update(r for total in statute.totals for r in total.readings)
    return [rid for rid in statute.readings if rid in used]


def totals(statute: ast.Statute, results: list[Mapping[str, Value]]) -> dict[str, Value]:
    """Returns each total of the encoding: the exact sum of its result over the periods."""
    found: dict[str, Value] = {}
    for total in statute.totals:
        amount = sum((r[total.summed] for r in results), start=0)  # type: ignore[misc]
        found[total.name] = amount
    return found
