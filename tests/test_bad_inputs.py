"""The corpus of bad inputs: each is refused with its exit code and a message that names the place.

The cases live in tests/bad_inputs/cases.toml (what to run, the exit code, the words the message
must hold); the inputs beside it. A case runs through `lextrace.cli.main`, the function the
`lextrace` console script exits with, in-process (fast); `process = true` cases, and a sample of
the others, also run as a real `python -m lextrace` to show that the two agree.
"""

from __future__ import annotations

import difflib
import io
import json
import subprocess
import sys
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conftest import EXAMPLES, lextrace_command, write_variant

from lextrace.cli import main
from lextrace.dsl.scenario import MAX_SCENARIO_BYTES

HERE = Path(__file__).resolve().parent / "bad_inputs"
MANIFEST = tomllib.loads((HERE / "cases.toml").read_text(encoding="utf-8"))
CASES: list[dict[str, Any]] = MANIFEST["case"]
BY_ID = {case["id"]: case for case in CASES}
#: A valid scenario, for commands whose failure must come from the encoding.
EXAMPLE = EXAMPLES / "distressed-manufacturer.json"
#: The valid encoding the small bad ones are made from, and its official text.
TINY = HERE / "encoding" / "tiny.lex"
SUPPORT = {"cases.toml", "encoding/tiny.lex", "encoding/tiny.txt"}
ENCODING_COMMANDS = ("check", "evaluate-encoding")
DEEP = 100_000  # far deeper than any parser's recursion limit


@dataclass
class Run:
    """What a command did: its exit code and what it printed."""

    code: int
    stdout: str
    stderr: str


@dataclass
class Prepared:
    """The command line of a case, its standard input, and the values of the placeholders."""

    args: list[str]
    stdin: bytes | None
    values: dict[str, str]
    output: Path | None
    input_lines: int


# ---- running -----------------------------------------------------------------------------------


