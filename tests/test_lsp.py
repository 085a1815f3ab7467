"""`lextrace lsp`: the real server, started as `python -m lextrace lsp` and driven over stdio by
pytest-lsp's client. Its diagnostics are held to `lextrace check` on the same text; its hover,
definitions, references, completion and outline to the encoding as the loader parses it."""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
import pytest_lsp
from conftest import ROOT, lextrace_command
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from lextrace import exits
from lextrace.dsl import ast
from lextrace.dsl.loader import analyse
from lextrace.lsp import keywords

# The server and its client live for the module: every test runs on the module's event loop.
ON_MODULE_LOOP = pytest.mark.asyncio(loop_scope="module")

BUNDLED = ROOT / "statute" / "nj-34-1b-343.lex"
OFFICIAL = ROOT / "statute" / "nj-34-1b-343.txt"
WAIT = 30.0  # seconds for the server's diagnostics of one text


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding a copy of the bundled encoding and its official text beside it."""
    where = tmp_path_factory.mktemp("lsp")
    shutil.copy(BUNDLED, where / BUNDLED.name)
    shutil.copy(OFFICIAL, where / OFFICIAL.name)
    return where


@pytest.fixture(scope="module")
def parsed() -> ast.Statute:
    """The bundled encoding as the loader parses it."""
    statute = analyse(BUNDLED).statute
    assert statute is not None
    return statute


@pytest_lsp.fixture(
    scope="module",
    config=ClientServerConfig(server_command=[sys.executable, "-m", "lextrace", "lsp"]),
)
async def client(lsp_client: LanguageClient, folder: Path) -> AsyncIterator[None]:
    """A client connected to the server, for the whole module."""
    await lsp_client.initialize_session(
        lsp.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=folder.as_uri(),
        )
    )
    yield
    await lsp_client.shutdown_session()


async def diagnostics_after(client: LanguageClient, uri: str, send: object) -> list[lsp.Diagnostic]:
    """Sends a notification (`send`, a callable) and returns the diagnostics then published."""
    client.diagnostics.pop(uri, None)
    assert callable(send)
    send()
    deadline = asyncio.get_running_loop().time() + WAIT
    while uri not in client.diagnostics:
        assert asyncio.get_running_loop().time() < deadline, f"no diagnostics for {uri}"
        await asyncio.sleep(0.05)
    return list(client.diagnostics[uri])


async def open_document(client: LanguageClient, path: Path, text: str) -> list[lsp.Diagnostic]:
    """Opens `path` in the server with `text` (not written to disk) and returns its diagnostics."""
    uri = path.as_uri()
    item = lsp.TextDocumentItem(uri=uri, language_id="lextrace", version=1, text=text)
    return await diagnostics_after(
        client,
        uri,
        lambda: client.text_document_did_open(lsp.DidOpenTextDocumentParams(text_document=item)),
    )


def close_document(client: LanguageClient, path: Path) -> None:
    """Closes `path` in the server."""
    client.text_document_did_close(
        lsp.DidCloseTextDocumentParams(text_document=lsp.TextDocumentIdentifier(uri=path.as_uri()))
    )


def check_output(path: Path) -> set[tuple[int, int, str]]:
    """Returns where `lextrace check` reports each problem of the file at `path`: its 0-based
    line and column and its severity."""
    completed = lextrace_command("check", "--quiet", "--encoding", str(path))
    found = re.findall(
        rf"^{re.escape(str(path))}:(\d+):(\d+): (error|warning)", completed.stderr, re.MULTILINE
    )
    return {(int(line) - 1, int(column) - 1, severity) for line, column, severity in found}


SEVERITY = {lsp.DiagnosticSeverity.Error: "error", lsp.DiagnosticSeverity.Warning: "warning"}


def located(diagnostics: list[lsp.Diagnostic]) -> set[tuple[int, int, str]]:
    """Returns where each LSP diagnostic starts, and its severity."""
    return {
        (d.range.start.line, d.range.start.character, SEVERITY[d.severity])  # type: ignore[index]
        for d in diagnostics
    }


def position(span: ast.Span) -> lsp.Position:
    """Returns the LSP position of a span's start (the encodings' lines are ASCII or BMP)."""
    return lsp.Position(line=span.line - 1, character=span.column - 1)


async def check_mistake(
    client: LanguageClient, folder: Path, name: str, old: str, new: str
) -> list[lsp.Diagnostic]:
    """Writes a copy of the bundled encoding with `old` replaced once by `new` beside the
    official text, opens it, and holds its diagnostics to those of `lextrace check`."""
    source = BUNDLED.read_text(encoding="utf-8")
    assert old in source, old
    text = source.replace(old, new, 1)
    path = folder / f"{name}.lex"
    path.write_text(text, encoding="utf-8")
    shutil.copy(OFFICIAL, folder / OFFICIAL.name)
    diagnostics = await open_document(client, path, text)
    close_document(client, path)
    expected = check_output(path)
    assert expected, "the mistake must be one that check reports"
    assert located(diagnostics) == expected
    line = text[: text.index(new)].count("\n")
    assert any(d.range.start.line == line for d in diagnostics), diagnostics
    return diagnostics


@ON_MODULE_LOOP
async def test_the_bundled_encoding_gets_what_check_reports(
    client: LanguageClient, folder: Path
) -> None:
    path = folder / BUNDLED.name
    diagnostics = await open_document(client, path, path.read_text(encoding="utf-8"))
    assert located(diagnostics) == check_output(path)
    assert not [d for d in diagnostics if d.severity == lsp.DiagnosticSeverity.Error]


@ON_MODULE_LOOP
async def test_a_syntax_error_is_reported_where_it_is(client: LanguageClient, folder: Path) -> None:
    found = await check_mistake(
        client, folder, "syntax", "money = 100% * net_amount(covered: false)", "money = 100% * *"
    )
    assert all(d.severity == lsp.DiagnosticSeverity.Error for d in found)


@ON_MODULE_LOOP
async def test_an_unknown_name_is_reported_over_the_name(
    client: LanguageClient, folder: Path
) -> None:
    found = await check_mistake(
        client,
        folder,
        "unknown",
        "100% * net_amount(covered: false)",
        "100% * net_amont(covered: false)",
    )
    named = [d for d in found if "net_amont" in d.message]
    assert named
    start, end = named[0].range.start, named[0].range.end
    assert start.line == end.line and end.character - start.character >= len("net_amont")


@ON_MODULE_LOOP
async def test_a_number_the_words_do_not_state_is_reported(
    client: LanguageClient, folder: Path
) -> None:
    found = await check_mistake(
        client,
        folder,
        "number",
        "100% * net_amount(covered: false)",
        "90% * net_amount(covered: false)",
    )
    assert any("90" in d.message for d in found)


@ON_MODULE_LOOP
async def test_words_that_differ_from_the_official_text_are_reported(
    client: LanguageClient, folder: Path
) -> None:
    found = await check_mistake(
        client,
        folder,
        "fidelity",
        "100 percent of the gross amount of tax credits for each new full-time job",
        "100 percent of the gross sum of tax credits for each new full-time job",
    )
    assert any("sum" in d.message for d in found)


@ON_MODULE_LOOP
async def test_unsaved_changes_are_checked_and_the_last_parse_still_answers(
    client: LanguageClient, folder: Path, parsed: ast.Statute
) -> None:
    path = folder / "edited.lex"
    source = BUNDLED.read_text(encoding="utf-8")
    path.write_text(source, encoding="utf-8")
    assert not [
        d
        for d in await open_document(client, path, source)
        if d.severity == lsp.DiagnosticSeverity.Error
    ]
    broken = source.replace("reading I17;", "reading I17", 1)  # a ";" missing, never saved
    uri = path.as_uri()
    diagnostics = await diagnostics_after(
        client,
        uri,
        lambda: client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
                content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=broken)],
            )
        ),
    )
    assert any(d.severity == lsp.DiagnosticSeverity.Error for d in diagnostics)
    target = first_definition_with_words(parsed)
    hover = await client.text_document_hover_async(
        lsp.HoverParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri), position=position(target.name_span)
        )
    )
    assert hover is not None
    assert isinstance(hover.contents, lsp.MarkupContent)
    assert parsed.citation(target.clause) in hover.contents.value
    close_document(client, path)


def first_definition_with_words(statute: ast.Statute) -> ast.Rule | ast.Cases:
    """Returns the first definition whose clause has words of its own."""
    return next(d for d in statute.definitions.values() if ast.folded(d.clause.words))


def uses(source: str, name: str, span: ast.Span) -> list[tuple[int, int]]:
    """Returns the 0-based line and column of each use of `name` outside statute words and
    comments, its declaration at `span` aside."""
    blanked = re.sub(
        r'"(?:[^"\\]|\\[\s\S])*"|#[^\n]*', lambda m: re.sub(r"\S", " ", m.group()), source
    )
    found = []
    for match in re.finditer(rf"(?<![\w$-]){re.escape(name)}(?![\w-])", blanked):
        if match.start() == span.start:
            continue
        line = source.count("\n", 0, match.start())
        found.append((line, match.start() - (source.rfind("\n", 0, match.start()) + 1)))
    return found


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def opened(client: LanguageClient, folder: Path) -> str:
    """The bundled encoding's copy, open in the server; its URI."""
    path = folder / "navigate.lex"
    path.write_text(BUNDLED.read_text(encoding="utf-8"), encoding="utf-8")
    await open_document(client, path, path.read_text(encoding="utf-8"))
    return path.as_uri()


