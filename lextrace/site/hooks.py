"""MkDocs hooks: add the pages generated from the encoding, list them in the navigation, and
give every page's footer the build's provenance.

Named in mkdocs.yml under `hooks:`. The generated pages exist only in the build; docs/ holds the
hand-written guides alone. The footer is the theme's `partials/copyright.html`, overridden in
`theme/` (mkdocs.yml's `custom_dir`), which shows `extra.lextrace_provenance`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

from lextrace.site.build import fill_placeholders, generate
from lextrace.site.context import AMENDMENTS_INDEX, EXAMPLES_INDEX, Site
from lextrace.site.provenance import ProvenanceError, footer_html

_generated: dict[str, str] = {}
_site: list[Site] = []


def _root(config: Any) -> Path:
    return Path(config["config_file_path"]).resolve().parent


def on_config(config: Any) -> Any:
    """Generates the pages, and lists the examples and amendments under their sections."""
    _generated.clear()
    _site[:] = [Site(_root(config))]
    try:
        config["extra"]["lextrace_provenance"] = footer_html(_site[0].provenance)
    except ProvenanceError as error:
        raise PluginError(str(error)) from None
    _generated.update(generate(_site[0]))
    for entry in config["nav"] or []:
        if not isinstance(entry, dict):
            continue
        for title, target in entry.items():
            if target in (EXAMPLES_INDEX, AMENDMENTS_INDEX):
                folder = target.split("/")[0] + "/"
                children = sorted(p for p in _generated if p.startswith(folder) and p != target)
                entry[title] = [target, *children]
    return config


def on_files(files: Files, config: Any) -> Files:
    """Adds the generated pages to the build."""
    for path, markdown in _generated.items():
        files.append(File.generated(config, path, content=markdown))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    """Fills the generated parts of the hand-written guides (the grammar, the README's
    commands)."""
    return fill_placeholders(markdown, _root(config), _site[0] if _site else None)
