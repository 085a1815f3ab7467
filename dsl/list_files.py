"""A list input given as a file: a CSV or Parquet table with one row per element.

A scenario may give a list input (`full_time_jobs`, say) as a string: the path of a CSV or
Parquet file whose columns are the record's fields. The path is relative to the scenario
file's folder, or to the working directory for a scenario from standard input or the Python
API. Each row becomes one element, read exactly: CSV cells as the text they hold (numbers as
decimals, `true`/`false` for yes/no, an empty cell as a missing field), Parquet values by
their type (decimals, integers, booleans, text; binary floats are refused). The elements are
then checked as any list's are, and each problem names its row and column in the file.
"""

from __future__ import annotations

import csv
import decimal
import io
from collections.abc import Callable
from pathlib import Path

from . import ast

MAX_FILE_BYTES = 256 * 1024 * 1024
MAX_ROWS = 1_000_000

Element = dict[str, object]


class ListFileError(Exception):
    """A list file that cannot be read as the record's table; the message says why."""


def resolve(text: str, source: str | None) -> Path:
    """Returns the path a scenario's string names: relative to the scenario file's folder,
    else (standard input, the Python API) to the working directory."""
    path = Path(text)
    if path.is_absolute() or source is None or source.startswith("<"):
        return path
    return Path(source).parent / path


def read(
    path: Path, record: ast.Record, exact: Callable[[str], object]
) -> tuple[list[Element], Callable[[int], str]]:
    """Returns the elements of a CSV or Parquet file of `record`'s fields, and a function
    naming where element i is in the file (`jobs.csv, row 19`); raises ListFileError for a
    file that is missing, too large, of another kind, or whose columns are not the record's.
    `exact` wraps a number's text so that the scenario reader reads it exactly."""
    try:
        size = path.stat().st_size
    except OSError as error:
        raise ListFileError(f"cannot read {path}: {error.strerror or error}") from None
    except ValueError:  # the operating system takes no file name holding a NUL byte
        raise ListFileError(f"cannot read {str(path)!r}: a file name holds no NUL byte") from None
    if size > MAX_FILE_BYTES:
        raise ListFileError(f"{path} is {size} bytes: a list file holds at most {MAX_FILE_BYTES}")
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return _csv(path, record, exact), lambda i: f"{path.name}, row {i + 2}"
    if suffix in (".parquet", ".pq"):
        return _parquet(path, record, exact), lambda i: f"{path.name}, row {i + 1}"
    raise ListFileError(f"{path}: a list file is a .csv or a .parquet file")


def _check_columns(path: Path, record: ast.Record, columns: list[str]) -> None:
    unknown = [c for c in columns if c not in record.fields]
    if unknown:
        raise ListFileError(
            f"{path}: column '{unknown[0]}' is not a field of {record.name} "
            f"(its fields: {', '.join(record.fields)})"
        )
    if len(set(columns)) != len(columns):
        raise ListFileError(f"{path}: a column appears twice")


def _csv(path: Path, record: ast.Record, exact: Callable[[str], object]) -> list[Element]:
    try:
        # A device or a pipe gives no size to check beforehand: the read itself is bounded.
        with path.open("rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
        if len(data) > MAX_FILE_BYTES:
            raise ListFileError(
                f"{path} is more than {MAX_FILE_BYTES} bytes: a list file holds at most "
                f"{MAX_FILE_BYTES}"
            )
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ListFileError(f"{path}: not UTF-8 text (byte {error.start})") from None
    except OSError as error:
        raise ListFileError(f"cannot read {path}: {error.strerror or error}") from None
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader)
    except StopIteration:
        raise ListFileError(f"{path}: empty (the first row names the columns)") from None
    except csv.Error as error:
        raise ListFileError(f"{path}: {error}") from None
    _check_columns(path, record, header)
    elements: list[Element] = []
    try:
        for row in reader:
            if len(elements) >= MAX_ROWS:
                raise ListFileError(f"{path}: more than {MAX_ROWS} rows")
            if len(row) != len(header):
                line = reader.line_num
                raise ListFileError(
                    f"{path}, row {line}: {len(row)} cells where the header has {len(header)}"
                )
            element: Element = {}
            for column, cell in zip(header, row, strict=True):
                if cell == "":
                    continue  # a missing field: its default, or a problem at its path
                element[column] = _cell(record.fields[column].type, cell, exact)
            elements.append(element)
    except csv.Error as error:
        raise ListFileError(f"{path}, row {reader.line_num}: {error}") from None
    return elements


def _cell(type_: ast.Type, cell: str, exact: Callable[[str], object]) -> object:
    """Returns a CSV cell as a scenario would give it: yes/no as a boolean, a number as exact
    text, anything else as the text (which the reader then refuses if it is wrong)."""
    if type_.kind == "bool":
        return {"true": True, "false": False}.get(cell, cell)
    if type_.kind in ("count", "number", "money"):
        return exact(cell.strip())
    return cell


def _parquet(path: Path, record: ast.Record, exact: Callable[[str], object]) -> list[Element]:
    try:
        import pyarrow.parquet as pq
        import pyarrow.types as pt
    except ImportError:  # pragma: no cover - pyarrow is a dependency
        raise ListFileError("reading a Parquet list file needs pyarrow") from None
    try:
        table = pq.read_table(path)
    except Exception as error:
        raise ListFileError(f"{path}: not a Parquet file ({error})") from None
    _check_columns(path, record, table.column_names)
    if table.num_rows > MAX_ROWS:
        raise ListFileError(f"{path}: more than {MAX_ROWS} rows")
    for field in table.schema:
        if pt.is_floating(field.type):
            raise ListFileError(
                f"{path}: column '{field.name}' holds binary floats, which cannot carry exact "
                "amounts: store it as decimals or text"
            )
    elements: list[Element] = []
    for row in table.to_pylist():
        element: Element = {}
        for column, value in row.items():
            if value is None:
                continue
            if isinstance(value, decimal.Decimal):
                value = exact(format(value, "f"))
            element[column] = value
        elements.append(element)
    return elements
