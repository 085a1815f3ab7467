"""The Pygments lexer: found through the entry point, lossless on every bundled encoding, and
generated from the grammar, so a keyword added to the grammar is highlighted with no edit."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from lark import Lark
from lark.lexer import PatternStr
from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
from pygments.token import (
    Comment,
    Error,
    Keyword,
    Name,
    Number,
    String,
)

from lextrace.dsl.parser import grammar_text
from lextrace.highlight import LextraceLexer, grammar_keywords, lexer_for_grammar
from lextrace.statute import BUNDLED

ROOT = Path(__file__).resolve().parent.parent
ENCODINGS = [BUNDLED, *sorted((BUNDLED.parent / "amendments").glob("*/*.lex"))]
LANGUAGE_GUIDE = ROOT / "docs" / "language.md"


def grammar_words() -> set[str]:
    """The grammar's literal words, read from the grammar's text independently of the lexer:
    every quoted string made of letters (joined by `_` or `-`), outside `//` comments."""
    text = "\n".join(line.split("//", 1)[0] for line in grammar_text().splitlines())
    return set(re.findall(r'"([A-Za-z]+(?:[_-][A-Za-z]+)*)"', text))


def tokens(text: str, lexer: object | None = None) -> list[tuple[object, str]]:
    """The non-blank tokens of `text`."""
    lexer = lexer or get_lexer_by_name("lextrace")
    return [(ttype, value) for ttype, value in lexer.get_tokens(text) if value.strip()]


def token_of(text: str, fragment: str) -> object:
    """The token type of the one token whose value is `fragment`."""
    found = [ttype for ttype, value in tokens(text) if value == fragment]
    assert len(found) == 1, f"{fragment!r} is {len(found)} tokens of {text!r}"
    return found[0]


def test_pygments_finds_the_lexer_by_name_alias_and_file_name() -> None:
    assert isinstance(get_lexer_by_name("lextrace"), LextraceLexer)
    assert isinstance(get_lexer_by_name("lex-statute"), LextraceLexer)
    assert isinstance(get_lexer_for_filename("nj-34-1b-343.lex"), LextraceLexer)
    assert LextraceLexer.name == "lextrace"


@pytest.mark.parametrize("path", ENCODINGS, ids=lambda p: str(p.relative_to(BUNDLED.parent)))
def test_every_bundled_encoding_lexes_without_errors_and_round_trips(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    lexer = get_lexer_by_name("lextrace")
    errors = [value for ttype, value in lexer.get_tokens(text) if ttype in Error]
    assert errors == []
    assert "".join(value for _, value in lexer.get_tokens(text)) == text
    assert "".join(value for _, _, value in lexer.get_tokens_unprocessed(text)) == text


def test_the_lexers_keywords_are_the_grammars() -> None:
    words = grammar_words()
    assert {"rule", "cases", "case", "input", "invariant", "monotone", "reading"} <= words
    assert LextraceLexer.keywords == words
    # Lark's own view: every anonymous string terminal made of letters is a keyword.
    parser = Lark(grammar_text(), parser="lalr")
    anonymous = {
        terminal.pattern.value
        for terminal in parser.terminals
        if isinstance(terminal.pattern, PatternStr)
        and re.fullmatch(r"[A-Za-z]+(?:[_-][A-Za-z]+)*", terminal.pattern.value)
    }
    assert anonymous <= LextraceLexer.keywords


@pytest.mark.parametrize("keyword", sorted(grammar_words()))
def test_every_keyword_of_the_grammar_is_a_keyword_token(keyword: str) -> None:
    (ttype, value), *rest = tokens(f"{keyword}\n")
    assert value == keyword and rest == []
    assert ttype in Keyword


def test_keywords_are_classified_by_their_place_in_the_grammar() -> None:
    keywords = grammar_keywords()
    assert {"statute", "reading", "input", "results", "section", "rule", "cases", "case"} <= (
        keywords.declarations
    )
    assert {"bonus", "invariant", "monotone"} <= keywords.declarations
    assert keywords.types == {
        "money",
        "share",
        "count",
        "number",
        "bool",
        "enum",
        "text",
        "list",
        "date",
        "duration",
        "per",  # `money per hour`: the period an amount is counted in
        "hour",
    }
    units = {"day", "days", "week", "weeks", "month", "months", "year", "years"}
    assert keywords.constants == {"true", "false"} | units  # a duration's unit: in a literal
    assert token_of("bonus rule x: money = $1;", "rule") is Keyword.Declaration
    assert token_of('input x: share = 0 "d";', "share") is Keyword.Type
    assert token_of("rule x: bool = true;", "true") is Keyword.Constant
    assert token_of("rule x: bool = a and b;", "and") is Keyword


def test_a_keyword_added_to_the_grammar_is_highlighted_without_editing_the_lexer() -> None:
    extended = grammar_text() + '\n%extend item: sunset\nsunset: "sunset" NAME ";"\n'
    assert "sunset" in grammar_keywords(extended).all
    generated = lexer_for_grammar(extended)()
    assert tokens("sunset old_rule;", generated)[0] == (Keyword.Declaration, "sunset")
    # The bundled grammar has no such keyword: the same word is a name.
    assert tokens("sunset old_rule;")[0] == (Name, "sunset")


def test_literals_comments_and_clause_words_get_their_token_types() -> None:
    snippet = (
        "# the base amounts\n"
        '(1) "for a qualified business facility located within a government-restricted\n'
        '     municipality, or which is a mega project, $4,000 per year;" {\n'
        "  case base_amount = $4,000 when area_tier = b1;\n"
        "  rule half: money = 50% * base_amount + $1,000.50 * 2 reading I17;\n"
        "}\n"
    )
    found = tokens(snippet)
    assert (Comment.Single, "# the base amounts") in found
    words = [value for ttype, value in found if ttype in String]
    assert len(words) == 1 and "\n" in words[0] and words[0].endswith('per year;"')
    assert (Number, "$4,000") in found
    assert (Number, "$1,000.50") in found
    assert (Number, "50%") in found
    assert any(ttype in Number and value == "2" for ttype, value in found)
    assert (Name.Label, "(1)") in found
    assert (Name.Constant, "I17") in found
    assert not [value for ttype, value in found if ttype in Error]


def test_clause_labels_reading_options_and_builtins() -> None:
    assert token_of('a. "The total amount."', "a.") is Name.Label
    assert token_of("section 75. {\n}", "75.") is Name.Label
    assert token_of("(j) {\n}", "(j)") is Name.Label
    # A parenthesised name in an expression is not a label.
    assert token_of("rule x: money = (a) * $1;", "a") is Name
    # A reading option is one token, even when it contains a keyword or is one.
    assert token_of('default county-or-municipality "d"', "county-or-municipality") is (
        Name.Attribute
    )
    assert token_of('reading I1 "q" default first-match "d";', "first-match") is Name.Attribute
    assert token_of("reading I8 is business-wide", "business-wide") is Name.Attribute
    assert token_of("limit is given", "given") is Keyword
    # `min` is a keyword (an input bound) and a built-in (a call).
    assert token_of('input x: money min $0 "d";', "min") is Keyword
    assert token_of("rule x: money = min($1, y);", "min") is Name.Builtin
    assert token_of("rule x: money = gross(covered: true);", "gross") is Name.Function


def test_the_keywords_tokenized_in_the_encoding_are_grammar_keywords() -> None:
    text = BUNDLED.read_text(encoding="utf-8")
    highlighted = {value for ttype, value in tokens(text) if ttype in Keyword}
    assert highlighted <= LextraceLexer.keywords
    assert {"rule", "cases", "case", "bonus", "invariant", "monotone", "money"} <= highlighted


def test_the_language_guide_examples_highlight_without_errors() -> None:
    guide = LANGUAGE_GUIDE.read_text(encoding="utf-8")
    blocks = re.findall(r"^```lextrace\n(.*?)^```", guide, flags=re.DOTALL | re.MULTILINE)
    assert blocks, "the guide has no lextrace example"
    for block in blocks:
        errors = [value for ttype, value in tokens(block) if ttype in Error]
        assert errors == [], f"{errors} in:\n{block}"
    assert guide.splitlines().count("<!-- lextrace:grammar -->") == 1
