"""Traced explanations in prose: one sentence per step, with the numbers put into the rule.

The sentences are made from the structure of each rule, not written per statute: a rule reads as
its formula with every name replaced by its value ("min(base_amount + ..., gross_cap + ...) =
min($3,000.00 + $2,500.00, $5,000.00 + $0.00) = $5,000.00"), a `min` or `max` says which side
governed and from which clause, a case says which condition chose it, and a value whose condition
failed says which condition and with what values. Sub-expressions are computed by the compiled
evaluator itself, so the numbers in a sentence are the evaluator's numbers.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from . import ast
from .checker import walk
from .errors import ScenarioError
from .evaluator import INPUT, Evaluation, EvaluationError, Key, Step
from .trace import Trace, aggregate_type, display
from .values import Value, percent

LinkFor = Callable[[ast.Clause], str]

_OPERATORS = {"and": "and", "or": "or"}


def humanise(name: str) -> str:
    """Returns a rule or input name in words: `gross_amount` reads `gross amount`."""
    return name.replace("_", " ")


def step_title(step: Step) -> str:
    """Returns a step's name in words with its arguments: `gross amount (covered: no)`."""
    title = humanise(step.definition.name)
    args = step.key[1]
    if not args:
        return title
    shown = ", ".join(
        f"{param.name}: {display(param.type, value)}"
        for param, value in zip(step.definition.params, args, strict=True)
    )
    return f"{title} ({shown})"


@dataclass(frozen=True)
class Sentence:
    """One explained step: whose value, the value shown, the clause, and the explanation."""

    key: Key
    title: str
    value: str
    clause: ast.Clause
    text: str
    applied: bool


