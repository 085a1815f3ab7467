"""The parse cache: a checked encoding kept on disk, keyed by the hash of what it came from.

Parsing, checking and proving the text faithful take most of a command's start-up. When neither
the encoding, nor its official text, nor the language itself (the grammar and this package's
source) has changed since the last run, the statute is read back from the cache instead.

The cache can never change a result. Each entry is verified before use, and anything that does
not verify is ignored (and replaced by the next store), never trusted and never fatal:

1. A keyed MAC (HMAC-SHA256) over the whole entry and its file name. The key is 32 random bytes
   in the file `key` of the cache folder, created with mode 0600 and used only when it belongs to
   this user and no one else may read it (else a new one replaces it). A digest stored in the
   entry could be recomputed by whoever edits it; a MAC cannot be without the key, and someone
   able to read the key can just as well edit the encoding itself, which the cache does not
   protect against. So a hand-edited, crafted, damaged or foreign entry fails here, before a
   byte of it is decoded.
2. The hashes of its sources: the encoding's bytes, its official text's bytes and the language's
   source must all be those of this run.
3. The rebuilt AST must be well formed: every field of every node holds what its annotation
   says (dsl/ast.py), and no expression or clause contains itself or nests deeper than the
   parser allows, so later use cannot fail on an entry that somehow passed 1 and 2. Any
   exception while decoding (RecursionError, MemoryError, a wrong shape) means "ignore and
   rebuild". What a well-formed AST says is the MAC's to vouch for, not these checks'.

The entries hold plain data only (tuples, strings, numbers), written with `marshal` and rebuilt
into the AST's own classes from a fixed list: nothing in them is ever executed (the compiled
engine keeps its loops, which are code, in a folder of their own: dsl/kernel_cache.py). Entries are
written to a temporary file renamed into place; a failed write removes its temporary file, and
each store removes the ones older than STALE_SECONDS that a killed process left. Set
LEXTRACE_CACHE_DIR to move the cache, LEXTRACE_NO_CACHE=1 to turn it off.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import marshal
import os
import secrets
import stat
import sys
import tempfile
import time
import types
import typing
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

from . import ast, limits

FORMAT = 2
KEEP = 32
STALE_SECONDS = 600
MAX_ENTRY_BYTES = 64 * 1024 * 1024
_MAGIC = b"lextrace-cache\x00"
_KEY_FILE = "key"
_KEY_BYTES = 32
_TAG_BYTES = 32
_TEMP_PREFIX = "entry-"
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


def language_digest() -> str:
    """Returns the hash of the language's source, worked out once per process."""
    if not _LANGUAGE:
        _LANGUAGE.append(_language_digest())
    return _LANGUAGE[0]


def key(path: Path, encoding: bytes) -> str:
    """Returns the cache key of the encoding file at `path` with these bytes."""
    digest = hashlib.sha256(language_digest().encode())
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
    """Returns the statute rebuilt from `dump`'s data, every node checked against its class's
    annotations; raises ValueError (or any other exception, on data that was not made by
    `dump`) when it is not."""
    try:
        version, table, root = marshal.loads(data)
    except (EOFError, TypeError, ValueError) as error:
        raise ValueError(f"not a cache file: {error}") from error
    if version != FORMAT or type(table) is not list:
        raise ValueError("another cache format")
    objects: list[object] = []
    for entry in table:
        name, values = entry
        cls = _CLASSES.get(name) if type(name) is str else None
        if cls is None or type(values) is not list or len(values) != len(_FIELDS[name]):
            raise ValueError(f"unknown class {name!r} in the cache")
        objects.append(object.__new__(cls))

    def decode(value: object) -> object:
        if not isinstance(value, tuple):
            return value
        tag = value[0]
        if tag == "R":
            index = value[1]
            if type(index) is not int or not 0 <= index < len(objects):
                raise ValueError("a reference out of the table")
            return objects[index]
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
        checks = _field_checks(name)
        for field_name, value in zip(_FIELDS[name], values, strict=True):
            decoded = decode(value)
            if not checks[field_name](decoded):
                raise ValueError(f"{name}.{field_name} holds a {type(decoded).__name__}")
            setter(target, field_name, decoded)
    statute = decode(root)
    if type(statute) is not ast.Statute:
        raise ValueError("the cache does not hold a statute")
    _check_depth(objects)
    return statute


def _below(node: object) -> list[object]:
    """Returns the nodes a consumer recurses into from `node`: an expression's operands, a
    clause's subclauses."""
    if isinstance(node, ast.Clause):
        return [item for item in node.items if isinstance(item, ast.Clause)]
    found: list[object] = []
    for name in _FIELDS[type(node).__name__]:
        value = getattr(node, name)
        for part in value if isinstance(value, tuple) else (value,):
            for item in part if isinstance(part, tuple) else (part,):
                if isinstance(item, ast.Expr):
                    found.append(item)
    return found


