"""Fidelity: the words carried in an encoding equal the official text, whitespace aside.

The encoding's labels and text pieces, read in document order, must reproduce the official text
word for word. Each difference is reported at the encoding's file:line:column, with the clause it
falls in and the words on both sides.
"""

from __future__ import annotations

import bisect
import difflib
import re
from dataclasses import dataclass

from . import ast
from .errors import Diagnostic, quoted

_WORD = re.compile(r"\S+")


@dataclass(frozen=True)
class CarriedWord:
    """A word of the encoding's carried text, where it stands, and the clause it belongs to."""

    text: str
    offset: int
    clause: ast.Clause


def carried_words(statute: ast.Statute) -> list[CarriedWord]:
    """Returns every word the encoding carries (labels included, but not the label of a
    section marked `unlabelled`), in document order."""
    words: list[CarriedWord] = []

    def visit(clause: ast.Clause) -> None:
        if clause.label_carried:
            words.extend(
                CarriedWord(word, clause.span.start, clause) for word in clause.label.split()
            )
        for item in clause.items:
            if isinstance(item, ast.TextPiece):
                # The words as written (escapes and all), so that each keeps its offset; each
                # is compared as it reads.
                base = item.span.start + 1  # after the opening quote
                written = statute.source[base : item.span.end - 1]
                words.extend(
                    CarriedWord(ast.unescape(match.group()), base + match.start(), clause)
                    for match in _WORD.finditer(written)
                )
            elif isinstance(item, ast.Clause):
                visit(item)

    for section in statute.sections:
        visit(section)
    return words


def carried_text(statute: ast.Statute) -> str:
    """Returns the statute's text as the encoding carries it, whitespace-normalised."""
    return " ".join(word.text for word in carried_words(statute))


def normalise(text: str) -> str:
    """Returns `text` with every run of whitespace replaced by one space."""
    return " ".join(text.split())


class _Positions:
    def __init__(self, source: str) -> None:
        self.starts = [0] + [i + 1 for i, char in enumerate(source) if char == "\n"]

    def line_column(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1] + 1


def _quote(words: list[str], limit: int = 12) -> str:
    if not words:
        return "(nothing)"
    return quoted(" ".join(words[:limit]) + (" ..." if len(words) > limit else ""))


def check_fidelity(
    statute: ast.Statute, official_text: str, official_path: str
) -> list[Diagnostic]:
    """Returns one diagnostic per place where the carried text differs from the official text.

    The comparison is word by word after whitespace normalisation; an empty list means the
    encoding carries the official text exactly.
    """
    encoded = carried_words(statute)
    official = official_text.split()
    matcher = difflib.SequenceMatcher(None, official, [w.text for w in encoded], autojunk=False)
    positions = _Positions(statute.source)
    diagnostics: list[Diagnostic] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        anchor_index = min(j1, len(encoded) - 1)
        anchor = encoded[anchor_index]
        line, column = positions.line_column(anchor.offset)
        context_before = [w.text for w in encoded[max(0, j1 - 4) : j1]]
        official_words = official[i1:i2]
        carried = [w.text for w in encoded[j1:j2]]
        if tag == "replace":
            message = (
                f"the carried text says {_quote(carried)} where the official text says "
                f"{_quote(official_words)}"
            )
        elif tag == "delete":
            message = f"the carried text leaves out {_quote(official_words)}"
        else:
            message = f"the carried text adds {_quote(carried)}, which the official text lacks"
        width = len(encoded[j1].text) if j2 > j1 else 1
        diagnostics.append(
            Diagnostic(
                statute.path,
                line,
                column,
                message,
                clause=statute.citation(anchor.clause),
                detail=f"after {_quote(['...', *context_before])}\nofficial text: {official_path}",
                hint="carry the statute's words verbatim; only whitespace may differ",
                width=width,
            )
        )
    return diagnostics
