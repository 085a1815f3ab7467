"""Checks the built documentation site in a real browser (headless Chromium, via Playwright).

Usage::

    python scripts/check_site.py [--site-dir site] [--build] [--screenshots site-check/]

The site directory is served over http on a free localhost port (the material search needs
http: it loads ``search/search_index.json`` in a web worker), and every request to any other
host is blocked, so that the result does not depend on the network (the machine may well be
offline; the theme asks Google for its fonts). The checks are:

1. ``statute``: the annotated statute renders: its h1 names the statute (``--h1``), it has at
   least ``--min-clauses`` clause headings with ids, the heading ``#ANCHOR`` (``--anchor``)
   exists and its block holds ``--anchor-words``, and its code blocks are highlighted (they hold
   token ``span`` elements, and the tokens are coloured).
2. ``citations``: a worked example (``examples/distressed-manufacturer/``) renders its results
   table, and clicking several distinct citation links found on it (links into
   ``statute/#...``) lands on the statute page with the URL hash equal to the anchor, the
   element with that id present and in the viewport (not hidden under the sticky header).
3. ``search``: typing a phrase of a clause into the search box gives results, at least one of
   which links to the statute page.
4. ``layout``: at 1400 px and at 390 px (a phone) no code block of the statute page is cut
   (for each, ``scrollWidth <= clientWidth``: its rules wrap), no identifier in a code block or
   in the text is broken across lines, and the page itself does not scroll sideways.
5. ``matrix``: at 390 px (and at 1400 px) the traceability matrix is cut nowhere: no cell
   reaches past the viewport, no table or wrapper scrolls sideways, and neither does the page.
6. ``register``: an entry of the interpretation register lists the worked examples whose trace
   rests on its reading, and the first one listed is an example page that cites that reading.
7. ``provenance``: every page visited for the check (home, statute, matrix, register, proof
   report, example, command line) carries the same provenance footer: the build time (UTC, ISO),
   the commit (short and full, or "not a git checkout"), two SHA-256 hashes and the versions of
   lextrace, Z3 and Python; the home page has the full "Provenance" section with the same hash.
8. ``console``: none of the pages visited logged a JavaScript console error or raised an
   uncaught exception, and no request to the local server failed.

Screenshots are saved in the screenshots directory: the statute page scrolled to ``#ANCHOR`` and
full-page, the example page, the search results, the statute page at 390 px (at ``#ANCHOR``), the
matrix at 390 px (full page) and the register entry checked. One PASS or FAIL line is printed per
check; the exit status is 0 when all pass, 1 when any fails (or the site does not build), and
2 for a usage error (no site directory, no Chromium, no Playwright).

What is expected of the statute is a parameter, the bundled statute's by default, so that the
site of another statute (``lextrace site``, or one statute's folder of the project's site with
``--section SLUG/``) is checked as well: ``--h1``, ``--anchor``, ``--anchor-words``,
``--min-clauses``, ``--search``, ``--example``, and ``--no-readings`` for an encoding that names
no reading (the register check then only checks that the register page renders).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlparse

if TYPE_CHECKING:
    from playwright.sync_api import (
        Browser,
        BrowserContext,
        ConsoleMessage,
        Locator,
        Page,
        Playwright,
    )

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost"})
EXAMPLE_STEM = "distressed-manufacturer"
SEARCH_PHRASE = "labor harmony agreement"
MIN_CLAUSE_HEADINGS = 40
H1 = "34:1B-343"
ANCHOR = "c-1-j"
ANCHOR_WORDS = "labor harmony"
TIMEOUT_MS = 10_000
DESKTOP = (1400, 900)
PHONE = (390, 844)


@dataclass(frozen=True)
class Expect:
    """What the checks expect of the statute's pages (the bundled statute's by default)."""

    section: str = ""  # the folder of the statute's pages in the site, e.g. "ratio/"
    h1: str = H1
    anchor: str = ANCHOR
    anchor_words: str = ANCHOR_WORDS
    min_clauses: int = MIN_CLAUSE_HEADINGS
    search: str = SEARCH_PHRASE
    example: str = EXAMPLE_STEM
    readings: bool = True

    def page(self, name: str) -> str:
        """The path in the site of one of the statute's pages, e.g. `statute/`."""
        return f"{self.section}{name}"

    def provenance_pages(self, site_dir: Path) -> list[str]:
        """The pages whose provenance is checked: home, the statute's, and the command-line
        reference when the site has one."""
        pages = ["", *(self.page(p) for p in ("statute/", "matrix/", "readings/"))]
        pages += [self.page("proof-report/"), self.page(f"examples/{self.example}/")]
        return pages + (["cli/"] if (site_dir / "cli" / "index.html").is_file() else [])


REGISTER_LEAD = "Worked examples whose evaluation rests on it:"


class UsageError(Exception):
    """An error in how the command was called or in what it needs (exit status 2)."""


class CheckFailed(Exception):
    """An expected, explained failure of a check (reported without a traceback): a summary,
    and optionally one line per problem found."""

    def __init__(self, summary: str, details: list[str] | None = None) -> None:
        super().__init__(summary)
        self.details = details or []


