# 26 U.S.C. § 24 (simplified): the child tax credit and its phase-out.

statute "26 U.S.C."
  title "Child tax credit"
  history "simplified from 26 U.S.C. § 24(a), (b)"
  official "threshold.txt"
  cite "{statute} § {section}{clauses}"

reading I1 "Does 'exceeds the threshold amount' reduce the credit of a taxpayer whose income equals the threshold?"
  default strict "No: only income above the threshold reduces the credit.";

input qualifying_children: count required
  named "each qualifying child"
  "the number of qualifying children of the taxpayer";
input modified_agi: money per year required min $0
  named "modified adjusted gross income"
  "the taxpayer's modified adjusted gross income for the taxable year";
input joint_return: bool = false
  named "joint return"
  "the taxpayer files a joint return";

results credit_before_limit, threshold_amount, reduction_steps, reduction, credit;

section 24. "Child tax credit." {
  (a) "Allowance of credit. There shall be allowed as a credit against the tax imposed by this
       chapter for the taxable year with respect to each qualifying child of the taxpayer an
       amount equal to $2,000." {
    rule credit_before_limit: money = $2,000 * qualifying_children;
  }
  (b) "Limitations." {
    (1) "Limitation based on adjusted gross income. The amount of the credit allowable under
         subsection (a) shall be reduced (but not below zero) by $50 for each $1,000 (or
         fraction thereof) by which the taxpayer's modified adjusted gross income exceeds the
         threshold amount." {
      rule excess_income: money per year = modified_agi - threshold_amount
        when modified_agi > threshold_amount reading I1;
      # "or fraction thereof": a part of $1,000 counts as a whole step.
      rule reduction_steps: count = ceil(excess_income / $1,000);
      rule reduction: money = $50 * reduction_steps;
      rule credit: money = max(credit_before_limit - reduction, $0);

      invariant each_thousand_or_fraction "Each $1,000, or fraction thereof, of the excess is one step.":
        reduction_steps * $1,000 >= excess_income and reduction_steps * $1,000 < excess_income + $1,000;
      invariant credit_not_negative "The credit is reduced, but not below zero.":
        credit >= $0;
      invariant credit_at_most_allowance "The limitation only reduces the credit of subsection (a).":
        credit <= credit_before_limit;
      invariant no_reduction_at_or_below_threshold "Income not above the threshold amount does not reduce the credit.":
        modified_agi <= threshold_amount implies credit = credit_before_limit reading I1;
      monotone more_children_more_credit "Another qualifying child never lowers the credit.":
        credit rise with qualifying_children;
      monotone joint_return_never_lowers "A joint return's higher threshold never lowers the credit.":
        credit rise with joint_return;
      monotone more_income_never_more_credit "A higher income never raises the credit.":
        credit fall with modified_agi;
    }
    (2) "Threshold amount. For purposes of paragraph (1), the term “threshold amount” means—" {
      cases threshold_amount: money per year exclusive;
      (A) "$400,000 in the case of a joint return, and" {
        case threshold_amount = $400,000 when joint_return;
      }
      (B) "$200,000 in any other case." {
        case threshold_amount = $200,000 otherwise;
      }
    }
  }
}
