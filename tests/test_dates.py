"""Dates and durations: the calendar arithmetic, the checker's types, scenario values, every
consumer, and the proofs (tests/other_statutes/residence.lex)."""

from __future__ import annotations

import datetime
import json
import marshal
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lextrace import exits, load_statute
from lextrace.cli import main
from lextrace.dsl import ast, cache, dates
from lextrace.dsl.checker import check_statute
from lextrace.dsl.codegen import fast_function
from lextrace.dsl.columnar import Engine, Unsupported
from lextrace.dsl.errors import EncodingError, ScenarioError
from lextrace.dsl.loader import analyse, load
from lextrace.dsl.numbers import stated_durations
from lextrace.verify.checks import PROVED, VIOLATED
from lextrace.verify.model import Model, concrete_values
from lextrace.verify.report import run
from lextrace.verify.strategies import readings, scenarios

OTHER = Path(__file__).resolve().parent / "other_statutes"
RESIDENCE = OTHER / "residence.lex"
D = datetime.date


# ---- the calendar ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("day", "duration", "rounding", "expected"),
    [
        (D(2024, 1, 31), dates.Duration(1, 0), "round-down", D(2024, 2, 29)),
        (D(2024, 1, 31), dates.Duration(1, 0), "round-up", D(2024, 3, 1)),
        (D(2023, 1, 31), dates.Duration(1, 0), "round-down", D(2023, 2, 28)),
        (D(2023, 1, 31), dates.Duration(1, 0), "round-up", D(2023, 3, 1)),
        (D(2024, 2, 29), dates.Duration(12, 0), "round-down", D(2025, 2, 28)),
        (D(2024, 2, 29), dates.Duration(12, 0), "round-up", D(2025, 3, 1)),
        (D(2024, 2, 29), dates.Duration(48, 0), "refuse-ambiguous", D(2028, 2, 29)),
        (D(2024, 3, 31), dates.Duration(-1, 0), "round-down", D(2024, 2, 29)),
        (D(2024, 1, 15), dates.Duration(1, 20), "refuse-ambiguous", D(2024, 3, 6)),
        (D(2024, 12, 31), dates.Duration(0, 1), "refuse-ambiguous", D(2025, 1, 1)),
        (D(2024, 3, 1), dates.Duration(0, -1), "refuse-ambiguous", D(2024, 2, 29)),
        (D(2023, 12, 15), dates.Duration(2, 0), "refuse-ambiguous", D(2024, 2, 15)),
    ],
)
def test_month_ends_and_leap_days(
    day: datetime.date, duration: dates.Duration, rounding: dates.Rounding, expected: datetime.date
) -> None:
    assert dates.add(day, duration, rounding) == expected


@pytest.mark.parametrize(
    ("day", "duration"),
    [(D(2024, 1, 31), dates.Duration(1, 0)), (D(2024, 2, 29), dates.Duration(12, 0))],
)
def test_an_ambiguous_day_is_refused_by_default(
    day: datetime.date, duration: dates.Duration
) -> None:
    with pytest.raises(dates.DateError, match="ambiguous"):
        dates.add(day, duration, dates.DEFAULT_ROUNDING)


def test_durations_of_months_and_of_days_do_not_compare() -> None:
    assert dates.compare(">", dates.Duration(24, 0), dates.Duration(18, 0))
    assert dates.compare("<", dates.Duration(0, 30), dates.Duration(0, 31))
    assert dates.compare("=", dates.Duration(0, 0), dates.Duration(0, 0))
    with pytest.raises(dates.DateError, match="cannot be compared"):
        dates.compare(">", dates.Duration(1, 0), dates.Duration(0, 30))


def test_a_date_outside_the_calendar_is_an_error() -> None:
    with pytest.raises(dates.DateError, match="outside the calendar"):
        dates.add(D(9999, 12, 31), dates.Duration(0, 1), "round-down")


def test_durations_in_words_are_stated() -> None:
    found = stated_durations("within thirty (30) days, five years, a 2-year term, 6 months")
    assert found == {(30, "day"), (5, "year"), (2, "year"), (6, "month")}


