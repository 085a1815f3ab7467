"""Files the commands write: atomically, never half-way, never left behind.

An output is written to a temporary file beside it and renamed onto it only once everything is
written, so a failed run leaves any earlier file as it was. The temporary file is removed when
anything fails, when the process is stopped by SIGINT, SIGTERM or SIGHUP (see `stop_on_signals`),
and, after a `kill -9` that left no chance to, by the next run that writes to the same folder:
each temporary name carries the process id of its writer, and one whose writer is gone is
recognised as debris.

A file that cannot be written (a missing or read-only folder, a full disk, a quota) is the
user's problem, not a bug: `OutputError`, whose message names the file.
"""

from __future__ import annotations

import errno
import os
import re
import signal
import stat
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from types import FrameType
from typing import IO, Any

_TAG = ".lextrace-"
_OWN = re.compile(r"^\..+\.lextrace-(\d+)-[^/]*\.tmp$")
_STOPPING = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_PENDING: set[str] = set()  # temporary files of this process not yet renamed into place
WRITE_FAILURES = frozenset(
    {errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS, errno.EIO, errno.EACCES, errno.EPERM}
)


class OutputError(Exception):
    """A file (or standard output) that cannot be written; the message names it."""


class Stopped(BaseException):
    """The process was asked to stop by a signal; `signal` is its number.

    A BaseException, like KeyboardInterrupt, so that no `except Exception` swallows it on the
    way out and every `finally` (removing temporary files, closing writers) runs."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signal = signum

    @property
    def name(self) -> str:
        """The signal's name, such as SIGTERM."""
        return signal.Signals(self.signal).name


def cannot_write(output: str, error: OSError) -> OutputError:
    """Returns the error telling that `output` cannot be written, and why."""
    # Arrow's errors carry the errno and its own wording ("Error writing bytes to file. ...").
    reason = os.strerror(error.errno) if error.errno else error.strerror or error
    return OutputError(f"{output}: cannot write: {reason}")


@contextmanager
def atomic_file(output: str, mode: str) -> Iterator[IO[Any]]:
    """Yields a temporary file beside `output`, renamed onto it once everything is written and
    removed if anything fails or the process is stopped, so that a failed run never leaves half
    a file. Raises OutputError (naming `output`) when it cannot be written, disk full included.
    """
    target = Path(output)
    folder = target.parent if str(target.parent) else Path(".")
    remove_debris(folder)
    caught: list[tuple[int, Any]] = []
    # A signal between the file's creation and its registration would leave it behind: the
    # stopping signals are held until it is registered, then acted on inside the `try` that
    # removes it.
    with _signals_held(caught):
        try:
            handle = tempfile.NamedTemporaryFile(  # noqa: SIM115 - renamed or removed below
                mode,
                encoding="utf-8" if "b" not in mode else None,
                dir=folder,
                prefix=f".{target.name}{_TAG}{os.getpid()}-",
                suffix=".tmp",
                delete=False,
            )
        except OSError as error:  # a missing or read-only folder
            raise cannot_write(output, error) from None
        _PENDING.add(handle.name)
    try:
        try:
            for signum, handler in caught:
                _deliver(signum, handler)
            with handle:
                yield handle
            # The temporary file is private (0600); the result gets the mode a file written
            # there directly would have: the replaced file's, else what the umask allows.
            os.chmod(handle.name, _mode_for(target))
            os.replace(handle.name, target)
        except OSError as error:
            if error.errno not in WRITE_FAILURES or error.filename not in (None, handle.name):
                raise
            raise cannot_write(output, error) from None
    except BaseException:
        Path(handle.name).unlink(missing_ok=True)
        raise
    finally:
        _PENDING.discard(handle.name)


@contextmanager
def _signals_held(caught: list[tuple[int, Any]]) -> Iterator[None]:
    """Records the stopping signals that arrive inside the block, with the handler each had,
    instead of acting on them (Python runs a handler between any two steps, even inside
    `tempfile`); outside the main thread, which alone may set handlers, holds nothing."""
    if not threading_main():
        yield
        return

    def record(signum: int, frame: FrameType | None) -> None:
        caught.append((signum, previous[signum]))

    previous: dict[int, Any] = {}
    for signum in _STOPPING:
        previous[signum] = signal.signal(signum, record)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


