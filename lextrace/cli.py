"""The `lextrace` command: evaluate, explain, batch, check, fields, verify (and, loaded only
when they run, diff, impact, init, lsp, mutants, review, serve, site, test).

Every command that reads one encoding takes it as `--encoding FILE` (default: the environment
variable LEXTRACE_ENCODING, else the bundled statute). The exit codes are those of
`lextrace.exits`. No traceback ever reaches the user (set LEXTRACE_DEBUG=1 to see one).
"""

from __future__ import annotations

import contextlib
import errno
import importlib.abc
import json
import os
import sys
import traceback
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, ClassVar, TypeVar

import click

from . import exits
from .dsl.errors import EncodingError, FieldProblem, ScenarioError
from .options import (
    encoding_option,
    encoding_option_or_argument,
    output_format,
    z3_budget,
    z3_timeout,
)
from .outputs import WRITE_FAILURES, OutputError, Stopped, atomic_file, write_text
from .verify.limits import DEFAULT_BUDGET, DEFAULT_TIMEOUT

__all__ = ["BadInput", "atomic_file", "cli", "main"]
EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT, EXIT_INTERNAL = (
    exits.OK,
    exits.FAILED,
    exits.BAD_INPUT,
    exits.INTERNAL,
)
F = TypeVar("F", bound=Callable[..., Any])


class BadInput(click.ClickException):
    """A clear message about the user's input; exit code 2."""

    exit_code = EXIT_BAD_INPUT

    def show(self, file: IO[Any] | None = None) -> None:
        click.echo(self.format_message(), err=True)


def _parse_readings(values: tuple[str, ...]) -> dict[str, str]:
    chosen: dict[str, str] = {}
    for value in values:
        reading_id, sep, option = value.partition("=")
        if not sep or not reading_id.strip() or not option.strip():
            raise BadInput(f"--reading expects ID=OPTION such as I8=business-wide, given {value!r}")
        chosen[reading_id.strip()] = option.strip()
    return chosen


# The encoding the command loaded, named when a scenario does not fit it (a scenario written
# for another encoding, run without --encoding, is refused field by field).
_LOADED: list[Any] = []


def _statute(encoding: str | None) -> Any:
    from .api import load_statute

    statute = load_statute(encoding)
    _LOADED[:] = [statute]
    return statute


def _against(error: ScenarioError) -> str:
    """Returns the line naming the encoding a scenario was read against, when a field of it is
    unknown to that encoding; else ""."""
    unknown = any(p.given == "an unknown field" for p in error.problems)
    if not unknown or not _LOADED:
        return ""
    statute = _LOADED[0].ast
    title = f"{statute.name}" + (f" ({statute.title})" if statute.title else "")
    return (
        f"\nlextrace: read against the encoding of {title}, {statute.path}; "
        "give --encoding (or set LEXTRACE_ENCODING) to read it against another"
    )


def readings_option(function: F) -> F:
    """Adds --reading to a command."""
    return click.option(
        "--reading",
        "readings",
        multiple=True,
        metavar="ID=OPTION",
        help="Select a reading of an ambiguous clause, e.g. I8=business-wide (repeatable).",
    )(function)


def common_options(function: F) -> F:
    """Adds --encoding and --reading to a command."""
    return encoding_option()(readings_option(function))


def _read_scenario(scenario: str) -> tuple[dict[str, Any], str]:
    from .dsl.scenario import parse_bytes, read_bounded, read_scenario_file

    if scenario == "-":
        try:
            stream = getattr(sys.stdin, "buffer", None)
            if stream is None:
                raise OSError("standard input is closed")
            raw = read_bounded(stream, "<stdin>")
        except OSError as error:  # closed, or not readable
            raise ScenarioError(
                [FieldProblem("<file>", "a readable standard input", str(error.strerror or error))],
                "<stdin>",
            ) from None
        return parse_bytes(raw, "json", "<stdin>", "empty input"), "<stdin>"  # type: ignore[return-value]
    return read_scenario_file(Path(scenario)), scenario  # type: ignore[return-value]


