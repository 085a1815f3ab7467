# N.J.S.A. 34:1B-343: the Emerge program's tax credit for each new or retained full-time job.
#
# The statute's whole text, clause by clause, with the rules each clause authorises.
# `lextrace check` proves that the carried text equals nj-34-1b-343.txt (whitespace aside).

statute "N.J.S.A. 34:1B-343"
  title "Emerge program: the tax credit for each new or retained full-time job"
  history "P.L.2020, c.156, s.75; amended by P.L.2021, c.160, s.35"
  official "nj-34-1b-343.txt"

# ---- the interpretation register: one named reading for every open question ----------------

reading I1 "A facility can fall in several areas: which base amount and which cap apply?"
  default first-match "One area tier governs both the base amount of (b) and the cap of (d): the first of (b)(1)..(b)(5) whose condition holds, which is also the most favourable. (b)(1) holds for a government-restricted municipality or a mega project.";
reading I2 "Is an MRI distress score of exactly 50 'greater than 50'?"
  default strict "Strictly greater: a score of 50 gets nothing, 50.01 gets the bonus.";
reading I3 "How is the investment bonus counted per 40 percent above the minimum?"
  default whole-steps "Steps = floor((investment - minimum) / (40 percent of the minimum)) when the investment exceeds the minimum; bonus = $500 a step up to $1,500, or $5,000 for a mega project or a government-restricted municipality. Only industrial or R&D investment counts.";
reading I4 "Are the job bands 'between 251 and 400' inclusive?"
  default inclusive "Inclusive bands on the number of new full-time jobs: 251-400, 401-600, 601-800, 801-1,000, then over 1,000; 250 or fewer get nothing.";
reading I5 "What does the training bonus require?"
  default funded-program "$500 for a qualifying program the business funds or pays a State educational institution to provide; $1,000 instead when that program is provided by a State educational institution within 10 miles of the facility.";
reading I6 "Which median salary is the reference?"
  default county-or-municipality "The county median, except for a facility in a government-restricted municipality, where it is that municipality's median; the same reference serves (c)(1)(f) and (e).";
reading I7 "How is the salary bonus counted per 35 percent above the reference?"
  default whole-steps "Excess = (project median - reference) / reference; bonus = $200 for each whole 35 percent of excess, at most $1,000; nothing when the project median does not exceed the reference.";
reading I8 "Which jobs get the labor harmony bonus, and which may exceed the cap by up to $1,000?"
  default covered-jobs "The per-job amount is computed separately for jobs covered by the labor harmony agreement and jobs not covered: covered jobs get the $2,000 bonus and a cap raised by $1,000; uncovered jobs get neither."
  alternative business-wide "Every job of a business that receives the (j) bonus may use the raised cap; only covered jobs get the $2,000.";
reading I9 "How do LEED ratings and remediation combine?"
  default gold-over-silver "$500 when the facility exceeds LEED Gold; otherwise $250 when it exceeds LEED Silver or completes substantial environmental remediation; otherwise nothing.";
reading I10 "What does the college collaboration bonus require?"
  default targeted-and-collaboration "Both a targeted industry and the full-time collaboration with a college or university.";
reading I11 "How are 'at least 50 percent' and 'one-third or more' compared?"
  default exact-shares "As exact fractions, never floats: renewable share >= 1/2, underrepresented board share >= 1/3.";
reading I12 "Where must a marine terminal project be?"
  default port-district-outside-restricted "Inside the South Jersey Port District and not in a government-restricted municipality.";
reading I13 "What does the wage floor of (c)(2) do?"
  default no-bonuses "When the lowest hourly wage of any full-time job is below the higher of $15 and 120 percent of the State minimum wage, every bonus of (c)(1) is nothing; the base amount still applies.";
reading I14 "Can the authority's other criteria of (c)(3) be computed?"
  default discretionary "No: recorded as a discretionary clause, with no rule.";
reading I15 "Which comes first, the cap of (d) or the salary reduction of (e)?"
  default cap-then-reduce "The cap applies to base plus bonuses first; the reduction of (e) applies to that capped gross amount.";
reading I16 "How is the salary reduction of (e) applied?"
  default percentage-points "Shortfall = (reference - project median) / reference; below 30 percent the per-job amount is the gross amount less that share of it; at 30 percent or more there is no credit at all.";
reading I17 "How do new and retained jobs count?"
  default full-and-half "Each new job gets 100 percent of the reduced gross amount; each retained job 50 percent.";
reading I18 "How does the board's limit of (g) enter?"
  default board-limit-input "An optional input, the board-approved annual amount; when given, the annual credit is the lesser of the computed total and that limit. The staff analysis itself is discretionary.";
reading I19 "How is the credit for the eligibility period computed?"
  default annual-times-period "The annual credit times the eligibility period in years (7 unless the scenario says otherwise).";
reading I20 "How is the arithmetic done and rounded?"
  default exact-rationals "Exact rational arithmetic throughout; amounts are reported exactly and, for display, rounded half-up to the cent.";
reading I21 "What is the median of an even number of salaries ((e), (c)(1)(f))?"
  default mean-of-middle "The mean of the two middle salaries (exact)."
  alternative lower-middle "The lower of the two middle salaries.";
reading I22 "Which jobs does the wage floor of (c)(2) look at?"
  default every-full-time-job "Every full-time job at the qualified business facility: new, retained or other.";
reading I23 "How is the credit over the eligibility period computed, year by year?"
  default year-by-year "Each year is computed from that year's own facts; the (g) limit applies to each year's credit; the period's total is the sum of the years' credits.";

# ---- the facts of one eligible business for one tax year (the scenario contract) --------------

input government_restricted_municipality: bool = false
  named "government-restricted municipality"
  "the qualified business facility is in a government-restricted municipality";
input mega_project: bool = false
  named "mega project"
  "the project is a mega project";
input enhanced_area: bool = false
  named "enhanced area"
  "the qualified business facility is in an enhanced area";
