"""Proof obligations read from a clause's words: the limits its words set on its bonuses.

A clause that awards a bonus often limits it in the same sentence: "with a maximum increase of
$1,000 per year", or "with a maximum increase of $1,500 per year, unless the project qualifies
as a mega project or the qualified business facility is located in a government-restricted
municipality, in which case the maximum increase is $5,000 per year". Each limit becomes an
invariant of every bonus the clause defines, under the condition the words attach to it:

- only a limit on the increase itself: the words "increase" or "bonus" in the limit's phrase
  or just before it ("by an amount not to exceed $1,000" limits something else);
- a limit with no condition: `bonus <= $1,000`;
- a limit followed by ", unless FACTS, in which case ...": `not (F1 or F2) implies bonus <=
  $1,500`, where F1, F2 are the facts (bool inputs) the `unless` part names; the part names a
  fact by the input's name read as words (`mega_project`: "mega project") or by one of the
  phrases the input declares. When the part names no fact it can read, no obligation is made
  from that limit: an obligation is never stronger than the words.

The obligations are not written in the encoding: they are derived from its words each time,
so an encoder who gets a limit wrong is told so by `lextrace verify`, with the words quoted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from functools import reduce

from . import ast

_AMOUNT = r"\$(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?"
# The phrases that set an upper limit on the amount they precede.
_LIMIT = re.compile(
    r"(?:maximum(?:\s+(?:increase|amount|bonus|credit))?\s+(?:of|is|shall\s+be)"
    r"|(?:shall|may)\s+not\s+exceed|not\s+to\s+exceed|not\s+more\s+than|no\s+more\s+than"
    r"|at\s+most|up\s+to)\s+" + _AMOUNT,
    re.IGNORECASE,
)
# ", unless <condition>, in which case": the condition that lifts the limit before it.
_UNLESS = re.compile(
    r"^\s*(?:per\s+\w+\s*)?,?\s*unless\s+(.+?),\s*in\s+which\s+case\b", re.I | re.S
)


# A limit is on the bonus when the words just before it (or its own) speak of the increase.
_INCREASE = re.compile(r"\b(?:increase|bonus)\b", re.I)
_SUBJECT_WORDS = 8


@dataclass(frozen=True)
class Limit:
    """An upper limit a clause's words state: its amount in dollars, the words it was read
    from, and the bool inputs whose holding lifts it (none: it always applies)."""

    amount: Fraction
    text: str
    words: str
    lifted_by: tuple[str, ...] = ()
    lifted_by_any: bool = True


def _fold(text: str) -> str:
    """Lower case, hyphens and typographic quotes folded, whitespace collapsed."""
    for curly, plain in (("\u2019", "'"), ("\u2018", "'"), ("\u201c", '"'), ("\u201d", '"')):
        text = text.replace(curly, plain)
    text = text.lower()
    return " ".join(re.sub(r"[-_]", " ", text).split())


def _phrases(declared: ast.Input) -> list[str]:
    """The phrases that name an input in statute text: its name read as words, and any
    phrases it declares."""
    return [_fold(declared.name), *(_fold(phrase.text) for phrase in declared.phrases)]


def facts_named(statute: ast.Statute, words: str) -> list[str]:
    """Returns the bool inputs that `words` name (by name read as words, or a declared
    phrase), in declaration order."""
    folded = f" {_fold(words)} "
    found = []
    for name, declared in statute.inputs.items():
        if declared.type.kind != "bool":
            continue
        if any(re.search(rf"\b{re.escape(p)}\b", folded) for p in _phrases(declared) if p):
            found.append(name)
    return found


def stated_limits(statute: ast.Statute, clause: ast.Clause) -> list[Limit]:
    """Returns the upper limits the clause's own words state, with the facts that lift each
    (see the module's docstring)."""
    words = " ".join(clause.words.split())
    limits = []
    for match in _LIMIT.finditer(words):
        before = words[: match.start()].split()[-_SUBJECT_WORDS:]
        if not _INCREASE.search(" ".join([*before, match.group(0)])):
            continue  # a limit on something else: "by an amount not to exceed $1,000"
        amount = Fraction(match.group(1).replace(",", "") + (match.group(2) or ""))
        rest = words[match.end() :]
        unless = _UNLESS.match(rest)
        if unless is None:
            limits.append(Limit(amount, f"${match.group(1)}{match.group(2) or ''}", match.group(0)))
            continue
        condition = unless.group(1)
        facts = facts_named(statute, condition)
        if not facts:
            continue  # a condition it cannot read: no obligation stronger than the words
        quoted = match.group(0) + rest[: unless.end()]
        any_of = not re.search(r"\band\b", condition) or bool(re.search(r"\bor\b", condition))
        text = f"${match.group(1)}{match.group(2) or ''}"
        limits.append(Limit(amount, text, quoted, tuple(facts), any_of))
    return limits


def stated_money(clause: ast.Clause) -> list[Fraction]:
    """Returns the dollar amounts stated in a clause's words and its subclauses' words."""
    return [
        Fraction(match.group(1).replace(",", "") + (match.group(2) or ""))
        for sub in clause.walk()
        for match in re.finditer(_AMOUNT, sub.words)
    ]


def _args(params: tuple[ast.Param, ...]) -> str:
    return f"({', '.join(f'{p.name}: {p.name}' for p in params)})" if params else ""


def every_invariant(statute: ast.Statute) -> list[ast.Invariant]:
    """Returns the encoding's invariants and, after them, the obligations its words state."""
    return [*statute.invariants, *limit_obligations(statute)]


def _condition(limit: Limit, span: ast.Span) -> ast.Expr:
    refs: list[ast.Expr] = [ast.Ref(span, name) for name in limit.lifted_by]
    op = "or" if limit.lifted_by_any else "and"
    return reduce(lambda left, right: ast.BoolOp(span, op, left, right), refs)


def limit_obligations(statute: ast.Statute) -> list[ast.Invariant]:
    """Returns, for every bonus and every limit its clause's words state, the invariant that
    the bonus never exceeds the limit where the limit applies. Each is placed in the bonus's
    clause (its citation) and named `NAME within the words: $X` (with `unless ...`)."""
    found = []
    for bonus in statute.bonuses:
        if bonus.type.kind != "money":
            continue
        span = bonus.name_span
        value: ast.Expr = (
            ast.Call(
                span, bonus.name, (), tuple((p.name, ast.Ref(span, p.name)) for p in bonus.params)
            )
            if bonus.params
            else ast.Ref(span, bonus.name)
        )
        highest = max(stated_money(bonus.clause), default=None)
        for limit in stated_limits(statute, bonus.clause):
            if not limit.lifted_by and limit.amount == highest:
                continue  # `verify`'s bonus check proves it: at most its clause's highest amount
            text = limit.text
            bounded: ast.Expr = ast.Compare(
                span, "<=", value, ast.Literal(span, limit.amount, "money", text)
            )
            name = f"{bonus.name} within the words: {text}"
            joined = " or " if limit.lifted_by_any else " and "
            if limit.lifted_by:
                bounded = ast.BoolOp(
                    span, "implies", ast.Not(span, _condition(limit, span)), bounded
                )
                name += f" unless {joined.join(limit.lifted_by)}"
            formula = f"{bonus.name}{_args(bonus.params)} <= {text}"
            if limit.lifted_by:
                formula = f"not ({joined.join(limit.lifted_by)}) implies {formula}"
            found.append(
                ast.Invariant(
                    name=name,
                    description=f'The words "{limit.words}" limit {bonus.name}.',
                    expr=bounded,
                    span=span,
                    readings=bonus.readings,
                    clause=bonus.clause,
                    params=bonus.params,
                    from_words=limit.words,
                    formula=formula,
                )
            )
    return found
