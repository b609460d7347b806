"""Hybrid search end to end: real chunker, real offline model, real LanceDB."""

from __future__ import annotations

import pytest
from minirag_store.arguments import TOP_K
from minirag_store.config import FUSIONS
from minirag_store.errors import InvalidArgumentError
from minirag_store.search import run_query
from minirag_testkit.answers import chunks_held, expand


def _first(result) -> str:
    return result["results"][0]["source"]


def _chunks(answer) -> list[tuple[str, int]]:
    """The ranked chunks ``answer`` holds (a passage holds several), as ``(displayPath,
    chunkIndex)`` in hit order: comparable across answers, whose ``src`` indices differ."""
    return [(answer["sources"][src]["displayPath"], chunk) for src, chunk in chunks_held(answer)]


def _span(hit) -> range:
    """The chunks one hit holds: ``chunkIndex`` to ``lastChunk`` (absent for one chunk)."""
    return range(hit["chunkIndex"], hit.get("lastChunk", hit["chunkIndex"]) + 1)


def test_paraphrased_question_finds_its_passage(corpus_index):
    index, root = corpus_index
    result = expand(index.query("How long should a loaf stay in the oven?", top_k=3, explain=True))
    assert _first(result) == str(root / "en/bread.md")
    hit = result["results"][0]
    assert "220 degrees" in hit["text"]
    assert hit["distance"] is not None and 0 <= hit["distance"] < 1
    assert hit["score"] > 0


def test_result_shape_sources_and_parents(corpus_index):
    """Each document and section once; a hit points at them and holds its own passage;
    its scores come only with ``explain``."""
    index, root = corpus_index
    result = index.query("supplier payment run", top_k=5)
    hit = result["results"][0]
    # no locator: a short text file has no page and its heading is its title; no scores
    # and no parent: the passage is its whole section, which is not sent twice
    assert set(hit) == {"src", "chunkIndex", "match", "text"}
    summary = result["sources"][hit["src"]]
    assert summary == {"displayPath": "en/invoices.md", "root": 0, "title": "Accounts payable"}
    assert result["roots"] == [str(root)]  # the absolute path: roots[root] + displayPath
    # a markdown file has no pages: where the hit is, is its heading path, left out when
    # it is only the title (the source says that); the passage does not repeat it
    assert set(hit.get("locator", {})) <= {"headingPath"}
    assert hit.get("locator", {}).get("headingPath", summary["title"]).startswith("Accounts")
    assert not hit["text"].startswith("Accounts payable")
    assert "purchase order" in hit["text"]
    for each in result["results"]:  # a section comes only beside a part of it
        if "parent" in each:
            assert each["text"] in result["parents"][each["parent"]]
            assert each["text"] != result["parents"][each["parent"]]
    assert len(result["parents"]) == len(set(result["parents"]))  # each section once
    assert len(result["sources"]) == len({s["displayPath"] for s in result["sources"]})
    # every source listed is one a hit points at (the hits a source has: those naming it)
    assert {h["src"] for h in result["results"]} == set(range(len(result["sources"])))
    explained = index.query("supplier payment run", top_k=5, explain=True)
    top = explained["results"][0]
    # explain adds the scores, and the figures behind the match's level
    assert {"coverage", "z"} <= set(top["match"])
    plain = {**top, "match": {k: v for k, v in top["match"].items() if k not in ("coverage", "z")}}
    assert {k: v for k, v in plain.items() if k not in ("score", "distance")} == hit
    assert all({"score", "distance"} <= set(h) for h in explained["results"])
    scores = [h["score"] for h in explained["results"]]
    assert scores == sorted(scores, reverse=True)
    assert all(float(f"{h['score']:.4g}") == h["score"] for h in explained["results"])


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("ERR_CONN_RESET", "en/network.md"),
        ("SPEC-112", "en/spec112.md"),
        ("И-112", "ru/склад.md"),
        ("314b0a30-5b04-470b-b9f7-eed2c2bec74a", "en/guid.md"),
    ],
)
def test_identifier_query_finds_its_exact_chunk_first(corpus_index, query, expected):
    index, root = corpus_index
    assert _first(expand(index.query(query, top_k=5))) == str(root / expected)


@pytest.mark.parametrize(
    ("query", "expected"),
    [("invoices", "en/invoices.md"), ("запасов", "ru/склад.md"), ("отпуска", "ru/отпуск.md")],
)
def test_inflected_keyword_matches_other_form(corpus_index, with_config, query, expected):
    _index, root = corpus_index
    keyword_only = with_config(hybrid_weight=1.0)
    assert _first(expand(keyword_only.query(query, top_k=3))) == str(root / expected)


