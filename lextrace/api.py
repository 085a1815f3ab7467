"""The Python API: load a statute once, evaluate scenarios, read exact results and their trace.

>>> from lextrace import load_statute
>>> statute = load_statute()                      # N.J.S.A. 34:1B-343, bundled
>>> result = statute.evaluate({"new_jobs": 300, "project_median_salary": "59500",
...     "county_median_salary": "70000", "lowest_full_time_hourly_wage": "19.50",
...     "state_minimum_wage": "15.92", "distressed_municipality": True})
>>> result.values["per_job_new"]                  # exact Fraction
Fraction(2975, 1)
>>> result.to_dict()["per_job_new"]               # rounded half-up to the cent
'2975.00'
"""

from __future__ import annotations

import functools
import hashlib
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from . import periods
from .dsl import ast
from .dsl.codegen import FastFunction, fast_function
from .dsl.codegen_trace import traced_function
from .dsl.errors import FieldProblem, ScenarioError
from .dsl.evaluator import Evaluation, compiled, evaluate
from .dsl.loader import load
from .dsl.reserved import READINGS_KEY
from .dsl.scenario import (
    PROVENANCE_KEY,
    derivation_readings,
    derive,
    derived_from_tables,
    float_provenance,
    pinned_readings,
    read_scenario_file,
    validate,
)
from .dsl.trace import Trace, display, json_value
from .dsl.values import Derived, Value
from .periods import PeriodResult
from .serialised import Serialised
from .statute import BUNDLED


def located(error: ScenarioError, source: str | None, prefix: str = "") -> ScenarioError:
    """Returns a refusal raised while a scenario was evaluated (not validated), told as a
    validation's is: from its source, each field by its whole path (`prefix`: a period's)."""
    problems = [FieldProblem(prefix + p.field, p.expected, p.given, p.hint) for p in error.problems]
    # Of the error's own class (an empty aggregate, an undefined date); not copy.copy, which
    # rebuilds an exception from its message alone.
    refusal = ScenarioError.__new__(type(error))
    ScenarioError.__init__(refusal, problems, error.source or source)
    return refusal


class ReadingError(ValueError):
    """A reading selection that names an unknown reading or option."""


@dataclass
class Result(Serialised):
    """The exact result of one scenario: the result keys, the readings used, the trace."""

    statute: ast.Statute
    values: dict[str, Value]
    readings: dict[str, str]
    inputs: dict[str, Value]
    trace: Trace | None
    # The inputs the scenario left to their dated tables (`from TABLE by YEAR`), in order.
    derived: tuple[str, ...] = ()
    # The fields given as binary floats and read by their shortest decimal (floats="shortest").
    from_floats: tuple[str, ...] = ()

    def __getitem__(self, key: str) -> Value:
        return self.values[key]

    def amount(self, key: str) -> Fraction:
        """Returns the exact value of a result that is money, a number, a share or a count
        (money in dollars, unrounded: `to_dict` rounds it to the cent), typed for a caller's
        type checker. Raises KeyError for no such result, TypeError for a result of another
        type (a yes or no, an enum member, a date) and ValueError for one left without value."""
        value = self.values[key]
        kind = self.statute.definitions[key].type.kind
        if kind not in ("money", "number", "share", "count"):
            raise TypeError(f"result '{key}' is {self.statute.definitions[key].type}, not a number")
        if value is None:
            raise ValueError(f"result '{key}' has no value in this scenario")
        assert isinstance(value, int | Fraction)
        return Fraction(value)

    def flag(self, key: str) -> bool:
        """Returns a yes-or-no result, typed for a caller's type checker. Raises KeyError for no
        such result, TypeError for a result of another type."""
        value = self.values[key]
        if not isinstance(value, bool):
            raise TypeError(
                f"result '{key}' is {self.statute.definitions[key].type}, not yes or no"
            )
        return value

    def to_dict(self, include_trace: bool | None = None) -> dict[str, object]:
        """Returns the result as the JSON object of scenario-format.md (`to_json_text` writes
        it as JSON).

        Money is a decimal string rounded half-up to the cent (I20); `readings` names the
        readings used; `trace` (the derivation steps) is included when the result has one,
        unless `include_trace` is False.
        """
        output: dict[str, object] = {
            name: json_value(self.statute.definitions[name].type, value)
            for name, value in self.values.items()
        }
        if self.derived:
            output["derived"] = {
                name: json_value(self.statute.inputs[name].type, self.inputs[name])
                for name in self.derived
            }
        output["readings"] = dict(self.readings)
        if self.from_floats:
            output[PROVENANCE_KEY] = float_provenance(self.from_floats)
        if self.trace is not None and include_trace is not False:
            output["trace"] = self.trace.to_json()
        return output

    def explain(self, width: int = 100) -> str:
        """Returns the human-readable derivation, every value with its citation."""
        if self.trace is None:
            raise ValueError("this result was computed without a trace; pass trace=True")
        return self.trace.explain(self.statute.result_names, width=width)

    def table(self) -> list[tuple[str, str, str]]:
        """Returns (key, value for people, citation) for each result key."""
        rows = []
        for name, value in self.values.items():
            definition = self.statute.definitions[name]
            clause = definition.clause
            if self.trace is not None:
                clause = self.trace.evaluation.steps[(name, ())].clause
            rows.append((name, display(definition.type, value), self.statute.citation(clause)))
        return rows


