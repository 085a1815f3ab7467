"""Lists of records and aggregates (tests/other_statutes/payroll.lex): the language, the
scenario reader, the evaluator and its trace, the checker, the deferral of the fast path and
the columnar batch, and the bounded proofs."""

from __future__ import annotations

import json
import marshal
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lextrace import load_statute
from lextrace.cli import main
from lextrace.dsl import cache
from lextrace.dsl.checker import check_statute
from lextrace.dsl.codegen import fast_function
from lextrace.dsl.errors import EncodingError, ScenarioError
from lextrace.dsl.loader import load
from lextrace.tables import Runner
from lextrace.verify.checks import BOUNDED, PROVED, VIOLATED
from lextrace.verify.model import Model, concrete_values
from lextrace.verify.report import render_text, run
from lextrace.verify.strategies import readings, scenarios

HERE = Path(__file__).resolve().parent / "other_statutes"
PAYROLL = HERE / "payroll.lex"


def job(id_: str, kind: str, salary: str, wage: str, **more: object) -> dict[str, object]:
    return {"id": id_, "kind": kind, "annual_salary": salary, "hourly_wage": wage, **more}


PAYROLL_SCENARIO = {
    "minimum_wage": "15.00",
    "jobs": [
        job("J-1", "new", "52000", "25.00"),
        job("J-2", "retained", "41000.50", "19.71", harmony=True),
        job("J-3", "other", "30000", "15.00"),
        job("J-4", "new", "61000", "29.33"),
        job("J-5", "retained", "39000", "18.75"),
    ],
}


@pytest.fixture(scope="module")
def payroll():  # type: ignore[no-untyped-def]
    return load_statute(PAYROLL)


def write_encoding(tmp_path: Path, body: str, inputs: str = "", with_floor: bool = False) -> Path:
    """Writes a one-clause encoding with the payroll's record around `body` (a rule or
    invariant inside clause a.) and returns its path; the input `floor` is declared when
    `body` or `inputs` reads it, or `with_floor` asks for it."""
    (tmp_path / "t.txt").write_text("1. T.\na. The words $1 $2 $3.\n", "utf-8")
    path = tmp_path / "t.lex"
    # The input `floor` is declared only for a body that reads it (an input no rule reads is
    # an error); otherwise a comment keeps the lines where they are.
    wanted = with_floor or "floor" in body + inputs
    floor = 'input floor: money = $1 "a floor";' if wanted else "# no floor"
    path.write_text(
        f"""statute "T" official "t.txt"
record job "a job" {{
  id: text "its name";
  kind: enum(new, other) "its kind";
  pay: money above $0 "its pay";
  hours: count = 40 "its hours";
  covered: bool = false "covered";
}}
input jobs: list of job required "the jobs";
{floor}
{inputs}
results r;
section 1. "T." {{
  a. "The words $1 $2 $3." {{
    {body}
  }}
}}
""",
        "utf-8",
    )
    return path


# ---- the language --------------------------------------------------------------------------
def test_the_payroll_encoding_is_well_formed_and_declares_its_record() -> None:
    statute = load(PAYROLL)
    assert check_statute(statute) == []
    record = statute.records["job"]
    assert list(record.fields) == ["id", "kind", "annual_salary", "hourly_wage", "harmony"]
    assert record.label_field == "id"
    assert str(statute.inputs["jobs"].type) == "list of job"
    assert record.fields["harmony"].default is not None


