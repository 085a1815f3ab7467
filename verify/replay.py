"""Counterexamples that replay: written as scenario files that name their encoding, their
readings and the check they break, and judged again by the evaluator.

A counterexample file is a valid scenario: the scenario's fields at the top level, the readings
under which it fails pinned in `readings`, and lextrace's record in `lextrace`:

    "lextrace": {
      "encoding": {"path": ..., "sha256": ..., "official": {"path": ..., "sha256": ...}},
      "violates": {"check", "kind", "citation", "statement", "text", "at", ...},
      "pair": {"role": "before" | "after", "partner": FILE}       (two-scenario checks only)
    }

Paths are relative to the file's own folder. `lextrace explain FILE` evaluates it under the
recorded encoding (refusing it when the encoding's bytes no longer have the recorded hash) and
shows the violated check: its statement, its citation, its terms' values, VIOLATED or not.

This module does not import Z3: `explain` stays light.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from lextrace.dsl import ast
from lextrace.dsl.ast import param_values
from lextrace.dsl.checker import reachable_definitions, walk
from lextrace.dsl.errors import FieldProblem, ScenarioError
from lextrace.dsl.evaluator import Evaluation, EvaluationError, Program, evaluate
from lextrace.dsl.obligations import every_invariant
from lextrace.dsl.reserved import META_KEY, READINGS_KEY
from lextrace.dsl.scenario import derive
from lextrace.dsl.trace import display
from lextrace.dsl.values import Derived, Value

FUNCTIONS = ("floor", "ceil", "min", "max")


@dataclass
class Judgement:
    """The evaluator's verdict on one check at concrete scenarios: whether the check is
    broken there, a one-line detail, and the values of its terms (label, value) for people."""

    violated: bool
    detail: str
    terms: list[tuple[str, str]]


# ---- judging a check at concrete scenarios -------------------------------------------------
def _selected(statute: ast.Statute, readings: Mapping[str, str]) -> dict[str, str]:
    selected = {rid: r.default.name for rid, r in statute.readings.items()}
    selected.update(readings)
    return selected


def _source(statute: ast.Statute, node: ast.Expr) -> str:
    return " ".join(statute.source[node.span.start : node.span.end].split())


def _label(statute: ast.Statute, node: ast.Ref | ast.Call) -> str:
    """Returns a term's text as written; for a term no source holds (an obligation read from
    the words), its name and arguments."""
    text = _source(statute, node)
    if text.startswith(node.name) and (isinstance(node, ast.Call) or text == node.name):
        return text
    if isinstance(node, ast.Call):
        args = ", ".join(
            f"{key}: {value.name if isinstance(value, ast.Ref) else _source(statute, value)}"
            for key, value in node.kwargs
        )
        return f"{node.name}({args})"
    return node.name


def _terms(statute: ast.Statute, expr: ast.Expr, params: set[str]) -> list[tuple[ast.Expr, str]]:
    """Returns the named terms of an expression (definitions, calls of definitions, inputs),
    outermost first, each once, with its type's kind for display."""
    found: list[tuple[ast.Expr, str]] = []
    seen: set[str] = set()
    for node in walk(expr):
        if isinstance(node, ast.Call) and node.name in statute.definitions:
            type_ = statute.definitions[node.name].type
        elif isinstance(node, ast.Ref) and node.name not in params:
            if node.name in statute.definitions:
                type_ = statute.definitions[node.name].type
            elif node.name in statute.inputs:
                type_ = statute.inputs[node.name].type
            else:
                continue
        else:
            continue
        text = _label(statute, node)  # type: ignore[arg-type]
        if text not in seen:
            seen.add(text)
            found.append((node, type_))  # type: ignore[arg-type]
    return found


