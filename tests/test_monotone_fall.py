"""`fall with`: a monotone property whose results never rise when an input does (a phase-out).

It is the mirror of `rise with` in every consumer: the parser and the parse cache, the
compositional proof and the whole two-copy formula Z3 decides, the search before Z3, the
evaluator's confirmation of a counterexample, `explain` of a counterexample pair, and the
semantic diff of two encodings.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lextrace import load_statute
from lextrace.dsl import cache, loader
from lextrace.dsl.scenario import validate
from lextrace.verify.checks import PROVED, VIOLATED, Verifier
from lextrace.verify.diff import rule_changes
from lextrace.verify.replay import judge_monotone
from lextrace.verify.report import run

ROOT = Path(__file__).resolve().parent.parent
THRESHOLD = ROOT / "tests" / "other_statutes" / "threshold.lex"
STATED = "credit fall with modified_agi;"


def _variant(tmp_path: Path, new: str, old: str = STATED) -> Path:
    """A copy of the child tax credit statute with `old` replaced by `new`, beside its text."""
    source = THRESHOLD.read_text(encoding="utf-8")
    assert old in source
    (tmp_path / "threshold.txt").write_text(
        THRESHOLD.with_suffix(".txt").read_text(encoding="utf-8"), encoding="utf-8"
    )
    path = tmp_path / "threshold.lex"
    path.write_text(source.replace(old, new, 1), encoding="utf-8")
    return path


def _check(verifier: Verifier, name: str):  # type: ignore[no-untyped-def]
    return next(c for c in verifier.checks() if c.name == name)


def test_the_direction_is_parsed_and_kept_by_the_parse_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Through the loader and the cache themselves: `load_statute` keeps what it loaded in the
    # process, so a test run before in the same worker would leave the cache unread.
    monkeypatch.setenv("LEXTRACE_CACHE_DIR", str(tmp_path / "cache"))
    parsed = loader.load(THRESHOLD)  # parsed, and its entry stored
    cached = cache.lookup(THRESHOLD)  # read back from the cache
    assert cached is not None
    for statute in (parsed, cached):
        directions = {m.name: m.direction for m in statute.monotones}
        assert directions == {
            "more_children_more_credit": "rise",
            "joint_return_never_lowers": "rise",
            "more_income_never_more_credit": "fall",
        }
    assert list((tmp_path / "cache").iterdir())


def test_a_phase_out_is_proved_to_fall_step_by_step() -> None:
    report = run(load_statute(THRESHOLD).ast)
    outcome = next(
        o for o in report.outcomes if o.check.name == "more_income_never_more_credit[modified_agi]"
    )
    assert outcome.status == PROVED
    assert "local steps" in outcome.detail  # compositionally: each step proved to fall


@pytest.mark.parametrize(
    ("stated", "check", "raised", "moved"),
    [
        # More children raise the credit: it does not fall with them.
        (
            "credit fall with qualifying_children;",
            "more_income_never_more_credit[qualifying_children]",
            "qualifying_children",
            "higher",
        ),
        # More income lowers the credit past the threshold: it does not rise with it.
        (
            "credit rise with modified_agi;",
            "more_income_never_more_credit[modified_agi]",
            "modified_agi",
            "lower",
        ),
    ],
)
def test_z3_refutes_the_wrong_direction_with_a_pair_the_evaluator_confirms(
    tmp_path: Path, stated: str, check: str, raised: str, moved: str
) -> None:
    statute = load_statute(_variant(tmp_path, stated)).ast
    verifier = Verifier(statute)
    # Proved directly, without the search before Z3: the two-copy formula decides.
    outcome = verifier.prove(_check(verifier, check), lambda s: validate(statute, s))
    assert outcome.status == VIOLATED, outcome.detail
    before, after = outcome.counterexample
    assert {k for k in before if before[k] != after.get(k)} == {raised}
    assert outcome.detail.startswith(f"the evaluator finds {moved} credit")


def test_the_search_finds_a_rise_and_the_judge_names_it_raised(tmp_path: Path) -> None:
    statute = load_statute(_variant(tmp_path, "credit fall with qualifying_children;"))
    report = run(statute.ast)
    outcome = next(
        o
        for o in report.outcomes
        if o.check.name == "more_income_never_more_credit[qualifying_children]"
    )
    assert outcome.status == VIOLATED and outcome.extra.get("found_by") == "search"
    inputs = [validate(statute.ast, s) for s in outcome.counterexample]
    judged = judge_monotone(
        statute.program, "qualifying_children", ["credit"], inputs, {}, falls=True
    )
    assert judged.violated and "RAISED" in dict(judged.terms)["credit"]
    # The same pair read as `rise with` breaks nothing.
    assert not judge_monotone(
        statute.program, "qualifying_children", ["credit"], inputs, {}
    ).violated


def test_explain_replays_a_counterexample_pair_and_marks_the_rise(tmp_path: Path) -> None:
    variant = _variant(tmp_path, "credit fall with qualifying_children;")
    folder = tmp_path / "cx"
    lextrace = [sys.executable, "-m", "lextrace"]
    verified = subprocess.run(
        [*lextrace, "verify", "-e", str(variant), "--counterexamples", str(folder)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert verified.returncode == 1, verified.stderr
    before = folder / "more_income_never_more_credit-qualifying_children-before.json"
    assert json.loads(before.read_text(encoding="utf-8"))["lextrace"]["pair"]["role"] == "before"
    explained = subprocess.run(
        [*lextrace, "explain", str(before)], capture_output=True, text=True, check=False
    )
    assert explained.returncode == 0, explained.stderr
    assert "RAISED" in explained.stdout and "LOWERED" not in explained.stdout
    assert "VIOLATED: the evaluator finds higher credit" in explained.stdout


def test_the_diff_reports_a_direction_turned_round(tmp_path: Path) -> None:
    old = load_statute(THRESHOLD).ast
    new = load_statute(_variant(tmp_path, "credit rise with modified_agi;")).ast
    changed = [c for c in rule_changes(old, new, []) if c.kind == "monotone"]
    assert [(c.name, c.status) for c in changed] == [("more_income_never_more_credit", "changed")]
    assert "fall with" in (changed[0].old_text or "") and "rise with" in (changed[0].new_text or "")
