# 26 U.S.C. § 132(c): the qualified employee discount, a fringe benefit excluded from gross income.
#
# Subsection (c) of section 132 of the Internal Revenue Code, clause by clause, with the rules
# each clause authorises. `lextrace check` proves that the carried text equals
# usc-26-132-c.txt (whitespace aside). The Code prints the section's heading "§132. Certain
# fringe benefits"; the official text file writes it "132. Certain fringe benefits", the form
# in which the language reads a section's label.
#
# The expected results of statute/usc-26-132-c.cases.yaml are the published tests of the
# Catala examples (us_tax_code/tests/test_section_132.catala_en).

statute "26 U.S.C."
  cite "{statute} § {section}{clauses}"
  title "Qualified employee discount: the part of an employee discount excluded from gross income"
  history "Pub. L. 98-369, div. A, title V, § 531(a)(1), July 18, 1984, 98 Stat. 877 (subsection (c) as enacted, 98 Stat. 878). Text: the United States Code, title 26, § 132(c), https://uscode.house.gov/view.xhtml?req=granuleid:USC-prelim-title26-section132. Expected results: the Catala examples, https://github.com/CatalaLang/catala-examples/blob/master/us_tax_code/tests/test_section_132.catala_en"
  official "usc-26-132-c.txt"

# ---- the interpretation register ------------------------------------------------------------

reading I1 "What is the gross profit percentage when the aggregate cost is not below the aggregate sale price?"
  default no-excess "There is no excess of the sales price over the cost, so the percentage is 0: no discount on such property is a qualified employee discount.";
reading I2 "What is the employee discount when the employee pays the customers' price or more?"
  default no-discount "The employee's price is not less than the customers' price by any amount: the employee discount is $0.";
reading I3 "Which price is the customers' price of (c)(1) and (c)(3)(B)?"
  default same-offer-price "One price, the price at which the employer offers the property or services to customers, serves both the limit of (c)(1) and the discount of (c)(3).";

# ---- the facts of one discount (the scenario contract) --------------------------------------

input kind: enum(property, services) = property
  named "in the case of property", "in the case of services"
  "whether the discount is on property or on services";
input customer_price: money required above $0
  named "price at which the property is being offered by the employer to customers",
    "price at which the services are being offered by the employer to customers",
    "price at which such property or services are being offered by the employer to customers"
  "the price at which the property or services are being offered by the employer to customers";
input employee_price: money required min $0
  named "price at which the property or services are provided by the employer to an employee"
  "the price at which the property or services are provided by the employer to the employee for use by the employee";
input aggregate_sales_price: money optional above $0 required when kind = property
  named "aggregate sales price", "aggregate sale price"
  "the aggregate sales price of the property sold by the employer to customers, over the property and the period of (c)(2)(B)";
input aggregate_cost: money optional min $0 required when kind = property
  named "aggregate cost"
  "the aggregate cost of that property to the employer";
input real_property: bool = false
  named "real property"
  "the property is real property";
input held_for_investment: bool = false
  named "held for investment"
  "the property is personal property of a kind held for investment";
input offered_in_line_of_business: bool = true
  named "offered for sale to customers in the ordinary course of the line of business"
  "the property or services are offered for sale to customers in the ordinary course of the line of business of the employer in which the employee is performing services";

results employee_discount, gross_profit_percentage, discount_limit, qualified_employee_discount,
  qualified_property_or_services;

