"""The published site: generated from the encoding, complete, and built strictly by MkDocs."""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import EXAMPLES, ROOT

from lextrace import Statute, load_statute
from lextrace.dsl.coverage import coverage
from lextrace.site import (
    example_pages,
    matrix_page,
    project,
    provenance,
    readings_page,
    statute_page,
)
from lextrace.site.build import fill_placeholders, readme_commands
from lextrace.site.context import Site
from lextrace.statute import BUNDLED, OFFICIAL


@pytest.fixture(scope="module")
def site(statute: Statute) -> Site:
    return project.default_site(ROOT, statute)


def test_every_clause_has_its_anchored_heading_and_words(site: Site) -> None:
    page = statute_page.page(site)
    anchors = re.findall(r"^#+ .* \{ #([a-z0-9-]+) \}$", page, flags=re.M)
    assert anchors == [clause.anchor for clause in site.ast.clauses]
    assert "c-1-j" in anchors
    for clause in site.ast.clauses:
        for piece in clause.texts:
            assert " ".join(piece.text.split())[:40] in page.replace("\\", "")


def test_the_matrix_accounts_for_every_clause(site: Site) -> None:
    page = matrix_page.page(site)
    every = coverage(site.ast)
    assert f"All {len(every)} clauses are accounted for." in page
    rows = re.findall(
        r'^<tr markdown><td data-label="clause" markdown="span">\[(\([^]]*\))\]\(statute\.md#',
        page,
        flags=re.M,
    )
    assert rows == [item.clause.short_citation for item in every]
    total = re.search(r"\| \*\*all\*\* \| (\d+) \|", page)
    assert total is not None and int(total.group(1)) == len(every)
    assert "unaccounted" not in page


def test_the_matrix_lists_tests_and_examples_per_clause(site: Site) -> None:
    page = matrix_page.page(site)
    row = next(line for line in page.splitlines() if 'markdown="span">[(c)(1)(j)]' in line)
    cells = dict(re.findall(r'<td data-label="([^"]+)" markdown="span">(.*?)</td>', row))
    assert "`labor_harmony_bonus`" in cells["rules and cases"]
    assert "`cap_allowance`" in cells["rules and cases"]
    assert (
        "[labor-harmony-business-wide](examples/labor-harmony-business-wide.md)"
        in (cells["examples"])
    )
    assert int(cells["tests"]) > 0
    assert "`test_reading_option_changes_the_result_and_is_named` (test_cli.py)" in page


def test_the_matrix_lists_exceptions_totals_their_readings_and_the_limits_of_the_words(
    site: Site,
) -> None:
    page = matrix_page.page(site)

    def cells(citation: str) -> dict[str, str]:
        row = next(line for line in page.splitlines() if f'markdown="span">[{citation}]' in line)
        return dict(re.findall(r'<td data-label="([^"]+)" markdown="span">(.*?)</td>', row))

    assert "`board_limit`" in cells("(g)")["rules and cases"] and "I18" in cells("(g)")["readings"]
    assert "`wage_floor_withholds_bonuses`" in cells("(c)(2)")["rules and cases"]
    assert "`eligibility_period_total`" in cells("(a)")["rules and cases"]
    assert "I23" in cells("(a)")["readings"]
    assert "I4" in cells("(c)(1)(c)(i)")["readings"]  # its cases' declaration's reading
    assert cells("(c)(1)(r)")["status"].startswith("encoded; with a text only passage: ")
    proved = cells("(d)(1)")["invariants and monotone properties"]
    assert "within the words: $8,000" in proved and "(from the words)" in proved


def test_the_register_says_which_examples_depend_on_a_reading(site: Site) -> None:
    page = readings_page.page(site)
    i8 = page.split("{ #i8 }")[1].split("{ #i9 }")[0]
    assert "[Labor harmony business wide](examples/labor-harmony-business-wide.md)" in i8
    assert "`business-wide`" in i8
    assert "[(c)(1)(j)](statute.md#c-1-j)" in i8


