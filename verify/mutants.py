"""Mutation testing of an encoding: how strong are the proofs (and the tests)?

Seeded mutations of the encoding's rules (never of the statute words it carries) are generated
as source edits at AST spans, each a mistake an encoder makes: a changed amount or threshold,
another amount of the same clause, a changed percentage, a slipped unit (`35%` -> `35`), a
comparison's strictness flipped (boundary) or its test reversed, `and` / `or` swapped, a fact of
a neighbouring clause added to a condition or an operand dropped from one, conditions moved
between neighbouring cases or a count replaced by a related sum, an amount added after its cap,
a dropped cap (`min(a, b)` -> `a`), a dropped or rounded-up floor, a neighbouring tier or enum
member, a dropped `when` condition, swapped `then` / `else`.

Each mutant is then run through, in order:

1. the static checks (`dsl.loader.analyse`, with a copy of the official text): killed by
   "check" when they report an error. When the only errors are untraceable numbers, the proofs
   are run anyway, to measure what the proofs alone would catch;
2. the proofs (`verify.report.run`): killed by "proof" when any check is VIOLATED, VACUOUS or
   ERROR;
3. optionally the encoding's own test cases (`lextrace.cases`: `<stem>.cases.yaml` beside it,
   or the files given), run in-process on the mutant: killed by "tests" when a case fails;
4. an equivalence proof for what is left: "equivalent" when every result is proved equal to
   the original's for every valid scenario and every reading; otherwise "survived", or
   "unknown" when a proof of it ended UNKNOWN (neither killed nor survived).

Each result records what killed it (the category of the first check error, the first failing
proof). The kill rate is killed / (killed + survived): a measurement, not a pass/fail verdict;
it is also given for the checks and proofs alone, without the tests.
"""

from __future__ import annotations

import datetime
import multiprocessing
import random
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import pairwise
from pathlib import Path
from typing import Any

from lextrace.dsl import ast
from lextrace.dsl.checker import walk
from lextrace.dsl.errors import EncodingError
from lextrace.dsl.parser import parse_encoding, parses_as_expression
from lextrace.outputs import stops_held

from .limits import DEFAULT_BUDGET, DEFAULT_TIMEOUT

KINDS: tuple[str, ...] = (
    "amount",
    "other-amount",
    "percentage",
    "unit",
    "boundary",
    "comparison",
    "logic",
    "fact-added",
    "fact-dropped",
    "condition-moved",
    "misplaced-amount",
    "dropped-cap",
    "rounding",
    "enum-member",
    "dropped-condition",
    "swapped-branches",
)
"""Every kind of mutation, in the order they are listed in reports."""

# The kinds whose edits compose new text: each mutant of them is parsed before it is kept.
_COMPOSED = frozenset(
    {"fact-added", "fact-dropped", "condition-moved", "misplaced-amount", "rounding"}
)

KILLED_BY = ("check", "proof", "tests")
# "unknown": nothing killed the mutant, some proof of it ended UNKNOWN (a timeout) and it was
# not proved equivalent: neither killed nor survived.
STATUSES = (*KILLED_BY, "equivalent", "survived", "unknown")
TOP_KILLERS = 3  # the killing checks a kind's line of the text report names
PROOF_KILLS = frozenset({"VIOLATED", "VACUOUS", "ERROR"})
NUMBER_CHECK = "is not stated in the words of"  # the checker's untraceable-number message

# ---------------------------------------------------------------------------------------------
# Mutants


@dataclass(frozen=True)
class Edit:
    """Replace source[start:end] with `text`."""

    start: int
    end: int
    text: str


@dataclass(frozen=True)
class Mutant:
    """One seeded change of the encoding's rules, located by clause and line."""

    id: str
    kind: str
    citation: str  # the clause inside the statute, e.g. "(d)(3)"
    line: int
    owner: str  # e.g. "case gross_cap", "rule gross_amount"
    description: str
    edits: tuple[Edit, ...]

    def apply(self, source: str) -> str:
        """Returns `source` with this mutant's edits made."""
        for edit in sorted(self.edits, key=lambda e: e.start, reverse=True):
            source = source[: edit.start] + edit.text + source[edit.end :]
        return source


@dataclass
class _Site:
    """An expression of a rule or case that mutations may change."""

    owner: str
    clause: ast.Clause
    expr: ast.Expr


_MONEY_WORDS = re.compile(r"\$(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?")
_PERCENT_WORDS = re.compile(r"(?<![\w.$])(\d+(?:\.\d+)?) percent")
_PLAIN_WORDS = re.compile(r"(?<![\w.$,-])(\d{1,3}(?:,\d{3})+|\d+)(?![\w%,]| percent)")
_ATOMS = (ast.Literal, ast.Ref, ast.Call, ast.Given, ast.BonusSum)
# A condition that needs no parentheses as the left operand of `or`.
_OR_OPERANDS = (*_ATOMS, ast.Compare, ast.Not, ast.ReadingTest)
# `boundary` moves a threshold into or out of its range; `comparison` reverses a test.
_STRICTNESS = {"<": "<=", "<=": "<", ">": ">=", ">=": ">"}
_DIRECTION = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "=": "!=", "!=": "="}


def _snippet(text: str, width: int = 48) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 3] + "..."


def _money_text(value: Fraction) -> str:
    if value.denominator == 1:
        return f"${value.numerator:,}"
    whole = int(value)
    cents = (value - whole) * 100
    if cents.denominator != 1:
        raise ValueError(f"{value} is not a whole number of cents")
    return f"${whole:,}.{cents.numerator:02d}"


def _number_text(value: Fraction) -> str:
    if value.denominator == 1:
        return str(value.numerator)
    return f"{value.numerator}/{value.denominator}"


def _percent_text(value: Fraction) -> str:
    points = value * 100
    if points.denominator != 1:
        raise ValueError(f"{points} is not a whole percentage")
    return f"{points.numerator}%"


def _stated(clause: ast.Clause, unit: str) -> list[Fraction]:
    """Returns the amounts of one unit that a clause's own words state, in order, distinct."""
    words = clause.words
    found: list[Fraction] = []
    if unit == "money":
        values = [
            Fraction(m.group(1).replace(",", "") + (m.group(2) or ""))
            for m in _MONEY_WORDS.finditer(words)
        ]
    elif unit == "percent":
        values = [Fraction(m.group(1)) / 100 for m in _PERCENT_WORDS.finditer(words)]
    else:
        values = [Fraction(m.group(1).replace(",", "")) for m in _PLAIN_WORDS.finditer(words)]
    for value in values:
        if value not in found:
            found.append(value)
    return found


def _unit_slips(node: ast.Literal) -> list[str]:
    """Returns the texts a literal gets when its unit is slipped: a percentage written as the
    plain number (`35%` -> `35`), a fraction as the whole percentage below it (`1/3` ->
    `33%`). Money is never written plain: the type checker refuses it wherever an amount goes."""
    value = node.value
    if isinstance(value, bool):
        return []
    if node.unit == "percent":
        points = value * 100
        return [_number_text(points)] if points.denominator == 1 else []
    if node.unit == "number" and value.denominator != 1 and 0 < value < 1:
        points = value * 100
        if points.denominator == 1:  # 1/2 is exactly 50%: the same number
            return []
        return [f"{points.numerator // points.denominator}%"]
    return []


def _refs(expr: ast.Expr | None) -> list[str]:
    """Returns the names an expression reads, in order, distinct."""
    found: list[str] = []
    for node in walk(expr):
        if isinstance(node, ast.Ref) and node.name not in found:
            found.append(node.name)
    return found


