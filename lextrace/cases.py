"""Test cases of an encoding: named scenarios with the results they must give, or the refusal.

A cases file is YAML, JSON or TOML (see docs/test-cases.md):

    encoding: act.lex                     # optional, relative to this file
    cases:
      - name: a plain case                # required, unique in the file
        scenario: ../examples/plain.json  # a path relative to this file, or an inline object
        readings: {R1: wide}              # optional, as --reading
        expect: {amount: "1234.50"}       # results compared (a subset is fine)
        exact: false                      # optional: true compares money exactly
        source: where the figures come from (free text)
      - name: a refused case
        scenario: {count: -1}
        refuse: ["count"]                 # words the refusal must contain

`load_cases` reads a file and checks its form; `bind` checks it against an encoding (result
names, readings, values of the right type); `run_file` runs it. Every problem of a bad file is
reported at once, with the file, the line and column (YAML) and the path of the value, what was
expected and what was given. Nothing here knows any statute: names, types and members all come
from the encoding.
"""

from __future__ import annotations

import datetime
import difflib
import json
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .api import Result, Statute
from .dsl import ast, dates
from .dsl.errors import ScenarioError
from .dsl.evaluator import EvaluationError
from .dsl.scenario import (
    RESERVED_KEYS,
    ExactNumber,
    kind_of,
    parse_text,
    read_exact,
    read_scenario_file,
)
from .dsl.values import Value, cents_string, exact_string, to_cents

if TYPE_CHECKING:
    from .reading_cover import ReadingCover

FILE_KEYS = ("encoding", "cases")
CASE_KEYS = ("name", "scenario", "readings", "expect", "refuse", "exact", "source")
MAX_CASES_BYTES = 16 * 1024 * 1024
_FRACTION = re.compile(r"\s*([+-]?\d{1,40})\s*/\s*(\d{1,40})\s*")
Where = tuple[str | int, ...]  # where a value sits in the document: ("cases", 2, "expect")


CASES_SUFFIXES = (".cases.yaml", ".cases.yml", ".cases.json", ".cases.toml")
"""The test cases of an encoding live beside it: `<stem>.cases.yaml` (or .yml, .json, .toml)."""


def cases_beside(encoding: Path) -> Path:
    """Returns the test cases file of an encoding: the first of `<stem>.cases.yaml`, `.yml`,
    `.json` and `.toml` beside it that exists, else the `.yaml` one (which does not)."""
    candidates = [encoding.with_name(encoding.stem + suffix) for suffix in CASES_SUFFIXES]
    return next((path for path in candidates if path.is_file()), candidates[0])


# ---- problems ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a cases file: where, what was expected and what was given."""

    file: str
    where: str
    expected: str
    given: str
    line: int | None = None
    column: int | None = None

    def render(self) -> str:
        """Returns `file:line:column: where: expected ..., given ...` (no line and column when
        the format gives none)."""
        position = self.file if self.line is None else f"{self.file}:{self.line}:{self.column}"
        where = f" {self.where}:" if self.where else ""
        return f"{position}:{where} expected {self.expected}, given {self.given}"


class CasesError(Exception):
    """A cases file that cannot be run; carries every problem found, and `well_formed`: the
    cases of the file whose form is right (to be checked against the encoding too), if any."""

    def __init__(self, problems: list[Problem], well_formed: CasesFile | None = None) -> None:
        # In the order of the file (each file's problems together), whatever found them first.
        self.problems = sorted(problems, key=lambda p: (p.file, p.line or 0, p.column or 0))
        self.well_formed = well_formed
        super().__init__(self.render())

    def render(self) -> str:
        """Returns one line per problem, then a count."""
        count = len(self.problems)
        lines = [problem.render() for problem in self.problems]
        return "\n".join([*lines, f"{count} problem{'s' if count != 1 else ''} in cases"])


