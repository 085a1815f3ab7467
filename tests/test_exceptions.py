"""Exceptions with explicit priorities (tests/other_statutes/allowance.lex): the language, the
checker, the evaluator and its trace in every rendering, the fast path and the columnar batch,
the proofs (conflicts, a reachable general rule, reachable exceptions), the diff, the mutants
and the cache."""

from __future__ import annotations

import itertools
import json
import marshal
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from lextrace import exits, load_statute
from lextrace.cli import main
from lextrace.dsl import cache, codegen, columnar
from lextrace.dsl.checker import check_statute
from lextrace.dsl.errors import EncodingError
from lextrace.dsl.evaluator import EvaluationError, evaluate
from lextrace.dsl.loader import load
from lextrace.dsl.prose import Narrator
from lextrace.verify.checks import ERROR, PROVED, VACUOUS, VIOLATED
from lextrace.verify.diff import rule_changes
from lextrace.verify.mutants import generate
from lextrace.verify.report import run

OTHER = Path(__file__).resolve().parent / "other_statutes"
ALLOWANCE = OTHER / "allowance.lex"
FLAGS = ("student", "veteran", "disabled", "absent", "appeal_pending")


def variant(tmp_path: Path, old: str, new: str) -> Path:
    """Returns a copy of the allowance encoding (beside its official text) with one edit."""
    source = ALLOWANCE.read_text("utf-8")
    assert old in source
    (tmp_path / "allowance.txt").write_text((OTHER / "allowance.txt").read_text("utf-8"), "utf-8")
    path = tmp_path / "allowance.lex"
    path.write_text(source.replace(old, new), "utf-8")
    return path


def conflicting(tmp_path: Path) -> Path:
    """The allowance encoding with the disabled rate at the veteran rate's priority."""
    return variant(
        tmp_path,
        "exception disabled_rate to member_allowance priority 2",
        "exception disabled_rate to member_allowance priority 1",
    )


def every_scenario() -> list[dict[str, object]]:
    return [
        {**dict(zip(FLAGS, bits, strict=True)), "income": income}
        for bits in itertools.product([False, True], repeat=len(FLAGS))
        for income in ("10000", "20000", "30000")
    ]


def by_hand(scenario: dict[str, object]) -> tuple[Fraction, str]:
    """The allowance and band as the official text gives them."""
    if scenario["absent"]:
        allowance = Fraction(0)
    elif scenario["disabled"]:
        allowance = Fraction(350)
    elif scenario["veteran"]:
        allowance = Fraction(300)
    else:
        allowance = Fraction(100 if scenario["student"] else 200)
    low = scenario["appeal_pending"] or Fraction(str(scenario["income"])) < 20000
    return allowance, "low" if low else "high"


# ---- the language and the checker ----------------------------------------------------------
def test_the_allowance_encoding_checks_clean_and_attaches_each_exception() -> None:
    statute = load(ALLOWANCE)
    assert check_statute(statute) == []
    member = statute.definitions["member_allowance"]
    assert [e.name for e in member.exceptions_by_priority()] == [
        "absent_member",
        "disabled_rate",
        "veteran_rate",
    ]
    assert [e.clause.short_citation for e in member.exceptions] == ["(b)", "(b)", "(c)"]
    assert [e.name for e in statute.definitions["band"].exceptions] == ["pending_appeal"]


@pytest.mark.parametrize(
    ("old", "new", "message", "line"),
    [
        (
            "to member_allowance priority 3",
            "to member_allowances priority 3",
            "exception 'absent_member' is to 'member_allowances', which no rule or 'cases' defines",
            28,
        ),
        (
            "exception absent_member to member_allowance priority 3",
            "exception absent_member to veteran_rate priority 3",
            "exception 'absent_member' is to 'veteran_rate', itself an exception",
            28,
        ),
        ("priority 3 = $0 when absent", "priority 3 = low when absent", "given 'low'", 28),
        ("priority 3 = $0 when absent", "priority 3 = $0 when income", "'when'", 28),
        ("priority 3 = $0", "priority 2.5 = $0", "a priority is a whole number", 28),
        ("priority 3 = $0", "priority 0 = $0", "a priority is a whole number of at least 1", 28),
        (
            "priority 3 = $0 when absent",
            "priority 3 = $200 when absent",
            "the number $200 in 'absent_member' is not stated in the words of (c)",
            28,
        ),
        (
            "exception veteran_rate to",
            "exception allowance to",
            "exception 'allowance' has the name of a definition",
            24,
        ),
        (
            "exception disabled_rate to",
            "exception veteran_rate to",
            "exception 'veteran_rate' is stated twice",
            25,
        ),
    ],
)
def test_a_bad_exception_is_refused_at_its_position(
    tmp_path: Path, old: str, new: str, message: str, line: int
) -> None:
    path = variant(tmp_path, old, new)
    with pytest.raises(EncodingError) as raised:
        load(path)
    text = str(raised.value)
    assert message in text
    assert f"{path}:{line}:" in text


