"""Keyword normalisation: English and Russian stems, identifiers kept whole."""

from __future__ import annotations

from minirag_store.keywords import normalize, normalize_query, section_keywords, tokens


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


def test_chunk_entry_holds_title_prefix_and_neighbours_within_its_section():
    chunks = [
        ("Alpha invoices.", 0),
        ("Setup > Stock\n\nBravo warehouse.", 15),
        ("Setup > Stock\n\nCharlie pallets.", 15),
        ("Setup > Stock\n\nDelta forklifts.", 15),
    ]
    entries = [e.split() for e in section_keywords("Manual", chunks)]
    assert entries[0] == ["manual", "alpha", "invoic", "bravo", "warehous"]
    # title, own breadcrumb, then previous + own + next body; never two chunks away
    assert entries[2] == ["manual", "setup", "stock", "bravo", "warehous", "charli", "pallet",
                          "delta", "forklift"]  # fmt: skip
    assert "alpha" not in entries[2] and "delta" not in entries[1]
    assert entries[3][-2:] == ["delta", "forklift"]


def test_russian_words_of_a_neighbour_are_stemmed_too():
    entries = section_keywords("Склад", [("Учёт запасов.", 0), ("Инвентаризация склада.", 0)])
    assert "запас" in entries[1].split() and "склад" in entries[0].split()
