"""Parse an encoding with the Lark grammar and build the typed AST with citations.

`parse_encoding` returns the `Statute` and the structural diagnostics found while building it
(duplicate definitions, stray cases); syntax errors raise `EncodingError` with file:line:column,
and so do the bounds of dsl/limits.py (nesting, depth, parse time).
"""

from __future__ import annotations

import bisect
import datetime
import difflib
import functools
import itertools
import re
import time
from collections.abc import Iterator
from fractions import Fraction
from importlib import resources
from typing import Any, cast

from lark import Lark, Token, Tree
from lark.exceptions import (
    LarkError,
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
    UnexpectedToken,
)

from . import ast, dates, limits
from .errors import Diagnostic, EncodingError, line_column

# Plain words for the grammar's terminals, used in "expected ..." messages.
_TERMINAL_WORDS = {
    "NAME": "a name",
    "STRING": "quoted statute words",
    "MONEY": "an amount such as $1,000",
    "PERCENT": "a percentage such as 40%",
    "NUMBER": "a number",
    "READING_ID": "a reading ID such as I8",
    "OPTION": "a reading option such as covered-jobs",
    "CLAUSE_LABEL": "a clause label such as b., A., (1), (a), (A), (iv) or (1A)",
    "SECTION_LABEL": "a section number such as 75.",
    "UNLABELLED": "'unlabelled'",
    "TYPE_NAME": "a type (bool, count, number, share, money, text, date, duration)",
    "ORDER": "'first-match' or 'exclusive'",
    "BONUS": "'bonus'",
    "DATE": "a date such as 2024-01-01",
    "DURATION_UNIT": "a unit of time (days, weeks, months, years)",
    "ROUNDING": "a date rounding (refuse-ambiguous, round-down or round-up)",
    "$END": "the end of the file",
}


@functools.cache
def _parser() -> Lark:
    grammar = resources.files(__package__).joinpath("lextrace.lark").read_text(encoding="utf-8")
    return Lark(grammar, parser="lalr", propagate_positions=True, maybe_placeholders=False)


@functools.cache
def _expression_parser() -> Lark:
    return Lark(grammar_text(), parser="lalr", start="expr")


def parses_as_expression(text: str) -> bool:
    """Returns whether `text` is one expression of the language, by its syntax alone (names
    and types are not looked at): what may stand wherever a rule's, a case's or a condition's
    expression stands."""
    try:
        _expression_parser().parse(text)
    except LarkError:
        return False
    return True


def grammar_text() -> str:
    """Returns the Lark grammar of the encoding language."""
    return resources.files(__package__).joinpath("lextrace.lark").read_text(encoding="utf-8")


def _describe_terminal(name: str) -> str:
    if name in _TERMINAL_WORDS:
        return _TERMINAL_WORDS[name]
    try:
        pattern = _parser().get_terminal(name).pattern
    except KeyError:
        return name.lower()
    return f"'{pattern.value}'" if pattern.type == "str" else name.lower()


def _expected_words(expected: set[str] | frozenset[str]) -> str:
    words = sorted({_describe_terminal(name) for name in expected})
    if len(words) > 8:
        words = [*words[:8], "..."]
    if len(words) == 1:
        return words[0]
    return ", ".join(words[:-1]) + " or " + words[-1]


def _syntax_diagnostic(error: UnexpectedInput, path: str, source: str) -> Diagnostic:
    line, column = getattr(error, "line", 1) or 1, getattr(error, "column", 1) or 1
    if isinstance(error, UnexpectedCharacters):
        char = source[error.pos_in_stream] if error.pos_in_stream < len(source) else "end of file"
        message = f"unexpected character {char!r}"
        if char == '"' and '"' not in source[error.pos_in_stream + 1 :]:
            return Diagnostic(
                path,
                line,
                column,
                "a quoted text that is never closed",
                hint="end the statute's words with a closing \"",
            )
        allowed = error.allowed or set()
        detail = f"expected {_expected_words(allowed)}" if allowed else None
        return Diagnostic(path, line, column, message, detail=detail)
    if isinstance(error, UnexpectedEOF):
        return _early_end(path, source, set(error.expected))
    assert isinstance(error, UnexpectedToken)
    token = error.token
    if token.type == "$END":
        return _early_end(path, source, set(error.expected))
    shown = token.value if len(token.value) <= 40 else token.value[:37] + "..."
    keywords = [
        pattern.value
        for name in error.expected
        if (pattern := _terminal_pattern(name)) is not None and pattern.type == "str"
    ]
    close = difflib.get_close_matches(str(token.value), keywords, n=1, cutoff=0.6)
    hint = f"did you mean '{close[0]}'?" if close else None
    if token.value == "where" and token.start_pos is not None:
        aggregate = _AGGREGATE_BEFORE.search(_statement_before(source, token.start_pos))
        if aggregate is not None:
            # An aggregate's `where` runs to the end of the expression: inside one, the
            # aggregate needs its own parentheses.
            hint = (
                f"an aggregate with 'where' inside a larger expression goes in parentheses: "
                f"({aggregate.group(1)} ... where ...)"
            )
    if (
        token.value == "{"
        and token.start_pos is not None
        and source[: token.start_pos].rstrip().endswith('"')
    ):
        hint = (
            "a passage of words inside a clause takes no braces: write its rules after it, "
            "inside the clause's own braces"
        )
    if token.value == "," and token.start_pos is not None:
        grouped = _GROUPED_DIGITS.match(source, _digits_start(source, token.start_pos))
        if grouped is not None and "$" not in source[max(0, grouped.start() - 1) : grouped.start()]:
            # "1,250 hours": only money is written with a thousands separator.
            hint = (
                f"a plain number has no thousands separator: write "
                f"{grouped.group().replace(',', '')} (money keeps it: $1,250)"
            )
    return Diagnostic(
        path,
        line,
        column,
        f"unexpected {shown!r}",
        detail=f"expected {_expected_words(error.expected)}",
        hint=hint,
        width=max(1, min(len(token.value), 40)),
    )


_GROUPED_DIGITS = re.compile(r"\d{1,3}(?:,\d{3})+(?![\d,])")


def _digits_start(source: str, position: int) -> int:
    """Returns where the run of digits that ends just before `position` starts."""
    start = position
    while start > 0 and source[start - 1].isdigit():
        start -= 1
    return start


_AGGREGATE_BEFORE = re.compile(r"\b(\w+ of) [\w(][^;]*$")


def _statement_before(source: str, position: int) -> str:
    """Returns the text of the statement that `position` is in, up to `position`."""
    start = max(source.rfind(mark, 0, position) for mark in ";{}")
    return source[start + 1 : position]