def test_the_register_lists_the_examples_whose_trace_rests_on_each_reading(site: Site) -> None:
    page = readings_page.page(site)
    used_by: dict[str, set[str]] = {}
    for example in site.examples:
        output = example.result.to_dict()
        # A scenario of periods has a trace for each period.
        traces = [output["trace"]] if "trace" in output else [y["trace"] for y in output["years"]]
        for trace in traces:
            for step in trace:
                for reading in step.get("readings", []):
                    used_by.setdefault(reading, set()).add(example.title)
    listed_somewhere = 0
    for reading in site.ast.readings:
        section = page.split(f"{{ #{reading.lower()} }}")[1].split("\n## ")[0]
        line = next(x for x in section.splitlines() if x.startswith("Worked examples whose"))
        listed = set(re.findall(r"\[([^]]+)\]\(examples/", line))
        assert listed == used_by.get(reading, set()), reading
        assert (": none." in line) == (not listed)
        listed_somewhere += bool(listed)
    # Most readings are written on rules (never tested with `reading IX is`), yet listed; and
    # some example does not pass through every reading, so the lists are not all alike.
    assert listed_somewhere > len(site.ast.readings) // 2
    assert any(0 < len(titles) < len(site.examples) for titles in used_by.values())


def test_every_example_has_a_page_with_linked_citations(site: Site) -> None:
    stems = sorted(path.stem for path in EXAMPLES.glob("*.json"))
    stems += sorted(path.stem for path in (EXAMPLES / "eligibility-period").glob("*.json"))
    # The scenario files first, then the cases of the cases file that are not one of them:
    # a case of a file's scenario shows what it expects on that file's page.
    assert [example.stem for example in site.examples][: len(stems)] == stems
    by_stem = {example.stem: example for example in site.examples}
    assert by_stem["distressed-manufacturer"].expected is not None
    # Its page says both where its scenario is and which case it is, by name.
    said = example_pages.origin(site, by_stem["distressed-manufacturer"])
    assert "Scenario file `examples/distressed-manufacturer.json`" in said, said
    assert re.search(
        r"It is case “[^”]+” of the cases file `statute/nj-34-1b-343.cases.yaml`", said
    )
    assert "labor-harmony-business-wide-under-i8-covered-jobs" in by_stem
    assert not any(stem.endswith("-2") for stem in by_stem)
    page = example_pages.example_page(site, site.examples[0])
    assert "](../statute.md#" in page
    assert "## How each result is reached" in page and "## The whole trace" in page
    # The facts left out that the results read are shown with the value each took: the
    # eligibility period's 7 years, which the period's total is multiplied by.
    distressed = next(e for e in site.examples if e.stem == "distressed-manufacturer")
    page = example_pages.example_page(site, distressed)
    assert "eligibility_period_years" not in distressed.scenario
    assert "| `eligibility_period_years` | 7 | declared default |" in page


def test_an_amount_of_zero_is_not_said_to_be_stated(site: Site) -> None:
    # Below the wage floor, (c)(2)'s exception gives the bonuses $0: no words state $0.
    example = next(e for e in site.examples if e.stem == "corridor-warehouse-below-wage-floor")
    page = example_pages.example_page(site, example)
    assert "the amount stated, $0.00" not in page
    assert "the amount stated, $4,000.00" in page  # (d)(4)'s cap, which the words state


def test_what_a_case_expects_is_shown_as_computed_values_are(site: Site) -> None:
    for stem, row in (
        ("distressed-manufacturer", "| `per_job_new` | $4,250.00 | $4,250.00 |"),
        # A case of periods names each period's result and the totals.
        ("minimum-wage-withdraws-bonuses", "| `annual_credit[2025]` | $30,000.00 | $30,000.00 |"),
    ):
        example = next(e for e in site.examples if e.stem == stem)
        assert example.expected is not None, stem
        assert row in example_pages.example_page(site, example), stem


def test_guides_get_the_readme_commands_and_the_grammar() -> None:
    filled = fill_placeholders("<!-- lextrace:readme-commands -->", ROOT)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for line in filled.splitlines():
        if line.startswith("python3 -m venv"):
            assert line in readme
    assert filled.count("python3 -m venv") == 2 == readme_commands(ROOT).count("python3 -m venv")
    grammar = fill_placeholders("<!-- lextrace:grammar -->", ROOT)
    assert "start:" in grammar or "statute" in grammar


