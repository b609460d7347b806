"""Query latency and bytes read per query: a local index vs the same index on S3 (loopback).

The S3 side is moto's server on 127.0.0.1 behind a counting reverse proxy of ours (also on
loopback) that forwards every request and counts the response bytes the index reads: what a
query costs in transfer is measured, not estimated. The local side's bytes are the
process's ``rchar`` (bytes returned by read calls, /proc/self/io) across the query.

Both indexes hold the same documents (SciFact abstracts, or generated text when the shared
data is absent), synced with the same model; queries are SciFact test claims. Per index:

* cold: the first query of a fresh process-like Index (opens the table, loads the vector
  snapshot, the keyword index);
* warm: p50 latency and bytes of the next queries (the model's query embedding included);
* after a commit: the first query after another writer's commit (the snapshot reload).

    uv run python bench/remote.py [--docs 600] [--queries 60]
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from minirag_store import Index
from minirag_store.config import load_config
from minirag_testkit import model_env
from results_io import provenance, write_json

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "beir_scifact"
RESULTS = Path(__file__).resolve().parent / "results" / "remote.json"
BUCKET = "minirag-bench"


class Counter:
    """Requests and response bytes through the proxy."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.requests = 0
        self.bytes = 0

    def add(self, size: int) -> None:
        with self.lock:
            self.requests += 1
            self.bytes += size

    def take(self) -> tuple[int, int]:
        with self.lock:
            out = (self.requests, self.bytes)
            self.requests = self.bytes = 0
            return out


def start_proxy(upstream: int, counter: Counter) -> ThreadingHTTPServer:
    """A loopback reverse proxy to ``127.0.0.1:upstream`` counting response bytes."""
    local = threading.local()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:
            pass

        def _forward(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            conn = getattr(local, "conn", None)
            if conn is None:
                conn = local.conn = http.client.HTTPConnection("127.0.0.1", upstream, timeout=60)
            headers = {k: v for k, v in self.headers.items() if k.lower() != "connection"}
            conn.request(self.command, self.path, body=body, headers=headers)
            answer = conn.getresponse()
            data = answer.read()
            self.send_response(answer.status)
            for key, value in answer.getheaders():
                if key.lower() not in ("transfer-encoding", "connection", "content-length"):
                    self.send_header(key, value)
            if self.command == "HEAD":
                self.send_header("Content-Length", answer.getheader("Content-Length") or "0")
            else:
                self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)
            counter.add(len(data))

        def do_GET(self) -> None:
            self._forward()

        def do_HEAD(self) -> None:
            self._forward()

        def do_PUT(self) -> None:
            self._forward()

        def do_POST(self) -> None:
            self._forward()

        def do_DELETE(self) -> None:
            self._forward()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def rchar() -> int:
    """Bytes this process has read through read calls so far."""
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("rchar:"):
            return int(line.split()[1])
    return 0


def corpus(limit: int) -> tuple[dict[str, str], list[str]]:
    """``(relative path -> markdown, queries)``."""
    if (DATA / "corpus.jsonl").exists():
        docs = {}
        with (DATA / "corpus.jsonl").open(encoding="utf-8") as lines:
            for line in lines:
                doc = json.loads(line)
                docs[f"doc{doc['_id']}.md"] = f"# {doc['title']}\n\n{doc['text']}\n"
                if len(docs) >= limit:
                    break
        queries = [json.loads(line)["text"] for line in (DATA / "queries_test.jsonl").open()]
        if not queries:
            queries = [json.loads(line)["text"] for line in (DATA / "queries.jsonl").open()]
        return docs, queries
    words = ["lighthouse", "keeper", "logbook", "harbour", "tide", "storm", "lamp", "ship"]
    docs = {
        f"gen{i:05d}.md": f"# Note {i}\n\n"
        + " ".join(words[(i * 7 + k) % len(words)] for k in range(120))
        for i in range(limit)
    }
    return docs, [f"{words[i % 8]} {words[(i * 3) % 8]} report" for i in range(200)]


def measure(index: Index, queries: list[str], take) -> dict:
    """Cold, warm and after-commit figures of one index."""
    take()
    started = time.perf_counter()
    index.query(queries[0], top_k=8)
    cold_ms = (time.perf_counter() - started) * 1000
    cold_req, cold_bytes = take()
    times, sizes, reqs = [], [], []
    for text in queries[1:]:
        take()
        started = time.perf_counter()
        index.query(text, top_k=8)
        times.append((time.perf_counter() - started) * 1000)
        req, size = take()
        sizes.append(size)
        reqs.append(req)
    return {
        "cold_ms": round(cold_ms, 1),
        "cold_bytes": cold_bytes,
        "cold_requests": cold_req,
        "p50_ms": round(statistics.median(times), 1),
        "p95_ms": round(statistics.quantiles(times, n=20)[18], 1),
        "bytes_p50": int(statistics.median(sizes)),
        "bytes_mean": int(statistics.mean(sizes)),
        "requests_p50": int(statistics.median(reqs)),
    }


