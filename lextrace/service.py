"""The HTTP service of `lextrace serve`: one or more statutes evaluated over JSON, on Starlette.

`create_app(statutes, limits)` builds the ASGI application and does nothing else (no network,
no file), so that it can be tested and mounted anywhere; `lextrace serve` runs it on uvicorn.
Requests and answers are those of the command line: a scenario in, `Result.to_dict()` out
(what `lextrace evaluate --format json` prints), and a refusal names each field, what was
expected and what was given (`lextrace.cli.error_problems`). See `docs/service.md`.

The service never reads a file a request names (a list input must be given inline), reads at
most `Limits.max_body` bytes of a body (counted while it arrives), and answers within
`Limits.timeout` seconds or says it could not. Scenarios are evaluated in the thread pool, so
that a slow client or a long evaluation never holds up the others.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Any

import anyio
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from .dsl.errors import ScenarioError
from .dsl.scenario import MAX_SCENARIO_BYTES, inline_lists_only, parse_bytes
from .dsl.suggest import closest

if TYPE_CHECKING:
    from .api import Result, Statute
    from .periods import PeriodResult

__all__ = ["Limits", "create_app", "openapi", "running", "statute_id"]

LOG = logging.getLogger("lextrace.service")
SOURCE = "<request>"
#: The default largest body of a batch: 64 MiB.
MAX_BATCH_BYTES = 64 << 20
#: How many lines of a batch are evaluated at once in the thread pool before they are sent.
BATCH_CHUNK = 256
NDJSON = "application/x-ndjson"


@dataclass(frozen=True)
class Limits:
    """What one request may take: the largest body of a scenario (`max_body`) and of a batch
    (`max_batch_body`), in bytes, and the seconds a request may last (`timeout`: receiving
    its body and computing its answer; a batch streams its records once its body is in)."""

    max_body: int = MAX_SCENARIO_BYTES
    max_batch_body: int = MAX_BATCH_BYTES
    timeout: float = 10.0


class Refused(Exception):
    """A request answered with an error: its status and its JSON body's `error`."""

    def __init__(self, status: int, error: object, **more: object) -> None:
        super().__init__(str(error))
        self.status = status
        self.body: dict[str, object] = {"error": error, **more}


def statute_id(path: str) -> str:
    """Returns the id a statute is served under: its encoding file's stem (`nj-34-1b-343`)."""
    from pathlib import Path

    return Path(path).stem


def problems_of(error: Exception) -> list[dict[str, str]]:
    """Returns the `error` list of a refused scenario: each field, what was expected and what
    was given, as `lextrace batch` writes them (`lextrace.cli.error_problems`)."""
    from .cli import error_problems

    return error_problems(error)


async def in_thread(function: Any, *args: Any) -> Any:
    """Runs `function(*args)` in the thread pool (evaluation is CPU-bound); a request past its
    time limit stops waiting for it (the thread finishes its work, unobserved)."""
    import functools

    return await anyio.to_thread.run_sync(
        functools.partial(function, *args), abandon_on_cancel=True
    )


def _problem(field: str, expected: str, given: str) -> list[dict[str, str]]:
    return [{"field": field, "expected": expected, "given": given}]


def _too_large(limit: int) -> Refused:
    return Refused(
        413, _problem("<body>", f"at most {limit:,} bytes", f"more than {limit:,} bytes")
    )