def judge_expr(
    program: Program,
    expr: ast.Expr,
    bound: Mapping[str, Value],
    inputs: dict[str, Value],
    readings: Mapping[str, str],
) -> Judgement:
    """Returns whether an invariant's expression is false for these inputs and readings, with
    the value of each of its terms."""
    statute = program.statute
    try:
        evaluation = evaluate(program, inputs, _selected(statute, readings))
        holds = bool(program.expr(expr)(evaluation, dict(bound)))
    except EvaluationError as error:
        return Judgement(True, f"the evaluator fails: {error}", [])
    terms = []
    for node, type_ in _terms(statute, expr, set(bound)):
        try:
            shown = display(type_, program.expr(node)(evaluation, dict(bound)))  # type: ignore[arg-type]
        except EvaluationError as error:  # a term the property itself never needed here
            shown = f"not computable: {error}"
        terms.append((_label(statute, node), shown))  # type: ignore[arg-type]
    if holds:
        return Judgement(False, "the evaluator finds the property true here", terms)
    return Judgement(True, "the evaluator finds the property false here", terms)


def moved_wrong(old: Any, new: Any, falls: bool) -> bool:
    """Whether a result moved the way a monotone property forbids when its input was raised:
    down for `rise with`, up for `fall with`."""
    return bool(new > old if falls else new < old)


def judge_monotone(
    program: Program,
    input_name: str,
    results: list[str],
    scenarios: list[dict[str, Value]],
    readings: Mapping[str, str],
    falls: bool = False,
) -> Judgement:
    """Returns whether raising `input_name` from the first scenario to the second lowers any
    of `results` (raises any of them, when the property says they `fall`), with the input and
    every result before and after."""
    statute = program.statute
    selected = _selected(statute, readings)
    before = evaluate(program, scenarios[0], selected)
    after = evaluate(program, scenarios[1], selected)
    declared = statute.inputs[input_name]
    old_input, new_input = scenarios[0][input_name], scenarios[1][input_name]
    derived = type(old_input) is Derived or type(new_input) is Derived
    if derived:  # a value a rule derives: the raise is the rule's to show
        old_input, new_input = None, None
    elif declared.type.kind == "enum":  # raised in the order of its members, as Z3 has it
        members = declared.type.members
        old_input, new_input = members.index(old_input), members.index(new_input)  # type: ignore[arg-type]
    if not derived and not (
        (old_input is False and new_input is True)
        if declared.type.kind == "bool"
        else old_input is not None and new_input is not None and new_input > old_input  # type: ignore[operator]
    ):
        return Judgement(False, f"the pair does not raise {input_name}", [])
    terms = [
        (
            input_name,
            f"{display(declared.type, scenarios[0][input_name])} -> "
            f"{display(declared.type, scenarios[1][input_name])}",
        )
    ]
    moved = []
    mark, word = ("RAISED", "higher") if falls else ("LOWERED", "lower")
    for name in results:
        old, new = before.get(name), after.get(name)
        type_ = statute.definitions[name].type
        breaks = moved_wrong(old, new, falls)
        shown = f"{display(type_, old)} -> {display(type_, new)}"
        terms.append((name, f"{shown}  {mark}" if breaks else shown))
        if breaks:
            moved.append(f"{name} ({old} -> {new})")
    if moved:
        return Judgement(True, f"the evaluator finds {word} " + ", ".join(moved), terms)
    return Judgement(False, f"the evaluator finds nothing {mark.lower()}", terms)


