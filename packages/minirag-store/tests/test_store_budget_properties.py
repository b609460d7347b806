"""budget.py's invariants on generated answers, with a simple monotone counter (the real
tokenizer's behaviour is tested through the Index in test_store_budget.py)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from minirag_store.budget import fit_query, fit_read, response_tokens
from minirag_store.locators import add_places
from minirag_testkit.answers import chunks_held


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
    """A ranked answer as :func:`minirag_store.search.run_query` makes it: one chunk a hit,
    best first, with scores; a document's chunks drawn near each other and its sections
    runs of its chunks, so neighbours of one section often rank apart and join."""
    n = draw(st.integers(1, 40))
    names = [f"/docs/folder/file{i}.md" for i in range(draw(st.integers(1, n)))]
    sections = [draw(texts(0, 4000)) for _ in range(draw(st.integers(0, 8)))]
    hits, sources, parents = [], [], []
    source_at, parent_at = {}, {}
    held: dict[str, set[int]] = {}
    places, section_of = {}, {}
    for rank in range(n):
        name = draw(st.sampled_from(names))
        if name not in source_at:  # sources and sections in the order of their first hit
            source_at[name] = len(sources)
            sources.append({"source": name, "displayPath": name[6:], "title": "T"})
            held[name] = set()
            places[name] = draw(st.sampled_from(["", "page", "slide"]))  # a document's kind
            section_of[name] = draw(st.integers(1, 5)) if sections else 0  # chunks a section
        free = sorted(set(range(len(held[name]) + 4)) - held[name])
        chunk = draw(st.sampled_from(free))
        held[name].add(chunk)
        text = draw(texts(1, draw(st.sampled_from([400, 8000])) if rank == 0 else 400))
        place = places[name]
        hit = {
            "src": source_at[name], "chunkIndex": chunk, "score": 1.0 / (rank + 1),
            "distance": None if rank % 3 == 0 else rank / 100,
            "locator": {place: chunk // 2 + 1} if place else {}, "text": text,
        }  # fmt: skip
        key = (name, chunk // section_of[name]) if sections else None
        if key is not None and key not in parent_at:
            section = draw(st.one_of(st.none(), st.integers(0, len(sections) - 1)))
            parent_at[key] = None if section is None else len(parents)
            if section is not None:
                parents.append(sections[section])
        if key is not None and parent_at[key] is not None:
            hit["parent"] = parent_at[key]
        hits.append(hit)
    add_places(sources, hits)
    return {"results": hits, "sources": sources, "roots": ["/docs"], "parents": parents}


def _document(answer, hit) -> str:
    return answer["sources"][hit["src"]]["source"]


def _span(hit) -> range:
    """The chunks one hit holds: ``chunkIndex`` to ``lastChunk`` (absent for one chunk)."""
    return range(hit["chunkIndex"], hit.get("lastChunk", hit["chunkIndex"]) + 1)


@given(answers(), st.integers(1000, 6000), st.booleans())
def test_a_fitted_query_answer_fits_and_keeps_the_ranking(result, budget, explain):
    """The answer as the client gets it fits the budget; it holds the top-ranked chunks
    (never losing the top one), neighbours of a section joined into one passage at its
    best chunk's rank, and says what it left out; scores only with ``explain``."""
    fitted = fit_query(result, budget, count, explain=explain)
    hits = result["results"]
    rank = {(_document(result, h), h["chunkIndex"]): i for i, h in enumerate(hits)}
    if response_tokens(result, count) <= budget:  # shaped, an answer is never larger
        assert "trimmed" not in fitted and "notice" not in fitted
    assert response_tokens(fitted, count) <= budget
    kept = fitted["results"]
    trimmed = fitted.get("trimmed", {"hitsLeftOut": 0, "parentsLeftOut": 0, "hitTextCut": False})
    chunks = [rank[fitted["sources"][src]["source"], c] for src, c in chunks_held(fitted)]
    assert sorted(chunks) == list(range(len(chunks)))  # the top-ranked chunks, each once
    assert len(chunks) + trimmed["hitsLeftOut"] == len(hits)
    held = [[rank[_document(fitted, k), c] for c in _span(k)] for k in kept]  # doc order
    best = [min(ranks) for ranks in held]
    assert best[0] == 0 and best == sorted(best)  # the top hit first, ranks unchanged
    if trimmed["hitsLeftOut"]:  # hits go only once every parent has gone; offset reads on
        assert fitted["parents"] == [] and trimmed["nextOffset"] == len(chunks)
    else:
        assert "nextOffset" not in trimmed
    for k, ranks in zip(kept, held, strict=True):
        _check_passage(k, [hits[r] for r in ranks], hits[min(ranks)], fitted, result,
                       explain=explain, cut=trimmed["hitTextCut"])  # fmt: skip
    holder = {chunk: i for i, ranks in enumerate(held) for chunk in ranks}
    for chunk, i in holder.items():  # neighbours of one section are one hit, not two
        after = rank.get((_document(result, hits[chunk]), hits[chunk]["chunkIndex"] + 1))
        if after in holder and holder[after] != i:
            assert hits[after].get("parent", -1) != hits[chunk].get("parent", -2)
    # a passage that is all of its section is sent without it: not given, not left out
    whole = {
        hits[ranks[0]]["parent"]
        for ranks in held
        if "parent" in hits[ranks[0]]
        and "".join(hits[r]["text"] for r in ranks) == result["parents"][hits[ranks[0]]["parent"]]
    }
    sections = {hits[r]["parent"] for r in chunks if "parent" in hits[r]} - whole
    assert set(fitted["parents"]) <= set(result["parents"])
    # the sections of the hits shown: each given, or counted as left out
    assert len(fitted["parents"]) + trimmed["parentsLeftOut"] == len(sections)
    assert all(i == fitted["sources"].index(s) for i, s in enumerate(fitted["sources"]))
    assert {h["src"] for h in kept} == set(range(len(fitted["sources"])))
    assert {_document(fitted, h) for h in kept} == {s["source"] for s in fitted["sources"]}
    assert len(fitted.get("notice", "")) < 240  # one short line, not a paragraph


def _check_passage(hit, parts, best, fitted, result, *, explain: bool, cut: bool) -> None:
    """``hit`` is the ranked chunks ``parts`` (document order) of one section: their text
    in order, where they are, and their best chunk ``best``'s scores with ``explain``."""
    assert {h.get("parent") for h in parts} == {parts[0].get("parent")}  # one section
    if "parent" in hit:
        assert fitted["parents"][hit["parent"]] == result["parents"][parts[0]["parent"]]
    if explain:
        assert (hit["score"], hit["distance"]) == (best["score"], best["distance"])
    else:
        assert "score" not in hit and "distance" not in hit
    for place in ("page", "slide"):
        at = [h["locator"][place] for h in parts if place in h["locator"]]
        if at:  # from the first chunk's place to the last one's
            assert hit["locator"][place] == min(at)
            assert hit["locator"].get(place + "s") == (
                [min(at), max(at)] if len(set(at)) > 1 else None
            )
    if not any(h["locator"] for h in parts):
        assert not hit.get("locator")
    whole = "".join(h["text"] for h in parts)
    if cut:
        assert len(fitted["results"]) == 1 and whole.startswith(hit["text"])
        assert hit["text"] != whole
    else:
        assert hit["text"] == whole


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
    sources = [{"source": f"/d/{i}.md", "displayPath": "x", "title": "T"} for i in range(3)]
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
