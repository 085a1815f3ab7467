"""What a build of the site was made from: when, from which commit, from which encoding and
official text (by SHA-256), and with which versions of the tools.

Every page carries it in its footer, and the home page and the annotated statute in a section.
The build time is SOURCE_DATE_EPOCH when that is set (a reproducible build), the current time
otherwise. Outside a git checkout, or without git, the commit says so instead of failing.
"""

from __future__ import annotations

import hashlib
import html
import os
import platform
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

from lextrace.dsl import ast

from .markdown import stacked_table

NOT_A_CHECKOUT = "not a git checkout"


class ProvenanceError(ValueError):
    """A build setting that cannot be used (a SOURCE_DATE_EPOCH that is not a time)."""


@dataclass(frozen=True)
class Commit:
    """The git commit the site was built from; `full` is None outside a git checkout."""

    full: str | None
    dirty: bool = False

    @property
    def short(self) -> str:
        """The abbreviated hash (12 digits), or why there is none."""
        return self.full[:12] if self.full else NOT_A_CHECKOUT


@dataclass(frozen=True)
class Provenance:
    """Where one build of the site comes from."""

    built: str
    commit: Commit
    encoding: str
    encoding_sha256: str
    official: str
    official_sha256: str
    versions: tuple[tuple[str, str], ...]
    # The sources of the other statutes of a site of several: (file, its SHA-256).
    others: tuple[tuple[str, str], ...] = ()


def build_time(environ: dict[str, str] | None = None) -> str:
    """Returns the build time in UTC, ISO 8601 to the second (`2026-01-31T12:00:00Z`): that of
    SOURCE_DATE_EPOCH when set, now otherwise. Raises ProvenanceError for a bad value."""
    value = (os.environ if environ is None else environ).get("SOURCE_DATE_EPOCH", "").strip()
    if value:
        try:
            moment = datetime.fromtimestamp(int(value), UTC)
        except (ValueError, OverflowError, OSError):
            raise ProvenanceError(
                f"SOURCE_DATE_EPOCH must be a whole number of seconds since 1970, not {value!r}"
            ) from None
    else:
        moment = datetime.now(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _git(root: Path, *args: str) -> str | None:
    """Returns the output of a git command in `root`, or None when it fails or git is absent."""
    try:
        done = subprocess.run(
            ["git", "-C", str(root), *args],
            capture_output=True,
            text=True,
            check=False,
            timeout=30,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def commit_of(root: Path) -> Commit:
    """Returns the commit checked out at `root`, and whether tracked files differ from it."""
    full = _git(root, "rev-parse", "--verify", "HEAD")
    if not full:
        return Commit(None)
    changes = _git(root, "status", "--porcelain", "--untracked-files=no")
    return Commit(full, dirty=bool(changes))


def _version(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "not installed"


def tool_versions() -> tuple[tuple[str, str], ...]:
    """Returns (tool, version) for lextrace, Z3, Python, MkDocs and its Material theme."""
    import z3

    return (
        ("lextrace", _version("lextrace")),
        ("Z3", z3.get_version_string()),
        ("Python", platform.python_version()),
        ("MkDocs", _version("mkdocs")),
        ("Material for MkDocs", _version("mkdocs-material")),
    )


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _shown_path(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.name


def collect(
    root: Path,
    statute: ast.Statute,
    others: Sequence[ast.Statute] = (),
    encoding: Path | None = None,
) -> Provenance:
    """Returns the provenance of a build from `root` of the site of `statute`, encoded in
    `encoding` (by default the file it names), and of the `others`, for a site of several."""
    encoding = encoding or Path(statute.path)
    official = encoding.parent / statute.official
    sources = [
        path
        for other in others
        for path in (Path(other.path), Path(other.path).parent / other.official)
    ]
    return Provenance(
        built=build_time(),
        commit=commit_of(root),
        encoding=_shown_path(encoding, root),
        encoding_sha256=_sha256(encoding),
        official=_shown_path(official, root),
        official_sha256=_sha256(official),
        versions=tool_versions(),
        others=tuple((_shown_path(path, root), _sha256(path)) for path in sources),
    )


def footer_html(provenance: Provenance) -> str:
    """Returns the footer line every page carries (HTML, for the theme's template)."""
    commit = provenance.commit
    versions = ", ".join(f"{html.escape(n)} {html.escape(v)}" for n, v in provenance.versions)
    items = [
        f'built <time datetime="{provenance.built}">{provenance.built}</time>',
        (
            f"commit <code>{commit.short}</code> (<code>{commit.full}</code>)"
            + (" dirty: uncommitted changes" if commit.dirty else "")
            if commit.full
            else NOT_A_CHECKOUT
        ),
        f"{html.escape(provenance.encoding)} sha256 "
        f'<code class="lextrace-hash">{provenance.encoding_sha256}</code>',
        f"{html.escape(provenance.official)} sha256 "
        f'<code class="lextrace-hash">{provenance.official_sha256}</code>',
        *(
            f'{html.escape(path)} sha256 <code class="lextrace-hash">{sha256}</code>'
            for path, sha256 in provenance.others
        ),
        versions,
    ]
    return (
        '<div class="lextrace-provenance" id="lextrace-provenance">'
        + " · ".join(f"<span>{item}</span>" for item in items)
        + "</div>"
    )


def section(provenance: Provenance, admonition: bool = False) -> str:
    """Returns the Markdown of a "Provenance" section, everything the footer says in full: a
    heading and a table, or (`admonition`) a collapsed admonition holding the table."""
    commit = provenance.commit
    rows = [
        ["built (UTC)", provenance.built],
        ["commit", f"`{commit.full}`" if commit.full else NOT_A_CHECKOUT],
        ["commit (short)", f"`{commit.short}`" if commit.full else NOT_A_CHECKOUT],
    ]
    if commit.full:
        rows.append(["working tree", "dirty: uncommitted changes" if commit.dirty else "clean"])
    rows += [
        [f"`{provenance.encoding}` (encoding) SHA-256", f"`{provenance.encoding_sha256}`"],
        [f"`{provenance.official}` (official text) SHA-256", f"`{provenance.official_sha256}`"],
        *([f"`{path}` SHA-256", f"`{sha256}`"] for path, sha256 in provenance.others),
        *([name, version] for name, version in provenance.versions),
    ]
    what = "What this build of the site was made from; every page's footer repeats it."
    facts = stacked_table(["what", "value"], rows)
    if admonition:
        inner = f"{what}\n\n{facts}".replace("\n", "\n    ")
        return f'??? info "Provenance of this build"\n\n    {inner}'
    return "\n\n".join(["## Provenance { #provenance }", what, facts])
