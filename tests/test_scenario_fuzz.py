"""Hypothesis fuzzing of the scenario loader: bad input never crashes and never lies.

Whatever a scenario holds, reading and evaluating it ends in one of two ways: a result, or a
ScenarioError naming the offending field. A result must use exactly the values the scenario
wrote (never a float's approximation, never a value the format refuses); an error must blame the
field that was changed, or a field whose declared bounds rest on it. The fields, their kinds and
the fields that depend on each come from the loaded encoding, never from a list written here.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction
from typing import Any

import pytest
import yaml
from conftest import EXAMPLES
from hypothesis import HealthCheck, given, settings
from hypothesis import example as with_example
from hypothesis import strategies as st

from lextrace import Result, ScenarioError, load_statute
from lextrace.dsl import ast
from lextrace.dsl.checker import walk
from lextrace.dsl.reserved import READINGS_KEY
from lextrace.dsl.scenario import parse_bytes, parse_text

STATUTE = load_statute()
INPUTS: dict[str, ast.Input] = STATUTE.ast.inputs
NAMES = sorted(INPUTS)
EXAMPLE_SCENARIOS: list[dict[str, Any]] = [
    json.loads(path.read_text(encoding="utf-8")) for path in sorted(EXAMPLES.glob("*.json"))
]
FUZZ = settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)


def _dependents(name: str) -> set[str]:
    """The fields whose declared bounds or requirement mention `name` (labor_harmony_new_jobs
    for new_jobs, ...): changing `name` may make one of them wrong."""
    found = set()
    for declared in INPUTS.values():
        exprs = [declared.required_when]
        if declared.derived_by is not None:  # given with the evidence it is derived from
            exprs.append(declared.derived_by.condition)
        for bound in declared.bounds:
            exprs += [bound.value, bound.when]
        named = (ast.Ref, ast.Given)
        if any(isinstance(node, named) and node.name == name for e in exprs for node in walk(e)):
            found.add(declared.name)
    return found


BLAMEABLE = {name: {name} | _dependents(name) for name in NAMES}


# ---- values ------------------------------------------------------------------------------------

NUMBER_TEXT = st.one_of(
    st.from_regex(r"[+-]?\d{1,45}(\.\d{0,8})?([eE][+-]?\d{1,7})?", fullmatch=True),
    st.from_regex(r"[+-]?\d{0,6}\s*/\s*\d{1,6}", fullmatch=True),
    st.sampled_from(
        [
            "1e999999",
            "-1e-999999",
            "1/0",
            "0/0",
            "1/3",
            " 7 ",
            "-0",
            "0.5",
            "NaN",
            "Infinity",
            "-inf",
            "1_000",
            "$500",
            "0x10",
            "50%",
            "",
            "exceeds_gold",
            "none",
            "true",
        ]
    ),
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-5, max_value=2000),
    st.integers(min_value=-(10**45), max_value=10**45),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([float("nan"), float("inf"), float("-inf"), 1e308, 5e-324, 10**4000]),
    st.text(max_size=20),
    NUMBER_TEXT,
)
JSON_VALUES = st.recursive(
    SCALARS,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=8,
)
# The Python API also takes values JSON cannot carry: integers beyond 4,300 digits, Fractions.
API_VALUES = st.one_of(
    JSON_VALUES,
    st.sampled_from([10**5000, -(10**5000), Fraction(1, 3), Fraction(10**50, 3)]),
)


# ---- the two outcomes --------------------------------------------------------------------------


def written_number(value: object, via_json: bool) -> Fraction | None:
    """The exact number a scenario value denotes, or None when it is not a number's form the
    format accepts (a bool, a float given to the API, a list ...)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | Fraction):
        return Fraction(value)
    if isinstance(value, float):
        # JSON carries a float as the shortest text that reads back as it; the loader reads that
        # text exactly. The Python API refuses binary floats outright.
        return Fraction(Decimal(json.dumps(value))) if via_json and value == value else None
    if isinstance(value, str):
        text = value.strip()
        try:
            return Fraction(Decimal(text)) if "/" not in text else Fraction("".join(text.split()))
        except (ArithmeticError, ValueError):
            return None
    return None


