"""`lextrace init`: a first encoding of any official text that `lextrace check` passes at once,
with the statute's own clause tree, and none of its clauses encoded."""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest
from conftest import ROOT, lextrace_command

from lextrace import exits, load_statute
from lextrace.cli import main
from lextrace.dsl.coverage import NOT_YET_ENCODED, summary
from lextrace.dsl.fidelity import carried_text, normalise
from lextrace.dsl.loader import analyse
from lextrace.dsl.scaffold import build_sections
from lextrace.site import matrix_page
from lextrace.site.context import Site

OTHER = ROOT / "tests" / "other_statutes"
BUNDLED_TEXT = ROOT / "statute" / "nj-34-1b-343.txt"

NESTED = """§ 5. Widgets.
(a) General rule. A widget is taxed—
(1) at 10 percent, if—
(A) it is blue; or
(B) it is red, and—
(i) it is large; or
(ii) it is small, unless—
(I) it is round; or
(II) it is square; and
(2) at 5 percent otherwise, as paragraph (1) of this subsection says.
(b) Exception. A widget described in subsection (a) is not taxed.
"""


def init(tmp_path: Path, official: Path, *args: str, output: str = "new.lex") -> Path:
    """Runs `lextrace init` on a copy of `official` in `tmp_path`; returns the encoding."""
    copy = tmp_path / official.name
    if not copy.exists():
        shutil.copyfile(official, copy)
    target = tmp_path / output
    assert main(["init", str(copy), "-o", str(target), *args]) == exits.OK
    return target


def citations(path: Path) -> list[str]:
    """The citations of every clause of the encoding at `path`, in document order."""
    statute = load_statute(path).ast
    return [statute.citation(clause) for clause in statute.clauses]


def usable(path: Path) -> None:
    analysis = analyse(path)
    assert analysis.errors == [], [d.message for d in analysis.errors]


def test_the_bundled_text_gets_the_bundled_clause_tree(tmp_path: Path) -> None:
    written = init(tmp_path, BUNDLED_TEXT, "--name", "N.J.S.A. 34:1B-343")
    usable(written)
    assert citations(written) == citations(ROOT / "statute" / "nj-34-1b-343.lex")
    statute = load_statute(written).ast
    assert carried_text(statute) == normalise(BUNDLED_TEXT.read_text(encoding="utf-8"))
    # (c) has no words of its own: it introduces (c)(1); every other clause is to be encoded.
    counts = summary(statute)
    assert counts["encoded"] == 0
    assert counts[NOT_YET_ENCODED] == len(statute.clauses) - 2  # the section, and (c)
    assert counts["introductory"] == 1


@pytest.mark.parametrize(
    ("text", "cite"),
    [("fringe.txt", "{statute} § {section}{clauses}"), ("ratio.txt", None)],
)
def test_other_statutes_get_their_encodings_clause_trees(
    tmp_path: Path, text: str, cite: str | None
) -> None:
    encoding = OTHER / text.replace(".txt", ".lex")
    name = load_statute(encoding).ast.name
    written = init(tmp_path, OTHER / text, "--name", name, *(["--cite", cite] if cite else []))
    usable(written)
    assert citations(written) == citations(encoding)


@pytest.mark.parametrize("encoding", sorted((ROOT / "statute").glob("*.lex")), ids=lambda p: p.stem)
def test_every_bundled_official_text_gets_an_encoding_that_checks(
    tmp_path: Path, encoding: Path
) -> None:
    statute = load_statute(encoding).ast
    text = encoding.parent / statute.official
    written = init(tmp_path, text, "--name", statute.name, "--cite", statute.cite)
    usable(written)
    assert summary(load_statute(written).ast)["encoded"] == 0


def test_the_us_code_subsection_is_cited_by_its_section_number(tmp_path: Path) -> None:
    written = init(
        tmp_path,
        OTHER / "fringe.txt",
        "--name",
        "26 U.S.C.",
        "--cite",
        "{statute} § {section}{clauses}",
    )
    assert citations(written)[-1] == "26 U.S.C. § 132(c)(1)(B)"
    assert 'section 132. "Certain fringe benefits." text_only "not yet encoded" {' in (
        written.read_text(encoding="utf-8")
    )


