"""Well-definedness where the evaluator computes a rule: a rule a result uses only under a
condition (`if limit is given then capped`) is asked to be defined only where that condition
holds, as the evaluator computes it; a use without the guard is still refuted, and a scenario
an evaluation does not refuse is never left out of a proof (verify/model.py, `Model.demand`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lextrace import load_statute
from lextrace.verify.checks import PROVED, VIOLATED
from lextrace.verify.report import run

GUARDED_MISSING = (
    """
input limit: money optional min $0 "the limit, when one is set";

results amount;

section 9. "Limits." {
  a. "The capped amount is the limit." {
    rule capped: money = limit;
  }
  b. "The amount is $100, or the capped amount when a limit is given." {
    rule amount: money = AMOUNT;
  }
}
""",
    "if limit is given then capped else $100",
    "capped",
    100,
)

GUARDED_DIVISION = (
    """
input jobs_total: count = 0 "the number of jobs";
input payroll: money = $0 min $0 "the payroll";

results amount;

section 9. "Averages." {
  a. "The average pay is the payroll divided by the number of jobs." {
    rule average: money = payroll / jobs_total;
  }
  b. "The amount is the average pay when there is a job, and $0 otherwise." {
    rule amount: money = AMOUNT;
  }
}
""",
    "if jobs_total > 0 then average else $0",
    "average",
    0,
)

GUARDED_CASES = (
    """
input employees: count = 0 "the number of employees";

results amount;

section 9. "Grants." {
  a. "A small employer's grant is $500 when it has 1 to 10 employees, and $300 when it has 11
      to 50 employees." {
    cases small_grant: money exclusive;
    case small_grant = $500 when employees >= 1 and employees <= 10;
    case small_grant = $300 when employees >= 11 and employees <= 50;
  }
  b. "The amount is the small employer's grant for an employer with 1 to 50 employees, and $0
      otherwise." {
    rule amount: money = AMOUNT;
  }
}
""",
    "if employees >= 1 and employees <= 50 then small_grant else $0",
    "small_grant",
    0,
)

GUARDED_CALL = (
    """
input jobs_total: count = 0 "the number of jobs";
input payroll: money = $0 min $0 "the payroll";

results amount;

section 9. "Shares." {
  a. "A member's share is the payroll divided by the number of jobs; others have no share." {
    rule share(as_member: bool): money = if as_member then payroll / jobs_total else $0;
  }
  b. "The amount is a member's share when there is a job, and otherwise the share of others." {
    rule amount: money = AMOUNT;
  }
}
""",
    "if jobs_total > 0 then share(as_member: true) else share(as_member: false)",
    "share(as_member: true)",
    0,
)


def _encoding(tmp_path: Path, body: str, amount: str) -> Path:
    """Writes an encoding of one section 9 whose `amount` rule is `amount`, with the official
    text of the clauses it carries."""
    source = body.replace("AMOUNT", amount)
    heading = source.split('section 9. "', 1)[1].split('"', 1)[0]
    clauses = [
        f"{label}. " + " ".join(source.split(f'  {label}. "', 1)[1].split('"', 1)[0].split())
        for label in ("a", "b")
    ]
    official = "\n".join([f"9. {heading}", *clauses]) + "\n"
    (tmp_path / "act.txt").write_text(official, encoding="utf-8")
    path = tmp_path / "act.lex"
    path.write_text(f'statute "Guard Act s.9"\n  official "act.txt"\n{source}', encoding="utf-8")
    return path


def _outcomes(path: Path) -> dict[str, str]:
    report = run(load_statute(path).ast, timeout_seconds=10, budget_seconds=60)
    return {o.check.name: o.status for o in report.outcomes}


@pytest.mark.parametrize(
    "encoding", [GUARDED_MISSING, GUARDED_DIVISION, GUARDED_CASES, GUARDED_CALL]
)
def test_a_rule_used_only_where_it_is_defined_is_proved(
    tmp_path: Path, encoding: tuple[str, str, str, int]
) -> None:
    body, guarded, _, amount = encoding
    outcomes = _outcomes(_encoding(tmp_path, body, guarded))
    well_defined = [n for n in outcomes if n.split(":")[0] in (
        "missing value", "division by zero", "exhaustive", "exclusive"
    )]  # fmt: skip
    assert well_defined, outcomes
    assert {outcomes[n] for n in well_defined} == {PROVED}, outcomes
    # The evaluator agrees: the scenario the unguarded rule fails on evaluates here.
    statute = load_statute(_encoding(tmp_path, body, guarded))
    assert statute.evaluate({})["amount"] == amount


@pytest.mark.parametrize(
    "encoding", [GUARDED_MISSING, GUARDED_DIVISION, GUARDED_CASES, GUARDED_CALL]
)
def test_the_same_rule_used_without_its_guard_is_refuted_by_the_evaluator(
    tmp_path: Path, encoding: tuple[str, str, str, int]
) -> None:
    body, _, unguarded, _ = encoding
    outcomes = _outcomes(_encoding(tmp_path, body, unguarded))
    assert VIOLATED in outcomes.values(), outcomes
    # VIOLATED, not ERROR: the evaluator reproduces each counterexample.
    assert set(outcomes.values()) <= {PROVED, VIOLATED}, outcomes


def test_each_instance_of_a_parameterised_rule_has_its_own_check_and_outcome(
    tmp_path: Path,
) -> None:
    # `share(as_member: true)` divides by a count that may be zero, `share(as_member: false)`
    # divides by nothing: one breach, and the proved instance beside it does not hide it.
    body, _, _, _ = GUARDED_CALL
    outcomes = _outcomes(_encoding(tmp_path, body, "share(as_member: payroll > $0)"))
    by_instance = {n.rsplit(", ", 1)[-1]: status for n, status in outcomes.items()}
    assert by_instance == {"as_member=true)": VIOLATED, "as_member=false)": PROVED}, outcomes


WAGES = """statute "Wage Act s.6"
  official "wages.txt"

record job "a job" {
  wage: money above $0 "the job's hourly wage";
}

input jobs: list of job required "the jobs";

results amount;

section 6. "Amounts." {
  a. "The lowest wage is the lowest hourly wage of the jobs." {
    rule lowest: money = min of wage in jobs;
  }
  b. "The amount is the lowest wage when there is a job, and $0 when there is none." {
    rule amount: money = if count of jobs > 0 then lowest else $0;
    invariant positive "The amount is more than $0.": amount > $0;
  }
}
"""


def test_an_empty_list_is_refused_only_where_its_minimum_is_computed(tmp_path: Path) -> None:
    # The minimum of no job is never computed here: a scenario without jobs is valid, gets
    # $0, and so breaks the invariant. Refusing every empty list would prove it.
    (tmp_path / "wages.txt").write_text(
        "6. Amounts.\n"
        "a. The lowest wage is the lowest hourly wage of the jobs.\n"
        "b. The amount is the lowest wage when there is a job, and $0 when there is none.\n",
        encoding="utf-8",
    )
    path = tmp_path / "wages.lex"
    path.write_text(WAGES, encoding="utf-8")
    report = run(load_statute(path).ast, timeout_seconds=10, budget_seconds=60)
    (outcome,) = [o for o in report.outcomes if o.check.name == "positive"]
    assert outcome.status == VIOLATED
    assert outcome.counterexample == [{"jobs": []}]
    assert load_statute(path).evaluate({"jobs": []})["amount"] == 0
