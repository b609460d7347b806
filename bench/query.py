"""Hybrid query latency at 10k and 100k chunks, beside the query-embedding time alone.

The chunks are real: the rows (text + real all-MiniLM-L6-v2 vectors) of the SciFact index
that ``bench/quality.py --keep /tmp/minirag-scifact`` builds (~24k chunks). The 10k index
takes the first 10k of them; the 100k index repeats them under distinct source paths, each
copy's vectors nudged by small noise so copies are not exact ties. Queries are SciFact
test claims; each one is timed end to end through ``Index.query`` (embedding included).

Targets at 100k: p50 <= 3x the query-embedding p50, and under 50 ms.
Also: disk size after one write and after three identical re-writes (+ maintain each).

    uv run python bench/query.py [--source-db /tmp/minirag-scifact/db] [--queries 100]
                                 [--sizes 10000,100000] [--rewrites 3]

``--rewrites 0`` skips the disk-growth part (the slow one) when only latency matters.

"search CPU-ms excl. embed" is the query's process CPU minus one embedding's, so it also
holds what onnxruntime's worker threads burn spin-waiting after the embedding while the
search runs (~10-17 ms a query here; the search itself is ~6-7 CPU-ms at SciFact size and
~12 at 100k, timed with a precomputed query vector). Measured with
``session.intra_op.allow_spinning=0`` on the ONNX session: 28-31 -> 14 at 100k, and
p50 / embed p50 3.6-3.8 -> 2.9-3.0.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
from minirag_store import Index
from minirag_store.index.storage.schema import ROW_FIELDS, TABLE_NAME
from minirag_store.index.table import ChunkTable
from minirag_testkit import model_env
from results_io import provenance, write_json

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "beir_scifact"
RESULTS = Path(__file__).resolve().parent / "results" / "query.json"
BATCH = 2048


def du(path: Path) -> float:
    """Disk usage in MB."""
    out = subprocess.run(["du", "-sk", str(path)], capture_output=True, text=True, check=True)
    return int(out.stdout.split()[0]) / 1024


def source_rows(db: Path) -> list[dict]:
    """Every row (all fields + vector) of the SciFact index, read through LanceDB
    (nothing is written there: the bench builds its own indexes from these rows)."""
    import lancedb

    missing = f"no index at {db}: run bench/quality.py --keep {db.parent} first"
    if not db.is_dir():
        raise SystemExit(missing)
    try:
        table = lancedb.connect(str(db)).open_table(TABLE_NAME)
    except ValueError as e:  # lancedb's "table not found"
        raise SystemExit(missing) from e
    return table.to_arrow().select([*ROW_FIELDS, "vector"]).to_pylist()


def scaled(rows: list[dict], count: int, root: Path) -> list[dict]:
    """``count`` rows: the originals, then noisy copies under ``root/copyN/``."""
    rng = np.random.default_rng(7)
    out: list[dict] = []
    copy = 0
    while len(out) < count:
        for row in rows[: count - len(out)]:
            new = dict(row)
            new["source"] = str(root / f"copy{copy}" / Path(row["source"]).name)
            new["parent_id"] = f"{copy}:{row['parent_id']}"
            vec = np.asarray(row["vector"], dtype=np.float32)
            if copy:
                vec = vec + rng.normal(0, 0.02, vec.shape).astype(np.float32)
            new["vector"] = vec / np.linalg.norm(vec)
            out.append(new)
        copy += 1
    return out


def write_all(table: ChunkTable, rows: list[dict]) -> float:
    """Write ``rows`` in batches (whole sources per batch), then maintain; seconds."""
    start = time.perf_counter()
    batch: list[dict] = []
    last = None
    for row in rows:
        if len(batch) >= BATCH and row["source"] != last:
            table.replace_sources([r["source"] for r in batch], batch,
                                  np.stack([r["vector"] for r in batch]))  # fmt: skip
            batch = []
        batch.append(row)
        last = row["source"]
    if batch:
        table.replace_sources([r["source"] for r in batch], batch,
                              np.stack([r["vector"] for r in batch]))  # fmt: skip
    table.maintain()
    return time.perf_counter() - start


def snapshot_mb(index: Index) -> float:
    """Memory held by the table's search snapshot (arrays + Arrow columns + id dict), MB."""
    import sys

    snap = index.table().snapshot()
    arrays = sum(getattr(v, "nbytes", 0) for v in vars(snap).values())
    ids = sum(sys.getsizeof(k) for k in snap.ids)
    return (arrays + ids + sys.getsizeof(snap.row_of) + sys.getsizeof(snap.ids)) / 2**20


