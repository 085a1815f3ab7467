"""Compiled kernels kept on disk, so that only the first run of an encoding compiles its loop.

numba keeps the machine code of a function compiled with `cache=True` beside the file that
defines it (in its `__pycache__`), and uses it again while that file is unchanged. A kernel is
generated text (dsl/kernel.py), so it is written to a module of its own, named by the hash of
its text, in the folder `kernels` of the parse cache's folder (dsl/cache.py; LEXTRACE_CACHE_DIR
moves it, LEXTRACE_NO_CACHE=1 turns this off too).

That module is executed (by dsl/kernel.py, the generator): it is used only when its bytes are
exactly the text just generated, in a folder of this user's that no one else may write to. A
module that differs (edited, damaged, half-written) is written anew; a folder that does not
qualify is not used, and the kernel is compiled in memory as without a cache. Nothing here can
change a result: the same text gives the same function, whether numba loads its machine code or
compiles it again.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import stat
import sys
import tempfile
from pathlib import Path
from typing import Any, NamedTuple

from .cache import cache_dir

FOLDER = "kernels"
PREFIX = "kernel_"


def folder() -> Path | None:
    """Returns the folder of the kept kernels, made when missing; None when caching is off or
    the folder is not fit to hold code that runs (not this user's, or writable by others)."""
    base = cache_dir()
    if base is None:
        return None
    path = base / FOLDER
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        return path if _private(path) and _private(base) else None
    except OSError:
        return None


def _private(path: Path) -> bool:
    """True for a real folder of this user's that no one else may write to."""
    info = path.lstat()
    owner = getattr(os, "getuid", None)
    return (
        stat.S_ISDIR(info.st_mode)
        and (owner is None or info.st_uid == owner())
        and (sys.platform == "win32" or not stat.S_IMODE(info.st_mode) & 0o022)
    )


class Kept(NamedTuple):
    """A kernel module ready to be executed: the namespace of a module registered by its
    name, the file it comes from and the source read back from that file."""

    namespace: dict[str, Any]
    filename: str
    source: bytes


def prepared(text: str) -> Kept | None:
    """Returns the module for the generated `text` in the kernel folder (written there first
    when it is missing or differs), registered and with CACHE set, so that numba keeps what it
    compiles: executing `source` in `namespace` (dsl/kernel.py does) defines the kernel. None
    when there is no usable folder, the file cannot be written, or it does not read back as
    `text`."""
    where = folder()
    if where is None:
        return None
    name = PREFIX + hashlib.sha256(text.encode()).hexdigest()[:32]
    path = where / f"{name}.py"
    data = text.encode()
    try:
        if not _holds(path, data):
            _write_atomically(where, path, data)
        # What is executed is what is read now, compared again: not what was checked before.
        source = path.read_bytes()
    except OSError:
        return None
    spec = importlib.util.spec_from_file_location(name, path)
    if source != data or spec is None:
        return None
    module = importlib.util.module_from_spec(spec)
    module.CACHE = True  # type: ignore[attr-defined]
    # numba names a compiled function's module, and finds it again by that name when it
    # loads the machine code: the module must be importable by name.
    sys.modules[name] = module
    return Kept(module.__dict__, str(path), source)


def _holds(path: Path, data: bytes) -> bool:
    """True when `path` is a regular file of this user's holding exactly `data`."""
    try:
        info = path.lstat()
    except FileNotFoundError:
        return False
    owner = getattr(os, "getuid", None)
    if not stat.S_ISREG(info.st_mode) or (owner is not None and info.st_uid != owner()):
        return False
    return info.st_size == len(data) and path.read_bytes() == data


def _write_atomically(where: Path, path: Path, data: bytes) -> None:
    """Writes `data` to `path` through a temporary file renamed into place."""
    fd, temporary = tempfile.mkstemp(dir=where, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temporary, path)
    finally:
        Path(temporary).unlink(missing_ok=True)