@dataclass
class CheckResult:
    """The outcome of one check: its name, whether it passed, what it found, how long it took."""

    name: str
    passed: bool
    details: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def line(self) -> str:
        """The PASS/FAIL line printed for this check."""
        status = "PASS" if self.passed else "FAIL"
        summary = self.details[0] if self.details else ""
        return f"{status} {self.name} ({self.seconds:.1f}s): {summary}"


@dataclass
class Monitor:
    """Collects what the browser reports: console errors, page errors, failed local requests
    and the requests to other hosts that were blocked."""

    current: str = ""
    console_errors: list[tuple[str, str]] = field(default_factory=list)
    page_errors: list[tuple[str, str]] = field(default_factory=list)
    failed_local: list[tuple[str, str]] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)

    def is_blocked(self, url: str) -> bool:
        """Whether `url` is one of the requests to another host that this check blocked."""
        return url in self.blocked

    def on_console(self, message: ConsoleMessage) -> None:
        """Records a console error, unless it only reports a blocked request to another host."""
        if message.type != "error":
            return
        where = message.location.get("url", "") if message.location else ""
        if where and self.is_blocked(where):
            self.ignored.append(message.text)
            return
        self.console_errors.append((self.current, f"{message.text} [{where}]"))

    def on_page_error(self, error: Any) -> None:
        """Records an uncaught exception raised in a page."""
        self.page_errors.append((self.current, str(error)))

    def on_response(self, response: Any) -> None:
        """Records a local request answered with an error status."""
        if _is_local(response.url) and response.status >= 400:
            self.failed_local.append((self.current, f"{response.status} {response.url}"))

    def on_request_failed(self, request: Any) -> None:
        """Records a local request that failed without an answer (other than one cancelled)."""
        # ERR_ABORTED is a request cancelled by the page itself (by navigating away from it).
        if _is_local(request.url) and "ERR_ABORTED" not in (request.failure or ""):
            self.failed_local.append((self.current, f"{request.failure} {request.url}"))


def _is_local(url: str) -> bool:
    """Whether `url` points at the local server (or is not a network URL at all)."""
    parsed = urlparse(url)
    if parsed.scheme not in ("http", "https", "ws", "wss"):
        return True
    return parsed.hostname in LOCAL_HOSTS


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Parses the command line."""
    parser = argparse.ArgumentParser(
        description="Check the built documentation site in headless Chromium.",
    )
    parser.add_argument(
        "--site-dir",
        type=Path,
        default=Path("site"),
        help="the built site to check (default: site/)",
    )
    parser.add_argument(
        "--build",
        action="store_true",
        help="build the site into --site-dir first (mkdocs build --strict)",
    )
    parser.add_argument(
        "--config-file",
        type=Path,
        default=ROOT / "mkdocs.yml",
        help="the mkdocs configuration used by --build (default: mkdocs.yml)",
    )
    parser.add_argument(
        "--screenshots",
        type=Path,
        default=Path("site-check"),
        help="where to save the screenshots (default: site-check/)",
    )
    parser.add_argument(
        "--chromium",
        default=DEFAULT_CHROMIUM,
        help=f"the Chromium executable (default: {DEFAULT_CHROMIUM})",
    )
    parser.add_argument(
        "--citations",
        type=int,
        default=5,
        help="how many distinct citation links of the example to follow (default: 5)",
    )
    parser.add_argument("--section", default="", help="the folder of the statute's pages")
    parser.add_argument("--h1", default=H1, help=f"words of the statute's h1 (default: {H1})")
    parser.add_argument(
        "--anchor", default=ANCHOR, help=f"a clause anchor of the statute (default: {ANCHOR})"
    )
    parser.add_argument(
        "--anchor-words",
        default=ANCHOR_WORDS,
        help=f"words of that clause, in lower case (default: {ANCHOR_WORDS!r})",
    )
    parser.add_argument(
        "--min-clauses",
        type=int,
        default=MIN_CLAUSE_HEADINGS,
        help=f"how many clause headings at least (default: {MIN_CLAUSE_HEADINGS})",
    )
    parser.add_argument(
        "--search", default=SEARCH_PHRASE, help=f"a phrase to search (default: {SEARCH_PHRASE!r})"
    )
    parser.add_argument(
        "--example", default=EXAMPLE_STEM, help=f"a worked example's page (default: {EXAMPLE_STEM})"
    )
    parser.add_argument(
        "--no-readings",
        dest="readings",
        action="store_false",
        help="the encoding names no reading: the register lists no example",
    )
    args = parser.parse_args(argv)
    if args.section and not args.section.endswith("/"):
        args.section += "/"
    if args.citations < 1:
        parser.error("--citations must be at least 1")
    return args


def build_site(site_dir: Path, config_file: Path) -> CheckResult:
    """Builds the site with `mkdocs build --strict` into `site_dir`."""
    start = time.monotonic()
    if not config_file.is_file():
        raise UsageError(f"no mkdocs configuration at {config_file}")
    command = [
        sys.executable,
        "-m",
        "mkdocs",
        "build",
        "--strict",
        "--quiet",
        "--config-file",
        str(config_file),
        "--site-dir",
        str(site_dir.resolve()),
    ]
    done = subprocess.run(
        command,
        cwd=config_file.resolve().parent,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    seconds = time.monotonic() - start
    if done.returncode == 0:
        return CheckResult("build", True, [f"built {site_dir}"], seconds)
    output = (done.stdout + done.stderr).strip().splitlines()
    problems = [line for line in output if "WARNING" in line or "ERROR" in line] or output[-10:]
    return CheckResult(
        "build", False, [f"mkdocs build --strict exited {done.returncode}", *problems], seconds
    )


class _QuietHandler(SimpleHTTPRequestHandler):
    """Serves files without logging each request to stderr."""

    def log_message(self, format: str, *args: Any) -> None:
        """Logs nothing."""


class _QuietServer(ThreadingHTTPServer):
    """Does not print a traceback when the browser drops a connection (by navigating away)."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Ignores a connection the browser closed; reports anything else as usual."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@contextmanager
