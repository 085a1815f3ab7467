"""Amendment impact over a population: both encodings evaluated on every scenario, exactly.

For each result: how many scenarios change, the total before and after, the largest rises and
falls. Across results: how many scenarios change at all, the scenarios that move most, and which
changed rules cause it (for each rule the amendment adds, removes or rewrites, the number of
scenarios where its value differs). Reported as text, JSON, or a Markdown page with a chart.
"""

from __future__ import annotations

import html
import time
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from .api import Statute
from .dsl import ast
from .dsl.columnar import Code, Col, Flag, Num, cents, exact_values
from .dsl.errors import ScenarioError
from .dsl.evaluator import EvaluationError
from .dsl.values import CENTS, cents_string, dollars, exact_string
from .tables import EvaluatedChunk, Runner, TableError, read_tasks

NUMERIC = ("money", "count", "number", "share")


@dataclass
class ResultImpact:
    """The change of one result over the population. Totals and changes are exact, in the
    result's unit: cents for money, whole numbers for counts, Fractions for numbers and
    shares, how many are true for a yes/no result (rose: became true); an enum result counts
    its changes only."""

    name: str
    kind: str = "money"
    changed: int = 0
    rose: int = 0
    fell: int = 0
    total_before: int | Fraction = 0
    total_after: int | Fraction = 0
    largest_rise: int | Fraction = 0
    largest_fall: int | Fraction = 0


@dataclass
class Mover:
    """A scenario whose headline result moves most: its row (1-based), before and after (in
    the headline's unit)."""

    row: int
    before: int | Fraction
    after: int | Fraction

    @property
    def change(self) -> int | Fraction:
        """The change, in the headline's unit."""
        return self.after - self.before


@dataclass
class Cause:
    """A rule the amendment changes, where it sits, and in how many scenarios its value
    differs (or, for a rule it adds, is not zero)."""

    rule: str
    citation: str
    status: str
    scenarios: int = 0


@dataclass
class Impact:
    """What an amendment does to a population."""

    old: str
    new: str
    population: str
    headline: str | None
    rows: int = 0
    failed: int = 0
    changed: int = 0
    results: list[ResultImpact] = field(default_factory=list)
    movers: list[Mover] = field(default_factory=list)
    causes: list[Cause] = field(default_factory=list)
    histogram: list[tuple[int, int, int]] = field(default_factory=list)
    seconds: float = 0.0
    # The inputs only the new version has that no scenario of the population gives: each
    # takes its default everywhere, so no change through it can show.
    never_given: list[str] = field(default_factory=list)

    @property
    def headline_kind(self) -> str:
        """The kind of the headline result (money, count, number or share)."""
        return next((r.kind for r in self.results if r.name == self.headline), "money")


def _changed_rules(old: ast.Statute, new: ast.Statute) -> list[Cause]:
    from .verify.diff import clause_changes, rule_changes

    causes = []
    for change in rule_changes(old, new, clause_changes(old, new)):
        if change.kind != "definition":
            continue
        definition = new.definitions.get(change.name) or old.definitions.get(change.name)
        assert definition is not None
        statute = new if change.name in new.definitions else old
        causes.append(Cause(change.name, statute.citation(definition.clause), change.status))
    return causes


def _differs(before: Col | None, after: Col | None, size: int) -> np.ndarray | None:
    """Returns the rows where a definition's value differs (a missing side counts as zero or
    false); None when the columns cannot be compared exactly here."""
    if before is None and after is None:
        return None
    if before is None or after is None:
        present = after if after is not None else before
        if isinstance(present, Flag):
            return np.broadcast_to(np.asarray(present.value, dtype=bool), (size,))
        if isinstance(present, Num):
            return _exact_column(present, size) != 0
        return None
    if isinstance(before, Flag) and isinstance(after, Flag):
        return np.broadcast_to(np.not_equal(before.value, after.value), (size,))
    if isinstance(before, Code) and isinstance(after, Code):
        return np.broadcast_to(np.not_equal(before.value, after.value), (size,))
    if isinstance(before, Num) and isinstance(after, Num):
        if before.scale == after.scale == 100:
            return cents(before, size) != cents(after, size)
        return _exact_column(before, size) != _exact_column(after, size)
    return None


def _exact_column(column: Num, size: int) -> np.ndarray:
    """Returns a numeric column's exact values, row by row (for values that are not cents)."""
    return np.array(exact_values(column, range(size)), dtype=object)


