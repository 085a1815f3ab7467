"""`lextrace serve` end to end: the real server (uvicorn, on a free port of 127.0.0.1) asked over
HTTP, its answers held to what the command line prints for the same input."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import random
import socket
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from conftest import EXAMPLES, ROOT, lextrace_command

from lextrace import Statute, load_statute
from lextrace.cli import main
from lextrace.dsl.errors import FieldProblem
from lextrace.service import Limits, create_app, running

NJ = ROOT / "statute" / "nj-34-1b-343.lex"
NSW = ROOT / "statute" / "nsw-cgr-2020-cl-5.lex"
NSW_ID = "nsw-cgr-2020-cl-5"
BAD_SCENARIOS = ROOT / "tests" / "bad_inputs" / "scenario"
BAD_BATCHES = ROOT / "tests" / "bad_inputs" / "batch"
# Every example of the bundled statute given inline (payroll-csv.json names a file: refused).
NJ_EXAMPLES = sorted(EXAMPLES.glob("*.json")) + sorted(
    p for p in (EXAMPLES / "eligibility-period").glob("*.json") if p.name != "payroll-csv.json"
)
NSW_EXAMPLES = sorted((EXAMPLES / NSW_ID).glob("*.json"))
EXAMPLE = EXAMPLES / "distressed-manufacturer.json"


def cli(*args: str, stdin: bytes | None = None) -> tuple[int, str, str]:
    """Runs the command line in this process: its exit code, standard output and error."""
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin
    if stdin is not None:
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(args))
    finally:
        sys.stdin = saved
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def statutes() -> dict[str, Statute]:
    return {"nj-34-1b-343": load_statute(NJ), NSW_ID: load_statute(NSW)}


@pytest.fixture(scope="module")
def url(statutes: dict[str, Statute]) -> Iterator[str]:
    with running(create_app(statutes, Limits()), limit_concurrency=2000) as base:
        yield base


@pytest.fixture(scope="module")
def client(url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=url, timeout=30) as session:
        yield session


class Slow(Statute):
    """A statute whose evaluation takes longer than the limited server's time limit."""

    def evaluate(self, *args: object, **kwargs: object):  # type: ignore[no-untyped-def,override]
        time.sleep(1.5)
        return super().evaluate(*args, **kwargs)  # type: ignore[arg-type]


class Broken(Statute):
    """A statute whose evaluation fails as a bug would."""

    def evaluate(self, *args: object, **kwargs: object):  # type: ignore[no-untyped-def,override]
        raise RuntimeError("secret internals /etc/passwd")


@pytest.fixture(scope="module")
def limited(statutes: dict[str, Statute]) -> Iterator[str]:
    """A server with small limits: 2,000 bytes a scenario, 4,000 a batch, 0.8 s a request."""
    nj = statutes["nj-34-1b-343"]
    served = {"nj-34-1b-343": nj, "slow": Slow(nj.ast), "broken": Broken(nj.ast)}
    limits = Limits(max_body=2000, max_batch_body=4000, timeout=0.8)
    with running(create_app(served, limits)) as base:
        yield base


# ---- every endpoint -----------------------------------------------------------------------------
@pytest.mark.parametrize("path", NJ_EXAMPLES + NSW_EXAMPLES, ids=lambda p: p.name)
def test_evaluate_answers_what_the_command_prints(client: httpx.Client, path: Path) -> None:
    statute = NSW if path in NSW_EXAMPLES else NJ
    code, printed, err = cli("evaluate", str(path), "--format", "json", "-e", str(statute))
    assert code == 0, err
    query = {"trace": "true", **({"statute": NSW_ID} if statute == NSW else {})}
    answer = client.post("/v1/evaluate", params=query, content=path.read_bytes())
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("application/json")
    assert answer.text == printed  # byte for byte, trace included
    without = client.post(
        "/v1/evaluate", params={**query, "trace": "false"}, content=path.read_bytes()
    )
    expected = json.loads(printed)
    expected.pop("trace", None)
    for year in expected.get("years", []):
        year.pop("trace", None)
    assert without.json() == expected