def _shown(value: object) -> str:
    """Returns a value as the user wrote it, for a message."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, ExactNumber | int):
        text = str(value)
        return text if len(text) <= 40 else text[:37] + "..."
    if isinstance(value, str):
        return json.dumps(value if len(value) <= 40 else value[:37] + "...", ensure_ascii=False)
    if isinstance(value, Sequence):
        return "a list"
    if isinstance(value, Mapping):
        return "an object"
    return f"a value of type {type(value).__name__}"


def _suggest(word: str, known: Sequence[str]) -> str:
    close = difflib.get_close_matches(word, list(known), n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""


# ---- reading a file ---------------------------------------------------------------------------


class _Marks:
    """Line and column of every value (and every mapping key) of a YAML document, by path;
    JSON and TOML give none."""

    def __init__(self) -> None:
        self.values: dict[Where, tuple[int, int]] = {}
        self.keys: dict[Where, tuple[int, int]] = {}

    def walk(self, node: Any, path: Where = ()) -> None:
        """Records the marks of `node` and of everything inside it."""
        import yaml

        self.values[path] = (node.start_mark.line + 1, node.start_mark.column + 1)
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                if isinstance(key_node, yaml.ScalarNode):
                    child = (*path, key_node.value)
                    self.keys[child] = (
                        key_node.start_mark.line + 1,
                        key_node.start_mark.column + 1,
                    )
                    self.walk(value_node, child)
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                self.walk(item, (*path, index))

    def at(self, path: Where, key: bool = False) -> tuple[int | None, int | None]:
        """Returns the line and column of the value at `path` (of its key when `key`), or of
        the nearest enclosing value that has one."""
        if key and path in self.keys:
            return self.keys[path]
        while path:
            if path in self.values:
                return self.values[path]
            path = path[:-1]
        return self.values.get((), (None, None))


def _read_document(path: Path) -> tuple[object, _Marks]:
    """Returns the document a cases file holds, and the marks of its values."""
    source = str(path)

    def bad(expected: str, given: str, line: int | None = None, column: int | None = None) -> Any:
        return CasesError([Problem(source, "", expected, given, line, column)])

    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_CASES_BYTES + 1)
    except FileNotFoundError:
        raise bad("an existing cases file", "no such file") from None
    except IsADirectoryError:
        raise bad("a cases file", "a directory") from None
    except OSError as error:
        raise bad("a readable cases file", error.strerror or "unreadable") from None
    if len(data) > MAX_CASES_BYTES:
        raise bad(f"at most {MAX_CASES_BYTES:,} bytes", f"more than {MAX_CASES_BYTES:,} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise bad("UTF-8 text", f"a byte that is not UTF-8 at offset {error.start}") from None
    marks = _Marks()
    kind = kind_of(path)
    if kind != "yaml":
        try:
            return parse_text(text, kind, source), marks
        except ScenarioError as error:
            raise CasesError(
                [Problem(source, "", p.expected, p.given) for p in error.problems]
            ) from None
    return _read_yaml(text, source, marks), marks


def _read_yaml(text: str, source: str, marks: _Marks) -> object:
    import yaml

    from .dsl.scenario import yaml_loader

    loader = yaml_loader()(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        marks.walk(node)
        return loader.construct_document(node)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        problem = getattr(error, "problem", None) or str(error)
        line, column = (mark.line + 1, mark.column + 1) if mark else (None, None)
        raise CasesError([Problem(source, "", "valid YAML", problem, line, column)]) from None
    except RecursionError:
        raise CasesError(
            [Problem(source, "", "valid YAML", "a document nested too deeply to read")]
        ) from None
    finally:
        loader.dispose()


# ---- the form of a file -----------------------------------------------------------------------


@dataclass
class Case:
    """One case as written: its scenario (inline, or the file it names), readings, and either
    the expected results (raw, typed by `bind`) or the words of the expected refusal."""

    name: str
    file: str
    line: int | None
    path: Where
    scenario: Mapping[str, object] | None
    scenario_file: Path | None
    readings: dict[str, str]
    expect: dict[str, object] | None
    refuse: tuple[str, ...] | None
    exact: bool = False
    source: str | None = None


@dataclass
class CasesFile:
    """A cases file whose form is right: its cases, and the encoding it names (if any)."""

    path: Path
    encoding: Path | None
    cases: list[Case]
    marks: _Marks = field(repr=False)


class _Reader:
    """Collects the problems of one document while its cases are read."""

    def __init__(self, path: Path, marks: _Marks) -> None:
        self.path = path
        self.file = str(path)
        self.marks = marks
        self.problems: list[Problem] = []

    def problem(
        self, path: Where, label: str, expected: str, given: str, key: bool = False
    ) -> None:
        """Records a problem at the value at `path` (at its key when `key`)."""
        line, column = self.marks.at(path, key)
        self.problems.append(Problem(self.file, label, expected, given, line, column))

    def keys(
        self, data: Mapping[Any, object], known: Sequence[str], path: Where, label: str
    ) -> None:
        """Reports every key of `data` that is not one of `known`."""
        for key in data:
            if key not in known:
                where = f"{label}: " if label else ""
                self.problem(
                    (*path, key),
                    f"{where}key {_shown(key)}" if not isinstance(key, str) else f"{where}'{key}'",
                    f"one of the keys {', '.join(known)}",
                    f"an unknown key{_suggest(str(key), known)}",
                    key=True,
                )


def load_cases(path: str | Path) -> CasesFile:
    """Returns the cases of a YAML, JSON or TOML file, their form checked.

    Raises CasesError naming every problem: a file that cannot be read or parsed, an unknown
    key, a case without a name or with the name of another, a scenario file that does not
    exist, an expectation that is neither results nor a refusal.
    """
    path = Path(path)
    document, marks = _read_document(path)
    reader = _Reader(path, marks)
    if not isinstance(document, Mapping):
        reader.problem((), "", "an object with the key 'cases'", _shown(document))
        raise CasesError(reader.problems)
    reader.keys(document, FILE_KEYS, (), "")
    encoding = _encoding(reader, document)
    file_keys_right = not reader.problems
    listed = document.get("cases")
    cases: list[Case] = []
    if not isinstance(listed, list) or not listed:
        given = "nothing (the key is missing)" if "cases" not in document else _shown(listed)
        given = "an empty list" if listed == [] else given
        reader.problem(("cases",), "'cases'", "a list of one case or more", given)
    else:
        names: dict[str, int | None] = {}
        for index, entry in enumerate(listed):
            case = _case(reader, entry, ("cases", index), names)
            if case is not None:
                cases.append(case)
    found = CasesFile(path, encoding, cases, marks)
    if reader.problems:
        raise CasesError(reader.problems, found if file_keys_right and cases else None)
    return found


def _encoding(reader: _Reader, document: Mapping[str, object]) -> Path | None:
    if "encoding" not in document:
        return None
    given = document["encoding"]
    if not isinstance(given, str) or not given.strip():
        reader.problem(("encoding",), "'encoding'", "the path of an encoding", _shown(given))
        return None
    found = reader.path.parent / given
    if not found.is_file():
        reader.problem(
            ("encoding",),
            "'encoding'",
            f"an existing encoding file (relative to {reader.file})",
            f"{_shown(given)}, which does not exist",
        )
        return None
    return found


def _case(reader: _Reader, entry: object, path: Where, names: dict[str, int | None]) -> Case | None:
    label = f"cases[{path[-1]}]"
    if not isinstance(entry, Mapping):
        reader.problem(path, label, "a case: an object with a name and a scenario", _shown(entry))
        return None
    before = len(reader.problems)
    name = entry.get("name")
    if isinstance(name, str) and name.strip():
        label = f"case '{name}'"
        line = reader.marks.at(path)[0]
        if name in names:
            first = names[name]
            reader.problem(
                (*path, "name"),
                f"{label}: 'name'",
                "a name given to no other case of the file",
                "the name of the case" + (f" at line {first}" if first else " before"),
            )
        names[name] = line
    else:
        given = "nothing (the key is missing)" if "name" not in entry else _shown(name)
        reader.problem((*path, "name"), label, "a 'name': a text unique in the file", given)
    reader.keys(entry, CASE_KEYS, path, label)
    scenario, scenario_file = _scenario(reader, entry, path, label)
    readings = _readings(reader, entry, path, label)
    expect, refuse = _expectation(reader, entry, path, label)
    exact = entry.get("exact", False)
    if not isinstance(exact, bool):
        reader.problem((*path, "exact"), f"{label}: 'exact'", "true or false", _shown(exact))
    source = entry.get("source")
    if source is not None and not isinstance(source, str):
        reader.problem((*path, "source"), f"{label}: 'source'", "a text", _shown(source))
    if len(reader.problems) > before or not isinstance(name, str):
        return None
    return Case(
        name,
        reader.file,
        reader.marks.at(path)[0],
        path,
        scenario,
        scenario_file,
        readings,
        expect,
        refuse,
        exact is True,
        source,
    )


def _scenario(
    reader: _Reader, entry: Mapping[str, object], path: Where, label: str
) -> tuple[Mapping[str, object] | None, Path | None]:
    where = (*path, "scenario")
    given = entry.get("scenario")
    if isinstance(given, Mapping):
        return given, None
    if isinstance(given, str) and given.strip():
        found = reader.path.parent / given
        if not found.is_file():
            reader.problem(
                where,
                f"{label}: 'scenario'",
                f"an existing scenario file (relative to {reader.file})",
                f"{_shown(given)}, which does not exist",
            )
            return None, None
        return None, found
    shown = "nothing (the key is missing)" if "scenario" not in entry else _shown(given)
    reader.problem(
        where, f"{label}: 'scenario'", "a scenario: the path of its file, or an object", shown
    )
    return None, None


def _readings(
    reader: _Reader, entry: Mapping[str, object], path: Where, label: str
) -> dict[str, str]:
    given = entry.get("readings", {})
    if not isinstance(given, Mapping):
        reader.problem(
            (*path, "readings"),
            f"{label}: 'readings'",
            "an object of reading IDs and their options",
            _shown(given),
        )
        return {}
    readings: dict[str, str] = {}
    for reading_id, option in given.items():
        if not isinstance(option, str) or not isinstance(reading_id, str):
            reader.problem(
                (*path, "readings", reading_id),
                f"{label}: readings.{reading_id}",
                "the name of an option",
                _shown(option),
            )
            continue
        readings[reading_id] = option
    return readings


def _expectation(
    reader: _Reader, entry: Mapping[str, object], path: Where, label: str
) -> tuple[dict[str, object] | None, tuple[str, ...] | None]:
    has_expect, has_refuse = "expect" in entry, "refuse" in entry
    if has_expect == has_refuse:
        reader.problem(
            path,
            label,
            "either 'expect' (the results) or 'refuse' (the words of the refusal)",
            "both" if has_expect else "neither",
        )
        return None, None
    if has_expect:
        expect = entry["expect"]
        if not isinstance(expect, Mapping) or not expect:
            reader.problem(
                (*path, "expect"),
                f"{label}: 'expect'",
                "an object of one result or more and their values",
                _shown(expect),
            )
            return None, None
        return {str(k): v for k, v in expect.items()}, None
    refuse = entry["refuse"]
    words = [refuse] if isinstance(refuse, str) else refuse
    if not isinstance(words, list) or not all(isinstance(w, str) and w for w in words):
        reader.problem(
            (*path, "refuse"),
            f"{label}: 'refuse'",
            "a list of the words the refusal must contain (an empty list: any refusal)",
            _shown(refuse),
        )
        return None, None
    return None, tuple(words)


# ---- against an encoding ----------------------------------------------------------------------


@dataclass(frozen=True)
class Expected:
    """An expected result, typed by the encoding: the exact value, how it is compared, and the
    text it was written as."""

    result: str
    value: Value
    to_cent: bool  # money compared to the cent (else every value exactly)
    written: str


@dataclass
class BoundCase:
    """A case checked against an encoding, ready to run."""

    case: Case
    expected: list[Expected]


def bind(cases: CasesFile, statute: Statute) -> list[BoundCase]:
    """Returns the cases of `cases`, their readings and expected values checked against
    `statute`. Raises CasesError for a result the encoding does not have, an unknown reading or
    option, or a value that is not one of its result's type."""
    reader = _Reader(cases.path, cases.marks)
    names = statute.ast.result_names
    bound = []
    for case in cases.cases:
        label = f"case '{case.name}'"
        for reading_id, option in case.readings.items():
            where = (*case.path, "readings", reading_id)
            reading = statute.ast.readings.get(reading_id)
            if reading is None:
                known = list(statute.ast.readings)
                reader.problem(
                    where,
                    f"{label}: readings.{reading_id}",
                    f"a reading of the encoding ({', '.join(known) or 'it has none'})",
                    f"'{reading_id}'{_suggest(reading_id, known)}",
                    key=True,
                )
                continue
            options = [o.name for o in reading.options]
            if option not in options:
                reader.problem(
                    where,
                    f"{label}: readings.{reading_id}",
                    f"an option of {reading_id} ({', '.join(options)})",
                    f'"{option}"{_suggest(option, options)}',
                )
        _check_fields(reader, case, statute, label)
        expected = []
        for result, written in (case.expect or {}).items():
            where = (*case.path, "expect", result)
            # `annual_credit[2025]`: a result of one period, in an encoding of periods.
            named = _result_of(result) if statute.ast.periods is not None else result
            if named not in names:
                reader.problem(
                    where,
                    f"{label}: expect.{result}",
                    f"a result of {statute.name} ({', '.join(names)})",
                    f"'{result}'{_suggest(result, names)}",
                    key=True,
                )
                continue
            type_ = statute.ast.definitions[named].type
            value, wanted = _typed(type_, written, case.exact)
            if wanted is not None:
                reader.problem(where, f"{label}: expect.{result}", wanted, _shown(written))
                continue
            to_cent = type_.kind == "money" and not case.exact
            expected.append(Expected(result, value, to_cent, _written(written)))
        bound.append(BoundCase(case, expected))
    if reader.problems:
        raise CasesError(reader.problems)
    return bound


