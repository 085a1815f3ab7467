"""The JSON forms of a result: `to_dict()` (the JSON object of scenario-format.md as Python
values) and `to_json_text()` (that object as JSON text, as `evaluate --format json` prints it).

`to_json()` was the first name of `to_dict()`: it returned a dict, not JSON, and is kept, with a
DeprecationWarning, so that programs written for it keep running.
"""

from __future__ import annotations

import json
import warnings


class Serialised:
    """A result that has a JSON object form (`to_dict`)."""

    def to_dict(self, include_trace: bool | None = None) -> dict[str, object]:
        """Returns the result as the JSON object of scenario-format.md (Python values)."""
        raise NotImplementedError

    def to_json_text(self, include_trace: bool | None = None, indent: int | None = None) -> str:
        """Returns the result as JSON text: `to_dict()` written with `indent` (one line when
        None), non-ASCII characters kept, exactly as `lextrace evaluate --format json` does."""
        return json.dumps(self.to_dict(include_trace), indent=indent, ensure_ascii=False)

    def to_json(self, include_trace: bool | None = None) -> dict[str, object]:
        """Deprecated: returns `to_dict()` (a dict, despite the name); use `to_dict()`, or
        `to_json_text()` for JSON text."""
        warnings.warn(
            f"{type(self).__name__}.to_json() returns a dict and is deprecated: use to_dict(), "
            "or to_json_text() for JSON text",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.to_dict(include_trace)
