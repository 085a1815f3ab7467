"""The bounds on what is read as an encoding or an official text: size, nesting, parse time.

An encoding is a statute's text with its rules, tens of kilobytes (the bundled one is about
40 KB), so every bound is generous for a real statute and small enough that the worst input
within them is refused, or checked, in seconds:

- MAX_TEXT_BYTES: an encoding, and an official text, is read only up to 1 MiB (25 times the
  bundled one; parsing costs memory by the token, some 500 MB for 4 MiB of minus signs).
- MAX_NESTING: parentheses, braces and brackets nest at most 64 deep; a scan of the text, before
  the parser runs, reports the line and column where the limit is passed.
- MAX_DEPTH: the parse tree is at most 100 levels deep (clauses within clauses, and operators:
  `- - x`, a chain of `+` or of `if ... then ... else`, each adds a level). Every consumer of the
  AST (the checker, the evaluator, the generated fast path, the proofs) walks it recursively,
  so this is what keeps them within Python's recursion limit.
- MAX_TOKENS: an encoding has at most 100,000 tokens (words, numbers, symbols and quoted texts;
  the bundled one has about 2,100). Parsing costs time and memory by the token, so this is what
  bounds both on inputs that pack a token into every byte.
- PARSE_SECONDS: parsing (every re-parse made to report further syntax errors included) stops
  after this long; the parser is fed token by token, so the budget is checked as it goes.
"""

from __future__ import annotations

import os
from pathlib import Path

MAX_TEXT_BYTES = 1024 * 1024
MAX_NESTING = 64
MAX_DEPTH = 100
MAX_TOKENS = 100_000
PARSE_SECONDS = 10.0


class TooLarge(Exception):
    """A file larger than MAX_TEXT_BYTES; `size` is its size in bytes (at least the cap + 1)."""

    def __init__(self, size: int) -> None:
        self.size = size
        super().__init__(describe_size(size))


def describe_size(size: int) -> str:
    """Returns the words for a file too large to read: its size and the cap."""
    mib = f"{MAX_TEXT_BYTES / 2**20:g} MiB"
    return f"{size:,} bytes, more than the {MAX_TEXT_BYTES:,} bytes ({mib}) an encoding may have"


def read_bounded(path: Path) -> bytes:
    """Returns the bytes of the file at `path`; raises TooLarge beyond MAX_TEXT_BYTES (nothing
    more than the cap is ever read) and OSError when it cannot be read."""
    with path.open("rb") as handle:
        data = handle.read(MAX_TEXT_BYTES + 1)
        if len(data) > MAX_TEXT_BYTES:
            raise TooLarge(max(os.fstat(handle.fileno()).st_size, len(data)))
    return data
