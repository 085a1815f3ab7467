"""The public API is typed for its users: the package ships `py.typed`, and a user's script
feeding it Decimal, numpy and pandas values runs and passes `mypy --strict` against the package
as pip installs it (not the checkout, which mypy would read as source)."""

from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
import venv
from pathlib import Path

import pytest
from conftest import write_flag_statute

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "examples" / "python" / "typed_inputs.py"


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An interpreter that sees lextrace installed as a wheel, beside this environment's
    packages (numpy, pandas and their stubs), with no pip of its own."""
    work = tmp_path_factory.mktemp("typed")
    # Built from a copy of what the wheel is made of: pip writes its build folders beside it.
    source = work / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    for package in ("lextrace", "dsl", "verify", "statute"):
        shutil.copytree(
            ROOT / package, source / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    target = work / "target"
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--target",
            str(target),
            str(source),
        ],
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stderr
    assert (target / "lextrace" / "py.typed").is_file()
    environment = work / "env"
    venv.EnvBuilder(with_pip=False).create(environment)
    (packages,) = (environment / "lib").glob("python3*/site-packages")
    (packages / "a_lextrace.pth").write_text(f"{target}\n", encoding="utf-8")
    here = [p for p in site.getsitepackages() if Path(p).is_dir()]
    (packages / "b_packages.pth").write_text("\n".join(here) + "\n", encoding="utf-8")
    return environment / "bin" / "python"


def _mypy(installed: Path, script: Path) -> subprocess.CompletedProcess[str]:
    # Run from the script's own folder: from the checkout, mypy would find lextrace/ as source.
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--no-incremental",
            "--python-executable",
            str(installed),
            script.name,
        ],
        cwd=script.parent,
        capture_output=True,
        text=True,
        env={**os.environ, "MYPYPATH": ""},
    )


def test_the_example_script_runs(installed: Path) -> None:
    completed = subprocess.run(
        [str(installed), str(SCRIPT)], capture_output=True, text=True, check=False
    )
    assert completed.returncode == 0, completed.stderr
    assert "from Python: 2975 892500.00" in completed.stdout
    assert completed.stdout.count("('lowest_full_time_hourly_wage',)") == 2


def test_the_example_script_passes_mypy_strict(installed: Path, tmp_path: Path) -> None:
    script = tmp_path / SCRIPT.name
    shutil.copy(SCRIPT, script)
    completed = _mypy(installed, script)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "Success: no issues found" in completed.stdout


def test_mypy_sees_the_package_types(installed: Path, tmp_path: Path) -> None:
    # The control: a misuse is found, so the success above rests on the package's types.
    script = tmp_path / "misuse.py"
    script.write_text(
        "from lextrace import load_statute\ncount: int = load_statute().evaluate({}).values\n",
        encoding="utf-8",
    )
    completed = _mypy(installed, script)
    assert completed.returncode == 1
    assert "misuse.py:2: error: Incompatible types in assignment" in completed.stdout
    assert "py.typed" not in completed.stdout


def test_amount_and_flag_read_results_typed_and_refuse_other_types(tmp_path: Path) -> None:
    from fractions import Fraction

    from lextrace import Result, load_statute

    result = load_statute().evaluate_file(ROOT / "examples" / "distressed-manufacturer.json")
    assert isinstance(result, Result)
    assert result.amount("per_job_new") == Fraction(4250) == result["per_job_new"]
    assert type(result.amount("per_job_new")) is Fraction
    with pytest.raises(TypeError, match="result 'area_tier' is enum"):
        result.amount("area_tier")
    with pytest.raises(TypeError, match="not yes or no"):
        result.flag("per_job_new")
    with pytest.raises(KeyError):
        result.amount("no_such_result")
    flagged = load_statute(write_flag_statute(tmp_path, "wage > $5")).evaluate({"wage": "6"})
    assert isinstance(flagged, Result) and flagged.flag("flag") is True