def _scenario_and_statute(encoding: str | None, scenario: str) -> tuple[Any, Any, str]:
    """Returns the scenario's data, the statute to evaluate it under and the scenario's
    source name."""
    from .verify.replay import recorded_encoding

    # An encoding given is read first, so that its errors come first; without one, the scenario
    # is read first: a counterexample file names the encoding it is to be replayed under.
    given = _statute(encoding) if encoding is not None else None
    data, source = _read_scenario(scenario)
    warn = lambda message: click.echo(message, err=True)  # noqa: E731
    chosen_encoding = recorded_encoding(data, source, encoding, warn)  # warns of a mismatch
    return data, given or _statute(chosen_encoding), source


def _result(encoding: str | None, scenario: str, readings: tuple[str, ...], trace: bool) -> Any:
    chosen = _parse_readings(readings)
    data, statute, source = _scenario_and_statute(encoding, scenario)
    return statute.evaluate(data, chosen, trace=trace, source=source), data


class ClosedPipe(Exception):
    """Standard output's reader went away (`lextrace explain ... | head`): not a failure."""


@contextmanager
def _pipe_taken() -> Iterator[None]:
    """Raises ClosedPipe for a closed pipe, which click would otherwise turn into exit 1
    before `main` could see it."""
    try:
        yield
    except OSError as error:
        if error.errno == errno.EPIPE:
            raise ClosedPipe() from None
        raise


class LazyGroup(click.Group):
    """A command group whose heavier commands live in their own modules, imported only when
    that command runs (so `evaluate` never imports Z3)."""

    lazy: ClassVar[dict[str, str]] = {
        "diff": "lextrace.cli_diff:diff",
        "mutants": "lextrace.cli_mutants:mutants",
        "impact": "lextrace.cli_impact:impact",
        "review": "lextrace.cli_review:review",
        "init": "lextrace.cli_init:init",
        "lsp": "lextrace.cli_lsp:lsp",
        "serve": "lextrace.cli_serve:serve",
        "site": "lextrace.cli_site:site",
        "test": "lextrace.cli_test:test_cases",
    }

    def make_context(self, *args: Any, **kwargs: Any) -> click.Context:
        # --help prints while the context is made.
        with _pipe_taken():
            return super().make_context(*args, **kwargs)

    def invoke(self, ctx: click.Context) -> Any:
        with _pipe_taken():
            return super().invoke(ctx)

    def _available(self) -> dict[str, str]:
        import importlib.util

        return {
            name: target
            for name, target in self.lazy.items()
            if importlib.util.find_spec(target.partition(":")[0]) is not None
        }

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted([*super().list_commands(ctx), *self._available()])

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = self._available().get(cmd_name)
        if target is None:
            return super().get_command(ctx, cmd_name)
        import importlib

        module_name, _, attribute = target.partition(":")
        command = getattr(importlib.import_module(module_name), attribute)
        assert isinstance(command, click.Command)
        return command


@click.group(
    cls=LazyGroup,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
    epilog="\b\nExit codes:\n" + exits.help_text(),
)
@click.version_option(package_name="lextrace", prog_name="lextrace")
def cli() -> None:
    """Executable, traceable, provable statutes.

    Every command that reads one encoding takes it as --encoding FILE (default:
    $LEXTRACE_ENCODING when set, else the bundled statute)."""


@cli.command()
@click.argument("scenario")
@output_format("text", "json", "markdown", what="the result")
@common_options
def evaluate(
    scenario: str, output_format: str, encoding: str | None, readings: tuple[str, ...]
) -> None:
    """Evaluate one SCENARIO (JSON, YAML or TOML; - for JSON on stdin)."""
    result, _ = _result(encoding, scenario, readings, trace=True)
    if output_format == "json":
        click.echo(result.to_json_text(indent=2))
    elif output_format == "markdown":
        click.echo(_markdown(result, scenario))
    else:
        click.echo(_text(result, scenario))