@contextmanager
def stops_held() -> Iterator[None]:
    """Runs the block whole: a stopping signal that arrives inside it (SIGINT, SIGTERM, SIGHUP)
    is acted on as soon as the block ends, not half-way through it. For steps that must not
    be cut short, such as starting a pool of worker processes."""
    caught: list[tuple[int, Any]] = []
    try:
        with _signals_held(caught):
            yield
    finally:
        if caught:
            _deliver(*caught[0])


def _deliver(signum: int, handler: Any) -> None:
    """Acts on a signal held by `_signals_held` as its handler would have."""
    if handler is signal.SIG_IGN:
        return
    if callable(handler):
        handler(signum, None)
        return
    _remove_pending()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)  # the default action: the process ends here


def write_text(path: Path, text: str) -> None:
    """Writes a text file atomically (see `atomic_file`)."""
    with atomic_file(str(path), "w") as handle:
        handle.write(text)


def _mode_for(target: Path) -> int:
    """Returns the permission bits an output written at `target` should have: those of the
    file it replaces, else 0666 less the process's umask (as `open` would create it)."""
    try:
        return stat.S_IMODE(target.stat().st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def remove_debris(folder: Path) -> list[Path]:
    """Removes the temporary outputs in `folder` left by lextrace processes that no longer run
    (killed before they could clean up); returns what it removed. Files of running processes,
    and files that are not lextrace's, are left alone."""
    removed = []
    try:
        names = os.listdir(folder)
    except OSError:
        return removed
    for name in names:
        found = _OWN.match(name)
        if found is None or _running(int(found.group(1))):
            continue
        path = folder / name
        try:
            path.unlink()
        except OSError:
            continue
        removed.append(path)
    return removed


def _running(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return True  # another user's process, or a name that only looks like ours
    return True


def _remove_pending() -> None:
    for name in list(_PENDING):
        with suppress(OSError):
            os.unlink(name)


def stop_on_signals() -> Callable[[], None]:
    """Makes SIGTERM and SIGHUP stop the command as Ctrl-C does: the temporary outputs are
    removed at once (should the process be killed next), then `Stopped` unwinds the command.
    Returns a function that restores the previous handlers."""

    def handle(signum: int, frame: FrameType | None) -> None:
        _remove_pending()
        raise Stopped(signum)

    previous: dict[int, Any] = {}
    if threading_main():
        for signum in (signal.SIGTERM, signal.SIGHUP):
            previous[signum] = signal.signal(signum, handle)

    def restore() -> None:
        for signum, handler in previous.items():
            signal.signal(signum, handler)

    return restore


def threading_main() -> bool:
    """True in the main thread, the only one that may set signal handlers."""
    import threading

    return threading.current_thread() is threading.main_thread()


def quiet_stdout() -> None:
    """Points standard output at /dev/null once its reader has gone (a closed pipe), so that
    the interpreter's last flush at exit raises nothing."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


class ForgivingStderr:
    """Standard error that a reader gone away does not break (`lextrace check 2>&1 | head`):
    the messages past that point are dropped, and the command runs on to the exit code it
    owes. A closed pipe must not end a failing check with success."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream
        self.closed_pipe = False

    @property
    def encoding(self) -> str:
        return getattr(self.stream, "encoding", None) or "utf-8"

    @property
    def errors(self) -> str:
        return getattr(self.stream, "errors", None) or "strict"

    def write(self, text: str) -> int:
        """Writes `text` unless the reader has gone; returns its length either way."""
        if not self.closed_pipe:
            try:
                self.stream.write(text)
            except OSError as error:
                if error.errno != errno.EPIPE:
                    raise
                self.closed_pipe = True
        return len(text)

    def flush(self) -> None:
        """Flushes unless the reader has gone."""
        if not self.closed_pipe:
            try:
                self.stream.flush()
            except OSError as error:
                if error.errno != errno.EPIPE:
                    raise
                self.closed_pipe = True

    def isatty(self) -> bool:
        return self.stream.isatty()

    def fileno(self) -> int:
        return self.stream.fileno()

    def writable(self) -> bool:
        return True


@contextmanager
def forgiving_stderr() -> Iterator[None]:
    """Makes standard error forgiving (see ForgivingStderr) for the duration; afterwards, when
    its reader went away, points it at /dev/null so that the exit's flush raises nothing."""
    wrapped = ForgivingStderr(sys.stderr)
    sys.stderr = wrapped  # type: ignore[assignment]
    try:
        yield
    finally:
        sys.stderr = wrapped.stream  # type: ignore[assignment]
        if wrapped.closed_pipe:
            with suppress(OSError, ValueError):
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, sys.stderr.fileno())
