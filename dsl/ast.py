"""The typed AST of an encoded statute.

One parsed `Statute` feeds every consumer: the checker, the evaluator and its trace, the proof
model and the generated documentation. Every node keeps its source `Span`, and every rule keeps
the clause it sits in, so its citation comes from its position and cannot drift.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import product
from typing import Literal as TypingLiteral

# ---------------------------------------------------------------------------------------------
# Source positions


@dataclass(frozen=True)
class Span:
    """A region of the encoding's source: 1-based line and column, 0-based offsets."""

    line: int
    column: int
    end_line: int
    end_column: int
    start: int
    end: int


# ---------------------------------------------------------------------------------------------
# Types

TypeKind = TypingLiteral[
    "bool", "count", "number", "share", "money", "enum", "text", "list", "date", "duration"
]


@dataclass(frozen=True)
class Type:
    """A value type: bool, count (whole number), number, share (in [0, 1]), money, enum, text
    (an identifier, for a record's field), a list of records (`record` names the record), a
    date or a duration (see dsl/dates.py)."""

    kind: TypeKind
    members: tuple[str, ...] = ()
    record: str = ""
    # The period an amount is counted in (`money per hour`): checked against the words and
    # the other amounts it meets (dsl/rates.py), never part of the type's identity: an hourly
    # amount is money to the evaluator and the proofs.
    per: str = field(default="", compare=False)

    def __str__(self) -> str:
        if self.per:
            return f"{self.kind} per {self.per}"
        if self.kind == "enum":
            return f"enum({', '.join(self.members)})"
        if self.kind == "list":
            return f"list of {self.record}"
        return self.kind

    @property
    def is_numeric(self) -> bool:
        """True for count, number, share and money."""
        return self.kind in ("count", "number", "share", "money")

    @property
    def is_dimensionless(self) -> bool:
        """True for count, number and share: quantities without a currency unit."""
        return self.kind in ("count", "number", "share")


BOOL = Type("bool")
TEXT = Type("text")
COUNT = Type("count")
NUMBER = Type("number")
SHARE = Type("share")
MONEY = Type("money")
DATE = Type("date")
DURATION = Type("duration")

# ---------------------------------------------------------------------------------------------
# Expressions

LiteralUnit = TypingLiteral["money", "percent", "number", "bool", "date", "duration"]
DateRounding = TypingLiteral["refuse-ambiguous", "round-down", "round-up"]
BoundKind = TypingLiteral["min", "above", "max"]
# Whether a monotone property says its results rise or fall with its inputs.
MonotoneDirection = TypingLiteral["rise", "fall"]
TextMark = TypingLiteral["discretionary", "text_only"]
CasesOrder = TypingLiteral["first-match", "exclusive"]
LogicOp = TypingLiteral["and", "or", "implies"]


@dataclass(frozen=True)
class Expr:
    """Base class of expressions; `span` locates the expression in the encoding."""

    span: Span


@dataclass(frozen=True)
class Literal(Expr):
    """A constant as written: `$1,500` (money), `40%` (percent), `251`, `1/3`, `true`, a date
    `2024-01-01` (its `value` the day's ordinal, 0001-01-01 being 1) or a duration `2 years`
    (its `value` the number written, its unit the last word of `text`)."""

    value: Fraction | bool
    unit: LiteralUnit
    text: str

    @property
    def written_magnitude(self) -> Fraction | None:
        """The number as it is written in words or digits (40 for `40%`, 2 for `2 years`),
        None for booleans and dates."""
        if isinstance(self.value, bool) or self.unit == "date":
            return None
        if self.unit == "percent":
            return self.value * 100
        return self.value

    @property
    def duration_unit(self) -> str:
        """The unit word of a duration literal (`years` of `2 years`); empty for others."""
        return self.text.split()[-1] if self.unit == "duration" else ""


@dataclass(frozen=True)
class Citation:
    """The citation a reference names its definition's clause by, as written
    (`relief under "§ 5(b)"`): `text` the citation, `span` where it is written."""

    text: str
    span: Span


@dataclass(frozen=True)
class Ref(Expr):
    """A name: an input, a rule without parameters, a parameter, or an enum member; a rule
    named `under` a citation carries it in `cited`."""

    name: str
    cited: Citation | None = None


