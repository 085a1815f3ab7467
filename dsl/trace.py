"""The derivation of a result: every value with its rule, citation, words and inputs.

One trace, three renderings: JSON for programs (`steps`), an indented tree of text for people
(`explain`), and Markdown for the published docs. Bonuses that did not apply appear with the
condition that failed, so a reader sees why not as well as why.
"""

from __future__ import annotations

import datetime
import textwrap
from dataclasses import dataclass
from fractions import Fraction

from . import ast, dates
from .checker import computed_type, walk
from .evaluator import INPUT, AggregateUse, Evaluation, Key, Step, step_label
from .values import Value, cents_string, decimal_string, dollars, exact_string, percent

# How many elements' amounts a line of the trace shows (the JSON trace has them all).
AMOUNTS_SHOWN = 12


def display(type_: ast.Type, value: Value) -> str:
    """Returns a value for people: dollars for money, a percentage for shares, yes/no..."""
    if value is None:
        return "not given"
    if isinstance(value, tuple):
        return f"{len(value):,} {type_.record} element{'' if len(value) == 1 else 's'}"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        return value
    if isinstance(value, datetime.date):
        return dates.iso(value)
    if isinstance(value, dates.Duration):
        return dates.show_duration(value)
    if type_.kind == "money":
        return dollars(value)
    if type_.kind == "share":
        return percent(value)
    if type_.kind == "count":
        return f"{int(value):,}"
    return decimal_string(value)


def json_value(type_: ast.Type, value: Value) -> object:
    """Returns a value for JSON: money as a cent-rounded decimal string, numbers exact; a list
    by its number of elements (`{"elements": 3}`: the scenario holds them)."""
    if isinstance(value, tuple):
        return {"elements": len(value)}
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, datetime.date):
        return dates.iso(value)
    if isinstance(value, dates.Duration):
        return dates.json_duration(value)
    if type_.kind == "money":
        return cents_string(value)
    if type_.kind == "count":
        return int(value)
    return exact_string(value)


