"""The fusions (mixture, weighted RRF, z-scores) against reference implementations, and the
filters."""

from __future__ import annotations

import math
import statistics

import pytest
from hypothesis import given
from hypothesis import strategies as st
from minirag_store.index.search.fusion import (
    KEYWORD_TEMPERATURE,
    VECTOR_TEMPERATURE,
    apply_filters,
    group_cutoff,
    limit_files,
    mixture_fuse,
    rrf_fuse,
    score_fuse,
    softmax,
    zscores,
)


def reference_rrf(vector: list[str], keyword: list[str], w: float) -> dict[str, float]:
    """The RRF formula as documented (k = 60), computed the obvious way."""
    scores: dict[str, float] = {}
    for rank, key in enumerate(vector):
        if key not in vector[:rank]:
            scores[key] = scores.get(key, 0.0) + (1 - w) / (60 + rank + 1)
    for rank, key in enumerate(keyword):
        if key not in keyword[:rank]:
            scores[key] = scores.get(key, 0.0) + w / (60 + rank + 1)
    return scores


ranked = st.lists(st.sampled_from([f"c{i}" for i in range(30)]), max_size=40)


@given(vector=ranked, keyword=ranked, weight=st.floats(0.0, 1.0))
def test_rrf_matches_reference(vector, keyword, weight):
    fused = rrf_fuse(vector, keyword, weight)
    expected = reference_rrf(vector, keyword, weight)
    assert {f.key for f in fused} == set(expected)
    for f in fused:
        assert f.score == pytest.approx(expected[f.key], abs=1e-12)
    scores = [f.score for f in fused]
    assert scores == sorted(scores, reverse=True)


@given(vector=st.lists(st.sampled_from("abcdefgh"), unique=True),
       keyword=st.lists(st.sampled_from("abcdefgh"), unique=True))  # fmt: skip
def test_rrf_weight_one_is_keyword_order_then_vector_order(vector, keyword):
    fused = [f.key for f in rrf_fuse(vector, keyword, 1.0)]
    assert fused[: len(keyword)] == keyword
    assert fused[len(keyword) :] == [k for k in vector if k not in keyword]


def test_rrf_weight_zero_is_vector_order():
    assert [f.key for f in rrf_fuse(["a", "b", "c"], ["c", "d"], 0.0)][:3] == ["a", "b", "c"]


def reference_fusion(
    vector: list[str], keyword: list[tuple[str, float]], sim: dict[str, float], w: float
) -> dict[str, float]:
    """The formula as documented, computed the obvious way (first occurrence counts)."""
    bm25: dict[str, float] = {}
    for key, score in keyword:
        bm25.setdefault(key, score)
    keys = sorted(set(vector) | set(bm25))

    def z(values: list[float]) -> list[float]:
        if not values:
            return []
        mean, sd = statistics.fmean(values), statistics.pstdev(values)
        flat = sd <= 1e-12 * max(1.0, abs(mean))  # no spread: the side adds nothing
        return [0.0 if flat else (v - mean) / sd for v in values]

    sims = z([sim[k] for k in keys])
    bms = z([bm25.get(k, 0.0) for k in keys])
    return {k: (1 - w) * s + w * b for k, s, b in zip(keys, sims, bms, strict=True)}


names = [f"c{i}" for i in range(30)]
keys = st.lists(st.sampled_from(names), max_size=40)
scored = st.lists(st.tuples(st.sampled_from(names), st.floats(0.0, 30.0)), max_size=40)
sims = st.fixed_dictionaries({n: st.floats(-1.0, 1.0) for n in names})


@given(vector=keys, keyword=scored, sim=sims, weight=st.floats(0.0, 1.0))
def test_score_fusion_matches_reference(vector, keyword, sim, weight):
    fused = score_fuse(vector, keyword, sim, weight)
    expected = reference_fusion(vector, keyword, sim, weight)
    assert {f.key for f in fused} == set(expected)
    for f in fused:
        assert f.score == pytest.approx(expected[f.key], abs=1e-9)
    scores = [f.score for f in fused]
    assert scores == sorted(scores, reverse=True)


def test_zscores_of_constant_values_are_zero():
    assert zscores([0.3, 0.3, 0.3]) == [0.0, 0.0, 0.0]
    assert zscores([]) == []
    assert zscores([1.0, 3.0]) == [-1.0, 1.0]


def test_score_weight_one_is_keyword_order_then_vector_order():
    sim = {k: 0.5 for k in "abcdefgh"} | {"h": 0.9, "a": 0.1}
    keyword = [("c", 9.0), ("a", 5.0), ("e", 1.0)]
    fused = [f.key for f in score_fuse(["h", "b", "c", "d"], keyword, sim, 1.0)]
    assert fused == ["c", "a", "e", "h", "b", "d"]


def test_score_weight_zero_is_similarity_order():
    sim = {"a": 0.9, "b": 0.8, "c": 0.7, "d": 0.95}
    fused = score_fuse(["a", "b", "c"], [("c", 12.0), ("d", 3.0)], sim, 0.0)
    assert [f.key for f in fused] == ["d", "a", "b", "c"]


def test_a_strong_keyword_hit_beats_a_slightly_closer_vector_hit():
    """Score fusion keeps margins: a rank-only fusion would put "v" (first vector hit) on
    top; here the keyword side's clear winner does, because the vector side barely
    separates its candidates while BM25 separates "k" by a wide margin."""
    sim = {"v": 0.52, "k": 0.50, "x": 0.49, "y": 0.48}
    keyword = [("k", 14.0), ("x", 2.0), ("y", 1.5)]
    fused = score_fuse(["v", "k", "x", "y"], keyword, sim, 0.5)
    assert fused[0].key == "k"
    assert (fused[0].vector_rank, fused[0].keyword_rank) == (1, 0)


