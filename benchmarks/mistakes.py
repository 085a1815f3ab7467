"""Realistic mistakes an encoder makes in statute/nj-34-1b-343.lex, and what catches them.

    python -m benchmarks.mistakes            # every mistake: `lextrace check`, then `verify`
    python -m benchmarks.mistakes --only 3   # one of them

Each mistake is a copy of the bundled encoding with one edit that contradicts the statute's
words, written the way an encoder errs (a comparator, a unit, a fact added or dropped, an
amount in the wrong place). Each copy is run through the whole `lextrace check` process and,
when it passes, the whole `lextrace verify --format json` process, as CI would. Printed: which
caught it (the check's first message or the first failing proof, with whether it came with a
counterexample), the wall time of each process, and the totals. No test cases are run: this
measures what the checks read from the words and the proofs catch on their own.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUNDLED = ROOT / "statute" / "nj-34-1b-343.lex"
OFFICIAL = ROOT / "statute" / "nj-34-1b-343.txt"
LEXTRACE = [sys.executable, "-m", "lextrace"]

# (clause, what the mistake is, text of the encoding, what the encoder wrote instead)
MISTAKES: list[tuple[str, str, str, str]] = [
    (
        "(c)(1)(a)",
        '"greater than 50" as >=',
        "when mri_distress_score > 50 reading I2;",
        "when mri_distress_score >= 50 reading I2;",
    ),
    (
        "(c)(1)(o)",
        '"at least 50 percent" as >',
        "when onsite_renewable_share >= 50% reading I11;",
        "when onsite_renewable_share > 50% reading I11;",
    ),
    (
        "(c)(1)(r)",
        '"one-third or more" as >',
        "when board_underrepresented_share >= 1/3 reading I11;",
        "when board_underrepresented_share > 1/3 reading I11;",
    ),
    (
        "(c)(1)(c)(v)",
        '"in excess of 1,000" as >=',
        "case large_employer_bonus = $1,500 when new_jobs > 1000;",
        "case large_employer_bonus = $1,500 when new_jobs >= 1000;",
    ),
    (
        "(c)(1)(f)",
        '"for each 35 percent" as 35',
        "floor(salary_excess / 35%)",
        "floor(salary_excess / 35)",
    ),
    (
        "(c)(1)(b)",
        '"by 40 percent" as 40',
        "/ (40% * minimum_capital_investment))",
        "/ (40 * minimum_capital_investment))",
    ),
    (
        "(c)(1)(q)",
        "the opportunity-zone bonus also for a corridor",
        "$1,000 when qualified_opportunity_zone;",
        "$1,000 when qualified_opportunity_zone or employment_investment_corridor;",
    ),
    (
        "(b)(1)",
        'the tier without "or which is a mega project"',
        "case area_tier = b1 when government_restricted_municipality or mega_project;",
        "case area_tier = b1 when government_restricted_municipality;",
    ),
    (
        "(b)(4)",
        "the tier without the corridor",
        "case area_tier = b4 when qualified_opportunity_zone or employment_investment_corridor;",
        "case area_tier = b4 when qualified_opportunity_zone;",
    ),
    (
        "(c)(1)(c)(i)",
        "the band counted on new plus retained jobs",
        "case large_employer_bonus = $500 when new_jobs >= 251 and new_jobs <= 400;",
        "case large_employer_bonus = $500 when new_jobs + retained_jobs >= 251\n"
        "          and new_jobs + retained_jobs <= 400;",
    ),
    (
        "(d)",
        "the (c)(1)(j) allowance added after the cap",
        "    min(base_amount + bonus_total(covered: covered),\n"
        "        gross_cap + cap_allowance(covered: covered)) reading I15;",
        "    min(base_amount + bonus_total(covered: covered), gross_cap)\n"
        "      + cap_allowance(covered: covered) reading I15;",
    ),
    (
        "(c)(1)(d)",
        "the two training amounts swapped",
        "if training_by_state_institution_within_10_miles then $1,000 else $500",
        "if training_by_state_institution_within_10_miles then $500 else $1,000",
    ),
    (
        "(c)(1)(m)",
        "Gold and Silver amounts swapped",
        "case green_building_bonus = $500 when green_building = exceeds_gold;",
        "case green_building_bonus = $250 when green_building = exceeds_gold;",
    ),
    (
        "(c)(1)(n)",
        "college collaboration without the targeted industry",
        "when targeted_industry and college_collaboration reading I10;",
        "when college_collaboration reading I10;",
    ),
    (
        "(c)(1)(p)",
        "the marine terminal bonus inside a government-restricted municipality",
        "when marine_terminal_project and south_jersey_port_district\n"
        "         and not government_restricted_municipality reading I12;",
        "when marine_terminal_project and south_jersey_port_district reading I12;",
    ),
    (
        "(c)(2)",
        '"whichever is higher" as the lower',
        "max($15, 120% * state_minimum_wage)",
        "min($15, 120% * state_minimum_wage)",
    ),
    (
        "(c)(2)",
        '"pay less than" with the floor itself refused',
        "lowest_full_time_hourly_wage >= wage_floor reading I13;",
        "lowest_full_time_hourly_wage > wage_floor reading I13;",
    ),
    (
        "(e)",
        '"30 percent or more" as >',
        "rule credit_barred: bool = salary_shortfall >= 30%",
        "rule credit_barred: bool = salary_shortfall > 30%",
    ),
    (
        "(e)",
        "the reduction as the shortfall's share of the amount",
        "gross_amount(covered: covered) - gross_amount(covered: covered) * salary_shortfall",
        "gross_amount(covered: covered) * salary_shortfall",
    ),
    (
        "(f)(2)",
        "a retained job allowed 100 percent",
        "rule per_job_retained: money = 50% * net_amount(covered: false)",
        "rule per_job_retained: money = 100% * net_amount(covered: false)",
    ),
    (
        "(c)(1)(j)",
        "the allowance without the bonus",
        "rule cap_allowance(covered: bool): money = $1,000\n        when bonuses_awarded\n"
        "         and (covered or (reading I8 is business-wide and labor_harmony_agreement))",
        "rule cap_allowance(covered: bool): money = $1,000\n        when bonuses_awarded",
    ),
    (
        "(c)(1)(h)",
        "the targeted industry bonus only for a small business",
        "$500 when targeted_industry;",
        "$500 when targeted_industry and small_business;",
    ),
    (
        "(c)(1)(k)",
        "the child care bonus for a re-entry hire",
        "$1,000 when child_care;",
        "$1,000 when reentry_partnership_hire;",
    ),
    (
        "(c)(1)(l)",
        "the re-entry bonus left out of the bonuses",
        "bonus rule reentry_bonus:",
        "rule reentry_bonus:",
    ),
    (
        "(c)(1)(f)",
        "the salary bonus without its maximum",
        "min($200 * floor(salary_excess / 35%), $1,000)",
        "$200 * floor(salary_excess / 35%)",
    ),
    (
        "(c)(1)(b)",
        "the investment maximum of a mega project for every project",
        "if mega_project or government_restricted_municipality then $5,000 else $1,500",
        "$5,000",
    ),
    (
        "(e)(1)",
        "the county median for a government-restricted municipality too",
        "case salary_reference = county_median_salary when not government_restricted_municipality;",
        "case salary_reference = county_median_salary otherwise;",
    ),
    (
        "(c)(1)(e)",
        "the small business bonus at $1,000",
        "bonus rule small_business_bonus: money = $500 when small_business;",
        "bonus rule small_business_bonus: money = $1,000 when small_business;",
    ),
    (
        "(d)(4)",
        "the cap of (d)(4) at $3,000",
        "case gross_cap = $4,000 when area_tier = b4;",
        "case gross_cap = $3,000 when area_tier = b4;",
    ),
    (
        "(g)",
        "the board's limit applied when it is higher",
        "and board_approved_annual_limit < annual_total_before_limit",
        "and board_approved_annual_limit > annual_total_before_limit",
    ),
    (
        "(c)(2)",
        "the hourly floor set from the annual median salary",
        "max($15, 120% * state_minimum_wage)",
        "max($15, 120% * project_median_salary)",
    ),
    (
        "(c)(2)",
        "the lowest hourly wage derived from annual salaries",
        "min of hourly_wage in full_time_jobs",
        "min of annual_salary in full_time_jobs",
    ),
    (
        "(c)(1)(c)(iv)",
        'the top of "between 801 and 1,000" left out, though I4 reads the bands inclusive',
        "new_jobs >= 801 and new_jobs <= 1000;",
        "new_jobs >= 801 and new_jobs < 1000;",
    ),
    (
        "(c)(1)(f)",
        '"for each 35 percent" counted in fractions of a step',
        "min($200 * floor(salary_excess / 35%), $1,000)",
        "min($200 * (salary_excess / 35%), $1,000)",
    ),
    (
        "(c)(1)(b)",
        "the mega-project maximum, $5,000, given for each step in place of $500",
        "min($500 * investment_steps, investment_bonus_maximum)",
        "min($5,000 * investment_steps, investment_bonus_maximum)",
    ),
    (
        "(c)(1)(b)",
        '"a mega project or ... a government-restricted municipality" as and',
        "if mega_project or government_restricted_municipality then $5,000",
        "if mega_project and government_restricted_municipality then $5,000",
    ),
    (
        "(c)(1)(j)",
        '"enters into a labor harmony agreement" as covered jobs >= 0',
        "labor_harmony_new_jobs + labor_harmony_retained_jobs > 0 reading I8;",
        "labor_harmony_new_jobs + labor_harmony_retained_jobs >= 0 reading I8;",
    ),
    (
        "(c)(1)(a)",
        '"greater than 50" as 50%',
        "when mri_distress_score > 50 reading I2;",
        "when mri_distress_score > 50% reading I2;",
    ),
    (
        "(a)",
        "the period's total summing the credit before the board's limit",
        "total eligibility_period_total = sum of annual_credit over",
        "total eligibility_period_total = sum of annual_total_before_limit over",
    ),
    (
        "(c)(2)",
        '"$15 ... or 120 percent of the minimum wage, whichever is higher" as min',
        "max($15, 120% * state_minimum_wage)",
        "min($15, 120% * state_minimum_wage)",
    ),
    (
        "(c)(1)(j)",
        "the labor-harmony new jobs counted from every labor-harmony job, retained ones too",
        "count of full_time_jobs where kind = new and labor_harmony;",
        "count of full_time_jobs where labor_harmony;",
    ),
    (
        "(c)(1)(c)",
        "the job bands citing the training bonus's reading (I5) for I4's inclusive ends",
        "bonus cases large_employer_bonus: money exclusive otherwise $0 reading I4;",
        "bonus cases large_employer_bonus: money exclusive otherwise $0 reading I5;",
    ),
]


def run(command: list[str]) -> tuple[subprocess.CompletedProcess[str], float]:
    """Returns a whole process's result and its wall time."""
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    return done, time.perf_counter() - started