class Statute:
    """An encoded statute, parsed, checked and compiled once; evaluate as many scenarios as
    needed."""

    def __init__(self, statute: ast.Statute) -> None:
        self.ast = statute
        self.program = compiled(statute)
        self.readings_used = _readings_used(statute)
        self._derivable = tuple(n for n, d in statute.inputs.items() if d.derived_by is not None)
        self._last_selection: tuple[dict[str, str], FastFunction | None, dict[str, str]] | None
        self._last_selection = None
        self._defaults = {rid: reading.default.name for rid, reading in statute.readings.items()}
        self._has_tables = any(d.from_table is not None for d in statute.inputs.values())

    def _selection(self, selected: dict[str, str]) -> tuple[FastFunction | None, dict[str, str]]:
        """Returns the fast function and the readings-used record of a selection; the last
        selection is remembered (a batch evaluates every scenario under the same one)."""
        last = self._last_selection
        if last is not None and last[0] == selected:
            return last[1], last[2]
        function = fast_function(self.ast, selected)
        used = {rid: selected[rid] for rid in self.readings_used}
        self._last_selection = (dict(selected), function, used)
        return function, used

    @property
    def name(self) -> str:
        """The statute's citation, e.g. `N.J.S.A. 34:1B-343`."""
        return self.ast.name

    def select_readings(self, chosen: Mapping[str, str] | None = None) -> dict[str, str]:
        """Returns every reading's selected option: the defaults, overridden by `chosen`.

        Raises ReadingError for an unknown reading or option.
        """
        selected = dict(self._defaults)
        for reading_id, option in (chosen or {}).items():
            reading = self.ast.readings.get(reading_id)
            if reading is None:
                known = ", ".join(self.ast.readings)
                raise ReadingError(f"unknown reading '{reading_id}' (known: {known})")
            names = [o.name for o in reading.options]
            if option not in names:
                raise ReadingError(
                    f"reading {reading_id} has no option '{option}' "
                    f"(its options: {', '.join(names)})"
                )
            selected[reading_id] = option
        return selected

    def evaluate_many(
        self,
        rows: object,
        readings: Mapping[str, str] | None = None,
        *,
        keep: Sequence[str] = (),
        floats: str = "refuse",
        output: str = "arrow",
        engine: str = "columnar",
    ) -> Any:
        """Returns the results of many scenarios as one Arrow table, in order, one row each:
        the `keep` columns, every result (money decimal(38, 2) to the cent) and `error` (null,
        or the row's refusal: a bad row is reported, never raised nor dropped). `rows` is an
        iterable of scenario dicts, an Arrow table or record batch, or a pandas or polars
        DataFrame (read through Arrow, on the columnar engine); `output` "pandas" or "polars"
        returns a DataFrame. `engine="compiled"` runs the rules compiled to machine code (the
        `compiled` extra; the same results, faster on large tables). See `lextrace.many`."""
        from .many import evaluate_many

        return evaluate_many(self, rows, readings, keep, floats, output, engine)

    def schema(self, list_files: bool = True) -> dict[str, Any]:
        """Returns the JSON Schema (draft 2020-12) of the encoding's scenario, generated from
        its input declarations (numbers as int or Decimal; `lextrace.dsl.schema.schema_text`
        writes it as JSON); with `list_files` False a list must be given inline."""
        from .dsl.schema import scenario_schema

        return scenario_schema(self.ast, list_files)

    def validate(
        self,
        scenario: object,
        source: str | None = None,
        floats: str = "refuse",
        from_floats: list[str] | None = None,
    ) -> dict[str, Value]:
        """Returns the scenario's exact, complete inputs; raises ScenarioError naming every
        bad field (scenario-format.md). A binary float is refused unless `floats` is
        "shortest": then it is read by its shortest round-trip decimal (`repr(19.1)` is
        "19.1"), and its field is appended to `from_floats`."""
        return validate(self.ast, scenario, source, floats, from_floats)

    def evaluate(
        self,
        scenario: Mapping[str, object],
        readings: Mapping[str, str] | None = None,
        trace: bool = False,
        source: str | None = None,
        floats: str = "refuse",
    ) -> Result | PeriodResult:
        """Returns the exact result of one scenario under the selected readings: those the
        scenario pins in its `readings` field, and `readings`, which may agree with them but
        not contradict them. A scenario of periods (when the encoding declares them) gives a
        PeriodResult: each period's result and the totals.

        A binary float (Python's or numpy's) is refused, unless `floats` is "shortest": then
        it is read by its shortest round-trip decimal (`repr(19.1)` is "19.1"; `300.0` is the
        count 300), and the result's `from_floats` (its JSON's `provenance`) names the fields
        so read.

        Raises ScenarioError for a scenario that breaks the format (or contradicts a pinned
        reading), ReadingError for an unknown reading.
        """
        if readings:
            self.select_readings(readings)
        if periods.is_period_scenario(self.ast, scenario):
            return self.evaluate_periods(scenario, readings, trace, source, floats)
        from_floats: list[str] = []
        inputs = self.validate(scenario, source, floats, from_floats)
        if readings or READINGS_KEY in scenario:
            selected = self.readings_for(scenario, readings, source)
        else:
            selected = dict(self._defaults)
        try:
            result = self.evaluate_inputs(inputs, selected, trace)
        except ScenarioError as error:  # refused while evaluated (the median of no element)
            raise located(error, source) from None
        if from_floats:
            result.from_floats = tuple(from_floats)  # each field is read once
        by_tables = derived_from_tables(self.ast, scenario) if self._has_tables else []
        if by_tables or result.derived:
            result.derived = self._all_derived(result.derived, by_tables)
        if result.trace is not None:
            result.trace.derived = result.derived
        return result

    def _all_derived(self, by_rules: tuple[str, ...], by_tables: list[str]) -> tuple[str, ...]:
        """The inputs a scenario derived, by rules and from tables, in declaration order."""
        found = {*by_rules, *by_tables}
        return tuple(name for name in self.ast.inputs if name in found)

    def evaluate_periods(
        self,
        scenario: Mapping[str, object],
        readings: Mapping[str, str] | None = None,
        trace: bool = False,
        source: str | None = None,
        floats: str = "refuse",
    ) -> PeriodResult:
        """Returns the result of a scenario of periods: each period evaluated from its own
        facts (and the top level's), and each total summed over them (lextrace/periods.py);
        `floats` as for `evaluate`."""
        from_floats: list[str] = []
        found = periods.split(self.ast, scenario, source, floats, from_floats)
        selected = self.readings_for(scenario, readings, source)
        results = []
        assert self.ast.periods is not None
        for index, period in enumerate(found):
            try:
                result = self.evaluate_inputs(period.inputs, selected, trace)
            except ScenarioError as error:
                raise located(error, source, f"{self.ast.periods.name}[{index}].") from None
            result.derived = self._all_derived(result.derived, list(period.derived))
            period.inputs = result.inputs
            period.derived = result.derived
            if result.trace is not None:
                result.trace.derived = period.derived
            results.append(result)
        return PeriodResult(
            self.ast,
            found,
            results,
            periods.totals(self.ast, [r.values for r in results]),
            self._period_readings(selected, found),
            from_floats=tuple(dict.fromkeys(from_floats)),
        )

    def _period_readings(
        self, selected: dict[str, str], found: list[periods.Period]
    ) -> dict[str, str]:
        """The readings a scenario of periods rests on: those of the results each period
        reports and of the totals, and those of the rules that derived a period's facts."""
        derived = sorted({name for period in found for name in period.derived})
        used = set(periods.readings_used(self.ast)) | derivation_readings(self.ast, derived)
        return {rid: selected[rid] for rid in self.ast.readings if rid in used}

    def readings_for(
        self,
        scenario: Mapping[str, object],
        chosen: Mapping[str, str] | None = None,
        source: str | None = None,
    ) -> dict[str, str]:
        """Returns every reading's option for a validated scenario: the defaults, overridden
        by the readings the scenario pins and by `chosen` (a selection made outside it, such as
        `--reading`).

        Raises ScenarioError, at `readings.ID`, when `chosen` contradicts a pinned reading, and
        ReadingError for an unknown reading or option in `chosen`.
        """
        pinned = pinned_readings(scenario)
        chosen = dict(chosen or {})
        problems = [
            FieldProblem(
                f"{READINGS_KEY}.{rid}",
                f'"{option}", the option selected by {rid}={option}',
                f'"{pinned[rid]}"',
                "the scenario pins another reading than the one selected outside it; "
                "drop one of the two",
            )
            for rid, option in chosen.items()
            if rid in pinned and pinned[rid] != option
        ]
        if problems:
            raise ScenarioError(problems, source)
        return self.select_readings({**pinned, **chosen})

    def evaluate_inputs(
        self, inputs: dict[str, Value], selected: dict[str, str], trace: bool = False
    ) -> Result:
        """Returns the result for inputs already validated and readings already selected.

        Without a trace the generated fast path computes it (dsl/codegen.py), with one its
        traced variant (dsl/codegen_trace.py); the reference evaluator runs where either defers.
        """
        fast, used = self._selection(selected)
        derived = [n for n in self._derivable if type(inputs.get(n)) is Derived]
        if not trace and fast is not None and not derived:
            try:
                found = fast(inputs)
            except Exception:
                pass
            else:
                return Result(self.ast, found, used, inputs, None)
        evaluation: Evaluation | None = None
        if trace and not derived:
            evaluation = self._traced(inputs, selected)
        if evaluation is None:
            evaluation = evaluate(self.program, inputs, selected, tracing=trace)
        if derived:
            inputs = derive(self.ast, evaluation, inputs)
            used = {
                rid: selected[rid]
                for rid in self.ast.readings
                if rid in used or rid in derivation_readings(self.ast, derived)
            }
        values = {name: evaluation.memo[(name, ())] for name in self.ast.result_names}
        result = Result(
            self.ast, values, used, inputs, Trace(self.ast, evaluation) if trace else None
        )
        result.derived = tuple(derived)
        return result

    def _traced(self, inputs: dict[str, Value], selected: dict[str, str]) -> Evaluation | None:
        """Returns the traced evaluation by the generated traced path (dsl/codegen_trace.py),
        or None when it has none or defers (the reference evaluator then traces it)."""
        function = traced_function(self.ast, selected)
        if function is None:
            return None
        try:
            return function(inputs, self.program, selected)
        except Exception:
            return None

    def evaluate_file(
        self, path: str | Path, readings: Mapping[str, str] | None = None, trace: bool = False
    ) -> Result | PeriodResult:
        """Returns the result of the scenario stored in a JSON, YAML or TOML file."""
        path = Path(path)
        scenario = read_scenario_file(path)
        if not isinstance(scenario, Mapping):
            raise ScenarioError(
                [FieldProblem("<scenario>", "an object of fields", type(scenario).__name__)],
                str(path),
            )
        return self.evaluate(scenario, readings, trace, source=str(path))


