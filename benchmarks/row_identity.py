"""Row identity at scale: a batch whose input has blank lines, bytes that are not UTF-8, CSV rows
of the wrong width and rows missing a required field gives one record per line or row, in order,
each with its id carried through (`--keep id`), on JSON Lines, CSV and Parquet.

`python -m benchmarks.row_identity [ROWS]` (default 1,000,000) writes the three files, runs
`lextrace batch` on each as a whole process, checks every record and prints the figures. The test
suite runs the same check on fewer rows (tests/test_batch_columnar.py).
"""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from benchmarks.population import DEFAULTS, FIELDS, _csv_cell, population, to_arrow

Expected = list[tuple[object, bool]]
"""Per output record: the id it must carry (None: none can be read) and whether it fails."""

BLANK, UNDECODABLE, SHORT, MISSING = 1000, 1777, 2333, 997  # every Nth line or row
BASE = 2_000  # distinct scenarios, cycled


def _bad_bytes(text: bytes) -> bytes:
    return text.replace(b'"none"', b'"n\xffne"', 1).replace(b",none,", b",n\xffne,", 1)


def write_jsonl(path: Path, rows: int, seed: int = 7) -> Expected:
    """Writes `rows` lines with an id first on each (a blank line every BLANK, bytes that are
    not UTF-8 every UNDECODABLE); returns what each record must be."""
    base = population(BASE, seed=seed)
    expected: Expected = []
    with open(path, "wb") as out:
        for number in range(1, rows + 1):
            if number % BLANK == 0:
                out.write(b"\n")
                expected.append((None, True))
                continue
            scenario = {"id": f"s{number}", **base[number % BASE], "green_building": "none"}
            line = json.dumps(scenario, separators=(",", ":")).encode()
            bad = number % UNDECODABLE == 0
            out.write((_bad_bytes(line) if bad else line) + b"\n")
            expected.append((f"s{number}", bad))
    return expected


def write_csv(path: Path, rows: int, seed: int = 7) -> Expected:
    """Writes `rows` data rows under a header with an `id` column first (a blank line every
    BLANK, bytes that are not UTF-8 every UNDECODABLE, a short row every SHORT)."""
    base = population(BASE, seed=seed)
    expected: Expected = []
    with open(path, "wb") as out:
        text = io.StringIO()
        writer = csv.writer(text, lineterminator="\n")
        writer.writerow(["id", *FIELDS])
        out.write(text.getvalue().encode())
        for number in range(1, rows + 1):
            text.seek(0)
            text.truncate()
            scenario = {**base[number % BASE], "green_building": "none"}
            cells = [f"s{number}", *(_csv_cell(scenario.get(f, DEFAULTS.get(f))) for f in FIELDS)]
            if number % BLANK == 0:
                out.write(b"\n")
                expected.append((None, True))
                continue
            if number % SHORT == 0:
                cells = cells[:3]
            writer.writerow(cells)
            line = text.getvalue().encode()
            bad = number % UNDECODABLE == 0
            out.write(_bad_bytes(line) if bad else line)
            expected.append((f"s{number}", bad or number % SHORT == 0))
    return expected


def write_parquet(path: Path, rows: int, seed: int = 7) -> Expected:
    """Writes `rows` rows with an int64 `id` column first (a required field missing every
    MISSING, text that is not UTF-8 every UNDECODABLE)."""
    base = population(BASE, seed=seed)
    expected: Expected = []
    writer = None
    step = 100_000
    for start in range(1, rows + 1, step):
        numbers = range(start, min(rows, start + step - 1) + 1)
        scenarios = [{**base[n % BASE], "green_building": "none"} for n in numbers]
        table = to_arrow(scenarios)
        jobs = table.column("new_jobs").to_pylist()
        texts = table.column("green_building").cast(pa.string()).to_pylist()
        values = []
        for index, number in enumerate(numbers):
            if number % MISSING == 0:
                jobs[index] = None
            raw = texts[index].encode()
            values.append(b"n\xffne" if number % UNDECODABLE == 0 else raw)
            expected.append((number, number % MISSING == 0 or number % UNDECODABLE == 0))
        binary = pa.array(values, pa.binary())
        # Built from the buffers: Arrow would refuse to make text of bytes that are not UTF-8.
        green = pa.Array.from_buffers(pa.string(), len(binary), binary.buffers())
        table = table.set_column(table.schema.get_field_index("new_jobs"), "new_jobs", [jobs])
        table = table.set_column(
            table.schema.get_field_index("green_building"), "green_building", green
        )
        table = pa.table(
            {
                "id": pa.array(list(numbers), pa.int64()),
                **dict(zip(table.column_names, table.columns, strict=True)),
            }
        )
        if writer is None:
            writer = pq.ParquetWriter(path, table.schema)
        writer.write_table(table)
    assert writer is not None
    writer.close()
    return expected


WRITERS = {"jsonl": write_jsonl, "csv": write_csv, "parquet": write_parquet}


def mismatches(output: Path, expected: Expected) -> list[str]:
    """Returns what is wrong with a JSON Lines output against the expected records (at most a
    few), empty when every record is right and in order."""
    wrong = []
    with open(output, encoding="utf-8") as lines:
        count = 0
        for count, line in enumerate(lines, start=1):
            record = json.loads(line)
            if count > len(expected):
                wrong.append(f"record {count}: beyond the {len(expected):,} input rows")
                break
            identity, bad = expected[count - 1]
            if next(iter(record)) != "id" or record["id"] != identity or ("error" in record) != bad:
                wrong.append(f"record {count}: {line[:160]!r}, expected id {identity!r}, bad {bad}")
                if len(wrong) >= 5:
                    break
    if count != len(expected) and not wrong:
        wrong.append(f"{count:,} records for {len(expected):,} rows")
    return wrong


def main() -> None:
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    with tempfile.TemporaryDirectory() as folder:
        for kind, write in WRITERS.items():
            source = Path(folder) / f"identity.{kind}"
            expected = write(source, rows)
            output = Path(folder) / f"out-{kind}.jsonl"
            started = time.perf_counter()
            completed = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "lextrace",
                    "batch",
                    str(source),
                    "--keep",
                    "id",
                    "-o",
                    str(output),
                ],
                capture_output=True,
                check=False,
            )
            elapsed = time.perf_counter() - started
            bad = sum(1 for _, failed in expected if failed)
            wrong = mismatches(output, expected)
            verdict = wrong if wrong else "every record right, in order"
            rate = rows / elapsed
            print(f"{kind:8} {rows:,} rows ({bad:,} bad) in {elapsed:.2f} s, {rate:,.0f} rows/s")
            print(f"         exit {completed.returncode}: {verdict}")


if __name__ == "__main__":
    main()
