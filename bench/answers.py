"""What a client gets for its tokens: the share of a query answer that is document text,
how many hits and documents it holds, and its nDCG@10, at the default response budget
beside the same answer with the budget lifted.

Why: an MCP client reads ``query_documents`` within ``RAG_MAX_RESPONSE_TOKENS`` (6,000 by
default). What the answer spends on anything but evidence (paths, titles, ids, scores,
the notice) is evidence the client does not get: at topK 50 it may hold fewer documents
than the ten a ranking is judged on.

Two corpora with their judged queries, synced through the product (real files, the
offline test model), each a fixed subset so a run takes minutes on 2 cores:

* ``scifact-md``: SciFact abstracts as ``.md`` files (``# title`` + abstract) in a nested
  folder; every document judged for the first ``--queries`` test queries plus a fixed
  sample of the rest, ``--docs`` in all.
* ``nfcorpus-pdf``: NFCorpus as one-page article PDFs whose file names are the articles'
  titles (``../shared/data/nfcorpus_pdf``); the documents judged for the first
  ``--queries`` test queries plus a fixed sample, ``--docs`` in all.

Per corpus, topK 8 and 50, each answer as the MCP tool returns it (compact JSON):
``evidence`` = characters of hit text and parent-section text / characters of the answer;
``hits`` (a passage of neighbouring chunks of one section is one hit); ``chunks`` (the
ranked chunks they hold, what topK counts); ``documents`` (distinct sources); ``nDCG@10``
over documents in the order of their first hit (graded qrels, linear gain), at the
default budget and with none.

    uv run python bench/answers.py [--queries 40] [--docs 1000] [--work DIR] [--rebuild]

Writes bench/results/answers.json beside the table it prints.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import shutil
import statistics
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from results_io import provenance, write_json

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
RESULTS = Path(__file__).resolve().parent / "results" / "answers.json"
TOP_KS = (8, 50)


def _jsonl(path: Path) -> Iterable[dict]:
    with path.open(encoding="utf-8") as f:
        yield from map(json.loads, f)


def _qrels(path: Path) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for line in path.read_text(encoding="utf-8").splitlines()[1:]:
        qid, did, grade = line.split("\t")
        out.setdefault(qid, {})[did] = int(grade)
    return out


def _subset(judged: set[str], every: list[str], size: int) -> list[str]:
    """The judged documents plus a fixed sample of the others, ``size`` in all."""
    others = sorted(set(every) - judged)
    random.Random(0).shuffle(others)
    return sorted(judged) + others[: max(0, size - len(judged))]


def scifact(root: Path, n_queries: int, n_docs: int) -> tuple[dict, dict]:
    """Write the SciFact subset under ``root``; (queries, qrels keyed by file stem)."""
    data = DATA / "beir_scifact"
    qrels = _qrels(data / "qrels" / "test.tsv")
    qids = sorted(qrels)[:n_queries]
    texts = {q["_id"]: q["text"] for q in _jsonl(data / "queries.jsonl")}
    corpus = {d["_id"]: d for d in _jsonl(data / "corpus.jsonl")}
    judged = {did for q in qids for did in qrels[q]}
    folder = root / "research" / "papers" / "scifact"
    folder.mkdir(parents=True, exist_ok=True)
    for did in _subset(judged, list(corpus), n_docs):
        d = corpus[did]
        _write(folder / f"{did}.md", f"# {d['title']}\n\n{d['text']}\n".encode())
    return {q: texts[q] for q in qids}, {q: qrels[q] for q in qids}


def nfcorpus_pdf(root: Path, n_queries: int, n_docs: int) -> tuple[dict, dict]:
    """Copy the NFCorpus PDF subset under ``root``; (queries, qrels keyed by file stem)."""
    data = DATA / "nfcorpus_pdf"
    qrels = _qrels(data / "qrels" / "test.tsv")
    texts = {q["_id"]: q["text"] for q in _jsonl(data / "queries.jsonl")}
    qids = sorted(q for q in qrels if q in texts)[:n_queries]
    every = sorted(p.name for p in (data / "pdf_docs").glob("*.pdf"))
    judged = {name for q in qids for name in qrels[q]} & set(every)
    folder = root / "library" / "nutrition articles"
    folder.mkdir(parents=True, exist_ok=True)
    for name in _subset(judged, every, n_docs):
        _write(folder / name, (data / "pdf_docs" / name).read_bytes())
    stem = {q: {Path(n).stem: g for n, g in qrels[q].items()} for q in qids}
    return {q: texts[q] for q in qids}, stem


def _write(path: Path, data: bytes) -> None:
    """Write ``data`` unless the file holds it already: a second run's sync has nothing to do."""
    if not path.exists() or path.read_bytes() != data:
        path.write_bytes(data)


