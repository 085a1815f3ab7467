"""The pre-commit hooks (`.pre-commit-hooks.yaml`): `python -m lextrace.hooks check|verify FILE...`.

pre-commit passes the changed `.lex` and `.txt` files. Each encoding among them is checked
(`lextrace check --strict -q`) or proved (`lextrace verify`); a changed official text stands for
the encodings beside it whose name it shares. The exit code is the worst of the runs.
"""

from __future__ import annotations

import sys
from pathlib import Path

from .cli import main as lextrace

COMMANDS = {"check": ["check", "--strict", "-q"], "verify": ["verify"]}


def encodings(files: list[str]) -> list[str]:
    """Returns the encodings the changed files concern, each once, in order: a `.lex` file
    itself, a `.txt` file's `.lex` namesake beside it when there is one."""
    found: dict[str, None] = {}
    for name in files:
        path = Path(name)
        if path.suffix == ".txt":
            path = path.with_suffix(".lex")
        if path.suffix == ".lex" and path.is_file():
            found[str(path)] = None
    return list(found)


def main(argv: list[str] | None = None) -> int:
    """Runs the hook named first in `argv` on the files after it; returns the exit code."""
    arguments = sys.argv[1:] if argv is None else argv
    if not arguments or arguments[0] not in COMMANDS:
        print(f"usage: python -m lextrace.hooks {{{'|'.join(COMMANDS)}}} FILE...", file=sys.stderr)
        return 2
    code = 0
    for encoding in encodings(arguments[1:]):
        code = max(code, lextrace([*COMMANDS[arguments[0]], "--encoding", encoding]))
    return code


if __name__ == "__main__":
    sys.exit(main())