async def hover_text(client: LanguageClient, uri: str, at: lsp.Position) -> str:
    """Returns the Markdown of the hover at a position."""
    hover = await client.text_document_hover_async(
        lsp.HoverParams(text_document=lsp.TextDocumentIdentifier(uri=uri), position=at)
    )
    assert hover is not None
    assert isinstance(hover.contents, lsp.MarkupContent)
    assert hover.contents.kind == lsp.MarkupKind.Markdown
    return hover.contents.value


@ON_MODULE_LOOP
async def test_hover_gives_the_type_citation_and_words(
    client: LanguageClient, opened: str, parsed: ast.Statute
) -> None:
    definition = first_definition_with_words(parsed)
    text = await hover_text(client, opened, position(definition.name_span))
    assert f"`{definition.name}`" in text
    assert str(definition.type) in text
    assert parsed.citation(definition.clause) in text
    words = ast.folded(definition.clause.words)
    assert words[:200] in text
    # An input: its type and description.
    declared = next(iter(parsed.inputs.values()))
    text = await hover_text(client, opened, position(declared.span))
    assert f"`{declared.name}`" in text and str(declared.type) in text
    assert declared.description in text
    # A reading ID: its question.
    reading = next(iter(parsed.readings.values()))
    line, column = next(
        (i, row.index(reading.id))
        for i, row in enumerate(parsed.source.splitlines())
        if re.search(rf"\breading {reading.id}\b", row)
    )
    text = await hover_text(client, opened, lsp.Position(line=line, character=column))
    assert reading.question in text
    # A parameter, at its declaration: its type and its rule.
    owner = next(d for d in parsed.definitions.values() if d.params)
    param = owner.params[0]
    text = await hover_text(client, opened, position(param.span))
    assert f"**parameter** `{param.name}`: `{param.type}`" in text and f"`{owner.name}`" in text
    # An enum member, where its enum is declared.
    enum = next(i for i in parsed.inputs.values() if i.type.kind == "enum")
    member = enum.type.members[-1]
    declared = parsed.source.index("enum", enum.span.start)
    offset = re.compile(rf"\b{member}\b").search(parsed.source, declared)
    assert offset is not None
    row = parsed.source.count("\n", 0, offset.start())
    column = offset.start() - parsed.source.rfind("\n", 0, offset.start()) - 1
    text = await hover_text(client, opened, lsp.Position(line=row, character=column))
    assert f"**enum member** `{member}`" in text and f"`{enum.name}`" in text


