"""Command-line options shared by several commands, declared once."""

from __future__ import annotations

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
    """Returns the `--timeout` option: seconds allowed to each Z3 call."""
    return click.option(
        "--timeout",
        type=click.FloatRange(0.01, 3600),
        default=default,
        show_default=True,
        help=f"Seconds allowed to {what}.",
    )


def z3_budget(default: float, what: str) -> Decorator:
    """Returns the `--budget` option: seconds allowed to a whole run of proofs."""
    return click.option(
        "--budget",
        type=click.FloatRange(0.01, 36000),
        default=default,
        show_default=True,
        help=f"Seconds allowed to {what}; checks left over end UNKNOWN.",
    )


def encoding_option(what: str = "use") -> Decorator:
    """Returns the `--encoding` option: another encoding than the bundled statute."""
    return click.option(
        "--encoding",
        type=click.Path(dir_okay=False),
        default=None,
        help=f"The encoding to {what} (default: the bundled N.J.S.A. 34:1B-343).",
    )
