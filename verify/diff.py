"""The semantic diff of two encodings: which words, which rules and which results change.

Three layers, from the text to the law's effect:

1. **Clauses.** Each clause is identified by its citation (`(c)(1)(j)`) and fingerprinted by the
   sha256 of its own words, whitespace-normalised. Clauses added, removed and reworded are listed,
   a reworded clause with its word diff.
2. **Rules.** Definitions, invariants, monotone properties, inputs, readings and the header are
   compared by their normalised source text (a piecewise definition case by case). A rule whose
   clause was reworded is flagged for review even when its own text did not change.
3. **Results.** For each result key both encodings declare, Z3 decides whether old and new give
   the same value for every scenario valid under both. The two proof models share their input
   variables (same name, same variable; an enum or a reading is linked by member or option name)
   and their reading variables. `equal` is reported only on unsat; a satisfying model becomes a
   witness scenario, which both evaluators run, and the difference is reported only when they
   confirm it (`error` otherwise); a timeout is `unknown`, never `equal`.
4. **Scope.** Z3 also decides, each way, whether one encoding accepts a scenario the other
   refuses, over the inputs both declare (a bound dropped, widened or added; a field made
   required); failing that, a field only one declares (given to the other, which refuses it as
   unknown; or left out, where the one declaring it requires it). A witness is reported only
   when the evaluators confirm that one side accepts it and the other refuses it, with the
   refusing side's own message.
"""

from __future__ import annotations

import difflib
import hashlib
import time
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from typing import Any

import z3

from lextrace.dsl import ast
from lextrace.dsl.checker import definition_expressions, reachable_definitions, readings_used, walk
from lextrace.dsl.values import Value, cents_string, exact_string

from .model import LIST_BOUND, Model, Shared, Term, decimal_constraints, without_derived
from .solve import decide, work

EQUAL, DIFFERENT, UNKNOWN, ERROR = "equal", "different", "unknown", "error"
BOUNDED = "bounded"  # no difference among lists of up to LIST_BOUND elements: not a proof
STATUSES = (EQUAL, DIFFERENT, BOUNDED, UNKNOWN, ERROR)
ADDED, REMOVED, REWORDED, CHANGED, REVIEW = "added", "removed", "reworded", "changed", "review"

# ---------------------------------------------------------------------------------------------
# The report


@dataclass(frozen=True)
class WordOp:
    """One step of a word diff: `equal`, `delete`, `insert` or `replace`, with the words of
    each side."""

    op: str
    old: tuple[str, ...]
    new: tuple[str, ...]


@dataclass
class ClauseChange:
    """A clause added, removed or reworded, identified by its citation."""

    citation: str
    status: str
    old_fingerprint: str | None
    new_fingerprint: str | None
    old_words: str | None
    new_words: str | None
    word_diff: list[WordOp] = field(default_factory=list)


@dataclass
class PartChange:
    """A part of a changed definition: its header, one of its cases or an exception to it."""

    part: str
    status: str
    old: str | None
    new: str | None


@dataclass
class RuleChange:
    """A definition, invariant, monotone property, input, reading or header field that was
    added, removed or changed, or whose clause was reworded (`review`)."""

    kind: str
    name: str
    status: str
    old_citation: str | None = None
    new_citation: str | None = None
    old_text: str | None = None
    new_text: str | None = None
    words_changed: list[str] = field(default_factory=list)
    parts: list[PartChange] = field(default_factory=list)
    note: str = ""


@dataclass
class ResultComparison:
    """Whether one result key has the same value under both encodings for every valid scenario.

    `status` is `equal` (proved), `different` (with a `witness` scenario, the `readings` it
    uses and the `old_value` and `new_value` the evaluators compute for it, rounded to the cent),
    `bounded` (a result that reads a list: no difference among lists of up to `LIST_BOUND`
    elements, which is not a proof), `unknown` (the solver ran out of time, or the comparison
    cannot see the difference) or `error` (the evaluators do not confirm the solver's witness,
    or the comparison could not be set up); `detail` says more.
    """

    name: str
    status: str
    witness: dict[str, object] | None
    readings: dict[str, str] | None
    old_value: str | None
    new_value: str | None
    seconds: float
    detail: str = ""


ACCEPTED_NOW, REFUSED_NOW = "accepted now", "refused now"


@dataclass
class ScopeComparison:
    """Whether the two encodings accept the same scenarios, one way: `accepted now` (valid for
    the new encoding, refused by the old) or `refused now` (valid for the old, refused by the
    new). `status` is `equal` (proved: no such scenario), `different` (with a `witness` and the
    refusing encoding's own message, `refusal`), `unknown` (no answer in time) or `error` (the
    evaluators do not confirm the solver's witness); `detail` says more."""

    direction: str
    status: str
    witness: dict[str, object] | None
    refusal: str
    seconds: float
    detail: str = ""


@dataclass
class Diff:
    """The whole semantic diff of two encodings."""

    old_path: str
    new_path: str
    old_name: str
    new_name: str
    clauses: list[ClauseChange]
    rules: list[RuleChange]
    results: list[ResultComparison]
    results_added: list[str]
    results_removed: list[str]
    notes: list[str]
    seconds: float
    scope: list[ScopeComparison] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when every result and scope comparison ended `equal`, `different` or
        `bounded`."""
        return all(r.status in (EQUAL, DIFFERENT, BOUNDED) for r in [*self.results, *self.scope])

    @property
    def unchanged(self) -> bool:
        """True when nothing differs: no clause, rule or result change."""
        return (
            not self.clauses
            and not self.rules
            and not self.results_added
            and not self.results_removed
            and all(r.status == EQUAL for r in [*self.results, *self.scope])
        )


# ---------------------------------------------------------------------------------------------
# Clauses


def normalise(text: str) -> str:
    """Returns `text` with every run of whitespace replaced by one space."""
    return " ".join(text.split())


def fingerprint(clause: ast.Clause) -> str:
    """Returns the sha256 (hex) of a clause's own words, whitespace-normalised."""
    return hashlib.sha256(normalise(clause.words).encode("utf-8")).hexdigest()


def where(clause: ast.Clause) -> str:
    """Returns a clause's citation for people: `(c)(1)(j)`, or `section 75.` for the section
    (its heading, `§ 132`, when its label is not a number)."""
    if clause.short_citation:
        return clause.short_citation
    return f"section {clause.label}" if clause.label[:1].isdigit() else clause.label


