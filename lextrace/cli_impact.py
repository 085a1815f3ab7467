"""`lextrace impact`: an amendment evaluated over a population (loaded only when it runs)."""

from __future__ import annotations

import json

import click

from .cli import BadInput, _parse_readings, _statute, atomic_file, readings_option
from .options import output_format


@click.command()
@click.argument("old", type=click.Path(dir_okay=False))
@click.argument("new", type=click.Path(dir_okay=False))
@click.argument("population", type=click.Path(dir_okay=False))
@output_format("text", "json", "markdown", what="the report")
@click.option(
    "--input-format",
    type=click.Choice(["jsonl", "parquet", "csv"]),
    default=None,
    help="The population's format (default: from its extension, else jsonl).",
)
@click.option(
    "--top",
    type=click.IntRange(0, 1000),
    default=10,
    show_default=True,
    help="How many of the largest movers to list.",
)
@click.option(
    "--headline",
    default=None,
    metavar="RESULT",
    help="The numeric result movers are ranked by (default: the last money result, else the "
    "last numeric one).",
)
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False),
    default=None,
    help="Write the report to this file instead of standard output.",
)
@readings_option
def impact(
    old: str,
    new: str,
    population: str,
    output_format: str,
    input_format: str | None,
    top: int,
    headline: str | None,
    output: str | None,
    readings: tuple[str, ...],
) -> None:
    """Evaluate the encodings OLD and NEW over every scenario of POPULATION (JSON Lines,
    Parquet or CSV): how many scenarios change, the totals before and after, the largest movers,
    and which changed rules cause it. Exact to the cent."""
    from . import impact as impact_module
    from .tables import TableError, arrow_uses_kept_memory, format_of

    arrow_uses_kept_memory()

    before, after = _statute(old), _statute(new)
    try:
        report = impact_module.impact(
            before,
            after,
            population,
            format_of(population, input_format),
            _parse_readings(readings),
            top,
            headline,
        )
    except TableError as error:
        raise BadInput(f"{population}: {error}") from None
    except OSError as error:
        raise BadInput(f"{population}: cannot read: {error.strerror or error}") from None
    if output_format == "json":
        text = json.dumps(impact_module.to_json(report), indent=2, ensure_ascii=False)
    elif output_format == "markdown":
        text = impact_module.render_markdown(report)
    else:
        text = impact_module.render_text(report)
    if output is None:
        click.echo(text)
    else:
        with atomic_file(output, "w") as handle:  # never half a report
            handle.write(text + "\n")
