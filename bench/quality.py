"""Retrieval quality on BEIR SciFact, plus index size, ingest cost and query CPU time.

Every SciFact document is written as ``<_id>.md`` (``# title`` + abstract) and indexed
through the real pipeline (chunker → offline all-MiniLM-L6-v2 → LanceDB). The 300 test
queries are evaluated at *document* level: chunk hits map to their file, first occurrence
wins, nDCG@10 with linear gain (trec_eval/BEIR). Vector-only, keyword-only and hybrid (the
product's ``run_query``: the default weighted RRF, and ``RAG_FUSION=score``) are printed
side by side.

    uv run python bench/quality.py               # full corpus (~5 min of CPU)
    uv run python bench/quality.py --limit 800   # quick: 800 docs (all judged docs first)
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path

from minirag_store import Index
from minirag_store.index.write.writer import Document
from minirag_store.ingest.operations import writer_for
from minirag_store.ingest.workers import file_digest
from minirag_testkit import model_env
from minirag_testkit.answers import hit_sources
from results_io import provenance, write_json

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "beir_scifact"
RESULTS = Path(__file__).resolve().parent / "results" / "quality.json"
FETCH_CHUNKS = 30  # chunk hits per query (topK): enough for 10 distinct documents


def load(limit: int | None):
    """Corpus, test queries and qrels; with ``limit``, judged documents come first."""
    docs = {d["_id"]: d for d in map(json.loads, (DATA / "corpus.jsonl").open(encoding="utf-8"))}
    queries = {q["_id"]: q["text"] for q in map(json.loads, (DATA / "queries.jsonl").open())}
    qrels: dict[str, dict[str, int]] = {}
    for line in (DATA / "qrels" / "test.tsv").read_text().splitlines()[1:]:
        qid, did, score = line.split("\t")
        qrels.setdefault(qid, {})[did] = int(score)
    if limit:
        judged = list(dict.fromkeys(d for rel in qrels.values() for d in rel))
        rest = [d for d in docs if d not in set(judged)]
        keep = set((judged + rest)[:limit])
        docs = {k: v for k, v in docs.items() if k in keep}
    return docs, {q: queries[q] for q in qrels}, qrels


def ndcg10(ranked: list[str], rel: dict[str, int]) -> float:
    """nDCG@10 with linear gain."""
    dcg = sum(rel.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranked[:10]))
    ideal = sorted(rel.values(), reverse=True)[:10]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def doc_order(sources: Iterable[str]) -> list[str]:
    """Document ids in order of their first chunk hit."""
    return list(dict.fromkeys(Path(s).stem for s in sources))


def du(path: Path) -> float:
    """Disk usage in MB."""
    out = subprocess.run(["du", "-sk", str(path)], capture_output=True, text=True, check=True)
    return int(out.stdout.split()[0]) / 1024


def build(index: Index, root: Path, docs: dict) -> tuple[float, int]:
    """Write the corpus as markdown files and index it; returns (seconds, chunks)."""
    documents = []
    for did, d in docs.items():
        title = d.get("title", "").strip() or did
        text = f"# {title}\n\n{d['text'].strip()}\n"
        path = root / f"{did}.md"
        path.write_text(text, encoding="utf-8")
        # The file's real hash, size and mtime, as a sync records them: a later sync of a
        # kept index (bench/startup.py) then finds every file unchanged.
        digest, size, mtime = file_digest(path)
        documents.append(Document(str(path), "file", title, text, digest, mtime, size))
    start = time.process_time()
    writer = writer_for(index)
    chunks = sum(n for _, n in writer.write(documents))
    writer.finish()
    return time.process_time() - start, chunks


def raw_embed_seconds(index: Index, sample: int = 1024) -> float:
    """Seconds to embed every chunk text, extrapolated from ``sample`` chunks."""
    table = index.table()
    rows = list(table._rows(None, ["text"]))
    texts = [r["text"] for r in rows[:sample]]
    start = time.process_time()
    index.embedder().embed_passages(texts)
    return (time.process_time() - start) * len(rows) / len(texts)


def side_costs(index: Index, docs: dict, sample: int = 1024) -> tuple[float, float]:
    """CPU seconds of chunking all docs, and of keyword-normalising every chunk
    (extrapolated from ``sample`` chunks): the parts of ingest that are not embedding."""
    from minirag_chunker import chunk_markdown
    from minirag_store.index.storage.keyword_column import keyword_column

    start = time.process_time()
    for d in docs.values():
        chunk_markdown(
            f"# {d['title']}\n\n{d['text']}\n",
            count_tokens=index.embedder().count_tokens,
            budget=index.config.chunk_token_budget,
            title=d["title"] or None,
        )
    chunk_s = time.process_time() - start
    rows = list(index.table()._rows(None, ["source", "title", "chunk_index", "text", "body_start",
                                           "parent_id"]))  # fmt: skip
    rows.sort(key=lambda r: (r["source"], r["chunk_index"]))  # whole sources in the sample
    start = time.process_time()
    keyword_column(rows[:sample])
    return chunk_s, (time.process_time() - start) * len(rows) / min(sample, len(rows))


def reindex(index: Index) -> None:
    """Re-write every source with identical content (rows + vectors read back), then
    maintain: the write path of a forced re-sync without paying for embedding again."""
    import numpy as np

    table = index.table()
    rows = table._rows(None, ["source", "source_type", "title", "chunk_index", "text",
                              "body_start", "parent_id", "file_hash", "mtime", "size",
                              "ocr_engine", "scheme_version", "locator", "vector"])  # fmt: skip
    by_source: dict[str, list[dict]] = {}
    for row in rows:
        by_source.setdefault(row["source"], []).append(row)
    batch: list[dict] = []
    for chunk_rows in by_source.values():
        batch.extend(chunk_rows)
        if len(batch) >= 512:
            table.replace_sources(
                [r["source"] for r in batch],
                batch,
                np.array([r["vector"] for r in batch], dtype=np.float32),
            )
            batch = []
    if batch:
        table.replace_sources(
            [r["source"] for r in batch],
            batch,
            np.array([r["vector"] for r in batch], dtype=np.float32),
        )
    table.maintain()


def evaluate(index: Index, queries: dict, qrels: dict) -> dict[str, float]:
    """Mean nDCG@10 for vector, keyword, hybrid (the default RRF) and hybrid with
    ``RAG_FUSION=score``, and the default hybrid query's CPU-ms."""
    from dataclasses import replace

    table = index.table()
    embedder = index.embedder()
    scored = Index(replace(index.config, fusion="score"), embedder=embedder, table=table)
    totals = {"vector": 0.0, "keyword": 0.0, "hybrid": 0.0, "hybrid, RAG_FUSION=score": 0.0}
    search_cpu = embed_cpu = 0.0
    for qid, text in queries.items():
        vec = table.vector_search(embedder.embed_query(text), FETCH_CHUNKS)
        kw = table.keyword_search(text, FETCH_CHUNKS)
        totals["vector"] += ndcg10(doc_order([r["source"] for r in vec]), qrels[qid])
        totals["keyword"] += ndcg10(doc_order([r["source"] for r in kw]), qrels[qid])
        c0 = time.process_time()
        embedder.embed_query(text)
        c1 = time.process_time()
        result = index.query(text, top_k=FETCH_CHUNKS)
        c2 = time.process_time()
        embed_cpu += c1 - c0
        search_cpu += (c2 - c1) - (c1 - c0)
        totals["hybrid"] += ndcg10(doc_order(hit_sources(result)), qrels[qid])
        other = scored.query(text, top_k=FETCH_CHUNKS)
        totals["hybrid, RAG_FUSION=score"] += ndcg10(doc_order(hit_sources(other)), qrels[qid])
    n = len(queries)
    out = {k: v / n for k, v in totals.items()}
    out["query_cpu_ms"] = search_cpu / n * 1000
    out["embed_cpu_ms"] = embed_cpu / n * 1000
    return out


