"""The parse cache: an unchanged encoding is read back, never re-parsed; any change is seen."""

from __future__ import annotations

import atexit
import contextlib
import errno
import hashlib
import hmac
import marshal
import os
import shutil
import stat
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import EXAMPLES, write_variant
from hypothesis import given, settings
from hypothesis import strategies as st

from lextrace.dsl import ast, cache, loader
from lextrace.dsl.checker import check_statute
from lextrace.statute import BUNDLED, OFFICIAL

OTHER = Path(__file__).resolve().parent / "other_statutes"


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
            again.evaluate_file(path, trace=True).to_dict()
            == parsed.evaluate_file(path, trace=True).to_dict()
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


# ---- an entry is verified before use: nothing in the cache can change a result ------------
# Each test below damages, replaces or forges the bundled encoding's entry, then checks that
# the entry is not trusted (lookup gives None), that loading gives the results of a run without
# the cache, and that the load replaced the entry with a good one.

ENTRY_EXAMPLES = sorted(EXAMPLES.glob("*.json"))[:4]


def results_of(statute: object) -> list[object]:
    from lextrace.api import Statute

    assert isinstance(statute, ast.Statute)
    compiled = Statute(statute)
    return [compiled.evaluate_file(path).to_dict() for path in ENTRY_EXAMPLES]


@pytest.fixture(scope="module")
def uncached_results() -> list[object]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LEXTRACE_NO_CACHE", "1")
        return results_of(loader.load(BUNDLED))


def entry_of(folder: Path) -> Path:
    (entry,) = folder.glob("*.ast")
    return entry


def parts_of(entry: Path) -> list[object]:
    """The fields of an entry's body: format, language, hashes, official name, AST data."""
    raw = entry.read_bytes()
    return list(marshal.loads(raw[len(cache._MAGIC) + cache._TAG_BYTES :]))


def signed(folder: Path, name: str, parts: list[object]) -> bytes:
    """An entry made with the folder's own key: what only a holder of the key could write."""
    secret = cache._secret(folder, create=False)
    assert secret is not None
    body = marshal.dumps(tuple(parts))
    return cache._MAGIC + cache._tag(secret, name, body) + body


def assert_ignored_and_rebuilt(folder: Path, expected: list[object]) -> None:
    assert cache.lookup(BUNDLED) is None
    assert results_of(loader.load(BUNDLED)) == expected
    assert cache.lookup(BUNDLED) is not None  # the load replaced the entry


def forged_amount(parts: list[object], old: int, new: int) -> list[object]:
    """The entry's parts with every literal amount `old` made `new` in the AST data."""
    version, table, root = marshal.loads(parts[-1])
    changed = 0
    for name, values in table:
        if name == "Literal" and values[1] == ("F", old, 1):
            values[1] = ("F", new, 1)
            changed += 1
    assert changed, f"no literal {old} in the entry"
    return [*parts[:-1], marshal.dumps((version, table, root))]


def test_a_hand_edited_amount_is_never_trusted(
    cache_folder: Path, uncached_results: list[object]
) -> None:
    loader.load(BUNDLED)
    entry = entry_of(cache_folder)
    forged = forged_amount(parts_of(entry), 5000, 32000)
    body = marshal.dumps(tuple(forged))
    # A forger without the key: the body with a recomputed digest, or a MAC under a key of
    # their own.
    for tag in (
        hashlib.sha256(body).digest(),
        hmac.new(b"\x00" * 32, entry.name.encode() + b"\x00" + body, hashlib.sha256).digest(),
    ):
        entry.write_bytes(cache._MAGIC + tag + body)
        assert_ignored_and_rebuilt(cache_folder, uncached_results)
    # The forgery is one that would change the law if it were trusted: signed with the key,
    # it is taken (the key is what stands between an edit and a changed result).
    entry.write_bytes(signed(cache_folder, entry.name, forged))
    trusted = cache.lookup(BUNDLED)
    assert trusted is not None and results_of(trusted) != uncached_results


def test_check_replaces_the_entry_it_validates(
    cache_folder: Path, uncached_results: list[object]
) -> None:
    loader.load(BUNDLED)
    entry = entry_of(cache_folder)
    entry.write_bytes(signed(cache_folder, entry.name, forged_amount(parts_of(entry), 5000, 1)))
    analysis = loader.analyse(BUNDLED)  # what `lextrace check` runs
    assert analysis.statute is not None and not analysis.errors
    cached = cache.lookup(BUNDLED)
    assert cached is not None
    assert plain(cache.dump(cached)) == plain(cache.dump(analysis.statute))
    assert results_of(loader.load(BUNDLED)) == uncached_results