def reference_mixture(
    vector: list[str], keyword: list[tuple[str, float]], sim: dict[str, float], w: float
) -> dict[str, float]:
    """The mixture as documented, computed the obvious way (numpy-free, no shortcuts)."""
    bm25: dict[str, float] = {}
    for key, score in keyword:
        bm25.setdefault(key, score)
    keys = sorted(set(vector) | set(bm25))

    def z(values: list[float]) -> list[float]:
        mean, sd = statistics.fmean(values), statistics.pstdev(values)
        return [0.0 if sd <= 1e-12 * max(1.0, abs(mean)) else (v - mean) / sd for v in values]

    def p(values: list[float], temperature: float) -> list[float]:
        weights = [math.exp(v / temperature) for v in values]  # z-scores are small
        return [x / sum(weights) for x in weights]

    if not keys:
        return {}
    pv = p(z([sim[k] for k in keys]), VECTOR_TEMPERATURE)
    pk = p(z([bm25.get(k, 0.0) for k in keys]), KEYWORD_TEMPERATURE)
    return {k: (1 - w) * a + w * b for k, a, b in zip(keys, pv, pk, strict=True)}


@given(vector=keys, keyword=scored, sim=sims, weight=st.floats(0.0, 1.0))
def test_mixture_matches_reference(vector, keyword, sim, weight):
    fused = mixture_fuse(vector, keyword, sim, weight)
    expected = reference_mixture(vector, keyword, sim, weight)
    assert {f.key for f in fused} == set(expected)
    for f in fused:
        assert f.score == pytest.approx(expected[f.key], abs=1e-9)
    scores = [f.score for f in fused]
    assert scores == sorted(scores, reverse=True)
    if fused:
        assert sum(scores) == pytest.approx(1.0)  # a mixture of two distributions


def test_softmax_is_stable_and_sums_to_one():
    assert softmax([1000.0, 1000.0], 1.0) == [0.5, 0.5]
    assert softmax([], 2.0) == []
    assert softmax([0.0, 2.0], 2.0) == pytest.approx([1 / (1 + math.e), math.e / (1 + math.e)])


def test_mixture_weight_one_is_keyword_order_then_vector_order():
    sim = {k: 0.5 for k in "abcdefgh"} | {"h": 0.9, "a": 0.1}
    keyword = [("c", 9.0), ("a", 5.0), ("e", 1.0)]
    fused = [f.key for f in mixture_fuse(["h", "b", "c", "d"], keyword, sim, 1.0)]
    assert fused == ["c", "a", "e", "h", "b", "d"]


def test_mixture_weight_zero_is_similarity_order():
    sim = {"a": 0.9, "b": 0.8, "c": 0.7, "d": 0.95}
    fused = mixture_fuse(["a", "b", "c"], [("c", 12.0), ("d", 3.0)], sim, 0.0)
    assert [f.key for f in fused] == ["d", "a", "b", "c"]


def _noise_and_a_clear_keyword_hit(seed: int):
    """300 vector candidates whose cosines are noise (an English-only model on Russian
    text: 0.30 ± 0.03, no relation to relevance) and 60 keyword hits, the first one far
    above the rest; the keyword winner sits at a random place of the vector list."""
    import random

    rng = random.Random(seed)
    vector = [f"v{i}" for i in range(300)]
    sim = {k: rng.gauss(0.30, 0.03) for k in vector}
    keyword = [(f"v{i}", 2.0 + rng.random()) for i in rng.sample(range(300), 60)]
    keyword.sort(key=lambda hit: -hit[1])
    keyword[0] = (keyword[0][0], 12.0)
    vector.sort(key=lambda k: -sim[k])
    return vector, keyword, sim


@pytest.mark.parametrize("seed", range(20))
def test_a_side_with_no_signal_does_not_bury_a_clear_match(seed):
    """Where the vector side is noise, the mixture keeps the keyword side's clear winner
    first at the default weight and below."""
    vector, keyword, sim = _noise_and_a_clear_keyword_hit(seed)
    winner = keyword[0][0]
    for weight in (0.3, 0.6):
        assert mixture_fuse(vector, keyword, sim, weight)[0].key == winner


def test_group_cutoff_needs_three_distances_and_a_gap():
    assert group_cutoff([0.1, 0.9], "similar") is None
    assert group_cutoff([0.1, 0.11, 0.12, 0.13], "similar") is None  # even gaps: no boundary
    distances = [0.10, 0.11, 0.12, 0.50, 0.51, 0.90]
    assert group_cutoff(distances, "similar") == 0.12
    assert group_cutoff(distances, "related") == 0.51
    assert group_cutoff([0.10, 0.11, 0.12, 0.50, 0.51, 0.52], "related") is None


def test_apply_filters_order_and_null_distances():
    hits = [("a", None), ("b", 0.10), ("c", 0.11), ("a", 0.12), ("d", 0.60), ("e", 0.61)]
    assert apply_filters(hits, max_distance=0.5) == [1, 2, 3]
    assert apply_filters(hits, grouping="similar") == [0, 1, 2, 3]
    assert apply_filters(hits, max_files=2) == [0, 1, 3]
    assert apply_filters(hits) == list(range(6))


def test_limit_files_keeps_first_distinct_sources():
    assert limit_files(["x", "y", "x", "z", "y"], 2) == [True, True, True, False, True]
