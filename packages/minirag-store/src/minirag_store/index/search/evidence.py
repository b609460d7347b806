"""How well each hit matches, from both sides' evidence, and when nothing really does.

A fused score ranks the hits of one query and says nothing across queries: mixture and
RRF scores of a perfect match and of noise look alike. So each hit is judged on two
pieces of evidence that are comparable across queries and indexes:

* **keyword coverage**: the share of the query's *distinctive* words the hit holds (as
  typed, or stemmed as the index stems them), each weighted by its rarity. Rarity is the
  index's own statistics: how many chunks' keyword entries hold the word, counted by the
  keyword index (:meth:`ChunkTable.term_counts`). A word is distinctive when at most
  :data:`RARE_SHARE` of the chunks hold it (and at least :data:`RARE_MIN` may): an
  identifier, a number, a rare word; ``cell`` in a biology archive is not. A word no chunk
  holds is named in the answer's notice (``no document contains "ZEBRA-4471"``).
* **vector standing**: the hit's cosine as a z-score against the query's cosine over every
  chunk of the index (mean, standard deviation: the exact path scores them all). Raw
  cosines depend on the model (an English MiniLM's related passages sit near 0.5, a
  multilingual one's elsewhere); how far a hit stands above the index's own background
  for this query does not, or much less.

A hit is ``strong`` when either side is convincing (:data:`Z_STRONG`, :data:`C_STRONG`),
``partial`` when one side is fair (:data:`Z_PARTIAL`, :data:`C_PARTIAL`), else ``weak``.
An answer whose best hit is weak says the hits are only loosely related. Behind a strong
hit, weak hits are left out (:func:`padding`): nothing supports them, and a reader of an
exact identifier's two documents should not get unrelated chunks after them.

Cut points calibrated on SciFact (answerable against held-out queries) and checked on
NFCorpus and XQuAD German unchanged: ``bench/answerable.py``. Pure: no LanceDB, no model.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from minirag_store.index.text.terms import QueryWord

__all__ = [
    "C_PARTIAL",
    "C_STRONG",
    "RARE_MIN",
    "RARE_SHARE",
    "Z_PARTIAL",
    "Z_STRONG",
    "Judged",
    "Level",
    "WordCounts",
    "count_cap",
    "judge",
    "level",
    "padding",
    "strength",
]

Level = Literal["strong", "partial", "weak"]
LEVELS: tuple[Level, ...] = ("strong", "partial", "weak")

#: A word is distinctive when at most this share of the chunks hold it (or RARE_MIN).
RARE_SHARE = 0.01
RARE_MIN = 5
#: Cut points of a hit's vector z-score and keyword coverage (see the module doc).
Z_STRONG = 6.0
Z_PARTIAL = 4.5
C_STRONG = 0.99
C_PARTIAL = 0.5


def count_cap(chunks: int) -> int:
    """How far a word's chunks are counted: one past the most a distinctive word may have."""
    return max(RARE_MIN, math.floor(RARE_SHARE * chunks)) + 1


@dataclass(frozen=True)
class WordCounts:
    """A query's words and how many chunks hold each (up to :func:`count_cap`)."""

    words: Sequence[QueryWord]
    counts: Sequence[int]
    chunks: int  # chunks in the index (the rarity's denominator)
    searchable: bool  # the query has a keyword term at all (not only stop words)

    def distinctive(self) -> list[tuple[QueryWord, float]]:
        """The distinctive words with their weights (inverse chunk frequency; a word no
        chunk holds weighs as one a single chunk holds: in a small index most words of a
        question are absent, and they must not outweigh the words that are there)."""
        cap = count_cap(self.chunks)
        return [
            (w, math.log((self.chunks + 1) / (max(n, 1) + 0.5)))
            for w, n in zip(self.words, self.counts, strict=True)
            if n < cap
        ]

    def absent(self) -> list[str]:
        """The words no chunk holds, as typed."""
        return [w.typed for w, n in zip(self.words, self.counts, strict=True) if n == 0]


@dataclass(frozen=True)
class Judged:
    """One hit's evidence and level."""

    level: Level
    found: list[str]  # distinctive query words it holds, as typed
    missing: list[str]  # distinctive query words it lacks, as typed
    coverage: float | None  # weighted share of distinctive words held; None: none to hold
    z: float | None  # cosine z-score against the index's background; None: not known


def strength(coverage: float | None, z: float | None) -> float:
    """A hit's evidence on one scale: 1 or more is ``strong`` (either side's own cut point
    reached); what an answer's AUROC is measured on (``bench/answerable.py``)."""
    return max(
        -math.inf if z is None else z / Z_STRONG,
        -math.inf if coverage is None else coverage / C_STRONG,
    )


def level(coverage: float | None, z: float | None) -> Level:
    """A hit's level from its keyword coverage and vector z-score (either may be None)."""
    c = -1.0 if coverage is None else coverage
    v = -math.inf if z is None else z
    if v >= Z_STRONG or c >= C_STRONG:
        return "strong"
    if v >= Z_PARTIAL or c >= C_PARTIAL:
        return "partial"
    return "weak"


def judge(
    counts: WordCounts,
    held: Sequence[frozenset[str]],
    cosines: Sequence[float | None],
    background: tuple[float, float] | None,
) -> list[Judged]:
    """Each hit's :class:`Judged`: ``held`` its index terms (:func:`terms.words_in`),
    ``cosines`` its cosine with the query, ``background`` the query's (mean, std) cosine
    over the index."""
    rare = counts.distinctive()
    total = math.fsum(w for _, w in rare)
    out = []
    for terms, cosine in zip(held, cosines, strict=True):
        found = [(word, weight) for word, weight in rare if terms.intersection(word.heads)]
        coverage = math.fsum(w for _, w in found) / total if total else None
        z = None
        if cosine is not None and background is not None and background[1] > 0:
            z = (cosine - background[0]) / background[1]
        names = {word.typed for word, _ in found}
        kind = level(coverage, z) if counts.searchable else "weak"
        out.append(
            Judged(
                kind,
                [w.typed for w, _ in rare if w.typed in names],
                [w.typed for w, _ in rare if w.typed not in names],
                coverage,
                z,
            )
        )
    return out


def padding(judged: Sequence[Judged]) -> list[bool]:
    """Per hit: whether it is left out, a weak hit behind a strong one (nothing supports
    it; it would only pad the answer out behind the real match)."""
    strong = any(j.level == "strong" for j in judged)
    return [strong and j.level == "weak" for j in judged]
