"""A query's words as a person typed them, and whether a passage holds them: what an
answer's ``match`` names (:mod:`minirag_store.index.search.evidence`).

A query word is kept as typed (``ZEBRA-4471``, not ``zebra-4471``) for the answer to name
it, with the index terms that stand for it (:mod:`~minirag_store.index.text.keywords`: its
stem under each stemmer the index uses, an identifier whole), so that how many chunks hold
it can be asked of the keyword index. Stop words are no query words; neither are runs of a
spaceless script (their bigrams say nothing a reader would call a word). Pure.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from minirag_store.index.text.keywords import _MAX_TOKEN, _SPACELESS_RUN, _patterns, _word, fold

__all__ = ["QueryWord", "query_words", "words_in"]


@dataclass(frozen=True)
class QueryWord:
    """One distinct word of a query: as typed, and the index terms that stand for it."""

    typed: str  # as in the query (NFKC), e.g. "ZEBRA-4471"
    heads: tuple[str, ...]  # its index terms: stems under each language, or the whole identifier
    code: bool = False  # an identifier or a number: parts joined by - _ . / : or a digit in it


def query_words(query: str, languages: Iterable[str] = ()) -> list[QueryWord]:
    """The distinct searchable words of ``query`` in order, each with its index terms under
    the script defaults and each of ``languages`` (as :func:`keywords.query_weights`)."""
    token_re, part_re = _patterns()
    algorithms = ["", *sorted(languages)]
    out: dict[str, QueryWord] = {}
    for match in token_re.finditer(unicodedata.normalize("NFKC", query)):
        typed = match.group()
        folded = fold(typed)
        if folded in out or _SPACELESS_RUN.match(folded) or len(folded) > _MAX_TOKEN:
            continue
        joined = len(part_re.findall(folded)) > 1
        if joined:
            heads = (folded,)  # an identifier: the index holds it whole
        else:
            heads = tuple(dict.fromkeys(h for a in algorithms if (h := _word(folded, a))))
        if heads:
            code = joined or any(ch.isdigit() for ch in folded)
            out[folded] = QueryWord(typed, heads, code)
    return list(out.values())


def words_in(text: str, languages: Iterable[str] = ()) -> frozenset[str]:
    """The index terms ``text`` holds: its identifiers whole, and each plain word as written
    (case folded) and stemmed under the script defaults and each of ``languages``; a
    :class:`QueryWord` is in ``text`` when one of its ``heads`` is among them."""
    token_re, part_re = _patterns()
    algorithms = ["", *sorted(languages)]
    held: set[str] = set()
    for token in set(token_re.findall(fold(text))):
        parts = part_re.findall(token)
        if len(parts) > 1:
            held.add(token)
        for word in parts:
            held.add(word)
            held.update(_word(word, a) for a in algorithms)
    held.discard("")
    return frozenset(held)
