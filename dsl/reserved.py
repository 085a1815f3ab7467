"""Keys a scenario may carry besides its fields, so no input may be named like them.

`readings` pins the readings a scenario is evaluated under (reading ID -> option); `lextrace`
is lextrace's own record of where the scenario comes from (a counterexample's encoding and the
check it violates, see verify/replay.py).
"""

from __future__ import annotations

READINGS_KEY = "readings"
META_KEY = "lextrace"
RESERVED_KEYS = (READINGS_KEY, META_KEY)
