"""Where a query's words occur in a passage, so a search can highlight them.

Shared by both places a person reads hits: ``minirag-cli query`` (in the terminal) and the
web page's search and read views (*shared*: the shells import it).

It only decides what a person's eye is drawn to, never what is found. A passage word is
marked when it is a query word, case aside, or has the same stem: ``timeouts`` for
``timeout``, ``индексации`` for ``индексация``. The stemmer is the one the keyword side
uses for a word of that script when it knows no better (English for Latin letters, Russian
for Cyrillic: :func:`minirag_store.index.text.language.stem`): telling each passage's
language would load the language detector (1.2 s) into every ``minirag-cli query``. A
shared beginning is not enough (``program`` is not ``progress``; the rule before this one
marked it).
"""

from __future__ import annotations

import re

from minirag_store.index.text.language import stem

__all__ = ["query_terms", "term_spans"]

_WORD = re.compile(r"\w+")
#: Words too common to be worth highlighting (English and Russian function words).
_STOP_WORDS = (
    "a an and are as at be by do does for from how in is it of on or that the this to what "
    "when where which who why with и в во на не что как по из за для от до о об это ли или"
)
_STOP = frozenset(_STOP_WORDS.split())


def query_terms(query: str) -> frozenset[str]:
    """The query's words worth highlighting, case-folded, and their stems."""
    words = {w.casefold() for w in _WORD.findall(query)}
    words = {w for w in words if len(w) > 1 and w not in _STOP}
    return frozenset(words | {_stem(w) for w in words})


def _stem(word: str) -> str:
    return stem(word, "") if word[0].isalpha() else word


def term_spans(text: str, terms: frozenset[str]) -> list[tuple[int, int]]:
    """(start, end) of every word in ``text`` that matches one of ``terms`` (as
    :func:`query_terms` gives them), in order."""
    if not terms:
        return []
    spans = []
    for match in _WORD.finditer(text):
        word = match.group().casefold()
        if word in terms or (len(word) > 1 and _stem(word) in terms):
            spans.append(match.span())
    return spans
