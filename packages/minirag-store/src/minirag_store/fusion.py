"""Rank fusion and result filters: pure functions over ranked ids, no LanceDB.

Weighted reciprocal rank fusion (RRF) fuses the vector and keyword rankings by *position*
because a cosine distance and a BM25 score live on incomparable scales:
``score = (1 − w) / (60 + r_vec + 1) + w / (60 + r_kw + 1)`` with 0-based ranks, and a
side that did not return a candidate contributes nothing.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
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
]

RRF_K = 60
K = TypeVar("K", bound=Hashable)
_INF = float("inf")


@dataclass(frozen=True)
class Fused(Generic[K]):
    """One fused candidate: its key, RRF score and the rank it had on each side."""

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
    """Fuse two rankings of keys, best first.

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
