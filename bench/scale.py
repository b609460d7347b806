"""Search at 100k, 300k and 1M chunks: the exact in-memory path against the ANN index.

Real chunks, realistic vectors, without embedding a million chunks here:

* a base of real chunks: BEIR SciFact and NFCorpus abstracts (``--base-docs`` of each,
  from ../shared/data) synced through the product's own writer (real chunker, real
  offline all-MiniLM-L6-v2 int8 model), cached under ``--cache`` for the next run;
* each size cycles that base under distinct source paths; every copy's vector is its
  real vector plus Gaussian noise (``--noise`` per dimension, then renormalised: cosine
  ~0.86 to the original at the default), so neighbourhoods look like real ones instead
  of ties; texts and keyword entries are the originals';
* the table is written straight through LanceDB in the product's schema, in one of two
  layouts (``--layouts``): ``synced``, ``ChunkTable.maintain()`` every
  ``writer.MAINTAIN_ROWS`` rows as a long sync's writer runs it, so every index ends up in
  the segments (Lance's delta indexes) a real sync leaves; ``built``, every index built
  once over the whole table (one segment each: the best case, which no sync leaves past
  ``upkeep.SEGMENT_ROWS``). The last ``maintain()`` (BTREE, full-text, and past the
  threshold the IVF_RQ vector index) is "index build".

Per size and path, ``--serves`` fresh processes (the server's view; latencies are their
medians, RSS their largest) each open the index, warm up and
answer ``--queries`` real SciFact/NFCorpus queries through ``Index.query`` (embedding
included): p50/p95 and its RSS after them (a fresh process's first queries: what an MCP
client that starts its own server gets, each index page read and decoded on first use);
then as many other queries: their p50/p95 ("later": a server that has been answering a
while, LanceDB's caches holding what the first queries read), and the keyword search
alone over those (``keyword_p50_ms``: as deep as a default query fetches it).
Recall@10 compares the top 10 of the vector side's candidate list, fetched as deep as a
default query fetches it (100), against an exact search over the same stored vectors for
the same real query vectors.

    uv run python bench/scale.py [--sizes 100000,300000,1000000] [--paths exact,ann]
                                 [--layouts synced,built] [--base-docs 1000]
                                 [--queries 300] [--serves 3] [--cache DIR] [--keep]

Writes bench/results/scale.json beside the table it prints.
"""

from __future__ import annotations

import argparse
import itertools
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from results_io import provenance, write_json

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
CORPORA = ("beir_scifact", "beir_nfcorpus")
RESULTS = ROOT / "bench" / "results" / "scale.json"
DIM = 384


def corpus_docs(per_corpus: int) -> list[tuple[str, str, str]]:
    """``(corpus, id, markdown)`` of the first ``per_corpus`` documents of each corpus."""
    out = []
    for corpus in CORPORA:
        path = DATA / corpus / "corpus.jsonl"
        if not path.is_file():
            raise SystemExit(f"{path} not found: this bench needs ../shared/data ({corpus})")
        with path.open(encoding="utf-8") as fh:
            for n, line in enumerate(fh):
                if n >= per_corpus:
                    break
                doc = json.loads(line)
                title = " ".join((doc.get("title") or doc["_id"]).split())
                out.append((corpus, doc["_id"], f"# {title}\n\n{doc['text']}"))
    return out


def corpus_queries(count: int) -> list[str]:
    """``count`` real queries, alternating SciFact and NFCorpus."""
    lists = []
    for corpus in CORPORA:
        with (DATA / corpus / "queries.jsonl").open(encoding="utf-8") as fh:
            lists.append([json.loads(line)["text"] for line in fh])
    mixed = [q for pair in zip(*lists, strict=False) for q in pair]
    return mixed[:count]