def test_the_ast_with_records_survives_the_cache_round_trip() -> None:
    statute = load(PAYROLL)
    again = cache.load_dump(cache.dump(statute))
    # The data, not marshal's bytes (which also record which strings the process interned).
    assert marshal.loads(cache.dump(again)) == marshal.loads(cache.dump(statute))
    assert check_statute(again) == []
    assert list(again.records["job"].fields) == list(statute.records["job"].fields)
    assert load_statute(PAYROLL).evaluate(PAYROLL_SCENARIO).values["grant"] == Fraction(3000)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("rule r: count = count of floor;", "'count of' needs a list, and 'floor' is a money"),
        ("rule r: count = count of jobz;", "'jobz' is not a list input"),
        ("rule r: money = sum of salary in jobs;", "record 'job' has no field 'salary'"),
        ("rule r: money = sum of pya in jobs;", "did you mean 'pay'?"),
        ("rule r: count = sum of hour in jobs;", "did you mean 'hours'?"),
        ("rule r: money = sum of covered in jobs;", "needs a numeric field; 'covered' is a bool"),
        ("rule r: count = count of pay in jobs;", "'count of' counts elements, not a field"),
        ("rule r: money = max of jobs;", "'max of' needs a field"),
        ("rule r: bool = any of pay in jobs;", "needs a bool field; 'pay' is a money"),
        ("rule r: count = count of jobs where pay;", "'where' needs a condition (bool)"),
        ("rule r: count = count of jobs where id = floor;", "'id' is a text field"),
        ("rule r: money = (sum of pay in jobs) + 1;", "cannot add money and count"),
        ("rule r: count = jobs;", "'jobs' is a list: use it in an aggregate"),
        ("rule r: count = average of pay in jobs;", "'average of' is not an aggregate"),
        ("rule r: bool = pay > $1;", "unknown name 'pay'"),
    ],
)
def test_the_checker_refuses_a_bad_aggregate_at_its_position(
    tmp_path: Path, body: str, message: str
) -> None:
    path = write_encoding(tmp_path, body)
    with pytest.raises(EncodingError) as raised:
        load(path)
    text = str(raised.value)
    assert message in text
    assert f"{path}:15:" in text  # the rule's line, with a column


def test_aggregates_have_the_units_of_their_field(tmp_path: Path) -> None:
    path = write_encoding(
        tmp_path,
        "rule r: money = (sum of pay in jobs) + (median of pay in jobs where kind = new)"
        " + floor * (count of jobs) + floor * (median_low of hours in jobs)"
        ' reviewed 1 "x";',
    )
    statute = load(path)
    assert [d for d in check_statute(statute) if d.severity == "error"] == []


@pytest.mark.parametrize(
    ("record_line", "message"),
    [
        ('  floor: money "clash";', "field 'floor' of record 'job' has the name of an input"),
        ('  more: list of job "nested";', "is a list: a field holds one value"),
        ('  name: text = 1 "x";', "is text and cannot have a default"),
        ('  extra: money optional "x";', "a field is required unless it has a default"),
    ],
)
def test_a_bad_record_field_is_refused(tmp_path: Path, record_line: str, message: str) -> None:
    path = write_encoding(tmp_path, "rule r: count = count of jobs;", with_floor=True)
    source = path.read_text("utf-8").replace(
        '  id: text "its name";', f'  id: text "its name";\n{record_line}'
    )
    path.write_text(source, "utf-8")
    with pytest.raises(EncodingError) as raised:
        load(path)
    assert message in str(raised.value)


def test_a_list_of_an_undeclared_record_is_refused(tmp_path: Path) -> None:
    path = write_encoding(tmp_path, "rule r: count = 0;", 'input more: list of jobb optional "x";')
    with pytest.raises(EncodingError) as raised:
        load(path)
    assert "a list of 'jobb', which is not a declared record" in str(raised.value)
    assert "did you mean 'job'?" in str(raised.value)


# ---- the evaluator and its trace ---------------------------------------------------------
def test_every_aggregate_evaluates_exactly(payroll) -> None:  # type: ignore[no-untyped-def]
    values = payroll.evaluate(PAYROLL_SCENARIO).values
    assert values == {
        "qualifying_jobs": 4,
        "median_salary": Fraction(9300050, 200),  # (41,000.50 + 52,000) / 2, exact
        "lowest_wage": Fraction(15),
        "payroll_total": Fraction(22300050, 100),
        "top_salary": Fraction(61000),
        "grant": Fraction(3000),
    }
    lower = payroll.evaluate(PAYROLL_SCENARIO, {"I1": "lower-middle"}).values
    assert lower["median_salary"] == Fraction(8200100, 200)