@dataclass(frozen=True)
class Call(Expr):
    """A call of a built-in (`min`, `max`, `floor`) or of a rule with parameters; a rule
    called `under` a citation carries it in `cited`."""

    name: str
    args: tuple[Expr, ...]
    kwargs: tuple[tuple[str, Expr], ...]
    cited: Citation | None = None


@dataclass(frozen=True)
class BinOp(Expr):
    """Arithmetic: `+`, `-`, `*`, `/`."""

    op: str
    left: Expr
    right: Expr


@dataclass(frozen=True)
class Compare(Expr):
    """A comparison: `=`, `!=`, `<`, `<=`, `>`, `>=`."""

    op: str
    left: Expr
    right: Expr


@dataclass(frozen=True)
class BoolOp(Expr):
    """`and` / `or` of two conditions."""

    op: LogicOp
    left: Expr
    right: Expr


@dataclass(frozen=True)
class Not(Expr):
    """`not` of a condition."""

    operand: Expr


@dataclass(frozen=True)
class Neg(Expr):
    """Arithmetic negation."""

    operand: Expr


@dataclass(frozen=True)
class If(Expr):
    """`if COND then A else B`."""

    condition: Expr
    then: Expr
    otherwise: Expr


DatePart = TypingLiteral["year", "month", "day"]
DATE_PARTS: tuple[str, ...] = ("year", "month", "day")


@dataclass(frozen=True)
class PartOf(Expr):
    """`year of D`, `month of D`, `day of D`: the year, the month (1-12) or the day of the
    month (1-31) of a date, a count."""

    part: DatePart
    operand: Expr


@dataclass(frozen=True)
class Given(Expr):
    """`NAME is given`: an optional input was supplied (not null)."""

    name: str


@dataclass(frozen=True)
class ReadingTest(Expr):
    """`reading I8 is business-wide`: which reading of an ambiguous clause is selected."""

    reading: str
    option: str


@dataclass(frozen=True)
class BonusSum(Expr):
    """`sum of bonuses`: the sum of every rule marked `bonus`, in encoding order."""


AggregateOp = TypingLiteral[
    "count", "sum", "min", "max", "median", "median_low", "median_high", "any", "all"
]
AGGREGATES: tuple[str, ...] = (
    "count",
    "sum",
    "min",
    "max",
    "median",
    "median_low",
    "median_high",
    "any",
    "all",
)
# The aggregates that have no value over an empty list: a scenario that asks for one is refused.
NEEDS_ELEMENT: tuple[str, ...] = ("min", "max", "median", "median_low", "median_high")
# The aggregates that take an amount computed for each element, `OP of (EXPRESSION) in LIST`.
COMPUTABLE: tuple[str, ...] = ("sum", *NEEDS_ELEMENT)


@dataclass(frozen=True)
class Aggregate(Expr):
    """`OP of [FIELD in] LIST [where COND]`: an aggregate over the elements of a list input
    that meet the condition (over the element's fields and any other name). `count` counts
    them; `sum`, `min`, `max` and the medians take a numeric field, or a numeric expression
    computed for each element, `OP of (EXPRESSION) in LIST` (`median` the mean of the two
    middle values of an even count, `median_low` the lower, `median_high` the higher); `any`
    and `all` take a bool field, or none (then `any` is "some element meets the condition" and
    `all` "every element does")."""

    op: AggregateOp
    field: str | None
    source: str
    condition: Expr | None
    # `OP of (EXPRESSION) in LIST`: an amount computed for each element (over its fields and
    # any other name, as a `where` condition is), in place of a field; `field` is then None.
    value: Expr | None = None


# ---------------------------------------------------------------------------------------------
# The statute's structure


_ESCAPE = re.compile(r'\\(["\\])')


def unescape(text: str) -> str:
    """Returns quoted text as it reads: `\\"` a straight quote, `\\\\` one backslash (any other
    backslash stands for itself)."""
    return _ESCAPE.sub(r"\1", text)


def escape(text: str) -> str:
    """Returns `text` written for a quoted string of the language (see `unescape`)."""
    return text.replace("\\", "\\\\").replace('"', '\\"')


def folded(text: str) -> str:
    """Returns `text` as it reads: every run of whitespace (a line break and the indentation of
    the encoding's next line, say) one space, and none at either end."""
    return " ".join(text.split())