def word_diff(old: str, new: str) -> list[WordOp]:
    """Returns the word-by-word diff of two texts (difflib opcodes over words)."""
    old_words, new_words = old.split(), new.split()
    matcher = difflib.SequenceMatcher(None, old_words, new_words, autojunk=False)
    return [
        WordOp(tag, tuple(old_words[i1:i2]), tuple(new_words[j1:j2]))
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
    ]


def clause_changes(old: ast.Statute, new: ast.Statute) -> list[ClauseChange]:
    """Returns the clauses added, removed and reworded, in document order (new, then old)."""
    # Clauses are matched by their labels, and by their section's number too when either
    # encoding holds several sections (an amendment may add one).
    several = len(old.sections) > 1 or len(new.sections) > 1

    def key(clause: ast.Clause) -> tuple[str, ...]:
        return (clause.number, *clause.path) if several else clause.path

    before = {key(clause): clause for clause in old.clauses}
    after = {key(clause): clause for clause in new.clauses}
    changes: list[ClauseChange] = []
    for citation, clause in after.items():
        previous = before.get(citation)
        if previous is None:
            changes.append(
                ClauseChange(
                    where(clause), ADDED, None, fingerprint(clause), None, normalise(clause.words)
                )
            )
            continue
        if fingerprint(previous) != fingerprint(clause):
            old_words, new_words = normalise(previous.words), normalise(clause.words)
            changes.append(
                ClauseChange(
                    where(clause),
                    REWORDED,
                    fingerprint(previous),
                    fingerprint(clause),
                    old_words,
                    new_words,
                    word_diff(old_words, new_words),
                )
            )
    for citation, clause in before.items():
        if citation not in after:
            changes.append(
                ClauseChange(
                    where(clause), REMOVED, fingerprint(clause), None, normalise(clause.words), None
                )
            )
    return changes


# ---------------------------------------------------------------------------------------------
# Rules


def _source(statute: ast.Statute, span: ast.Span) -> str:
    return normalise(statute.source[span.start : span.end])


def _input_text(statute: ast.Statute, declared: ast.Input) -> str:
    """Returns an input's declaration as normalised text (its span holds only its name)."""
    parts = [f"input {declared.name}: {declared.type}"]
    if declared.default is not None:
        parts.append(f"= {_source(statute, declared.default.span)}")
    if declared.required:
        parts.append("required")
    if declared.optional:
        parts.append("optional")
    if declared.required_when is not None:
        parts.append(f"required when {_source(statute, declared.required_when.span)}")
    for bound in declared.bounds:
        text = f"{bound.kind} {_source(statute, bound.value.span)}"
        if bound.when is not None:
            text += f" when {_source(statute, bound.when.span)}"
        parts.append(text)
    parts.append(f'"{normalise(declared.description)}"')
    return " ".join(parts)


def _definition_parts(statute: ast.Statute, definition: ast.Rule | ast.Cases) -> dict[str, str]:
    """Returns the parts of a definition keyed by a stable label: `header`, then one entry per
    case (`case (b)(3)`, `case (b)(3) #2` for a second case in the same clause) and per
    exception to it (`exception NAME`)."""
    parts = {"header": _source(statute, definition.span)}
    if isinstance(definition, ast.Cases):
        seen: dict[str, int] = {}
        for case in definition.cases:
            citation = where(case.clause)
            seen[citation] = seen.get(citation, 0) + 1
            label = f"case {citation}" + (f" #{seen[citation]}" if seen[citation] > 1 else "")
            parts[label] = _source(statute, case.span)
    for exception in definition.exceptions:
        parts[f"exception {exception.name}"] = _source(statute, exception.span)
    return parts


def _definition_clauses(definition: ast.Rule | ast.Cases) -> list[ast.Clause]:
    found = [definition.clause]
    if isinstance(definition, ast.Cases):
        found.extend(case.clause for case in definition.cases if case.clause not in found)
    found.extend(e.clause for e in definition.exceptions if e.clause not in found)
    return found


def rule_changes(
    old: ast.Statute, new: ast.Statute, clauses: Iterable[ClauseChange] | None = None
) -> list[RuleChange]:
    """Returns the header fields, readings, inputs, definitions, invariants and monotone
    properties added, removed or changed, and the rules left unchanged in a reworded clause
    (status `review`)."""
    if clauses is None:
        clauses = clause_changes(old, new)
    reworded = {c.citation for c in clauses if c.status == REWORDED}
    changes: list[RuleChange] = []

    for key in ("name", "title", "history", "official"):
        before, after = normalise(getattr(old, key)), normalise(getattr(new, key))
        if before != after:
            changes.append(RuleChange("header", key, CHANGED, old_text=before, new_text=after))

    def simple(kind: str, before: Mapping[str, str], after: Mapping[str, str]) -> None:
        for name, text in after.items():
            if name not in before:
                changes.append(RuleChange(kind, name, ADDED, new_text=text))
            elif before[name] != text:
                changes.append(
                    RuleChange(kind, name, CHANGED, old_text=before[name], new_text=text)
                )
        for name, text in before.items():
            if name not in after:
                changes.append(RuleChange(kind, name, REMOVED, old_text=text))

    simple(
        "reading",
        {rid: _source(old, r.span) for rid, r in old.readings.items()},
        {rid: _source(new, r.span) for rid, r in new.readings.items()},
    )
    simple(
        "input",
        {name: _input_text(old, d) for name, d in old.inputs.items()},
        {name: _input_text(new, d) for name, d in new.inputs.items()},
    )

    # Definitions, invariants and monotone properties live in clauses.
    located: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
        ("definition", dict(old.definitions), dict(new.definitions)),
        ("invariant", {i.name: i for i in old.invariants}, {i.name: i for i in new.invariants}),
        ("monotone", {m.name: m for m in old.monotones}, {m.name: m for m in new.monotones}),
    ]
    for kind, before_items, after_items in located:
        for name, item in after_items.items():
            previous = before_items.get(name)
            parts_after = _parts(new, item)
            citation = where(item.clause)
            if previous is None:
                changes.append(
                    RuleChange(
                        kind, name, ADDED, new_citation=citation, new_text=parts_after["header"]
                    )
                )
                continue
            parts_before = _parts(old, previous)
            old_citation = where(previous.clause)
            change = RuleChange(
                kind,
                name,
                CHANGED,
                old_citation=old_citation,
                new_citation=citation,
                old_text=parts_before["header"],
                new_text=parts_after["header"],
            )
            for label, text in parts_after.items():
                if label not in parts_before:
                    change.parts.append(PartChange(label, ADDED, None, text))
                elif parts_before[label] != text:
                    change.parts.append(PartChange(label, CHANGED, parts_before[label], text))
            for label, text in parts_before.items():
                if label not in parts_after:
                    change.parts.append(PartChange(label, REMOVED, text, None))
            if old_citation != citation:
                change.note = f"moved from {old_citation} to {citation}"
            own_clauses = (
                _definition_clauses(item)
                if isinstance(item, ast.Rule | ast.Cases)
                else [item.clause]
            )
            change.words_changed = [where(c) for c in own_clauses if where(c) in reworded]
            if not change.parts and not change.note:
                if not change.words_changed:
                    continue
                change.status = REVIEW
            changes.append(change)
        for name, item in before_items.items():
            if name not in after_items:
                changes.append(
                    RuleChange(
                        kind,
                        name,
                        REMOVED,
                        old_citation=where(item.clause),
                        old_text=_parts(old, item)["header"],
                    )
                )
    return changes


