"""How long a client takes to list 10,000 indexed documents as MCP resources, page by page.

Indexes ``--documents`` tiny Markdown files once in ``--work`` (reused by later runs:
indexing 10,000 takes ~2 minutes on 2 cores), then starts the installed ``minirag-mcp``
console script as a stdio server (fastmcp's ``Client`` over ``StdioTransport``, as a
desktop client runs it) and lists every resource ``--rounds`` times, following
``nextCursor``. Each round is timed whole and page by page, with each page's answer size
(the result's JSON). The first round builds the server's document list (it is then kept
10 s: ``minirag_mcp.resources.CATALOG_SECONDS``); later rounds page through the kept one.

    uv run python bench/resources.py [--documents 10000] [--rounds 3]
        [--work /tmp/minirag-bench-resources] [--out bench/results/resources.json]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from pathlib import Path

from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from minirag_mcp.resources import PAGE_SIZE
from minirag_store import Index
from minirag_testkit import model_env
from results_io import RESULTS, provenance, write_json


def prepare(work: Path, documents: int) -> dict[str, str]:
    """The env of an index of ``documents`` notes under ``work`` (made once, then reused)."""
    root = work / "docs"
    env = {**model_env(), "BASE_DIR": str(root), "DB_PATH": str(work / "index")}
    for n in range(documents):
        path = root / f"shelf {n // 100:03d}" / f"note {n:05d}.md"
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"# Note {n}\n\nParcel {n} waits in bay {n % 37}.\n", "utf-8")
    index = Index.open(env)
    try:
        started = time.perf_counter()
        job = index.sync()
        counts = job["counts"]
        print(f"index: {counts['ingested']} indexed, {counts['skipped']} unchanged "
              f"in {time.perf_counter() - started:.1f} s")  # fmt: skip
        assert len(index.documents()) == documents, "the work folder holds other documents"
    finally:
        index.close()
    return env


async def list_all(client: Client) -> dict:
    """One listing of every resource: the round's seconds, and each page's ms and bytes."""
    pages: list[tuple[float, int, int]] = []
    cursor = None
    started = time.perf_counter()
    while True:
        begun = time.perf_counter()
        page = await client.list_resources_mcp(cursor=cursor)
        took = (time.perf_counter() - begun) * 1000
        size = len(page.model_dump_json(by_alias=True, exclude_none=True))
        pages.append((took, size, len(page.resources)))
        cursor = page.next_cursor
        if cursor is None:
            break
    return {
        "seconds": round(time.perf_counter() - started, 3),
        "pages": len(pages),
        "resources": sum(p[2] for p in pages),
        "page_ms_p50": round(statistics.median(p[0] for p in pages), 1),
        "page_ms_max": round(max(p[0] for p in pages), 1),
        "page_bytes_p50": int(statistics.median(p[1] for p in pages)),
        "page_bytes_max": max(p[1] for p in pages),
    }


async def measure(env: dict[str, str], rounds: int) -> list[dict]:
    # Watch mode off: its first full sync would compete with the listing being timed.
    base = {k: os.environ[k] for k in ("PATH", "HOME", "LANG", "TMPDIR") if k in os.environ}
    transport = StdioTransport(_script(), [], env={**base, **env, "RAG_WATCH": "off"})
    async with Client(transport) as client:
        return [await list_all(client) for _ in range(rounds)]


def _script() -> str:
    import shutil
    import sys

    beside = Path(sys.executable).with_name("minirag-mcp")
    found = str(beside) if beside.exists() else shutil.which("minirag-mcp")
    if found is None:
        raise SystemExit("minirag-mcp is not installed: uv sync --all-packages")
    return found


def main() -> None:
    """Index once, list every page ``--rounds`` times, print the table, write the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--work", type=Path, default=Path("/tmp/minirag-bench-resources"))
    parser.add_argument("--out", type=Path, default=RESULTS / "resources.json")
    args = parser.parse_args()
    meta = provenance()
    env = prepare(args.work, args.documents)
    rounds = asyncio.run(measure(env, args.rounds))
    print("| round | pages | resources | total s | page ms p50 | page ms max | page KB p50 |")
    print("|---|---|---|---|---|---|---|")
    for n, r in enumerate(rounds, 1):
        print(f"| {n}{' (builds the list)' if n == 1 else ''} | {r['pages']} | "
              f"{r['resources']} | {r['seconds']} | {r['page_ms_p50']} | {r['page_ms_max']} | "
              f"{r['page_bytes_p50'] / 1024:.1f} |")  # fmt: skip
    write_json(
        args.out,
        {
            "what": f"resources/list of {args.documents} indexed documents over a stdio "
            f"session of the console script, every page following nextCursor ({PAGE_SIZE} "
            "per page); round 1 builds the server's document list, later rounds reuse it",
            "documents": args.documents,
            "page_size": PAGE_SIZE,
            "rounds": rounds,
            "model": "the offline test model (minirag_testkit)",
        },
        meta,
    )


if __name__ == "__main__":
    main()