def _check_fields(reader: _Reader, case: Case, statute: Statute, label: str) -> None:
    """Notes each field of an inline scenario that is not an input of the encoding (a
    misspelt name, which would make a refusal case pass for the wrong reason), unless the case
    expects that refusal and names the field in its `refuse` words."""
    if not isinstance(case.scenario, Mapping):
        return
    inputs = list(statute.ast.inputs)
    periods = statute.ast.periods
    for name in case.scenario:
        if not isinstance(name, str) or name in statute.ast.inputs or name in RESERVED_KEYS:
            continue
        if periods is not None and name == periods.name:
            continue
        if case.refuse is not None and any(name in words for words in case.refuse):
            continue
        reader.problem(
            (*case.path, "scenario", name),
            f"{label}: scenario.{name}",
            f"an input of {statute.name} (a refusal case that tests an unknown field names it "
            "in its refuse words)",
            f"'{name}'{_suggest(name, inputs)}",
            key=True,
        )


def _written(value: object) -> str:
    if isinstance(value, bool) or value is None:
        return _shown(value)
    return str(value)


def _number(value: object) -> Fraction | None:
    """Returns an exact number from a number, a decimal string or a fraction "a/b"."""
    found = read_exact(value)
    if found is not None or not isinstance(value, str):
        return found
    matched = _FRACTION.fullmatch(value)
    if matched is None or int(matched.group(2)) == 0:
        return None
    return Fraction(int(matched.group(1)), int(matched.group(2)))


