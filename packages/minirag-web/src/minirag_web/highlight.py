"""Where a query's words occur in a passage, so a search can highlight them.

Shared by both places a person reads hits: ``minirag-cli query`` (in the terminal) and the
web page's search and read views; it lives here, the lower of the two packages, so the
CLI (which depends on minirag-web for ``minirag-cli ui``) and the page mark the same words.

Deliberately simple and independent of the store's keyword analyser: it only decides what
a person's eye is drawn to, never what is found. A passage word matches a query word when
they agree up to a short inflection (``timeout``/``timeouts``, ``индексация``/``индексации``).
"""

from __future__ import annotations

import re

__all__ = ["query_terms", "term_spans"]

_WORD = re.compile(r"\w+")
#: Words too common to be worth highlighting (English and Russian function words).
_STOP_WORDS = (
    "a an and are as at be by do does for from how in is it of on or that the this to what "
    "when where which who why with и в во на не что как по из за для от до о об это ли или"
)
_STOP = frozenset(_STOP_WORDS.split())
#: Longest ending two forms of one word may differ by (suffixes like -s, -ed, -ами).
_MAX_ENDING = 3


def query_terms(query: str) -> frozenset[str]:
    """The query's words worth highlighting, case-folded."""
    words = (w.casefold() for w in _WORD.findall(query))
    return frozenset(w for w in words if len(w) > 1 and w not in _STOP)


def _same_word(word: str, term: str) -> bool:
    if word == term:
        return True
    shorter, longer = sorted((word, term), key=len)
    if len(shorter) < 3 or len(longer) - len(shorter) > _MAX_ENDING:
        return False
    common = 0
    for a, b in zip(shorter, longer, strict=False):
        if a != b:
            break
        common += 1
    return common >= max(3, len(shorter) - 2)


def term_spans(text: str, terms: frozenset[str]) -> list[tuple[int, int]]:
    """(start, end) of every word in ``text`` that matches one of ``terms``, in order."""
    if not terms:
        return []
    spans = []
    for match in _WORD.finditer(text):
        word = match.group().casefold()
        if any(_same_word(word, term) for term in terms):
            spans.append(match.span())
    return spans
