"""Which clause a citation written in an encoding names (`relief under "section 1(b)"`).

A clause may be cited as the statute's pages name it (`(c)(1)`, `section 1(b)`, `§ 132(c)`) or
by its full citation in the statute's declared style (`Plain Relief Act § 1(b)`). In an
encoding of one section its labels alone (`(c)(1)`) name it too. "section 1(b)" and "§ 1(b)"
name the same clause.
"""

from __future__ import annotations

import difflib

from . import ast


def spellings(statute: ast.Statute) -> dict[str, ast.Clause]:
    """Returns every way a clause of the encoding may be cited, each mapped to its clause."""
    found: dict[str, ast.Clause] = {}
    for clause in statute.clauses:
        for spelling in (statute.citation(clause), clause.own_citation, clause.short_citation):
            if spelling:
                for alias in _section_signs(ast.folded(spelling)):
                    found.setdefault(alias, clause)
    return found


_SECTION_WORDS = ("section ", "§ ")


def _section_signs(spelling: str) -> list[str]:
    """Returns a citation and, when it opens with "section " or "§ ", the same with the other
    (`§ 2611(2)` names what `lextrace init` headed `section 2611`)."""
    for word in _SECTION_WORDS:
        if spelling.startswith(word):
            rest = spelling[len(word) :]
            return [spelling, *(other + rest for other in _SECTION_WORDS if other != word)]
    return [spelling]


def resolve(statute: ast.Statute, citation: str) -> ast.Clause | None:
    """Returns the clause `citation` names, None when no clause of the encoding is cited so."""
    return spellings(statute).get(ast.folded(citation))


def closest(statute: ast.Statute, citation: str) -> str | None:
    """Returns the citation of the encoding nearest to `citation` in spelling, if any is."""
    close = difflib.get_close_matches(ast.folded(citation), list(spellings(statute)), n=1)
    return close[0] if close else None


def covers(clause: ast.Clause, definition: ast.Rule | ast.Cases) -> bool:
    """True when `definition` sits in `clause` or below it (for piecewise definitions, its
    declaration or any of its cases)."""
    places = [definition.clause]
    if isinstance(definition, ast.Cases):
        places.extend(case.clause for case in definition.cases)
    inside = set(map(id, clause.walk()))
    return any(id(place) in inside for place in places)
