"""What every generated page draws on: the statute, its examples, and links between pages."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from lextrace.api import Result, Statute, load_statute
from lextrace.dsl import ast
from lextrace.dsl.scenario import read_scenario_file

from .provenance import Provenance, collect

STATUTE_PAGE = "statute.md"
MATRIX_PAGE = "matrix.md"
READINGS_PAGE = "readings.md"
PROOF_PAGE = "proof-report.md"
EXAMPLES_INDEX = "examples/index.md"
AMENDMENTS_INDEX = "amendments/index.md"


def relative(from_page: str, to_page: str, anchor: str = "") -> str:
    """Returns a link from one page of the site to another (both as paths under docs/)."""
    target = posixpath.relpath(to_page, posixpath.dirname(from_page) or ".")
    return f"{target}#{anchor}" if anchor else target


def reading_anchor(reading_id: str) -> str:
    """Returns the anchor of a reading on the register page, e.g. `i8`."""
    return reading_id.lower()


@dataclass(frozen=True)
class Example:
    """One bundled scenario file and its traced evaluation under the default readings."""

    stem: str
    path: Path
    scenario: dict[str, object]
    result: Result

    @property
    def title(self) -> str:
        """The file name in words: `distressed-manufacturer` reads `Distressed manufacturer`."""
        words = self.stem.replace("-", " ")
        return words[:1].upper() + words[1:]

    @property
    def page(self) -> str:
        """The example's page under docs/."""
        return f"examples/{self.stem}.md"


@dataclass
class Site:
    """The sources of the generated pages: the repository root and the statute it encodes."""

    root: Path
    statute: Statute = field(default_factory=load_statute)

    @property
    def ast(self) -> ast.Statute:
        """The parsed encoding."""
        return self.statute.ast

    def clause_link(self, clause: ast.Clause, from_page: str) -> str:
        """Returns the link from a page to a clause's anchor on the annotated statute."""
        return relative(from_page, STATUTE_PAGE, clause.anchor)

    def cite(self, clause: ast.Clause, from_page: str) -> str:
        """Returns a clause's citation as a Markdown link to its anchor."""
        citation = clause.own_citation
        return f"[{citation}]({self.clause_link(clause, from_page)})"

    def reading_link(self, reading_id: str, from_page: str) -> str:
        """Returns a Markdown link to a reading of the interpretation register."""
        return f"[{reading_id}]({relative(from_page, READINGS_PAGE, reading_anchor(reading_id))})"

    @cached_property
    def provenance(self) -> Provenance:
        """What this build is made from: time, commit, hashes of the sources, tool versions."""
        return collect(self.root, self.ast)

    @cached_property
    def examples(self) -> list[Example]:
        """Every scenario file in examples/, evaluated with its trace (sorted by name)."""
        found = []
        for path in sorted((self.root / "examples").glob("*.json")):
            scenario = read_scenario_file(path)
            assert isinstance(scenario, dict), f"{path}: not a scenario object"
            result = self.statute.evaluate(scenario, trace=True, source=str(path))
            found.append(Example(path.stem, path, scenario, result))
        return found

    def readings_rested_on(self, example: Example) -> set[str]:
        """Returns the IDs of the readings an example's evaluation rests on: for every rule and
        case its trace passed through, the readings that rule or case is written under and
        those it tested (`reading IX is ...`)."""
        assert example.result.trace is not None
        return {reading for step in example.result.trace.steps for reading in step.readings}

    def clauses_exercised(self, example: Example) -> set[int]:
        """Returns the ids of the clauses an example's evaluation passed through: the clause of
        every evaluated rule and of every case that chose a value, and the clauses above them."""
        assert example.result.trace is not None
        seen: set[int] = set()
        for step in example.result.trace.steps:
            for clause in (step.clause, step.case.clause if step.case else None):
                while clause is not None:
                    seen.add(id(clause))
                    clause = clause.parent
        return seen