def _early_end(path: str, source: str, expected: set[str]) -> Diagnostic:
    """Returns the error of a file that ends inside a block: at the line before which a '}'
    seems to be missing when the indentation tells, else at the end of the file, naming the
    blocks never closed."""
    lines = source.splitlines() or [""]
    unclosed, missing = _unclosed_blocks(source)
    if missing is not None:
        line, column = line_column(source, missing)
        return Diagnostic(
            path,
            line,
            column,
            "the file ends too early: a '}' seems to be missing before this line",
            detail=f"the block that {_opener(source, unclosed[0])} opens holds this line, "
            "which is indented no deeper than that line",
            hint="close that block with a '}' before this line",
        )
    named = [_opener(source, at) for at in unclosed[-3:]]
    return Diagnostic(
        path,
        len(lines),
        len(lines[-1]) + 1,
        "the file ends too early",
        detail=f"expected {_expected_words(expected)}",
        hint=f"never closed: the block{'s' if len(named) > 1 else ''} that "
        + " and ".join(named)
        + (" open" if len(named) > 1 else " opens")
        if named
        else None,
    )


def _opener(source: str, at: int) -> str:
    """Returns how a message names the line at `at`: its number and how it begins."""
    line, _ = line_column(source, at)
    end = source.find("\n", at)
    text = source[at : len(source) if end < 0 else end].strip()
    return f"line {line} ({text[:32] + '…' if len(text) > 32 else text})"


def _unclosed_blocks(source: str) -> tuple[list[int], int | None]:
    """Returns where the line opening each block never closed begins (outermost first), and
    where a '}' seems to be missing: before the first line, within an indented block, indented
    no deeper than the line that opens the block (statute words and comments aside). With a
    missing '}', the block it belongs to comes first. No missing place when nothing tells."""
    words: list[tuple[int, int]] = []  # the spans of quoted statute words
    blocks: list[list[int]] = []  # [where the '{' stands, where its '}' stands or -1]
    still_open: list[int] = []
    for match in _BRACKETS.finditer(source):
        text = match.group()
        if text == "{":
            still_open.append(len(blocks))
            blocks.append([match.start(), -1])
        elif text == "}":
            if still_open:
                blocks[still_open.pop()][1] = match.start()
        elif text.startswith('"'):
            words.append((match.start(), match.end()))
    if not still_open:
        return [], None
    # The lines that start outside statute words and hold more than a comment: (where their
    # text begins, indentation, first character).
    word_starts = [start for start, _ in words]
    lines: list[tuple[int, int, str]] = []
    for start in [0] + [m.end() for m in re.finditer("\n", source)]:
        inside = bisect.bisect_right(word_starts, start) - 1
        if inside >= 0 and words[inside][0] < start < words[inside][1]:
            continue
        end = source.find("\n", start)
        text = source[start : len(source) if end < 0 else end]
        stripped = text.lstrip(" \t")
        if stripped and not stripped.startswith("#"):
            depth = len(text) - len(stripped)
            lines.append((start + depth, depth, stripped[0]))
    begins = [begin for begin, _, _ in lines]

    def opener(block: list[int]) -> int:
        return bisect.bisect_right(begins, block[0]) - 1

    unclosed = [lines[opener(blocks[index])][0] for index in still_open]
    for block in blocks:
        line = opener(block)
        if line < 0:
            continue
        begin, indentation, _ = lines[line]
        end = len(source) if block[1] < 0 else block[1]
        inner = [each for each in lines[line + 1 :] if each[0] < end]
        if not inner or inner[0][1] <= indentation:
            continue  # a block written without indentation: nothing tells where it ends
        for at, depth, first in inner:
            if depth <= indentation and first != "}":
                return [begin, *(u for u in unclosed if u != begin)], at
    return unclosed, None


def _terminal_pattern(name: str) -> Any:
    try:
        return _parser().get_terminal(name).pattern
    except KeyError:
        return None


def _span(item: Tree | Token) -> ast.Span:
    if isinstance(item, Token):
        return ast.Span(
            item.line or 1,
            item.column or 1,
            item.end_line or item.line or 1,
            item.end_column or item.column or 1,
            item.start_pos or 0,
            item.end_pos or 0,
        )
    meta = item.meta
    if meta.empty:
        return ast.Span(1, 1, 1, 1, 0, 0)
    return ast.Span(
        meta.line, meta.column, meta.end_line, meta.end_column, meta.start_pos, meta.end_pos
    )


def _fraction(span: ast.Span, numerator: str, denominator: str) -> ast.Literal:
    """Returns `1/3` (two whole numbers written with a slash) as one written number."""
    return ast.Literal(
        span, Fraction(numerator) / Fraction(denominator), "number", f"{numerator}/{denominator}"
    )


# The annotations that may follow a rule, a case, an exception or a property.
ANNOTATIONS = ("readings", "reviewed", "reviewed_fraction", "reads")


def _string(token: Token) -> str:
    return ast.unescape(str(token)[1:-1])


def _prose(token: Token) -> str:
    # A description, question or reason is read as one paragraph: the line breaks and the
    # indentation it has in the source are layout, not words. (Statute words keep theirs in
    # TextPiece.text, where the fidelity check locates each word by its offset.)
    return ast.folded(_string(token))


def _label_part(label: str) -> str:
    return label.strip("().")


