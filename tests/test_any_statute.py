"""The tools on a statute that is not the bundled one: no money result at all, but a number, a
count, a yes/no and an enum (tests/other_statutes/ratio.lex)."""

from __future__ import annotations

import csv
import json
from fractions import Fraction
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from lextrace import load_statute
from lextrace.cli import main
from lextrace.impact import impact, render_markdown, render_text, to_json

HERE = Path(__file__).resolve().parent / "other_statutes"
RATIO = HERE / "ratio.lex"
AMENDED = HERE / "ratio-amended.lex"
SCENARIOS = [{"part": part, "whole": whole} for part in range(0, 7) for whole in range(1, 6)]


@pytest.fixture
def population(tmp_path: Path) -> Path:
    """The scenarios as JSON Lines, with a bad line among them."""
    path = tmp_path / "population.jsonl"
    lines = [json.dumps(s) for s in SCENARIOS]
    lines.insert(3, json.dumps({"part": 1, "whole": 0}))  # whole is at least 1
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def expected_rows() -> list[dict[str, object]]:
    statute = load_statute(RATIO)
    return [statute.evaluate(s).values for s in SCENARIOS]


@pytest.mark.parametrize("suffix", ["jsonl", "csv", "parquet"])
def test_batch_writes_results_that_are_not_money_exactly_in_every_format(
    tmp_path: Path, population: Path, suffix: str
) -> None:
    output = tmp_path / f"results.{suffix}"
    assert main(["batch", str(population), "-e", str(RATIO), "-o", str(output)]) == 2  # one bad
    if suffix == "jsonl":
        rows = [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()]
        error = rows.pop(3)
        assert error["error"][0]["field"] == "whole"
    elif suffix == "csv":
        with output.open(encoding="utf-8", newline="") as handle:
            rows = list(csv.DictReader(handle))
        error = rows.pop(3)
        assert "whole" in error["error"]
        for row in rows:
            row["twice"] = int(row["twice"])
            row["exceeds"] = row["exceeds"] == "true"
    else:
        table = pq.read_table(output)
        assert [str(f.type) for f in table.schema] == [
            "string",
            "int64",
            "bool",
            "string",
            "string",
        ]
        rows = table.to_pylist()
        error = rows.pop(3)
        assert "whole" in error["error"]
    assert len(rows) == len(SCENARIOS)
    for row, values in zip(rows, expected_rows(), strict=True):
        assert Fraction(row["ratio"]) == values["ratio"]
        assert row["twice"] == values["twice"]
        assert row["exceeds"] == values["exceeds"]
        assert row["band"] == values["band"]


def test_impact_compares_every_shared_result_whatever_its_type(population: Path) -> None:
    old, new = load_statute(RATIO), load_statute(AMENDED)
    report = impact(old, new, str(population), "jsonl")
    before = [old.evaluate(s).values for s in SCENARIOS]
    after = [new.evaluate(s).values for s in SCENARIOS]
    assert report.rows == len(SCENARIOS) + 1 and report.failed == 1
    results = {r.name: r for r in report.results}
    assert {name: r.kind for name, r in results.items()} == {
        "ratio": "number",
        "twice": "count",
        "exceeds": "bool",
        "band": "enum",
    }
    for name in ("ratio", "twice", "exceeds"):
        deltas = [Fraction(a[name]) - Fraction(b[name]) for b, a in zip(before, after, strict=True)]
        assert results[name].changed == sum(d != 0 for d in deltas), name
        assert results[name].rose == sum(d > 0 for d in deltas), name
        assert results[name].fell == sum(d < 0 for d in deltas), name
        assert results[name].total_before == sum(Fraction(b[name]) for b in before), name
        assert results[name].total_after == sum(Fraction(a[name]) for a in after), name
    assert results["band"].changed == sum(
        b["band"] != a["band"] for b, a in zip(before, after, strict=True)
    )
    assert results["exceeds"].changed > 0 and results["ratio"].changed == len(SCENARIOS)
    assert report.changed == len(SCENARIOS)
    causes = {c.rule: c.scenarios for c in report.causes}
    assert causes == {"ratio": len(SCENARIOS), "exceeds": results["exceeds"].changed}
    # The headline is the last numeric result: the count, which does not move.
    assert report.headline == "twice" and report.movers == []
    data = to_json(report)
    by_name = {r["name"]: r for r in data["results"]}  # type: ignore[union-attr]
    assert by_name["ratio"]["total_before"] == str(results["ratio"].total_before)
    assert by_name["twice"]["total_before"] == results["twice"].total_before
    assert by_name["band"]["total_before"] is None
    assert "ratio" in render_text(report) and "`band`" in render_markdown(report)


def test_impact_ranks_movers_by_a_number_that_is_not_money(population: Path) -> None:
    report = impact(
        load_statute(RATIO), load_statute(AMENDED), str(population), "jsonl", headline="ratio"
    )
    # Every scenario's ratio rises by 1/whole: first the seven of whole = 1, then whole = 2.
    assert [m.change for m in report.movers] == [1] * 7 + [Fraction(1, 2)] * 3
    assert "(+1/2)" in render_text(report)


