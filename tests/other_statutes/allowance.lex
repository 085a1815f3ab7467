# Exceptions with priorities: to a rule with a parameter (b., c.) and to a `cases` definition (e.).
statute "Allowance Act s.4"
  title "Household allowance"
  official "allowance.txt"

input student: bool = false "the member is a student";
input veteran: bool = false "the member is a veteran";
input disabled: bool = false "the member is disabled";
input absent: bool = false "the member is absent from the State";
input income: money required min $0 "the household's income";
input appeal_pending: bool = false "the household's appeal is pending";

results allowance, band;

section 4. "Household allowance." {
  a. "The allowance is $200 a month for a member of a household, or $100 a month for a member
      who is a student." {
    rule member_allowance(as_student: bool): money = if as_student then $100 else $200;
    rule allowance: money =
      if student then member_allowance(as_student: true) else member_allowance(as_student: false);
  }
  b. "Notwithstanding subsection a., a member who is a veteran receives $300 a month, and a
      member who is disabled receives $350 a month, whether or not a veteran." {
    exception veteran_rate to member_allowance priority 1 = $300 when veteran;
    exception disabled_rate to member_allowance priority 2 = $350 when disabled;
  }
  c. "The allowance shall not be paid to a member who is absent from the State." {
    exception absent_member to member_allowance priority 3 = $0 when absent;
    invariant nothing_when_absent "No allowance is paid to an absent member.":
      absent implies allowance = $0;
  }
  d. "A household is in the low band when its income is below $20,000, and in the high band
      otherwise." {
    cases band: enum(low, high) first-match;
    case band = low when income < $20,000;
    case band = high otherwise;
  }
  e. "Except as provided in subsection d., a household whose appeal is pending is in the low
      band." {
    exception pending_appeal to band priority 1 = low when appeal_pending;
  }
}
