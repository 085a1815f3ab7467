"""The command-line reference: each command's `--help`, as the terminal shows it."""

from __future__ import annotations

import click

from lextrace.cli import cli

from .markdown import code


def reference() -> str:
    """Returns a section per command (the lazily loaded ones included) with its help text."""
    parts = []
    with click.Context(cli, info_name="lextrace", **cli.context_settings) as root:
        parts.append(code(cli.get_help(root), "text"))
        for name in cli.list_commands(root):
            command = cli.get_command(root, name)
            assert command is not None
            with click.Context(command, info_name=name, parent=root) as ctx:
                parts.append(f"## `lextrace {name}`")
                parts.append(code(command.get_help(ctx), "text"))
    return "\n\n".join(parts)
