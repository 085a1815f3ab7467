"""MkDocs hooks: add the pages generated from the encodings, list them in the navigation, and
give every page's footer the build's provenance.

Named in mkdocs.yml under `hooks:`. The generated pages exist only in the build; docs/ holds the
hand-written guides alone. The footer is the theme's `partials/copyright.html`, overridden in
`theme/` (mkdocs.yml's `custom_dir`), which shows `extra.lextrace_provenance`.

Two kinds of site: the project's own (every `statute/*.lex`, see `project.py`), or, when the
configuration's `extra.lextrace_site` is a `Site` (as `lextrace site` gives it) or names an
encoding, the site of that one encoding, its navigation made here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

from lextrace.dsl.errors import EncodingError, ScenarioError
from lextrace.site import project
from lextrace.site.build import fill_placeholders, generate, navigation
from lextrace.site.context import AMENDMENTS_INDEX, EXAMPLES_INDEX, Site, SiteError
from lextrace.site.provenance import ProvenanceError, footer_html
from lextrace.verify.apart import Apart

_generated: dict[str, str] = {}
_site: list[Site] = []


def _root(config: Any) -> Path:
    return Path(config["config_file_path"]).resolve().parent


def single_site(settings: dict[str, Any]) -> Site:
    """Returns the site of one encoding from `extra.lextrace_site`: its `encoding`, `root`
    and, optional, `examples` (a folder), `cases` (a file) and `amendments` (name → encoding)."""
    from lextrace.api import load_statute

    def path(key: str) -> Path | None:
        return Path(settings[key]) if settings.get(key) else None

    return Site(
        Path(settings["root"]),
        load_statute(settings["encoding"]),
        examples_dir=path("examples"),
        cases=path("cases"),
        amendment_drafts=tuple(
            (name, Path(draft)) for name, draft in (settings.get("amendments") or {}).items()
        ),
    )


def on_config(config: Any) -> Any:
    """Generates the pages, and lists them in the navigation."""
    _generated.clear()
    settings = config["extra"].get("lextrace_site")
    try:
        if isinstance(settings, Site):
            sites = [settings]
        elif settings:
            sites = [single_site(settings)]
        else:
            sites = project.sites(_root(config))
            sites[0].others = tuple(site.statute for site in sites[1:])
        _site[:] = sites[:1]
        config["extra"]["lextrace_provenance"] = footer_html(sites[0].provenance)
        # Every proof report of the build, started at once in processes of their own.
        proofs = Apart(
            [s.encoding for s in sites] + [d for s in sites for _, d in s.amendment_drafts]
        )
        try:
            for site in sites:
                site.proofs = proofs
                _generated.update(generate(site, home=bool(settings) or site.folder != ""))
        finally:
            proofs.close()
            for site in sites:
                site.proofs = None
    except (ProvenanceError, SiteError, EncodingError, ScenarioError) as error:
        raise PluginError(str(error)) from None
    if settings:
        config["nav"] = navigation(sites[0], _generated)
        return config
    for entry in config["nav"] or []:
        if not isinstance(entry, dict):
            continue
        for title, target in entry.items():
            if target in (EXAMPLES_INDEX, AMENDMENTS_INDEX):
                folder = target.split("/")[0] + "/"
                children = sorted(p for p in _generated if p.startswith(folder) and p != target)
                entry[title] = [target, *children]
    config["nav"] = [
        *(config["nav"] or []),
        *({site.ast.name: navigation(site, _generated)} for site in sites[1:]),
    ]
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
