"""How well each hit matches, from both sides' evidence, and when nothing really does.

A fused score ranks the hits of one query and says nothing across queries: mixture and
RRF scores of a perfect match and of noise look alike. So each hit is judged on two
pieces of evidence that are comparable across queries and indexes:

* **keyword coverage**: the share of the query's words the hit holds (as typed, or
  stemmed as the index stems them), each weighted by its rarity. Rarity is the index's
  own statistics: how many chunks' keyword entries hold the word, counted by the keyword
  index (:meth:`ChunkTable.term_counts`) up to :func:`count_cap`. A word is *distinctive*
  when at most :data:`RARE_SHARE` of the chunks hold it (and at least :data:`RARE_MIN`
  may): an identifier, a number, a rare word; ``cell`` in a biology archive is not. A hit
  names the distinctive words it holds and lacks; a common word counts in its coverage at
  :data:`COMMON_WEIGHT`. A word no chunk holds is named in the answer's notice
  (``no document contains "ZEBRA-4471"``).
* **vector standing**: the hit's cosine as a z-score against the query's cosine over every
  chunk of the index (mean, standard deviation: the exact path scores them all). Raw
  cosines depend on the model (an English MiniLM's related passages sit near 0.5, a
  multilingual one's elsewhere); how far a hit stands above the index's own background
  for this query does not, or much less.

A hit's strength is ``z + COVERAGE_WEIGHT x coverage``: ``strong`` from :data:`S_STRONG`
(or from :data:`S_PARTIAL` holding every query word), ``partial`` from
:data:`S_PARTIAL`, else ``weak``. An answer whose best hit is weak says the hits are only
loosely related. Weak hits that only pad an exact identifier's documents out are left
out (:func:`padding`).

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
    "COMMON_WEIGHT",
    "COVERAGE_WEIGHT",
    "C_PARTIAL",
    "C_STRONG",
    "RARE_MIN",
    "RARE_SHARE",
    "S_PARTIAL",
    "S_STRONG",
    "Judged",
    "Level",
    "WordCounts",
    "count_cap",
    "judge",
    "level",
    "match_notice",
    "padding",
    "strength",
]

Level = Literal["strong", "partial", "weak"]
LEVELS: tuple[Level, ...] = ("strong", "partial", "weak")

#: A word is distinctive when at most this share of the chunks hold it (or RARE_MIN).
RARE_SHARE = 0.01
RARE_MIN = 5
#: A hit's strength is its vector z-score + COVERAGE_WEIGHT x its keyword coverage:
#: ``strong`` from S_STRONG, ``partial`` from S_PARTIAL, else ``weak``. Calibrated on
#: SciFact (``bench/answerable.py``): S_PARTIAL flags under 5 % of the answerable
#: queries (5.6 flagged 6.0 %, 5.3 4.2 %), S_STRONG is about their best hits' median.
#: Holding every query word (coverage 1) makes a hit that reaches S_PARTIAL strong: an
#: exact identifier's document. COVERAGE_WEIGHT 8
#: against 2, 3, 4, 6, 10, 14 (common words at 0.3): SciFact AUROC 0.662 (0.633-0.660),
#: and it transferred best to NFCorpus and XQuAD German (0.750 / 0.878).
COVERAGE_WEIGHT = 8.0
S_STRONG = 10.0
S_PARTIAL = 5.3
#: A common word's weight in coverage, relative to a word the cap's count of chunks hold
#: (0.3 against 0 / 0.6 / 1: NFCorpus flagged 6 % of its answerable queries, not 14 / 8 / 8).
COMMON_WEIGHT = 0.3
#: Without a vector standing (the ANN path): coverage alone, these cut points.
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

    def weights(self) -> list[tuple[QueryWord, float]]:
        """Every word with its weight in a hit's coverage: a distinctive word its inverse
        chunk frequency (:meth:`distinctive`), a common one (counted only up to the cap)
        :data:`COMMON_WEIGHT` x the cap's. Why common words count at all: a question
        without a rare word (most of XQuAD's, over 240 passages) would otherwise rest on
        the vector side alone, which an English model does not have for German."""
        cap = count_cap(self.chunks)
        common = COMMON_WEIGHT * math.log((self.chunks + 1) / (cap + 0.5))
        rare = dict((w.typed, weight) for w, weight in self.distinctive())
        return [(w, rare.get(w.typed, common)) for w in self.words]

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
    coverage: float | None  # rarity-weighted share of the query words held; None: no words
    z: float | None  # cosine z-score against the index's background; None: not known


def strength(coverage: float | None, z: float | None) -> float:
    """A hit's evidence on one scale (z + COVERAGE_WEIGHT x coverage; coverage alone when
    the vector side is unknown): what its level and an answer's AUROC
    (``bench/answerable.py``) are measured on."""
    c = 0.0 if coverage is None else coverage
    if z is None:
        return S_PARTIAL * c / C_PARTIAL
    return z + COVERAGE_WEIGHT * c


def level(coverage: float | None, z: float | None) -> Level:
    """A hit's level from its keyword coverage and vector z-score (either may be None)."""
    if z is None:
        c = -1.0 if coverage is None else coverage
        return "strong" if c >= C_STRONG else "partial" if c >= C_PARTIAL else "weak"
    s = strength(coverage, z)
    if s >= S_STRONG or (s >= S_PARTIAL and coverage is not None and coverage >= C_STRONG):
        return "strong"
    return "partial" if s >= S_PARTIAL else "weak"


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
    weighted = counts.weights()
    total = math.fsum(w for _, w in weighted)
    out = []
    for terms, cosine in zip(held, cosines, strict=True):
        found = [(word, weight) for word, weight in rare if terms.intersection(word.heads)]
        share = math.fsum(w for word, w in weighted if terms.intersection(word.heads))
        coverage = share / total if total > 0 else None
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


def padding(counts: WordCounts, judged: Sequence[Judged], sources: Sequence[str]) -> list[bool]:
    """Per hit: whether it is left out. When every distinctive word of the query is an
    identifier or a number that fewer chunks hold than the answer has hits, the hits past
    them can only lack it: those holding none of them, weak, are padding, not evidence
    (``DATAKB9A8B``, which two documents hold, is not followed by unrelated chunks). Plain
    rare words do not count: a relevant SciFact abstract may say ``copeptin`` otherwise,
    and left out it cost nDCG@10. A hit from a document (``sources``: each hit's) that has
    a strong hit stays: it is that document's own text around the match."""
    rare = counts.distinctive()
    held = dict(zip([w.typed for w in counts.words], counts.counts, strict=True))
    fires = bool(rare) and all(w.code and held[w.typed] < len(judged) for w, _ in rare)
    if not fires or not any(j.level == "strong" for j in judged):
        return [False] * len(judged)
    matched = {src for src, j in zip(sources, judged, strict=True) if j.level == "strong"}
    return [
        j.level == "weak" and not j.found and src not in matched
        for src, j in zip(sources, judged, strict=True)
    ]


def match_notice(counts: WordCounts, judged: list[Judged]) -> str | None:
    """What the answer says of its own evidence: the query's words no document holds, and
    that the best hits are only loosely related when no hit is better than weak."""
    said = []
    absent = counts.absent()
    if absent:
        names = ", ".join(f'"{w}"' for w in absent[:8])
        said.append(f"No document contains {names}.")
    if all(j.level == "weak" for j in judged):
        why = "" if counts.searchable else " (the query has no word to search for)"
        said.append(
            f"Nothing really matches{why}: the best hits are only loosely related. Try other "
            "wording or exact terms; if they still do not answer it, the documents may not "
            "cover this."
        )
    return " ".join(said) or None