def _parts(statute: ast.Statute, item: Any) -> dict[str, str]:
    if isinstance(item, ast.Rule | ast.Cases):
        return _definition_parts(statute, item)
    return {"header": _source(statute, item.span)}


# ---------------------------------------------------------------------------------------------
# Results: two proof models over the same facts


def _derived_notes(old: ast.Statute, new: ast.Statute) -> list[str]:
    """Returns, for each condition under which either encoding derives inputs from other
    evidence, that the comparison takes those inputs as given and leaves out the scenarios
    that derive them."""
    derived: dict[str, list[str]] = {}
    for name in [*old.inputs, *(n for n in new.inputs if n not in old.inputs)]:
        for statute in (new, old):
            declared = statute.inputs.get(name)
            if declared is not None and declared.derived_by is not None:
                condition = _source(statute, declared.derived_by.condition.span)
                derived.setdefault(condition, []).append(f"{name} (by {declared.derived_by.rule})")
                break
    return [
        f"derived when {condition}: {', '.join(names)}; the results are compared with "
        f"{'them' if len(names) > 1 else 'it'} as given, over the scenarios that do not "
        f"derive {'them' if len(names) > 1 else 'it'}"
        for condition, names in derived.items()
    ]


def _same_record(old: ast.Statute, a: ast.Type, new: ast.Statute, b: ast.Type) -> bool:
    """True when two list types' records declare the same fields, of the same types (their
    bounds may differ): both sides can then hold the same elements."""
    before, after = old.records.get(a.record or ""), new.records.get(b.record or "")
    if before is None or after is None:
        return False
    return {n: str(f.type) for n, f in before.fields.items()} == {
        n: str(f.type) for n, f in after.fields.items()
    }


def _canonical(name: str, sort: str) -> Term:
    if sort == "bool":
        return z3.Bool(name)
    if sort == "int":
        return z3.Int(name)
    return z3.Real(name)


def _joined(detail: str, more: str) -> str:
    """Returns a detail with one more remark."""
    return f"{detail}; {more}" if detail else more


def _index_map(variable: Term, union: list[str], members: tuple[str, ...]) -> Term:
    """Returns `members`' index of the name `union[variable]`, or -1 when it has no such name."""
    if tuple(union) == members:
        return variable
    term: Term = z3.IntVal(-1)
    for index, member in enumerate(union):
        if member in members:
            term = z3.If(variable == index, z3.IntVal(members.index(member)), term)
    return term


def _absence(declared: ast.Input) -> tuple[str, Value]:
    """Returns what a scenario that leaves the input out means: (`optional`, None), (`required`,
    None) or (`default`, the default value)."""
    if declared.optional:
        return "optional", None
    if declared.default is None or declared.required:
        return "required", None
    expr = declared.default
    if isinstance(expr, ast.Ref):
        return "default", expr.name
    assert isinstance(expr, ast.Literal)
    if isinstance(expr.value, bool):
        return "default", expr.value
    if declared.type.kind == "count":
        return "default", int(expr.value)
    return "default", Fraction(expr.value)


def _constant(declared: ast.Input, value: Value, term: Term) -> Term:
    """Returns a default value as a Z3 constant of the same sort as `term`."""
    if isinstance(value, bool):
        return z3.BoolVal(value)
    if isinstance(value, str):
        return z3.IntVal(declared.type.members.index(value))
    assert value is not None
    number = Fraction(value)
    if z3.is_int(term):
        return z3.IntVal(number.numerator)
    return z3.RealVal(f"{number.numerator}/{number.denominator}")


_NUMERIC = ("count", "number", "share", "money")


@dataclass
class Link:
    """How the two proof models share their facts."""

    old: Shared
    new: Shared
    extra: list[Term] = field(default_factory=list)  # requirements beyond each model's own
    # Of `extra`, what each side requires of a scenario: an input it requires given, which the
    # other side may leave out (the scope comparison holds each side to its own).
    requires: dict[str, list[Term]] = field(default_factory=lambda: {"old": [], "new": []})
    presence: dict[str, Term] = field(default_factory=dict)  # an input left out when false
    separate: set[str] = field(default_factory=set)  # inputs whose types cannot be linked
    notes: list[str] = field(default_factory=list)


