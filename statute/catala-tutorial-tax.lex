# The Tutorial Tax Code: the income tax and the household tax of the Catala tutorial.
#
# The eight articles of the fictional tax code that the Catala book's tutorial encodes (chapters
# 2.1 to 2.4 of https://book.catala-lang.org, source github.com/CatalaLang/catala-book,
# src/en/2-*.md, whose quoted articles are catala-tutorial-tax.txt word for word; the headings are
# those of its finished program, examples/tutorial_end_2_4.catala_en). An individual's income
# tax is a percentage of their income (articles 1 to 6, each a rate for some individuals, the
# later ones exceptions to the earlier); a household owes a household tax per individual and per
# child (article 7), from which each individual deducts their own income tax (article 8).
#
# How it is written. An individual's income tax is their income times a rate that depends on
# their own income and children. One sum of a per-element expression (`sum of (income * rate) in
# individuals`) would put every article's rate in one rule, cited to one article; so, for each
# number to lead back to its own article, each article that fixes a rate sums the incomes of the
# individuals it applies to (a `where` filter stating the article's condition and its exceptions) and applies its
# rate to that sum; article 1 adds the articles' parts. Article 8's deduction is capped for each
# individual at their share, so it is summed, group by group, over the individuals whose income
# tax is less than their share (who owe the difference) and those whose income tax is not (who
# owe nothing). The result is the sum, individual by individual, of the source's
# `if income_tax > household_tax then $0 else household_tax - income_tax`.
#
# The expected results of catala-tutorial-tax.cases.yaml are the tutorial's published tests.

statute "Tutorial Tax Code"
  cite "{statute}, art. {section}{clauses}"
  title "Income tax and household tax"
  history "The fictional tax code of the Catala tutorial (Catala book, chapter 2: https://book.catala-lang.org), articles 1 to 8; the program: https://github.com/CatalaLang/catala-book/blob/master/examples/tutorial_end_2_4.catala_en"
  official "catala-tutorial-tax.txt"

# ---- the interpretation register ------------------------------------------------------------

reading I1 "Where does 'before 2000' end and 'after 2000' begin for the two versions of article 2?"
  default from-2000 "The new version applies from 1 January 2000 and the old one before that day, as the tutorial's program has it (current_date >= |2000-01-01|)."
  alternative after-the-year-2000 "'After 2000' is after the year 2000: the old version applies until 31 December 2000, the new one from 1 January 2001.";
reading I2 "Is an individual earning exactly $10,000 'earning less than $10,000' under article 4?"
  default at-most "Yes: an income of at most $10,000 is exempted, as the tutorial's program has it (individual.income <= $10,000). The strict reading (exactly $10,000 taxed at the rate of article 2 or 3) is not offered as an alternative: in every filter of articles 2, 3 and 8 it doubles the cases the proofs of article 8 explore, past the verifier's time limit.";
reading I3 "Is article 8's deduction made individual by individual, or from the household's total?"
  default each-individual "Each individual deducts their own income tax from their own share of the household tax, and owes nothing, never less, when their income tax exceeds their share; the household owes the sum. This is the tutorial's reading (chapter 2.3, 'the non-linearity in action')."
  alternative household-total "The household's total income tax is deducted from its total household tax, never below $0 (the reading the tutorial calls naive and rejects).";

# ---- the facts of one household (the scenario contract) -------------------------------------

record individual "an individual of the household" {
  income: money min $0 "the individual's income over the year";
  number_of_children: count = 0 "the number of children the individual is in charge of";
}

input individuals: list of individual required min 1 max 100
  "the individuals who live together in the household, one per individual";
input current_date: date required min 1900-01-01 max 2100-12-31
  "the day the tax is computed for (it selects the version of article 2 in force)";
input overseas_territories: bool = false
  "the household lives in the overseas territories";

results income_tax, household_tax_base, household_tax;

section "Article 1" "The income tax for an individual is defined as a fixed percentage of the
                     individual's income over a year." {
  rule income_tax: money =
    income_tax_article_2_old under "Article 2" + income_tax_article_2_new under "Article 2"
    + income_tax_article_3 under "Article 3" + income_tax_article_5 under "Article 5"
    + income_tax_article_6 under "Article 6";
  invariant income_tax_not_negative "No income tax is negative.": income_tax >= $0;
}

section "Article 2" "(old version before 2000) The fixed percentage mentioned at article 1 is
                     equal to 20 %." {
  rule article_2_old_version: bool =
    if reading I1 is after-the-year-2000 then current_date < 2001-01-01
    else current_date < 2000-01-01
    reading I1
    reviewed 2000-01-01 "the heading's 'before 2000' and 'after 2000': 1 January 2000, as the tutorial's program has it"
    reviewed 2001-01-01 "the heading's 'after 2000' read as after the year 2000 (reading I1)";
  rule article_2_old_rate: number = 20%;
  rule income_tax_article_2_old: money =
    article_2_old_rate
    * (sum of income in individuals
       where number_of_children < children_for_article_3 under "Article 3"
         and not income <= exemption_ceiling under "Article 4"
         and not income > high_income_floor under "Article 5")
    when article_2_old_version
    reading I2;
  "Article 2 (new version after 2000) The fixed percentage mentioned at article 1 is equal to 21
   %."
  rule article_2_new_rate: number = 21%;
  rule income_tax_article_2_new: money =
    article_2_new_rate
    * (sum of income in individuals
       where number_of_children < children_for_article_3 under "Article 3"
         and not income <= exemption_ceiling under "Article 4"
         and not income > high_income_floor under "Article 5")
    when not article_2_old_version
    reading I2;
}

