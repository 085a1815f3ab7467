"""The bundled statutes: official texts and their encodings.

`BUNDLED` is the encoding of N.J.S.A. 34:1B-343 (the Emerge per-job tax credit).
"""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent
BUNDLED = HERE / "nj-34-1b-343.lex"
OFFICIAL = HERE / "nj-34-1b-343.txt"
AMENDMENTS = HERE / "amendments"
