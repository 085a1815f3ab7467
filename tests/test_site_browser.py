"""The documentation site, checked in a real browser by scripts/check_site.py.

The site is built once (``mkdocs build --strict``) into a temporary directory; the check script
then serves it and drives headless Chromium through it. Skipped only when Chromium or the
playwright package is not installed.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import struct
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "check_site.py"
CHROMIUM = shutil.which("chromium")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
CHECKS = ("statute", "citations", "search", "layout", "matrix", "register", "provenance", "console")

pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium is not installed (no chromium on PATH)"
)


def _load_script() -> ModuleType:
    """Imports scripts/check_site.py as a module."""
    spec = importlib.util.spec_from_file_location("check_site", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while being made
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def check_site() -> ModuleType:
    """The check script, as a module."""
    return _load_script()


@pytest.fixture(scope="module")
def built_site(project_site: Path) -> Path:
    """The documentation site, built once with `mkdocs build --strict`."""
    assert (project_site / "statute" / "index.html").is_file()
    return project_site


def _png_size(path: Path) -> tuple[int, int]:
    """The width and height of the PNG at `path` (which must be a PNG)."""
    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE, f"{path.name} is not a PNG"
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def _run(check_site: ModuleType, site: Path, shots: Path, *options: str) -> int:
    """Runs the check script's main function against `site`."""
    assert CHROMIUM is not None
    return check_site.main(
        ["--site-dir", str(site), "--screenshots", str(shots), "--chromium", CHROMIUM, *options]
    )