@ON_MODULE_LOOP
async def test_definition_and_references(
    client: LanguageClient, opened: str, parsed: ast.Statute
) -> None:
    source = parsed.source
    for name, span in [
        *((d.name, d.name_span) for d in list(parsed.definitions.values())[:3]),
        *((i.name, i.span) for i in list(parsed.inputs.values())[:3]),
    ]:
        used = uses(source, name, span)
        assert used, name
        line, column = used[0]
        at = lsp.Position(line=line, character=column + 1)
        found = await client.text_document_definition_async(
            lsp.DefinitionParams(text_document=lsp.TextDocumentIdentifier(uri=opened), position=at)
        )
        assert isinstance(found, list) and len(found) == 1
        assert found[0].uri == opened
        assert found[0].range.start == position(span)
        references = await client.text_document_references_async(
            lsp.ReferenceParams(
                text_document=lsp.TextDocumentIdentifier(uri=opened),
                position=at,
                context=lsp.ReferenceContext(include_declaration=True),
            )
        )
        assert references is not None
        starts = {(r.range.start.line, r.range.start.character) for r in references}
        assert (span.line - 1, span.column - 1) in starts
        assert set(used) <= starts, name


@ON_MODULE_LOOP
async def test_completion_offers_names_keywords_and_readings(
    client: LanguageClient, opened: str, parsed: ast.Statute
) -> None:
    result = await client.text_document_completion_async(
        lsp.CompletionParams(
            text_document=lsp.TextDocumentIdentifier(uri=opened),
            position=position(first_definition_with_words(parsed).name_span),
        )
    )
    assert isinstance(result, lsp.CompletionList)
    labels = {item.label for item in result.items}
    assert next(iter(parsed.inputs)) in labels
    assert next(iter(parsed.definitions)) in labels
    assert next(iter(parsed.readings)) in labels
    assert {"rule", "input", "when", "otherwise"} <= labels
    assert set(keywords()) <= labels


