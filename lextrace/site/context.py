"""What every generated page draws on: the statute, its worked examples, and links between
pages.

A `Site` is one statute's pages: `folder` is where they go under docs/ ("" for the top of the
site, `slug/` for one statute among several), and where its examples, cases, amendment drafts
and tests come from are parameters (see `project.py` for those of the project's own site).
"""

from __future__ import annotations

import dataclasses
import json
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from lextrace.api import Result, Statute, load_statute
from lextrace.dsl import ast
from lextrace.dsl.evaluator import Step
from lextrace.dsl.scenario import read_scenario_file
from lextrace.periods import PeriodResult
from lextrace.statute import BUNDLED
from lextrace.verify.apart import Apart
from lextrace.verify.report import Report, run

from .provenance import Provenance, collect

HOME_PAGE = "index.md"
STATUTE_PAGE = "statute.md"
MATRIX_PAGE = "matrix.md"
READINGS_PAGE = "readings.md"
PROOF_PAGE = "proof-report.md"
EXAMPLES_INDEX = "examples/index.md"
AMENDMENTS_INDEX = "amendments/index.md"

# Writes a population of scenarios into a folder; returns its file and how the pages name it.
Population = Callable[[Path], tuple[Path, str]]


class SiteError(ValueError):
    """A source of the site that cannot be used (a cases file or an examples folder); the
    message names the file, and the field when there is one."""


def relative(from_page: str, to_page: str, anchor: str = "") -> str:
    """Returns a link from one page of the site to another (both as paths under docs/)."""
    target = posixpath.relpath(to_page, posixpath.dirname(from_page) or ".")
    return f"{target}#{anchor}" if anchor else target


def reading_anchor(reading_id: str) -> str:
    """Returns the anchor of a reading on the register page, e.g. `i8`."""
    return reading_id.lower()


def featured_clause(statute: ast.Statute) -> ast.Clause | None:
    """Returns the clause the statute page shows as the example of an anchor: the first
    subclause that holds a rule (or the first subclause, or None when there is none)."""
    subclauses = [c for c in statute.clauses if c.path]
    with_rule = [c for c in subclauses if any(isinstance(i, ast.Rule) for i in c.items)]
    return (with_rule or subclauses or [None])[0]


