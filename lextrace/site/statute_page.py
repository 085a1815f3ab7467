"""The annotated statute: every clause's words with the rules that encode it beside them.

Each clause gets a heading anchored by its citation (`#b-2` for (b)(2)) that every other page links
to, its words as enacted, how it is accounted for, the encoding's rules, cases, invariants
and monotone properties written in it (highlighted), the readings they rest on, and the examples
that pass through it.
"""

from __future__ import annotations

from lextrace.dsl import ast, citations
from lextrace.dsl.checker import walk
from lextrace.dsl.coverage import COMPUTING, clause_coverage

from .context import MATRIX_PAGE, STATUTE_PAGE, Site, featured_clause, relative
from .markdown import STATUTE_BOOST, code, escape, front_matter
from .provenance import section

_ENCODED_ITEMS = (*COMPUTING, ast.Invariant)


def source_text(statute: ast.Statute, span: ast.Span) -> str:
    """Returns the encoding's text at a span, its continuation lines dedented to its column."""
    lines = statute.source[span.start : span.end].split("\n")
    indent = span.column - 1
    return "\n".join(
        [lines[0]]
        + [line[indent:] if line[:indent].strip() == "" else line.lstrip() for line in lines[1:]]
    )


def heading(clause: ast.Clause) -> str:
    """Returns the Markdown heading of a clause, anchored by its citation."""
    level = "#" * min(2 + len(clause.path), 6)
    own = clause.own_citation
    title = f"S{own[1:]}" if own.startswith("section ") else own
    return f"{level} {title} {{ #{clause.anchor} }}"


def cited_clauses(statute: ast.Statute, items: list[object]) -> list[ast.Clause]:
    """Returns the clauses the rules of `items` name definitions under (`x under "§ 1(b)"`),
    in the order they are first cited."""
    found: dict[int, ast.Clause] = {}
    for item in items:
        exprs: list[ast.Expr | None] = []
        if isinstance(item, ast.Rule):
            exprs = [item.expr, item.condition]
        elif isinstance(item, ast.Cases):
            exprs = [item.otherwise]
        elif isinstance(item, ast.Case | ast.ExceptionRule):
            exprs = [item.expr, item.condition]
        elif isinstance(item, ast.Invariant):
            exprs = [item.expr]
        for expr in exprs:
            for node in walk(expr):
                if isinstance(node, ast.Ref | ast.Call) and node.cited is not None:
                    clause = citations.resolve(statute, node.cited.text)
                    if clause is not None:
                        found.setdefault(id(clause), clause)
    return list(found.values())


def clause_block(site: Site, clause: ast.Clause) -> str:
    """Returns the Markdown of one clause: status, words, encoding, readings, examples."""
    statute = site.ast
    here = site.path(STATUTE_PAGE)
    coverage = clause_coverage(clause)
    parts = [heading(clause)]
    status = f"**{coverage.status}**"
    if coverage.rules:
        status += ": " + ", ".join(f"`{name}`" for name in coverage.rules)
    parts.append(status)
    words: list[str] = []
    for piece in clause.texts:
        text = piece.words
        if piece.mark is None:
            words.append(f"> {escape(text)}")
        else:
            label = piece.mark.replace("_", " ")
            words.append(
                f'!!! note "{label.capitalize()}: not computed"\n\n'
                f"    > {escape(text)}\n\n    {escape(piece.reason or '')}"
            )
    items = [item for item in clause.items if isinstance(item, _ENCODED_ITEMS)]
    monotones = [m for m in statute.monotones if m.clause is clause]
    sources = [source_text(statute, item.span) for item in items]
    sources += [source_text(statute, m.span) for m in monotones]
    if sources and words:
        # The words and their rules side by side (stacked on narrow screens).
        parts.append(
            '<div class="grid clause" markdown>\n\n<div markdown>\n\n'
            + "\n\n".join(words)
            + "\n\n</div>\n\n<div markdown>\n\n"
            + code("\n".join(sources))
            + "\n\n</div>\n\n</div>"
        )
    else:
        parts.extend(words)
        if sources:
            parts.append(code("\n".join(sources)))
    cited = cited_clauses(statute, items)
    if cited:
        parts.append(
            "Refers to: "
            + ", ".join(f"[{c.own_citation}]({site.clause_link(c, here)})" for c in cited)
        )
    readings = sorted(
        {r for item in items for r in item.readings} | {r for m in monotones for r in m.readings},
        key=lambda r: (len(r), r),
    )
    if readings:
        parts.append(
            "Readings: "
            + ", ".join(
                f"{site.reading_link(r, here)} ({escape(statute.readings[r].question)})"
                for r in readings
            )
        )
    examples = [e for e in site.examples if id(clause) in site.clauses_exercised(e)]
    if examples and clause.path:
        parts.append(
            "Worked examples: "
            + ", ".join(f"[{e.title}]({relative(here, e.page)})" for e in examples)
        )
    return "\n\n".join(parts)


def page(site: Site) -> str:
    """Returns the annotated statute page."""
    statute = site.ast
    here = site.path(STATUTE_PAGE)
    history = f" {escape(statute.history)}." if statute.history else ""
    anchors = "Each heading's anchor is the clause's citation"
    featured = featured_clause(statute)
    if featured is not None:
        citation = featured.short_citation
        anchors += f": [{citation}]({site.clause_link(featured, here)}) is `#{featured.anchor}`"
    intro = [
        front_matter(hide_toc=True, boost=STATUTE_BOOST),
        f"# {statute.name}",
        f"**{escape(statute.title)}.**{history}",
        "Every clause below carries the statute's words as enacted (checked word for word "
        "against the official text by `lextrace check`) and, beside them, the rules written "
        f"inside it. {anchors}. "
        f"The [traceability matrix]({relative(here, site.path(MATRIX_PAGE))}) counts how every "
        "clause is accounted for.",
    ]
    blocks = [clause_block(site, clause) for clause in statute.clauses]
    return "\n\n".join([*intro, section(site.provenance, admonition=True), *blocks]) + "\n"