section "Article 3" "If the individual is in charge of 2 or more children, then the fixed
                     percentage mentioned at article 1 is equal to 15 %." {
  rule children_for_article_3: count = 2;
  rule article_3_rate: number = 15%;
  rule income_tax_article_3: money =
    article_3_rate
    * (sum of income in individuals
       where number_of_children >= children_for_article_3
         and not income <= exemption_ceiling under "Article 4"
         and not income > high_income_floor under "Article 5")
    reading I2;
}

section "Article 4" "Individuals earning less than $10,000 are exempted of the income tax
                     mentioned at article 1." {
  rule exemption_ceiling: money = $10,000 reading I2;
  invariant exempted_households_owe_no_income_tax "A household whose individuals all earn less
      than $10,000 owes no income tax.":
    (all of individuals where income < $10,000) implies income_tax = $0;
}

section "Article 5" "Individuals earning more than $100,000 are subjects to a tax rate of 30%,
                     regardless of their number of children." {
  rule high_income_floor: money = $100,000;
  rule article_5_rate: number = 30%;
  rule income_tax_article_5: money =
    article_5_rate * (sum of income in individuals where income > high_income_floor)
    when not overseas_territories;
  invariant no_rate_above_30_percent "No individual's rate is above 30%: the income tax is at
      most 30% of the household's incomes.":
    income_tax <= 30% * (sum of income in individuals);
}

section "Article 6" "In the overseas territories, the tax rate for individuals earning more than
                     $100,000 specified at article 5 is reduced to 25 %." {
  rule article_6_rate: number = 25%;
  rule income_tax_article_6: money =
    article_6_rate
    * (sum of income in individuals where income > high_income_floor under "Article 5")
    when overseas_territories;
  invariant no_rate_above_25_percent_overseas "In the overseas territories no individual's rate
      is above 25 %.":
    overseas_territories implies income_tax <= 25% * (sum of income in individuals);
}

section "Article 7" "When several individuals live together, they are collectively subject to
                     the household tax. The household tax owed is $10,000 per individual of the
                     household, and half the amount per children." {
  rule household_tax_per_individual: money = $10,000;
  rule household_tax_per_child: money = 1/2 * household_tax_per_individual;
  rule household_tax_base: money =
    household_tax_per_individual * (count of individuals)
    + household_tax_per_child * (sum of number_of_children in individuals);
  invariant at_least_10000_per_individual "The household tax is at least $10,000 per individual
      of the household.":
    household_tax_base >= $10,000 * (count of individuals);
}