def _typed(type_: ast.Type, value: object, exact: bool) -> tuple[Value, str | None]:
    """Returns (the value, None), or (None, what was expected) when `value` is not one of
    `type_` as a cases file writes it."""
    if value is None:
        return None, None
    kind = type_.kind
    if kind == "bool":
        return (value, None) if isinstance(value, bool) else (None, "true or false")
    if kind == "enum":
        if isinstance(value, str) and value in type_.members:
            return value, None
        return None, "one of " + ", ".join(f'"{m}"' for m in type_.members)
    if kind == "count":
        if isinstance(value, int) and not isinstance(value, bool):
            return value, None
        return None, "a whole number"
    if kind == "date":
        if isinstance(value, datetime.date) and not isinstance(value, datetime.datetime):
            return value, None
        found = dates.parse_iso(value) if isinstance(value, str) else None
        return (found, None) if found is not None else (None, 'a date such as "2024-01-01"')
    if kind == "duration":
        length = dates.parse_duration(value) if isinstance(value, str) else None
        if length is None:
            return None, 'a duration such as "30 days", "6 months" or "2 years"'
        return length, None
    number = None if isinstance(value, bool) else _number(value)
    if kind == "money":
        if number is None:
            return None, 'an amount of money, such as "1234.50"'
        if not exact and (number * 100).denominator != 1:
            return None, (
                'an amount to the cent, such as "333.33" (or exact: true for an exact '
                'amount, such as "1000/3")'
            )
        return number, None
    if number is None:
        return None, 'an exact number: a decimal such as "0.25" or a fraction such as "2/3"'
    return number, None