def test_readings_are_selected_by_the_query(client: httpx.Client, statutes: dict) -> None:
    path = EXAMPLES / "labor-harmony-business-wide.json"
    scenario = json.loads(path.read_text(encoding="utf-8"))
    scenario.pop("readings", None)
    body = json.dumps(scenario)
    for option in ("covered-jobs", "business-wide"):
        answer = client.post("/v1/evaluate", params={"reading": f"I8={option}"}, content=body)
        assert answer.status_code == 200, answer.text
        assert answer.json()["readings"]["I8"] == option
        expected = statutes["nj-34-1b-343"].evaluate(json.loads(body), {"I8": option})
        assert answer.json() == expected.to_dict()
    code, printed, _ = cli(
        "evaluate", str(path), "--format", "json", "--reading", "I8=business-wide"
    )
    assert code == 0
    answer = client.post(
        "/v1/evaluate",
        params={"reading": "I8=business-wide", "trace": "true"},
        content=path.read_bytes(),
    )
    assert answer.text == printed
    for bad in ("I99=x", "I8=nonsense", "I8"):
        refused = client.post("/v1/evaluate", params={"reading": bad}, content=body)
        assert refused.status_code == 422, bad
        [problem] = refused.json()["error"]
        assert problem["field"] == "reading"
    unknown = client.post("/v1/evaluate", params={"reading": "I99=x"}, content=body).json()
    assert "unknown reading 'I99'" in unknown["error"][0]["given"]


def test_an_unknown_query_parameter_is_refused_with_a_suggestion(client: httpx.Client) -> None:
    body = EXAMPLE.read_bytes()
    answer = client.post("/v1/evaluate", params={"traces": "true"}, content=body)
    assert answer.status_code == 422
    (problem,) = answer.json()["error"]
    assert problem["field"] == "traces" and problem["given"] == "an unknown parameter"
    assert problem["hint"] == "did you mean 'trace'?"
    assert client.get("/v1/fields", params={"statue": "x"}).status_code == 422
    compressed = client.post("/v1/evaluate", content=body, headers={"Content-Encoding": "gzip"})
    assert compressed.status_code == 415 and "uncompressed" in compressed.json()["error"]
    # An explanation is always traced, but its `trace` is read as everywhere else.
    assert client.post("/v1/explain", params={"trace": "maybe"}, content=body).status_code == 422


def test_explain_gives_the_derivation_and_the_result(client: httpx.Client, statutes: dict) -> None:
    answer = client.post("/v1/explain", content=EXAMPLE.read_bytes())
    assert answer.status_code == 200
    body = answer.json()
    result = statutes["nj-34-1b-343"].evaluate(json.loads(EXAMPLE.read_text()), trace=True)
    assert body["explanation"] == result.explain()
    assert body["result"] == result.to_dict()
    code, printed, _ = cli("explain", str(EXAMPLE))
    assert code == 0 and body["explanation"] in printed
    nsw = NSW_EXAMPLES[0]
    other = client.post("/v1/explain", params={"statute": NSW_ID}, content=nsw.read_bytes())
    assert other.status_code == 200
    assert "Community Gaming Regulation 2020" in other.json()["explanation"]