def _check_depth(objects: list[object]) -> None:
    """Raises ValueError when the expressions or clauses of the table hold a cycle or nest
    deeper than the parser allows (limits.MAX_DEPTH): every consumer walks them recursively.
    The walk keeps its own stack."""
    depth: dict[int, int] = {}
    for root in objects:
        if not isinstance(root, ast.Expr | ast.Clause) or id(root) in depth:
            continue
        ancestors: set[int] = set()
        stack: list[tuple[object, bool]] = [(root, False)]
        while stack:
            node, finished = stack.pop()
            if finished:
                ancestors.discard(id(node))
                depth[id(node)] = 1 + max((depth[id(c)] for c in _below(node)), default=0)
                if depth[id(node)] > limits.MAX_DEPTH:
                    raise ValueError("nodes nested deeper than an encoding may nest them")
            elif id(node) in ancestors:
                raise ValueError("a node that contains itself")
            elif id(node) not in depth:
                ancestors.add(id(node))
                stack.append((node, True))
                stack.extend((child, False) for child in _below(node) if id(child) not in depth)


Check = Callable[[object], bool]
_CHECKS: dict[str, dict[str, Check]] = {}


def _field_checks(name: str) -> dict[str, Check]:
    """Returns a test per field of the AST class `name`, made once from its annotations."""
    if name not in _CHECKS:
        hints = typing.get_type_hints(_CLASSES[name], vars(ast))
        _CHECKS[name] = {field: _check_of(hints[field]) for field in _FIELDS[name]}
    return _CHECKS[name]


def _check_of(hint: object) -> Check:
    """Returns a test of whether a value is what the annotation `hint` of an AST field says;
    an annotation of any other kind refuses everything, so a new one cannot pass unchecked."""
    if hint is object:  # a clause's items: AST nodes
        return lambda value: type(value) in _NODE_TYPES
    if hint is type(None):
        return lambda value: value is None
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        options = [_check_of(arg) for arg in args]
        return lambda value: any(option(value) for option in options)
    if origin is typing.Literal:
        allowed = {(type(arg), arg) for arg in args}
        return lambda value: (type(value), value) in allowed
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        each = _check_of(args[0])
        return lambda value: type(value) is tuple and all(map(each, value))
    if origin is tuple:
        parts = [_check_of(arg) for arg in args]
        return lambda value: (
            type(value) is tuple
            and len(value) == len(parts)
            and all(part(item) for part, item in zip(parts, value, strict=True))
        )
    if origin is list:
        each = _check_of(args[0])
        return lambda value: type(value) is list and all(map(each, value))
    if origin is dict:
        keys, values = _check_of(args[0]), _check_of(args[1])
        return lambda value: (
            type(value) is dict and all(keys(k) and values(v) for k, v in value.items())
        )
    if hint in (int, bool, str, Fraction):
        return lambda value: type(value) is hint
    if isinstance(hint, type) and hint.__module__ == ast.__name__:
        kinds = frozenset(cls for cls in _NODE_TYPES if issubclass(cls, hint))
        return lambda value: type(value) in kinds
    return lambda value: False


_NODE_TYPES = frozenset(_CLASSES.values())


# ---- on disk --------------------------------------------------------------------------------
def source_text(data: bytes) -> str:
    """Returns an encoding's text from its bytes, as reading it in text mode would (UTF-8,
    every line ending made a newline); raises UnicodeDecodeError."""
    return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


def lookup(path: Path, encoding: bytes | None = None) -> ast.Statute | None:
    """Returns the cached statute of the encoding at `path` (whose bytes are `encoding`, read
    here when not given) when its entry verifies (see the module's docstring); None otherwise:
    absent, stale, damaged, forged, unreadable, or caching turned off."""
    folder = cache_dir()
    if folder is None:
        return None
    # Whatever goes wrong while reading an entry only means it is not used: the caller parses
    # the encoding instead. Nothing here may stop a command or change its result.
    try:
        if encoding is None:
            encoding = limits.read_bounded(path)
        secret = _secret(folder, create=False)
        if secret is None:
            return None
        name = f"{key(path, encoding)}.ast"
        body = _verified(_read_entry(folder / name), secret, name)
        if body is None:
            return None
        version, language, encoding_digest, official_name, official_digest, data = marshal.loads(
            body
        )
        if (
            version != FORMAT
            or language != language_digest()
            or encoding_digest != hashlib.sha256(encoding).hexdigest()
            or type(official_name) is not str
            or type(data) is not bytes
        ):
            return None
        official = limits.read_bounded(path.parent / official_name)
        if hashlib.sha256(official).hexdigest() != official_digest:
            return None
        statute = load_dump(data)
        if statute.official != official_name or statute.source != source_text(encoding):
            return None
        # The key is the file, however it was spelt when it was stored: name it as asked now.
        statute.path = str(path)
        return statute
    except Exception:
        return None