# ---- the residence encoding -----------------------------------------------------------------
def test_the_residence_encoding_checks_and_its_cases_pass() -> None:
    statute = load(RESIDENCE)
    assert check_statute(statute) == []
    assert statute.date_rounding == "round-down"
    assert statute.inputs["admitted"].type.kind == "date"
    assert main(["test", str(OTHER / "residence.cases.yaml")]) == exits.OK


def test_dates_evaluate_and_explain_in_every_rendering() -> None:
    statute = load_statute(RESIDENCE)
    result = statute.evaluate({"admitted": "2024-02-29", "filed": "2029-03-31"}, trace=True)
    assert result.values["residence_complete"] == D(2029, 2, 28)
    assert result.values["resided"] == dates.Duration(0, 1857)
    assert result.values["late"] is True
    assert result.values["admission_year"] == 2024
    output = result.to_dict()
    assert output["residence_complete"] == "2029-02-28"
    assert output["resided"] == {"months": 0, "days": 1857}
    text = result.explain()
    assert "residence_complete = 2029-02-28" in text and "resided = 1857 days" in text
    assert "filing_deadline = 2029-03-30" in text
    assert "| 2029-02-28 |" in result.trace.markdown()


def test_the_site_prose_and_the_scenario_contract_speak_of_dates() -> None:
    from lextrace.dsl.contract import fields
    from lextrace.dsl.prose import Narrator

    statute = load_statute(RESIDENCE)
    result = statute.evaluate({"admitted": "2024-02-29", "filed": "2029-03-31"}, trace=True)
    narrator = Narrator(result.trace)
    steps = {step.key[0]: step for step in result.trace.steps}
    complete = narrator.explain(steps["residence_complete"])
    assert complete.value == "2029-02-28"
    assert "2024-02-29 + 5 years" in complete.text
    assert narrator.explain(steps["resided"]).value == "1857 days"
    found = {f.name: f for f in fields(statute.ast)}
    assert found["admitted"].type == "date"
    assert found["admitted"].constraints == "at least 1900-01-01; at most 2100-12-31"


def test_the_prose_shows_the_date_a_duration_leads_to(tmp_path: Path) -> None:
    from lextrace.dsl.prose import Narrator

    statute = load_statute(write_encoding(tmp_path, "rule r: bool = end >= start + 1 month;"))
    result = statute.evaluate({"start": "2024-01-15", "end": "2024-02-14"}, trace=True)
    assert result.trace is not None
    (step,) = result.trace.steps
    text = Narrator(result.trace).explain(step).text
    assert "2024-02-14 >= (2024-01-15 + 1 month = 2024-02-15)" in text, text


def test_the_ast_with_dates_survives_the_cache_round_trip() -> None:
    statute = load(RESIDENCE)
    again = cache.load_dump(cache.dump(statute))
    # The data, not marshal's bytes (which also record which strings the process interned).
    assert marshal.loads(cache.dump(again)) == marshal.loads(cache.dump(statute))
    assert again.date_rounding == "round-down"
    assert check_statute(again) == []


def test_the_fast_path_and_the_columnar_batch_defer_dates(tmp_path: Path) -> None:
    statute = load_statute(RESIDENCE)
    assert fast_function(statute.ast, statute.select_readings()) is None
    with pytest.raises(Unsupported, match="dates"):
        Engine(statute.ast, statute.select_readings())
    rows = [
        {"admitted": "2019-03-15", "filed": "2024-03-15"},
        {"admitted": "2019-03-15", "filed": "2024-05-15"},
    ]
    population = tmp_path / "p.jsonl"
    population.write_text("\n".join(json.dumps(r) for r in rows) + "\n", "utf-8")
    output = tmp_path / "out.jsonl"
    assert main(["batch", str(population), "-e", str(RESIDENCE), "-o", str(output)]) == 0
    records = [json.loads(line) for line in output.read_text("utf-8").splitlines()]
    assert [r["late"] for r in records] == [False, True]
    assert records[0] == statute.evaluate(rows[0]).to_dict()


