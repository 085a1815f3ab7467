"""The `lextrace` command end to end, in a subprocess: outputs, exit codes, no tracebacks."""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path

import pytest
from conftest import EXAMPLES, lextrace_command, write_variant
from oracle import cents, oracle

EXAMPLE_FILES = sorted(EXAMPLES.glob("*.json"))


run = lextrace_command


def pinned_i8(scenario: dict) -> str:
    """The I8 option a scenario file pins, else the default."""
    return scenario.get("readings", {}).get("I8", "covered-jobs")


def test_evaluate_json_agrees_with_independent_computation() -> None:
    for path in EXAMPLE_FILES:
        completed = run("evaluate", str(path), "--format", "json")
        assert completed.returncode == 0, completed.stderr
        result = json.loads(completed.stdout)
        scenario = json.loads(path.read_text(encoding="utf-8"))
        i8 = pinned_i8(scenario)
        expected = oracle(scenario, i8)
        for key, value in expected.items():
            assert result[key] == (value if key == "area_tier" else cents(value)), (path, key)
        assert result["readings"]["I8"] == i8
        assert isinstance(result["trace"], list) and result["trace"]


def test_reading_option_changes_the_result_and_is_named() -> None:
    path = EXAMPLES / "labor-harmony-business-wide.json"
    scenario = json.loads(path.read_text(encoding="utf-8"))
    completed = run("evaluate", str(path), "--format", "json", "--reading", "I8=business-wide")
    result = json.loads(completed.stdout)
    assert result["readings"]["I8"] == "business-wide"
    assert result["annual_credit"] == cents(oracle(scenario, "business-wide")["annual_credit"])
    assert result["annual_credit"] != cents(oracle(scenario)["annual_credit"])


def test_batch_agrees_with_evaluate_in_order() -> None:
    batch = EXAMPLES / "batch.jsonl"
    completed = run("batch", str(batch))
    assert completed.returncode == 0, completed.stderr
    lines = completed.stdout.splitlines()
    scenarios = [json.loads(line) for line in batch.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == len(scenarios)
    for line, scenario in zip(lines, scenarios, strict=True):
        result = json.loads(line)
        assert "trace" not in result
        expected = oracle(scenario, pinned_i8(scenario))
        assert result["readings"]["I8"] == pinned_i8(scenario)
        assert result["annual_credit"] == cents(expected["annual_credit"])
        assert result["per_job_retained_labor_harmony"] == cents(
            expected["per_job_retained_labor_harmony"]
        )


def test_batch_reports_bad_lines_and_keeps_going(tmp_path: Path) -> None:
    good = (EXAMPLES / "batch.jsonl").read_text(encoding="utf-8").splitlines()[0]
    source = tmp_path / "mixed.jsonl"
    source.write_text(f'{good}\n{{"new_jobs": -1}}\n{good}\n', encoding="utf-8")
    output = tmp_path / "out.jsonl"
    completed = run("batch", str(source), "--output", str(output))
    assert completed.returncode == 2
    assert f"{source}:2: field 'new_jobs'" in completed.stderr
    lines = output.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 3
    assert json.loads(lines[1])["line"] == 2
    assert json.loads(lines[0]) == json.loads(lines[2])


def test_batch_strict_stops_and_writes_nothing(tmp_path: Path) -> None:
    source = tmp_path / "bad.jsonl"
    source.write_text('{"new_jobs": -1}\n', encoding="utf-8")
    output = tmp_path / "out.jsonl"
    completed = run("batch", str(source), "--strict", "--output", str(output))
    assert completed.returncode == 2
    assert not output.exists()
    assert list(tmp_path.iterdir()) == [source]


def test_batch_trace_on_request() -> None:
    completed = run("batch", str(EXAMPLES / "batch.jsonl"), "--trace")
    first = json.loads(completed.stdout.splitlines()[0])
    assert any(step["id"] == "gross_amount(covered=false)" for step in first["trace"])


@pytest.mark.parametrize(
    ("source_format", "target_format"),
    [("jsonl", "parquet"), ("jsonl", "csv"), ("parquet", "jsonl"), ("csv", "parquet")],
)
def test_batch_trace_in_every_format_is_the_json_lines_trace(
    tmp_path: Path, source_format: str, target_format: str
) -> None:
    import pyarrow as pa
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    lines = (EXAMPLES / "batch.jsonl").read_text(encoding="utf-8").splitlines()
    scenarios = [json.loads(line) for line in lines]
    bad = {**scenarios[0], "new_jobs": -1}
    traced = run("batch", str(EXAMPLES / "batch.jsonl"), "--trace")
    expected = [json.loads(line) for line in traced.stdout.splitlines()]
    source = tmp_path / f"in.{source_format}"
    rows = [*scenarios, bad]
    if source_format == "jsonl":
        source.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    else:
        names = list(dict.fromkeys(k for r in rows for k in r if k != "readings"))
        texts = {
            n: [None if n not in r else json.dumps(r[n]).strip('"') for r in rows] for n in names
        }
        table = pa.table({n: pa.array(v, pa.string()) for n, v in texts.items()})
        if source_format == "csv":
            pcsv.write_csv(table, source)
        else:
            pq.write_table(table, source)
    target = tmp_path / f"out.{target_format}"
    completed = run("batch", str(source), "--trace", "-o", str(target))
    assert completed.returncode == 2  # the bad row
    assert "new_jobs" in completed.stderr
    if target_format == "jsonl":
        records = [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]
        got = [r.get("trace") for r in records]
        assert "error" in records[-1]
    else:
        read = pq.read_table(target) if target_format == "parquet" else pcsv.read_csv(target)
        got = [json.loads(t) if t else None for t in read.column("trace").to_pylist()]
        assert read.column("error").to_pylist()[-1] is not None
    pinned = [i for i, r in enumerate(scenarios) if "readings" in r]
    for index, record in enumerate(expected):
        if index not in pinned or source_format == "jsonl":
            assert got[index] == record["trace"], index
    assert got[-1] is None


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.stem)
def test_explain_gives_every_value_its_citation(path: Path) -> None:
    completed = run("explain", str(path))
    assert completed.returncode == 0, completed.stderr
    derivation = completed.stdout.split("Derivation", 1)[1].splitlines()[1:]
    assert derivation
    for line in derivation:
        body = line.lstrip("│├└─ ")
        if line.lstrip(" │").startswith(("“", "=", "reading:", "not applied", "no case")):
            continue  # the words, the rule, the readings or the failed condition of a value
        if re.match(r"^[a-z_]+(\([a-z_=, ]+\))? = ", body):
            assert "[N.J.S.A. 34:1B-343" in line, line