def test_what_a_placeholder_shows_in_the_markdown_itself_is_replaced_in_the_site() -> None:
    # Each guide says, where the site puts a generated part, what a reader of its Markdown
    # finds instead; the site shows the generated part alone.
    for page in ("quickstart.md", "cli.md", "language.md", "index.md"):
        markdown = (ROOT / "docs" / page).read_text(encoding="utf-8")
        opened = re.findall(r"<!-- lextrace:([\w-]+) -->\n\*", markdown)
        assert opened and all(f"<!-- /lextrace:{name} -->" in markdown for name in opened), page
    filled = fill_placeholders(
        "before\n<!-- lextrace:readme-commands -->\n*see the README*\n"
        "<!-- /lextrace:readme-commands -->\nafter",
        ROOT,
    )
    assert "see the README" not in filled and "lextrace:" not in filled
    assert filled.startswith("before\n") and filled.endswith("\nafter")
    assert filled.count("python3 -m venv") == 2


def test_provenance_names_the_commit_the_sources_hashes_and_the_tools(
    site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    found = provenance.collect(ROOT, site.ast)
    assert found.built == "2023-11-14T22:13:20Z"
    head = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert found.commit.full == head and found.commit.short == head[:12]
    assert found.encoding_sha256 == hashlib.sha256(BUNDLED.read_bytes()).hexdigest()
    assert found.official_sha256 == hashlib.sha256(OFFICIAL.read_bytes()).hexdigest()
    assert found.encoding_sha256 != found.official_sha256
    assert [name for name, _ in found.versions][:3] == ["lextrace", "Z3", "Python"]
    footer = provenance.footer_html(found)
    for part in [found.built, head, head[:12], found.encoding_sha256, found.official_sha256]:
        assert part in footer
    assert f"Python {sys.version.split()[0]}" in footer
    for page in (statute_page.page(site), fill_placeholders("<!-- lextrace:provenance -->", ROOT)):
        assert f"`{head}`" in page and found.encoding_sha256 in page


def test_provenance_without_git_or_outside_a_checkout_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outside = provenance.commit_of(tmp_path)
    assert outside.full is None and outside.short == "not a git checkout"
    assert "not a git checkout" in provenance.section(
        provenance.Provenance("t", outside, "e", "0" * 64, "o", "1" * 64, ())
    )
    monkeypatch.setenv("PATH", str(tmp_path))  # no git to run at all
    assert provenance.commit_of(ROOT).full is None


def test_provenance_marks_a_dirty_working_tree(tmp_path: Path) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(tmp_path), *args], check=True, capture_output=True)

    git("init", "-q")
    (tmp_path / "a.txt").write_text("one\n", encoding="utf-8")
    git("add", "a.txt")
    git("-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-qm", "one")
    assert provenance.commit_of(tmp_path).dirty is False
    (tmp_path / "a.txt").write_text("two\n", encoding="utf-8")
    changed = provenance.commit_of(tmp_path)
    assert changed.full is not None and changed.dirty is True
    assert "dirty" in provenance.footer_html(
        provenance.Provenance("t", changed, "e", "0" * 64, "o", "1" * 64, ())
    )


def test_a_bad_source_date_epoch_is_refused_with_its_value() -> None:
    assert provenance.build_time({"SOURCE_DATE_EPOCH": "0"}) == "1970-01-01T00:00:00Z"
    with pytest.raises(provenance.ProvenanceError, match="'yesterday'"):
        provenance.build_time({"SOURCE_DATE_EPOCH": "yesterday"})


def test_stacked_table_labels_every_cell_with_its_column() -> None:
    from lextrace.site.markdown import stacked_table

    html = stacked_table(["clause", "rules"], [["[(a)](statute.md#a)", "`x`,\n`y`"]])
    assert '<td data-label="clause" markdown="span">[(a)](statute.md#a)</td>' in html
    assert '<td data-label="rules" markdown="span">`x`, `y`</td>' in html
    assert html.startswith('<div class="stacked-table" markdown>')


def _variant(tmp_path: Path, source: str, edits: list[tuple[str, str]]) -> Path:
    official = OFFICIAL.read_text(encoding="utf-8")
    for old, new in edits:
        assert old in source
        source = source.replace(old, new)
        official = official.replace(" ".join(old.split()), " ".join(new.split()))
    encoding = tmp_path / "variant.lex"
    encoding.write_text(source, encoding="utf-8")
    (tmp_path / OFFICIAL.name).write_text(official, encoding="utf-8")
    return encoding