@dataclass
class TextPiece:
    """Words of the statute carried verbatim; `mark` says when they are not computable.

    `text` is the source as written, line breaks and indentation included (the fidelity check
    locates each word by its offset in it); `words` is what every output shows.
    """

    text: str
    span: Span
    mark: TextMark | None = None
    reason: str | None = None
    clause: Clause | None = field(default=None, repr=False)

    @property
    def words(self) -> str:
        """The words as they read, whitespace folded (see `folded`)."""
        return folded(self.text)


@dataclass(frozen=True)
class Param:
    """A rule parameter (a job group, for instance `covered: bool`)."""

    name: str
    type: Type
    span: Span


def param_values(params: tuple[Param, ...]) -> list[tuple[bool | str, ...]]:
    """Returns every combination of values of a definition's parameters (booleans and enum
    members), in declaration order."""
    domains: list[list[bool | str]] = []
    for param in params:
        if param.type.kind == "bool":
            domains.append([False, True])
        else:
            domains.append(list(param.type.members))
    return [tuple(values) for values in product(*domains)]


@dataclass(frozen=True)
class Reviewed:
    """A number a rule uses that is not in its clause's words, reviewed with a reason."""

    literal: Literal
    reason: str
    span: Span


@dataclass(frozen=True)
class ReadsMark:
    """`reads NAME "reason"` on a rule, a case or an exception: it reads the fact `name`
    although the words of its clause and of the clauses enclosing it do not name it."""

    name: str
    reason: str
    span: Span


@dataclass(frozen=True)
class Unread:
    """`unread NAME "reason";` in a clause: its words name the fact `name`, and none of its
    rules reads it, on purpose."""

    name: str
    reason: str
    span: Span


@dataclass(frozen=True)
class Phrase:
    """One phrase of an input's `named`: words by which the statute names the fact."""

    text: str
    span: Span


@dataclass
class Definition:
    """Common parts of a rule and of a piecewise (`cases`) definition."""

    name: str
    type: Type
    span: Span
    name_span: Span
    is_bonus: bool
    readings: tuple[str, ...]
    reviewed: tuple[Reviewed, ...]
    clause: Clause = field(repr=False)
    words: TextPiece | None = field(repr=False)
    params: tuple[Param, ...] = ()
    # The exceptions stated to this definition, in encoding order (see `ExceptionRule`).
    exceptions: list[ExceptionRule] = field(default_factory=list, repr=False)
    reads: tuple[ReadsMark, ...] = ()

    def exceptions_by_priority(self) -> list[ExceptionRule]:
        """Returns the exceptions to this definition, the highest priority first (those of one
        priority in encoding order)."""
        return sorted(self.exceptions, key=lambda e: -e.priority)


@dataclass
class Rule(Definition):
    """`rule NAME: TYPE = EXPR [when COND]`: the value, or zero when the condition fails."""

    expr: Expr | None = None
    condition: Expr | None = None


@dataclass
class Case:
    """One case of a piecewise definition, in the clause that authorises it."""

    name: str
    expr: Expr
    condition: Expr | None  # None: the `otherwise` case
    span: Span
    readings: tuple[str, ...]
    reviewed: tuple[Reviewed, ...]
    clause: Clause = field(repr=False)
    words: TextPiece | None = field(repr=False)
    reads: tuple[ReadsMark, ...] = ()


@dataclass
class Cases(Definition):
    """`cases NAME: TYPE first-match|exclusive [otherwise EXPR]`, completed by its `case`s."""

    order: CasesOrder = "exclusive"
    otherwise: Expr | None = None
    cases: list[Case] = field(default_factory=list)


@dataclass
class ExceptionRule:
    """`exception NAME to TARGET priority N = EXPR when COND`: in the clause whose words state
    it ("notwithstanding", "shall not"), a value of the definition `target` that replaces the
    target's own when `condition` holds. Of the exceptions that hold, the one of the highest
    priority gives the value; two of equal priority that both hold are a conflict. It takes the
    target's parameters."""

    name: str
    target: str
    priority: int
    expr: Expr
    condition: Expr
    span: Span
    name_span: Span
    target_span: Span
    priority_span: Span
    readings: tuple[str, ...]
    reviewed: tuple[Reviewed, ...]
    clause: Clause = field(repr=False)
    words: TextPiece | None = field(repr=False)
    reads: tuple[ReadsMark, ...] = ()