# ---- running ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Mismatch:
    """A result that differs from its expectation: both values, and the result's trace."""

    result: str
    value: str
    expected: str
    compared: str  # "to the cent" or "exactly"
    trace: str


@dataclass
class Outcome:
    """What one case gave: passed, or failed with the mismatches or what went wrong."""

    case: Case
    passed: bool
    mismatches: list[Mismatch] = field(default_factory=list)
    detail: str = ""
    seconds: float = 0.0


@dataclass
class FileRun:
    """The outcomes of one cases file, run against one encoding."""

    path: Path
    statute: str
    encoding: str
    outcomes: list[Outcome]
    # How the cases cover each reading with alternatives (lextrace/reading_cover.py).
    readings: list[ReadingCover] = field(default_factory=list)

    @property
    def failures(self) -> list[Outcome]:
        """Returns the outcomes of the cases that failed."""
        return [outcome for outcome in self.outcomes if not outcome.passed]


def encoding_of(cases: CasesFile, given: str | Path | None) -> Path | None:
    """Returns the encoding to run a cases file against: `given` (--encoding) when given, else
    the one the file names, else None (the default of every command)."""
    return Path(given) if given is not None else cases.encoding


def run_file(cases: CasesFile, statute: Statute, encoding: str, trace: bool = True) -> FileRun:
    """Returns the outcomes of every case of `cases` run against `statute` (read from
    `encoding`); with `trace`, the trace of every result that differs. Raises CasesError when
    the file does not fit the encoding."""
    bound = bind(cases, statute)
    return FileRun(cases.path, statute.name, encoding, [run_case(statute, b, trace) for b in bound])