input distressed_municipality: bool = false
  named "distressed municipality"
  "the qualified business facility is in a distressed municipality";
input qualified_opportunity_zone: bool = false
  named "qualified opportunity zone"
  "the qualified business facility is in a qualified opportunity zone";
input employment_investment_corridor: bool = false
  named "employment and investment corridor"
  "the project is in an employment and investment corridor";
input mri_distress_score: number = 0 min 0 max 100
  named "Municipal Revitalization Index distress score"
  "Municipal Revitalization Index distress score of the facility's municipality";
input industrial_rd_capital_investment: money = $0 min $0
  named "capital investment in industrial or research and development premises"
  "capital investment in industrial or research and development premises for industrial or research and development use";
input minimum_capital_investment: money = $0 min $0 above $0 when industrial_rd_capital_investment > $0
  named "minimum capital investment"
  "minimum capital investment required for eligibility under N.J.S.A. 34:1B-339(b)";
# The jobs' counts are named by phrases of a count ("the number of new full-time jobs", "for
# each new full-time job"), never by "new or retained full-time job" (of every job) nor by "the
# median salary of new full-time jobs and retained full-time jobs" (project_median_salary): so a
# band of (c)(1)(c) that counted retained jobs is refused, as its words name only new ones.
input new_jobs: count required derived by payroll_new_jobs when full_time_jobs is given
  named "number of new full-time jobs", "numbers of new full-time jobs", "each new full-time job"
  "new full-time jobs";
input retained_jobs: count = 0 derived by payroll_retained_jobs when full_time_jobs is given
  named "each retained full-time job"
  "retained full-time jobs";
input labor_harmony_new_jobs: count = 0 max new_jobs
  derived by payroll_labor_harmony_new_jobs when full_time_jobs is given
  named "portion of the project subject to that labor harmony agreement"
  "new full-time jobs in the portion of the project subject to a labor harmony agreement";
input labor_harmony_retained_jobs: count = 0 max retained_jobs
  derived by payroll_labor_harmony_retained_jobs when full_time_jobs is given
  named "portion of the project subject to that labor harmony agreement"
  "retained full-time jobs in the portion of the project subject to a labor harmony agreement";
input training_program: bool = false
  named "industry-specific training program"
  "funds a qualifying industry-specific training program, or pays a State educational institution to provide one to the public";
input training_by_state_institution_within_10_miles: bool = false
  named "State educational institution that is within 10 miles"
  "that training program is provided by a State educational institution within 10 miles of the facility";
input small_business: bool = false
  named "small business"
  "the eligible business qualifies as a small business";
input project_median_salary: money per year required above $0
  derived by payroll_median_salary when full_time_jobs is given
  named "project's median salary", "median salary of new full-time jobs and retained full-time jobs"
  "median salary of the new and retained full-time jobs";
input county_median_salary: money per year required above $0
  named "existing median salary for the county"
  "existing median salary of the county in which the facility is located";
input municipality_median_salary: money per year optional above $0 required when government_restricted_municipality
  named "median salary for the government-restricted municipality", "existing median salary for the municipality"
  "median salary of the government-restricted municipality";
input targeted_industry: bool = false
  named "targeted industry"
  "the eligible business is engaged primarily in a targeted industry";
input qualified_incubator_facility: bool = false
  named "qualified incubator facility"
  "the qualified business facility is located in a qualified incubator facility";
input child_care: bool = false
  named "child care"
  "provides employees access to child care, on site free of charge or through reimbursements";
input reentry_partnership_hire: bool = false
  named "re-entry program"
  "has an active partnership with a re-entry program and hired at least one active participant full-time";
input green_building: enum(none, exceeds_silver, exceeds_gold) = none
  named "Leadership in Energy and Environmental Design"
  "the facility's LEED level: exceeds Silver (but not Gold), or exceeds Gold";
input substantial_environmental_remediation: bool = false
  named "substantial environmental remediation"
  "the facility completes substantial environmental remediation";
input college_collaboration: bool = false
  named "collaborative relationship with a college or university"
  "the facility is used for a full-time collaborative relationship with a college or university";
input onsite_renewable_share: share = 0
  named "renewable or distributed energy on site"
  "on-site renewable or distributed generation as a share of the facility's electric supply service needs";
input marine_terminal_project: bool = false
  named "marine terminal project"
  "the project is a marine terminal project";
input south_jersey_port_district: bool = false
  named "South Jersey Port District"
  "the project is within the geographical boundaries of the South Jersey Port District";
input board_underrepresented_share: share = 0
  named "underrepresented community"
  "share of the governing board's members who self-identify as members of an underrepresented community";
input lowest_full_time_hourly_wage: money per hour required above $0
  derived by payroll_lowest_hourly_wage when full_time_jobs is given
  named "pay less than"
  "lowest hourly pay of any full-time job at the qualified business facility";
# The annual report's jobs (eligibility-period-format.md): given instead of the six counted
# facts above, each of which is then derived from them by a rule in the clause that names it.
record full_time_job "a full-time job at the qualified business facility, as the annual report lists it" {
  id: text unique "the job's identifier in the annual report";
  kind: enum(new, retained, other)
    "a new or a retained full-time job under the project agreement, or another full-time job at the facility";
  annual_salary: money per year above $0 "the job's annual salary";
  hourly_wage: money per hour above $0 "the job's hourly pay";
  labor_harmony: bool = false
    "the job is in the portion of the project subject to a labor harmony agreement ((c)(1)(j))";
  requires not (kind = other and labor_harmony)
    "a job of kind other with labor_harmony: the labor harmony agreement's portion is of the project, and a job of kind other is not in it";
}
input full_time_jobs: list of full_time_job optional
  named "full-time jobs at the qualified business facility"
  "the full-time jobs at the qualified business facility, one per job, from the annual report";
input tax_year: count optional min 2020 max 2100
  named "each year of the eligibility period"
  "the tax year the facts are of (a year of the eligibility period)";
