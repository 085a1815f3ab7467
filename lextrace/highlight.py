"""A Pygments lexer for the lextrace encoding language (`*.lex` files).

The lexer is generated from the language's Lark grammar (`lextrace.lark` in the `lextrace.dsl`
package), never from a hand-copied word list, so it cannot drift from what the parser accepts:

- the keywords are the grammar's literal words (every string terminal made of letters, joined by
  `_` or `-`, and every named terminal that is only a choice of such words, such as the type
  names), classified by where the grammar uses them: the leading words of a statement are
  declarations (`rule`, `cases`, `input` ...), the words of the `type` rule are types, the words
  of the `literal` rule are constants (`true`, `false`), the rest are plain keywords;
- amounts, percentages, numbers, names, reading IDs, reading options, clause labels, statute words
  and comments are matched with the grammar's own terminal patterns.

Pygments finds the lexer through the `pygments.lexers` entry point of `pyproject.toml`:
`pygments.lexers.get_lexer_by_name("lextrace")`.
"""

from __future__ import annotations

import functools
import itertools
import re
from dataclasses import dataclass
from importlib import resources
from typing import Any, ClassVar

from lark import Lark
from lark.grammar import NonTerminal, Terminal
from lark.lexer import PatternRE, PatternStr
from pygments.lexer import RegexLexer, default, words
from pygments.token import (
    Comment,
    Keyword,
    Name,
    Number,
    Operator,
    Punctuation,
    String,
    Whitespace,
    _TokenType,
)

from .dsl.checker import BUILTINS

__all__ = [
    "GrammarKeywords",
    "LextraceLexer",
    "grammar_keywords",
    "grammar_source",
    "lexer_for_grammar",
    "token_rules",
]

# A keyword is a word of letters, possibly joined by `_` or `-` (`text_only`, `first-match`).
_KEYWORD = re.compile(r"[A-Za-z]+(?:[_-][A-Za-z]+)*")
# A named terminal that is only a choice of such words, as Lark compiles it: `(?:bool|count)`.
_WORD_CHOICE = re.compile(
    r"(?:\(\?:)?(?P<words>[A-Za-z]+(?:\\?[_-][A-Za-z]+)*(?:\|[A-Za-z]+(?:\\?[_-][A-Za-z]+)*)*)\)?"
)
# Characters that separate rather than operate.
_PUNCTUATION = set("(){}[];:,.")
# A keyword or a name must stand alone: not inside a longer name or a hyphenated option.
_BEFORE, _AFTER = r"(?<![\w-])", r"(?![\w-])"

# The grammar's terminals the lexer matches with the grammar's own patterns.
_PATTERNS = (
    "STRING",
    "COMMENT",
    "MONEY",
    "DATE",
    "PERCENT",
    "NUMBER",
    "READING_ID",
    "OPTION",
    "NAME",
    "CLAUSE_LABEL",
    "SECTION_LABEL",
)


def grammar_source() -> str:
    """Returns the text of the bundled Lark grammar of the encoding language."""
    grammar = resources.files(f"{__package__}.dsl").joinpath("lextrace.lark")
    return grammar.read_text(encoding="utf-8")


@dataclass(frozen=True)
class GrammarKeywords:
    """The grammar's keywords, classified by where the grammar uses them, and the patterns of
    the terminals the lexer needs."""

    declarations: frozenset[str]
    types: frozenset[str]
    constants: frozenset[str]
    others: frozenset[str]
    before_option: frozenset[str]
    after_before_option: frozenset[str]
    symbols: frozenset[str]
    patterns: dict[str, str]
    # Keywords the grammar allows right after a section number (`unlabelled`).
    after_section_label: frozenset[str] = frozenset()
    patterns: dict[str, str]

    @property
    def all(self) -> frozenset[str]:
        """Returns every keyword of the grammar, whatever its class."""
        return self.declarations | self.types | self.constants | self.others

    def token_type(self, keyword: str) -> _TokenType:
        """Returns the Pygments token type of one keyword (a kind of `Keyword`)."""
        if keyword in self.declarations:
            return Keyword.Declaration
        if keyword in self.types:
            return Keyword.Type
        if keyword in self.constants:
            return Keyword.Constant
        return Keyword