@cli.command()
@click.argument("scenario")
@click.option(
    "--width",
    type=click.IntRange(60, 400),
    default=100,
    show_default=True,
    help="Wrap the statute's words and the rules' formulas at this width.",
)
@common_options
def explain(scenario: str, width: int, encoding: str | None, readings: tuple[str, ...]) -> None:
    """Print the derivation of every result of SCENARIO, each value with its citation."""
    from .dsl.errors import ScenarioError
    from .dsl.evaluator import EvaluationError
    from .verify import replay

    chosen = _parse_readings(readings)
    data, statute, source = _scenario_and_statute(encoding, scenario)
    try:
        result = statute.evaluate(data, chosen, trace=True, source=source)
    except (EvaluationError, ScenarioError) as error:
        if not _replayed_failure(statute, data, scenario, source, chosen, error):
            raise
        return
    click.echo(_text(result, scenario))
    from .periods import PeriodResult

    if isinstance(result, PeriodResult):  # each period's derivation, then the totals
        click.echo("")
        click.echo("Derivation, period by period (each value, its clause, its words, its inputs)")
        click.echo(result.explain(width=width))
        return
    program = result.trace.evaluation.program
    found = replay.replay(
        program, data, scenario, result.inputs, result.readings, lambda p: _partner(program, p)
    )
    if found is not None:
        click.echo("")
        click.echo(replay.render(found))
    click.echo("")
    click.echo("Derivation (each value, the clause that produced it, its words and its inputs)")
    click.echo(result.explain(width=width))


def _replayed_failure(
    statute: Any,
    data: Any,
    scenario: str,
    source: str,
    chosen: dict[str, str],
    error: Exception,
) -> bool:
    """Prints the replay of a counterexample file whose scenario the evaluator fails on (a
    gap, an overlap, a division by zero, a missing value the check found) or refuses (a value
    derived from a list past its input's bounds), and the failure in place of the derivation;
    returns False when the file records no such check."""
    from .dsl.errors import ScenarioError
    from .verify import replay

    record = replay.record_of(data)
    if record is None or not isinstance(record.get("violates"), Mapping):
        return False
    try:
        inputs = statute.validate(data, source)
    except ScenarioError:
        return False
    selected = statute.readings_for(data, chosen, source)
    program = statute.program
    found = replay.replay(program, data, scenario, inputs, selected, lambda p: _partner(program, p))
    if found is None or found.judgement is None or not found.judgement.violated:
        return False
    refused = isinstance(error, ScenarioError)
    verb = "refuses" if refused else "fails on"
    click.echo(f"{statute.ast.name}: the evaluator {verb} {scenario}")
    click.echo("")
    click.echo(replay.render(found))
    click.echo("")
    if refused:
        click.echo(f"No derivation: the scenario is refused: {error}")
    else:
        click.echo(f"No derivation: the evaluation stops where the encoding is undefined: {error}")
    return True


def _partner(program: Any, path: str) -> tuple[Any, Any]:
    """Returns the partner scenario of a counterexample pair and its validated inputs."""
    from .dsl.scenario import validate

    data, source = _read_scenario(path)
    return data, validate(program.statute, data, source)


def _header(result: Any, scenario: str) -> list[str]:
    statute = result.statute
    readings = ", ".join(f"{rid}={option}" for rid, option in result.readings.items())
    return [
        f"{statute.name}: {statute.title}",
        f"scenario: {scenario}",
        f"readings: {readings}",
    ]


def _text(result: Any, scenario: str) -> str:
    rows = result.table()
    width = max(len(name) for name, _, _ in rows)
    value_width = max(len(value) for _, value, _ in rows)
    lines = [*_header(result, scenario), ""]
    lines += [
        f"{name:<{width}}  {value:>{value_width}}  [{citation}]" for name, value, citation in rows
    ]
    return "\n".join(lines)


def _markdown(result: Any, scenario: str) -> str:
    statute = result.statute
    lines = [f"# {statute.name}: {Path(scenario).name}", ""]
    lines += ["| result | value | clause |", "|---|---|---|"]
    lines += [f"| `{name}` | {value} | {citation} |" for name, value, citation in result.table()]
    lines += ["", "Readings: " + ", ".join(f"{k} {v}" for k, v in result.readings.items()), ""]
    from .periods import PeriodResult

    if isinstance(result, PeriodResult):
        for period, own in zip(result.periods, result.results, strict=True):
            lines += [f"## Derivation, {period.year}", "", own.trace.markdown(), ""]
    else:
        lines += ["## Derivation", "", result.trace.markdown()]
    return "\n".join(lines)


