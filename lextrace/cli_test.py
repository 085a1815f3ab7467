"""`lextrace test [CASES...]`: run the test cases of an encoding (imported only when it runs).

Exit codes: 0 when every case passes; 1 when a case fails (each failure shows the value, the
expected value and the trace of the result that differs); 2 for a bad cases file (its file,
line and column, what was expected and what was given) or an unusable encoding.
"""

from __future__ import annotations

import json

import click

from . import exits
from .cli import BadInput
from .options import encoding_option, output_format


@click.command(name="test")
@click.argument("cases", nargs=-1, type=click.Path(dir_okay=False))
@encoding_option("run every cases file against, instead of the one it names")
@click.option(
    "--junit", type=click.Path(dir_okay=False), default=None, help="Also write JUnit XML here."
)
@click.option(
    "--trace/--no-trace",
    default=True,
    help="Show the trace of each result that differs (the default), or only its values.",
)
@output_format("text", "json", what="the outcomes")
def test_cases(
    cases: tuple[str, ...],
    encoding: str | None,
    junit: str | None,
    trace: bool,
    output_format: str,
) -> None:
    """Run the test cases of CASES files (YAML, JSON or TOML): named scenarios, each with the
    results it must give or the refusal it must meet. Without CASES, the encoding's own:
    `<stem>.cases.yaml` beside it.

    Each file runs against --encoding when given, else the encoding it names, else the
    default. Every file is read and checked before any case runs. Exit 0 when every case
    passes, 1 when any fails, 2 for a bad cases file.
    """
    from pathlib import Path

    from .api import encoding_path, load_statute
    from .cases import CasesError, bind, cases_beside, encoding_of, load_cases, run_case
    from .cases import FileRun as Run
    from .cases_report import render_text, to_json, to_junit, totals
    from .outputs import write_text

    if not cases:
        beside = cases_beside(encoding_path(encoding))
        if not beside.is_file():
            raise BadInput(
                f"no CASES given, and the encoding {encoding_path(encoding)} has no cases file "
                f"beside it ({beside}): give the cases files to run"
            )
        cases = (str(beside),)
    problems = []
    loaded = []
    for path in cases:
        try:
            found = load_cases(path)
        except CasesError as error:
            problems += error.problems
            if error.well_formed is not None:  # its other cases are checked all the same
                statute = load_statute(encoding_of(error.well_formed, encoding))
                try:
                    bind(error.well_formed, statute)
                except CasesError as unbound:
                    problems += unbound.problems
            continue
        chosen = encoding_of(found, encoding)
        statute = load_statute(chosen)
        try:
            loaded.append((found, statute, bind(found, statute), chosen))
        except CasesError as error:
            problems += error.problems
    if problems:
        raise BadInput(CasesError(problems).render())
    from .reading_cover import reading_cover

    runs = [
        Run(
            found.path,
            statute.name,
            str(encoding_path(chosen)),
            [run_case(statute, case, trace) for case in bound],
            reading_cover(statute, [b.case for b in bound]),
        )
        for found, statute, bound, chosen in loaded
    ]
    if junit is not None:
        write_text(Path(junit), to_junit(runs))
    if output_format == "json":
        click.echo(json.dumps(to_json(runs), indent=2, ensure_ascii=False))
    else:
        click.echo(render_text(runs))
    if totals(runs)["failed"]:
        raise click.exceptions.Exit(exits.FAILED)
