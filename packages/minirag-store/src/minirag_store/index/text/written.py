"""Words as typed: a keyword hit whose chunk says the query's inflected words in the
query's own forms (case folded) ranks above hits that share only their stems.

Stemming makes ``информационной системы`` match ``Информационная система``; it must not
make them equal. The keyword column holds stems only, so the words' best rows are
re-ranked here by the share of the query's inflected words (those a stemmer changes:
:attr:`~minirag_store.index.text.keywords.KeywordQuery.forms`) each chunk says as typed.
"""

from __future__ import annotations

from collections.abc import Sequence

from minirag_store.index.text.keywords import fold, in_word

__all__ = ["AS_WRITTEN_BONUS", "SHARE_POWER", "as_written_share", "rerank_as_written"]

#: A keyword hit's score is multiplied by ``1 + AS_WRITTEN_BONUS x share ** SHARE_POWER``,
#: ``share`` being the part of the query's inflected words (those a stemmer changes) its
#: chunk says as typed (:func:`as_written_share`): +20 % for all of them, +5 % for half.
#: Why a re-rank and not index terms: as ``=word`` terms beside the stems (scheme 5) they
#: lengthened every entry by ~17 %, and BM25's length normalisation then cost SciFact
#: keyword nDCG@10 0.6935 -> 0.6913 and hybrid 0.7352 -> 0.7319 with the terms unweighted,
#: and 5 MB of index. Why squared: English inflections carry little (SciFact hybrid at
#: 0.1 / 0.2 / 0.3 x share: 0.7353 / 0.7306 / 0.7292), so only a chunk saying most of the
#: query as typed gains much; 0.2 x share^2 keeps SciFact at 0.7353 (keyword 0.6913) and
#: puts the passage that says a phrase as typed first in every language of
#: ``test_store_languages`` (0.1 x share did not: a passage saying the other forms twice won).
AS_WRITTEN_BONUS = 0.2
SHARE_POWER = 2


def _says(folded: str, form: str) -> bool:
    """Whether ``folded`` holds ``form`` as a whole word (str.find, not a regex scan: this
    runs on every keyword candidate of a query)."""
    at = folded.find(form)
    while at >= 0:
        end = at + len(form)
        if not in_word(folded[at - 1 : at] if at else "") and not in_word(folded[end : end + 1]):
            return True
        at = folded.find(form, at + 1)
    return False


def as_written_share(forms: frozenset[str], text: str) -> float:
    """The share of ``forms`` (a query's inflected words as typed: :attr:`KeywordQuery.forms`)
    that ``text`` (a chunk, its heading breadcrumb included) says in those very forms,
    case-folded: 0 when the query has none. A keyword hit's score is multiplied by
    ``1 +`` :data:`AS_WRITTEN_BONUS` x this share (:func:`rerank_as_written`)."""
    if not forms:
        return 0.0
    folded = fold(text)
    return sum(_says(folded, form) for form in forms) / len(forms)


def rerank_as_written(
    forms: frozenset[str], scores: Sequence[float], texts: Sequence[str]
) -> list[tuple[int, float]]:
    """``(position, new score)`` of keyword hits scored ``scores`` whose chunks say
    ``texts``, best first: each score raised by the share of the query's words its chunk
    says as typed (:func:`as_written_share`); a tie keeps the search's order."""
    raised = [
        score * (1.0 + AS_WRITTEN_BONUS * as_written_share(forms, text) ** SHARE_POWER)
        for score, text in zip(scores, texts, strict=True)
    ]
    return sorted(enumerate(raised), key=lambda pair: -pair[1])