def link(old: ast.Statute, new: ast.Statute) -> Link:
    """Returns the shared variables of two statutes: one variable per input both declare (a
    `given` flag when leaving it out means different things on the two sides), one per reading
    with alternatives on either side; enum members and reading options are matched by name."""
    shared = Link(Shared(), Shared())
    for name, before in old.inputs.items():
        after = new.inputs.get(name)
        if after is None:
            continue
        a, b = before.type, after.type
        if a.kind == "enum" and b.kind == "enum":
            union = [*a.members, *(m for m in b.members if m not in a.members)]
            variable = _canonical(name, "int")
            old_term = _index_map(variable, union, a.members)
            new_term = _index_map(variable, union, b.members)
            if a.members != b.members:
                shared.notes.append(
                    f"input {name}: enum members differ; only members both declare are compared"
                )
        elif a.kind == "bool" and b.kind == "bool":
            variable = old_term = new_term = _canonical(name, "bool")
        elif a.kind == "date" and b.kind == "date":  # both models hold a date as its day number
            variable = old_term = new_term = _canonical(name, "int")
        elif a.kind == "list" and b.kind == "list" and _same_record(old, a, new, b):
            # The same elements on both sides: the length and each element's fields.
            variable = old_term = new_term = _canonical(name, "int")
            shared.old.lists.add(name)
            shared.new.lists.add(name)
        elif a.kind in _NUMERIC and b.kind in _NUMERIC:
            whole = "count" in (a.kind, b.kind)
            variable = _canonical(name, "int" if whole else "real")
            old_term = z3.ToReal(variable) if whole and a.kind != "count" else variable
            new_term = z3.ToReal(variable) if whole and b.kind != "count" else variable
        else:
            shared.separate.add(name)
            if a.kind == b.kind == "list":
                shared.notes.append(
                    f"input {name}: its records' fields differ ({a} before, {b} after); each "
                    "side has its own list, and the inputs derived from it are compared as given"
                )
            else:
                shared.notes.append(
                    f"input {name}: its type changed from {a} to {b}; each side has its own value"
                )
            continue
        old_absent, new_absent = _absence(before), _absence(after)
        given: Term | None = None
        if "optional" in (old_absent[0], new_absent[0]) or old_absent != new_absent:
            given = z3.Bool(f"{name}__given")
            shared.presence[name] = given
        for label, side, declared, term, absent in (
            ("old", shared.old, before, old_term, old_absent),
            ("new", shared.new, after, new_term, new_absent),
        ):
            if given is not None:
                if absent[0] == "optional":
                    side.given[name] = given
                elif absent[0] == "default":
                    term = z3.If(given, term, _constant(declared, absent[1], term))
                else:
                    shared.extra.append(given)
                    shared.requires[label].append(given)
            side.inputs[name] = term
    for reading_id, before_reading in old.readings.items():
        after_reading = new.readings.get(reading_id)
        if after_reading is None:
            continue
        if not before_reading.alternatives and not after_reading.alternatives:
            continue
        old_options = tuple(o.name for o in before_reading.options)
        new_options = tuple(o.name for o in after_reading.options)
        union = [*old_options, *(o for o in new_options if o not in old_options)]
        variable = z3.Int(f"reading_{reading_id}")
        old_term = _index_map(variable, union, old_options)
        new_term = _index_map(variable, union, new_options)
        old_default, new_default = before_reading.default.name, after_reading.default.name
        if old_default != new_default:
            # A scenario that pins no option reads each encoding's own default: one more
            # value of the shared variable, after every option.
            unpinned = len(union)
            old_term = z3.If(variable == unpinned, old_options.index(old_default), old_term)
            new_term = z3.If(variable == unpinned, new_options.index(new_default), new_term)
            shared.notes.append(
                f"reading {reading_id}: its default changed from {old_default} to "
                f"{new_default}; a scenario that pins no option is compared under each "
                "encoding's default"
            )
        shared.old.readings[reading_id] = old_term
        shared.new.readings[reading_id] = new_term
        if set(old_options) != set(new_options):
            shared.notes.append(
                f"reading {reading_id}: its options differ; only options both declare are compared"
            )
    return shared


def _readings_used(statute: ast.Statute, result: str) -> set[str]:
    """Returns the readings the definitions behind one result rest on."""
    return readings_used(statute, [result])


def _reading_order(reading_id: str) -> tuple[int, str]:
    return (int(reading_id[1:]) if reading_id[1:].isdigit() else 10**6, reading_id)