def test_batch_streams_the_records_the_command_writes(client: httpx.Client, tmp_path: Path) -> None:
    lines = (EXAMPLES / "batch.jsonl").read_bytes().splitlines()
    mixed = (BAD_BATCHES / "mixed.jsonl").read_bytes().splitlines()
    body = b"\n".join([*lines, b"", b'{"new_jobs": ', b"\xff\xfe", *mixed, b"[1, 2]"]) + b"\n"
    file = tmp_path / "lines.jsonl"
    file.write_bytes(body)
    completed = lextrace_command("batch", str(file))  # writes to standard output's bytes
    code, printed = completed.returncode, completed.stdout
    assert code == 2  # bad lines
    answer = client.post("/v1/batch", content=body)
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("application/x-ndjson")
    assert answer.text == printed
    records = [json.loads(line) for line in answer.text.splitlines()]
    assert len(records) == body.count(b"\n")
    assert records[len(lines)] == {
        "line": len(lines) + 1,
        "error": [
            {"field": "<scenario>", "expected": "a JSON object of fields", "given": "a blank line"}
        ],
    }
    traced = client.post("/v1/batch", params={"trace": "true"}, content=b"\n".join(lines))
    completed = lextrace_command("batch", str(EXAMPLES / "batch.jsonl"), "--trace")
    assert completed.returncode == 0 and traced.text == completed.stdout
    nsw = b"\n".join(json.dumps(json.loads(p.read_bytes())).encode() for p in NSW_EXAMPLES)
    other = client.post("/v1/batch", params={"statute": NSW_ID}, content=nsw)
    assert [json.loads(x) for x in other.text.splitlines()] == [
        json.loads(
            client.post("/v1/evaluate", params={"statute": NSW_ID}, content=p.read_bytes()).text
        )
        for p in NSW_EXAMPLES
    ]
    assert client.post("/v1/batch", content=b"").text == ""


@pytest.mark.parametrize("statute_id", ["nj-34-1b-343", NSW_ID])
def test_fields_schema_and_statutes(client: httpx.Client, statute_id: str, statutes: dict) -> None:
    encoding = str(NJ if statute_id != NSW_ID else NSW)
    code, printed, _ = cli("fields", "--format", "json", "-e", encoding)
    assert code == 0
    assert client.get("/v1/fields", params={"statute": statute_id}).json() == json.loads(printed)
    code, printed, _ = cli("schema", "--inline-lists", "-e", encoding)
    assert code == 0
    assert client.get("/v1/schema", params={"statute": statute_id}).text == printed
    listed = client.get("/v1/statutes").json()
    assert listed["default"] == "nj-34-1b-343"
    [entry] = [s for s in listed["statutes"] if s["id"] == statute_id]
    statute = statutes[statute_id]
    assert entry["name"] == statute.name
    assert [r["id"] for r in entry["readings"]] == list(statute.ast.readings)
    for reading in entry["readings"]:
        declared = statute.ast.readings[reading["id"]]
        assert reading["default"] == declared.default.name
        assert [o["name"] for o in reading["options"]] == [o.name for o in declared.options]


def test_health_and_openapi(client: httpx.Client) -> None:
    assert client.get("/healthz").json() == {"status": "ok", "statutes": ["nj-34-1b-343", NSW_ID]}
    document = json.loads(client.get("/openapi.json").text)
    assert document["openapi"].startswith("3.1")
    routes = {
        "/v1/evaluate": "post",
        "/v1/explain": "post",
        "/v1/batch": "post",
        "/v1/statutes": "get",
        "/v1/fields": "get",
        "/v1/schema": "get",
        "/healthz": "get",
        "/openapi.json": "get",
    }
    assert set(document["paths"]) == set(routes)
    for path, method in routes.items():
        operation = document["paths"][path][method]
        assert "200" in operation["responses"] and operation["summary"]
    evaluate = document["paths"]["/v1/evaluate"]["post"]
    assert {p["name"] for p in evaluate["parameters"]} == {"statute", "reading", "trace"}
    assert {"400", "413", "422"} <= set(evaluate["responses"])
    assert document["paths"]["/v1/evaluate"]["post"]["parameters"][0]["schema"]["enum"] == [
        "nj-34-1b-343",
        NSW_ID,
    ]


# ---- the error contract -------------------------------------------------------------------------
def rendered(problem: dict[str, str]) -> str:
    return FieldProblem(problem["field"], problem["expected"], problem["given"]).render()


