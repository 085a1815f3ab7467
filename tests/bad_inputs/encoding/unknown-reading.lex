# A rule that cites a reading the register does not declare.
statute "Tiny Act 1"
  title "A tiny credit"
  official "tiny.txt"

reading I1 "Is the credit per job?"
  default per-job "Yes: the amount is per new full-time job.";

input small_business: bool = false
  "the business is a small business";
input new_jobs: count required
  "new full-time jobs";

results credit;

section 1. {
a. "A small business with new full-time jobs shall receive $500 per year for each new full-time
    job." {
  rule per_job: money = $500 when small_business reading I1;
  rule credit: money = per_job * new_jobs reading I9;
}
b. "The credit for a job shall not exceed $2,000 per year." {
  invariant capped "The credit per job never exceeds $2,000.": per_job <= $2,000;
}
}
