"""Outputs an auditor can rely on: nothing half-written, nothing left behind, whatever happens
to the process (a signal, `kill -9`, a full disk, a closed pipe), and bounded input."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import EXAMPLES

from lextrace import outputs
from lextrace.cli import main

EXAMPLE = EXAMPLES / "distressed-manufacturer.json"
LEXTRACE = [sys.executable, "-m", "lextrace"]


def population(path: Path, copies: int) -> Path:
    """Writes `copies` times the bundled batch example as one JSON Lines file."""
    lines = (EXAMPLES / "batch.jsonl").read_bytes()
    path.write_bytes(lines * copies)
    return path


def leftovers(folder: Path) -> list[str]:
    """Returns the temporary files in `folder` (hidden names ending in .tmp)."""
    return sorted(name for name in os.listdir(folder) if name.endswith(".tmp"))


# ---- signals ----------------------------------------------------------------------------------
@pytest.fixture(autouse=True)
def interruptible() -> Iterator[None]:
    """Ctrl-C raises KeyboardInterrupt here and in the commands started here, even when this
    process was started with SIGINT ignored (as a shell's background job is): Python then
    leaves SIGINT ignored, and so would every command it starts."""
    previous = signal.getsignal(signal.SIGINT)
    if previous == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    if previous == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_during_a_batch_removes_its_temporary_output(
    tmp_path: Path, signum: signal.Signals
) -> None:
    source = population(tmp_path / "in.jsonl", 3000)
    target = tmp_path / "out.jsonl"
    target.write_text("the earlier results\n")
    process = subprocess.Popen(
        [*LEXTRACE, "batch", str(source), "-o", str(target), "--engine", "scalar"],
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not leftovers(tmp_path) and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.02)
    assert leftovers(tmp_path), "the batch never started writing"
    process.send_signal(signum)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 128 + signum, stderr
    assert f"stopped by {signum.name}" in stderr
    assert "Traceback" not in stderr
    assert leftovers(tmp_path) == []
    assert target.read_text() == "the earlier results\n"


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_while_the_temporary_file_is_made_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, signum: signal.Signals
) -> None:
    # The signal lands inside `tempfile`, after the file exists and before lextrace knows
    # its name: the window a signal under load once hit.
    made = tempfile.NamedTemporaryFile

    def made_then_signalled(*args: object, **kwargs: object) -> object:
        handle = made(*args, **kwargs)  # type: ignore[call-overload]
        os.kill(os.getpid(), signum)
        return handle

    monkeypatch.setattr(tempfile, "NamedTemporaryFile", made_then_signalled)
    restore = outputs.stop_on_signals()
    try:
        with (
            pytest.raises((outputs.Stopped, KeyboardInterrupt)) as stopped,
            outputs.atomic_file(str(tmp_path / "out.json"), "w") as handle,
        ):
            handle.write("never reached\n")
            raise AssertionError("the signal was not acted on")
    finally:
        restore()
    if signum != signal.SIGINT:
        assert stopped.value.signal == signum  # type: ignore[union-attr]
    assert leftovers(tmp_path) == [] and not (tmp_path / "out.json").exists()


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_a_signal_inside_a_held_block_stops_only_once_the_block_is_done(
    signum: signal.Signals,
) -> None:
    # What starting a pool of workers relies on (verify/mutants.py): no stop half-way.
    steps: list[str] = []
    restore = outputs.stop_on_signals()
    try:
        with pytest.raises((outputs.Stopped, KeyboardInterrupt)) as stopped:
            with outputs.stops_held():
                os.kill(os.getpid(), signum)
                steps.extend(["after the signal", "the end of the block"])
            steps.append("after the block")
    finally:
        restore()
    assert steps == ["after the signal", "the end of the block"]
    if signum != signal.SIGINT:
        assert stopped.value.signal == signum  # type: ignore[union-attr]
    with outputs.stops_held():  # nothing held: nothing acted on
        steps.append("again")
    assert steps[-1] == "again"


def test_the_next_run_removes_what_a_killed_run_left(tmp_path: Path) -> None:
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        text=True,
        capture_output=True,
        check=True,
    )
    dead = int(gone.stdout)
    debris = tmp_path / f".out.jsonl.lextrace-{dead}-abcd1234.tmp"
    debris.write_text("half of a result")
    running = tmp_path / f".other.csv.lextrace-{os.getpid()}-efgh5678.tmp"
    running.write_text("a run still writing")
    foreign = tmp_path / ".out.jsonl.someone-else.tmp"
    foreign.write_text("not ours")
    assert main(["batch", str(EXAMPLES / "batch.jsonl"), "-o", str(tmp_path / "out.jsonl")]) == 0
    assert not debris.exists()
    assert running.exists() and foreign.exists()


def test_a_killed_batch_leaves_debris_that_the_next_run_recognises(tmp_path: Path) -> None:
    source = population(tmp_path / "in.jsonl", 3000)
    target = tmp_path / "out.jsonl"
    process = subprocess.Popen(
        [*LEXTRACE, "batch", str(source), "-o", str(target), "--engine", "scalar"],
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while not leftovers(tmp_path) and time.monotonic() < deadline:
        time.sleep(0.02)
    process.kill()
    process.wait(timeout=30)
    assert len(leftovers(tmp_path)) == 1
    assert main(["batch", str(EXAMPLES / "batch.jsonl"), "-o", str(target)]) == 0
    assert leftovers(tmp_path) == []


# ---- full disks and unwritable files ------------------------------------------------------------
def _small_files() -> None:
    # The kernel refuses a write past this size with EFBIG, as a full disk refuses with ENOSPC.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (4_000, 4_000))


@pytest.mark.parametrize("suffix", ["jsonl", "csv", "parquet"])
def test_a_file_that_cannot_grow_is_named_and_exits_2(tmp_path: Path, suffix: str) -> None:
    # Parquet compresses the repeated rows well: it takes more of them to pass the limit.
    source = population(tmp_path / "in.jsonl", 600 if suffix == "parquet" else 100)
    target = tmp_path / f"out.{suffix}"
    target.write_bytes(b"earlier")
    completed = subprocess.run(
        [*LEXTRACE, "batch", str(source), "-o", str(target)],
        capture_output=True,
        text=True,
        preexec_fn=_small_files,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 2, completed.stderr
    assert f"{target}: cannot write: File too large" in completed.stderr
    assert "internal error" not in completed.stderr
    assert target.read_bytes() == b"earlier"
    assert leftovers(tmp_path) == []


def test_verify_reports_that_cannot_be_written_are_named(tmp_path: Path) -> None:
    tiny = Path(__file__).resolve().parent / "bad_inputs" / "encoding" / "tiny.lex"
    missing = tmp_path / "no-such-folder" / "proofs.xml"
    assert main(["verify", "-e", str(tiny), "--junit", str(missing)]) == 2


def test_a_counterexample_folder_that_cannot_be_made_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from conftest import ROOT

    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    breaking = ROOT / "statute" / "amendments" / "uncapped-port-bonus" / "nj-34-1b-343.lex"
    import lextrace.verify.report

    proved: list[object] = []
    monkeypatch.setattr(lextrace.verify.report, "run", lambda *a, **k: proved.append(a))
    code = main(["verify", "-e", str(breaking), "--counterexamples", str(blocked / "cx")])
    assert code == 2
    assert f"{blocked / 'cx'}: cannot write: Not a directory" in capsys.readouterr().err
    assert proved == []  # refused before the proofs (tens of seconds on this draft)


def test_a_full_standard_output_is_named_and_exits_2() -> None:
    with open("/dev/full", "w") as full:
        completed = subprocess.run(
            [*LEXTRACE, "explain", str(EXAMPLE)],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
            check=False,
        )
    assert completed.returncode == 2, completed.stderr
    assert "standard output: cannot write: No space left on device" in completed.stderr
    assert "internal error" not in completed.stderr


def test_a_full_disk_under_an_atomic_file_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    class FullDisk:
        def __init__(self, real: object) -> None:
            self.real = real
            self.name = real.name  # type: ignore[attr-defined]

        def write(self, data: object) -> int:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        def __enter__(self) -> FullDisk:
            return self

        def __exit__(self, *exc: object) -> None:
            self.real.close()  # type: ignore[attr-defined]

    real = outputs.tempfile.NamedTemporaryFile
    monkeypatch.setattr(
        outputs.tempfile, "NamedTemporaryFile", lambda *a, **k: FullDisk(real(*a, **k))
    )
    target = tmp_path / "report.txt"
    with pytest.raises(outputs.OutputError, match=r"report.txt: cannot write: No space left"):
        outputs.write_text(target, "text")
    assert os.listdir(tmp_path) == []


# ---- a closed pipe ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "command",
    [
        ["explain", str(EXAMPLE)],
        ["evaluate", str(EXAMPLE), "--format", "json"],
        ["batch", str(EXAMPLES / "batch.jsonl")],
        ["fields"],
        ["--help"],
    ],
)
def test_a_closed_pipe_is_not_a_failure(command: list[str]) -> None:
    reader, writer = os.pipe()
    os.close(reader)  # the reader is gone before the first byte: every write fails with EPIPE
    completed = subprocess.run(
        [*LEXTRACE, *command],
        stdout=writer,
        stderr=subprocess.PIPE,
        text=True,
        timeout=60,
        check=False,
    )
    os.close(writer)
    assert completed.returncode == 0, completed.stderr
    assert completed.stderr == ""


@pytest.mark.parametrize(
    ("command", "code"),
    [
        (["check", "-e", "BROKEN"], 2),  # its errors go to standard error
        (["evaluate", "NO_SUCH_FILE.json"], 2),
        (["explain", str(EXAMPLE)], 0),  # standard output closed too: not a failure
    ],
)
def test_a_closed_error_stream_keeps_the_exit_code_owed(
    tmp_path: Path, command: list[str], code: int
) -> None:
    # `lextrace check 2>&1 | head`: the reader of both streams gone, a failure is still one.
    broken = tmp_path / "broken.lex"
    broken.write_text('statute "X" official "x.txt"\nsection 1. {\n rule x: money = ;\n}\n')
    command = [str(broken) if part == "BROKEN" else part for part in command]
    reader, writer = os.pipe()
    os.close(reader)
    completed = subprocess.run(
        [*LEXTRACE, *command], stdout=writer, stderr=writer, timeout=60, check=False
    )
    os.close(writer)
    assert completed.returncode == code


# ---- bounded input ------------------------------------------------------------------------------
def test_standard_input_is_bounded_like_a_file() -> None:
    from lextrace.dsl.scenario import MAX_SCENARIO_BYTES

    completed = subprocess.run(
        [*LEXTRACE, "evaluate", "-"],
        input=b" " * (MAX_SCENARIO_BYTES * 20),
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert completed.returncode == 2
    assert f"at most {MAX_SCENARIO_BYTES:,} bytes" in completed.stderr.decode()


def test_a_closed_standard_input_is_bad_input() -> None:
    completed = subprocess.run(
        [*LEXTRACE, "evaluate", "-"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert completed.returncode == 2, completed.stderr
    closed = subprocess.run(
        ["sh", "-c", f"exec {sys.executable} -m lextrace evaluate - <&-"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert closed.returncode == 2, closed.stderr
    assert "expected a readable standard input" in closed.stderr


def test_a_pipe_given_as_a_file_is_bounded_too(tmp_path: Path) -> None:
    fifo = tmp_path / "scenario.json"
    os.mkfifo(fifo)
    process = subprocess.Popen(
        [*LEXTRACE, "evaluate", str(fifo)], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL
    )
    descriptor = os.open(fifo, os.O_WRONLY)
    with contextlib.suppress(BrokenPipeError):  # it stops reading at the limit, as it should
        os.write(descriptor, b"{" + b" " * 3_000_000)
    os.close(descriptor)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 2
    assert b"at most 1,000,000 bytes" in stderr


def test_a_scenario_of_exactly_the_limit_is_read(tmp_path: Path) -> None:
    from lextrace.dsl.scenario import MAX_SCENARIO_BYTES

    text = json.dumps(json.loads(EXAMPLE.read_text()))
    path = tmp_path / "padded.json"
    path.write_text(text + " " * (MAX_SCENARIO_BYTES - len(text)))
    assert path.stat().st_size == MAX_SCENARIO_BYTES
    assert main(["evaluate", str(path), "--format", "json"]) == 0
