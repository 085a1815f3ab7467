# The Plain Residence Act: a period of residence counted in years, and a filing deadline in days.

statute "Plain Residence Act"
  title "Residence"
  official "residence.txt"
  cite "{statute} § {section}{clauses}"
  dates round-down

reading I1 "When does a period of years that began on 29 February end in a year without that day?"
  default last-of-february "On 28 February, as (c) says: the encoding's dates round down.";

input admitted: date required min 1900-01-01 max 2100-12-31
  "the date of admission";
input filed: date required min admitted max 2100-12-31
  "the day the application is filed";

results residence_complete, eligible, filing_deadline, late, resided, admission_year;

section 1. "Residence." {
  (a) "An applicant may apply for a permit once the applicant has resided in the State for at
       least five years since the date of admission." {
    rule residence_complete: date = admitted + 5 years reading I1;
    rule eligible: bool = filed >= residence_complete;
    rule resided: duration = filed - admitted;
    rule admission_year: count = year of admitted;
    invariant five_years_are_days "Five years of residence are at least 1,826 days (within 1900 to 2100 every five years hold a 29 February).":
      eligible implies resided >= 1826 days
      reviewed 1826 days "five years of 365 days and the one 29 February any five years from 1900 to 2100 hold";
    invariant complete_after_admission "The residence is complete after the admission.":
      residence_complete > admitted;
  }
  (b) "An application is late if it is filed more than thirty (30) days after the applicant
       completes the five years." {
    rule filing_deadline: date = residence_complete + 30 days;
    rule late: bool = filed > filing_deadline;
  }
  (c) "A period of years that begins on 29 February ends, in a year without that day, on the
       last day of February." text_only "the header's 'dates round-down' states it"
}