def judge_evaluates(
    program: Program,
    inputs: dict[str, Value],
    readings: Mapping[str, str],
    first: tuple[str, tuple[Value, ...]] | None = None,
) -> Judgement:
    """Returns whether evaluating these inputs fails (a gap, an overlap, a division by zero, a
    missing value): the results, with what they compute, and every definition no result uses
    (checked on its own, for every value of its parameters). A rule a result uses only under a
    condition is asked to be defined only where that condition holds: as the evaluator does.
    The definition instance `first`, when given, is evaluated before the results, so that its
    own failure is the one told (a gap in its cases, not another table's met on the way)."""
    statute = program.statute
    computed = reachable_definitions(statute, statute.result_names)
    # A rule deriving an input (`derived by`) is evaluated only by a scenario that derives it.
    idle = {
        d.derived_by.rule
        for d in statute.inputs.values()
        if d.derived_by is not None and type(inputs.get(d.name)) is not Derived
    }
    try:
        if first is not None:
            Evaluation(program, inputs, _selected(statute, readings), False).get(*first)
        evaluation = evaluate(program, inputs, _selected(statute, readings))
        for definition in statute.definitions.values():
            if definition.name in idle or definition.name in computed:
                continue
            for args in param_values(definition.params):
                evaluation.get(definition.name, args)
    except EvaluationError as error:
        return Judgement(True, f"the evaluator fails: {error}", [])
    return Judgement(False, "the evaluator evaluates this scenario without error", [])


def judge_derived(
    program: Program, name: str, inputs: dict[str, Value], readings: Mapping[str, str]
) -> Judgement:
    """Returns whether the evaluator refuses these inputs for the value it derives for the
    input `name` (`derived by`): a value outside the bounds the input declares. Only the
    derivations are evaluated, as the evaluator derives the inputs before the results."""
    statute = program.statute
    evaluation = Evaluation(program, inputs, _selected(statute, readings), False)
    try:
        derive(statute, evaluation, inputs)
    except ScenarioError as error:
        own = [problem for problem in error.problems if problem.field == name]
        if own:
            return Judgement(True, f"the evaluator refuses the scenario: {own[0].render()}", [])
        return Judgement(
            False, f"the evaluator refuses the scenario for another field: {error}", []
        )
    return Judgement(False, f"the evaluator derives {name} within its bounds", [])


def judge_value(
    program: Program,
    name: str,
    args: tuple[Value, ...],
    low: Fraction,
    high: Fraction | None,
    inputs: dict[str, Value],
    readings: Mapping[str, str],
) -> Judgement:
    """Returns whether a definition's value lies outside [low, high] (no upper bound when
    `high` is None) for these inputs."""
    statute = program.statute
    value = evaluate(program, inputs, _selected(statute, readings)).get(name, args)
    type_ = statute.definitions[name].type
    label = name + (f"({', '.join(_show_arg(a) for a in args)})" if args else "")
    terms = [(label, display(type_, value)), ("bounds", f"{low} .. {'' if high is None else high}")]
    if low <= value and (high is None or value <= high):  # type: ignore[operator]
        return Judgement(False, f"the evaluator finds {name} = {value}, within bounds", terms)
    return Judgement(True, f"the evaluator finds {name} = {value}", terms)


def _show_arg(value: Value) -> str:
    return "true" if value is True else "false" if value is False else str(value)


def judge(
    program: Program,
    violates: Mapping[str, Any],
    scenarios: list[dict[str, Value]],
    readings: Mapping[str, str],
) -> Judgement | None:
    """Returns the evaluator's verdict on the check a counterexample file records (its
    `violates` object), or None when this encoding has no such check."""
    statute = program.statute
    kind = violates.get("kind")
    target = violates.get("of", {})
    args = target.get("args", {})
    if kind == "invariant":
        invariant = next(
            (i for i in every_invariant(statute) if i.name == target.get("name")), None
        )
        if invariant is None or set(args) != {p.name for p in invariant.params}:
            return None
        found = judge_expr(program, invariant.expr, args, scenarios[0], readings)
        found.terms[:0] = [(name, _show_arg(value)) for name, value in args.items()]
        return found
    if kind == "monotone":
        monotone = next((m for m in statute.monotones if m.name == target.get("name")), None)
        input_name = target.get("input")
        if monotone is None or input_name not in dict(monotone.inputs) or len(scenarios) != 2:
            return None
        results = [name for name, _ in monotone.results]
        return judge_monotone(program, input_name, results, scenarios, readings, monotone.falls)
    if kind == "bound":
        name = target.get("name")
        if name not in statute.definitions:
            return None
        params = statute.definitions[name].params
        values = tuple(args.get(p.name) for p in params)
        low = Fraction(target.get("low", "0"))
        high = Fraction(target["high"]) if "high" in target else None
        return judge_value(program, name, values, low, high, scenarios[0], readings)
    if kind == "well-formed" and "derived" in target:
        if target["derived"] not in statute.inputs:
            return None
        return judge_derived(program, target["derived"], scenarios[0], readings)
    if kind == "well-formed":
        return judge_evaluates(program, scenarios[0], readings)
    return None