@pytest.mark.parametrize(
    ("scenario", "field", "message"),
    [
        ({"admitted": "2019-3-15", "filed": "2024-03-15"}, "admitted", "YYYY-MM-DD"),
        ({"admitted": 20190315, "filed": "2024-03-15"}, "admitted", "given 20190315"),
        ({"admitted": "2023-02-29", "filed": "2024-03-15"}, "admitted", "not in the calendar"),
        ({"admitted": "1899-12-31", "filed": "2024-03-15"}, "admitted", "at least 1900-01-01"),
        ({"admitted": "2019-03-15", "filed": "2019-03-14"}, "filed", "at least admitted"),
        (
            {"admitted": datetime.datetime(2019, 3, 15, 10), "filed": "2024-03-15"},
            "admitted",
            "without a time of day",
        ),
    ],
)
def test_a_bad_date_is_refused_with_its_field(
    scenario: dict[str, object], field: str, message: str
) -> None:
    with pytest.raises(ScenarioError) as raised:
        load_statute(RESIDENCE).evaluate(scenario)
    assert raised.value.field == field
    assert message in str(raised.value)
    assert "a date written YYYY-MM-DD" in str(raised.value) or "at least" in str(raised.value)


def test_yaml_and_toml_dates_are_read_exactly(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "s.yaml").write_text("admitted: 2019-03-15\nfiled: 2024-03-15\n", "utf-8")
    (tmp_path / "s.toml").write_text("admitted = 2019-03-15\nfiled = 2024-03-15\n", "utf-8")
    for name in ("s.yaml", "s.toml"):
        path = str(tmp_path / name)
        assert main(["evaluate", path, "-e", str(RESIDENCE), "--format", "json"]) == 0
        assert json.loads(capsys.readouterr().out)["residence_complete"] == "2024-03-15"
    (tmp_path / "t.toml").write_text("admitted = 2019-03-15T10:00:00\nfiled = 2024-03-15\n")
    assert main(["evaluate", str(tmp_path / "t.toml"), "-e", str(RESIDENCE)]) == 2
    assert "without a time of day" in capsys.readouterr().err


# ---- the checker ------------------------------------------------------------------------------
def write_encoding(tmp_path: Path, body: str, header: str = "") -> Path:
    """Writes a one-clause encoding with two date inputs around `body` (rules inside (a))."""
    (tmp_path / "t.txt").write_text("1. T.\n(a) 30 days, 1 month, $5, 2024-01-31.\n", "utf-8")
    path = tmp_path / "t.lex"

    def declared(name: str, declaration: str) -> str:
        # An input no rule reads is an error: an unread one keeps its line as a comment.
        return declaration if re.search(rf"\b{name}\b", body) else f"# {declaration}"

    path.write_text(
        f"""statute "T" official "t.txt" {header}
{declared("start", 'input start: date required "a day";')}
{declared("end", 'input end: date required "another day";')}
{declared("pay", 'input pay: money = $0 "an amount";')}
results r;
section 1. "T." {{
  (a) "30 days, 1 month, $5, 2024-01-31." {{
    {body}
  }}
}}
""",
        "utf-8",
    )
    return path


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("rule r: date = start + 30;", "cannot add date and count"),
        ("rule r: money = pay + 30 days;", "cannot add money and duration"),
        ("rule r: date = start + end;", "cannot add date and date"),
        ("rule r: bool = start > 5;", "cannot compare date with count"),
        ("rule r: bool = start - end > 30;", "cannot compare duration with count"),
        ("rule r: count = start;", "rule 'r' is declared count, but its value is a date"),
        ("rule r: count = year of pay;", "'year of' takes a date, given an amount of money"),
        ("rule r: date = start when pay > $5;", "a date rule cannot have 'when'"),
        ("rule r: duration = start * 2;", "cannot multiply date and count"),
        ("rule r: date = start + 2 years;", "the duration 2 years in 'r' is not stated"),
        ("rule r: bool = start > 2024-02-01;", "the date 2024-02-01 in 'r' is not stated"),
        ("rule r: date = 2024-02-30;", "2024-02-30 is not a date of the calendar"),
        # A date difference counts days; whether 1 month is more than 30 days depends on it.
        ("rule r: bool = end - start >= 1 month;", "cannot compare a duration in days with one"),
        ("rule r: bool = 1 month < 30 days;", "cannot compare a duration in days with one in"),
    ],
)
def test_the_checker_refuses_bad_date_arithmetic_at_its_position(
    tmp_path: Path, body: str, message: str
) -> None:
    path = write_encoding(tmp_path, body)
    with pytest.raises(EncodingError) as raised:
        load(path)
    text = str(raised.value)
    assert message in text
    assert f"{path}:8:" in text  # the rule's line, with a column


