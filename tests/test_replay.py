"""Counterexamples that replay: `verify --counterexamples` writes scenario files that record
their encoding, readings and violated check; every hint it prints works as printed and shows
the violation; two runs write the same bytes; the values are readable."""

from __future__ import annotations

import hashlib
import json
import re
import shlex
import shutil
from fractions import Fraction
from pathlib import Path

import pytest
from conftest import lextrace_command, write_variant

from lextrace.statute import AMENDMENTS

# The counterexample of the (d)(5) limit the breaking draft exceeds.
CAP_B5_FILE = "gross_amount-within-the-words-3-000-d-5-covered-false.json"

BREAKING = AMENDMENTS / "uncapped-port-bonus" / "nj-34-1b-343.lex"


lextrace = lextrace_command


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    """Two identical `verify --counterexamples` runs on the breaking amendment: their folders
    and the first run's standard output."""
    first = tmp_path_factory.mktemp("first")
    second = tmp_path_factory.mktemp("second")
    outputs = []
    for folder in (first, second):
        completed = lextrace("verify", str(BREAKING), "--counterexamples", str(folder / "cx"))
        assert completed.returncode == 1, completed.stderr
        outputs.append(completed.stdout)
    return first / "cx", second / "cx", outputs[0]


def test_every_printed_hint_works_as_printed_and_shows_the_violation(
    runs: tuple[Path, Path, str],
) -> None:
    folder, _, output = runs
    hints = re.findall(r"\(run: (lextrace explain [^)]*)\)", output)
    files = sorted(folder.glob("*.json"))
    assert len(hints) == len(files) >= 10
    for hint in hints:
        command = shlex.split(hint)
        assert command[:2] == ["lextrace", "explain"] and len(command) == 3  # no --encoding
        explained = lextrace(*command[1:])
        assert explained.returncode == 0, explained.stderr
        recorded = json.loads(Path(command[2]).read_text(encoding="utf-8"))
        violates = recorded["lextrace"]["violates"]
        # Replayed under the amendment (its own title), and the recorded check is broken.
        assert "HYPOTHETICAL AMENDMENT" in explained.stdout.splitlines()[0]
        assert f"Check {violates['check']} ({violates['kind']}), {violates['citation']}" in (
            explained.stdout
        )
        assert f"statement: {violates['statement']}" in explained.stdout
        assert "\n  VIOLATED: " in explained.stdout
        readings = ", ".join(f"{k}={v}" for k, v in recorded["readings"].items())
        assert readings in explained.stdout


def test_a_counterexample_file_records_its_encoding_readings_and_check(
    runs: tuple[Path, Path, str],
) -> None:
    folder, _, _ = runs
    data = json.loads((folder / CAP_B5_FILE).read_text(encoding="utf-8"))
    record = data["lextrace"]
    encoding = record["encoding"]
    assert (folder / encoding["path"]).resolve() == BREAKING.resolve()
    assert encoding["sha256"] == sha256(BREAKING)
    assert encoding["official"]["sha256"] == sha256(BREAKING.with_suffix(".txt"))
    assert record["violates"]["citation"] == "N.J.S.A. 34:1B-343(d)(5)"
    assert record["violates"]["text"].startswith("area_tier = b5 implies gross_amount(")
    assert set(data["readings"]) == {"I8"}
    explained = lextrace("explain", str(folder / CAP_B5_FILE))
    assert "    area_tier" in explained.stdout and "= b5" in explained.stdout
    assert re.search(r"gross_amount\(covered: covered\)\s+= \$4,000\.00", explained.stdout)


def test_two_runs_write_identical_files(runs: tuple[Path, Path, str]) -> None:
    first, second, _ = runs
    names = sorted(p.name for p in first.glob("*.json"))
    assert names == sorted(p.name for p in second.glob("*.json"))
    for name in names:
        assert (first / name).read_bytes() == (second / name).read_bytes(), name