def store(
    path: Path, encoding: bytes, statute: ast.Statute, official_name: str, official: bytes
) -> None:
    """Keeps a checked statute for the next run: `encoding` is the bytes it was parsed from,
    `official` those of the official text named `official_name` (relative to the encoding).
    Written atomically; a cache that cannot be written is skipped silently (it only saves
    time), and leaves no temporary file behind."""
    folder = cache_dir()
    if folder is None:
        return
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        _remove_stale_temporaries(folder)
        secret = _secret(folder, create=True)
        if secret is None:
            return
        body = marshal.dumps(
            (
                FORMAT,
                language_digest(),
                hashlib.sha256(encoding).hexdigest(),
                official_name,
                hashlib.sha256(official).hexdigest(),
                dump(statute),
            )
        )
        name = f"{key(path, encoding)}.ast"
        entry = _MAGIC + _tag(secret, name, body) + body
        if len(entry) > MAX_ENTRY_BYTES:
            return
        target = folder / name
        if target.is_dir() and not target.is_symlink():
            target.rmdir()  # an empty folder in the entry's place; a full one stays, unused
        _write_atomically(folder, target, entry)
        _prune(folder)
    except Exception:
        return


def _tag(secret: bytes, name: str, body: bytes) -> bytes:
    """Returns the MAC of an entry's body under its file name."""
    return hmac.new(secret, name.encode() + b"\x00" + body, hashlib.sha256).digest()


def _verified(raw: bytes, secret: bytes, name: str) -> bytes | None:
    """Returns the body of the entry `raw` named `name` when its MAC verifies, else None."""
    head = len(_MAGIC) + _TAG_BYTES
    if len(raw) < head or not raw.startswith(_MAGIC):
        return None
    tag, body = raw[len(_MAGIC) : head], raw[head:]
    return body if hmac.compare_digest(tag, _tag(secret, name, body)) else None


def _read_entry(path: Path) -> bytes:
    """Returns the bytes of a cache entry; raises OSError, or ValueError past MAX_ENTRY_BYTES."""
    with path.open("rb") as handle:
        raw = handle.read(MAX_ENTRY_BYTES + 1)
    if len(raw) > MAX_ENTRY_BYTES:
        raise ValueError("a cache entry too large")
    return raw


def _secret(folder: Path, create: bool) -> bytes | None:
    """Returns the cache folder's key; when it is missing or not fit to use (not a regular file
    of this user's that only this user may read, or of the wrong size), a new one when `create`
    is set, else None."""
    path = folder / _KEY_FILE
    try:
        found: bytes | None = _read_key(path)
    except FileNotFoundError:
        found, exists = None, False
    else:
        exists = True
    if found is not None or not create:
        return found
    fd, temporary = tempfile.mkstemp(dir=folder, suffix=".tmp")  # mode 0600
    try:
        with os.fdopen(fd, "wb") as handle:
            _write(handle, secrets.token_bytes(_KEY_BYTES))
        if exists:
            os.replace(temporary, path)
        else:
            try:
                # A link, unlike a rename, fails when another process made the key first.
                os.link(temporary, path)
            except FileExistsError:
                return _read_key(path)
    finally:
        Path(temporary).unlink(missing_ok=True)
    return _read_key(path)


def _read_key(path: Path) -> bytes | None:
    """Returns the key stored at `path`, or None when it is not fit to use; raises
    FileNotFoundError when there is none."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        owner = getattr(os, "getuid", None)
        if (
            not stat.S_ISREG(info.st_mode)
            or (sys.platform != "win32" and stat.S_IMODE(info.st_mode) & 0o077)
            or (owner is not None and info.st_uid != owner())
            or info.st_size != _KEY_BYTES
        ):
            return None
        secret = handle.read(_KEY_BYTES + 1)
    return secret if len(secret) == _KEY_BYTES else None


def _write(handle: typing.BinaryIO, data: bytes) -> None:
    """Writes `data` to an open file (one place, so a full disk can be simulated)."""
    handle.write(data)


def _write_atomically(folder: Path, target: Path, data: bytes) -> None:
    """Writes `data` to `target` through a temporary file renamed into place; the temporary
    file is removed whatever fails."""
    fd, temporary = tempfile.mkstemp(dir=folder, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            _write(handle, data)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _remove_stale_temporaries(folder: Path) -> None:
    """Removes the temporary files of writes that a killed process (or one that crashed
    before its clean-up) left, once older than STALE_SECONDS; newer ones may be in use."""
    now = time.time()
    for temporary in folder.glob("tmp*.tmp"):
        try:
            if now - temporary.lstat().st_mtime > STALE_SECONDS:
                temporary.unlink()
        except OSError:
            continue


def _prune(folder: Path) -> None:
    """Keeps the most recent KEEP entries: every edited or mutated encoding makes a new one."""

    def modified(entry: Path) -> float:
        try:
            return entry.stat().st_mtime
        except OSError:
            return 0.0

    entries = sorted(folder.glob("*.ast"), key=modified, reverse=True)
    for stale in entries[KEEP:]:
        try:
            stale.unlink(missing_ok=True)
        except OSError:
            continue