def _sites(statute: ast.Statute) -> list[_Site]:
    """Returns every expression of a rule, a piecewise definition, a case or an exception, by
    position."""
    found: list[_Site] = []
    for definition in statute.definitions.values():
        if isinstance(definition, ast.Rule):
            owner = f"rule {definition.name}"
            for expr in (definition.expr, definition.condition):
                if expr is not None:
                    found.append(_Site(owner, definition.clause, expr))
        else:
            if definition.otherwise is not None:
                found.append(
                    _Site(f"cases {definition.name}", definition.clause, definition.otherwise)
                )
            for case in definition.cases:
                for expr in (case.expr, case.condition):
                    if expr is not None:
                        found.append(_Site(f"case {case.name}", case.clause, expr))
    for exception in statute.exceptions:
        for expr in (exception.expr, exception.condition):
            found.append(_Site(f"exception {exception.name}", exception.clause, expr))
    found.sort(key=lambda site: site.expr.span.start)
    return found


def _members(statute: ast.Statute) -> dict[str, tuple[str, ...]]:
    """Returns, for each enum member name, the members of its enum in declared order."""
    found: dict[str, tuple[str, ...]] = {}
    types = [i.type for i in statute.inputs.values()]
    types += [d.type for d in statute.definitions.values()]
    for type_ in types:
        for member in type_.members:
            found.setdefault(member, type_.members)
    return found