@pytest.mark.parametrize("path", sorted(BAD_SCENARIOS.glob("*.json")), ids=lambda p: p.name)
def test_a_bad_scenario_is_refused_as_the_command_refuses_it(
    client: httpx.Client, path: Path
) -> None:
    raw = path.read_bytes()
    code, _, err = cli("evaluate", "-", "--format", "json", stdin=raw)
    assert code == 2, err
    # One line per problem; the command's closing note on the encoding is not a problem.
    lines = [line for line in err.splitlines() if not line.startswith("lextrace: read against")]
    said = [line.removeprefix("<stdin>: ") for line in lines]
    answer = client.post("/v1/evaluate", content=raw)
    assert "Traceback" not in answer.text
    problems = answer.json()["error"]
    unreadable = all(p["field"] == "<file>" for p in problems)
    assert answer.status_code == (400 if unreadable else 422), answer.text
    # The same problems, in the same order: each as the command prints it (which may add a hint).
    assert len(problems) == len(said), (problems, said)
    for problem, line in zip(problems, said, strict=True):
        text = rendered(problem)
        assert line == text or line.startswith(text + " ("), (line, text)


def test_bad_json_is_400_with_its_line_and_column(client: httpx.Client) -> None:
    answer = client.post("/v1/evaluate", content=b'{\n  "new_jobs": 300,\n  oops\n}')
    assert answer.status_code == 400
    [problem] = answer.json()["error"]
    assert problem["field"] == "<file>" and problem["expected"] == "valid JSON"
    assert "line 3 column 3" in problem["given"]
    for endpoint in ("/v1/evaluate", "/v1/explain"):
        assert client.post(endpoint, content=b"[1,").status_code == 400
        assert client.post(endpoint, content=b"").status_code == 400
        assert client.post(endpoint, content=b"[1]").status_code == 422


def test_a_reading_the_scenario_contradicts_is_422(client: httpx.Client) -> None:
    scenario = json.loads(EXAMPLE.read_text())
    scenario["readings"] = {"I8": "covered-jobs"}
    answer = client.post("/v1/evaluate", params={"reading": "I8=business-wide"}, json=scenario)
    assert answer.status_code == 422
    assert answer.json()["error"][0]["field"] == "readings.I8"


def test_a_list_given_as_a_path_is_refused_and_never_read(client: httpx.Client) -> None:
    path = EXAMPLES / "eligibility-period" / "payroll-csv.json"
    code, _, err = cli("evaluate", str(path), "--format", "json")
    assert code == 0, err  # the command reads the CSV it names
    scenario = json.loads(path.read_text())
    scenario["full_time_jobs"] = str(path.parent / scenario["full_time_jobs"])  # an absolute path
    for body in (scenario, {**scenario, "full_time_jobs": "payroll-2024.csv"}):
        answer = client.post("/v1/evaluate", json=body)
        assert answer.status_code == 422
        [problem] = [p for p in answer.json()["error"] if p["field"] == "full_time_jobs"]
        assert "given inline" in problem["expected"]
    periods = json.loads((EXAMPLES / "eligibility-period" / "seven-year-payroll.json").read_text())
    periods["eligibility_period"][0]["full_time_jobs"] = str(path.parent / "payroll-2024.csv")
    answer = client.post("/v1/evaluate", json=periods)
    assert answer.status_code == 422
    fields = [p["field"] for p in answer.json()["error"]]
    assert "eligibility_period[0].full_time_jobs" in fields
    line = json.dumps(scenario).encode()
    batch = client.post("/v1/batch", content=line + b"\n" + line)
    records = [json.loads(x) for x in batch.text.splitlines()]
    assert [r["line"] for r in records] == [1, 2]
    assert all(any(p["field"] == "full_time_jobs" for p in r["error"]) for r in records)


