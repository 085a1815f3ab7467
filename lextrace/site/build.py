"""All generated pages of the site, by path under docs/, and the placeholders filled in the
hand-written guides."""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

from . import (
    amendment_pages,
    cli_page,
    example_pages,
    matrix_page,
    proof_page,
    provenance,
    readings_page,
    statute_page,
)
from .context import (
    AMENDMENTS_INDEX,
    EXAMPLES_INDEX,
    MATRIX_PAGE,
    PROOF_PAGE,
    READINGS_PAGE,
    STATUTE_PAGE,
    Site,
)
from .markdown import code

GRAMMAR_PLACEHOLDER = "<!-- lextrace:grammar -->"
COMMANDS_PLACEHOLDER = "<!-- lextrace:readme-commands -->"
CLI_PLACEHOLDER = "<!-- lextrace:cli-reference -->"
PROVENANCE_PLACEHOLDER = "<!-- lextrace:provenance -->"


def generate(site: Site) -> dict[str, str]:
    """Returns every generated page of the site: path under docs/ → Markdown."""
    pages = {
        STATUTE_PAGE: statute_page.page(site),
        MATRIX_PAGE: matrix_page.page(site),
        READINGS_PAGE: readings_page.page(site),
        PROOF_PAGE: proof_page.page(site),
        EXAMPLES_INDEX: example_pages.index_page(site),
    }
    for example in site.examples:
        pages[example.page] = example_pages.example_page(site, example)
    found = amendment_pages.amendments(site)
    pages[AMENDMENTS_INDEX] = amendment_pages.index_page(site, found)
    for amendment in found:
        pages[amendment.page] = amendment_pages.amendment_page(site, amendment)
    return pages


def grammar() -> str:
    """Returns the language's Lark grammar as a highlighted block."""
    text = resources.files("lextrace.dsl").joinpath("lextrace.lark").read_text(encoding="utf-8")
    return code(text, "text")


def readme_commands(root: Path) -> str:
    """Returns the README's first two shell blocks (set up and run; set up and test)."""
    readme = (root / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```sh\n(.*?)```", readme, flags=re.S)[:2]
    labels = ["Set everything up and run the main job:", "Set everything up and run the tests:"]
    return "\n\n".join(
        f"{label}\n\n{code(block, 'sh')}" for label, block in zip(labels, blocks, strict=False)
    )


def fill_placeholders(markdown: str, root: Path, site: Site | None = None) -> str:
    """Returns a hand-written page with its generated parts filled in (the provenance section
    from `site`, which is made from `root` when not given)."""
    if PROVENANCE_PLACEHOLDER in markdown:
        built = site if site is not None else Site(root)
        markdown = markdown.replace(PROVENANCE_PLACEHOLDER, provenance.section(built.provenance))
    if GRAMMAR_PLACEHOLDER in markdown:
        markdown = markdown.replace(GRAMMAR_PLACEHOLDER, grammar())
    if CLI_PLACEHOLDER in markdown:
        markdown = markdown.replace(CLI_PLACEHOLDER, cli_page.reference())
    if COMMANDS_PLACEHOLDER in markdown:
        markdown = markdown.replace(COMMANDS_PLACEHOLDER, readme_commands(root))
    return markdown