def serve(site_dir: Path) -> Iterator[str]:
    """Serves `site_dir` over http on a free localhost port, in a thread; yields the base URL."""
    handler = functools.partial(_QuietHandler, directory=str(site_dir))
    server = _QuietServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="site-server", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def launch_browser(playwright: Playwright, chromium: str) -> Browser:
    """Launches headless Chromium from `chromium` (never a browser downloaded by Playwright)."""
    from playwright.sync_api import Error as PlaywrightError

    if not (os.path.isfile(chromium) and os.access(chromium, os.X_OK)):
        raise UsageError(f"Chromium not found (or not executable) at {chromium}")
    try:
        return playwright.chromium.launch(
            executable_path=chromium, headless=True, args=CHROMIUM_ARGS, timeout=30_000
        )
    except PlaywrightError as error:
        first = str(error).strip().splitlines()[0] if str(error).strip() else repr(error)
        raise UsageError(f"could not launch Chromium at {chromium}: {first}") from None


def new_context(
    browser: Browser, monitor: Monitor, size: tuple[int, int] = (1280, 900)
) -> BrowserContext:
    """A browser context of viewport `size` (width, height) that lets only local requests
    through, and reports to `monitor`."""
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    context.set_default_timeout(TIMEOUT_MS)

    def route(route: Any) -> None:
        url = route.request.url
        if _is_local(url):
            route.continue_()
        else:
            monitor.blocked.append(url)
            route.abort("blockedbyclient")

    context.route("**/*", route)
    return context


def open_page(context: BrowserContext, monitor: Monitor) -> Page:
    """A new page of `context` whose console, errors and requests are reported to `monitor`."""
    page = context.new_page()
    page.on("console", monitor.on_console)
    page.on("pageerror", monitor.on_page_error)
    page.on("response", monitor.on_response)
    page.on("requestfailed", monitor.on_request_failed)
    return page


def goto(page: Page, monitor: Monitor, url: str) -> None:
    """Loads `url` in `page` and waits for it to finish loading."""
    monitor.current = url
    response = page.goto(url, wait_until="load")
    if response is None or not response.ok:
        status = response.status if response is not None else "no response"
        raise CheckFailed(f"{url} answered {status}")


def run_check(name: str, body: Callable[[], list[str]]) -> CheckResult:
    """Runs one check, turning its failures (explained or not) into a FAIL result."""
    from playwright.sync_api import Error as PlaywrightError

    start = time.monotonic()
    try:
        details = body()
        passed = True
    except CheckFailed as failure:
        details, passed = [str(failure), *failure.details], False
    except PlaywrightError as error:
        text = str(error).strip().splitlines()
        details, passed = [f"browser error: {text[0] if text else error!r}", *text[1:6]], False
    except Exception as error:  # an unexpected defect of the check itself: still report it
        details, passed = [f"unexpected {type(error).__name__}: {error}"], False
    return CheckResult(name, passed, details, time.monotonic() - start)


_BLOCK_TEXT_JS = """
(id) => {
  const heading = document.getElementById(id);
  if (!heading) return null;
  const parts = [heading.textContent];
  for (let node = heading.nextElementSibling; node; node = node.nextElementSibling) {
    if (/^H[1-6]$/.test(node.tagName)) break;
    parts.push(node.textContent);
  }
  return parts.join(" ");
}
"""

_HIGHLIGHT_JS = """
() => {
  const blocks = [...document.querySelectorAll("article .highlight pre code")];
  const plain = blocks.filter((code) => !code.querySelector("span[class]")).length;
  const colours = new Set();
  for (const span of document.querySelectorAll("article .highlight pre code span[class]")) {
    colours.add(getComputedStyle(span).color);
    if (colours.size > 3) break;
  }
  return {blocks: blocks.length, plain, colours: colours.size};
}
"""

_RESULTS_TABLE_JS = """
() => {
  const heading = document.getElementById("the-results");
  if (!heading) return null;
  for (let node = heading.nextElementSibling; node; node = node.nextElementSibling) {
    if (/^H[1-6]$/.test(node.tagName)) break;
    const table = node.tagName === "TABLE" ? node : node.querySelector("table");
    if (!table) continue;
    const rows = [...table.querySelectorAll("tbody tr")];
    const box = table.getBoundingClientRect();
    return {rows: rows.length, visible: box.width > 0 && box.height > 0,
            cited: rows.filter((row) => row.querySelector("a[href*='statute/#']")).length};
  }
  return null;
}
"""