def test_an_exception_takes_the_numbers_of_its_own_clause(tmp_path: Path) -> None:
    # $300 is stated by (b), where the exception is, not by (a), where its target is; $100 is
    # stated by (a) only.
    statute = load(ALLOWANCE)
    assert "$300" not in statute.definitions["member_allowance"].clause.words
    assert check_statute(statute) == []
    path = variant(tmp_path, "priority 1 = $300 when veteran", "priority 1 = $100 when veteran")
    with pytest.raises(EncodingError, match=r"the number \$100 in 'veteran_rate' is not stated"):
        load(path)


# ---- evaluation and the trace --------------------------------------------------------------
def test_the_highest_priority_that_holds_gives_the_value() -> None:
    statute = load_statute(ALLOWANCE)
    for scenario in every_scenario():
        result = statute.evaluate(scenario, trace=True)
        allowance, band = by_hand(scenario)
        assert result.values == {"allowance": allowance, "band": band}, scenario


def test_the_trace_cites_the_exception_that_applied_in_every_rendering() -> None:
    statute = load_statute(ALLOWANCE)
    scenario = {"income": "25000", "veteran": True, "disabled": True, "appeal_pending": True}
    result = statute.evaluate(scenario, trace=True)
    assert result.trace is not None
    text = result.explain()
    assert "member_allowance(as_student=false) = $350.00  [Allowance Act s.4(b)]" in text
    assert "exception disabled_rate, priority 2, applies instead of Allowance Act s.4(a)" in text
    assert "band = low  [Allowance Act s.4(e)]" in text
    assert "no case applied" not in text
    steps = {step["id"]: step for step in result.to_dict()["trace"]}
    member = steps["member_allowance(as_student=false)"]
    assert member["exception"] == "disabled_rate"
    assert member["citation"] == "Allowance Act s.4(b)"
    assert member["rule"] == "= $350 when disabled"
    assert steps["band"]["exception"] == "pending_appeal"
    assert "exception disabled_rate, priority 2" in result.trace.markdown()
    narrator = Narrator(result.trace)
    prose = narrator.markdown("allowance")
    assert "the exception disabled_rate (priority 2) applies instead of (a)" in prose


def test_the_trace_says_when_no_exception_applied() -> None:
    statute = load_statute(ALLOWANCE)
    result = statute.evaluate({"income": "25000", "student": True}, trace=True)
    assert result.trace is not None
    steps = {step["id"]: step for step in result.to_dict()["trace"]}
    member = steps["member_allowance(as_student=true)"]
    assert member["exception"] is None
    assert member["citation"] == "Allowance Act s.4(a)"
    assert member["exceptions"].startswith("no exception applies: absent_member")
    assert steps["band"]["citation"] == "Allowance Act s.4(d)"
    assert "no exception applies: pending_appeal (Allowance Act s.4(e)) needs appeal_pending" in (
        result.explain(width=200)
    )
    prose = Narrator(result.trace).markdown("band")
    assert "no exception applies (pending_appeal of (e) needs appeal_pending)" in prose


def test_two_exceptions_of_equal_priority_that_hold_are_a_conflict(tmp_path: Path) -> None:
    statute = load_statute(conflicting(tmp_path))
    message = (
        "'member_allowance' has two exceptions of priority 1 for this scenario: "
        "'veteran_rate' (Allowance Act s.4(b)) and 'disabled_rate' (Allowance Act s.4(b))"
    )
    # Whichever higher exception applies too: the order of the two is left unsaid.
    for absent in (False, True):
        scenario = {"income": "1", "veteran": True, "disabled": True, "absent": absent}
        for trace in (False, True):
            with pytest.raises(EvaluationError) as raised:
                statute.evaluate(scenario, trace=trace)
            assert str(raised.value) == message
    assert statute.evaluate({"income": "1", "veteran": True}).values["allowance"] == 300


# ---- the fast path and the columnar batch ---------------------------------------------------
@pytest.mark.parametrize("which", ["allowance", "conflict"])
def test_fast_path_and_columnar_batch_agree_or_defer_on_every_scenario(
    tmp_path: Path, which: str
) -> None:
    statute = load_statute(ALLOWANCE if which == "allowance" else conflicting(tmp_path))
    selected = statute.select_readings({})
    assert codegen.fast_function(statute.ast, selected) is not None
    scenarios = every_scenario()
    inputs = [statute.validate(s) for s in scenarios]
    engine = columnar.Engine(statute.ast, selected)
    columns = {
        name: columnar.input_column(declared, [i[name] for i in inputs], engine.codes)
        for name, declared in statute.ast.inputs.items()
    }
    results, deferred = engine.run(columns, len(inputs))
    conflicts = 0
    for row, values in enumerate(inputs):
        try:
            evaluation = evaluate(statute.program, values, selected)
        except EvaluationError:
            expected = None
            conflicts += 1
        else:
            expected = {n: evaluation.memo[(n, ())] for n in statute.ast.result_names}
        assert codegen.run_fast(statute.ast, values, selected) == expected
        assert bool(deferred[row]) == (expected is None)
        if expected is None:
            continue
        band = np.broadcast_to(results["band"].value, (len(inputs),))
        assert engine.members[int(band[row])] == expected["band"]
        assert columnar.exact_values(results["allowance"], [row]) == [expected["allowance"]]
    assert conflicts == (0 if which == "allowance" else 2 * 2 * 2 * 3)