def test_hybrid_finds_identifier_outside_vector_window(corpus_index):
    index, root = corpus_index
    query = "QX-7731 weather"
    target = str(root / "en/recipe.md")
    window = index.table().vector_search(index.embedder().embed_query(query), 50)
    assert target not in {r["source"] for r in window}  # the vector side alone misses it
    hit = expand(index.query(query, top_k=5, explain=True))["results"][0]
    assert hit["source"] == target
    assert hit["distance"] is None  # ranked by the keyword side alone


def test_weight_zero_skips_keyword_search(corpus_index, with_config, monkeypatch):
    vector_only = with_config(hybrid_weight=0.0)
    table = vector_only.table()

    def boom(*args, **kwargs):
        raise AssertionError("keyword search must not run at weight 0")

    monkeypatch.setattr(table, "keyword_search", boom)
    result = expand(vector_only.query("QX-7731 weather", top_k=5, explain=True))
    assert all(h["distance"] is not None for h in result["results"])
    assert str(corpus_index[1] / "en/recipe.md") not in {h["source"] for h in result["results"]}


def test_weight_one_gives_keyword_order(corpus_index, with_config):
    keyword_only = with_config(hybrid_weight=1.0)
    query = "warehouse stock spec"
    keyword = keyword_only.table().keyword_search(query, 50)
    result = expand(keyword_only.query(query, top_k=len(keyword)))
    assert [h["source"] for h in result["results"]] == [r["source"] for r in keyword]


def test_max_distance_drops_far_and_distanceless_hits(corpus_index, with_config):
    index, _ = corpus_index
    query = "QX-7731 weather"  # top_k 10: a 100-row vector window, smaller than the index
    unfiltered = expand(index.query(query, top_k=10, explain=True))["results"]
    assert any(h["distance"] is None for h in unfiltered)
    cutoff = sorted(h["distance"] for h in unfiltered if h["distance"] is not None)[5]
    answer = with_config(max_distance=cutoff).query(query, top_k=10, explain=True)
    filtered = expand(answer)["results"]
    assert filtered
    assert all(h["distance"] is not None and h["distance"] <= cutoff for h in filtered)
    kept = sum(len(_span(h)) for h in unfiltered if h["distance"] is not None)
    assert len(chunks_held(answer)) <= kept


def test_grouping_cuts_at_a_gap_and_keeps_order(corpus_index, with_config):
    index, _ = corpus_index
    query = "QX-7731 weather"  # top_k 10 keeps the window at 100, below the index size
    plain = index.query(query, top_k=10, explain=True)
    similar = with_config(grouping="similar").query(query, top_k=10, explain=True)
    related = with_config(grouping="related").query(query, top_k=10, explain=True)
    keys = _chunks(plain)  # chunk by chunk: a passage of neighbours holds several
    for grouped in (similar, related):
        got = _chunks(grouped)
        assert got == [k for k in keys if k in got]  # a subsequence: order unchanged
        assert grouped["results"][0]["distance"] is None  # distance-less hits are kept
    assert 1 < len(_chunks(similar)) < len(keys)
    assert len(_chunks(similar)) <= len(_chunks(related))
    kept = max(h["distance"] for h in similar["results"] if h["distance"] is not None)
    held = set(_chunks(similar))
    dropped = [h["distance"] for h in expand(plain)["results"]
               if not any((h["displayPath"], c) in held for c in _span(h))]  # fmt: skip
    assert dropped and all(d is not None and d > kept for d in dropped)  # cut by distance


def test_max_files_keeps_first_sources(corpus_index, with_config):
    result = expand(with_config(max_files=2).query("operations guide backups monitoring", top_k=20))
    sources = list(dict.fromkeys(h["source"] for h in result["results"]))
    assert len(sources) == 2
    assert len(result["sources"]) == 2


def test_top_k_clamped_and_validated(corpus_index, with_config):
    index = with_config(max_response_tokens=10**7)  # 100 hits: more than the default budget
    assert len(chunks_held(index.query("heavy rain report", top_k=1000))) == 100
    assert len(chunks_held(index.query("heavy rain report", top_k=3))) == 3
    for bad in (0, -1):
        with pytest.raises(InvalidArgumentError, match="topK"):
            expand(index.query("rain", top_k=bad))
    with pytest.raises(InvalidArgumentError, match="topK must be a whole number"):
        expand(index.query("rain", top_k=2.5))  # type: ignore[arg-type]