def test_nesting_follows_the_label_sequences(tmp_path: Path) -> None:
    official = tmp_path / "widgets.txt"
    official.write_text(NESTED, encoding="utf-8")
    written = init(
        tmp_path, official, "--name", "Widget Act", "--cite", "{statute} § {section}{clauses}"
    )
    usable(written)
    statute = load_statute(written).ast
    assert statute.sections[0].label == "§ 5."
    assert [c.short_citation for c in statute.clauses] == [
        "",
        "(a)",
        "(a)(1)",
        "(a)(1)(A)",
        "(a)(1)(B)",
        "(a)(1)(B)(i)",
        "(a)(1)(B)(ii)",
        "(a)(1)(B)(ii)(I)",
        "(a)(1)(B)(ii)(II)",
        "(a)(2)",
        "(b)",
    ]
    assert statute.citation(statute.clauses[-1]) == "Widget Act § 5(b)"
    # A reference inside the words stays words.
    assert "paragraph (1) of this subsection says." in statute.clauses[-2].words


def test_an_i_after_h_is_a_letter_and_after_c_a_roman_numeral() -> None:
    text = "7. Heading.\n(c) See:\n(i) one;\n(ii) two.\n" + "".join(
        f"({letter}) {letter.upper()}.\n" for letter in "defghi"
    )
    (tree,) = build_sections(text)
    top = tree.children
    assert [c.label for c in top] == ["(c)", "(d)", "(e)", "(f)", "(g)", "(h)", "(i)"]
    assert [c.label for c in top[0].children] == ["(i)", "(ii)"]


def test_in_an_indented_text_a_label_is_the_sibling_of_the_open_level_as_far_in() -> None:
    # (i) after (d)(2)(B), at the margin as (d) is: a letter after skipped ones, not a numeral.
    text = (
        "7. Heading.\n(a) A.\n(d) Limit.\n  (2) Amount.\n    (A) the excess of--\n"
        "      (i) income, over\n      (ii) the threshold, bears to\n    (B) $10,000.\n"
        "(i) Refundable part. 40 percent of the credit.\n"
    )
    (tree,) = build_sections(text)
    assert [c.label for c in tree.children] == ["(a)", "(d)", "(i)"]
    (paragraph,) = tree.children[1].children
    assert [c.label for c in paragraph.children] == ["(A)", "(B)"]
    assert paragraph.children[1].children == []
    # Flat, the same text keeps reading (i) as the first numeral under (B).
    flat = "\n".join(line.strip() for line in text.splitlines()) + "\n"
    (tree,) = build_sections(flat)
    assert [c.label for c in tree.children] == ["(a)", "(d)"]


def test_a_letter_read_as_a_numeral_is_read_again_when_a_label_repeats() -> None:
    # Unindented, (i) after (d)(3) first opens numerals under (3); its (1) is then a second
    # (d)(1). Read again as the letter after (d), letters skipped, every label is once.
    text = (
        "25A. Credit.\n(a) Allowance.\n(b) Hope.\n(1) In general.\n(2) Limit.\n"
        "(d) Limitation.\n(1) In general.\n(2) Amount.\n(3) Joint.\n"
        "(i) American Opportunity.\n(1) Credit.\n(2) Refund.\n"
    )
    (tree,) = build_sections(text)
    assert [c.label for c in tree.children] == ["(a)", "(b)", "(d)", "(i)"]
    assert [c.label for c in tree.children[2].children] == ["(1)", "(2)", "(3)"]
    assert tree.children[2].children[2].children == []
    assert [c.label for c in tree.children[3].children] == ["(1)", "(2)"]
    # Where no label repeats, a numeral stays a numeral.
    (tree,) = build_sections("7. Heading.\n(c) See:\n(i) one;\n(ii) two.\n(d) D.\n")
    assert [c.label for c in tree.children[0].children] == ["(i)", "(ii)"]


def test_a_label_that_ends_a_reference_begun_on_the_line_before_is_words() -> None:
    (tree,) = build_sections(
        "7. Heading.\n(a) Credit.\n(b) Refund. 40 percent of the credit allowed under subsection\n"
        "(a) as is determined after the limitation shall be refunded.\n"
    )
    _, b = tree.children
    (words,) = b.items
    assert " ".join(words) == (  # type: ignore[arg-type]
        "Refund. 40 percent of the credit allowed under subsection (a) as is determined "
        "after the limitation shall be refunded."
    )


