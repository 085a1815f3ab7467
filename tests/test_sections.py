"""Encodings of several sections, and rules naming another section's rule by its citation
(tests/other_statutes/relief.lex)."""

from __future__ import annotations

import shutil
from fractions import Fraction
from pathlib import Path

import pytest
from conftest import lextrace_command

from lextrace import exits, load_statute
from lextrace.cli import main
from lextrace.dsl import citations
from lextrace.dsl.scaffold import build_sections
from lextrace.verify.diff import clause_changes

OTHER = Path(__file__).resolve().parent / "other_statutes"
RELIEF = OTHER / "relief.lex"


def test_each_section_has_its_clauses_citations_and_anchors() -> None:
    statute = load_statute(RELIEF).ast
    assert [s.label for s in statute.sections] == ["1.", "2."]
    by_citation = {statute.citation(c): c for c in statute.clauses}
    assert list(by_citation) == [
        "Plain Relief Act § 1",
        "Plain Relief Act § 1(a)",
        "Plain Relief Act § 1(b)",
        "Plain Relief Act § 2",
        "Plain Relief Act § 2(a)",
        "Plain Relief Act § 2(b)",
    ]
    assert [c.short_citation for c in statute.clauses] == [
        "section 1",
        "section 1(a)",
        "section 1(b)",
        "section 2",
        "section 2(a)",
        "section 2(b)",
    ]
    assert [c.anchor for c in statute.clauses] == [
        "section-1",
        "1-a",
        "1-b",
        "section-2",
        "2-a",
        "2-b",
    ]
    assert statute.definitions["relief"].clause.section is statute.sections[1]


def test_section_and_the_section_sign_name_the_same_clause() -> None:
    statute = load_statute(RELIEF).ast
    clause = citations.resolve(statute, "section 1(b)")
    assert clause is not None
    assert citations.resolve(statute, "§ 1(b)") is clause
    assert citations.resolve(statute, "§ 9(b)") is None


def test_a_statute_of_one_section_keeps_its_short_citations() -> None:
    statute = load_statute(OTHER / "fringe.lex").ast
    assert len(statute.sections) == 1
    clause = statute.clauses[1]
    assert clause.short_citation == "(c)" and clause.anchor == "c"
    assert citations.resolve(statute, "(c)") is clause
    assert citations.resolve(statute, statute.citation(clause)) is clause


def test_rules_named_under_a_citation_are_evaluated_and_traced_with_it() -> None:
    statute = load_statute(RELIEF)
    result = statute.evaluate({"income": "6500", "disabled": True})
    assert result.values["qualifying_income"] == Fraction(4500)
    assert result.values["rate"] == Fraction(1, 5)
    assert result.values["relief"] == Fraction(500)
    explained = statute.evaluate({"income": "4000"}, trace=True).explain()
    assert 'rate under "section 1(b)"' in explained
    assert "relief_before_limit = $200.00  [Plain Relief Act § 2(a)]" in explained
    assert "rate = 0.1  [Plain Relief Act § 1(b)]" in explained


def test_check_verify_and_the_cases_pass_on_an_encoding_of_two_sections() -> None:
    assert main(["check", "-e", str(RELIEF)]) == exits.OK
    assert main(["verify", "-e", str(RELIEF)]) == exits.OK
    assert main(["test", str(OTHER / "relief.cases.yaml")]) == exits.OK