def test_check_against_another_official_text_leaves_the_entry_alone(
    cache_folder: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other.txt"
    other.write_text(OFFICIAL.read_text("utf-8"), "utf-8")
    loader.analyse(BUNDLED, other)
    assert not list(cache_folder.glob("*.ast"))


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_a_flipped_bit_anywhere_makes_the_entry_ignored(data: st.DataObject) -> None:
    with entry_folder() as (_, entry, good):
        offset = data.draw(st.integers(0, len(good) - 1), label="offset")
        bit = data.draw(st.integers(0, 7), label="bit")
        damaged = bytearray(good)
        damaged[offset] ^= 1 << bit
        entry.write_bytes(bytes(damaged))
        assert cache.lookup(BUNDLED) is None


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_a_truncated_entry_is_ignored(data: st.DataObject) -> None:
    with entry_folder() as (_, entry, good):
        entry.write_bytes(good[: data.draw(st.integers(0, len(good) - 1), label="length")])
        assert cache.lookup(BUNDLED) is None


@contextlib.contextmanager
def entry_folder() -> Iterator[tuple[Path, Path, bytes]]:
    """A cache folder holding the bundled encoding's entry (made once, restored each time):
    Hypothesis runs many examples in one test, so the folder is not a fixture."""
    if not _GOOD:
        folder = Path(tempfile.mkdtemp(prefix="lextrace-cache-test-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("LEXTRACE_CACHE_DIR", str(folder))
            patch.delenv("LEXTRACE_NO_CACHE", raising=False)
            loader.load(BUNDLED)
        entry = entry_of(folder)
        _GOOD.append((folder, entry, entry.read_bytes()))
    folder, entry, good = _GOOD[0]
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LEXTRACE_CACHE_DIR", str(folder))
        patch.delenv("LEXTRACE_NO_CACHE", raising=False)
        entry.write_bytes(good)
        assert cache.lookup(BUNDLED) is not None
        yield folder, entry, good


_GOOD: list[tuple[Path, Path, bytes]] = []


def test_an_entry_of_another_encoding_under_this_key_is_ignored(
    cache_folder: Path, tmp_path: Path, encoding_source: str, uncached_results: list[object]
) -> None:
    variant = write_variant(tmp_path, encoding_source, "# N.J.S.A.", "#  N.J.S.A.")
    loader.load(variant)
    loader.load(BUNDLED)
    mine = cache_folder / f"{cache.key(BUNDLED, BUNDLED.read_bytes())}.ast"
    (theirs,) = (e for e in cache_folder.glob("*.ast") if e != mine)
    # Renamed as it is, its MAC (which covers the name) fails; signed again under this name,
    # the hash of the encoding it records fails.
    for foreign in (theirs.read_bytes(), signed(cache_folder, mine.name, parts_of(theirs))):
        mine.write_bytes(foreign)
        assert_ignored_and_rebuilt(cache_folder, uncached_results)


def nested(depth: int) -> object:
    value: object = "x"
    for _ in range(depth):
        value = ("T", [value])
    return value


def crafted_tables(table: list[object], root: object) -> Iterator[tuple[str, object]]:
    """Ways to make an entry's AST data wrong, each named, as a key holder (or a bug) could."""

    def with_entry(index: int, entry: object) -> list[object]:
        return [*table[:index], entry, *table[index + 1 :]]

    first_literal = next(i for i, (name, _) in enumerate(table) if name == "Literal")
    first_span = next(i for i, (name, _) in enumerate(table) if name == "Span")
    first_neg_target = first_literal
    name, values = table[first_literal]
    span_name, span_values = table[first_span]
    yield "unknown class", (with_entry(first_literal, ("Exploit", values)), root)
    yield "a field too few", (with_entry(first_literal, (name, values[:-1])), root)
    yield (
        "a str for an amount",
        (
            with_entry(first_literal, (name, [values[0], "5000", *values[2:]])),
            root,
        ),
    )
    yield (
        "a bool for a line",
        (
            with_entry(first_span, (span_name, [True, *span_values[1:]])),
            root,
        ),
    )
    yield (
        "a reference out of the table",
        (with_entry(first_literal, (name, [("R", 10**6), *values[1:]])), root),
    )
    yield (
        "a zero denominator",
        (
            with_entry(first_literal, (name, [values[0], ("F", 1, 0), *values[2:]])),
            root,
        ),
    )
    yield (
        "an unknown tag",
        (with_entry(first_literal, (name, [values[0], ("Z", 1), *values[2:]])), root),
    )
    yield (
        "tuples nested past the recursion limit",
        (
            with_entry(first_literal, (name, [values[0], nested(900), *values[2:]])),
            root,
        ),
    )
    # A literal that is its own operand would send the evaluator round for ever; a chain of
    # minus signs far deeper than the parser allows would exhaust its stack.
    span_ref = values[0]
    cycle = with_entry(first_neg_target, ("Neg", [span_ref, ("R", first_neg_target)]))
    yield "an expression that contains itself", (cycle, root)
    chain = list(table)
    previous = ("R", first_literal)
    for _ in range(5000):
        chain.append(("Neg", [span_ref, previous]))
        previous = ("R", len(chain) - 1)
    neg_root = chain[first_literal]
    yield (
        "minus signs nested 5,000 deep",
        (
            [*chain[:first_literal], ("Neg", [span_ref, previous]), *chain[first_literal + 1 :]],
            root,
        ),
    )
    del neg_root
    yield "not a statute at the root", (table, ("R", first_literal))
    yield "not a table", ("table", root)


def test_crafted_entries_are_ignored_even_when_signed(
    cache_folder: Path, uncached_results: list[object]
) -> None:
    loader.load(BUNDLED)
    entry = entry_of(cache_folder)
    parts = parts_of(entry)
    version, table, root = marshal.loads(parts[-1])
    names = []
    for name, (bad_table, bad_root) in crafted_tables(table, root):
        data = marshal.dumps((version, bad_table, bad_root))
        entry.write_bytes(signed(cache_folder, entry.name, [*parts[:-1], data]))
        assert cache.lookup(BUNDLED) is None, name
        names.append(name)
    assert len(names) == 12
    assert results_of(loader.load(BUNDLED)) == uncached_results


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda entry: entry.write_bytes(b""), id="empty file"),
        pytest.param(lambda entry: entry.write_bytes(b"\x00garbage"), id="garbage"),
        pytest.param(lambda entry: entry.write_bytes(cache._MAGIC), id="magic only"),
        pytest.param(lambda entry: (entry.unlink(), entry.mkdir()), id="directory"),
    ],
)
def test_a_broken_entry_file_is_ignored(
    cache_folder: Path, uncached_results: list[object], make: Callable[[Path], object]
) -> None:
    loader.load(BUNDLED)
    make(entry_of(cache_folder))
    assert cache.lookup(BUNDLED) is None
    assert results_of(loader.load(BUNDLED)) == uncached_results


