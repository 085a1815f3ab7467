"""The project's own site: every encoding `statute/*.lex` of the repository, with its own pages.

The statute the commands read by default keeps the top of the site (`statute.md`, `examples/`,
`amendments/`...), its worked examples from `examples/`, its tests from `tests/` and the
benchmarks' sample population for its impact sections. Every other `statute/<slug>.lex` gets the
folder `<slug>/`, its worked examples from the cases file `statute/<slug>.cases.yaml` beside it
when there is one, and the tests that name its file. A draft `statute/amendments/<draft>/<slug>.lex`
amends the statute of the same file name.
"""

from __future__ import annotations

import sys
from pathlib import Path

from lextrace.api import Statute, load_statute
from lextrace.cases import cases_beside
from lextrace.statute import BUNDLED

from .context import HOME_PAGE, Population, Site, SiteError

SAMPLE = 10_000


def sites(root: Path) -> list[Site]:
    """Returns the site of every encoding in `root`/statute, the default statute's first.
    Raises SiteError for a statute whose folder would take the place of another page."""
    folder = root / "statute"
    encodings = sorted(folder.glob("*.lex"), key=lambda p: (p.name != BUNDLED.name, p.name))
    drafts = sorted((folder / "amendments").glob("*/*.lex"))
    found = []
    for encoding in encodings:
        slug = encoding.stem
        amended = tuple((d.parent.name, d) for d in drafts if d.name == encoding.name)
        if encoding.name == BUNDLED.name:
            found.append(default_site(root, load_statute(encoding), amended, encoding))
            continue
        taken = root / "docs" / slug
        if taken.exists() or taken.with_suffix(".md").exists() or slug in RESERVED:
            raise SiteError(f"{encoding}: its pages would go to {slug}/, taken by another page")
        beside = cases_beside(encoding)
        cases = beside if beside.is_file() else None
        found.append(
            Site(
                root,
                load_statute(encoding),
                folder=f"{slug}/",
                cases=cases,
                amendment_drafts=amended,
                tests_dir=root / "tests",
                tests_mentioning=encoding.name,
                guides=True,
                encoding_file=encoding,
            )
        )
    return found


def default_site(
    root: Path,
    statute: Statute,
    drafts: tuple[tuple[str, Path], ...] | None = None,
    encoding: Path | None = None,
) -> Site:
    """Returns the site of the default statute (`statute`, or a variant of it) at the top of
    the project's site: its examples, its cases (those of a scenario file on that file's page),
    tests, amendment drafts (all of those of the default statute when not given) and sample
    population."""
    if drafts is None:
        folder = root / "statute" / "amendments"
        drafts = tuple((d.parent.name, d) for d in sorted(folder.glob(f"*/{BUNDLED.name}")))
    cases = cases_beside(root / "statute" / BUNDLED.name)
    return Site(
        root,
        statute,
        examples_dir=root / "examples",
        more_examples=(root / "examples" / "eligibility-period",),
        cases=cases if cases.is_file() else None,
        amendment_drafts=drafts,
        tests_dir=root / "tests",
        population=sample_population(root),
        guides=True,
        encoding_file=encoding,
    )


# The default statute's pages and folders, which no other statute's folder may be named as.
RESERVED = frozenset(
    {"statute", "matrix", "readings", "proof-report", "examples", "amendments", "search", "assets"}
    | {HOME_PAGE.removesuffix(".md")}
)


def sample_population(root: Path) -> Population:
    """Returns the writer of the benchmarks' deterministic sample population (every clause
    boundary represented), as Parquet, for the impact sections of the default statute."""

    def write(folder: Path) -> tuple[Path, str]:
        sys.path.insert(0, str(root))
        try:
            from benchmarks.population import population, write_parquet
        finally:
            sys.path.remove(str(root))
        path = folder / "population.parquet"
        write_parquet(path, population(SAMPLE, seed=2026))
        return path, f"a generated population of {SAMPLE:,}"

    return write