_VIEWPORT_JS = """
(id) => {
  const element = document.getElementById(id);
  if (!element) return null;
  const box = element.getBoundingClientRect();
  const header = document.querySelector(".md-header");
  const headerBottom = header ? header.getBoundingClientRect().bottom : 0;
  return {top: box.top, bottom: box.bottom, height: window.innerHeight, headerBottom,
          inView: box.bottom > 0 && box.top < window.innerHeight && box.height > 0,
          belowHeader: box.top >= headerBottom - 2};
}
"""


def check_statute(
    page: Page, monitor: Monitor, base: str, shots: Path, expect: Expect = Expect()
) -> list[str]:
    """Check 1: the annotated statute renders, with its clause headings and highlighted code."""
    anchor = expect.anchor
    goto(page, monitor, urljoin(base, expect.page(f"statute/#{anchor}")))
    h1 = page.locator("article h1").first.inner_text()
    if expect.h1 not in h1:
        raise CheckFailed(f"the statute page's h1 is {h1!r}, without {expect.h1}")
    ids: list[str] = page.eval_on_selector_all(
        "article :is(h2,h3,h4,h5,h6)[id]",
        "(hs) => hs.filter((h) => h.textContent.trim().startsWith('(')).map((h) => h.id)",
    )
    if len(ids) < expect.min_clauses:
        raise CheckFailed(
            f"only {len(ids)} clause headings with ids (expected at least {expect.min_clauses})"
        )
    block = page.evaluate(_BLOCK_TEXT_JS, anchor)
    if block is None:
        raise CheckFailed(f"no heading with id {anchor}")
    if expect.anchor_words not in " ".join(block.split()).lower():
        raise CheckFailed(f"the block under #{anchor} does not contain {expect.anchor_words!r}")
    code = page.evaluate(_HIGHLIGHT_JS)
    if code["blocks"] == 0:
        raise CheckFailed("the statute page has no code blocks")
    if code["plain"]:
        raise CheckFailed(
            f"{code['plain']} of {code['blocks']} code blocks have no highlighted tokens"
        )
    if code["colours"] < 2:
        raise CheckFailed("the highlighted tokens are all one colour: the theme's CSS is missing")
    wait_in_view(page, anchor)
    page.screenshot(path=str(shots / f"statute-{anchor}.png"))
    page.screenshot(path=str(shots / "statute-full.png"), full_page=True)
    return [
        f"h1 {h1.strip().rstrip(chr(182)).strip()!r}, {len(ids)} clause headings, "
        f"#{anchor} mentions {expect.anchor_words}, {code['blocks']} code blocks all highlighted"
    ]


def wait_in_view(page: Page, anchor: str) -> dict[str, Any]:
    """Waits until the element with id `anchor` is in the viewport, and not hidden under the
    sticky header; returns its position."""
    deadline = time.monotonic() + TIMEOUT_MS / 1000
    while True:
        box = page.evaluate(_VIEWPORT_JS, anchor)
        if box is None:
            raise CheckFailed(f"no element with id {anchor!r} on {page.url}")
        if box["inView"] and box["belowHeader"]:
            return box
        if time.monotonic() > deadline:
            where = "in the viewport" if not box["inView"] else "below the sticky header"
            raise CheckFailed(
                f"#{anchor} is not {where} on {page.url} (top {box['top']:.0f}px, header "
                f"bottom {box['headerBottom']:.0f}px, viewport height {box['height']}px)"
            )
        page.wait_for_timeout(100)


def pick_citations(hrefs: list[str], count: int) -> list[tuple[int, str]]:
    """Chooses up to `count` distinct citation anchors, spread over the page from first to last;
    returns (index of the first link to it, anchor) pairs."""
    first: dict[str, int] = {}
    for index, href in enumerate(hrefs):
        anchor = urlparse(href).fragment
        if anchor and anchor not in first:
            first[anchor] = index
    anchors = list(first)
    if len(anchors) <= count:
        chosen = anchors
    else:
        step = (len(anchors) - 1) / (count - 1) if count > 1 else 0
        chosen = [anchors[round(i * step)] for i in range(count)]
    return [(first[anchor], anchor) for anchor in chosen]


