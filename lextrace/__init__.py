"""lextrace: statutes made executable, traceable and provable.

The bundled statute is N.J.S.A. 34:1B-343, the Emerge program's per-job tax credit.
Start with `load_statute()` and `Statute.evaluate()`.
"""

from .api import ReadingError, Result, Statute, load_statute
from .dsl.errors import Diagnostic, EncodingError, FieldProblem, ScenarioError
from .periods import PeriodResult

__all__ = [
    "Diagnostic",
    "EncodingError",
    "FieldProblem",
    "PeriodResult",
    "ReadingError",
    "Result",
    "ScenarioError",
    "Statute",
    "load_statute",
]
__version__ = "0.1.0"
