"""`lextrace test`: the test cases of an encoding, the bundled statute's among them.

The bundled cases file holds every worked example with the figures of the hand derivations of
test_examples_by_hand.py; the tests below check that it still does, that it passes, and how a
failing case and a bad cases file are reported.
"""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree

import pytest
from conftest import EXAMPLES, ROOT, lextrace_command
from oracle import cents
from test_examples_by_hand import HAND, NAMES, RESULT_KEYS

from lextrace import exits
from lextrace.cases import load_cases
from lextrace.dsl.scenario import read_scenario_file

CASES = ROOT / "statute" / "nj-34-1b-343.cases.yaml"
RATIO = ROOT / "tests" / "other_statutes" / "ratio.lex"
EXAMPLE = EXAMPLES / "distressed-manufacturer.json"
CORRIDOR = EXAMPLES / "corridor-warehouse-below-wage-floor.json"

run = lextrace_command


def write(tmp_path: Path, text: str, name: str = "cases.yaml") -> Path:
    """Writes a cases file into `tmp_path` and returns its path."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# ---- the bundled cases ------------------------------------------------------------------------


def test_the_bundled_cases_pass() -> None:
    completed = run("test", str(CASES))
    assert completed.returncode == exits.OK, completed.stdout[-3000:] + completed.stderr
    cases = load_cases(CASES).cases
    assert f"{len(cases)} cases: {len(cases)} passed, 0 failed" in completed.stdout
    assert "FAIL" not in completed.stdout


def test_without_cases_files_the_encodings_own_run(tmp_path: Path) -> None:
    # The bundled statute's, then another encoding's, found beside it.
    completed = run("test")
    assert completed.returncode == exits.OK, completed.stderr
    assert f"{len(load_cases(CASES).cases)} passed, 0 failed" in completed.stdout
    other = ROOT / "statute" / "usc-26-132-c.lex"
    completed = run("test", "-e", str(other))
    assert completed.returncode == exits.OK, completed.stderr
    listed = load_cases(other.with_suffix(".cases.yaml")).cases
    assert completed.stdout.count("  ok ") == len(listed)
    # An encoding without one is told so, and nothing runs.
    lone = tmp_path / "lone.lex"
    lone.write_bytes(other.read_bytes())
    (tmp_path / "usc-26-132-c.txt").write_bytes(other.with_suffix(".txt").read_bytes())
    completed = run("test", "-e", str(lone))
    assert completed.returncode == exits.BAD_INPUT
    assert f"has no cases file beside it ({tmp_path / 'lone.cases.yaml'})" in completed.stderr


def test_every_example_is_a_case_whose_scenario_is_its_file() -> None:
    cases = {case.name: case for case in load_cases(CASES).cases}
    assert set(NAMES) <= set(cases)
    for name in NAMES:
        assert cases[name].scenario == read_scenario_file(EXAMPLES / f"{name}.json"), name
    assert sum(1 for case in cases.values() if case.refuse is not None) >= 10


def test_every_expected_figure_is_the_hand_derivation() -> None:
    """The figures of the cases file are those worked by hand, under the reading each case
    selects (the one its scenario pins, else its `readings`, else the default)."""
    checked = 0
    for case in load_cases(CASES).cases:
        example = next((n for n in NAMES if case.name.startswith(n)), None)
        if example is None or case.expect is None or case.exact:
            continue
        pinned = (case.scenario or {}).get("readings", {})
        i8 = {**pinned, **case.readings}.get("I8", "covered-jobs")
        hand = HAND[example](i8)
        assert set(case.expect) == set(RESULT_KEYS), case.name
        for key, written in case.expect.items():
            wanted = hand[key] if key == "area_tier" else cents(hand[key])  # type: ignore[arg-type]
            assert written == wanted, f"{case.name}: {key}"
        checked += 1
    assert checked == len(NAMES) + 1  # and the labor-harmony example under its other reading


def test_an_amendment_fails_the_cases_it_changes() -> None:
    amendment = ROOT / "statute" / "amendments" / "small-business-750" / "nj-34-1b-343.lex"
    completed = run("test", str(CASES), "--encoding", str(amendment))
    assert completed.returncode == exits.FAILED
    assert "FAIL  incubator-training-startup" in completed.stdout
    assert "per_job_new = 2850.00, expected 2600.00 (to the cent)" in completed.stdout
    assert "ok    distressed-manufacturer" in completed.stdout
    assert str(amendment) in completed.stdout


# ---- failing cases ----------------------------------------------------------------------------


def test_a_wrong_expectation_fails_with_the_value_the_expected_value_and_the_trace(
    tmp_path: Path,
) -> None:
    cases = write(
        tmp_path,
        f"""cases:
  - name: right
    scenario: {EXAMPLE}
    expect: {{per_job_new: "4250.00", area_tier: b3}}
  - name: wrong
    scenario: {EXAMPLE}
    expect:
      per_job_retained: "2125.00"
      per_job_new: "4300.00"
