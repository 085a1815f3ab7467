# Community Gaming Regulation 2020 (NSW) cl 5: housie or bingo, and when charity housie, social
# housie and club bingo are permitted gaming activities.
#
# The clause's whole text, subclause by subclause, with the rules each authorises. `lextrace
# check` proves that the carried text equals nsw-cgr-2020-cl-5.txt (whitespace aside). The
# Regulation prints the clause's heading "5   Housie or bingo"; the official text file writes it
# "5. Housie or bingo", the form in which the language reads a section's label. A subclause's
# heading ("Charity housie") runs into its words, as the Regulation prints it.
#
# The text is the clause as made (26 June 2020). Subclauses (1), (3) and (4) are word for word
# the quotations of the clause in the sources of the expected results; the lead-in of (2) and
# the end of (2)(b) follow the identical lead-ins of (3) and (4) and the identical paragraphs of
# clauses 6 and 7. Compare any change of the official text with the legislation page below.
#
# The expected results of statute/nsw-cgr-2020-cl-5.cases.yaml are the published tests of the
# Catala examples (NSW_community_gaming/tests) and of the OpenFisca rules of NSW
# (openfisca_nsw_community_gaming/tests/housie).

statute "Community Gaming Regulation 2020 (NSW)"
  cite "{statute} cl {section}{clauses}"
  title "Housie or bingo: when charity housie, social housie and club bingo are permitted gaming activities"
  history "Community Gaming Regulation 2020 (NSW), made 26 June 2020 under the Community Gaming Act 2018, commenced 1 July 2020, clause 5. Text: https://legislation.nsw.gov.au/view/whole/html/inforce/2020-06-26/sl-2020-0304. Expected results: the Catala examples, https://github.com/CatalaLang/catala-examples/tree/master/NSW_community_gaming/tests, and OpenFisca NSW, https://github.com/Openfisca-NSW/openfisca_nsw_community_gaming/tree/master/openfisca_nsw_community_gaming/tests/housie"
  official "nsw-cgr-2020-cl-5.txt"

# ---- the interpretation register ------------------------------------------------------------

reading I1 "How are the percentages and limits of (2) compared?"
  default exact-inclusive "Exactly: 12.5% and 75% of the gross proceeds are exact amounts, never rounded; 'not less than' and 'does not exceed' both admit the limit itself.";
reading I2 "Which sessions and games do the prize limits of (2)(d), (3)(c) and (4)(b) apply to?"
  default every-one "Each session (or game) separately: the scenario gives the largest total of any one session (or game), and the limit holds for all when it holds for that one.";
reading I3 "What does 'except as provided by paragraph (d)' leave out of the $40 of (3)(c)?"
  default jackpot-apart "A jackpot prize: the $40 limits the session's other prizes; a jackpot prize is limited only by the $200 of (3)(d).";
reading I4 "When is the amount of (3)(e) 'returned to participants'?"
  default at-least-the-remainder "The remainder is the amount invested less the session's prizes, any jackpot prize and the expenses of the session, never below $0; the requirement is complied with when the participants get back at least that remainder.";
reading I5 "What does (4)(c) allow?"
  default one-bonus-prize "At most 1 bonus prize at the end of a session, of a value not exceeding $70; a session with no bonus prize complies. The bonus prize is apart from the $70 per game of (4)(b).";

# ---- the facts of one gaming activity (the scenario contract) --------------------------------

input activity: enum(charity_housie, social_housie, club_bingo) required
  named "charity housie", "social housie", "club bingo"
  "which gaming activity of housie or bingo is conducted";
input conducted_for_charitable_organisation: bool = false
  named "charitable organisation"
  "the gaming activity is conducted by or on behalf of a charitable organisation";
input gross_proceeds: money = $0 min $0
  named "gross proceeds"
  "the gross proceeds of the gaming activity";
input paid_to_benefiting_organisation: money = $0 min $0
  named "paid to the benefiting organisation"
  "the amount of the gross proceeds paid to the benefiting organisation";
