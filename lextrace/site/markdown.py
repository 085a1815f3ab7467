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


# How much Material's search weighs a page's sections (`search.boost`): the statute's words rank
# above the worked examples. An example's title names its facts ("Labor harmony business wide")
# and its trace repeats every clause's terms, and the search weighs a match in a title a thousand
# times one in the text, while a clause's heading is its citation alone: only a weight this low
# keeps the statute first. An example is still found, by its own words, on a search for them.
STATUTE_BOOST = 2.0
EXAMPLE_BOOST = 0.01


def front_matter(hide_toc: bool = False, boost: float | None = None) -> str:
    """Returns a page's YAML front matter: the contents list hidden, the page's search rank
    weighted by `boost`."""
    lines = ["---"]
    if hide_toc:
        lines += ["hide:", "  - toc"]
    if boost is not None:
        lines += ["search:", f"  boost: {boost:g}"]
    return "\n".join([*lines, "---"])


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
