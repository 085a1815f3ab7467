"""Which readings the cases tell apart (lextrace/reading_cover.py): a case running under a
reading's default whose results change under another option tests the default."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from conftest import ROOT, lextrace_command

from lextrace.api import load_statute
from lextrace.cases import load_cases
from lextrace.reading_cover import reading_cover

CASES = ROOT / "statute" / "nj-34-1b-343.cases.yaml"


def test_the_bundled_cases_tell_apart_the_default_of_every_reading_with_alternatives() -> None:
    covers = {c.reading: c for c in reading_cover(load_statute(), load_cases(CASES).cases)}
    assert set(covers) == {"I8", "I21"}
    assert covers["I8"].told_apart_by == "labor-harmony-business-wide under I8 covered-jobs"
    assert covers["I8"].under == "business-wide"
    assert covers["I8"].options == {"business-wide": ["labor-harmony-business-wide"]}
    assert (
        covers["I21"].told_apart_by is not None and "I21 by default" in covers["I21"].told_apart_by
    )
    assert covers["I21"].options == {"lower-middle": ["the same payroll under I21 lower-middle"]}


def test_a_default_only_pinned_cases_reach_is_reported_untested(tmp_path: Path) -> None:
    # Both I8 cases pin their option: swapping the default would pass them both.
    document = yaml.safe_load(CASES.read_text(encoding="utf-8"))
    kept = [
        case for case in document["cases"] if case["name"].startswith("labor-harmony-business-wide")
    ]
    kept[1]["readings"] = {"I8": "covered-jobs"}
    document["cases"] = kept
    document["encoding"] = str(ROOT / "statute" / "nj-34-1b-343.lex")
    cases = tmp_path / "pinned.cases.yaml"
    cases.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    completed = lextrace_command("test", str(cases))
    assert completed.returncode == 0, completed.stderr
    assert (
        "I8 (default covered-jobs): the default told apart by no case (each case pins I8 or "
        "gives the same results under business-wide); business-wide run by 1 case"
    ) in completed.stdout
    report = json.loads(lextrace_command("test", str(cases), "--format", "json").stdout)
    (i8,) = [r for r in report["files"][0]["readings"] if r["reading"] == "I8"]
    assert i8["default_told_apart_by"] is None
    assert i8["options"] == {"business-wide": ["labor-harmony-business-wide"]}


def test_a_case_the_encoding_does_not_define_tells_nothing_apart(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Such a case fails in `lextrace test`, with its reason; the cover passes over it.
    import lextrace.reading_cover as cover_module
    from lextrace.cases import UndefinedScenario

    def undefined(*_: object, **__: object) -> object:
        raise UndefinedScenario("no case of 'band' applies")

    monkeypatch.setattr(cover_module, "evaluate_case", undefined)
    covers = reading_cover(load_statute(), load_cases(CASES).cases)
    assert covers and all(c.told_apart_by is None for c in covers)