def _show(type_: ast.Type, value: Value) -> str | None:
    """Returns a value as text: money rounded half-up to the cent, other numbers exact."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if type_.kind == "money":
        return cents_string(value)
    return exact_string(value)


def _same_default(value: object, declared: ast.Input) -> bool:
    absent = _absence(declared)
    if absent[0] != "default":
        return False
    default = absent[1]
    if declared.type.kind in _NUMERIC and not isinstance(value, bool):
        try:
            return Fraction(str(value)) == Fraction(default)  # type: ignore[arg-type]
        except (ValueError, TypeError, ZeroDivisionError):
            return False
    return value == default


@dataclass
class Witness:
    """A scenario valid under both encodings, with what both evaluators make of it."""

    scenario: dict[str, object]
    old_readings: dict[str, str]
    new_readings: dict[str, str]
    old_values: dict[str, Value] | None = None
    new_values: dict[str, Value] | None = None
    problem: str = ""  # why the evaluators could not run it


class Comparer:
    """Builds both proof models over shared facts and compares results one by one.

    Results are compared in order, and each proof reuses what came before: a result already
    proved equal replaces its new term by its old one inside later results (sound, as the two
    agree on every valid scenario, and it leaves identical formulas identical), and a witness
    already found is tried on later results by the evaluators before Z3 is asked.
    """

    def __init__(self, old: ast.Statute, new: ast.Statute, timeout_seconds: float = 10.0) -> None:
        from lextrace.api import Statute

        self.old, self.new = old, new
        self.timeout_ms = max(1, int(timeout_seconds * 1000))
        self.link = link(old, new)
        self.before = Model(old, "__old", collect=False, shared=self.link.old)
        # One year, month and day per shared date: both sides then compute `date + 1 year`
        # from the same integers, and the solver sees equal rules give equal dates.
        self.after = Model(
            new, "__new", collect=False, shared=self.link.new, calendar_of=self.before
        )
        # Scenarios that derive an input from a list are left out: the model takes a derived
        # input as given (any value it may take), which covers them soundly while the
        # derivation is the same on both sides (see `changed_derivations`).
        deriving = [*self.before.derivation_conditions(), *self.after.derivation_conditions()]
        self.requirements = [*self.link.extra, *(z3.Not(condition) for condition in deriving)]
        self.link.notes.extend(_derived_notes(old, new))
        self.evaluators = (Statute(old), Statute(new))
        self.satisfiable: Any = None
        self.proved: list[tuple[Term, Term]] = []  # (new term, old term) proved equal
        self.witnesses: list[Witness] = []
        # A scenario valid under both (`_valid_scenario`): () once none was found.
        self._base: tuple[Any, ...] | None = None
        self.changed_derivations_by = _changed_derivations(old, new)
        self.changed_derivations = set(self.changed_derivations_by)
        self.lists = {
            n for side in (old, new) for n, d in side.inputs.items() if d.type.kind == "list"
        }

    @property
    def valid(self) -> list[Term]:
        """Returns what makes a scenario valid under both encodings, with the facts the models
        added while translating the results compared so far (the year, month and day of a
        date are tied to it only once a rule adds months to it)."""
        return [*self.before.constraints, *self.after.constraints, *self.requirements]

    def common_results(self) -> list[str]:
        """Returns the result keys both encodings declare, in the new encoding's order."""
        return [n for n in self.new.result_names if n in self.old.result_names]

    def _check_satisfiable(self) -> Any:
        if self.satisfiable is None:
            self.satisfiable, _ = decide(self.valid, self.timeout_ms)
        return self.satisfiable

    def _comparable(self, name: str) -> tuple[Term, Term] | None:
        a, b = self.old.definitions[name].type, self.new.definitions[name].type
        left, right = self.before.term(name), self.after.term(name)
        if a.kind == "enum" and b.kind == "enum":
            if a.members == b.members:
                return left, right
            union = [*a.members, *(m for m in b.members if m not in a.members)]
            # Each side's index mapped to the union of both member lists.
            return (_to_union(left, a.members, union), _to_union(right, b.members, union))
        if "enum" in (a.kind, b.kind) or (a.kind == "bool") != (b.kind == "bool"):
            return None
        return left, right

    def compare(self, name: str) -> ResultComparison:
        """Returns the comparison of one result key both encodings declare."""
        started = time.perf_counter()
        spent = work()

        def done(status: str, detail: str = "", witness: Witness | None = None) -> ResultComparison:
            found: dict[str, Any] = {}
            if witness is not None:
                used = _readings_used(self.old, name) | _readings_used(self.new, name)
                readings = {}
                for reading_id in sorted(used, key=_reading_order):
                    before = witness.old_readings.get(reading_id)
                    after = witness.new_readings.get(reading_id)
                    if before is not None and after is not None and before != after:
                        # Pinned by neither side: each encoding read its own default.
                        detail = _joined(
                            detail,
                            f"{reading_id} pinned by neither: each encoding's default "
                            f"({before} before, {after} after)",
                        )
                        continue
                    option = before or after
                    if option is None:
                        declared = (
                            self.new.readings.get(reading_id) or self.old.readings[reading_id]
                        )
                        option = declared.default.name
                    readings[reading_id] = option
                found = {"witness": dict(witness.scenario), "readings": readings}
                if witness.old_values is not None and witness.new_values is not None:
                    found["old_value"] = _show(
                        self.old.definitions[name].type, witness.old_values[name]
                    )
                    found["new_value"] = _show(
                        self.new.definitions[name].type, witness.new_values[name]
                    )
            return ResultComparison(
                name,
                status,
                found.get("witness"),
                found.get("readings"),
                found.get("old_value"),
                found.get("new_value"),
                time.perf_counter() - started,
                detail,
            )

        terms = self._comparable(name)
        if terms is None:
            a, b = self.old.definitions[name].type, self.new.definitions[name].type
            return done(DIFFERENT, f"its type changed from {a} to {b}")
        for witness in self.witnesses:
            if _differs(witness, name):
                return done(DIFFERENT, witness.problem, witness)
        if self._check_satisfiable() == z3.unsat:
            return done(ERROR, "no scenario is valid under both encodings: nothing to compare")
        left, right = terms
        raw_left, raw_right = self.before.term(name), self.after.term(name)
        same_sort = raw_left.sort() == raw_right.sort()
        proved = [(n, o) for n, o in self.proved if not n.eq(raw_right)]
        if proved:
            right = z3.substitute(right, *proved)
        answer, solver = decide([*self.valid, left != right], self.timeout_ms)
        if answer == z3.unsat:
            reached = _inputs_reached(self.new, name) | _inputs_reached(self.old, name)
            lists = sorted(n for n in reached if n in self.link.separate and n in self.lists)
            if lists:
                return done(
                    UNKNOWN,
                    f"reads the list {', '.join(lists)}, which the proof model does not "
                    "compare: evaluate scenarios with each encoding to compare them",
                )
            changed = sorted(self.changed_derivations & reached)
            if changed:
                # The model takes a derived input as given: it cannot see the change.
                rules = ", ".join(self.changed_derivations_by[input_] for input_ in changed)
                return done(
                    UNKNOWN,
                    f"rests on {', '.join(changed)}, derived from a list by {rules}, whose "
                    "rules differ: the proof model takes a derived input as given, so it "
                    "cannot compare the derivations; evaluate payroll scenarios with each "
                    "encoding to compare them",
                )
            held = sorted(n for n in reached if n in self.lists and n not in self.link.separate)
            if held:
                return done(
                    BOUNDED,
                    f"no difference for lists of up to {LIST_BOUND} elements "
                    f"({', '.join(held)}): a bounded check, not a proof",
                )
            if same_sort and self._linked_type(name):
                self.proved.append((raw_right, raw_left))
            return done(EQUAL, "proved for every scenario valid under both encodings")
        if answer == z3.unknown:
            return done(UNKNOWN, f"Z3 gave no answer in time: {solver.reason_unknown()}")
        model = self._in_cents(solver, [*self.valid, left != right], spent)
        witness = self._witness(model)
        if witness.old_values is None or witness.new_values is None:
            return done(
                ERROR,
                "the evaluators cannot run the solver's witness (a bug in the translation to "
                f"Z3, or amounts that are not whole cents): {witness.problem}",
                witness,
            )
        if not _differs(witness, name):
            shown = _show(self.old.definitions[name].type, witness.old_values[name])
            return done(
                ERROR,
                "the translation disagrees: Z3 finds a difference here but both evaluators "
                f"give {shown}",
                witness,
            )
        self.witnesses.append(witness)
        return done(DIFFERENT, witness.problem, witness)

    def _in_cents(self, solver: Any, facts: list[Term], spent: float) -> z3.ModelRef:
        """Returns the model of `facts` that `solver` found sat, in whole cents when one is
        found within what is left of the comparison's limit (`spent`: the work before it):
        a scenario file states such amounts exactly."""
        found = solver.model()  # taken first: the checks below replace the solver's answer
        cents = [*decimal_constraints(self.before), *decimal_constraints(self.after)]
        in_cents = solver.model_with(cents)
        if in_cents is not None:
            return in_cents
        remaining = self.timeout_ms - int((work() - spent) * 1000)
        if remaining > 0:
            retried, retry = decide([*facts, *cents], remaining)
            if retried == z3.sat:
                return retry.model()
        return found

    def _linked_type(self, name: str) -> bool:
        a, b = self.old.definitions[name].type, self.new.definitions[name].type
        return a == b

    def _witness(self, model: z3.ModelRef) -> Witness:
        """Returns the scenario a Z3 model gives, evaluated by both evaluators."""
        from lextrace.api import ReadingError
        from lextrace.dsl.errors import ScenarioError
        from lextrace.dsl.evaluator import EvaluationError

        witness, sides = self._scenario(model)
        values = []
        try:
            for evaluator, given, side_readings in sides:
                values.append(evaluator.evaluate(given, side_readings).values)
        except (ScenarioError, EvaluationError, ReadingError) as error:
            witness.problem = str(error)
            return witness
        witness.old_values, witness.new_values = values
        return witness

    def _scenario(self, model: z3.ModelRef) -> tuple[Witness, list[tuple[Any, Any, Any]]]:
        """Returns the scenario a Z3 model gives (as a witness, not yet evaluated) and, for
        the old then the new encoding, what its evaluator is given: (evaluator, scenario,
        readings)."""
        old_scenario, old_readings = self.before.scenario(model)
        new_scenario, new_readings = self.after.scenario(model)
        for input_name, given in self.link.presence.items():
            if not z3.is_true(model.eval(given, model_completion=True)):
                old_scenario.pop(input_name, None)
                new_scenario.pop(input_name, None)
        notes = []
        scenario: dict[str, object] = {}
        names = [*self.old.inputs, *(n for n in self.new.inputs if n not in self.old.inputs)]
        for input_name in names:
            if input_name in old_scenario:
                scenario[input_name] = old_scenario[input_name]
                if (
                    input_name in new_scenario
                    and new_scenario[input_name] != old_scenario[input_name]
                ):
                    notes.append(
                        f"{input_name} is {old_scenario[input_name]!r} for the old encoding "
                        f"and {new_scenario[input_name]!r} for the new"
                    )
            elif input_name in new_scenario:
                scenario[input_name] = new_scenario[input_name]
        # Leave out the inputs at their default on every side (the evaluators fill them in).
        separate = self.link.separate
        for input_name in list(scenario):
            if input_name in separate or input_name in self.link.presence:
                continue
            declared = [
                s.inputs[input_name] for s in (self.old, self.new) if input_name in s.inputs
            ]
            if all(_same_default(scenario[input_name], d) for d in declared):
                del scenario[input_name]
        # An input derived from a list the witness gives is not given beside it: the
        # evaluators derive it, as the model does.
        scenario = without_derived(self.new, without_derived(self.old, scenario))
        witness = Witness(scenario, old_readings, new_readings, problem="; ".join(notes))
        sides = []
        for statute, evaluator, side_scenario, side_readings in (
            (self.old, self.evaluators[0], old_scenario, old_readings),
            (self.new, self.evaluators[1], new_scenario, new_readings),
        ):
            given = {k: v for k, v in scenario.items() if k in statute.inputs and k not in separate}
            given.update(
                {k: v for k, v in side_scenario.items() if k in separate and k in scenario}
            )
            sides.append((evaluator, given, side_readings))
        return witness, sides

    # ---- scope: which scenarios each encoding accepts -----------------------------------------
    def compare_scope(self) -> list[ScopeComparison]:
        """Returns, each way, whether one encoding accepts a scenario the other refuses (over
        the inputs both declare and the comparison links): `accepted now`, then `refused
        now`."""
        linked = [
            name
            for name in self.old.inputs
            if name in self.new.inputs and name not in self.link.separate
        ]
        requires = self.link.requires
        # The requirements common to both sides (no list-derived input, ...) stay assumed.
        common = [
            term
            for term in self.requirements
            if not any(term.eq(own) for own in [*requires["old"], *requires["new"]])
        ]
        found = []
        for direction, accepting, accepting_side, refusing, refusing_side in (
            (ACCEPTED_NOW, self.after, "new", self.before, "old"),
            (REFUSED_NOW, self.before, "old", self.after, "new"),
        ):
            refused = [fact for name in linked for fact in refusing.input_facts[name]]
            # A shared list's elements: each present element's facts, the same for every
            # element, so a list of one element already shows any difference in them.
            for name in linked:
                if name in self.lists:
                    refused.extend(refusing.element_facts[name])
                    refused.extend(refusing.record_requirements(name))
            refused.extend(requires[refusing_side])
            records = [
                fact for name in accepting.lists for fact in accepting.record_requirements(name)
            ]
            assumed = [*accepting.constraints, *records, *common, *requires[accepting_side]]
            compared = self._scope(direction, assumed, refused)
            if compared.status == EQUAL:
                compared = self._field_scope(direction) or compared
            found.append(compared)
        return found

    def _field_scope(self, direction: str) -> ScopeComparison | None:
        """Returns, for one way, a scenario valid under both versions but for a field only one
        declares: given, where only the accepting version declares it (the other refuses an
        unknown field); left out, where only the refusing version declares it and requires
        it. None when there is no such field, or no scenario is valid under both."""
        started = time.perf_counter()
        accepting, refusing = (
            (self.new, self.old) if direction == ACCEPTED_NOW else (self.old, self.new)
        )
        given = [
            n
            for n, d in accepting.inputs.items()
            if n not in refusing.inputs and d.type.kind != "list"
        ]
        required = [
            n
            for n, d in refusing.inputs.items()
            if n not in accepting.inputs and d.required and d.required_when is None
        ]
        if not (given or required):
            return None
        base = self._valid_scenario()
        if base is None:
            return None
        model, witness, sides = base
        side_model = self.after if accepting is self.new else self.before
        values, _ = side_model.scenario(model)
        (old_evaluator, old_given, old_readings), (new_evaluator, new_given, new_readings) = sides
        labels = ("new", "old") if accepting is self.new else ("old", "new")
        for name in [*given, *required]:
            scenario = dict(witness.scenario)
            extra: dict[str, object] = {}
            if name in given:
                if name not in values:
                    continue
                scenario[name] = extra[name] = values[name]
                detail = f"only the {labels[0]} encoding declares {name}"
            else:
                scenario.pop(name, None)
                detail = f"only the {labels[1]} encoding declares {name}, and requires it"
            old_side = {k: v for k, v in old_given.items() if k != name} | extra
            new_side = {k: v for k, v in new_given.items() if k != name} | extra
            old_refusal = _refusal(old_evaluator, old_side, old_readings)
            new_refusal = _refusal(new_evaluator, new_side, new_readings)
            refusal, acceptance = (
                (old_refusal, new_refusal)
                if direction == ACCEPTED_NOW
                else (new_refusal, old_refusal)
            )
            if refusal is not None and acceptance is None:
                seconds = time.perf_counter() - started
                return ScopeComparison(direction, DIFFERENT, scenario, refusal, seconds, detail)
        return None

    def _valid_scenario(self) -> tuple[z3.ModelRef, Witness, list[tuple[Any, Any, Any]]] | None:
        """Returns a scenario valid under both versions (its Z3 model, the scenario and what
        each evaluator is given), found once for both ways; None when there is none."""
        if self._base is None:
            self._base = ()
            answer, solver = decide(self.valid, self.timeout_ms)
            if answer == z3.sat:
                model = self._in_cents(solver, list(self.valid), work())
                self._base = (model, *self._scenario(model))
        return self._base or None

    def _scope(self, direction: str, assumed: list[Term], refused: list[Term]) -> ScopeComparison:
        """Returns one way of the scope comparison: a scenario that every fact `assumed` (the
        accepting side's) allows and some fact of `refused` (the other side's) does not."""
        started = time.perf_counter()
        spent = work()

        def done(
            status: str, detail: str, witness: dict[str, object] | None = None, why: str = ""
        ) -> ScopeComparison:
            return ScopeComparison(
                direction, status, witness, why, time.perf_counter() - started, detail
            )

        if not refused:
            return done(EQUAL, "the other encoding sets no condition on the inputs both declare")
        facts = [*assumed, z3.Not(z3.And(*refused))]
        answer, solver = decide(facts, self.timeout_ms)
        if answer == z3.unsat:
            return done(EQUAL, "proved: no scenario of the inputs both declare")
        if answer == z3.unknown:
            return done(UNKNOWN, f"Z3 gave no answer in time: {solver.reason_unknown()}")
        model = self._in_cents(solver, facts, spent)
        witness, sides = self._scenario(model)
        old_refusal, new_refusal = (_refusal(*side) for side in sides)
        refusal, acceptance = (
            (old_refusal, new_refusal) if direction == ACCEPTED_NOW else (new_refusal, old_refusal)
        )
        if refusal is None or acceptance is not None:
            return done(
                ERROR,
                "the evaluators do not confirm the solver's witness (a bug in the translation to "
                f"Z3): the old encoding {_verdict(old_refusal)}, "
                f"the new {_verdict(new_refusal)}",
                dict(witness.scenario),
            )
        return done(DIFFERENT, witness.problem, dict(witness.scenario), refusal)


