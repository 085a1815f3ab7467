"""The scenario's JSON Schema (dsl/schema.py, `lextrace schema`) against the validator.

The schema must never refuse what the validator accepts (every example, every generated valid
scenario), and where it accepts what the validator refuses, each refused field must name, in the
schema's `x-lextrace.unchecked`, a constraint the schema does not check. Both are tried on every
encoding here, on the bundled examples, on the corpus of bad scenarios, and on scenarios spoiled
one field at a time with the values JSON documents hold.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from conftest import EXAMPLES, repository_encodings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from lextrace import load_statute
from lextrace.dsl import ast
from lextrace.dsl.errors import FieldProblem, ScenarioError
from lextrace.dsl.scenario import parse_text, validate_fully
from lextrace.dsl.schema import TEXT_SIZE_NOTE, scenario_schema, schema_text
from lextrace.periods import is_period_scenario, split
from lextrace.verify.strategies import period_scenarios, scenarios

ROOT = Path(__file__).resolve().parent.parent
BAD = ROOT / "tests" / "bad_inputs" / "scenario"
ENCODINGS = repository_encodings()
# Each bundled encoding and the folder of its examples.
EXAMPLE_FOLDERS = {
    "nj-34-1b-343": [EXAMPLES, EXAMPLES / "eligibility-period"],
    "catala-tutorial-tax": [EXAMPLES / "catala-tutorial-tax"],
    "nsw-cgr-2020-cl-5": [EXAMPLES / "nsw-cgr-2020-cl-5"],
    "usc-26-132-c": [EXAMPLES / "usc-26-132-c"],
}
# The values a JSON document can hold in a field (as JSON text).
JSON_VALUES = [
    "null", "true", "false", "0", "1", "-1", "7", "300", "7.0", "19.5", "-0.01", "1e3", "1e31",
    "1e-31", "1e999", "10000000000000000000000000000000", '""', '" "', '"0"', '"19.50"',
    '"-0"', '"-3"', '"+3"', '" 5"', '"5."', '".5"', '"1e3"', '"1e99"', '"0e999"', '"1/3"',
    '"1/0"', '"2/1"', '" 1 / 2 "', '"-1/2"', '"none"', '"b1"', '"abc"', '"2024-01-01"',
    '"2024-02-30"', '"1' + "0" * 40 + '"', "[]", "{}", '{"a": 1}', "[1, 2]",
]  # fmt: skip
CHECKS = settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)


def _number(text: str) -> int | Decimal:
    """A JSON number as JSON Schema reads it: an integer when it has no fraction."""
    value = Decimal(text)
    if value.is_finite() and abs(value.adjusted()) < 1000 and value == value.to_integral_value():
        return int(value)
    return value


def _document(text: str) -> Any:
    return json.loads(text, parse_float=_number, parse_int=_number)


def _schema(statute: ast.Statute) -> dict[str, Any]:
    """The schema as a user reads it: from its JSON text."""
    return _document(schema_text(scenario_schema(statute)))


def _refusal(statute: ast.Statute, text: str) -> list[FieldProblem] | None:
    """The validator's problems with a JSON scenario (None when it accepts it)."""
    try:
        scenario = parse_text(text, "json", "<test>")
        if isinstance(scenario, dict) and is_period_scenario(statute, scenario):
            split(statute, scenario)
        else:
            validate_fully(statute, scenario)
    except ScenarioError as error:
        return list(error.problems)
    return None


def _at(document: Any, path: str) -> Any:
    """The value at a problem's field path (`jobs[2].wage`) in a document, None if absent."""
    for part in re.findall(r"[^.\[\]]+|\[\d+\]", path):
        if part.startswith("["):
            index = int(part[1:-1])
            document = (
                document[index] if isinstance(document, list) and index < len(document) else None
            )
        else:
            document = document.get(part) if isinstance(document, dict) else None
    return document