""",
    )
    completed = run("test", str(cases))
    assert completed.returncode == exits.FAILED
    out = completed.stdout
    assert "ok    right" in out
    assert f"FAIL  wrong  ({cases}:5)" in out
    assert "per_job_new = 4250.00, expected 4300.00 (to the cent)" in out
    assert "trace of per_job_new:" in out
    assert "per_job_new = $4,250.00  [N.J.S.A. 34:1B-343(f)(1)]" in out
    assert "salary_shortfall = 0.15" in out  # the derivation, down to its inputs
    assert "per_job_retained =" not in out  # the result that agrees is not shown
    assert "2 cases: 1 passed, 1 failed" in out
    # --no-trace: the values alone, for a long run of failures.
    brief = run("test", str(cases), "--no-trace")
    assert brief.returncode == exits.FAILED
    assert "per_job_new = 4250.00, expected 4300.00 (to the cent)" in brief.stdout
    assert "trace of" not in brief.stdout


def test_money_compared_exactly_when_the_case_says_so(tmp_path: Path) -> None:
    cases = write(
        tmp_path,
        f"""cases:
  - name: to the cent
    scenario: {CORRIDOR}
    expect: {{per_job_new: "2307.69"}}
  - name: exactly
    scenario: {CORRIDOR}
    exact: true
    expect: {{per_job_new: "30000/13"}}
  - name: rounded, but exactly
    scenario: {CORRIDOR}
    exact: true
    expect: {{per_job_new: "2307.69"}}
""",
    )
    completed = run("test", str(cases))
    assert completed.returncode == exits.FAILED
    assert "ok    to the cent" in completed.stdout
    assert "ok    exactly" in completed.stdout
    assert (
        "per_job_new = 2307.69 (exactly 30000/13), expected 2307.69 (exactly)" in completed.stdout
    )


def test_a_refusal_case_that_is_not_refused_fails(tmp_path: Path) -> None:
    cases = write(
        tmp_path,
        f"""cases:
  - name: not refused
    scenario: {EXAMPLE}
    refuse: [new_jobs]
  - name: refused for another reason
    scenario: {{new_jobs: -1}}
    refuse: ["field 'new_jobs'", "small_business"]
  - name: refused where results were expected
    scenario: {{new_jobs: -1}}
    expect: {{area_tier: b3}}
""",
    )
    completed = run("test", str(cases))
    assert completed.returncode == exits.FAILED
    out = completed.stdout
    assert 'expected a refusal (exit 2) whose message contains "new_jobs", given results:' in out
    assert "per_job_new = $4,250.00" in out
    assert "FAIL  refused for another reason" in out
    assert 'refused, but the message lacks "small_business":' in out
    assert "field 'new_jobs': expected a whole number of at least 0, given -1" in out
    assert "expected results, given a refusal:" in out
    assert "3 cases: 0 passed, 3 failed" in out


def test_junit_and_json(tmp_path: Path) -> None:
    cases = write(
        tmp_path,
        f"""cases:
  - name: right
    scenario: {EXAMPLE}
    expect: {{area_tier: b3}}
  - name: wrong
    scenario: {EXAMPLE}
    expect: {{area_tier: b1}}
