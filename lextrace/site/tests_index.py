"""Which tests name each clause: a static reading of the test suite, for the matrix.

A test names a clause when its body names one of the clause's rules, invariants or monotone
properties, or quotes the clause's citation, such as "(c)(1)(j)". The test files are parsed, never
run or imported.
"""

from __future__ import annotations

import ast as pyast
import re
from dataclasses import dataclass
from pathlib import Path

from lextrace.dsl import ast

_CITATION = re.compile(r"(?:\([a-z0-9]+\))+")


@dataclass(frozen=True)
class NamedTest:
    """One test function: its pytest id and the names and citations it mentions."""

    id: str
    names: frozenset[str]
    citations: frozenset[str]


def read_tests(folder: Path, mentioning: str | None = None) -> list[NamedTest]:
    """Returns every `test_*` function of the `test_*.py` files in `folder` (only of those whose
    text contains `mentioning`, when given), in file order."""
    found: list[NamedTest] = []
    for path in sorted(folder.glob("test_*.py")):
        text = path.read_text(encoding="utf-8")
        if mentioning is not None and mentioning not in text:
            continue
        module = pyast.parse(text, filename=str(path))
        for node in pyast.walk(module):
            if isinstance(node, pyast.FunctionDef) and node.name.startswith("test_"):
                names: set[str] = set()
                citations: set[str] = set()
                for inner in pyast.walk(node):
                    if isinstance(inner, pyast.Name):
                        names.add(inner.id)
                    elif isinstance(inner, pyast.Attribute):
                        names.add(inner.attr)
                    elif isinstance(inner, pyast.Constant) and isinstance(inner.value, str):
                        names.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", inner.value))
                        citations.update(_CITATION.findall(inner.value))
                test_id = f"{path.name}::{node.name}"
                found.append(NamedTest(test_id, frozenset(names), frozenset(citations)))
    return found


def clause_names(statute: ast.Statute, clause: ast.Clause) -> set[str]:
    """Returns the names declared in a clause: rules, cases, invariants, monotone properties."""
    names = {
        item.name
        for item in clause.items
        if isinstance(item, ast.Rule | ast.Cases | ast.Case | ast.Invariant)
    }
    names.update(m.name for m in statute.monotones if m.clause is clause)
    return names


def tests_naming(statute: ast.Statute, clause: ast.Clause, tests: list[NamedTest]) -> list[str]:
    """Returns the ids of the tests that name the clause (see the module docstring)."""
    names = clause_names(statute, clause)
    citation = clause.short_citation
    return [
        test.id for test in tests if names & test.names or (citation and citation in test.citations)
    ]