def test_well_typed_date_arithmetic_checks(tmp_path: Path) -> None:
    body = (
        "rule r: bool = start + 1 month - 30 days <= end and end - start >= 30 days"
        " and year of (start + 30 days) >= year of start and max(start, end) >= 2024-01-31;"
    )
    found = check_statute(load(write_encoding(tmp_path, body)))
    assert [d.message for d in found if d.severity == "error"] == []


def test_a_duration_input_is_refused(tmp_path: Path) -> None:
    path = write_encoding(tmp_path, "rule r: bool = true;")
    path.write_text(
        path.read_text("utf-8").replace(
            '# input pay: money = $0 "an amount";', 'input wait: duration required "a wait";'
        ),
        "utf-8",
    )
    with pytest.raises(EncodingError, match="input 'wait' is a duration"):
        load(path)


def test_an_ambiguous_day_refuses_the_scenario_at_the_expression(
    tmp_path: Path,
    capsys,  # type: ignore[no-untyped-def]
) -> None:
    path = write_encoding(tmp_path, "rule r: date = start + 1 month;")
    scenario = tmp_path / "s.json"
    scenario.write_text('{"start": "2024-01-31"}', "utf-8")
    assert main(["evaluate", str(scenario), "-e", str(path)]) == exits.BAD_INPUT
    error = capsys.readouterr().err
    assert "`start + 1 month`" in error and f"{path}:8:20" in error
    assert "2024-02 has no day 31" in error and "dates round-down" in error
    # the same encoding rounding down gives a value
    rounded = write_encoding(tmp_path, "rule r: date = start + 1 month;", "dates round-down")
    result = load_statute(rounded).evaluate({"start": "2024-01-31"})
    assert result.values["r"] == D(2024, 2, 29)


# ---- the proofs --------------------------------------------------------------------------------
def test_the_residence_invariants_are_proved_on_the_exact_calendar() -> None:
    report = run(load(RESIDENCE), 30.0, 120.0)
    assert {o.status for o in report.outcomes} == {PROVED}


def test_a_false_calendar_claim_is_violated_and_replays(tmp_path: Path) -> None:
    source = RESIDENCE.read_text("utf-8").replace("resided >= 1826 days", "resided >= 1827 days")
    source = source.replace("reviewed 1826 days", "reviewed 1827 days")
    for name in ("residence.txt",):
        (tmp_path / name).write_text((OTHER / name).read_text("utf-8"), "utf-8")
    path = tmp_path / "residence.lex"
    path.write_text(source, "utf-8")
    (outcome,) = [
        o for o in run(load(path), 30.0, 120.0).outcomes if o.check.name == "five_years_are_days"
    ]
    assert outcome.status == VIOLATED
    (scenario,) = outcome.counterexample
    result = load_statute(path).evaluate(scenario)
    assert result.values["eligible"] is True
    assert result.values["resided"] == dates.Duration(0, 1826)  # exactly five years, one leap day


def test_an_ambiguous_day_is_a_violated_obligation_with_a_replayable_counterexample(
    tmp_path: Path,
) -> None:
    path = write_encoding(tmp_path, "rule r: date = start + 1 month;")
    source = path.read_text("utf-8").replace(
        'input start: date required "a day";',
        'input start: date required min 2000-01-01 max 2100-12-31 "a day";',
    )
    path.write_text(source, "utf-8")
    outcomes = run(load(path), 30.0, 60.0).outcomes
    (outcome,) = [o for o in outcomes if o.check.name.startswith("ambiguous date")]
    assert outcome.status == VIOLATED
    (scenario,) = outcome.counterexample
    start = datetime.date.fromisoformat(str(scenario["start"]))
    assert start.day >= 29  # a day the next month does not have
    with pytest.raises(ScenarioError, match="ambiguous"):
        load_statute(path).evaluate(scenario)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_proof_model_and_the_evaluator_agree_on_dates(data: st.DataObject) -> None:
    statute = load_statute(RESIDENCE)
    model = Model(statute.ast, "__agree", collect=False)
    scenario = data.draw(scenarios(statute.ast))
    selected = statute.select_readings(data.draw(readings(statute.ast)))
    result = statute.evaluate(scenario, selected)
    names = list(statute.ast.result_names)
    assert concrete_values(model, result.inputs, selected, names) == result.values


