"""Which of two values the words choose: "the greater of", "whichever is higher" is `max`;
"the lesser of", "whichever is less" is `min`.

A clause whose words choose one way ("$15 per hour or 120 percent of the minimum wage,
whichever is higher") and whose rules take only the other (`min`, and no `max`) has the choice
turned around: that is a finding, at the first call of the other. An aggregate takes the
lowest or the highest of a list: `max of wage in jobs` makes the choice "the highest of"
words make, but a `min of wage in jobs` beside "whichever is higher" is not taken for the
other choice (it is the lowest wage paid, which "pay less than" asks for). Nothing is found
where the words choose both ways, or where they also limit or floor an amount ("not to
exceed", "at least"): there a `min` may be the limit and a `max` the floor. A choice written
without `min` or `max` (`lowest_wage >= $15 and lowest_wage >= 120% * minimum_wage`) is left
to the proofs and the test cases.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from . import ast
from .checker import walk
from .wording import placements

_GREATER = re.compile(
    r"\b(?:greater|greatest|higher|highest|larger|largest)\s+of\b"
    r"|\bwhichever\s+is\s+(?:the\s+)?(?:greater|greatest|higher|highest|larger|largest|more|"
    r"later|latest)\b",
    re.IGNORECASE,
)
_LESSER = re.compile(
    r"\b(?:lesser|least|lower|lowest|smaller|smallest)\s+of\b"
    r"|\bwhichever\s+is\s+(?:the\s+)?(?:less|lesser|least|lower|lowest|smaller|smallest|fewer|"
    r"earlier|earliest)\b",
    re.IGNORECASE,
)
# Words that limit an amount (a `min` may be the limit) or floor it (a `max` may be the floor).
_LIMITS = re.compile(
    r"\bexceed|\bat\s+most\b|\bno\s+more\s+than\b|\bnot\s+more\s+than\b|\bup\s+to\b|\bmaximum\b"
    r"|\blimit|\bcap\b|\bcapped\b|\bceiling\b",
    re.IGNORECASE,
)
_FLOORS = re.compile(
    r"\bat\s+least\b|\bnot\s+less\s+than\b|\bno\s+less\s+than\b|\bminimum\s+of\b|\bfloor\b"
    r"|\bnot\s+below\b",
    re.IGNORECASE,
)
_CHOSEN = {"max": (_GREATER, _LIMITS, "the greater"), "min": (_LESSER, _FLOORS, "the lesser")}
_OTHER = {"max": "min", "min": "max"}


@dataclass(frozen=True)
class ChoiceFinding:
    """A `min` where the words choose the greater value, or a `max` where they choose the
    lesser: where, in which clause, what and how to fix."""

    span: ast.Span
    clause: ast.Clause
    message: str
    hint: str


def findings(statute: ast.Statute) -> list[ChoiceFinding]:
    """Returns, for each clause whose words choose the greater (or the lesser) of values and
    whose rules, cases and exceptions take only the other, the first call that takes it, in
    encoding order."""
    taken: dict[int, tuple[ast.Clause, dict[str, list[tuple[str, ast.Expr]]]]] = {}
    for placed in placements(statute):
        if placed.is_property:
            continue
        _, calls = taken.setdefault(id(placed.clause), (placed.clause, {"min": [], "max": []}))
        for expr in placed.expressions:
            for node in walk(expr):
                which = _extreme(node)
                if which is not None:
                    calls[which].append((placed.name, node))
    found = []
    for clause, calls in taken.values():
        words = ast.folded(clause.words)
        for wanted, (chosen, exempting, spoken) in _CHOSEN.items():
            other = _OTHER[wanted]
            said = chosen.search(words)
            if said is None or calls[wanted] or not calls[other]:
                continue
            if _CHOSEN[other][0].search(words) or exempting.search(words):
                continue
            between = [(n, e) for n, e in calls[other] if isinstance(e, ast.Call)]
            if not between:  # the least of a list (the lowest wage paid) chooses nothing
                continue
            name, node = between[0]
            found.append(
                ChoiceFinding(
                    node.span,
                    clause,
                    f"the words of {clause.short_citation or 'the section'} choose {spoken} "
                    f"value ({_excerpt(said)}), but '{name}' takes the {other}, and no "
                    f"rule of that clause takes the {wanted}",
                    f"write {wanted}(...) where the words say {_excerpt(said)}",
                )
            )
    return sorted(found, key=lambda f: (f.span.line, f.span.column))


def _extreme(node: ast.Expr) -> str | None:
    """Returns "min" or "max" when the expression takes the least or the greatest of values
    (a call or an aggregate), else None."""
    if isinstance(node, ast.Call) and node.name in _OTHER:
        return node.name
    if isinstance(node, ast.Aggregate) and node.op in _OTHER:
        return node.op
    return None


def _excerpt(said: re.Match[str]) -> str:
    """Returns the phrase that chooses, quoted as written."""
    return f"'{said.group(0)}'"