def _refusal(evaluator: Any, scenario: dict[str, object], readings: dict[str, str]) -> str | None:
    """Returns an evaluator's refusal of a scenario (None when it accepts it: it evaluates it,
    or fails only while evaluating, past its validation)."""
    from lextrace.api import ReadingError
    from lextrace.dsl.errors import ScenarioError
    from lextrace.dsl.evaluator import EvaluationError

    try:
        evaluator.evaluate(scenario, readings)
    except (ScenarioError, ReadingError) as error:
        return str(error)
    except EvaluationError:
        return None
    return None


def _verdict(refusal: str | None) -> str:
    return "accepts it" if refusal is None else f"refuses it: {refusal}"


def _differs(witness: Witness, name: str) -> bool:
    """True when both evaluators ran the witness and give different values for `name`."""
    if witness.old_values is None or witness.new_values is None:
        return False
    return witness.old_values.get(name) != witness.new_values.get(name)


def _to_union(term: Term, members: tuple[str, ...], union: list[str]) -> Term:
    mapped: Term = z3.IntVal(-1)
    for index, member in enumerate(members):
        mapped = z3.If(term == index, z3.IntVal(union.index(member)), mapped)
    return mapped


def compare_results(
    old: ast.Statute, new: ast.Statute, timeout_seconds: float = 10.0
) -> list[ResultComparison]:
    """Returns, for each result key both encodings declare (in the new encoding's order),
    whether old and new give the same value for every scenario valid under both: `equal`
    (proved by Z3), `different` (with a witness confirmed by both evaluators), `unknown` (no
    answer within `timeout_seconds`) or `error`."""
    comparer = Comparer(old, new, timeout_seconds)
    return [comparer.compare(name) for name in comparer.common_results()]


