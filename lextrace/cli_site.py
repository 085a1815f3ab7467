"""`lextrace site [-e ENCODING] -o DIR`: the site of any encoding, built by MkDocs (loaded only when
it runs; MkDocs is the optional `docs` extra).

Exit codes: 0 when the site is built; 1 when MkDocs fails (with --strict: when it warns, a
broken link or anchor included); 2 for bad input (an encoding, a scenario, a cases file, an
output folder that cannot be used, MkDocs not installed).
"""

from __future__ import annotations

from pathlib import Path

import click

from .cli import BadInput
from .options import encoding_option


def _drafts(folder: Path) -> tuple[tuple[str, Path], ...]:
    """Returns the amendment drafts of a folder: each `*.lex` in it (named by its file) and in
    its subfolders (named by the subfolder), sorted by name."""
    if not folder.is_dir():
        raise BadInput(f"{folder}: not a folder of amendment drafts")
    found = {path.stem: path for path in folder.glob("*.lex")}
    found.update({path.parent.name: path for path in folder.glob("*/*.lex")})
    if not found:
        raise BadInput(f"{folder}: no amendment draft (*.lex, or */*.lex) in it")
    return tuple(sorted(found.items()))


@click.command(name="site")
@encoding_option("build the site of")
@click.option(
    "--examples",
    type=click.Path(file_okay=False),
    default=None,
    metavar="DIR",
    help="A folder of scenario files (*.json), each a worked example.",
)
@click.option(
    "--cases",
    type=click.Path(dir_okay=False),
    default=None,
    metavar="FILE",
    help="A cases file: each case that expects results is a worked example (default: the "
    "encoding's own, <stem>.cases.yaml beside it, when there is one).",
)
@click.option(
    "--amendments",
    type=click.Path(file_okay=False),
    default=None,
    metavar="DIR",
    help="A folder of amendment drafts (DIR/NAME.lex or DIR/NAME/*.lex), each compared with "
    "ENCODING.",
)
@click.option(
    "--output",
    "-o",
    type=click.Path(file_okay=False),
    required=True,
    metavar="DIR",
    help="The folder to write the site into (new, empty, or written by `lextrace site`).",
)
@click.option("--strict", is_flag=True, help="Fail on any warning of MkDocs (a broken link too).")
def site(
    encoding: str | None,
    examples: str | None,
    cases: str | None,
    amendments: str | None,
    output: str,
    strict: bool,
) -> None:
    """Build the site of the encoding into DIR: the annotated statute, the traceability matrix,
    the interpretation register, the proof report, the worked examples, the amendments and the
    provenance, as the project's own site has them.

    Needs MkDocs (pip install 'lextrace[docs]'). Exit 0 when built, 1 when MkDocs fails (with
    --strict: when it warns), 2 for bad input.
    """
    from .site.standalone import mkdocs_missing

    missing = mkdocs_missing()
    if missing:
        raise BadInput(missing)

    from .api import encoding_path, load_statute
    from .cases import cases_beside
    from .site.context import Site, SiteError
    from .site.standalone import BuildFailed, OutputTaken, build

    statute = load_statute(encoding)
    encoding_file = encoding_path(encoding)
    beside = cases_beside(encoding_file)
    if cases is None and beside.is_file():
        cases = str(beside)  # the encoding's own, as `lextrace test` runs
    drafts = _drafts(Path(amendments)) if amendments else ()
    for _, draft in drafts:
        load_statute(draft)  # a broken draft is bad input, reported before anything is built
    if cases and not Path(cases).is_file():
        raise BadInput(f"{cases}: no such cases file")
    made = Site(
        Path.cwd(),
        statute,
        examples_dir=Path(examples) if examples else None,
        cases=Path(cases) if cases else None,
        amendment_drafts=drafts,
        encoding_file=encoding_file,
    )
    try:
        made.examples  # noqa: B018 - read (and checked) before anything is built
        build(made, Path(output), strict)
    except (SiteError, OutputTaken) as error:
        raise BadInput(str(error)) from None
    except OSError as error:
        raise BadInput(f"{output}: cannot write: {error.strerror or error}") from None
    except BuildFailed as error:
        click.echo(f"the site was not built: {error}", err=True)
        raise click.exceptions.Exit(1) from None
    click.echo(f"built the site of {statute.ast.name} in {output}")
