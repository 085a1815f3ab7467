"""The VS Code extension's TextMate grammar is generated from the Lark grammar: every keyword of
`dsl/lextrace.lark` is highlighted as one, and the committed file is the generated one."""

from __future__ import annotations

import importlib.util
import json
import re
from types import ModuleType

import pytest
from conftest import ROOT

EXTENSION = ROOT / "editors" / "vscode"
GRAMMAR = EXTENSION / "syntaxes" / "lextrace.tmLanguage.json"
KEYWORD_SCOPES = ("storage.type", "support.type", "constant.language", "keyword.other")


def generator() -> ModuleType:
    """The module scripts/vscode_grammar.py."""
    spec = importlib.util.spec_from_file_location(
        "vscode_grammar", ROOT / "scripts" / "vscode_grammar.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def lark_keywords() -> set[str]:
    """The keywords of the Lark grammar: its string literals made of words (read from the file
    itself, its comments aside)."""
    text = (ROOT / "dsl" / "lextrace.lark").read_text(encoding="utf-8")
    code = "\n".join(line.split("//", 1)[0] for line in text.splitlines())
    literals = re.findall(r'"((?:[^"\\]|\\.)*)"', code)
    return {w for w in literals if re.fullmatch(r"[A-Za-z]+(?:[_-][A-Za-z]+)*", w)}


def committed() -> dict[str, object]:
    """The committed TextMate grammar."""
    data = json.loads(GRAMMAR.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def test_the_committed_grammar_is_the_generated_one() -> None:
    assert GRAMMAR.read_text(encoding="utf-8") == generator().render()
    assert generator().main(["--check"]) == 0


def test_every_keyword_of_the_lark_grammar_is_highlighted_as_one() -> None:
    keywords = lark_keywords()
    assert {
        "rule",
        "cases",
        "input",
        "when",
        "otherwise",
        "true",
        "money",
        "first-match",
    } <= keywords
    rules = [
        re.compile(p["match"])
        for p in committed()["patterns"]  # type: ignore[attr-defined]
        if "match" in p and p["name"].startswith(KEYWORD_SCOPES)
    ]
    missing = sorted(w for w in keywords if not any(r.fullmatch(w) for r in rules))
    assert not missing


@pytest.mark.parametrize(
    ("text", "scope"),
    [
        ("rule", "storage.type"),
        ("money", "support.type"),
        ("true", "constant.language"),
        ("otherwise", "keyword.other"),
        ("$1,500", "constant.numeric"),
        ("I8", "constant.other.reading"),
        ("# a note", "comment.line"),
        ("some_name", "variable.other"),
    ],
)
def test_the_first_pattern_that_matches_gives_the_scope(text: str, scope: str) -> None:
    for pattern in committed()["patterns"]:  # type: ignore[attr-defined]
        if "match" in pattern and re.compile(pattern["match"]).fullmatch(text):
            assert pattern["name"].startswith(scope), (text, pattern["name"])
            return
    raise AssertionError(f"nothing matches {text!r}")


def test_the_extension_declares_the_language_its_grammar_and_its_server() -> None:
    package = json.loads((EXTENSION / "package.json").read_text(encoding="utf-8"))
    (language,) = package["contributes"]["languages"]
    assert language["id"] == "lextrace" and ".lex" in language["extensions"]
    assert (EXTENSION / language["configuration"]).is_file()
    (grammar,) = package["contributes"]["grammars"]
    assert grammar["scopeName"] == committed()["scopeName"]
    assert (EXTENSION / grammar["path"]).resolve() == GRAMMAR.resolve()
    assert "vscode-languageclient" in package["dependencies"]
    setting = package["contributes"]["configuration"]["properties"]["lextrace.server.command"]
    assert setting["default"] == ["lextrace", "lsp"]
    script = (EXTENSION / package["main"]).read_text(encoding="utf-8")
    assert "vscode-languageclient/node" in script and "lextrace.server.command" in script
    json.loads((EXTENSION / "language-configuration.json").read_text(encoding="utf-8"))
