"""Evaluating the bundled statute from the data a Python program holds: Decimal amounts, numpy
scalars and a pandas DataFrame. Checked with `mypy --strict` by the test suite.

Run: python examples/python/typed_inputs.py
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import numpy as np
import pandas as pd

from lextrace import PeriodResult, Result, load_statute


def from_python() -> Result:
    """One scenario with exact Decimal amounts and numpy integers and bools."""
    statute = load_statute()
    result = statute.evaluate(
        {
            "new_jobs": np.int64(300),
            "project_median_salary": Decimal("59500.00"),
            "county_median_salary": Decimal("70000.00"),
            "lowest_full_time_hourly_wage": Decimal("19.50"),
            "state_minimum_wage": Decimal("15.92"),
            "distressed_municipality": np.bool_(True),
        }
    )
    assert isinstance(result, Result)  # a scenario of one year, not of periods
    return result


def from_pandas() -> list[Result]:
    """Each row of a DataFrame, whose float column is read by its shortest decimal."""
    statute = load_statute()
    frame = pd.DataFrame(
        {
            "new_jobs": [300, 40],
            "project_median_salary": ["59500.00", "81000.00"],
            "county_median_salary": ["70000.00", "65000.00"],
            "lowest_full_time_hourly_wage": [19.50, 22.10],
            "state_minimum_wage": ["15.92", "15.92"],
            "distressed_municipality": [True, False],
        }
    )
    results: list[Result] = []
    for row in frame.to_dict(orient="records"):
        scenario = {str(name): value for name, value in row.items()}
        result = statute.evaluate(scenario, floats="shortest")
        assert isinstance(result, Result)
        results.append(result)
    return results


def total_credit(result: Result | PeriodResult) -> object:
    """The annual credit of one year, or the period's total over its years."""
    if isinstance(result, PeriodResult):
        return result.to_dict()["eligibility_period_total"]
    return result.to_dict()["annual_credit"]


def main() -> None:
    """Prints each result's credit per new job and total, exact and to the cent."""
    one = from_python()
    per_job: Fraction = one.amount("per_job_new")  # exact, typed
    print("from Python:", per_job, total_credit(one))
    for result in from_pandas():
        print("from pandas:", result.to_dict()["annual_credit"], result.from_floats)


if __name__ == "__main__":
    main()
