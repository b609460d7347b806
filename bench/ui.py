"""The web page's search at 100k chunks: server time and page weight, beside the MCP query.

The index is built as bench/scale.py builds its tables: real SciFact and NFCorpus chunks
(``--base-docs`` of each, embedded once by the product's writer with the offline model and
cached under ``--cache``), cycled to ``--size`` rows under distinct source paths with
noisy copies of their real vectors, every index built once (``maintain()``), ANN on as
the default ``RAG_ANN_MIN_CHUNKS`` decides. Then, in this process, one warmed-up Index
answers ``--queries`` real queries three ways, each timed end to end:

* ``mcp query``: ``Index.query(q)`` with the MCP tool's defaults (topK 8, fitted to
  RAG_MAX_RESPONSE_TOKENS): what ``query_documents`` costs before its JSON goes out;
* ``page query``: ``Index.query(q, top_k=10, max_tokens=0)``: the call the page makes;
* ``search page``: ``GET /?q=...`` from the page served by uvicorn on 127.0.0.1 in its
  own process (warmed up, as a server is), an httpx client with keep-alive: the query,
  the markdown rendering and the template, as a browser waits for it.

The Index timings run in this process, the page in the server's, one after the other,
each after an untimed pass of the same queries (both warm, as a server that has been
answering a while).
Note that the table's rows are copies of a few thousand chunks: a search's ten hits are
often copies of one passage, so the HTML compresses far better than a real index's.

Page weight: the bytes of a search's HTML (median over the queries) plus the CSS and
the script a first visit also fetches (a later search reuses them from the cache), raw and
as gzip would send them (the page is served uncompressed; a proxy may compress).

    uv run python bench/ui.py [--size 100000] [--queries 100] [--base-docs 1000]
                              [--cache /tmp/minirag-scale]

Writes bench/results/ui.json beside the table it prints.
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import scale
from results_io import provenance, write_json

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "ui.json"


def _percentiles(ms: list[float]) -> dict[str, float]:
    ordered = sorted(ms)
    return {
        "p50_ms": round(statistics.median(ordered), 1),
        "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))], 1),
    }


def _timed(call, queries: list[str]) -> list[float]:
    out = []
    for q in queries:
        start = time.perf_counter()
        call(q)
        out.append((time.perf_counter() - start) * 1000)
    return out


SERVER = r"""
import json, sys
import uvicorn
from minirag_store import Index
from minirag_web.access import OpenGate
from minirag_web.app import create_app
from minirag_web.local import bind

index = Index.open(json.loads(sys.argv[1]))
index.warm_up()
sock = bind(0)
print(sock.getsockname()[1], flush=True)
config = uvicorn.Config(create_app(index, OpenGate()), log_level="warning", lifespan="off")
uvicorn.Server(config).run(sockets=[sock])
"""


def _serve(env: dict[str, str]) -> tuple[str, subprocess.Popen]:
    """The page over ``env``'s index in its own process (as deployed: the client's work
    shares no interpreter with it), warmed up; its base URL and the process."""
    proc = subprocess.Popen(
        [sys.executable, "-c", SERVER, json.dumps(env)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    port = int(proc.stdout.readline())
    return f"http://127.0.0.1:{port}", proc


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--base-docs", type=int, default=1000, help="documents per corpus")
    parser.add_argument("--noise", type=float, default=0.03)
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "minirag-scale")
    args = parser.parse_args()
    meta = provenance()

    from minirag_store import Index
    from minirag_testkit import model_env

    base = scale.base_rows(args.base_docs, args.cache)
    work = Path(tempfile.mkdtemp(prefix="minirag-ui-bench-"))
    try:
        db = work / "db"
        start = time.perf_counter()
        scale.write_table(db, base, args.size, args.noise)
        env = {**model_env(), "BASE_DIR": str(work), "DB_PATH": str(db), "RAG_WATCH": "off"}
        threshold = Index.open(env).config.ann_min_chunks
        scale.build_indexes(db, threshold)
        print(f"{args.size} chunks written and indexed in {time.perf_counter() - start:.0f} s")
        index = Index.open(env)
        index.warm_up()
        queries = scale.corpus_queries(args.queries)
        url, server = _serve(env)
        with httpx.Client(base_url=url, timeout=60) as client:
            client.get("/")  # the open gate's session cookie
            # One untimed pass of the same queries on each side first: a fresh process's
            # first look at each part of the index reads and decodes it (bench/scale.py's
            # "first" vs "later"); both sides are then timed as a server that has been
            # answering a while.
            for q in queries:
                index.query(q)
                client.get("/", params={"q": q})
            mcp = _timed(index.query, queries)
            page_query = _timed(lambda q: index.query(q, top_k=10, max_tokens=0), queries)
            sizes: list[int] = []

            def search(q: str) -> None:
                got = client.get("/", params={"q": q})
                got.raise_for_status()
                sizes.append(len(got.content))

            page = _timed(search, queries)
            html = client.get("/", params={"q": queries[0]}).content
            assets = [client.get(p).content for p in ("/static/app.css", "/static/app.js")]
        server.terminate()
        server.wait(30)
        figures = {
            "chunks": args.size,
            "base_docs_per_corpus": args.base_docs,
            "queries": len(queries),
            "ann": index.table().uses_ann(),
            "mcp_query": _percentiles(mcp),
            "page_query": _percentiles(page_query),
            "search_page": _percentiles(page),
            "html_kb": round(statistics.median(sizes) / 1024, 1),
            "html_gzip_kb": round(len(gzip.compress(html)) / 1024, 1),
            "assets_kb": round(sum(len(a) for a in assets) / 1024, 1),
            "first_visit_kb": round((statistics.median(sizes) + sum(map(len, assets))) / 1024, 1),
            "first_visit_gzip_kb": round(
                (len(gzip.compress(html)) + sum(len(gzip.compress(a)) for a in assets)) / 1024, 1
            ),
        }
        index.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    write_json(RESULTS, figures, meta)
    print(f"\n{'':22}{'p50 ms':>8}{'p95 ms':>8}   at {figures['chunks']} chunks")
    for key, label in (
        ("mcp_query", "MCP query (topK 8)"),
        ("page_query", "page's query (topK 10)"),
        ("search_page", "search page (HTTP)"),
    ):
        row = figures[key]
        print(f"{label:22}{row['p50_ms']:>8}{row['p95_ms']:>8}")
    print(
        f"\npage weight: HTML {figures['html_kb']} KB ({figures['html_gzip_kb']} KB gzip), "
        f"CSS+JS {figures['assets_kb']} KB; first visit {figures['first_visit_kb']} KB "
        f"({figures['first_visit_gzip_kb']} KB gzip), later searches the HTML alone"
    )


if __name__ == "__main__":
    main()
