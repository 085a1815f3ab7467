"""`lextrace lsp`: a language server for encodings (`*.lex`), over standard input and output.

It needs the optional `lsp` extra (`pip install 'lextrace[lsp]'`: pygls and lsprotocol). What it
offers, for any encoding:

- diagnostics as you type: every problem `lextrace check` reports (syntax, the static checks,
  the fidelity of the carried words to the official text found beside the file, the numbers),
  at its range, for the unsaved text;
- hover on a name (input, rule, cases, parameter, record and field, reading, enum member): its
  type, the clause it sits in or that names it, the citation and the clause's words;
- go to definition and find references of names and reading IDs;
- completion of the names in scope, the language's keywords (the grammar's) and reading IDs;
- document symbols: the clause outline with each clause's definitions inside it.

The last encoding that parsed answers hover and definition while the text has a syntax error.
"""

from __future__ import annotations

import asyncio
import bisect
import concurrent.futures
import functools
import os
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from .dsl import ast
from .dsl.errors import Diagnostic
from .dsl.facts import names as phrase_named

__all__ = [
    "DocumentIndex",
    "Symbol",
    "analyse_document",
    "lsp_diagnostics",
    "make_server",
    "serve",
]

# How long the server waits after a change before checking the text again (a burst of
# keystrokes is checked once).
CHANGE_DELAY = 0.3
# The most characters of a clause's words a hover shows.
WORDS_SHOWN = 1200

# A token of the language as names are found in it: statute words and comments (skipped), a
# reading ID, a name. A name stands alone: not a part of a hyphenated reading option.
_TOKEN = re.compile(
    r'"(?:[^"\\]|\\[\s\S])*"'
    r"|#[^\n]*"
    r"|(?<![\w-])(?P<id>I[0-9]+)(?![\w-])"
    r"|(?<![\w$-])(?P<name>[a-z_][a-z0-9_]*)(?![\w-])"
)
_ENUM = re.compile(r"\benum\s*\(([^)]*)\)")
_WORD = re.compile(r"[\w$%.,]+")


@functools.cache
def keywords() -> tuple[str, ...]:
    """Returns the language's keywords, read from its Lark grammar (the lexer's list)."""
    from .highlight import grammar_keywords

    return tuple(sorted(grammar_keywords().all))


@functools.cache
def builtins() -> tuple[str, ...]:
    """Returns the names of the built-in functions (`min`, `max` ...)."""
    from .dsl.checker import BUILTINS

    return tuple(BUILTINS)


# ---------------------------------------------------------------------------------------------
# Positions