def test_an_odd_count_has_one_middle_job_and_ties_keep_list_order(payroll) -> None:  # type: ignore[no-untyped-def]
    scenario = {
        "minimum_wage": "10",
        "jobs": [
            job("A", "new", "50000", "20"),
            job("B", "new", "40000", "20"),
            job("C", "new", "60000", "20"),
        ],
    }
    result = payroll.evaluate(scenario, trace=True)
    assert result.values["median_salary"] == Fraction(50000)
    step = result.trace.evaluation.steps[("median_salary", ())]
    (use,) = step.aggregates
    assert use.elements == (0,)
    lowest = result.trace.evaluation.steps[("lowest_wage", ())].aggregates[0]
    assert lowest.elements == (0,)  # three jobs at $20: the first of them


def test_the_trace_names_the_jobs_an_aggregate_rests_on(payroll) -> None:  # type: ignore[no-untyped-def]
    result = payroll.evaluate(PAYROLL_SCENARIO, trace=True)
    text = result.explain(width=300)
    assert "the two middle: jobs[1] J-2 and jobs[0] J-1" in text
    assert "min of hourly_wage in jobs = $15.00 (over 5 elements; the lowest: jobs[2] J-3)" in text
    assert "the highest: jobs[3] J-4" in text
    assert "count of jobs where kind = new or kind = retained = 4 (over 4 of 5 elements)" in text
    assert "met by: jobs[1] J-2" in text
    assert "jobs = 5 job elements  (input)" in text
    steps = {step["id"]: step for step in result.to_dict()["trace"]}
    (median,) = steps["median_salary"]["aggregates"]
    assert median["value"] == "46500.25"
    assert median["elements"] == 5 and median["covered"] == 4
    assert median["rests_on"] == [{"index": 1, "id": "J-2"}, {"index": 0, "id": "J-1"}]
    assert steps["lowest_wage"]["uses"] == {"jobs": {"elements": 5}}
    markdown = result.trace.markdown()
    assert "the lowest: jobs[2] J-3" in markdown


def test_a_condition_that_fails_is_named_in_the_trace(payroll) -> None:  # type: ignore[no-untyped-def]
    scenario = {**PAYROLL_SCENARIO, "minimum_wage": "16.00"}
    result = payroll.evaluate(scenario, trace=True)
    assert result.values["grant"] == 0
    assert "not met by: jobs[2] J-3" in result.explain(width=300)


def test_the_trace_does_not_repeat_what_a_condition_uses_per_element(tmp_path: Path) -> None:
    path = write_encoding(tmp_path, "rule r: count = count of jobs where pay >= floor;")
    statute = load_statute(path)
    jobs = [{"id": f"j{i}", "kind": "new", "pay": "2"} for i in range(500)]
    result = statute.evaluate({"jobs": jobs}, trace=True)
    assert result.values["r"] == 500
    step = result.trace.evaluation.steps[("r", ())]
    assert len(step.uses) == 2  # the list and the floor, once each


def test_a_minimum_of_no_element_is_refused_with_exit_2(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    path = write_encoding(tmp_path, "rule r: money = min of pay in jobs where kind = new;")
    statute = load_statute(path)
    with pytest.raises(ScenarioError) as raised:
        statute.evaluate({"jobs": [{"id": "a", "kind": "other", "pay": "3"}]})
    message = str(raised.value)
    assert "field 'jobs': expected at least one element meeting its condition" in message
    assert "given 1 elements, none meeting its condition" in message
    assert "the min of no element has no value" in message
    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps({"jobs": []}), "utf-8")
    assert main(["evaluate", str(scenario), "-e", str(path)]) == 2
    assert "given an empty list" in capsys.readouterr().err