input expenses: money = $0 min $0
  named "expenses of conducting the gaming activity", "expenses of conducting the session"
  "the total value of the expenses of conducting the gaming activity (for social housie, of conducting the session), excluding the cost of prizes";
input session_prizes: money = $0 min $0
  named "prizes for 1 session", "costs of prizes"
  "the total value of all of the prizes for 1 session (the largest session); for social housie, of the available prizes other than a jackpot prize";
input tickets_per_participant: count = 0
  named "tickets are permitted to be sold to the same participant"
  "the most tickets permitted to be sold to the same participant";
input solely_for_social_purposes: bool = false
  named "solely for social purposes"
  "the gaming activity is conducted solely for social purposes";
input on_liquor_licensed_premises: bool = false
  named "premises to which a licence under the Liquor Act 2007 relates"
  "the gaming activity is conducted on premises to which a licence under the Liquor Act 2007 relates";
input jackpot_prize: money = $0 min $0
  named "jackpot prize", "costs of prizes"
  "the value of the jackpot prize of a session, made of individual prizes not won";
input invested_by_participants: money = $0 min $0
  named "amount invested by participants"
  "the total amount invested by participants in a session";
input returned_to_participants: money = $0 min $0
  named "returned to participants"
  "the amount returned to the participants of that session";
input registered_club: bool = false
  named "by or on the authority of a registered club"
  "the gaming activity is conducted by or on the authority of a registered club";
input on_registered_club_premises: bool = false
  named "registered club premises"
  "the gaming activity is conducted on the registered club premises";
input for_attracting_patronage: bool = false
  named "purpose of attracting patronage"
  "the gaming activity is conducted for the purpose of attracting patronage to the club's facilities";
input game_prizes: money = $0 min $0
  named "prizes for 1 game"
  "the total value of all of the available prizes for 1 game (the largest game), apart from a bonus prize";
input bonus_prizes_offered: count = 0
  named "bonus prize is offered"
  "the number of bonus prizes offered at the end of a session of club bingo";
input bonus_prize_value: money = $0 min $0
  named "prize of a value"
  "the value of the most valuable bonus prize offered at the end of a session";
input prizes_include_money: bool = false
  named "prizes consist of or include money"
  "some of the prizes consist of or include money";

results permitted, charity_minimum_to_benefiting_organisation, charity_expense_limit,
  charity_prize_limit, social_remainder;

