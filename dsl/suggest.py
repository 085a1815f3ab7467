"""The declared name a misspelt or shortened one most likely means, for "did you mean ...?"."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def closest(given: str, known: Iterable[str], cutoff: float = 0.6) -> str | None:
    """Returns the known name closest in spelling to `given` (difflib's ratio at least
    `cutoff`); else the one known name of which `given` is a whole word (`joint` for
    `joint_return`, `salary` for `project_median_salary`); else None."""
    names = list(known)
    close = difflib.get_close_matches(given, names, n=1, cutoff=cutoff)
    if close:
        return close[0]
    if len(given) < 3:
        return None
    holding = [name for name in names if given in name.split("_")]
    return holding[0] if len(holding) == 1 else None
