"""The exit codes of every `lextrace` command, stated once.

The README, `docs/cli.md` and `lextrace --help` all show `TABLE`; a test checks that they agree
and that each command returns these codes.
"""

from __future__ import annotations

import signal

OK = 0
FAILED = 1
BAD_INPUT = 2
INTERNAL = 3
SIGNALLED = 128  # plus the signal's number, as the shell reports a process a signal stopped

TABLE: tuple[tuple[str, str], ...] = (
    (str(OK), "success; also when standard output is a pipe its reader closed early"),
    (
        str(FAILED),
        "the command ran and a check failed: `verify` found a check neither PROVED nor "
        "BOUNDED, or no check at all (nothing proved), `diff` could not decide a result, or a "
        "case of `test` failed",
    ),
    (
        str(BAD_INPUT),
        "bad input: usage, an encoding (file:line:column), a scenario (field, expected, given), "
        "a scenario the encoding does not define (a gap, an overlap, a division by zero: "
        "`verify` finds them), a reading, a file that cannot be read or written (a full disk "
        "included), or a batch with bad lines (every line still has its record)",
    ),
    (str(INTERNAL), "an internal error, a bug in lextrace (LEXTRACE_DEBUG=1 shows its traceback)"),
    (
        f"{SIGNALLED}+N",
        f"stopped by signal N ({SIGNALLED + signal.SIGINT} Ctrl-C, "
        f"{SIGNALLED + signal.SIGHUP} SIGHUP, {SIGNALLED + signal.SIGTERM} SIGTERM); "
        "no output file was written half-way",
    ),
)


def markdown() -> str:
    """Returns the exit codes as a Markdown table."""
    rows = ["| exit code | meaning |", "|---|---|"]
    rows += [f"| {code} | {meaning} |" for code, meaning in TABLE]
    return "\n".join(rows)


def help_text(width: int = 96) -> str:
    """Returns the exit codes as the plain lines `lextrace --help` ends with, wrapped."""
    import textwrap

    code_width = max(len(code) for code, _ in TABLE)
    lines = []
    for code, meaning in TABLE:
        lines += textwrap.wrap(
            meaning.replace("`", ""),
            width,
            initial_indent=f"{code:>{code_width}}  ",
            subsequent_indent=" " * (code_width + 2),
        )
    return "\n".join(lines)