def base_rows(per_corpus: int, cache: Path) -> list[dict]:
    """Every row (all fields + vector + keyword entry and language) of a base index of
    real chunks, built once through the product's writer and kept in ``cache``."""
    from minirag_store import Index
    from minirag_store.index.storage.schema import ROW_FIELDS
    from minirag_store.index.write.writer import Document
    from minirag_store.ingest.operations import writer_for
    from minirag_testkit import model_env

    db = cache / f"base-{per_corpus}" / "db"
    if not db.is_dir():
        docs_root = cache / f"base-{per_corpus}" / "docs"
        docs_root.mkdir(parents=True, exist_ok=True)
        env = {**model_env(), "BASE_DIR": str(docs_root), "DB_PATH": str(db)}
        index = Index.open(env)
        start = time.perf_counter()
        docs = []
        for corpus, doc_id, text in corpus_docs(per_corpus):
            path = docs_root / corpus / f"{doc_id}.md"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            title = text.splitlines()[0][2:]
            docs.append(Document(str(path), "file", title, text, file_hash=doc_id, size=len(text)))
        writer = writer_for(index)
        for _ in writer.write(docs):
            pass
        writer.finish()
        index.close()
        print(f"base index: {len(docs)} documents in {time.perf_counter() - start:.0f} s")
    import lancedb
    from minirag_store.index.storage import keyword_column as kwcol

    table = lancedb.connect(str(db)).open_table("chunks")
    rows = table.to_arrow().select([*ROW_FIELDS, "vector"]).to_pylist()
    # Keyword entries as the current scheme makes them (a cache may predate it): pure, a
    # few seconds for the base, and every copy shares its original's entry.
    entries, languages = kwcol.keyword_column(rows)
    for row, entry, language in zip(rows, entries, languages, strict=True):
        row["keywords"], row[kwcol.LANGUAGE_COLUMN] = entry, language
    return rows


