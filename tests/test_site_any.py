"""The site of any encoding: `lextrace site`, and the project's site of every bundled statute."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from html import escape
from pathlib import Path

import pytest
import yaml
from conftest import ROOT, lextrace_command

from lextrace import exits, load_statute
from lextrace.cases import load_cases
from lextrace.cli import main
from lextrace.site import example_pages, standalone, statute_page
from lextrace.site.context import Site, featured_clause

OTHER = ROOT / "tests" / "other_statutes"
RATIO = OTHER / "ratio.lex"
FRINGE = OTHER / "fringe.lex"
# What only the bundled statute's pages say: none of it may reach another statute's site.
BUNDLED_WORDS = re.compile(r"N\.J\.S\.A|34:1B|labor.harmony|per_job|area_tier|c-1-j|Section 75")

CASES = """\
cases:
  - name: Two parts of three
    scenario: {part: 2, whole: 3}
    expect: {ratio: "2/3", twice: 6, exceeds: false, band: low}
  - name: More parts than the whole
    scenario: more.json
    expect: {exceeds: true}
  - name: a zero whole is refused
    scenario: {whole: 0}
    refuse: ["whole"]
"""


def _pages(site: Path) -> dict[str, str]:
    """Every built page of a site, by its path."""
    return {
        p.relative_to(site).as_posix(): p.read_text("utf-8") for p in sorted(site.rglob("*.html"))
    }


def _article(html: str) -> str:
    """The text of a built page's article, tags removed."""
    body = html.split("<article", 1)[1].split("</article>", 1)[0]
    return " ".join(re.sub(r"<[^>]+>", " ", body).split())


@pytest.fixture(scope="module")
def ratio_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site of ratio.lex with two worked cases and one amendment draft, built strictly."""
    folder = tmp_path_factory.mktemp("ratio")
    (folder / "cases.yaml").write_text(CASES, encoding="utf-8")
    (folder / "more.json").write_text('{"part": 5, "whole": 2}', encoding="utf-8")
    draft = folder / "drafts" / "plus-one"
    draft.mkdir(parents=True)
    shutil.copy(OTHER / "ratio-amended.lex", draft / "ratio.lex")
    shutil.copy(OTHER / "ratio.txt", draft / "ratio.txt")
    out = folder / "out"
    done = lextrace_command(
        "site", "-e", str(RATIO), "--cases", "cases.yaml", "--amendments", "drafts", "-o", "out",
        "--strict", cwd=folder,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Ratio Act s.3" in done.stdout
    return out


def test_the_site_of_another_statute_names_it_its_clauses_and_citations(ratio_site: Path) -> None:
    pages = _pages(ratio_site)
    for page in ("statute", "matrix", "readings", "proof-report", "examples", "amendments"):
        assert f"{page}/index.html" in pages, page
    statute = pages["statute/index.html"]
    assert re.search(r"<h1[^>]*>Ratio Act s\.3", statute)
    for anchor in ("a", "b", "c"):
        assert f'id="{anchor}"' in statute
    assert "The ratio is the part over the whole." in _article(statute)
    assert "is <code>#a</code>" in statute  # the featured anchor is this statute's own
    example = pages["examples/two-parts-of-three/index.html"]
    assert 'href="../../statute/#a"' in example
    assert "2/3" in _article(example)  # what the case expects, beside what is computed
    assert "examples/more-parts-than-the-whole/index.html" in pages
    assert not any("zero-whole" in page for page in pages)  # a refusal is not a worked example
    amendment = _article(pages["amendments/plus-one/index.html"])
    assert "part + 1" in amendment and "the 2 worked examples" in amendment
    assert "Scenarios accepted" in amendment and "accepted now" in amendment
    home = _article(pages["index.html"])
    assert "Provenance" in home and hashlib.sha256(RATIO.read_bytes()).hexdigest() in home
    for path, html in pages.items():
        assert not BUNDLED_WORDS.search(_article(html) if "<article" in html else html), path


def test_upper_case_labels_get_their_own_anchors(tmp_path: Path) -> None:
    done = lextrace_command("site", "-e", str(FRINGE), "-o", str(tmp_path / "out"), "--strict")
    assert done.returncode == 0, done.stderr
    pages = _pages(tmp_path / "out")
    statute = pages["statute/index.html"]
    for anchor in ("c", "c-1", "c-1-A", "c-1-B"):
        assert f'id="{anchor}"' in statute, anchor
    assert "26 U.S.C." in statute and "(c)(1)(A)" in statute
    proofs = pages["proof-report/index.html"]
    assert 'href="../statute/#c-1' in proofs
    for path, html in pages.items():
        assert not BUNDLED_WORDS.search(html), path


def test_the_featured_anchor_and_headline_results_come_from_the_encoding() -> None:
    fringe = load_statute(FRINGE)
    clause = featured_clause(fringe.ast)
    assert clause is not None and clause.anchor == "c-1"  # the first clause with a rule
    page = statute_page.page(Site(ROOT, fringe, encoding_file=FRINGE))
    assert "[(c)(1)](statute.md#c-1) is `#c-1`" in page
    ratio = load_statute(RATIO).ast
    assert example_pages.headline_results(ratio) == ["ratio", "twice", "exceeds"]


def test_without_mkdocs_the_command_says_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "mkdocs", None)  # as if it were not installed
    assert main(["site", "-e", str(RATIO), "-o", str(tmp_path / "out")]) == exits.BAD_INPUT
    assert "pip install 'lextrace[docs]'" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_bad_sources_and_a_taken_folder_are_refused_with_nothing_written(tmp_path: Path) -> None:
    cases = tmp_path / "cases.yaml"
    cases.write_text("cases:\n  - name: x\n    scenario: 3\n", encoding="utf-8")
    done = lextrace_command(
        "site", "-e", str(RATIO), "--cases", str(cases), "-o", str(tmp_path / "o")
    )
    assert done.returncode == exits.BAD_INPUT
    assert f"{cases}:3:15: case 'x': 'scenario': expected a scenario" in done.stderr
    cases.write_text(
        "cases:\n  - name: x\n    scenario: {part: -1}\n    expect: {twice: 2}\n",
        encoding="utf-8",
    )
    done = lextrace_command(
        "site", "-e", str(RATIO), "--cases", str(cases), "-o", str(tmp_path / "o")
    )
    assert done.returncode == exits.BAD_INPUT and "part" in done.stderr
    assert not (tmp_path / "o").exists()
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "notes.txt").write_text("mine\n", encoding="utf-8")
    done = lextrace_command("site", "-e", str(RATIO), "-o", str(taken))
    assert done.returncode == exits.BAD_INPUT and "not written by `lextrace site`" in done.stderr
    assert [p.name for p in taken.iterdir()] == ["notes.txt"]
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_a_site_written_before_is_replaced(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert lextrace_command("site", "-e", str(RATIO), "-o", str(out)).returncode == 0
    (out / "stale.html").write_text("old\n", encoding="utf-8")
    assert lextrace_command("site", "-e", str(FRINGE), "-o", str(out)).returncode == 0
    assert not (out / "stale.html").exists()
    assert "26 U.S.C." in (out / "statute" / "index.html").read_text("utf-8")


def test_the_standalone_configuration_is_the_projects() -> None:
    project = yaml.safe_load((ROOT / "mkdocs.yml").read_text("utf-8"))
    made = standalone.configuration(Site(ROOT, load_statute(RATIO), encoding_file=RATIO))
    assert made["theme"]["features"] == project["theme"]["features"]
    assert made["theme"]["palette"] == project["theme"]["palette"]
    assert made["markdown_extensions"] == project["markdown_extensions"]
    assert made["validation"] == project["validation"]
    assert made["extra_css"] == project["extra_css"]
    assert Path(made["theme"]["custom_dir"], project["extra_css"][0]).is_file()


@pytest.fixture(scope="module")
def many_statutes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project, with two more statutes in statute/ (one with a cases file and a draft),
    its site built strictly by `mkdocs build`."""
    root = tmp_path_factory.mktemp("project")
    for name in ("docs", "examples", "tests", "benchmarks", "lextrace", "dsl", "verify"):
        (root / name).symlink_to(ROOT / name)
    for name in ("mkdocs.yml", "README.md"):
        shutil.copy(ROOT / name, root / name)
    # The bundled statute and one of its drafts, beside the two added: the other bundled
    # statutes and drafts would be proved again for nothing this test reads.
    shutil.copytree(
        ROOT / "statute",
        root / "statute",
        ignore=shutil.ignore_patterns("__py*", "catala-*", "nsw-*", "usc-*", "small-business-750"),
    )
    for name in ("ratio.lex", "ratio.txt", "fringe.lex", "fringe.txt"):
        shutil.copy(OTHER / name, root / "statute" / name)
    (root / "statute" / "ratio.cases.yaml").write_text(
        CASES.replace("scenario: more.json", "scenario: {part: 5, whole: 2}"), encoding="utf-8"
    )
    draft = root / "statute" / "amendments" / "ratio-plus-one"
    draft.mkdir()
    shutil.copy(OTHER / "ratio-amended.lex", draft / "ratio.lex")
    shutil.copy(OTHER / "ratio.txt", draft / "ratio.txt")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(root / "site")],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return root