@dataclass
class Trace:
    """The steps of one evaluation, with the statute they were computed from."""

    statute: ast.Statute
    evaluation: Evaluation
    # The inputs the scenario left to their dated tables: shown with the table they come from.
    derived: tuple[str, ...] = ()

    def input_origin(self, name: str) -> str:
        """Returns where an input's value comes from: `input`, or its table, the day the
        value is in force from and the table's source."""
        declared = self.statute.inputs[name]
        source = declared.from_table
        if name not in self.derived or source is None:
            return "input"
        table = self.statute.tables[source.table]
        year = self.evaluation.inputs.get(source.year)
        entry = table.entry_for_year(int(year)) if isinstance(year, int) else None
        since = f", in force from {entry.start}" if entry is not None else ""
        return f"from table {table.name} for {source.year} {year}{since}: {table.source}"

    @property
    def steps(self) -> list[Step]:
        """Every evaluated definition, each after the values it used."""
        return list(self.evaluation.steps.values())

    def source_of(self, node: ast.Expr | ast.Case | ast.Definition | None) -> str:
        """Returns the encoding's text of a node, whitespace-folded."""
        if node is None:
            return ""
        span = node.span
        return " ".join(self.statute.source[span.start : span.end].split())

    def rule_text(self, step: Step) -> str:
        """Returns the rule behind a step as written: `= EXPR [when COND]` of the rule, or of
        the case that fired (`otherwise` when the declared fallback applied), or of the
        exception that applied."""
        if step.exception is not None:
            return self._value_and_condition(step.exception.expr, step.exception.condition)
        if step.case is not None and step.case.condition is None:
            return f"= {self.source_of(step.case.expr)} (otherwise)"  # no other case held
        if step.case is not None:
            return self._value_and_condition(step.case.expr, step.case.condition)
        definition = step.definition
        if isinstance(definition, ast.Cases):
            fallback = definition.otherwise
            return f"= {self.source_of(fallback)} (otherwise)" if fallback else "(no case)"
        assert isinstance(definition, ast.Rule) and definition.expr is not None
        return self._value_and_condition(definition.expr, definition.condition)

    def _value_and_condition(self, expr: ast.Expr, condition: ast.Expr | None) -> str:
        text = f"= {self.source_of(expr)}"
        return f"{text} when {self.source_of(condition)}" if condition is not None else text

    def type_of(self, key: Key) -> ast.Type:
        """Returns the declared type of an input or definition."""
        name, args = key
        if name == INPUT:
            return self.statute.inputs[str(args[0])].type
        return self.statute.definitions[name].type

    def value_of(self, key: Key) -> Value:
        """Returns the value an input or definition had in this evaluation."""
        name, args = key
        if name == INPUT:
            return self.evaluation.inputs[str(args[0])]
        return self.evaluation.memo[key]

    def label_of(self, key: Key) -> str:
        """Returns `name`, `name(param=value)`, or `input name`."""
        name, args = key
        if name == INPUT:
            return str(args[0])
        return step_label(key, self.statute.definitions.get(name))

    def uses(self, step: Step) -> list[Key]:
        """Returns the distinct inputs and definitions a step used, in first-use order."""
        seen: dict[Key, None] = {}
        for key in step.uses:
            seen.setdefault(key, None)
        return list(seen)

    def why_not(self, step: Step) -> str | None:
        """Returns, for a value whose condition failed, the condition that failed."""
        if step.applied is False and step.condition is not None:
            return f"not applied: {self.source_of(step.condition)} is false"
        if isinstance(step.definition, ast.Cases) and step.case is None and not step.exception:
            return "no case applied: " + "; ".join(
                f"{self.statute.citation(c.clause)} needs {self.source_of(c.condition)}"
                for c in step.skipped_cases
                if c.condition is not None
            )
        return None

    def exception_text(self, step: Step) -> str | None:
        """Returns, for a definition with exceptions, which one applied (`exception NAME,
        priority N, applies instead of CITATION`) or that none did, with what each needs;
        None for a definition without exceptions."""
        definition = step.definition
        if step.exception is not None:
            exception = step.exception
            return (
                f"exception {exception.name}, priority {exception.priority}, applies instead "
                f"of {self.statute.citation(definition.clause)}"
            )
        if not definition.exceptions:
            return None
        return "no exception applies: " + "; ".join(
            f"{e.name} ({self.statute.citation(e.clause)}) needs {self.source_of(e.condition)}"
            for e in definition.exceptions_by_priority()
        )

    # ---- aggregates -----------------------------------------------------------------------
    def element_name(self, use: AggregateUse, index: int) -> str:
        """Returns how an element is named: `jobs[3]`, with its label field's value when its
        record has one (`jobs[3] J-4`)."""
        record = self.statute.record_of(use.expr.source)
        named = f"{use.expr.source}[{index}]"
        items = self.evaluation.inputs.get(use.expr.source)
        if record is None or record.label_field is None or not isinstance(items, tuple):
            return named
        return f"{named} {items[index][record.label_field]}"

    def aggregate_text(self, use: AggregateUse) -> str:
        """Returns one line on an aggregate: its value, what it covered, what it rests on."""
        shown = display(self.aggregate_type(use), use.value)
        return f"{self.source_of(use.expr)} = {shown} ({self.aggregate_detail(use)})"

    def aggregate_detail(self, use: AggregateUse) -> str:
        """Returns what an aggregate covered and the elements it rests on, e.g. `over 4 of 5
        elements; the two middle: jobs[1] J-2 and jobs[0] J-1`."""
        expr = use.expr
        covered = (
            f"over {use.covered:,} of {use.total:,} elements"
            if expr.condition is not None
            else f"over {use.total:,} element{'' if use.total == 1 else 's'}"
        )
        each = self.amounts_text(use)
        if not use.elements:
            return covered + each
        names = [self.element_name(use, i) for i in use.elements]
        role = {
            "min": "the lowest",
            "max": "the highest",
            "median": "the middle" if len(names) == 1 else "the two middle",
            "median_low": "the lower middle",
            "median_high": "the upper middle",
            "any": "met by",
            "all": "not met by",
        }[expr.op]
        return f"{covered}; {role}: {' and '.join(names)}{each}"

    def amounts_text(self, use: AggregateUse) -> str:
        """Returns `; each: jobs[0] J-1 $1,200.00, ...` for an aggregate of an amount
        computed for each element (the first AMOUNTS_SHOWN of them), else nothing."""
        if not use.amounts:
            return ""
        type_ = self.aggregate_type(use)
        shown = [
            f"{self.element_name(use, i)} {display(type_, v)}"
            for i, v in use.amounts[:AMOUNTS_SHOWN]
        ]
        more = len(use.amounts) - AMOUNTS_SHOWN
        return "; each: " + ", ".join(shown) + (f" and {more:,} more" if more > 0 else "")

    def aggregate_type(self, use: AggregateUse) -> ast.Type:
        """Returns the type an aggregate's value is shown in (see `aggregate_type`)."""
        return aggregate_type(self.statute, use.expr)

    def aggregate_json(self, use: AggregateUse) -> dict[str, object]:
        """Returns an aggregate as JSON: its text, value, counts and the elements it rests on
        (index and, when the record has one, label)."""
        record = self.statute.record_of(use.expr.source)
        items = self.evaluation.inputs.get(use.expr.source)
        elements: list[dict[str, object]] = []
        for index in use.elements:
            element: dict[str, object] = {"index": index}
            if record is not None and record.label_field and isinstance(items, tuple):
                element[record.label_field] = items[index][record.label_field]
            elements.append(element)
        type_ = self.aggregate_type(use)
        found: dict[str, object] = {
            "aggregate": self.source_of(use.expr),
            "value": json_value(type_, use.value),
            "list": use.expr.source,
            "elements": use.total,
            "covered": use.covered,
            "rests_on": elements,
        }
        if use.amounts:
            found["amounts"] = [{"index": i, "value": json_value(type_, v)} for i, v in use.amounts]
        return found

    # ---- JSON -----------------------------------------------------------------------------
    def to_json(self) -> list[dict[str, object]]:
        """Returns the steps as JSON objects, each after the steps it used."""
        steps = []
        for step in self.steps:
            type_ = step.definition.type
            entry: dict[str, object] = {
                "id": step.label,
                "value": json_value(type_, step.value),
                "display": display(type_, step.value),
                "citation": self.statute.citation(step.clause),
                "clause": step.clause.short_citation,
                "words": step.words.words if step.words else None,
                "rule": self.rule_text(step),
            }
            if isinstance(step.value, Fraction | int) and not isinstance(step.value, bool):
                entry["exact"] = exact_string(step.value)
            if step.condition is not None:
                entry["condition"] = self.source_of(step.condition)
                entry["applied"] = step.applied is not False
            why_not = self.why_not(step)
            if why_not:
                entry["why_not"] = why_not
            if step.definition.exceptions:
                entry["exception"] = step.exception.name if step.exception else None
                entry["exceptions"] = self.exception_text(step)
            entry["uses"] = {
                self.label_of(key): json_value(self.type_of(key), self.value_of(key))
                for key in self.uses(step)
            }
            if step.readings:
                entry["readings"] = sorted(step.readings, key=_reading_order)
            if step.aggregates:
                entry["aggregates"] = [self.aggregate_json(use) for use in step.aggregates]
            steps.append(entry)
        return steps

    # ---- text -----------------------------------------------------------------------------
    def explain(self, roots: tuple[str, ...], width: int = 100) -> str:
        """Returns the derivation as an indented tree; every value carries its citation and,
        the first time its clause appears, the clause's words."""
        lines: list[str] = []
        shown: set[Key] = set()
        quoted: set[int] = set()

        def emit(key: Key, prefix: str, parent: Step | None) -> None:
            name, args = key
            if name == INPUT:
                input_name = str(args[0])
                declared = self.statute.inputs[input_name]
                clause = _reading_clause(parent, input_name) if parent else None
                where = f"  [{self.statute.citation(clause)}]" if clause else ""
                lines.append(
                    f"{prefix}{input_name} = {display(declared.type, self.value_of(key))}"
                    f"  ({self.input_origin(input_name)}){where}"
                )
                return
            step = self.evaluation.steps[key]
            citation = self.statute.citation(step.clause)
            shown_value = display(step.definition.type, step.value)
            head = f"{prefix}{step.label} = {shown_value}  [{citation}]"
            if key in shown:
                lines.append(head + "  (derived above)")
                return
            shown.add(key)
            lines.append(head)
            inner = prefix.replace("└─ ", "   ").replace("├─ ", "│  ")
            why_not = self.why_not(step)
            detail = why_not if why_not else self.rule_text(step)
            # A formula wraps at its spaces, continued under its first word.
            wrapped = textwrap.wrap(
                detail,
                width=max(40, width - len(inner) - 2),
                subsequent_indent="  ",
                break_long_words=False,
                break_on_hyphens=False,
            )
            lines.extend(f"{inner}│ {line}" for line in wrapped or [detail])
            exception = self.exception_text(step)
            if exception is not None:
                wrapped = textwrap.wrap(exception, width=max(40, width - len(inner) - 2))
                lines.extend(f"{inner}│ {line}" for line in wrapped)
            if step.readings:
                readings = ", ".join(
                    f"{r} {self.evaluation.readings.get(r, self.statute.readings[r].default.name)}"
                    for r in sorted(step.readings, key=_reading_order)
                )
                lines.append(f"{inner}│ reading: {readings}")
            for use in step.aggregates:
                wrapped = textwrap.wrap(
                    self.aggregate_text(use),
                    width=max(40, width - len(inner) - 2),
                    subsequent_indent="  ",
                )
                lines.extend(f"{inner}│ {line}" for line in wrapped)
            if step.words is not None and id(step.words) not in quoted:
                quoted.add(id(step.words))
                words = step.words.words
                wrapped = textwrap.wrap(f"“{words}”", width=max(40, width - len(inner) - 2))
                lines.extend(f"{inner}│ {line}" for line in wrapped)
            children = self.uses(step)
            for index, child in enumerate(children):
                last = index == len(children) - 1
                emit(child, inner + ("└─ " if last else "├─ "), step)

        for root in roots:
            emit((root, ()), "", None)
        return "\n".join(lines)

    # ---- Markdown -------------------------------------------------------------------------
    def markdown(self, link: str = "") -> str:
        """Returns the steps as a Markdown table; citations link to `link#anchor` when given."""
        rows = ["| value | amount | clause | rule |", "|---|---|---|---|"]
        for step in self.steps:
            citation = step.clause.short_citation or "section"
            cited = f"[{citation}]({link}#{step.clause.anchor})" if link else citation
            why_not = self.why_not(step)
            rule = why_not if why_not else self.rule_text(step)
            exception = self.exception_text(step)
            if exception is not None:
                rule += f"; {exception}"
            if step.aggregates:
                rule += "; " + "; ".join(self.aggregate_text(use) for use in step.aggregates)
            rows.append(
                f"| `{step.label}` | {display(step.definition.type, step.value)} | {cited} | "
                f"{_md_escape(rule)} |"
            )
        return "\n".join(rows)