def test_a_list_item_beginning_with_is_is_a_clause_not_a_reference() -> None:
    (tree,) = build_sections(
        "1. Heading.\n(a) The term student means a student who--\n"
        "(1) meets the requirements, and\n(2) is carrying at least half the load.\n"
        "(b) See paragraph\n(2) is carrying, as said.\n"
    )
    a, b = tree.children
    assert [c.label for c in a.children] == ["(1)", "(2)"]
    assert " ".join(a.children[1].items[0]) == "is carrying at least half the load."  # type: ignore[arg-type]
    # After "paragraph", the same words continue a reference: no clause (b)(2).
    assert b.children == []


def test_inline_labels_split_where_the_text_lays_them_out() -> None:
    (tree,) = build_sections(
        "4. a. The amount: (1) if one; or (2) if two; and (3) per (1) of this. Later words.\n"
        "b. Inserted: (1) one; (1A) one and a half; (2) two.\n"
    )
    a, b = tree.children
    assert [c.label for c in a.children] == ["(1)", "(2)", "(3)"]
    assert a.children[-1].items == [["per", "(1)", "of", "this.", "Later", "words."]]
    assert [c.label for c in b.children] == ["(1)", "(1A)", "(2)"]


def test_a_text_without_labels_needs_a_section_label(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    official = tmp_path / "plain.txt"
    official.write_text(
        '\n\nThe tax is ten dollars.\n\nIt is paid "yearly" \\ once.\n', encoding="utf-8"
    )
    target = tmp_path / "plain.lex"
    assert (
        main(["init", str(official), "--name", "Plain Act", "-o", str(target)]) == exits.BAD_INPUT
    )
    err = capsys.readouterr().err
    assert f"{official}:3:1: error: no section heading" in err
    assert "--section" in err
    assert not target.exists()
    written = init(
        tmp_path, official, "--name", "Plain Act", "--section", "Sec. 1", output="plain.lex"
    )
    usable(written)
    text = written.read_text(encoding="utf-8")
    assert 'section "Sec. 1" unlabelled "The tax is ten dollars."' in text
    assert r'"It is paid \"yearly\" \\ once."' in text
    statute = load_statute(written).ast
    assert statute.sections[0].texts[1].words == 'It is paid "yearly" \\ once.'
    assert statute.citation(statute.sections[0]) == "Plain Act"


def test_check_and_the_matrix_count_no_clause_encoded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    written = init(tmp_path, OTHER / "fringe.txt", "--name", "26 U.S.C.")
    capsys.readouterr()
    assert main(["check", "-e", str(written)]) == exits.OK
    out = capsys.readouterr().out
    assert "4 clauses: 0 encoded, 4 not yet encoded" in out
    assert "26 U.S.C.(c)(1)(A): not yet encoded" in out
    # A draft is usable, not finished: --strict insists that every clause is accounted for,
    # and verify proves nothing of it.
    assert main(["check", "--strict", "-e", str(written)]) == exits.BAD_INPUT
    assert "4 clauses not yet encoded (--strict): 26 U.S.C.(c)" in capsys.readouterr().err
    assert main(["verify", "-e", str(written)]) == exits.FAILED
    assert "0 checks of 26 U.S.C.: nothing is proved" in capsys.readouterr().out
    page = matrix_page.page(Site(tmp_path, load_statute(written)))  # no examples, no tests
    assert "| encoded | 0 |" in page
    assert "| not yet encoded | 4 |" in page
    assert "| text only |" not in page


def test_an_existing_output_is_kept_unless_forced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "ratio.lex"
    target.write_text("keep me\n", encoding="utf-8")
    args = ["init", str(OTHER / "ratio.txt"), "--name", "Ratio Act s.3", "-o", str(target)]
    assert main(args) == exits.BAD_INPUT
    assert "exists; give --force" in capsys.readouterr().err
    assert target.read_text(encoding="utf-8") == "keep me\n"
    assert main([*args, "--force"]) == exits.OK
    assert target.read_text(encoding="utf-8").startswith("# Written by `lextrace init`")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ratio.lex"]  # no temporary left


def test_the_official_text_is_never_overwritten(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    official = tmp_path / "ratio.txt"
    shutil.copyfile(OTHER / "ratio.txt", official)
    args = ["init", str(official), "--name", "R", "-o", str(official), "--force"]
    assert main(args) == exits.BAD_INPUT
    assert "is the official text itself" in capsys.readouterr().err
    assert official.read_bytes() == (OTHER / "ratio.txt").read_bytes()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--cite", "{foo}{clauses}"], "the citation style names {foo}"),
        (["--name", " "], "--name: the statute's name is empty"),
    ],
)
def test_bad_options_write_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    target = tmp_path / "new.lex"
    call = ["init", str(OTHER / "ratio.txt"), "--name", "R", "-o", str(target), *args]
    assert main(call) == exits.BAD_INPUT
    assert message in capsys.readouterr().err
    assert not target.exists()