class _Builder:
    """Walks the parse tree and builds the AST, collecting structural diagnostics."""

    def __init__(self, path: str, source: str) -> None:
        self.path = path
        self.source = source
        self.diagnostics: list[Diagnostic] = []
        self.definitions: dict[str, ast.Rule | ast.Cases] = {}
        self.pending_cases: list[tuple[ast.Case, ast.Span]] = []
        self.exceptions: list[ast.ExceptionRule] = []
        self.invariants: list[ast.Invariant] = []
        self.monotones: list[ast.Monotone] = []
        self.totals: list[ast.Total] = []

    def error(
        self,
        span: ast.Span,
        message: str,
        clause: ast.Clause | None = None,
        hint: str | None = None,
    ) -> None:
        self.diagnostics.append(
            Diagnostic(
                self.path,
                span.line,
                span.column,
                message,
                clause=clause.short_citation or "section" if clause else None,
                hint=hint,
                width=max(1, span.end - span.start) if span.end_line == span.line else 1,
            )
        )

    def check_cite(self, template: str, span: ast.Span) -> None:
        """Reports a citation style that is not a template of {statute}, {section} and
        {clauses} (the last one required, so that every clause has a citation of its own)."""
        import string

        try:
            names = [
                name for _, name, _, _ in string.Formatter().parse(template) if name is not None
            ]
        except ValueError as error:
            self.error(span, f"the citation style is not a template: {error}", None)
            return
        unknown = [name for name in names if name not in ast.CITE_FIELDS]
        if unknown:
            self.error(
                span,
                f"the citation style names {{{unknown[0]}}}",
                None,
                hint="it may name {statute}, {section} and {clauses}",
            )
        elif "clauses" not in names:
            self.error(
                span,
                "the citation style has no {clauses}: every clause would be cited alike",
                None,
                hint='for example cite "{statute}{clauses}"',
            )

    # ---- top level ----------------------------------------------------------------------
    def build(self, tree: Tree) -> ast.Statute:
        header, *rest = tree.children
        assert isinstance(header, Tree)
        declarations = [c for c in rest if isinstance(c, Tree) and c.data != "section"]
        section_trees = [c for c in rest if isinstance(c, Tree) and c.data == "section"]
        name = _string(cast(Token, header.children[0]))
        fields = {
            "title": "",
            "official": "",
            "history": "",
            "cite": ast.CITE,
            "dates": "refuse-ambiguous",
        }
        for field_tree in header.children[1:]:
            assert isinstance(field_tree, Tree)
            token = cast(Token, field_tree.children[0])
            if field_tree.data == "dates":
                fields["dates"] = str(token)
                continue
            fields[str(field_tree.data)] = _string(token)
            if field_tree.data == "cite":
                self.check_cite(_string(token), _span(token))
        readings: dict[str, ast.Reading] = {}
        inputs: dict[str, ast.Input] = {}
        results: list[tuple[str, ast.Span]] = []
        tables: dict[str, ast.Table] = {}
        periods: ast.Periods | None = None
        records: dict[str, ast.Record] = {}
        for declaration in declarations:
            assert isinstance(declaration, Tree)
            kind = declaration.data
            if kind == "reading_decl":
                reading = self.reading(declaration)
                if reading.id in readings:
                    self.error(reading.span, f"reading {reading.id} is declared twice")
                readings[reading.id] = reading
            elif kind == "input_decl":
                declared = self.input(declaration)
                if declared.name in inputs:
                    self.error(declared.span, f"input '{declared.name}' is declared twice")
                inputs[declared.name] = declared
            elif kind == "results_decl":
                results.extend((str(tok), _span(tok)) for tok in declaration.children)
            elif kind == "table_decl":
                table = self.table(declaration)
                if table.name in tables:
                    self.error(table.span, f"table '{table.name}' is declared twice")
                tables[table.name] = table
            elif kind == "periods_decl":
                if periods is not None:
                    self.error(_span(declaration), "the periods are declared twice")
                periods = self.periods(declaration)
            elif kind == "record_decl":
                record = self.record(declaration)
                if record.name in records:
                    self.error(record.span, f"record '{record.name}' is declared twice")
                records[record.name] = record
        sections = self.sections(section_trees, fields["cite"])
        for case, span in self.pending_cases:
            target = self.definitions.get(case.name)
            if isinstance(target, ast.Cases):
                target.cases.append(case)
            elif target is None:
                self.error(
                    span,
                    f"case of '{case.name}', which has no 'cases {case.name}' declaration",
                    case.clause,
                    hint=f"declare it with 'cases {case.name}: TYPE exclusive;'",
                )
            else:
                self.error(
                    span,
                    f"case of '{case.name}', which is a rule, not a 'cases' definition",
                    case.clause,
                )
        self.attach_exceptions()
        return ast.Statute(
            name=name,
            title=fields["title"],
            history=fields["history"],
            official=fields["official"],
            path=self.path,
            source=self.source,
            readings=readings,
            inputs=inputs,
            results=tuple(results),
            sections=sections,
            definitions=self.definitions,
            invariants=self.invariants,
            monotones=self.monotones,
            cite=fields["cite"],
            date_rounding=cast(ast.DateRounding, fields["dates"]),
            tables=tables,
            periods=periods,
            totals=self.totals,
            records=records,
            exceptions=self.exceptions,
        )

    def attach_exceptions(self) -> None:
        """Puts each exception on the definition it is an exception to; an exception whose
        target is not a rule or a `cases` definition is reported at the target's name."""
        names = {e.name: e for e in self.exceptions}
        for exception in self.exceptions:
            target = self.definitions.get(exception.target)
            if target is not None:
                target.exceptions.append(exception)
            elif exception.target in names:
                self.error(
                    exception.target_span,
                    f"exception '{exception.name}' is to '{exception.target}', itself an "
                    "exception: an exception is to a rule or a 'cases' definition",
                    exception.clause,
                    hint=f"make it an exception to "
                    f"'{names[exception.target].target}' with a higher priority",
                )
            else:
                self.error(
                    exception.target_span,
                    f"exception '{exception.name}' is to '{exception.target}', which no rule "
                    "or 'cases' defines",
                    exception.clause,
                )

    def reading(self, tree: Tree) -> ast.Reading:
        reading_id, question, default_name, default_text, *alternatives = tree.children
        options = []
        for alternative in alternatives:
            assert isinstance(alternative, Tree)
            option, description = alternative.children
            options.append(ast.ReadingOption(str(option), _prose(cast(Token, description))))
        return ast.Reading(
            id=str(reading_id),
            question=_prose(cast(Token, question)),
            default=ast.ReadingOption(str(default_name), _prose(cast(Token, default_text))),
            alternatives=tuple(options),
            span=_span(tree),
        )

    def type(self, tree: Tree) -> ast.Type:
        if tree.data == "simple_type":
            per = str(tree.children[1]) if len(tree.children) > 1 else ""
            return ast.Type(cast(ast.TypeKind, str(tree.children[0])), per=per)
        if tree.data == "list_type":
            return ast.Type("list", record=str(tree.children[0]))
        return ast.Type("enum", tuple(str(tok) for tok in tree.children))

    def record(self, tree: Tree) -> ast.Record:
        name_token, description, *field_trees = tree.children
        record = ast.Record(
            name=str(name_token),
            description=_prose(cast(Token, description)),
            span=_span(cast(Token, name_token)),
        )
        requirements: list[ast.Requirement] = []
        for field_tree in field_trees:
            assert isinstance(field_tree, Tree)
            if field_tree.data == "record_requires":
                condition, reason = field_tree.children
                requirements.append(
                    ast.Requirement(
                        self.expr(condition), _prose(cast(Token, reason)), _span(field_tree)
                    )
                )
                continue
            declared = self.input(cast(Tree, field_tree))
            if declared.name in record.fields:
                self.error(
                    declared.span,
                    f"field '{declared.name}' is declared twice in record '{record.name}'",
                )
            record.fields[declared.name] = declared
        record.requirements = tuple(requirements)
        return record

    def input(self, tree: Tree) -> ast.Input:
        name_token, type_tree, *options, description = tree.children
        declared = ast.Input(
            name=str(name_token),
            type=self.type(cast(Tree, type_tree)),
            description=_prose(cast(Token, description)),
            span=_span(cast(Token, name_token)),
        )
        bounds: list[ast.Bound] = []
        for option in options:
            assert isinstance(option, Tree)
            kind = option.data
            if kind == "default":
                declared.default = self.expr(option.children[0])
            elif kind == "required":
                declared.required = not option.children
                if option.children:
                    declared.required_when = self.when(option.children[0])
            elif kind == "optional":
                declared.optional = True
            elif kind == "from_table":
                table, year = option.children
                declared.from_table = ast.FromTable(str(table), str(year), _span(option))
            elif kind == "derived_by":
                rule, condition = option.children
                declared.derived_by = ast.DerivedBy(str(rule), self.when(condition), _span(option))
            elif kind == "unique":
                declared.unique = True
            elif kind == "named":
                declared.phrases = self.phrases(declared, option.children)
            else:
                bound_kind = str(kind).removesuffix("_bound")
                when = self.when(option.children[1]) if len(option.children) > 1 else None
                bounds.append(
                    ast.Bound(
                        cast(ast.BoundKind, bound_kind),
                        self.expr(option.children[0]),
                        when,
                        _span(option),
                    )
                )
        declared.bounds = tuple(bounds)
        return declared

    def phrases(self, declared: ast.Input, tokens: list[Tree | Token]) -> tuple[ast.Phrase, ...]:
        """Returns the phrases of an input's `named`, refusing one that is empty or that it
        declares a second time."""
        found: list[ast.Phrase] = [*declared.phrases]
        for token in tokens:
            phrase = ast.Phrase(_prose(cast(Token, token)), _span(token))
            if not phrase.text:
                self.error(phrase.span, f"an empty phrase in the 'named' of '{declared.name}'")
            elif any(p.text.casefold() == phrase.text.casefold() for p in found):
                self.error(
                    phrase.span, f"the phrase {phrase.text!r} is named twice for '{declared.name}'"
                )
            else:
                found.append(phrase)
        return tuple(found)

    def when(self, tree: Tree | Token) -> ast.Expr:
        assert isinstance(tree, Tree) and tree.data == "when"
        return self.expr(tree.children[0])

    # ---- the statute's structure ----------------------------------------------------------
    def sections(self, trees: list[Tree], cite: str) -> tuple[ast.Clause, ...]:
        """Returns the sections in order; in an encoding of several, each clause's citations
        name its section, so the sections' numbers must differ and the citation style must
        name {section}."""
        sections = tuple(self.section(tree) for tree in trees)
        if len(sections) < 2:
            return sections
        for section in sections:
            for clause in section.walk():
                clause.qualified = True
        seen: dict[str, ast.Clause] = {}
        for section in sections:
            earlier = seen.get(section.number)
            if earlier is not None:
                self.error(
                    section.span,
                    f"a second section numbered {section.number!r} (the first is at line "
                    f"{earlier.span.line}): each section is cited by its number",
                )
            seen.setdefault(section.number, section)
        if "{section}" not in cite:
            self.error(
                sections[1].span,
                "an encoding of several sections needs a citation style naming {section}: "
                f"with {cite!r} the clauses of different sections would be cited alike",
                hint='declare it in the header, for example cite "{statute} § {section}{clauses}"',
            )
        return sections

    def section(self, tree: Tree) -> ast.Clause:
        label, *rest = tree.children
        assert isinstance(label, Token)
        unlabelled = bool(rest) and isinstance(rest[0], Token) and rest[0].type == "UNLABELLED"
        written = _string(label) if label.type == "STRING" else str(label)
        clause = ast.Clause(
            label=ast.folded(written),
            path=(),
            span=_span(tree),
            label_carried=not unlabelled,
        )
        if not clause.label:
            self.error(
                _span(label),
                "the section's label is empty",
                hint='write its number (section 75.) or its heading (section "§ 132")',
            )
        self.items(clause, rest[1:] if unlabelled else rest)
        return clause

    def clause(self, tree: Tree, parent: ast.Clause) -> ast.Clause:
        label = cast(Token, tree.children[0])
        clause = ast.Clause(
            label=str(label),
            path=(*parent.path, _label_part(str(label))),
            span=_span(label),
            parent=parent,
        )
        self.items(clause, tree.children[1:])
        return clause

    def text(self, tree: Tree, clause: ast.Clause) -> ast.TextPiece:
        token = cast(Token, tree.children[0])
        piece = ast.TextPiece(text=_string(token), span=_span(token), clause=clause)
        if len(tree.children) > 1:
            mark = cast(Tree, tree.children[1])
            piece.mark = cast(ast.TextMark, str(mark.data))
            piece.reason = _prose(cast(Token, mark.children[0]))
        return piece

    def items(self, clause: ast.Clause, children: list[Tree | Token]) -> None:
        words: ast.TextPiece | None = None
        seen_labels: set[str] = set()
        for child in children:
            assert isinstance(child, Tree)
            kind = child.data
            if kind == "text":
                words = self.text(child, clause)
                clause.items.append(words)
            elif kind in ("clause", "leaf_clause"):
                sub = self.clause(child, clause)
                if sub.label in seen_labels:
                    self.error(
                        sub.span,
                        f"clause {sub.label} appears twice in "
                        f"{clause.short_citation or 'the section'}",
                        clause,
                    )
                seen_labels.add(sub.label)
                clause.items.append(sub)
            elif kind == "rule":
                rule = self.rule(child, clause, words)
                self.define(rule)
                clause.items.append(rule)
            elif kind == "cases_decl":
                cases = self.cases(child, clause, words)
                self.define(cases)
                clause.items.append(cases)
            elif kind == "case":
                case = self.case(child, clause, words)
                self.pending_cases.append((case, _span(child)))
                clause.items.append(case)
            elif kind == "exception":
                exception = self.exception(child, clause, words)
                self.note_exception(exception)
                clause.items.append(exception)
            elif kind == "invariant":
                invariant = self.invariant(child, clause)
                self.invariants.append(invariant)
                clause.items.append(invariant)
            elif kind in ("monotone", "monotone_fall"):
                monotone = self.monotone(child, clause)
                self.monotones.append(monotone)
                clause.items.append(monotone)
            elif kind == "total":
                total = self.total(child, clause)
                self.totals.append(total)
                clause.items.append(total)
            elif kind == "unread":
                name, reason = child.children
                clause.unread.append(
                    ast.Unread(str(name), _prose(cast(Token, reason)), _span(cast(Token, name)))
                )

    def define(self, definition: ast.Rule | ast.Cases) -> None:
        earlier = self.definitions.get(definition.name)
        if earlier is not None:
            self.error(
                definition.name_span,
                f"'{definition.name}' is defined twice: first in "
                f"{earlier.clause.short_citation or 'the section'} "
                f"(line {earlier.span.line})",
                definition.clause,
            )
            return
        self.definitions[definition.name] = definition

    def annotations(
        self, trees: list[Tree | Token]
    ) -> tuple[tuple[str, ...], tuple[ast.Reviewed, ...]]:
        readings: list[str] = []
        reviewed: list[ast.Reviewed] = []
        for tree in trees:
            assert isinstance(tree, Tree)
            if tree.data == "readings":
                readings.extend(str(tok) for tok in tree.children)
            elif tree.data == "reads":
                continue
            elif tree.data == "reviewed_fraction":  # `reviewed 1/3`: one written number
                numerator, denominator, reason = (cast(Token, c) for c in tree.children)
                if Fraction(str(denominator)) == 0:
                    self.error(_span(denominator), "a fraction's denominator is 0", None)
                    continue
                start, end = _span(numerator), _span(denominator)
                literal = _fraction(
                    ast.Span(
                        start.line, start.column, end.end_line, end.end_column, start.start, end.end
                    ),
                    str(numerator),
                    str(denominator),
                )
                reviewed.append(ast.Reviewed(literal, _prose(reason), _span(tree)))
            else:
                literal = self.expr(tree.children[0])
                assert isinstance(literal, ast.Literal)
                reviewed.append(
                    ast.Reviewed(literal, _prose(cast(Token, tree.children[1])), _span(tree))
                )
        return tuple(readings), tuple(reviewed)

    def reads(
        self, trees: list[Tree | Token], what: str | None = None
    ) -> tuple[ast.ReadsMark, ...]:
        """Returns the `reads` marks among a rule's annotations; `what` names an item that
        cannot carry one (an invariant, say), and each is then refused."""
        found: list[ast.ReadsMark] = []
        for tree in trees:
            assert isinstance(tree, Tree)
            if tree.data != "reads":
                continue
            name, reason = tree.children
            if what is not None:
                self.error(
                    _span(tree),
                    f"a 'reads' mark on {what}: it marks a rule, a case or an exception "
                    "that reads a fact its clause's words do not name",
                )
                continue
            found.append(ast.ReadsMark(str(name), _prose(cast(Token, reason)), _span(tree)))
        return tuple(found)

    @staticmethod
    def _split(children: list[Tree | Token], *kinds: str) -> tuple[list[Tree | Token], ...]:
        """Separates leading children from trailing annotation trees."""
        head = [c for c in children if not (isinstance(c, Tree) and c.data in kinds)]
        tail = [c for c in children if isinstance(c, Tree) and c.data in kinds]
        return head, tail

    def params(self, tree: Tree) -> tuple[ast.Param, ...]:
        found = []
        for param in tree.children:
            assert isinstance(param, Tree)
            name, type_tree = param.children
            found.append(ast.Param(str(name), self.type(cast(Tree, type_tree)), _span(param)))
        return tuple(found)

    def rule(self, tree: Tree, clause: ast.Clause, words: ast.TextPiece | None) -> ast.Rule:
        head, tail = self._split(tree.children, *ANNOTATIONS)
        is_bonus = isinstance(head[0], Token) and head[0].type == "BONUS"
        if is_bonus:
            head = head[1:]
        name = cast(Token, head[0])
        rest = head[1:]
        params: tuple[ast.Param, ...] = ()
        if isinstance(rest[0], Tree) and rest[0].data == "params":
            params = self.params(rest[0])
            rest = rest[1:]
        type_tree, expr_tree, *condition = rest
        readings, reviewed = self.annotations(tail)
        return ast.Rule(
            name=str(name),
            type=self.type(cast(Tree, type_tree)),
            span=_span(tree),
            name_span=_span(name),
            is_bonus=is_bonus,
            readings=readings,
            reviewed=reviewed,
            clause=clause,
            words=words,
            params=params,
            expr=self.expr(expr_tree),
            condition=self.when(condition[0]) if condition else None,
            reads=self.reads(tail),
        )

    def cases(self, tree: Tree, clause: ast.Clause, words: ast.TextPiece | None) -> ast.Cases:
        head, tail = self._split(tree.children, *ANNOTATIONS)
        is_bonus = isinstance(head[0], Token) and head[0].type == "BONUS"
        if is_bonus:
            head = head[1:]
        name, type_tree, order, *otherwise = head
        readings, reviewed = self.annotations(tail)
        return ast.Cases(
            name=str(name),
            type=self.type(cast(Tree, type_tree)),
            span=_span(tree),
            name_span=_span(cast(Token, name)),
            is_bonus=is_bonus,
            readings=readings,
            reviewed=reviewed,
            clause=clause,
            words=words,
            order=cast(ast.CasesOrder, str(order)),
            reads=self.reads(tail),
            otherwise=self.expr(cast(Tree, otherwise[0]).children[0]) if otherwise else None,
        )

    def case(self, tree: Tree, clause: ast.Clause, words: ast.TextPiece | None) -> ast.Case:
        head, tail = self._split(tree.children, *ANNOTATIONS)
        name, expr_tree, guard = head
        readings, reviewed = self.annotations(tail)
        assert isinstance(guard, Tree)
        condition = self.when(guard) if guard.data == "when" else None
        return ast.Case(
            name=str(name),
            expr=self.expr(expr_tree),
            condition=condition,
            span=_span(tree),
            readings=readings,
            reviewed=reviewed,
            clause=clause,
            words=words,
            reads=self.reads(tail),
        )

    def note_exception(self, exception: ast.ExceptionRule) -> None:
        """Records an exception, refusing a name another exception or a definition has."""
        for earlier in self.exceptions:
            if earlier.name == exception.name:
                self.error(
                    exception.name_span,
                    f"exception '{exception.name}' is stated twice: first in "
                    f"{earlier.clause.short_citation or 'the section'} "
                    f"(line {earlier.span.line})",
                    exception.clause,
                )
                return
        self.exceptions.append(exception)

    def exception(
        self, tree: Tree, clause: ast.Clause, words: ast.TextPiece | None
    ) -> ast.ExceptionRule:
        head, tail = self._split(tree.children, *ANNOTATIONS)
        name, target, priority, expr_tree, guard = head
        readings, reviewed = self.annotations(tail)
        priority_token = cast(Token, priority)
        if "." in str(priority_token):
            self.error(
                _span(priority_token),
                f"the priority of exception '{name}' is {priority_token}: a priority is a "
                "whole number",
                clause,
            )
        return ast.ExceptionRule(
            name=str(name),
            target=str(target),
            priority=int(Fraction(str(priority_token))),
            expr=self.expr(expr_tree),
            condition=self.when(cast(Tree, guard)),
            span=_span(tree),
            name_span=_span(cast(Token, name)),
            target_span=_span(cast(Token, target)),
            priority_span=_span(priority_token),
            readings=readings,
            reviewed=reviewed,
            clause=clause,
            words=words,
            reads=self.reads(tail),
        )

    def invariant(self, tree: Tree, clause: ast.Clause) -> ast.Invariant:
        head, tail = self._split(tree.children, *ANNOTATIONS)
        name, *rest = head
        params: tuple[ast.Param, ...] = ()
        if isinstance(rest[0], Tree) and rest[0].data == "params":
            params = self.params(rest[0])
            rest = rest[1:]
        description, expr_tree = rest
        readings, reviewed = self.annotations(tail)
        self.reads(tail, f"invariant '{name}'")
        return ast.Invariant(
            name=str(name),
            description=_prose(cast(Token, description)),
            expr=self.expr(expr_tree),
            span=_span(tree),
            readings=readings,
            clause=clause,
            params=params,
            reviewed=reviewed,
        )

    def total(self, tree: Tree, clause: ast.Clause) -> ast.Total:
        head, tail = self._split(tree.children, *ANNOTATIONS)
        name, summed, periods = head
        readings, _ = self.annotations(tail)
        self.reads(tail, f"total '{name}'")
        return ast.Total(
            name=str(name),
            summed=str(summed),
            periods=str(periods),
            span=_span(tree),
            readings=readings,
            clause=clause,
        )

    def table(self, tree: Tree) -> ast.Table:
        name, type_tree, description, source, *entries, until = tree.children
        found: list[ast.TableEntry] = []
        for entry in entries:
            assert isinstance(entry, Tree)
            start, value = entry.children
            literal = self.expr(value)
            assert isinstance(literal, ast.Literal)
            self.check_date(cast(Token, start))
            found.append(ast.TableEntry(str(start), literal, _span(entry)))
        self.check_date(cast(Token, until))
        for earlier, later in itertools.pairwise(found):
            if later.start <= earlier.start:
                self.error(
                    later.span,
                    f"the table's dates must rise: {later.start} comes after {earlier.start}",
                )
        if found and str(until) < found[-1].start:
            self.error(
                _span(cast(Token, until)),
                f"the table ends ({until}) before its last value is in force ({found[-1].start})",
            )
        return ast.Table(
            name=str(name),
            type=self.type(cast(Tree, type_tree)),
            description=_prose(cast(Token, description)),
            source=_prose(cast(Token, source)),
            entries=tuple(found),
            until=str(until),
            span=_span(tree),
        )

    def check_date(self, token: Token) -> None:
        try:
            datetime.date.fromisoformat(str(token))
        except ValueError:
            self.error(_span(token), f"{token} is not a date of the calendar")

    def periods(self, tree: Tree) -> ast.Periods:
        name, by, most, description, *lists = tree.children
        only: tuple[str, ...] = ()
        without: tuple[str, ...] = ()
        for names in lists:
            assert isinstance(names, Tree)
            if names.data == "period_only":
                only = tuple(str(n) for n in names.children)
            else:
                without = tuple(str(n) for n in names.children)
        at_most = Fraction(str(most))
        if at_most.denominator != 1 or at_most < 1:
            self.error(_span(cast(Token, most)), f"at most {most} periods: give a whole number")
        return ast.Periods(
            name=str(name),
            by=str(by),
            at_most=int(at_most),
            description=_prose(cast(Token, description)),
            only=only,
            without=without,
            span=_span(tree),
        )

    def monotone(self, tree: Tree, clause: ast.Clause) -> ast.Monotone:
        head, tail = self._split(tree.children, *ANNOTATIONS)
        name, description, results_tree, inputs_tree = head
        readings, _ = self.annotations(tail)
        self.reads(tail, f"monotone '{name}'")
        results = cast(Tree, results_tree).children
        inputs = cast(Tree, inputs_tree).children
        return ast.Monotone(
            name=str(name),
            description=_prose(cast(Token, description)),
            results=tuple((str(t), _span(cast(Token, t))) for t in results),
            inputs=tuple((str(t), _span(cast(Token, t))) for t in inputs),
            span=_span(tree),
            readings=readings,
            clause=clause,
            direction="fall" if tree.data == "monotone_fall" else "rise",
        )

    # ---- expressions ----------------------------------------------------------------------
    def expr(self, tree: Tree | Token) -> ast.Expr:
        span = _span(tree)
        if isinstance(tree, Token):
            return self.token_expr(tree)
        kind = tree.data
        children = tree.children
        if kind in ("money", "percent", "number", "true", "false", "date", "duration"):
            return self.literal(tree)
        if kind == "negative_literal":  # a bound below zero: `min -$10,000,000`
            return self.negative_literal(cast(Tree, children[0]), span)
        if kind == "part_of":
            return self.part_of(cast(Token, children[0]), self.expr(children[1]), span)
        if kind == "ref":
            return ast.Ref(span, str(children[0]))
        if kind == "cited_ref":
            return ast.Ref(span, str(children[0]), self.citation(cast(Token, children[1])))
        if kind in ("call", "cited_call"):
            cited = None
            if kind == "cited_call":
                cited = self.citation(cast(Token, children[-1]))
                children = children[:-1]
            args: list[ast.Expr] = []
            kwargs: list[tuple[str, ast.Expr]] = []
            for arg in children[1:]:
                assert isinstance(arg, Tree)
                if arg.data == "keyword_arg":
                    kwargs.append((str(arg.children[0]), self.expr(arg.children[1])))
                else:
                    args.append(self.expr(arg.children[0]))
            return ast.Call(span, str(children[0]), tuple(args), tuple(kwargs), cited)
        if kind == "given":
            return ast.Given(span, str(children[0]))
        if kind == "reading_test":
            return ast.ReadingTest(span, str(children[0]), str(children[1]))
        if kind == "bonus_sum":
            return ast.BonusSum(span)
        if kind in ("aggregate", "aggregate_where", "sum_aggregate", "sum_where"):
            return self.aggregate(tree)
        if kind == "if_expr":
            condition, then, otherwise = (self.expr(c) for c in children)
            return ast.If(span, condition, then, otherwise)
        if kind in ("or_op", "and_op", "implies_op"):
            left, right = (self.expr(c) for c in children)
            op = {"or_op": "or", "and_op": "and", "implies_op": "implies"}[str(kind)]
            return ast.BoolOp(span, cast(ast.LogicOp, op), left, right)
        if kind == "not_op":
            return ast.Not(span, self.expr(children[0]))
        if kind == "neg":
            return ast.Neg(span, self.expr(children[0]))
        if kind == "compare":
            left, op, right = children
            return ast.Compare(span, _op(op), self.expr(left), self.expr(right))
        if kind == "binop":
            left_tree, op_tree, right_tree = children
            op = _op(op_tree)
            left, right = self.expr(left_tree), self.expr(right_tree)
            if op == "/" and _is_whole(left) and _is_whole(right):
                # `1/3` is one written number (one-third), not a computation.
                assert isinstance(left, ast.Literal) and isinstance(right, ast.Literal)
                if right.value != 0:
                    return _fraction(span, left.text, right.text)
            return ast.BinOp(span, op, left, right)
        raise AssertionError(f"unhandled expression {kind}")  # pragma: no cover

    def citation(self, token: Token) -> ast.Citation:
        return ast.Citation(ast.folded(_string(token)), _span(token))

    def aggregate(self, tree: Tree) -> ast.Expr:
        """Returns the Aggregate node of `OP of [FIELD in] LIST [where COND]`; an unknown OP
        is reported at its name."""
        span = _span(tree)
        children = list(tree.children)
        op = "sum" if tree.data in ("sum_aggregate", "sum_where") else str(children.pop(0))
        source_tree = cast(Tree, children[0])
        value: ast.Expr | None = None
        if source_tree.data == "aggregated_value":
            value = self.expr(source_tree.children[0])
            field, source = None, str(source_tree.children[1])
        else:
            names = [str(tok) for tok in source_tree.children]
            field, source = (names[0], names[1]) if len(names) == 2 else (None, names[0])
        condition = self.expr(children[1]) if len(children) > 1 else None
        if value is not None and op not in ast.COMPUTABLE:
            self.error(
                span,
                f"'{op} of' takes no computed amount",
                hint="only sum, min, max and the medians take (EXPRESSION) in LIST",
            )
            value = None
        if op in ast.DATE_PARTS:
            if field is not None or condition is not None:
                self.error(
                    span,
                    f"'{op} of' takes one date",
                    hint=f"write {op} of NAME or {op} of (EXPRESSION)",
                )
            return self.part_of(
                cast(Token, tree.children[0]), ast.Ref(_span(source_tree), source), span
            )
        if op not in ast.AGGREGATES:
            self.error(
                _span(tree.children[0]),
                f"'{op} of' is not an aggregate",
                hint="the aggregates are " + ", ".join(ast.AGGREGATES),
            )
            op = "count"
        return ast.Aggregate(span, cast(ast.AggregateOp, op), field, source, condition, value)

    def part_of(self, name: Token, operand: ast.Expr, span: ast.Span) -> ast.Expr:
        """Returns `year of D`, `month of D` or `day of D`; another word is reported at it."""
        part = str(name)
        if part not in ast.DATE_PARTS:
            self.error(
                _span(name),
                f"'{part} of (...)' is not a part of a date",
                hint="the parts of a date are year of, month of and day of",
            )
            part = "year"
        return ast.PartOf(span, cast(ast.DatePart, part), operand)

    def token_expr(self, token: Token) -> ast.Expr:
        if token.type == "NAME":
            return ast.Ref(_span(token), str(token))
        raise AssertionError(f"unhandled token {token.type}")  # pragma: no cover

    def negative_literal(self, tree: Tree, span: ast.Span) -> ast.Literal:
        """Returns the literal of an input's bound written with a minus sign (`-$10,000,000`),
        refused for a value that has no sign (a date, a yes or no)."""
        literal = self.literal(tree)
        if literal.unit in ("bool", "date") or isinstance(literal.value, bool):
            self.error(span, f"{literal.text} has no sign", hint="write the bound without '-'")
            return literal
        return ast.Literal(span, -literal.value, literal.unit, f"-{literal.text}")

    def literal(self, tree: Tree) -> ast.Literal:
        span = _span(tree)
        kind = tree.data
        if kind in ("true", "false"):
            return ast.Literal(span, kind == "true", "bool", str(kind))
        text = str(tree.children[0])
        if kind == "date":
            found = dates.parse_iso(text)
            if found is None:
                self.error(span, f"{text} is not a date of the calendar", hint="write YYYY-MM-DD")
                return ast.Literal(span, Fraction(dates.FIRST), "date", text)
            return ast.Literal(span, Fraction(found.toordinal()), "date", text)
        if kind == "duration":
            unit = str(tree.children[1])
            if "." in text:
                self.error(span, f"a duration is a whole number of {unit}, given {text}")
            return ast.Literal(span, Fraction(text), "duration", f"{text} {unit}")
        if kind == "money":
            return ast.Literal(span, Fraction(text[1:].replace(",", "")), "money", text)
        if kind == "percent":
            return ast.Literal(span, Fraction(text[:-1]) / 100, "percent", text)
        return ast.Literal(span, Fraction(text), "number", text)


