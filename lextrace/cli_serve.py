"""`lextrace serve`: the statutes as an HTTP service (imported only when it runs).

Needs the `serve` extra (Starlette and uvicorn): without it the command says how to install it
and exits 2. Every encoding is loaded, checked and compiled before the server listens, so a bad
one exits 2 with its file:line:column like any other command. See `docs/service.md`.
"""

from __future__ import annotations

import importlib.util

import click

from .cli import BadInput

MISSING = (
    "lextrace serve needs Starlette and uvicorn, which are not installed: "
    "pip install 'lextrace[serve]'"
)


@click.command(name="serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="The address to listen on.")
@click.option(
    "--port", type=click.IntRange(0, 65535), default=8000, show_default=True, help="The port."
)
@click.option(
    "--encoding",
    "-e",
    "encodings",
    multiple=True,
    type=click.Path(dir_okay=False),
    metavar="FILE",
    help="An encoding to serve, under its file's stem as id (repeatable; the first is the "
    "default; default: $LEXTRACE_ENCODING when set, else the bundled statute).",
)
@click.option(
    "--max-body",
    type=click.IntRange(1),
    default=None,
    metavar="BYTES",
    help="The largest body of a scenario (default: 1,000,000 bytes, as a scenario file).",
)
@click.option(
    "--max-batch-body",
    type=click.IntRange(1),
    default=None,
    metavar="BYTES",
    help="The largest body of a batch (default: 64 MiB).",
)
@click.option(
    "--timeout",
    type=click.FloatRange(0, min_open=True),
    default=10.0,
    show_default=True,
    help="Seconds a request may take to send its body and be answered.",
)
@click.option(
    "--limit-concurrency",
    type=click.IntRange(1),
    default=256,
    show_default=True,
    help="At most this many connections and requests at once; past it, 503.",
)
@click.option(
    "--keep-alive",
    type=click.IntRange(1),
    default=5,
    show_default=True,
    help="Close a connection idle for this many seconds.",
)
@click.option("--no-access-log", is_flag=True, help="Do not log each request.")
def serve(
    host: str,
    port: int,
    encodings: tuple[str, ...],
    max_body: int | None,
    max_batch_body: int | None,
    timeout: float,
    limit_concurrency: int,
    keep_alive: int,
    no_access_log: bool,
) -> None:
    """Serve the statutes over HTTP: POST /v1/evaluate, /v1/explain and /v1/batch, GET
    /v1/statutes, /v1/fields, /v1/schema, /healthz and /openapi.json (docs/service.md)."""
    if any(importlib.util.find_spec(name) is None for name in ("starlette", "uvicorn", "anyio")):
        raise BadInput(MISSING)
    from .api import encoding_path, load_statute
    from .service import Limits, create_app, server_config, statute_id

    statutes = {}
    for given in encodings or (None,):
        path = encoding_path(given)
        found = statute_id(str(path))
        if found in statutes:
            raise BadInput(f"{path}: a second encoding served as '{found}'; rename one of them")
        statutes[found] = load_statute(path)
    defaults = Limits()
    limits = Limits(
        max_body=max_body or defaults.max_body,
        max_batch_body=max_batch_body or defaults.max_batch_body,
        timeout=timeout,
    )
    import uvicorn

    config = server_config(
        create_app(statutes, limits),
        host,
        port,
        limit_concurrency=limit_concurrency,
        keep_alive=keep_alive,
        access_log=not no_access_log,
    )
    click.echo(
        f"lextrace: serving {', '.join(statutes)} on http://{host}:{port} "
        f"(default {next(iter(statutes))})",
        err=True,
    )
    try:
        uvicorn.Server(config).run()
    except SystemExit as stopped:  # uvicorn could not listen (the port taken, say)
        if stopped.code not in (0, None):
            raise BadInput(f"cannot listen on http://{host}:{port}") from None
