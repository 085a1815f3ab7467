"""A result's JSON forms: `to_dict()`, `to_json_text()` (what `evaluate --format json` prints)
and the deprecated `to_json()`, for a one-year result and a result of periods."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
from conftest import EXAMPLES

from lextrace import load_statute
from lextrace.cli import main

CASES = [
    EXAMPLES / "distressed-manufacturer.json",
    EXAMPLES / "eligibility-period" / "seven-year-payroll.json",
]


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_the_json_text_is_what_the_command_prints(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result = load_statute().evaluate_file(path, trace=True)
    capsys.readouterr()
    assert main(["evaluate", str(path), "--format", "json"]) == 0
    assert capsys.readouterr().out == result.to_json_text(indent=2) + "\n"
    assert json.loads(result.to_json_text()) == result.to_dict()
    assert "\n" not in result.to_json_text()
    assert "trace" not in json.loads(result.to_json_text(include_trace=False))


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_to_json_still_returns_the_dict_with_a_deprecation_warning(path: Path) -> None:
    result = load_statute().evaluate_file(path)
    with pytest.warns(DeprecationWarning, match=r"to_json\(\) returns a dict.*use to_dict\(\)"):
        old = result.to_json()
    assert old == result.to_dict()
    assert isinstance(old, dict)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result.to_dict()  # the new names warn of nothing
        result.to_json_text()