def _op(tree: Tree | Token) -> str:
    assert isinstance(tree, Tree)
    return str(tree.children[0])


def _is_whole(expr: ast.Expr) -> bool:
    return (
        isinstance(expr, ast.Literal)
        and expr.unit == "number"
        and not isinstance(expr.value, bool)
        and Fraction(expr.value).denominator == 1
        and "/" not in expr.text
    )


MAX_SYNTAX_ERRORS = 20


def _error_position(error: UnexpectedInput, text: str) -> int:
    if isinstance(error, UnexpectedToken) and error.token.type != "$END":
        return error.token.start_pos or 0
    if isinstance(error, UnexpectedCharacters):
        return error.pos_in_stream
    return len(text)


def _missing_semicolon(error: UnexpectedInput, text: str, previous: Token | None) -> int | None:
    """Returns where a ';' belongs when `error` is a declaration running into the next one (a
    ';' was expected, and the unexpected token starts a line): just after the last token read
    before it. None otherwise."""
    if not isinstance(error, UnexpectedToken) or "SEMICOLON" not in error.expected:
        return None
    start = error.token.start_pos
    if start is None or error.token.type == "$END" or previous is None:
        return None
    line_start = text.rfind("\n", 0, start) + 1
    if text[line_start:start].strip():
        return None  # the token does not start its line: some other mistake
    end = previous.end_pos
    if end is None or end >= start:
        return None
    return end