@cli.command()
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["jsonl", "parquet", "csv"]),
    default=None,
    help="Output format (default: from the --output file's extension, else jsonl).",
)
@click.option(
    "--input-format",
    type=click.Choice(["jsonl", "parquet", "csv"]),
    default=None,
    help="Input format (default: from FILE's extension, else jsonl).",
)
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False),
    default=None,
    help="Write to this file (atomically) instead of standard output.",
)
@click.option(
    "--keep",
    "keep_values",
    multiple=True,
    metavar="FIELD[,FIELD]",
    help="Carry these input fields through unchanged, first in each output record (repeatable).",
)
@click.option(
    "--trace",
    is_flag=True,
    help="Include each result's derivation: in each JSON Lines record, or as a `trace` column "
    "of JSON text in Parquet and CSV.",
)
@click.option("--strict", is_flag=True, help="Stop at the first bad line.")
@click.option(
    "--engine",
    type=click.Choice(["columnar", "compiled", "scalar"]),
    default="columnar",
    show_default=True,
    help="Columnar: whole columns at once (exact; rows it cannot do exactly go one by one). "
    "Compiled: the same, each row's rules in one loop of machine code (the `compiled` extra; "
    "compiling takes seconds, once per run). Scalar: one scenario at a time.",
)
@click.option(
    "--progress/--no-progress",
    default=None,
    help="Show a progress bar on standard error (default: when it is a terminal).",
)
@click.option(
    "--floats",
    type=click.Choice(["refuse", "shortest"]),
    default="refuse",
    show_default=True,
    help="A Parquet column of binary floats for an amount: refuse it, or read each float by "
    "its shortest round-trip decimal (said on standard error, and recorded in a Parquet "
    "output's schema metadata). JSON and CSV numbers are read "
    "exactly from their text either way.",
)
@common_options
def batch(
    file: str,
    output_format: str | None,
    input_format: str | None,
    output: str | None,
    keep_values: tuple[str, ...],
    trace: bool,
    strict: bool,
    engine: str,
    progress: bool | None,
    floats: str,
    encoding: str | None,
    readings: tuple[str, ...],
) -> None:
    """Evaluate every scenario of FILE: JSON Lines (one JSON object per line), Parquet or CSV
    (one scenario per row, columns named as the fields), in order.

    Every line or row gives one output record, in order: record N is line N (row N for
    Parquet and CSV). A bad one (blank, not UTF-8, a CSV row of the wrong width, a bad
    scenario) is reported on standard error with its number, and an error takes its place (an
    error object in JSON Lines, the `error` column in Parquet and CSV); the exit code is then 2.
    Memory stays bounded: the file is read in chunks.
    """
    from .batch_lines import parse_keep, same_file
    from .tables import format_of

    source_format = format_of(file, input_format)
    target_format = output_format or (format_of(output, None) if output else "jsonl")
    if output is not None and same_file(file, output):
        raise BadInput(f"{output}: is the input file {file}; write the results to another file")
    statute = _statute(encoding)
    chosen = _parse_readings(readings)
    selected = statute.select_readings(chosen)
    try:
        keep = parse_keep(keep_values, statute.ast.result_names)
    except ValueError as error:
        raise BadInput(str(error)) from None
    jsonl = source_format == "jsonl" and target_format == "jsonl"
    if engine == "compiled":
        from .dsl.kernel import NEEDS_NUMBA, available

        if not available():
            raise BadInput(f"--engine compiled {NEEDS_NUMBA} (or use --engine columnar, as exact)")
    if engine in ("columnar", "compiled") and not (trace and jsonl):
        from . import cli_batch

        failures = cli_batch.run(
            statute,
            selected,
            chosen,
            file,
            source_format,
            output,
            target_format,
            strict,
            progress,
            BadInput,
            keep,
            floats,
            trace,
            compiled=engine == "compiled",
        )
        if failures:
            unit = "line" if source_format == "jsonl" else "row"
            raise BadInput(f"{failures} {unit}{'s' if failures != 1 else ''} of {file} failed")
        return
    if not jsonl:
        raise BadInput("--engine scalar reads and writes JSON Lines only")
    failures = _scalar_batch(statute, chosen, file, output, keep, trace, strict)
    if failures:
        raise BadInput(f"{failures} line{'s' if failures != 1 else ''} of {file} failed")