def run_case(statute: Statute, bound: BoundCase, trace: bool = True) -> Outcome:
    """Returns the outcome of one case: evaluated without a trace, and again with one only
    when a result differs (and `trace`)."""
    started = time.perf_counter()
    outcome = _run(statute, bound, trace)
    outcome.seconds = time.perf_counter() - started
    return outcome


class UndefinedScenario(Exception):
    """The encoding does not define the case's scenario (no case of a `cases` applies, ...):
    the case fails, whatever it expects, and the other cases still run."""


def evaluate_case(statute: Statute, case: Case, trace: bool) -> tuple[Result | None, str | None]:
    """Returns (the result, None), or (None, the refusal's message). Raises UndefinedScenario when
    the encoding does not define the scenario."""
    try:
        if case.scenario_file is not None:
            scenario = read_scenario_file(case.scenario_file)
            source = str(case.scenario_file)
        else:
            scenario, source = case.scenario, f"{case.file}: case '{case.name}': scenario"
        if not isinstance(scenario, Mapping):
            return None, f"{source}: expected an object of fields, given {_shown(scenario)}"
        return statute.evaluate(scenario, case.readings or None, trace, source), None
    except ScenarioError as error:
        return None, error.render()
    except EvaluationError as error:
        raise UndefinedScenario(str(error)) from None