def caught(folder: Path, index: int, timeout: float, budget: float) -> dict[str, object]:
    """Returns what caught mistake `index` (check, proof or nothing), with wall times."""
    clause, what, old, new = MISTAKES[index]
    source = BUNDLED.read_text(encoding="utf-8")
    if source.count(old) != 1:
        raise SystemExit(f"mistake {index + 1} ({what}): the encoding no longer holds {old!r}")
    case = folder / f"m{index + 1:02d}"
    case.mkdir()
    shutil.copy(OFFICIAL, case / OFFICIAL.name)
    encoding = case / BUNDLED.name
    encoding.write_text(source.replace(old, new), encoding="utf-8")
    row: dict[str, object] = {"n": index + 1, "clause": clause, "mistake": what}
    # As CI runs it: --strict, so that a warning fails too.
    checked, row["check_s"] = run([*LEXTRACE, "check", "--strict", "--encoding", str(encoding)])
    if checked.returncode != 0:
        said = (checked.stdout + checked.stderr).splitlines()
        first = next((line for line in said if ": error " in line or ": warning " in line), "")
        row["by"] = "check"
        row["why"] = first.split("]: ", 1)[-1][:110]
        return row
    command = [*LEXTRACE, "verify", "--encoding", str(encoding), "--format", "json"]
    command += ["--timeout", str(timeout), "--budget", str(budget)]
    verified, row["verify_s"] = run(command)
    try:
        report = json.loads(verified.stdout)
    except json.JSONDecodeError:
        row["by"] = "error"
        row["why"] = (verified.stderr or verified.stdout)[-110:]
        return row
    failing = [c for c in report.get("checks", []) if c.get("status") not in ("PROVED", "BOUNDED")]
    unknown = [c for c in failing if c.get("status") == "UNKNOWN"]
    refuted = [c for c in failing if c.get("status") != "UNKNOWN"]
    row["unknown"] = len(unknown)
    if refuted:
        first = refuted[0]
        row["by"] = "proof"
        counterexample = "with a counterexample" if first.get("counterexample") else "no example"
        row["why"] = f"{first.get('status')} {first.get('name')} ({counterexample})"[:110]
    else:
        row["by"] = "UNKNOWN" if unknown else "survived"
        row["why"] = ", ".join(str(c.get("name")) for c in unknown)[:110]
    return row