def test_explain_shows_why_a_bonus_did_not_apply() -> None:
    completed = run("explain", str(EXAMPLES / "distressed-manufacturer.json"))
    assert "small_business_bonus = $0.00  [N.J.S.A. 34:1B-343(c)(1)(e)]" in completed.stdout
    assert "not applied: small_business is false" in completed.stdout


def test_evaluate_text_and_markdown() -> None:
    path = str(EXAMPLES / "distressed-manufacturer.json")
    text = run("evaluate", path).stdout
    assert re.search(r"per_job_new\s+\$[\d,]+\.\d\d  \[N.J.S.A. 34:1B-343\(f\)\(1\)\]", text)
    markdown = run("evaluate", path, "--format", "markdown").stdout
    assert "| `per_job_new` |" in markdown and "## Derivation" in markdown


def test_yaml_and_toml_scenarios(tmp_path: Path) -> None:
    yaml_path = tmp_path / "s.yaml"
    yaml_path.write_text(
        "new_jobs: 300\nproject_median_salary: 70000\ncounty_median_salary: "
        "70000\nlowest_full_time_hourly_wage: 19.50\nstate_minimum_wage: 15.92\n"
        "distressed_municipality: true\n",
        encoding="utf-8",
    )
    toml_path = tmp_path / "s.toml"
    toml_path.write_text(
        "new_jobs = 300\nproject_median_salary = 70000\ncounty_median_salary = "
        "70000\nlowest_full_time_hourly_wage = 19.50\nstate_minimum_wage = 15.92\n"
        "distressed_municipality = true\n",
        encoding="utf-8",
    )
    for path in (yaml_path, toml_path):
        result = json.loads(run("evaluate", str(path), "--format", "json").stdout)
        # (b)(3) $3,000 + (c)(1)(c)(i) $500 for 300 new jobs = $3,500, under the (d)(3) cap.
        assert result["per_job_new"] == "3500.00"


