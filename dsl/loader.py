"""Load an encoding from disk: parse, check statically, and prove its text faithful.

`analyse` returns every diagnostic (for `lextrace check`); `load` returns a usable statute or
raises EncodingError with all the errors found.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from . import ast, cache, limits
from .errors import Diagnostic, EncodingError


@dataclass
class Analysis:
    """What checking an encoding found: the statute (when it parsed) and the diagnostics."""

    path: str
    source: str
    statute: ast.Statute | None
    diagnostics: list[Diagnostic]
    official_path: str | None = None

    @property
    def errors(self) -> list[Diagnostic]:
        """The diagnostics that make the encoding unusable."""
        return [d for d in self.diagnostics if d.severity == "error"]

    @property
    def warnings(self) -> list[Diagnostic]:
        """The diagnostics that are advice only."""
        return [d for d in self.diagnostics if d.severity == "warning"]


def read_text(path: Path, what: str, kind: str) -> tuple[bytes, str]:
    """Returns the bytes of a text file (the `what`, an encoding or an official text) and its
    text (line endings made newlines); raises EncodingError naming it when it cannot be read,
    is not UTF-8 or is larger than the limit (`kind` says what a directory is not)."""
    try:
        data = limits.read_bounded(path)
        return data, cache.source_text(data)
    except limits.TooLarge as error:
        problem = f"it has {limits.describe_size(error.size)}"
    except FileNotFoundError:
        problem = "no such file"
    except IsADirectoryError:
        problem = f"is a directory, not {kind}"
    except UnicodeDecodeError as error:
        problem = f"is not UTF-8 text (byte {error.start})"
    except OSError as error:
        problem = error.strerror or "cannot be read"
    raise EncodingError([Diagnostic(str(path), 1, 1, f"cannot read the {what}: {problem}")], None)


def read_encoding(path: Path) -> tuple[bytes, str]:
    """Returns the bytes of an encoding file and its text (see `read_text`)."""
    return read_text(path, "encoding", "an encoding file")


def read_source(path: Path) -> str:
    """Returns the text of an encoding file; raises EncodingError when it cannot be read."""
    return read_encoding(path)[1]


def analyse(path: str | Path, official: str | Path | None = None) -> Analysis:
    """Returns the analysis of the encoding at `path`: syntax, static checks and fidelity.

    The official text is the file named by the encoding's `official` header (relative to the
    encoding) unless `official` is given. An encoding found usable against its own official
    text is stored in the parse cache, replacing whatever entry it had, so that the cache holds
    what this analysis saw. Raises EncodingError only when the file cannot be read.
    """
    path = Path(path)
    data, source = read_encoding(path)
    return _analyse(path, data, source, Path(official) if official else None)


def analyse_text(path: str | Path, source: str, official: str | Path | None = None) -> Analysis:
    """Returns the analysis of `source` as the text of the encoding at `path` (an editor's
    unsaved buffer, say): the same checks as `analyse`, the official text read from disk
    beside `path` (or `official`). Nothing is read from `path` itself and nothing is stored in
    the parse cache."""
    data = source.encode("utf-8")
    text = cache.source_text(data)
    return _analyse(Path(path), data, text, Path(official) if official else None, False)


def _analyse(
    path: Path, data: bytes, source: str, official: Path | None, store: bool = True
) -> Analysis:
    """Returns the analysis of the encoding at `path` read as `data` (its text `source`);
    `store` says whether a usable result goes into the parse cache."""
    # Imported here: a statute read back from the parse cache needs neither the parser (and
    # Lark) nor the checks.
    from .checker import check_statute
    from .fidelity import check_fidelity
    from .parser import parse_encoding

    try:
        statute, diagnostics = parse_encoding(source, str(path))
    except EncodingError as error:
        return Analysis(str(path), source, None, error.diagnostics)
    diagnostics = diagnostics + check_statute(statute)
    own_official = path.parent / statute.official
    official_path = official or own_official
    if not statute.official and official is None:
        diagnostics.append(
            Diagnostic(
                str(path),
                1,
                1,
                "the header names no official text",
                hint='add: official "the-statute.txt"',
            )
        )
        return Analysis(str(path), source, statute, diagnostics)
    try:
        official_data = limits.read_bounded(official_path)
        official_text = cache.source_text(official_data)
    except (OSError, UnicodeDecodeError, limits.TooLarge) as error:
        if isinstance(error, limits.TooLarge):
            problem = f"it has {limits.describe_size(error.size)}"
        else:
            problem = f"{getattr(error, 'strerror', None) or error}"
        diagnostics.append(
            Diagnostic(str(path), 1, 1, f"cannot read the official text {official_path}: {problem}")
        )
        return Analysis(str(path), source, statute, diagnostics, str(official_path))
    diagnostics += check_fidelity(statute, official_text, str(official_path))
    analysis = Analysis(str(path), source, statute, diagnostics, str(official_path))
    usable = not analysis.errors and statute.official
    if store and usable and same_file(official_path, own_official):
        cache.store(path, data, statute, statute.official, official_data)
    return analysis


def same_file(one: str | Path, other: str | Path) -> bool:
    """Returns whether two paths name one existing file (another spelling, a hard or symbolic
    link included)."""
    try:
        return os.path.samefile(one, other)
    except OSError:  # one of them does not exist: they cannot be one file
        return False


def load(path: str | Path) -> ast.Statute:
    """Returns the statute encoded at `path`, checked and faithful to its official text.

    The file is read once; the parse cache answers when its entry verifies, else the encoding
    is analysed (and the entry replaced). Raises EncodingError carrying every error found
    (warnings do not stop loading).
    """
    path = Path(path)
    data, source = read_encoding(path)
    cached = cache.lookup(path, data)
    if cached is not None:
        return cached
    analysis = _analyse(path, data, source, None)
    if analysis.errors or analysis.statute is None:
        raise EncodingError(analysis.errors, analysis.source)
    return analysis.statute