def _readings_used(statute: ast.Statute) -> list[str]:
    """Returns the readings that the definitions behind the results rest on, in ID order."""
    from .dsl.checker import readings_used

    used = readings_used(statute, statute.result_names)
    return sorted(used, key=lambda rid: (int(rid[1:]) if rid[1:].isdigit() else 10**6, rid))


@functools.lru_cache(maxsize=16)
def _load_cached(path: str, digest: str) -> Statute:
    return Statute(load(path))


def encoding_path(path: str | Path | None = None) -> Path:
    """Returns the encoding a command reads: `path` when given, else the environment variable
    LEXTRACE_ENCODING when set (and not empty), else the bundled statute."""
    if path is None or str(path) == "":
        path = os.environ.get("LEXTRACE_ENCODING") or BUNDLED
    return Path(path)


def load_statute(path: str | Path | None = None) -> Statute:
    """Returns the statute encoded at `path` (the bundled N.J.S.A. 34:1B-343 by default),
    parsed, checked, proved faithful to its official text and compiled.

    The environment variable LEXTRACE_ENCODING, when set, replaces the bundled default (the
    mutation run uses it to run the test suite against a mutant). Loading is cached by the
    encoding's content. Raises EncodingError with every error found.
    """
    path = encoding_path(path)
    try:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        digest = ""
    return _load_cached(str(path), digest)
