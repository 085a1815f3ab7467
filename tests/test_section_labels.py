"""Section labels in the statute's own form (`section "§ 132"`), a section whose label the
official text does not carry (`unlabelled`), and straight quotes escaped in quoted words."""

from __future__ import annotations

from pathlib import Path

import pytest
from pygments.token import Keyword, Name

from lextrace.dsl.errors import EncodingError
from lextrace.dsl.fidelity import carried_text, normalise
from lextrace.dsl.loader import analyse, load
from lextrace.dsl.parser import parse_encoding
from lextrace.highlight import LextraceLexer

ENCODING = """statute "Widget Act"
  official "widgets.txt"
  cite "{statute} {section}{clauses}"

input blue: bool = false "the widget is blue";
results taxed;

section LABEL "Widgets." {
  (a) "A widget is taxed when it is blue." {
    rule taxed: bool = blue;
  }
}
"""


def write(tmp_path: Path, label: str, official: str) -> Path:
    """Writes the encoding with this section label and its official text; returns its path."""
    (tmp_path / "widgets.txt").write_text(official, encoding="utf-8")
    path = tmp_path / "widgets.lex"
    path.write_text(ENCODING.replace("LABEL", label), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("label", "heading", "number", "own"),
    [
        ("75.", "75.", "75", "section 75"),
        ('"§ 132"', "§ 132", "132", "§ 132"),
        ('"§132."', "§132.", "132", "§132"),
        ('"Sec. 5."', "Sec. 5.", "5", "Sec. 5"),
        ('"Section 5."', "Section 5.", "5", "Section 5"),
        ('"Rule 3"', "Rule 3", "3", "Rule 3"),
        ('"cl 4"', "cl 4", "4", "cl 4"),
        ('"132."', "132.", "132", "section 132"),
    ],
)
def test_a_section_label_in_any_form_is_carried_and_gives_its_number(
    tmp_path: Path, label: str, heading: str, number: str, own: str
) -> None:
    path = write(tmp_path, label, f"{heading} Widgets.\n(a) A widget is taxed when it is blue.\n")
    assert [d.message for d in analyse(path).errors] == []
    statute = load(path)
    assert statute.sections[0].label == heading
    assert statute.sections[0].number == number
    assert statute.sections[0].own_citation == own
    assert statute.citation(statute.clauses[1]) == f"Widget Act {number}(a)"
    assert carried_text(statute).startswith(f"{heading} Widgets.")


def test_the_label_must_be_in_the_official_text_unless_unlabelled(tmp_path: Path) -> None:
    official = "Widgets.\n(a) A widget is taxed when it is blue.\n"
    path = write(tmp_path, '"§ 132"', official)
    messages = [d.message for d in analyse(path).errors]
    assert messages == ["the carried text adds “§ 132”, which the official text lacks"]
    path = write(tmp_path, '"§ 132" unlabelled', official)
    assert [d.message for d in analyse(path).errors] == []
    statute = load(path)
    assert statute.citation(statute.clauses[1]) == "Widget Act 132(a)"
    assert carried_text(statute) == normalise(official)
    # The bare number can be unlabelled too.
    assert [d.message for d in analyse(write(tmp_path, "132. unlabelled", official)).errors] == []


def test_an_empty_quoted_label_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, '" "', "Widgets.\n(a) A widget is taxed when it is blue.\n")
    assert "the section's label is empty" in [d.message for d in analyse(path).errors]


def test_a_straight_quote_is_escaped_and_compared_as_it_reads(tmp_path: Path) -> None:
    official = 'Widgets.\n(a) A "widget" is taxed when it is \\ blue.\n'
    path = write(tmp_path, "5. unlabelled", official)
    source = path.read_text(encoding="utf-8").replace(
        '"A widget is taxed when it is blue."', r'"A \"widget\" is taxed when it is \\ blue."'
    )
    path.write_text(source, encoding="utf-8")
    assert [d.message for d in analyse(path).errors] == []
    statute = load(path)
    assert statute.clauses[1].texts[0].words == 'A "widget" is taxed when it is \\ blue.'
    # A word that differs after an escape is still located at its own column.
    changed = source.replace("is taxed", "is charged")
    path.write_text(changed, encoding="utf-8")
    (error,) = analyse(path).errors
    line = changed.splitlines()[error.line - 1]
    assert line[error.column - 1 :].startswith("charged")


def test_an_escaped_quote_does_not_close_the_words() -> None:
    source = ENCODING.replace("LABEL", '"§ 1"').replace("is blue.", 'is \\"blue.')
    statute, diagnostics = parse_encoding(source, "x.lex")
    assert diagnostics == []
    assert statute.clauses[1].texts[0].words == 'A widget is taxed when it is "blue.'
    with pytest.raises(EncodingError) as raised:
        parse_encoding(source.replace('\\"blue', '"blue'), "x.lex")
    assert raised.value.diagnostics[0].line == 9


def test_the_lexer_knows_the_new_section_forms() -> None:
    text = 'section 132. unlabelled "Words \\" here" {\n}\nsection "§ 132" "W" {\n}\n'
    found = [(t, v) for t, v in LextraceLexer().get_tokens(text) if v.strip()]
    assert (Name.Label, "132.") in found
    assert (Keyword, "unlabelled") in found
    assert "".join(v for _, v in LextraceLexer().get_tokens(text)) == text
    strings = [v for t, v in found if "String" in str(t)]
    assert strings == ['"Words \\" here"', '"§ 132"', '"W"']