def _notes(
    schema: dict[str, Any], statute: ast.Statute, problem: FieldProblem, document: Any
) -> list[str]:
    """What the schema says it leaves unchecked where a problem is: the input's notes, or a
    list element's record's and its field's; the periods' for a fact missing from a period or
    a year out of order."""
    top = schema.get("else", schema)["properties"]
    parts = problem.field.replace("]", "").split(".")
    name = parts[0].split("[")[0]
    notes: list[str] = []
    if statute.periods is not None and name == statute.periods.name:
        period = schema["then"]["properties"][name]
        # A fact missing from a period, once merged with the top level (the periods' own
        # check says "nothing", the merged period's "the field is missing"), or out of order.
        merged = (
            problem.given == "nothing"
            or problem.hint == "the field is missing"
            or "rise strictly" in problem.expected
        )
        notes = list(period["x-lextrace"]["unchecked"]) if merged else []
        if len(parts) == 1:
            return notes
        parts = parts[1:]
        name = parts[0].split("[")[0]
    if name not in top:
        return []
    field = top[name]
    notes += field.get("x-lextrace", {}).get("unchecked", [])
    declared = statute.inputs.get(name)
    if declared is not None and declared.type.kind == "list":
        record = schema["$defs"][declared.type.record]
        notes += record.get("x-lextrace", {}).get("unchecked", [])
        if len(parts) > 1:
            element = record["properties"].get(parts[1], {})
            notes += element.get("x-lextrace", {}).get("unchecked", [])
    # A note on numbers given as text explains only a value given as text.
    given_as_text = isinstance(_at(document, problem.field), str)
    return [note for note in notes if given_as_text or "given as text" not in note]


def _text_size(schema: dict[str, Any], problem: FieldProblem) -> bool:
    """A number given as text refused for its size, which the schema's root says it bounds
    only by the length of its exponent."""
    return (
        TEXT_SIZE_NOTE in schema["x-lextrace"]["unchecked"]
        and problem.given.startswith('"')
        and (problem.hint or "").startswith("too long or too large")
    )


def _compare(statute: ast.Statute, validator: Draft202012Validator, text: str) -> bool | None:
    """Asserts the schema's contract on one JSON scenario; returns whether the validator
    accepts it (None when it is no JSON document the validator reads)."""
    try:
        parse_text(text, "json", "<test>")
    except ScenarioError:
        return None
    problems = _refusal(statute, text)
    errors = list(validator.iter_errors(_document(text)))
    if problems is None:
        assert not errors, f"the schema refuses a valid scenario {text}: {errors[0].message}"
        return True
    if not errors:
        schema = validator.schema
        unexplained = [
            p
            for p in problems
            if not _notes(schema, statute, p, _document(text)) and not _text_size(schema, p)
        ]
        assert not unexplained, (
            f"the schema accepts {text}, refused for {unexplained[0].render()}, and names no "
            "constraint it leaves unchecked there"
        )
    return False


@pytest.fixture(scope="module", params=ENCODINGS, ids=lambda p: p.stem)
def encoding(request: pytest.FixtureRequest) -> tuple[ast.Statute, Draft202012Validator]:
    statute = load_statute(request.param).ast
    schema = _schema(statute)
    Draft202012Validator.check_schema(schema)
    return statute, Draft202012Validator(schema)


def test_every_example_meets_its_encodings_schema() -> None:
    checked = 0
    for stem, folders in EXAMPLE_FOLDERS.items():
        statute = load_statute(ROOT / "statute" / f"{stem}.lex").ast
        validator = Draft202012Validator(_schema(statute))
        for folder in folders:
            for path in sorted(folder.glob("*.json")):
                errors = list(validator.iter_errors(_document(path.read_text(encoding="utf-8"))))
                assert not errors, f"{path.name}: {errors[0].message}"
                checked += 1
        lines = (EXAMPLES / "batch.jsonl").read_text(encoding="utf-8").splitlines()
        if stem == "nj-34-1b-343":
            for line in lines:
                assert not list(validator.iter_errors(_document(line))), line
                checked += 1
    assert checked >= 25


def test_the_bad_scenarios_fail_the_schema_or_it_says_what_it_leaves_unchecked() -> None:
    statute = load_statute().ast
    validator = Draft202012Validator(_schema(statute))
    refused = accepted_with_notes = 0
    for path in sorted(BAD.glob("*.json")):
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # not a JSON document: the reader refuses its bytes
        verdict = _compare(statute, validator, text)
        if verdict is None:
            continue
        assert verdict is False, f"{path.name} is in the bad corpus but valid"
        if list(validator.iter_errors(_document(text))):
            refused += 1
        else:
            accepted_with_notes += 1
    # What the schema cannot say: one field bounded by another (labor harmony jobs) and a
    # share as an improper fraction.
    assert accepted_with_notes == 4
    assert refused >= 40


