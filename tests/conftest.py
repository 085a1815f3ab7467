"""Shared fixtures: the bundled statute (loaded once) and helpers to derive bad encodings."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

# The parse cache of every test run (and of the commands it starts) stays out of the home folder.
os.environ.setdefault("LEXTRACE_CACHE_DIR", tempfile.mkdtemp(prefix="lextrace-cache-"))

from lextrace import Statute, load_statute
from lextrace.statute import BUNDLED, OFFICIAL

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


@pytest.fixture(scope="session")
def statute() -> Statute:
    """The bundled N.J.S.A. 34:1B-343, parsed, checked and compiled once per test session."""
    return load_statute()


@pytest.fixture(scope="session")
def encoding_source() -> str:
    """The text of the bundled encoding."""
    return BUNDLED.read_text(encoding="utf-8")


def write_variant(tmp_path: Path, source: str, old: str, new: str, count: int = 1) -> Path:
    """Writes a copy of the encoding with `old` replaced by `new` (which must occur), next to
    a copy of the official text, and returns its path."""
    assert old in source, f"the encoding no longer contains {old!r}"
    variant = tmp_path / "variant.lex"
    variant.write_text(source.replace(old, new, count), encoding="utf-8")
    (tmp_path / OFFICIAL.name).write_text(OFFICIAL.read_text(encoding="utf-8"), encoding="utf-8")
    return variant


def lextrace_command(
    *args: str,
    stdin: str | None = None,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    timeout: float = 300,
) -> subprocess.CompletedProcess[str]:
    """Runs `lextrace ARGS` in a subprocess with the interpreter running the tests (with `env`
    added to the environment); no traceback may reach its standard error."""
    completed = subprocess.run(
        [sys.executable, "-m", "lextrace", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, **env} if env else None,
        timeout=timeout,
        check=False,
    )
    assert "Traceback" not in completed.stderr, completed.stderr
    return completed
