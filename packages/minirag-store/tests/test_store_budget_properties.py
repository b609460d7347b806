"""budget.py's invariants on generated answers, with a simple monotone counter (the real
tokenizer's behaviour is tested through the Index in test_store_budget.py)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from minirag_store.budget import fit_query, fit_read, response_tokens


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
    names = [f"/docs/folder/file{i}.md" for i in range(draw(st.integers(1, n)))]
    sections = [draw(texts(0, 4000)) for _ in range(draw(st.integers(0, 8)))]
    hits, sources, parents = [], [], []
    source_at, parent_at = {}, {}
    for rank in range(n):
        name = draw(st.sampled_from(names))
        if name not in source_at:  # sources and sections in the order of their first hit
            source_at[name] = len(sources)
            sources.append({"source": name, "displayPath": name[6:], "title": "T", "hits": 0})
        sources[source_at[name]]["hits"] += 1
        text = draw(texts(1, draw(st.sampled_from([400, 8000])) if rank == 0 else 400))
        locator = draw(st.sampled_from([{}, {"page": rank + 1}, {"slide": 3, "slides": [3, 4]}]))
        hit = {
            "src": source_at[name], "chunkIndex": rank, "score": 1.0 / (rank + 1),
            "distance": None, "locator": locator, "text": text,
        }  # fmt: skip
        section = (
            draw(st.one_of(st.none(), st.integers(0, len(sections) - 1))) if sections else None
        )
        if section is not None:
            if section not in parent_at:
                parent_at[section] = len(parents)
                parents.append(sections[section])
            hit["parent"] = parent_at[section]
        hits.append(hit)
    return {"results": hits, "sources": sources, "roots": ["/docs"], "parents": parents}


def _document(answer, hit) -> str:
    return answer["sources"][hit["src"]]["source"]


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
    if trimmed["hitsLeftOut"]:  # hits go only once every parent has gone; offset reads on
        assert fitted["parents"] == [] and trimmed["nextOffset"] == len(kept)
    else:
        assert "nextOffset" not in trimmed
    for k, h in zip(kept, hits, strict=False):  # each kept hit: its document, its section
        assert _document(fitted, k) == _document(result, h)
        assert k["locator"] == h["locator"] and k["score"] == h["score"]
        if "parent" in k:
            assert fitted["parents"][k["parent"]] == result["parents"][h["parent"]]
        if trimmed["hitTextCut"]:
            assert len(kept) == 1 and h["text"].startswith(k["text"])
        else:
            assert k["text"] == h["text"]
    assert set(fitted["parents"]) <= set(result["parents"])
    assert len(fitted["parents"]) + trimmed["parentsLeftOut"] <= len(result["parents"])
    assert all(i == fitted["sources"].index(s) for i, s in enumerate(fitted["sources"]))
    assert sum(s["hits"] for s in fitted["sources"]) == len(kept)
    assert {_document(fitted, h) for h in kept} == {s["source"] for s in fitted["sources"]}
    assert len(fitted["notice"]) < 240  # one short line, not a paragraph


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
        {"src": i, "chunkIndex": i, "score": 1.0, "distance": 0.1, "locator": {},
         "text": f"word{i} " * 2000}
        for i in range(3)
    ]  # fmt: skip
    hits[0]["parent"], hits[2]["parent"] = 0, 1
    sources = [
        {"source": f"/d/{i}.md", "displayPath": "x", "title": "T", "hits": 1} for i in range(3)
    ]
    result = {"results": hits, "sources": sources, "roots": [], "parents": ["x" * 9000, "y"]}
    fitted = fit_query(result, 1000, count)
    assert response_tokens(fitted, count) <= 1000
    (top,) = fitted["results"]
    assert fitted["trimmed"]["hitTextCut"] and fitted["parents"] == []
    assert hits[0]["text"].startswith(top["text"]) and len(top["text"]) > 1000
    assert fitted["trimmed"]["parentsLeftOut"] == 1 and fitted["trimmed"]["hitsLeftOut"] == 2
    assert fitted["trimmed"]["nextOffset"] == 1 and [s["source"] for s in fitted["sources"]] == [
        "/d/0.md"
    ]
