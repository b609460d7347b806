"""Keyword normalisation: English and Russian stems, identifiers kept whole, word pairs,
and the query weights of words, identifiers, their parts and pairs."""

from __future__ import annotations

from collections import Counter

from minirag_store.index.text.keywords import (
    PART_WEIGHT,
    SINGLE_SEARCH_TOKENS,
    WORD_WEIGHT,
    keyword_query,
    normalize,
    normalize_query,
    pairs,
    section_keywords,
    tokens,
)
from minirag_store.index.text.written import AS_WRITTEN_BONUS, rerank_as_written


def test_english_and_russian_inflections_share_a_stem():
    assert tokens("invoices") == tokens("invoice")
    assert tokens("запасов") == tokens("запасы")
    assert tokens("Ёлки") == tokens("елка")[:1] or tokens("ёлки") == tokens("елки")


def test_identifiers_kept_whole_and_as_parts():
    assert tokens("ERR_CONN_RESET") == ["err_conn_reset", "err", "conn", "reset"]
    assert tokens("SPEC-112")[0] == "spec-112"
    assert tokens("И-112")[0] == "и-112"
    guid = "314b0a30-5b04-470b-b9f7-eed2c2bec74a"
    assert tokens(f"asset {guid.upper()}.")[1] == guid


def test_stop_words_dropped_in_both_languages():
    assert tokens("the invoice и склад") == ["invoic", "склад"]
    assert normalize("the invoice и склад") == "invoic склад invoic+склад"


def test_yo_and_capitals_fold_to_one_form():
    assert tokens("УЧЁТ Учета учёта") == ["учет"] * 3
    assert pairs("СИСТЕМЫ УЧЁТА") == pairs("система учета") == ["систем+учет"]


def test_word_pairs_follow_phrases_not_punctuation():
    # stop words are skipped inside a phrase, punctuation and line breaks end it
    assert pairs("Учёт на складе; запасы, поставки (отчёт)\nсистема") == ["учет+склад"]
    assert pairs("stock stocks STOCK") == []  # a repeated word is no phrase
    # an identifier takes part in a phrase whole, its parts never pair with each other
    assert pairs("raise ERR_SOCKET_CLOSED now") == [
        "rais+err_socket_closed",
        "err_socket_closed+now",
    ]


def test_query_terms_counted_once_then_weighted():
    # the stem at a word's weight, once; the form its stem changes is kept for the re-rank
    assert Counter(normalize_query("stock stocks STOCK").split()) == {"stock": WORD_WEIGHT}
    assert keyword_query("stock stocks STOCK").forms == {"stocks"}


def test_hits_saying_the_query_words_as_typed_rank_first():
    query = keyword_query("Информационная система анализа", frozenset({"russian"}))
    assert query.forms == {"информационная", "система", "анализа"}
    texts = [
        "информационной системы анализом",  # the stems only: no gain
        "Информационная система, АНАЛИЗА и прочее",  # all three as typed, any case
        "информационная системой",  # one of three
        "информационнаяя системы",  # a longer word is not the form
    ]
    ranked = rerank_as_written(query.forms, [1.4, 1.5, 1.39, 1.0], texts)
    assert [i for i, _ in ranked] == [1, 2, 0, 3]
    assert ranked[0][1] == 1.5 * (1 + AS_WRITTEN_BONUS)  # every word as typed
    assert 1.4 < dict(ranked)[2] < 1.39 * (1 + AS_WRITTEN_BONUS / 3)  # one of three: less
    assert dict(ranked)[3] == 1.0
    assert rerank_as_written(frozenset(), [1.0, 2.0], texts[:2]) == [(1, 2.0), (0, 1.0)]


def test_identifier_outweighs_its_parts_in_a_query():
    """The whole identifier weighs as much as all its parts together (at least a word);
    each part half a word; a word pair much less than a word."""
    weights = Counter(normalize_query("ERR_SOCKET_CLOSED retry").split())
    parts = weights["err"] + weights["socket"] + weights["close"]
    assert weights["err_socket_closed"] == parts == 3 * PART_WEIGHT
    assert weights["err"] == weights["socket"] == weights["close"] == PART_WEIGHT
    assert PART_WEIGHT * 2 == WORD_WEIGHT == weights["retri"]
    assert 0 < weights["err_socket_closed+retri"] < WORD_WEIGHT / 4
    two_parts = Counter(normalize_query("REQ-2041").split())
    assert two_parts == {"req-2041": WORD_WEIGHT, "req": PART_WEIGHT, "2041": PART_WEIGHT}


def test_a_long_query_splits_into_words_and_pairs_with_the_same_weights():
    short = keyword_query("late invoice reminder")
    assert short.whole == normalize_query("late invoice reminder")
    assert not short.split  # a phrase of a few words: one exact search
    text = "retry ERR_SOCKET_CLOSED late invoice reminder payment run today"
    long = keyword_query(text)
    assert long.whole == normalize_query(text)
    assert len(long.whole.split()) > SINGLE_SEARCH_TOKENS and long.split
    # the words at their weights over the common factor, each pair once
    assert long.scale == PART_WEIGHT
    words = Counter(long.words.split())
    assert words["err_socket_closed"] == 3 and words["socket"] == 1 and words["retri"] == 2
    assert all("+" in term for term in long.pairs.split())
    whole = Counter(long.whole.split())
    rebuilt = Counter({t: n * long.scale for t, n in words.items()}) + Counter(long.pairs.split())
    assert rebuilt == whole


def test_mixed_script_word_is_not_stemmed():
    # A Latin/Cyrillic homoglyph code must match only itself.
    assert tokens("AБC") == ["aбc"]


def test_chunk_entry_holds_title_prefix_and_neighbours_within_its_section():
    chunks = [
        ("Alpha invoices.", 0),
        ("Setup > Stock\n\nBravo warehouse.", 15),
        ("Setup > Stock\n\nCharlie pallets.", 15),
        ("Setup > Stock\n\nDelta forklifts.", 15),
    ]
    entries = [e.split() for e in section_keywords("Manual", chunks)[0]]
    assert entries[0] == ["manual", "alpha", "invoic", "bravo", "warehous", "alpha+invoic"]
    # title, own breadcrumb, then previous + own + next body, then the own body's pairs;
    # never two chunks away
    assert entries[2] == ["manual", "setup", "stock", "bravo", "warehous", "charli", "pallet",
                          "delta", "forklift", "charli+pallet"]  # fmt: skip
    assert "alpha" not in entries[2] and "delta" not in entries[1]
    assert entries[3][-3:] == ["delta", "forklift", "delta+forklift"]


def test_russian_words_of_a_neighbour_are_stemmed_too():
    entries, _ = section_keywords("Склад", [("Учёт запасов.", 0), ("Инвентаризация склада.", 0)])
    assert "запас" in entries[1].split() and "склад" in entries[0].split()


def test_a_word_cut_between_two_chunks_is_in_both_entries():
    # The chunker cuts Chinese text anywhere: 桥梁 ("bridge") split as 这座 | 桥梁.
    entries, _ = section_keywords("", [("哈德良架设了这座", 0), ("桥梁。此期间", 0)])
    assert all({"这座", "座桥", "桥梁"} <= set(e.split()) for e in entries)