def main() -> None:
    """Run the benchmark and print its tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="index only this many docs")
    parser.add_argument("--reindex", type=int, default=3, help="identical re-writes to time")
    parser.add_argument("--keep", type=Path, default=None, help="work folder to keep")
    parser.add_argument("--reuse", action="store_true", help="evaluate the index in --keep as is")
    parser.add_argument("--json", type=Path, default=RESULTS, help="where the figures go")
    args = parser.parse_args()
    meta = provenance()
    docs, queries, qrels = load(args.limit)
    figures: dict = {"docs": len(docs), "limit": args.limit}
    work = args.keep or Path(tempfile.mkdtemp(prefix="minirag-quality-"))
    env = {**model_env(), "BASE_DIR": str(work / "docs"), "DB_PATH": str(work / "db")}
    # Ranking is scored on every hit of FETCH_CHUNKS, not on what fits a client's budget.
    env["RAG_MAX_RESPONSE_TOKENS"] = str(10**9)
    if not args.reuse:
        shutil.rmtree(work, ignore_errors=True)
        (work / "docs").mkdir(parents=True)
    index = Index.open(env)
    index.embedder()
    if not args.reuse:
        ingest_s, chunks = build(index, work / "docs", docs)
        embed_s = raw_embed_seconds(index)
        chunk_s, keyword_s = side_costs(index, docs)
        sizes = [du(work / "db")]
        for _ in range(args.reindex):
            reindex(index)
            sizes.append(du(work / "db"))
        print("\n| ingest measure | value |\n|---|---|")
        print(f"| ingest CPU s (chunk+embed+keywords+write+maintain) | {ingest_s:.1f} |")
        print(f"| raw embedding CPU s (extrapolated from 1024 chunks) | {embed_s:.1f} |")
        print(f"| chunking CPU s / keyword normalisation CPU s | {chunk_s:.1f} / {keyword_s:.1f} |")
        print(f"| ingest / raw embedding | {ingest_s / embed_s:.2f} |")
        for i, size in enumerate(sizes):
            print(f"| index MB after {'ingest' if i == 0 else f're-index {i}'} | {size:.1f} |")
        figures |= {
            "ingest_cpu_s": ingest_s,
            "raw_embed_cpu_s": embed_s,
            "chunk_cpu_s": chunk_s,
            "keyword_cpu_s": keyword_s,
            "ingest_over_raw_embed": ingest_s / embed_s,
            "index_mb_after_ingest": sizes[0],
            "index_mb_after_reindex": sizes[1:],
        }
    chunks = index.table().counts()[0]
    scores = evaluate(index, queries, qrels)
    print(f"\nSciFact: {len(docs)} docs, {chunks} chunks, {len(queries)} test queries\n")
    print("| retrieval | nDCG@10 |\n|---|---|")
    for mode in ("vector", "keyword", "hybrid", "hybrid, RAG_FUSION=score"):
        print(f"| {mode} | {scores[mode]:.3f} |")
    print("\n| query measure | value |\n|---|---|")
    print(f"| hybrid query CPU-ms excl. query embedding | {scores['query_cpu_ms']:.1f} |")
    print(f"| query embedding CPU-ms | {scores['embed_cpu_ms']:.1f} |")
    index.close()
    figures |= {"chunks": chunks, "queries": len(queries), "top_k": FETCH_CHUNKS,
                "ndcg10": {"vector": scores["vector"], "keyword": scores["keyword"],
                           "hybrid": scores["hybrid"],
                           "hybrid_score": scores["hybrid, RAG_FUSION=score"]},
                "query_cpu_ms_excl_embed": scores["query_cpu_ms"],
                "embed_cpu_ms": scores["embed_cpu_ms"]}  # fmt: skip
    if args.reuse and args.json.is_file():
        # An evaluation of a kept index has no ingest figures: keep the last run's.
        old = json.loads(args.json.read_text())
        figures = {**{k: v for k, v in old.items() if k not in figures}, **figures}
    write_json(args.json, figures, meta)
    print(f"\nfigures: {args.json}")


if __name__ == "__main__":
    main()
