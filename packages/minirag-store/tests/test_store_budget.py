"""RAG_MAX_RESPONSE_TOKENS: query and read_file answers fit it, and say what they left out.

Sizes are measured here independently of the store: the compact JSON an MCP client gets,
counted with the model's own tokenizer (the ``token_counter`` fixture).
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from minirag_store import Index
from minirag_store.errors import InvalidArgumentError, NotFoundError
from minirag_store.search import run_query
from minirag_testkit.answers import chunks_held, expand
from minirag_testkit.documents import coolant_area, field_manual

QUERY = "backups restore verified nightly, queue depth alerts and monitoring"


def size(result, count) -> int:
    """Tokens the client gets: compact JSON, non-ASCII as is."""
    return count(json.dumps(result, ensure_ascii=False, separators=(",", ":")))


def squeeze(text: str) -> str:
    return "".join(text.split())


@pytest.fixture(scope="module")
def untrimmed(with_config):
    """The query's answer with a budget it fits in easily."""
    result = with_config(max_response_tokens=10**7).query(QUERY, top_k=8)
    assert len(chunks_held(result)) == 8
    # A section is sent beside a hit only when the hit is not the whole of it.
    for hit in result["results"]:
        if "parent" in hit:
            assert hit["text"] != result["parents"][hit["parent"]]
    return result


def test_an_answer_that_fits_is_unchanged(with_config, untrimmed, corpus_index, token_counter):
    default = with_config().query(QUERY, top_k=8)  # the default budget, 6,000
    assert size(untrimmed, token_counter) < default_budget(corpus_index)
    assert default == untrimmed
    assert "trimmed" not in default and "notice" not in default


def default_budget(corpus_index) -> int:
    index, _ = corpus_index
    return index.config.max_response_tokens


@pytest.fixture
def areas_index(make_index, docs_root, write_docs):
    """An index whose hits have long parent sections (one ~1,200-character section each)."""
    index = make_index()
    write_docs(index, docs_root, {f"areas/area{n}.md": coolant_area(n) for n in range(6)})
    return index


def budgeted(index: Index, budget: int) -> Index:
    """The same index and model with another RAG_MAX_RESPONSE_TOKENS."""
    config = replace(index.config, max_response_tokens=budget)
    return Index(config, embedder=index.embedder(), table=index.table())


def _hits(answer) -> list[tuple[str, int, str]]:
    """Each hit as (its document, chunk index, text): what a client reads of it."""
    return [(h["source"], h["chunkIndex"], h["text"]) for h in expand(answer)["results"]]


def _chunks(answer) -> set[tuple[str, int]]:
    """The ranked chunks an answer holds (a passage of neighbours holds several), each as
    (its document, chunk index): what topK, offset and ``hitsLeftOut`` count."""
    sources = [s["source"] for s in expand(answer)["sources"]]
    return {(sources[src], chunk) for src, chunk in chunks_held(answer)}


def test_parents_go_first_lowest_ranked_first(areas_index, token_counter):
    query = "coolant inspection pump flush valve pressure"
    whole = budgeted(areas_index, 10**7).query(query, top_k=8)
    parents = whole["parents"]
    assert len(parents) >= 3 and len(chunks_held(whole)) == 8
    biggest = max(token_counter(text) for text in parents)
    budget = size(whole, token_counter) - biggest // 2  # a parent or two must go
    result = budgeted(areas_index, budget).query(query, top_k=8)

    assert size(result, token_counter) <= budget
    trimmed = result["trimmed"]
    assert trimmed["maxTokens"] == budget and not trimmed["hitTextCut"]
    assert trimmed["hitsLeftOut"] == 0 and "nextOffset" not in trimmed
    assert _hits(result) == _hits(whole)  # every hit kept, in order
    assert trimmed["parentsLeftOut"] and result["parents"]
    assert len(result["parents"]) + trimmed["parentsLeftOut"] == len(parents)
    assert set(result["parents"]) < set(parents)
    for hit, before in zip(result["results"], whole["results"], strict=True):
        if "parent" in hit:  # a section still shown is the hit's own
            assert result["parents"][hit["parent"]] == parents[before["parent"]]
    # The parents left out are those of the lowest-ranked hits.
    best: dict[str, int] = {}
    for rank, hit in enumerate(whole["results"]):
        if "parent" in hit:
            best.setdefault(parents[hit["parent"]], rank)
    gone = set(parents) - set(result["parents"])
    assert min(best[t] for t in gone) > max(best[t] for t in result["parents"])
    # the notice says the budget, how many sections went and the call that gets them back
    assert str(budget) in result["notice"]
    assert _many(trimmed["parentsLeftOut"], "section") in result["notice"]
    assert "read_chunk_neighbors" in result["notice"]