def aggregate_type(statute: ast.Statute, expr: ast.Aggregate) -> ast.Type:
    """Returns the type of an aggregate's value: a count, a bool for `any` and `all`, else its
    field's (a number for the median of counts, the sum of shares)."""
    if expr.op == "count":
        return ast.COUNT
    if expr.op in ("any", "all"):
        return ast.BOOL
    if expr.value is not None:
        return computed_type(statute, expr)
    record = statute.record_of(expr.source)
    assert record is not None and expr.field is not None
    field_type = record.fields[expr.field].type
    if (expr.op == "median" and field_type == ast.COUNT) or (
        expr.op == "sum" and field_type == ast.SHARE
    ):
        return ast.NUMBER
    return field_type


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|")


def _reading_order(reading_id: str) -> tuple[int, str]:
    digits = reading_id.lstrip("I")
    return (int(digits), reading_id) if digits.isdigit() else (10**6, reading_id)


def _reading_clause(step: Step, input_name: str) -> ast.Clause:
    """Returns the clause that read an input for a step: the step's own, unless only the
    condition of a case that did not apply read it (a case of (A) failing before the
    `otherwise` of (B) applies reads its input in (A))."""
    if not isinstance(step.definition, ast.Cases):
        return step.clause
    chosen = [step.case.expr, step.case.condition] if step.case is not None else []
    if any(_names(expr, input_name) for expr in chosen):
        return step.clause
    for case in step.skipped_cases:
        if _names(case.condition, input_name):
            return case.clause
    return step.clause


def _names(expr: ast.Expr | None, name: str) -> bool:
    """True when the expression reads the input or definition `name` by name."""
    return any(isinstance(node, ast.Ref) and node.name == name for node in walk(expr))
