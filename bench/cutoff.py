"""Should a query drop the hits that neither side ranks near the top? A relative cut-off on
the fused score, measured before it is made a default.

Why: an identifier query that two documents contain exactly returned, at topK 10, those two
and eight unrelated chunks whose fused scores were a tenth of theirs (the mixture fusion's
keyword side puts nearly all its mass on the exact matches; the vector side's ranking of
the rest is noise for such a query). Dropping every hit whose fused score is below a
fraction ``f`` of the top hit's would return just the two. It must not cost ranking: a
cut-off that lowers nDCG@10 anywhere is not a default.

Each answer is the product's own (``Index.query``, topK 10, no response budget); a
cut-off keeps the hits scoring at least ``f`` x the top hit's score. Per data set and
``f``: nDCG@10 (documents in the order of their first hit) and the mean hits and answer
characters that remain.

* ``scifact``: ``bench/answers.py``'s SciFact subset (1,000 abstracts as ``.md``, its first
  40 test queries), synced there on first use;
* ``nfcorpus``: its NFCorpus subset (1,000 article PDFs, 40 queries with many graded
  documents each: where a cut-off would cost recall first);
* ``xquad-ru``, ``xquad-en``: the 240 XQuAD passages as ``.md`` files, 1,190 questions each.

    uv run python bench/cutoff.py [--work DIR]

Writes bench/results/cutoff.json beside the table it prints.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from pathlib import Path

from answers import _documents, _jsonl, _qrels, _write, ndcg10, nfcorpus_pdf
from answers import scifact as scifact_subset
from results_io import provenance, write_json

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
RESULTS = Path(__file__).resolve().parent / "results" / "cutoff.json"
FRACTIONS = (0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.35, 0.5)
TOP_K = 10


def xquad(root: Path, language: str) -> tuple[dict, dict]:
    """Write the XQuAD passages of ``language`` under ``root``; (queries, qrels)."""
    data = DATA / "xquad_ru_retrieval"
    root.mkdir(parents=True, exist_ok=True)
    for d in _jsonl(data / f"corpus.{language}.jsonl"):
        _write(root / f"{d['_id']}.md", d["text"].lstrip("\ufeff").encode())
    qrels = _qrels(data / "qrels" / "test.tsv")
    texts = {q["_id"]: q["text"] for q in _jsonl(data / f"queries.{language}.jsonl")}
    return {q: texts[q] for q in qrels}, qrels


def answers_of(work: Path, name: str) -> list[tuple[dict, dict]]:
    """Each query's (answer, graded documents) on data set ``name``."""
    from minirag_store import Index
    from minirag_testkit import model_env

    folder = work / {"scifact": "scifact-md", "nfcorpus": "nfcorpus-pdf"}.get(name, name)
    if name == "scifact":  # answers.py's folders and subsets
        queries, qrels = scifact_subset(folder / "docs", 40, 1000)
    elif name == "nfcorpus":
        queries, qrels = nfcorpus_pdf(folder / "docs", 40, 1000)
    else:
        queries, qrels = xquad(folder / "docs", name.split("-")[1])
    env = {**model_env(), "BASE_DIR": str(folder / "docs"), "DB_PATH": str(folder / "db")}
    index = Index.open(env)
    index.sync()
    out = [
        (index.query(text, top_k=TOP_K, max_tokens=0), qrels[qid]) for qid, text in queries.items()
    ]
    index.close()
    return out


def cut(answer: dict, fraction: float) -> dict:
    """``answer`` without the hits scoring below ``fraction`` of its top hit."""
    hits = answer["results"]
    if not hits:
        return answer
    floor = fraction * hits[0]["score"]
    return {**answer, "results": [h for h in hits if h["score"] >= floor]}


def figures(pairs: list[tuple[dict, dict]]) -> dict:
    out = {}
    for fraction in FRACTIONS:
        kept = [(cut(answer, fraction), grades) for answer, grades in pairs]
        out[str(fraction)] = {
            "ndcg10": round(statistics.fmean(ndcg10(_documents(a), g) for a, g in kept), 4),
            "hits": round(statistics.fmean(len(a["results"]) for a, _ in kept), 2),
            "chars": round(statistics.fmean(_chars(a) for a, _ in kept)),
        }
    return out


def _chars(answer: dict) -> int:
    return sum(len(json.dumps(h, ensure_ascii=False)) for h in answer["results"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--work", type=Path, default=Path(tempfile.gettempdir()) / "minirag-answers"
    )
    args = parser.parse_args()
    meta = provenance()
    sets = {
        name: figures(answers_of(args.work, name))
        for name in ("scifact", "nfcorpus", "xquad-ru", "xquad-en")
    }
    print("| data set | cut-off (x top score) | nDCG@10 | hits at topK 10 | hit chars |")
    print("|---|---:|---:|---:|---:|")
    for name, rows in sets.items():
        for fraction, f in rows.items():
            print(f"| {name} | {fraction} | {f['ndcg10']} | {f['hits']} | {f['chars']} |")
    write_json(RESULTS, {"bench": "cutoff", "top_k": TOP_K, "sets": sets}, meta)
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