def test_an_unreadable_official_text_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    official = tmp_path / "latin1.txt"
    official.write_bytes("75. a. caf\xe9".encode("latin-1"))
    call = ["init", str(official), "--name", "R", "-o", str(tmp_path / "new.lex")]
    assert main(call) == exits.BAD_INPUT
    assert f"{official}:1:1: error: cannot read the official text: is not UTF-8" in (
        capsys.readouterr().err
    )


def test_an_unusable_result_names_the_lines_of_the_text_it_came_from(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # "(a) as is ..." begins a line after "under", which names no part of a text: read as a
    # second clause (a). The encoding is not written; the error names the text's line.
    official = tmp_path / "text.txt"
    official.write_text(
        "7. Heading.\n(a) Credit. The credit is $10.\n(b) Refund. The credit under\n"
        "(a) as is determined is refunded.\n",
        encoding="utf-8",
    )
    target = tmp_path / "new.lex"
    assert main(["init", str(official), "--name", "R", "-o", str(target)]) == exits.BAD_INPUT
    err = capsys.readouterr().err
    assert "clause (a) appears twice" in err
    assert f"from {official}:4, where those words begin" in err
    assert "join the two lines in the text" in err
    assert not target.exists()


def walk_through() -> str:
    """The language guide's section on encoding a new statute."""
    guide = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    start = guide.index("## Encoding a new statute, step by step")
    return guide[start : guide.index("\n## ", start + 1)]


def blocks(text: str, kind: str) -> list[str]:
    """The fenced blocks of one kind in `text`, in order."""
    return re.findall(rf"^```{kind}\n(.*?)^```", text, flags=re.DOTALL | re.MULTILINE)


def run_block(block: str, cwd: Path) -> list[str]:
    """Runs every `lextrace` command of a shell block in `cwd`; returns their outputs."""
    outputs = []
    for line in block.splitlines():
        words = shlex.split(line, comments=True)
        if not words:
            continue
        assert words[0] == "lextrace", line
        completed = lextrace_command(*words[1:], cwd=cwd)
        assert completed.returncode == exits.OK, (line, completed.stderr[-2000:])
        outputs.append(completed.stdout)
    return outputs


def test_the_guides_walk_through_runs_as_written(tmp_path: Path) -> None:
    section = walk_through()
    official, check_output = blocks(section, "text")
    init_block, run_it, amend = blocks(section, "sh")
    (scenario,) = blocks(section, "json")
    assert official == (OTHER / "fringe.txt").read_text(encoding="utf-8")
    shutil.copyfile(OTHER / "fringe.txt", tmp_path / "fringe.txt")
    _, checked = run_block(init_block, tmp_path)
    written = (tmp_path / "fringe.lex").read_text(encoding="utf-8")
    assert written == blocks(section, "lextrace")[0]
    assert checked == check_output
    # The finished encoding, as the steps after the first build it.
    finished = (OTHER / "fringe.lex").read_text(encoding="utf-8")
    for step in blocks(section, "lextrace")[2:4]:  # the header and the inputs
        assert all(line.strip() in finished for line in step.splitlines())
    shutil.copyfile(OTHER / "fringe.lex", tmp_path / "fringe.lex")
    (tmp_path / "discount.json").write_text(scenario, encoding="utf-8")
    _, evaluated, _, verified = run_block(run_it, tmp_path)
    assert "$60.00  [26 U.S.C. § 132(c)(1)(A)]" in evaluated
    assert "PROVED" in verified
    # The amendment's files are the bundled statute's: its proofs and diff are Z3's to time
    # (tests/test_cli_grammar.py runs them), so only its check runs here.
    (check_amendment,) = [line for line in amend.splitlines() if line.startswith("lextrace check")]
    run_block(check_amendment, ROOT)
    named = [word for word in amend.split() if word.endswith(".lex")]
    assert len(named) == 4 and all((ROOT / word).exists() for word in named)