input state_minimum_wage: money per hour required above $0 from nj_minimum_wage by tax_year
  named "minimum wage fixed under"
  "State minimum wage under N.J.S.A. 34:11-56a4 for the year";
input board_approved_annual_limit: money optional min $0
  named "amount determined by the authority to be necessary to induce the project"
  "the annual amount the board approved as necessary to induce the project, under (g)";
input eligibility_period_years: count = 7 min 1 max 10
  named "each year of the eligibility period"
  "years in the eligibility period";

# The minimum wage fixed under N.J.S.A. 34:11-56a4, year by year: a year's rate is the one in
# force on January 1 of that year.
table nj_minimum_wage: money per hour "the New Jersey minimum wage (general rate)"
  source "N.J.S.A. 34:11-56a4; rates published each year by the New Jersey Department of Labor and Workforce Development"
  from 2020-01-01 $11.00
  from 2021-01-01 $12.00
  from 2022-01-01 $13.00
  from 2023-01-01 $14.13
  from 2024-01-01 $15.13
  from 2025-01-01 $15.49
  from 2026-01-01 $15.92
  until 2026-12-31;

# The eligibility period year by year (eligibility-period-format.md): each year its own jobs.
periods eligibility_period by tax_year at most 10
  "the years of the eligibility period, each computed from its own facts"
  each new_jobs, retained_jobs, labor_harmony_new_jobs, labor_harmony_retained_jobs,
    project_median_salary, lowest_full_time_hourly_wage, full_time_jobs
  without eligibility_period_years;

results area_tier, per_job_new, per_job_new_labor_harmony, per_job_retained,
  per_job_retained_labor_harmony, annual_total_before_limit, annual_credit, eligibility_period_total;

# ---- the statute ----------------------------------------------------------------------------------

section 75. {

a. "The total amount of the tax credit for an eligible business for each new or retained
    full-time job shall be as set forth in subsections b. through g. of this section. The total
    tax credit amount shall be calculated and credited to the business annually for each year of
    the eligibility period, notwithstanding any other provisions of P.L.2020, c.156 (C. 34:1B-269
    et al.) to the contrary." {
  rule eligibility_period_total: money = annual_credit * eligibility_period_years reading I19, I20;
  total eligibility_period_total = sum of annual_credit over eligibility_period reading I23;
  unread tax_year "each year of the eligibility period is one period of the periods form, told apart by its tax_year (the total above); no rule reads the year itself";

  invariant amounts_not_negative "No amount of the credit is ever negative.":
    per_job_new >= $0 and per_job_new_labor_harmony >= $0 and per_job_retained >= $0
    and per_job_retained_labor_harmony >= $0 and annual_total_before_limit >= $0
    and annual_credit >= $0 and eligibility_period_total >= $0;
  monotone longer_period_never_lowers "The credit is credited for each year of the eligibility
    period: a longer period never lowers the total.":
    eligibility_period_total rise with eligibility_period_years;
}

b. "The base amount of the tax credit for each new or retained full-time job for an eligible
    business shall be as follows:" {
  cases area_tier: enum(b1, b2, b3, b4, b5) first-match reading I1;
  cases base_amount: money exclusive reading I1;

  (1) "for a qualified business facility located within a government-restricted municipality,
       or which is a mega project, $4,000 per year;" {
    case area_tier = b1 when government_restricted_municipality or mega_project;
    case base_amount = $4,000 when area_tier = b1;
    invariant base_b1 "A facility in a government-restricted municipality, or a mega project, has
      the base amount of $4,000 per year.":
      government_restricted_municipality or mega_project implies base_amount = $4,000 reading I1;
  }
  (2) "for a qualified business facility located within an enhanced area, $3,500 per year;" {
    case area_tier = b2 when enhanced_area;
    case base_amount = $3,500 when area_tier = b2;
    invariant base_b2 "A facility within an enhanced area has at least the base amount of $3,500
      per year (more only under an earlier paragraph).":
      enhanced_area implies base_amount >= $3,500 reading I1;
  }
  (3) "for a qualified business facility located within a distressed municipality, $3,000 per
       year;" {
    case area_tier = b3 when distressed_municipality;
    case base_amount = $3,000 when area_tier = b3;
    invariant base_b3 "A facility within a distressed municipality has at least the base amount
      of $3,000 per year.":
      distressed_municipality implies base_amount >= $3,000 reading I1;
  }
  (4) "for a project in a qualified opportunity zone or an employment and investment corridor,
       $2,500 per year; and" {
    case area_tier = b4 when qualified_opportunity_zone or employment_investment_corridor;
    case base_amount = $2,500 when area_tier = b4;
    invariant base_b4 "A project in a qualified opportunity zone or an employment and investment
      corridor has at least the base amount of $2,500 per year.":
      qualified_opportunity_zone or employment_investment_corridor
      implies base_amount >= $2,500 reading I1;
  }
  (5) "for a project in other eligible areas, $500 per year." {
    case area_tier = b5 otherwise;
    case base_amount = $500 when area_tier = b5;
    invariant base_b5 "A project in none of the areas of (b)(1) to (b)(4) has the base amount of
      $500 per year.":
      not (government_restricted_municipality or mega_project or enhanced_area
           or distressed_municipality or qualified_opportunity_zone
           or employment_investment_corridor)
      implies base_amount = $500 reading I1;
  }
}