def impact(
    old: Statute,
    new: Statute,
    population: str,
    table_format: str,
    readings: dict[str, str] | None = None,
    top: int = 10,
    headline: str | None = None,
) -> Impact:
    """Returns the impact of moving from `old` to `new` over the scenarios in `population`.

    Raises TableError for a population that cannot be read.
    """
    started = time.perf_counter()
    shared = [
        (name, new.ast.definitions[name].type.kind)
        for name in new.ast.result_names
        if name in old.ast.result_names
        and old.ast.definitions[name].type.kind == new.ast.definitions[name].type.kind
    ]
    if not shared:
        raise TableError("the two encodings share no result of the same type to compare")
    numeric = [name for name, kind in shared if kind in NUMERIC]
    # The headline (movers, chart): as asked, else the last money result, else the last number.
    money = [name for name, kind in shared if kind == "money"]
    chosen = headline or ((money or numeric or [None])[-1])
    if chosen is not None and chosen not in numeric:
        raise TableError(f"'{chosen}' is not a numeric result of both encodings")
    report = Impact(old.ast.path, new.ast.path, population, chosen)
    report.results = [ResultImpact(name, kind) for name, kind in shared]
    report.causes = _changed_rules(old.ast, new.ast)
    runners = [
        Runner(old, old.select_readings(readings), readings or {}),
        Runner(new, new.select_readings(readings), readings or {}),
    ]
    for runner in runners:
        runner.other_fields_allowed = True
    changes: list[np.ndarray] = []
    unseen = [name for name in new.ast.inputs if name not in old.ast.inputs]
    for chunk_before, chunk_after, task in _chunks(runners, population, table_format):
        ok = _account(report, runners, chunk_before, chunk_after, changes, top)
        _count_causes(report, runners, ok, task.rows)
        unseen = _still_unseen(unseen, task)
    report.never_given = unseen
    if changes:
        _histogram(report, np.concatenate(changes))
    report.movers.sort(key=lambda m: (-abs(m.change), m.row))
    report.seconds = time.perf_counter() - started
    return report


def _chunks(runners: list[Runner], population: str, table_format: str) -> Any:
    """Yields each chunk of the population evaluated by both encodings."""
    old, new = runners
    for task in read_tasks(new.statute.ast, population, table_format):
        chunk = (task.table, task.first, task.rows, task.refused)
        yield old.evaluate(*chunk), new.evaluate(*chunk), task


def _still_unseen(names: list[str], task: Any) -> list[str]:
    """Returns the names of `names` that no row of the chunk gives: no value in its column,
    nor in a row the table reader left to the scenario reader (read here row by row)."""
    table = task.table
    left = [n for n in names if n not in table.column_names or table[n].null_count == len(table[n])]
    if left and task.refused is not None:
        for row in np.flatnonzero(task.refused).tolist():
            try:
                scenario, _ = task.rows(row)
            except ScenarioError:
                continue
            if isinstance(scenario, dict):
                left = [n for n in left if scenario.get(n) is None]
            if not left:
                break
    return left


def _column(values: Any, kind: str) -> np.ndarray:
    """Returns a result column in its unit (see ResultImpact), a failed row's value as zero:
    int64 where it fits (cents, counts, yes/no as 0 or 1), else exact Python numbers; enum
    members as their names."""
    if kind == "enum":
        return np.asarray(values, dtype=object)
    if kind in ("number", "share"):
        return np.array([Fraction(0) if v is None else Fraction(v) for v in values], dtype=object)
    cells = (
        [0 if v is None else int(v) for v in values]
        if np.asarray(values).dtype == object
        else values
    )
    try:
        return np.asarray(cells, dtype=np.int64)
    except OverflowError:
        return np.array([int(v) for v in cells], dtype=object)


def _account(
    report: Impact,
    runners: list[Runner],
    before: EvaluatedChunk,
    after: EvaluatedChunk,
    changes: list[np.ndarray],
    top: int,
) -> np.ndarray:
    """Adds a chunk's results to the report; returns the rows both encodings evaluate."""
    size = before.size
    report.rows += size
    failed = np.zeros(size, dtype=bool)
    failed[list(before.errors)] = True
    failed[list(after.errors)] = True
    report.failed += int(failed.sum())
    ok = ~failed
    any_change = np.zeros(size, dtype=bool)
    for result in report.results:
        a = _column(before.values[result.name], result.kind)
        b = _column(after.values[result.name], result.kind)
        if result.kind == "enum":
            moved = ok & (a != b)
            result.changed += int(moved.sum())
            any_change |= moved
            continue
        exact = _exact(result.kind)
        delta = np.where(ok, b - a, 0)
        result.changed += int((delta != 0).sum())
        result.rose += int((delta > 0).sum())
        result.fell += int((delta < 0).sum())
        result.total_before += exact(a[ok].sum())
        result.total_after += exact(b[ok].sum())
        if size:
            result.largest_rise = max(result.largest_rise, exact(delta.max()))
            result.largest_fall = min(result.largest_fall, exact(delta.min()))
        any_change |= delta != 0
        if result.name == report.headline:
            if result.kind in ("money", "count"):  # whole units: the chart's buckets are exact
                changes.append(delta[ok])
            order = np.argsort(-np.abs(delta), kind="stable")[:top]
            report.movers += [
                Mover(before.first_row + int(i) + 1, exact(a[i]), exact(b[i]))
                for i in order
                if delta[i] != 0
            ]
            report.movers = sorted(report.movers, key=lambda m: (-abs(m.change), m.row))[:top]
    report.changed += int(any_change.sum())
    return ok