def _source_of(statute: ast.Statute, span: ast.Span) -> str:
    return " ".join(statute.source[span.start : span.end].split())


def _derivation_text(statute: ast.Statute, name: str) -> str | None:
    """Returns what an input's derivation means, as text: its `derived by` clause, the rules
    the derivation reaches and the record of the list they read (None: not derived)."""
    declared = statute.inputs.get(name)
    if declared is None or declared.derived_by is None:
        return None
    rule = declared.derived_by.rule
    parts = [rule, _source_of(statute, declared.derived_by.condition.span)]
    for reached in sorted(reachable_definitions(statute, [rule])):
        parts.append(_source_of(statute, statute.definitions[reached].span))
    parts.extend(_source_of(statute, record.span) for record in statute.records.values())
    return "\n".join(parts)


def _changed_derivations(old: ast.Statute, new: ast.Statute) -> dict[str, str]:
    """Returns the inputs derived (on either side) whose derivations differ, each with the
    rule that derives it (the new side's, else the old's)."""
    changed = {}
    for name in {*old.inputs, *new.inputs}:
        before, after = _derivation_text(old, name), _derivation_text(new, name)
        if before != after:
            side = new if after is not None else old
            derived_by = side.inputs[name].derived_by
            assert derived_by is not None
            changed[name] = derived_by.rule
    return changed


def _inputs_reached(statute: ast.Statute, name: str) -> set[str]:
    """Returns the inputs the definition `name` reads, directly or through other rules."""
    found: set[str] = set()
    for reached in reachable_definitions(statute, [name]):
        for expr in definition_expressions(statute.definitions[reached]):
            found.update(n.name for n in walk(expr) if isinstance(n, ast.Ref | ast.Given))
            found.update(n.source for n in walk(expr) if isinstance(n, ast.Aggregate))
    return found & set(statute.inputs)


def semantic_diff(old: ast.Statute, new: ast.Statute, timeout_seconds: float = 10.0) -> Diff:
    """Returns the whole diff of two encodings: clause changes, rule changes and the proved
    comparison of every result key both declare (each Z3 call within `timeout_seconds`)."""
    started = time.perf_counter()
    clauses = clause_changes(old, new)
    rules = rule_changes(old, new, clauses)
    comparer = Comparer(old, new, timeout_seconds)
    scope = comparer.compare_scope()
    results = [comparer.compare(name) for name in comparer.common_results()]
    return Diff(
        old_path=old.path,
        new_path=new.path,
        old_name=old.name,
        new_name=new.name,
        clauses=clauses,
        rules=rules,
        results=results,
        results_added=[n for n in new.result_names if n not in old.result_names],
        results_removed=[n for n in old.result_names if n not in new.result_names],
        notes=list(comparer.link.notes),
        seconds=time.perf_counter() - started,
        scope=scope,
    )


# ---------------------------------------------------------------------------------------------
# Rendering


def render_word_diff(ops: Iterable[WordOp], context: int = 6) -> str:
    """Returns a word diff as text, `[-old-] {+new+}`, with long unchanged runs shortened to
    `context` words on each side of a change."""
    ops = list(ops)
    pieces: list[str] = []
    for index, op in enumerate(ops):
        if op.op == "equal":
            words = list(op.old)
            first, last = index == 0, index == len(ops) - 1
            if first and len(words) > context:
                words = ["...", *words[-context:]]
            elif last and len(words) > context:
                words = [*words[:context], "..."]
            elif not first and not last and len(words) > 2 * context:
                words = [*words[:context], "...", *words[-context:]]
            pieces.append(" ".join(words))
        else:
            if op.old:
                pieces.append(f"[-{' '.join(op.old)}-]")
            if op.new:
                pieces.append(f"{{+{' '.join(op.new)}+}}")
    return " ".join(pieces)


