"""`lextrace lsp`: the language server for encodings, over standard input and output (imported
only when it runs; the server itself is `lextrace.lsp`, which needs the `lsp` extra).

Exit codes: 0 when the client ended the session (asking the server to shut down first, as the
protocol has it; 1 when it did not); 2 when the `lsp` extra is not installed or the command is
misused.
"""

from __future__ import annotations

import importlib.util

import click

# What the server needs beyond lextrace's own dependencies (the `lsp` extra).
NEEDED = ("pygls", "lsprotocol", "pygments")


@click.command(name="lsp")
@click.option(
    "--stdio",
    is_flag=True,
    help="Talk over standard input and output (the only transport; editors pass it).",
)
def lsp(stdio: bool) -> None:
    """Run the language server for encodings (*.lex) over standard input and output:
    diagnostics as you type (those of `check`), hover, go to definition, references,
    completion and the clause outline. Needs the lsp extra: pip install 'lextrace[lsp]'.

    Exit 0 when the client ends the session (1 when it exits without a shutdown request), 2 when
    the lsp extra is missing.
    """
    from .cli import BadInput

    missing = [name for name in NEEDED if importlib.util.find_spec(name) is None]
    if missing:
        raise BadInput(
            f"lextrace lsp needs {', '.join(missing)}, of the optional lsp extra: "
            "pip install 'lextrace[lsp]'"
        )
    from .lsp import serve

    code = serve()
    if code:
        raise click.exceptions.Exit(code)