def _many(n: int, noun: str) -> str:
    """``n`` and ``noun`` as a notice counts them ("1 section", "2 sections")."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _span(hit) -> range:
    """The chunks one hit holds: ``chunkIndex`` to ``lastChunk`` (absent for one chunk)."""
    return range(hit["chunkIndex"], hit.get("lastChunk", hit["chunkIndex"]) + 1)


def test_then_the_lowest_ranked_hits_never_the_top_one(with_config, token_counter):
    """Past the sections, the lowest-ranked chunks go, never the top one; the hits kept
    keep their order, and the notice's offset returns the chunks left out."""
    whole = with_config(max_response_tokens=10**7)
    untrimmed = whole.query(QUERY, top_k=40)
    ranked = expand(run_query(whole, QUERY, 40))["results"]  # chunk by chunk, best first
    rank = {(h["source"], h["chunkIndex"]): i for i, h in enumerate(ranked)}
    assert _chunks(untrimmed) == set(rank) and len(rank) == 40
    no_parents = {**untrimmed, "parents": [], "results": untrimmed["results"][:3]}
    budget = max(1000, size(no_parents, token_counter) + 150)
    result = with_config(max_response_tokens=budget).query(QUERY, top_k=40)

    assert size(result, token_counter) <= budget
    assert result["parents"] == []
    trimmed = result["trimmed"]
    kept = len(chunks_held(result))
    assert 1 <= kept < 40
    assert _chunks(result) == {(h["source"], h["chunkIndex"]) for h in ranked[:kept]}
    hits = expand(result)["results"]
    best = [min(rank[h["source"], chunk] for chunk in _span(h)) for h in hits]
    assert best[0] == 0 and best == sorted(best)  # the top hit first, ranks unchanged
    passages = expand(untrimmed)["results"]
    for hit in hits:  # a passage as it was, or the part of it whose chunks are kept
        assert any(hit["text"] in p["text"] for p in passages if p["source"] == hit["source"])
    assert trimmed["hitsLeftOut"] == 40 - kept
    assert trimmed["nextOffset"] == kept
    sections = {h["parentId"] for h in ranked[:kept] if h["parentId"] is not None}
    # those of the hits still shown, but for a section a passage holds whole (never sent)
    assert trimmed["parentsLeftOut"] <= len(sections)
    shown = {hit["source"] for hit in hits}
    assert {s["source"] for s in expand(result)["sources"]} == shown
    assert {h["src"] for h in result["results"]} == set(range(len(result["sources"])))
    assert _many(40 - kept, "lower hit") in result["notice"]
    assert f"offset={kept}" in result["notice"]
    # What the notice points at really returns the hits left out.
    rest = whole.query(QUERY, top_k=40 - kept, offset=kept)
    assert _chunks(rest) == _chunks(untrimmed) - _chunks(result)


def test_an_offset_past_every_hit_says_so_and_a_bad_one_is_refused(with_config):
    index = with_config(max_response_tokens=10**7)
    past = index.query(QUERY, top_k=8, offset=400)
    assert past["results"] == [] and "No hits ranked past 400" in past["notice"]
    with pytest.raises(InvalidArgumentError, match="offset must be at most 400, got 401"):
        index.query(QUERY, offset=401)
    with pytest.raises(InvalidArgumentError, match="offset must be at least 0, got -1"):
        index.query(QUERY, offset=-1)