def _run(statute: Statute, bound: BoundCase, trace: bool) -> Outcome:
    try:
        return _checked(statute, bound, trace)
    except UndefinedScenario as error:
        return Outcome(
            bound.case,
            False,
            detail=f"the encoding does not define this scenario: {error} (`lextrace verify` "
            "finds every scenario that reaches such a place)",
        )


def _checked(statute: Statute, bound: BoundCase, trace: bool) -> Outcome:
    case = bound.case
    result, refusal = evaluate_case(statute, case, trace=False)
    if case.refuse is not None:
        if result is not None:
            words = ", ".join(json.dumps(w, ensure_ascii=False) for w in case.refuse)
            shown = "; ".join(f"{name} = {value}" for name, value, _ in result.table())
            return Outcome(
                case,
                False,
                detail=f"expected a refusal (exit 2) whose message contains {words or 'anything'}"
                f", given results: {shown}",
            )
        assert refusal is not None
        missing = [word for word in case.refuse if word not in refusal]
        if missing:
            words = ", ".join(json.dumps(w, ensure_ascii=False) for w in missing)
            return Outcome(
                case, False, detail=f"refused, but the message lacks {words}:\n{refusal}"
            )
        return Outcome(case, True)
    if result is None:
        return Outcome(case, False, detail=f"expected results, given a refusal:\n{refusal}")
    values = result.values
    differing = [
        e for e in bound.expected if e.result not in values or not _same(e, values[e.result])
    ]
    if not differing:
        return Outcome(case, True)
    traced = evaluate_case(statute, case, trace=True)[0] if trace else None
    mismatches = [
        Mismatch(
            e.result,
            _value_text(result.statute.definitions[_result_of(e.result)].type, values[e.result])
            if e.result in values
            else "not a result of this scenario (a result of a period is written RESULT[YEAR])",
            e.written,
            "to the cent" if e.to_cent else "exactly",
            traced.trace.explain((e.result,))
            if traced and getattr(traced, "trace", None) and e.result in traced.statute.definitions
            else "",
        )
        for e in differing
    ]
    return Outcome(case, False, mismatches)


def _result_of(key: str) -> str:
    """Returns the result an expected key names: `annual_credit[2025]` (of the period of tax
    year 2025, in a scenario of periods) names `annual_credit`."""
    match = re.fullmatch(r"([a-z_][a-z0-9_]*)\[[0-9]+\]", key)
    return match.group(1) if match else key


def _same(expected: Expected, value: Value) -> bool:
    wanted = expected.value
    if wanted is None or value is None:
        return wanted is None and value is None
    if isinstance(wanted, bool) or isinstance(value, bool):
        return isinstance(wanted, bool) and isinstance(value, bool) and wanted == value
    if isinstance(wanted, str) or isinstance(value, str):
        return wanted == value
    if expected.to_cent:
        return to_cents(value) == to_cents(wanted)
    return wanted == value


def _value_text(type_: ast.Type, value: Value) -> str:
    """Returns a result as a cases file writes it: money to the cent (and exactly when it has
    more decimals), numbers exactly, bools and members by name."""
    if value is None or isinstance(value, bool):
        return _shown(value)
    if isinstance(value, str):
        return value
    if isinstance(value, datetime.date):
        return dates.iso(value)
    if isinstance(value, dates.Duration):
        return dates.show_duration(value)
    if type_.kind == "money":
        shown = cents_string(value)
        return (
            shown
            if (Fraction(value) * 100).denominator == 1
            else (f"{shown} (exactly {exact_string(value)})")
        )
    return exact_string(value)