CORPORA = {"scifact-md": scifact, "nfcorpus-pdf": nfcorpus_pdf}


def _documents(answer: dict) -> list[str]:
    """The answer's sources in the order of their first hit, as file stems."""
    sources = answer["sources"]
    order: list[str] = []
    for hit in answer["results"]:
        source = sources[hit["src"]]["displayPath"] if "src" in hit else hit["source"]  # b5a2db1
        if source not in order:
            order.append(source)
    return [Path(s).stem for s in order]


def _evidence_chars(answer: dict) -> int:
    parents = answer.get("parents") or {}
    sections = parents.values() if isinstance(parents, dict) else parents
    return sum(len(h["text"]) for h in answer["results"]) + sum(len(s) for s in sections)


def _chunks(hit: dict) -> int:
    """Ranked chunks a hit holds: a passage of neighbours holds several (lastChunk)."""
    return hit.get("lastChunk", hit["chunkIndex"]) - hit["chunkIndex"] + 1


def ndcg10(ranked: list[str], grades: dict[str, int]) -> float:
    gain = sum(grades.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranked[:10]))
    ideal = sorted(grades.values(), reverse=True)[:10]
    best = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return gain / best if best else 0.0


def measure(index: Any, queries: dict, qrels: dict, top_k: int, max_tokens: int | None) -> dict:
    """Mean share, hits, documents and nDCG@10 of the answers at one topK and budget."""
    rows = []
    for qid, text in queries.items():
        answer = index.query(text, top_k=top_k, max_tokens=max_tokens)
        wire = json.dumps(answer, ensure_ascii=False, separators=(",", ":"))
        documents = _documents(answer)
        rows.append(
            {
                "evidence": _evidence_chars(answer) / len(wire),
                "chars": len(wire),
                "hits": len(answer["results"]),
                "chunks": sum(_chunks(h) for h in answer["results"]),
                "documents": len(documents),
                "ndcg10": ndcg10(documents, qrels[qid]),
            }
        )
    return {key: round(statistics.fmean(r[key] for r in rows), 3) for key in rows[0]}


def run_corpus(name: str, work: Path, args: argparse.Namespace) -> dict:
    from minirag_store import Index
    from minirag_testkit import model_env

    folder = work / name
    if args.rebuild and folder.exists():
        shutil.rmtree(folder)
    queries, qrels = CORPORA[name](folder / "docs", args.queries, args.docs)
    env = {**model_env(), "BASE_DIR": str(folder / "docs"), "DB_PATH": str(folder / "db")}
    index = Index.open(env)
    job = index.sync()
    print(f"{name}: {job['counts']}", flush=True)
    out: dict[str, Any] = {"documents": job["counts"]["scanned"], "queries": len(queries)}
    for top_k in TOP_KS:
        out[f"top{top_k}"] = {
            "default_budget": measure(index, queries, qrels, top_k, None),
            "no_budget": measure(index, queries, qrels, top_k, 0),
        }
    index.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--docs", type=int, default=1000, help="documents per corpus")
    parser.add_argument(
        "--work", type=Path, default=Path(tempfile.gettempdir()) / "minirag-answers"
    )
    parser.add_argument("--rebuild", action="store_true", help="write and sync the corpora anew")
    parser.add_argument("--corpora", default=",".join(CORPORA))
    args = parser.parse_args()
    meta = provenance()
    figures = {name: run_corpus(name, args.work, args) for name in args.corpora.split(",")}
    print(
        "| corpus | topK | budget | evidence | hits | chunks | documents | nDCG@10 | answer chars |"
    )
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|")
    for name, corpus in figures.items():
        for top_k in TOP_KS:
            for budget, f in corpus[f"top{top_k}"].items():
                print(
                    f"| {name} | {top_k} | {budget} | {f['evidence']} | {f['hits']} "
                    f"| {f['chunks']} | {f['documents']} | {f['ndcg10']} | {f['chars']:.0f} |"
                )
    write_json(RESULTS, {"bench": "answers", "corpora": figures}, meta)
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
