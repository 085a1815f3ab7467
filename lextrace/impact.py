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
from .dsl.columnar import Code, Col, Flag, Num, cents
from .dsl.values import CENTS, cents_string, dollars
from .tables import EvaluatedChunk, Runner, TableError, read_tasks


@dataclass
class ResultImpact:
    """The change of one money result over the population (amounts in cents)."""

    name: str
    changed: int = 0
    rose: int = 0
    fell: int = 0
    total_before: int = 0
    total_after: int = 0
    largest_rise: int = 0
    largest_fall: int = 0


@dataclass
class Mover:
    """A scenario whose headline result moves most: its row (1-based), before and after."""

    row: int
    before: int
    after: int

    @property
    def change(self) -> int:
        """The change in cents."""
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
    headline: str
    rows: int = 0
    failed: int = 0
    changed: int = 0
    results: list[ResultImpact] = field(default_factory=list)
    movers: list[Mover] = field(default_factory=list)
    causes: list[Cause] = field(default_factory=list)
    histogram: list[tuple[int, int, int]] = field(default_factory=list)
    seconds: float = 0.0


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
        if isinstance(present, Num) and present.scale == 100:
            return cents(present, size) != 0
        return None
    if isinstance(before, Flag) and isinstance(after, Flag):
        return np.broadcast_to(np.not_equal(before.value, after.value), (size,))
    if isinstance(before, Code) and isinstance(after, Code):
        return np.broadcast_to(np.not_equal(before.value, after.value), (size,))
    if isinstance(before, Num) and isinstance(after, Num) and before.scale == after.scale == 100:
        return cents(before, size) != cents(after, size)
    return None


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
    money = [
        name
        for name in new.ast.result_names
        if name in old.ast.result_names and new.ast.definitions[name].type.kind == "money"
    ]
    if not money:
        raise TableError("the two encodings share no money result to compare")
    chosen = headline or ("annual_credit" if "annual_credit" in money else money[-1])
    if chosen not in money:
        raise TableError(f"'{chosen}' is not a money result of both encodings")
    report = Impact(old.ast.path, new.ast.path, population, chosen)
    report.results = [ResultImpact(name) for name in money]
    report.causes = _changed_rules(old.ast, new.ast)
    runners = [
        Runner(old, old.select_readings(readings), readings or {}),
        Runner(new, new.select_readings(readings), readings or {}),
    ]
    for runner in runners:
        runner.other_fields_allowed = True
    changes: list[np.ndarray] = []
    for chunk_before, chunk_after in _chunks(runners, population, table_format):
        _account(report, runners, chunk_before, chunk_after, changes, top)
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
        yield old.evaluate(*chunk), new.evaluate(*chunk)


def _cents_column(values: Any) -> np.ndarray:
    """Returns a result column in cents: int64, or Python integers when a row is beyond it."""
    cells = (
        [0 if v is None else v for v in values] if np.asarray(values).dtype == object else values
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
) -> None:
    size = before.size
    report.rows += size
    failed = np.zeros(size, dtype=bool)
    failed[list(before.errors)] = True
    failed[list(after.errors)] = True
    report.failed += int(failed.sum())
    ok = ~failed
    any_change = np.zeros(size, dtype=bool)
    for result in report.results:
        a = _cents_column(before.values[result.name])
        b = _cents_column(after.values[result.name])
        delta = np.where(ok, b - a, 0)
        result.changed += int((delta != 0).sum())
        result.rose += int((delta > 0).sum())
        result.fell += int((delta < 0).sum())
        result.total_before += int(a[ok].sum())
        result.total_after += int(b[ok].sum())
        if size:
            result.largest_rise = max(result.largest_rise, int(delta.max()))
            result.largest_fall = min(result.largest_fall, int(delta.min()))
        any_change |= delta != 0
        if result.name == report.headline:
            changes.append(delta[ok])
            order = np.argsort(-np.abs(delta), kind="stable")[:top]
            report.movers += [
                Mover(before.first_row + int(i) + 1, int(a[i]), int(b[i]))
                for i in order
                if delta[i] != 0
            ]
            report.movers = sorted(report.movers, key=lambda m: (-abs(m.change), m.row))[:top]
    report.changed += int(any_change.sum())
    # Which changed rules differ, on the rows both columnar evaluations kept.
    kept = ok & ~runners[0].slow & ~runners[1].slow
    memo_before, memo_after = runners[0].engine.last_memo, runners[1].engine.last_memo
    for cause in report.causes:
        keys = {k for k in (*memo_before, *memo_after) if k[0] == cause.rule}
        differs = np.zeros(size, dtype=bool)
        for key in keys:
            found = _differs(memo_before.get(key), memo_after.get(key), size)
            if found is not None:
                differs |= found
        cause.scenarios += int((differs & kept).sum())


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
def _cents_dollars(value: int) -> str:
    return dollars(Fraction(value, CENTS))


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
            f"{_cents_dollars(r.total_before):>20} {_cents_dollars(r.total_after):>20}"
        )
    if report.causes:
        lines += ["", "changed rules (scenarios where the rule's value differs):"]
        lines += [f"  {c.citation}  {c.rule} ({c.status}): {c.scenarios:,}" for c in report.causes]
    if report.movers:
        lines += ["", f"largest movers of {report.headline}:"]
        lines += [
            f"  row {m.row:>9,}: {_cents_dollars(m.before)} -> {_cents_dollars(m.after)} "
            f"({'+' if m.change > 0 else ''}{_cents_dollars(m.change)})"
            for m in report.movers
        ]
    return "\n".join(lines)


