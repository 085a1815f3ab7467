"""The traceability matrix: clause → rules → invariants → examples and tests, with totals.

Every clause of the statute has a row and a status: encoded (it holds rules), discretionary or
text only (its words are marked, with the reason), not yet encoded (marked so, as
`lextrace init` writes every clause), or introductory (its words introduce subclauses that are
accounted for). A clause with none of these is counted as unaccounted and
shown first; `lextrace check` refuses such an encoding.
"""

from __future__ import annotations

from collections import Counter

from lextrace.dsl import ast
from lextrace.dsl.coverage import COMPUTING, STATUSES, coverage
from lextrace.dsl.obligations import every_invariant

from .context import MATRIX_PAGE, Site, relative
from .markdown import escape, front_matter, stacked_table, table
from .tests_index import read_tests, tests_naming


def _readings(statute: ast.Statute, item: object) -> tuple[str, ...]:
    """Returns the readings a computing item rests on: its own, and for a case those of its
    `cases` declaration (which decides how its cases combine)."""
    own: tuple[str, ...] = getattr(item, "readings", ())
    if isinstance(item, ast.Case):
        declared = statute.definitions.get(item.name)
        return (*own, *(declared.readings if declared is not None else ()))
    return own


def page(site: Site) -> str:
    """Returns the traceability matrix page."""
    statute = site.ast
    here = site.path(MATRIX_PAGE)
    tests = (
        read_tests(site.tests_dir, site.tests_mentioning) if site.tests_dir is not None else None
    )
    rows = []
    counts: Counter[str] = Counter()
    by_clause: list[tuple[ast.Clause, list[str]]] = []
    # The limits verify reads from the words (dsl/obligations.py) are proved in their clauses.
    from_words = [o for o in every_invariant(statute) if o.from_words is not None]
    for item in coverage(statute):
        clause = item.clause
        counts[item.status] += 1
        computing = [i for i in clause.items if isinstance(i, COMPUTING)]
        rules = [f"`{i.name}`" for i in computing]
        checks = [f"`{i.name}`" for i in clause.items if isinstance(i, ast.Invariant)]
        checks += [f"`{m.name}`" for m in statute.monotones if m.clause is clause]
        checks += [f"`{o.name}` (from the words)" for o in from_words if o.clause is clause]
        readings = sorted(
            {r for i in computing for r in _readings(statute, i)}, key=lambda r: (len(r), r)
        )
        examples = [e for e in site.examples if id(clause) in site.clauses_exercised(e)]
        named = tests_naming(statute, clause, tests) if tests is not None else []
        by_clause.append((clause, named))
        status = item.status
        if item.marks and item.status == "encoded":
            # The marks are on some of its words only: say which, as `lextrace check` does.
            status += "; " + "; ".join(
                f"with a {mark} passage: {escape(reason)}" for mark, reason in item.marks
            )
        elif item.marks:
            status += ": " + "; ".join(escape(reason) for _, reason in item.marks)
        rows.append(
            [
                site.cite(clause, here),
                status,
                ", ".join(dict.fromkeys(rules)) or "-",
                ", ".join(checks) or "-",
                ", ".join(site.reading_link(r, here) for r in readings) or "-",
                ", ".join(f"[{e.stem}]({relative(here, e.page)})" for e in examples) or "-",
                *([str(len(named))] if tests is not None else []),
            ]
        )
    total = sum(counts.values())
    totals = table(
        ["status", "clauses"],
        [
            [status, str(counts[status])]
            for status in STATUSES
            if counts[status] or status == "encoded"
        ]
        + [["**all**", str(total)]],
    )
    unaccounted = counts.get("unaccounted", 0)
    verdict = (
        f"All {total} clauses are accounted for."
        if not unaccounted
        else f'!!! danger "Unaccounted clauses"\n\n    {unaccounted} clause(s) have no rule and '
        "no marked reason."
    )
    header = [
        "clause",
        "status",
        "rules and cases",
        "invariants and monotone properties",
        "readings",
        "examples",
    ]
    what = "Examples are those whose evaluation passes through the clause"
    parts = [
        front_matter(hide_toc=True),  # the matrix needs the width more than a contents list
        "# Traceability matrix",
        f"Every clause of {statute.name}, what encodes it, what proves it and what exercises it. "
        + what
        + (
            "; tests are those that name one of its rules, invariants or its citation."
            if tests is not None
            else "."
        ),
        "## Totals",
        totals,
        verdict,
        "## Clause by clause",
        stacked_table([*header, *(["tests"] if tests is not None else [])], rows),
    ]
    if tests is not None:
        tests_list = [
            f"{site.cite(clause, here)}\n:   "
            + ", ".join(f"`{name.split('::')[1]}` ({name.split('::')[0]})" for name in named)
            for clause, named in by_clause
            if named
        ]
        parts += ["## Tests naming each clause", "\n\n".join(tests_list) or "None."]
    return "\n\n".join(parts) + "\n"
