"""The limits of a proof run, in seconds of Z3 work (see verify/solve.py): light to import, so
that the command line shows them without loading Z3."""

# Each Z3 call of `lextrace verify`, and its whole run.
DEFAULT_TIMEOUT = 5.0
DEFAULT_BUDGET = 30.0
# Each result's comparison by `lextrace diff` (and by `lextrace review`).
DIFF_TIMEOUT = 10.0
