"""The compiled engine's loops kept on disk (dsl/kernel_cache.py): a later process loads the
machine code instead of compiling it, with the same results; a kernel file that is not exactly
the generated text, or a folder others may write to, is never executed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

from lextrace.dsl import kernel_cache

ENCODING = ROOT / "tests" / "other_statutes" / "threshold.lex"
TEXT = "VALUE = 1\nKEPT = CACHE\n"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private cache folder of this test's own."""
    folder = tmp_path / "cache"
    folder.mkdir(mode=0o700)
    monkeypatch.setenv("LEXTRACE_CACHE_DIR", str(folder))
    monkeypatch.delenv("LEXTRACE_NO_CACHE", raising=False)
    return folder


def kernel_files(cache: Path) -> list[Path]:
    return sorted((cache / kernel_cache.FOLDER).glob(f"{kernel_cache.PREFIX}*.py"))


def executed(text: str) -> dict[str, object] | None:
    """The namespace of the kept module of `text` once executed (as dsl/kernel.py does), or
    None when it is not kept."""
    kept = kernel_cache.prepared(text)
    if kept is None:
        return None
    exec(compile(kept.source, kept.filename, "exec"), kept.namespace)
    return kept.namespace


def test_a_kernel_is_written_once_and_imported_with_numbas_cache_on(cache: Path) -> None:
    loaded = executed(TEXT)
    assert loaded is not None and loaded["VALUE"] == 1 and loaded["KEPT"] is True
    (path,) = kernel_files(cache)
    assert path.read_text() == TEXT
    name = str(loaded["__name__"])
    assert sys.modules[name].__dict__ is loaded  # numba finds the module again by its name
    assert loaded["__file__"] == str(path)
    stamp = path.stat().st_mtime_ns
    again = executed(TEXT)
    assert again is not None and again["VALUE"] == 1
    assert path.stat().st_mtime_ns == stamp  # unchanged: numba's cached code stays valid
    assert oct((cache / kernel_cache.FOLDER).stat().st_mode & 0o777) == "0o700"


def test_an_edited_kernel_file_is_written_anew_not_executed(cache: Path) -> None:
    executed(TEXT)
    (path,) = kernel_files(cache)
    path.write_text("VALUE = 2\nKEPT = CACHE\n")
    loaded = executed(TEXT)
    assert loaded is not None and loaded["VALUE"] == 1
    assert path.read_text() == TEXT


def test_a_folder_in_the_kernel_files_place_is_not_used(cache: Path) -> None:
    kernel_cache.prepared(TEXT)
    (path,) = kernel_files(cache)
    path.unlink()
    path.mkdir()  # cannot be replaced by a file: the kernel is compiled in memory instead
    assert kernel_cache.prepared(TEXT) is None
    assert path.is_dir()


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
@pytest.mark.parametrize("which", ["kernels", "cache"])
def test_a_folder_others_may_write_to_is_not_used(cache: Path, which: str) -> None:
    kernel_cache.prepared(TEXT)
    folder = cache / kernel_cache.FOLDER if which == "kernels" else cache
    folder.chmod(0o777)
    try:
        assert kernel_cache.folder() is None
        assert kernel_cache.prepared(TEXT) is None
    finally:
        folder.chmod(0o700)
    assert kernel_cache.prepared(TEXT) is not None


@pytest.mark.skipif(sys.platform == "win32", reason="symbolic links")
def test_a_link_in_place_of_the_folder_is_not_used(cache: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    (cache / kernel_cache.FOLDER).symlink_to(elsewhere)
    assert kernel_cache.folder() is None
    assert kernel_cache.prepared(TEXT) is None
    assert not list(elsewhere.iterdir())


def test_no_cache_means_no_kernel_folder(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEXTRACE_NO_CACHE", "1")
    assert kernel_cache.prepared(TEXT) is None
    assert not (cache / kernel_cache.FOLDER).exists()


# One process compiles the encoding's kernel and keeps it; the next loads the machine code
# (numba counts a cache hit and no miss) and gives the same results; with the cache off, the
# kernel is compiled in memory and nothing is written.
_RUN = """
import json, sys
import pyarrow as pa
from lextrace import load_statute
from lextrace.dsl import kernel
from lextrace.tables import Runner
statute = load_statute(sys.argv[1])
runner = Runner(statute, statute.select_readings({}), compiled=True)
assert runner.compiled is not None
table = pa.table({
    "qualifying_children": pa.array([0, 1, 2, 3], pa.int64()),
    "modified_agi": pa.array(["150000", "210500", "450000.01", "200000.01"]),
    "joint_return": pa.array([False, False, True, False]),
})
chunk = runner.evaluate(table, 0, None)
stats = [d.stats for d in kernel._COMPILED.values()]
print(json.dumps({
    "credit": [str(v) for v in chunk.values["credit"]],  # in cents
    "deferred": int(runner.slow.sum()),
    "hits": sum(sum(s.cache_hits.values()) for s in stats),
    "misses": sum(sum(s.cache_misses.values()) for s in stats),
}))
"""


def _run(cache: Path, **settings: str) -> dict[str, object]:
    environment = {**os.environ, "LEXTRACE_CACHE_DIR": str(cache), **settings}
    done = subprocess.run(
        [sys.executable, "-c", _RUN, str(ENCODING)],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
        env=environment,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_later_process_loads_the_kernel_and_gets_the_same_results(cache: Path) -> None:
    pytest.importorskip("numba")
    first = _run(cache)
    assert first["hits"] == 0 and first["misses"] == 1
    assert first["deferred"] == 0  # every row evaluated by the kernel itself
    assert first["credit"] == ["0", "145000", "145000", "595000"]  # cents
    (path,) = kernel_files(cache)
    second = _run(cache)
    assert second["hits"] == 1 and second["misses"] == 0
    assert second["credit"] == first["credit"]
    generated = path.read_text()
    path.write_text(generated + "\n# edited\n")
    # Written anew as generated; numba keys its kept code by the file's content, so the code
    # kept for that content is loaded again.
    third = _run(cache)
    assert path.read_text() == generated
    assert third["hits"] == 1 and third["credit"] == first["credit"]


def test_without_the_cache_the_kernel_is_compiled_in_memory(tmp_path: Path) -> None:
    pytest.importorskip("numba")
    folder = tmp_path / "cache"
    run = _run(folder, LEXTRACE_NO_CACHE="1")
    assert run["hits"] == 0 and run["credit"] == ["0", "145000", "145000", "595000"]  # cents
    assert not (folder / kernel_cache.FOLDER).exists()
