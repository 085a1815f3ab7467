"""Diagnostics: every problem in an encoding, located by file, line and column.

A diagnostic renders like a compiler message: `file:line:col: error: ...`, the offending source
line, a caret under the spot, and what was expected in plain words.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from . import ast

Severity = Literal["error", "warning"]


def line_column(source: str, offset: int) -> tuple[int, int]:
    """Returns the 1-based line and column of an offset in `source`."""
    return source.count("\n", 0, offset) + 1, offset - (source.rfind("\n", 0, offset) + 1) + 1


def quoted(words: str) -> str:
    """Returns a statute's words quoted for a message: in “ ” unless they hold quotation marks
    of their own (a defined term such as “Gold”), then in « » so that the two are told apart."""
    if any(mark in words for mark in '“”"'):
        return f"«{words}»"
    return f"“{words}”"


@dataclass(frozen=True)
class Diagnostic:
    """One problem found in an encoding."""

    path: str
    line: int
    column: int
    message: str
    severity: Severity = "error"
    clause: str | None = None
    hint: str | None = None
    detail: str | None = None
    width: int = 1

    def render(self, source: str | None) -> str:
        """Returns the message with the source line and a caret under the column."""
        where = f" [{self.clause}]" if self.clause else ""
        lines = [f"{self.path}:{self.line}:{self.column}: {self.severity}{where}: {self.message}"]
        if source is not None:
            source_lines = _lines(source)
            if 1 <= self.line <= len(source_lines):
                text = source_lines[self.line - 1].replace("\t", " ")
                gutter = f"{self.line:>5} | "
                lines.append(gutter + text)
                caret_width = max(1, min(self.width, len(text) - self.column + 1))
                lines.append(" " * (len(gutter) + self.column - 1) + "^" * caret_width)
        if self.detail:
            lines.extend("      " + part for part in self.detail.splitlines())
        if self.hint:
            lines.append(f"      hint: {self.hint}")
        return "\n".join(lines)


@functools.lru_cache(maxsize=4)
def _lines(source: str) -> tuple[str, ...]:
    # Split once per source: a file with thousands of diagnostics renders each of them.
    return tuple(source.splitlines())


class EncodingError(Exception):
    """Raised when an encoding cannot be used; carries every diagnostic found."""

    def __init__(self, diagnostics: list[Diagnostic], source: str | None) -> None:
        self.diagnostics = diagnostics
        self.source = source
        super().__init__(self.render())

    def render(self) -> str:
        """Returns all diagnostics, rendered, followed by a count."""
        parts = [d.render(self.source) for d in self.diagnostics]
        errors = sum(1 for d in self.diagnostics if d.severity == "error")
        # The closing line `lextrace check` prints, so every command ends the same errors alike.
        where = f"{self.diagnostics[0].path}: " if self.diagnostics else ""
        parts.append(
            f"{where}{errors} error{'s' if errors != 1 else ''}; the encoding is not usable"
        )
        return "\n".join(parts)


class ScenarioError(Exception):
    """A scenario that breaks the input contract: names the field, the expectation, the value."""

    def __init__(self, problems: list[FieldProblem], source: str | None = None) -> None:
        self.problems = problems
        self.source = source
        super().__init__(self.render())

    @property
    def field(self) -> str:
        """The first offending field (the whole scenario is `<scenario>`)."""
        return self.problems[0].field

    def render(self) -> str:
        """Returns one line per problem, prefixed with the scenario's source when known."""
        prefix = f"{self.source}: " if self.source else ""
        return "\n".join(prefix + problem.render() for problem in self.problems)


@dataclass(frozen=True)
class FieldProblem:
    """What is wrong with one field of a scenario."""

    field: str
    expected: str
    given: str
    hint: str | None = None

    def render(self) -> str:
        """Returns `field 'x': expected ..., given ...` with a hint when there is one."""
        # Only the whole file and the whole scenario go unnamed: a field a user wrote as
        # "<new_jobs>" (a template's placeholder) is named like any other.
        where = "" if self.field in ("<file>", "<scenario>") else f"field '{self.field}': "
        text = f"{where}expected {self.expected}, given {self.given}"
        if self.hint:
            text += f" ({self.hint})"
        return text


def diagnostic_at(
    statute: ast.Statute,
    span: ast.Span,
    message: str,
    clause: ast.Clause | None = None,
    hint: str | None = None,
    severity: str = "error",
) -> Diagnostic:
    """Returns the diagnostic of a problem of the encoding at `span` (its file, line, column
    and width), cited by the clause it falls in when there is one."""
    return Diagnostic(
        statute.path,
        span.line,
        span.column,
        message,
        severity="warning" if severity == "warning" else "error",
        clause=statute.citation(clause) if clause is not None else None,
        hint=hint,
        width=max(1, span.end - span.start) if span.end_line == span.line else 1,
    )