# ---- writing counterexample files ----------------------------------------------------------
def digest(path: Path) -> str:
    """Returns the SHA-256 of a file's bytes, in hexadecimal."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _relative(path: Path, folder: Path) -> str:
    return Path(os.path.relpath(path.resolve(), folder.resolve())).as_posix()


def encoding_record(statute: ast.Statute, folder: Path) -> dict[str, object]:
    """Returns the `encoding` record of a file written in `folder`: the encoding's path
    (relative to the folder) and hash, and its official text's."""
    path = Path(statute.path)
    official = path.parent / statute.official
    return {
        "path": _relative(path, folder),
        "sha256": digest(path),
        "official": {"path": _relative(official, folder), "sha256": digest(official)},
    }


def file_stem(check_name: str) -> str:
    """Returns the file name stem of a check's counterexample."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", check_name).strip("-")


def counterexample_files(report: Any, folder: Path) -> list[tuple[Path, str]]:
    """Returns (path, text) of every counterexample file of a report's failures: one file per
    scenario, a two-scenario check's two files naming each other."""
    statute = report.statute
    record = encoding_record(statute, folder)
    files = []
    for outcome in report.failures:
        scenarios = outcome.counterexample or []
        if not scenarios:
            continue
        check = outcome.check
        violates = {
            "check": check.name,
            "kind": check.kind,
            "citation": statute.citation(check.clause),
            "statement": " ".join(check.description.split()),
            "text": " ".join(statute.source[check.span.start : check.span.end].split()),
            "at": f"{statute.path}:{check.span.line}:{check.span.column}",
            "status": outcome.status,
            "of": check.replay or {},
        }
        if check.kind == "invariant":  # the invariant's own formula, not its declaration
            invariant = next(i for i in every_invariant(statute) if i.name == check.replay["name"])
            violates["text"] = invariant.formula or _source(statute, invariant.expr)
        stem = file_stem(check.name)
        names = [f"{stem}.json"]
        if len(scenarios) == 2:
            names = [f"{stem}-before.json", f"{stem}-after.json"]
        for index, scenario in enumerate(scenarios):
            meta: dict[str, object] = {"encoding": record, "violates": violates}
            if len(scenarios) == 2:
                meta["pair"] = {
                    "role": ("before", "after")[index],
                    "partner": names[1 - index],
                }
            data = {**scenario, READINGS_KEY: dict(outcome.readings or {}), META_KEY: meta}
            text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
            files.append((folder / names[index], text))
    return files


