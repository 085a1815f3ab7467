"""`lextrace init OFFICIAL.txt --name NAME -o NEW.lex`: a first encoding of an official text
(imported only when it runs).

The encoding carries the whole text, split by the subdivisions it shows, every clause marked
`text_only "not yet encoded"` (see `lextrace.dsl.scaffold`). It is checked as `lextrace check`
would check it before it is written, atomically, and never over an existing file unless
`--force`. Exit codes: 0 written; 2 bad input (the official text unreadable or without a
heading, at file:line:column; the output exists or cannot be written; a bad `--cite`).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import click

from .cli import BadInput
from .dsl.loader import read_text, same_file


def _read_official(path: Path) -> str:
    """Returns the official text at `path`; raises EncodingError naming it when it cannot be
    read, is not UTF-8 or is too large."""
    return read_text(path, "official text", "a text file")[1]


def _checked(text: str, output: Path, official_text: str, official: Path) -> None:
    """Raises BadInput with the diagnostics when the encoding `text` would not pass `lextrace
    check` (a bad --cite, say); nothing is written then."""
    from .dsl.checker import check_statute
    from .dsl.errors import EncodingError
    from .dsl.fidelity import check_fidelity
    from .dsl.parser import parse_encoding

    try:
        statute, diagnostics = parse_encoding(text, str(output))
    except EncodingError as error:
        diagnostics = error.diagnostics
    else:
        diagnostics += check_statute(statute)
        diagnostics += check_fidelity(statute, official_text, str(official))
    errors = [d for d in diagnostics if d.severity == "error"]
    if errors:
        rendered = []
        for diagnostic in errors:
            rendered.append(diagnostic.render(text))
            line = _official_line(text, diagnostic.line, official_text)
            if line is not None:
                rendered.append(f"      from {official}:{line}, where those words begin")
        raise BadInput(
            "\n".join(rendered) + f"\n{output}: not written: the encoding made from {official} "
            "would not be usable (the lines above are the lines it would have). A label that "
            "begins a line of the text is read as a clause of its own, at the level its label "
            "continues. Where it only goes on with the sentence before it, join the two lines "
            "in the text. Where it was read at the wrong level (a subsection (i) after (d), "
            "with the letters between left out, is read as the numeral i under the clause "
            "above), indent the text by level: a label as far in as an open level is that "
            'level\'s sibling (docs/language.md, "Encoding a new statute, step by step")'
        )


def _official_line(text: str, line: int, official_text: str) -> int | None:
    """Returns the line of the official text where the quoted words on line `line` of the
    encoding `text` begin, or None when that line quotes none or they cannot be found."""
    lines = text.splitlines()
    if not 1 <= line <= len(lines):
        return None
    quoted = re.search(r'"([^"]+)', lines[line - 1])
    words = quoted.group(1).split()[:6] if quoted else []
    if not words:
        return None
    found = re.search(r"\s+".join(re.escape(word) for word in words), official_text)
    return None if found is None else official_text.count("\n", 0, found.start()) + 1


@click.command(name="init")
@click.argument("official", type=click.Path(dir_okay=False))
@click.option("--name", required=True, help='The statute\'s name, as cited ("26 U.S.C.").')
@click.option(
    "--cite",
    default=None,
    help='How a clause is cited, e.g. "{statute} § {section}{clauses}" (default: '
    '"{statute}{clauses}").',
)
@click.option(
    "--section",
    "section_label",
    default=None,
    help='The section\'s label when the text carries no heading (e.g. "Sec. 4"); the encoding '
    "marks it unlabelled.",
)
@click.option(
    "-o",
    "--output",
    required=True,
    type=click.Path(dir_okay=False),
    help="The encoding to write.",
)
@click.option("--force", is_flag=True, help="Replace the output file if it exists.")
def init(
    official: str,
    name: str,
    cite: str | None,
    section_label: str | None,
    output: str,
    force: bool,
) -> None:
    """Write a first encoding of the OFFICIAL text: its whole text, clause by clause, every
    clause marked not yet encoded, ready for `lextrace check`.

    Exit 0 when it is written, 2 on bad input (nothing is written then).
    """
    from .dsl.errors import Diagnostic, EncodingError
    from .dsl.scaffold import ScaffoldError, scaffold
    from .outputs import write_text

    official_path, output_path = Path(official), Path(output)
    if not name.strip():
        raise BadInput("--name: the statute's name is empty")
    if section_label is not None and not section_label.strip():
        raise BadInput("--section: the section's label is empty")
    if same_file(official_path, output_path):
        raise BadInput(f"{output}: is the official text itself; write the encoding elsewhere")
    if output_path.exists() and not force:
        raise BadInput(f"{output}: exists; give --force to replace it")
    official_text = _read_official(official_path)
    relative = os.path.relpath(official_path.resolve(), output_path.resolve().parent)
    try:
        text = scaffold(
            official_text,
            name.strip(),
            Path(relative).as_posix(),
            cite=cite,
            section_label=section_label,
            source_name=official_path.name,
        )
    except ScaffoldError as error:
        raise EncodingError(
            [
                Diagnostic(
                    str(official_path), error.line, error.column, error.message, hint=error.hint
                )
            ],
            official_text,
        ) from None
    _checked(text, output_path, official_text, official_path)
    write_text(output_path, text)
    click.echo(
        f"{output}: written; it carries the whole of {official} and encodes no clause yet. "
        f"Next: lextrace check -e {output}"
    )