def test_impact_refuses_a_headline_that_is_not_a_number(population: Path) -> None:
    from lextrace.tables import TableError

    with pytest.raises(TableError, match="'band' is not a numeric result"):
        impact(
            load_statute(RATIO), load_statute(AMENDED), str(population), "jsonl", headline="band"
        )


# ---- labels and citations of other codes --------------------------------------------------------
FRINGE = HERE / "fringe.lex"


def test_upper_case_labels_and_a_declared_citation_style() -> None:
    statute = load_statute(FRINGE)
    result = statute.evaluate({"price": "100", "discount": "25", "services": True}, trace=True)
    assert result.values["excluded_limit"] == 20
    citations = {name: citation for name, _, citation in result.table()}
    assert citations == {
        "excluded_limit": "26 U.S.C. § 132(c)(1)(B)",
        "fully_qualified": "26 U.S.C. § 132(c)(1)",
    }
    property_case = statute.evaluate({"price": "100", "gross_profit_percentage": "0.3"})
    assert property_case.values["excluded_limit"] == 30
    clause = statute.ast.definitions["excluded_limit"].cases[0].clause  # type: ignore[union-attr]
    assert clause.anchor == "c-1-A" and clause.short_citation == "(c)(1)(A)"


LABELS_TEXT = """7. Labels.
(a) First.
(A) Upper.
(i) Roman.
(I) Upper roman.
(aa) Doubled.
(1A) Inserted.
B. Lettered.
"""
LABELS_ENCODING = """statute "Labels Act"
  official "labels.txt"
  cite "cl {section}{clauses}"

input x: count = 0 "x";
results y;

section 7. "Labels." {
  (a) "First." {
    (A) "Upper." {
      (i) "Roman." {
        (I) "Upper roman." {
          rule y: count = x;
        }
      }
    }
  }
  (aa) "Doubled." text_only "nothing to compute"
  (1A) "Inserted." text_only "nothing to compute"
  B. "Lettered." text_only "nothing to compute"
}
"""


def test_any_subdivision_scheme_nests_and_is_cited(tmp_path: Path) -> None:
    from lextrace.dsl.loader import analyse

    (tmp_path / "labels.txt").write_text(LABELS_TEXT, encoding="utf-8")
    path = tmp_path / "labels.lex"
    path.write_text(LABELS_ENCODING, encoding="utf-8")
    analysis = analyse(path)
    assert [d.message for d in analysis.errors] == []
    statute = analysis.statute
    assert statute is not None
    cited = [statute.citation(c) for c in statute.clauses]
    assert cited == [
        "cl 7",
        "cl 7(a)",
        "cl 7(a)(A)",
        "cl 7(a)(A)(i)",
        "cl 7(a)(A)(i)(I)",
        "cl 7(aa)",
        "cl 7(1A)",
        "cl 7(B)",
    ]
    assert statute.clauses[4].anchor == "a-A-i-I"


@pytest.mark.parametrize(
    ("style", "message"),
    [
        ("{statute} § {sectoin}", "the citation style names {sectoin}"),
        ("{statute}", "the citation style has no {clauses}"),
        ("{statute{clauses}", "the citation style is not a template"),
    ],
)
def test_a_bad_citation_style_is_refused_where_it_is_written(
    tmp_path: Path, style: str, message: str
) -> None:
    from lextrace.dsl.loader import analyse

    (tmp_path / "labels.txt").write_text(LABELS_TEXT, encoding="utf-8")
    path = tmp_path / "labels.lex"
    path.write_text(LABELS_ENCODING.replace("cl {section}{clauses}", style), encoding="utf-8")
    errors = analyse(path).errors
    assert [(d.line, d.column) for d in errors] == [(3, 8)]
    assert message in errors[0].message


def test_a_count_rule_that_can_go_negative_is_refuted(tmp_path: Path) -> None:
    from lextrace.verify.report import run

    (tmp_path / "ratio.txt").write_text((HERE / "ratio.txt").read_text("utf-8"), "utf-8")
    source = RATIO.read_text("utf-8").replace(
        'rule twice: count = whole * 2 reviewed 2 "twice";',
        "rule twice: count = whole - part;",
    )
    (tmp_path / "ratio.lex").write_text(source, "utf-8")
    report = run(load_statute(tmp_path / "ratio.lex").ast, 10.0, 60.0)
    outcome = next(o for o in report.outcomes if o.check.name == "count never negative: twice")
    assert outcome.status == "VIOLATED"
    scenario = outcome.counterexample[0]
    assert scenario["part"] > scenario["whole"]
    proved = run(load_statute(RATIO).ast, 10.0, 60.0)
    assert {o.check.name: o.status for o in proved.outcomes}["count never negative: twice"] == (
        "PROVED"
    )