def check_accepted(result: Result, scenario: dict[str, Any], via_json: bool) -> None:
    """A result uses exactly what the scenario wrote, of the declared kind."""
    assert set(result.values) == set(STATUTE.ast.result_names)
    result.to_dict()  # what the CLI prints: must render whatever was accepted
    for name, given_value in scenario.items():
        if name == READINGS_KEY:  # pinned readings (an example may pin one), used as pinned
            assert all(result.readings.get(r, o) == o for r, o in given_value.items())
            continue
        assert name in INPUTS, f"unknown field {name!r} silently accepted"
        used = result.inputs[name]
        kind = INPUTS[name].type.kind
        if given_value is None:
            assert INPUTS[name].optional and used is None, name
        elif kind == "bool":
            assert given_value is used, (name, given_value, used)
        elif kind == "enum":
            assert isinstance(given_value, str) and used == given_value, (name, given_value)
            assert used in INPUTS[name].type.members
        else:
            assert not isinstance(used, bool | str | float), (name, used)
            assert used == written_number(given_value, via_json), (name, given_value, used)
            if kind == "count":
                assert isinstance(used, int) and used >= 0, (name, used)
            if kind == "share":
                assert 0 <= used <= 1, (name, used)


def check_refused(error: ScenarioError, blameable: set[str] | None) -> None:
    """A refusal names each offending field, what was expected and what was given."""
    assert error.problems
    rendered = error.render()
    assert "Traceback" not in rendered
    for problem in error.problems:
        assert isinstance(problem.field, str)  # "" for an unknown field named ""
        assert problem.expected and isinstance(problem.given, str) and problem.given
        if problem.field not in ("<file>", "<scenario>"):
            assert f"field '{problem.field}'" in rendered
            assert len(problem.given) <= 260, problem.given  # long values are cut, not dumped
        if blameable is not None:
            # A problem inside a list is at a path below its field: full_time_jobs[3].kind.
            head = problem.field.split("[")[0]
            assert head in blameable | {"<file>"}, (problem.field, blameable)


def load_and_evaluate(
    load: Callable[[], object], blameable: set[str] | None = None, via_json: bool = True
) -> Result | ScenarioError:
    """Loads and evaluates a scenario, checks the outcome is one of the two allowed, and returns
    it. Any other exception escapes and fails the test."""
    try:
        scenario = load()
        result = STATUTE.evaluate(scenario)  # type: ignore[arg-type]
    except ScenarioError as error:
        check_refused(error, blameable)
        return error
    assert isinstance(scenario, dict)
    check_accepted(result, scenario, via_json)
    return result


# ---- one field replaced by anything ------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
@FUZZ
@given(example=st.sampled_from(EXAMPLE_SCENARIOS), value=JSON_VALUES, api_value=API_VALUES)
# Text holding a NUL byte: for a list field, the name of a file no system can open.
@with_example(example=EXAMPLE_SCENARIOS[0], value="jobs\x00.csv", api_value="\x00")
def test_any_value_of_one_field(
    name: str, example: dict[str, Any], value: object, api_value: object
) -> None:
    # Through JSON text, as a file or a batch line carries it.
    text = json.dumps({**example, name: value})
    load_and_evaluate(lambda: parse_text(text, "json", "fuzz.json"), BLAMEABLE[name])
    # Through the Python API, where a float is never read as a number.
    scenario = {**example, name: api_value}
    load_and_evaluate(lambda: scenario, BLAMEABLE[name], via_json=False)


# ---- whole documents ---------------------------------------------------------------------------