@settings(max_examples=80, deadline=None)
@given(
    day=st.dates(D(1900, 1, 1), D(2100, 12, 31)),
    months=st.integers(-30, 30),
    days=st.integers(-400, 400),
    rounding=st.sampled_from(["round-down", "round-up"]),
)
def test_the_proof_models_calendar_is_the_evaluators(
    day: datetime.date,
    months: int,
    days: int,
    rounding: str,
    tmp_path_factory,  # type: ignore[no-untyped-def]
) -> None:
    import z3

    from lextrace.verify import model as proof

    folder = tmp_path_factory.mktemp("calendar")
    path = write_encoding(folder, "rule r: date = start + 30 days;", f"dates {rounding}")
    statute = load(path)
    built = Model(statute, "__cal", collect=False)
    start = z3.IntVal(day.toordinal())
    duration = proof.duration_term(months, days)
    expr = statute.definitions["r"].expr  # a `+` of a date and a duration
    assert isinstance(expr, ast.BinOp)
    term = built._calendar(expr, start, duration, z3.BoolVal(True), False)
    solver = z3.Solver()
    solver.add(*built.constraints)
    assert solver.check() == z3.sat
    found = solver.model().eval(term, model_completion=True).as_long()
    expected = dates.add(day, dates.Duration(months, days), rounding)  # type: ignore[arg-type]
    assert found == expected.toordinal()


def test_the_highlighter_takes_dates_durations_and_the_rounding() -> None:
    from pygments.lexers import get_lexer_by_name
    from pygments.token import Error, Keyword, Number

    text = RESIDENCE.read_text("utf-8")
    lexer = get_lexer_by_name("lextrace")
    found = [(t, v) for t, v in lexer.get_tokens(text) if v.strip()]
    assert not [v for t, v in found if t in Error]
    assert (Number, "1900-01-01") in [(t, v) for t, v in found if t in Number]
    assert any(v == "round-down" and t in Keyword for t, v in found)
    assert any(v == "years" and t in Keyword for t, v in found)


# ---- a month and a day named by the words ------------------------------------------------------
YEAR_END_WORDS = (
    "1. a. A claimant who is 65 years of age or older on December 31 of the tax year.\n"
)
YEAR_END_ENCODING = """statute "Act"
  official "act.txt"

input birth_date: date required min 1900-01-01 max 2100-12-31 named "years of age"
  "the claimant's date of birth";
input tax_year: count required min 1901 max 2100 named "tax year" "the tax year";

results meets_age;

section 1. {
  a. "A claimant who is 65 years of age or older on December 31 of the tax year." {
    rule year_end: date = date(tax_year, MONTH, DAY);
    rule meets_age: bool = birth_date + 65 years <= year_end;
  }
}
"""


@pytest.mark.parametrize(
    ("month", "day", "refused"), [(12, 31, []), (11, 30, ["11", "30"]), (12, 30, ["12", "30"])]
)
def test_a_month_and_day_the_words_name_are_stated_for_date(
    tmp_path: Path, month: int, day: int, refused: list[str]
) -> None:
    """ "December 31" states the month 12 and the day 31 of `date(tax_year, 12, 31)`; another
    day, or the same month with another day, is not stated."""
    (tmp_path / "act.txt").write_text(YEAR_END_WORDS, encoding="utf-8")
    source = YEAR_END_ENCODING.replace("MONTH", str(month)).replace("DAY", str(day))
    (tmp_path / "act.lex").write_text(source, encoding="utf-8")
    errors = [d.message for d in analyse(tmp_path / "act.lex").errors]
    assert errors == [
        f"the number {n} in 'year_end' is not stated in the words of (a)" for n in refused
    ]


def test_month_days_are_read_in_either_order() -> None:
    assert dates.stated_month_days("on December 31 or 1 July, not on Monday 5") == {
        (12, 31),
        (7, 1),
    }
    assert dates.stated_month_days("February 30 of the year") == set()