c. {
  (1) "In addition to the base amount of the tax credit, the amount of the tax credit to be
       awarded for each new or retained full-time job shall be increased with the following
       bonuses:" {
    rule bonus_total(covered: bool): money = sum of bonuses;
    monotone bonuses_never_lower "The amount is increased with the bonuses: turning on any one
      bonus fact, or raising a bonus measure, all else equal, never lowers a per-job amount or
      the credit.":
      per_job_new, per_job_new_labor_harmony, per_job_retained, per_job_retained_labor_harmony,
      annual_total_before_limit, annual_credit, eligibility_period_total
      rise with mri_distress_score, industrial_rd_capital_investment, training_program,
        training_by_state_institution_within_10_miles, small_business, targeted_industry,
        qualified_incubator_facility, labor_harmony_new_jobs, labor_harmony_retained_jobs,
        child_care, reentry_partnership_hire, green_building,
        substantial_environmental_remediation, college_collaboration, onsite_renewable_share,
        marine_terminal_project, south_jersey_port_district, qualified_opportunity_zone,
        board_underrepresented_share, new_jobs, retained_jobs;

    (a) "for an eligible business with a qualified business facility located in a municipality
         with a Municipal Revitalization Index distress score greater than 50, an increase of
         $1,000 per year;" {
      bonus rule distress_score_bonus: money = $1,000 when mri_distress_score > 50 reading I2;
      invariant distress_score_bonus_paid "A distress score greater than 50 earns the increase of $1,000.":
        mri_distress_score > 50 implies distress_score_bonus = $1,000 reading I2;
      invariant distress_score_bonus_only_above_50 "A distress score of 50 or less earns nothing under this subparagraph.":
        not (mri_distress_score > 50) implies distress_score_bonus = $0 reading I2;
    }
    (b) "for an eligible business with a qualified business facility at which the capital
         investment in industrial or research and development premises for industrial or
         research and development use by the business is in excess of the minimum capital
         investment required for eligibility pursuant to subsection b. of section 71 of
         P.L.2020, c.156 (C. 34:1B-339), an increase of $500 per year for each additional amount
         of investment that exceeds the minimum amount required for eligibility by 40 percent,
         with a maximum increase of $1,500 per year, unless the project qualifies as a mega
         project or the qualified business facility is located in a government-restricted
         municipality, in which case the maximum increase is $5,000 per year;" {
      rule investment_steps: count =
        floor((industrial_rd_capital_investment - minimum_capital_investment)
              / (40% * minimum_capital_investment))
        when industrial_rd_capital_investment > minimum_capital_investment reading I3;
      rule investment_bonus_maximum: money =
        if mega_project or government_restricted_municipality then $5,000 else $1,500 reading I3;
      bonus rule investment_bonus: money =
        min($500 * investment_steps, investment_bonus_maximum) reading I3;
      invariant investment_bonus_paid "An investment in excess of the minimum by 40 percent of it earns at least $500.":
        minimum_capital_investment > $0
        and industrial_rd_capital_investment - minimum_capital_investment >= 40% * minimum_capital_investment
        implies investment_bonus >= $500 reading I3;
      invariant investment_bonus_only_in_excess "An investment not in excess of the minimum earns nothing under this subparagraph.":
        industrial_rd_capital_investment <= minimum_capital_investment implies investment_bonus = $0 reading I3;
    }
    (c) "for an eligible business with large numbers of new full-time jobs during the
         eligibility period, the increases shall be in accordance with the following schedule:" {
      bonus cases large_employer_bonus: money exclusive otherwise $0 reading I4;

      (i) "if the number of new full-time jobs is between 251 and 400, $500 per year;" {
        case large_employer_bonus = $500 when new_jobs >= 251 and new_jobs <= 400;
        invariant large_employer_bonus_paid_from_251 "251 or more new full-time jobs earn at
          least $500.":
          new_jobs >= 251 implies large_employer_bonus >= $500 reading I4;
        invariant large_employer_bonus_only_from_251 "Fewer than 251 new full-time jobs earn
          nothing under this subparagraph, whatever the retained jobs.":
          not (new_jobs >= 251) implies large_employer_bonus = $0 reading I4;
      }
      (ii) "if the number of new full-time jobs is between 401 and 600, $750 per year;" {
        case large_employer_bonus = $750 when new_jobs >= 401 and new_jobs <= 600;
      }
      (iii) "if the number of new full-time jobs is between 601 and 800, $1,000 per year;" {
        case large_employer_bonus = $1,000 when new_jobs >= 601 and new_jobs <= 800;
      }
      (iv) "if the number of new full-time jobs is between 801 and 1,000, $1,250 per year;" {
        case large_employer_bonus = $1,250 when new_jobs >= 801 and new_jobs <= 1000;
      }
      (v) "if the number of new full-time jobs is in excess of 1,000, $1,500 per year;" {
        case large_employer_bonus = $1,500 when new_jobs > 1000;
        invariant large_employer_bonus_paid_over_1000 "More than 1,000 new full-time jobs earn
          $1,500.":
          new_jobs > 1000 implies large_employer_bonus = $1,500 reading I4;
      }
    }
    (d) "for an eligible business that annually funds an industry-specific training program,
         which has the capacity to enroll 10 percent or more of the eligible business’s
         full-time workforce, or pays a State educational institution to provide to the public
         an industry-specific training program, an increase of $500 per year; provided, however,
         that if the training program is provided by a State educational institution that is
         within 10 miles of the qualified business facility, then the increase shall be $1,000
         per year;" {
      bonus rule training_bonus: money =
        if training_by_state_institution_within_10_miles then $1,000 else $500
        when training_program reading I5;
      invariant training_bonus_paid "A funded training program earns $500; $1,000 when a State educational institution within 10 miles provides it.":
        (training_program implies training_bonus >= $500)
        and (training_program and training_by_state_institution_within_10_miles
             implies training_bonus = $1,000) reading I5;
      invariant training_bonus_only_with_a_program "Without a training program, nothing under this subparagraph.":
        not training_program implies training_bonus = $0 reading I5;
    }
    (e) "for an eligible business that qualifies as a small business, an increase of $500 per
         year;" {
      bonus rule small_business_bonus: money = $500 when small_business;
      invariant small_business_bonus_paid "A small business earns the increase of $500.":
        small_business implies small_business_bonus = $500;
      invariant small_business_bonus_only_if_small "A business that is not a small business earns nothing under this subparagraph.":
        not small_business implies small_business_bonus = $0;
    }
    (f) "for an eligible business with new full-time jobs and retained full-time jobs at the
         qualified business facility with a median salary in excess of the existing median
         salary for the county in which the project is located, or, in the case of a project in
         a government-restricted municipality, a business with employees in full-time positions
         at the project with a median salary in excess of the median salary for the
         government-restricted municipality, an increase of $200 per year during the eligibility
         period for each 35 percent by which the project’s median salary levels exceeds the
         county or government-restricted municipality median salary, with a maximum increase of
         $1,000 per year;" {
      rule salary_excess: number =
        (project_median_salary - salary_reference) / salary_reference
        when project_median_salary > salary_reference reading I6, I7;
      bonus rule salary_bonus: money = min($200 * floor(salary_excess / 35%), $1,000) reading I7;
      invariant salary_bonus_paid "A median salary in excess of the reference by 35 percent of it earns at least $200.":
        project_median_salary - salary_reference >= 35% * salary_reference implies salary_bonus >= $200 reading I6, I7;
      invariant salary_bonus_only_in_excess "A median salary not in excess of the reference earns nothing under this subparagraph.":
        project_median_salary <= salary_reference implies salary_bonus = $0 reading I6, I7;
      unread full_time_jobs "their median salary is project_median_salary, derived from them in (e)(1)";
      unread county_median_salary "the reference median, chosen in (e)(1) and (e)(2) as salary_reference (reading I6)";
      unread municipality_median_salary "the reference median, chosen in (e)(1) and (e)(2) as salary_reference (reading I6)";
      unread government_restricted_municipality "it chooses the reference median, in (e)(1) and (e)(2) (reading I6)";
    }
    (g) "(Deleted by amendment, P.L.2021, c.160);"
      text_only "deleted by P.L.2021, c.160: it awards nothing"
    (h) "for an eligible business engaged primarily in a targeted industry, an increase of $500
         per year;" {
      bonus rule targeted_industry_bonus: money = $500 when targeted_industry;
      invariant targeted_industry_bonus_paid "A business engaged primarily in a targeted industry earns the increase of $500.":
        targeted_industry implies targeted_industry_bonus = $500;
      invariant targeted_industry_bonus_only_in_one "Outside a targeted industry, nothing under this subparagraph.":
        not targeted_industry implies targeted_industry_bonus = $0;
    }
    (i) "for an eligible business with a qualified business facility located in a qualified
         incubator facility, an increase of $500 per year;" {
      bonus rule incubator_bonus: money = $500 when qualified_incubator_facility;
      invariant incubator_bonus_paid "A facility in a qualified incubator facility earns the increase of $500.":
        qualified_incubator_facility implies incubator_bonus = $500;
      invariant incubator_bonus_only_in_one "Outside a qualified incubator facility, nothing under this subparagraph.":
        not qualified_incubator_facility implies incubator_bonus = $0;
    }
    (j) "for an eligible business that enters into a labor harmony agreement in accordance with
         section 69 of P.L.2020, c.156 (C. 34:1B-337), an increase of $2,000 per year for the
         portion of the project subject to that labor harmony agreement; provided further that
         an eligible business receiving a bonus under this subparagraph may exceed the
         limitation applicable to the eligible business pursuant to subsection d. of this
         section by an amount not to exceed $1,000;" {
      rule payroll_labor_harmony_new_jobs: count =
        count of full_time_jobs where kind = new and labor_harmony;
      rule payroll_labor_harmony_retained_jobs: count =
        count of full_time_jobs where kind = retained and labor_harmony;
      rule labor_harmony_agreement: bool =
        labor_harmony_new_jobs + labor_harmony_retained_jobs > 0 reading I8;
      bonus rule labor_harmony_bonus(covered: bool): money = $2,000 when covered reading I8;
      invariant labor_harmony_bonus_for_the_portion "Only the portion of the project subject to the labor harmony agreement earns the increase of $2,000.":
        labor_harmony_bonus(covered: true) = $2,000 and labor_harmony_bonus(covered: false) = $0 reading I8;
      rule cap_allowance(covered: bool): money = $1,000
        when bonuses_awarded
         and (covered or (reading I8 is business-wide and labor_harmony_agreement))
        reading I8;
      invariant covered_jobs_never_get_less "A job in the portion of the project subject to
        the labor harmony agreement is never allowed less than a job outside it.":
        per_job_new_labor_harmony >= per_job_new
        and per_job_retained_labor_harmony >= per_job_retained reading I8;
      invariant allowance_at_most_1000(covered: bool) "A job may exceed the limitation of (d)
        through this allowance by no more than $1,000.":
        gross_amount(covered: covered) <= gross_cap + $1,000 reading I8;
      invariant allowance_only_with_the_bonus(covered: bool) "Only a business receiving the
        bonus of this subparagraph may exceed the limitation of (d); under the covered-jobs
        reading, only its jobs in the portion subject to the agreement.":
        gross_amount(covered: covered) > gross_cap
        implies bonuses_awarded and labor_harmony_bonus(covered: true) > $0
          and (covered or reading I8 is business-wide) and (covered or labor_harmony_agreement)
        reading I8;
    }
    (k) "for an eligible business that provides its employees access to child care either
         through an on-site quality child care facility free of charge to its employees or
         through reimbursements paid by the eligible business to its employees for the cost of
         child care in accordance with standards adopted by the authority, an increase of $1,000
         per year;" {
      bonus rule child_care_bonus: money = $1,000 when child_care;
      invariant child_care_bonus_paid "Access to child care earns the increase of $1,000.":
        child_care implies child_care_bonus = $1,000;
      invariant child_care_bonus_only_with_child_care "Without access to child care, nothing under this subparagraph.":
        not child_care implies child_care_bonus = $0;
    }
    (l) "for an eligible business that enters, or has previously entered, into an active
         partnership with a re-entry program for the purpose of identifying and promoting
         employment opportunities at the eligible business for former inmates and current
         inmates leaving the corrections system, and that hires at least one active participant
         in the re-entry program as a full-time employee, an increase of $500 per year;" {
      bonus rule reentry_bonus: money = $500 when reentry_partnership_hire;
      invariant reentry_bonus_paid "A re-entry partnership with a hire earns the increase of $500.":
        reentry_partnership_hire implies reentry_bonus = $500;
      invariant reentry_bonus_only_with_a_hire "Without the partnership and the hire, nothing under this subparagraph.":
        not reentry_partnership_hire implies reentry_bonus = $0;
    }
    (m) "for an eligible business with a qualified business facility that exceeds the Leadership
         in Energy and Environmental Design’s “Silver” rating standards but does not exceed
         “Gold” rating standards or completes substantial environmental remediation, an
         additional increase of $250 per year, or for an eligible business with a qualified
         business facility that exceeds the Leadership in Energy and Environmental Design’s
         “Gold” rating standards, an additional increase of $500 per year;" {
      bonus cases green_building_bonus: money first-match otherwise $0 reading I9;
      case green_building_bonus = $500 when green_building = exceeds_gold;
      case green_building_bonus = $250
        when green_building = exceeds_silver or substantial_environmental_remediation;
      invariant green_building_bonus_paid "Exceeding Gold earns $500; exceeding Silver or completing substantial environmental remediation, at least $250.":
        (green_building = exceeds_gold implies green_building_bonus = $500)
        and (green_building = exceeds_silver or substantial_environmental_remediation
             implies green_building_bonus >= $250) reading I9;
      invariant green_building_bonus_only_for_the_ratings "Neither rating nor remediation: nothing under this subparagraph.":
        green_building = none and not substantial_environmental_remediation
        implies green_building_bonus = $0 reading I9;
    }
    (n) "for an eligible business in a targeted industry with a qualified business facility that
         is used by the eligible business to conduct a full time collaborative relationship with
         a college or university, including, but not limited to, a doctoral university, an
         increase of $1,000 per year;" {
      bonus rule college_collaboration_bonus: money = $1,000
        when targeted_industry and college_collaboration reading I10;
      invariant college_collaboration_bonus_paid "A business in a targeted industry collaborating with a college or university earns the increase of $1,000.":
        targeted_industry and college_collaboration implies college_collaboration_bonus = $1,000 reading I10;
      invariant college_collaboration_bonus_only_with_both "Without both, nothing under this subparagraph.":
        not (targeted_industry and college_collaboration) implies college_collaboration_bonus = $0 reading I10;
    }
    (o) "for an eligible business with a project that generates solar, geo-thermal, wind, or any
         other renewable or distributed energy on site for use within the qualified business
         facility of an amount that equals at least 50 percent of the qualified business
         facility electric supply service needs, an increase of $500 per year;" {
      bonus rule renewable_energy_bonus: money = $500
        when onsite_renewable_share >= 50% reading I11;
      invariant renewable_energy_bonus_paid "Renewable energy on site of at least 50 percent of the facility's needs earns the increase of $500.":
        onsite_renewable_share >= 50% implies renewable_energy_bonus = $500 reading I11;
      invariant renewable_energy_bonus_from_50_percent "Less than 50 percent: nothing under this subparagraph.":
        not (onsite_renewable_share >= 50%) implies renewable_energy_bonus = $0 reading I11;
    }
    (p) "for an eligible business with a marine terminal project in a municipality located
         outside a government-restricted municipality, but within the geographical boundaries
         of the South Jersey Port District, an increase of $1,500 per year;" {
      bonus rule marine_terminal_bonus: money = $1,500
        when marine_terminal_project and south_jersey_port_district
         and not government_restricted_municipality reading I12;
      invariant marine_terminal_bonus_paid "A marine terminal project in the South Jersey Port District, outside a government-restricted municipality, earns the increase of $1,500.":
        marine_terminal_project and south_jersey_port_district and not government_restricted_municipality
        implies marine_terminal_bonus = $1,500 reading I12;
      invariant marine_terminal_bonus_only_there "Elsewhere, or for another project, nothing under this subparagraph.":
        not (marine_terminal_project and south_jersey_port_district)
        or government_restricted_municipality
        implies marine_terminal_bonus = $0 reading I12;
    }
    (q) "for an eligible business with a qualified business facility located in a qualified
         opportunity zone, an increase of $1,000 per year; and" {
      bonus rule opportunity_zone_bonus: money = $1,000 when qualified_opportunity_zone;
      invariant opportunity_zone_bonus_paid "A facility in a qualified opportunity zone earns the increase of $1,000.":
        qualified_opportunity_zone implies opportunity_zone_bonus = $1,000;
      invariant opportunity_zone_bonus_only_in_one "Outside a qualified opportunity zone (in an employment and investment corridor too), nothing under this subparagraph.":
        not qualified_opportunity_zone implies opportunity_zone_bonus = $0;
    }
    (r) "for an eligible business if one-third or more of the members of the eligible
         business’s governing board or other governing body self-identify as members of an
         underrepresented community, which may include Black, African American, Hispanic,
         Latino, Asian, Pacific Islander, Native American, Native Hawaiian, Alaska Native or
         gay, lesbian, bisexual or transgender, an increase of $2,000 per year for each new or
         retained full-time job." {
      bonus rule board_diversity_bonus: money = $2,000
        when board_underrepresented_share >= 1/3 reading I11;
      invariant board_diversity_bonus_paid "One-third or more of the board earns the increase of $2,000.":
        board_underrepresented_share >= 1/3 implies board_diversity_bonus = $2,000 reading I11;
      invariant board_diversity_bonus_only_from_one_third "Less than one-third: nothing under this subparagraph.":
        not (board_underrepresented_share >= 1/3) implies board_diversity_bonus = $0 reading I11;
      "The authority shall work with the Chief Diversity Officer or other State entities to
       ensure that the bonus provided under this subparagraph is implemented faithfully and in
       compliance with law."
        text_only "a duty of the authority in administering the bonus: it sets no amount"
    }
  }
  (2) "The authority shall not award a bonus to an eligible business with full-time jobs at the
       qualified business facility that pay less than $15 per hour or 120 percent of the minimum
       wage fixed under subsection a. of section 5 of P.L.1966, c.113 (C. 34:11-56a4), whichever
       is higher." {
    rule payroll_lowest_hourly_wage: money per hour = min of hourly_wage in full_time_jobs reading I22;
    rule wage_floor: money per hour = max($15, 120% * state_minimum_wage) reading I13;
    rule bonuses_awarded: bool = lowest_full_time_hourly_wage >= wage_floor reading I13;
    invariant bonuses_at_the_wage_floor "A business whose every full-time job pays at least $15
      per hour and at least 120 percent of the minimum wage is not refused a bonus by this
      paragraph.":
      lowest_full_time_hourly_wage >= $15
      and lowest_full_time_hourly_wage >= 120% * state_minimum_wage
      implies bonuses_awarded reading I13;
    exception wage_floor_withholds_bonuses to bonus_total priority 1 =
      $0 when not bonuses_awarded reading I13;
    invariant no_bonus_below_the_wage_floor(covered: bool) "Below $15 an hour, or below 120
      percent of the minimum wage, no bonus is awarded: the gross amount is the base amount.":
      lowest_full_time_hourly_wage < $15 or lowest_full_time_hourly_wage < 120% * state_minimum_wage
      implies gross_amount(covered: covered) = base_amount reading I13;
    monotone higher_wages_never_lower "Paying the lowest full-time job more never lowers the
      credit.":
      per_job_new, per_job_new_labor_harmony, per_job_retained, per_job_retained_labor_harmony,
      annual_credit
      rise with lowest_full_time_hourly_wage;
  }
  (3) "The authority may adopt, pursuant to the provisions of the “Administrative Procedure
       Act,” P.L.1968, c.410 (C. 52:14B-1 et seq.), criteria in addition to, or in place of, the
       criteria set forth in paragraph (1) of this subsection in response to the prevailing
       economic conditions in the State."
    discretionary "criteria the authority may adopt by regulation in response to economic conditions: none are adopted in this encoding, so no rule follows from this paragraph"
}

