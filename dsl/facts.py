"""The facts check: every fact a rule reads is named by the words of its clause, and every fact
a clause's words name is read by one of its rules.

An input (or a record's field) declares the phrases by which the statute's words name it:
`input mega_project: bool = false named "mega project" "..."`. Only facts that declare phrases
are checked, in two directions:

* a rule, a case or an exception that reads such a fact, when neither the words of its clause
  nor those of the clauses enclosing it contain one of its phrases, is refused, unless it marks
  the use `reads NAME "reason"`; the words of a clause that ends with a dash or a colon ("means
  the amount by which—") go on in its subclauses, whose words count too;
* a clause holding rules (itself or its subclauses) whose own words, those not marked
  `text_only` or `discretionary`, contain a phrase of a fact that none of those rules reads is
  refused, unless the clause says `unread NAME "reason";`;
* a rule, a case or an exception that joins two such facts with `and` where its clause's words
  join their phrases with "or" is refused, unless it marks one of them `reads NAME "reason"`.

A phrase matches case-insensitively, on word boundaries, whatever the whitespace between its
words, and with typographic quotes and apostrophes read as straight ones; not inside a longer
phrase of another fact ("earned income" is not named by "earned income amount" when that is
another input's phrase), unless the two are a list and a field of its records. A rule that derives
an input from a list (`derived by`) reads lists, not the words' facts: it is not held to its
clause's words, and it counts as reading the input it derives. Invariants and monotone
statements may speak of any fact; they are not checked.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass

from . import ast
from .errors import Diagnostic, diagnostic_at, line_column

_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})


def normalised(text: str) -> str:
    """Returns `text` as phrases are matched against it: typographic quotes and apostrophes
    straight, case folded, every run of whitespace one space."""
    return " ".join(text.translate(_QUOTES).casefold().split())


@functools.lru_cache(maxsize=4096)
def _pattern(phrase: str) -> re.Pattern[str]:
    # Between the phrase's words any whitespace; around it no word character, so that "zone"
    # is not found in "zones" nor "job" in "jobs".
    words = normalised(phrase).split(" ")
    return re.compile(r"(?<!\w)" + r"\s+".join(re.escape(w) for w in words) + r"(?!\w)")


def names(words: str, phrase: str, longer: tuple[str, ...] = ()) -> bool:
    """Returns True when the phrase occurs in the words (see the module's docstring), at a
    place that is not inside one of the `longer` phrases (another fact's, that contain it:
    "earned income" is not named by "earned income amount" when that is another fact's)."""
    text = normalised(words)
    found = [(m.start(), m.end()) for m in _pattern(phrase).finditer(text)]
    if not found or not longer:
        return bool(found)
    covered = [(m.start(), m.end()) for other in longer for m in _pattern(other).finditer(text)]
    return any(
        not any(start <= at and end <= until for start, until in covered) for at, end in found
    )


def containing(
    phrases: list[tuple[tuple[str, str], str]], together: set[frozenset[tuple[str, str]]]
) -> dict[tuple[tuple[str, str], str], tuple[str, ...]]:
    """Returns, for each (fact, phrase), the longer phrases of other facts that contain it;
    not those of a fact named `together` with it (a list and its records' fields: "each
    half-time student" names the list and the field "half-time student" alike)."""
    return {
        (owner, phrase): tuple(
            other
            for other_owner, other in phrases
            if other_owner != owner
            and frozenset((owner, other_owner)) not in together
            and len(normalised(other)) > len(normalised(phrase))
            and _pattern(phrase).search(normalised(other)) is not None
        )
        for owner, phrase in phrases
    }


@dataclass(frozen=True)
class Fact:
    """A checked fact: an input, or a field of a record (`record` its record's name)."""

    name: str
    declared: ast.Input
    record: str = ""

    @property
    def key(self) -> tuple[str, str]:
        """The fact's identity: (record, name), the record empty for an input."""
        return (self.record, self.name)

    @property
    def described(self) -> str:
        """The fact as a message names it."""
        if self.record:
            return f"field '{self.name}' of record '{self.record}'"
        return f"input '{self.name}'"

    @property
    def phrases(self) -> str:
        """Its phrases, quoted and separated by commas."""
        return ", ".join(f'"{p.text}"' for p in self.declared.phrases)

    def named_in(
        self, words: str, longer: dict[tuple[tuple[str, str], str], tuple[str, ...]] | None = None
    ) -> ast.Phrase | None:
        """Returns the first of its phrases the words contain, None when none is; with
        `longer` (see `containing`), not counting a phrase inside another fact's longer one."""
        for phrase in self.declared.phrases:
            others = (longer or {}).get((self.key, phrase.text), ())
            if names(words, phrase.text, others):
                return phrase
        return None


@dataclass(frozen=True)
class Read:
    """A fact read by an expression, and where."""

    key: tuple[str, str]
    span: ast.Span


def reads(
    statute: ast.Statute, expr: ast.Expr | None, params: frozenset[str], record: str = ""
) -> Iterator[Read]:
    """Yields every input and record field an expression reads, each where it is written: a
    name (not a parameter), `NAME is given`, an aggregate's list and field, and the fields its
    `where` condition reads."""
    if expr is None:
        return
    fields = statute.records[record].fields if record in statute.records else {}
    if isinstance(expr, ast.Ref | ast.Given):
        if expr.name in params:
            return
        if expr.name in fields:
            yield Read((record, expr.name), expr.span)
        elif expr.name in statute.inputs:
            yield Read(("", expr.name), expr.span)
        return
    if isinstance(expr, ast.Aggregate):
        yield Read(("", expr.source), expr.span)
        inner = statute.record_of(expr.source)
        inner_name = inner.name if inner is not None else ""
        if expr.field is not None and inner is not None:
            yield Read((inner_name, expr.field), expr.span)
        yield from reads(statute, expr.value, params, inner_name)
        yield from reads(statute, expr.condition, params, inner_name)
        return
    for child in _children(expr):
        yield from reads(statute, child, params, record)


def _children(expr: ast.Expr) -> list[ast.Expr]:
    if isinstance(expr, ast.Call):
        return [*expr.args, *(arg for _, arg in expr.kwargs)]
    if isinstance(expr, ast.BinOp | ast.Compare | ast.BoolOp):
        return [expr.left, expr.right]
    if isinstance(expr, ast.Not | ast.Neg | ast.PartOf):
        return [expr.operand]
    if isinstance(expr, ast.If):
        return [expr.condition, expr.then, expr.otherwise]
    return []


@dataclass(frozen=True)
class _Item:
    """A rule, a `cases` declaration, a case or an exception, as the check sees it."""

    name: str
    clause: ast.Clause
    expressions: tuple[ast.Expr | None, ...]
    params: frozenset[str]
    marks: tuple[ast.ReadsMark, ...]
    # The inputs it derives (`derived by`): it is not held to its clause's words.
    derives: tuple[str, ...]


def _items(statute: ast.Statute) -> list[_Item]:
    derived: dict[str, list[str]] = {}
    for declared in statute.inputs.values():
        if declared.derived_by is not None:
            derived.setdefault(declared.derived_by.rule, []).append(declared.name)
    found: list[_Item] = []
    for definition in statute.definitions.values():
        params = frozenset(p.name for p in definition.params)
        derives = tuple(derived.get(definition.name, ()))
        if isinstance(definition, ast.Rule):
            expressions: tuple[ast.Expr | None, ...] = (definition.expr, definition.condition)
        else:
            expressions = (definition.otherwise,)
        found.append(
            _Item(
                definition.name,
                definition.clause,
                expressions,
                params,
                definition.reads,
                derives,
            )
        )
        if isinstance(definition, ast.Cases):
            for case in definition.cases:
                found.append(
                    _Item(
                        definition.name,
                        case.clause,
                        (case.expr, case.condition),
                        params,
                        case.reads,
                        derives,
                    )
                )
    for exception in statute.exceptions:
        target = statute.definitions.get(exception.target)
        params = frozenset(p.name for p in target.params) if target is not None else frozenset()
        found.append(
            _Item(
                exception.name,
                exception.clause,
                (exception.expr, exception.condition),
                params,
                exception.reads,
                (),
            )
        )
    return found


class _Check:
    def __init__(self, statute: ast.Statute) -> None:
        self.statute = statute
        self.diagnostics: list[Diagnostic] = []
        self.facts: dict[tuple[str, str], Fact] = {}
        for declared in statute.inputs.values():
            if declared.phrases:
                self.facts[("", declared.name)] = Fact(declared.name, declared)
        for record in statute.records.values():
            for declared in record.fields.values():
                if declared.phrases:
                    self.facts[(record.name, declared.name)] = Fact(
                        declared.name, declared, record.name
                    )
        # A phrase inside another fact's longer phrase ("earned income" in "earned income
        # amount") does not name its own fact there.
        together = {
            frozenset((key, other))
            for key, fact in self.facts.items()
            if fact.declared.type.kind == "list"
            for other in self.facts
            if other[0] == fact.declared.type.record
        }
        self.longer = containing(
            [(key, p.text) for key, fact in self.facts.items() for p in fact.declared.phrases],
            together,
        )
        self.items = _items(statute)
        # (item id, fact name): a `reads` mark that lets an `and` the words say "or" through.
        self.connective_marks: set[tuple[int, str]] = set()
        self.item_reads = {
            id(item): [
                read
                for expr in item.expressions
                for read in reads(statute, expr, item.params)
                if read.key in self.facts
            ]
            for item in self.items
        }

    def report(
        self,
        span: ast.Span,
        message: str,
        clause: ast.Clause | None,
        hint: str | None = None,
        severity: str = "error",
    ) -> None:
        self.diagnostics.append(
            diagnostic_at(self.statute, span, message, clause, hint=hint, severity=severity)
        )

    @staticmethod
    def where(clause: ast.Clause) -> str:
        return clause.short_citation or "the section"

    # ---- a fact read where the words do not name it ------------------------------------------
    def check_reads(self) -> None:
        for item in self.items:
            words = " ".join(c.words for c in [*_enclosing(item.clause), *_continued(item.clause)])
            marked = {mark.name: mark for mark in item.marks}
            needed: set[str] = set()
            reported: set[tuple[str, str]] = set()
            for read in [] if item.derives else self.item_reads[id(item)]:
                fact = self.facts[read.key]
                if fact.named_in(words, self.longer) is not None:
                    continue
                if fact.name in marked:
                    needed.add(fact.name)
                    continue
                if read.key in reported:
                    continue
                reported.add(read.key)
                self.report(
                    read.span,
                    f"'{item.name}' reads {fact.described}, which the words of "
                    f"{self.where(item.clause)} and of the clauses enclosing it never name "
                    f"(it is named {fact.phrases})",
                    item.clause,
                    hint="add the phrase these words name it by to its 'named', place the rule "
                    "in the clause whose words name it, or mark the use: "
                    f'reads {fact.name} "why this clause reads it"',
                )
            for mark in item.marks:
                if (id(item), mark.name) in self.connective_marks:
                    continue
                if mark.name not in needed and not self._unnamed_input_read(item, mark.name):
                    self.report(
                        mark.span,
                        f"'{item.name}' is marked 'reads {mark.name}' but needs no mark: "
                        f"it does not read a fact '{mark.name}' that declares phrases, or the "
                        "words of its clause name it",
                        item.clause,
                        severity="warning",
                    )

    # ---- a fact the words name and no rule reads ---------------------------------------------
    def check_unread(self) -> None:
        read_in: dict[int, set[tuple[str, str]]] = {}
        held: dict[int, bool] = {}
        for item in self.items:
            keys = {read.key for read in self.item_reads[id(item)]}
            keys.update(("", name) for name in item.derives)
            for clause in _enclosing(item.clause):
                read_in.setdefault(id(clause), set()).update(keys)
                held[id(clause)] = True
        for clause in self.statute.clauses:
            marks = {mark.name: mark for mark in clause.unread}
            for mark in clause.unread:
                if not any(fact.name == mark.name for fact in self.facts.values()):
                    known = mark.name in self.statute.inputs or any(
                        mark.name in r.fields for r in self.statute.records.values()
                    )
                    self.report(
                        mark.span,
                        f"'unread {mark.name}': "
                        + (
                            f"'{mark.name}' declares no phrases, so no words name it"
                            if known
                            else f"no input or record field is named '{mark.name}'"
                        ),
                        clause,
                        severity="warning" if known else "error",
                    )
            if not held.get(id(clause)):
                continue
            pieces = [piece for piece in clause.texts if piece.mark is None]
            own = " ".join(piece.text for piece in pieces)
            used = read_in.get(id(clause), set())
            needed: set[str] = set()
            for key, fact in self.facts.items():
                phrase = fact.named_in(own, self.longer)
                if phrase is None or key in used:
                    continue
                if fact.name in marks:
                    needed.add(fact.name)
                    continue
                self.report(
                    self.locate(pieces, phrase.text),
                    f"the words of {self.where(clause)} name {fact.described} "
                    f'("{phrase.text}"), which none of its rules reads'
                    + self._derived_elsewhere(fact),
                    clause,
                    hint="encode what the words say of it, or say in the clause: "
                    f'unread {fact.name} "why no rule of it reads it";',
                )
            for mark in clause.unread:
                if mark.name not in needed and any(
                    fact.name == mark.name for fact in self.facts.values()
                ):
                    self.report(
                        mark.span,
                        f"'unread {mark.name}' is not needed: the words of "
                        f"{self.where(clause)} do not name it, or one of its rules reads it",
                        clause,
                        severity="warning",
                    )

    def _derived_elsewhere(self, fact: Fact) -> str:
        """Returns, for an input derived by a rule, where that rule sits (a rule moved out of
        the clause that names what it derives is the likelier mistake), else nothing."""
        derived = None if fact.record else fact.declared.derived_by
        rule = self.statute.definitions.get(derived.rule) if derived is not None else None
        if rule is None:
            return ""
        return f" (the rule deriving it, '{rule.name}', sits in {self.where(rule.clause)})"

    def locate(self, pieces: list[ast.TextPiece], phrase: str) -> ast.Span:
        """Returns where the phrase is written in the clause's words: its first word's line
        and column when the words can be mapped to the source, else the words' start."""
        for piece in pieces:
            match = _pattern(phrase).search(piece.text.translate(_QUOTES).casefold())
            if match is None:
                continue
            source = self.statute.source
            raw = source[piece.span.start + 1 : piece.span.end - 1]
            if raw != piece.text or len(piece.text.casefold()) != len(piece.text):
                return piece.span
            start = piece.span.start + 1 + match.start()
            end = piece.span.start + 1 + match.end()
            line, column = line_column(source, start)
            end_line, end_column = line_column(source, end)
            return ast.Span(line, column, end_line, end_column, start, end)
        return pieces[0].span

    # ---- inputs that declare no phrases -------------------------------------------------------
    def check_undeclared(self) -> None:
        # An encoding that names none of its facts has not taken up the check; one that names
        # some is told of each it cannot follow.
        if not any(key[0] == "" for key in self.facts):
            return
        for declared in self.statute.inputs.values():
            if not declared.phrases and not self._marked_wherever_read(declared.name):
                self.report(
                    declared.span,
                    f"input '{declared.name}' declares no phrases: the facts check cannot tell "
                    "whether the clauses whose rules read it name it",
                    None,
                    hint='add the words that name it: named "..."; or, where a clause reads it '
                    f'without naming it, mark that use: reads {declared.name} "why"',
                    severity="warning",
                )

    def _reads_input(self, item: _Item, name: str) -> bool:
        """True when the item's expressions read the input `name`."""
        return any(
            read.key == ("", name)
            for expr in item.expressions
            for read in reads(self.statute, expr, item.params)
        )

    def _unnamed_input_read(self, item: _Item, name: str) -> bool:
        """True when `reads NAME` marks the item's use of an input that declares no phrases (a
        fact the statute never names, such as one of other law): the mark gives the reason."""
        declared = self.statute.inputs.get(name)
        return declared is not None and not declared.phrases and self._reads_input(item, name)

    def _marked_wherever_read(self, name: str) -> bool:
        """True when the input is read, and every item that reads it marks it `reads NAME`."""
        readers = [item for item in self.items if self._reads_input(item, name)]
        return bool(readers) and all(
            any(mark.name == name for mark in item.marks) for item in readers
        )

    # ---- two facts joined by `and` where the words join them by "or" -------------------------
    def check_connectives(self) -> None:
        """Refuses `A and B` in a rule, a case or an exception whose clause's words join the
        phrases of the facts A and B by "or" ("a mega project or ... a government-restricted
        municipality"), unless the item marks one of them `reads NAME "reason"`."""
        for item in self.items:
            if item.derives:
                continue
            words = normalised(item.clause.words)
            marked = {mark.name for mark in item.marks}
            for expr in item.expressions:
                for chain, operands in _and_chains(expr):
                    named = dict.fromkeys(
                        o.name
                        for o in operands
                        if isinstance(o, ast.Ref)
                        and o.name not in item.params
                        and ("", o.name) in self.facts
                    )
                    facts = [self.facts[("", name)] for name in named]
                    for first, second in itertools.combinations(facts, 2):
                        joined = _joined_by_or(words, first, second)
                        if joined is None:
                            continue
                        if {first.name, second.name} & marked:
                            self.connective_marks.update(
                                (id(item), n) for n in (first.name, second.name)
                            )
                            continue
                        self.report(
                            chain.span,
                            f"'{item.name}' joins {first.name} and {second.name} with 'and', "
                            f"but the words of {self.where(item.clause)} join them with "
                            f"“or”: “{joined}”",
                            item.clause,
                            hint="join them with 'or' as the words do, or mark the use: "
                            f'reads {first.name} "why both must hold"',
                        )

    def check_phrases(self) -> None:
        words = " ".join(clause.words for clause in self.statute.clauses)
        for fact in self.facts.values():
            for phrase in fact.declared.phrases:
                if not names(words, phrase.text):
                    self.report(
                        phrase.span,
                        f'the phrase "{phrase.text}" of {fact.described} is in no clause\'s words',
                        None,
                        hint="copy the phrase from the words of the clause that names it",
                        severity="warning",
                    )


def _and_chains(expr: ast.Expr | None) -> Iterator[tuple[ast.Expr, list[ast.Expr]]]:
    """Yields each chain of `and`s in an expression (`a and b and c`, however nested), with
    the operands it joins."""
    if expr is None:
        return
    if isinstance(expr, ast.BoolOp) and expr.op == "and":
        operands: list[ast.Expr] = []
        pending: list[ast.Expr] = [expr]
        while pending:
            node = pending.pop()
            if isinstance(node, ast.BoolOp) and node.op == "and":
                pending += [node.right, node.left]
            else:
                operands.append(node)
        yield expr, operands
        for operand in operands:
            yield from _and_chains(operand)
        return
    for child in _children(expr):
        yield from _and_chains(child)


# At most this many words between two facts' phrases joined by "or", within one sentence.
_OR_GAP_WORDS = 12
_GAP_WORD = re.compile(r"[\w'-]+")


def _joined_by_or(words: str, first: Fact, second: Fact) -> str | None:
    """Returns the words joining a phrase of each fact by "or" (normalised `words`: "or" between
    them, "and" not, no sentence or clause break), None when they are never so joined."""
    spans = [
        [
            m.span()
            for phrase in fact.declared.phrases
            for m in _pattern(phrase.text).finditer(words)
        ]
        for fact in (first, second)
    ]
    for a in spans[0]:
        for b in spans[1]:
            (start, left_end), (right_start, end) = sorted((a, b))
            if right_start < left_end:
                continue
            gap = words[left_end:right_start]
            between = _GAP_WORD.findall(_IDIOMS.sub(" ", gap))
            if (
                len(between) <= _OR_GAP_WORDS
                and "or" in between
                and "and" not in between
                and not re.search(r"[.;:]", gap)
            ):
                return words[start:end]
    return None


# Phrases whose "or" joins no two facts: "financed in whole or in part by ...".
_IDIOMS = re.compile(
    r"\b(?:in\s+whole\s+or\s+in\s+part|wholly\s+or\s+partly|directly\s+or\s+indirectly"
    r"|(?:one|1)\s+or\s+more|more\s+or\s+less|and\s*/\s*or)",
    re.IGNORECASE,
)


# A clause whose words end so ("means the amount by which—") goes on in its subclauses.
_CONTINUED = ("\u2014", "\u2013", "--", ":")


def _continued(clause: ast.Clause) -> list[ast.Clause]:
    """Returns the subclauses (at every depth) that finish the sentence a clause's words begin:
    all of them when its words end with a dash or a colon, none otherwise."""
    if not clause.words.rstrip().endswith(_CONTINUED):
        return []
    return [sub for sub in clause.walk() if sub is not clause]


def _enclosing(clause: ast.Clause) -> list[ast.Clause]:
    found = [clause]
    while found[-1].parent is not None:
        found.append(found[-1].parent)
    return found


def check_facts(statute: ast.Statute) -> list[Diagnostic]:
    """Returns the facts check's diagnostics for a parsed encoding (see the module's
    docstring): errors for a fact read where the words do not name it and for a fact the words
    name that no rule reads; warnings for unneeded marks, phrases no words contain, and inputs
    that declare no phrases in an encoding where others do."""
    check = _Check(statute)
    check.check_phrases()
    check.check_connectives()
    check.check_reads()
    check.check_unread()
    check.check_undeclared()
    return check.diagnostics