def _variant(tmp_path: Path, old: str, new: str) -> Path:
    shutil.copy(OTHER / "relief.txt", tmp_path / "relief.txt")
    text = RELIEF.read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "relief.lex"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("old", "new", "where", "words"),
    [
        (
            'rate under "section 1(b)"',
            "rate",
            "26:7",
            [
                "'rate' is defined in another section (section 1(b))",
                'write rate under "section 1(b)"',
            ],
        ),
        (
            'under "section 1(b)"',
            'under "section 1(c)"',
            "26:18",
            ['no clause of this encoding is cited "section 1(c)"', 'did you mean "section 1'],
        ),
        (
            'under "section 1(b)"',
            'under "section 1(a)"',
            "26:18",
            [
                "'rate' is not under section 1(a): it is defined in section 1(b)",
                'write rate under "section 1(b)"',
            ],
        ),
        (
            "min(relief_before_limit, $500)",
            'min(relief_before_limit + income under "section 1", $500)',
            "29:52",
            ["'income' is an input, a fact of the scenario", "without 'under'"],
        ),
        (
            "min(relief_before_limit, $500)",
            'min(relief_before_limit + income under "section 9", $500)',
            "29:52",
            [
                "'income' is an input, a fact of the scenario: only a rule or a 'cases' definition"
                ' sits under a citation, and no clause of this encoding is cited "section 9"'
            ],
        ),
        (
            "section 2. ",
            "section 1. ",
            "22:1",
            ["a second section numbered '1' (the first is at line 12)"],
        ),
        (
            '  cite "Plain Relief Act § {section}{clauses}"\n',
            "",
            "21:1",
            ["an encoding of several sections needs a citation style naming {section}"],
        ),
    ],
    ids=[
        "uncited",
        "no-such-clause",
        "not-there",
        "input",
        "input-under-no-clause",
        "same-number",
        "no-section-in-cite",
    ],
)
def test_bad_cross_references_and_sections_are_refused_where_they_are_written(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    old: str,
    new: str,
    where: str,
    words: list[str],
) -> None:
    path = _variant(tmp_path, old, new)
    assert main(["check", "-e", str(path)]) == exits.BAD_INPUT
    err = capsys.readouterr().err
    assert f"{path}:{where}: error" in err
    for word in words:
        assert word in err
    assert "Traceback" not in err


def test_a_citation_inside_one_section_may_be_written_and_is_checked(tmp_path: Path) -> None:
    good = _variant(
        tmp_path,
        "min(relief_before_limit, $500)",
        'min(relief_before_limit under "section 2(a)", $500)',
    )
    assert main(["check", "-e", str(good)]) == exits.OK
    bad = _variant(
        tmp_path,
        "min(relief_before_limit, $500)",
        'min(relief_before_limit under "section 2(b)", $500)',
    )
    assert main(["check", "-e", str(bad)]) == exits.BAD_INPUT


def test_init_splits_a_text_of_several_sections_and_check_accepts_it(tmp_path: Path) -> None:
    sections = build_sections((OTHER / "relief.txt").read_text(encoding="utf-8"))
    assert [s.label for s in sections] == ["1.", "2."]
    assert [c.label for c in sections[1].children] == ["(a)", "(b)"]
    # A heading inside a paragraph, or of another form, is words.
    (one,) = build_sections("§ 5. Heading.\n(a) Words\n2. more words.\n\nSec. 6. Still words.\n")
    assert [c.label for c in one.children] == ["(a)"]
    shutil.copy(OTHER / "relief.txt", tmp_path / "relief.txt")
    target = tmp_path / "new.lex"
    init = ["init", str(tmp_path / "relief.txt"), "--name", "Plain Relief Act", "-o", str(target)]
    assert main(init) == exits.OK
    assert 'cite "{statute} § {section}{clauses}"' in target.read_text(encoding="utf-8")
    statute = load_statute(target).ast
    assert [statute.citation(c) for c in statute.clauses if c.path] == [
        "Plain Relief Act § 1(a)",
        "Plain Relief Act § 1(b)",
        "Plain Relief Act § 2(a)",
        "Plain Relief Act § 2(b)",
    ]


def test_diff_matches_the_clauses_of_each_section_by_number(tmp_path: Path) -> None:
    amended = _variant(tmp_path, "the relief", "the relief")
    amended.write_text(amended.read_text(encoding="utf-8").replace("$500", "$600"), "utf-8")
    official = tmp_path / "relief.txt"
    official.write_text(
        official.read_text(encoding="utf-8").replace("exceed $500", "exceed $600"),
        encoding="utf-8",
    )
    changes = clause_changes(load_statute(RELIEF).ast, load_statute(amended).ast)
    assert [(c.citation, c.status) for c in changes] == [("section 2(b)", "reworded")]


def test_the_site_anchors_each_section_and_links_the_clauses_a_rule_refers_to(
    tmp_path: Path,
) -> None:
    done = lextrace_command("site", "-e", str(RELIEF), "-o", str(tmp_path / "out"), "--strict")
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "out" / "statute" / "index.html").read_text(encoding="utf-8")
    for anchor in ("section-1", "1-a", "1-b", "section-2", "2-a", "2-b"):
        assert f'id="{anchor}"' in page, anchor
    assert 'Refers to: <a href="./#1-b">section 1(b)</a>, <a href="./#1-a">section 1(a)</a>' in page
