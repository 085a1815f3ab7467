"""What a batch imports, and where it allocates. The command leaves pandas out of its process
(lextrace.cli: leave_pandas_out), and builds Arrow arrays from numpy buffers (`arrow_array`,
`gathered_texts`), so a batch imports neither pandas nor numpy.ma, and a Parquet batch of typed
columns not pyarrow.compute either. On Linux, it keeps freed memory for reuse and has Arrow
allocate from that heap (`arrow_uses_kept_memory`). The console script gives OpenBLAS one thread
before numpy loads (`one_blas_thread`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from benchmarks.population import population, write_parquet
from lextrace.columns import arrow_array, gathered_texts, member_texts

ROOT = Path(__file__).resolve().parent.parent
BATCH = str(ROOT / "examples" / "batch.jsonl")  # some lines refused: the error paths too


def _python(code: str, **variables: str | None) -> str:
    """Returns what `code` prints in a new interpreter, whose environment is this one's with
    `variables` set (or removed where None), and Arrow's pool left to choose."""
    environment = {k: v for k, v in os.environ.items() if k != "ARROW_DEFAULT_MEMORY_POOL"}
    for name, value in variables.items():
        environment.pop(name, None)
        if value is not None:
            environment[name] = value
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
        env=environment,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _after_batch(target: Path) -> list[str]:
    """Returns, after a batch to `target`: whether pandas and numpy.ma were imported, and
    Arrow's memory pool."""
    code = f"""
import sys
from lextrace import cli
cli.leave_pandas_out()  # as the console script does
sys.argv = ["lextrace", "batch", {BATCH!r}, "-o", {str(target)!r}]
try:
    cli.main()
except SystemExit as stop:
    assert stop.code in (0, 1), stop.code  # 1: some lines were refused
import pyarrow
pool = pyarrow.default_memory_pool().backend_name
print("pandas" in sys.modules, "numpy.ma" in sys.modules, pool)
"""
    return _python(code).split()


@pytest.mark.parametrize("suffix", [".jsonl", ".parquet"])
def test_the_command_imports_neither_pandas_nor_numpy_ma(tmp_path: Path, suffix: str) -> None:
    target = tmp_path / f"out{suffix}"
    assert _after_batch(target)[:2] == ["False", "False"]
    assert target.stat().st_size > 0


def test_a_parquet_batch_of_typed_columns_does_not_load_pyarrow_compute(tmp_path: Path) -> None:
    source, target = tmp_path / "in.parquet", tmp_path / "out.parquet"
    write_parquet(source, population(300, seed=3))  # decimals, integers, booleans, texts
    code = f"""
import sys
from lextrace import cli
cli.leave_pandas_out()
sys.argv = ["lextrace", "batch", {str(source)!r}, "-o", {str(target)!r}]
try:
    cli.main()
except SystemExit as stop:
    assert stop.code == 0, stop.code
print("pyarrow.compute" in sys.modules)
"""
    assert _python(code).split() == ["False"]
    assert pq.read_table(target).num_rows == 300


@pytest.mark.parametrize("size", [0, 1, 9, 1000])
def test_member_texts_gathered_from_numpy_equal_arrows_take(size: int) -> None:
    import pyarrow.compute as pc

    members = ["tier_one", "é", "x", "", "a_long_member_name_of_the_enum"]
    codes = (np.arange(size) * 7 % len(members)).astype(np.int16)
    expected = pc.take(pa.array(members), pa.array(codes))
    made = gathered_texts(members, codes)
    made.validate(full=True)
    assert made.equals(expected)
    assert member_texts(members, codes).equals(expected)  # by Arrow: pyarrow.compute is loaded
    same = gathered_texts(members, np.broadcast_to(np.int16(1), (size,)))
    assert same.to_pylist() == ["é"] * size


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's allocator is Linux's")
def test_the_command_has_arrow_allocate_from_the_kept_heap(tmp_path: Path) -> None:
    before = _python("import pyarrow; print(pyarrow.default_memory_pool().backend_name)").strip()
    assert before != "system"  # Arrow's own pool unless asked: the command is what changes it
    assert _after_batch(tmp_path / "out.parquet")[2] == "system"


@pytest.mark.parametrize("dtype", [np.int64, np.int16, np.int8, np.bool_])
@pytest.mark.parametrize("size", [0, 1, 7, 8, 9, 65])
def test_arrow_array_equals_pyarrows_own_conversion(dtype: type, size: int) -> None:
    values = (np.arange(size) * 37 % 11 - 5).astype(dtype)
    assert arrow_array(values).equals(pa.array(values))
    strided = np.arange(2 * size)[::2].astype(dtype)  # not contiguous
    assert arrow_array(strided).equals(pa.array(strided))
    broadcast = np.broadcast_to(np.array(3, dtype=dtype), (size,))
    assert arrow_array(broadcast).to_pylist() == pa.array(broadcast).to_pylist()


def test_arrow_array_with_nulls_equals_pyarrows_own_conversion() -> None:
    values = np.arange(21, dtype=np.int64)
    nulls = values % 3 == 0
    made = arrow_array(values, nulls)
    assert made.equals(pa.array(values, mask=nulls))
    assert made.null_count == 7
    assert arrow_array(values, np.zeros(21, dtype=bool)).equals(pa.array(values))


def test_evaluating_a_cached_encoding_imports_neither_the_checks_nor_the_kernel() -> None:
    # Loaded once to fill the parse cache; then a fresh process evaluates from it.
    scenario = str(ROOT / "examples" / "distressed-manufacturer.json")
    code = f"""
import sys
from lextrace import cli
sys.argv = ["lextrace", "evaluate", {scenario!r}]
try:
    cli.main()
except SystemExit as stop:
    assert stop.code == 0, stop.code
print()
checks = ("lextrace.dsl.wording", "lextrace.dsl.facts", "lextrace.dsl.kernel")
print(*(m in sys.modules for m in checks))
"""
    _python(code)
    assert _python(code).split()[-3:] == ["False", "False", "False"]


@pytest.mark.parametrize(("given", "seen"), [(None, "1"), ("3", "3")])
def test_the_console_script_gives_openblas_one_thread_unless_told(
    given: str | None, seen: str
) -> None:
    # What a command's process sees of the setting when numpy is first imported.
    code = """
import os, sys
from lextrace import cli
def main():
    assert "numpy" not in sys.modules  # OpenBLAS reads the setting as numpy loads it
    print(os.environ.get("OPENBLAS_NUM_THREADS"))
    return 0
cli.main = main
cli.entry_point()
"""
    assert _python(code, OPENBLAS_NUM_THREADS=given).strip() == seen