def _scalar_batch(
    statute: Any,
    chosen: dict[str, str],
    file: str,
    output: str | None,
    keep: list[str],
    trace: bool,
    strict: bool,
) -> int:
    """Evaluates a JSON Lines file one line at a time (the reference for the columnar path),
    each line under `chosen` (--reading) and the readings it pins; writes one record per line
    and returns how many failed."""
    from .batch_lines import error_record, evaluate_line, kept_of_line, record

    failures = 0
    carried = [name for name in keep if name not in statute.ast.inputs]
    source = "<stdin>" if file == "-" else file

    def evaluated(number: int, raw: bytes) -> str:
        return evaluate_line(statute, chosen, f"{source}:{number}", number, raw, trace, carried)

    def results(lines: Iterator[tuple[int, bytes]]) -> Iterator[str]:
        nonlocal failures
        for number, raw in lines:
            kept = kept_of_line(raw, keep) if keep else []
            try:
                yield record(kept, keep, evaluated(number, raw))
            except ScenarioError as error:
                failures += 1
                click.echo(error.render(), err=True)
                if strict:
                    raise BadInput(f"stopped at line {number} (--strict)") from None
                yield record(kept, keep, error_record(number, error_problems(error)))

    with _open_lines(file) as lines:
        _write_lines(results(lines), output)
    return failures


def error_problems(error: Exception) -> list[dict[str, str]]:
    """Returns the `error` list of a batch line that failed: each field, what was expected and
    what was given (scenario-format.md), and the `hint` the message adds when it has one ("the
    field is missing", "did you mean ..."); a scenario the rules cannot compute is one entry."""
    if isinstance(error, ScenarioError):
        return [
            {"field": p.field, "expected": p.expected, "given": p.given}
            | ({"hint": p.hint} if p.hint else {})
            for p in error.problems
        ]
    return [
        {"field": "<scenario>", "expected": "a scenario the rules can compute", "given": str(error)}
    ]


