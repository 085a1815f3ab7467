"""`lextrace mutants`: measure the verifier's strength with seeded mutations of the encoding.

Imported only when the command runs (it needs Z3). Exit 0 when the run completes, whatever the
kill rate (it is a measurement); 2 when the encoding cannot serve as the original.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import click

from .cli import BadInput
from .options import encoding_option_or_argument, output_format, z3_budget, z3_timeout
from .verify.limits import DEFAULT_BUDGET, DEFAULT_TIMEOUT


def _progress(done: int, total: int, result: Any) -> None:
    from .verify.mutants import outcome_text

    click.echo(
        f"[{done}/{total}] {result.mutant.id} {outcome_text(result)} ({result.seconds:.1f} s)",
        err=True,
    )


@click.command()
@encoding_option_or_argument("mutate")
@click.option(
    "--limit",
    type=click.IntRange(1),
    default=None,
    help="Run at most N mutants, chosen by --seed and spread over the kinds (default: all).",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Chooses the --limit sample.")
@click.option(
    "--tests",
    "run_tests",
    is_flag=True,
    help="Also run the encoding's test cases (<stem>.cases.yaml beside it, or --cases) on every "
    "mutant the checks and proofs let through; a failing case kills it.",
)
@click.option(
    "--cases",
    "cases",
    multiple=True,
    type=click.Path(dir_okay=False),
    metavar="FILE",
    help="The cases files to run with --tests, instead of the one beside the encoding "
    "(repeatable; implies --tests).",
)
@output_format("text", "json", what="the report")
@z3_timeout(DEFAULT_TIMEOUT, what="each Z3 call (as `lextrace verify`)")
@z3_budget(DEFAULT_BUDGET, what="the proofs of one mutant (as `lextrace verify`)")
@click.option(
    "--jobs",
    type=click.IntRange(1, 64),
    default=None,
    help="Mutants run side by side (default: the number of CPUs, at most 2).",
)
@click.option(
    "--progress/--no-progress",
    default=None,
    help="Report each mutant on standard error as it ends (default: when it is a terminal).",
)
def mutants(
    encoding: str | None,
    limit: int | None,
    seed: int,
    run_tests: bool,
    cases: tuple[str, ...],
    output_format: str,
    timeout: float,
    budget: float,
    jobs: int | None,
    progress: bool | None,
) -> None:
    """Seed mutations into the encoding's rules and report which the checks, proofs or tests kill.

    Each mutant (a changed amount, a slipped unit or boundary, a fact added or dropped, a
    condition moved, an amount added after its cap, a dropped floor, ...) is checked
    statically, proved, optionally run through the encoding's own test cases, and, when
    nothing kills it, compared with the original: equivalent when every result is proved
    equal; unknown when a proof of it ended UNKNOWN. The report names, per kind, the checks
    that killed them. The kill rate is killed / (killed + survived), also without the tests.
    Exit 0 when the run completes, 2 for an unusable encoding.
    """
    from .api import encoding_path
    from .cases import CasesError
    from .verify.mutants import UnusableEncoding, render_text, run_mutants, to_json

    path = encoding_path(encoding)
    if jobs is None:
        jobs = max(1, min(2, os.cpu_count() or 1))
    if progress is None:
        progress = sys.stderr.isatty()
    try:
        report = run_mutants(
            path,
            limit=limit,
            seed=seed,
            tests=run_tests or bool(cases),
            cases=cases,
            timeout=timeout,
            budget=budget,
            jobs=jobs,
            progress=_progress if progress else None,
        )
    except UnusableEncoding as error:
        raise BadInput(f"lextrace mutants: {error}") from None
    except CasesError as error:
        raise BadInput(error.render()) from None
    if output_format == "json":
        click.echo(json.dumps(to_json(report), indent=2, ensure_ascii=False))
    else:
        click.echo(render_text(report))