section 5. "Housie or bingo" {
  cases permitted: bool exclusive;

  (1) "In this Regulation, housie or bingo means a gaming activity—" {
    (a) "that is played by 1 or more participants using cards or a device with numbered spaces
         or symbols, and"
      text_only "describes the game that makes an activity housie or bingo: a scenario states which housie or bingo it is (the input activity), so the definition computes nothing"
    (b) "during which numbered spaces or symbols identified randomly and announced are marked
         off by each participant who has a card or device on which the numbered space or symbol
         is displayed, and"
      text_only "describes how housie or bingo is played: nothing is computed from it"
    (c) "that is won by the participant who is first able to mark off all numbered spaces or
         symbols on the card or device that are required to be marked off for a win."
      text_only "describes how housie or bingo is won: nothing is computed from it"
  }

  (2) "Charity housie Charity housie is a permitted gaming activity for the purposes of section
       10 of the Act if the following requirements are complied with—" {
    case permitted = charity_by_charity and charity_proceeds_paid and charity_expenses_within
                     and charity_prizes_within and charity_tickets_within
      when activity = charity_housie;

    invariant charity_housie_permitted_only_when_every_requirement_holds "Charity housie is
      permitted exactly when (a) to (e) are all complied with.":
      activity = charity_housie
      implies (permitted = (charity_by_charity and charity_proceeds_paid
                            and charity_expenses_within and charity_prizes_within
                            and charity_tickets_within));

    (a) "the gaming activity is conducted by or on behalf of a charitable organisation," {
      rule charity_by_charity: bool = conducted_for_charitable_organisation;
      invariant only_for_a_charity "Charity housie conducted neither by nor on behalf of a
        charitable organisation is never permitted.":
        activity = charity_housie and not conducted_for_charitable_organisation
        implies not permitted;
    }
    (b) "not less than 12.5% of the gross proceeds of the gaming activity are paid to the
         benefiting organisation," {
      rule charity_minimum_to_benefiting_organisation: money = 12.5% * gross_proceeds
        when activity = charity_housie reading I1;
      rule charity_proceeds_paid: bool =
        paid_to_benefiting_organisation >= charity_minimum_to_benefiting_organisation
        reading I1;
      invariant the_charity_gets_its_share "Permitted charity housie pays the benefiting
        organisation at least 12.5% of the gross proceeds.":
        activity = charity_housie and permitted
        implies paid_to_benefiting_organisation >= 12.5% * gross_proceeds reading I1;
    }
    (c) "the total value of the expenses of conducting the gaming activity (excluding the cost of
         prizes) does not exceed 12.5% of the gross proceeds of the gaming activity," {
      rule charity_expense_limit: money = 12.5% * gross_proceeds
        when activity = charity_housie reading I1;
      rule charity_expenses_within: bool = expenses <= charity_expense_limit reading I1;
      invariant expenses_within_their_share "Permitted charity housie spends no more than 12.5%
        of the gross proceeds on expenses other than prizes.":
        activity = charity_housie and permitted implies expenses <= 12.5% * gross_proceeds
        reading I1;
    }
    (d) "the total value of all of the prizes for 1 session of the gaming activity does not
         exceed $10,000 and does not exceed 75% of the gross proceeds from the gaming activity," {
      rule charity_prize_limit: money = min($10,000, 75% * gross_proceeds)
        when activity = charity_housie reading I1, I2;
      rule charity_prizes_within: bool = session_prizes <= charity_prize_limit reading I1, I2;
      invariant the_prize_limit_is_within_both_caps "The prize limit never exceeds $10,000 nor
        75% of the gross proceeds, and is never negative.":
        $0 <= charity_prize_limit and charity_prize_limit <= $10,000
        and charity_prize_limit <= 75% * gross_proceeds;
      invariant prizes_within_both_caps "The prizes of a session of permitted charity housie
        never exceed $10,000 nor 75% of the gross proceeds.":
        activity = charity_housie and permitted
        implies session_prizes <= $10,000 and session_prizes <= 75% * gross_proceeds
        reading I2;
      monotone more_proceeds_never_lower_the_limits "More gross proceeds never lower the share
        owed to the benefiting organisation, the expense limit or the prize limit.":
        charity_minimum_to_benefiting_organisation, charity_expense_limit, charity_prize_limit
        rise with gross_proceeds;
    }
    (e) "no more than 48 tickets are permitted to be sold to the same participant." {
      rule charity_tickets_within: bool = tickets_per_participant <= 48;
      invariant at_most_48_tickets "Permitted charity housie sells no participant more than 48
        tickets.":
        activity = charity_housie and permitted implies tickets_per_participant <= 48;
    }
  }

  (3) "Social housie Social housie is a permitted gaming activity for the purposes of section 10
       of the Act if the following requirements are complied with—" {
    case permitted = solely_for_social_purposes and not on_liquor_licensed_premises
                     and social_prizes_within and social_jackpot_within
                     and social_remainder_returned
      when activity = social_housie;

    (a) "the gaming activity is conducted solely for social purposes," {
      invariant solely_social "Social housie not conducted solely for social purposes is never
        permitted.":
        activity = social_housie and not solely_for_social_purposes implies not permitted;
    }
    (b) "the gaming activity is not conducted on premises to which a licence under the Liquor Act
         2007 relates," {
      invariant not_on_licensed_premises "Social housie on premises to which a liquor licence
        relates is never permitted.":
        activity = social_housie and on_liquor_licensed_premises implies not permitted;
    }
    (c) "except as provided by paragraph (d), the total value of all of the available prizes for
         1 session of the gaming activity does not exceed $40," {
      rule social_prizes_within: bool = session_prizes <= $40 reading I2, I3;
      invariant session_prizes_within_40 "The prizes of a session of permitted social housie,
        a jackpot prize apart, never exceed $40.":
        activity = social_housie and permitted implies session_prizes <= $40 reading I3;
    }
    (d) "if 1 or more individual prizes are not won, the value of any jackpot prize does not
         exceed $200," {
      rule social_jackpot_within: bool = jackpot_prize <= $200 reading I3;
      invariant jackpot_within_200 "A jackpot prize of permitted social housie never exceeds
        $200.":
        activity = social_housie and permitted implies jackpot_prize <= $200;
    }
    (e) "the total amount invested by participants in a session of the gaming activity, after the
         costs of prizes and expenses of conducting the session are deducted, is returned to
         participants." {
      rule social_remainder: money =
        invested_by_participants - session_prizes - jackpot_prize - expenses
        when activity = social_housie
         and session_prizes + jackpot_prize + expenses < invested_by_participants
        reading I4;
      rule social_remainder_returned: bool = returned_to_participants >= social_remainder
        reading I4;
      invariant the_remainder_is_part_of_what_was_invested "The remainder to return is never
        negative and never more than the participants invested.":
        $0 <= social_remainder and social_remainder <= invested_by_participants reading I4;
      invariant nothing_kept_back "Permitted social housie returns to the participants all they
        invested beyond the prizes and the expenses.":
        activity = social_housie and permitted
        implies returned_to_participants
                >= invested_by_participants - session_prizes - jackpot_prize - expenses
        reading I4;
    }
  }

  (4) "Club bingo Club bingo is a permitted gaming activity for the purposes of section 10 of the
       Act if the following requirements are complied with—" {
    case permitted = club_conducted and club_game_prizes_within and club_bonus_prize_within
                     and not prizes_include_money
      when activity = club_bingo;

    (a) "it is conducted by or on the authority of a registered club on the registered club
         premises for the purpose of attracting patronage to the club’s facilities," {
      rule club_conducted: bool =
        registered_club and on_registered_club_premises and for_attracting_patronage;
      invariant only_by_a_club_at_the_club "Permitted club bingo is conducted by or on the
        authority of a registered club, on its premises, to attract patronage.":
        activity = club_bingo and permitted
        implies registered_club and on_registered_club_premises and for_attracting_patronage;
    }
    (b) "except as provided by paragraph (c), the total value of all of the available prizes for
         1 game of the gaming activity does not exceed $70," {
      rule club_game_prizes_within: bool = game_prizes <= $70 reading I2, I5;
      invariant game_prizes_within_70 "The prizes of a game of permitted club bingo never exceed
        $70.":
        activity = club_bingo and permitted implies game_prizes <= $70 reading I2;
    }
    (c) "if a bonus prize is offered at the end of a session of club bingo, only 1 prize of a
         value not exceeding $70 may be offered," {
      rule club_bonus_prize_within: bool =
        bonus_prizes_offered = 0 or (bonus_prizes_offered <= 1 and bonus_prize_value <= $70)
        reading I5;
      unread activity "the club bingo of this paragraph is the activity of (4), whose case reads activity = club_bingo; club_bonus_prize_within counts only in that case";
      invariant one_bonus_prize_of_at_most_70 "Permitted club bingo offers at most 1 bonus prize
        at the end of a session, of a value not exceeding $70.":
        activity = club_bingo and permitted
        implies bonus_prizes_offered <= 1
                and (bonus_prizes_offered = 1 implies bonus_prize_value <= $70)
        reading I5;
    }
    (d) "none of the prizes consist of or include money." {
      invariant no_money_prizes "Club bingo with a prize of money is never permitted.":
        activity = club_bingo and prizes_include_money implies not permitted;
    }
  }
}
