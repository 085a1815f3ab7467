# An invented statute of lists and aggregates: a grant computed from a payroll, job by job.
statute "Payroll Grant Act s.4"
  title "Payroll grants"
  official "payroll.txt"

reading I1 "The median of an even number of salaries (b)."
  default mean-of-middle "the mean of the two middle salaries"
  alternative lower-middle "the lower of the two middle salaries";

record job "a full-time job at the facility" {
  id: text "the job's identifier in the payroll";
  kind: enum(new, retained, other) "a new, a retained or another full-time job";
  annual_salary: money above $0 "the job's annual salary";
  hourly_wage: money above $0 "the job's hourly wage";
  harmony: bool = false "the job is covered by a labor harmony agreement";
}

input jobs: list of job required min 1 "the full-time jobs at the facility, one per job";
input minimum_wage: money required above $0 "the minimum hourly wage in force";

results qualifying_jobs, median_salary, lowest_wage, payroll_total, top_salary, grant;

section 4. "Payroll grants." {
  a. "A qualifying job is a new or a retained full-time job. The grant is $500 for each
      qualifying job." {
    rule qualifying_jobs: count = count of jobs where kind = new or kind = retained;
    rule base_grant: money = $500 * qualifying_jobs;
  }
  b. "The median salary is the median of the annual salaries of the qualifying jobs, and no
      grant is made unless it is at least $40,000." {
    rule median_salary: money = if reading I1 is lower-middle
        then (median_low of annual_salary in jobs where kind = new or kind = retained)
        else (median of annual_salary in jobs where kind = new or kind = retained)
      when qualifying_jobs > 0
      reading I1;
    rule median_met: bool = qualifying_jobs > 0 and median_salary >= $40,000;
    invariant median_in_range "The median salary lies between the lowest and the highest
        salary of the qualifying jobs.":
      qualifying_jobs > 0 implies
        ((min of annual_salary in jobs where kind = new or kind = retained) <= median_salary
         and median_salary <= (max of annual_salary in jobs where kind = new or kind = retained)
         and median_salary <= (median_high of annual_salary in jobs where kind != other));
  }
  c. "No grant is made when any job, of whatever kind, pays an hourly wage below the minimum
      wage." {
    rule lowest_wage: money = min of hourly_wage in jobs;
    rule wage_floor_met: bool = all of jobs where hourly_wage >= minimum_wage;
    invariant floor_is_lowest "The wage floor is met exactly when the lowest wage is at least
        the minimum wage.":
      wage_floor_met = (lowest_wage >= minimum_wage);
  }
  d. "The payroll total is the sum of the annual salaries of all the jobs, and the top salary
      is the highest of them." {
    rule payroll_total: money = sum of annual_salary in jobs;
    rule top_salary: money = max of annual_salary in jobs;
  }
  e. "A bonus of $1,000 is added when any qualifying job is covered by a labor harmony
      agreement." {
    rule harmony_bonus: money = $1,000
      when any of harmony in jobs where kind = new or kind = retained;
  }
  f. "The grant is the amount for the qualifying jobs and the bonus, and none when the median
      salary or the minimum wage is not met." {
    rule grant: money = base_grant + harmony_bonus when median_met and wage_floor_met;
    invariant grant_not_negative "The grant is never negative.": grant >= $0;
    invariant grant_counts_jobs "The grant, when made, is at least $500 for each qualifying
        job.":
      grant > $0 implies grant >= $500 * qualifying_jobs reviewed 500 "(a)'s amount per job";
  }
}
