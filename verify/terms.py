"""What Z3 terms are made of, remembered: a verifier asks the same question of the same rule
terms for every check, and each check's formula shares most of its subterms with the others."""

from __future__ import annotations

from typing import Any

import z3
from z3 import z3core

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


def all_of(*terms: Any) -> Term:
    """Returns the conjunction of `terms` (given one by one or as one list), the very term
    `z3.And` makes: made by one call to Z3 when every term is a formula of one context, without
    the checks and conversions `z3.And` runs in Python on each (a third of the time the model
    takes to build, where every guard is a conjunction); `z3.And` otherwise."""
    if len(terms) == 1 and isinstance(terms[0], (list, tuple)):
        terms = tuple(terms[0])
    if terms and isinstance(terms[0], z3.BoolRef):
        ctx = terms[0].ctx
        if all(isinstance(t, z3.BoolRef) and t.ctx is ctx for t in terms):
            asts = (z3.Ast * len(terms))(*[t.as_ast() for t in terms])
            return z3.BoolRef(z3core.Z3_mk_and(ctx.ref(), len(terms), asts), ctx)
    return z3.And(*terms)