@settings(max_examples=300, deadline=None, database=None)
@given(
    document=st.one_of(
        st.dictionaries(st.sampled_from(NAMES) | st.text(max_size=70), JSON_VALUES, max_size=12),
        JSON_VALUES,
    )
)
@with_example(document={"readings": {"": None}})  # a problem at a path inside an object's key
def test_any_document(document: object) -> None:
    text = json.dumps(document)
    outcome = load_and_evaluate(lambda: parse_text(text, "json", "fuzz.json"))
    if isinstance(outcome, ScenarioError) and not isinstance(document, dict):
        assert [p.field for p in outcome.problems] in (["<scenario>"], ["<file>"])
    elif isinstance(outcome, ScenarioError):
        shown = {key if len(key) <= 60 else key[:57] + "..." for key in document}
        for problem in outcome.problems:  # a declared field, a key of the document, the file
            # or a path inside a list (jobs[0].kind) or inside an object (readings.I99)
            head = re.split(r"[\[.]", problem.field)[0]
            assert problem.field in {*NAMES, *shown, "<file>"} or head in {*NAMES, *shown}, (
                problem.field
            )


def _as_toml(scenario: dict[str, Any]) -> str:
    def value(v: object) -> str:
        return ("true" if v else "false") if isinstance(v, bool) else json.dumps(v)

    return "".join(f"{key} = {value(v)}\n" for key, v in scenario.items())


def _as_text(scenario: dict[str, Any], kind: str) -> str:
    if kind == "json":
        return json.dumps(scenario, indent=1)
    if kind == "yaml":
        return yaml.safe_dump(scenario)
    return _as_toml(scenario)


@settings(max_examples=400, deadline=None, database=None)
@given(
    example=st.sampled_from(EXAMPLE_SCENARIOS),
    kind=st.sampled_from(["json", "yaml", "toml"]),
    seed=st.integers(0, 2**32),
    edits=st.integers(1, 6),
    pieces=st.lists(
        st.sampled_from(
            [
                "",
                "-",
                "1",
                "9" * 50,
                "e999999",
                ".",
                ",",
                ":",
                "[",
                "]",
                "{",
                "}",
                '"',
                "'",
                "\n",
                " ",
                "&a",
                "*a",
                "!!",
                "nan",
                "inf",
                "null",
                "true",
                "\udcff",
                "é",
                "#",
                "=",
                "1/0",
            ]
        ),
        min_size=6,
        max_size=6,
    ),
)
def test_valid_documents_with_random_edits(
    example: dict[str, Any], kind: str, seed: int, edits: int, pieces: list[str]
) -> None:
    """Near-valid files: an example in JSON, YAML or TOML with a few characters changed."""
    text = _as_text(example, kind)
    chooser = random.Random(seed)
    for index in range(edits):
        at = chooser.randrange(len(text) + 1)
        cut = chooser.choice((0, 0, 1, 3))
        text = text[:at] + pieces[index] + text[at + cut :]
    data = text.encode("utf-8", "surrogateescape")  # "\udcff" becomes the byte 0xff
    load_and_evaluate(lambda: parse_bytes(data, kind, f"fuzz.{kind}", "an empty file"))


@settings(max_examples=300, deadline=None, database=None)
@given(data=st.binary(max_size=200), kind=st.sampled_from(["json", "yaml", "toml"]))
def test_random_bytes(data: bytes, kind: str) -> None:
    load_and_evaluate(lambda: parse_bytes(data, kind, "fuzz", "an empty file"))


@settings(max_examples=300, deadline=None, database=None)
@given(text=st.text(max_size=200), kind=st.sampled_from(["json", "yaml", "toml"]))
def test_random_text(text: str, kind: str) -> None:
    data = text.encode("utf-8", "surrogatepass")  # a lone surrogate makes bytes that are not UTF-8
    load_and_evaluate(lambda: parse_bytes(data, kind, "fuzz", "an empty file"))


def test_the_fuzzed_fields_are_the_declared_ones() -> None:
    """The field list comes from the encoding, and each example starts the fuzzing valid."""
    assert NAMES and set(NAMES) == set(STATUTE.ast.inputs)
    assert EXAMPLE_SCENARIOS
    for example in EXAMPLE_SCENARIOS:
        check_accepted(STATUTE.evaluate(example), example, via_json=False)
        check_accepted(
            STATUTE.evaluate(parse_text(json.dumps(example), "json", "x")),  # type: ignore[arg-type]
            example,
            via_json=True,
        )
    # The dependents are read from the declared bounds: at least one field bounds another.
    assert any(BLAMEABLE[name] != {name} for name in NAMES)