@dataclass
class Invariant:
    """A property the statute promises, proved for every valid scenario (and for every value
    of its parameters, such as both job groups)."""

    name: str
    description: str
    expr: Expr
    span: Span
    readings: tuple[str, ...]
    clause: Clause = field(repr=False)
    params: tuple[Param, ...] = ()
    reviewed: tuple[Reviewed, ...] = ()
    # An obligation read from the words (dsl/obligations.py), not written in the encoding:
    # the words it was read from, and its formula as it would be written.
    from_words: str | None = None
    formula: str | None = None


@dataclass
class Monotone:
    """A relational property over two scenarios: raising any one of `inputs` (false to true,
    a larger number, a later enum member), all else equal, never lowers any of `results`
    (`direction` "rise", written `rise with`), or never raises any of them ("fall", written
    `fall with`)."""

    name: str
    description: str
    results: tuple[tuple[str, Span], ...]
    inputs: tuple[tuple[str, Span], ...]
    span: Span
    readings: tuple[str, ...]
    clause: Clause = field(repr=False)
    direction: MonotoneDirection = "rise"

    @property
    def falls(self) -> bool:
        """True for `fall with`: raising an input never raises a result."""
        return self.direction == "fall"


ClauseItem = "Clause | TextPiece | Rule | Cases | Case | ExceptionRule | Invariant"


@dataclass
class Clause:
    """A subdivision of the statute: its label, its own words, and what it contains.

    A section is a clause without a parent; an encoding holds one section or several."""

    label: str
    path: tuple[str, ...]
    span: Span
    items: list[object] = field(default_factory=list)
    parent: Clause | None = field(default=None, repr=False)
    # False for a section marked `unlabelled`: the official text does not carry its label.
    label_carried: bool = True
    # True in an encoding of several sections: the clause's citations then name its section.
    qualified: bool = False
    # The facts its words name that none of its rules reads, on purpose (`unread`).
    unread: list[Unread] = field(default_factory=list)

    @property
    def section(self) -> Clause:
        """The section this clause belongs to (itself, for a section)."""
        clause = self
        while clause.parent is not None:
            clause = clause.parent
        return clause

    @property
    def labels(self) -> str:
        """The labels below the section, e.g. `(c)(1)(j)`; `` for the section itself."""
        return "".join(f"({part})" for part in self.path)

    @property
    def heading(self) -> str:
        """The section as the statute's pages name it: `section 75` when its label is a
        number (`75.`), else its label without a trailing period (`§ 132`, `Sec. 5`)."""
        heading = self.section.label.rstrip(".")
        return f"section {heading}" if heading[:1].isdigit() else heading

    @property
    def short_citation(self) -> str:
        """The citation inside the statute's own pages: `(c)(1)(j)`, `` for the section; in an
        encoding of several sections the section is named too: `§ 132(c)(1)`, `§ 132`."""
        if self.qualified:
            return self.heading + self.labels
        return self.labels

    @property
    def own_citation(self) -> str:
        """The clause as the statute's own pages name it: `(c)(1)(j)`, or for the section
        itself its heading (`section 75`, `§ 132`, `Sec. 5`, `Rule 3`); in an encoding of
        several sections always with its section (`§ 132(c)(1)`)."""
        return self.short_citation or self.heading

    @property
    def number(self) -> str:
        """The section's number as a citation's `{section}` gives it: the label's last word
        without a leading `§` or a trailing period (`75.` -> `75`, `§ 132` -> `132`,
        `Sec. 5.` -> `5`, `cl 4` -> `4`)."""
        words = self.section.label.split()
        return words[-1].lstrip("§").rstrip(".") if words else ""

    @property
    def anchor(self) -> str:
        """A stable HTML anchor for the clause, e.g. `c-1-j`; `section` for the section. In an
        encoding of several sections the section's number leads: `132-c-1`, `section-132`."""
        if not self.qualified:
            return "-".join(self.path) or "section"
        number = re.sub(r"[^A-Za-z0-9]+", "-", self.number).strip("-") or "section"
        return "-".join((number, *self.path)) if self.path else f"section-{number}"

    @property
    def texts(self) -> list[TextPiece]:
        """The clause's own words, in order (not those of its subclauses)."""
        return [item for item in self.items if isinstance(item, TextPiece)]

    @property
    def children(self) -> list[Clause]:
        """The subclauses, in order."""
        return [item for item in self.items if isinstance(item, Clause)]

    @property
    def words(self) -> str:
        """The clause's own words joined with single spaces."""
        return " ".join(piece.text for piece in self.texts)

    def walk(self) -> list[Clause]:
        """This clause and every clause below it, in document order."""
        found = [self]
        for child in self.children:
            found.extend(child.walk())
        return found


