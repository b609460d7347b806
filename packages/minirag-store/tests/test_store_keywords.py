"""Keyword normalisation: English and Russian stems, identifiers kept whole."""

from __future__ import annotations

from minirag_store.keywords import normalize, normalize_query, tokens


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
    assert normalize("the invoice и склад") == "invoic склад"


def test_query_terms_deduplicated():
    assert normalize_query("stock stocks STOCK") == "stock"


def test_mixed_script_word_is_not_stemmed():
    # A Latin/Cyrillic homoglyph code must match only itself.
    assert tokens("AБC") == ["aбc"]
