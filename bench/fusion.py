"""nDCG@10 of keyword-only, vector-only and hybrid search (every fusion) on SciFact and on
Russian XQuAD, each split into the queries fusions are tuned on and the ones reported.

Data sets (all indexed through the real pipeline: chunker → offline all-MiniLM-L6-v2 →
LanceDB, the test model, which knows English only):

* ``scifact``: BEIR SciFact, 5,183 abstracts. Tuned on the 809 train queries, reported on
  the 300 test queries. The index is the one ``bench/quality.py --keep DIR`` builds; pass
  a copy of DIR with ``--scifact`` (this script re-writes its keyword column when the
  keyword scheme changed, via ``maintain()``, never its vectors).
* ``xquad-ru``: XQuAD RU as retrieval (CC BY-SA 4.0), 240 Russian passages, 1,190
  Russian questions, one relevant passage each. An English-only model carries little
  signal there: the measurement of "a weak vector side must not make search worse".
* ``xquad-ru-sent``: the same questions against the 1,250 sentences of those passages
  (a sentence is relevant when it overlaps the answer): harder for the keyword side.

XQuAD questions whose hex id is even are the tuning split, odd ones are reported.
Keyword and vector rankings come from the table's own searches (30 chunk hits, like
``bench/quality.py``); hybrid goes through ``Index.query`` (topK 30) with each fusion of
``RAG_FUSION``. Documents are ranked by their first chunk hit; nDCG@10, linear gain.

    uv run python bench/fusion.py --scifact /tmp/scifact-copy [--work /tmp/minirag-fusion]
        [--only xquad-ru,xquad-ru-sent] [--json bench/results/fusion.json]
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from minirag_store import Index
from minirag_store.config import FUSIONS
from minirag_store.index.write.writer import Document
from minirag_store.ingest.operations import writer_for
from minirag_testkit import model_env
from minirag_testkit.answers import hit_sources
from quality import doc_order, ndcg10  # bench/ is on the path of a script run from it
from results_io import provenance, write_json

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
RESULTS = Path(__file__).resolve().parent / "results" / "fusion.json"
FETCH_CHUNKS = 30  # chunk hits per query (topK): enough for 10 distinct documents
SPLITS = ("tune", "report")


@dataclass
class Dataset:
    """One indexed collection and its judged queries, by split."""

    name: str
    index: Index
    queries: dict[str, dict[str, str]]  # split -> query id -> text
    qrels: dict[str, dict[str, int]]  # query id -> doc id -> grade


def read_jsonl(path: Path) -> Iterable[dict]:
    """The records of a JSON-lines file."""
    with path.open(encoding="utf-8") as f:
        yield from map(json.loads, f)


def read_qrels(path: Path) -> dict[str, dict[str, int]]:
    """query id -> doc id -> grade, from a BEIR qrels TSV with a header."""
    qrels: dict[str, dict[str, int]] = {}
    for line in path.read_text(encoding="utf-8").splitlines()[1:]:
        qid, did, score = line.split("\t")
        qrels.setdefault(qid, {})[did] = int(score)
    return qrels


def open_index(work: Path) -> Index:
    """The Index over ``work/docs`` + ``work/db`` with the offline test model."""
    env = {**model_env(), "BASE_DIR": str(work / "docs"), "DB_PATH": str(work / "db")}
    # Ranking is scored on every hit of FETCH_CHUNKS, not on what fits a client's budget.
    env["RAG_MAX_RESPONSE_TOKENS"] = str(10**9)
    return Index.open(env)


def build(index: Index, root: Path, docs: dict[str, tuple[str, str]]) -> None:
    """Write ``docs`` (id -> (title, markdown)) as ``<id>.md`` under root and index them."""
    documents = []
    for did, (title, text) in docs.items():
        path = root / f"{did}.md"
        path.write_text(text, encoding="utf-8")
        documents.append(Document(str(path), "file", title, text, file_hash=did, size=len(text)))
    writer = writer_for(index)
    for _ in writer.write(documents):
        pass
    writer.finish()


def scifact(work: Path) -> Dataset:
    """SciFact over an index built by ``bench/quality.py --keep`` (a copy of it)."""
    if not (work / "db").is_dir():
        raise SystemExit(f"no SciFact index in {work}: run bench/quality.py --keep {work}")
    data = DATA / "beir_scifact"
    texts = {q["_id"]: q["text"] for q in read_jsonl(data / "queries.jsonl")}
    train, test = read_qrels(data / "qrels" / "train.tsv"), read_qrels(data / "qrels" / "test.tsv")
    index = open_index(work)
    index.table().maintain()  # a keyword scheme newer than the index: entries rebuilt here
    queries = {"tune": {q: texts[q] for q in train}, "report": {q: texts[q] for q in test}}
    return Dataset("scifact", index, queries, {**train, **test})


def xquad(work: Path, sentences: bool) -> Dataset:
    """XQuAD RU passages (or sentences), indexed into ``work`` on first use."""
    data = DATA / "xquad_ru_retrieval"
    corpus = "corpus_sentences.ru.jsonl" if sentences else "corpus.ru.jsonl"
    qrels = read_qrels(data / "qrels" / ("test_sentences.tsv" if sentences else "test.tsv"))
    index = open_index(work) if (work / "db").is_dir() else None
    if index is None:
        (work / "docs").mkdir(parents=True, exist_ok=True)
        index = open_index(work)
        # A file read from disk loses its BOM on decoding; some XQuAD contexts carry one.
        docs = {d["_id"]: (d["_id"], d["text"].lstrip("\ufeff")) for d in read_jsonl(data / corpus)}
        build(index, work / "docs", docs)
    index.table().maintain()
    texts = {q["_id"]: q["text"] for q in read_jsonl(data / "queries.ru.jsonl")}
    queries: dict[str, dict[str, str]] = {"tune": {}, "report": {}}
    for qid in qrels:
        queries[SPLITS[int(qid, 16) % 2]][qid] = texts[qid]
    return Dataset("xquad-ru-sent" if sentences else "xquad-ru", index, queries, qrels)


def variant(index: Index, **changes) -> Index:
    """An Index over the same model and table with some config fields changed."""
    other = Index(replace(index.config, **changes))
    other._embedder_obj, other._table_obj = index.embedder(), index.table()
    return other


def rankers(index: Index) -> dict[str, Callable[[str], list[str]]]:
    """Each retrieval mode as query -> ranked document ids."""
    table, embedder = index.table(), index.embedder()

    def vector(text: str) -> list[str]:
        hits = table.vector_search(embedder.embed_query(text), FETCH_CHUNKS)
        return doc_order(r["source"] for r in hits)

    def keyword(text: str) -> list[str]:
        return doc_order(r["source"] for r in table.keyword_search(text, FETCH_CHUNKS))

    def hybrid(fused: Index) -> Callable[[str], list[str]]:
        return lambda text: doc_order(hit_sources(fused.query(text, top_k=FETCH_CHUNKS)))

    modes = {"vector": vector, "keyword": keyword}
    for fusion in FUSIONS:
        modes[f"hybrid {fusion}"] = hybrid(variant(index, fusion=fusion))
    return modes


def evaluate(data: Dataset) -> dict[str, dict[str, float]]:
    """split -> mode -> mean nDCG@10."""
    modes = rankers(data.index)
    out: dict[str, dict[str, float]] = {}
    for split in SPLITS:
        queries = data.queries[split]
        totals = dict.fromkeys(modes, 0.0)
        for qid, text in queries.items():
            for mode, rank in modes.items():
                totals[mode] += ndcg10(rank(text), data.qrels[qid])
        out[split] = {m: round(t / len(queries), 4) for m, t in totals.items()}
        out[split]["queries"] = len(queries)
    return out


def table_of(results: dict[str, dict[str, dict[str, float]]]) -> str:
    """A markdown table: one row per data set and split, one column per mode."""
    modes = [m for m in next(iter(results.values()))["report"] if m != "queries"]
    lines = [
        "| data set | split | queries | " + " | ".join(modes) + " |",
        "|---|---|---:|" + "---:|" * len(modes),
    ]
    for name, splits in results.items():
        for split in SPLITS:
            row = splits[split]
            cells = " | ".join(f"{row[m]:.3f}" for m in modes)
            lines.append(f"| {name} | {split} | {row['queries']} | {cells} |")
    return "\n".join(lines)


def main() -> None:
    """Index what is missing, evaluate every mode, print the table and write the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scifact", type=Path, help="a copy of bench/quality.py's --keep dir")
    parser.add_argument("--work", type=Path, default=Path("/tmp/minirag-fusion"))
    parser.add_argument("--only", default="", help="comma-separated data set names")
    parser.add_argument("--json", type=Path, default=RESULTS)
    args = parser.parse_args()
    wanted = set(filter(None, args.only.split(",")))
    meta = provenance()
    makers: dict[str, Callable[[], Dataset]] = {
        "xquad-ru": lambda: xquad(args.work / "xquad-ru", sentences=False),
        "xquad-ru-sent": lambda: xquad(args.work / "xquad-ru-sent", sentences=True),
    }
    if args.scifact is not None:
        makers["scifact"] = lambda: scifact(args.scifact)
    results = {}
    for name, make in makers.items():
        if wanted and name not in wanted:
            continue
        start = time.perf_counter()
        data = make()
        results[name] = evaluate(data)
        data.index.close()
        print(f"{name}: {time.perf_counter() - start:.0f} s", flush=True)
    print("\nnDCG@10 (document level, first chunk hit; tune = used to choose, report = result)\n")
    print(table_of(results))
    if args.json.is_file():  # a run of some data sets keeps the others' last figures
        results = {**json.loads(args.json.read_text())["results"], **results}
    write_json(args.json, {"fetch_chunks": FETCH_CHUNKS, "results": results}, meta)


if __name__ == "__main__":
    main()