class _open_lines:
    """Numbered lines of a file (or stdin) as bytes, each without its newline: "a\\nb" and
    "a\\nb\\n" hold two lines, "a\\n\\n" two (the second blank). JSON Lines input that is one
    JSON array is refused with a hint."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.handle: IO[bytes] | None = None

    def __enter__(self) -> Iterator[tuple[int, bytes]]:
        from .batch_lines import HINT_BYTES, json_array_hint

        if self.file == "-":
            self.handle = sys.stdin.buffer
        else:
            try:
                self.handle = open(self.file, "rb")
            except OSError as error:
                raise BadInput(f"{self.file}: cannot read: {error.strerror}") from None
        start = self.handle.read(HINT_BYTES)
        hint = json_array_hint(start)
        if hint is not None:
            raise BadInput(f"{'<stdin>' if self.file == '-' else self.file}: {hint}")
        return self._lines(start)

    def _lines(self, start: bytes) -> Iterator[tuple[int, bytes]]:
        import io
        import itertools

        assert self.handle is not None
        rest = self.handle.readline() if start and not start.endswith(b"\n") else b""
        lines = itertools.chain(io.BytesIO(start + rest), self.handle)
        for number, raw in enumerate(lines, start=1):
            yield number, raw.removesuffix(b"\n")

    def __exit__(self, *exc: object) -> None:
        if self.handle is not None and self.handle is not sys.stdin.buffer:
            self.handle.close()


def _write_lines(lines: Iterator[str], output: str | None) -> None:
    """Writes lines to stdout, or to `output` atomically (see `atomic_file`)."""
    if output is None:
        for line in lines:
            click.echo(line)
        return
    with atomic_file(output, "w") as handle:
        for line in lines:
            handle.write(line + "\n")


@cli.command()
@encoding_option_or_argument("check")
@click.option(
    "--official",
    type=click.Path(dir_okay=False),
    default=None,
    help="The official text to compare with (default: the one the encoding names).",
)
@click.option("--quiet", "-q", is_flag=True, help="Print problems only.")
@click.option(
    "--strict",
    is_flag=True,
    help="Treat every warning as an error, and every clause not yet encoded too.",
)
def check(encoding: str | None, official: str | None, quiet: bool, strict: bool) -> None:
    """Parse the encoding, check it statically and prove its text equals the official text.

    Exit 0 when it is usable (warnings and clauses not yet encoded aside, unless --strict), 2
    when it is not.
    """
    from .api import encoding_path
    from .dsl.coverage import NOT_YET_ENCODED, STATUSES, coverage, summary
    from .dsl.loader import analyse

    path = encoding_path(encoding)
    analysis = analyse(path, official)
    for diagnostic in analysis.diagnostics:
        click.echo(diagnostic.render(analysis.source), err=True)
    if analysis.errors or analysis.statute is None:
        count = len(analysis.errors)
        raise BadInput(
            f"{path}: {count} error{'s' if count != 1 else ''}; the encoding is not usable"
        )
    if strict and analysis.warnings:
        count = len(analysis.warnings)
        raise BadInput(f"{path}: {count} warning{'s' if count != 1 else ''} (--strict)")
    statute = analysis.statute
    clauses = coverage(statute)
    if strict:
        # A finished encoding accounts for every clause: a draft's to-do is no pass.
        todo = [statute.citation(c.clause) for c in clauses if c.status == NOT_YET_ENCODED]
        if todo:
            shown = ", ".join(todo[:5]) + (f" and {len(todo) - 5} more" if len(todo) > 5 else "")
            raise BadInput(
                f"{path}: {len(todo)} clause{'s' if len(todo) != 1 else ''} {NOT_YET_ENCODED} "
                f"(--strict): {shown}"
            )
    if quiet:
        return
    counts = summary(statute)
    click.echo(
        f"{path}: {statute.name} is well formed and carries its official text "
        f"({analysis.official_path}) word for word."
    )
    click.echo(
        f"  {len(clauses)} clauses: "
        + ", ".join(f"{counts[s]} {s}" for s in STATUSES if counts[s] or s == "encoded")
    )
    click.echo(
        f"  {len(statute.definitions)} definitions ({len(statute.bonuses)} bonuses), "
        f"{len(statute.inputs)} inputs, {len(statute.readings)} readings, "
        f"{len(statute.results)} results, {len(statute.invariants)} invariants"
    )
    for item in clauses:
        if item.status == NOT_YET_ENCODED:
            click.echo(f"  {statute.citation(item.clause)}: {NOT_YET_ENCODED}")
        elif item.status in ("discretionary", "text only"):
            click.echo(f"  {statute.citation(item.clause)}: {item.status}: {item.marks[0][1]}")
        elif item.marks:
            for mark, reason in item.marks:
                click.echo(
                    f"  {statute.citation(item.clause)}: encoded, with a {mark} sentence: {reason}"
                )
    named = [
        *(i for i in statute.inputs.values() if i.phrases),
        *(f for r in statute.records.values() for f in r.fields.values() if f.phrases),
    ]
    if statute.inputs and not named:
        click.echo(
            "  facts: not checked (no input declares the phrases the words name it by: "
            "`named`, docs/language.md)"
        )
    if analysis.warnings:
        click.echo(f"  {len(analysis.warnings)} warning(s) above")


@cli.command()
@encoding_option_or_argument("prove")
@output_format("text", "json", what="the report")
@click.option("--junit", type=click.Path(dir_okay=False), help="Also write JUnit XML here.")
@click.option("--sarif", type=click.Path(dir_okay=False), help="Also write SARIF 2.1.0 here.")
@z3_timeout(DEFAULT_TIMEOUT, what="each Z3 call")
@z3_budget(DEFAULT_BUDGET, what="the whole run")
@click.option("--allow-unknown", is_flag=True, help="Do not fail on UNKNOWN (Z3 timeouts).")
@click.option(
    "--counterexamples",
    type=click.Path(file_okay=False),
    help="Write each counterexample here as a scenario file `lextrace explain` runs.",
)
@click.option("--verbose", "-v", is_flag=True, help="List proved checks too.")
def verify(
    encoding: str | None,
    output_format: str,
    junit: str | None,
    sarif: str | None,
    timeout: float,
    budget: float,
    allow_unknown: bool,
    counterexamples: str | None,
    verbose: bool,
) -> None:
    """Prove the invariants of the encoding with Z3.

    Exit 0 when every check is PROVED (or BOUNDED: proved for lists up to a stated length), 1
    when any is VIOLATED, VACUOUS or UNKNOWN (timeouts are failures unless --allow-unknown), 2
    when the encoding itself is not usable.
    """
    from .verify.report import render_text, run, to_json, to_junit, to_sarif

    try:
        statute = _statute(encoding).ast
    except EncodingError as error:
        # CI reads the report it asked for even when nothing could be proved.
        from .api import encoding_path
        from .verify.report import unusable_json, unusable_sarif

        where = str(encoding_path(encoding))
        if sarif:
            _write_text(Path(sarif), json.dumps(unusable_sarif(where, error), indent=2))
        if output_format == "json":
            click.echo(json.dumps(unusable_json(where, error), indent=2, ensure_ascii=False))
        raise
    if counterexamples:
        try:  # before the proofs, not after them
            Path(counterexamples).mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise OutputError(f"{counterexamples}: cannot write: {error.strerror}") from None
    report = run(statute, timeout, budget, allow_unknown)
    written = []
    if counterexamples:
        from .verify.replay import write_counterexamples

        written = write_counterexamples(report, Path(counterexamples), _write_text)
    if junit:
        _write_text(Path(junit), to_junit(report))
    if sarif:
        _write_text(Path(sarif), json.dumps(to_sarif(report), indent=2))
    if output_format == "json":
        click.echo(json.dumps(to_json(report), indent=2, ensure_ascii=False))
    else:
        click.echo(render_text(report, verbose))
        for path in written:
            click.echo(f"counterexample written: {path}  (run: lextrace explain {path})")
    if not report.ok:
        raise click.exceptions.Exit(EXIT_FAILED)


def _write_text(path: Path, text: str) -> None:
    """Writes a text file atomically, ending in a newline."""
    write_text(path, text if text.endswith("\n") else text + "\n")


@cli.command()
@output_format("text", "markdown", "json", what="the fields")
@encoding_option("describe")
def fields(output_format: str, encoding: str | None) -> None:
    """List the scenario fields the encoding declares: type, default, bounds, clauses."""
    from dataclasses import asdict

    from .dsl.contract import fields as contract_fields
    from .dsl.contract import markdown_table

    statute = _statute(encoding).ast
    if output_format == "markdown":
        click.echo(markdown_table(statute))
        return
    found = contract_fields(statute)
    if output_format == "json":
        click.echo(json.dumps([asdict(f) for f in found], indent=2, ensure_ascii=False))
        return
    for field in found:
        extra = f"; {field.constraints}" if field.constraints else ""
        # "= X" is a default; a field without one is required, or may be left out (null).
        default = {"required": ", required", "null": ", optional", "-": ""}.get(
            field.default, f" = {field.default}"
        )
        click.echo(f"{field.name}: {field.type}{default}{extra}")
        click.echo(f"    {field.description} [{', '.join(field.clauses)}]")


@cli.command()
@click.option(
    "--inline-lists",
    is_flag=True,
    help="A list input must be given inline, not as the path of a CSV or Parquet file.",
)
@encoding_option("describe")
def schema(inline_lists: bool, encoding: str | None) -> None:
    """Print the JSON Schema (draft 2020-12) of the encoding's scenario: types, defaults,
    bounds, enum members and conditional requirements, from its input declarations."""
    from .dsl.schema import scenario_schema, schema_text

    statute = _statute(encoding).ast
    click.echo(schema_text(scenario_schema(statute, list_files=not inline_lists)))


def main(argv: list[str] | None = None) -> int:
    """Runs the command line; returns its exit code (`lextrace.exits`: 0 success, 1 a check
    failed, 2 bad input, 3 an internal error, 128+N stopped by signal N)."""
    from .outputs import forgiving_stderr, stop_on_signals

    restore = stop_on_signals()
    try:
        with forgiving_stderr():
            return _run(argv)
    finally:
        restore()


def _run(argv: list[str] | None) -> int:
    from .api import ReadingError
    from .dsl.evaluator import EvaluationError

    _LOADED.clear()  # a command run in this process before loaded its own
    try:
        code = cli.main(args=argv, prog_name="lextrace", standalone_mode=False)
        sys.stdout.flush()  # a full disk or a closed pipe shows here, not at the exit
        if isinstance(code, int):
            return code
    except click.exceptions.Exit as done:
        return int(done.exit_code)
    except (click.Abort, KeyboardInterrupt):
        return _stopped("SIGINT", exits.SIGNALLED + 2)
    except Stopped as stop:
        return _stopped(stop.name, exits.SIGNALLED + stop.signal)
    except click.ClickException as error:
        error.show()
        return EXIT_BAD_INPUT if error.exit_code == 2 else error.exit_code
    except EncodingError as error:
        click.echo(error.render(), err=True)
        return EXIT_BAD_INPUT
    except ScenarioError as error:
        click.echo(error.render() + _against(error), err=True)
        return EXIT_BAD_INPUT
    except ReadingError as error:
        click.echo(f"--reading: {error}", err=True)
        return EXIT_BAD_INPUT
    except OutputError as error:
        click.echo(f"lextrace: {error}", err=True)
        return EXIT_BAD_INPUT
    except EvaluationError as error:  # the encoding's fault, on this scenario: not a bug
        click.echo(
            f"lextrace: the encoding does not define this scenario: {error} "
            "(`lextrace verify` finds every scenario that reaches such a place)",
            err=True,
        )
        return EXIT_BAD_INPUT
    except (ClosedPipe, BrokenPipeError):
        _closed_pipe()
        return EXIT_OK
    except OSError as error:
        if error.errno == errno.EPIPE:
            _closed_pipe()
            return EXIT_OK
        if error.errno in WRITE_FAILURES and error.filename is None:
            # Every file is written through `atomic_file`, which names it: what is left is
            # standard output.
            click.echo(f"lextrace: standard output: cannot write: {error.strerror}", err=True)
            _closed_pipe()
            return EXIT_BAD_INPUT
        return _internal(error)
    except Exception as error:  # the last line of defence: never a traceback
        return _internal(error)
    return EXIT_OK


def _internal(error: Exception) -> int:
    if os.environ.get("LEXTRACE_DEBUG"):
        traceback.print_exc()
    click.echo(f"lextrace: internal error: {type(error).__name__}: {error}", err=True)
    return EXIT_INTERNAL


def _stopped(name: str, code: int) -> int:
    click.echo(f"lextrace: stopped by {name}; no output file was left half-written", err=True)
    return code


def _closed_pipe() -> None:
    from .outputs import quiet_stdout

    quiet_stdout()


def entry_point() -> None:
    """The console script: exits with main()'s code."""
    leave_pandas_out()
    one_blas_thread()
    end_process(main())