async def read_body(request: Request, limit: int) -> bytes:
    """Returns the request's body, read no further than `limit` bytes: a declared length past
    it is refused before anything is read, and a body sent without one is counted while it
    arrives. Raises Refused (413)."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.strip().isdigit() and int(declared) > limit:
        raise _too_large(limit)
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise _too_large(limit)
        chunks.append(chunk)
    return b"".join(chunks)


def _readings(request: Request) -> dict[str, str]:
    """The readings a request selects: `?reading=ID=OPTION`, repeatable."""
    chosen: dict[str, str] = {}
    for value in request.query_params.getlist("reading"):
        reading_id, sep, option = value.partition("=")
        if not sep or not reading_id.strip() or not option.strip():
            raise Refused(
                422,
                _problem(
                    "reading", "ID=OPTION: a reading's id and one of its options", repr(value)
                ),
            )
        chosen[reading_id.strip()] = option.strip()
    return chosen


def _parameters(request: Request, *allowed: str) -> None:
    """Refuses (422) a query parameter the endpoint does not take: a misspelt `?traces=true`
    is not silently ignored."""
    for name in request.query_params:
        if name not in allowed:
            close = closest(name, allowed)
            problem: dict[str, str] = {
                "field": name,
                "expected": "a parameter of this endpoint: " + ", ".join(allowed),
                "given": "an unknown parameter",
            }
            if close:
                problem["hint"] = f"did you mean '{close}'?"
            raise Refused(422, [problem])


def _flag(request: Request, name: str) -> bool:
    value = request.query_params.get(name, "false").strip().lower()
    if value in ("true", "1", "yes", ""):
        return True
    if value in ("false", "0", "no"):
        return False
    raise Refused(422, _problem(name, "true or false", repr(value)))


def _width(request: Request) -> int:
    value = request.query_params.get("width", "100").strip()
    if not value.isdigit() or not 60 <= int(value) <= 400:
        raise Refused(422, _problem("width", "a whole number from 60 to 400", repr(value)))
    return int(value)


def _scenario(raw: bytes) -> Any:
    """The document a body holds, numbers exact; raises Refused (400) for a body that is not a
    JSON document. Whether it is a scenario is for the statute to say (422)."""
    try:
        return parse_bytes(raw, "json", SOURCE, "empty input")
    except ScenarioError as error:
        status = 400 if all(p.field == "<file>" for p in error.problems) else 422
        raise Refused(status, problems_of(error)) from None


def _evaluate(
    statute: Statute, data: Mapping[str, object], chosen: dict[str, str], trace: bool
) -> Result | PeriodResult:
    """Evaluates a scenario of a request (in a worker thread); list files are refused."""
    from .api import ReadingError
    from .dsl.evaluator import EvaluationError

    try:
        with inline_lists_only():
            return statute.evaluate(data, chosen, trace=trace, source=SOURCE)
    except ReadingError as error:
        raise Refused(
            422, _problem("reading", "a reading and option the encoding declares", str(error))
        ) from None
    except (ScenarioError, EvaluationError) as error:
        raise Refused(422, problems_of(error)) from None


def _batch_lines(
    statute: Statute, chosen: dict[str, str], trace: bool, lines: Sequence[tuple[int, bytes]]
) -> list[str]:
    """The records of lines of a batch, in order: a result, or the line's error record."""
    from .api import ReadingError
    from .batch_lines import error_record, evaluate_line
    from .dsl.evaluator import EvaluationError

    records = []
    with inline_lists_only():
        for number, raw in lines:
            where = f"{SOURCE}:{number}"
            try:
                records.append(evaluate_line(statute, chosen, where, number, raw, trace))
            except (ScenarioError, EvaluationError, ReadingError) as error:
                records.append(error_record(number, problems_of(error)))
    return records


def _numbered_lines(body: bytes) -> list[tuple[int, bytes]]:
    """The lines of a JSON Lines body, numbered from 1, each without its newline: "a\\nb" and
    "a\\nb\\n" hold two lines."""
    if not body:
        return []
    parts = body.split(b"\n")
    if parts[-1] == b"":
        parts.pop()
    return list(enumerate(parts, start=1))


def _json(body: object, status: int = 200, headers: Mapping[str, str] | None = None) -> Response:
    text = json.dumps(body, ensure_ascii=False, indent=2) + "\n"
    return Response(text, status, headers=headers, media_type="application/json")