# ---- the proofs -----------------------------------------------------------------------------
def test_verify_proves_no_conflict_and_every_reachability_by_a_witness() -> None:
    report = run(load(ALLOWANCE), 30.0, 120.0)
    statuses = {o.check.name: o.status for o in report.outcomes}
    assert set(statuses.values()) == {PROVED}
    assert "general rule reachable: member_allowance(as_student=false)" in statuses
    assert "general rule reachable: band" in statuses
    for name in ("veteran_rate", "disabled_rate", "absent_member"):
        assert f"exception reachable: {name}(as_student=true)" in statuses
    assert "exception reachable: pending_appeal" in statuses
    witnessed = [
        o for o in report.outcomes if "reachable: " in o.check.name and "witness" in o.extra
    ]
    assert len(witnessed) == 2 * 4 + 2
    assert all(o.detail.startswith("witness: the evaluator confirms it") for o in witnessed)


def test_verify_violates_an_overlapping_pair_with_a_counterexample_that_replays(
    tmp_path: Path,
) -> None:
    path = conflicting(tmp_path)
    outcomes = run(load(path), 30.0, 120.0).outcomes
    failed = [o for o in outcomes if o.status != PROVED]
    assert {o.check.name for o in failed} == {
        f"no conflict: member_allowance(as_student={flag}) veteran_rate / disabled_rate"
        for flag in ("false", "true")
    }
    for outcome in failed:
        assert outcome.status == VIOLATED
        (scenario,) = outcome.counterexample
        assert scenario["veteran"] is True and scenario["disabled"] is True
        with pytest.raises(EvaluationError, match=r"'veteran_rate' .* and 'disabled_rate'"):
            load_statute(path).evaluate({**scenario, "student": False})
    written = tmp_path / "out"
    assert main(["verify", "-e", str(path), "--counterexamples", str(written)]) == exits.FAILED
    (replay,) = [p for p in written.glob("*.json") if "as_student-false" in p.name]
    recorded = json.loads(replay.read_text("utf-8"))
    assert recorded["lextrace"]["violates"]["check"].startswith("no conflict: member_allowance")


def test_a_general_rule_no_scenario_reaches_is_not_proved(tmp_path: Path) -> None:
    path = variant(
        tmp_path, "= low when appeal_pending", "= low when appeal_pending or income >= income"
    )
    statuses = {o.check.name: o.status for o in run(load(path), 30.0, 120.0).outcomes}
    assert statuses["general rule reachable: band"] == VACUOUS
    assert statuses["exception reachable: pending_appeal"] == PROVED


def test_an_exception_a_higher_one_always_overrides_is_not_proved(tmp_path: Path) -> None:
    path = variant(
        tmp_path, "priority 1 = $300 when veteran", "priority 1 = $300 when veteran and absent"
    )
    statuses = {o.check.name: o.status for o in run(load(path), 30.0, 120.0).outcomes}
    assert statuses["exception reachable: veteran_rate(as_student=false)"] == VACUOUS
    assert ERROR not in statuses.values()


# ---- the diff, the mutants and the cache ---------------------------------------------------
def test_the_diff_names_the_exception_that_changed(tmp_path: Path) -> None:
    (change,) = rule_changes(load(ALLOWANCE), load(conflicting(tmp_path)))
    assert change.name == "member_allowance"
    assert [(p.part, p.status) for p in change.parts] == [("exception disabled_rate", "changed")]
    assert change.words_changed == []


def test_mutants_drop_an_exceptions_condition_and_change_its_value() -> None:
    mutants = generate(load(ALLOWANCE))
    owners = {(m.kind, m.owner) for m in mutants}
    assert ("dropped-condition", "exception absent_member") in owners
    assert any(
        m.owner == "exception disabled_rate" and m.kind != "dropped-condition" for m in mutants
    )


def test_exceptions_survive_the_cache_round_trip() -> None:
    statute = load(ALLOWANCE)
    again = cache.load_dump(cache.dump(statute))
    # The data, not marshal's bytes (which also record which strings the process interned).
    assert marshal.loads(cache.dump(again)) == marshal.loads(cache.dump(statute))
    member = again.definitions["member_allowance"]
    assert [e.priority for e in member.exceptions] == [1, 2, 3]
    assert member.exceptions[0] is again.exceptions[0]  # shared, not copied
    assert member.exceptions[2].clause is next(
        c for c in again.clauses if c.short_citation == "(c)"
    )
