"""Coverage: how each clause of the statute is accounted for.

A clause is *encoded* (it holds rules), *discretionary* or *text only* (its words are marked,
with a reason), or *introductory* (its words introduce subclauses that are accounted for).
A clause can be encoded and also carry a marked sentence (the staff analysis of (g)).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from . import ast


@dataclass(frozen=True)
class ClauseCoverage:
    """How one clause is accounted for."""

    clause: ast.Clause
    status: str  # encoded | discretionary | text only | introductory | unaccounted
    rules: tuple[str, ...]
    marks: tuple[tuple[str, str], ...]  # (mark, reason) of each marked text piece


def clause_coverage(clause: ast.Clause) -> ClauseCoverage:
    """Returns how a clause is accounted for (see the module docstring)."""
    rules = tuple(
        item.name
        for item in clause.items
        if isinstance(item, ast.Rule | ast.Cases | ast.Case | ast.Invariant)
    )
    marks = tuple(
        (piece.mark.replace("_", " "), piece.reason or "")
        for piece in clause.texts
        if piece.mark is not None
    )
    if rules:
        status = "encoded"
    elif marks and all(piece.mark for piece in clause.texts):
        status = marks[0][0]
    elif clause.children:
        status = "introductory"
    else:
        status = "unaccounted"
    return ClauseCoverage(clause, status, tuple(dict.fromkeys(rules)), marks)


def coverage(statute: ast.Statute) -> list[ClauseCoverage]:
    """Returns the coverage of every clause below the section, in document order."""
    return [clause_coverage(clause) for clause in statute.clauses if clause.path]


def summary(statute: ast.Statute) -> Counter[str]:
    """Returns how many clauses have each status."""
    return Counter(item.status for item in coverage(statute))