def check_citations(
    page: Page, monitor: Monitor, base: str, shots: Path, count: int, expect: Expect = Expect()
) -> list[str]:
    """Check 2: the example renders its results table, and its citation links land on the
    statute page at the cited clause."""
    from playwright.sync_api import Error as PlaywrightError

    example = urljoin(base, expect.page(f"examples/{expect.example}/"))
    statute_path = urlparse(urljoin(base, expect.page("statute/"))).path
    goto(page, monitor, example)
    table = page.evaluate(_RESULTS_TABLE_JS)
    if table is None:
        raise CheckFailed(f"{example} has no results table (a table after h2#the-results)")
    if table["rows"] == 0 or not table["visible"]:
        raise CheckFailed(f"the results table of {example} is empty or not displayed")
    if table["cited"] == 0:
        raise CheckFailed("no row of the results table cites a clause of the statute")
    page.screenshot(path=str(shots / "example.png"), full_page=True)
    links = page.locator("article a[href*='statute/#']")
    hrefs = [str(h) for h in links.evaluate_all("(links) => links.map((a) => a.href)")]
    chosen = pick_citations(hrefs, count)
    if len(chosen) < count:
        raise CheckFailed(
            f"only {len(chosen)} distinct citation anchors on {example} (wanted {count})"
        )
    landed: list[str] = []
    failures: list[str] = []
    for index, anchor in chosen:
        try:
            box = follow_citation(page, monitor, example, links.nth(index), anchor, statute_path)
            landed.append(f"#{anchor} (top {box['top']:.0f}px)")
        except CheckFailed as failure:
            failures.append(f"#{anchor}: {failure}")
        except PlaywrightError as error:
            failures.append(f"#{anchor}: browser error: {str(error).strip().splitlines()[0]}")
    distinct = len({urlparse(h).fragment for h in hrefs})
    if failures:
        raise CheckFailed(
            f"{len(failures)} of {len(chosen)} citation links did not land "
            f"(landed: {', '.join(landed) or 'none'})",
            failures,
        )
    return [
        f"results table with {table['rows']} rows ({table['cited']} citing the statute); "
        f"{len(landed)} of {len(hrefs)} citation links ({distinct} distinct anchors) "
        f"followed and landed in view: {', '.join(landed)}"
    ]


