"""An invariant that holds whatever the rules compute says nothing about the statute.

`x = x`, `p implies p` or `a <= b or a > b` are proved for every encoding: a proof of them
checks no rule. The opaque model translates an invariant with each definition it names
replaced by a free value of the definition's type (inputs keep their declarations), so that an
invariant still proved there is a tautology, or a restatement of the inputs' declarations.
"""

from __future__ import annotations

from collections.abc import Mapping

import z3

from lextrace.dsl import ast
from lextrace.dsl.values import Value

from .model import Model, Term
from .solve import decide


class Opaque(Model):
    """The model of `base`'s statute over `base`'s inputs, each definition a free value."""

    def __init__(self, base: Model) -> None:
        super().__init__(base.statute, "__opaque", collect=False, base=base, evaluate_results=False)
        self.real = base

    def term(self, name: str, args: tuple[Value, ...] = (), guard: Term | None = None) -> Term:
        """Returns a free value of the sort the real model gives the definition, with what its
        type alone says of it (a count is not negative...)."""
        key = (name, args)
        if key not in self.memo:
            sort = self.real.term(name, args).sort()
            variable = self.new_variable(sort, name)
            self.memo[key] = variable
            self.constraints.extend(self._type_facts(self.statute.definitions[name].type, variable))
        return self.memo[key]


def holds_whatever_the_rules(
    base: Model, expr: ast.Expr, bound: Mapping[str, Term], timeout_ms: int
) -> bool:
    """True when the invariant `expr` (its parameters `bound`, constants) is proved even with
    every definition it names free: it then checks no rule. Unknown is not proved."""
    try:
        opaque = Opaque(base)
        claim = opaque.expr(expr, bound, z3.BoolVal(True), record=False)
    except z3.Z3Exception:
        return False  # a construct the opaque model cannot free: no verdict
    answer, _ = decide([*opaque.constraints, z3.Not(claim)], timeout_ms)
    return bool(answer == z3.unsat)