def test_the_project_site_has_a_section_per_statute(many_statutes: Path) -> None:
    site = many_statutes / "site"
    bundled = (site / "statute" / "index.html").read_text("utf-8")
    assert 'id="c-1-j"' in bundled and "34:1B-343" in bundled  # where it always was
    assert (site / "examples" / "distressed-manufacturer" / "index.html").is_file()
    assert (site / "amendments" / "uncapped-port-bonus" / "index.html").is_file()
    assert not (site / "amendments" / "ratio-plus-one").exists()  # a draft of another statute
    for slug, name, anchor in (("ratio", "Ratio Act s.3", "a"), ("fringe", "26 U.S.C.", "c-1-A")):
        for page in ("statute", "matrix", "readings", "proof-report", "examples"):
            assert (site / slug / page / "index.html").is_file(), (slug, page)
        statute = (site / slug / "statute" / "index.html").read_text("utf-8")
        assert f'id="{anchor}"' in statute and name in statute
        assert not BUNDLED_WORDS.search(_article(statute)), slug
        assert re.search(rf">\s*{re.escape(name)}\s*<", bundled)  # every page lists it
    ratio = site / "ratio"
    assert (ratio / "examples" / "two-parts-of-three" / "index.html").is_file()
    amendment = (ratio / "amendments" / "ratio-plus-one" / "index.html").read_text("utf-8")
    assert "part + 1" in _article(amendment)
    footer = bundled.split('<footer class="md-footer">', 1)[1]
    for name in ("ratio.lex", "fringe.lex", "nj-34-1b-343.lex"):
        digest = hashlib.sha256((many_statutes / "statute" / name).read_bytes()).hexdigest()
        assert digest in footer, name


def test_without_cases_the_site_shows_the_encodings_own(tmp_path: Path) -> None:
    done = lextrace_command("site", "-e", str(RATIO), "-o", str(tmp_path / "out"), "--strict")
    assert done.returncode == 0, done.stderr
    names = [c.name for c in load_cases(RATIO.with_name("ratio.cases.yaml")).cases if c.expect]
    examples = _pages(tmp_path / "out")["examples/index.html"]
    assert names and all(escape(name, quote=False).lower() in examples.lower() for name in names)