def test_an_unreadable_entry_is_ignored(
    cache_folder: Path, uncached_results: list[object], monkeypatch: pytest.MonkeyPatch
) -> None:
    loader.load(BUNDLED)

    def refused(path: Path) -> bytes:
        raise PermissionError(errno.EACCES, "Permission denied", str(path))

    monkeypatch.setattr(cache, "_read_entry", refused)  # chmod 000 does not stop root
    assert cache.lookup(BUNDLED) is None
    assert results_of(loader.load(BUNDLED)) == uncached_results


def test_the_key_is_private_and_a_bad_one_is_replaced(
    cache_folder: Path, uncached_results: list[object]
) -> None:
    loader.load(BUNDLED)
    key_file = cache_folder / "key"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    secret = key_file.read_bytes()
    key_file.chmod(0o644)  # readable by others: no longer a secret
    assert cache.lookup(BUNDLED) is None
    assert results_of(loader.load(BUNDLED)) == uncached_results
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600 and key_file.read_bytes() != secret
    key_file.write_bytes(b"short")
    assert cache.lookup(BUNDLED) is None
    loader.load(BUNDLED)
    assert cache.lookup(BUNDLED) is not None


# ---- temporary files ----------------------------------------------------------------------
def test_a_full_disk_leaves_no_temporary_file(
    cache_folder: Path, uncached_results: list[object], monkeypatch: pytest.MonkeyPatch
) -> None:
    real_write = cache._write
    loader.load(BUNDLED)  # the key is written; now the disk is full

    def full(handle: object, data: bytes) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    entry_of(cache_folder).unlink()
    monkeypatch.setattr(cache, "_write", full)
    for _ in range(3):
        assert results_of(loader.load(BUNDLED)) == uncached_results
    assert sorted(p.name for p in cache_folder.iterdir()) == ["key"]
    monkeypatch.setattr(cache, "_write", real_write)
    loader.load(BUNDLED)
    assert cache.lookup(BUNDLED) is not None


def test_stale_temporary_files_are_removed_by_the_next_store(cache_folder: Path) -> None:
    cache_folder.mkdir()
    stale, fresh = cache_folder / "tmpkilled.tmp", cache_folder / "tmpwriting.tmp"
    for left in (stale, fresh):
        left.write_bytes(b"half an entry")
    old = time.time() - cache.STALE_SECONDS - 60
    os.utime(stale, (old, old))
    loader.load(BUNDLED)
    assert not stale.exists()
    assert fresh.exists()  # perhaps another process's write in progress


def test_a_cached_statute_is_named_by_the_path_it_is_asked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lextrace.dsl import cache
    from lextrace.dsl.loader import load

    monkeypatch.setenv("LEXTRACE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("LEXTRACE_NO_CACHE", raising=False)
    folder = tmp_path / "statute"
    folder.mkdir()
    for name in ("ratio.lex", "ratio.txt"):
        (folder / name).write_bytes((OTHER / name).read_bytes())
    monkeypatch.chdir(tmp_path)
    assert load(Path("statute/ratio.lex")).path == "statute/ratio.lex"
    absolute = folder / "ratio.lex"
    assert cache.lookup(absolute) is not None  # the entry stored under the relative spelling
    assert load(absolute).path == str(absolute)