def _terminal_words(pattern: PatternStr | PatternRE) -> tuple[str, ...]:
    """Returns the words a terminal matches when it matches only fixed words, else ()."""
    if isinstance(pattern, PatternStr):
        return (pattern.value,) if _KEYWORD.fullmatch(pattern.value) else ()
    found = _WORD_CHOICE.fullmatch(pattern.value)
    if found is None:
        return ()
    choices = tuple(word.replace("\\", "") for word in found.group("words").split("|"))
    if all(_KEYWORD.fullmatch(w) and re.fullmatch(pattern.value, w) for w in choices):
        return choices
    return ()


@functools.cache
def grammar_keywords(grammar: str | None = None) -> GrammarKeywords:
    """Returns the keywords of a Lark grammar of the language (the bundled one by default),
    classified for highlighting, with the terminal patterns the lexer uses.

    Keywords are the grammar's literal words. The leading keywords of a statement (a rule of the
    grammar that ends with `;`, opens a `{` block, or makes up `start` directly) are
    declarations; the keywords of the `type` rule are types; those of the `literal` rule are
    constants; every other keyword is plain.
    """
    parser = Lark(grammar or grammar_source(), parser="lalr", maybe_placeholders=False)
    words_of: dict[str, tuple[str, ...]] = {}
    symbols: set[str] = set()
    patterns: dict[str, str] = {}
    for terminal in parser.terminals:
        found = _terminal_words(terminal.pattern)
        if found:
            words_of[terminal.name] = found
        elif isinstance(terminal.pattern, PatternStr):
            symbols.add(terminal.pattern.value)
        if terminal.name in _PATTERNS:
            patterns[terminal.name] = terminal.pattern.to_regexp()
    missing = [name for name in _PATTERNS if name not in patterns]
    if missing:
        raise ValueError(f"the grammar lacks the terminals {', '.join(missing)}")

    def keywords_in(expansion: list[Any]) -> list[str]:
        return [w for s in expansion if isinstance(s, Terminal) for w in words_of.get(s.name, ())]

    # A statement ends with ";" or opens a block with "{".
    statement_marks = {
        terminal.name for terminal in parser.terminals if terminal.pattern.value in (";", "{")
    }
    start_parts = {
        symbol.name
        for rule in parser.rules
        if rule.origin.name == "start"
        for symbol in rule.expansion
        if isinstance(symbol, NonTerminal)
    }
    declarations: set[str] = set()
    types: set[str] = set()
    constants: set[str] = set()
    before_option: set[str] = set()
    elsewhere: set[str] = set()  # a word of a type that other rules use too (`list of`) is not one
    for rule in parser.rules:
        expansion = rule.expansion
        names = {symbol.name for symbol in expansion if isinstance(symbol, Terminal)}
        if names & statement_marks or rule.origin.name in start_parts:
            for symbol in expansion:
                if not (isinstance(symbol, Terminal) and symbol.name in words_of):
                    break
                declarations.update(words_of[symbol.name])
        if rule.origin.name == "type":
            types.update(keywords_in(expansion))
        else:
            elsewhere.update(keywords_in(expansion))
        if rule.origin.name == "literal":
            constants.update(keywords_in(expansion))
        for previous, symbol in itertools.pairwise(expansion):
            if (
                isinstance(symbol, Terminal)
                and symbol.name == "OPTION"
                and isinstance(previous, Terminal)
            ):
                before_option.update(words_of.get(previous.name, ()))
    # Keywords the grammar allows right after an option-introducing keyword (`is given`).
    after_before_option: set[str] = set()
    for rule in parser.rules:
        for previous, symbol in itertools.pairwise(rule.expansion):
            if (
                isinstance(previous, Terminal)
                and isinstance(symbol, Terminal)
                and set(words_of.get(previous.name, ())) & before_option
            ):
                after_before_option.update(words_of.get(symbol.name, ()))
    after_section_label = {
        word
        for rule in parser.rules
        for previous, symbol in itertools.pairwise(rule.expansion)
        if isinstance(previous, Terminal) and previous.name == "SECTION_LABEL"
        if isinstance(symbol, Terminal)
        for word in words_of.get(symbol.name, ())
    }
    every = {word for found in words_of.values() for word in found}
    types -= declarations | elsewhere
    constants -= declarations | types
    return GrammarKeywords(
        declarations=frozenset(declarations),
        types=frozenset(types),
        constants=frozenset(constants),
        others=frozenset(every - declarations - types - constants),
        before_option=frozenset(before_option),
        after_before_option=frozenset(after_before_option),
        symbols=frozenset(symbols),
        patterns=patterns,
        after_section_label=frozenset(after_section_label),
    )


