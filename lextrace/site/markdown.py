"""Small Markdown helpers shared by the generated pages."""

from __future__ import annotations

import html
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


def stacked_table(header: list[str], rows: list[list[str]]) -> str:
    """Returns a table that narrow screens show as one card per row, each cell under its
    column's name (the `data-label` the stylesheet shows); every cell must be Markdown.

    One row per line: `<tr markdown>` then its cells, each `<td data-label=... markdown="span">`.
    """
    head = "".join(f"<th>{html.escape(name)}</th>" for name in header)
    lines = ['<div class="stacked-table" markdown>', "<table markdown>"]
    lines += [f"<thead><tr>{head}</tr></thead>", "<tbody markdown>"]
    for row in rows:
        cells = "".join(
            f'<td data-label="{html.escape(name)}" markdown="span">{" ".join(text.split())}</td>'
            for name, text in zip(header, row, strict=True)
        )
        lines.append(f"<tr markdown>{cells}</tr>")
    lines += ["</tbody>", "</table>", "</div>"]
    return "\n".join(lines)


def code(text: str, language: str = "lextrace") -> str:
    """Returns a fenced code block."""
    return f"```{language}\n{text.rstrip()}\n```"