def create_app(statutes: dict[str, Statute], limits: Limits | None = None) -> Starlette:
    """Returns the ASGI application serving `statutes` (by id, the first the default) within
    `limits` (see `Limits`). Pure: it reads no file and opens no socket."""
    if not statutes:
        raise ValueError("create_app needs at least one statute")
    limits = limits or Limits()
    default = next(iter(statutes))
    ids = list(statutes)

    def chosen_statute(request: Request) -> tuple[str, Statute]:
        wanted = request.query_params.get("statute", default)
        if wanted not in statutes:
            raise Refused(404, f"unknown statute {wanted!r}", statutes=ids)
        return wanted, statutes[wanted]

    async def guarded(request: Request, answer: Any) -> Response:
        try:
            response: Response = await answer(request)
            return response
        except Refused as refused:
            return _json(refused.body, refused.status)
        except Exception:
            LOG.exception("internal error on %s %s", request.method, request.url.path)
            return _json({"error": "internal error"}, 500)

    async def within_time(request: Request, limit: int, work: Any) -> Any:
        """Reads the body and runs `work(body)` in the time limit: 408 when the body is not in
        by then, 504 when the answer is not ready."""
        coding = request.headers.get("content-encoding", "identity").strip().lower()
        if coding not in ("", "identity"):
            raise Refused(
                415, f"a body encoded as {coding!r} is not read: send the JSON uncompressed"
            )
        received = False
        try:
            with anyio.fail_after(limits.timeout):
                body = await read_body(request, limit)
                received = True
                return await work(body)
        except TimeoutError:
            if not received:
                raise Refused(
                    408, f"the request's body did not arrive within {limits.timeout:g} s"
                ) from None
            raise Refused(504, f"the answer was not computed within {limits.timeout:g} s") from None

    async def evaluate_endpoint(request: Request) -> Response:
        async def answer(request: Request) -> Response:
            _parameters(request, "statute", "reading", "trace")
            _, statute = chosen_statute(request)
            chosen = _readings(request)
            trace = _flag(request, "trace")

            async def work(body: bytes) -> str:
                data = _scenario(body)

                def run() -> str:
                    # As `lextrace evaluate --format json` prints it.
                    text = _evaluate(statute, data, chosen, trace).to_json_text(indent=2)
                    return text + "\n"

                return str(await in_thread(run))

            text = await within_time(request, limits.max_body, work)
            return Response(text, media_type="application/json")

        return await guarded(request, answer)

    async def explain_endpoint(request: Request) -> Response:
        async def answer(request: Request) -> Response:
            _parameters(request, "statute", "reading", "trace", "width")
            _, statute = chosen_statute(request)
            chosen = _readings(request)
            width = _width(request)
            _flag(request, "trace")  # checked as elsewhere; an explanation is always traced

            async def work(body: bytes) -> dict[str, object]:
                data = _scenario(body)

                def run() -> dict[str, object]:
                    result = _evaluate(statute, data, chosen, True)
                    return {"explanation": result.explain(width=width), "result": result.to_dict()}

                found: dict[str, object] = await in_thread(run)
                return found

            return _json(await within_time(request, limits.max_body, work))

        return await guarded(request, answer)

    async def batch_endpoint(request: Request) -> Response:
        async def answer(request: Request) -> Response:
            _parameters(request, "statute", "reading", "trace")
            _, statute = chosen_statute(request)
            chosen = _readings(request)
            trace = _flag(request, "trace")
            try:
                statute.select_readings(chosen)
            except ValueError as error:
                raise Refused(
                    422,
                    _problem("reading", "a reading and option the encoding declares", str(error)),
                ) from None

            async def work(body: bytes) -> list[tuple[int, bytes]]:
                return _numbered_lines(body)

            lines = await within_time(request, limits.max_batch_body, work)

            async def records() -> AsyncIterator[str]:
                for start in range(0, len(lines), BATCH_CHUNK):
                    chunk = lines[start : start + BATCH_CHUNK]
                    done = await in_thread(_batch_lines, statute, chosen, trace, chunk)
                    yield "".join(line + "\n" for line in done)

            return StreamingResponse(records(), media_type=NDJSON)

        return await guarded(request, answer)

    async def statutes_endpoint(request: Request) -> Response:
        return _json(
            {"default": default, "statutes": [describe(i, s) for i, s in statutes.items()]}
        )

    async def fields_endpoint(request: Request) -> Response:
        async def answer(request: Request) -> Response:
            from .dsl.contract import fields

            _parameters(request, "statute")
            _, statute = chosen_statute(request)
            return _json([asdict(f) for f in fields(statute.ast)])

        return await guarded(request, answer)

    async def schema_endpoint(request: Request) -> Response:
        async def answer(request: Request) -> Response:
            from .dsl.schema import schema_text

            _parameters(request, "statute")
            _, statute = chosen_statute(request)
            text = schema_text(statute.schema(list_files=False)) + "\n"
            return Response(text, media_type="application/schema+json")

        return await guarded(request, answer)

    async def health_endpoint(request: Request) -> Response:
        return _json({"status": "ok", "statutes": ids})

    async def openapi_endpoint(request: Request) -> Response:
        return _json(openapi(statutes, limits))

    async def not_found(request: Request, error: Exception) -> Response:
        assert isinstance(error, HTTPException)
        headers = dict(error.headers or {})
        if error.status_code == 404:
            return _json({"error": f"no such route: {request.url.path}"}, 404, headers)
        if error.status_code == 405:
            allowed = headers.get("Allow", headers.get("allow", ""))
            message = f"{request.method} is not allowed on {request.url.path} (allowed: {allowed})"
            return _json({"error": message}, 405, headers)
        return _json({"error": str(error.detail)}, error.status_code, headers)

    async def internal(request: Request, error: Exception) -> Response:
        return _json({"error": "internal error"}, 500)

    routes = [
        Route("/v1/evaluate", evaluate_endpoint, methods=["POST"]),
        Route("/v1/explain", explain_endpoint, methods=["POST"]),
        Route("/v1/batch", batch_endpoint, methods=["POST"]),
        Route("/v1/statutes", statutes_endpoint, methods=["GET"]),
        Route("/v1/fields", fields_endpoint, methods=["GET"]),
        Route("/v1/schema", schema_endpoint, methods=["GET"]),
        Route("/healthz", health_endpoint, methods=["GET"]),
        Route("/openapi.json", openapi_endpoint, methods=["GET"]),
    ]
    return Starlette(
        routes=routes,
        exception_handlers={HTTPException: not_found, Exception: internal},
    )