""",
    )
    junit = tmp_path / "cases.xml"
    completed = run("test", str(cases), "--junit", str(junit), "--format", "json")
    assert completed.returncode == exits.FAILED
    report = json.loads(completed.stdout)
    assert report["ok"] is False
    assert report["totals"] == {"cases": 2, "passed": 1, "failed": 1}
    wrong = report["files"][0]["cases"][1]
    assert wrong["name"] == "wrong" and wrong["status"] == "failed" and wrong["line"] == 5
    (mismatch,) = wrong["mismatches"]
    assert mismatch["result"] == "area_tier"
    assert (mismatch["value"], mismatch["expected"], mismatch["compared"]) == (
        "b3",
        "b1",
        "exactly",
    )
    assert "area_tier = b3  [N.J.S.A. 34:1B-343(b)(3)]" in mismatch["trace"]
    suites = ElementTree.parse(junit).getroot()
    assert (suites.get("tests"), suites.get("failures")) == ("2", "1")
    testcases = suites.findall("testsuite/testcase")
    assert [c.get("name") for c in testcases] == ["right", "wrong"]
    assert testcases[0].find("failure") is None
    failure = testcases[1].find("failure")
    assert failure is not None
    assert failure.get("message") == "area_tier = b3, expected b1 (exactly)"
    assert "trace of area_tier:" in (failure.text or "")
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_a_statute_of_no_money_with_its_encoding_named_in_the_file(tmp_path: Path) -> None:
    cases = write(
        tmp_path,
        f"""{{"encoding": "{RATIO}",
 "cases": [
  {{"name": "a third", "scenario": {{"part": 1, "whole": 3}},
   "expect": {{"ratio": "1/3", "twice": 6, "exceeds": false, "band": "low"}}}},
  {{"name": "a decimal is exact", "scenario": {{"part": 1, "whole": 3}},
   "expect": {{"ratio": "0.3333"}}}},
  {{"name": "no whole", "scenario": {{"whole": 0}}, "refuse": ["whole"]}}
 ]}}""",
        name="ratio.cases.json",
    )
    completed = run("test", str(cases))
    assert completed.returncode == exits.FAILED
    assert "Ratio Act s.3" in completed.stdout
    assert "ok    a third" in completed.stdout
    assert "ratio = 1/3, expected 0.3333 (exactly)" in completed.stdout
    assert "ok    no whole" in completed.stdout


def test_the_encoding_option_replaces_the_default_and_the_environment(tmp_path: Path) -> None:
    cases = write(
        tmp_path,
        "cases:\n  - name: a third\n    scenario: {part: 1, whole: 3}\n    expect: {band: low}\n",
    )
    assert run("test", str(cases), "-e", str(RATIO)).returncode == exits.OK
    assert run("test", str(cases), env={"LEXTRACE_ENCODING": str(RATIO)}).returncode == exits.OK
    bundled = run("test", str(cases))  # the bundled statute has no result 'band'
    assert bundled.returncode == exits.BAD_INPUT
    assert f"{cases}:4:14: case 'a third': expect.band: expected a result of" in bundled.stderr


# ---- bad cases files --------------------------------------------------------------------------

BAD = [
    (
        "unknown-key",
        "cases:\n  - name: a\n    scenario: {new_jobs: 1}\n    expectt: {area_tier: b1}\n",
        [
            ":4:5: case 'a': 'expectt': expected one of the keys name, scenario",
            "given an unknown key (did you mean 'expect'?)",
            ":2:5: case 'a': expected either 'expect' (the results) or 'refuse'",
        ],
    ),
    (
        "missing-name",
        "cases:\n  - scenario: {new_jobs: 1}\n    expect: {area_tier: b1}\n",
        [":2:5: cases[0]: expected a 'name': a text unique in the file, given nothing"],
    ),
    (
        "duplicate-names",
        "cases:\n"
        "  - {name: a, scenario: {new_jobs: 1}, refuse: []}\n"
        "  - {name: a, scenario: {new_jobs: 2}, refuse: []}\n",
        [
            ":3:12: case 'a': 'name': expected a name given to no other case of the file, "
            "given the name of the case at line 2"
        ],
    ),
    (
        "missing-scenario-file",
        "cases:\n  - name: a\n    scenario: no-such.json\n    refuse: []\n",
        [
            ":3:15: case 'a': 'scenario': expected an existing scenario file",
            'given "no-such.json", which does not exist',
        ],
    ),
    (
        "unknown-result",
        "cases:\n  - name: a\n    scenario: {new_jobs: 1}\n    expect: {per_job_neww: '1.00'}\n",
        [
            ":4:14: case 'a': expect.per_job_neww: expected a result of N.J.S.A. 34:1B-343",
            "given 'per_job_neww' (did you mean 'per_job_new'?)",
        ],
    ),
    (
        # A misspelt field would make a refusal case pass for the wrong reason.
        "unknown-field",
        "cases:\n  - name: a\n    scenario: {new_jobs: -1, retained_jobz: 3}\n    refuse: []\n",
        [
            ":3:30: case 'a': scenario.retained_jobz: expected an input of N.J.S.A. 34:1B-343",
            "given 'retained_jobz' (did you mean 'retained_jobs'?)",
        ],
    ),
    (
        "malformed-money",
        "cases:\n  - name: a\n    scenario: {new_jobs: 1}\n    expect:\n"
        "      per_job_new: 42.5.0\n      annual_credit: '1.001'\n      area_tier: b9\n",
        [
            ":5:20: case 'a': expect.per_job_new: expected an amount of money, such as \"1234.50\","
            ' given "42.5.0"',
            ":6:22: case 'a': expect.annual_credit: expected an amount to the cent",
            'given "1.001"',
            ":7:18: case 'a': expect.area_tier: expected one of "
            '"b1", "b2", "b3", "b4", "b5", given "b9"',
        ],
    ),
    (
        "unknown-reading",
        "cases:\n  - name: a\n    scenario: {new_jobs: 1}\n    readings: {I8: wide, I99: x}\n"
        "    refuse: []\n",
        [
            ":4:20: case 'a': readings.I8: expected an option of I8 (covered-jobs, business-wide)",
            ":4:26: case 'a': readings.I99: expected a reading of the encoding",
        ],
    ),
    (
        "malformed-yaml",
        "cases:\n  - name: a\n    scenario: {new_jobs: 1\n",
        ["expected valid YAML", ":4:1"],
    ),
    (
        "no-cases",
        "encoding: no-such.lex\n",
        [
            ":1:11: 'encoding': expected an existing encoding file",
            "'cases': expected a list of one case or more, given nothing (the key is missing)",
        ],
    ),
]


@pytest.mark.parametrize(("text", "wanted"), [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_a_bad_cases_file_exits_2_with_file_line_column_expected_and_given(
    tmp_path: Path, text: str, wanted: list[str]
) -> None:
    cases = write(tmp_path, text)
    completed = run("test", str(cases))
    assert completed.returncode == exits.BAD_INPUT, completed.stdout + completed.stderr
    assert completed.stdout == ""
    for piece in wanted:
        piece = f"{cases}{piece}" if piece.startswith(":") else piece
        assert piece in completed.stderr, completed.stderr


def test_a_bad_json_or_toml_file_names_the_value_without_a_line(tmp_path: Path) -> None:
    toml = write(
        tmp_path,
        '[[cases]]\nname = "a"\nscenario = { new_jobs = 1 }\nexpect = { area_tier = 3 }\n',
        name="cases.toml",
    )
    completed = run("test", str(toml))
    assert completed.returncode == exits.BAD_INPUT
    assert (
        f"{toml}: case 'a': expect.area_tier: expected one of "
        '"b1", "b2", "b3", "b4", "b5", given 3' in completed.stderr
    )
    broken = write(tmp_path, '{"cases": [}', name="cases.json")
    completed = run("test", str(broken))
    assert completed.returncode == exits.BAD_INPUT
    assert f"{broken}: expected valid JSON, given Expecting value at line 1" in completed.stderr


def test_every_file_is_checked_before_any_case_runs(tmp_path: Path) -> None:
    good = write(tmp_path, "cases:\n  - {name: a, scenario: {new_jobs: -1}, refuse: []}\n")
    bad = write(tmp_path, "cases: []\n", name="bad.yaml")
    completed = run("test", str(good), str(bad), "--junit", str(tmp_path / "out.xml"))
    assert completed.returncode == exits.BAD_INPUT
    assert completed.stdout == ""
    assert f"{bad}:1:8: 'cases': expected a list of one case or more, given an empty list" in (
        completed.stderr
    )
    assert not (tmp_path / "out.xml").exists()
    missing = run("test", str(tmp_path / "none.yaml"))
    assert missing.returncode == exits.BAD_INPUT
    assert f"{tmp_path / 'none.yaml'}: expected an existing cases file, given no such file" in (
        missing.stderr
    )


def test_the_example_of_the_guide_passes(tmp_path: Path) -> None:
    guide = (ROOT / "docs" / "test-cases.md").read_text(encoding="utf-8")
    start = guide.index("```yaml\nencoding: ") + len("```yaml\n")
    text = guide[start : guide.index("```", start)]
    text = text.replace("encoding: ", f"encoding: {ROOT / 'statute'}/", 1)
    cases = write(tmp_path, text.replace("../examples/", f"{EXAMPLES}/"))
    completed = run("test", str(cases))
    assert completed.returncode == exits.OK, completed.stdout + completed.stderr
    assert "4 cases: 4 passed, 0 failed" in completed.stdout


def test_a_scenario_the_encoding_does_not_define_fails_its_case_and_the_others_run(
    tmp_path: Path,
) -> None:
    source = ROOT / "tests" / "other_statutes"
    (tmp_path / "allowance.txt").write_text((source / "allowance.txt").read_text("utf-8"))
    encoding = (source / "allowance.lex").read_text("utf-8")
    assert "case band = high otherwise;" in encoding
    encoding = encoding.replace("case band = high otherwise;", "")  # a band left undefined
    (tmp_path / "allowance.lex").write_text(encoding, encoding="utf-8")
    cases = write(
        tmp_path,
        f"""encoding: {tmp_path / "allowance.lex"}