def _passage_braces(error: UnexpectedInput, text: str) -> int | None:
    """Returns where the `}` matching an unexpected `{` right after quoted words closes (words
    and comments skipped), None when the error is another one or the brace is never closed."""
    if not isinstance(error, UnexpectedToken) or error.token.value != "{":
        return None
    start = error.token.start_pos
    if start is None or not text[:start].rstrip().endswith('"'):
        return None
    depth = 0
    for index, char in _marks(text, start):
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth == 0:
            return index
    return None


# The statute's quoted words (to their end, or the file's), a comment, or a `;`, `{` or `}`.
_MARKS = re.compile(r'"(?:[^"\\]|\\[\s\S])*"?|#[^\n]*|[;{}]')


def _marks(text: str, start: int = 0) -> Iterator[tuple[int, str]]:
    """Yields each `;`, `{` and `}` of `text` from `start`, with where it is: those inside the
    statute's words and comments skipped."""
    for match in _MARKS.finditer(text, start):
        if match.group() in (";", "{", "}"):
            yield match.start(), match.group()


def _statement_bounds(text: str, position: int) -> tuple[int, int] | None:
    """Returns the span of the declaration or rule around `position`: from just after the
    previous `;`, `{` or `}` to the next `;` (statute words and comments skipped), or None
    when there is nothing left to blank."""
    boundaries = list(_marks(text))
    ends = [index for index, char in boundaries if char == ";"]
    start = max((b + 1 for b, _ in boundaries if b < position), default=0)
    end = min((e + 1 for e in ends if e >= position), default=-1)
    if end < 0 or not text[start:end].strip():
        return None
    return start, end


