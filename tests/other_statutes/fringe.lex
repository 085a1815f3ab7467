# A subsection of the US Code, cited as the Code is: upper-case labels, a yes/no result.
statute "26 U.S.C."
  title "Certain fringe benefits"
  official "fringe.txt"
  cite "{statute} § {section}{clauses}"

input services: bool = false "the discount is on services, not property";
input price: money required above $0 "the price at which the property or services are offered to customers";
input discount: money = $0 min $0 "the employee discount";
input gross_profit_percentage: share = 0 "the gross profit percentage of the property";

results excluded_limit, fully_qualified;

section 132. "Certain fringe benefits." {
  (c) "Qualified employee discount defined." {
    (1) "In general. The term “qualified employee discount” means any employee discount with respect to qualified property or services to the extent such discount does not exceed" {
      cases excluded_limit: money exclusive;
      rule fully_qualified: bool = discount <= excluded_limit;
      (A) "in the case of property, the gross profit percentage of the price at which the property is being offered by the employer to customers, or" {
        case excluded_limit = gross_profit_percentage * price when not services;
      }
      (B) "in the case of services, 20 percent of the price at which the services are being offered by the employer to customers." {
        case excluded_limit = 20% * price when services;
      }
    }
  }
}
