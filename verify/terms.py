"""What Z3 terms are made of, remembered: a verifier asks the same question of the same rule
terms for every check, and each check's formula shares most of its subterms with the others."""

from __future__ import annotations

from typing import Any

import z3

Term = Any


class SymbolIndex:
    """The uninterpreted constants of terms, each subterm's set computed once and kept (with
    the subterm, so that its id is not reused) for the life of the index."""

    def __init__(self) -> None:
        self._known: dict[int, tuple[Term, frozenset[int]]] = {}

    def of(self, terms: list[Term]) -> set[int]:
        """Returns the ids of the uninterpreted constants (inputs, readings, list elements)
        `terms` are made of."""
        found: set[int] = set()
        for term in terms:
            found |= self._of(term)
        return found

    def _of(self, root: Term) -> frozenset[int]:
        known = self._known
        stack: list[tuple[Term, bool]] = [(root, False)]
        while stack:
            term, expanded = stack.pop()
            key = term.get_id()
            if key in known:
                continue
            children = term.children()
            if expanded or not children:
                own = (
                    {key}
                    if z3.is_const(term) and term.decl().kind() == z3.Z3_OP_UNINTERPRETED
                    else set()
                )
                for child in children:
                    own |= known[child.get_id()][1]
                known[key] = (term, frozenset(own))
                continue
            stack.append((term, True))
            stack.extend((c, False) for c in children if c.get_id() not in known)
        return known[root.get_id()][1]
