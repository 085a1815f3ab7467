"""Obligations read from the words: the limits a clause's words set on its bonuses, proved by
`lextrace verify` without an invariant written by hand (dsl/obligations.py)."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import lextrace_command, write_variant

from lextrace import load_statute
from lextrace.dsl.obligations import cap_obligations, limit_obligations
from lextrace.dsl.scenario import validate
from lextrace.verify.checks import PROVED, VIOLATED, Verifier

UNLESS = (
    "investment_bonus within the words: $1,500 unless government_restricted_municipality "
    "or mega_project"
)


def prove(path: Path | None, name: str) -> str:
    """Returns the status of one check of an encoding."""
    statute = load_statute(path).ast
    verifier = Verifier(statute, timeout_seconds=10)
    check = next(c for c in verifier.checks() if c.name.startswith(name))
    return verifier.prove(check, lambda s: validate(statute, s)).status


def test_the_words_of_c_1_b_give_a_limit_lifted_by_the_facts_they_name() -> None:
    statute = load_statute().ast
    obligations = {o.name: o for o in limit_obligations(statute)}
    # "(c)(1)(b) ... with a maximum increase of $1,500 per year, unless the project qualifies as
    # a mega project or the qualified business facility is located in a government-restricted
    # municipality, in which case the maximum increase is $5,000 per year"
    assert UNLESS in obligations
    obligation = obligations[UNLESS]
    assert obligation.formula == (
        "not (government_restricted_municipality or mega_project) implies "
        "investment_bonus <= $1,500"
    )
    assert obligation.from_words is not None
    assert obligation.from_words.startswith("maximum increase of $1,500 per year, unless")
    assert statute.citation(obligation.clause).endswith("(c)(1)(b)")
    # "$5,000" is the clause's highest amount: the bonus check proves it already.
    assert not any(name.endswith("$5,000") for name in obligations)
    # "(c)(1)(j) ... by an amount not to exceed $1,000" limits the allowance, not the bonus.
    assert not any(name.startswith("labor_harmony_bonus") for name in obligations)


def test_the_bundled_statute_keeps_its_words_limits() -> None:
    assert prove(None, UNLESS) == PROVED


def test_an_encoding_that_breaks_a_words_limit_is_refuted_with_a_counterexample(
    tmp_path: Path, encoding_source: str
) -> None:
    # The maximum of the words swapped: $5,000 for everyone else, $1,500 for a mega project.
    variant = write_variant(
        tmp_path,
        encoding_source,
        "if mega_project or government_restricted_municipality then $5,000 else $1,500",
        "if mega_project or government_restricted_municipality then $1,500 else $5,000",
    )
    assert prove(variant, UNLESS) == VIOLATED
    folder = tmp_path / "counterexamples"
    result = lextrace_command(
        "verify", "--encoding", str(variant), "--counterexamples", str(folder), "--format", "json"
    )
    assert result.returncode == 1
    written = [p for p in folder.glob("*.json") if p.name.startswith("investment_bonus-within")]
    assert len(written) == 1
    scenario = json.loads(written[0].read_text(encoding="utf-8"))
    violates = scenario["lextrace"]["violates"]
    assert violates["text"] == (
        "not (government_restricted_municipality or mega_project) implies "
        "investment_bonus <= $1,500"
    )
    assert scenario["government_restricted_municipality"] is False
    assert scenario["mega_project"] is False
    explained = lextrace_command("explain", str(written[0]), "--encoding", str(variant))
    assert explained.returncode == 0, explained.stderr
    # The terms of the obligation, each by its own name (no source holds the formula).
    assert "government_restricted_municipality  = no" in explained.stdout
    assert "mega_project                        = no" in explained.stdout
    assert "investment_bonus                    = $5,000.00" in explained.stdout
    assert "VIOLATED: the evaluator finds the property false here" in explained.stdout


def test_a_condition_that_names_no_fact_makes_no_obligation(
    tmp_path: Path, encoding_source: str
) -> None:
    # Rename the inputs the `unless` part names and drop their phrases: the words no longer
    # name any fact, so no obligation stronger than the words is made from that limit.
    renamed = (
        encoding_source.replace("mega_project", "tier_one")
        .replace("government_restricted_municipality", "restricted_place")
        .replace('  named "mega project"\n', "")
        .replace('  named "government-restricted municipality"\n', "")
    )
    assert 'tier_one: bool = false\n  "' in renamed
    names = (
        o.name
        for o in limit_obligations(
            load_statute(write_variant(tmp_path, renamed, "statute ", "statute ")).ast
        )
    )
    assert list(names) == []
    # With a phrase alone (the input's name read as words says nothing), the fact is read.
    phrased = renamed.replace(
        "tier_one: bool = false\n", 'tier_one: bool = false\n  named "mega project"\n'
    )
    variant = write_variant(tmp_path, phrased, "statute ", "statute ")
    assert [o.formula for o in limit_obligations(load_statute(variant).ast)] == [
        "not (tier_one) implies investment_bonus <= $1,500"
    ]


def test_the_words_of_d_give_each_areas_limit_raised_by_the_allowance_of_c_1_j() -> None:
    statute = load_statute().ast
    found = {statute.citation(o.clause)[-6:]: o for o in cap_obligations(statute)}
    # "(d)(1) for a mega project or a project in a government-restricted municipality, the
    # gross amount for each new or retained full-time job shall not exceed $8,000 per year",
    # lifted by "(c)(1)(j) ... may exceed the limitation ... pursuant to subsection d. ... by
    # an amount not to exceed $1,000".
    assert sorted(found) == ["(d)(1)", "(d)(2)", "(d)(3)", "(d)(4)", "(d)(5)"]
    assert found["(d)(1)"].formula == (
        "area_tier = b1 implies gross_amount(covered: covered) <= "
        "$8,000 + cap_allowance(covered: covered)"
    )
    assert found["(d)(5)"].formula is not None and "<= $3,000 + cap_allowance" in (
        found["(d)(5)"].formula
    )
    assert [p.name for p in found["(d)(3)"].params] == ["covered"]
    assert "shall not exceed $5,000" in (found["(d)(3)"].from_words or "")
    assert "subsection d." in found["(d)(3)"].description
    # No hand-written copy remains in the encoding: the words are the only statement.
    assert not any(i.name.startswith("cap_b") for i in statute.invariants)


def test_a_limit_of_d_raised_in_its_case_is_refuted_from_the_words(
    tmp_path: Path, encoding_source: str
) -> None:
    variant = write_variant(
        tmp_path,
        encoding_source,
        "case gross_cap = $5,000 when area_tier = b3;",
        'case gross_cap = $5,500 when area_tier = b3 reviewed $5,500 "kept to test the proofs";',
    )
    assert prove(variant, "gross_amount within the words: $5,000 (d)(3)") == VIOLATED