def test_counterexamples_are_readable(runs: tuple[Path, Path, str]) -> None:
    """Whole-dollar amounts, small counts, few facts turned on, default readings first."""
    folder, _, _ = runs
    for path in folder.glob("*.json"):
        data = json.loads(path.read_text(encoding="utf-8"))
        for name in ("project_median_salary", "county_median_salary", "state_minimum_wage"):
            assert Fraction(data[name]).denominator == 1, (path.name, name)
        assert data["new_jobs"] <= 1000 and data["retained_jobs"] <= 1000
        facts_on = [k for k, v in data.items() if v is True]
        assert len(facts_on) <= 4, (path.name, facts_on)
    below = json.loads((folder / CAP_B5_FILE).read_text(encoding="utf-8"))
    assert below["readings"] == {"I8": "covered-jobs"}  # the default reading already breaks it


def test_a_changed_encoding_is_refused_and_another_one_warned_about(
    tmp_path: Path, runs: tuple[Path, Path, str]
) -> None:
    copy = tmp_path / "enc"
    copy.mkdir()
    shutil.copy(BREAKING, copy / BREAKING.name)
    shutil.copy(BREAKING.with_suffix(".txt"), copy / BREAKING.with_suffix(".txt").name)
    encoding = copy / BREAKING.name
    folder, _, _ = runs
    scenario = json.loads((folder / CAP_B5_FILE).read_text(encoding="utf-8"))
    scenario["lextrace"]["encoding"]["path"] = "enc/" + BREAKING.name
    scenario["lextrace"]["encoding"]["official"]["path"] = (
        "enc/" + BREAKING.with_suffix(".txt").name
    )
    path = tmp_path / "cx.json"
    path.write_text(json.dumps(scenario), encoding="utf-8")
    assert lextrace("explain", str(path)).returncode == 0
    encoding.write_text(encoding.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    refused = lextrace("explain", str(path))
    assert refused.returncode == 2 and refused.stdout == ""
    assert "field 'lextrace.encoding.sha256'" in refused.stderr
    assert f"pass --encoding {encoding}" in refused.stderr
    warned = lextrace("explain", str(path), "--encoding", str(encoding))
    assert warned.returncode == 0, warned.stderr
    assert "warning:" in warned.stderr and "whose bytes differ" in warned.stderr
    assert "VIOLATED" in warned.stdout


def test_a_two_scenario_counterexample_replays_as_a_pair(
    tmp_path: Path, encoding_source: str
) -> None:
    variant = write_variant(
        tmp_path,
        encoding_source,
        "money = $1,000 when child_care;",
        "money = $1,000 when not child_care;",
    )
    folder = tmp_path / "cx"
    completed = lextrace("verify", str(variant), "--counterexamples", str(folder))
    assert completed.returncode == 1
    before = folder / "bonuses_never_lower-child_care-before.json"
    after = folder / "bonuses_never_lower-child_care-after.json"
    pair = [json.loads(p.read_text(encoding="utf-8")) for p in (before, after)]
    assert pair[0]["lextrace"]["pair"] == {"role": "before", "partner": after.name}
    assert pair[1]["lextrace"]["pair"] == {"role": "after", "partner": before.name}
    assert (pair[0]["child_care"], pair[1]["child_care"]) == (False, True)
    differing = {k for k in pair[0] if k != "lextrace" and pair[0][k] != pair[1][k]}
    assert differing == {"child_care"}
    for path, partner in ((before, after), (after, before)):
        explained = lextrace("explain", str(path))
        assert explained.returncode == 0, explained.stderr
        assert f"its partner: {partner}" in explained.stdout
        assert re.search(r"child_care\s+= no -> yes", explained.stdout)
        assert "LOWERED" in explained.stdout and "\n  VIOLATED: " in explained.stdout


def test_minimising_stops_at_its_work_budget_and_keeps_a_confirmed_counterexample(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from lextrace import load_statute
    from lextrace.verify import witness
    from lextrace.verify.report import run

    class NoSolver:
        """z3 as the minimiser sees it, but for solvers, which it must not ask for."""

        def __getattr__(self, name: str) -> object:
            if name == "SolverFor":
                raise AssertionError("the minimiser asked Z3 past its work budget")
            return getattr(real, name)

    real = witness.z3
    monkeypatch.setattr(witness, "WORK", 0)
    monkeypatch.setattr(witness, "z3", NoSolver())
    report = run(load_statute(BREAKING).ast, 10.0, 120.0)
    violated = [o for o in report.outcomes if o.status == "VIOLATED"]
    assert violated
    assert all(o.counterexample for o in violated), [o.check.name for o in violated]
