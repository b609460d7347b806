"""Fusion of the vector and keyword rankings, and the result filters: pure, no LanceDB.

Two fusions, chosen by ``RAG_FUSION``, both weighted by ``RAG_HYBRID_WEIGHT`` = ``w``:

* ``rrf`` (the default, the documented behaviour): weighted reciprocal rank fusion by
  *position*, ``score = (1 − w) / (60 + r_vec + 1) + w / (60 + r_kw + 1)`` with 0-based
  ranks; a side that did not return a candidate contributes nothing. A cosine distance
  and a BM25 score live on incomparable scales, and ranks sidestep that.
* ``score``: a weighted sum of **standardised scores** (z-scores) over the union of both
  sides' candidates, ``score = (1 − w)·z(cosine) + w·z(bm25)``. Each side is centred and
  scaled by its own spread over the candidates, so unlike RRF it keeps *how much* better
  a candidate scored, not only its position. Every candidate has an exact cosine (the
  caller computes it for keyword-only candidates too); a candidate the keyword side did
  not return has BM25 0, the score of a chunk that shares no query term.

Measured on BEIR SciFact (all-MiniLM-L6-v2, chunk level, first hit per document,
nDCG@10, 300 test / 809 train queries, the same candidates): with the neighbour-window
keyword column (:mod:`minirag_store.keywords`) RRF at w=0.6 gives 0.729 / 0.730 and the
score fusion 0.741 / 0.738 (at w=0.5; 0.739 at 0.6). Without that column: RRF 0.723 /
0.718, score fusion 0.730 / 0.731; RRF with k 10–100 and w 0.5–0.6 stayed within
0.716–0.728, a min-max scaled sum within 0.720–0.729.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Generic, TypeVar

__all__ = [
    "RRF_K",
    "Fused",
    "apply_filters",
    "group_cutoff",
    "limit_files",
    "rrf_fuse",
    "rrf_score",
    "score_fuse",
    "zscores",
]

RRF_K = 60
K = TypeVar("K", bound=Hashable)
_INF = float("inf")


@dataclass(frozen=True)
class Fused(Generic[K]):
    """One fused candidate: its key, fused score and the rank it had on each side."""

    key: K
    score: float
    vector_rank: int | None
    keyword_rank: int | None


def rrf_score(vector_rank: int | None, keyword_rank: int | None, weight: float) -> float:
    """The weighted RRF score of one candidate (ranks are 0-based, None = not returned)."""
    score = 0.0
    if vector_rank is not None:
        score += (1.0 - weight) / (RRF_K + vector_rank + 1)
    if keyword_rank is not None:
        score += weight / (RRF_K + keyword_rank + 1)
    return score


def rrf_fuse(vector: Sequence[K], keyword: Sequence[K], weight: float) -> list[Fused[K]]:
    """Fuse two rankings of keys by weighted RRF, best first.

    Ties (e.g. every vector-only candidate at ``weight == 1``) keep the vector order,
    then the keyword order, so the output is deterministic.
    """
    vec_rank = {key: i for i, key in reversed(list(enumerate(vector)))}
    kw_rank = {key: i for i, key in reversed(list(enumerate(keyword)))}
    keys = list(dict.fromkeys([*vector, *keyword]))
    fused = []
    for k in keys:
        v, w = vec_rank.get(k), kw_rank.get(k)
        fused.append(Fused(k, rrf_score(v, w, weight), v, w))

    def order(f: Fused[K]) -> tuple[float, float, float]:
        v = _INF if f.vector_rank is None else f.vector_rank
        w = _INF if f.keyword_rank is None else f.keyword_rank
        return (-f.score, v, w)

    return sorted(fused, key=order)


def zscores(values: Sequence[float]) -> list[float]:
    """``values`` centred on their mean and divided by their standard deviation
    (all 0.0 when they do not vary, so a constant side adds nothing)."""
    if not values:
        return []
    mean = math.fsum(values) / len(values)
    spread = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / len(values))
    if spread <= 1e-12 * max(1.0, abs(mean)):
        return [0.0] * len(values)
    return [(v - mean) / spread for v in values]


def score_fuse(
    vector: Sequence[K],
    keyword: Sequence[tuple[K, float]],
    similarity: Mapping[K, float],
    weight: float,
) -> list[Fused[K]]:
    """Fuse the vector ranking (keys, best first) with the keyword one (``(key, bm25)``,
    best first), best first.

    ``similarity`` holds the cosine similarity of every key of both sides. Ties keep the
    vector order, then the keyword order, so the output is deterministic; ``weight`` 1
    orders by BM25 and leaves the vector order for candidates without a keyword hit.
    """
    vec_rank = {key: i for i, key in reversed(list(enumerate(vector)))}
    kw_rank: dict[K, int] = {}
    bm25: dict[K, float] = {}
    for i, (key, score) in enumerate(keyword):
        if key not in kw_rank:
            kw_rank[key], bm25[key] = i, score
    keys = list(dict.fromkeys([*vector, *kw_rank]))
    sim_z = zscores([similarity[k] for k in keys])
    kw_z = zscores([bm25.get(k, 0.0) for k in keys])
    last = len(keys)  # ranks after every real one stand for "not returned by this side"
    # Sort plain tuples (the position n keeps keys themselves from being compared).
    ordered = sorted(
        (-((1.0 - weight) * s + weight * b), vec_rank.get(k, last), kw_rank.get(k, last), n)
        for n, (k, s, b) in enumerate(zip(keys, sim_z, kw_z, strict=True))
    )
    return [
        Fused(keys[n], -neg, vec_rank.get(keys[n]), kw_rank.get(keys[n]))
        for neg, _, _, n in ordered
    ]


def group_cutoff(distances: Sequence[float], mode: str) -> float | None:
    """The largest distance kept by ``similar`` (1 group) or ``related`` (2 groups).

    A boundary is a gap between consecutive sorted distances larger than twice the mean
    gap. Returns None (keep everything) with fewer than 3 distances or too few boundaries.
    """
    ordered = sorted(distances)
    if len(ordered) < 3:
        return None
    gaps = [b - a for a, b in pairwise(ordered)]
    mean = sum(gaps) / len(gaps)
    boundaries = [i for i, gap in enumerate(gaps) if gap > 2 * mean]
    groups = 1 if mode == "similar" else 2
    if len(boundaries) < groups:
        return None
    return ordered[boundaries[groups - 1]]


def limit_files(sources: Sequence[str], max_files: int) -> list[bool]:
    """Per hit: True when its source is among the first ``max_files`` distinct ones."""
    seen: set[str] = set()
    keep: list[bool] = []
    for source in sources:
        if source not in seen and len(seen) < max_files:
            seen.add(source)
        keep.append(source in seen)
    return keep


def apply_filters(
    hits: Sequence[tuple[str, float | None]],
    *,
    max_distance: float | None = None,
    grouping: str | None = None,
    max_files: int | None = None,
) -> list[int]:
    """Indices of the fused ``(source, distance)`` hits that survive the filters, in order.

    Order of application: max distance (drops hits without a distance too, since they
    cannot be shown to lie within the bound) → grouping (hits without a distance are
    kept; order never changes) → max files.
    """
    kept = list(range(len(hits)))
    if max_distance is not None:
        kept = [i for i in kept if (d := hits[i][1]) is not None and d <= max_distance]
    if grouping in ("similar", "related"):
        distances = [d for i in kept if (d := hits[i][1]) is not None]
        cutoff = group_cutoff(distances, grouping)
        if cutoff is not None:
            kept = [i for i in kept if (d := hits[i][1]) is None or d <= cutoff]
    if max_files is not None:
        mask = limit_files([hits[i][0] for i in kept], max_files)
        kept = [i for i, keep in zip(kept, mask, strict=True) if keep]
    return kept
