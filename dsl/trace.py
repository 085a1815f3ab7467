"""The derivation of a result: every value with its rule, citation, words and inputs.

One trace, three renderings: JSON for programs (`steps`), an indented tree of text for people
(`explain`), and Markdown for the published docs. Bonuses that did not apply appear with the
condition that failed, so a reader sees why not as well as why.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

from . import ast
from .evaluator import INPUT, Evaluation, Key, Step, step_label
from .values import Value, cents_string, decimal_string, dollars, exact_string, percent


def display(type_: ast.Type, value: Value) -> str:
    """Returns a value for people: dollars for money, a percentage for shares, yes/no..."""
    if value is None:
        return "not given"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        return value
    if type_.kind == "money":
        return dollars(value)
    if type_.kind == "share":
        return percent(value)
    if type_.kind == "count":
        return f"{int(value):,}"
    return decimal_string(value)


def json_value(type_: ast.Type, value: Value) -> object:
    """Returns a value for JSON: money as a cent-rounded decimal string, numbers exact."""
    if value is None or isinstance(value, bool | str):
        return value
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
        the case that fired (`otherwise` when the declared fallback applied)."""
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
        if isinstance(step.definition, ast.Cases) and step.case is None:
            return "no case applied: " + "; ".join(
                f"{self.statute.citation(c.clause)} needs {self.source_of(c.condition)}"
                for c in step.skipped_cases
                if c.condition is not None
            )
        return None

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
            if not isinstance(step.value, bool | str) and step.value is not None:
                entry["exact"] = exact_string(step.value)
            if step.condition is not None:
                entry["condition"] = self.source_of(step.condition)
                entry["applied"] = step.applied is not False
            why_not = self.why_not(step)
            if why_not:
                entry["why_not"] = why_not
            entry["uses"] = {
                self.label_of(key): json_value(self.type_of(key), self.value_of(key))
                for key in self.uses(step)
            }
            if step.readings:
                entry["readings"] = sorted(step.readings, key=_reading_order)
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
                where = f"  [{self.statute.citation(parent.clause)}]" if parent else ""
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
            lines.append(f"{inner}│ {detail}")
            if step.readings:
                readings = ", ".join(
                    f"{r} {self.evaluation.readings.get(r, self.statute.readings[r].default.name)}"
                    for r in sorted(step.readings, key=_reading_order)
                )
                lines.append(f"{inner}│ reading: {readings}")
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
            rows.append(
                f"| `{step.label}` | {display(step.definition.type, step.value)} | {cited} | "
                f"{_md_escape(rule)} |"
            )
        return "\n".join(rows)


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|")


def _reading_order(reading_id: str) -> tuple[int, str]:
    digits = reading_id.lstrip("I")
    return (int(digits), reading_id) if digits.isdigit() else (10**6, reading_id)