@dataclass(frozen=True)
class Bound:
    """A bound on an input: `min`, `above` or `max`, optionally only `when` a condition holds."""

    kind: BoundKind
    value: Expr
    when: Expr | None
    span: Span


@dataclass(frozen=True)
class FromTable:
    """`from TABLE by YEAR`: an input left out of a scenario that gives the year input `year`
    takes the value of `table` in force on 1 January of that year."""

    table: str
    year: str
    span: Span


@dataclass(frozen=True)
class DerivedBy:
    """`derived by RULE when CONDITION`: when the condition holds (it names other inputs, such
    as a list `is given`), the input is not given by the scenario but is the value of `rule`
    (a definition in the clause that says how it is found)."""

    rule: str
    condition: Expr
    span: Span


@dataclass(frozen=True)
class Requirement:
    """`requires CONDITION "reason"` in a record: every element meets the condition (over its
    fields), or the scenario is refused at that element with the reason."""

    condition: Expr
    reason: str
    span: Span


@dataclass(frozen=True)
class TableEntry:
    """One value of a dated table and the day it is in force from (ISO `YYYY-MM-DD`)."""

    start: str
    value: Literal
    span: Span


@dataclass
class Table:
    """A dated parameter: values each in force from a date until the next one, the last until
    `until`; `source` cites where they are set and published."""

    name: str
    type: Type
    description: str
    source: str
    entries: tuple[TableEntry, ...]
    until: str
    span: Span

    def entry_for_year(self, year: int) -> TableEntry | None:
        """Returns the entry in force on 1 January of `year`, None when the table does not
        cover that day (before its first entry or after `until`)."""
        day = f"{year:04d}-01-01"
        if not 1 <= year <= 9999 or day > self.until:
            return None
        found = None
        for entry in self.entries:
            if entry.start <= day:
                found = entry
        return found


@dataclass(frozen=True)
class Periods:
    """`periods NAME by YEAR at most N`: a scenario may give `NAME`, a list of periods each with
    its own facts and its year input `by`, strictly increasing; the facts `only` are given in a
    period only, the facts `without` not at all in that form."""

    name: str
    by: str
    at_most: int
    description: str
    only: tuple[str, ...]
    without: tuple[str, ...]
    span: Span


@dataclass
class Total:
    """`total NAME = sum of RESULT over PERIODS`: in the period form the result `name` is the
    sum of `summed` over the periods, cited to the clause it is written in."""

    name: str
    summed: str
    periods: str
    span: Span
    readings: tuple[str, ...]
    clause: Clause = field(repr=False)


@dataclass
class Input:
    """A declared fact of the scenario: type, default, bounds and description."""

    name: str
    type: Type
    description: str
    span: Span
    default: Expr | None = None
    required: bool = False
    required_when: Expr | None = None
    optional: bool = False
    bounds: tuple[Bound, ...] = ()
    from_table: FromTable | None = None
    derived_by: DerivedBy | None = None
    # A record field whose value no two elements of a list share (an identifier).
    unique: bool = False
    # The phrases by which the statute's words name the fact (`named`; see dsl/facts.py).
    phrases: tuple[Phrase, ...] = ()


@dataclass
class Record:
    """A record type: the shape of each element of a list input, its fields declared as inputs
    are (type, default, bounds, description), in order."""

    name: str
    description: str
    span: Span
    fields: dict[str, Input] = field(default_factory=dict)
    requirements: tuple[Requirement, ...] = ()

    @property
    def label_field(self) -> str | None:
        """The field that names an element in a trace: the first `text` field, or None (then
        an element is named by its position)."""
        for declared in self.fields.values():
            if declared.type.kind == "text":
                return declared.name
        return None


@dataclass(frozen=True)
class ReadingOption:
    """One way of reading an ambiguous clause."""

    name: str
    description: str