def test_a_hundred_hits_keep_as_many_as_fit(corpus_index, token_counter):
    index, _ = corpus_index
    result = index.query("heavy rain report", top_k=100)  # the default budget
    assert size(result, token_counter) <= index.config.max_response_tokens
    trimmed = result["trimmed"]
    kept = len(chunks_held(result))  # topK, offset and hitsLeftOut count ranked chunks
    assert not trimmed["hitTextCut"] and kept >= 10
    assert all(h["text"] for h in result["results"])
    assert kept + trimmed["hitsLeftOut"] == 100
    assert trimmed["nextOffset"] == kept
    assert _many(trimmed["hitsLeftOut"], "lower hit") in result["notice"]
    assert f"offset={kept}" in result["notice"]


def test_a_top_hit_too_long_alone_is_cut_and_says_so(
    make_index, docs_root, write_docs, token_counter
):
    # Link targets cost nothing in a chunk's budget (readable text), so one chunk's
    # markdown can be far longer than the 1,000-token response budget.
    links = " ".join(
        f"[zebra{i}](https://example.com/a/very/long/path/segment/{i}/with/more/"
        f"folders/below/it/and/yet/more/folders/under/those/ones/{i}/and/{i}/again/"
        f"and/a/long-page-name-{i}-index.html?from=links&page={i}&section={i}#part-{i})"
        for i in range(60)
    )
    index = make_index(RAG_MAX_RESPONSE_TOKENS="1000")
    write_docs(index, docs_root, {"links.md": f"{links}\n"})
    result = index.query("zebra12 zebra13", top_k=3)

    assert size(result, token_counter) <= 1000
    trimmed = result["trimmed"]
    assert trimmed["hitTextCut"] is True and len(result["results"]) == 1
    top = expand(result)["results"][0]
    whole = index.read_chunk_neighbors(top["source"], top["chunkIndex"], before=0, after=0)
    full_text = whole["chunks"][0]["text"]
    assert len(top["text"]) < len(full_text) and full_text.startswith(top["text"])
    assert "top hit" in result["notice"]


LONG_DOC = field_manual(60)


@pytest.fixture
def long_doc_index(make_index, docs_root, write_docs):
    index = make_index(RAG_MAX_RESPONSE_TOKENS="1000")
    write_docs(index, docs_root, {"manual.md": LONG_DOC})
    return index, str(docs_root / "manual.md")


def test_read_file_pages_through_a_long_document(long_doc_index, token_counter):
    index, path = long_doc_index
    whole = Index(
        replace(index.config, max_response_tokens=10**7),
        embedder=index.embedder(),
        table=index.table(),
    ).read_file(file_path=path)
    assert "nextChunk" not in whole and "notice" not in whole
    assert squeeze(whole["text"]) == squeeze(LONG_DOC)

    pages = [index.read_file(file_path=path)]
    while "nextChunk" in pages[-1]:
        assert f"fromChunk={pages[-1]['nextChunk']}" in pages[-1]["notice"]
        pages.append(index.read_file(file_path=path, from_chunk=pages[-1]["nextChunk"]))
        assert len(pages) < 100
    assert len(pages) > 2
    for page in pages:
        assert size(page, token_counter) <= 1000
        assert page["chunkCount"] == whole["chunkCount"] and page["title"] == whole["title"]
    assert "notice" not in pages[-1]
    # Following the notices gives back the whole document, in order, nothing twice.
    assert squeeze("".join(p["text"] for p in pages)) == squeeze(whole["text"])


def test_read_file_refuses_a_start_outside_the_document(long_doc_index):
    index, path = long_doc_index
    count = index.read_file(file_path=path)["chunkCount"]
    with pytest.raises(NotFoundError, match=f"fromChunk {count} does not exist"):
        index.read_file(file_path=path, from_chunk=count)
    with pytest.raises(InvalidArgumentError, match="fromChunk must be at least 0"):
        index.read_file(file_path=path, from_chunk=-1)


def test_a_bad_budget_is_a_config_error_status_still_answers(make_index):
    index = make_index(RAG_MAX_RESPONSE_TOKENS="lots")
    status = index.status()
    assert "RAG_MAX_RESPONSE_TOKENS must be a whole number" in status["configError"]
    with pytest.raises(Exception, match="RAG_MAX_RESPONSE_TOKENS"):
        index.query("anything")


def test_status_reports_the_budget(make_index):
    assert make_index(RAG_MAX_RESPONSE_TOKENS="7000").status()["maxResponseTokens"] == 7000