def _count_causes(report: Impact, runners: list[Runner], ok: np.ndarray, rows: Any) -> None:
    """Counts, for each changed rule, the rows of a chunk both encodings evaluate (`ok`) where
    its value differs: from both columnar evaluations where both kept the row, else from both
    scalar evaluations."""
    if not report.causes:
        return
    size = len(ok)
    kept = ok & ~runners[0].slow & ~runners[1].slow
    memo_before, memo_after = (r.engine.last_memo if r.engine else {} for r in runners)
    differs = {cause.rule: np.zeros(size, dtype=bool) for cause in report.causes}
    for cause in report.causes:
        keys = {k for k in (*memo_before, *memo_after) if k[0] == cause.rule}
        for key in keys:
            found = _differs(memo_before.get(key), memo_after.get(key), size)
            if found is not None:
                differs[cause.rule] |= found
        differs[cause.rule] &= kept
    for row in np.flatnonzero(ok & ~kept).tolist():
        for rule in _scalar_changes(runners, rows, row, list(differs)):
            differs[rule][row] = True
    for cause in report.causes:
        cause.scenarios += int(differs[cause.rule].sum())


def _scalar_changes(runners: list[Runner], rows: Any, row: int, rules: list[str]) -> set[str]:
    """Returns which of `rules` take another value for one row under the two encodings, by
    their traced scalar evaluations (a rule one side does not compute counts as zero)."""
    values = []
    for runner in runners:
        result = runner.scalar(rows, row, trace=True)
        if isinstance(result, ScenarioError | EvaluationError) or result.trace is None:
            return set()
        values.append({key: step.value for key, step in result.trace.evaluation.steps.items()})
    before, after = values
    return {
        rule
        for rule in rules
        if any(
            before.get(key, 0) != after.get(key, 0) for key in {*before, *after} if key[0] == rule
        )
    }


def _exact(kind: str) -> Any:
    """Returns the conversion of a column's cell to an exact Python number of its unit."""
    return Fraction if kind in ("number", "share") else int


def _histogram(report: Impact, delta: np.ndarray, bins: int = 12) -> None:
    """Buckets the headline change of every scenario that changed."""
    moved = delta[delta != 0]
    if not len(moved):
        return
    low, high = int(moved.min()), int(moved.max())
    if low == high:
        report.histogram = [(low, high, len(moved))]
        return
    edges = np.linspace(low, high, bins + 1)
    counts, edges = np.histogram(moved, bins=edges)
    report.histogram = [
        (int(edges[i]), int(edges[i + 1]), int(counts[i])) for i in range(bins) if counts[i]
    ]


# ---- reports ----------------------------------------------------------------------------------
def _amount(kind: str, value: int | Fraction) -> str:
    """Returns a total or a change for people: dollars for money, exact otherwise."""
    if kind == "money":
        return dollars(Fraction(value, CENTS))
    if kind == "enum":
        return ""
    if kind in ("number", "share"):
        return exact_string(value)
    return f"{value:,}"


def _json_amount(kind: str, value: int | Fraction) -> object:
    """Returns a total or a change for JSON: money as a decimal string of dollars, counts as
    integers, other numbers as exact fractions ("1/3"), nothing for an enum."""
    if kind == "money":
        return cents_string(Fraction(value, CENTS))
    if kind == "enum":
        return None
    if kind in ("number", "share"):
        return exact_string(value)
    return int(value)


def render_text(report: Impact) -> str:
    """Returns the report for a terminal."""
    lines = [
        f"lextrace impact {report.old} -> {report.new}",
        f"population: {report.population}: {report.rows:,} scenarios, "
        f"{report.changed:,} change, {report.failed:,} could not be evaluated "
        f"({report.seconds:.2f} s)",
        "",
        f"{'result':<34} {'changed':>9} {'rose':>9} {'fell':>9} {'total before':>20} "
        f"{'total after':>20}",
    ]
    for r in report.results:
        lines.append(
            f"{r.name:<34} {r.changed:>9,} {r.rose:>9,} {r.fell:>9,} "
            f"{_amount(r.kind, r.total_before):>20} {_amount(r.kind, r.total_after):>20}"
        )
    lines += ["", note] if (note := _never_given_note(report)) else []
    if report.causes:
        lines += ["", "changed rules (scenarios where the rule's value differs):"]
        lines += [f"  {c.citation}  {c.rule} ({c.status}): {c.scenarios:,}" for c in report.causes]
    if report.movers:
        kind = report.headline_kind
        lines += ["", f"largest movers of {report.headline}:"]
        lines += [
            f"  row {m.row:>9,}: {_amount(kind, m.before)} -> {_amount(kind, m.after)} "
            f"({'+' if m.change > 0 else ''}{_amount(kind, m.change)})"
            for m in report.movers
        ]
    return "\n".join(lines)