def test_unknown_routes_statutes_and_methods(client: httpx.Client) -> None:
    for method, path in (("GET", "/nowhere"), ("POST", "/v2/evaluate"), ("GET", "/")):
        answer = client.request(method, path)
        assert answer.status_code == 404 and "error" in answer.json()
    answer = client.post(
        "/v1/evaluate", params={"statute": "no-such"}, content=EXAMPLE.read_bytes()
    )
    assert answer.status_code == 404
    assert answer.json()["statutes"] == ["nj-34-1b-343", NSW_ID]
    assert client.get("/v1/fields", params={"statute": "no-such"}).status_code == 404
    for method, path in (("GET", "/v1/evaluate"), ("PUT", "/v1/batch"), ("POST", "/healthz")):
        answer = client.request(method, path)
        assert answer.status_code == 405
        assert "error" in answer.json() and answer.headers["allow"]


def test_a_body_past_the_limit_is_413(limited: str) -> None:
    big = json.dumps({"new_jobs": 1, "padding": "x" * 5000})
    with httpx.Client(base_url=limited, timeout=10) as session:
        answer = session.post("/v1/evaluate", content=big)
        assert answer.status_code == 413
        assert answer.json()["error"][0]["expected"] == "at most 2,000 bytes"

        def pieces() -> Iterator[bytes]:  # no Content-Length: counted while it arrives
            for start in range(0, len(big), 500):
                yield big[start : start + 500].encode()

        assert session.post("/v1/explain", content=pieces()).status_code == 413
        assert session.post("/v1/batch", content=(big + "\n").encode()).status_code == 413
        small = session.post("/v1/batch", content=EXAMPLE.read_text().replace("\n", "").encode())
        assert small.status_code == 200  # a batch has its own, larger limit
        assert session.post("/v1/evaluate", content=EXAMPLE.read_bytes()).status_code == 200


def test_a_request_past_the_time_limit_and_an_internal_error(limited: str) -> None:
    with httpx.Client(base_url=limited, timeout=10) as session:
        started = time.monotonic()
        answer = session.post(
            "/v1/evaluate", params={"statute": "slow"}, content=EXAMPLE.read_bytes()
        )
        assert answer.status_code == 504
        assert time.monotonic() - started < 1.4  # it did not wait for the evaluation
        assert "within 0.8 s" in answer.json()["error"]
        broken = session.post(
            "/v1/evaluate", params={"statute": "broken"}, content=EXAMPLE.read_bytes()
        )
        assert broken.status_code == 500
        assert broken.json() == {"error": "internal error"}
    # A body that takes longer than the limit to arrive is given up on.
    with raw_request(limited, "/v1/evaluate", EXAMPLE.read_bytes(), seconds=1.6) as answer:
        assert answer.startswith(b"HTTP/1.1 408"), answer[:200]


# ---- concurrency --------------------------------------------------------------------------------
def test_a_thousand_concurrent_requests_each_get_their_own_answer(url: str, statutes: dict) -> None:
    cases: list[tuple[dict[str, str], bytes, int, str]] = []
    for path in NJ_EXAMPLES[:12]:
        body = path.read_bytes()
        expected = statutes["nj-34-1b-343"].evaluate(json.loads(body)).to_json_text(indent=2) + "\n"
        cases.append(({}, body, 200, expected))
    for path in NSW_EXAMPLES:
        body = path.read_bytes()
        expected = statutes[NSW_ID].evaluate(json.loads(body)).to_json_text(indent=2) + "\n"
        cases.append(({"statute": NSW_ID}, body, 200, expected))
    bad = (BAD_SCENARIOS / "several-problems.json").read_bytes()
    cases.append(({}, bad, 422, ""))
    plain = json.loads(EXAMPLE.read_text())
    wide = statutes["nj-34-1b-343"].evaluate(plain, {"I8": "business-wide"})
    cases.append(
        (
            {"reading": "I8=business-wide"},
            json.dumps(plain).encode(),
            200,
            wide.to_json_text(indent=2) + "\n",
        )
    )
    chosen = random.Random(7).choices(range(len(cases)), k=1000)

    async def all_of_them() -> list[httpx.Response]:
        limits = httpx.Limits(max_connections=32, max_keepalive_connections=32)
        async with httpx.AsyncClient(base_url=url, limits=limits, timeout=60) as session:
            return await asyncio.gather(
                *(
                    session.post("/v1/evaluate", params=cases[i][0], content=cases[i][1])
                    for i in chosen
                )
            )

    answers = asyncio.run(all_of_them())
    assert len(answers) == 1000
    for index, answer in zip(chosen, answers, strict=True):
        _, _, status, expected = cases[index]
        assert answer.status_code == status
        if status == 200:
            assert answer.text == expected
        else:
            assert {p["field"] for p in answer.json()["error"]} == {
                "foo",
                "new_jobs",
                "small_business",
            }


