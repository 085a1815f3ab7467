"""The parse cache: an unchanged encoding is read back, never re-parsed; any change is seen."""

from __future__ import annotations

import marshal
from pathlib import Path

import pytest
from conftest import EXAMPLES, write_variant

from lextrace.dsl import cache, loader
from lextrace.dsl.checker import check_statute
from lextrace.statute import BUNDLED


def plain(data: bytes) -> object:
    """The cached data itself (marshal's bytes also record which strings were shared)."""
    return marshal.loads(data)


@pytest.fixture
def cache_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("LEXTRACE_CACHE_DIR", str(folder))
    monkeypatch.delenv("LEXTRACE_NO_CACHE", raising=False)
    return folder


def test_the_ast_survives_the_round_trip_with_its_shared_objects() -> None:
    statute = loader.load(BUNDLED)
    data = cache.dump(statute)
    again = cache.load_dump(data)
    assert plain(cache.dump(again)) == plain(data)
    assert check_statute(again) == []
    clause_d = next(c for c in again.clauses if c.anchor == "d")
    assert again.definitions["gross_amount"].clause is clause_d
    assert all(child.parent is clause for clause in again.clauses for child in clause.children)


def test_an_unchanged_encoding_is_not_parsed_again(
    cache_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = loader.load(BUNDLED)
    assert len(list(cache_folder.glob("*.ast"))) == 1

    def no_parsing(*args: object, **kwargs: object) -> None:
        raise AssertionError("parsed again")

    monkeypatch.setattr(loader, "analyse", no_parsing)
    second = loader.load(BUNDLED)
    assert second is not first and plain(cache.dump(second)) == plain(cache.dump(first))


def test_a_changed_encoding_or_official_text_is_parsed_again(
    cache_folder: Path, tmp_path: Path, encoding_source: str
) -> None:
    variant = write_variant(tmp_path, encoding_source, "$1,000 per year;", "$1,000 per year;")
    loader.load(variant)
    assert cache.lookup(variant) is not None
    variant.write_text(encoding_source.replace("# N.J.S.A.", "#  N.J.S.A.", 1), "utf-8")
    assert cache.lookup(variant) is None
    loader.load(variant)
    official = tmp_path / "nj-34-1b-343.txt"
    official.write_text(official.read_text("utf-8") + "\n", "utf-8")
    assert cache.lookup(variant) is None


def test_a_damaged_cache_file_is_ignored(cache_folder: Path) -> None:
    loader.load(BUNDLED)
    (entry,) = cache_folder.glob("*.ast")
    entry.write_bytes(b"\x00garbage")
    assert cache.lookup(BUNDLED) is None
    statute = loader.load(BUNDLED)
    assert statute.name.startswith("N.J.S.A.")


def test_the_cache_can_be_turned_off(cache_folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEXTRACE_NO_CACHE", "1")
    loader.load(BUNDLED)
    assert not cache_folder.exists()


def test_a_cached_statute_evaluates_like_a_parsed_one(cache_folder: Path) -> None:
    from lextrace.api import Statute

    parsed = Statute(loader.load(BUNDLED))
    cached = cache.lookup(BUNDLED)
    assert cached is not None
    again = Statute(cached)
    for path in EXAMPLES.glob("*.json"):
        assert (
            again.evaluate_file(path, trace=True).to_json()
            == parsed.evaluate_file(path, trace=True).to_json()
        )


def test_the_cache_keeps_only_the_most_recent_entries(
    cache_folder: Path, tmp_path: Path, encoding_source: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cache, "KEEP", 2)
    for n in range(4):
        folder = tmp_path / f"v{n}"
        folder.mkdir()
        loader.load(
            write_variant(folder, encoding_source, "# N.J.S.A.", "#" + " " * n + " N.J.S.A.")
        )
    assert len(list(cache_folder.glob("*.ast"))) == 2


def test_evaluate_starts_without_the_heavy_libraries(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from lextrace.cli import main\n"
        "code = main(['evaluate', sys.argv[1]])\n"
        "heavy = ('z3', 'hypothesis', 'mkdocs', 'numpy', 'pyarrow', 'lark')\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & set(heavy)))\n"
    )
    env = dict(os.environ, LEXTRACE_CACHE_DIR=str(tmp_path))
    example = str(EXAMPLES / "distressed-manufacturer.json")
    outputs = [
        subprocess.run(
            [sys.executable, "-c", script, example],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        ).stdout.splitlines()[-1]
        for _ in range(2)
    ]
    assert outputs[0] == "['lark']"  # the first run parses the encoding
    assert outputs[1] == "[]"  # the second reads the parse cache: nothing heavy at all