def to_json(report: Impact) -> dict[str, object]:
    """Returns the report as JSON (amounts as decimal strings of dollars)."""
    data = asdict(report)
    for result in data["results"]:
        for key in ("total_before", "total_after", "largest_rise", "largest_fall"):
            result[key] = cents_string(_exact_dollars(result[key]))
    data["movers"] = [
        {
            "row": m.row,
            "before": cents_string(_exact_dollars(m.before)),
            "after": cents_string(_exact_dollars(m.after)),
            "change": cents_string(_exact_dollars(m.change)),
        }
        for m in report.movers
    ]
    data["histogram"] = [
        {"from": cents_string(_exact_dollars(a)), "to": cents_string(_exact_dollars(b)), "count": n}
        for a, b, n in report.histogram
    ]
    data["seconds"] = round(report.seconds, 3)
    return data


def _exact_dollars(cents_value: int) -> Fraction:
    return Fraction(cents_value, CENTS)


def render_markdown(report: Impact) -> str:
    """Returns the report as a Markdown page with a bar chart (inline SVG) of the changes."""
    parts = [
        f"# Impact of `{report.new}`",
        f"Compared with `{report.old}` over `{report.population}`: **{report.rows:,} "
        f"scenarios, {report.changed:,} change** ({report.failed:,} could not be evaluated). "
        "Every amount is exact to the cent.",
        "| result | changed | rose | fell | total before | total after |\n"
        "|---|---:|---:|---:|---:|---:|",
    ]
    parts[-1] += "\n" + "\n".join(
        f"| `{r.name}` | {r.changed:,} | {r.rose:,} | {r.fell:,} | "
        f"{_cents_dollars(r.total_before)} | {_cents_dollars(r.total_after)} |"
        for r in report.results
    )
    if report.histogram:
        parts.append(f"## How much `{report.headline}` changes, scenario by scenario")
        parts.append(_svg_chart(report.histogram))
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
                f"| {m.row:,} | {_cents_dollars(m.before)} | {_cents_dollars(m.after)} | "
                f"{_cents_dollars(m.change)} |"
                for m in report.movers
            )
        )
    return "\n\n".join(parts) + "\n"


def _svg_chart(histogram: list[tuple[int, int, int]]) -> str:
    """Returns a horizontal bar chart of the histogram as inline SVG (no script, no library)."""
    width, bar, gap, label = 640, 18, 6, 230
    most = max(count for _, _, count in histogram)
    height = len(histogram) * (bar + gap) + gap
    rows = []
    for index, (low, high, count) in enumerate(histogram):
        y = gap + index * (bar + gap)
        length = max(1, int((width - label - 70) * count / most))
        text = html.escape(f"{_cents_dollars(low)} to {_cents_dollars(high)}")
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
