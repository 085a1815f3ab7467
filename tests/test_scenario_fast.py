"""The generated validator (dsl/scenario_fast.py) against the full one, on every encoding here.

It may only agree with `validate_fully` or decline: whatever a scenario holds (valid, or spoiled
one field at a time with the values programs and files send), a scenario it accepts is one the
full validator accepts, with the same values of the same types. And it must not decline the
plain scenarios it exists for: the bundled examples and every generated flat scenario.
"""

from __future__ import annotations

import datetime
import json
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from conftest import EXAMPLES, repository_encodings
from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st

from lextrace import load_statute
from lextrace.dsl import ast
from lextrace.dsl.errors import ScenarioError
from lextrace.dsl.scenario import ExactNumber, validate_fully
from lextrace.dsl.scenario_fast import quick_source, quick_validator
from lextrace.verify.strategies import scenarios

ENCODINGS = repository_encodings()
# What programs and files put in a field: the exact forms, and the ones the full validator
# refuses or reads by another rule (a float, a signed or padded decimal, a JSON number kept as
# text, a fraction, a date, too large a number ...).
ODD_VALUES: list[object] = [
    None,
    True,
    False,
    0,
    1,
    -1,
    7,
    300,
    10**31,
    -(10**31),
    10**40,
    7.0,
    19.5,
    float("nan"),
    Decimal("19.50"),
    Fraction(1, 3),
    Fraction(10**32),
    np.int64(5),
    np.bool_(True),
    "",
    " ",
    "0",
    "1",
    "19.50",
    "-0",
    "-3",
    "+3",
    " 5",
    "5.",
    ".5",
    "1e3",
    "0.0000000001",
    "1" * 29,
    "1" * 30,
    "9" * 29 + ".123456789",
    "1/3",
    "1/0",
    " 1/2",
    "2/1",
    "none",
    "b1",
    "abc",
    "2024-01-01",
    "2024-02-30",
    datetime.date(2024, 1, 1),
    datetime.datetime(2024, 1, 1, 12),
    ExactNumber("7"),
    ExactNumber("19.50"),
    ExactNumber("1e3"),
    [],
    {},
]
CHECKS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)


def _full(statute: ast.Statute, scenario: dict[str, object]) -> dict[str, object] | None:
    try:
        return validate_fully(statute, scenario)
    except ScenarioError:
        return None


def _agrees(statute: ast.Statute, scenario: dict[str, object]) -> bool:
    """Asserts that the fast validator agrees with the full one or declines; returns whether
    it accepted the scenario."""
    quick = quick_validator(statute)(scenario)
    if quick is None:
        return False
    full = _full(statute, scenario)
    assert full is not None, f"accepted a scenario the full validator refuses: {scenario!r}"
    assert list(quick) == list(full)
    for name, value in full.items():
        assert quick[name] == value and type(quick[name]) is type(value), (name, quick[name])
    return True


@pytest.fixture(scope="module", params=ENCODINGS, ids=lambda p: p.stem)
def statute(request: pytest.FixtureRequest) -> ast.Statute:
    return load_statute(request.param).ast


def test_each_encoding_gets_a_validator_whose_source_compiles(statute: ast.Statute) -> None:
    source = quick_source(statute)
    assert source.startswith("def validate(scenario):")
    compile(source, "<test>", "exec")


def test_flat_valid_scenarios_are_read_fast_and_alike(statute: ast.Statute) -> None:
    tables = [n for n, d in statute.inputs.items() if d.from_table is not None]
    accepted: list[bool] = []

    @CHECKS
    @given(scenarios(statute))
    def check(scenario: dict[str, object]) -> None:
        read = _agrees(statute, scenario)
        flat = not any(isinstance(v, list) for v in scenario.values())
        if flat and all(name in scenario for name in tables):
            assert read, f"declined a plain valid scenario: {scenario!r}"
        if not flat:
            assert not read  # a list is read by the full validator
        accepted.append(read)

    check()
    with_list = any(d.type.kind == "list" and d.required for d in statute.inputs.values())
    assert any(accepted) != with_list


def test_spoiled_scenarios_are_never_accepted_wrongly(statute: ast.Statute) -> None:
    names = sorted(statute.inputs)

    @CHECKS
    @given(
        scenarios(statute),
        st.lists(
            st.tuples(
                st.sampled_from([*names, "not_a_field"]),
                st.one_of(st.sampled_from(ODD_VALUES), st.just("<drop>")),
            ),
            min_size=1,
            max_size=3,
        ),
    )
    def check(scenario: dict[str, object], changes: list[tuple[str, object]]) -> None:
        spoiled = dict(scenario)
        for name, value in changes:
            if isinstance(value, str) and value == "<drop>":
                spoiled.pop(name, None)
            else:
                spoiled[name] = value
        _agrees(statute, spoiled)

    check()


def _stated_limits(statute: ast.Statute) -> list[object]:
    """Each number an input's bound states, and a cent and a unit on either side, as the
    forms a scenario gives them (an int when whole, else a decimal string)."""
    found: list[object] = []
    for declared in statute.inputs.values():
        for bound in declared.bounds:
            value = bound.value
            if isinstance(value, ast.Literal) and value.unit not in ("date", "duration", "bool"):
                stated = Fraction(value.value)
                for step in (Fraction(0), Fraction(1, 100), Fraction(-1, 100), 1, -1):
                    near = stated + step
                    found.append(int(near) if near.denominator == 1 else f"{float(near):.2f}")
    return found


def test_every_field_with_every_odd_value_and_every_stated_limit(statute: ast.Statute) -> None:
    # An encoding with a required list has no flat scenario: its lists go to the full path.
    with_list = any(d.type.kind == "list" and d.required for d in statute.inputs.values())
    base = find(
        scenarios(statute),
        lambda s: with_list or not any(isinstance(v, list) for v in s.values()),
        settings=settings(database=None, max_examples=200),
    )
    values = [*ODD_VALUES, *_stated_limits(statute)]
    accepted = 0
    for name in statute.inputs:
        for value in values:
            accepted += _agrees(statute, {**base, name: value})
        without = dict(base)
        without.pop(name, None)
        accepted += _agrees(statute, without)
    assert bool(accepted) != with_list


def test_the_bundled_examples_are_read_fast() -> None:
    statute = load_statute().ast
    read = 0
    for path in sorted(EXAMPLES.glob("*.json")):
        scenario = json.loads(path.read_text(encoding="utf-8"))
        if set(scenario) <= set(statute.inputs):
            assert _agrees(statute, scenario), path.name
            read += 1
    assert read >= 5


def test_a_non_dict_mapping_and_reserved_fields_go_to_the_full_validator() -> None:
    statute = load_statute().ast
    path = sorted(EXAMPLES.glob("*.json"))[0]
    scenario = json.loads(path.read_text(encoding="utf-8"))
    assert quick_validator(statute)(scenario) is not None
    assert quick_validator(statute)({**scenario, "readings": {}}) is None
    from types import MappingProxyType

    assert quick_validator(statute)(MappingProxyType(scenario)) is None  # type: ignore[arg-type]