@ON_MODULE_LOOP
async def test_document_symbols_are_the_clause_outline(
    client: LanguageClient, opened: str, parsed: ast.Statute
) -> None:
    symbols = await client.text_document_document_symbol_async(
        lsp.DocumentSymbolParams(text_document=lsp.TextDocumentIdentifier(uri=opened))
    )
    assert symbols is not None
    outline = [s for s in symbols if isinstance(s, lsp.DocumentSymbol)]
    by_citation: dict[str, lsp.DocumentSymbol] = {}

    def visit(symbol: lsp.DocumentSymbol) -> None:
        if symbol.detail:
            by_citation[symbol.detail] = symbol
        for child in symbol.children or []:
            visit(child)

    for symbol in outline:
        visit(symbol)
    for clause in parsed.clauses:
        found = by_citation[parsed.citation(clause)]
        assert found.name == clause.own_citation
        assert found.range.start == position(clause.span)
        assert [c.detail for c in found.children or [] if c.kind == lsp.SymbolKind.Module] == [
            parsed.citation(child) for child in clause.children
        ]
    definition = first_definition_with_words(parsed)
    holder = by_citation[parsed.citation(definition.clause)]
    assert definition.name in {child.name for child in holder.children or []}


def test_lsp_without_its_extra_says_so(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import importlib.util

    from lextrace.cli import main

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "pygls" else real(name, *a)
    )
    assert main(["lsp"]) == exits.BAD_INPUT
    err = capsys.readouterr().err
    assert "pip install 'lextrace[lsp]'" in err
    assert "Traceback" not in err


def _message(payload: dict[str, object]) -> bytes:
    body = json.dumps(payload).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


@pytest.mark.parametrize(("shutdown", "code"), [(True, exits.OK), (False, 1)])
def test_the_server_exits_as_the_protocol_says(shutdown: bool, code: int) -> None:
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        *([{"jsonrpc": "2.0", "id": 2, "method": "shutdown"}] if shutdown else []),
        {"jsonrpc": "2.0", "method": "exit"},
    ]
    completed = subprocess.run(
        [sys.executable, "-m", "lextrace", "lsp", "--stdio"],
        input=b"".join(_message(m) for m in messages),
        capture_output=True,
        timeout=60,
    )
    assert completed.returncode == code, completed.stderr
    assert b'"capabilities"' in completed.stdout
    assert b"Traceback" not in completed.stderr and b"internal error" not in completed.stderr
