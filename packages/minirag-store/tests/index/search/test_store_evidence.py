"""How a hit's level and an answer's padding follow from the evidence (pure: no index)."""

from __future__ import annotations

from minirag_store.index.search.evidence import (
    S_PARTIAL,
    S_STRONG,
    Judged,
    WordCounts,
    judge,
    level,
    padding,
)
from minirag_store.index.text.terms import query_words, words_in


def test_levels_from_both_sides():
    assert level(None, S_STRONG) == "strong"
    assert level(0.0, S_PARTIAL) == "partial"
    assert level(0.0, S_PARTIAL - 0.01) == "weak"
    # every distinctive word held, and some vector standing: an exact identifier's document
    assert level(1.0, S_PARTIAL - 4.0 + 0.01) == "strong"
    # without a vector side (the ANN path): coverage alone
    assert [level(c, None) for c in (1.0, 0.5, 0.2, None)] == ["strong", "partial", "weak", "weak"]


def test_query_words_keep_their_typed_form_and_know_identifiers():
    words = query_words("What broke ERR_CONN_RESET in v2 of the Pumps?")
    # "what", "in", "of", "the": stop words, no query words
    assert [(w.typed, w.code) for w in words] == [
        ("broke", False), ("ERR_CONN_RESET", True), ("v2", True), ("Pumps", False),
    ]  # fmt: skip
    assert words[-1].heads == ("pump",)
    assert "err_conn_reset" in words_in("Log: ERR_CONN_RESET at noon") and "pump" in words_in(
        "one pump"
    )


def _answer(query: str, counts: list[int], texts: list[str], chunks: int = 1000) -> tuple:
    words = query_words(query)
    got = WordCounts(words, counts, chunks, searchable=True)
    judged = judge(got, [words_in(t) for t in texts], [0.5] * len(texts), (0.1, 0.1))
    return got, judged


def test_padding_behind_a_rare_identifier_only():
    texts = ["lot DATAKB9A8B passed", "lot DATAKB9A8B retested"] + ["pump report"] * 6
    got, judged = _answer("DATAKB9A8B", [2], texts)
    assert [j.level for j in judged[:2]] == ["strong", "strong"]
    sources = ["a", "b", "a", "c", "d", "e", "f", "g"]  # the third: batch a's own next chunk
    assert padding(got, judged, sources) == [False, False, False] + [True] * 5
    # a plain rare word: a relevant passage may say it otherwise; nothing is left out
    got, judged = _answer("copeptin", [2], ["copeptin rises", "copeptin falls"] + ["x"] * 6)
    assert not any(padding(got, judged, list("abcdefgh")))
    # an identifier more chunks hold than the answer has hits: those past may hold it too
    got, judged = _answer("DATAKB9A8B", [50], texts)
    assert not any(padding(got, judged, list("abcdefgh")))


def test_an_absent_word_is_named_and_weighs_as_a_rare_one():
    got, judged = _answer("ZEBRA-4471 pump", [0, 3], ["pump report"])
    assert got.absent() == ["ZEBRA-4471"]
    assert judged[0].found == ["pump"] and judged[0].missing == ["ZEBRA-4471"]
    assert isinstance(judged[0], Judged) and 0.4 < (judged[0].coverage or 0) < 0.6