def pct(values: list[float], q: float) -> float:
    """The q-quantile of ``values`` in ms."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def time_queries(index: Index, queries: list[str]) -> dict[str, float]:
    """Wall p50/p95 of a hybrid query and of the query embedding alone, CPU-ms of search."""
    embedder = index.embedder()
    for q in queries[:5]:  # warm-up: snapshot load, caches
        index.query(q, top_k=8)
    total, embed, cpu = [], [], []
    for q in queries:
        c0, t0 = time.process_time(), time.perf_counter()
        embedder.embed_query(q)
        c1, t1 = time.process_time(), time.perf_counter()
        index.query(q, top_k=8)
        c2, t2 = time.process_time(), time.perf_counter()
        embed.append(t1 - t0)
        total.append(t2 - t1)
        cpu.append((c2 - c1) - (c1 - c0))  # the query's CPU minus one embedding's
    return {
        "p50": pct(total, 0.5),
        "p95": pct(total, 0.95),
        "embed_p50": pct(embed, 0.5),
        "embed_p95": pct(embed, 0.95),
        "cpu_ms": statistics.median(cpu) * 1000,
    }


def main() -> None:
    """Build both indexes, time queries, re-write three times, print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source-db", type=Path, default=Path("/tmp/minirag-scifact/db"))
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--rewrites", type=int, default=3, help="identical re-writes timed")
    parser.add_argument("--json", type=Path, default=RESULTS, help="where the figures go")
    args = parser.parse_args()
    meta = provenance()
    rows = source_rows(args.source_db)
    queries = [json.loads(x)["text"] for x in (DATA / "queries_test.jsonl").open()]
    queries = queries[: args.queries]
    work = Path(tempfile.mkdtemp(prefix="minirag-query-bench-"))
    latency, disk = [], []
    for size in (int(s) for s in args.sizes.split(",")):
        base = work / str(size)
        (base / "docs").mkdir(parents=True)
        env = {**model_env(), "BASE_DIR": str(base / "docs"), "DB_PATH": str(base / "db")}
        index = Index.open(env)
        data = scaled(rows, size, base / "docs")
        write_s = write_all(index.table(), data)
        sizes = [du(base / "db")]
        timing = time_queries(index, queries)
        timing["snap_mb"] = snapshot_mb(index)
        rewrite_s = []
        for _ in range(args.rewrites):
            rewrite_s.append(write_all(index.table(), data))
            sizes.append(du(base / "db"))
        latency.append((size, timing, write_s))
        disk.append((size, sizes, rewrite_s))
        index.close()
    print(f"\n{len(queries)} SciFact test queries, topK 8, hybrid (weight 0.6), wall ms\n")
    print(
        "| chunks | query p50 | query p95 | embed p50 | embed p95 | p50 / embed p50 "
        "| search CPU-ms excl. embed (median) | snapshot MB | write + maintain s |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for size, t, write_s in latency:
        print(f"| {size:,} | {t['p50']:.1f} | {t['p95']:.1f} | {t['embed_p50']:.1f} | "
              f"{t['embed_p95']:.1f} | {t['p50'] / t['embed_p50']:.2f} | {t['cpu_ms']:.1f} | "
              f"{t['snap_mb']:.0f} | {write_s:.1f} |")  # fmt: skip
    figures = {
        "queries": len(queries),
        "top_k": 8,
        "sizes": {
            str(size): {
                "query_p50_ms": round(t["p50"], 2),
                "query_p95_ms": round(t["p95"], 2),
                "embed_p50_ms": round(t["embed_p50"], 2),
                "embed_p95_ms": round(t["embed_p95"], 2),
                "p50_over_embed_p50": round(t["p50"] / t["embed_p50"], 3),
                "search_cpu_ms_excl_embed": round(t["cpu_ms"], 2),
                "snapshot_mb": round(t["snap_mb"], 1),
                "write_s": round(write_s, 1),
                "disk_mb": [round(mb, 1) for mb in sizes],
            }
            for (size, t, write_s), (_, sizes, _) in zip(latency, disk, strict=True)
        },
    }
    write_json(args.json, figures, meta)
    print(f"\nfigures: {args.json}")
    if args.rewrites <= 0:
        return
    print("\n| chunks | MB after write | after re-write 1 | 2 | 3 | re-write s (each) |")
    print("|---|---|---|---|---|---|")
    for size, sizes, rewrite_s in disk:
        each = " / ".join(f"{s:.1f}" for s in rewrite_s)
        print(f"| {size:,} | {' | '.join(f'{s:.1f}' for s in sizes)} | {each} |")


if __name__ == "__main__":
    main()