@contextlib.contextmanager
def raw_request(base: str, path: str, body: bytes, seconds: float) -> Iterator[bytes]:
    """Sends a POST on a raw socket, its body one byte at a time spread over `seconds`, and
    yields the whole answer."""
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        head = (
            f"POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        )
        sock.sendall(head.encode())
        pause = seconds / len(body)
        try:
            for byte in body:
                sock.sendall(bytes([byte]))
                time.sleep(pause)
        except OSError:  # the server gave up on it and closed
            pass
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
        yield b"".join(chunks)


def test_a_slow_client_does_not_hold_up_the_others(url: str, client: httpx.Client) -> None:
    body = EXAMPLE.read_bytes()
    expected = client.post("/v1/evaluate", content=body).text
    done: list[bytes] = []
    sending = threading.Event()

    def slowly() -> None:
        sending.set()
        with raw_request(url, "/v1/evaluate", body, seconds=3.0) as answer:
            done.append(answer)

    slow = threading.Thread(target=slowly)
    slow.start()
    sending.wait()
    time.sleep(0.2)
    started = time.monotonic()
    for _ in range(20):
        assert client.post("/v1/evaluate", content=body).text == expected
    took = time.monotonic() - started
    assert not done, "the slow client finished first: the test proves nothing"
    assert took < 2.0, took
    slow.join(timeout=20)
    head, _, answer = done[0].partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200")
    assert answer.decode() == expected


# ---- the command --------------------------------------------------------------------------------
def test_serve_says_how_to_install_what_it_needs(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec

    def missing(name: str, *args: object) -> object:
        return None if name == "uvicorn" else real(name, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(importlib.util, "find_spec", missing)
    code, out, err = cli("serve", "--port", "0")
    assert code == 2
    assert "pip install 'lextrace[serve]'" in err
    assert "Traceback" not in err and out == ""


def test_serve_refuses_two_encodings_of_one_id() -> None:
    code, _, err = cli("serve", "-e", str(NJ), "-e", str(NJ))
    assert code == 2
    assert "served as 'nj-34-1b-343'" in err


def test_the_command_serves_its_encodings_until_stopped() -> None:
    import signal
    import subprocess

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [sys.executable, "-m", "lextrace", "serve", "--port", str(port), "-e", str(NJ)]
    server = subprocess.Popen(
        [*command, "-e", str(NSW), "--no-access-log"], stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                health = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1)
                break
            except httpx.HTTPError:
                assert server.poll() is None and time.monotonic() < deadline
                time.sleep(0.1)
        assert health.json() == {"status": "ok", "statutes": ["nj-34-1b-343", NSW_ID]}
        answer = httpx.post(f"http://127.0.0.1:{port}/v1/evaluate", content=EXAMPLE.read_bytes())
        assert answer.status_code == 200
    finally:
        server.send_signal(signal.SIGTERM)
        _, err = server.communicate(timeout=30)
    assert server.returncode == 128 + signal.SIGTERM
    assert "Traceback" not in err
    assert f"serving nj-34-1b-343, {NSW_ID} on http://127.0.0.1:{port}" in err
