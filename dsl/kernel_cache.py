"""Compiled kernels kept on disk, so that only the first run of an encoding compiles its loop.

numba keeps the machine code of a function compiled with `cache=True` beside the file that
defines it (in its `__pycache__`), and uses it again while that file is unchanged. A kernel is
generated text (dsl/kernel.py), so it is written to a module of its own, named by the hash of
its text, in the folder `kernels` of the parse cache's folder (dsl/cache.py; LEXTRACE_CACHE_DIR
moves it, LEXTRACE_NO_CACHE=1 turns this off too).

That module is imported, so it is executed: it is used only when its bytes are exactly the text
just generated, in a folder of this user's that no one else may write to. A module that differs
(edited, damaged, half-written) is written anew; a folder that does not qualify is not used,
and the kernel is compiled in memory as without a cache. Nothing here can change a result: the
same text gives the same function, whether numba loads its machine code or compiles it again.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import stat
import sys
import tempfile
from pathlib import Path
from types import ModuleType

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


def module(text: str) -> ModuleType | None:
    """Returns the generated module of `text` imported from the kernel folder (written there
    first when it is missing or differs), with CACHE set so that numba keeps what it compiles;
    None when there is no usable folder or the file cannot be written."""
    where = folder()
    if where is None:
        return None
    name = PREFIX + hashlib.sha256(text.encode()).hexdigest()[:32]
    path = where / f"{name}.py"
    data = text.encode()
    try:
        if not _holds(path, data):
            _write_atomically(where, path, data)
    except OSError:
        return None
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        return None
    loaded = importlib.util.module_from_spec(spec)
    loaded.CACHE = True  # type: ignore[attr-defined]
    # The file is read again by the import: compare what is executed, not what was checked.
    source = spec.loader.get_data(str(path))  # type: ignore[attr-defined]
    if source != data:
        return None
    # numba names a compiled function's module, and finds it again by that name when it
    # loads the machine code: the module must be importable by name.
    sys.modules[name] = loaded
    exec(compile(source, str(path), "exec"), loaded.__dict__)
    return loaded


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