def run_in_process(
    args: list[str],
    stdin: bytes | None,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> Run:
    """Runs `lextrace ARGS` through cli.main, the function the console script exits with."""
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8"))
    capsys.readouterr()
    code = main(list(args))
    out, err = capsys.readouterr()
    return Run(code, out, err)


def run_process(args: list[str], stdin: bytes | None) -> Run:
    """Runs `python -m lextrace ARGS` in a fresh process, as a user would."""
    completed = subprocess.run(
        [sys.executable, "-m", "lextrace", *args],
        input=stdin if stdin is not None else b"",
        capture_output=True,
        timeout=120,
        check=False,
    )
    return Run(
        completed.returncode,
        completed.stdout.decode("utf-8", "replace"),
        completed.stderr.decode("utf-8", "replace"),
    )


# ---- inputs made at test time ------------------------------------------------------------------


def _oversize(folder: Path, command: str) -> Path:
    # A valid scenario padded with whitespace: only its size is wrong.
    text = EXAMPLE.read_text(encoding="utf-8")
    path = folder / "oversize.json"
    path.write_text(text + " " * (MAX_SCENARIO_BYTES + 1 - len(text.encode())), encoding="utf-8")
    return path


def _deep_json(folder: Path, command: str) -> Path:
    path = folder / "deep.json"
    path.write_text('{"new_jobs": ' + "[" * DEEP + "]" * DEEP + "}", encoding="utf-8")
    return path


def _deep_yaml(folder: Path, command: str) -> Path:
    path = folder / "deep.yaml"
    path.write_text("new_jobs: " + "[" * DEEP + "]" * DEEP + "\n", encoding="utf-8")
    return path


def _deep_batch(folder: Path, command: str) -> Path:
    good = (EXAMPLES / "batch.jsonl").read_text(encoding="utf-8").splitlines()[0]
    path = folder / "deep.jsonl"
    path.write_text(f"{good}\n" + "[" * DEEP + "]" * DEEP + "\n", encoding="utf-8")
    return path


def _directory(folder: Path, command: str) -> Path:
    path = folder / "scenario.json"
    path.mkdir()
    return path


def _missing(folder: Path, command: str) -> Path:
    return folder / ("no-such-file.jsonl" if command == "batch" else "no-such-file.json")


GENERATORS: dict[str, Callable[[Path, str], Path]] = {
    "oversize": _oversize,
    "deep-json": _deep_json,
    "deep-yaml": _deep_yaml,
    "deep-batch": _deep_batch,
    "directory": _directory,
    "missing": _missing,
}


def prepare(case: dict[str, Any], tmp_path: Path, encoding_source: str) -> Prepared:
    """Returns the command line of a case, with its input in place."""
    values: dict[str, str] = {}
    if "file" in case:
        path = HERE / case["file"]
    elif "generate" in case:
        path = GENERATORS[case["generate"]](tmp_path, case["command"])
        if case["generate"] == "oversize":
            values["{limit}"] = f"{MAX_SCENARIO_BYTES:,}"
            values["{size}"] = f"{path.stat().st_size:,}"
    else:
        old, new = case["derive"]["old"], case["derive"]["new"]
        path = write_variant(tmp_path, encoding_source, old, new)
        text = path.read_text(encoding="utf-8")
        values["{line}"] = str(text[: text.index(new)].count("\n") + 1)
    stdin = None
    target = str(path)
    values["{path}"] = target
    if case.get("stdin"):
        stdin, target = path.read_bytes(), "-"
        values["{path}"] = "<stdin>"
    if case["command"] == "evaluate-encoding":
        args = ["evaluate", str(EXAMPLE), "--encoding", target]
    else:
        args = [case["command"], target]
    args += case.get("args", [])
    output = None
    if "output" in case:
        folder = tmp_path / ("no-such-folder" if case["output"] == "in-missing-folder" else "out")
        if case["output"] != "in-missing-folder":
            folder.mkdir()
        output = folder / "results.jsonl"
        args += ["--output", str(output)]
    lines = 0
    if case["command"] == "batch" and path.is_file():
        # Every line is one output record, a blank one too; a final newline ends the last line.
        data = path.read_bytes()
        lines = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    return Prepared(args, stdin, values, output, lines)


def fill(text: str, values: dict[str, str]) -> str:
    """Returns `text` with its placeholders ({path}, {line} ...) replaced."""
    for key, value in values.items():
        text = text.replace(key, value)
    return text


def error_lines(jsonl: str) -> list[int]:
    """Returns the line numbers of the error objects in batch output; checks every error object
    names, for each problem, the field, what was expected and what was given (and a hint only
    where the message has one)."""
    found = []
    for line in jsonl.splitlines():
        item = json.loads(line)
        if "error" in item:
            assert set(item) == {"line", "error"}, item
            for problem in item["error"]:
                assert {"field", "expected", "given"} <= set(problem), problem
                assert set(problem) <= {"field", "expected", "given", "hint"}, problem
                assert all(isinstance(v, str) and v for v in problem.values()), problem
            found.append(item["line"])
    return found


# ---- the corpus --------------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_bad_input_is_refused_clearly(
    case: dict[str, Any],
    tmp_path: Path,
    encoding_source: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    prepared = prepare(case, tmp_path, encoding_source)
    if case.get("process"):
        run = run_process(prepared.args, prepared.stdin)
    else:
        run = run_in_process(prepared.args, prepared.stdin, capsys, monkeypatch)
    shown = f"exit {run.code}\n--- stderr\n{run.stderr}\n--- stdout\n{run.stdout[:2000]}"

    assert run.code == case["exit"], shown
    assert "Traceback" not in run.stderr + run.stdout, shown
    assert "internal error" not in run.stderr, shown
    assert run.stderr.strip(), shown
    for word in case["stderr"]:
        assert fill(word, prepared.values) in run.stderr, f"missing {word!r}\n{shown}"
    for word in case.get("stderr_absent", []):
        assert fill(word, prepared.values) not in run.stderr, f"unexpected {word!r}\n{shown}"

    if case["command"] != "batch":
        assert run.stdout == "", shown  # no partial result
        return
    expected_errors = case.get("error_lines", [])
    output = prepared.output
    if output is None:
        assert error_lines(run.stdout) == expected_errors, shown
        if expected_errors:  # the good lines are evaluated and kept, in order
            assert len(run.stdout.splitlines()) == prepared.input_lines, shown
        return
    assert run.stdout == "", shown  # results go to --output, never to both
    if case["output"] == "written":
        written = output.read_text(encoding="utf-8")
        assert len(written.splitlines()) == prepared.input_lines, written
        assert error_lines(written) == expected_errors, written
    else:
        assert not output.exists(), "a failed batch run must not leave an output file"
    if output.parent.exists():  # no temporary file left behind
        assert sorted(p.name for p in output.parent.iterdir()) == (
            [output.name] if output.exists() else []
        )


# ---- the manifest and the files ----------------------------------------------------------------


def test_the_manifest_holds_enough_cases_and_each_is_well_formed() -> None:
    assert len(CASES) >= 60
    assert len(BY_ID) == len(CASES), "case ids must be unique"
    encoding = [c for c in CASES if c["command"] in ENCODING_COMMANDS]
    scenario = [c for c in CASES if c["command"] not in ENCODING_COMMANDS]
    assert len(scenario) >= 45 and len(encoding) >= 20
    allowed = {
        "id",
        "command",
        "file",
        "generate",
        "derive",
        "stdin",
        "args",
        "exit",
        "stderr",
        "stderr_absent",
        "output",
        "error_lines",
        "process",
    }
    for case in CASES:
        assert set(case) <= allowed, (case["id"], set(case) - allowed)
        assert sum(key in case for key in ("file", "generate", "derive")) == 1, case["id"]
        assert case["command"] in ("evaluate", "explain", "batch", *ENCODING_COMMANDS)
        assert case["exit"] in (1, 2), case["id"]
        assert case["stderr"], f"{case['id']} says nothing about the message"
        if "generate" in case:
            assert case["generate"] in GENERATORS, case["id"]
        if "file" in case:
            assert (HERE / case["file"]).is_file(), case["id"]


def test_every_file_of_the_corpus_is_used() -> None:
    present = {p.relative_to(HERE).as_posix() for p in HERE.rglob("*") if p.is_file()}
    used = {case["file"] for case in CASES if "file" in case}
    assert present - used - SUPPORT == set(), "files no case uses"
    assert used | SUPPORT <= present


def test_the_small_encodings_break_a_valid_one_in_a_few_lines_only(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The base of the small bad encodings is itself valid and evaluates, so each bad one fails
    for the defect it was made with, and for nothing else."""
    run = run_in_process(["check", str(TINY)], None, capsys, monkeypatch)
    assert run.code == 0, run.stderr
    assert "well formed and carries its official text" in run.stdout
    scenario = json.dumps({"new_jobs": 3, "small_business": True}).encode()
    run = run_in_process(
        ["evaluate", "-", "--encoding", str(TINY), "--format", "json"],
        scenario,
        capsys,
        monkeypatch,
    )
    assert run.code == 0, run.stderr
    assert set(json.loads(run.stdout)) >= {"credit", "readings", "trace"}
    base = TINY.read_text(encoding="utf-8").splitlines()[1:]  # below the comment line
    for path in sorted((HERE / "encoding").glob("*.lex")):
        if path == TINY:
            continue
        try:
            lines = path.read_text(encoding="utf-8").splitlines()[1:]
        except UnicodeDecodeError:
            continue  # not-utf8.lex: its defect is its bytes
        changed = [
            line
            for line in difflib.unified_diff(base, lines, lineterm="", n=0)
            if line[:1] in "+-" and not line.startswith(("+++", "---"))
        ]
        if path.name != "empty.lex":
            assert 0 < len(changed) <= 8, (path.name, changed)


SAMPLE = [
    "unknown-field-did-you-mean",
    "stdin-not-utf8",
    "batch-mixed-lines",
    "encoding-three-syntax-errors",
]


@pytest.mark.parametrize("case_id", SAMPLE)
def test_in_process_runs_agree_with_the_real_command(
    case_id: str,
    tmp_path: Path,
    encoding_source: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    prepared = prepare(BY_ID[case_id], tmp_path, encoding_source)
    inside = run_in_process(prepared.args, prepared.stdin, capsys, monkeypatch)
    outside = run_process(prepared.args, prepared.stdin)
    assert (outside.code, outside.stdout, outside.stderr) == (
        inside.code,
        inside.stdout,
        inside.stderr,
    )


def test_a_problems_hint_is_carried_in_the_json_error(tmp_path: Path) -> None:
    lines = tmp_path / "in.jsonl"
    lines.write_text('{"nwe_jobs": 3}\n', encoding="utf-8")
    done = lextrace_command("batch", str(lines))
    (record,) = [json.loads(line) for line in done.stdout.splitlines()]
    problems = {p["field"]: p for p in record["error"]}
    assert problems["nwe_jobs"]["hint"] == "did you mean 'new_jobs'?"
    assert problems["county_median_salary"]["hint"] == "the field is missing"