def slug(text: str) -> str:
    """Returns a name as a page name: `Labor harmony, 300 jobs` reads `labor-harmony-300-jobs`."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "example"


@dataclass(frozen=True)
class Example:
    """One worked example (a scenario file, or a case of a cases file) and its traced
    evaluation; `expected` holds the results a case expects, when it is one."""

    stem: str
    path: Path
    scenario: dict[str, object]
    result: Result | PeriodResult
    page: str
    name: str = ""
    expected: dict[str, object] | None = None
    source: Path | None = None  # the cases file of a case
    # The name of the case whose scenario is this scenario file's (its page shows both).
    case: str = ""

    @property
    def title(self) -> str:
        """The example in words: `distressed-manufacturer` reads `Distressed manufacturer`."""
        words = self.name or self.stem.replace("-", " ")
        return words[:1].upper() + words[1:]


@dataclass
class Site:
    """The sources of one statute's pages: the repository root, the encoding, and where its
    pages go and its examples, cases, amendment drafts and tests come from."""

    root: Path
    statute: Statute = field(default_factory=load_statute)
    folder: str = ""
    examples_dir: Path | None = None
    # Further folders of worked examples (after those of `examples_dir`).
    more_examples: tuple[Path, ...] = ()
    cases: Path | None = None
    amendment_drafts: tuple[tuple[str, Path], ...] = ()  # (name, encoding) of each draft
    tests_dir: Path | None = None
    tests_mentioning: str | None = None  # only the test files that name it count
    population: Population | None = None
    guides: bool = False  # whether the project's hand-written guides are part of the site
    others: tuple[Statute, ...] = ()  # the other statutes of the same site, for the provenance
    # The encoding's file, when known (a parse read from the cache may name the file by the
    # path it was first read from, relative to another folder).
    encoding_file: Path | None = None
    # The proof runs started for the whole build (each in a process of its own), if any.
    proofs: Apart | None = None

    def proved(self, statute: ast.Statute) -> Report:
        """Returns the proof report of this statute or of one of its drafts: the one started
        for the build when there is one, else proved here."""
        return self.proofs.report(statute) if self.proofs is not None else run(statute)

    @property
    def ast(self) -> ast.Statute:
        """The parsed encoding."""
        return self.statute.ast

    @property
    def encoding(self) -> Path:
        """The encoding's file."""
        return self.encoding_file or Path(self.ast.path)

    @property
    def default_encoding(self) -> bool:
        """Whether the encoding is the one the commands read when given none."""
        return self.encoding.resolve() == BUNDLED.resolve()

    def path(self, page: str) -> str:
        """Returns the path under docs/ of one of this statute's pages, e.g. `statute.md`."""
        return f"{self.folder}{page}"

    def clause_link(self, clause: ast.Clause, from_page: str) -> str:
        """Returns the link from a page to a clause's anchor on the annotated statute."""
        return relative(from_page, self.path(STATUTE_PAGE), clause.anchor)

    def cite(self, clause: ast.Clause, from_page: str) -> str:
        """Returns a clause's citation as a Markdown link to its anchor."""
        citation = clause.own_citation
        return f"[{citation}]({self.clause_link(clause, from_page)})"

    def reading_link(self, reading_id: str, from_page: str) -> str:
        """Returns a Markdown link to a reading of the interpretation register."""
        target = relative(from_page, self.path(READINGS_PAGE), reading_anchor(reading_id))
        return f"[{reading_id}]({target})"

    def shown(self, path: Path) -> str:
        """Returns a source file's path as the pages show it: relative to the root when it is
        under it."""
        try:
            return path.resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return str(path)

    @cached_property
    def provenance(self) -> Provenance:
        """What this build is made from: time, commit, hashes of the sources, tool versions."""
        return collect(self.root, self.ast, [other.ast for other in self.others], self.encoding)

    @cached_property
    def examples(self) -> list[Example]:
        """Every worked example: the scenario files of `examples_dir` (sorted by name), then
        the cases of `cases` that expect results (in file order), each evaluated with its trace.
        Raises SiteError for a scenario or cases file that cannot be used."""
        from .cases import read_cases

        found: list[Example] = []
        if self.examples_dir is not None:
            if not self.examples_dir.is_dir():
                raise SiteError(f"{self.examples_dir}: not a folder of scenario files")
            paths = sorted(self.examples_dir.glob("*.json"))
            for folder in self.more_examples:
                paths += sorted(folder.glob("*.json"))
            for path in paths:
                scenario = read_scenario_file(path)
                if not isinstance(scenario, dict):
                    raise SiteError(f"{path}: not a scenario object")
                result = self.statute.evaluate(scenario, trace=True, source=str(path))
                page = self.path(f"examples/{path.stem}.md")
                found.append(Example(path.stem, path, scenario, result, page))
        if self.cases is not None:
            taken = {example.stem for example in found}
            # A case of a scenario file's own scenario is that file's example, which then shows
            # what the case expects: one page for one scenario.
            by_scenario = {_canonical(e.scenario): i for i, e in enumerate(found)}
            for case in read_cases(self.cases):
                same = by_scenario.get(_canonical(case.scenario))
                if same is not None and found[same].expected is None:
                    found[same] = dataclasses.replace(
                        found[same], expected=case.expect, source=self.cases, case=case.name
                    )
                    continue
                stem = slug(case.name)
                while stem in taken:
                    stem += "-2"
                taken.add(stem)
                result = self.statute.evaluate(case.scenario, trace=True, source=case.source)
                page = self.path(f"examples/{stem}.md")
                found.append(
                    Example(
                        stem,
                        case.path,
                        case.scenario,
                        result,
                        page,
                        case.name,
                        case.expect,
                        self.cases,
                    )
                )
        return found

    def readings_rested_on(self, example: Example) -> set[str]:
        """Returns the IDs of the readings an example's evaluation rests on: for every rule and
        case its trace passed through, the readings that rule or case is written under and
        those it tested (`reading IX is ...`)."""
        return {reading for step in steps_of(example.result) for reading in step.readings}

    def clauses_exercised(self, example: Example) -> set[int]:
        """Returns the ids of the clauses an example's evaluation passed through: the clause of
        every evaluated rule and of every case that chose a value, and the clauses above them."""
        seen: set[int] = set()
        for step in steps_of(example.result):
            for clause in (step.clause, step.case.clause if step.case else None):
                while clause is not None:
                    seen.add(id(clause))
                    clause = clause.parent
        return seen


def steps_of(result: Result | PeriodResult) -> list[Step]:
    """Returns every step of a traced result: of each period's, for a scenario of periods."""
    results = result.results if isinstance(result, PeriodResult) else [result]
    steps: list[Step] = []
    for own in results:
        assert own.trace is not None  # type: ignore[attr-defined]
        steps.extend(own.trace.steps)  # type: ignore[attr-defined]
    return steps


def _canonical(scenario: object) -> str:
    """Returns a scenario as one text, the same for equal scenarios whatever their key order."""
    return json.dumps(scenario, sort_keys=True, default=str)