def test_stdin_scenario() -> None:
    scenario = {
        "new_jobs": 1,
        "project_median_salary": "50000",
        "county_median_salary": "50000",
        "lowest_full_time_hourly_wage": "20",
        "state_minimum_wage": "15",
    }
    completed = run("evaluate", "-", "--format", "json", stdin=json.dumps(scenario))
    assert json.loads(completed.stdout)["per_job_new"] == "500.00"  # (b)(5), no bonus


@pytest.mark.parametrize(
    ("args", "stdin", "words"),
    [
        (["evaluate", "-"], '{"new_jobs": "x"}', ["field 'new_jobs'", "expected", "given"]),
        (["evaluate", "-"], '{"new_jobs": 1, "nwe_jobs": 2}', ["did you mean 'new_jobs'"]),
        (["evaluate", "missing.json"], None, ["missing.json", "no such file"]),
        (["evaluate", "-", "--reading", "I8"], "{}", ["--reading expects ID=OPTION"]),
        (["evaluate", "-", "--reading", "I8=nobody"], "{}", ["has no option 'nobody'"]),
        (["evaluate", "-", "--format", "xml"], "{}", ["Invalid value for '--format'"]),
        (["frobnicate"], None, ["No such command"]),
        (["evaluate", "-"], "", ["empty input"]),
    ],
)
def test_bad_input_exits_2_with_a_clear_message(
    args: list[str], stdin: str | None, words: list[str]
) -> None:
    completed = run(*args, stdin=stdin)
    assert completed.returncode == 2
    for word in words:
        assert word in completed.stderr, completed.stderr
    assert completed.stdout == ""


def test_check_passes_on_the_bundled_encoding() -> None:
    completed = run("check")
    assert completed.returncode == 0, completed.stderr
    assert "carries its official text" in completed.stdout
    assert "(c)(3): discretionary" in completed.stdout


def test_check_fails_on_one_changed_word(tmp_path: Path, encoding_source: str) -> None:
    variant = write_variant(
        tmp_path,
        encoding_source,
        "an increase of $500 per year for each",
        "an increase of $500 per year for every",
    )
    completed = run("check", str(variant))
    assert completed.returncode == 2
    assert re.search(
        rf"{re.escape(str(variant))}:\d+:\d+: error \[N.J.S.A. 34:1B-343\(c\)\(1\)"
        r"\(b\)\]: the carried text says “every” where the official text says “each”",
        completed.stderr,
    ), completed.stderr


def test_evaluate_with_a_broken_encoding_exits_2(tmp_path: Path, encoding_source: str) -> None:
    variant = write_variant(tmp_path, encoding_source, "when small_business;", "when small_biz;")
    completed = run(
        "evaluate", str(EXAMPLES / "distressed-manufacturer.json"), "--encoding", str(variant)
    )
    assert completed.returncode == 2
    assert "unknown name 'small_biz'" in completed.stderr


def test_version_and_help() -> None:
    assert run("--version").returncode == 0
    help_text = run("--help").stdout
    for command in ("evaluate", "explain", "batch", "check"):
        assert command in help_text


def test_api_docstring_example_is_true() -> None:
    import doctest

    import lextrace.api

    failures, tried = doctest.testmod(lextrace.api)
    assert tried >= 3 and failures == 0


def test_outputs_get_the_mode_a_plain_write_would_give(tmp_path: Path) -> None:
    # The output is written to a private temporary file first; the renamed result must not
    # stay private: new files follow the umask, a replaced file keeps its mode.
    source = str(EXAMPLES / "batch.jsonl")
    fresh, kept = tmp_path / "fresh.jsonl", tmp_path / "kept.jsonl"
    kept.write_text("old\n", encoding="utf-8")
    kept.chmod(0o640)
    previous = os.umask(0o022)
    try:
        for output in (fresh, kept):
            assert run("batch", source, "--output", str(output)).returncode == 0
    finally:
        os.umask(previous)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o644
    assert stat.S_IMODE(kept.stat().st_mode) == 0o640
    assert kept.read_text(encoding="utf-8") != "old\n"


