# An invented statute: an amount computed for each element of a list, then totalled.
statute "Tuition Credit Act s.3"
  title "Tuition credits per student"
  official "tuition.txt"

reading I1 "The median of an even number of student credits (a)."
  default mean-of-middle "the mean of the two middle credits"
  alternative lower-middle "the lower of the two middle credits";

record student "a student for whom the credit is claimed" {
  id: text "the student's name";
  expenses: money min $0 named "tuition expenses" "the tuition expenses paid for the student";
  half_time: bool = true named "half-time student"
    "the student carries at least half the normal full-time work load";
}

input students: list of student required max 20
  named "each half-time student", "any one half-time student"
  "the students for whom the credit is claimed, one per student";

results credit, largest_credit, median_credit;

section 3. "Tuition credit." {
  a. "The credit for each half-time student is 100 percent of so much of the tuition expenses
      paid for the student as does not exceed $2,000, plus 25 percent of so much of the tuition
      expenses as exceeds $2,000 but does not exceed $4,000. The credit is the sum of the
      credits for each half-time student, and never more than $2,500 for each half-time
      student. The largest credit for any one half-time student, and the median of those
      credits, are reported." {
    rule credit: money =
      sum of (100% * min(expenses, $2,000) + 25% * min(max(expenses - $2,000, $0), $4,000 - $2,000))
      in students where half_time;
    rule largest_credit: money =
      (max of (100% * min(expenses, $2,000) + 25% * min(max(expenses - $2,000, $0), $4,000 - $2,000))
       in students where half_time)
      when any of students where half_time;
    rule median_credit: money = if reading I1 is lower-middle
        then (median_low of (100% * min(expenses, $2,000)
                             + 25% * min(max(expenses - $2,000, $0), $4,000 - $2,000))
              in students where half_time)
        else (median of (100% * min(expenses, $2,000)
                         + 25% * min(max(expenses - $2,000, $0), $4,000 - $2,000))
              in students where half_time)
      when any of students where half_time
      reading I1;
    invariant at_most_2500_each "The credit is never more than $2,500 for each half-time
        student.":
      credit <= $2,500 * (count of students where half_time);
    invariant largest_within_total "The largest credit is never more than the total, and the
        median never more than the largest.":
      (any of students where half_time)
        implies largest_credit <= credit and median_credit <= largest_credit;
  }
}