d. "The gross amount of the tax credit available to an eligible business for each new or
    retained full-time job shall be the sum of the base amount set forth in subsection b. of
    this section and the various additional bonus amounts for which the business is eligible
    pursuant to subsection c. of this section, subject to the following limitations:" {
  cases gross_cap: money exclusive reading I1;
  rule gross_amount(covered: bool): money =
    min(base_amount + bonus_total(covered: covered),
        gross_cap + cap_allowance(covered: covered)) reading I15;
  invariant gross_is_at_most_the_sum(covered: bool) "The gross amount is the sum of the base
    amount and the bonuses, subject to the limitations: never more than that sum.":
    gross_amount(covered: covered) <= base_amount + bonus_total(covered: covered) reading I15;
  invariant gross_is_the_sum_within_the_limit(covered: bool) "Within the limitation of its area,
    the gross amount is the whole sum of the base amount and the bonuses.":
    base_amount + bonus_total(covered: covered) <= gross_cap
    implies gross_amount(covered: covered) = base_amount + bonus_total(covered: covered)
    reading I15;

  (1) "for a mega project or a project in a government-restricted municipality, the gross
       amount for each new or retained full-time job shall not exceed $8,000 per year;" {
    case gross_cap = $8,000 when area_tier = b1;
    unread mega_project "the area tier of (b)(1) names the same facility, and one tier governs both the base amount and the cap (reading I1)";
    unread government_restricted_municipality "the area tier of (b)(1) names the same facility, and one tier governs both the base amount and the cap (reading I1)";
  }
  (2) "for a qualified business facility located within an enhanced area, the gross amount for
       each new or retained full-time job shall not exceed $6,000 per year;" {
    case gross_cap = $6,000 when area_tier = b2;
    unread enhanced_area "the area tier of (b)(2) names the same facility, and one tier governs both the base amount and the cap (reading I1)";
  }
  (3) "for a qualified business facility within a distressed municipality, the gross amount for
       each new or retained full-time job shall not exceed $5,000 per year;" {
    case gross_cap = $5,000 when area_tier = b3;
    unread distressed_municipality "the area tier of (b)(3) names the same facility, and one tier governs both the base amount and the cap (reading I1)";
  }
  (4) "for a qualified business facility in a qualified opportunity zone or an employment and
       investment corridor, the gross amount for each new or retained full-time job shall not
       exceed $4,000 per year; and" {
    case gross_cap = $4,000 when area_tier = b4;
    unread qualified_opportunity_zone "the area tier of (b)(4) names the same facility, and one tier governs both the base amount and the cap (reading I1)";
    unread employment_investment_corridor "the area tier of (b)(4) names the same facility, and one tier governs both the base amount and the cap (reading I1)";
  }
  (5) "for a qualified business facility in other eligible areas, the gross amount for each new
       or retained full-time job shall not exceed $3,000 per year." {
    case gross_cap = $3,000 when area_tier = b5;
  }
}

