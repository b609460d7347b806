"""Weighted RRF against a reference implementation, and the result filters."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from minirag_store.fusion import apply_filters, group_cutoff, limit_files, rrf_fuse


def reference_rrf(vector: list[str], keyword: list[str], w: float) -> dict[str, float]:
    """The formula as written in the issue, computed the obvious way."""
    scores: dict[str, float] = {}
    for rank, key in enumerate(vector):
        if key not in vector[:rank]:
            scores[key] = scores.get(key, 0.0) + (1 - w) / (60 + rank + 1)
    for rank, key in enumerate(keyword):
        if key not in keyword[:rank]:
            scores[key] = scores.get(key, 0.0) + w / (60 + rank + 1)
    return scores


keys = st.lists(st.sampled_from([f"c{i}" for i in range(30)]), max_size=40)


@given(vector=keys, keyword=keys, weight=st.floats(0.0, 1.0))
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
def test_weight_one_is_keyword_order_then_vector_order(vector, keyword):
    fused = [f.key for f in rrf_fuse(vector, keyword, 1.0)]
    assert fused[: len(keyword)] == keyword
    assert fused[len(keyword) :] == [k for k in vector if k not in keyword]


def test_weight_zero_is_vector_order():
    assert [f.key for f in rrf_fuse(["a", "b", "c"], ["c", "d"], 0.0)][:3] == ["a", "b", "c"]


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