def describe(statute_id: str, statute: Statute) -> dict[str, object]:
    """Returns what `/v1/statutes` says of one statute: its id, citation, title, results and
    readings (each its question, options and default)."""
    return {
        "id": statute_id,
        "name": statute.name,
        "title": statute.ast.title,
        "results": list(statute.ast.result_names),
        "readings": [
            {
                "id": reading.id,
                "question": reading.question,
                "default": reading.default.name,
                "options": [
                    {"name": option.name, "description": option.description}
                    for option in reading.options
                ],
            }
            for reading in statute.ast.readings.values()
        ],
    }


# ---- the OpenAPI document -----------------------------------------------------------------------
def _error_schema() -> dict[str, object]:
    problem = {
        "type": "object",
        "required": ["field", "expected", "given"],
        "properties": {
            "field": {"type": "string", "description": "the field, or <file>, <scenario>, <body>"},
            "expected": {"type": "string"},
            "given": {"type": "string"},
            "hint": {
                "type": "string",
                "description": "what the message adds: the field is missing, did you mean ...",
            },
        },
    }
    return {
        "type": "object",
        "required": ["error"],
        "properties": {
            "error": {
                "description": "the problems of the request's content (400, 413, 422), or a "
                "message (404, 405, 408, 500, 504)",
                "oneOf": [{"type": "array", "items": problem}, {"type": "string"}],
            },
            "statutes": {"type": "array", "items": {"type": "string"}},
        },
    }


def _errors(*codes: int) -> dict[str, dict[str, Any]]:
    said = {
        400: "the body is not a JSON document (the parse error, with its line and column)",
        404: "an unknown statute (the ids served are listed)",
        408: "the body did not arrive within the time limit",
        413: "the body is larger than the limit",
        422: "a scenario that is not valid, or that the rules cannot compute; a bad reading",
        500: "an internal error (logged by the server)",
        504: "the answer was not computed within the time limit",
    }
    ref = {"$ref": "#/components/schemas/Error"}
    return {
        str(code): {"description": said[code], "content": {"application/json": {"schema": ref}}}
        for code in codes
    }