def write_counterexamples(
    report: Any, folder: Path, write: Callable[[Path, str], None]
) -> list[Path]:
    """Writes every counterexample file of a report into `folder` (with `write`, atomic) and
    returns their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for path, text in counterexample_files(report, folder):
        write(path, text)
        written.append(path)
    return written


# ---- replaying -----------------------------------------------------------------------------
def record_of(data: object) -> Mapping[str, Any] | None:
    """Returns the `lextrace` record of a scenario, or None when it has none."""
    if isinstance(data, Mapping) and isinstance(data.get(META_KEY), Mapping):
        return data[META_KEY]  # type: ignore[no-any-return]
    return None


def _bad(source: str, field: str, expected: str, given: str, hint: str | None = None) -> None:
    raise ScenarioError([FieldProblem(field, expected, given, hint)], source)


def recorded_encoding(
    data: object, source: str, given: str | None, warn: Callable[[str], None]
) -> str | None:
    """Returns the encoding a scenario is to be evaluated under: `given` (--encoding) when
    there is one (with a warning when its bytes differ from those recorded), else the one its
    record names, else None (the default).

    Raises ScenarioError when the recorded encoding is missing or its bytes have changed."""
    record = record_of(data)
    encoding = record.get("encoding") if record is not None else None
    if not isinstance(encoding, Mapping) or "path" not in encoding:
        return given
    folder = Path(source).parent
    path = folder / str(encoding["path"])
    if given is not None:
        if Path(given).is_file() and digest(Path(given)) != encoding.get("sha256"):
            warn(
                f"warning: {source} was written for {path} (sha256 "
                f"{str(encoding.get('sha256'))[:12]}...); it is evaluated here under {given}, "
                "whose bytes differ"
            )
        return given
    field = f"{META_KEY}.encoding"
    if not path.is_file():
        _bad(source, f"{field}.path", "the path of an existing encoding", f'"{path}"')
    now = digest(path)
    if now != encoding.get("sha256"):
        _bad(
            source,
            f"{field}.sha256",
            f"the SHA-256 of {path} as it is now ({now[:12]}...)",
            f"{str(encoding.get('sha256'))[:12]}...",
            f"the encoding has changed since this file was written; pass --encoding {path} "
            "to evaluate it under the encoding as it is now",
        )
    official = encoding.get("official")
    if isinstance(official, Mapping) and "path" in official:
        text = folder / str(official["path"])
        if not text.is_file() or digest(text) != official.get("sha256"):
            _bad(
                source,
                f"{field}.official.sha256",
                f"the SHA-256 of {text} as it is now",
                f"{str(official.get('sha256'))[:12]}...",
                "the official text has changed since this file was written",
            )
    return str(path)


@dataclass
class Replay:
    """A counterexample file evaluated again: the check it records and the verdict now."""

    violates: Mapping[str, Any]
    judgement: Judgement | None
    partner: str | None
    role: str | None


def replay(
    program: Program,
    data: Mapping[str, Any],
    source: str,
    inputs: dict[str, Value],
    readings: Mapping[str, str],
    read: Callable[[str], tuple[Mapping[str, Any], dict[str, Value]]],
) -> Replay | None:
    """Returns the replay of a scenario that records a violated check, or None for any other
    scenario. `read` reads and validates the partner file of a pair."""
    record = record_of(data)
    if record is None or not isinstance(record.get("violates"), Mapping):
        return None
    violates = record["violates"]
    pair = record.get("pair")
    scenarios = [inputs]
    partner = role = None
    if isinstance(pair, Mapping):
        role = str(pair.get("role"))
        partner = str(Path(source).parent / str(pair.get("partner")))
        _, other = read(partner)
        scenarios = [inputs, other] if role == "before" else [other, inputs]
    return Replay(violates, judge(program, violates, scenarios, readings), partner, role)


def render(found: Replay) -> str:
    """Returns the violation section of `explain` for a replayed counterexample."""
    violates = found.violates
    lines = [
        f"Check {violates.get('check')} ({violates.get('kind')}), "
        f"{violates.get('citation')}, at {violates.get('at')}",
        f"  statement: {violates.get('statement')}",
        f"  encoded:   {violates.get('text')}",
    ]
    if found.partner is not None:
        lines.append(f"  this file is the {found.role} scenario; its partner: {found.partner}")
    judgement = found.judgement
    if judgement is None:
        lines.append("  this encoding has no such check: nothing to replay")
        return "\n".join(lines)
    if judgement.terms:
        width = max(len(label) for label, _ in judgement.terms)
        lines.append("  under this scenario:")
        lines += [f"    {label:<{width}}  = {value}" for label, value in judgement.terms]
    verdict = "VIOLATED" if judgement.violated else "HOLDS (not violated here)"
    lines.append(f"  {verdict}: {judgement.detail}")
    return "\n".join(lines)
