"""budget.py's invariants on generated answers, with a simple monotone counter (the real
tokenizer's behaviour is tested through the Index in test_store_budget.py)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from minirag_store.budget import NAMED_HITS, fit_query, fit_read, response_tokens


def count(text: str) -> int:
    """Four characters a token: monotone in the text, like a real tokenizer's count."""
    return (len(text) + 3) // 4


def texts(shortest: int, longest: int):
    """Texts of any length in the range: a drawn pattern (escapes and Cyrillic among its
    characters) repeated to a drawn length. Drawing thousands of characters one by one
    exceeds Hypothesis's entropy limit (its data_too_large health check)."""
    patterns = st.text(alphabet='ab "\\\nй', min_size=1, max_size=24)
    return st.tuples(patterns, st.integers(shortest, longest)).map(
        lambda drawn: (drawn[0] * (drawn[1] // len(drawn[0]) + 1))[: drawn[1]]
    )


@st.composite
def answers(draw):
    n = draw(st.integers(1, 40))
    sources = [f"/docs/folder/file{i}.md" for i in range(draw(st.integers(1, n)))]
    hits, parents = [], {}
    for rank in range(n):
        source = draw(st.sampled_from(sources))
        parent = draw(st.one_of(st.none(), st.sampled_from([f"p{i}" for i in range(8)])))
        if parent is not None:
            parents[parent] = draw(texts(0, 4000))
        text = draw(texts(1, draw(st.sampled_from([400, 8000])) if rank == 0 else 400))
        locator = draw(st.sampled_from([{}, {"page": rank + 1}, {"slide": 3, "slides": [3, 4]}]))
        hits.append({
            "text": text, "source": source, "title": "T", "chunkIndex": rank,
            "score": 1.0 / (rank + 1), "distance": None, "parentId": parent, "locator": locator,
        })  # fmt: skip
    summary = {}
    for hit in hits:
        entry = summary.setdefault(
            hit["source"],
            {"source": hit["source"], "title": "T", "hits": 0, "displayPath": hit["source"][6:]},
        )
        entry["hits"] += 1
    return {"results": hits, "sources": list(summary.values()), "parents": parents}


@given(answers(), st.integers(1000, 6000))
def test_a_fitted_query_answer_fits_and_keeps_the_ranking(result, budget):
    fitted = fit_query(result, budget, count)
    if response_tokens(result, count) <= budget:
        assert fitted == result
        return
    assert response_tokens(fitted, count) <= budget
    kept, hits = fitted["results"], result["results"]
    trimmed = fitted["trimmed"]
    assert kept and kept[0]["chunkIndex"] == hits[0]["chunkIndex"]  # the top hit stays
    assert [h["chunkIndex"] for h in kept] == [h["chunkIndex"] for h in hits[: len(kept)]]
    assert len(kept) + trimmed["hitsLeftOut"] == len(hits)
    assert len(trimmed["hits"]) == min(NAMED_HITS, trimmed["hitsLeftOut"])
    if trimmed["hitsLeftOut"]:  # hits go only once every parent has gone
        assert fitted["parents"] == {}
    if trimmed["hitTextCut"]:
        assert len(kept) == 1 and hits[0]["text"].startswith(kept[0]["text"])
    else:
        assert all(k == h for k, h in zip(kept, hits, strict=False))
    assert set(fitted["parents"]) <= set(result["parents"])
    assert sum(s["hits"] for s in fitted["sources"]) == len(kept)
    for left in trimmed["hits"]:  # a left-out hit on a page says which one to read
        original = next(h for h in hits if h["chunkIndex"] == left["chunkIndex"])
        assert left.get("page") == original["locator"].get("page")
    if any(h["locator"] for h in hits):
        assert "page (slide)" in fitted["notice"]


@given(st.lists(texts(1, 5000), min_size=1, max_size=30), st.integers(0, 29))
def test_read_pages_fit_and_join_into_the_document(bodies, start):
    start = min(start, len(bodies) - 1)
    base = {
        "source": "s", "sourceType": "data", "title": "T", "chunkCount": len(bodies),
        "text": "", "displayPath": "s",
    }  # fmt: skip
    budget = 1000
    pages, first = [], start
    while True:
        page = fit_read(
            base,
            lambda stop, first=first: "".join(bodies[first:stop]),
            bodies[first:],
            first=first,
            budget=budget,
            count=count,
        )
        assert response_tokens(page, count) <= budget
        pages.append(page)
        if "nextChunk" not in page:
            break
        assert page["nextChunk"] > first
        first = page["nextChunk"]
    cut = any("was cut" in p.get("notice", "") for p in pages)
    joined = "".join(p["text"] for p in pages)
    if not cut:
        assert joined == "".join(bodies[start:])
    else:
        assert len(joined) < len("".join(bodies[start:]))


def test_a_top_hit_longer_than_the_budget_is_cut_to_a_prefix_that_fits():
    hits = [
        {"text": f"word{i} " * 2000, "source": f"/d/{i}.md", "title": "T", "chunkIndex": i,
         "score": 1.0, "distance": 0.1, "parentId": f"p{i}", "locator": {}}
        for i in range(3)
    ]  # fmt: skip
    sources = [{"source": h["source"], "title": "T", "hits": 1, "displayPath": "x"} for h in hits]
    result = {"results": hits, "sources": sources, "parents": {"p0": "x" * 9000, "p2": "y"}}
    fitted = fit_query(result, 1000, count)
    assert response_tokens(fitted, count) <= 1000
    (top,) = fitted["results"]
    assert fitted["trimmed"]["hitTextCut"] and fitted["parents"] == {}
    assert hits[0]["text"].startswith(top["text"]) and len(top["text"]) > 1000
    assert fitted["trimmed"]["parents"] == ["p0"]  # the section of the hit still shown
    assert fitted["trimmed"]["hits"] == [
        {"source": "/d/1.md", "chunkIndex": 1},
        {"source": "/d/2.md", "chunkIndex": 2},
    ]