e. "The authority shall reduce the gross amount of tax credits per full-time job:" {
  cases salary_reference: money exclusive reading I6;

  (1) "if the median salary of new full-time jobs and retained full-time jobs subject to the
       project agreement is less than the existing median salary for the county in which the
       qualified business facility is located; or" {
    case salary_reference = county_median_salary when not government_restricted_municipality;
    rule payroll_median_salary: money per year =
      if reading I21 is lower-middle
      then (median_low of annual_salary in full_time_jobs where kind = new or kind = retained)
      else (median of annual_salary in full_time_jobs where kind = new or kind = retained)
      reading I21;
  }
  (2) "for a project located in a government-restricted municipality, if the median salary of
       new full-time jobs and retained full-time jobs subject to the project agreement is less
       than the existing median salary for the municipality in which the qualified business
       facility is located." {
    case salary_reference = municipality_median_salary when government_restricted_municipality;
    unread project_median_salary "this paragraph chooses the reference median; the comparison with it is salary_shortfall, in the words after (e)(2)";
  }

  "The authority shall reduce the gross amount of tax credits per full-time job by an amount, in
   percentage points, equal to the percentage the median salary of new full-time jobs and
   retained full-time jobs subject to the project agreement is below the existing median salary
   for the county or government-restricted municipality in which the qualified business facility
   is located."
  rule salary_shortfall: number =
    (salary_reference - project_median_salary) / salary_reference
    when project_median_salary < salary_reference reading I16;
  rule reduced_amount(covered: bool): money =
    gross_amount(covered: covered) - gross_amount(covered: covered) * salary_shortfall
    reading I15, I16;
  invariant reduced_by_the_shortfall(covered: bool) "Below the reference median, and by less
    than 30 percent, the amount is the gross amount reduced by the percentage the median salary
    is below it.":
    project_median_salary < salary_reference
    and salary_reference - project_median_salary < 30% * salary_reference
    implies net_amount(covered: covered)
      = gross_amount(covered: covered) * (project_median_salary / salary_reference)
    reading I16;
  invariant no_reduction_at_the_reference(covered: bool) "At or above the reference median the
    gross amount is not reduced.":
    project_median_salary >= salary_reference
    implies net_amount(covered: covered) = gross_amount(covered: covered) reading I16;
  monotone higher_salaries_never_lower "A higher project median salary never lowers the credit:
    it can only earn the bonus of (c)(1)(f) and shrink the reduction of (e).":
    per_job_new, per_job_new_labor_harmony, per_job_retained, per_job_retained_labor_harmony,
    annual_credit
    rise with project_median_salary;

  "The authority shall not award a tax credit to an eligible business if the median salary of
   new full-time jobs and retained full-time jobs that would otherwise be subject to the project
   agreement is 30 percent or more below the relevant existing median salary for the county or
   government-restricted municipality in which the qualified business facility is located."
  rule credit_barred: bool = salary_shortfall >= 30% reading I16;
  invariant no_credit_30_percent_below "A median salary 30 percent or more below the
    reference median gives no credit at all.":
    salary_reference - project_median_salary >= 30% * salary_reference
    implies per_job_new = $0 and per_job_new_labor_harmony = $0 and per_job_retained = $0
      and per_job_retained_labor_harmony = $0 and annual_total_before_limit = $0
      and annual_credit = $0 and eligibility_period_total = $0
    reading I16;
  rule net_amount(covered: bool): money =
    if credit_barred then $0 else reduced_amount(covered: covered) reading I16;
}

