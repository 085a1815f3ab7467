"""Checks read from the statute's words: the comparator and the unit they attach to a number.

The number check (dsl/checker.py) proves that each number a rule uses is stated by its clause;
this module proves that it is used as stated. Words put a comparator before or after a number
("greater than 50" is `> 50`, "one-third or more" is `>= 1/3`) and a unit around it ("35
percent" is `35%`, "$15" is money, "one-third" is `1/3`); a comparison or a literal that
contradicts them is a finding, unless the literal is marked `reviewed` with a reason.

How a comparison's position counts (its polarity): a comparison under an odd number of `not`s
may use the negation of the words' comparator, and so may any comparison of a clause whose
words, or an enclosing clause's, are negative ("shall not", "may not", "no ... shall"), since
an encoding states the condition under which the outcome the words forbid does not occur. An
`implies` premise, an `if` condition, a `when` and an exception's condition of a rule are read
as positive: they are where the words' own conditions ("if ... is greater than 50") are written.
An invariant states what follows from the words on either side of their condition ("no rebate
for an income above $150,000" where the words allow one for an income that "does not exceed
$150,000"), so its comparisons may use the words' comparator or its negation; any other
comparator, a boundary moved, is still a finding.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal as TypingLiteral

from . import ast
from .errors import quoted
from .numbers import TIME_UNITS, StatedNumber, stated_number_spans

Kind = TypingLiteral["percent", "money", "fraction", "period", "plain"]
_KIND_NAMES: dict[Kind, str] = {
    "percent": "a percentage",
    "money": "an amount of money",
    "fraction": "a fraction",
    "period": "the length of a period",
    "plain": "a plain number",
}
_KIND_WRITTEN: dict[Kind, str] = {
    "percent": "a percentage such as 35%",
    "money": "money such as $15",
    "fraction": "a fraction such as 1/3",
    "period": "a duration such as 12 months",
    "plain": "a plain number",
}
ORDERING = ("<", "<=", ">", ">=")
_FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}
_NEGATED = {"<": ">=", "<=": ">", ">": "<=", ">=": "<"}

# Comparator phrases written before a number, the most specific first ("not less than" before
# "less than"); each is matched against the words that end just before the number.
_BEFORE: tuple[tuple[str, str], ...] = (
    (r"\bnot\s+(?:to\s+)?exceed(?:ing)?", "<="),
    (r"\b(?:no|not)\s+(?:more|greater)\s+than", "<="),
    (r"\b(?:no|not)\s+(?:less|fewer)\s+than", ">="),
    (r"\bat\s+least", ">="),
    (r"\ba\s+minimum\s+of", ">="),
    (r"\bat\s+most", "<="),
    (r"\bmaximum(?:\s+[a-z]+)?\s+of", "<="),
    (r"\bup\s+to", "<="),
    (r"\b(?:exceeds?|exceeding)", ">"),
    (r"\b(?:greater|more)\s+than", ">"),
    (r"\bin\s+excess\s+of", ">"),
    (r"\babove", ">"),
    (r"\b(?:less|fewer)\s+than", "<"),
    (r"\bbelow", "<"),
    (r"\bunder", "<"),
)
_BEFORE_PATTERNS = tuple((re.compile(f"{phrase}\\s+$"), op) for phrase, op in _BEFORE)
# Written after a number and its unit: "one-third or more", "10 percent or more".
_AFTER: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\s*or\s+(?:more|greater|above)\b"), ">="),
    (re.compile(r"\s*or\s+(?:less|fewer|below)\b"), "<="),
)
# "35 percent", "35%", and a step of a percentage: "1 percentage point" (a point of a
# percentage is 1%, so it is written `1%`).
_PERCENT = re.compile(r"\s*(?:(?:percentage\s+points?|percent|per\s+cent)\b|%)")
_DOLLARS = re.compile(r"\s*dollars?\b")
# A number joined to its unit of time names a period's length ("a 12-month period", "the
# 3-year average"), not a quantity counted in that unit ("12 weeks of leave", which an encoding
# may hold as a number of weeks).
_PERIOD = re.compile(r"-(?:calendar-)?(?:" + "|".join(TIME_UNITS) + r")\b(?:\s+[a-z]+)?")
_BETWEEN_LOW = re.compile(r"\bbetween\s+$")
_BETWEEN_HIGH = re.compile(r"\bbetween\s+\$?\S+(?:\s+(?:percent|per\s+cent))?\s+and\s+$")
# The negative words that let a comparison be encoded by its negation, once the comparator
# phrases ("shall not exceed") are masked out of them.
_NEGATIVE = re.compile(r"\b(?:shall|may|must)\s+not\b|\bno\b[^.;:]*\bshall\b")
_AND_HIGH = re.compile(r"\s+and\s+\$?[\w,.-]+(?:\s+(?:percent|per\s+cent))?")
_EXCERPT_WORDS = 3
_REACH = 160  # characters before a number its phrase may start at


@dataclass(frozen=True)
class Occurrence:
    """One number of a clause's words and what they attach to it: its value and unit (`kind`),
    the comparators of its phrase (`ops`, empty when it has none), whether it is an end of
    "between X and Y", and a short excerpt of the words around it."""

    value: Fraction
    kind: Kind
    ops: frozenset[str]
    between: bool
    excerpt: str
    # Where the phrase and its number sit in the folded words (start and end of the excerpt).
    at: int = 0
    until: int = 0


@dataclass(frozen=True)
class Finding:
    """A literal used against the words: where it is, in which clause, what is wrong and how
    to put it right."""

    span: ast.Span
    clause: ast.Clause
    message: str
    hint: str


@dataclass(frozen=True)
class Placed:
    """Expressions placed in a clause: the definition's name, the reviewed numbers and the
    readings that apply to them."""

    name: str
    clause: ast.Clause
    reviewed: tuple[ast.Reviewed, ...]
    readings: tuple[str, ...]
    expressions: tuple[ast.Expr | None, ...]
    # An invariant states what follows from the words, on either side of their condition.
    is_property: bool = False


def stated_units(text: str) -> list[tuple[StatedNumber, Kind, int]]:
    """Returns every number `text` states, with its unit (`kind`: "$1,500" and "1,500 dollars"
    money, "40 percent" and "40%" a percentage, "one-third" a fraction, "12-month" a period's
    length) and where its words end (after the unit word, when it has one)."""
    lower = text.lower()
    found: list[tuple[StatedNumber, Kind, int]] = []
    for number in stated_number_spans(text):
        end = number.end
        kind: Kind = "plain"
        if text[number.start] == "$":
            kind = "money"
        elif (unit := _PERCENT.match(lower, end) or _DOLLARS.match(lower, end)) is not None:
            kind = "percent" if "dollar" not in unit.group() else "money"
            end = unit.end()
        elif (period := _PERIOD.match(lower, end)) is not None:
            kind, end = "period", period.end()
        elif number.in_words and number.value.denominator != 1:
            kind = "fraction"
        found.append((number, kind, end))
    return found


def occurrences(words: str) -> list[Occurrence]:
    """Returns every number the words state with the unit and comparator they attach to it;
    `words` are read with their whitespace folded."""
    text = ast.folded(words)
    lower = text.lower()
    found: list[Occurrence] = []
    for number, kind, end in stated_units(text):
        # A phrase is a few words: the words just before the number are enough, and a long
        # clause is not read again for each of its numbers.
        offset = max(0, number.start - _REACH)
        before = lower[offset : number.start]
        ops: frozenset[str] = frozenset()
        between = False
        start = offset + _words_before(before, _EXCERPT_WORDS)
        if (low := _BETWEEN_LOW.search(before)) is not None:
            ops, between, start = frozenset((">", ">=")), True, offset + low.start()
            if (high := _AND_HIGH.match(lower, end)) is not None:
                end = high.end()
        elif (high := _BETWEEN_HIGH.search(before)) is not None:
            ops, between, start = frozenset(("<", "<=")), True, offset + high.start()
        else:
            # The most specific phrase before the number counts ("not exceed", not "exceed").
            phrase = next(
                ((m, op) for p, op in _BEFORE_PATTERNS if (m := p.search(before)) is not None),
                None,
            )
            if phrase is not None:
                ops, start = frozenset((phrase[1],)), offset + phrase[0].start()
        for pattern, op in _AFTER:
            if (after := pattern.match(lower, end)) is not None:
                if not ops:
                    start = number.start
                ops, end = ops | {op}, after.end()
        excerpt = text[start:end].strip(" ,;:")
        found.append(Occurrence(number.value, kind, ops, between, excerpt, start, end))
    return found


@dataclass(frozen=True)
class Step:
    """A number the words count steps of ("for each 35 percent by which ...", "for each $1,000
    (or fraction thereof)"): whole steps (`floor`), or every part of one as a whole (`ceil`)."""

    value: Fraction
    kind: Kind
    rounding: str  # "floor" or "ceil"
    excerpt: str


_EACH = re.compile(r"\bfor\s+(?:each|every)\s+$")
# After the number and at most one word of its unit ("for every 5 units, or any part thereof").
_PART_OF_A_STEP = re.compile(
    r"(?:\s+[a-z]+)?\s*,?\s*\(?\s*or\s+(?:any\s+)?(?:a\s+)?(?:fraction|part|portion)\s+(?:thereof|of\s+it)\b\)?"
)


def steps(words: str) -> list[Step]:
    """Returns the numbers the words count steps of: "for each" or "for every" right before
    the number; "(or fraction thereof)" after it counts a part of a step as a whole one."""
    text = ast.folded(words)
    lower = text.lower()
    found = []
    for number, kind, end in stated_units(text):
        before = lower[max(0, number.start - 20) : number.start]
        if (each := _EACH.search(before)) is None:
            continue
        part = _PART_OF_A_STEP.match(lower, end)
        start = number.start - len(before) + each.start()
        stop = part.end() if part is not None else end
        excerpt = text[start:stop].strip(" ,;:")
        found.append(Step(number.value, kind, "ceil" if part else "floor", excerpt))
    return found


@dataclass(frozen=True)
class PerStep:
    """An amount the words give for each step or unit: "$500 per year for each additional
    amount", "$50 for each $1,000"."""

    value: Fraction
    kind: Kind
    excerpt: str


_FOR_EACH_AFTER = re.compile(r"[^\d$;.]{0,60}?\bfor\s+(?:each|every)\b")


def per_step_amounts(words: str) -> list[PerStep]:
    """Returns the amounts the words give "for each" something: a number followed, within a
    few words and no other number, by "for each" or "for every"."""
    text = ast.folded(words)
    lower = text.lower()
    found = []
    for number, kind, end in stated_units(text):
        if (each := _FOR_EACH_AFTER.match(lower, end)) is not None:
            found.append(PerStep(number.value, kind, text[number.start : each.end()]))
    return found


def _words_before(before: str, count: int) -> int:
    """Returns where the last `count` words of `before` start."""
    starts = [m.start() for m in re.finditer(r"\S+", before)]
    return starts[-count] if len(starts) >= count else (starts[0] if starts else len(before))


def negative_words(clause: ast.Clause) -> bool:
    """Returns True when the words of the clause, or of a clause enclosing it, are negative
    ("shall not", "may not", "no ... shall"), the negation inside a comparator phrase such as
    "shall not exceed" aside."""
    current: ast.Clause | None = clause
    while current is not None:
        lower = ast.folded(current.words).lower()
        for pattern, _ in _BEFORE:
            lower = re.sub(pattern, lambda m: " " * len(m.group()), lower)
        if _NEGATIVE.search(lower):
            return True
        current = current.parent
    return False


def literal_kind(literal: ast.Literal) -> Kind:
    """Returns the unit a literal is written in: `35%` a percentage, `$15` money, `1/3` a
    fraction, `35` a plain number."""
    if literal.unit == "percent":
        return "percent"
    if literal.unit == "money":
        return "money"
    return "fraction" if "/" in literal.text else "plain"


def polarised(expr: ast.Expr | None, negated: bool = False) -> Iterator[tuple[ast.Expr, bool]]:
    """Yields an expression and all its sub-expressions, depth first, each with True when it
    sits under an odd number of `not`s (the only operator that flips a comparison's polarity
    here: see the module's docstring)."""
    if expr is None:
        return
    yield expr, negated
    if isinstance(expr, ast.Not):
        yield from polarised(expr.operand, not negated)
    elif isinstance(expr, ast.Call):
        for arg in (*expr.args, *(value for _, value in expr.kwargs)):
            yield from polarised(arg, negated)
    elif isinstance(expr, ast.BinOp | ast.Compare | ast.BoolOp):
        yield from polarised(expr.left, negated)
        yield from polarised(expr.right, negated)
    elif isinstance(expr, ast.Neg | ast.PartOf):
        yield from polarised(expr.operand, negated)
    elif isinstance(expr, ast.If):
        for part in (expr.condition, expr.then, expr.otherwise):
            yield from polarised(part, negated)
    elif isinstance(expr, ast.Aggregate):
        yield from polarised(expr.value, negated)
        yield from polarised(expr.condition, negated)


def placements(statute: ast.Statute) -> Iterator[Placed]:
    """Yields every rule, `cases` fallback, case, exception and invariant with its name, its
    clause, its marks and readings, and the expressions it computes or states."""
    for definition in statute.definitions.values():
        if isinstance(definition, ast.Rule):
            expressions: tuple[ast.Expr | None, ...] = (definition.expr, definition.condition)
        else:
            expressions = (definition.otherwise,)
        yield Placed(
            definition.name,
            definition.clause,
            definition.reviewed,
            definition.readings,
            expressions,
        )
        if isinstance(definition, ast.Cases):
            for case in definition.cases:
                yield Placed(
                    definition.name,
                    case.clause,
                    case.reviewed,
                    (*case.readings, *definition.readings),
                    (case.expr, case.condition),
                )
    for exception in statute.exceptions:
        yield Placed(
            exception.name,
            exception.clause,
            exception.reviewed,
            exception.readings,
            (exception.expr, exception.condition),
        )
    for invariant in statute.invariants:
        yield Placed(
            invariant.name,
            invariant.clause,
            invariant.reviewed,
            invariant.readings,
            (invariant.expr,),
            is_property=True,
        )


def _checked_magnitude(literal: ast.Literal) -> Fraction | None:
    if literal.unit in ("bool", "date", "duration"):
        return None
    magnitude = literal.written_magnitude
    return None if magnitude is None or magnitude == 0 else magnitude


def findings(statute: ast.Statute) -> list[Finding]:
    """Returns every comparison whose comparator, and every literal whose unit, contradicts
    what the words of its clause attach to its number, in encoding order."""
    found: list[Finding] = []
    words: dict[int, list[Occurrence]] = {}
    negative: dict[int, bool] = {}
    counted: dict[int, list[Step]] = {}
    amounts: dict[int, list[PerStep]] = {}
    for placed in placements(statute):
        key = id(placed.clause)
        if key not in words:
            words[key] = occurrences(placed.clause.words)
            negative[key] = negative_words(placed.clause)
            counted[key] = steps(placed.clause.words)
            amounts[key] = per_step_amounts(placed.clause.words)
        exempt = {
            item.literal.written_magnitude
            for item in placed.reviewed
            if item.literal.unit not in ("date", "duration")
        }
        if counted[key] and not placed.is_property:
            for expr in placed.expressions:
                found.extend(_step_findings(statute, placed, expr, counted[key], exempt))
        if amounts[key] and not placed.is_property:
            for expr in placed.expressions:
                found.extend(_per_step_findings(statute, placed, expr, amounts[key], exempt))
        for expr in placed.expressions:
            for node, negated in polarised(expr):
                finding = None
                if (
                    isinstance(node, ast.BoolOp)
                    and node.op == "or"
                    and not (negated or negative[key] or placed.is_property)
                ):
                    finding = _joined_limits_finding(
                        statute, placed, node, placed.clause.words, words[key], exempt
                    )
                elif isinstance(node, ast.Literal):
                    finding = _unit_finding(placed, node, words[key], exempt)
                elif isinstance(node, ast.Compare):
                    polarity = (
                        "under `not`"
                        if negated
                        else "under the clause's negative words"
                        if negative[key]
                        else "in an invariant"
                        if placed.is_property
                        else ""
                    )
                    finding = _comparison_finding(
                        statute, placed, node, polarity, words[key], exempt
                    )
                if finding is not None:
                    found.append(finding)
    return sorted(found, key=lambda f: (f.span.line, f.span.column))


def _where(clause: ast.Clause) -> str:
    return clause.short_citation or "the section"


def _unit_finding(
    placed: Placed,
    literal: ast.Literal,
    stated: list[Occurrence],
    exempt: set[Fraction | None],
) -> Finding | None:
    magnitude = _checked_magnitude(literal)
    if magnitude is None or magnitude in exempt:
        return None
    same = [o for o in stated if o.value == magnitude]
    kind = literal_kind(literal)
    if not same or any(o.kind == kind for o in same):
        return None
    # Words that state a number bare ("in excess of 1,000") may leave its unit unsaid: money,
    # a fraction, or a percentage under words that speak of one (a table's "The credit
    # percentage is:" over its bare figures). Elsewhere a bare 50 is never 50% (0.5).
    if any(o.kind == "plain" for o in same) and (
        kind in ("money", "fraction") or (kind == "percent" and _speaks_of_percentages(placed))
    ):
        return None
    wanted = same[0].kind
    quoted = _quoted(o for o in same if o.kind == wanted)
    return Finding(
        literal.span,
        placed.clause,
        f"the number {literal.text} in '{placed.name}' is {_KIND_NAMES[kind]}, but the words of "
        f"{_where(placed.clause)} state it as {_KIND_NAMES[wanted]}: {quoted}",
        f"write it as {_KIND_WRITTEN[wanted]}"
        + (
            f" ({literal.text.rstrip('%')}: {literal.text} is a hundredth of it)"
            if kind == "percent"
            else ""
        )
        + f", or add: reviewed {literal.text} "
        '"why this unit is right"',
    )


def _speaks_of_percentages(placed: Placed) -> bool:
    """True when the words of the clause, or of a clause enclosing it, speak of a percentage
    or a rate ("percent", "per cent", "percentage", "%", "rate")."""
    clause: ast.Clause | None = placed.clause
    while clause is not None:
        if _PERCENT_WORDS.search(ast.folded(clause.words).lower()):
            return True
        clause = clause.parent
    return False


_PERCENT_WORDS = re.compile(r"\bper\s*cent(?:age)?s?\b|%|\brates?\b")


def _quoted(found: Iterator[Occurrence] | list[Occurrence]) -> str:
    excerpts = list(dict.fromkeys(quoted(o.excerpt) for o in found))
    return ", ".join(excerpts)


def _comparison_finding(
    statute: ast.Statute,
    placed: Placed,
    compare: ast.Compare,
    polarity: str,
    stated: list[Occurrence],
    exempt: set[Fraction | None],
) -> Finding | None:
    compared = _compared(statute, compare)
    if compared is None:
        return None
    literal, holder, op = compared
    magnitude = _checked_magnitude(literal)
    if magnitude is None or magnitude in exempt:
        return None
    if holder is not None and magnitude in {r.literal.written_magnitude for r in holder.reviewed}:
        return None
    same = [o for o in stated if o.value == magnitude]
    of_kind = [o for o in same if o.kind == literal_kind(literal)]
    phrased = [o for o in (of_kind or same) if o.ops]
    if not phrased:
        return None

    def allows(occurrence: Occurrence) -> bool:
        ops = set(occurrence.ops)
        if polarity:
            ops.update(_NEGATED[o] for o in occurrence.ops)
        return op in ops

    on_ends = _readings_on_ends(statute, placed.readings)
    settled = [o for o in phrased if not o.between or on_ends]
    ends = [o for o in settled if o.between]
    if ends and len(ends) == len(settled) and any(allows(o) for o in ends):
        # The comparison faces the right way: whether it includes the end is the reading's.
        settling = _settled_ends(statute, placed.readings)
        if settling is not None:
            return _end_finding(statute, placed, compare, literal, op, polarity, ends, settling)
    if any(allows(o) for o in settled):
        return None
    written = ast.folded(statute.source[compare.span.start : compare.span.end])
    where = _where(placed.clause)
    unsettled = [o for o in phrased if o.between and not on_ends and allows(o)]
    if unsettled:
        cited = ", ".join(placed.readings)
        return Finding(
            literal.span,
            placed.clause,
            f"'{written}' in '{placed.name}' takes a side on an end of "
            f"{_quoted(unsettled)} in {where}: whether “between” includes its ends is a "
            "question of reading"
            + (
                f", and the readings it cites ({cited}) do not speak of it (no “between”, "
                "“inclusive” or “exclusive” in their questions and options)"
                if cited
                else ""
            ),
            "cite the reading that settles it (reading I...), or add: reviewed "
            f'{literal.text} "why this end is right"',
        )
    meanings = ", ".join(
        f"{quoted(o.excerpt)} means {' or '.join(sorted(o.ops))}" for o in dict.fromkeys(phrased)
    )
    allowed = f" (or its negation, {polarity})" if polarity else ""
    if holder is None:
        return Finding(
            literal.span,
            placed.clause,
            f"'{written}' in '{placed.name}' contradicts the words of {where}: {meanings}{allowed}",
            f"compare as the words do, or add: reviewed {literal.text} "
            '"why this comparison is right"',
        )
    return Finding(
        compare.span,
        placed.clause,
        f"'{written}' in '{placed.name}' compares with {holder.name} ({literal.text} in "
        f"{_where(holder.clause)}), and contradicts the words of {where}: {meanings}{allowed}",
        f"compare as the words do, or add to rule '{holder.name}': reviewed {literal.text} "
        '"why this comparison is right"',
    )


_SAME_SIDE = ({"<", "<="}, {">", ">="})


def _joined_limits_finding(
    statute: ast.Statute,
    placed: Placed,
    either: ast.BoolOp,
    clause_words: str,
    stated: list[Occurrence],
    exempt: set[Fraction | None],
) -> Finding | None:
    """Returns the finding of two limits on one side (two maximums, or two minimums) joined by
    `or` where the words join them with "and" ("does not exceed $10,000 and does not exceed 75
    percent"): both must hold, and `or` holds the looser one only. Two limits on opposite
    sides ("under 18 and over 65") are left alone: there "and" lists the groups."""
    sides = [_compared(statute, side) for side in (either.left, either.right)]
    if None in sides:
        return None
    (first, _, first_op), (second, _, second_op) = sides  # type: ignore[misc]
    side = next((s for s in _SAME_SIDE if first_op in s and second_op in s), None)
    if side is None or {first.written_magnitude, second.written_magnitude} & exempt:
        return None

    def said(literal: ast.Literal) -> list[Occurrence]:
        return [o for o in stated if o.value == literal.written_magnitude and o.ops & side]

    text = ast.folded(clause_words).lower()
    for one in said(first):
        for other in said(second):
            low, high = (one, other) if one.until <= other.at else (other, one)
            if high.at < low.until:
                continue
            gap = text[low.until : high.at]
            if (
                re.search(r"\band\b", gap)
                and not re.search(r"\bor\b|[.;:]", gap)
                and len(gap.split()) <= 12
            ):
                written = ast.folded(statute.source[either.span.start : either.span.end])
                return Finding(
                    either.span,
                    placed.clause,
                    f"'{written}' in '{placed.name}' joins with `or` two limits the words of "
                    f"{_where(placed.clause)} join with “and”: {quoted(low.excerpt)} and "
                    f"{quoted(high.excerpt)} must both hold",
                    f"join them with `and` as the words do, or add: reviewed {first.text} "
                    '"why either limit is enough"',
                )
    return None


def _compared(
    statute: ast.Statute, compare: ast.Expr
) -> tuple[ast.Literal, ast.Rule | None, str] | None:
    """Returns the stated number an ordering comparison compares with, the rule it is stated
    in (see `_compared_number`) and the comparator, read with the number on the right (`50 <
    x` is `x > 50`); None for any other expression."""
    if not isinstance(compare, ast.Compare) or compare.op not in ORDERING:
        return None
    right, left = _compared_number(statute, compare.right), _compared_number(statute, compare.left)
    if right is not None and left is None:
        return right[0], right[1], compare.op
    if left is not None and right is None:
        return left[0], left[1], _FLIPPED[compare.op]
    return None


def _compared_number(
    statute: ast.Statute, side: ast.Expr
) -> tuple[ast.Literal, ast.Rule | None] | None:
    """Returns the number a side of a comparison states, and the rule it is stated in when
    the side names one: a number (`48`), a number times an amount (`12.5% * gross_proceeds`),
    or a rule without parameters or exceptions whose value is one of those (`expenses <=
    charity_expense_limit`, where `charity_expense_limit = 12.5% * gross_proceeds`). None for
    any other side."""
    holder = None
    if isinstance(side, ast.Ref):
        rule = statute.definitions.get(side.name)
        if not isinstance(rule, ast.Rule) or rule.params or rule.exceptions or rule.expr is None:
            return None
        holder, side = rule, rule.expr
    if isinstance(side, ast.BinOp) and side.op == "*":
        literals = [e for e in (side.left, side.right) if isinstance(e, ast.Literal)]
        side = literals[0] if len(literals) == 1 else side
    if isinstance(side, ast.Literal):
        return side, holder
    return None


_INCLUSIVE = re.compile(r"\binclusive\b", re.IGNORECASE)
_EXCLUSIVE = re.compile(r"\bexclusive\b", re.IGNORECASE)


_ON_ENDS = re.compile(r"\bbetween\b|\binclusive\b|\bexclusive\b", re.IGNORECASE)


def _readings_on_ends(statute: ast.Statute, readings: tuple[str, ...]) -> bool:
    """True when one of the readings speaks of whether "between" includes its ends: "between",
    "inclusive" or "exclusive" in its question or in an option's name or words. Another
    reading cited (a citation swapped) settles nothing of the ends."""
    for reading_id in readings:
        reading = statute.readings.get(reading_id)
        if reading is None:
            continue
        texts = [reading.question] + [f"{o.name} {o.description}" for o in reading.options]
        if any(_ON_ENDS.search(text) for text in texts):
            return True
    return False


def _settled_ends(
    statute: ast.Statute, readings: tuple[str, ...]
) -> tuple[ast.Reading, bool] | None:
    """Returns the reading that settles whether "between" includes its ends, and True when it
    says inclusive (False exclusive): the one reading the comparison cites that has a single
    option whose name or words say "inclusive" or "exclusive" (None when none does, or when
    they disagree; a reading with alternatives settles each branch that tests it, not here)."""
    said: list[tuple[ast.Reading, bool]] = []
    for reading_id in readings:
        reading = statute.readings.get(reading_id)
        if reading is None or reading.alternatives:
            continue
        words = f"{reading.default.name} {reading.default.description}"
        inclusive, exclusive = _INCLUSIVE.search(words), _EXCLUSIVE.search(words)
        if bool(inclusive) != bool(exclusive):
            said.append((reading, bool(inclusive)))
    if len({included for _, included in said}) != 1:
        return None
    return said[0]


def _end_finding(
    statute: ast.Statute,
    placed: Placed,
    compare: ast.Compare,
    literal: ast.Literal,
    op: str,
    polarity: str,
    ends: list[Occurrence],
    settling: tuple[ast.Reading, bool],
) -> Finding | None:
    """Returns the finding of a comparison on an end of "between X and Y" that does not
    include or exclude the end as the reading it cites says (None when it does)."""
    reading, inclusive = settling
    wanted = set()
    for end in ends:
        strict = next(o for o in end.ops if len(o) == 1)
        wanted.add(strict + "=" if inclusive else strict)
    allowed = wanted | ({_NEGATED[o] for o in wanted} if polarity else set())
    if op in allowed:
        return None
    written = ast.folded(statute.source[compare.span.start : compare.span.end])
    how = "includes" if inclusive else "excludes"
    option = reading.default
    return Finding(
        literal.span,
        placed.clause,
        f"'{written}' in '{placed.name}' {'excludes' if inclusive else 'includes'} the end "
        f"{_quoted(ends)} of {_where(placed.clause)}, but the reading it cites, "
        f"{reading.id} ({option.name}), {how} the ends: {quoted(option.description)}",
        f"compare with {' or '.join(sorted(wanted))}, or add: reviewed {literal.text} "
        '"why this end is right"',
    )


def _step_findings(
    statute: ast.Statute,
    placed: Placed,
    expr: ast.Expr | None,
    counted: list[Step],
    exempt: set[Fraction | None],
    rounding: str | None = None,
) -> Iterator[Finding]:
    """Yields each division by a number the words count steps of that is not rounded as they
    count: inside `floor(...)` for whole steps, `ceil(...)` when a part counts as a whole.
    `rounding` is the innermost `floor` or `ceil` the expression sits in."""
    if expr is None:
        return
    if isinstance(expr, ast.Call) and expr.name in ("floor", "ceil"):
        for arg in expr.args:
            yield from _step_findings(statute, placed, arg, counted, exempt, expr.name)
        return
    if isinstance(expr, ast.BinOp) and expr.op == "/" and isinstance(expr.right, ast.Literal):
        magnitude = _checked_magnitude(expr.right)
        kind = literal_kind(expr.right)
        matching = [s for s in counted if s.value == magnitude and s.kind == kind]
        if matching and magnitude not in exempt and rounding not in {s.rounding for s in matching}:
            step = matching[0]
            written = ast.folded(statute.source[expr.span.start : expr.span.end])
            counts = (
                "counts a part of a step as a whole one"
                if step.rounding == "ceil"
                else "counts whole steps"
            )
            given = f"inside {rounding}(...)" if rounding else "unrounded"
            yield Finding(
                expr.right.span,
                placed.clause,
                f"'{written}' in '{placed.name}' is {given}, but the words of "
                f"{_where(placed.clause)} count steps of {expr.right.text}: {quoted(step.excerpt)} "
                f"{counts}",
                f"write {step.rounding}({written}), or add: reviewed {expr.right.text} "
                '"why these steps are right"',
            )
    for child in ast.children(expr):
        yield from _step_findings(statute, placed, child, counted, exempt, rounding)


def _per_step_findings(
    statute: ast.Statute,
    placed: Placed,
    expr: ast.Expr | None,
    amounts: list[PerStep],
    exempt: set[Fraction | None],
) -> Iterator[Finding]:
    """Yields each number multiplied by a count of steps (`floor(...)`, `ceil(...)`, or a
    count rule computing one) that is not an amount the words give "for each" step."""
    for node, _ in polarised(expr):
        if not (isinstance(node, ast.BinOp) and node.op == "*"):
            continue
        for literal, other in ((node.left, node.right), (node.right, node.left)):
            if not isinstance(literal, ast.Literal) or not _counts_steps(statute, other):
                continue
            magnitude = _checked_magnitude(literal)
            if magnitude is None or magnitude in exempt:
                continue
            kind = literal_kind(literal)
            if any(a.value == magnitude and a.kind == kind for a in amounts):
                continue
            written = ast.folded(statute.source[node.span.start : node.span.end])
            stated = ", ".join(dict.fromkeys(quoted(a.excerpt) for a in amounts))
            yield Finding(
                literal.span,
                placed.clause,
                f"'{written}' in '{placed.name}' gives {literal.text} for each step, but the "
                f"words of {_where(placed.clause)} give {stated}",
                f"multiply the steps by the amount the words give for each, or add: reviewed "
                f'{literal.text} "why this amount is right"',
            )


def _counts_steps(statute: ast.Statute, expr: ast.Expr) -> bool:
    """True for a count of steps: `floor(...)` or `ceil(...)`, or a rule of type count whose
    expression is one."""
    if isinstance(expr, ast.Call) and expr.name in ("floor", "ceil"):
        return True
    if isinstance(expr, ast.Ref):
        definition = statute.definitions.get(expr.name)
        return (
            isinstance(definition, ast.Rule)
            and definition.type.kind == "count"
            and isinstance(definition.expr, ast.Call)
            and definition.expr.name in ("floor", "ceil")
        )
    return False