def to_json(report: Impact) -> dict[str, object]:
    """Returns the report as JSON: money as decimal strings of dollars, counts as integers,
    other numbers as exact fractions; an enum result has its changes counted only."""
    data = asdict(report)
    for result in data["results"]:
        for key in ("total_before", "total_after", "largest_rise", "largest_fall"):
            result[key] = _json_amount(result["kind"], result[key])
    kind = report.headline_kind
    data["movers"] = [
        {
            "row": m.row,
            "before": _json_amount(kind, m.before),
            "after": _json_amount(kind, m.after),
            "change": _json_amount(kind, m.change),
        }
        for m in report.movers
    ]
    data["histogram"] = [
        {"from": _json_amount(kind, a), "to": _json_amount(kind, b), "count": n}
        for a, b, n in report.histogram
    ]
    data["seconds"] = round(report.seconds, 3)
    return data


def render_markdown(report: Impact) -> str:
    """Returns the report as a Markdown page with a bar chart (inline SVG) of the changes."""
    parts = [
        f"# Impact of `{report.new}`",
        f"Compared with `{report.old}` over `{report.population}`: **{report.rows:,} "
        f"scenarios, {report.changed:,} change** ({report.failed:,} could not be evaluated). "
        "Every amount is exact (money to the cent).",
        "| result | changed | rose | fell | total before | total after |\n"
        "|---|---:|---:|---:|---:|---:|",
    ]
    parts[-1] += "\n" + "\n".join(
        f"| `{r.name}` | {r.changed:,} | {r.rose:,} | {r.fell:,} | "
        f"{_amount(r.kind, r.total_before)} | {_amount(r.kind, r.total_after)} |"
        for r in report.results
    )
    if note := _never_given_note(report):
        parts.append(f"_Note: {note}_")
    if report.histogram:
        parts.append(f"## How much `{report.headline}` changes, scenario by scenario")
        parts.append(_svg_chart(report.histogram, report.headline_kind))
    if report.causes:
        parts.append("## Which changed rules cause it")
        parts.append(
            "| rule | clause | change | scenarios where its value differs |\n|---|---|---|---:|\n"
            + "\n".join(
                f"| `{c.rule}` | {c.citation} | {c.status} | {c.scenarios:,} |"
                for c in report.causes
            )
        )
    if report.movers:
        parts.append(f"## Largest movers of `{report.headline}`")
        parts.append(
            "| scenario (row) | before | after | change |\n|---:|---:|---:|---:|\n"
            + "\n".join(
                f"| {m.row:,} | {_amount(report.headline_kind, m.before)} | "
                f"{_amount(report.headline_kind, m.after)} | "
                f"{_amount(report.headline_kind, m.change)} |"
                for m in report.movers
            )
        )
    return "\n\n".join(parts) + "\n"


def _never_given_note(report: Impact) -> str:
    """Returns the note on the new inputs the population never gives ("" when none)."""
    if not report.never_given:
        return ""
    names = ", ".join(f"`{n}`" for n in report.never_given)
    return (
        f"the population never gives {names}, which only the new version reads: every scenario "
        "takes its default, so no change through it can show here"
    )


def _svg_chart(histogram: list[tuple[int, int, int]], kind: str) -> str:
    """Returns a horizontal bar chart of the histogram as inline SVG (no script, no library)."""
    width, bar, gap, label = 640, 18, 6, 230
    most = max(count for _, _, count in histogram)
    height = len(histogram) * (bar + gap) + gap
    rows = []
    for index, (low, high, count) in enumerate(histogram):
        y = gap + index * (bar + gap)
        length = max(1, int((width - label - 70) * count / most))
        text = html.escape(f"{_amount(kind, low)} to {_amount(kind, high)}")
        rows.append(
            f'<text x="{label - 8}" y="{y + bar - 5}" text-anchor="end" font-size="12">{text}'
            f'</text><rect x="{label}" y="{y}" width="{length}" height="{bar}" '
            f'fill="#3f51b5"/><text x="{label + length + 6}" y="{y + bar - 5}" '
            f'font-size="12">{count:,}</text>'
        )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" aria-label="scenarios by change">'
        + "".join(rows)
        + "</svg>"
    )
