"""What both batch paths (columnar and scalar) share about a line's identity: the error of a line
that cannot be read at all (blank, not UTF-8), the fields a batch carries through (`--keep`), the
output record built around them, and the guards run before anything is read or written.

Light on purpose (no numpy, no Arrow), so that the scalar path can use it as it is.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .dsl.errors import FieldProblem, ScenarioError

#: What an output record holds besides the fields kept: a kept field may not take these names.
RECORD_KEYS = ("line", "error", "readings", "trace")
#: How far into JSON Lines input a JSON array's opening bracket is looked for.
HINT_BYTES = 1 << 20


def blank_line(where: str) -> ScenarioError:
    """Returns the error of a blank (empty or whitespace-only) line or row."""
    problem = FieldProblem("<scenario>", "a JSON object of fields", "a blank line")
    return ScenarioError([problem], where)


def not_utf8(where: str, error: UnicodeDecodeError, field: str = "<scenario>") -> ScenarioError:
    """Returns the error of a line (or of a table cell, `field`) holding bytes that are not
    UTF-8."""
    given = f"a byte that is not UTF-8 at byte {error.start + 1}"
    return ScenarioError([FieldProblem(field, "UTF-8 text", given)], where)


def wrong_width(where: str, expected: int, given: int) -> ScenarioError:
    """Returns the error of a CSV row with more or fewer cells than the header has columns."""
    problem = FieldProblem("<scenario>", f"a row of {expected} cells", f"{given} cells")
    return ScenarioError([problem], where)


def blank_row(where: str) -> ScenarioError:
    """Returns the error of a table row whose every cell is empty (a blank CSV line)."""
    return ScenarioError([FieldProblem("<scenario>", "a row of fields", "a blank row")], where)


def json_array_hint(start: bytes) -> str | None:
    """Returns the message for JSON Lines input that is one JSON array (its first non-blank
    byte is `[`), else None."""
    if start.lstrip()[:1] != b"[":
        return None
    return (
        "holds a JSON array, and batch reads JSON Lines: one scenario object per line, "
        "each on a line of its own, with no brackets or commas between them"
    )


def parse_keep(values: Iterable[str], results: Iterable[str]) -> list[str]:
    """Returns the fields to carry through, in order, without repeats, from `--keep` values
    (repeatable, comma-separated); a declared input may be kept (it is then both used and
    carried through). Raises ValueError naming a field that would clash with an output key."""
    kept: list[str] = []
    for value in values:
        for name in value.split(","):
            name = name.strip()
            if not name:
                continue
            if name not in kept:
                kept.append(name)
    taken = set(results) | set(RECORD_KEYS)
    for name in kept:
        if name in taken:
            raise ValueError(f"--keep {name}: the output already has a field '{name}'")
    return kept


def same_file(source: str, target: str) -> bool:
    """True when `target` names the file `source` names (another spelling, a hard or symbolic
    link included)."""
    from .dsl.loader import same_file as one_file

    return source != "-" and one_file(source, target)


# ---- kept fields of a JSON line -----------------------------------------------------------------
_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"[ \t\n\r]*")


def kept_texts(text: str, names: Sequence[str]) -> list[str | None]:
    """Returns, for each name, the JSON text of its value on a JSON line exactly as given (None
    when the line does not give it, or cannot be read as far as it); the first of repeated
    fields."""
    members = dict(reversed(list(_members(text))))
    return [members.get(name) for name in names]


def _members(text: str) -> Iterable[tuple[str, str]]:
    """Yields (key, JSON text of the value) of an object's top-level members, as far as the
    text can be read."""
    at = _SPACE.match(text).end()
    if text[at : at + 1] != "{":
        return
    at = _SPACE.match(text, at + 1).end()
    try:
        while text[at : at + 1] == '"':
            key, at = _DECODER.raw_decode(text, at)
            at = _SPACE.match(text, at).end()
            if text[at : at + 1] != ":":
                return
            start = _SPACE.match(text, at + 1).end()
            _, end = _DECODER.raw_decode(text, start)
            yield key, text[start:end]
            at = _SPACE.match(text, end).end()
            if text[at : at + 1] != ",":
                return
            at = _SPACE.match(text, at + 1).end()
    except (ValueError, RecursionError):
        return


def kept_of_line(raw: bytes, names: Sequence[str]) -> list[str | None]:
    """Returns the kept fields of a line of bytes (see `kept_texts`); a value holding bytes
    that are not UTF-8 cannot be carried and is None."""
    values = kept_texts(raw.decode("utf-8", "surrogateescape"), names)
    return [None if value is None or not _encodable(value) else value for value in values]


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def record(kept: Sequence[str | None], names: Sequence[str], body: str) -> str:
    """Returns an output record: the kept fields first (null when absent), then the members of
    the JSON object `body` (a result, or a line's error)."""
    if not names:
        return body
    head = ", ".join(
        f"{json.dumps(name, ensure_ascii=False)}: {'null' if value is None else value}"
        for name, value in zip(names, kept, strict=True)
    )
    rest = body[1:].lstrip()
    return "{" + head + (", " + rest if rest[:1] != "}" else rest)


def error_record(number: int, problems: list[dict[str, str]]) -> str:
    """Returns the error object of a line that failed (without the kept fields)."""
    return json.dumps({"line": number, "error": problems})


def evaluate_line(
    statute: Any,
    chosen: Mapping[str, str],
    where: str,
    number: int,
    raw: bytes,
    trace: bool = False,
    carried: Sequence[str] = (),
) -> str:
    """Returns the result record (JSON text, one line) of line `number` of a JSON Lines batch,
    read from its bytes `raw` (without its newline) and evaluated by `statute` (a
    `lextrace.api.Statute`) under `chosen` and the readings the line pins; the fields `carried`
    are dropped before it is read. Raises ScenarioError for a line that cannot be read or is
    not a valid scenario (`where` names it), ReadingError and EvaluationError as `evaluate`."""
    from .dsl.scenario import parse_text

    if not raw.strip():
        raise blank_line(where)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise not_utf8(where, error) from None
    data = parse_text(text.rstrip("\r\n"), "json", where, first_line=number)
    if carried and isinstance(data, dict):
        data = {k: v for k, v in data.items() if k not in carried}
    inputs = statute.validate(data, where)
    row_readings = statute.readings_for(data, chosen, where)  # the selection and the row's pins
    result = statute.evaluate_inputs(inputs, row_readings, trace)
    text = result.to_json_text()
    assert isinstance(text, str)
    return text
