"""The service's throughput: `/v1/evaluate` over HTTP beside `Statute.evaluate` in process.

    python -m benchmarks.serve                      # 5,000 requests, 32 connections
    python -m benchmarks.serve --requests 20000 --connections 64

The server is the installed `lextrace serve` command in a process of its own (as deployed, one
worker); the client is a minimal HTTP/1.1 client on asyncio in this process, each connection kept
alive, the
bundled examples sent in turn. Prints requests per second, the median and 95th percentile
latency, and the in-process time of `Statute.evaluate` (with and without writing its JSON) on
the same scenarios.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
EXAMPLES = HERE.parent / "examples"


def free_port() -> int:
    """Returns a port of 127.0.0.1 that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_for(url: str, seconds: float = 60) -> None:
    """Waits until the server answers /healthz."""
    import httpx

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise SystemExit("the server did not start")


async def load(url: str, bodies: list[bytes], requests: int, connections: int) -> list[float]:
    """Sends `requests` evaluations over `connections` kept-alive connections; returns each
    latency. The client is a few lines of HTTP/1.1 on asyncio streams, so that it costs far less
    than the server it measures (httpx's pool, on the same CPUs, would be the bottleneck)."""
    host, port = url.removeprefix("http://").split(":")
    latencies: list[float] = []
    remaining = [requests]
    requests_bytes = [
        (
            f"POST /v1/evaluate HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        ).encode()
        + body
        for body in bodies
    ]

    async def worker(offset: int) -> None:
        reader, writer = await asyncio.open_connection(host, int(port))
        try:
            while remaining[0] > 0:
                remaining[0] -= 1
                index = remaining[0] + offset
                started = time.perf_counter()
                writer.write(requests_bytes[index % len(requests_bytes)])
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value)
                await reader.readexactly(length)
                latencies.append(time.perf_counter() - started)
                if not head.startswith(b"HTTP/1.1 200"):
                    raise SystemExit(f"answer {head[:40]!r}")
        finally:
            writer.close()

    await asyncio.gather(*(worker(n) for n in range(connections)))
    return latencies


def in_process(bodies: list[bytes], calls: int) -> tuple[float, float]:
    """The median seconds of `Statute.evaluate` and of evaluate + `to_json_text(indent=2)`."""
    from lextrace import load_statute
    from lextrace.dsl.scenario import parse_text

    statute = load_statute()
    scenarios = [parse_text(body.decode(), "json", "<bench>") for body in bodies]
    plain, written = [], []
    for index in range(calls):
        scenario = scenarios[index % len(scenarios)]
        started = time.perf_counter()
        result = statute.evaluate(scenario)  # type: ignore[arg-type]
        middle = time.perf_counter()
        result.to_json_text(indent=2)
        ended = time.perf_counter()
        plain.append(middle - started)
        written.append(ended - started)
    return statistics.median(plain), statistics.median(written)


def main() -> None:
    """Runs the benchmark and prints its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=5000)
    parser.add_argument("--connections", type=int, default=32)
    options = parser.parse_args()
    bodies = [path.read_bytes() for path in sorted(EXAMPLES.glob("*.json"))]
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    command = [sys.executable, "-m", "lextrace", "serve", "--port", str(port), "--no-access-log"]
    server = subprocess.Popen(command, stderr=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    try:
        wait_for(url)
        asyncio.run(load(url, bodies, 200, options.connections))  # warm up
        started = time.perf_counter()
        latencies = asyncio.run(load(url, bodies, options.requests, options.connections))
        elapsed = time.perf_counter() - started
    finally:
        server.terminate()
        server.wait(timeout=30)
    evaluate, with_json = in_process(bodies, options.requests)
    latencies.sort()
    figures = {
        "requests": options.requests,
        "connections": options.connections,
        "requests_per_second": round(options.requests / elapsed, 1),
        "median_latency_ms": round(statistics.median(latencies) * 1000, 2),
        "p95_latency_ms": round(latencies[int(len(latencies) * 0.95)] * 1000, 2),
        "in_process_evaluate_ms": round(evaluate * 1000, 3),
        "in_process_evaluate_and_json_ms": round(with_json * 1000, 3),
    }
    print(
        f"/v1/evaluate over HTTP: {options.requests:,} requests, {options.connections} connections"
    )
    print(f"  {figures['requests_per_second']:,} requests per second")
    print(
        f"  latency: median {figures['median_latency_ms']} ms, p95 {figures['p95_latency_ms']} ms"
    )
    print("Statute.evaluate in process, median of the same scenarios")
    print(
        f"  {figures['in_process_evaluate_ms']} ms (with its JSON text: "
        f"{figures['in_process_evaluate_and_json_ms']} ms)"
    )
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