def end_process(code: int) -> None:
    """Ends the process with `code`: standard output and error flushed and the exit handlers
    run, then without the interpreter's teardown of every module, the statute and Arrow's
    memory, which takes longer than many commands (a twelfth of a second after a batch of a
    million rows). Every file a command writes is closed before main() returns. Where a thread
    of the command's is still running, the interpreter ends as usual, waiting for it."""
    import atexit
    import threading

    others = [t for t in threading.enumerate() if t is not threading.main_thread()]
    if any(not thread.daemon for thread in others):
        sys.exit(code)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        # A failed write was reported by main(); a reader that closed the pipe has all it read.
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)


def one_blas_thread() -> None:
    """Gives numpy's linear-algebra library (OpenBLAS) one thread, unless the environment
    chose a number (`OPENBLAS_NUM_THREADS`). No command does linear algebra, but OpenBLAS
    starts a thread per core when numpy is imported, and each spins for a while: a tenth of a
    CPU-second taken from the cores a batch evaluates on. The library reads the setting when
    numpy is first imported, so only the console script calls this, before any import of it;
    the processes a command starts inherit it."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


class _NoPandas(importlib.abc.MetaPathFinder):
    """Refuses to import pandas (see leave_pandas_out)."""

    def find_spec(self, name: str, path: object, target: object = None) -> None:
        """Raises ModuleNotFoundError for pandas and its modules; returns None otherwise."""
        if name == "pandas" or name.startswith("pandas."):
            raise ModuleNotFoundError("the lextrace command does not use pandas", name=name)
        return None


def leave_pandas_out() -> None:
    """Makes pandas unimportable in this process, unless it is imported already. No command
    uses it, but pyarrow imports it at its first array when it is installed: a quarter of a
    second, most of the start-up of a batch. pyarrow then works as where pandas is not
    installed. Only the console script calls this: a program calling `main()` keeps pandas."""
    if "pandas" not in sys.modules and not any(isinstance(f, _NoPandas) for f in sys.meta_path):
        sys.meta_path.insert(0, _NoPandas())
