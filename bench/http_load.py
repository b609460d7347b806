"""The team server under load: 8 clients querying at once while one ingests, over real HTTP.

A ``minirag-mcp --transport http`` subprocess on 127.0.0.1 (free port, bearer tokens on,
the real offline model) indexes SciFact abstracts (``--docs``, synced from files first).
Then 8 fastmcp clients, each with its own session and the full-access token, run
``query_documents`` on SciFact test claims until ``--queries`` calls are done in all,
while a ninth client ingests further abstracts with ``ingest_data``, one after another,
until the queries end. Every call must succeed (a failed call exits 1).

Prints p50/p95 of a query as the client sees it (HTTP + auth + search + embedding) and
queries/s over the whole run, as a table, and writes them to bench/results/http_load.json.
The clients run in this process: on a small machine they share the CPU with the server.

    uv run python bench/http_load.py [--clients 8] [--queries 2000] [--docs 500]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from fastmcp import Client
from minirag_testkit import model_env
from results_io import provenance, write_json

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "beir_scifact"
RESULTS = Path(__file__).resolve().parent / "results" / "http_load.json"


def free_port() -> int:
    """A TCP port free on 127.0.0.1 (the OS picks it)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(env: dict[str, str], port: int, log: Path) -> subprocess.Popen[bytes]:
    """The installed console script on 127.0.0.1:port; returns once it listens."""
    script = Path(sys.executable).with_name("minirag-mcp")
    keep = {k: os.environ[k] for k in ("PATH", "HOME", "LANG", "TMPDIR") if k in os.environ}
    proc = subprocess.Popen(
        [str(script), "--transport", "http", "--port", str(port)],
        env={**keep, **env},
        stdout=subprocess.DEVNULL,
        stderr=log.open("w"),
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return proc
        if proc.poll() is not None:
            raise SystemExit(f"server exited {proc.returncode}:\n{log.read_text()}")
        time.sleep(0.1)
    proc.kill()
    raise SystemExit("server never listened")


def pct(values: list[float], q: float) -> float:
    """The q-quantile of ``values`` (seconds) in ms."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


async def sync_all(url: str, token: str) -> dict:
    """Index the document folder through the server; the finished job's status."""
    async with Client(url, auth=token, timeout=600) as client:
        started = (await client.call_tool("sync_start", {})).structured_content or {}
        while True:
            status = (
                await client.call_tool("sync_status", {"jobId": started["jobId"]})
            ).structured_content or {}
            if status["state"] not in ("pending", "running"):
                return status
            await asyncio.sleep(0.5)


async def query_client(
    url: str, token: str, claims: list[str], todo: list[int], latencies: list[float]
) -> int:
    """Query until the shared budget ``todo[0]`` runs out; the number of failed calls."""
    failed = 0
    async with Client(url, auth=token, timeout=120) as client:
        i = 0
        while todo[0] > 0:
            todo[0] -= 1
            start = time.perf_counter()
            result = await client.call_tool(
                "query_documents", {"query": claims[i % len(claims)]}, raise_on_error=False
            )
            latencies.append(time.perf_counter() - start)
            hits = (result.structured_content or {}).get("results")
            failed += bool(result.is_error or not hits)
            i += 7  # each client walks the claims in its own order
    return failed


async def ingest_client(
    url: str, token: str, docs: list[dict], stop: asyncio.Event, latencies: list[float]
) -> int:
    """Ingest ``docs`` one by one until ``stop``; the number of failed calls."""
    failed = 0
    async with Client(url, auth=token, timeout=120) as client:
        for doc in docs:
            if stop.is_set():
                break
            start = time.perf_counter()
            result = await client.call_tool(
                "ingest_data",
                {"data": doc["text"], "source": f"scifact/{doc['_id']}", "title": doc["title"]},
                raise_on_error=False,
            )
            latencies.append(time.perf_counter() - start)
            failed += bool(result.is_error)
    return failed


async def load(url: str, token: str, args: argparse.Namespace, claims, extra) -> dict:
    """The concurrent phase: ``args.clients`` query clients and one ingesting client."""
    query_ms: list[float] = []
    ingest_ms: list[float] = []
    todo = [args.queries]
    stop = asyncio.Event()
    start = time.perf_counter()
    ingesting = asyncio.create_task(ingest_client(url, token, extra, stop, ingest_ms))
    failures = await asyncio.gather(
        *(query_client(url, token, claims, todo, query_ms) for _ in range(args.clients))
    )
    elapsed = time.perf_counter() - start
    stop.set()
    ingest_failed = await ingesting
    return {
        "clients": args.clients,
        "queries": len(query_ms),
        "failed_queries": sum(failures),
        "query_p50_ms": round(pct(query_ms, 0.5), 1),
        "query_p95_ms": round(pct(query_ms, 0.95), 1),
        "query_mean_ms": round(statistics.fmean(query_ms) * 1000, 1),
        "queries_per_s": round(len(query_ms) / elapsed, 1),
        "seconds": round(elapsed, 1),
        "ingested_meanwhile": len(ingest_ms),
        "failed_ingests": ingest_failed,
        "ingest_p50_ms": round(pct(ingest_ms, 0.5), 1) if ingest_ms else None,
    }


def main() -> None:
    """Index, load, print the table, write the JSON; exit 1 on any failed call."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--docs", type=int, default=500, help="abstracts synced before the load")
    args = parser.parse_args()
    corpus = [json.loads(line) for line in (DATA / "corpus.jsonl").open()]
    claims = [json.loads(line)["text"] for line in (DATA / "queries_test.jsonl").open()]
    work = Path(tempfile.mkdtemp(prefix="minirag-http-load-"))
    (work / "docs").mkdir()
    for doc in corpus[: args.docs]:
        (work / "docs" / f"{doc['_id']}.md").write_text(
            f"# {doc['title']}\n\n{doc['text']}\n", encoding="utf-8"
        )
    token = secrets.token_urlsafe(32)
    env = {
        **model_env(),
        "BASE_DIR": str(work / "docs"),
        "DB_PATH": str(work / "index"),
        "RAG_HTTP_TOKENS": token,
    }
    meta = provenance()  # load average before: other work on the machine skews every figure
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    server = start_server(env, port, work / "server.log")
    try:
        t0 = time.perf_counter()
        synced = asyncio.run(sync_all(url, token))
        sync_s = time.perf_counter() - t0
        if synced["state"] != "succeeded":
            raise SystemExit(f"sync failed: {synced}")
        result = asyncio.run(load(url, token, args, claims, corpus[args.docs :]))
    finally:
        server.terminate()
        server.wait(30)
    result = {
        "docs_synced_before": args.docs,
        "sync_s": round(sync_s, 1),
        **result,
    }
    print(
        f"\n{args.clients} clients querying over HTTP (bearer token) while 1 ingests; "
        f"{args.docs} SciFact abstracts synced first\n"
    )
    print("| queries | failed | p50 ms | p95 ms | queries/s | ingested meanwhile | failed |")
    print("|---|---|---|---|---|---|---|")
    print(
        f"| {result['queries']:,} | {result['failed_queries']} | {result['query_p50_ms']} | "
        f"{result['query_p95_ms']} | {result['queries_per_s']} | "
        f"{result['ingested_meanwhile']} | {result['failed_ingests']} |"
    )
    write_json(RESULTS, result, meta)
    print(f"\nwritten to {RESULTS}")
    if result["failed_queries"] or result["failed_ingests"]:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