def test_a_scenario_the_encoding_does_not_define_is_refused_with_exit_2(
    tmp_path: Path, encoding_source: str
) -> None:
    # Two exclusive cases of (d) that overlap on a distressed municipality (area tier b3): an
    # encoding's gap, which `verify` finds, is not an internal error of lextrace.
    variant = write_variant(
        tmp_path,
        encoding_source,
        "case gross_cap = $6,000 when area_tier = b2;",
        "case gross_cap = $6,000 when area_tier = b2 or area_tier = b3;",
    )
    done = lextrace_command(
        "evaluate", str(EXAMPLES / "distressed-manufacturer.json"), "-e", str(variant)
    )
    assert done.returncode == 2, done.stderr
    assert "the encoding does not define this scenario" in done.stderr
    assert "gross_cap" in done.stderr and "lextrace verify" in done.stderr
    assert "internal error" not in done.stderr and done.stdout == ""


def test_the_command_leaves_pandas_out_and_a_program_keeps_it(tmp_path: Path) -> None:
    # pyarrow imports pandas at its first array when pandas is installed; the command, which
    # never uses it, runs as where it is not installed, with the same output.
    import importlib.util
    import subprocess
    import sys

    from lextrace.cli import main

    assert importlib.util.find_spec("pandas") is not None, "the test extras install pandas"
    source = EXAMPLES / "batch.jsonl"
    arguments = ["batch", str(source), "-o", str(tmp_path / "a.parquet")]
    probe = (
        "import atexit, runpy, sys\n"
        "atexit.register(lambda: print('pandas' in sys.modules, file=sys.stderr))\n"
        f"sys.argv = ['lextrace', *{arguments!r}]\n"
        "runpy.run_module('lextrace', run_name='__main__')\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip().splitlines()[-1] == "False"
    assert main(["batch", str(source), "-o", str(tmp_path / "b.parquet")]) == 0
    assert (tmp_path / "a.parquet").read_bytes() == (tmp_path / "b.parquet").read_bytes()
    assert importlib.import_module("pandas").DataFrame  # a program calling main() keeps it


def test_the_command_ends_without_teardown_but_runs_exit_handlers_and_waits_for_threads(
    tmp_path: Path,
) -> None:
    # end_process skips the interpreter's teardown: the exit code, the exit handlers and a
    # thread still running must come through as with a plain exit.
    import subprocess
    import sys

    marker = tmp_path / "thread-finished"
    probe = (
        "import atexit, runpy, sys, threading, time\n"
        "atexit.register(lambda: print('exit handler ran', file=sys.stderr))\n"
        "if sys.argv[1] == 'thread':\n"
        "    def late():\n"
        "        time.sleep(0.5)\n"
        f"        open({str(marker)!r}, 'w').close()\n"
        "    threading.Thread(target=late).start()\n"
        "sys.argv = ['lextrace', *sys.argv[2:]]\n"
        "runpy.run_module('lextrace', run_name='__main__')\n"
    )
    example = str(EXAMPLES / "distressed-manufacturer.json")
    for mode, arguments, code in (
        ("plain", ["evaluate", example, "--format", "json"], 0),
        ("plain", ["evaluate", str(tmp_path / "missing.json")], 2),
        ("thread", ["evaluate", example, "--format", "json"], 0),
    ):
        done = subprocess.run(
            [sys.executable, "-c", probe, mode, *arguments], capture_output=True, text=True
        )
        assert done.returncode == code, done.stderr
        assert "exit handler ran" in done.stderr
        if code == 0:
            assert json.loads(done.stdout)["annual_credit"]  # the whole output, flushed
    assert marker.exists()


def test_a_scenario_with_fields_the_encoding_lacks_names_the_encoding_it_was_read_against(
    tmp_path: Path,
) -> None:
    """A scenario written for another encoding, run without --encoding, is refused field by
    field; a last line says which encoding it was read against and how to name another."""
    other = tmp_path / "other.json"
    other.write_text('{"qualifying_children": 2, "modified_agi": "210500"}', encoding="utf-8")
    done = lextrace_command("evaluate", str(other))
    assert done.returncode == 2
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("lextrace: read against the encoding of N.J.S.A. 34:1B-343 (")
    assert "nj-34-1b-343.lex; give --encoding" in last
    # A scenario of this encoding with a bad value is not about the encoding: no such line.
    scenario = json.loads((EXAMPLES / "distressed-manufacturer.json").read_text(encoding="utf-8"))
    scenario["new_jobs"] = -1
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(scenario), encoding="utf-8")
    done = lextrace_command("evaluate", str(bad))
    assert done.returncode == 2 and "new_jobs" in done.stderr
    assert "read against" not in done.stderr
