"""A scenario may pin its readings in a `readings` field: validated like any other field, used
by evaluate, explain, batch rows and the API; a selection made outside the scenario may agree
with a pinned reading but never contradict it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import EXAMPLES, lextrace_command, write_variant

from lextrace import Statute
from lextrace.dsl.errors import ScenarioError
from lextrace.dsl.loader import analyse

LABOR = EXAMPLES / "labor-harmony-business-wide.json"


lextrace = lextrace_command


def scenario(**readings: object) -> dict[str, object]:
    """The labor harmony example with `readings` as its pinned readings (none when empty)."""
    data = json.loads(LABOR.read_text(encoding="utf-8"))
    data.pop("readings")
    if readings:
        data["readings"] = readings
    return data


def write(tmp_path: Path, data: object, name: str = "scenario.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_a_pinned_reading_is_the_one_used(tmp_path: Path) -> None:
    pinned = write(tmp_path, scenario(I8="business-wide"))
    plain = write(tmp_path, scenario(), "plain.json")
    wide = json.loads(lextrace("evaluate", str(pinned), "--format", "json").stdout)
    covered = json.loads(lextrace("evaluate", str(plain), "--format", "json").stdout)
    assert wide["readings"]["I8"] == "business-wide" and wide["per_job_new"] == "6000.00"
    assert covered["readings"]["I8"] == "covered-jobs" and covered["per_job_new"] == "5000.00"
    explained = lextrace("explain", str(pinned))
    assert explained.returncode == 0, explained.stderr
    assert "I8=business-wide" in explained.stdout


@pytest.mark.parametrize(
    ("readings", "field", "expected", "given"),
    [
        ({"I88": "business-wide"}, "readings.I88", "one of the readings", "an unknown reading"),
        ({"I8": "wide"}, "readings.I8", 'one of "covered-jobs", "business-wide"', '"wide"'),
        ({"I8": 8}, "readings.I8", 'one of "covered-jobs", "business-wide"', "8"),
    ],
)
def test_a_bad_pinned_reading_is_a_field_error(
    tmp_path: Path, readings: dict, field: str, expected: str, given: str
) -> None:
    path = write(tmp_path, scenario(**readings))
    completed = lextrace("evaluate", str(path))
    assert completed.returncode == 2
    assert completed.stdout == ""
    assert f"{path}: field '{field}': expected {expected}" in completed.stderr
    assert f"given {given}" in completed.stderr


def test_readings_must_be_an_object(tmp_path: Path) -> None:
    data = scenario()
    data["readings"] = ["I8=business-wide"]
    completed = lextrace("evaluate", str(write(tmp_path, data)))
    assert completed.returncode == 2
    assert "field 'readings': expected an object of reading ID -> option" in completed.stderr


def test_a_contradicting_reading_option_is_an_error_naming_both(tmp_path: Path) -> None:
    path = write(tmp_path, scenario(I8="business-wide"))
    for command in ("evaluate", "explain"):
        completed = lextrace(command, str(path), "--reading", "I8=covered-jobs")
        assert completed.returncode == 2, command
        assert completed.stdout == ""
        message = completed.stderr
        assert "field 'readings.I8'" in message and "I8=covered-jobs" in message
        assert 'given "business-wide"' in message


def test_an_agreeing_reading_option_is_fine(tmp_path: Path) -> None:
    path = write(tmp_path, scenario(I8="business-wide"))
    completed = lextrace("evaluate", str(path), "--format", "json", "--reading", "I8=business-wide")
    assert completed.returncode == 0, completed.stderr
    assert json.loads(completed.stdout)["annual_credit"] == "3900000.00"
    # A default reading not pinned may be named too.
    other = lextrace("evaluate", str(path), "--format", "json", "--reading", "I2=strict")
    assert other.returncode == 0, other.stderr
    assert json.loads(other.stdout)["readings"]["I8"] == "business-wide"


def test_the_api_follows_the_same_rule(statute: Statute) -> None:
    data = scenario(I8="business-wide")
    assert statute.evaluate(data).values["per_job_new"] == 6000
    assert statute.evaluate(data, readings={"I8": "business-wide"}).values["per_job_new"] == 6000
    with pytest.raises(ScenarioError) as caught:
        statute.evaluate(data, readings={"I8": "covered-jobs"}, source="s.json")
    assert caught.value.field == "readings.I8"
    assert "I8=covered-jobs" in str(caught.value) and '"business-wide"' in str(caught.value)
    with pytest.raises(ScenarioError) as unknown:
        statute.evaluate(scenario(I99="x"))
    assert unknown.value.field == "readings.I99"


@pytest.mark.parametrize("engine", ["columnar", "scalar"])
def test_batch_rows_use_their_pinned_readings(tmp_path: Path, engine: str) -> None:
    rows = [scenario(), scenario(I8="business-wide"), scenario(I8="nope"), scenario()]
    batch = tmp_path / "rows.jsonl"
    batch.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    completed = lextrace("batch", str(batch), "--engine", engine)
    assert completed.returncode == 2
    lines = [json.loads(line) for line in completed.stdout.splitlines()]
    assert [line.get("per_job_new") for line in lines] == ["5000.00", "6000.00", None, "5000.00"]
    assert lines[1]["readings"]["I8"] == "business-wide"
    assert lines[0]["readings"]["I8"] == lines[3]["readings"]["I8"] == "covered-jobs"
    assert lines[2]["error"][0]["field"] == "readings.I8"
    contradicted = lextrace("batch", str(batch), "--engine", engine, "--reading", "I8=covered-jobs")
    assert f"{batch}:2: field 'readings.I8'" in contradicted.stderr


def test_both_engines_write_the_same_bytes_for_pinned_rows(tmp_path: Path) -> None:
    rows = [scenario(), scenario(I8="business-wide")]
    batch = tmp_path / "rows.jsonl"
    batch.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    columnar = lextrace("batch", str(batch))
    scalar = lextrace("batch", str(batch), "--engine", "scalar")
    assert columnar.returncode == scalar.returncode == 0
    assert columnar.stdout == scalar.stdout


@pytest.mark.parametrize("name", ["readings", "lextrace"])
def test_the_checker_refuses_an_input_named_like_a_reserved_key(
    tmp_path: Path, encoding_source: str, name: str
) -> None:
    variant = write_variant(
        tmp_path,
        encoding_source,
        "input small_business: bool = false",
        f"input {name}: bool = false",
    )
    found = [d.message for d in analyse(variant).errors]
    assert any(f"an input cannot be named '{name}'" in m for m in found), found
