"""nDCG@10 of keyword-only, vector-only and hybrid search per language: XQuAD's 240
passages and 1,190 questions in Arabic, German, Spanish, Vietnamese, Chinese (from
``xquad_multi/``), Russian and English (from ``xquad_ru_retrieval/``).

Each language's passages are written as ``<id>.md`` files and synced through the product
(``Index.sync``: chunker → offline all-MiniLM-L6-v2, the test model, which knows English
only → LanceDB). Every question asks about one passage. Keyword and vector rankings come
from the table's own searches (30 chunk hits, like ``bench/quality.py``); hybrid is
``Index.query`` (topK 30) at the defaults with the response budget lifted, as
``bench/fusion.py`` does, so the ranking is measured, not the trimming. Documents are
ranked by their first chunk hit; nDCG@10, linear gain.

Beside them: the better of two plain BM25 references computed here on the same passages
(k1 0.9, b 0.4, no stemming, no stop words; whole words split at non-alphanumerics, or
the character bigrams of each such word), as ``shared/data/README.md`` gives them. And
the p50 of a hybrid query (``Index.query``, query embedding included) and of a keyword
search alone, over all questions.

    uv run python bench/languages.py [--only zh,de] [--work /tmp/minirag-languages]
        [--json bench/results/languages.json]

An existing ``--work/<lang>`` index is synced again (a keyword scheme newer than the
index rebuilds its keyword entries in place, never the vectors).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path

from minirag_store import Index
from minirag_testkit import model_env
from minirag_testkit.answers import hit_sources
from quality import doc_order, ndcg10  # bench/ is on the path of a script run from it
from results_io import provenance, write_json

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
RESULTS = Path(__file__).resolve().parent / "results" / "languages.json"
FETCH_CHUNKS = 30  # chunk hits per query (topK): enough for 10 distinct documents
LANGUAGES = ("ar", "de", "es", "vi", "zh", "ru", "en")
MODES = ("keyword", "vector", "hybrid")


def read_jsonl(path: Path) -> Iterable[dict]:
    """The records of a JSON-lines file."""
    with path.open(encoding="utf-8") as f:
        yield from map(json.loads, f)


def load(lang: str) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """Passages (id -> text), questions (id -> text) and each question's passage."""
    if lang in ("ru", "en"):
        root = DATA / "xquad_ru_retrieval"
        corpus, queries = root / f"corpus.{lang}.jsonl", root / f"queries.{lang}.jsonl"
        qrels = root / "qrels" / "test.tsv"
    else:
        root = DATA / "xquad_multi" / lang
        corpus, queries, qrels = root / "corpus.jsonl", root / "queries.jsonl", root / "qrels.tsv"
    # A file read from disk loses its BOM on decoding; some XQuAD contexts carry one.
    docs = {d["_id"]: d["text"].lstrip("\ufeff") for d in read_jsonl(corpus)}
    texts = {q["_id"]: q["text"] for q in read_jsonl(queries)}
    rel = dict(line.split("\t")[:2] for line in qrels.read_text("utf-8").splitlines()[1:])
    return docs, {q: texts[q] for q in rel}, rel


# ---- the plain BM25 references -------------------------------------------------------

_WORD = re.compile(r"[^\W_]+")


def words(text: str) -> list[str]:
    """Lower-cased runs of letters and digits."""
    return _WORD.findall(text.lower())


def bigrams(text: str) -> list[str]:
    """The character bigrams of each word (a one-letter word stays itself)."""
    return [w[i : i + 2] for w in words(text) for i in range(max(1, len(w) - 1))]


def bm25(docs: dict[str, str], analyse: Callable[[str], list[str]]) -> Callable[[str], list[str]]:
    """A query -> ranked passage ids function: plain BM25, k1 0.9, b 0.4."""
    k1, b = 0.9, 0.4
    bags = {d: Counter(analyse(t)) for d, t in docs.items()}
    lengths = {d: sum(c.values()) for d, c in bags.items()}
    avg = sum(lengths.values()) / len(lengths)
    df = Counter(t for c in bags.values() for t in c)
    n = len(docs)
    idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}

    def rank(query: str) -> list[str]:
        scores: Counter[str] = Counter()
        for term in analyse(query):
            if term not in idf:
                continue
            for d, bag in bags.items():
                tf = bag.get(term)
                if tf:
                    norm = k1 * (1 - b + b * lengths[d] / avg)
                    scores[d] += idf[term] * tf * (k1 + 1) / (tf + norm)
        return [d for d, _ in scores.most_common(10)]

    return rank