def test_site_passes_the_browser_checks(
    check_site: ModuleType,
    built_site: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The statute renders, the example's citations land, search finds the statute, the rule
    blocks and the matrix are cut nowhere at 1400 and 390 px, the register lists examples,
    every page carries its provenance, and no page logs an error; the screenshots are saved."""
    shots = tmp_path / "shots"
    status = _run(check_site, built_site, shots)
    output = capsys.readouterr().out
    assert status == 0, output
    for name in CHECKS:
        assert re.search(rf"^PASS {name} ", output, re.MULTILINE), output
    assert "FAIL" not in output
    for name in ("statute-phone", "matrix-phone"):
        assert _png_size(shots / f"{name}.png")[0] == 390, name
    assert _png_size(shots / "matrix-phone.png")[1] > 5 * _png_size(shots / "statute-phone.png")[1]
    assert _png_size(shots / "register.png")[0] >= 800
    sizes = {}
    for name in ("statute-c-1-j", "statute-full", "example", "search"):
        png = shots / f"{name}.png"
        assert png.is_file(), f"no screenshot {png.name}"
        assert png.stat().st_size > 20_000, f"{png.name} is only {png.stat().st_size} bytes"
        sizes[name] = _png_size(png)
        assert sizes[name][0] >= 800, f"{png.name} is {sizes[name]}"
    viewport_height = sizes["statute-c-1-j"][1]
    assert sizes["statute-full"][1] > 5 * viewport_height, "the statute screenshot is not full"
    assert sizes["example"][1] > viewport_height, "the example screenshot is not full-page"


def _plant(page: Path, old: str, new: str, count: int = 1) -> None:
    """Rewrites a built page, replacing `old` (which must occur `count` times or more)."""
    html = page.read_text(encoding="utf-8")
    assert html.count(old) >= count, f"{old!r} is not in {page}"
    page.write_text(html.replace(old, new), encoding="utf-8")


def test_check_reports_each_planted_fault_and_says_why(
    check_site: ModuleType,
    built_site: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """On a copy of the site with a fault planted for seven of the checks, each of those fails
    and says why, and the other one still passes (so the passing run is not vacuous): the
    statute lost the first anchor the example cites, the example page throws, the statute
    page no longer wraps its rules and breaks inline identifiers anywhere, the matrix lost its
    phone layout, the register lists no example, one page lost its provenance footer, and the
    search index lost the pages' weights (the examples then rank above the statute). One run
    of the browser for all of them: each run costs tens of seconds."""
    site = tmp_path / "site"
    shutil.copytree(built_site, site)
    example = site / "examples" / "distressed-manufacturer" / "index.html"
    first = re.search(r'href="[^"]*statute/#([^"]+)"', example.read_text(encoding="utf-8"))
    assert first, "the example cites no clause"
    anchor = first.group(1)
    _plant(example, "</body>", "<script>throw new Error('planted error')</script></body>")
    statute = site / "statute" / "index.html"
    _plant(statute, f'id="{anchor}"', f'id="{anchor}-gone"')
    _plant(
        statute,
        "</head>",
        "<style>.md-typeset pre > code { white-space: pre !important; }"
        " .md-typeset :not(pre) > code { word-break: break-all !important; }</style></head>",
    )
    _plant(site / "matrix" / "index.html", 'class="stacked-table"', 'class="plain-table"')
    register = site / "readings" / "index.html"
    html = register.read_text(encoding="utf-8")
    emptied, listed = re.subn(
        r"(rests on it: )(?:<a [^>]*>[^<]*</a>(?:, )?)+", r"\1none", html, flags=re.S
    )
    assert listed > 0
    register.write_text(emptied, encoding="utf-8")
    cli = site / "cli" / "index.html"
    html = cli.read_text(encoding="utf-8")
    stripped, footers = re.subn(r'<div class="lextrace-provenance".*?</div>', "", html, flags=re.S)
    assert footers == 1
    cli.write_text(stripped, encoding="utf-8")
    index = site / "search" / "search_index.json"
    search = json.loads(index.read_text(encoding="utf-8"))
    boosted = [doc.pop("boost") for doc in search["docs"] if "boost" in doc]
    assert boosted
    index.write_text(json.dumps(search), encoding="utf-8")

    # One citation followed: the first the example cites, the one planted away.
    status = _run(check_site, site, tmp_path / "shots", "--citations", "1")
    output = capsys.readouterr().out
    assert status == 1, output
    for name in ("citations", "console", "layout", "matrix", "register", "provenance", "search"):
        assert re.search(rf"^FAIL {name} ", output, re.MULTILINE), output
    assert re.search(r"^PASS statute ", output, re.MULTILINE), output
    assert f"no element with id '{anchor}'" in output
    assert "planted error" in output
    assert re.search(r"at 1400 px: code block cut: #", output), output
    assert re.search(r"at 390 px: code block cut: #", output), output
    assert re.search(r"at 390 px: \d+ identifiers broken across lines", output), output
    assert re.search(r"at 390 px: .*scrolls sideways", output), output
    assert re.search(r"none of the \d+ register entries lists a worked example", output), output
    assert "/cli/: no provenance in the page's footer" in output
    ranked = r"the example page /examples/[^ ]+/ ranks above the statute page"
    assert re.search(ranked, output), output


def test_missing_site_is_a_usage_error(
    check_site: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Pointing the script at a directory with no built site exits 2 with a message."""
    status = _run(check_site, tmp_path / "nothing", tmp_path / "shots")
    assert status == 2
    assert "no built site" in capsys.readouterr().err


def test_the_site_of_another_statute_passes_the_browser_checks(
    check_site: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`lextrace site` on a statute of no money, with its cases as worked examples: every check,
    search included, passes with that statute's own expectations."""
    from lextrace.cli import main

    other = Path(__file__).resolve().parent / "other_statutes"
    site = tmp_path / "site"
    built = main(
        [
            "site",
            "-e",
            str(other / "ratio.lex"),
            "--cases",
            str(other / "ratio.cases.yaml"),
            "-o",
            str(site),
        ]
    )
    assert built == 0
    capsys.readouterr()
    assert CHROMIUM is not None
    status = check_site.main(
        [
            "--site-dir",
            str(site),
            "--screenshots",
            str(tmp_path / "shots"),
            "--chromium",
            CHROMIUM,
            "--h1",
            "Ratio Act",
            "--anchor",
            "a",
            "--anchor-words",
            "ratio",
            "--min-clauses",
            "3",
            "--search",
            "part over the whole",
            "--no-readings",
            "--example",
            "a-third",
            "--citations",
            "2",
        ]
    )
    output = capsys.readouterr().out
    assert status == 0, output
    for name in CHECKS:
        assert re.search(rf"^PASS {name} ", output, re.MULTILINE), output
