"""One grammar for the command line: the encoding given the same way to every command, the
environment variable honoured by every command, and the exit codes stated once and kept."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import EXAMPLES, ROOT, lextrace_command

from lextrace import exits
from lextrace.cli import main

EXAMPLE = str(EXAMPLES / "distressed-manufacturer.json")
BATCH = str(EXAMPLES / "batch.jsonl")
AMENDMENTS = ROOT / "statute" / "amendments"
KEEPS_INVARIANTS = str(AMENDMENTS / "small-business-750" / "nj-34-1b-343.lex")
BREAKS_INVARIANTS = str(AMENDMENTS / "uncapped-port-bonus" / "nj-34-1b-343.lex")
CASES = str(ROOT / "statute" / "nj-34-1b-343.cases.yaml")
FRINGE_TEXT = ROOT / "tests" / "other_statutes" / "fringe.txt"
OTHER_STATUTES = ROOT / "tests" / "other_statutes"

# Every command that reads one encoding, with the rest of a call that would succeed.
ONE_ENCODING: dict[str, list[str]] = {
    "evaluate": ["evaluate", EXAMPLE],
    "explain": ["explain", EXAMPLE],
    "batch": ["batch", BATCH],
    "check": ["check"],
    "fields": ["fields"],
    "verify": ["verify"],
    "mutants": ["mutants", "--limit", "1"],
    "site": ["site", "-o", "site-never-written"],
}


run = lextrace_command


@pytest.fixture(scope="module")
def broken(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An encoding with a syntax error on its first line."""
    path = tmp_path_factory.mktemp("broken") / "broken.lex"
    path.write_text("statute 34 oops\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("how", ["--encoding", "-e", "LEXTRACE_ENCODING"])
@pytest.mark.parametrize("command", sorted(ONE_ENCODING))
def test_every_command_reads_the_encoding_it_is_given(command: str, how: str, broken: Path) -> None:
    args = ONE_ENCODING[command]
    if how == "LEXTRACE_ENCODING":
        completed = run(*args, env={"LEXTRACE_ENCODING": str(broken)})
    else:
        completed = run(*args, how, str(broken))
    assert completed.returncode == exits.BAD_INPUT, completed.stderr
    assert f"{broken}:1:" in completed.stderr


def test_the_option_wins_over_the_environment(broken: Path) -> None:
    completed = run("check", "--encoding", KEEPS_INVARIANTS, env={"LEXTRACE_ENCODING": str(broken)})
    assert completed.returncode == 0, completed.stderr
    assert KEEPS_INVARIANTS in completed.stdout


@pytest.mark.parametrize("command", ["check", "verify", "mutants"])
def test_the_older_positional_encoding_still_works_with_a_notice(
    command: str, broken: Path
) -> None:
    completed = run(command, str(broken))
    assert completed.returncode == exits.BAD_INPUT
    assert f"write --encoding {broken}" in completed.stderr
    assert f"{broken}:1:" in completed.stderr
    both = run(command, str(broken), "--encoding", KEEPS_INVARIANTS)
    assert both.returncode == exits.BAD_INPUT
    assert "two encodings given" in both.stderr


def test_commands_of_two_encodings_take_no_encoding_option() -> None:
    for command in ("diff", "impact"):
        assert "--encoding" not in run(command, "--help").stdout


# ---- exit codes -------------------------------------------------------------------------------
EXPECTED_CODES = [
    (["evaluate", EXAMPLE], exits.OK),
    (["evaluate", "no-such-scenario.json"], exits.BAD_INPUT),
    (["evaluate", EXAMPLE, "--reading", "I8"], exits.BAD_INPUT),
    (["explain", EXAMPLE], exits.OK),
    (["explain", EXAMPLE, "--width", "5"], exits.BAD_INPUT),
    (["batch", BATCH], exits.OK),
    (["batch", str(ROOT / "tests" / "bad_inputs" / "batch" / "mixed.jsonl")], exits.BAD_INPUT),
    (["check"], exits.OK),
    (["check", "--official", "no-such-text.txt"], exits.BAD_INPUT),
    (["fields", "--format", "json"], exits.OK),
    (["fields", "--format", "yaml"], exits.BAD_INPUT),
    (["schema", "--inline-lists"], exits.OK),
    (["schema", "--encoding", "no/such.lex"], exits.BAD_INPUT),
    (["schema", "--format", "json"], exits.BAD_INPUT),
    # The proofs of a small statute: the bundled one's are run by tests/test_verify.py.
    (
        ["verify", "--timeout", "10", "--budget", "120", "-e", str(OTHER_STATUTES / "ratio.lex")],
        exits.OK,
    ),
    (["verify", "--encoding", BREAKS_INVARIANTS], exits.FAILED),
    (["diff", str(ROOT / "statute" / "nj-34-1b-343.lex"), KEEPS_INVARIANTS], exits.OK),
    (["diff", "no-such.lex", KEEPS_INVARIANTS], exits.BAD_INPUT),
    (
        ["review", str(OTHER_STATUTES / "ratio.lex"), "-e", str(OTHER_STATUTES / "ratio.lex")],
        exits.OK,
    ),
    (["review", "HEAD", "-e", "no/such.lex"], exits.BAD_INPUT),
    (["review", str(ROOT / "statute" / "nj-34-1b-343.lex"), "--format", "yaml"], exits.BAD_INPUT),
    (["impact", str(ROOT / "statute" / "nj-34-1b-343.lex"), KEEPS_INVARIANTS, BATCH], exits.OK),
    (["impact", KEEPS_INVARIANTS, KEEPS_INVARIANTS, "no-such.jsonl"], exits.BAD_INPUT),
    (["init", str(FRINGE_TEXT), "--name", "26 U.S.C.", "-o", "fringe.lex"], exits.OK),
    (["init", "no-such-text.txt", "--name", "26 U.S.C.", "-o", "fringe.lex"], exits.BAD_INPUT),
    # The server waits on standard input for its client: only its misuse is run here (it is
    # driven over stdio by tests/test_lsp.py).
    (["lsp", "--no-such-option"], exits.BAD_INPUT),
    # One mutant of a small statute: the bundled one's are run by tests/test_mutants.py.
    (["mutants", "--limit", "1", "-e", str(OTHER_STATUTES / "ratio.lex")], exits.OK),
    (["mutants", "--jobs", "0"], exits.BAD_INPUT),
    (["test", CASES], exits.OK),
    (["test", CASES, "--encoding", KEEPS_INVARIANTS], exits.FAILED),  # its small-business bonus
    (["test", "no-such.cases.yaml"], exits.BAD_INPUT),
    # `serve` runs until stopped: only the refusals made before it listens.
    (["serve", "--port", "notanumber"], exits.BAD_INPUT),
    (["serve", "--encoding", "no/such.lex"], exits.BAD_INPUT),
    (["serve", "--timeout", "0"], exits.BAD_INPUT),
    (["site", "-e", str(OTHER_STATUTES / "ratio.lex"), "-o", "{tmp}/site"], exits.OK),
    (["site", "-e", "no-such.lex", "-o", "{tmp}/site"], exits.BAD_INPUT),
    (["no-such-command"], exits.BAD_INPUT),
]


@pytest.mark.parametrize(
    ("args", "code"),
    EXPECTED_CODES,
    ids=lambda v: " ".join(Path(a).name for a in v)[:60] if isinstance(v, list) else str(v),
)
def test_each_command_exits_with_the_documented_code(
    args: list[str], code: int, tmp_path: Path
) -> None:
    # `init` writes its encoding in a folder of its own.
    completed = run(
        *(arg.replace("{tmp}", str(tmp_path)) for arg in args),
        cwd=tmp_path if args[0] == "init" else None,
    )
    assert completed.returncode == code, completed.stderr[-2000:]


def test_every_command_has_its_exit_codes_checked() -> None:
    import click

    from lextrace.cli import cli

    with click.Context(cli) as context:
        commands = set(cli.list_commands(context))
    assert commands == {args[0] for args, _ in EXPECTED_CODES} - {"no-such-command"}


def test_an_internal_error_exits_3_with_no_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import lextrace.api

    def broken_loader(path: object = None) -> object:
        raise RuntimeError("a bug")

    monkeypatch.setattr(lextrace.api, "load_statute", broken_loader)
    assert main(["evaluate", EXAMPLE]) == exits.INTERNAL
    err = capsys.readouterr().err
    assert "internal error: RuntimeError: a bug" in err
    assert "Traceback" not in err


def test_the_exit_codes_are_documented_once_and_alike() -> None:
    table = exits.markdown()
    for document in (ROOT / "README.md", ROOT / "docs" / "cli.md"):
        assert table in document.read_text(encoding="utf-8"), document
    help_text = run("--help").stdout
    for line in exits.help_text().splitlines():
        assert f"\n  {line}\n" in help_text