def test_top_k_minimum_is_the_first_value_served(corpus_index):
    index, _ = corpus_index
    assert len(chunks_held(index.query("heavy rain report", top_k=TOP_K.minimum))) == TOP_K.minimum
    with pytest.raises(InvalidArgumentError) as refused:
        expand(index.query("heavy rain report", top_k=TOP_K.minimum - 1))
    assert str(refused.value) == f"topK must be at least {TOP_K.minimum}, got {TOP_K.minimum - 1}"


def test_top_k_maximum_is_served_and_one_more_gives_the_same(corpus_index, with_config):
    index = with_config(max_response_tokens=10**7)  # 100 hits: more than the default budget
    assert index.table().counts()[0] > TOP_K.maximum  # enough chunks to see the cap
    at_cap = index.query("heavy rain report", top_k=TOP_K.maximum)
    over = index.query("heavy rain report", top_k=TOP_K.maximum + 1)
    assert len(chunks_held(at_cap)) == TOP_K.maximum
    assert [h["text"] for h in over["results"]] == [h["text"] for h in at_cap["results"]]


def test_the_default_top_k_is_the_store_constant(corpus_index):
    index, _ = corpus_index
    assert len(chunks_held(index.query("heavy rain report"))) == TOP_K.default
    for empty in ("", "   "):
        with pytest.raises(InvalidArgumentError, match="query"):
            run_query(index, empty, 5, None)


def test_scope_stops_at_separator(corpus_index):
    index, root = corpus_index
    result = expand(index.query("zebra migration", top_k=10, scope=str(root / "proj")))
    assert {h["source"] for h in result["results"]} == {str(root / "proj/a.md")}
    both = expand(
        index.query("zebra migration", top_k=10, scope=[str(root / "proj"), str(root / "en")])
    )
    assert str(root / "project-secret/b.md") not in {h["source"] for h in both["results"]}


@pytest.mark.parametrize("suffix", ["%", "_", "' OR '1'='1", "') OR (1=1", "*"])
def test_scope_special_characters_cannot_widen(corpus_index, suffix):
    index, root = corpus_index
    result = expand(index.query("zebra migration", top_k=10, scope=str(root / "pro") + suffix))
    assert result["results"] == []
    assert "scope" in result["notice"]


def test_scope_with_quote_in_path_matches_itself(corpus_index):
    index, root = corpus_index
    result = expand(index.query("zebra migration", top_k=10, scope=str(root / "quo'te")))
    assert {h["source"] for h in result["results"]} == {str(root / "quo'te/c.md")}


def test_parents_fetched_in_one_batch(corpus_index, monkeypatch):
    index, root = corpus_index
    table = index.table()
    calls = []
    original = table.parent_chunks

    def spy(ids):
        calls.append(list(ids))
        return original(ids)

    monkeypatch.setattr(table, "parent_chunks", spy)
    result = expand(index.query("backup restore log auditors on-call incident", top_k=8))
    assert len(calls) == 1
    guide_hits = [h for h in result["results"] if h["source"] == str(root / "guide.md")]
    assert guide_hits
    # the section as sent beside a part of it, or as the passage that holds it whole
    parent = max(
        (result["parents"][h["parentId"]] if h["parentId"] else h["text"] for h in guide_hits),
        key=len,
    )
    # The section comes back once, whole, without the breadcrumb each chunk repeats.
    assert "Backups run nightly at two." in parent
    assert "fifteen minutes." in parent
    assert parent.count("Operations guide") <= 1


def test_empty_index_answers_with_a_notice(make_index):
    result = expand(make_index().query("anything at all", top_k=5))
    assert result["results"] == [] and result["sources"] == [] and result["parents"] == {}
    assert "empty" in result["notice"]