class Narrator:
    """Explains the steps of one traced evaluation in sentences."""

    def __init__(self, trace: Trace, link_for: LinkFor | None = None) -> None:
        self.trace = trace
        self.statute = trace.statute
        self.link_for = link_for
        evaluation = trace.evaluation
        self._scratch = Evaluation(
            evaluation.program, evaluation.inputs, evaluation.readings, tracing=False
        )
        self._scratch.memo = dict(evaluation.memo)

    # ---- values of sub-expressions ---------------------------------------------------------
    def _bound(self, step: Step) -> dict[str, Value]:
        return {
            param.name: value
            for param, value in zip(step.definition.params, step.key[1], strict=True)
        }

    def value(self, expr: ast.Expr, step: Step) -> Value:
        """Returns the value of a sub-expression of `step`'s rule, computed by the evaluator."""
        compiled = self._scratch.program.expr(expr)
        return compiled(self._scratch, self._bound(step))

    def type_of(self, expr: ast.Expr, step: Step) -> ast.Type | None:
        """Returns the declared type behind a name or call, None for other expressions."""
        if isinstance(expr, ast.Ref):
            if expr.name in self.statute.inputs:
                return self.statute.inputs[expr.name].type
            if expr.name in self.statute.definitions:
                return self.statute.definitions[expr.name].type
            for param in step.definition.params:
                if param.name == expr.name:
                    return param.type
        if isinstance(expr, ast.Call) and expr.name in self.statute.definitions:
            return self.statute.definitions[expr.name].type
        return None

    def not_given(self, expr: ast.Expr) -> bool:
        """True for an optional input the scenario does not give (it has no value to show)."""
        return (
            isinstance(expr, ast.Ref)
            and expr.name in self.statute.inputs
            and self.statute.inputs[expr.name].optional
            and self._scratch.inputs.get(expr.name) is None
        )

    def shown(self, expr: ast.Expr, step: Step, like: ast.Type | None = None) -> str:
        """Returns a value of a sub-expression for people, typed by the name it comes from or by
        `like` (the type of the rule it sits in); "not given" for an optional input left out."""
        if self.not_given(expr):
            return "not given"
        value = self.value(expr, step)
        type_ = self.type_of(expr, step) or like or step.definition.type
        return display(type_, value)

    # ---- formulas --------------------------------------------------------------------------
    def substituted(self, expr: ast.Expr, step: Step) -> str:
        """Returns the expression with every name and call replaced by its value."""
        if isinstance(expr, ast.Literal):
            return expr.text
        if isinstance(expr, ast.Ref | ast.Given | ast.ReadingTest | ast.BonusSum):
            if isinstance(expr, ast.Ref) and self.type_of(expr, step) is None:
                return expr.name  # an enum member
            return self.shown(expr, step)
        if isinstance(expr, ast.Aggregate):
            return self.aggregate(expr, step)
        if isinstance(expr, ast.Call):
            if expr.name in self.statute.definitions:
                return self.shown(expr, step)
            inner = ", ".join(self.substituted(arg, step) for arg in expr.args)
            return f"{expr.name}({inner})"
        if isinstance(expr, ast.BinOp | ast.Compare):
            return self._binary(expr.op, expr.left, expr.right, step)
        if isinstance(expr, ast.BoolOp):
            return self._binary(_OPERATORS[expr.op], expr.left, expr.right, step)
        if isinstance(expr, ast.Not):
            return f"not {self.substituted(expr.operand, step)}"
        if isinstance(expr, ast.Neg):
            return f"-{self.substituted(expr.operand, step)}"
        if isinstance(expr, ast.If):
            # Only the branch taken is computed: the other may use a value that is not given.
            taken = self.value(expr.condition, step)
            then = self.substituted(expr.then, step) if taken else self.trace.source_of(expr.then)
            otherwise = (
                self.trace.source_of(expr.otherwise)
                if taken
                else self.substituted(expr.otherwise, step)
            )
            condition = self.substituted(expr.condition, step)
            return f"if {condition} then {then} else {otherwise}"
        return self.trace.source_of(expr)

    def aggregate(self, expr: ast.Aggregate, step: Step) -> str:
        """Returns an aggregate's value with what it rests on: `$46,500.25 (the median of
        annual_salary in jobs where ...: over 4 of 5 elements; the two middle: ...)`."""
        for use in step.aggregates:
            if use.expr is expr:
                shown = display(aggregate_type(self.statute, expr), use.value)
                return f"{shown} ({self.trace.source_of(expr)}: {self.trace.aggregate_detail(use)})"
        return self.shown(expr, step, aggregate_type(self.statute, expr))

    def _binary(self, op: str, left: ast.Expr, right: ast.Expr, step: Step) -> str:
        return f"{self._operand(left, step)} {op} {self._operand(right, step)}"

    def _operand(self, expr: ast.Expr, step: Step) -> str:
        text = self.substituted(expr, step)
        if isinstance(expr, ast.BinOp):
            value = self.value(expr, step)
            if isinstance(value, datetime.date):
                # The date a duration leads to is where the calendar's rounding shows (29
                # February plus a year): it is shown, not left to the reader.
                return f"({text} = {display(ast.DATE, value)})"
        compound = ast.BinOp | ast.Compare | ast.BoolOp | ast.If
        return f"({text})" if isinstance(expr, compound) else text

    # ---- what decided a value --------------------------------------------------------------
    def cite(self, clause: ast.Clause) -> str:
        """Returns a clause's citation, as a Markdown link when pages are linked."""
        citation = clause.short_citation or "the section"
        if self.link_for is None:
            return citation
        return f"[{citation}]({self.link_for(clause)})"

    def origin(self, expr: ast.Expr) -> ast.Clause | None:
        """Returns the clause a sub-expression's value comes from: the case that chose the first
        piecewise value it names, else the clause of the first rule it names."""
        for node in _names(expr):
            for key, step in self.trace.evaluation.steps.items():
                if key[0] == node:
                    return step.case.clause if step.case is not None else step.clause
        return None

    def governed(self, expr: ast.Call, step: Step) -> str:
        """Returns which argument of a `min` (an amount, then its limits) or a `max` gave the
        value, and from which clause."""
        values = [self.value(arg, step) for arg in expr.args]
        if len(set(values)) == 1 or step.value not in values:
            return ""
        chosen = values.index(step.value)
        if chosen == 0:
            return "; within the limit" if expr.name == "min" else ""
        argument = expr.args[chosen]
        clause = self.origin(argument)
        where = f" of {self.cite(clause)}" if clause is not None else ""
        word = "the limit" if expr.name == "min" else "the higher,"
        return f"; {word} `{self.trace.source_of(argument)}`{where} governs"

    def condition_text(self, condition: ast.Expr, step: Step) -> str:
        """Returns a condition as written with its values: `a > 50 (a is 62)`."""
        written = self.trace.source_of(condition)
        shown: dict[str, str] = {}
        for node in walk(condition):
            if isinstance(node, ast.Call) and node.name in self.statute.definitions:
                # A rule with parameters has a value only for its arguments: the call is shown.
                shown.setdefault(self.trace.source_of(node), self._condition_value(node, step))
            elif isinstance(node, ast.Ref | ast.Given) and (
                node.name in self.statute.inputs or node.name in self.statute.definitions
            ):
                ref = ast.Ref(condition.span, node.name)
                shown.setdefault(node.name, self._condition_value(ref, step))
        if not shown:
            return written
        values = ", ".join(f"{label} is {value}" for label, value in shown.items())
        return f"{written} ({values})"

    def _condition_value(self, expr: ast.Expr, step: Step) -> str:
        """Returns an operand of a condition for people; "not evaluated" for one the condition
        never reached (a short-circuited `and` or `or`) and that cannot be computed."""
        try:
            return self.shown(expr, step)
        except (EvaluationError, ScenarioError):
            return "not evaluated"

    # ---- sentences -------------------------------------------------------------------------
    def explain(self, step: Step) -> Sentence:
        """Returns the sentence for one step."""
        definition = step.definition
        shown_value = display(definition.type, step.value)
        if _ratio(definition.type, step.value):
            shown_value += f" ({percent(step.value)})"  # type: ignore[arg-type]
        title = step_title(step)
        applied = True
        if step.exception is not None:
            exception = step.exception
            text = self._formula(exception.expr, step)
            text += (
                f", because {self.condition_text(exception.condition, step)}: the exception "
                f"{exception.name} (priority {exception.priority}) applies instead of "
                f"{self.cite(definition.clause)}"
            )
        elif step.applied is False and step.condition is not None:
            applied = False
            text = f"not applied, because {self.condition_text(step.condition, step)} is false"
        elif isinstance(definition, ast.Cases) and step.case is not None:
            case = step.case
            text = self._formula(case.expr, step)
            if case.condition is not None:
                text += f", because {self.condition_text(case.condition, step)}"
            else:
                text += ", as no earlier case applies"
        elif isinstance(definition, ast.Cases):
            text = (
                f"no case applies, so {self._formula(definition.otherwise, step)}"
                if (definition.otherwise is not None)
                else "no case applies"
            )
        else:
            assert isinstance(definition, ast.Rule) and definition.expr is not None
            text = self._formula(definition.expr, step)
            if definition.condition is not None:
                text += f", because {self.condition_text(definition.condition, step)}"
        if definition.exceptions and step.exception is None:
            text += (
                "; no exception applies ("
                + "; ".join(
                    f"{e.name} of {self.cite(e.clause)} needs {self.trace.source_of(e.condition)}"
                    for e in definition.exceptions_by_priority()
                )
                + ")"
            )
        if step.readings:
            chosen = ", ".join(
                f"{r} {self.trace.evaluation.readings[r]}" for r in sorted(step.readings)
            )
            text += f" (reading {chosen})"
        clause = step.case.clause if step.case is not None else step.clause
        return Sentence(step.key, title, shown_value, clause, text, applied)

    def _formula(self, expr: ast.Expr, step: Step) -> str:
        written = self.trace.source_of(expr)
        result = display(step.definition.type, step.value)
        if isinstance(expr, ast.Literal):
            # Zero is what a rule gives where the words award nothing: no words state it; and
            # only a number or an amount is "an amount".
            if expr.value == 0 or expr.unit not in ("money", "number", "percent"):
                return result
            return f"the amount stated, {result}"
        if isinstance(expr, ast.Ref) and self.type_of(expr, step) is None:
            return f"{written}"
        substituted = self.substituted(expr, step)
        parts = [f"`{written}`"]
        if substituted not in (written, result):
            parts.append(substituted)
        parts.append(result)
        text = " = ".join(parts)
        if isinstance(expr, ast.Call) and expr.name in ("min", "max"):
            text += self.governed(expr, step)
        return text

    def sentences(self, keys: list[Key] | None = None) -> list[Sentence]:
        """Returns the sentences of the given steps (every step when None), inputs first."""
        steps = self.trace.evaluation.steps
        chosen = keys if keys is not None else list(steps)
        return [self.explain(steps[key]) for key in chosen if key in steps]

    def derivation(self, root: str) -> list[Key]:
        """Returns the steps a result depends on, each after the steps it used."""
        steps = self.trace.evaluation.steps
        order: list[Key] = []
        seen: set[Key] = set()

        def visit(key: Key) -> None:
            if key in seen or key[0] == INPUT or key not in steps:
                return
            seen.add(key)
            for used in steps[key].uses:
                visit(used)
            order.append(key)

        visit((root, ()))
        return order

    def markdown(self, root: str, explained: set[Key] | None = None) -> str:
        """Returns a result's derivation as Markdown prose: the result first, then one
        sentence per step it rests on, and the bonuses that did not apply with the reason.

        Steps already in `explained` are left out (and those told here are added to it), so
        the results of one scenario can be told one after another without repeating.
        """
        told = explained if explained is not None else set()
        order = self.derivation(root)
        head = self.explain(self.trace.evaluation.steps[(root, ())])
        rest = self.sentences([key for key in order if key not in told and key != head.key])
        told.update(order)
        lines = [
            f"**{head.title.capitalize()}: {head.value}** under {self.cite(head.clause)}: "
            f"{head.text}."
        ]
        applied = [s for s in rest if s.applied]
        skipped = [s for s in rest if not s.applied]
        if applied:
            lines += ["", "It rests on:" if len(told) == len(order) else "It also rests on:", ""]
            lines.extend(
                f"- **{s.title}** is {s.value} under {self.cite(s.clause)}: {s.text}."
                for s in reversed(applied)
            )
        if skipped:
            lines += ["", "Not applied:", ""]
            lines.extend(
                f"- **{s.title}** ({s.value}) under {self.cite(s.clause)}: {s.text}."
                for s in skipped
            )
        return "\n".join(lines)


def _ratio(type_: ast.Type, value: Value) -> bool:
    """True for a plain number strictly between -1 and 1 (a ratio such as a shortfall), which
    reads better also as a percentage."""
    if type_.kind != "number" or isinstance(value, bool) or not isinstance(value, int | Fraction):
        return False
    return value != 0 and -1 < value < 1


def _names(expr: ast.Expr) -> list[str]:
    """Returns the inputs and definitions an expression names, in order."""
    found: list[str] = []
    for node in walk(expr):
        builtin = isinstance(node, ast.Call) and node.name in ("min", "max", "floor", "ceil")
        if isinstance(node, ast.Ref | ast.Given | ast.Call) and not builtin:
            found.append(node.name)
    return found