section "Article 8" "The amount of income tax paid by each individual can be deducted from the
                     share of household tax owed by this individual." {
  # What each group of individuals owes after the deduction: their shares less their income
  # tax, over those whose income tax is less than their share; the others owe nothing.
  rule owed_exempted: money =
    household_tax_per_individual under "Article 7"
      * (count of individuals
         where income <= exemption_ceiling under "Article 4")
    + household_tax_per_child under "Article 7"
      * (sum of number_of_children in individuals
         where income <= exemption_ceiling under "Article 4")
    reading I2;
  rule owed_article_2_old: money =
    household_tax_per_individual under "Article 7"
      * (count of individuals
         where number_of_children < children_for_article_3 under "Article 3"
           and not income <= exemption_ceiling under "Article 4"
           and not income > high_income_floor under "Article 5"
           and article_2_old_rate under "Article 2" * income
               < household_tax_per_individual under "Article 7"
                 + household_tax_per_child under "Article 7" * number_of_children)
    + household_tax_per_child under "Article 7"
      * (sum of number_of_children in individuals
         where number_of_children < children_for_article_3 under "Article 3"
           and not income <= exemption_ceiling under "Article 4"
           and not income > high_income_floor under "Article 5"
           and article_2_old_rate under "Article 2" * income
               < household_tax_per_individual under "Article 7"
                 + household_tax_per_child under "Article 7" * number_of_children)
    - article_2_old_rate under "Article 2"
      * (sum of income in individuals
         where number_of_children < children_for_article_3 under "Article 3"
           and not income <= exemption_ceiling under "Article 4"
           and not income > high_income_floor under "Article 5"
           and article_2_old_rate under "Article 2" * income
               < household_tax_per_individual under "Article 7"
                 + household_tax_per_child under "Article 7" * number_of_children)
    when article_2_old_version under "Article 2"
    reading I2;
  rule owed_article_2_new: money =
    household_tax_per_individual under "Article 7"
      * (count of individuals
         where number_of_children < children_for_article_3 under "Article 3"
           and not income <= exemption_ceiling under "Article 4"
           and not income > high_income_floor under "Article 5"
           and article_2_new_rate under "Article 2" * income
               < household_tax_per_individual under "Article 7"
                 + household_tax_per_child under "Article 7" * number_of_children)
    + household_tax_per_child under "Article 7"
      * (sum of number_of_children in individuals
         where number_of_children < children_for_article_3 under "Article 3"
           and not income <= exemption_ceiling under "Article 4"
           and not income > high_income_floor under "Article 5"
           and article_2_new_rate under "Article 2" * income
               < household_tax_per_individual under "Article 7"
                 + household_tax_per_child under "Article 7" * number_of_children)
    - article_2_new_rate under "Article 2"
      * (sum of income in individuals
         where number_of_children < children_for_article_3 under "Article 3"
           and not income <= exemption_ceiling under "Article 4"
           and not income > high_income_floor under "Article 5"
           and article_2_new_rate under "Article 2" * income
               < household_tax_per_individual under "Article 7"
                 + household_tax_per_child under "Article 7" * number_of_children)
    when not article_2_old_version under "Article 2"
    reading I2;
  rule owed_article_3: money =
    household_tax_per_individual under "Article 7"
      * (count of individuals
         where number_of_children >= children_for_article_3 under "Article 3"
           and not income <= exemption_ceiling under "Article 4"
           and not income > high_income_floor under "Article 5"
           and article_3_rate under "Article 3" * income
               < household_tax_per_individual under "Article 7"
                 + household_tax_per_child under "Article 7" * number_of_children)
    + household_tax_per_child under "Article 7"
      * (sum of number_of_children in individuals
         where number_of_children >= children_for_article_3 under "Article 3"
           and not income <= exemption_ceiling under "Article 4"
           and not income > high_income_floor under "Article 5"
           and article_3_rate under "Article 3" * income
               < household_tax_per_individual under "Article 7"
                 + household_tax_per_child under "Article 7" * number_of_children)
    - article_3_rate under "Article 3"
      * (sum of income in individuals
         where number_of_children >= children_for_article_3 under "Article 3"
           and not income <= exemption_ceiling under "Article 4"
           and not income > high_income_floor under "Article 5"
           and article_3_rate under "Article 3" * income
               < household_tax_per_individual under "Article 7"
                 + household_tax_per_child under "Article 7" * number_of_children)
    reading I2;
  rule owed_article_5: money =
    household_tax_per_individual under "Article 7"
      * (count of individuals
         where income > high_income_floor under "Article 5"
           and article_5_rate under "Article 5" * income
               < household_tax_per_individual under "Article 7"
                 + household_tax_per_child under "Article 7" * number_of_children)
    + household_tax_per_child under "Article 7"
      * (sum of number_of_children in individuals
         where income > high_income_floor under "Article 5"
           and article_5_rate under "Article 5" * income
               < household_tax_per_individual under "Article 7"
                 + household_tax_per_child under "Article 7" * number_of_children)
    - article_5_rate under "Article 5"
      * (sum of income in individuals
         where income > high_income_floor under "Article 5"
           and article_5_rate under "Article 5" * income
               < household_tax_per_individual under "Article 7"
                 + household_tax_per_child under "Article 7" * number_of_children)
    when not overseas_territories;
  rule owed_article_6: money =
    household_tax_per_individual under "Article 7"
      * (count of individuals
         where income > high_income_floor under "Article 5"
           and article_6_rate under "Article 6" * income
               < household_tax_per_individual under "Article 7"
                 + household_tax_per_child under "Article 7" * number_of_children)
    + household_tax_per_child under "Article 7"
      * (sum of number_of_children in individuals
         where income > high_income_floor under "Article 5"
           and article_6_rate under "Article 6" * income
               < household_tax_per_individual under "Article 7"
                 + household_tax_per_child under "Article 7" * number_of_children)
    - article_6_rate under "Article 6"
      * (sum of income in individuals
         where income > high_income_floor under "Article 5"
           and article_6_rate under "Article 6" * income
               < household_tax_per_individual under "Article 7"
                 + household_tax_per_child under "Article 7" * number_of_children)
    when overseas_territories;
  rule household_tax: money =
    if reading I3 is household-total
    then max(household_tax_base under "Article 7" - income_tax under "Article 1", $0)
    else owed_exempted + owed_article_2_old + owed_article_2_new + owed_article_3
         + owed_article_5 + owed_article_6
    reading I3;
  invariant household_tax_not_negative "After the deduction no household owes less than $0.":
    household_tax >= $0;
  invariant no_deduction_without_income_tax "A household that pays no income tax deducts
      nothing: it owes the whole household tax of article 7.":
    income_tax = $0 implies household_tax = household_tax_base;
}