def references(docs: dict[str, str], queries: dict[str, str], rel: dict[str, str]) -> dict:
    """nDCG@10 of both plain BM25 references."""
    out = {}
    for name, analyse in (("words", words), ("bigrams", bigrams)):
        rank = bm25(docs, analyse)
        out[name] = sum(ndcg10(rank(q), {rel[i]: 1}) for i, q in queries.items()) / len(queries)
    return out


# ---- the product ---------------------------------------------------------------------


def synced(work: Path, docs: dict[str, str]) -> tuple[Index, float]:
    """The index of ``work``, its passages written as .md files and synced; sync seconds."""
    root = work / "docs"
    root.mkdir(parents=True, exist_ok=True)
    for did, text in docs.items():
        path = root / f"{did}.md"
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
    env = {**model_env(), "BASE_DIR": str(root), "DB_PATH": str(work / "db")}
    # Ranking is scored on every hit of FETCH_CHUNKS, not on what fits a client's budget.
    env["RAG_MAX_RESPONSE_TOKENS"] = str(10**9)
    index = Index.open(env)
    start = time.perf_counter()
    job = index.sync()
    if job["state"] != "succeeded":
        raise SystemExit(f"sync of {root} ended {job['state']}: {job}")
    return index, time.perf_counter() - start


def evaluate(index: Index, queries: dict[str, str], rel: dict[str, str]) -> dict:
    """Mean nDCG@10 per mode, and the p50 ms of a hybrid query and of a keyword search."""
    table, embedder = index.table(), index.embedder()
    totals = dict.fromkeys(MODES, 0.0)
    timings: dict[str, list[float]] = {"hybrid": [], "keyword": []}
    index.query("warm up", top_k=FETCH_CHUNKS)
    for qid, text in queries.items():
        want = {rel[qid]: 1}
        start = time.perf_counter()
        hits = table.keyword_search(text, FETCH_CHUNKS)
        timings["keyword"].append(time.perf_counter() - start)
        totals["keyword"] += ndcg10(doc_order(h["source"] for h in hits), want)
        hits = table.vector_search(embedder.embed_query(text), FETCH_CHUNKS)
        totals["vector"] += ndcg10(doc_order(h["source"] for h in hits), want)
        start = time.perf_counter()
        answer = index.query(text, top_k=FETCH_CHUNKS)
        timings["hybrid"].append(time.perf_counter() - start)
        totals["hybrid"] += ndcg10(doc_order(hit_sources(answer)), want)
    out: dict = {m: round(t / len(queries), 4) for m, t in totals.items()}
    out["hybrid_p50_ms"] = round(statistics.median(timings["hybrid"]) * 1000, 1)
    out["keyword_p50_ms"] = round(statistics.median(timings["keyword"]) * 1000, 1)
    return out


def run(lang: str, work: Path) -> dict:
    """One language's figures."""
    docs, queries, rel = load(lang)
    index, sync_s = synced(work / lang, docs)
    try:
        figures = evaluate(index, queries, rel)
        chunks = index.table().counts()[0]
    finally:
        index.close()
    refs = references(docs, queries, rel)
    best = max(refs, key=lambda k: refs[k])
    return {
        "passages": len(docs),
        "questions": len(queries),
        "chunks": chunks,
        "sync_s": round(sync_s, 1),
        **figures,
        "bm25_words": round(refs["words"], 4),
        "bm25_bigrams": round(refs["bigrams"], 4),
        "bm25_best": round(refs[best], 4),
        "bm25_best_is": best,
    }


def table_of(results: dict[str, dict]) -> str:
    """A markdown table: one row per language."""
    lines = [
        "| language | keyword | vector | hybrid | better plain BM25 | hybrid p50 ms "
        "| keyword p50 ms |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for lang, r in results.items():
        lines.append(
            f"| {lang} | {r['keyword']:.3f} | {r['vector']:.3f} | {r['hybrid']:.3f} | "
            f"{r['bm25_best']:.3f} ({r['bm25_best_is']}) | {r['hybrid_p50_ms']:.1f} | "
            f"{r['keyword_p50_ms']:.1f} |"
        )
    return "\n".join(lines)


def main() -> None:
    """Sync and evaluate each language, print the table and write the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="comma-separated language codes")
    parser.add_argument("--work", type=Path, default=Path("/tmp/minirag-languages"))
    parser.add_argument("--json", type=Path, default=RESULTS)
    args = parser.parse_args()
    wanted = [x for x in args.only.split(",") if x] or list(LANGUAGES)
    meta = provenance()
    results = {}
    for lang in wanted:
        results[lang] = run(lang, args.work)
        print(lang, json.dumps(results[lang]), flush=True)
    print(table_of(results))
    write_json(args.json, {"top_k": FETCH_CHUNKS, "results": results}, meta)
    print(f"\nfigures: {args.json}")


if __name__ == "__main__":
    main()
