"""Hits as passages: ranked chunks next to each other in one section come back as one hit
(pure: minirag_store.passages and locators.merge), and through a real index."""

from __future__ import annotations

from minirag_store.locators import merge
from minirag_store.passages import join_adjacent, without_scores
from minirag_testkit.answers import chunks_held, expand


def hit(src, chunk, parent, text, score=1.0, **locator):
    out = {"src": src, "chunkIndex": chunk, "score": score, "distance": 0.3}
    if locator:
        out["locator"] = locator
    if parent is not None:
        out["parent"] = parent
    return {**out, "text": text}


def test_neighbours_of_one_section_join_in_document_order_at_the_best_rank():
    ranked = [
        hit(0, 5, 0, "later part. ", score=0.9, page=2),
        hit(1, 0, 1, "another document", score=0.8),
        hit(0, 4, 0, "First part, ", score=0.7, page=1),
    ]
    joined = join_adjacent(ranked)
    assert [(h["src"], h["chunkIndex"], h.get("lastChunk")) for h in joined] == [
        (0, 4, 5),
        (1, 0, None),
    ]
    passage = joined[0]
    assert passage["text"] == "First part, later part. "  # the section's own text
    assert passage["score"] == 0.9  # its best chunk's
    assert passage["locator"] == {"page": 1, "pages": [1, 2]}
    fields = ["src", "chunkIndex", "lastChunk", "score", "distance", "locator", "parent", "text"]
    assert list(passage) == fields


def test_a_chunk_between_two_runs_joins_them():
    ranked = [hit(0, 1, 0, "a"), hit(0, 3, 0, "c"), hit(0, 7, 0, "x"), hit(0, 2, 0, "b")]
    joined = join_adjacent(ranked)
    assert [(h["chunkIndex"], h.get("lastChunk"), h["text"]) for h in joined] == [
        (1, 3, "abc"),
        (7, None, "x"),
    ]


def test_chunks_of_two_sections_or_apart_stay_apart():
    ranked = [
        hit(0, 1, 0, "end of one section"),
        hit(0, 2, 1, "start of the next"),  # next chunk, another section
        hit(0, 4, 1, "two further on"),
        hit(1, 3, 2, "another file"),
        hit(1, 4, None, "no section known"),
    ]
    assert join_adjacent(ranked) == ranked


def test_scores_only_when_asked_for():
    plain = {"src": 0, "chunkIndex": 1, "parent": 0, "text": "t"}
    assert without_scores(hit(0, 1, 0, "t")) == plain


def test_merged_locators_span_first_to_last():
    assert merge({"slide": 3}, {"slide": 4, "slides": [4, 5]}) == {"slide": 3, "slides": [3, 5]}
    assert merge({"sheet": "Q3", "rows": [2, 9]}, {"sheet": "Q3", "rows": [10, 20]}) == {
        "sheet": "Q3",
        "rows": [2, 20],
    }
    assert merge({"page": 4, "headingPath": "A > B"}, {"page": 4, "headingPath": "A > B"}) == {
        "page": 4,
        "headingPath": "A > B",
    }


def _long_section() -> str:
    sentences = " ".join(
        f"Step {n}: the cooling pump of line {n} is checked for leaks and its pressure logged."
        for n in range(1, 80)
    )
    return f"# Pump checks\n\n## Daily round\n\n{sentences}\n"


def test_a_query_gives_neighbouring_chunks_as_one_readable_passage(
    make_index, docs_root, write_docs
):
    index = make_index()
    write_docs(index, docs_root, {"pumps.md": _long_section()})
    query = "cooling pump checked for leaks and pressure logged"
    answer = index.query(query, top_k=6, max_tokens=0)
    explained = index.query(query, top_k=6, max_tokens=0, explain=True)
    assert len(chunks_held(answer)) == 6  # topK counts ranked chunks
    assert len(answer["results"]) < 6  # ... some of them neighbours, joined
    passage = next(h for h in answer["results"] if "lastChunk" in h)
    section = answer["parents"][passage["parent"]]
    assert passage["text"] in section and len(passage["text"]) > 300
    assert "score" not in passage and "distance" not in passage
    assert all("score" in h and "distance" in h for h in explained["results"])
    assert [h["chunkIndex"] for h in explained["results"]] == [
        h["chunkIndex"] for h in answer["results"]
    ]
    neighbours = index.read_chunk_neighbors("pumps.md", passage["chunkIndex"], 0, 0)
    assert passage["text"].startswith(neighbours["chunks"][0]["text"].split("\n")[-1][:40])
    assert expand(answer)["results"][0]["source"].endswith("pumps.md")


def test_reading_on_from_next_offset_repeats_no_chunk(make_index, docs_root, write_docs):
    index = make_index()
    write_docs(index, docs_root, {"pumps.md": _long_section()})
    query = "cooling pump checked for leaks and pressure logged"
    first = index.query(query, top_k=30, max_tokens=1000)
    assert first["trimmed"]["hitsLeftOut"] > 0
    rest = index.query(query, top_k=30, offset=first["trimmed"]["nextOffset"], max_tokens=0)

    def held(answer):
        return {
            c
            for h in answer["results"]
            for c in range(h["chunkIndex"], h.get("lastChunk", h["chunkIndex"]) + 1)
        }

    everything = held(index.query(query, top_k=60, max_tokens=0))
    assert not held(first) & held(rest)
    assert held(first) | held(rest) <= everything


def test_a_passage_that_is_its_whole_section_is_sent_once(make_index, docs_root, write_docs):
    # A short section is one chunk: its hit's text is the whole section, so `parents`
    # would repeat it word for word (2 of 4 hits for a SciFact query did).
    index = make_index()
    short = "# Pumps\n\n## Valves\n\nThe relief valve opens at 4 bar and is checked weekly.\n"
    write_docs(index, docs_root, {"valves.md": short, "pumps.md": _long_section()})
    answer = index.query("relief valve opens at 4 bar", top_k=4, max_tokens=0)
    top = answer["results"][0]
    assert expand(answer)["results"][0]["source"].endswith("valves.md")
    assert "relief valve opens at 4 bar" in top["text"] and "parent" not in top
    assert all(top["text"] != section for section in answer["parents"])
    for hit in answer["results"]:  # a part of a longer section still points at it
        if "parent" in hit:
            assert hit["text"] != answer["parents"][hit["parent"]]
            assert hit["text"] in answer["parents"][hit["parent"]]
    fitted = index.query("relief valve opens at 4 bar", top_k=4, max_tokens=1000)
    assert "parent" not in fitted["results"][0]
    assert fitted.get("trimmed", {}).get("parentsLeftOut", 0) <= len(
        {h["parent"] for h in answer["results"] if "parent" in h}
    )