def write_table(
    db: Path, base: list[dict], size: int, noise: float, maintain_every: int | None = None
) -> np.ndarray:
    """A table of ``size`` rows cycled from ``base`` (see the module docstring); returns
    the stored vectors as renormalised float32, for the exact recall reference.

    ``maintain_every`` rows, ``ChunkTable.maintain()`` runs as a long sync's writer runs it
    (``writer.MAINTAIN_ROWS``), so the indexes end up in the segments a sync leaves."""
    import lancedb
    import pyarrow as pa
    from minirag_store.index.storage import keyword_column as kwcol
    from minirag_store.index.storage.schema import TABLE_NAME, chunk_id, schema

    rng = np.random.default_rng(11)
    base_vectors = np.asarray([r["vector"] for r in base], dtype=np.float32)
    stored = np.empty((size, DIM), dtype=np.float16)
    shape = schema(DIM, _model_id())
    db.mkdir(parents=True)
    conn = lancedb.connect(str(db))
    table = None
    batch = maintain_every or 20_000  # a synced table: one maintenance per batch
    now = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime())
    for first in range(0, size, batch):
        count = min(batch, size - first)
        picks = [(first + i) % len(base) for i in range(count)]
        copies = [(first + i) // len(base) for i in range(count)]
        vectors = base_vectors[picks]
        noisy = np.asarray(copies) > 0
        vectors[noisy] += rng.normal(0, noise, (int(noisy.sum()), DIM)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        stored[first : first + count] = vectors.astype(np.float16)
        columns: dict[str, list] = {name: [] for name in shape.names if name != "vector"}
        for pick, copy in zip(picks, copies, strict=True):
            row = base[pick]
            source = f"/scale/copy{copy:04d}{row['source']}"
            parent = f"{copy}:{row['parent_id']}" if row["parent_id"] else ""
            values = {**row, "source": source, "parent_id": parent}
            values["id"] = chunk_id(source, row["chunk_index"])
            values["ingested_at"] = now
            values[kwcol.VERSION_COLUMN] = kwcol.KEYWORDS_VERSION
            for name, values_of in columns.items():
                values_of.append(values[name])
        flat = pa.array(stored[first : first + count].reshape(-1), pa.float16())
        arrays = {name: pa.array(columns[name], shape.field(name).type) for name in columns}
        arrays["vector"] = pa.FixedSizeListArray.from_arrays(flat, DIM)
        data = pa.table({f.name: arrays[f.name] for f in shape}, schema=shape)
        if table is None:
            table = conn.create_table(TABLE_NAME, data, schema=shape)
        else:
            table.add(data)
        if maintain_every and first + count < size:  # the last is "index build"
            build_indexes(db, threshold=256, summarize=False)
    matrix = stored.astype(np.float32)
    matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
    return matrix


def _model_id() -> str:
    """The model name the offline test model is configured under (what the table records)."""
    from minirag_store import load_config
    from minirag_testkit import model_env

    env = {**model_env(), "BASE_DIR": "/", "DB_PATH": "/nonexistent"}
    return load_config(env).model_name


def build_indexes(db: Path, threshold: int, *, summarize: bool = True) -> float:
    """``ChunkTable.maintain()`` on the written table (every index); seconds."""
    from minirag_store.index.search.ann import AnnSettings
    from minirag_store.index.table import ChunkTable

    table = ChunkTable.open_existing(db, _model_id(), ann=AnnSettings(min_chunks=threshold))
    assert table is not None
    start = time.perf_counter()
    table.maintain(summarize=summarize)
    return time.perf_counter() - start


SERVE = r"""
import json, os, statistics, sys, time
from minirag_store import Index
from minirag_testkit import model_env

db, threshold, queries_file, out = sys.argv[1:5]
queries, later = json.loads(open(queries_file).read())
env = {**model_env(), "BASE_DIR": os.path.dirname(db), "DB_PATH": db}
env["RAG_ANN_MIN_CHUNKS"] = threshold
index = Index.open(env)
index.warm_up()

def rss():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024

warm_rss = rss()
def timed(batch):
    lat = []
    for q in batch:
        start = time.perf_counter()
        index.query(q)
        lat.append((time.perf_counter() - start) * 1000)
    return sorted(lat)

lat = timed(queries)
rss_after = rss()
warm = timed(later)  # other queries, once these have filled the caches
table = index.table()
from minirag_store.search import candidate_count
vector_n, keyword_n = candidate_count(8)
keyword = []  # the keyword side alone, as deep as a default query fetches it
for q in later:
    start = time.perf_counter()
    table.keyword_search(q, keyword_n)
    keyword.append((time.perf_counter() - start) * 1000)
keyword.sort()
ids, vectors = [], []
for q in queries:
    v = index.embedder().embed_query(q)
    vectors.append(v.tolist())
    # the vector side as a query uses it: its candidate list (max(10 topK, 100) deep)
    ids.append([r["id"] for r in table.vector_search(v, vector_n)][:10])
json.dump({
    "ann": table.uses_ann(),
    "rss_warm_mb": warm_rss,
    "rss_after_mb": rss_after,
    "p50_ms": statistics.median(lat),
    "p95_ms": lat[int(0.95 * (len(lat) - 1))],
    "later_p50_ms": statistics.median(warm),
    "later_p95_ms": warm[int(0.95 * (len(warm) - 1))],
    "keyword_p50_ms": statistics.median(keyword),
    "keyword_p95_ms": keyword[int(0.95 * (len(keyword) - 1))],
    "ids": ids,
    "vectors": vectors,
}, open(out, "w"))
"""


def serve(db: Path, threshold: int, queries: list[str], later: list[str], work: Path) -> dict:
    """Open, warm up and query the index in a fresh process; its figures: ``queries``
    (the recall's and the main p50/p95), then ``later`` (other queries, once the first
    have filled LanceDB's caches: a server that has been answering for a while)."""
    qfile, out = work / "queries.json", work / "served.json"
    qfile.write_text(json.dumps([queries, later]))
    subprocess.run(
        [sys.executable, "-c", SERVE, str(db), str(threshold), str(qfile), str(out)], check=True
    )
    return json.loads(out.read_text())


def _median_run(runs: list[dict]) -> dict:
    """One served figure set from fresh processes that served the same queries: each
    latency their median (a run's p50 varies by +-5 ms at 1M between processes minutes
    apart on this 2-core machine), each RSS their largest (what a server must have)."""
    import statistics

    out = dict(runs[0])  # ids and vectors: the same search in every run
    for key in ("p50_ms", "p95_ms", "later_p50_ms", "later_p95_ms", "keyword_p50_ms",
                "keyword_p95_ms"):  # fmt: skip
        out[key] = statistics.median(r[key] for r in runs)
    for key in ("rss_warm_mb", "rss_after_mb"):
        out[key] = max(r[key] for r in runs)
    return out


def recall(served: dict, matrix: np.ndarray, stored_ids: list[str]) -> float:
    """Mean share of the exact top 10 (over the stored vectors) the vector side returned."""
    found = []
    for vector, ids in zip(served["vectors"], served["ids"], strict=True):
        scores = matrix @ np.asarray(vector, dtype=np.float32)
        top = np.argpartition(-scores, 10)[:10]
        exact = {stored_ids[i] for i in top.tolist()}
        found.append(len(exact & set(ids)) / 10)
    return float(np.mean(found))


def du_mb(path: Path) -> float:
    out = subprocess.run(["du", "-sk", str(path)], capture_output=True, text=True, check=True)
    return int(out.stdout.split()[0]) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100000,300000,1000000")
    parser.add_argument("--paths", default="exact,ann")
    parser.add_argument("--base-docs", type=int, default=1000, help="documents per corpus")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--noise", type=float, default=0.03)
    parser.add_argument(
        "--layouts",
        default="synced,built",
        help="synced: maintained every writer.MAINTAIN_ROWS rows, as a sync leaves the indexes; "
        "built: every index built once over all rows (one keyword segment: the best case)",
    )
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "minirag-scale")
    parser.add_argument(
        "--keep", action="store_true", help="keep each table under --cache (to profile it after)"
    )
    parser.add_argument(
        "--serves", type=int, default=3, help="fresh processes serving each row (medians)"
    )
    parser.add_argument(
        "--exact-max", type=int, default=300_000, help="no exact path above this (~2 KB a chunk)"
    )
    args = parser.parse_args()

    from minirag_store.index.write.writer import MAINTAIN_ROWS

    meta = provenance()  # load average before: other work on the machine skews every figure
    args.cache.mkdir(parents=True, exist_ok=True)
    base = base_rows(args.base_docs, args.cache)
    both = corpus_queries(2 * args.queries)
    queries, later = both[: args.queries], both[args.queries :]
    print(f"base: {len(base)} real chunks; {len(queries)} queries")
    rows = []
    for size, layout in itertools.product(
        [int(s) for s in args.sizes.split(",")], args.layouts.split(",")
    ):
        work = Path(tempfile.mkdtemp(prefix=f"scale{size}-", dir=args.cache))
        db = work / "db"
        every = MAINTAIN_ROWS if layout == "synced" else None
        start = time.perf_counter()
        matrix = write_table(db, base, size, args.noise, maintain_every=every)
        written = time.perf_counter() - start
        stored_ids = _stored_ids(db)
        built = build_indexes(db, threshold=256)  # the vector index too, for the ANN path
        disk = du_mb(db)
        segments = _keyword_segments(db)
        for path in args.paths.split(","):
            if path == "exact" and size > args.exact_max:
                continue
            threshold = size if path == "ann" else size + 1
            runs = [serve(db, threshold, queries, later, work) for _ in range(args.serves)]
            served = _median_run(runs)
            row = {
                "chunks": size,
                "layout": layout,
                "keyword_segments": segments,
                "path": "ann" if served["ann"] else "exact",
                "write_s": round(written, 1),
                "index_build_s": round(built, 1),
                "disk_mb": round(disk),
                "rss_warm_mb": round(served["rss_warm_mb"]),
                "rss_after_queries_mb": round(served["rss_after_mb"]),
                "hybrid_p50_ms": round(served["p50_ms"], 1),
                "hybrid_p95_ms": round(served["p95_ms"], 1),
                "later_p50_ms": round(served["later_p50_ms"], 1),
                "later_p95_ms": round(served["later_p95_ms"], 1),
                "keyword_p50_ms": round(served["keyword_p50_ms"], 1),
                "keyword_p95_ms": round(served["keyword_p95_ms"], 1),
                "vector_recall_at_10": round(recall(served, matrix, stored_ids), 3),
                "hybrid_p50_runs_ms": [round(r["p50_ms"], 1) for r in runs],
            }
            rows.append(row)
            print(json.dumps(row), flush=True)
        del matrix
        if args.keep:
            print(f"kept {db}", flush=True)
        else:
            shutil.rmtree(work, ignore_errors=True)
    _table(rows)
    figures = {
        "bench": "scale",
        "base_chunks": len(base),
        "queries": len(queries),
        "noise": args.noise,
        "maintain_every": MAINTAIN_ROWS,
        "serves": args.serves,
        "rows": rows,
    }
    write_json(RESULTS, figures, meta)
    print(f"wrote {RESULTS}")


def _keyword_segments(db: Path) -> int:
    """How many segments the keyword index has (each one costs every keyword query)."""
    import lancedb

    dataset = lancedb.connect(str(db)).open_table("chunks").to_lance()
    return len(dataset.stats.index_stats("keywords_idx")["num_indexed_rows_per_delta"])


def _stored_ids(db: Path) -> list[str]:
    import lancedb

    table = lancedb.connect(str(db)).open_table("chunks")
    return table.search().select(["id"]).limit(2**31 - 1).to_arrow()["id"].to_pylist()


def _table(rows: list[dict]) -> None:
    head = ["chunks", "layout", "keyword_segments", "path", "index_build_s", "disk_mb",
            "rss_warm_mb", "hybrid_p50_ms", "hybrid_p95_ms", "later_p50_ms",
            "keyword_p50_ms", "vector_recall_at_10"]  # fmt: skip
    print(" | ".join(head))
    for row in rows:
        print(" | ".join(str(row[h]) for h in head))


if __name__ == "__main__":
    main()