cases:
  - name: a high income reaches no band
    scenario: {{income: "25000"}}
    expect: {{band: high}}
  - name: a low income
    scenario: {{income: "100"}}
    expect: {{band: low, allowance: "200.00"}}
""",
    )
    completed = run("test", str(cases), "--format", "json")
    assert completed.returncode == exits.FAILED, completed.stderr
    outcomes = {o["name"]: o for o in json.loads(completed.stdout)["files"][0]["cases"]}
    assert outcomes["a low income"]["status"] == "passed"
    failed = outcomes["a high income reaches no band"]
    assert failed["status"] == "failed"
    assert "the encoding does not define this scenario: no case of 'band'" in failed["detail"]


def test_a_cases_file_with_a_malformed_case_still_checks_its_other_cases(tmp_path: Path) -> None:
    cases = write(
        tmp_path,
        f"""encoding: {RATIO}
cases:
  - name: a
    scenario: {{part: 1, whole: 3}}
    expectt: {{ratio: "1/3"}}
  - name: b
    scenario: {{part: 1, whole: 3}}
    expect: {{ratoi: "1/3", twice: "two"}}
""",
    )
    completed = run("test", str(cases))
    assert completed.returncode == exits.BAD_INPUT
    assert f"{cases}:5:5: case 'a': 'expectt'" in completed.stderr
    assert f"{cases}:8:14: case 'b': expect.ratoi" in completed.stderr
    assert "case 'b': expect.twice" in completed.stderr
    assert "4 problems in cases" in completed.stderr


def test_the_problems_of_a_cases_file_come_in_the_order_of_the_file(tmp_path: Path) -> None:
    """Problems found by different passes (the keys of each case, then their values against
    the encoding) are reported by line and column."""
    threshold = ROOT / "tests" / "other_statutes" / "threshold.lex"
    cases = tmp_path / "bad.cases.yaml"
    cases.write_text(
        f"encoding: {threshold}\n"
        "cases:\n"
        "  - name: a\n"
        '    scenario: {qualifying_children: 1, modified_agi: "1"}\n'
        '    expect: {credt: "2000.00"}\n'
        "  - name: b\n"
        '    scenario: {qualifying_children: 1, modified_agi: "1"}\n'
        '    expectt: {credit: "2000.00"}\n',
        encoding="utf-8",
    )
    done = lextrace_command("test", str(cases))
    assert done.returncode == exits.BAD_INPUT
    positions = [
        tuple(int(n) for n in line.split(":")[1:3])
        for line in done.stderr.splitlines()
        if line.startswith(str(cases) + ":")
    ]
    assert len(positions) >= 3 and positions == sorted(positions), done.stderr


def test_a_refusal_case_may_test_an_unknown_field_by_naming_it(tmp_path: Path) -> None:
    cases = write(
        tmp_path,
        "cases:\n  - name: a misspelt field is refused\n"
        "    scenario: {new_jobs: 12, retained_jobz: 3}\n    refuse: [retained_jobz]\n",
    )
    completed = run("test", str(cases))
    assert completed.returncode == exits.OK, completed.stdout + completed.stderr
    assert "ok    a misspelt field is refused" in completed.stdout
