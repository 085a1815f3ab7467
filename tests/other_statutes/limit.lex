# An optional input read only when it is given.
statute "Limit Act s.9"
  title "Limits"
  official "limit.txt"

input limit: money optional min $0 "the limit, when one is set";

results amount;

section 9. "Limits." {
  a. "The amount is $100, or the limit when a limit is given and it is lower." {
    rule amount: money = if limit is given and limit < $100 then limit else $100;
  }
}