f. "After the determination by the authority of the gross amount of tax credits for which an
    eligible business is eligible pursuant to subsection d. of this section, the final total tax
    credit amount shall be calculated as follows:" {
  rule annual_total_before_limit: money =
      per_job_new * (new_jobs - labor_harmony_new_jobs)
    + per_job_new_labor_harmony * labor_harmony_new_jobs
    + per_job_retained * (retained_jobs - labor_harmony_retained_jobs)
    + per_job_retained_labor_harmony * labor_harmony_retained_jobs
    reading I8, I17
    reads labor_harmony_new_jobs "the jobs of the portion subject to the labor harmony agreement of (c)(1)(j) are counted at their own amount"
    reads labor_harmony_retained_jobs "the jobs of the portion subject to the labor harmony agreement of (c)(1)(j) are counted at their own amount";
  rule annual_credit: money = annual_total_before_limit;

  (1) "for each new full-time job, the eligible business shall be allowed tax credits equaling
       100 percent of the gross amount of tax credits for each new full-time job; and" {
    rule payroll_new_jobs: count = count of full_time_jobs where kind = new;
    rule per_job_new: money = 100% * net_amount(covered: false) reading I17;
    rule per_job_new_labor_harmony: money = 100% * net_amount(covered: true) reading I8, I17;
  }
  (2) "for each retained full-time job, the eligible business shall be allowed tax credits
       equaling 50 percent of the gross amount of tax credits for each retained full-time job." {
    rule payroll_retained_jobs: count = count of full_time_jobs where kind = retained;
    rule per_job_retained: money = 50% * net_amount(covered: false) reading I17;
    rule per_job_retained_labor_harmony: money = 50% * net_amount(covered: true) reading I8, I17;
    invariant retained_is_half_of_new "Each retained job is allowed 50 percent of what a new job
      of the same portion is allowed.":
      per_job_retained = 50% * per_job_new
      and per_job_retained_labor_harmony = 50% * per_job_new_labor_harmony reading I17;
  }
}

