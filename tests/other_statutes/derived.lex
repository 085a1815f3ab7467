# An invented statute: a count given directly, or derived from a payroll when one is filed.
statute "Derived Grant Act s.2"
  title "Grants counted from a payroll"
  official "derived.txt"

record job "a full-time job" {
  id: text "the job's identifier in the payroll";
  annual_salary: money per year above $0 named "annual salary" "the job's annual salary";
}

input jobs: list of job optional named "payroll", "full-time job" "the full-time jobs, one per job, when the payroll is filed";
input qualifying_jobs: count required derived by payroll_count when jobs is given
  named "number of qualifying jobs", "qualifying job"
  "the number of qualifying jobs";

results grant;

section 2. "Grants." {
  a. "A qualifying job is a full-time job paying an annual salary of at least $40,000. The
      number of qualifying jobs is counted from the payroll when the payroll is filed." {
    rule well_paid: count = count of jobs where annual_salary >= $40,000;
    rule payroll_count: count = well_paid;
    invariant counted_from_the_payroll "When the payroll is filed, the number of qualifying
        jobs is the count of the jobs paying at least $40,000.":
      jobs is given implies qualifying_jobs = payroll_count;
  }
  b. "The grant is $500 for each qualifying job." {
    rule grant: money = $500 * qualifying_jobs;
  }
}
