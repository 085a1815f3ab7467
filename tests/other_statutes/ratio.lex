# A small statute of no money at all: a number, a count, a yes/no and an enum result.
statute "Ratio Act s.3"
  title "Ratios"
  official "ratio.txt"

input part: count = 0 "the part";
input whole: count = 1 min 1 "the whole";

results ratio, twice, exceeds, band;

section 3. "Ratios." {
  a. "The ratio is the part over the whole." {
    rule ratio: number = part / whole;
  }
  b. "The count is the whole twice." {
    rule twice: count = whole * 2 reviewed 2 "twice";
  }
  c. "The flag is whether the part exceeds the whole, and the band is high when it does and low
      otherwise." {
    rule exceeds: bool = part > whole;
    rule band: enum(low, high) = if exceeds then high else low;
  }
}
