"""Shared fixtures: the bundled statute (loaded once) and helpers to derive bad encodings."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

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


def text_table(statute: Statute, rows: list[dict]) -> Any:
    """Returns scenarios as an Arrow table of text columns (bool columns for yes/no fields).
    Columns no row gives are left out of the table altogether; a cell a row leaves out is
    empty (null): both mean the field's default."""
    import pyarrow as pa

    columns = {}
    for name in statute.ast.inputs:
        values = [row.get(name) for row in rows]
        if all(value is None for value in values):
            continue
        if all(value is None or isinstance(value, bool) for value in values):
            columns[name] = pa.array(values, pa.bool_())
        else:
            columns[name] = pa.array([None if v is None else str(v) for v in values], pa.string())
    return pa.table(columns)


def wide_decimal_table(rows: list[dict], changes: dict[int, dict[str, object]]) -> Any:
    """Returns the benchmark's typed table of the rows with money as decimal(38, 2), with some
    cells changed (row -> field -> a decimal text, an integer or None for null)."""
    from decimal import Decimal

    import pyarrow as pa

    from benchmarks.population import to_arrow

    table = to_arrow(rows)
    wide = {
        name: table.column(name).cast(pa.decimal128(38, 2))
        if pa.types.is_decimal(table.column(name).type)
        else table.column(name)
        for name in table.column_names
    }
    for row, changed in changes.items():
        for name, value in changed.items():
            column = wide[name].to_pylist()
            column[row] = (
                None if value is None else (Decimal(value) if isinstance(value, str) else value)
            )
            wide[name] = pa.array(column, wide[name].type)
    return pa.table(wide)


def too_large_scenario() -> dict[str, object]:
    """A scenario of the bundled statute whose amounts have more digits than a decimal(38, 2)
    column holds: its job counts just below the largest number the scenario format reads."""
    huge = 10**31 - 1
    return {
        "new_jobs": huge,
        "retained_jobs": huge,
        "labor_harmony_new_jobs": huge,
        "labor_harmony_retained_jobs": huge,
        "board_underrepresented_share": "1",
        "child_care": True,
        "mega_project": True,
        "government_restricted_municipality": True,
        "municipality_median_salary": "50000",
        "project_median_salary": "50000",
        "county_median_salary": "50000",
        "lowest_full_time_hourly_wage": "30",
        "state_minimum_wage": "15.92",
        "eligibility_period_years": 10,
    }


def write_section_statute(
    folder: Path, stem: str, inputs: list[str], results: str, clauses: list[tuple[str, str]]
) -> Path:
    """Writes `STEM.lex`, the encoding of a statute "STEM Act 1" of one section whose
    subsections a., b., ... hold `clauses` (their words, their rules, one per line), over the
    input declarations `inputs` (each without its `;`), with its official text `STEM.txt`;
    returns the encoding's path."""
    labels = "abcdefghij"
    text = "\n".join(
        f"{'1. ' if i == 0 else ''}{labels[i]}. {words}" for i, (words, _) in enumerate(clauses)
    )
    (folder / f"{stem}.txt").write_text(text + "\n", "utf-8")
    body = "".join(
        f'{labels[i]}. "{words}" {{\n  {rules}\n}}\n' for i, (words, rules) in enumerate(clauses)
    )
    declared = "".join(f"{line};\n" for line in inputs)
    path = folder / f"{stem}.lex"
    path.write_text(
        f'statute "{stem.title()} Act 1"\n  title "A {stem} act"\n  official "{stem}.txt"\n\n'
        f"{declared}\nresults {results};\n\nsection 1. {{\n{body}}}\n",
        "utf-8",
    )
    return path


def write_flag_statute(folder: Path, expression: str) -> Path:
    """Writes a one-clause statute whose one result, the yes or no `flag`, is `expression`
    over the input `wage` ("A flag when the wage exceeds $5."), and returns its path."""
    words = "A flag when the wage exceeds $5."
    return write_section_statute(
        folder, "flag", ['input wage: money = $0 "a wage"'], "flag",
        [(words, f"rule flag: bool = {expression};")],
    )  # fmt: skip
