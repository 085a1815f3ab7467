# A statute of two sections: section 2 names the definitions of section 1 by their citations.
statute "Plain Relief Act"
  title "Relief"
  official "relief.txt"
  cite "Plain Relief Act § {section}{clauses}"

input income: money required min $0 "the person's income";
input disabled: bool = false "the person has a disability";

results qualifying_income, rate, relief;

section 1. "Definitions." {
  (a) "In this Act, a person's qualifying income is their income less $2,000, but not less
       than $0." {
    rule qualifying_income: money = max(income - $2,000, $0);
  }
  (b) "The rate is 10 percent, or 20 percent for a person with a disability." {
    rule rate: number = if disabled then 20% else 10%;
  }
}

section 2. "Relief." {
  (a) "The relief is the rate under section 1(b) applied to the qualifying income under
       section 1(a)." {
    rule relief_before_limit: money =
      rate under "section 1(b)" * qualifying_income under "Plain Relief Act § 1(a)";
  }
  (b) "The relief shall not exceed $500." {
    rule relief: money = min(relief_before_limit, $500);
    invariant relief_capped "the relief never exceeds $500": relief <= $500;
  }
}