def main() -> None:
    """Runs the mistakes and prints one line each, then the totals."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", type=int, action="append", help="run mistake N (from 1)")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds per Z3 call")
    parser.add_argument("--budget", type=float, default=120.0, help="seconds per verify run")
    options = parser.parse_args()
    chosen = [n - 1 for n in options.only] if options.only else range(len(MISTAKES))
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        for index in chosen:
            row = caught(Path(scratch), index, options.timeout, options.budget)
            rows.append(row)
            times = f"check {row['check_s']:.1f} s" + (
                f", verify {row['verify_s']:.1f} s" if "verify_s" in row else ""
            )
            print(
                f"{row['n']:>2} {row['clause']:<13} {row['mistake']:<58} {row['by']:<8} "
                f"{times:<26} {row['why']}",
                flush=True,
            )
    killed = sum(1 for r in rows if r["by"] in ("check", "proof"))
    by_check = sum(1 for r in rows if r["by"] == "check")
    slowest = max((float(r.get("verify_s", 0)) for r in rows), default=0.0)
    print(
        f"\n{killed} of {len(rows)} mistakes caught ({by_check} by check, {killed - by_check} by "
        f"proof); {sum(1 for r in rows if r['by'] == 'UNKNOWN')} only UNKNOWN; "
        f"{sum(1 for r in rows if r['by'] == 'survived')} survived; slowest verify {slowest:.1f} s"
    )


if __name__ == "__main__":
    main()