section 132. "Certain fringe benefits" {
  (c) "Qualified employee discount defined For purposes of this section—" {
    (1) "Qualified employee discount The term “qualified employee discount” means any employee
         discount with respect to qualified property or services to the extent such discount
         does not exceed—" {
      cases discount_limit: money exclusive;
      rule qualified_employee_discount: money = min(employee_discount, discount_limit)
        when qualified_property_or_services;

      invariant never_more_than_the_discount "The qualified employee discount is part of the
        employee discount: never more than it, never negative.":
        $0 <= qualified_employee_discount and qualified_employee_discount <= employee_discount;
      invariant the_discount_up_to_the_limit "Of a discount on qualified property or services,
        exactly the part that does not exceed the limit is qualified.":
        qualified_property_or_services
        implies (qualified_employee_discount = employee_discount
                 or qualified_employee_discount = discount_limit);

      (A) "in the case of property, the gross profit percentage of the price at which the
           property is being offered by the employer to customers, or" {
        case discount_limit = gross_profit_percentage * customer_price when kind = property
          reading I3;
        invariant property_within_its_gross_profit "On property, the qualified employee
          discount never exceeds the gross profit percentage of the customers' price.":
          kind = property
          implies qualified_employee_discount <= gross_profit_percentage * customer_price;
      }
      (B) "in the case of services, 20 percent of the price at which the services are being
           offered by the employer to customers." {
        case discount_limit = 20% * customer_price when kind = services reading I3;
        invariant services_within_20_percent "On services, the qualified employee discount
          never exceeds 20 percent of the customers' price.":
          kind = services implies qualified_employee_discount <= 20% * customer_price;
      }
    }
    (2) "Gross profit percentage" {
      (A) "In general The term “gross profit percentage” means the percent which—" {
        (i) "the excess of the aggregate sales price of property sold by the employer to
             customers over the aggregate cost of such property to the employer, is of" {
          rule gross_profit: money = aggregate_sales_price - aggregate_cost
            when kind = property and aggregate_sales_price is given and aggregate_cost is given
             and aggregate_cost < aggregate_sales_price
            reading I1 reads kind "the aggregates are of property sold: there is none for services";
        }
        (ii) "the aggregate sale price of such property." {
          rule gross_profit_percentage: number = gross_profit / aggregate_sales_price
            when kind = property and aggregate_sales_price is given
            reading I1 reads kind "a gross profit percentage is of property: none for services";
          invariant a_percent_of_the_sale_price "The gross profit percentage is a part of the
            aggregate sale price: never negative, and the excess it measures never exceeds
            that price.":
            gross_profit_percentage >= 0 and gross_profit >= $0
            and (aggregate_sales_price is given implies gross_profit <= aggregate_sales_price);
        }
      }
      (B) "Determination of gross profit percentage Gross profit percentage shall be determined
           on the basis of—" {
        (i) "all property offered to customers in the ordinary course of the line of business of
             the employer in which the employee is performing services (or a reasonable
             classification of property selected by the employer), and"
          discretionary "the employer may select a reasonable classification of property: which property the aggregates cover is its choice, and they enter as the inputs aggregate_sales_price and aggregate_cost"
        (ii) "the employer’s experience during a representative period."
          text_only "names the period whose experience the aggregates come from: a fact about the inputs, not a computation (and a period of dates, which the language cannot state yet)"
      }
    }
    (3) "Employee discount defined The term “employee discount” means the amount by which—" {
      rule employee_discount: money = customer_price - employee_price
        when employee_price < customer_price reading I2, I3;

      (A) "the price at which the property or services are provided by the employer to an
           employee for use by such employee, is less than" {
        invariant no_discount_without_a_lower_price "Without a price to the employee below the
          customers' price there is no employee discount.":
          employee_price >= customer_price implies employee_discount = $0 reading I2;
      }
      (B) "the price at which such property or services are being offered by the employer to
           customers." {
        invariant the_discount_is_the_difference "The employee discount is the amount by which
          the employee's price is less than the customers' price, and never more than the
          customers' price.":
          employee_price < customer_price
          implies employee_discount = customer_price - employee_price
          and employee_discount <= customer_price reading I2;
      }
    }
    (4) "Qualified property or services The term “qualified property or services” means any
         property (other than real property and other than personal property of a kind held for
         investment) or services which are offered for sale to customers in the ordinary course
         of the line of business of the employer in which the employee is performing services." {
      rule qualified_property_or_services: bool =
        offered_in_line_of_business
        and (kind = services or (not real_property and not held_for_investment))
        reads kind "the words exclude real and investment property, not services: \"any property (other than ...) or services\"";
      invariant no_exclusion_for_real_or_investment_property "No discount on real property or
        on personal property held for investment is a qualified employee discount.":
        kind = property and (real_property or held_for_investment)
        implies qualified_employee_discount = $0;
    }
  }
}