def after_commit(reader: Index, writer: Index, query: str, take) -> dict:
    """The first query after another Index's commit (the reader reloads its snapshot)."""
    writer.ingest_data("A late note about lighthouse lamps.", "notes/late", "text")
    time.sleep(0.3)  # past the reader's cached latest version (0.25 s)
    take()
    started = time.perf_counter()
    reader.query(query, top_k=8)
    ms = (time.perf_counter() - started) * 1000
    req, size = take()
    return {
        "after_commit_ms": round(ms, 1),
        "after_commit_bytes": size,
        "after_commit_requests": req,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--docs", type=int, default=600)
    parser.add_argument("--queries", type=int, default=60)
    args = parser.parse_args()
    meta = provenance()  # load average before: other work on the machine skews every figure

    import boto3
    from moto.server import ThreadedMotoServer

    moto = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    moto.start()
    counter = Counter()
    proxy = start_proxy(moto.get_host_and_port()[1], counter)
    endpoint = f"http://127.0.0.1:{proxy.server_address[1]}"
    s3_options = {
        "aws_access_key_id": "bench",
        "aws_secret_access_key": "bench",
        "aws_region": "us-east-1",
        "aws_endpoint": endpoint,
        "allow_http": "true",
    }
    boto3.client(
        "s3", endpoint_url=endpoint, region_name="us-east-1",
        aws_access_key_id="bench", aws_secret_access_key="bench",
    ).create_bucket(Bucket=BUCKET)  # fmt: skip

    docs, queries = corpus(args.docs)
    queries = queries[: args.queries + 1]
    with tempfile.TemporaryDirectory(prefix="minirag-remote-") as tmp:
        root = Path(tmp) / "docs"
        root.mkdir()
        for name, text in docs.items():
            (root / name).write_text(text, encoding="utf-8")
        base = {**model_env(), "BASE_DIR": str(root)}
        local_env = {**base, "DB_PATH": str(Path(tmp) / "db")}
        remote_env = {**base, "DB_PATH": f"s3://{BUCKET}/idx"}
        remote_env["DB_STORAGE_OPTIONS"] = json.dumps(s3_options)
        builder = Index.open(local_env)
        model = builder.embedder()
        started = time.perf_counter()
        builder.sync()
        local_sync_s = time.perf_counter() - started
        remote_builder = Index(load_config(remote_env), embedder=model)
        counter.take()
        started = time.perf_counter()
        remote_builder.sync()
        remote_sync_s = time.perf_counter() - started
        _, sync_bytes = counter.take()
        chunks = builder.status().get("chunkCount", 0)

        last_rchar = [rchar()]

        def local_take() -> tuple[int, int]:
            now = rchar()
            delta, last_rchar[0] = now - last_rchar[0], now
            return 0, delta

        rows = {}
        for name, env, take in (
            ("local", local_env, local_take),
            ("s3 (moto, loopback)", remote_env, counter.take),
        ):
            reader = Index(load_config(env), embedder=model)
            figures = measure(reader, queries, take)
            writer = Index(load_config(env), embedder=model)
            figures |= after_commit(reader, writer, queries[1], take)
            reader.close()
            writer.close()
            rows[name] = figures
        builder.close()
        remote_builder.close()
    proxy.shutdown()
    moto.stop()

    header = ["index", "p50 ms", "p95 ms", "bytes/query p50", "req/query", "cold ms",
              "cold bytes", "after-commit ms", "after-commit bytes"]  # fmt: skip
    print(f"{len(docs)} documents, {chunks} chunks, {len(queries) - 1} warm queries")
    print(f"sync: local {local_sync_s:.1f} s, s3 {remote_sync_s:.1f} s ({sync_bytes:,} bytes read)")
    print(" | ".join(header))
    for name, f in rows.items():
        print(" | ".join([name, str(f["p50_ms"]), str(f["p95_ms"]), f"{f['bytes_p50']:,}",
                          str(f["requests_p50"]), str(f["cold_ms"]), f"{f['cold_bytes']:,}",
                          str(f["after_commit_ms"]), f"{f['after_commit_bytes']:,}"]))  # fmt: skip
    figures = {
        "documents": len(docs),
        "chunks": chunks,
        "warm_queries": len(queries) - 1,
        "sync_seconds": {"local": round(local_sync_s, 1), "s3": round(remote_sync_s, 1)},
        "local_bytes_note": "the process's rchar: bytes of read calls (mmap reads not counted)",
        "indexes": rows,
    }
    write_json(RESULTS, figures, meta)
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