def _words(found: frozenset[str] | set[str]) -> Any:
    """Returns a Pygments `words` pattern for standalone occurrences of `found`."""
    return words(sorted(found, key=lambda w: (-len(w), w)), prefix=_BEFORE, suffix=_AFTER)


def token_rules(keywords: GrammarKeywords) -> dict[str, list[Any]]:
    """Returns the Pygments `tokens` table for a grammar's keywords and patterns.

    State `root` lexes a whole file; state `option` follows a keyword that the grammar puts right
    before a reading option (`default`, `alternative`, `is`), so that `covered-jobs` or
    `first-match` after it is one option, not names, operators and keywords.
    """
    p = {name: f"(?:{regex})" for name, regex in keywords.patterns.items()}
    after_section = "".join(
        f"|{re.escape(w)}{_AFTER}" for w in sorted(keywords.after_section_label)
    )
    label = (
        rf"(?:{p['CLAUSE_LABEL']})(?=\s*[\"{{])"
        rf"|(?:{p['SECTION_LABEL']})(?=\s*(?:[\"{{]{after_section}))"
    )
    by_type: dict[_TokenType, set[str]] = {}
    for word in keywords.all - keywords.before_option:
        by_type.setdefault(keywords.token_type(word), set()).add(word)
    by_type_option: dict[_TokenType, set[str]] = {}
    for word in keywords.before_option:
        by_type_option.setdefault(keywords.token_type(word), set()).add(word)
    symbols = sorted(keywords.symbols, key=lambda s: (-len(s), s))
    operators = [s for s in symbols if s not in _PUNCTUATION]
    punctuation = [s for s in symbols if s in _PUNCTUATION]

    root: list[Any] = [
        (r"\s+", Whitespace),
        (p["COMMENT"], Comment.Single),
        (p["STRING"], String.Double),
        # A clause label (`a.`, `(1)`, `(j)`) or a section number starts a clause: its words or
        # its block follow (or, after a section number, `unlabelled`). Elsewhere `(a)` is a
        # parenthesised name.
        (label, Name.Label),
        (p["MONEY"], Number),
        (p["DATE"], Number),  # before NUMBER: `2024-01-31` is one date, not a subtraction
        (p["PERCENT"], Number),
        (p["NUMBER"], Number),
        (words(BUILTINS, prefix=_BEFORE, suffix=r"(?=\s*\()"), Name.Builtin),
    ]
    root += [(_words(found), ttype, "option") for ttype, found in by_type_option.items()]
    root += [(_words(found), ttype) for ttype, found in by_type.items()]
    root += [
        (_BEFORE + p["READING_ID"] + _AFTER, Name.Constant),
        (p["NAME"] + r"(?=\s*\()", Name.Function),
        (p["NAME"], Name),
    ]
    if operators:
        root.append((words(operators), Operator))
    if punctuation:
        root.append((words(punctuation), Punctuation))

    option: list[Any] = [
        (r"\s+", Whitespace),
        (p["COMMENT"], Comment.Single),
    ]
    option += [
        (_words({w}), keywords.token_type(w), "#pop") for w in sorted(keywords.after_before_option)
    ]
    option += [(p["OPTION"] + _AFTER, Name.Attribute, "#pop"), default("#pop")]
    return {"root": root, "option": option}


def lexer_for_grammar(grammar: str) -> type[RegexLexer]:
    """Returns a lexer class generated from another grammar text (the bundled grammar gives
    `LextraceLexer`); the tests use it to show that a new keyword needs no edit here."""
    keywords = grammar_keywords(grammar)
    return type(
        "GeneratedLextraceLexer",
        (RegexLexer,),
        {"name": "lextrace (generated)", "keywords": keywords.all, "tokens": token_rules(keywords)},
    )


class LextraceLexer(RegexLexer):
    """Highlights lextrace encodings: statute words (strings, possibly over several lines),
    clause labels, keywords by class, types, amounts, percentages, numbers, names, reading IDs
    and options, operators and comments. Its keywords are the grammar's (`keywords`)."""

    name = "lextrace"
    aliases: ClassVar[list[str]] = ["lextrace", "lex-statute"]
    filenames: ClassVar[list[str]] = ["*.lex"]
    mimetypes: ClassVar[list[str]] = ["text/x-lextrace"]

    #: Every keyword of the grammar, derived from it at import time.
    keywords: ClassVar[frozenset[str]] = grammar_keywords().all
    tokens = token_rules(grammar_keywords())
