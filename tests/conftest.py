"""Shared fixtures: the bundled statute (loaded once) and helpers to derive bad encodings."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

# The parse cache of every test run (and of the commands it starts) stays out of the home folder.
os.environ.setdefault("LEXTRACE_CACHE_DIR", tempfile.mkdtemp(prefix="lextrace-cache-"))

from lextrace import Statute, load_statute
from lextrace.statute import BUNDLED, OFFICIAL

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def repository_encodings(amendments: bool = False) -> list[Path]:
    """Every encoding kept in the repository: the bundled statutes, the other statutes of the
    tests and, with `amendments`, the amendment drafts."""
    drafts = (ROOT / "statute" / "amendments").glob("*/*.lex") if amendments else ()
    return sorted(
        [
            *(ROOT / "statute").glob("*.lex"),
            *drafts,
            *(ROOT / "tests" / "other_statutes").glob("*.lex"),
        ]
    )


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


def overlapping_cases(tmp_path: Path, source: str) -> tuple[Path, dict[str, object]]:
    """Returns a variant whose two exclusive cases of `salary_reference` both hold for the
    scenario returned with it (the reference evaluator refuses it: "defined twice")."""
    variant = write_variant(
        tmp_path,
        source,
        "case salary_reference = county_median_salary when not government_restricted_municipality;",
        "case salary_reference = county_median_salary when true;",
    )
    scenario: dict[str, object] = {
        "government_restricted_municipality": True,
        "municipality_median_salary": "60000",
        "new_jobs": 1,
        "project_median_salary": "60000",
        "county_median_salary": "60000",
        "lowest_full_time_hourly_wage": "20",
        "state_minimum_wage": "15",
    }
    return variant, scenario


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


# The date every build of the project site in the tests states (SOURCE_DATE_EPOCH).
SITE_EPOCH = "1700000000"


@pytest.fixture(scope="session")
def project_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project's documentation site, built by `mkdocs build --strict` once for the whole
    run: the test processes share one build (the first to ask builds it, under a lock), since
    a build proves every bundled statute and its drafts. Tests only read it (copy it first to
    change it)."""
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER") and _can_lock():
        shared = shared.parent  # the folder every worker's base folder sits in
    site = shared / "project-site"
    with _locked(shared / "project-site.lock"):
        if not (site / "index.html").is_file():
            done = subprocess.run(
                [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(site)],
                cwd=ROOT,
                capture_output=True,
                text=True,
                timeout=600,
                check=False,
                env={**os.environ, "SOURCE_DATE_EPOCH": SITE_EPOCH, "NO_MKDOCS_2_WARNING": "1"},
            )
            assert done.returncode == 0, f"mkdocs build --strict failed:\n{done.stderr[-3000:]}"
    return site


def _can_lock() -> bool:
    try:
        import fcntl  # noqa: F401
    except ImportError:  # not POSIX: each test process builds its own site
        return False
    return True


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Holds an exclusive lock on `path` (created if need be) for the block (nothing where
    locks are not available)."""
    if not _can_lock():
        yield
        return
    import fcntl

    with open(path, "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