g. "Notwithstanding the provisions of subsections a. through f. of this section to the contrary,
    for each application approved by the board, the amount of tax credits available to be
    applied by the business annually shall not exceed an amount determined by the authority to
    be necessary to induce the project to be sited in New Jersey as determined by the board." {
  exception board_limit to annual_credit priority 1 = board_approved_annual_limit
    when board_approved_annual_limit is given
     and board_approved_annual_limit < annual_total_before_limit
    reading I18;
  invariant within_the_board_limit "The credit applied annually never exceeds the amount the
    board determined necessary, when it determined one.":
    board_approved_annual_limit is given implies annual_credit <= board_approved_annual_limit
    reading I18;
  invariant never_above_the_computed_total "The board's limit only ever lowers the credit.":
    annual_credit <= annual_total_before_limit reading I18;

  "The authority shall determine the amount necessary to complete the project through staff
   analysis of all locations under consideration by the eligible business and all lease
   agreements, ownership documents, or substantially similar documentation for the eligible
   business’s proposed in-State locations and potential out-of-State location alternatives,
   competitive proposals from other states, the prevailing economic conditions, and any other
   information that the authority deems relevant."
    discretionary "the staff analysis is the authority's judgement; its outcome enters as the input board_approved_annual_limit"
}

"L.2020, c.156, s.75; amended 2021, c.160, s.35."
  text_only "the history line: the laws that enacted and amended this section"
}