class Lines:
    """Converts between offsets in a text and LSP positions (0-based line, UTF-16 column)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0] + [i + 1 for i, char in enumerate(text) if char == "\n"]

    def line_text(self, line: int) -> str:
        """Returns line `line` (0-based) without its newline; empty past the end."""
        if not 0 <= line < len(self.starts):
            return ""
        end = self.starts[line + 1] - 1 if line + 1 < len(self.starts) else len(self.text)
        return self.text[self.starts[line] : end]

    def line_end(self, offset: int) -> int:
        """Returns the offset of the end of the line holding `offset` (before its newline)."""
        line = bisect.bisect_right(self.starts, offset) - 1
        return self.starts[line] + len(self.line_text(line))

    def position(self, offset: int) -> lsp.Position:
        """Returns the LSP position of an offset."""
        offset = max(0, min(offset, len(self.text)))
        line = bisect.bisect_right(self.starts, offset) - 1
        before = self.text[self.starts[line] : offset]
        return lsp.Position(line=line, character=_utf16(before))

    def range(self, start: int, end: int) -> lsp.Range:
        """Returns the LSP range of the offsets [start, end)."""
        return lsp.Range(start=self.position(start), end=self.position(max(start, end)))

    def offset(self, position: lsp.Position) -> int:
        """Returns the offset of an LSP position (clamped to the text)."""
        if position.line >= len(self.starts):
            return len(self.text)
        line = self.line_text(position.line)
        units = 0
        for index, char in enumerate(line):
            if units >= position.character:
                return self.starts[position.line] + index
            units += 2 if ord(char) > 0xFFFF else 1
        return self.starts[position.line] + len(line)

    def line_column_offset(self, line: int, column: int) -> int:
        """Returns the offset of a 1-based line and column (the checker's), clamped."""
        line = max(1, min(line, len(self.starts)))
        text = self.line_text(line - 1)
        return self.starts[line - 1] + max(0, min(column - 1, len(text)))


def _utf16(text: str) -> int:
    return sum(2 if ord(char) > 0xFFFF else 1 for char in text)


# ---------------------------------------------------------------------------------------------
# Diagnostics

_SEVERITY = {
    "error": lsp.DiagnosticSeverity.Error,
    "warning": lsp.DiagnosticSeverity.Warning,
}


def lsp_diagnostics(
    diagnostics: Iterable[Diagnostic], source: str, path: str
) -> list[lsp.Diagnostic]:
    """Returns the checker's diagnostics of the encoding at `path` (text `source`) as LSP
    diagnostics: each at its range (the token at its column when its width is not known), its
    severity mapped, its clause, detail and hint in the message. A diagnostic of another file
    (the official text) is shown at the start of the encoding, naming its file."""
    lines = Lines(source)
    found: list[lsp.Diagnostic] = []
    for diagnostic in diagnostics:
        message = diagnostic.message
        if diagnostic.path not in (path, str(Path(path))) and not _same(diagnostic.path, path):
            start = end = 0
            message = f"{diagnostic.path}:{diagnostic.line}:{diagnostic.column}: {message}"
        else:
            start = lines.line_column_offset(diagnostic.line, diagnostic.column)
            line_end = lines.line_end(start)
            if diagnostic.width > 1:
                end = min(start + diagnostic.width, line_end)
            else:
                word = _WORD.match(source, start)
                end = word.end() if word and word.end() <= line_end else start + 1
            end = min(max(end, start + 1), len(source)) if source else 0
        if diagnostic.clause:
            message += f"\n[{diagnostic.clause}]"
        if diagnostic.detail:
            message += "\n" + diagnostic.detail
        if diagnostic.hint:
            message += f"\nhint: {diagnostic.hint}"
        found.append(
            lsp.Diagnostic(
                range=lines.range(start, end),
                message=message,
                severity=_SEVERITY.get(diagnostic.severity, lsp.DiagnosticSeverity.Information),
                source="lextrace",
            )
        )
    return found


def _same(one: str, other: str) -> bool:
    try:
        return Path(one).resolve() == Path(other).resolve()
    except OSError:
        return False


@dataclass
class Checked:
    """What checking one version of a document found."""

    diagnostics: list[lsp.Diagnostic]
    statute: ast.Statute | None
    source: str


def analyse_document(path: str, source: str) -> Checked:
    """Checks `source` as the text of the encoding at `path`, exactly as `lextrace check`
    would check the file (the official text read from disk beside it); never raises: an
    unexpected failure is one diagnostic at the start of the document."""
    from .dsl.errors import EncodingError
    from .dsl.loader import analyse_text

    try:
        analysis = analyse_text(path, source)
    except EncodingError as error:
        return Checked(lsp_diagnostics(error.diagnostics, source, path), None, source)
    except Exception as error:  # never crash the server on one document
        problem = Diagnostic(path, 1, 1, f"lextrace could not check this text: {error!r}")
        return Checked(lsp_diagnostics([problem], source, path), None, source)
    return Checked(
        lsp_diagnostics(analysis.diagnostics, analysis.source, path),
        analysis.statute,
        analysis.source,
    )


# ---------------------------------------------------------------------------------------------
# Names: where each is defined and used


@dataclass(frozen=True)
class Token:
    """A name or a reading ID in the encoding's source (statute words and comments aside)."""

    text: str
    start: int
    end: int
    is_reading: bool


def tokens(source: str) -> list[Token]:
    """Returns every name and reading ID of `source`, in order."""
    found: list[Token] = []
    for match in _TOKEN.finditer(source):
        group = "id" if match.group("id") else "name" if match.group("name") else None
        if group is not None:
            found.append(Token(match.group(group), match.start(), match.end(), group == "id"))
    return found


@dataclass(eq=False)
class Symbol:
    """A named thing of an encoding: where its name is declared and what to say of it."""

    kind: str  # input, rule, cases, parameter, record, field, reading, enum member, table ...
    name: str
    start: int
    end: int
    type: str = ""
    description: str = ""
    clause: ast.Clause | None = None
    # The clauses whose words name it (an input's, a field's), when it sits in none.
    named_in: tuple[ast.Clause, ...] = ()
    owner: str = ""  # the definition a parameter belongs to, the record of a field
    # Where a parameter can be named: the offsets of its definition and of its cases and
    # exceptions.
    scopes: tuple[tuple[int, int], ...] = ()
    words: str = ""  # the words a definition rests on, when it names them
    extra: tuple[str, ...] = ()  # more lines for the hover (a reading's options, ...)


@dataclass
class DocumentIndex:
    """The names of one parsed encoding: their declarations and every use."""

    statute: ast.Statute
    source: str
    tokens: list[Token] = field(default_factory=list)
    symbols: list[Symbol] = field(default_factory=list)
    declared_at: dict[int, Symbol] = field(default_factory=dict)
    globals: dict[str, Symbol] = field(default_factory=dict)
    readings: dict[str, Symbol] = field(default_factory=dict)
    params: list[Symbol] = field(default_factory=list)
    fields: dict[str, list[Symbol]] = field(default_factory=dict)
    lines: Lines = field(init=False)

    def __post_init__(self) -> None:
        self.lines = Lines(self.source)
        self.tokens = tokens(self.source)
        self._starts = [token.start for token in self.tokens]
        self._build()

    # -- building --------------------------------------------------------------------------

    def _name_at(self, name: str, after: int) -> tuple[int, int]:
        """Returns the offsets of the first token `name` at or after offset `after`."""
        index = bisect.bisect_left(self._starts, after)
        for token in self.tokens[index:]:
            if token.text == name:
                return token.start, token.end
        return after, after + len(name)

    def _property(self, kind: str, declared: ast.Invariant | ast.Monotone) -> Symbol:
        """Returns the symbol of an invariant or a monotone property, at its name."""
        start, end = self._name_at(declared.name, declared.span.start)
        return Symbol(
            kind,
            declared.name,
            start,
            end,
            description=declared.description,
            clause=declared.clause,
        )

    def _add(self, symbol: Symbol, table: dict[str, Symbol] | None = None) -> None:
        self.symbols.append(symbol)
        self.declared_at.setdefault(symbol.start, symbol)
        if table is not None:
            table.setdefault(symbol.name, symbol)

    def _add_params(
        self,
        params: Iterable[ast.Param],
        clause: ast.Clause,
        owner: str,
        scopes: Iterable[tuple[int, int]],
    ) -> None:
        """Adds the parameters of a definition or invariant, each visible in its `scopes`."""
        for param in params:
            start, end = self._name_at(param.name, param.span.start)
            symbol = Symbol(
                "parameter",
                param.name,
                start,
                end,
                str(param.type),
                clause=clause,
                owner=owner,
                scopes=tuple(scopes),
            )
            self._add(symbol)
            self.params.append(symbol)

    def _build(self) -> None:
        statute = self.statute
        clauses = statute.clauses
        for reading in statute.readings.values():
            start, end = self._name_at(reading.id, reading.span.start)
            used = [d.clause for d in statute.definitions.values() if reading.id in d.readings]
            options = [f"- `{reading.default.name}` (default): {reading.default.description}"]
            options += [f"- `{o.name}`: {o.description}" for o in reading.alternatives]
            self._add(
                Symbol(
                    "reading",
                    reading.id,
                    start,
                    end,
                    description=reading.question,
                    clause=used[0] if used else None,
                    extra=("\n".join(options),),
                ),
                self.readings,
            )
        for declared in statute.inputs.values():
            self._add(self._input_symbol(declared, "input", "", clauses), self.globals)
        for record in statute.records.values():
            start, end = self._name_at(record.name, record.span.start)
            self._add(
                Symbol("record", record.name, start, end, "record", record.description),
                self.globals,
            )
            for declared in record.fields.values():
                symbol = self._input_symbol(declared, "field", record.name, clauses)
                self._add(symbol)
                self.fields.setdefault(declared.name, []).append(symbol)
        for table in statute.tables.values():
            start, end = self._name_at(table.name, table.span.start)
            self._add(
                Symbol(
                    "table",
                    table.name,
                    start,
                    end,
                    str(table.type),
                    table.description,
                    extra=(f"source: {table.source}",),
                ),
                self.globals,
            )
        scopes: dict[str, list[tuple[int, int]]] = {}
        for definition in statute.definitions.values():
            kind = "cases" if isinstance(definition, ast.Cases) else "rule"
            pieces = [(definition.span.start, definition.span.end)]
            if isinstance(definition, ast.Cases):
                pieces += [(case.span.start, case.span.end) for case in definition.cases]
            pieces += [(e.span.start, e.span.end) for e in definition.exceptions]
            scopes[definition.name] = pieces
            self._add(
                Symbol(
                    kind,
                    definition.name,
                    definition.name_span.start,
                    definition.name_span.end,
                    _signature(definition),
                    clause=definition.clause,
                    words=definition.words.words if definition.words else "",
                    extra=_marks(definition),
                ),
                self.globals,
            )
            self._add_params(
                definition.params, definition.clause, definition.name, scopes[definition.name]
            )
        for invariant in statute.invariants:
            self._add(self._property("invariant", invariant), self.globals)
            self._add_params(
                invariant.params,
                invariant.clause,
                invariant.name,
                [(invariant.span.start, invariant.span.end)],
            )
        for exception in statute.exceptions:
            self._add(
                Symbol(
                    "exception",
                    exception.name,
                    exception.name_span.start,
                    exception.name_span.end,
                    f"exception to {exception.target}, priority {exception.priority}",
                    clause=exception.clause,
                    words=exception.words.words if exception.words else "",
                ),
                self.globals,
            )
        for monotone in statute.monotones:
            self._add(self._property("monotone", monotone), self.globals)
        if statute.periods is not None:
            periods = statute.periods
            start, end = self._name_at(periods.name, periods.span.start)
            self._add(
                Symbol(
                    "periods",
                    periods.name,
                    start,
                    end,
                    f"periods by {periods.by}, at most {periods.at_most}",
                    periods.description,
                ),
                self.globals,
            )
        self._enum_members()

    def _input_symbol(
        self, declared: ast.Input, kind: str, owner: str, clauses: list[ast.Clause]
    ) -> Symbol:
        start, end = self._name_at(declared.name, declared.span.start)
        named = tuple(
            clause
            for clause in clauses
            if declared.phrases
            and any(phrase_named(clause.words, phrase.text) for phrase in declared.phrases)
        )
        extra: tuple[str, ...] = ()
        if declared.phrases:
            extra = ("named " + ", ".join(f'"{phrase.text}"' for phrase in declared.phrases),)
        return Symbol(
            kind,
            declared.name,
            start,
            end,
            str(declared.type),
            declared.description,
            named_in=named,
            owner=owner,
            extra=extra,
        )

    def _enum_members(self) -> None:
        """Adds each enum member, declared where its enum type is first written."""
        blanked = _TOKEN.sub(
            lambda m: m.group() if m.group("name") or m.group("id") else " " * len(m.group()),
            self.source,
        )
        declared_by: dict[str, list[str]] = {}
        for declared in [
            *self.statute.inputs.values(),
            *(f for r in self.statute.records.values() for f in r.fields.values()),
        ]:
            for member in declared.type.members:
                declared_by.setdefault(member, []).append(declared.name)
        for definition in self.statute.definitions.values():
            for member in definition.type.members:
                declared_by.setdefault(member, []).append(definition.name)
        for match in _ENUM.finditer(blanked):
            members = [part.strip() for part in match.group(1).split(",")]
            offset = match.start(1)
            for member in members:
                if not member or member in self.globals:
                    continue
                start, end = self._name_at(member, offset)
                offset = end
                self._add(
                    Symbol(
                        "enum member",
                        member,
                        start,
                        end,
                        f"enum({', '.join(members)})",
                        extra=("of " + ", ".join(f"`{n}`" for n in declared_by.get(member, [])),)
                        if member in declared_by
                        else (),
                    ),
                    self.globals,
                )

    # -- queries -----------------------------------------------------------------------------

    def token_at(self, offset: int) -> Token | None:
        """Returns the token under (or just before) an offset."""
        index = bisect.bisect_right(self._starts, offset) - 1
        if index >= 0 and self.tokens[index].start <= offset <= self.tokens[index].end:
            return self.tokens[index]
        return None

    def resolve_token(self, token: Token) -> Symbol | None:
        """Returns the symbol a token names: the declaration it is, else a parameter in scope,
        else an encoding-wide name, else a record's field, else None."""
        if token.is_reading:
            return self.readings.get(token.text)
        declared = self.declared_at.get(token.start)
        if declared is not None and declared.name == token.text:
            return declared
        callee = self._callee(token)
        for param in self.params:
            if param.name != token.text:
                continue
            if callee is not None and param.owner == callee:
                return param  # the name of a keyword argument: the called rule's parameter
            if callee is None and any(a <= token.start < b for a, b in param.scopes):
                return param
        if token.text in self.globals:
            return self.globals[token.text]
        fields = self.fields.get(token.text)
        return fields[0] if fields else None

    def _callee(self, token: Token) -> str | None:
        """Returns the rule called when `token` is the name of a keyword argument
        (`rule(name: value)`), else None."""
        after = self.source[token.end : token.end + 64].lstrip()
        if not after.startswith(":"):
            return None
        depth, index = 0, token.start - 1
        while index >= 0:
            char = self.source[index]
            if char == ")":
                depth += 1
            elif char == "(":
                if depth == 0:
                    break
                depth -= 1
            elif char in ";{}" or (char == "," and depth < 0):
                return None
            index -= 1
        if index < 0:
            return None
        before = self.token_at(len(self.source[:index].rstrip()))
        return before.text if before is not None and before.text in self.globals else None

    def resolve(self, offset: int) -> tuple[Token, Symbol] | None:
        """Returns the token at an offset and the symbol it names."""
        token = self.token_at(offset)
        if token is None:
            return None
        symbol = self.resolve_token(token)
        return (token, symbol) if symbol is not None else None

    def references(self, symbol: Symbol, include_declaration: bool = True) -> list[Token]:
        """Returns every token that names `symbol` (its declaration first, when asked)."""
        found = [
            t for t in self.tokens if t.text == symbol.name and self.resolve_token(t) is symbol
        ]
        if not include_declaration:
            found = [t for t in found if t.start != symbol.start]
        return found

    def hover(self, symbol: Symbol) -> str:
        """Returns the Markdown shown on hovering a name of `symbol`."""
        statute = self.statute
        head = f"**{symbol.kind}** `{symbol.name}`"
        if symbol.type:
            head += f": `{symbol.type}`"
        if symbol.owner:
            head += f" (of `{symbol.owner}`)"
        parts = [head]
        if symbol.description:
            parts.append(symbol.description)
        parts.extend(symbol.extra)
        clauses = [symbol.clause] if symbol.clause is not None else list(symbol.named_in[:2])
        for clause in clauses:
            where = "defined in" if symbol.clause is not None else "named in"
            if symbol.kind == "reading":
                where = "read in"
            parts.append(f"{where} **{statute.citation(clause)}**")
            words = ast.folded(clause.words) or symbol.words
            if words:
                if len(words) > WORDS_SHOWN:
                    words = words[:WORDS_SHOWN].rstrip() + " …"
                parts.append("> " + words)
        return "\n\n".join(parts)

    def outline(self) -> list[lsp.DocumentSymbol]:
        """Returns the document's symbols: its declarations, then its clause tree, each clause
        with the definitions it holds."""
        statute = self.statute
        top: list[lsp.DocumentSymbol] = []
        for symbol in self.symbols:
            if symbol.kind in ("reading", "input", "record", "table"):
                kind = {
                    "reading": lsp.SymbolKind.Constant,
                    "input": lsp.SymbolKind.Variable,
                    "record": lsp.SymbolKind.Struct,
                    "table": lsp.SymbolKind.Array,
                }[symbol.kind]
                top.append(self._symbol(symbol, kind))
        top.extend(self._clause(section, statute) for section in statute.sections)
        return top

    def _symbol(self, symbol: Symbol, kind: lsp.SymbolKind) -> lsp.DocumentSymbol:
        where = self.lines.range(symbol.start, symbol.end)
        return lsp.DocumentSymbol(
            name=symbol.name,
            kind=kind,
            range=where,
            selection_range=where,
            detail=symbol.type or symbol.kind,
        )

    def _clause(self, clause: ast.Clause, statute: ast.Statute) -> lsp.DocumentSymbol:
        children: list[lsp.DocumentSymbol] = []
        for item in clause.items:
            if isinstance(item, ast.Clause):
                children.append(self._clause(item, statute))
            elif isinstance(
                item, ast.Rule | ast.Cases | ast.ExceptionRule | ast.Invariant | ast.Monotone
            ):
                symbol = self.declared_at.get(self._name_at(item.name, item.span.start)[0])
                if symbol is not None:
                    children.append(self._symbol(symbol, _OUTLINED[type(item)]))
        whole = self.lines.range(clause.span.start, clause.span.end)
        label_end = clause.span.start + max(1, len(clause.label))
        return lsp.DocumentSymbol(
            name=clause.own_citation,
            detail=statute.citation(clause),
            kind=lsp.SymbolKind.Namespace if clause.parent is None else lsp.SymbolKind.Module,
            range=whole,
            selection_range=self.lines.range(clause.span.start, min(label_end, clause.span.end)),
            children=children,
        )

    def completions(self, offset: int) -> list[lsp.CompletionItem]:
        """Returns the completion items at an offset: the names in scope, the reading IDs, the
        built-in functions and the language's keywords."""
        items: list[lsp.CompletionItem] = []
        seen: set[str] = set()
        kinds = {
            "input": lsp.CompletionItemKind.Variable,
            "rule": lsp.CompletionItemKind.Function,
            "cases": lsp.CompletionItemKind.Function,
            "record": lsp.CompletionItemKind.Struct,
            "table": lsp.CompletionItemKind.Constant,
            "enum member": lsp.CompletionItemKind.EnumMember,
            "parameter": lsp.CompletionItemKind.TypeParameter,
            "field": lsp.CompletionItemKind.Field,
            "reading": lsp.CompletionItemKind.Constant,
        }

        def add(label: str, kind: lsp.CompletionItemKind, detail: str) -> None:
            if label not in seen:
                seen.add(label)
                items.append(lsp.CompletionItem(label=label, kind=kind, detail=detail))

        for param in self.params:
            if any(a <= offset <= b for a, b in param.scopes):
                add(param.name, kinds["parameter"], f"parameter of {param.owner}: {param.type}")
        for symbol in self.globals.values():
            if symbol.kind in kinds:
                add(symbol.name, kinds[symbol.kind], f"{symbol.kind}: {symbol.type}".rstrip(": "))
        for fields in self.fields.values():
            for symbol in fields:
                add(symbol.name, kinds["field"], f"field of {symbol.owner}: {symbol.type}")
        for symbol in self.readings.values():
            add(symbol.name, kinds["reading"], f"reading: {symbol.description}")
        for name in builtins():
            add(name, lsp.CompletionItemKind.Function, "built-in")
        for word in keywords():
            add(word, lsp.CompletionItemKind.Keyword, "keyword")
        return items


# The definitions a clause's outline lists, and their kinds of symbol.
_OUTLINED: dict[type, lsp.SymbolKind] = {
    ast.Rule: lsp.SymbolKind.Function,
    ast.Cases: lsp.SymbolKind.Function,
    ast.ExceptionRule: lsp.SymbolKind.Event,
    ast.Invariant: lsp.SymbolKind.Boolean,
    ast.Monotone: lsp.SymbolKind.Boolean,
}


def _signature(definition: ast.Rule | ast.Cases) -> str:
    params = ", ".join(f"{p.name}: {p.type}" for p in definition.params)
    return (f"({params}) -> " if params else "") + str(definition.type)


def _marks(definition: ast.Rule | ast.Cases) -> tuple[str, ...]:
    marks: list[str] = []
    if definition.is_bonus:
        marks.append("a bonus")
    if definition.readings:
        marks.append("reading " + ", ".join(definition.readings))
    return tuple(marks)


# ---------------------------------------------------------------------------------------------
# The server


@dataclass
class DocumentState:
    """What the server knows of one open document."""

    path: str
    version: int | None = None
    index: DocumentIndex | None = None  # of the last text that parsed
    pending: asyncio.Task[None] | None = None


class LextraceServer(LanguageServer):
    """The language server: checks documents and answers from their last parsed index."""

    def __init__(self) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            own_version = version("lextrace")
        except PackageNotFoundError:  # pragma: no cover - run from a source tree
            own_version = "0"
        super().__init__(
            "lextrace", own_version, text_document_sync_kind=lsp.TextDocumentSyncKind.Full
        )
        self.documents: dict[str, DocumentState] = {}
        # One check at a time, off the protocol's thread: requests are answered meanwhile.
        self.checker = concurrent.futures.ThreadPoolExecutor(max_workers=1)

    def state(self, uri: str) -> DocumentState:
        """Returns the state of the document `uri`, made on first use."""
        if uri not in self.documents:
            path = to_fs_path(uri) or str(Path.cwd() / Path(uri).name)
            self.documents[uri] = DocumentState(path)
        return self.documents[uri]

    def schedule(self, uri: str, delay: float) -> None:
        """Checks the document `uri` after `delay` seconds (a later change restarts the wait),
        then publishes its diagnostics."""
        state = self.state(uri)
        if state.pending is not None:
            state.pending.cancel()
        state.pending = asyncio.ensure_future(self._check(uri, delay))

    async def _check(self, uri: str, delay: float) -> None:
        if delay:
            await asyncio.sleep(delay)
        document = self.workspace.get_text_document(uri)
        source, version = document.source, document.version
        state = self.state(uri)
        loop = asyncio.get_running_loop()
        checked = await loop.run_in_executor(self.checker, analyse_document, state.path, source)
        if self.workspace.get_text_document(uri).version != version:
            return  # a newer text is on its way
        if checked.statute is not None:
            try:
                state.index = DocumentIndex(checked.statute, checked.source)
            except Exception as error:  # keep the last index rather than fail
                self.window_log_message(
                    lsp.LogMessageParams(
                        type=lsp.MessageType.Warning, message=f"index failed: {error!r}"
                    )
                )
        state.version = version
        self.text_document_publish_diagnostics(
            lsp.PublishDiagnosticsParams(uri=uri, diagnostics=checked.diagnostics, version=version)
        )

    def lookup(
        self, uri: str, position: lsp.Position
    ) -> tuple[DocumentIndex, Token, Symbol] | None:
        """Returns the index, token and symbol at a position of the current text of `uri`.

        When the text changed since it last parsed, the token under the cursor is found in the
        current text and matched to the last index by its name and how many times the name
        occurs before it."""
        state = self.documents.get(uri)
        if state is None or state.index is None:
            return None
        index = state.index
        source = self.workspace.get_text_document(uri).source.replace("\r\n", "\n")
        offset = Lines(source).offset(position)
        if source == index.source:
            found = index.resolve(offset)
            return (index, *found) if found else None
        current = tokens(source)
        here = next((t for t in current if t.start <= offset <= t.end), None)
        if here is None:
            return None
        nth = sum(1 for t in current if t.text == here.text and t.start < here.start)
        same = [t for t in index.tokens if t.text == here.text]
        token = same[min(nth, len(same) - 1)] if same else None
        symbol = index.resolve_token(token) if token else index.globals.get(here.text)
        return (index, here, symbol) if symbol is not None else None

    def locations(self, uri: str, index: DocumentIndex, found: list[Token]) -> list[lsp.Location]:
        """Returns the locations of tokens of `index` in the current text of `uri` (the same
        occurrence of the same name, when the text changed since it parsed)."""
        source = self.workspace.get_text_document(uri).source.replace("\r\n", "\n")
        if source == index.source:
            return [lsp.Location(uri=uri, range=index.lines.range(t.start, t.end)) for t in found]
        current = tokens(source)
        lines = Lines(source)
        located: list[lsp.Location] = []
        for token in found:
            nth = sum(1 for t in index.tokens if t.text == token.text and t.start < token.start)
            same = [t for t in current if t.text == token.text]
            if nth < len(same):
                located.append(
                    lsp.Location(uri=uri, range=lines.range(same[nth].start, same[nth].end))
                )
        return located


def make_server() -> LextraceServer:
    """Returns the language server with its features registered."""
    server = LextraceServer()

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: LextraceServer, params: lsp.DidOpenTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, 0)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: LextraceServer, params: lsp.DidChangeTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, CHANGE_DELAY)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: LextraceServer, params: lsp.DidSaveTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, 0)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: LextraceServer, params: lsp.DidCloseTextDocumentParams) -> None:
        state = ls.documents.pop(params.text_document.uri, None)
        if state is not None and state.pending is not None:
            state.pending.cancel()
        ls.text_document_publish_diagnostics(
            lsp.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[])
        )

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    def hover(ls: LextraceServer, params: lsp.HoverParams) -> lsp.Hover | None:
        found = ls.lookup(params.text_document.uri, params.position)
        if found is None:
            return None
        index, token, symbol = found
        source = ls.workspace.get_text_document(params.text_document.uri).source
        return lsp.Hover(
            contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=index.hover(symbol)),
            range=Lines(source.replace("\r\n", "\n")).range(token.start, token.end),
        )

    @server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
    def definition(ls: LextraceServer, params: lsp.DefinitionParams) -> list[lsp.Location] | None:
        uri = params.text_document.uri
        found = ls.lookup(uri, params.position)
        if found is None:
            return None
        index, _, symbol = found
        declaration = Token(symbol.name, symbol.start, symbol.end, symbol.kind == "reading")
        return ls.locations(uri, index, [declaration]) or None

    @server.feature(lsp.TEXT_DOCUMENT_REFERENCES)
    def references(ls: LextraceServer, params: lsp.ReferenceParams) -> list[lsp.Location] | None:
        uri = params.text_document.uri
        found = ls.lookup(uri, params.position)
        if found is None:
            return None
        index, _, symbol = found
        include = params.context.include_declaration if params.context else True
        return ls.locations(uri, index, index.references(symbol, include))

    @server.feature(
        lsp.TEXT_DOCUMENT_COMPLETION, lsp.CompletionOptions(trigger_characters=["(", " "])
    )
    def completion(ls: LextraceServer, params: lsp.CompletionParams) -> lsp.CompletionList:
        uri = params.text_document.uri
        state = ls.documents.get(uri)
        if state is None or state.index is None:
            items = [
                lsp.CompletionItem(label=w, kind=lsp.CompletionItemKind.Keyword, detail="keyword")
                for w in keywords()
            ]
            return lsp.CompletionList(is_incomplete=False, items=items)
        source = ls.workspace.get_text_document(uri).source.replace("\r\n", "\n")
        offset = Lines(source).offset(params.position)
        if source != state.index.source:
            offset = -1  # no parameter's scope is known in a text that does not parse
        return lsp.CompletionList(is_incomplete=False, items=state.index.completions(offset))

    @server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def document_symbol(
        ls: LextraceServer, params: lsp.DocumentSymbolParams
    ) -> list[lsp.DocumentSymbol] | None:
        state = ls.documents.get(params.text_document.uri)
        if state is None or state.index is None:
            return None
        return state.index.outline()

    return server


def serve() -> int:
    """Runs the language server over standard input and output until the client exits; returns
    the exit code the protocol gives: 0 when the client asked the server to shut down first, 1
    when it did not.

    The server writes to a copy of standard output, which it closes when it stops, and
    `sys.stdout` is standard error meanwhile, so that nothing printed can corrupt the protocol.
    """
    server = make_server()
    output = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    saved = sys.stdout
    sys.stdout = sys.stderr
    try:
        server.start_io(sys.stdin.buffer, output)
    finally:
        sys.stdout = saved
        if not output.closed:
            output.close()
    return 0 if getattr(server.protocol, "_shutdown", False) else 1