class _Stopped(Exception):
    """Parsing went past a bound of dsl/limits.py; `token` is the last token read."""

    def __init__(self, token: Token, message: str) -> None:
        self.token = token
        self.message = message


_BRACKETS = re.compile(r'"(?:[^"\\]|\\[\s\S])*"?|#[^\n]*|[(){}\[\]]')


def _unopened_block(source: str, path: str, error_at: int) -> Diagnostic | None:
    """Returns the error of the first '}' up to `error_at` (where parsing failed) that closes
    no block of its own (statute words and comments aside): one that closes no block at all,
    or, starting a line, one indented deeper than the line whose block it closes (that
    block's own '}' is then the one that comes later); None when there is none."""
    openers: list[int] = []  # where each unclosed '{' stands
    words: list[tuple[int, int]] = []  # the spans of the statute words read so far
    for match in _BRACKETS.finditer(source):
        if match.start() > error_at:
            return None
        char = match.group()
        if char.startswith('"'):
            words.append(match.span())
        elif char == "{":
            openers.append(match.start())
        elif char == "}":
            if not openers:
                return _unopened_at(source, path, match.start(), words)
            opened = openers.pop()
            line_start = source.rfind("\n", 0, match.start()) + 1
            if source[line_start : match.start()].strip(" \t"):
                continue  # not the first thing on its line: indentation tells nothing
            if match.start() - line_start > _indentation(source, opened, words):
                return _unopened_at(source, path, match.start(), words)
    return None


