"""The site of one encoding, built by MkDocs into a folder (what `lextrace site` runs).

The MkDocs configuration is made here (theme, Markdown extensions and checks as the project's
own mkdocs.yml has them, the same hook), the site built into a temporary folder beside the
output, and moved into place only once built: a failed build leaves nothing half-way.
"""

from __future__ import annotations

import logging
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from .context import Site

MARKER = ".lextrace-site"  # left in every folder `lextrace site` wrote, so it may replace it

# As in the project's mkdocs.yml (a test keeps them alike).
FEATURES = [
    "navigation.sections",
    "navigation.indexes",
    "navigation.top",
    "search.highlight",
    "search.suggest",
    "content.code.copy",
    "toc.follow",
]
MARKDOWN_EXTENSIONS: list[Any] = [
    "admonition",
    "attr_list",
    "def_list",
    "footnotes",
    "md_in_html",
    "tables",
    {"toc": {"permalink": True}},
    "pymdownx.details",
    {"pymdownx.highlight": {"anchor_linenums": False}},
    "pymdownx.inlinehilite",
    "pymdownx.superfences",
]
PALETTE = [
    {
        "media": "(prefers-color-scheme: light)",
        "scheme": "default",
        "toggle": {"icon": "material/brightness-7", "name": "Switch to dark mode"},
    },
    {
        "media": "(prefers-color-scheme: dark)",
        "scheme": "slate",
        "toggle": {"icon": "material/brightness-4", "name": "Switch to light mode"},
    },
]
VALIDATION = {
    "omitted_files": "warn",
    "absolute_links": "warn",
    "unrecognized_links": "warn",
    "anchors": "warn",
}


class BuildFailed(Exception):
    """MkDocs did not build the site (in strict mode: it warned); the message says why."""


class OutputTaken(Exception):
    """The output folder holds files that `lextrace site` did not write."""


def configuration(site: Site) -> dict[str, Any]:
    """Returns the MkDocs configuration of the site of one encoding (without its docs folder
    and output, which the build sets)."""
    package = resources.files("lextrace.site")
    return {
        "site_name": site.ast.name,
        "site_description": site.ast.title,
        "theme": {
            "name": "material",
            "custom_dir": str(package / "theme"),
            "features": FEATURES,
            "palette": PALETTE,
        },
        "extra_css": ["stylesheets/extra.css"],
        "hooks": [str(package / "hooks.py")],
        "plugins": ["search"],
        "markdown_extensions": MARKDOWN_EXTENSIONS,
        "validation": VALIDATION,
    }


def mkdocs_missing() -> str | None:
    """Returns why the site cannot be built here (MkDocs or its theme is not installed), or
    None when it can."""
    import importlib.util

    for module, what in (("mkdocs", "MkDocs"), ("material", "the Material theme for MkDocs")):
        if importlib.util.find_spec(module) is None:
            return (
                f"building a site needs {what}, which is not installed: "
                "pip install 'lextrace[docs]'"
            )
    return None


@contextmanager
def _warnings_to_stderr() -> Iterator[None]:
    """Shows MkDocs' warnings and errors on standard error while it builds."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setLevel(logging.WARNING)
    handler.setFormatter(logging.Formatter("%(levelname)s: %(message)s"))
    logger = logging.getLogger("mkdocs")
    logger.addHandler(handler)
    try:
        yield
    finally:
        logger.removeHandler(handler)


def build(site: Site, output: Path, strict: bool) -> None:
    """Builds the site into `output`, replacing a site `lextrace site` wrote there before.
    Raises OutputTaken for a folder holding other files, BuildFailed when MkDocs fails, and
    OSError when the output cannot be written."""
    from mkdocs.commands.build import build as mkdocs_build
    from mkdocs.config import load_config
    from mkdocs.exceptions import MkDocsException

    if output.exists() and (
        not output.is_dir() or (any(output.iterdir()) and not (output / MARKER).exists())
    ):
        raise OutputTaken(
            f"{output}: exists and holds files not written by `lextrace site`; give a new or "
            "empty folder"
        )
    parent = output.resolve().parent
    with tempfile.TemporaryDirectory(prefix=f".{output.name}.lextrace-site-", dir=parent) as work:
        folder = Path(work)
        (folder / "docs").mkdir()
        config_file = folder / "mkdocs.yml"
        config_file.write_text(yaml.safe_dump(configuration(site)), encoding="utf-8")
        built = folder / "site"
        with _warnings_to_stderr():
            try:
                config = load_config(
                    str(config_file),
                    site_dir=str(built),
                    strict=strict,
                    extra={"lextrace_site": site},
                )
                mkdocs_build(config)
            except MkDocsException as error:
                raise BuildFailed(str(error)) from None
        (built / MARKER).write_text("written by lextrace site\n", encoding="utf-8")
        if output.exists():
            old = folder / "old"
            os.replace(output, old)
            os.replace(built, output)
            shutil.rmtree(old)
        else:
            os.replace(built, output)