def follow_citation(
    page: Page, monitor: Monitor, example: str, link: Locator, anchor: str, statute_path: str
) -> dict[str, Any]:
    """Clicks the citation `link` on the example page and checks that it lands on the statute
    page at `anchor`, in view; returns the landed element's position."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    goto(page, monitor, example)
    link.scroll_into_view_if_needed()
    link.click()
    try:
        page.wait_for_url(lambda url: urlparse(url).fragment == anchor)
    except PlaywrightTimeoutError:
        raise CheckFailed(f"the click led to {page.url}, not to #{anchor}") from None
    page.wait_for_load_state("load")
    monitor.current = page.url
    if urlparse(page.url).path != statute_path:
        raise CheckFailed(f"the link led to {page.url}, not the statute page")
    hash_ = page.evaluate("() => location.hash")
    if hash_ != f"#{anchor}":
        raise CheckFailed(f"location.hash is {hash_!r}, not '#{anchor}'")
    return wait_in_view(page, anchor)


def check_search(
    page: Page, monitor: Monitor, base: str, shots: Path, expect: Expect = Expect()
) -> list[str]:
    """Check 3: searching for a phrase of a clause finds the statute page, ranked first (above
    the worked examples, whose traces repeat the clause's words)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    phrase = expect.search
    goto(page, monitor, base)
    box = page.locator("input.md-search__input")
    box.click()
    # The index is built by a worker: a query typed before it is ready is never answered, so
    # wait for the panel to stop saying "Initializing search" (slow on a busy machine).
    with contextlib.suppress(PlaywrightTimeoutError):
        page.wait_for_function(
            "() => { const m = document.querySelector('.md-search-result__meta');"
            " return m && !/initiali/i.test(m.textContent); }",
            timeout=60_000,
        )
    box.press_sequentially(phrase, delay=20)  # key by key, as a reader types
    results = page.locator(".md-search-result__item")
    try:
        try:
            results.first.wait_for(state="visible")
        except PlaywrightTimeoutError:
            box.fill("")  # typed too early after all: type it again
            box.press_sequentially(phrase, delay=20)
            results.first.wait_for(state="visible")
    except PlaywrightTimeoutError:
        meta = page.locator(".md-search-result__meta").first
        said = meta.inner_text() if meta.count() else "nothing"
        page.screenshot(path=str(shots / "search.png"), full_page=True)
        raise CheckFailed(
            f"no search results for {phrase!r} (the results panel says {said!r})"
        ) from None
    page.wait_for_timeout(300)  # let the result list settle before reading it
    targets = [
        str(h)
        for h in page.locator(".md-search-result__link").evaluate_all(
            "(links) => links.map((a) => a.href)"
        )
    ]
    statute_path = urlparse(urljoin(base, expect.page("statute/"))).path
    hits = [t for t in targets if urlparse(t).path == statute_path]
    page.screenshot(path=str(shots / "search.png"), full_page=True)
    if not hits:
        raise CheckFailed(
            f"{len(targets)} results for {phrase!r}, none on the statute page: "
            + ", ".join(targets[:5])
        )
    # The statute's words rank above the worked examples, whose traces repeat them.
    pages = list(dict.fromkeys(urlparse(t).path for t in targets))
    examples_path = urlparse(urljoin(base, expect.page("examples/"))).path
    examples = [p for p in pages if p.startswith(examples_path)]
    if examples and pages.index(examples[0]) < pages.index(statute_path):
        raise CheckFailed(
            f"{len(targets)} results for {phrase!r}: the example page {examples[0]} ranks above "
            f"the statute page (pages in order: {', '.join(pages[:6])})"
        )
    fragments = list(dict.fromkeys("#" + (urlparse(h).fragment or "top") for h in hits))
    anchors = ", ".join(fragments[:6]) + (", ..." if len(fragments) > 6 else "")
    return [
        f"{results.count()} results for {phrase!r}, with {len(hits)} links to the "
        f"statute page" + (f" ({anchors})" if anchors else "")
    ]


_LAYOUT_JS = """
() => {
  const identifier = /^[A-Za-z_][A-Za-z0-9_-]*[A-Za-z0-9_]$/;
  const hash = /^[0-9a-f]{40,}$/;  // a commit or SHA-256: not a word, free to wrap
  const broken = (element) => element.getClientRects().length > 1;
  const cut = [];
  const blocks = [...document.querySelectorAll("article pre")];
  for (const pre of blocks) {
    const code = pre.querySelector("code") || pre;
    for (const box of [pre, code]) {
      if (box.scrollWidth > box.clientWidth) {
        let title = "";
        for (let node = pre; node && !title; node = node.parentElement) {
          for (let before = node.previousElementSibling; before && !title;
               before = before.previousElementSibling) {
            if (/^H[1-6]$/.test(before.tagName)) title = before.id;
          }
        }
        cut.push(`#${title || "?"}: ${code.textContent.trim().split("\\n")[0].slice(0, 60)}` +
                 ` (scrollWidth ${box.scrollWidth} > clientWidth ${box.clientWidth})`);
        break;
      }
    }
  }
  const split = [];
  const tokens = [...document.querySelectorAll("article pre code span, article :not(pre) > code")];
  for (const token of tokens) {
    const text = token.textContent;
    if (identifier.test(text) && !hash.test(text) && token.children.length === 0 &&
        broken(token)) {
      split.push(text);
    }
  }
  const page = document.documentElement;
  return {blocks: blocks.length, tokens: tokens.length, cut, split,
          pageWidth: page.scrollWidth, viewport: page.clientWidth};
}
"""

_MATRIX_JS = """
() => {
  const heading = document.getElementById("clause-by-clause");
  if (!heading) return null;
  let table = null;
  for (let node = heading.nextElementSibling; node && !table; node = node.nextElementSibling) {
    table = node.tagName === "TABLE" ? node : node.querySelector("table");
  }
  if (!table) return null;
  const width = document.documentElement.clientWidth;
  const problems = [];
  for (let box = table; box && box.tagName !== "ARTICLE"; box = box.parentElement) {
    const clips = getComputedStyle(box).overflowX !== "visible";
    if (clips && box.scrollWidth > box.clientWidth) {
      problems.push(`${box.tagName.toLowerCase()}.${box.className || "-"} scrolls sideways ` +
                    `(scrollWidth ${box.scrollWidth} > clientWidth ${box.clientWidth})`);
    }
  }
  const rows = [...table.querySelectorAll("tbody tr")];
  let cells = 0;
  for (const row of rows) {
    for (const cell of row.querySelectorAll("td")) {
      cells += 1;
      const box = cell.getBoundingClientRect();
      if (box.left < -1 || box.right > width + 1) {
        problems.push(`the ${cells}th cell (${cell.textContent.trim().slice(0, 30)}) spans ` +
                      `${Math.round(box.left)}..${Math.round(box.right)} px of ${width}`);
      }
    }
  }
  const page = document.documentElement;
  if (page.scrollWidth > page.clientWidth) {
    problems.push(`the page scrolls sideways (${page.scrollWidth} > ${page.clientWidth} px)`);
  }
  return {rows: rows.length, cells, problems};
}
"""

_REGISTER_JS = """
(lead) => {
  const entries = [];
  for (const heading of document.querySelectorAll("article h2[id]")) {
    for (let node = heading.nextElementSibling; node; node = node.nextElementSibling) {
      if (/^H[1-6]$/.test(node.tagName)) break;
      if (node.tagName === "P" && node.textContent.trim().startsWith(lead)) {
        const links = [...node.querySelectorAll("a[href*='examples/']")].map((a) => a.href);
        entries.push({id: heading.id, links});
        break;
      }
    }
  }
  return entries;
}
"""

_PROVENANCE_JS = """
() => {
  const footer = document.getElementById("lextrace-provenance");
  const section = document.getElementById("provenance");
  let table = "";
  for (let node = section && section.nextElementSibling; node; node = node.nextElementSibling) {
    if (/^H[1-6]$/.test(node.tagName)) break;
    table += " " + node.textContent;
  }
  return {footer: footer ? footer.textContent.replace(/\\s+/g, " ").trim() : null,
          inFooter: footer ? !!footer.closest("footer") : false,
          section: section ? table : null};
}
"""

PROVENANCE_PARTS = {
    "build time": r"built \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ",
    "commit": r"commit [0-9a-f]{12} \([0-9a-f]{40}\)|not a git checkout",
    "lextrace version": r"lextrace \S+",
    "Z3 version": r"Z3 \d+\.\d+",
    "Python version": r"Python \d+\.\d+",
}
SHA256 = r"\b[0-9a-f]{64}\b"


def check_layout(
    browser: Browser, monitor: Monitor, base: str, shots: Path, expect: Expect = Expect()
) -> list[str]:
    """Check 4: at a desktop and a phone width, the statute's code blocks wrap (none is cut),
    no identifier breaks across lines, and the page does not scroll sideways."""
    found: list[str] = []
    problems: list[str] = []
    for width, height in (DESKTOP, PHONE):
        context = new_context(browser, monitor, (width, height))
        try:
            page = open_page(context, monitor)
            goto(page, monitor, urljoin(base, expect.page(f"statute/#{expect.anchor}")))
            layout = page.evaluate(_LAYOUT_JS)
            if width == PHONE[0]:
                wait_in_view(page, expect.anchor)
                page.screenshot(path=str(shots / "statute-phone.png"))
        finally:
            context.close()
        if layout["blocks"] == 0:
            problems.append(f"at {width} px: no code block on the statute page")
        problems += [f"at {width} px: code block cut: {where}" for where in layout["cut"]]
        if layout["split"]:
            shown = ", ".join(sorted(set(layout["split"]))[:8])
            problems.append(
                f"at {width} px: {len(layout['split'])} identifiers broken across lines: {shown}"
            )
        if layout["pageWidth"] > layout["viewport"]:
            problems.append(
                f"at {width} px: the statute page scrolls sideways "
                f"({layout['pageWidth']} > {layout['viewport']} px)"
            )
        found.append(
            f"{layout['blocks']} code blocks and {layout['tokens']} tokens checked at {width} px"
        )
    if problems:
        raise CheckFailed(f"{len(problems)} layout problems on the statute page", problems)
    return ["no code block cut, no identifier broken, no sideways scroll: " + "; ".join(found)]


def check_matrix(
    browser: Browser, monitor: Monitor, base: str, shots: Path, expect: Expect = Expect()
) -> list[str]:
    """Check 5: at a phone's width (and at a desktop's) the traceability matrix is cut
    nowhere."""
    problems: list[str] = []
    found: list[str] = []
    for width, height in (PHONE, DESKTOP):
        context = new_context(browser, monitor, (width, height))
        try:
            page = open_page(context, monitor)
            goto(page, monitor, urljoin(base, expect.page("matrix/")))
            matrix = page.evaluate(_MATRIX_JS)
            if width == PHONE[0]:
                page.screenshot(path=str(shots / "matrix-phone.png"), full_page=True)
        finally:
            context.close()
        if matrix is None:
            raise CheckFailed("the matrix page has no table after h2#clause-by-clause")
        if matrix["rows"] == 0:
            raise CheckFailed("the matrix's table has no rows")
        problems += [f"at {width} px: {problem}" for problem in matrix["problems"][:10]]
        found.append(f"{width} px")
    if problems:
        raise CheckFailed(f"the matrix is cut: {len(problems)} problems", problems)
    return [
        f"{matrix['rows']} rows, {matrix['cells']} cells, all within the viewport at "
        + " and ".join(found)
    ]


def check_register(
    page: Page, monitor: Monitor, base: str, shots: Path, expect: Expect = Expect()
) -> list[str]:
    """Check 6: a register entry lists the examples resting on its reading, and the first one
    listed cites the reading (for an encoding of no reading: the register renders)."""
    register = urljoin(base, expect.page("readings/"))
    goto(page, monitor, register)
    if not expect.readings:
        if page.locator("article h1").count() == 0:
            raise CheckFailed(f"{register} has no h1")
        page.screenshot(path=str(shots / "register.png"))
        return ["the register renders (the encoding names no reading)"]
    entries = page.evaluate(_REGISTER_JS, REGISTER_LEAD)
    if not entries:
        raise CheckFailed(f"no register entry has a paragraph {REGISTER_LEAD!r}")
    listing = [e for e in entries if e["links"]]
    if not listing:
        raise CheckFailed(f"none of the {len(entries)} register entries lists a worked example")
    entry = listing[0]
    page.evaluate("(id) => document.getElementById(id).scrollIntoView()", entry["id"])
    page.screenshot(path=str(shots / "register.png"))
    goto(page, monitor, entry["links"][0])
    if page.locator("article h1").count() == 0:
        raise CheckFailed(f"{entry['links'][0]} (listed under #{entry['id']}) has no h1")
    cites = page.locator(f"article a[href$='readings/#{entry['id']}']").count()
    if not cites:
        raise CheckFailed(
            f"{entry['links'][0]}, listed under #{entry['id']}, does not cite that reading"
        )
    return [
        f"{len(listing)} of {len(entries)} entries list examples; #{entry['id']} lists "
        f"{len(entry['links'])}, the first of which cites it"
    ]


def check_provenance(page: Page, monitor: Monitor, base: str, pages: list[str]) -> list[str]:
    """Check 7: every page checked carries the same provenance footer, complete, and the home
    page its Provenance section."""
    problems: list[str] = []
    footers: dict[str, str] = {}
    home_section: str | None = None
    for path in pages:
        url = urljoin(base, path)
        goto(page, monitor, url)
        found = page.evaluate(_PROVENANCE_JS)
        if path == "":
            home_section = found["section"]
        footer = found["footer"]
        if footer is None or not found["inFooter"]:
            problems.append(f"/{path}: no provenance in the page's footer")
            continue
        footers[path] = footer
        missing = [
            name for name, pattern in PROVENANCE_PARTS.items() if not re.search(pattern, footer)
        ]
        if len(re.findall(SHA256, footer)) < 2:
            missing.append("the two SHA-256 hashes")
        if missing:
            problems.append(f"/{path}: the footer lacks {', '.join(missing)}: {footer!r}")
    if len(set(footers.values())) > 1:
        problems.append(
            "the footers differ between pages: " + "; ".join(sorted(set(footers.values())))
        )
    hashes = re.findall(SHA256, next(iter(footers.values()), ""))
    if home_section is None:
        problems.append("the home page has no section #provenance")
    elif hashes and hashes[0] not in home_section:
        problems.append("the home page's Provenance section lacks the footer's encoding hash")
    if problems:
        raise CheckFailed(f"{len(problems)} provenance problems", problems)
    return [f"the same complete footer on {len(footers)} pages: {next(iter(footers.values()))}"]


def check_console(monitor: Monitor) -> list[str]:
    """Check 8: no console errors, page errors or failed local requests on the pages visited."""
    kinds = {
        "page error": monitor.page_errors,
        "console error": monitor.console_errors,
        "failed local request": monitor.failed_local,
    }
    if any(kinds.values()):
        counts = ", ".join(f"{len(found)} {kind}s" for kind, found in kinds.items())
        lines: list[str] = []
        for kind, found in kinds.items():
            seen: dict[str, set[str]] = {}
            for where, message in found:
                seen.setdefault(message, set()).add(where)
            for message, pages in seen.items():
                lines.append(f"{kind} on {len(pages)} page(s), e.g. {min(pages)}: {message}")
        more = [f"... and {len(lines) - 10} more"] if len(lines) > 10 else []
        raise CheckFailed(f"problems on the pages visited: {counts}", lines[:10] + more)
    hosts = sorted({urlparse(url).hostname or url for url in monitor.blocked})
    blocked = (
        f" ({len(monitor.blocked)} requests to {', '.join(hosts)} blocked, "
        f"{len(monitor.ignored)} console errors about them ignored)"
        if hosts
        else ""
    )
    return ["no console errors, page errors or failed local requests" + blocked]


def run_checks(
    site_dir: Path,
    shots: Path,
    chromium: str,
    citations: int,
    report: Callable[[CheckResult], None] = lambda result: None,
    expect: Expect = Expect(),
) -> list[CheckResult]:
    """Serves `site_dir`, opens it in Chromium and runs the checks, passing each result
    to `report` as soon as it is known."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        raise UsageError(
            "the playwright package is not installed (pip install 'lextrace[browser]')"
        ) from None
    monitor = Monitor()
    results: list[CheckResult] = []
    with serve(site_dir) as base, sync_playwright() as playwright:
        browser = launch_browser(playwright, chromium)
        try:
            context = new_context(browser, monitor)
            page = open_page(context, monitor)
            checks: list[tuple[str, Callable[[], list[str]]]] = [
                ("statute", lambda: check_statute(page, monitor, base, shots, expect)),
                (
                    "citations",
                    lambda: check_citations(page, monitor, base, shots, citations, expect),
                ),
                ("search", lambda: check_search(page, monitor, base, shots, expect)),
                ("layout", lambda: check_layout(browser, monitor, base, shots, expect)),
                ("matrix", lambda: check_matrix(browser, monitor, base, shots, expect)),
                ("register", lambda: check_register(page, monitor, base, shots, expect)),
                (
                    "provenance",
                    lambda: check_provenance(
                        page, monitor, base, expect.provenance_pages(site_dir)
                    ),
                ),
                ("console", lambda: check_console(monitor)),
            ]
            for name, body in checks:
                results.append(run_check(name, body))
                report(results[-1])
            context.close()
        finally:
            browser.close()
    return results


def print_result(result: CheckResult) -> None:
    """Prints the PASS/FAIL line of `result`, then its further details, indented."""
    print(result.line(), flush=True)
    for detail in result.details[1:]:
        print(f"    {detail}", flush=True)


def main(argv: list[str] | None = None) -> int:
    """Runs the command; returns the exit status (0 all pass, 1 a failure, 2 a usage error)."""
    args = parse_args(argv)
    started = time.monotonic()
    site_dir: Path = args.site_dir
    shots: Path = args.screenshots
    results: list[CheckResult] = []
    try:
        if args.build:
            results.append(build_site(site_dir, args.config_file))
            print_result(results[-1])
            if not results[-1].passed:
                return 1
        if not (site_dir / "index.html").is_file():
            raise UsageError(f"no built site at {site_dir} (build it, or pass --build)")
        shots.mkdir(parents=True, exist_ok=True)
        expect = Expect(
            args.section,
            args.h1,
            args.anchor,
            args.anchor_words,
            args.min_clauses,
            args.search,
            args.example,
            args.readings,
        )
        results += run_checks(site_dir, shots, args.chromium, args.citations, print_result, expect)
    except UsageError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    failed = [r.name for r in results if not r.passed]
    total = time.monotonic() - started
    if failed:
        print(f"FAILED: {', '.join(failed)} ({total:.1f}s); screenshots in {shots}")
        return 1
    print(f"all {len(results)} checks passed ({total:.1f}s); screenshots in {shots}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