# ---- scenarios -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("jobs", "field", "expected", "given_"),
    [
        (
            [job("a", "new", "1", "1"), job("b", "new", "x", "1")],
            "jobs[1].annual_salary",
            "an amount of money",
            '"x"',
        ),
        (
            [job("a", "new", "1", "1"), job("b", "new", "-2", "1")],
            "jobs[1].annual_salary",
            "an amount of money more than $0",
            "-2",
        ),
        (
            [job("a", "newish", "1", "1")],
            "jobs[0].kind",
            'one of "new", "retained", "other"',
            '"newish"',
        ),
        ([job("", "new", "1", "1")], "jobs[0].id", "a non-empty string", '""'),
        (
            [{**job("a", "new", "1", "1"), "salary": "1"}],
            "jobs[0].salary",
            "one of the fields of a job",
            "an unknown field",
        ),
        (
            [{"id": "a", "kind": "new", "hourly_wage": "1"}],
            "jobs[0].annual_salary",
            "an amount of money",
            "null",
        ),
        ([job("a", "new", "1", "1", harmony="yes")], "jobs[0].harmony", "true or false", '"yes"'),
        (["a job"], "jobs[0]", "a job object with the fields id, kind", '"a job"'),
        ({"id": "a"}, "jobs", "a list of job objects", "an object"),
        ([], "jobs", "a list of at least 1 job elements", "an empty list"),
    ],
)
def test_a_bad_element_is_named_by_its_path(
    payroll,
    jobs: object,
    field: str,
    expected: str,
    given_: str,  # type: ignore[no-untyped-def]
) -> None:
    with pytest.raises(ScenarioError) as raised:
        payroll.evaluate({"minimum_wage": "15", "jobs": jobs})
    problem = raised.value.problems[0]
    assert (problem.field, problem.given) == (field, given_)
    assert problem.expected.startswith(expected)


def test_an_unknown_field_of_an_element_gets_a_suggestion(payroll) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ScenarioError) as raised:
        payroll.evaluate(
            {"minimum_wage": "15", "jobs": [{**job("a", "new", "1", "1"), "harmoni": True}]}
        )
    assert raised.value.problems[0].hint == "did you mean 'harmony'?"


def test_list_amounts_are_read_exactly_from_json_and_yaml(tmp_path: Path, payroll) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "s.json").write_text(
        '{"minimum_wage": 0.1, "jobs": [{"id": "a", "kind": "new", "annual_salary": 0.1,'
        ' "hourly_wage": 0.2}, {"id": "b", "kind": "new", "annual_salary": 0.2,'
        ' "hourly_wage": 0.1}]}',
        "utf-8",
    )
    (tmp_path / "s.yaml").write_text(
        "minimum_wage: 0.1\njobs:\n  - {id: a, kind: new, annual_salary: 0.1, hourly_wage: 0.2}\n"
        "  - {id: b, kind: new, annual_salary: 0.2, hourly_wage: 0.1}\n",
        "utf-8",
    )
    for name in ("s.json", "s.yaml"):
        values = payroll.evaluate_file(tmp_path / name).values
        assert values["payroll_total"] == Fraction(3, 10)  # 0.1 + 0.2, exactly
        assert values["median_salary"] == Fraction(3, 20)