def render_text(diff: Diff) -> str:
    """Returns the diff for people: clauses, rules, then each result with its witness."""
    lines = [f"lextrace diff {diff.old_path} -> {diff.new_path}"]
    if diff.old_name != diff.new_name:
        lines.append(f"statute: {diff.old_name} -> {diff.new_name}")
    else:
        lines.append(f"statute: {diff.new_name}")
    lines.append("")
    counts = {s: sum(c.status == s for c in diff.clauses) for s in (REWORDED, ADDED, REMOVED)}
    lines.append(
        f"Clauses: {counts[REWORDED]} reworded, {counts[ADDED]} added, {counts[REMOVED]} removed"
    )
    for change in diff.clauses:
        if change.status == REWORDED:
            assert change.old_fingerprint and change.new_fingerprint
            lines.append(
                f"  reworded {change.citation}  "
                f"{change.old_fingerprint[:12]} -> {change.new_fingerprint[:12]}"
            )
            lines.append(f"    {render_word_diff(change.word_diff)}")
        elif change.status == ADDED:
            lines.append(f"  added    {change.citation}: {_clip(change.new_words or '')}")
        else:
            lines.append(f"  removed  {change.citation}: {_clip(change.old_words or '')}")
    lines.append("")
    lines.append(f"Rules: {len(diff.rules)} change{'s' if len(diff.rules) != 1 else ''}")
    for rule in diff.rules:
        citation = rule.new_citation or rule.old_citation
        at = f" [{citation}]" if citation else ""
        flag = (
            f"  (words changed: review {', '.join(rule.words_changed)})"
            if rule.words_changed
            else ""
        )
        lines.append(f"  {rule.status:<8} {rule.kind} {rule.name}{at}{flag}")
        if rule.note:
            lines.append(f"    {rule.note}")
        if rule.status == CHANGED and [p.part for p in rule.parts] == ["header"]:
            lines.append(f"      - {rule.parts[0].old}")
            lines.append(f"      + {rule.parts[0].new}")
        elif rule.status == CHANGED and rule.parts:
            for part in rule.parts:
                lines.append(f"    {part.part} {part.status}:")
                if part.old is not None:
                    lines.append(f"      - {part.old}")
                if part.new is not None:
                    lines.append(f"      + {part.new}")
        elif rule.status == CHANGED and rule.kind in ("header", "input", "reading"):
            lines.append(f"      - {rule.old_text}")
            lines.append(f"      + {rule.new_text}")
    if diff.scope:
        lines.append("")
        lines.append(
            "Scenarios accepted (Z3, over the inputs both encodings declare; then each field only "
            "one declares):"
        )
        for scope in diff.scope:
            lines.append(f"  {scope.direction:<12}  {scope.status:<9}  {scope.seconds:.2f} s")
            if scope.witness is not None:
                shown = ", ".join(f"{k}={_literal(v)}" for k, v in scope.witness.items())
                lines.append(f"    witness: {{{shown}}}")
            if scope.status == DIFFERENT:
                side = "old" if scope.direction == ACCEPTED_NOW else "new"
                lines.append(f"    the {side} encoding refuses it: {scope.refusal}")
            if scope.detail and scope.status != EQUAL:
                lines.append(f"    {scope.detail}")
    lines.append("")
    lines.append("Results (Z3, over every scenario valid under both encodings):")
    width = max((len(r.name) for r in diff.results), default=0)
    shown_before: dict[str, str] = {}
    for result in diff.results:
        lines.append(f"  {result.name:<{width}}  {result.status:<9}  {result.seconds:.2f} s")
        if result.status == DIFFERENT and result.witness is not None:
            lines.append(f"    old {result.old_value} -> new {result.new_value}")
            shown = ", ".join(f"{k}={_literal(v)}" for k, v in result.witness.items())
            if shown in shown_before:
                lines.append(f"    witness: the one shown for {shown_before[shown]}")
            else:
                shown_before[shown] = result.name
                lines.append(f"    witness: {{{shown}}}")
            if result.readings:
                lines.append(
                    "    readings: " + ", ".join(f"{k}={v}" for k, v in result.readings.items())
                )
        if result.detail and result.status != EQUAL:
            lines.append(f"    {result.detail}")
    for name in diff.results_added:
        lines.append(f"  {name:<{width}}  added (only the new encoding declares it)")
    for name in diff.results_removed:
        lines.append(f"  {name:<{width}}  removed (only the old encoding declares it)")
    for note in diff.notes:
        lines.append(f"  note: {note}")
    statuses = [r.status for r in diff.results]
    summary = ", ".join(f"{statuses.count(s)} {s}" for s in STATUSES)
    if diff.scope:
        summary += "; scenarios " + ", ".join(f"{s.direction} {s.status}" for s in diff.scope)
    lines.append("")
    lines.append(f"{summary} ({diff.seconds:.2f} s)")
    return "\n".join(lines)


def _clip(text: str, limit: int = 90) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _literal(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return str(value)


def to_json(diff: Diff) -> dict[str, object]:
    """Returns the diff as a JSON-ready object: `old`, `new`, `clauses` (each with its word
    diff as a list of `{op, old, new}`), `rules`, `scope` (which scenarios each encoding
    accepts), `results`, `results_added`, `results_removed`, `notes`, `summary` and
    `seconds`."""
    statuses = [r.status for r in diff.results]
    return {
        "old": {"path": diff.old_path, "statute": diff.old_name},
        "new": {"path": diff.new_path, "statute": diff.new_name},
        "clauses": [
            {
                **{k: v for k, v in asdict(change).items() if k != "word_diff"},
                "word_diff": [
                    {"op": op.op, "old": list(op.old), "new": list(op.new)}
                    for op in change.word_diff
                ],
            }
            for change in diff.clauses
        ],
        "rules": [asdict(rule) for rule in diff.rules],
        "scope": [asdict(scope) for scope in diff.scope],
        "results": [asdict(result) for result in diff.results],
        "results_added": list(diff.results_added),
        "results_removed": list(diff.results_removed),
        "notes": list(diff.notes),
        "summary": {
            "clauses": len(diff.clauses),
            "rules": len(diff.rules),
            **{s: statuses.count(s) for s in STATUSES},
            "scope": {scope.direction: scope.status for scope in diff.scope},
        },
        "seconds": diff.seconds,
    }
