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

A clause that limits an amount other than a bonus states it the same way: "for a mega project
or a project in a government-restricted municipality, the gross amount for each new or retained
full-time job shall not exceed $8,000 per year". When the subject of "shall not exceed $X" (the
words between the last comma and the limit) names a money definition by its name read as
words (`gross_amount`: "gross amount"), and the clause encodes its own condition as a case
worth exactly $X (`case gross_cap = $8,000 when area_tier = b1`), or as its only case, the
obligation is that condition implies `gross_amount <= $8,000`. Another clause may lift that
limit: "may exceed the limitation ... pursuant to subsection d. ... by an amount not to exceed
$1,000" makes the bound
$8,000 plus the rule of that clause worth $1,000 (`cap_allowance`), passed the same
parameters; an allowance the subject's parameters cannot feed drops the obligation.

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
    return [*statute.invariants, *limit_obligations(statute), *cap_obligations(statute)]


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


# "SUBJECT shall not exceed $X": a limit on a named amount (not only a bonus).
_CAP = re.compile(r"(?:shall|may)\s+not\s+exceed\s+" + _AMOUNT, re.I)
# "may exceed the limitation ... subsection d. ... by an amount not to exceed $1,000".
_ALLOWANCE = re.compile(
    r"may\s+exceed\s+the\s+limitation.{0,200}?\bsubsection\s+([a-z])\b.{0,200}?"
    r"by\s+an\s+amount\s+not\s+to\s+exceed\s+" + _AMOUNT,
    re.I | re.S,
)


def _amount(match: re.Match[str], first: int = 1) -> Fraction:
    return Fraction(match.group(first).replace(",", "") + (match.group(first + 1) or ""))


def _named_definition(statute: ast.Statute, subject: str) -> ast.Definition | None:
    """Returns the money definition the subject words name by its name read as words (the
    longest name when several occur), or None."""
    folded = f" {_fold(subject)} "
    named = [
        d
        for name, d in statute.definitions.items()
        if d.type.kind == "money" and re.search(rf"\b{re.escape(_fold(name))}\b", folded)
    ]
    return max(named, key=lambda d: len(d.name), default=None)


def _stated_case(statute: ast.Statute, clause: ast.Clause, amount: Fraction) -> ast.Case | None:
    """Returns the case that encodes the clause's condition: the one of its own cases worth
    exactly `amount`, else its only case with a condition (whatever it is worth: a wrong
    amount is what the obligation is there to refute), else None."""
    own = [
        case
        for definition in statute.definitions.values()
        for case in getattr(definition, "cases", ())
        if case.clause is clause and case.condition is not None
    ]
    for case in own:
        if isinstance(case.expr, ast.Literal) and case.expr.value == amount:
            return case
    return own[0] if len(own) == 1 else None


def _allowances(statute: ast.Statute, letter: str) -> list[tuple[ast.Rule, str]]:
    """Returns the rules, with the words they come from, by which another clause lets an amount
    exceed the limitation of subsection `letter` ("by an amount not to exceed $A": the rule of
    that clause worth exactly $A)."""
    found = []
    for clause in statute.clauses:
        for match in _ALLOWANCE.finditer(" ".join(clause.words.split())):
            if match.group(1).lower() != letter.lower():
                continue
            amount = _amount(match, 2)
            for item in clause.items:
                if (
                    isinstance(item, ast.Rule)
                    and item.type.kind == "money"
                    and isinstance(item.expr, ast.Literal)
                    and item.expr.value == amount
                ):
                    found.append((item, match.group(0)))
    return found


def _call(span: ast.Span, definition: ast.Definition) -> ast.Expr:
    if not definition.params:
        return ast.Ref(span, definition.name)
    args = tuple((p.name, ast.Ref(span, p.name)) for p in definition.params)
    return ast.Call(span, definition.name, (), args)


def cap_obligations(statute: ast.Statute) -> list[ast.Invariant]:
    """Returns, for every clause whose words say "SUBJECT shall not exceed $X" of a money
    definition and encode that condition as a case worth $X, the invariant that where the case
    applies the subject is at most $X, plus what the allowances of other clauses add (see the
    module's docstring). Each is placed in that clause and named `NAME within the words: $X`
    with the clause's citation."""
    found = []
    for clause in statute.clauses:
        words = " ".join(clause.words.split())
        for match in _CAP.finditer(words):
            subject = words[: match.start()].rsplit(",", 1)[-1]
            definition = _named_definition(statute, subject)
            amount = _amount(match)
            case = _stated_case(statute, clause, amount)
            if definition is None or case is None or case.condition is None:
                continue
            if definition.is_bonus:
                continue  # limit_obligations reads the limits on bonuses
            span = case.span
            text = f"${match.group(1)}{match.group(2) or ''}"
            bound: ast.Expr = ast.Literal(span, amount, "money", text)
            bound_text = text
            allowed = _allowances(statute, clause.path[0]) if clause.path else []
            params = {p.name for p in definition.params}
            if any(not {p.name for p in rule.params} <= params for rule, _ in allowed):
                continue  # an allowance its parameters cannot feed: no weaker obligation
            for rule, _ in allowed:
                bound = ast.BinOp(span, "+", bound, _call(span, rule))
                bound_text += f" + {rule.name}{_args(rule.params)}"
            condition = " ".join(
                statute.source[case.condition.span.start : case.condition.span.end].split()
            )
            claim = ast.BoolOp(
                span,
                "implies",
                case.condition,
                ast.Compare(span, "<=", _call(span, definition), bound),
            )
            quoted = " ".join([subject.strip(), match.group(0)])
            lifted = "".join(f'; "{w}"' for _, w in allowed)
            found.append(
                ast.Invariant(
                    name=f"{definition.name} within the words: {text} "
                    f"{clause.short_citation or 'section'}",
                    description=f'The words "{quoted}"{lifted} limit {definition.name}.',
                    expr=claim,
                    span=span,
                    readings=tuple(dict.fromkeys((*definition.readings, *case.readings))),
                    clause=clause,
                    params=definition.params,
                    from_words=quoted,
                    formula=f"{condition} implies {definition.name}{_args(definition.params)}"
                    f" <= {bound_text}",
                )
            )
    return found