def test_the_schema_states_the_conditional_requirements() -> None:
    statute = load_statute().ast
    validator = Draft202012Validator(_schema(statute))
    example = json.loads((EXAMPLES / "distressed-manufacturer.json").read_text(encoding="utf-8"))

    def errors(**changes: object) -> list[str]:
        scenario = {**example, **changes}
        for key in [k for k, v in changes.items() if v is ...]:
            del scenario[key]
        return [e.message for e in validator.iter_errors(_document(json.dumps(scenario)))]

    # required when government_restricted_municipality
    assert errors(government_restricted_municipality=True)
    assert not errors(government_restricted_municipality=True, municipality_median_salary=60000)
    # above $0 when industrial_rd_capital_investment > $0, given as text or as a number
    assert errors(industrial_rd_capital_investment="2500000")
    assert errors(industrial_rd_capital_investment=2500000, minimum_capital_investment="0.00")
    assert not errors(industrial_rd_capital_investment="2500000", minimum_capital_investment=1)
    # derived by a payroll rule when full_time_jobs is given: then left out, else required
    assert errors(new_jobs=...)
    jobs = [{"id": "a", "new": True, "annual_salary": "60000", "hourly_wage": "30"}]
    assert errors(full_time_jobs=jobs)  # new_jobs is given too
    # the table's value when tax_year is given, else required
    assert errors(state_minimum_wage=...)
    assert not errors(state_minimum_wage=..., tax_year=2024)


def test_generated_scenarios_meet_the_schema_and_spoiled_ones_are_explained(
    encoding: tuple[ast.Statute, Draft202012Validator],
) -> None:
    statute, validator = encoding
    names = sorted(statute.inputs)
    forms = [scenarios(statute)]
    if statute.periods is not None:
        forms.append(period_scenarios(statute))
    outcomes: list[bool | None] = []

    @CHECKS
    @given(
        st.one_of(*forms),
        st.lists(
            st.tuples(
                st.sampled_from([*names, "not_a_field"]),
                st.one_of(st.sampled_from(JSON_VALUES), st.just("<drop>")),
            ),
            max_size=2,
        ),
    )
    def check(scenario: dict[str, object], changes: list[tuple[str, str]]) -> None:
        pieces = {
            k: json.dumps(v) for k, v in json.loads(json.dumps(scenario, default=str)).items()
        }
        for name, value in changes:  # each value exactly as written
            if value == "<drop>":
                pieces.pop(name, None)
            else:
                pieces[name] = value
        text = "{" + ", ".join(f"{json.dumps(k)}: {v}" for k, v in pieces.items()) + "}"
        outcomes.append(_compare(statute, validator, text))

    check()
    assert True in outcomes and False in outcomes


def test_each_field_with_each_json_value(
    encoding: tuple[ast.Statute, Draft202012Validator],
) -> None:
    statute, validator = encoding
    base = json.loads(json.dumps(_first_valid(statute), default=str))
    schema = validator.schema
    refused_by_both = 0
    for name in statute.inputs:
        for value in JSON_VALUES:
            fields = [f"{json.dumps(k)}: {json.dumps(v)}" for k, v in base.items() if k != name]
            text = "{" + ", ".join([*fields, f"{json.dumps(name)}: {value}"]) + "}"
            if _compare(statute, validator, text) is False:
                refused_by_both += bool(list(validator.iter_errors(_document(text))))
    assert refused_by_both > len(statute.inputs)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def _first_valid(statute: ast.Statute) -> dict[str, object]:
    from hypothesis import find

    return find(scenarios(statute), lambda s: True, settings=settings(database=None))


def test_the_command_prints_the_schema_of_the_encoding_given() -> None:
    tiny = ROOT / "tests" / "bad_inputs" / "encoding" / "tiny.lex"
    done = subprocess.run(
        [sys.executable, "-m", "lextrace", "schema", "--encoding", str(tiny), "--inline-lists"],
        capture_output=True,
        text=True,
        check=True,
    )
    printed = _document(done.stdout)
    assert printed == _document(schema_text(scenario_schema(load_statute(tiny).ast, False)))
    Draft202012Validator.check_schema(printed)
    bundled = subprocess.run(
        [sys.executable, "-m", "lextrace", "schema"], capture_output=True, text=True, check=True
    )
    files = json.loads(bundled.stdout)["else"]["properties"]["full_time_jobs"]
    assert any(branch.get("type") == "string" for branch in files["anyOf"][0]["anyOf"])


def test_a_fact_left_out_of_every_period_is_a_requirement_the_schema_says_it_leaves(
    statute: Any,
) -> None:
    # Found by the generated scenarios: a period scenario without the county's median salary,
    # at the top or in any period. Each merged period is refused for it ("the field is
    # missing"); the schema, which checks no period merged with the top level, says so.
    validator = Draft202012Validator(_schema(statute.ast))
    document = json.loads(
        (EXAMPLES / "eligibility-period" / "seven-year-payroll.json").read_text(encoding="utf-8")
    )
    del document["county_median_salary"]
    assert _compare(statute.ast, validator, json.dumps(document)) is False