def test_changing_an_amount_in_the_encoding_changes_the_pages(
    tmp_path: Path, site: Site, encoding_source: str
) -> None:
    edits = [
        ("distressed municipality, $3,000 per", "distressed municipality, $3,300 per"),
        (
            "case base_amount = $3,000 when area_tier = b3;",
            "case base_amount = $3,300 when area_tier = b3;",
        ),
        (
            "full-time job shall not exceed $5,000 per year;",
            "full-time job shall not exceed $5,500 per year;",
        ),
        ("case gross_cap = $5,000 when", "case gross_cap = $5,500 when"),
        ("bonus rule small_business_bonus: money =", "bonus rule small_firm_bonus: money ="),
        ("implies small_business_bonus = $500;", "implies small_firm_bonus = $500;"),
        ("implies small_business_bonus = $0;", "implies small_firm_bonus = $0;"),
        ("implies base_amount >= $3,000", "implies base_amount >= $3,300"),
    ]
    changed = project.default_site(ROOT, load_statute(_variant(tmp_path, encoding_source, edits)))
    assert "$3,300 per year" in statute_page.page(changed)
    assert "$3,300 per year" not in statute_page.page(site)
    example = next(e for e in changed.examples if e.stem == "distressed-manufacturer")
    before = next(e for e in site.examples if e.stem == "distressed-manufacturer")
    page = example_pages.example_page(changed, example)
    assert "**base amount** is $3,300.00" in page
    assert "min($3,300.00 + $2,000.00, $5,500.00 + $0.00)" in page
    assert page != example_pages.example_page(site, before)
    assert any(
        new.result.values != old.result.values
        for new, old in zip(changed.examples, site.examples, strict=True)
    )
    matrix = matrix_page.page(changed)
    assert "`small_firm_bonus`" in matrix and "`small_business_bonus`" not in matrix


def test_mkdocs_builds_the_whole_site_strictly(project_site: Path) -> None:
    out = project_site
    encoding_hash = hashlib.sha256(BUNDLED.read_bytes()).hexdigest()
    pages = list(out.rglob("index.html"))
    assert len(pages) > 20
    for built in pages:
        html = built.read_text(encoding="utf-8")
        footer = html.split('<footer class="md-footer">', 1)[1]
        assert 'id="lextrace-provenance"' in footer, built
        assert "2023-11-14T22:13:20Z" in footer and encoding_hash in footer, built
    statute_html = (out / "statute" / "index.html").read_text(encoding="utf-8")
    assert 'id="c-1-j"' in statute_html
    assert 'class="language-lextrace highlight"' in statute_html or "highlight" in statute_html
    for page in ("matrix", "readings", "proof-report", "quickstart", "cli", "api", "language"):
        assert (out / page / "index.html").is_file(), page
    for example in EXAMPLES.glob("*.json"):
        assert (out / "examples" / example.stem / "index.html").is_file()
    proof = (out / "proof-report" / "index.html").read_text(encoding="utf-8")
    # Four checks rest on the payroll's list: BOUNDED, said so in the verdict and on their rows.
    assert "every check PROVED, or BOUNDED (proved for short lists only)" in proof
    assert "proved for lists of up to 4 elements only" in proof
    amendment = (out / "amendments" / "uncapped-port-bonus" / "index.html").read_text("utf-8")
    assert "VIOLATED" in amendment and "Counterexample" in amendment
    assert not list(ROOT.joinpath("docs").glob("statute.md")), "generated pages stay out of docs/"


def test_a_proof_report_with_bounded_checks_says_so_in_its_verdict_and_rows() -> None:
    from lextrace.dsl.loader import load
    from lextrace.site.proof_page import checks_table, summary
    from lextrace.verify.report import run as run_checks

    report = run_checks(load(ROOT / "tests" / "other_statutes" / "payroll.lex"), 20.0, 120.0)
    assert report.ok and {o.status for o in report.outcomes} == {"BOUNDED"}
    assert "every check PROVED, or BOUNDED (proved for short lists only)" in summary(report)
    rows = checks_table(report, lambda clause: "#").splitlines()[2:]
    assert rows and all("proved for lists of up to 4 elements only" in row for row in rows)