@dataclass(frozen=True)
class Reading:
    """An entry of the interpretation register: its question, default and alternatives."""

    id: str
    question: str
    default: ReadingOption
    alternatives: tuple[ReadingOption, ...]
    span: Span

    @property
    def options(self) -> tuple[ReadingOption, ...]:
        """Every selectable option, the default first."""
        return (self.default, *self.alternatives)


CITE = "{statute}{clauses}"
CITE_FIELDS = ("statute", "section", "clauses")


@dataclass
class Statute:
    """A parsed encoding: header, register, inputs, results and the clause tree of each of
    its sections."""

    name: str
    title: str
    history: str
    official: str
    path: str
    source: str
    readings: dict[str, Reading]
    inputs: dict[str, Input]
    results: tuple[tuple[str, Span], ...]
    sections: tuple[Clause, ...]
    definitions: dict[str, Rule | Cases] = field(default_factory=dict)
    invariants: list[Invariant] = field(default_factory=list)
    monotones: list[Monotone] = field(default_factory=list)
    cite: str = CITE  # how a clause is cited: see `citation`
    tables: dict[str, Table] = field(default_factory=dict)
    periods: Periods | None = None
    totals: list[Total] = field(default_factory=list)
    # Every exception of the encoding, in encoding order (each is also on its target).
    exceptions: list[ExceptionRule] = field(default_factory=list)

    def __repr__(self) -> str:
        # The whole tree would run to megabytes (strategies and errors print their arguments).
        return f"Statute({self.name!r}, {self.path!r})"

    records: dict[str, Record] = field(default_factory=dict)
    # How `date + duration` rounds a day the month reached does not have (dsl/dates.py).
    date_rounding: DateRounding = "refuse-ambiguous"

    def citation(self, clause: Clause) -> str:
        """The full citation of a clause in the statute's declared style (`cite`): by default
        the statute's name then the clause's labels, e.g. `N.J.S.A. 34:1B-343(c)(1)(j)`;
        `cl {section}{clauses}` gives `cl 4(b)` ({section} is `Clause.number`)."""
        return self.cite.format(
            statute=self.name,
            section=clause.number,
            clauses=clause.labels,
        )

    @property
    def declared_types(self) -> list[Type]:
        """Every type the encoding declares, in order: its inputs', its definitions', and
        their parameters' and its invariants' parameters' (enum members are named by these)."""
        return [
            *(declared.type for declared in self.inputs.values()),
            *(definition.type for definition in self.definitions.values()),
            *(p.type for definition in self.definitions.values() for p in definition.params),
            *(p.type for invariant in self.invariants for p in invariant.params),
            *(f.type for record in self.records.values() for f in record.fields.values()),
        ]

    @property
    def list_inputs(self) -> list[Input]:
        """The inputs of list type, in declaration order."""
        return [declared for declared in self.inputs.values() if declared.type.kind == "list"]

    def record_of(self, name: str) -> Record | None:
        """Returns the record of the elements of the list input `name`, None when it is not
        a list input of a declared record."""
        declared = self.inputs.get(name)
        if declared is None or declared.type.kind != "list":
            return None
        return self.records.get(declared.type.record)

    @property
    def clauses(self) -> list[Clause]:
        """Every clause in document order, each section before its clauses."""
        return [clause for section in self.sections for clause in section.walk()]

    @property
    def bonuses(self) -> list[Rule | Cases]:
        """The definitions marked `bonus`, in encoding order."""
        return [d for d in self.definitions.values() if d.is_bonus]

    @property
    def result_names(self) -> tuple[str, ...]:
        """The result keys, in their declared order."""
        return tuple(name for name, _ in self.results)


def children(expr: Expr) -> tuple[Expr, ...]:
    """Returns an expression's direct sub-expressions, in order."""
    if isinstance(expr, Call):
        return (*expr.args, *(arg for _, arg in expr.kwargs))
    if isinstance(expr, BinOp | Compare | BoolOp):
        return (expr.left, expr.right)
    if isinstance(expr, Not | Neg | PartOf):
        return (expr.operand,)
    if isinstance(expr, If):
        return (expr.condition, expr.then, expr.otherwise)
    if isinstance(expr, Aggregate):
        return tuple(e for e in (expr.value, expr.condition) if e is not None)
    return ()
