"""The parse cache: a checked encoding kept on disk, keyed by the hash of what it came from.

Parsing, checking and proving the text faithful take most of a command's start-up. When neither
the encoding, nor its official text, nor the language itself (the grammar and this package's
source) has changed since the last run, the statute is read back from the cache instead.

The cache holds plain data only (tuples, strings, numbers), written with `marshal` and rebuilt
into the AST's own classes from a fixed list: nothing in it is ever executed, and a damaged or
stale file is simply ignored. Set LEXTRACE_CACHE_DIR to move the cache, LEXTRACE_NO_CACHE=1 to
turn it off.
"""

from __future__ import annotations

import dataclasses
import hashlib
import marshal
import os
import tempfile
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

from . import ast

FORMAT = 1
KEEP = 32
_CLASSES: dict[str, type] = {
    cls.__name__: cls
    for cls in vars(ast).values()
    if isinstance(cls, type) and dataclasses.is_dataclass(cls) and cls.__module__ == ast.__name__
}
_FIELDS = {name: [f.name for f in dataclasses.fields(cls)] for name, cls in _CLASSES.items()}


def cache_dir() -> Path | None:
    """Returns the cache folder, or None when caching is turned off."""
    if os.environ.get("LEXTRACE_NO_CACHE"):
        return None
    chosen = os.environ.get("LEXTRACE_CACHE_DIR")
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "lextrace"


def _language_digest() -> str:
    """Returns the hash of the language's own source: the grammar and this package's modules."""
    digest = hashlib.sha256(f"format {FORMAT}".encode())
    here = Path(__file__).resolve().parent
    for path in sorted([*here.glob("*.py"), *here.glob("*.lark")]):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


_LANGUAGE: list[str] = []


def key(path: Path, encoding: bytes) -> str:
    """Returns the cache key of the encoding file at `path` with these bytes."""
    if not _LANGUAGE:
        _LANGUAGE.append(_language_digest())
    digest = hashlib.sha256(_LANGUAGE[0].encode())
    digest.update(str(path.resolve()).encode())
    digest.update(hashlib.sha256(encoding).digest())
    return digest.hexdigest()


# ---- the AST as plain data ------------------------------------------------------------------
def dump(statute: ast.Statute) -> bytes:
    """Returns the statute as plain data: a table of objects, shared ones referenced by index
    (a clause is reached from its parent, its rules and the statute alike)."""
    table: list[object] = []
    index: dict[int, int] = {}

    def encode(value: object) -> object:
        if value is None or isinstance(value, bool | int | str):
            return value
        if isinstance(value, Fraction):
            return ("F", value.numerator, value.denominator)
        if isinstance(value, tuple):
            return ("T", [encode(v) for v in value])
        if isinstance(value, list):
            return ("L", [encode(v) for v in value])
        if isinstance(value, dict):
            return ("D", [(encode(k), encode(v)) for k, v in value.items()])
        name = type(value).__name__
        if _CLASSES.get(name) is not type(value):
            raise TypeError(f"cannot cache a {name}")
        found = index.get(id(value))
        if found is None:
            found = len(table)
            index[id(value)] = found
            table.append(None)
            table[found] = (name, [encode(getattr(value, f)) for f in _FIELDS[name]])
        return ("R", found)

    root = encode(statute)
    return marshal.dumps((FORMAT, table, root))


def load_dump(data: bytes) -> ast.Statute:
    """Returns the statute rebuilt from `dump`'s data; raises ValueError when it is not."""
    try:
        version, table, root = marshal.loads(data)
    except (EOFError, TypeError, ValueError) as error:
        raise ValueError(f"not a cache file: {error}") from error
    if version != FORMAT:
        raise ValueError("another cache format")
    objects: list[object] = []
    for entry in table:
        name, _ = entry
        cls = _CLASSES.get(name)
        if cls is None:
            raise ValueError(f"unknown class {name!r} in the cache")
        objects.append(object.__new__(cls))

    def decode(value: object) -> object:
        if not isinstance(value, tuple):
            return value
        tag = value[0]
        if tag == "R":
            return objects[value[1]]
        if tag == "F":
            return Fraction(value[1], value[2])
        if tag == "T":
            return tuple(decode(v) for v in value[1])
        if tag == "L":
            return [decode(v) for v in value[1]]
        if tag == "D":
            return {decode(k): decode(v) for k, v in value[1]}
        raise ValueError(f"unknown tag {tag!r} in the cache")

    setter: Callable[[object, str, object], None] = object.__setattr__
    for target, (name, values) in zip(objects, table, strict=True):
        for field_name, value in zip(_FIELDS[name], values, strict=True):
            setter(target, field_name, decode(value))
    statute = decode(root)
    if not isinstance(statute, ast.Statute):
        raise ValueError("the cache does not hold a statute")
    return statute


# ---- on disk --------------------------------------------------------------------------------
def lookup(path: Path) -> ast.Statute | None:
    """Returns the cached statute of the encoding at `path` when neither it nor its official
    text changed since it was stored; None otherwise (absent, stale, damaged, turned off)."""
    folder = cache_dir()
    if folder is None:
        return None
    try:
        cache_key = key(path, path.read_bytes())
        official_name, official_digest, data = marshal.loads(
            (folder / f"{cache_key}.ast").read_bytes()
        )
        official = (path.parent / official_name).read_bytes()
        if hashlib.sha256(official).hexdigest() != official_digest:
            return None
        return load_dump(data)
    except (OSError, ValueError, TypeError, EOFError, KeyError, IndexError):
        return None


def store(path: Path, statute: ast.Statute, official: Path) -> None:
    """Keeps a checked statute for the next run, atomically; a cache that cannot be written is
    skipped silently (it only saves time)."""
    folder = cache_dir()
    if folder is None:
        return
    try:
        cache_key = key(path, path.read_bytes())
        official_digest = hashlib.sha256(official.read_bytes()).hexdigest()
        payload = marshal.dumps((statute.official, official_digest, dump(statute)))
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, delete=False, suffix=".tmp") as handle:
            handle.write(payload)
        os.replace(handle.name, folder / f"{cache_key}.ast")
        _prune(folder)
    except (OSError, TypeError, ValueError):
        return


def _prune(folder: Path) -> None:
    """Keeps the most recent KEEP entries: every edited or mutated encoding makes a new one."""
    entries = sorted(folder.glob("*.ast"), key=lambda p: p.stat().st_mtime, reverse=True)
    for stale in entries[KEEP:]:
        stale.unlink(missing_ok=True)
