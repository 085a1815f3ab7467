"""Small Markdown helpers shared by the generated pages."""

from __future__ import annotations

import re

_SPECIAL = re.compile(r"([\\`*_\[\]<>|#])")


def escape(text: str) -> str:
    """Returns text with Markdown's special characters escaped, to be shown as written."""
    return _SPECIAL.sub(r"\\\1", text)


def cell(text: str) -> str:
    """Returns text safe inside a Markdown table cell (one line, pipes escaped)."""
    return " ".join(text.split()).replace("|", "\\|")


def table(header: list[str], rows: list[list[str]]) -> str:
    """Returns a Markdown table; every cell must already be Markdown."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines.extend("| " + " | ".join(cell(c) for c in row) + " |" for row in rows)
    return "\n".join(lines)


def code(text: str, language: str = "lextrace") -> str:
    """Returns a fenced code block."""
    return f"```{language}\n{text.rstrip()}\n```"
