"""Load an encoding from disk: parse, check statically, and prove its text faithful.

`analyse` returns every diagnostic (for `lextrace check`); `load` returns a usable statute or
raises EncodingError with all the errors found.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from . import ast, cache
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


def read_source(path: Path) -> str:
    """Returns the text of an encoding file; raises EncodingError when it cannot be read."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        problem = "no such file"
    except IsADirectoryError:
        problem = "is a directory, not an encoding file"
    except UnicodeDecodeError as error:
        problem = f"is not UTF-8 text (byte {error.start})"
    except OSError as error:
        problem = error.strerror or "cannot be read"
    raise EncodingError([Diagnostic(str(path), 1, 1, f"cannot read the encoding: {problem}")], None)


def analyse(path: str | Path, official: str | Path | None = None) -> Analysis:
    """Returns the analysis of the encoding at `path`: syntax, static checks and fidelity.

    The official text is the file named by the encoding's `official` header (relative to the
    encoding) unless `official` is given. Raises EncodingError only when the file cannot be read.
    """
    # Imported here: a statute read back from the parse cache needs neither the parser (and
    # Lark) nor the checks.
    from .checker import check_statute
    from .fidelity import check_fidelity
    from .parser import parse_encoding

    path = Path(path)
    source = read_source(path)
    try:
        statute, diagnostics = parse_encoding(source, str(path))
    except EncodingError as error:
        return Analysis(str(path), source, None, error.diagnostics)
    diagnostics = diagnostics + check_statute(statute)
    official_path = Path(official) if official else path.parent / statute.official
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
        official_text = official_path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        diagnostics.append(
            Diagnostic(
                str(path),
                1,
                1,
                f"cannot read the official text {official_path}: "
                f"{getattr(error, 'strerror', None) or error}",
            )
        )
        return Analysis(str(path), source, statute, diagnostics, str(official_path))
    diagnostics += check_fidelity(statute, official_text, str(official_path))
    return Analysis(str(path), source, statute, diagnostics, str(official_path))


def load(path: str | Path) -> ast.Statute:
    """Returns the statute encoded at `path`, checked and faithful to its official text.

    Raises EncodingError carrying every error found (warnings do not stop loading).
    """
    path = Path(path)
    cached = cache.lookup(path)
    if cached is not None:
        return cached
    analysis = analyse(path)
    if analysis.errors or analysis.statute is None:
        raise EncodingError(analysis.errors, analysis.source)
    if analysis.official_path:
        cache.store(path, analysis.statute, Path(analysis.official_path))
    return analysis.statute