def openapi(statutes: Mapping[str, Statute], limits: Limits | None = None) -> dict[str, object]:
    """Returns the OpenAPI 3.1 document of the service: every route, its parameters, bodies and
    answers. The scenario's schema is that of `/v1/schema` for the default statute."""
    limits = limits or Limits()
    default = next(iter(statutes))
    try:
        release = version("lextrace")
    except PackageNotFoundError:  # pragma: no cover - run from a source tree
        release = "0"
    statute_param = {
        "name": "statute",
        "in": "query",
        "required": False,
        "description": "the id of the statute (default: the first served)",
        "schema": {"type": "string", "enum": list(statutes), "default": default},
    }
    reading_param = {
        "name": "reading",
        "in": "query",
        "required": False,
        "description": "select a reading: ID=OPTION, a reading's id and one of its options "
        "(repeatable; `/v1/statutes` lists them)",
        "schema": {"type": "array", "items": {"type": "string"}},
        "style": "form",
        "explode": True,
    }
    trace_param = {
        "name": "trace",
        "in": "query",
        "required": False,
        "description": "include each result's derivation",
        "schema": {"type": "boolean", "default": False},
    }
    width_param = {
        "name": "width",
        "in": "query",
        "required": False,
        "description": "wrap the statute's words at this width",
        "schema": {"type": "integer", "minimum": 60, "maximum": 400, "default": 100},
    }
    scenario_body = {
        "required": True,
        "description": f"one scenario, a JSON object (at most {limits.max_body:,} bytes); "
        "numbers are read exactly from their text; a list is given inline, never as a file",
        "content": {"application/json": {"schema": {"$ref": "/v1/schema"}}},
    }
    result: dict[str, Any] = {
        "description": "the result, as `lextrace evaluate --format json` prints it: each result "
        "key (money a decimal string to the cent), `readings`, and `trace` when asked for",
        "content": {"application/json": {"schema": {"type": "object"}}},
    }

    def got(description: str, media: str = "application/json") -> dict[str, dict[str, Any]]:
        return {"200": {"description": description, "content": {media: {"schema": {}}}}}

    paths: dict[str, Any] = {
        "/v1/evaluate": {
            "post": {
                "summary": "Evaluate one scenario",
                "parameters": [statute_param, reading_param, trace_param],
                "requestBody": scenario_body,
                "responses": {"200": result, **_errors(400, 404, 408, 413, 422, 500, 504)},
            }
        },
        "/v1/explain": {
            "post": {
                "summary": "Evaluate one scenario and explain every result with its citation",
                "parameters": [statute_param, reading_param, width_param],
                "requestBody": scenario_body,
                "responses": {
                    "200": {
                        "description": "`explanation` (the text `lextrace explain` prints as "
                        "its derivation) and `result` (with its trace)",
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "required": ["explanation", "result"],
                                    "properties": {
                                        "explanation": {"type": "string"},
                                        "result": {"type": "object"},
                                    },
                                }
                            }
                        },
                    },
                    **_errors(400, 404, 408, 413, 422, 500, 504),
                },
            }
        },
        "/v1/batch": {
            "post": {
                "summary": "Evaluate a JSON Lines batch, one scenario per line",
                "parameters": [statute_param, reading_param, trace_param],
                "requestBody": {
                    "required": True,
                    "description": f"JSON Lines, one scenario per line (at most "
                    f"{limits.max_batch_body:,} bytes)",
                    "content": {NDJSON: {"schema": {"type": "string"}}},
                },
                "responses": {
                    "200": {
                        "description": "JSON Lines, streamed: record N is line N, a result or "
                        '`{"line": N, "error": [...]}`, as `lextrace batch` writes them',
                        "content": {NDJSON: {"schema": {"type": "string"}}},
                    },
                    **_errors(404, 408, 413, 422, 500),
                },
            }
        },
        "/v1/statutes": {
            "get": {
                "summary": "The statutes served: ids, citations, results, readings",
                "responses": got("the default id and each statute"),
            }
        },
        "/v1/fields": {
            "get": {
                "summary": "The scenario's fields, as `lextrace fields --format json` prints them",
                "parameters": [statute_param],
                "responses": {**got("each field"), **_errors(404)},
            }
        },
        "/v1/schema": {
            "get": {
                "summary": "The scenario's JSON Schema (draft 2020-12), lists inline",
                "parameters": [statute_param],
                "responses": {
                    **got("the JSON Schema", "application/schema+json"),
                    **_errors(404),
                },
            }
        },
        "/healthz": {"get": {"summary": "Liveness", "responses": got("status ok")}},
        "/openapi.json": {"get": {"summary": "This document", "responses": got("OpenAPI 3.1")}},
    }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "lextrace",
            "version": release,
            "description": "Executable, traceable statutes: "
            + ", ".join(f"{i} ({s.name})" for i, s in statutes.items()),
        },
        "paths": paths,
        "components": {"schemas": {"Error": _error_schema()}},
    }


# ---- running it ---------------------------------------------------------------------------------
def server_config(
    app: Starlette,
    host: str = "127.0.0.1",
    port: int = 8000,
    limit_concurrency: int | None = 256,
    keep_alive: int = 5,
    log_level: str = "info",
    access_log: bool = True,
) -> Any:
    """Returns the uvicorn configuration `lextrace serve` runs `app` with: at most
    `limit_concurrency` connections and tasks at once (past it, 503), idle connections closed
    after `keep_alive` seconds, and a request's head at most 64 KiB."""
    import uvicorn

    return uvicorn.Config(
        app,
        host=host,
        port=port,
        limit_concurrency=limit_concurrency,
        timeout_keep_alive=keep_alive,
        h11_max_incomplete_event_size=64 * 1024,
        log_level=log_level,
        access_log=access_log,
        lifespan="off",
    )


@contextmanager
def running(app: Starlette, **options: Any) -> Iterator[str]:
    """Runs `app` on uvicorn in a thread of its own, on a free port of 127.0.0.1 (options as
    `server_config`), and yields its base URL (`http://127.0.0.1:PORT`); stops it on leaving.
    For tests and benchmarks."""
    import socket
    import time

    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    options.setdefault("log_level", "warning")
    options.setdefault("access_log", False)
    server = uvicorn.Server(server_config(app, "127.0.0.1", port, **options))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the server did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
