"""Coverage: how each clause of the statute is accounted for.

A clause is *encoded* (it holds rules), *discretionary* or *text only* (its words are marked,
with a reason), *not yet encoded* (its words are marked `text_only "not yet encoded"`, as
`lextrace init` writes every clause), or *introductory* (its words introduce subclauses that
are accounted for). A clause can be encoded and also carry a marked sentence (the staff
analysis of (g)).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from . import ast

# The reason of a `text_only` mark that says the clause is still to be encoded.
NOT_YET_ENCODED = "not yet encoded"
# Every status, in the order the summaries list them.
STATUSES = (
    "encoded",
    "introductory",
    "discretionary",
    "text only",
    NOT_YET_ENCODED,
    "unaccounted",
)


# What computes a value in a clause: its rules, `cases`, cases, exceptions and totals.
COMPUTING = (ast.Rule, ast.Cases, ast.Case, ast.ExceptionRule, ast.Total)


@dataclass(frozen=True)
class ClauseCoverage:
    """How one clause is accounted for."""

    clause: ast.Clause
    status: str  # one of STATUSES
    rules: tuple[str, ...]
    marks: tuple[tuple[str, str], ...]  # (mark, reason) of each marked text piece


def clause_coverage(clause: ast.Clause) -> ClauseCoverage:
    """Returns how a clause is accounted for (see the module docstring)."""
    rules = tuple(
        dict.fromkeys(
            item.name for item in clause.items if isinstance(item, (*COMPUTING, ast.Invariant))
        )
    )
    marks = tuple(
        (_mark_name(piece), piece.reason or "") for piece in clause.texts if piece.mark is not None
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


def _mark_name(piece: ast.TextPiece) -> str:
    """Returns how a marked passage counts: `discretionary`, `text only`, or `not yet
    encoded`."""
    if piece.mark == "text_only" and piece.reason == NOT_YET_ENCODED:
        return NOT_YET_ENCODED
    return (piece.mark or "").replace("_", " ")


def coverage(statute: ast.Statute) -> list[ClauseCoverage]:
    """Returns the coverage of every clause below a section, and of a section that has none
    (the unit its rules sit in, an article of a code), in document order."""
    return [
        clause_coverage(clause) for clause in statute.clauses if clause.path or not clause.children
    ]


def summary(statute: ast.Statute) -> Counter[str]:
    """Returns how many clauses have each status."""
    return Counter(item.status for item in coverage(statute))