def test_evaluate_names_the_path_and_exits_2(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    scenario = tmp_path / "bad.json"
    jobs = [job("a", "new", "1", "1")] * 17 + [job("b", "new", "-1", "1")]
    scenario.write_text(json.dumps({"minimum_wage": "1", "jobs": jobs}), "utf-8")
    assert main(["evaluate", str(scenario), "-e", str(PAYROLL)]) == 2
    err = capsys.readouterr().err
    assert (
        f"{scenario}: field 'jobs[17].annual_salary': expected an amount of money more than $0, "
        "given -1" in err
    )
    assert "Traceback" not in err


def test_the_cases_file_of_the_payroll_passes() -> None:
    assert main(["test", str(HERE / "payroll.cases.yaml")]) == 0


# ---- the fast path and the columnar batch defer, and agree ----------------------------------
def test_the_fast_path_defers_lists_to_the_reference_evaluator(payroll) -> None:  # type: ignore[no-untyped-def]
    selected = payroll.select_readings()
    assert fast_function(payroll.ast, selected) is None
    fast = payroll.evaluate(PAYROLL_SCENARIO)
    traced = payroll.evaluate(PAYROLL_SCENARIO, trace=True)
    assert fast.trace is None and fast.values == traced.values


def test_a_batch_of_payrolls_is_evaluated_row_by_row_with_the_same_results(
    tmp_path: Path,
    payroll,  # type: ignore[no-untyped-def]
) -> None:
    assert Runner(payroll, payroll.select_readings()).engine is None
    rows = [
        PAYROLL_SCENARIO,
        {"minimum_wage": "15", "jobs": [job("a", "other", "100", "14")]},
        {"minimum_wage": "15", "jobs": [job("a", "new", "-1", "16")]},
        {**PAYROLL_SCENARIO, "readings": {"I1": "lower-middle"}},
    ]
    population = tmp_path / "p.jsonl"
    population.write_text("\n".join(json.dumps(r) for r in rows) + "\n", "utf-8")
    output = tmp_path / "out.jsonl"
    assert main(["batch", str(population), "-e", str(PAYROLL), "-o", str(output)]) == 2
    records = [json.loads(line) for line in output.read_text("utf-8").splitlines()]
    assert records[2]["error"][0]["field"] == "jobs[0].annual_salary"
    for row, record in zip(rows[:2] + rows[3:], records[:2] + records[3:], strict=True):
        expected = payroll.evaluate(row).to_dict()
        assert record == expected
    assert records[3]["median_salary"] == "41000.50"


# ---- proofs --------------------------------------------------------------------------------
def test_checks_on_lists_are_bounded_never_proved() -> None:
    report = run(load(PAYROLL), 20.0, 120.0)
    statuses = {o.check.name: o.status for o in report.outcomes}
    assert set(statuses.values()) == {BOUNDED}
    assert report.ok
    text = render_text(report)
    assert "BOUNDED" in text and "proved for lists of up to 4 elements only" in text
    assert "PROVED" not in text.replace("BOUNDED", "")


def test_a_property_true_only_of_short_lists_is_bounded_not_proved(tmp_path: Path) -> None:
    path = write_encoding(
        tmp_path,
        'rule r: count = count of jobs;\n    invariant short "few jobs": r <= 4 reviewed 4 "x";',
    )
    (outcome,) = [o for o in run(load(path), 20.0, 60.0).outcomes if o.check.name == "short"]
    assert outcome.status == BOUNDED  # false for five jobs: never called PROVED


def test_a_monotone_property_true_only_of_short_lists_is_bounded_not_proved(
    tmp_path: Path,
) -> None:
    # Proved step by step (verify/monotone.py) over the model's four elements at most, as the
    # whole formula is: for five jobs, r rises with floor.
    path = write_encoding(
        tmp_path,
        "rule r: money = if (count of jobs) >= 5 then floor else $0 - floor\n"
        '      reviewed 5 "x";\n'
        '    monotone falls "r falls": r fall with floor;',
    )
    (outcome,) = [o for o in run(load(path), 20.0, 60.0).outcomes if o.check.kind == "monotone"]
    assert outcome.status == BOUNDED
    assert "local steps" in outcome.detail


def test_a_check_that_does_not_rest_on_a_list_is_still_proved(tmp_path: Path) -> None:
    path = write_encoding(
        tmp_path,
        "rule r: count = count of jobs where pay >= floor;\n"
        "    rule doubled: money = floor + floor;\n"
        '    invariant floor_set "a floor": doubled >= $0;',
        inputs="",
    )
    source = path.read_text("utf-8").replace(
        'input floor: money = $1 "a floor";', 'input floor: money = $1 min $0 "a floor";'
    )
    path.write_text(source.replace("results r;", "results r, doubled;"), "utf-8")
    (outcome,) = [o for o in run(load(path), 20.0, 60.0).outcomes if o.check.name == "floor_set"]
    assert outcome.status == PROVED


def test_a_violation_over_a_list_is_a_real_scenario_the_evaluator_confirms(tmp_path: Path) -> None:
    path = write_encoding(
        tmp_path,
        "rule r: money = max of pay in jobs where kind = new;\n"
        '    invariant small "a small top pay": r <= $3;',
    )
    statute = load(path)
    (outcome,) = [o for o in run(statute, 20.0, 60.0).outcomes if o.check.name == "small"]
    assert outcome.status == VIOLATED
    (scenario,) = outcome.counterexample
    result = load_statute(path).evaluate(scenario)
    assert result.values["r"] > 3
    assert any(element["kind"] == "new" for element in scenario["jobs"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_proof_model_and_the_evaluator_agree_on_lists(data: st.DataObject) -> None:
    statute = load_statute(PAYROLL)
    model = Model(statute.ast, "__agree", collect=False)
    scenario = data.draw(scenarios(statute.ast))
    selected = statute.select_readings(data.draw(readings(statute.ast)))
    assert len(scenario["jobs"]) <= model.list_bound
    result = statute.evaluate(scenario, selected)
    names = list(statute.ast.result_names)
    assert concrete_values(model, result.inputs, selected, names) == result.values


def test_the_site_prose_names_the_middle_jobs_and_the_lowest_paid(payroll) -> None:  # type: ignore[no-untyped-def]
    from lextrace.dsl.prose import Narrator

    result = payroll.evaluate(PAYROLL_SCENARIO, trace=True)
    narrator = Narrator(result.trace)
    steps = {step.key[0]: step for step in result.trace.steps}
    lowest = narrator.explain(steps["lowest_wage"])
    assert lowest.value == "$15.00"
    assert "the lowest: jobs[2] J-3" in lowest.text
    median = narrator.explain(steps["median_salary"]).text
    assert "$46,500.25 (median of annual_salary in jobs" in median
    assert "the two middle: jobs[1] J-2 and jobs[0] J-1" in median
    counted = narrator.explain(steps["base_grant"]).text
    assert "$500 * 4" in counted


def test_the_scenario_contract_lists_the_fields_of_the_elements() -> None:
    from lextrace.dsl.contract import fields

    found = {f.name: f for f in fields(load(PAYROLL))}
    assert found["jobs"].type == "list of job" and found["jobs"].constraints == "at least 1"
    assert "(b)" in found["jobs"].clauses  # the median's clause uses the list
    assert found["jobs[].annual_salary"].constraints == "more than $0"
    assert found["jobs[].harmony"].default == "false"
    assert found["jobs[].id"].default == "required"


def test_an_aggregate_with_no_list_is_a_syntax_error_at_its_position(tmp_path: Path) -> None:
    path = write_encoding(tmp_path, "rule r: count = count of where kind = new;")
    with pytest.raises(EncodingError) as raised:
        load(path)
    assert f"{path}:15:36: error: unexpected 'kind'" in str(raised.value)


def test_an_aggregate_with_where_inside_an_expression_is_told_to_take_parentheses(
    tmp_path: Path,
) -> None:
    path = write_encoding(tmp_path, "rule r: count = 2 * count of jobs where covered;")
    with pytest.raises(EncodingError) as raised:
        load(path)
    assert "unexpected 'where'" in str(raised.value)
    assert "goes in parentheses: (count of ... where ...)" in str(raised.value)
    # Without an aggregate before it, `where` for `when` is the likelier slip.
    path = write_encoding(tmp_path, "rule r: count = 2 where floor > $1;")
    with pytest.raises(EncodingError) as raised:
        load(path)
    assert "did you mean 'when'?" in str(raised.value)


def test_a_field_named_by_a_word_of_its_name_is_suggested(tmp_path: Path) -> None:
    """`wage` for the field `hourly_wage`: spelled too differently for difflib, a whole word of
    one field's name."""
    path = write_encoding(tmp_path, "rule r: money = min of wage in jobs;")
    source = path.read_text(encoding="utf-8").replace("  pay: money", "  hourly_wage: money")
    path.write_text(source, encoding="utf-8")
    with pytest.raises(EncodingError) as raised:
        load(path)
    assert "record 'job' has no field 'wage'" in str(raised.value)
    assert "did you mean 'hourly_wage'?" in str(raised.value)


def test_braces_after_a_passage_are_one_error_with_its_cure(tmp_path: Path) -> None:
    # Inside a clause, a passage's rules follow it without braces of their own.
    path = write_encoding(
        tmp_path, '"The words $1 $2 $3." {\n      rule r: count = count of jobs;\n    }'
    )
    with pytest.raises(EncodingError) as raised:
        load(path)
    (only,) = raised.value.diagnostics
    assert only.message == "unexpected '{'"
    assert only.hint is not None and "takes no braces: write its rules after it" in only.hint
