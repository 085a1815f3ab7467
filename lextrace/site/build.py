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
    HOME_PAGE,
    MATRIX_PAGE,
    PROOF_PAGE,
    READINGS_PAGE,
    STATUTE_PAGE,
    Site,
    relative,
)
from .markdown import code, escape

GRAMMAR_PLACEHOLDER = "<!-- lextrace:grammar -->"
COMMANDS_PLACEHOLDER = "<!-- lextrace:readme-commands -->"
CLI_PLACEHOLDER = "<!-- lextrace:cli-reference -->"
PROVENANCE_PLACEHOLDER = "<!-- lextrace:provenance -->"

# A statute's pages in the order of its navigation: (title, page).
SECTIONS = (
    ("Annotated statute", STATUTE_PAGE),
    ("Traceability matrix", MATRIX_PAGE),
    ("Interpretation register", READINGS_PAGE),
    ("Proof report", PROOF_PAGE),
)


def generate(site: Site, home: bool = False) -> dict[str, str]:
    """Returns every generated page of one statute's site: path under docs/ → Markdown (with
    its own home page when `home`; the amendment pages when it has drafts)."""
    pages = {
        site.path(STATUTE_PAGE): statute_page.page(site),
        site.path(MATRIX_PAGE): matrix_page.page(site),
        site.path(READINGS_PAGE): readings_page.page(site),
        site.path(PROOF_PAGE): proof_page.page(site),
        site.path(EXAMPLES_INDEX): example_pages.index_page(site),
    }
    for example in site.examples:
        pages[example.page] = example_pages.example_page(site, example)
    if site.amendment_drafts:
        found = amendment_pages.amendments(site)
        pages[site.path(AMENDMENTS_INDEX)] = amendment_pages.index_page(site, found)
        for amendment in found:
            pages[amendment.page] = amendment_pages.amendment_page(site, amendment)
    if home:
        pages[site.path(HOME_PAGE)] = home_page(site)
    return pages


def navigation(site: Site, pages: dict[str, str]) -> list[dict[str, object] | str]:
    """Returns the navigation of one statute's generated pages (MkDocs' `nav` entries)."""

    def under(folder: str) -> list[str]:
        index = site.path(f"{folder}/index.md")
        return [
            index,
            *sorted(p for p in pages if p.startswith(f"{site.path(folder)}/") and p != index),
        ]

    nav: list[dict[str, object] | str] = []
    if site.path(HOME_PAGE) in pages:
        nav.append(site.path(HOME_PAGE))
    nav += [{title: site.path(page)} for title, page in SECTIONS]
    nav.append({"Worked examples": under("examples")})
    if site.path(AMENDMENTS_INDEX) in pages:
        nav.append({"Amendments": under("amendments")})
    return nav


def home_page(site: Site) -> str:
    """Returns the front page of one statute's pages: what it is, its pages, and the provenance
    of the build."""
    statute = site.ast
    here = site.path(HOME_PAGE)
    history = f" {escape(statute.history)}." if statute.history else ""
    links = [f"- [{title}]({relative(here, site.path(page))})" for title, page in SECTIONS]
    links.append(f"- [Worked examples]({relative(here, site.path(EXAMPLES_INDEX))})")
    if site.amendment_drafts:
        links.append(f"- [Amendments]({relative(here, site.path(AMENDMENTS_INDEX))})")
    parts = [
        f"# {statute.name}",
        f"**{escape(statute.title)}.**{history}",
        f"The encoding `{site.shown(site.encoding)}`, made executable, traceable and provable: "
        "every page below is generated from it when the site is built.",
        "\n".join(links),
        provenance.section(site.provenance),
    ]
    return "\n\n".join(parts) + "\n"


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
    from `site`, which is made from `root` when not given). A placeholder may be followed by
    what a reader of the Markdown itself sees in its place, up to its closing comment
    (`<!-- /lextrace:NAME -->`): the generated part replaces both."""
    if PROVENANCE_PLACEHOLDER in markdown:
        built = site if site is not None else Site(root)
        markdown = _filled(markdown, PROVENANCE_PLACEHOLDER, provenance.section(built.provenance))
    if GRAMMAR_PLACEHOLDER in markdown:
        markdown = _filled(markdown, GRAMMAR_PLACEHOLDER, grammar())
    if CLI_PLACEHOLDER in markdown:
        markdown = _filled(markdown, CLI_PLACEHOLDER, cli_page.reference())
    if COMMANDS_PLACEHOLDER in markdown:
        markdown = _filled(markdown, COMMANDS_PLACEHOLDER, readme_commands(root))
    return markdown


def _filled(markdown: str, placeholder: str, generated: str) -> str:
    """Returns the page with the placeholder, and what stands in its place up to its closing
    comment when it has one, replaced by the generated part."""
    closing = placeholder.replace("<!-- ", "<!-- /", 1)
    start = markdown.index(placeholder)
    end = markdown.find(closing, start)
    end = start + len(placeholder) if end < 0 else end + len(closing)
    return markdown[:start] + generated + markdown[end:]