class _Generator:
    """Builds the mutants of one statute, in source order."""

    def __init__(self, statute: ast.Statute) -> None:
        self.statute = statute
        self.source = statute.source
        self.members = _members(statute)
        self.names = set(statute.inputs) | set(statute.definitions)
        self.sites = _sites(statute)
        self.found: list[tuple[int, int, str, str, ast.Clause, str, tuple[Edit, ...]]] = []

    def parses(self, edits: tuple[Edit, ...]) -> bool:
        """True when the source still parses with `edits` made (a composed edit must never
        break the syntax).

        Edits inside the expressions of rules, cases and exceptions are judged on those
        expressions alone, each parsed as an expression (a whole parse of a large encoding
        per mutant took most of the generation); any other edit, or an expression that does
        not parse alone, on the whole edited source."""
        by_site: dict[int, list[Edit]] = {}
        for edit in edits:
            site = next(
                (
                    index
                    for index, s in enumerate(self.sites)
                    if s.expr.span.start <= edit.start and edit.end <= s.expr.span.end
                ),
                None,
            )
            if site is None:
                return self._parses_whole(edits)
            by_site.setdefault(site, []).append(edit)
        for index, inside in by_site.items():
            span = self.sites[index].expr.span
            text = Mutant("", "", "", 0, "", "", tuple(inside)).apply(self.source)
            end = span.end + len(text) - len(self.source)
            if not parses_as_expression(text[span.start : end]):
                return self._parses_whole(edits)
        return True

    def _parses_whole(self, edits: tuple[Edit, ...]) -> bool:
        try:
            parse_encoding(Mutant("", "", "", 0, "", "", edits).apply(self.source), "mutant.lex")
        except EncodingError:
            return False
        return True

    def inputs_of(self, kind: str) -> set[str]:
        """Returns the names of the inputs of one type kind ("bool", "count")."""
        return {name for name, i in self.statute.inputs.items() if i.type.kind == kind}

    def text(self, node: ast.Expr | ast.Span) -> str:
        span = node if isinstance(node, ast.Span) else node.span
        return self.source[span.start : span.end]

    def changed(self, span: ast.Span, edit: Edit, width: int = 60) -> str:
        """Returns "old -> new" for an edit inside `span`, shortened around the edit."""
        before = self.source[span.start : span.end]
        after = self.source[span.start : edit.start] + edit.text + self.source[edit.end : span.end]
        before, after = " ".join(before.split()), " ".join(after.split())
        if len(before) > width:
            offset = len(" ".join(self.source[span.start : edit.start].split()))
            cut = max(0, offset - width // 2)
            before = ("..." if cut else "") + before[cut : cut + width] + "..."
            after = ("..." if cut else "") + after[cut : cut + width] + "..."
        return f"{before} -> {after}"

    def add(
        self,
        kind: str,
        clause: ast.Clause,
        owner: str,
        at: ast.Span,
        description: str,
        *edits: Edit,
    ) -> None:
        order = KINDS.index(kind)
        self.found.append((at.start, order, kind, owner, clause, description, tuple(edits)))

    def generate(self) -> list[Mutant]:
        sites = self.sites
        for site in sites:
            for node in walk(site.expr):
                self.node(site, node)
        self.conditions()
        self.added_facts(sites)
        self.moved_conditions()
        self.related_quantities(sites)
        self.found.sort(key=lambda item: (item[0], item[1]))
        mutants: list[Mutant] = []
        seen: set[str] = {self.source}
        for _, _, kind, owner, clause, description, edits in self.found:
            if kind in _COMPOSED and not self.parses(edits):
                continue
            mutant = Mutant(
                id=f"M{len(mutants) + 1:03d}",
                kind=kind,
                citation=clause.short_citation or "section",
                line=self.source.count("\n", 0, min(e.start for e in edits)) + 1,
                owner=owner,
                description=f"{clause.short_citation or 'section'}: {description} in {owner}",
                edits=edits,
            )
            mutated = mutant.apply(self.source)
            if mutated in seen:
                continue
            seen.add(mutated)
            mutants.append(mutant)
        return mutants

    # ---- one expression node ------------------------------------------------------------
    def node(self, site: _Site, node: ast.Expr) -> None:
        if isinstance(node, ast.Literal):
            self.literal(site, node)
        elif isinstance(node, ast.Compare):
            self.compare(site, node)
        elif isinstance(node, ast.BoolOp) and node.op in ("and", "or"):
            self.logic(site, node)
            self.dropped_fact(site, node)
        elif isinstance(node, ast.Call) and node.name in ("min", "max") and len(node.args) > 1:
            self.cap(site, node)
            self.misplaced(site, node)
        elif isinstance(node, ast.Call) and node.name in ("floor", "ceil") and len(node.args) == 1:
            self.rounding(site, node)
        elif (
            isinstance(node, ast.Ref) and node.name in self.members and node.name not in self.names
        ):
            self.member(site, node)
        elif isinstance(node, ast.If):
            then, otherwise = self.text(node.then), self.text(node.otherwise)
            self.add(
                "swapped-branches",
                site.clause,
                site.owner,
                node.span,
                f"if {_snippet(self.text(node.condition), 32)} then {_snippet(then, 24)} else "
                f"{_snippet(otherwise, 24)} -> then {_snippet(otherwise, 24)} else "
                f"{_snippet(then, 24)}",
                Edit(node.then.span.start, node.then.span.end, otherwise),
                Edit(node.otherwise.span.start, node.otherwise.span.end, then),
            )

    def literal(self, site: _Site, node: ast.Literal) -> None:
        value = node.value
        if isinstance(value, bool) or value == 0:
            return
        value = Fraction(value)
        span = node.span
        changed: list[tuple[str, str]] = []  # (kind, new text)
        if node.unit == "date":  # a day off either way: where a date's boundary slips
            day = datetime.date.fromordinal(int(value))
            changed += [
                ("amount", (day + datetime.timedelta(days=shift)).isoformat())
                for shift in (1, -1)
                if datetime.date.min < day + datetime.timedelta(days=shift) < datetime.date.max
            ]
        elif node.unit == "duration":  # one unit more or fewer, in the unit written
            changed += [("amount", f"{_number_text(value + 1)} {node.duration_unit}")]
            if value > 1:
                changed += [("amount", f"{_number_text(value - 1)} {node.duration_unit}")]
        elif node.unit == "money":
            if value.denominator == 1:
                step = max(1, round(value / 10))
                changed += [("amount", _money_text(value + step))]
                if value - step > 0:
                    changed += [("amount", _money_text(value - step))]
            changed += [
                ("other-amount", _money_text(other))
                for other in _stated(site.clause, "money")
                if other != value
            ]
        elif node.unit == "percent":
            if (value * 100).denominator != 1:
                return
            step = Fraction(5, 100)
            changed += [("percentage", _percent_text(value + step))]
            if value - step > 0:
                changed += [("percentage", _percent_text(value - step))]
            changed += [
                ("other-amount", _percent_text(other))
                for other in _stated(site.clause, "percent")
                if other != value
            ]
        else:
            if value.denominator == 1:
                changed += [("amount", _number_text(value + 1))]
                if value > 1:
                    changed += [("amount", _number_text(value - 1))]
            else:
                top, bottom = value.numerator, value.denominator
                changed += [("amount", f"{top}/{bottom + 1}")]
                if bottom - 1 > top:
                    changed += [("amount", f"{top}/{bottom - 1}")]
            changed += [
                ("other-amount", _number_text(other))
                for other in _stated(site.clause, "number")
                if other != value and value / 10 <= other <= value * 10
            ]
        changed += [("unit", text) for text in _unit_slips(node)]
        for kind, new in changed:
            self.add(
                kind,
                site.clause,
                site.owner,
                span,
                f"{node.text} -> {new}",
                Edit(span.start, span.end, new),
            )

    def compare(self, site: _Site, node: ast.Compare) -> None:
        gap = self.source[node.left.span.end : node.right.span.start]
        match = re.search(re.escape(node.op), gap)
        if match is None:  # pragma: no cover - the operator always sits between its operands
            return
        start = node.left.span.end + match.start()
        changed = [("boundary", _STRICTNESS[node.op])] if node.op in _STRICTNESS else []
        changed.append(("comparison", _DIRECTION[node.op]))
        for kind, flipped in changed:
            edit = Edit(start, start + len(node.op), flipped)
            self.add(kind, site.clause, site.owner, node.span, self.changed(node.span, edit), edit)

    def logic(self, site: _Site, node: ast.BoolOp) -> None:
        other = "or" if node.op == "and" else "and"
        gap = self.source[node.left.span.end : node.right.span.start]
        match = re.search(rf"\b{node.op}\b", gap)
        if match is None:  # pragma: no cover
            return
        start = node.left.span.end + match.start()
        edit = Edit(start, start + len(node.op), other)
        self.add("logic", site.clause, site.owner, node.span, self.changed(node.span, edit), edit)

    def cap(self, site: _Site, node: ast.Call) -> None:
        for index, kept in enumerate(node.args):
            dropped = [a for i, a in enumerate(node.args) if i != index]
            text = self.text(kept)
            if not isinstance(kept, _ATOMS):
                text = f"({text})"
            self.add(
                "dropped-cap",
                site.clause,
                site.owner,
                node.span,
                f"{node.name}(...) -> {_snippet(self.text(kept), 40)} (dropped "
                f"{', '.join(_snippet(self.text(a), 40) for a in dropped)})",
                Edit(node.span.start, node.span.end, text),
            )

    def dropped_fact(self, site: _Site, node: ast.BoolOp) -> None:
        for kept, dropped in ((node.left, node.right), (node.right, node.left)):
            self.add(
                "fact-dropped",
                site.clause,
                site.owner,
                node.span,
                f"drop '{_snippet(self.text(dropped), 40)}' from '{_snippet(self.text(node))}'",
                Edit(node.span.start, node.span.end, self.operand(kept)),
            )

    def operand(self, node: ast.Expr, safe: tuple[type, ...] = _OR_OPERANDS) -> str:
        """Returns the text of `node`, in parentheses unless it is one of `safe`."""
        text = self.text(node)
        return text if isinstance(node, safe) else f"({text})"

    def misplaced(self, site: _Site, node: ast.Call) -> None:
        """`min(a + b, c)` -> `min(a, c) + b` (b added after the cap) and `a + min(b, c)` (the
        cap applied to b alone), for every argument that is a sum."""
        if node.kwargs:
            return
        for index, arg in enumerate(node.args):
            if not (isinstance(arg, ast.BinOp) and arg.op == "+"):
                continue
            others = [self.text(a) for i, a in enumerate(node.args) if i != index]
            left, right = self.text(arg.left), self.operand(arg.right, _ATOMS)
            for call, outside, description in (
                (
                    [*others[:index], left, *others[index:]],
                    f" + {right}",
                    f"{_snippet(self.text(arg.right), 32)} added after {node.name}()",
                ),
                (
                    [*others[:index], self.text(arg.right), *others[index:]],
                    f"{left} + ",
                    f"{node.name}() applied to {_snippet(self.text(arg.right), 32)} alone",
                ),
            ):
                inner = f"{node.name}({', '.join(call)})"
                text = f"({inner}{outside})" if outside.startswith(" ") else f"({outside}{inner})"
                self.add(
                    "misplaced-amount",
                    site.clause,
                    site.owner,
                    node.span,
                    f"{description}: {_snippet(text[1:-1], 60)}",
                    Edit(node.span.start, node.span.end, text),
                )

    def rounding(self, site: _Site, node: ast.Call) -> None:
        """A rounding dropped; a floor turned into one more (`floor(x) + 1`), a ceiling into a
        floor."""
        (arg,) = node.args
        whole = self.text(node)
        if node.name == "floor":
            other = (f"({whole} + 1)", f"round up: {_snippet(whole, 48)} + 1")
        else:
            other = (f"floor({self.text(arg)})", f"round down: {_snippet(whole, 48)}")
        for text, description in (
            (self.operand(arg, _ATOMS), f"drop {node.name}: {_snippet(self.text(arg), 48)}"),
            other,
        ):
            self.add(
                "rounding",
                site.clause,
                site.owner,
                node.span,
                description,
                Edit(node.span.start, node.span.end, text),
            )

    def member(self, site: _Site, node: ast.Ref) -> None:
        members = self.members[node.name]
        index = members.index(node.name)
        for other in (index - 1, index + 1):
            if 0 <= other < len(members):
                self.add(
                    "enum-member",
                    site.clause,
                    site.owner,
                    node.span,
                    f"{node.name} -> {members[other]}",
                    Edit(node.span.start, node.span.end, members[other]),
                )

    # ---- conditions of rules and cases ---------------------------------------------------
    def conditions(self) -> None:
        for exception in self.statute.exceptions:
            span = exception.condition.span
            self.add(
                "dropped-condition",
                exception.clause,
                f"exception {exception.name}",
                span,
                f"drop 'when {_snippet(self.text(exception.condition))}' (when true)",
                Edit(span.start, span.end, "true"),
            )
        for definition in self.statute.definitions.values():
            if isinstance(definition, ast.Rule):
                if definition.condition is None or definition.expr is None:
                    continue
                condition = definition.condition
                gap = self.source[definition.expr.span.end : condition.span.start]
                matches = list(re.finditer(r"\bwhen\b", gap))
                if not matches:  # pragma: no cover
                    continue
                start = definition.expr.span.end + matches[-1].start()
                self.add(
                    "dropped-condition",
                    definition.clause,
                    f"rule {definition.name}",
                    condition.span,
                    f"drop 'when {_snippet(self.text(condition))}'",
                    Edit(start, condition.span.end, ""),
                )
            else:
                for case in definition.cases:
                    if case.condition is None:
                        continue
                    span = case.condition.span
                    self.add(
                        "dropped-condition",
                        case.clause,
                        f"case {case.name}",
                        span,
                        f"drop 'when {_snippet(self.text(case.condition))}' (when true)",
                        Edit(span.start, span.end, "true"),
                    )

    # ---- facts, conditions and quantities of other clauses --------------------------------
    def condition_sites(self, sites: list[_Site]) -> list[_Site]:
        """Returns every condition: of a rule, a case, an exception, or an `if`, by position."""
        found: list[_Site] = []
        for definition in self.statute.definitions.values():
            if isinstance(definition, ast.Rule) and definition.condition is not None:
                found.append(
                    _Site(f"rule {definition.name}", definition.clause, definition.condition)
                )
            elif isinstance(definition, ast.Cases):
                for case in definition.cases:
                    if case.condition is not None:
                        found.append(_Site(f"case {case.name}", case.clause, case.condition))
        for exception in self.statute.exceptions:
            found.append(
                _Site(f"exception {exception.name}", exception.clause, exception.condition)
            )
        for site in sites:
            for node in walk(site.expr):
                if isinstance(node, ast.If):
                    found.append(_Site(site.owner, site.clause, node.condition))
        unique = {site.expr.span.start: site for site in found}
        return [unique[start] for start in sorted(unique)]

    def added_facts(self, sites: list[_Site]) -> None:
        """`when C` -> `when C or F`: F a bool input that another condition reads beside a fact
        C reads, and that nothing of C's clause reads (a fact of a neighbouring clause)."""
        facts = self.inputs_of("bool")
        conditions = self.condition_sites(sites)
        beside: dict[str, list[str]] = {}
        for site in conditions:
            read = [name for name in _refs(site.expr) if name in facts]
            for name in read:
                for other in read:
                    if other != name and other not in beside.setdefault(name, []):
                        beside[name].append(other)
        clause_reads: dict[tuple[str, ...], set[str]] = {}
        for site in sites:
            clause_reads.setdefault(site.clause.path, set()).update(_refs(site.expr))
        order = list(self.statute.inputs)
        for site in conditions:
            read = [name for name in _refs(site.expr) if name in facts]
            candidates = {f for name in read for f in beside.get(name, [])}
            candidates -= clause_reads.get(site.clause.path, set())
            condition = site.expr
            left = self.operand(condition, (*_OR_OPERANDS, ast.BoolOp))
            if isinstance(condition, ast.BoolOp) and condition.op == "implies":
                left = f"({self.text(condition)})"
            for fact in sorted(candidates, key=order.index):
                self.add(
                    "fact-added",
                    site.clause,
                    site.owner,
                    condition.span,
                    f"'{_snippet(self.text(condition), 40)}' -> '... or {fact}'",
                    Edit(condition.span.start, condition.span.end, f"{left} or {fact}"),
                )

    def moved_conditions(self) -> None:
        """Swaps the conditions of neighbouring cases of one definition, and of neighbouring
        rules without parameters under one parent clause."""
        groups: dict[tuple[object, ...], list[tuple[str, ast.Clause, ast.Expr]]] = {}
        for definition in self.statute.definitions.values():
            if isinstance(definition, ast.Rule):
                if definition.condition is not None and not definition.params:
                    key = ("rules", definition.clause.path[:-1])
                    groups.setdefault(key, []).append(
                        (f"rule {definition.name}", definition.clause, definition.condition)
                    )
            else:
                for case in definition.cases:
                    if case.condition is not None and not definition.params:
                        groups.setdefault(("cases", definition.name), []).append(
                            (f"case {case.name}", case.clause, case.condition)
                        )
        for members in groups.values():
            members.sort(key=lambda member: member[2].span.start)
            for (owner, clause, first), (other_owner, _, second) in pairwise(members):
                one, two = self.text(first), self.text(second)
                if one == two:
                    continue
                self.add(
                    "condition-moved",
                    clause,
                    owner,
                    first.span,
                    f"swap 'when {_snippet(one, 32)}' with 'when {_snippet(two, 32)}' of "
                    f"{other_owner}",
                    Edit(first.span.start, first.span.end, two),
                    Edit(second.span.start, second.span.end, one),
                )

    def related_quantities(self, sites: list[_Site]) -> None:
        """A count input X that a comparison reads -> `(X + Y)` throughout that expression,
        for every count input Y another expression reads beside X, and this one does not."""
        counts = self.inputs_of("count")
        beside: dict[str, list[str]] = {}
        for site in sites:
            read = [name for name in _refs(site.expr) if name in counts]
            for name in read:
                for other in read:
                    if other != name and other not in beside.setdefault(name, []):
                        beside[name].append(other)
        for site in sites:
            read = _refs(site.expr)
            compared: list[str] = []
            for node in walk(site.expr):
                if isinstance(node, ast.Compare):
                    compared += [n for n in _refs(node) if n in counts and n not in compared]
            for name in compared:
                refs = [
                    node
                    for node in walk(site.expr)
                    if isinstance(node, ast.Ref) and node.name == name
                ]
                for other in beside.get(name, []):
                    if other in read:
                        continue
                    self.add(
                        "condition-moved",
                        site.clause,
                        site.owner,
                        refs[0].span,
                        f"{name} -> ({name} + {other}) in '{_snippet(self.text(site.expr), 40)}'",
                        *(Edit(r.span.start, r.span.end, f"({name} + {other})") for r in refs),
                    )


def generate(statute: ast.Statute) -> list[Mutant]:
    """Returns every mutant of the statute's rules and cases, in source order, with ids
    M001, M002, ... (deterministic: the same encoding always gives the same list)."""
    return _Generator(statute).generate()


def select(mutants: Sequence[Mutant], limit: int | None, seed: int = 0) -> list[Mutant]:
    """Returns at most `limit` of `mutants` (all when `limit` is None), chosen by `seed` and
    spread over the kinds in turn so that a small sample covers every kind; in source order."""
    if limit is None or limit >= len(mutants):
        return list(mutants)
    rng = random.Random(seed)
    by_kind: dict[str, list[Mutant]] = {}
    for mutant in mutants:
        by_kind.setdefault(mutant.kind, []).append(mutant)
    for group in by_kind.values():
        rng.shuffle(group)
    chosen: list[Mutant] = []
    queues = [by_kind[k] for k in KINDS if k in by_kind]
    while len(chosen) < limit:
        for queue in queues:
            if queue and len(chosen) < limit:
                chosen.append(queue.pop())
    order = {m.id: i for i, m in enumerate(mutants)}
    return sorted(chosen, key=lambda m: order[m.id])


def edit_regions(statute: ast.Statute) -> list[ast.Span]:
    """Returns the spans inside which mutants may edit: every rule, piecewise declaration,
    case and exception (their words, carried elsewhere, are never inside them)."""
    regions: list[ast.Span] = []
    for definition in statute.definitions.values():
        regions.append(definition.span)
        if isinstance(definition, ast.Cases):
            regions.extend(case.span for case in definition.cases)
    regions.extend(exception.span for exception in statute.exceptions)
    return regions


# ---------------------------------------------------------------------------------------------
# Equivalence


@dataclass(frozen=True)
class Equivalence:
    """Whether a mutant's results equal the original's for every valid scenario."""

    verdict: str  # "equivalent", "different", "unknown" or "error"
    method: str  # "verify.diff" or "built-in"
    detail: str = ""


def builtin_equivalence(
    original: ast.Statute, mutant: ast.Statute, timeout_seconds: float, stop: bool = True
) -> dict[str, str]:
    """Returns, for each result of `original` (up to the first that is not "equal" when
    `stop`), "equal" when Z3 proves the mutant's value equal to it for every valid scenario and
    every selectable reading (the two models share their input and reading variables),
    "different" when it finds a scenario where they differ, or "unknown"."""
    import z3

    from .model import Model, Term
    from .solve import decide

    first = Model(original, "", collect=False)
    second = Model(mutant, "__mutant", collect=False, base=first)
    proved: list[tuple[Term, Term]] = []  # (mutant's term, original's term) proved equal
    verdicts: dict[str, str] = {}
    for name in original.result_names:
        if name not in mutant.definitions:
            verdicts[name] = "different"
        else:
            left = first.term(name)
            right = second.term(name)
            if proved:
                # Results proved equal stand for each other inside later results.
                right = z3.substitute(right, *proved)
            if z3.eq(z3.simplify(left), z3.simplify(right)):
                verdicts[name] = "equal"
            else:
                facts = [*first.constraints, left != right]
                answer, _ = decide(facts, max(1, int(timeout_seconds * 1000)))
                verdicts[name] = (
                    "equal"
                    if answer == z3.unsat
                    else "different"
                    if answer == z3.sat
                    else "unknown"
                )
            if verdicts[name] == "equal":
                proved.append((second.term(name), left))
        if stop and verdicts[name] != "equal":
            break
    return verdicts


def equivalence(original: ast.Statute, mutant: ast.Statute, timeout_seconds: float) -> Equivalence:
    """Returns whether `mutant` computes the same results as `original` for every valid
    scenario: with the semantic diff of `verify.diff` when that module is available (its
    `Comparer`, stopping at the first result that is not proved equal, else its
    `compare_results`), otherwise with the built-in proof of `builtin_equivalence`."""
    try:
        from . import diff
    except ImportError:
        return _builtin(original, mutant, timeout_seconds)
    try:
        statuses = _diff_statuses(diff, original, mutant, timeout_seconds)
    except Exception as error:  # a module still being written: fall back, and say so
        fallback = _builtin(original, mutant, timeout_seconds)
        return Equivalence(
            fallback.verdict,
            "built-in",
            f"verify.diff failed ({type(error).__name__}: {error}); {fallback.detail}",
        )
    return _verdict(statuses, "verify.diff")


def _diff_statuses(
    diff: Any, original: ast.Statute, mutant: ast.Statute, timeout_seconds: float
) -> dict[str, str]:
    comparer_class = getattr(diff, "Comparer", None)
    if comparer_class is None:
        return {
            str(c.name): str(c.status)
            for c in diff.compare_results(original, mutant, timeout_seconds)
        }
    comparer = comparer_class(original, mutant, timeout_seconds)
    statuses: dict[str, str] = {}
    for name in comparer.common_results():
        statuses[name] = str(comparer.compare(name).status)
        if statuses[name] != "equal":
            break  # one result that differs (or is undecided) settles it
    return statuses


def _builtin(original: ast.Statute, mutant: ast.Statute, timeout_seconds: float) -> Equivalence:
    try:
        statuses = builtin_equivalence(original, mutant, timeout_seconds)
    except Exception as error:
        return Equivalence("error", "built-in", f"{type(error).__name__}: {error}")
    return _verdict(statuses, "built-in")


def _verdict(statuses: dict[str, str], method: str) -> Equivalence:
    if statuses and all(s == "equal" for s in statuses.values()):
        return Equivalence("equivalent", method, "every result proved equal")
    for wanted in ("different", "error", "unknown"):
        names = [n for n, s in statuses.items() if s == wanted]
        if names:
            return Equivalence(wanted, method, f"{wanted}: {', '.join(names)}")
    return Equivalence("unknown", method, "no result compared")


# ---------------------------------------------------------------------------------------------
# Running one mutant


@dataclass(frozen=True)
class Job:
    """Everything a worker process needs to run one mutant."""

    mutant: Mutant
    source: str  # the original encoding's text
    official_name: str
    official_text: str
    timeout: float
    budget: float
    tests: bool
    cases: tuple[str, ...] = ()  # the cases files run when `tests`


@dataclass(frozen=True)
class ProofKill:
    """A proof that failed on a mutant: the check's name and kind, how it ended, and whether
    the failure came with a counterexample scenario."""

    name: str
    kind: str  # invariant, monotone, well-formed, bound, ...
    status: str  # VIOLATED, VACUOUS or ERROR
    counterexample: bool


@dataclass
class MutantResult:
    """What became of one mutant."""

    mutant: Mutant
    status: str  # check, proof, tests, equivalent, survived or unknown
    check_errors: list[str] = field(default_factory=list)
    check_kinds: list[str] = field(default_factory=list)  # category of each error, distinct
    numbers_only: bool = False  # every check error is an untraceable number
    proof_failures: list[str] = field(default_factory=list)  # "STATUS name"
    proof_kills: list[ProofKill] = field(default_factory=list)
    proofs_alone: bool | None = None  # would the proofs kill it, ignoring the number check?
    unknown: int = 0
    unknown_checks: list[str] = field(default_factory=list)  # the checks that ended UNKNOWN
    tests_detail: str = ""
    equivalence: Equivalence | None = None
    seconds: float = 0.0

    @property
    def killed(self) -> bool:
        """True when a check, a proof or a test caught the mutant."""
        return self.status in KILLED_BY

    @property
    def killer(self) -> str | None:
        """Returns what killed the mutant, within its stage: the category of the first check
        error, the name of the first failing proof, "cases" for the tests; None when alive."""
        if self.status == "check":
            return self.check_kinds[0] if self.check_kinds else "check"
        if self.status == "proof":
            return self.proof_kills[0].name if self.proof_kills else "proof"
        if self.status == "tests":
            return "cases"
        return None

    @property
    def status_without_tests(self) -> str:
        """Returns the status the mutant would have had without the test cases."""
        if self.status != "tests":
            return self.status
        return "unknown" if self.unknown else "survived"


_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|\u201c[^\u201d]*\u201d|\u2018[^\u2019]*\u2019")
_NUMBER = re.compile(r"\$?\d[\d,]*(?:\.\d+)?(?:/\d+)?%?")
_CITED = re.compile(r"(?:\((?:[0-9]{1,4}[A-Za-z]{0,2}|[a-zA-Z]{1,6})\))+|\b[a-zA-Z]{1,2}\.(?=\s|$)")


def check_category(diagnostic: Any) -> str:
    """Returns the category of a checker diagnostic: its `code` when it has one, else its
    message with what is particular to one place removed (quoted names, numbers, citations),
    e.g. "the number N in '…' is not stated in the words of (…)"."""
    code = getattr(diagnostic, "code", None)
    if code:
        return str(code)
    text = _QUOTED.sub("'…'", str(diagnostic.message))
    text = _NUMBER.sub("N", text)
    text = _CITED.sub("(…)", text)
    return _snippet(" ".join(text.split()), 80)


_ORIGINALS: dict[str, ast.Statute] = {}


def _original(source: str) -> ast.Statute:
    statute = _ORIGINALS.get(source)
    if statute is None:
        statute, _ = parse_encoding(source, "original.lex")
        _ORIGINALS.clear()
        _ORIGINALS[source] = statute
    return statute


def run_job(job: Job) -> MutantResult:
    """Returns the result of running one mutant through checks, proofs, tests and the
    equivalence proof (in a fresh temporary folder, removed afterwards)."""
    started = time.perf_counter()
    folder = Path(tempfile.mkdtemp(prefix=f"lextrace-{job.mutant.id}-"))
    try:
        result = _run_in(job, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    result.seconds = time.perf_counter() - started
    return result


def _run_in(job: Job, folder: Path) -> MutantResult:
    from lextrace.dsl.loader import analyse

    from .report import run

    mutant = job.mutant
    path = folder / f"{mutant.id}.lex"
    path.write_text(mutant.apply(job.source), encoding="utf-8")
    official = folder / job.official_name
    official.parent.mkdir(parents=True, exist_ok=True)
    official.write_text(job.official_text, encoding="utf-8")
    result = MutantResult(mutant, "survived")
    # (a) static checks
    analysis = analyse(path)
    errors = analysis.errors
    result.check_errors = [f"{d.line}:{d.column}: {d.message}" for d in errors]
    for diagnostic in errors:
        category = check_category(diagnostic)
        if category not in result.check_kinds:
            result.check_kinds.append(category)
    result.numbers_only = bool(errors) and all(NUMBER_CHECK in d.message for d in errors)
    if errors:
        result.status = "check"
    statute = analysis.statute
    # (b) proofs, also on mutants only the number check rejects
    if statute is not None and (not errors or result.numbers_only):
        try:
            report = run(statute, job.timeout, job.budget)
            failed = [o for o in report.outcomes if o.status in PROOF_KILLS]
            unknown = [o.check.name for o in report.outcomes if o.status == "UNKNOWN"]
            result.unknown = len(unknown)
            result.unknown_checks = unknown
            result.proof_failures = [f"{o.status} {o.check.name}" for o in failed]
            result.proof_kills = [
                ProofKill(o.check.name, o.check.kind, o.status, bool(o.counterexample))
                for o in failed
            ]
        except Exception as error:  # the verifier cannot even build the checks
            result.proof_failures = [f"ERROR the verifier failed: {type(error).__name__}: {error}"]
            result.proof_kills = [ProofKill("the verifier", "verifier", "ERROR", False)]
        result.proofs_alone = bool(result.proof_failures)
        if result.proofs_alone and not errors:
            result.status = "proof"
    if result.status != "survived" and result.proofs_alone is not False:
        return result
    # (c) tests, for survivors
    if result.status == "survived" and job.tests:
        assert statute is not None
        failed_tests, detail = run_cases(statute, job.cases, str(path))
        if failed_tests:
            result.status = "tests"
            result.tests_detail = detail
            return result
    # (d) equivalence: of survivors, and of what only the number check caught
    assert statute is not None
    try:
        result.equivalence = equivalence(_original(job.source), statute, job.timeout * 2)
    except EncodingError as error:  # pragma: no cover - the original parsed before
        result.equivalence = Equivalence("error", "built-in", str(error))
    if result.status == "survived" and result.equivalence.verdict == "equivalent":
        result.status = "equivalent"
    elif result.status == "survived" and result.unknown:
        result.status = "unknown"  # an undecided proof might have killed it
    return result


def run_cases(statute: ast.Statute, cases: Sequence[str], encoding: str) -> tuple[bool, str]:
    """Returns (failed, what failed first) for the cases files `cases` run on `statute` (read
    from `encoding`), in this process. A case failing, or the encoding raising while a case
    runs, fails; a cases file that does not fit the encoding too."""
    from lextrace.api import Statute
    from lextrace.cases import CasesError, load_cases, run_file

    try:
        program = Statute(statute)
        for file in cases:
            run = run_file(load_cases(file), program, encoding, trace=False)
            for outcome in run.failures:
                from lextrace.cases_report import failure_lines

                first = (failure_lines(outcome) or ["failed"])[0]
                return True, _snippet(f"case '{outcome.case.name}' fails: {first}", 160)
    except CasesError as error:
        return True, _snippet(error.problems[0].render(), 160)
    except Exception as error:  # a mutant may break the evaluator itself: the case fails
        return True, _snippet(f"a case raised {type(error).__name__}: {error}", 160)
    return False, ""


# ---------------------------------------------------------------------------------------------
# The whole run


class UnusableEncoding(Exception):
    """The encoding cannot serve as the original of a mutation run (it does not check, does
    not prove, or its tests fail)."""


@dataclass
class MutationReport:
    """The results of a mutation run, one per mutant, in source order."""

    statute: str
    encoding: str
    generated: int
    results: list[MutantResult]
    seconds: float
    timeout: float
    budget: float
    tests: bool
    limit: int | None = None
    seed: int = 0
    cases: tuple[str, ...] = ()

    def totals(self) -> dict[str, int]:
        """Returns the counts: mutants, killed by check / proof / tests, by proofs alone
        (ignoring the number check), equivalent, survived, unknown (neither killed nor
        survived), killed, non-equivalent, decided (killed or survived), and the same without
        the tests (what the checks and proofs alone kill, of what they decide)."""
        count = {status: 0 for status in STATUSES}
        for result in self.results:
            count[result.status] += 1
        killed = sum(count[s] for s in KILLED_BY)
        without = [r.status_without_tests for r in self.results]
        killed_without = sum(1 for s in without if s in ("check", "proof"))
        return {
            "mutants": len(self.results),
            "killed_by_check": count["check"],
            "killed_by_proof": count["proof"],
            "killed_by_tests": count["tests"],
            "equivalent": count["equivalent"],
            "survived": count["survived"],
            "unknown": count["unknown"],
            "killed": killed,
            "non_equivalent": len(self.results) - count["equivalent"],
            "decided": killed + count["survived"],
            "killed_without_tests": killed_without,
            "decided_without_tests": killed_without + without.count("survived"),
            "unknown_without_tests": without.count("unknown"),
            "proofs_alone_run": sum(1 for r in self.results if r.proofs_alone is not None),
            "killed_by_proofs_alone": sum(1 for r in self.results if r.proofs_alone),
            "proofs_alone_equivalent": sum(1 for r in self.results if _equivalent(r)),
        }

    @property
    def kill_rate(self) -> Fraction | None:
        """Returns killed / decided mutants (killed or survived: the equivalent and the
        unknown left out), None when none is decided."""
        totals = self.totals()
        if not totals["decided"]:
            return None
        return Fraction(totals["killed"], totals["decided"])

    @property
    def kill_rate_without_tests(self) -> Fraction | None:
        """Returns what the checks and proofs alone kill, of the mutants they decide (a
        mutant killed only by the tests counts as survived, or as unknown when a proof of it
        ended UNKNOWN); None when none is decided. Equals `kill_rate` without `--tests`."""
        totals = self.totals()
        if not totals["decided_without_tests"]:
            return None
        return Fraction(totals["killed_without_tests"], totals["decided_without_tests"])

    @property
    def proofs_alone_rate(self) -> Fraction | None:
        """Returns what the proofs alone kill, ignoring the number check, out of the mutants
        they could run on that are not equivalent (None when there are none)."""
        totals = self.totals()
        runnable = totals["proofs_alone_run"] - totals["proofs_alone_equivalent"]
        if runnable <= 0:
            return None
        return Fraction(totals["killed_by_proofs_alone"], runnable)

    @property
    def equivalence_methods(self) -> list[str]:
        """Returns the equivalence methods used, in first-use order."""
        methods: list[str] = []
        for result in self.results:
            if result.equivalence and result.equivalence.method not in methods:
                methods.append(result.equivalence.method)
        return methods

    def by_kind(self) -> dict[str, dict[str, Any]]:
        """Returns, for each kind present: how many mutants ended with each status, how many
        the proofs alone kill, the kill rate of the checks and proofs without the tests
        (`killed_without_tests` of `decided_without_tests`), and which checks did the killing
        (`killers`: for "check" the categories of the first check error, for "proof" the
        first failing proof's name, each with its count, most first)."""
        found: dict[str, dict[str, Any]] = {}
        for kind in KINDS:
            rows = [r for r in self.results if r.mutant.kind == kind]
            if not rows:
                continue
            row: dict[str, Any] = {"mutants": len(rows)}
            for status in STATUSES:
                row[status] = sum(1 for r in rows if r.status == status)
            row["proofs_alone"] = sum(1 for r in rows if r.proofs_alone)
            without = [r.status_without_tests for r in rows]
            row["killed_without_tests"] = sum(1 for s in without if s in ("check", "proof"))
            row["decided_without_tests"] = row["killed_without_tests"] + without.count("survived")
            row["killers"] = {
                stage: _ranked(r.killer for r in rows if r.status == stage and r.killer)
                for stage in ("check", "proof")
            }
            row["proof_counterexamples"] = sum(
                1
                for r in rows
                if r.status == "proof" and r.proof_kills and r.proof_kills[0].counterexample
            )
            found[kind] = row
        return found


def _ranked(names: Iterator[str]) -> list[tuple[str, int]]:
    """Returns each name with how often it occurs, most first (then by name)."""
    counts: dict[str, int] = {}
    for name in names:
        counts[name] = counts.get(name, 0) + 1
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


def _rate(killed: int, decided: int) -> Fraction | None:
    return Fraction(killed, decided) if decided else None


def _equivalent(result: MutantResult) -> bool:
    return result.equivalence is not None and result.equivalence.verdict == "equivalent"


def percent(rate: Fraction | None) -> str:
    """Returns a rate as a percentage rounded half-up to two decimals ("93.33"), or "n/a"."""
    if rate is None:
        return "n/a"
    hundredths = rate * 10000
    whole = int(hundredths)  # rates are never negative
    if hundredths - whole >= Fraction(1, 2):
        whole += 1
    return f"{whole // 100}.{whole % 100:02d}"


def run_mutants(
    encoding: str | Path,
    limit: int | None = None,
    seed: int = 0,
    tests: bool = False,
    timeout: float = DEFAULT_TIMEOUT,
    budget: float = DEFAULT_BUDGET,
    jobs: int = 2,
    cases: Sequence[str | Path] = (),
    progress: Callable[[int, int, MutantResult], None] | None = None,
) -> MutationReport:
    """Returns the report of running the mutants of the encoding at `encoding` (at most
    `limit` of them, chosen with `seed`) through checks, proofs (each Z3 call within `timeout`
    seconds, each mutant's proofs within `budget`), with `tests` the test cases (the files
    `cases`, else `<stem>.cases.yaml` beside the encoding), and the equivalence proof; `jobs`
    processes run mutants side by side.

    Raises EncodingError when the encoding does not check (as every command reports it),
    CasesError when a cases file is bad, and UnusableEncoding when a proof of it fails or (with
    `tests`) it has no cases or its own cases fail: mutants of it would measure nothing.
    """
    from lextrace.dsl.loader import analyse

    from .report import run

    started = time.perf_counter()
    path = Path(encoding)
    analysis = analyse(path)  # an unreadable file raises EncodingError, as any command's would
    if analysis.errors or analysis.statute is None:
        raise EncodingError(analysis.errors, analysis.source)
    statute = analysis.statute
    assert analysis.official_path is not None
    baseline = run(statute, timeout, budget)
    broken = [o for o in baseline.outcomes if o.status in PROOF_KILLS]
    if broken:
        names = ", ".join(f"{o.status} {o.check.name}" for o in broken[:3])
        raise UnusableEncoding(f"{path}: the original does not verify ({names})")
    files: tuple[str, ...] = ()
    if tests:
        files = _cases_files(path, cases, statute)
        failed, detail = run_cases(statute, files, str(path))
        if failed:
            raise UnusableEncoding(f"{path}: the test cases fail on the original: {detail}")
    mutants = generate(statute)
    chosen = select(mutants, limit, seed)
    official_text = Path(analysis.official_path).read_text(encoding="utf-8")
    work = [
        Job(m, analysis.source, statute.official, official_text, timeout, budget, tests, files)
        for m in chosen
    ]
    results = list(_execute(work, jobs, progress))
    return MutationReport(
        statute=statute.name,
        encoding=str(path),
        generated=len(mutants),
        results=results,
        seconds=time.perf_counter() - started,
        timeout=timeout,
        budget=budget,
        tests=tests,
        limit=limit,
        seed=seed,
        cases=files,
    )


def _cases_files(
    encoding: Path, cases: Sequence[str | Path], statute: ast.Statute
) -> tuple[str, ...]:
    """Returns the cases files to run, absolute: those given, else the one beside the
    encoding. Raises UnusableEncoding when there are none, and CasesError when one is bad or
    does not fit `statute` (its results, readings and the types of their values)."""
    from lextrace.api import Statute
    from lextrace.cases import bind, cases_beside, load_cases

    files = [Path(c) for c in cases] or [cases_beside(encoding)]
    if not cases and not files[0].is_file():
        raise UnusableEncoding(
            f"{encoding}: no test cases to run: {files[0]} does not exist "
            "(write it, or give a cases file with --cases FILE)"
        )
    program = Statute(statute)
    for file in files:
        bind(load_cases(file), program)  # a bad file is reported now, at its line and column
    return tuple(str(file.resolve()) for file in files)


def _execute(
    work: list[Job],
    jobs: int,
    progress: Callable[[int, int, MutantResult], None] | None,
) -> Iterator[MutantResult]:
    """Yields the results of `work`, in order, computed by `jobs` processes (in this one
    when `jobs` is 1 or there is a single job)."""
    done = 0
    if jobs <= 1 or len(work) <= 1:
        for job in work:
            result = run_job(job)
            done += 1
            if progress:
                progress(done, len(work), result)
            yield result
        return
    # Spawned workers: Z3 contexts do not survive a fork safely.
    context = multiprocessing.get_context("spawn")
    # A stop half-way through starting the pool would leave a worker outside it (not ended
    # by it) with its start-up data half-sent, to die later printing a traceback.
    with stops_held():
        pool = context.Pool(processes=jobs)
    results: list[MutantResult] = []
    try:
        for result in pool.imap(run_job, work):
            results.append(result)
            done += 1
            if progress:
                progress(done, len(work), result)
    except BaseException:
        # Stopped (a signal, Ctrl-C) or failed: the workers end at once, and no mutant still
        # queued is run.
        pool.terminate()
        pool.join()
        raise
    pool.close()
    pool.join()
    yield from results


# ---------------------------------------------------------------------------------------------
# Rendering


def outcome_text(result: MutantResult) -> str:
    """Returns what became of a mutant in a few words, e.g. "killed by proof"."""
    if result.killed:
        return f"killed by {result.status}"
    return result.status


def _why(result: MutantResult) -> str:
    if result.status == "check":
        first = result.check_errors[0] if result.check_errors else ""
        alone = {True: "proofs alone: killed", False: "proofs alone: missed", None: ""}[
            result.proofs_alone
        ]
        extra = f" ({len(result.check_errors)} errors)" if len(result.check_errors) > 1 else ""
        parts = [_snippet(first, 70) + extra]
        if alone:
            parts.append(alone)
            if result.proofs_alone:
                parts.append(_snippet(result.proof_failures[0], 60))
        return "; ".join(parts)
    if result.status == "proof":
        more = len(result.proof_failures) - 1
        return _snippet(result.proof_failures[0], 70) + (f" (+{more} more)" if more else "")
    if result.status == "tests":
        return result.tests_detail
    if result.status == "unknown":
        names = ", ".join(result.unknown_checks[:3])
        return f"{result.unknown} checks UNKNOWN ({names}); neither killed nor survived"
    if result.equivalence is not None:
        return f"{result.equivalence.detail} [{result.equivalence.method}]"
    return ""


def render_text(report: MutationReport) -> str:
    """Returns the report for people: one line per mutant, totals by kind, survivors, rates."""
    lines = [
        f"mutation run of {report.statute} ({report.encoding}): {len(report.results)} of "
        f"{report.generated} mutants, proofs within {report.timeout:g} s a call, "
        f"tests {'on (' + ', '.join(report.cases) + ')' if report.tests else 'off'}",
        "",
    ]
    for result in report.results:
        mutant = result.mutant
        why = _why(result)
        lines.append(
            f"{mutant.id}  {mutant.kind:<17} {mutant.citation:<12} line {mutant.line:<4} "
            f"{outcome_text(result):<16} {mutant.description}"
        )
        if why:
            lines.append(f"      {why}")
    lines.append("")
    lines.append("by kind:")
    by_kind = report.by_kind()
    for kind, row in by_kind.items():
        shown = ", ".join(f"{row[s]} {s}" for s in STATUSES if row[s])
        lines.append(
            f"  {kind:<17} {row['mutants']:>3} mutants: {shown}; proofs alone kill "
            f"{row['proofs_alone']}"
        )
        for stage in ("check", "proof"):
            killers = row["killers"][stage]
            if killers:
                top = "; ".join(f"{count} {name}" for name, count in killers[:TOP_KILLERS])
                more = len(killers) - TOP_KILLERS
                lines.append(f"      by {stage}: {top}" + (f" (+{more} more)" if more > 0 else ""))
    totals = report.totals()
    for status, title in (
        ("survived", "survivors"),
        ("unknown", "unknown (a proof ended UNKNOWN: neither killed nor survived)"),
    ):
        rows = [r for r in report.results if r.status == status]
        if rows:
            lines.append("")
            lines.append(f"{title}:")
            for result in rows:
                extra = ""
                if status == "unknown":
                    extra = f"  [UNKNOWN: {', '.join(result.unknown_checks[:3])}]"
                lines.append(f"  {result.mutant.id}  {result.mutant.description}{extra}")
    lines.append("")
    lines.append("kill rate of the checks and proofs alone (without the tests), by kind:")
    for kind, row in by_kind.items():
        lines.append(
            f"  {kind:<17} {row['killed_without_tests']:>3}/{row['decided_without_tests']:<3} = "
            f"{percent(_rate(row['killed_without_tests'], row['decided_without_tests']))} %"
        )
    lines.append(
        f"  {'all':<17} {totals['killed_without_tests']:>3}/"
        f"{totals['decided_without_tests']:<3} = {percent(report.kill_rate_without_tests)} %"
    )
    lines.append("")
    lines.append(
        f"{totals['mutants']} mutants: {totals['killed_by_check']} killed by the static checks, "
        f"{totals['killed_by_proof']} by the proofs, {totals['killed_by_tests']} by the tests; "
        f"{totals['equivalent']} equivalent, {totals['survived']} survived, "
        f"{totals['unknown']} unknown"
    )
    lines.append(
        f"kill rate: {totals['killed']}/{totals['decided']} decided non-equivalent mutants = "
        f"{percent(report.kill_rate)} %"
        + (f" ({totals['unknown']} unknown left out)" if totals["unknown"] else "")
    )
    runnable = totals["proofs_alone_run"] - totals["proofs_alone_equivalent"]
    lines.append(
        f"proofs alone (ignoring the number check): {totals['killed_by_proofs_alone']}/"
        f"{runnable} non-equivalent mutants they could run on = "
        f"{percent(report.proofs_alone_rate)} %"
    )
    methods = ", ".join(report.equivalence_methods) or "none needed"
    lines.append(f"equivalence: {methods}; {report.seconds:.1f} s in all")
    return "\n".join(lines)


def to_json(report: MutationReport) -> dict[str, object]:
    """Returns the report as JSON: {"statute", "encoding", "totals", "kill_rate",
    "kill_rate_without_tests", "by_kind" (statuses, killers, rates), "survivors", "unknown",
    "mutants": [{id, kind, citation, line, description, status, killed_by, killer, ...}]}."""
    mutants = []
    for result in report.results:
        mutant = result.mutant
        entry: dict[str, object] = {
            "id": mutant.id,
            "kind": mutant.kind,
            "citation": mutant.citation,
            "line": mutant.line,
            "owner": mutant.owner,
            "description": mutant.description,
            "status": result.status,
            "killed_by": result.status if result.killed else None,
            "killer": result.killer,
            "status_without_tests": result.status_without_tests,
            "check_errors": result.check_errors,
            "check_kinds": result.check_kinds,
            "numbers_only": result.numbers_only,
            "proof_failures": result.proof_failures,
            "proof_kills": [
                {
                    "check": k.name,
                    "kind": k.kind,
                    "status": k.status,
                    "counterexample": k.counterexample,
                }
                for k in result.proof_kills
            ],
            "proofs_alone": result.proofs_alone,
            "unknown_checks": result.unknown,
            "unknown_check_names": result.unknown_checks,
            "seconds": round(result.seconds, 3),
            "edits": [{"start": e.start, "end": e.end, "text": e.text} for e in mutant.edits],
        }
        if result.tests_detail:
            entry["tests_detail"] = result.tests_detail
        if result.equivalence is not None:
            entry["equivalence"] = {
                "verdict": result.equivalence.verdict,
                "method": result.equivalence.method,
                "detail": result.equivalence.detail,
            }
        mutants.append(entry)

    def rate(value: Fraction | None) -> dict[str, str] | None:
        if value is None:
            return None
        return {"fraction": f"{value.numerator}/{value.denominator}", "percent": percent(value)}

    return {
        "statute": report.statute,
        "encoding": report.encoding,
        "generated": report.generated,
        "limit": report.limit,
        "seed": report.seed,
        "timeout": report.timeout,
        "budget": report.budget,
        "tests": report.tests,
        "cases": list(report.cases),
        "seconds": round(report.seconds, 3),
        "equivalence_methods": report.equivalence_methods,
        "totals": report.totals(),
        "kill_rate": rate(report.kill_rate),
        "proofs_alone_rate": rate(report.proofs_alone_rate),
        "kill_rate_without_tests": rate(report.kill_rate_without_tests),
        "by_kind": {
            kind: {
                **{k: v for k, v in row.items() if k != "killers"},
                "kill_rate_without_tests": rate(
                    _rate(row["killed_without_tests"], row["decided_without_tests"])
                ),
                "killers": {
                    stage: [{"name": name, "count": count} for name, count in ranked]
                    for stage, ranked in row["killers"].items()
                },
            }
            for kind, row in report.by_kind().items()
        },
        "survivors": [r.mutant.id for r in report.results if r.status == "survived"],
        "unknown": [r.mutant.id for r in report.results if r.status == "unknown"],
        "mutants": mutants,
    }
