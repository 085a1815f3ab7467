"""MkDocs hooks: add the pages generated from the encoding, and list them in the navigation.

Named in mkdocs.yml under `hooks:`. The generated pages exist only in the build; docs/ holds the
hand-written guides alone.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

from lextrace.site.build import fill_placeholders, generate
from lextrace.site.context import AMENDMENTS_INDEX, EXAMPLES_INDEX

_generated: dict[str, str] = {}


def _root(config: Any) -> Path:
    return Path(config["config_file_path"]).resolve().parent


def on_config(config: Any) -> Any:
    """Generates the pages, and lists the examples and amendments under their sections."""
    _generated.clear()
    _generated.update(generate(_root(config)))
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
    return fill_placeholders(markdown, _root(config))
