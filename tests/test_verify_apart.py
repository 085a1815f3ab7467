"""Proof runs in processes of their own (verify/apart.py): the same report as a run here, each
outcome on this process's own check, and a run here for an encoding that was not started."""

from __future__ import annotations

from pathlib import Path

import pytest

from lextrace import load_statute
from lextrace.verify import apart as apart_module
from lextrace.verify.apart import Apart
from lextrace.verify.report import run

STATUTE = Path(__file__).resolve().parent.parent / "statute"
SMALL = [STATUTE / "nsw-cgr-2020-cl-5.lex", STATUTE / "usc-26-132-c.lex"]


def test_reports_proved_apart_are_those_proved_here(monkeypatch: pytest.MonkeyPatch) -> None:
    proofs = Apart(SMALL)

    def not_here(*_: object) -> None:
        raise AssertionError("proved in this process, not apart")

    try:
        for path in SMALL:
            statute = load_statute(path).ast
            with monkeypatch.context() as patched:
                patched.setattr(apart_module, "run", not_here)
                apart = proofs.report(statute)
            here = run(statute)
            assert apart.statute is statute
            assert [(o.check.name, o.status) for o in apart.outcomes] == [
                (o.check.name, o.status) for o in here.outcomes
            ]
            assert apart.outcomes and apart.ok == here.ok
            # Each outcome stands on a check of this process, as the pages render it.
            assert all(o.check.clause in statute.clauses for o in apart.outcomes)
    finally:
        proofs.close()


def test_a_counterexample_comes_back_with_its_outcome(tmp_path: Path) -> None:
    source = (STATUTE / "usc-26-132-c.lex").read_text(encoding="utf-8")
    broken = source.replace(
        "input employee_price: money required min $0", "input employee_price: money required"
    )
    assert broken != source
    encoding = tmp_path / "usc-26-132-c.lex"
    encoding.write_text(broken, encoding="utf-8")
    (tmp_path / "usc-26-132-c.txt").write_text(
        (STATUTE / "usc-26-132-c.txt").read_text(encoding="utf-8"), encoding="utf-8"
    )
    statute = load_statute(encoding).ast
    proofs = Apart([encoding])
    try:
        apart = proofs.report(statute)
    finally:
        proofs.close()
    here = run(statute)
    assert not here.ok
    assert [(o.check.name, o.status) for o in apart.outcomes] == [
        (o.check.name, o.status) for o in here.outcomes
    ]
    failed = [o for o in apart.outcomes if o.failed]
    assert failed and all(o.counterexample for o in failed if o.status == "VIOLATED")


def test_an_encoding_not_started_is_proved_here() -> None:
    proofs = Apart([])
    try:
        statute = load_statute(SMALL[0]).ast
        report = proofs.report(statute)
    finally:
        proofs.close()
    assert report.ok and len(report.outcomes) == len(run(statute).outcomes)
