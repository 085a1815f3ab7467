"""The comparator the words attach to a date: "beginning after December 31, 2017" is `> 2017-12-31`.

A date the words state (`2024-01-01`, `January 1, 2024`, `1 January 2024`) may follow a phrase
that says which side of it counts:

| the words | compare with |
|---|---|
| "after", "later than", "subsequent to" | `>` |
| "on or after", "not earlier than", "no earlier than" | `>=` |
| "before", "earlier than", "prior to" | `<` |
| "on or before", "not later than", "no later than" | `<=` |

A comparison of a rule, a case, an exception or an invariant between a date and a date literal
the words so state must use that comparator: `taxable_year_beginning >= 2017-12-31` for
"beginning after December 31, 2017" lets in the one day the words leave out. Its polarity counts
as for numbers (dsl/wording.py): under an odd number of `not`s, in a clause whose words are
negative, or in an invariant, the negation is accepted too. `reviewed 2017-12-31 "reason"` on
the definition lets a deliberate one through. A date the words attach no phrase to ("from
January 1, 2024", "by June 30") is not checked.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass

from . import ast
from .dates import date_spans
from .errors import quoted
from .wording import _FLIPPED, _NEGATED, Placed, negative_words, placements, polarised

# The most specific phrase first: "on or after" before "after".
_PHRASES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(phrase + r"\s+$", re.IGNORECASE), op)
    for phrase, op in (
        (r"\bon\s+or\s+after", ">="),
        (r"\bon\s+or\s+before", "<="),
        (r"\b(?:not|no)\s+later\s+than", "<="),
        (r"\b(?:not|no)\s+earlier\s+than", ">="),
        (r"\blater\s+than", ">"),
        (r"\bearlier\s+than", "<"),
        (r"\bsubsequent\s+to", ">"),
        (r"\bprior\s+to", "<"),
        (r"\bafter", ">"),
        (r"\bbefore", "<"),
    )
)
_REACH = 40  # characters before a date its phrase may start at


@dataclass(frozen=True)
class DatePhrase:
    """A date the words state after a phrase that compares: the date, its comparator and the
    words that say so."""

    day: datetime.date
    op: str
    excerpt: str


@dataclass(frozen=True)
class DateFinding:
    """A comparison with a date against the words: where, in which clause, what and how to
    fix."""

    span: ast.Span
    clause: ast.Clause
    message: str
    hint: str


def phrases(words: str) -> list[DatePhrase]:
    """Returns each date the words state after a phrase that compares (see the module's
    docstring), in order."""
    text = ast.folded(words)
    found = []
    for start, end, day in date_spans(text):
        before = text[max(0, start - _REACH) : start]
        for pattern, op in _PHRASES:
            match = pattern.search(before)
            if match is not None:
                # The phrase with the two words before it: "year beginning after ...".
                words_before = text[: max(0, start - _REACH) + match.start()]
                lead = " ".join(words_before.split()[-2:])
                excerpt = before[match.start() :] + text[start:end]
                found.append(DatePhrase(day, op, f"{lead} {excerpt}" if lead else excerpt))
                break
    return found


def findings(statute: ast.Statute) -> list[DateFinding]:
    """Returns each comparison with a date literal whose comparator contradicts the phrase the
    words of its clause attach to that date, in encoding order."""
    found = []
    said: dict[int, list[DatePhrase]] = {}
    for placed in placements(statute):
        key = id(placed.clause)
        if key not in said:
            said[key] = phrases(placed.clause.words)
        if not said[key]:
            continue
        exempt = {r.literal.value for r in placed.reviewed if r.literal.unit == "date"}
        negative = negative_words(placed.clause)
        for expr in placed.expressions:
            for node, negated in polarised(expr):
                if not isinstance(node, ast.Compare):
                    continue
                polarity = negated or negative or placed.is_property
                finding = _finding(statute, placed, node, polarity, said[key], exempt)
                if finding is not None:
                    found.append(finding)
    return sorted(found, key=lambda f: (f.span.line, f.span.column))


def _date_literal(expr: ast.Expr) -> ast.Literal | None:
    if isinstance(expr, ast.Literal) and expr.unit == "date":
        return expr
    return None


def _finding(
    statute: ast.Statute,
    placed: Placed,
    compare: ast.Compare,
    polarity: bool,
    said: list[DatePhrase],
    exempt: set[object],
) -> DateFinding | None:
    right, left = _date_literal(compare.right), _date_literal(compare.left)
    if right is not None and left is None:
        literal, op = right, compare.op
    elif left is not None and right is None:
        literal, op = left, _FLIPPED.get(compare.op, compare.op)
    else:
        return None
    if op not in _NEGATED or literal.value in exempt:
        return None
    day = datetime.date.fromordinal(int(literal.value))
    same = [phrase for phrase in said if phrase.day == day]
    if not same:
        return None
    allowed = {phrase.op for phrase in same}
    if polarity:
        allowed |= {_NEGATED[o] for o in allowed}
    if op in allowed:
        return None
    name, clause = placed.name, placed.clause
    written = ast.folded(statute.source[compare.span.start : compare.span.end])
    meanings = ", ".join(f"{quoted(p.excerpt)} means {p.op}" for p in dict.fromkeys(same))
    return DateFinding(
        literal.span,
        clause,
        f"'{written}' in '{name}' contradicts the words of "
        f"{clause.short_citation or 'the section'}: {meanings}",
        f'compare as the words do, or add: reviewed {literal.text} "why this comparison is right"',
    )
