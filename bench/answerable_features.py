"""How far can the evidence an answer has tell answerable from unanswerable queries?

``bench/answerable.py`` measures the product's own signal (``bestMatch``, from each hit's
keyword coverage and vector z-score). This asks whether other evidence of the same two
sides would do better, on the same held-out split and index (``--work`` as there):

* per query, its top 10 hits (topK 30, budget lifted, explained) and, per hit, the hit's
  cosine with the query, each sentence's cosine (the hit's text split at sentence ends,
  embedded by the same model), and the rarity-weighted coverage of the query's words in
  the hit and in its best sentence;
* each feature's AUROC alone, and a logistic regression over all of them, cross-validated
  (5 folds): the best a learned combination of this evidence reaches.

    uv run python bench/answerable_features.py [--set scifact] [--work /tmp/minirag-answerable]
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
from collections.abc import Callable
from pathlib import Path

import answerable as base
import numpy as np
from minirag_store.index.text.terms import words_in
from minirag_store.search import word_counts
from results_io import RESULTS, provenance, write_json

OUT = RESULTS / "answerable_features.json"
SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")
TOP = 10


def evidence(index, query: str) -> dict:
    """The answer's top hits with their cosines, sentence cosines and coverages."""
    table, embedder = index.table(), index.embedder()
    languages = table.languages()
    counts = word_counts(table, query, None)
    weighted = [(w.heads, weight) for w, weight in counts.weights()]
    total = sum(weight for _, weight in weighted) or 1.0

    def coverage(text: str) -> float:
        held = words_in(text, languages)
        return sum(weight for heads, weight in weighted if held.intersection(heads)) / total

    answer = index.query(query, top_k=base.FETCH, explain=True)
    vector = np.asarray(embedder.embed_query(query), dtype=np.float32)
    hits = []
    for hit in answer["results"][:TOP]:
        text = hit["text"]
        sentences = [s for s in SENTENCE.split(text) if len(s.split()) >= 3] or [text]
        cosines = np.asarray(embedder.embed_passages([text, *sentences]), np.float32) @ vector
        hits.append(
            {
                "z": hit.get("match", {}).get("z", 0.0),
                "coverage": hit.get("match", {}).get("coverage", 0.0),
                "cosine": float(cosines[0]),
                "sentence_cosine": float(cosines[1:].max()),
                "sentence_coverage": max(coverage(s) for s in sentences),
            }
        )
    return {"hits": hits, "absent": sum(1 for n in counts.counts if n == 0)}


def _gap(values: list[float]) -> float:
    ranked = sorted(values, reverse=True)
    return ranked[0] - statistics.mean(ranked[1:]) if len(ranked) > 1 else 0.0


def _best(key: str) -> Callable[[dict], float]:
    return lambda r: max((h[key] for h in r["hits"]), default=0.0)


FEATURES: dict[str, Callable[[dict], float]] = {
    "strength (the product's)": lambda r: max(
        (h["z"] + 8 * h["coverage"] for h in r["hits"]), default=0.0
    ),
    "z-score": _best("z"),
    "coverage": _best("coverage"),
    "cosine": _best("cosine"),
    "sentence cosine": _best("sentence_cosine"),
    "sentence coverage": _best("sentence_coverage"),
    "cosine gap (best - mean of the rest)": lambda r: _gap([h["cosine"] for h in r["hits"]]),
    "sentence cosine gap": lambda r: _gap([h["sentence_cosine"] for h in r["hits"]]),
    "words no chunk holds": lambda r: -float(r["absent"]),
}


def cross_validated(x: np.ndarray, y: np.ndarray, folds: int = 5) -> float:
    """AUROC of a logistic regression's held-out scores (standardised features, L2 1)."""

    def fit(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, float]:
        w, c = np.zeros(a.shape[1]), 0.0
        for _ in range(3000):
            p = 1 / (1 + np.exp(-(a @ w + c)))
            w -= 0.1 * (a.T @ (p - b) / len(b) + w / len(b))
            c -= 0.1 * float(np.mean(p - b))
        return w, c

    x = (x - x.mean(0)) / (x.std(0) + 1e-9)
    order = list(range(len(y)))
    random.Random(0).shuffle(order)
    scores = np.zeros(len(y))
    for k in range(folds):
        test = order[k::folds]
        train = [i for i in order if i not in set(test)]
        w, c = fit(x[train], y[train])
        scores[test] = x[test] @ w + c
    return base.auroc(list(scores[y == 1]), list(scores[y == 0]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--set", default="scifact", choices=sorted(base.LOADERS))
    parser.add_argument("--work", type=Path, default=Path("/tmp/minirag-answerable"))
    args = parser.parse_args()
    meta = provenance()
    docs, queries, qrels = base.LOADERS[args.set]()
    first, second, held = base.split_of(args.set, queries, qrels)
    work = args.work / args.set
    index = base.held_out(work, base.build(work / "full", docs), held)
    records = [(1, evidence(index, queries[q])) for q in first]
    records += [(0, evidence(index, queries[q])) for q in second]
    y = np.array([label for label, _ in records], dtype=float)
    x = np.array([[f(r) for f in FEATURES.values()] for _, r in records], dtype=float)
    alone = {
        name: round(base.auroc(list(x[y == 1, i]), list(x[y == 0, i])), 4)
        for i, name in enumerate(FEATURES)
    }
    combined = round(cross_validated(x, y), 4)
    for name, value in alone.items():
        print(f"{value:.3f}  {name}")
    print(f"{combined:.3f}  logistic regression over all of them, 5-fold cross-validated")
    figures = {
        "set": args.set,
        "answerable": int(y.sum()),
        "unanswerable": int(len(y) - y.sum()),
        "auroc": alone,
        "auroc_combined_cv": combined,
    }
    index.close()
    write_json(OUT, figures, meta)


if __name__ == "__main__":
    main()
