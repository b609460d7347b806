"""Fusion of the vector and keyword rankings, and the result filters: pure, no LanceDB.

Three fusions, chosen by ``RAG_FUSION``, all weighted by ``RAG_HYBRID_WEIGHT`` = ``w``:

* ``mixture`` (the default): each side's scores become a probability distribution over the
  union of both sides' candidates, a softmax of the side's z-scores (below) at its own
  temperature, and the fused score is their mixture ``(1 − w)·p_vec + w·p_kw``. A side
  whose best candidates stand far above the rest puts most of its mass on them; a side
  with no signal (an English-only model on Russian text) spreads its mass thin over
  hundreds of candidates and hardly moves the ranking, whatever its weight.
  Temperatures :data:`VECTOR_TEMPERATURE` 2.5 and :data:`KEYWORD_TEMPERATURE` 2.0.
* ``rrf``: weighted reciprocal rank fusion by *position*,
  ``score = (1 − w) / (60 + r_vec + 1) + w / (60 + r_kw + 1)`` with 0-based ranks; a side
  that did not return a candidate contributes nothing. Ranks sidestep the incomparable
  scales of cosine and BM25, but also throw away how decisive a side is: a noise vector
  list counts as much as a clear keyword match.
* ``score``: a weighted sum of **standardised scores** (z-scores) over the union of both
  sides' candidates, ``score = (1 − w)·z(cosine) + w·z(bm25)``; it keeps *how much*
  better a candidate scored, but a noise side still adds unit-variance noise.

Every candidate of ``mixture`` and ``score`` has an exact cosine (the caller computes it
for keyword-only candidates too); a candidate the keyword side did not return has BM25 0,
the score of a chunk that shares no query term.

Measured (``bench/fusion.py``, all-MiniLM-L6-v2, nDCG@10, first hit per document, w=0.6;
tuned on the SciFact train queries and the even-id XQuAD questions, see
``bench/results/fusion.json`` for the reported splits): on SciFact train RRF 0.731, score
0.736, mixture 0.733; on Russian XQuAD (where the English model's vector side is close to
noise: vector-only 0.360 against keyword-only 0.947) RRF 0.817, score 0.940, mixture
0.949, and at sentence level (keyword 0.809) RRF 0.604, score 0.792, mixture 0.811.
Temperatures 1.5–3 a side were tried: a sharper keyword side (lower temperature) lets an
exact identifier beat a vector near-duplicate of its parts at lower weights but costs
SciFact (2.0/1.25: 0.724); equal temperatures (2/2) give SciFact 0.738 but let such a
near-duplicate win at w=0.6.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Generic, TypeVar

__all__ = [
    "KEYWORD_TEMPERATURE",
    "RRF_K",
    "VECTOR_TEMPERATURE",
    "Fused",
    "apply_filters",
    "group_cutoff",
    "limit_files",
    "mixture_fuse",
    "rrf_fuse",
    "rrf_score",
    "score_fuse",
    "softmax",
    "zscores",
]

RRF_K = 60
#: Softmax temperatures of the ``mixture`` fusion, in z-score units (see the module doc).
VECTOR_TEMPERATURE = 2.5
KEYWORD_TEMPERATURE = 2.0
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


def _candidates(
    vector: Sequence[K], keyword: Sequence[tuple[K, float]]
) -> tuple[list[K], dict[K, int], dict[K, int], dict[K, float]]:
    """The union of both sides' keys (vector order, then keyword order), each side's
    0-based ranks, and the BM25 score of each keyword hit (its first occurrence)."""
    vec_rank = {key: i for i, key in reversed(list(enumerate(vector)))}
    kw_rank: dict[K, int] = {}
    bm25: dict[K, float] = {}
    for i, (key, score) in enumerate(keyword):
        if key not in kw_rank:
            kw_rank[key], bm25[key] = i, score
    return list(dict.fromkeys([*vector, *kw_rank])), vec_rank, kw_rank, bm25


def _ranked(
    keys: Sequence[K], scores: Sequence[float], vec_rank: Mapping[K, int], kw_rank: Mapping[K, int]
) -> list[Fused[K]]:
    """``keys`` by fused score, best first; ties keep the vector order, then the keyword
    order (a side that did not return a key ranks it after all of its own)."""
    last = len(keys)
    # Sort plain tuples (the position n keeps keys themselves from being compared).
    ordered = sorted(
        (-score, vec_rank.get(k, last), kw_rank.get(k, last), n)
        for n, (k, score) in enumerate(zip(keys, scores, strict=True))
    )
    return [
        Fused(keys[n], -neg, vec_rank.get(keys[n]), kw_rank.get(keys[n]))
        for neg, _, _, n in ordered
    ]


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
    keys, vec_rank, kw_rank, bm25 = _candidates(vector, keyword)
    sim_z = zscores([similarity[k] for k in keys])
    kw_z = zscores([bm25.get(k, 0.0) for k in keys])
    scores = [(1.0 - weight) * s + weight * b for s, b in zip(sim_z, kw_z, strict=True)]
    return _ranked(keys, scores, vec_rank, kw_rank)


def softmax(values: Sequence[float], temperature: float) -> list[float]:
    """``exp(v / temperature)`` normalised to sum 1 (computed stably)."""
    if not values:
        return []
    top = max(values)
    weights = [math.exp((v - top) / temperature) for v in values]
    total = math.fsum(weights)
    return [w / total for w in weights]


def mixture_fuse(
    vector: Sequence[K],
    keyword: Sequence[tuple[K, float]],
    similarity: Mapping[K, float],
    weight: float,
    temperatures: tuple[float, float] = (VECTOR_TEMPERATURE, KEYWORD_TEMPERATURE),
) -> list[Fused[K]]:
    """Fuse like :func:`score_fuse` (same arguments, same tie order), but mix the two
    sides' *distributions*: each side's z-scores become a softmax over the candidates
    (``temperatures`` = vector, keyword), and the fused score is
    ``(1 − w)·p_vec + w·p_kw``, in (0, 1]."""
    keys, vec_rank, kw_rank, bm25 = _candidates(vector, keyword)
    p_vec = softmax(zscores([similarity[k] for k in keys]), temperatures[0])
    p_kw = softmax(zscores([bm25.get(k, 0.0) for k in keys]), temperatures[1])
    scores = [(1.0 - weight) * v + weight * b for v, b in zip(p_vec, p_kw, strict=True)]
    return _ranked(keys, scores, vec_rank, kw_rank)


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
    scores: Sequence[float] = (),
    min_score_ratio: float = 0.0,
    max_distance: float | None = None,
    grouping: str | None = None,
    max_files: int | None = None,
) -> list[int]:
    """Indices of the fused ``(source, distance)`` hits that survive the filters, in order.

    Order of application: min score ratio (drops hits whose fused score, from ``scores``,
    is below ``min_score_ratio`` × the top hit's) → max distance (drops hits without a
    distance too, since they cannot be shown to lie within the bound) → grouping (hits
    without a distance are kept; order never changes) → max files.
    """
    kept = list(range(len(hits)))
    if min_score_ratio > 0 and scores:
        floor = min_score_ratio * max(scores)
        kept = [i for i in kept if scores[i] >= floor]
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