def _indentation(source: str, at: int, words: list[tuple[int, int]]) -> int:
    """Returns the indentation of the line on which `at` stands: of the line where the
    statute words (`words`, their spans in order) holding that line began, for a line
    within them."""
    start = source.rfind("\n", 0, at) + 1
    inside = bisect.bisect_right(words, (start, start)) - 1
    if inside >= 0 and words[inside][0] < start < words[inside][1]:
        start = source.rfind("\n", 0, words[inside][0]) + 1
    text = source[start:at]
    return len(text) - len(text.lstrip(" \t"))


def _unopened_at(source: str, path: str, at: int, words: list[tuple[int, int]]) -> Diagnostic:
    line, column = line_column(source, at)
    indentation = column - 1
    candidate: int | None = None
    for start in [0] + [m.end() for m in re.finditer("\n", source[:at])]:
        inside = bisect.bisect_right(words, (start, start)) - 1
        if inside >= 0 and words[inside][0] < start < words[inside][1]:
            continue  # a line within statute words
        end = source.find("\n", start)
        text = source[start : at if end < 0 else min(end, at)]
        stripped = text.lstrip(" \t")
        if len(text) - len(stripped) == indentation and stripped[:1] not in ("", "#", "}"):
            candidate = start + indentation
    hint = "remove this '}', or open its block with a '{'"
    if candidate is not None:
        hint = f"open the block of {_opener(source, candidate)} with a '{{' after its words"
    return Diagnostic(
        path,
        line,
        column,
        "this '}' closes no block: a '{' seems to be missing before it",
        hint=hint,
    )