def test_keyword_words_split_across_neighbouring_chunks_find_their_passage(
    corpus_index, tmp_path, write_docs
):
    """Each chunk's keyword entry holds its neighbours' words: a query whose terms sit in
    two adjacent chunks of one section ranks that passage above documents that hold only
    one of the terms (with one chunk per entry, the lemonade recipe came first)."""
    from dataclasses import replace

    from minirag_store import Index

    base, _ = corpus_index
    index = Index(replace(base.config, db_path=tmp_path / "db"), embedder=base.embedder())
    root = tmp_path / "docs"
    boiler = (
        "# Boiler care\n\n"
        "Once a year the heat exchanger needs descaling, because hard water leaves a crust "
        "on the plates that slows the heating and makes the pump work much harder.\n\n"
        "Fill the circuit with a warm solution of citric acid, run the pump for an hour, "
        "then flush it twice with clean water before the boiler is switched back on.\n"
    )
    files = {
        "boiler.md": boiler,
        "kettle.md": (
            "# Kettle\n\nIn a hard water area the kettle needs descaling every month, or "
            "a white crust builds up on the element and the water takes longer to boil.\n"
        ),
        "lemonade.md": (
            "# Lemonade\n\nA pinch of citric acid keeps homemade lemonade fresh for a week "
            "in the fridge, and it sharpens the taste when the lemons are very sweet.\n"
        ),
    }
    counts = write_docs(index, root, files)
    assert counts[str(root / "boiler.md")] >= 2  # the two terms land in different chunks
    keyword_only = Index(
        replace(index.config, hybrid_weight=1.0), embedder=index.embedder(), table=index.table()
    )
    hits = expand(keyword_only.query("descaling citric acid", top_k=3))["results"]
    assert hits[0]["source"] == str(root / "boiler.md")
    index.close()


@pytest.mark.parametrize("fusion", FUSIONS)
def test_every_fusion_finds_paraphrases_and_exact_identifiers(corpus_index, with_config, fusion):
    """RAG_FUSION picks the fusion (mixture by default); each keeps what hybrid search is
    for."""
    _index, root = corpus_index
    index = with_config(fusion=fusion)
    paraphrase = expand(
        index.query("How long should a loaf stay in the oven?", top_k=3, explain=True)
    )
    assert _first(paraphrase) == str(root / "en/bread.md")
    identifier = expand(index.query("QX-7731 weather", top_k=5))["results"][0]
    assert identifier["source"] == str(root / "en/recipe.md")
    scores = [h["score"] for h in paraphrase["results"]]
    assert scores == sorted(scores, reverse=True)
    if fusion == "rrf":  # each side adds at most w / 61 or (1 - w) / 61
        assert all(0 < s <= 1 / 61 for s in scores)
    if fusion == "mixture":  # a mixture of two distributions over the candidates
        assert all(0 < s <= 1 for s in scores)


def test_min_score_ratio_leaves_out_filler_behind_an_exact_match(
    corpus_index, tmp_path, write_docs
):
    """An identifier that two of sixty notes contain: the hits of topK 10 from the other
    notes would be filler, and are left out (a later page still has them, flagged weak);
    RAG_MIN_SCORE_RATIO 0.2 returns the same two notes' passages."""
    import random
    from dataclasses import replace

    from minirag_store import Index

    base, _ = corpus_index
    index = Index(replace(base.config, db_path=tmp_path / "db"), embedder=base.embedder())
    root = tmp_path / "docs"
    rng = random.Random(0)
    words = ["pump", "valve", "coolant", "pressure", "report", "inspection", "gasket", "seal",
             "flow", "meter", "line", "area"]  # fmt: skip
    files = {}
    for i in range(60):
        text = " ".join(rng.choice(words) for _ in range(60))
        if i in (7, 31):
            text += " The dataset key DATAKB9A8B identifies this batch."
        files[f"note{i:02d}.md"] = f"# Note {i}\n\n{text}\n"
    write_docs(index, root, files)
    exact = {str(root / "note07.md"), str(root / "note31.md")}

    default = index.query("DATAKB9A8B", top_k=10, explain=True)
    plain = expand(default)["results"]
    # the filler behind the two notes is left out: nothing supports it
    assert {h["source"] for h in plain} == exact
    assert {(h["match"]["level"], *h["match"]["found"]) for h in plain} == {
        ("strong", "DATAKB9A8B")
    }
    # asked for on purpose (a later page), the filler comes back, flagged weak
    later = index.query("DATAKB9A8B", top_k=8, offset=len(chunks_held(default)))
    assert later["results"] and later["bestMatch"] == "weak"
    assert all(h["match"]["missing"] == ["DATAKB9A8B"] for h in later["results"])

    cut = Index(replace(index.config, min_score_ratio=0.2), embedder=index.embedder(),
                table=index.table())  # fmt: skip
    answer = cut.query("DATAKB9A8B", top_k=10)
    kept = expand(answer)["results"]
    assert {h["source"] for h in kept} == exact
    assert [h["source"] for h in kept] == [h["source"] for h in plain[: len(kept)]]
    assert set(_chunks(answer)) <= set(_chunks(default))
    index.close()
