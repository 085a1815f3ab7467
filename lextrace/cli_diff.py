"""`lextrace diff OLD NEW`: the semantic diff of two encodings (imported only when it runs).

Exit codes: 0 when the diff ran, whatever it found; 1 when any result comparison ended
`unknown` (a Z3 timeout) or `error` (the evaluators do not confirm the solver); 2 when an
encoding is not usable (raised as EncodingError, which `lextrace.cli.main` reports).
"""

from __future__ import annotations

import json

import click

from .options import output_format, z3_timeout
from .verify.limits import DIFF_TIMEOUT


@click.command(name="diff")
@click.argument("old", type=click.Path(dir_okay=False))
@click.argument("new", type=click.Path(dir_okay=False))
@output_format("text", "json", what="the diff")
@z3_timeout(DIFF_TIMEOUT, what="Z3 for each result")
def diff(old: str, new: str, output_format: str, timeout: float) -> None:
    """Compare two encodings: clauses reworded, rules changed, and for each result a Z3 proof
    that it is unchanged for every valid scenario, or a witness scenario where it changes.

    Exit 0 when the diff ran, 1 when a result is unknown (timeout) or an error, 2 when an
    encoding is not usable.
    """
    from .api import load_statute
    from .verify.diff import render_text, semantic_diff, to_json

    before = load_statute(old).ast
    after = load_statute(new).ast
    found = semantic_diff(before, after, timeout)
    if output_format == "json":
        click.echo(json.dumps(to_json(found), indent=2, ensure_ascii=False))
    else:
        click.echo(render_text(found))
    if not found.ok:
        raise click.exceptions.Exit(1)