def _nesting_diagnostic(source: str, path: str) -> Diagnostic | None:
    """Returns where the brackets of `source` first nest deeper than MAX_NESTING (statute words
    and comments aside), or None when they never do."""
    depth = 0
    for match in _BRACKETS.finditer(source):
        char = match.group()
        if char in "({[":
            depth += 1
            if depth > limits.MAX_NESTING:
                line = source.count("\n", 0, match.start()) + 1
                column = match.start() - (source.rfind("\n", 0, match.start()) + 1) + 1
                return Diagnostic(
                    path,
                    line,
                    column,
                    f"brackets nested more than {limits.MAX_NESTING} deep",
                    hint="name the inner part in a rule of its own",
                )
        elif char in ")}]":
            depth = max(0, depth - 1)
    return None


def _depth_diagnostic(tree: Tree, path: str) -> Diagnostic | None:
    """Returns where the parse tree first goes deeper than MAX_DEPTH, or None; the walk keeps
    its own stack, so a deep tree cannot exhaust Python's."""
    stack: list[tuple[Tree, int]] = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limits.MAX_DEPTH:
            span = _span(node)
            return Diagnostic(
                path,
                span.line,
                span.column,
                f"an expression or clause nested more than {limits.MAX_DEPTH} levels deep",
                detail="each operator, `if`, `not`, minus sign and clause within a clause adds "
                "a level",
                hint="name the inner part in a rule of its own",
            )
        stack.extend((child, depth + 1) for child in node.children if isinstance(child, Tree))
    return None


def _parse_tree(
    text: str, deadline: float, fed: list[int], last: list[Token] | None = None
) -> Tree:
    """Returns Lark's tree of `text`, fed one token at a time so that the bounds are checked
    as it goes (`fed` counts the tokens read, over every re-parse; `last` keeps the last token
    read before an error); raises _Stopped past MAX_TOKENS or the deadline, UnexpectedInput
    on a syntax error."""
    interactive = _parser().parse_interactive(text)
    start = fed[0]
    for token in interactive.iter_parse():
        if last is not None:
            last[:] = [token]
        fed[0] += 1
        if fed[0] - start > limits.MAX_TOKENS:
            raise _Stopped(token, f"more than {limits.MAX_TOKENS:,} words and symbols (the limit)")
        if time.monotonic() > deadline:
            raise _Stopped(
                token, f"parsing stopped here, after {limits.PARSE_SECONDS:g} seconds (the limit)"
            )
    return cast(Tree, interactive.resume_parse())


def parse_encoding(source: str, path: str) -> tuple[ast.Statute, list[Diagnostic]]:
    """Returns the statute parsed from `source` and the structural problems found.

    Raises EncodingError (with file:line:column and what was expected) on a syntax error, and
    when the source passes a bound of dsl/limits.py (nesting, depth, parse time).
    """
    too_nested = _nesting_diagnostic(source, path)
    if too_nested is not None:
        raise EncodingError([too_nested], source)
    deadline = time.monotonic() + limits.PARSE_SECONDS
    fed = [0]
    found: list[Diagnostic] = []
    text = source
    last: list[Token] = []
    while True:
        try:
            tree = _parse_tree(text, deadline, fed, last)
            break
        except _Stopped as stop:
            found.append(
                Diagnostic(
                    path,
                    stop.token.line or 1,
                    stop.token.column or 1,
                    stop.message,
                    hint="a statute's encoding is far smaller; is this the right file?",
                )
            )
            break
        except UnexpectedInput as error:
            missing = _missing_semicolon(error, text, last[0] if last else None)
            if missing is not None and isinstance(error, UnexpectedToken):
                token = error.token
                # A declaration that lacks its ";": said once, where it ends, and parsing goes
                # on as if it were there (blanking it would make the next one an error too).
                line, column = line_column(text, missing)
                found.append(
                    Diagnostic(
                        path,
                        line,
                        column,
                        "a ';' is missing at the end of this declaration",
                        hint=f"before '{token.value}' at line {token.line}",
                    )
                )
                # Inserted, not put in place of the blank: a newline must stay to keep lines.
                text = text[:missing] + ";" + text[missing:]
                if len(found) >= MAX_SYNTAX_ERRORS or fed[0] > limits.MAX_TOKENS:
                    break
                continue
            if not found:
                unopened = _unopened_block(source, path, _error_position(error, text))
                if unopened is not None:
                    # Every later error would come from the block closed too early.
                    found.append(unopened)
                    break
            found.append(_syntax_diagnostic(error, path, source))
            closing = _passage_braces(error, text)
            if closing is not None and len(found) < MAX_SYNTAX_ERRORS:
                # Braces after a passage: without them its rules are the clause's, as meant.
                opening = _error_position(error, text)
                for at in (closing, opening):
                    text = text[:at] + " " + text[at + 1 :]
                continue
            bounds = _statement_bounds(text, _error_position(error, text))
            # Re-parsing to find further errors stops once a whole file's worth of tokens has
            # been read again.
            if bounds is None or len(found) >= MAX_SYNTAX_ERRORS or fed[0] > limits.MAX_TOKENS:
                break
            # Blank the broken statement (keeping every line and column) and parse again, so
            # that every syntax error of the file is reported, each once.
            start, end = bounds
            text = text[:start] + re.sub(r"[^\n]", " ", text[start:end]) + text[end:]
    if found:
        raise EncodingError(found, source)
    too_deep = _depth_diagnostic(tree, path)
    if too_deep is not None:
        raise EncodingError([too_deep], source)
    builder = _Builder(path, source)
    statute = builder.build(tree)
    return statute, builder.diagnostics
