"""Command-line options shared by several commands, declared once."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import click

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]


def output_format(*choices: str, what: str = "the result") -> Decorator:
    """Returns the `--format` option with these choices (the first is the default)."""
    return click.option(
        "--format",
        "output_format",
        type=click.Choice(list(choices)),
        default=choices[0],
        show_default=True,
        help=f"How to print {what}.",
    )


def z3_timeout(default: float, what: str = "each Z3 call") -> Decorator:
    """Returns the `--timeout` option: seconds of Z3 work allowed to each Z3 call."""
    return click.option(
        "--timeout",
        type=click.FloatRange(0.01, 3600),
        default=default,
        show_default=True,
        help=f"Seconds of Z3 work allowed to {what} (counted by Z3, not on the clock).",
    )


def z3_budget(default: float, what: str) -> Decorator:
    """Returns the `--budget` option: seconds of Z3 work allowed to a whole run of proofs."""
    return click.option(
        "--budget",
        type=click.FloatRange(0.01, 36000),
        default=default,
        show_default=True,
        help=f"Seconds of Z3 work allowed to {what}; checks left over end UNKNOWN.",
    )


ENCODING_HELP = "(default: $LEXTRACE_ENCODING when set, else the bundled statute)"


def encoding_option(what: str = "use") -> Decorator:
    """Returns the `--encoding` option that every command reading one encoding takes."""
    return click.option(
        "--encoding",
        "-e",
        type=click.Path(dir_okay=False),
        default=None,
        metavar="FILE",
        help=f"The encoding to {what} {ENCODING_HELP}.",
    )


def encoding_option_or_argument(what: str = "use") -> Decorator:
    """Returns `--encoding` for a command that used to take the encoding as its argument: the
    argument still works, with a notice, so that scripts written for it keep running."""

    def decorate(function: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(function)
        def command(*args: Any, legacy_encoding: str | None = None, **kwargs: Any) -> Any:
            if legacy_encoding is not None:
                given = kwargs.get("encoding")
                if given is not None and given != legacy_encoding:
                    raise click.UsageError(
                        f"two encodings given: --encoding {given} and the argument "
                        f"{legacy_encoding}; give one, as --encoding FILE"
                    )
                click.echo(
                    f"lextrace: the encoding as an argument is deprecated; "
                    f"write --encoding {legacy_encoding}",
                    err=True,
                )
                kwargs["encoding"] = legacy_encoding
            return function(*args, **kwargs)

        command = encoding_option(what)(command)
        return click.argument(
            "legacy_encoding",
            metavar="[ENCODING]",
            required=False,
            type=click.Path(dir_okay=False),
        )(command)

    return decorate
