"""`lextrace review BASE [HEAD]`: the review of an amendment (imported only when it runs).

Exit codes: 0 when the new version checks and every proof and comparison holds, 1 when one
fails (the report says which), 2 when a revision, file or population cannot be read.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import click

from .cli import BadInput, atomic_file
from .options import encoding_option, output_format, z3_budget, z3_timeout
from .verify.limits import DEFAULT_BUDGET, DEFAULT_TIMEOUT, DIFF_TIMEOUT


@click.command()
@click.argument("base")
@click.argument("head", required=False)
@encoding_option("review (a file in the git repository when BASE or HEAD is a revision)")
@output_format("markdown", "json", what="the report")
@click.option(
    "--population",
    type=click.Path(dir_okay=False, exists=True),
    default=None,
    help="Scenarios (JSON Lines, Parquet or CSV) to measure the impact over.",
)
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False),
    default=None,
    help="Write the report to this file (atomically) instead of standard output.",
)
@z3_timeout(DEFAULT_TIMEOUT, what="each Z3 call of the proofs (as `lextrace verify`)")
@z3_budget(DEFAULT_BUDGET, "the proofs of the new version (as `lextrace verify`)")
@click.option(
    "--diff-timeout",
    type=click.FloatRange(0.01, 3600),
    default=DIFF_TIMEOUT,
    show_default=True,
    help="Seconds of Z3 work allowed to the comparison of each result (as `lextrace diff`).",
)
def review(
    base: str,
    head: str | None,
    encoding: str | None,
    output_format: str,
    population: str | None,
    output: str | None,
    timeout: float,
    budget: float,
    diff_timeout: float,
) -> None:
    """Review an amendment: compare the encoding at BASE (a git revision or an encoding file)
    with HEAD (a revision or a file; the working tree when left out), each with its own official
    text. One report: the clauses whose words changed (word diff by citation), the rules changed
    and those flagged for review, check and verify of the new version with counterexamples, the
    semantic diff with witnesses, and with --population the impact.

    Exit 0 when all holds, 1 when a check, proof or comparison fails, 2 on unreadable input.
    """
    from .api import encoding_path
    from .review import ReviewError, render_markdown, to_json
    from .review import review as run_review
    from .tables import TableError, format_of

    path = encoding_path(encoding)
    if not path.is_file():
        raise BadInput(f"{path}: no such encoding file")
    with tempfile.TemporaryDirectory(prefix="lextrace-review-") as work:
        try:
            found = run_review(
                base,
                head,
                path,
                Path(work),
                population,
                format_of(population, None) if population else "jsonl",
                timeout,
                budget,
                diff_timeout,
            )
        except ReviewError as error:
            raise BadInput(str(error)) from None
        except TableError as error:
            raise BadInput(f"{population}: {error}") from None
        if output_format == "json":
            text = json.dumps(to_json(found), indent=2, ensure_ascii=False)
        else:
            text = render_markdown(found)
    if output is None:
        click.echo(text.rstrip("\n"))
    else:
        with atomic_file(output, "w") as handle:
            handle.write(text if text.endswith("\n") else text + "\n")
    if not found.ok:
        raise click.exceptions.Exit(1)
