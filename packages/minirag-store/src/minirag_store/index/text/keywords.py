"""Keyword normalisation for the full-text column: every language in one index.

Why our own column: a LanceDB (Lance) FTS index has exactly one tokenizer language. An
English-stemmed index leaves Russian inflections unmatched (``запасов`` vs ``запасы``), a
Russian one does nothing for ``invoices``, and either one cuts identifiers such as
``ERR_CONN_RESET``, ``SPEC-112`` or a GUID into pieces that no longer rank an exact hit
first. So we normalise text ourselves into a space-separated ``keywords`` column and index
that with a plain whitespace tokenizer (no stemming, no lower-casing, no stop words there):

* every plain word is case-folded (``ё`` → ``е``) and stemmed by the Snowball stemmer of
  its chunk's language (:mod:`minirag_store.index.text.language`: told per chunk by py3langid;
  a word that language's stemmer cannot read, or a chunk in a language without one, gets
  its script's default: Latin English, Cyrillic Russian); stop words of English and
  Russian are dropped (the only lists kept: see below);
* a passage holding the query's words in the query's own forms (case folded) ranks above
  passages that share only their stems: the best rows by stems are re-ranked by the share
  of the query's inflected words each says as written (:mod:`minirag_store.index.text.written`);
  the words as written are not in the column;
* a run of a script written without spaces (Han, kana, Hangul, Thai, Lao, Khmer,
  Myanmar) becomes its character bigrams, and Latin/Cyrillic words and identifiers
  inside it stay words of their own (``iPhone 15``, ``ERR_SOCKET_CLOSED`` in Chinese text).
  Bigrams, not a segmenter: on XQuAD's Chinese passages plain BM25 over bigrams scores
  nDCG@10 0.967 against 0.114 for words split at punctuation (``shared/data/README.md``),
  and our column with bigrams 0.965 (``bench/languages.py``); a dictionary segmenter
  (jieba, pythainlp) is one more model per script to ship and load, and splits a name it
  does not know differently in a query than in the passage, where bigrams of the two
  always agree. The chunker cuts such a run anywhere (``这座|桥梁``), so the bigram across
  a cut (``座桥``) is added to the entries whose window holds both sides (:func:`_seam`):
  XQuAD zh keyword 0.9652 -> 0.9657. What BM25 over whole passages does better (0.9668)
  is mostly Lance's fixed ``k1`` 1.2 / ``b`` 0.75 against the reference's 0.9 / 0.4: our
  analysis over whole passages scores 0.9669 at 0.9 / 0.4 and 0.963 at 1.2 / 0.75 (our
  window of chunks under Lance: 0.9657). Han characters one by one beside the bigrams,
  weighted 1/4 in a query, reached 0.9695, but they double a Chinese entry's length, and
  Lance's ``b`` then ranked a Latin note repeating ``socket closed err`` above the Chinese
  log line holding ``ERR_SOCKET_CLOSED`` (``test_store_languages``): not adopted, and a
  one-character query (``河``) still finds only a character standing alone. Text in a
  script nothing here knows is indexed as written;
* an identifier (words joined by ``-``, ``_``, ``.``, ``/`` or ``:``, or a word holding a
  digit) is kept whole, case-folded, *and* as its parts. A query for ``SPEC-112`` then
  matches the rare whole token ``spec-112`` (high IDF) plus ``spec`` and ``112``, so the
  chunk holding the exact identifier ranks above chunks that only share a part.

A query's language cannot be told (a few words), so it is analysed under every stemmer
the index's chunks were analysed with and its scripts' defaults, as alternatives.

Stop words: the English and Russian lists are dropped in every chunk (a query's language
is unknown, so both sides must drop the same words); other languages have none. BM25's
IDF already gives a word in most passages next to no weight, and stop lists for 20+
languages dropped everywhere would remove real words of other languages (German ``die``
is Italian and Spanish for "said"/"gave", ``in`` and ``was`` mean different things in
different languages).

Documents and queries go through the same :func:`tokens`, so both sides agree.

A chunk's keyword entry (:func:`section_keywords`) holds the document title, the chunk's
own prefix (heading breadcrumb) and the words of the chunk **and of its neighbour on each
side within the same section**. Chunks are small (~110 tokens, sized for the embedding
model), and a passage's key words often sit one chunk away from the sentence that matches
best; BM25 over a lone chunk misses the match split across a boundary. On BEIR SciFact
(chunk-level BM25, first hit per document, nDCG@10) the window raised keyword search from
0.670 to 0.683 (300 test queries) and 0.665 to 0.692 (809 train queries); two neighbours a
side, the whole section, or the previous/next one only did no better. The price is ~2x
keyword text: ~7 MB more index at 25k chunks.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

from minirag_store.index.text.language import chunk_language, stem, stemmable

__all__ = [
    "PAIR",
    "SINGLE_SEARCH_TOKENS",
    "WINDOW",
    "KeywordQuery",
    "fold",
    "in_word",
    "keyword_query",
    "normalize",
    "normalize_query",
    "pairs",
    "query_weights",
    "section_keywords",
    "tokens",
]

#: Neighbouring chunks on each side (same section) whose words a chunk's entry also holds.
WINDOW = 1
#: Joins the two words of a pair term; never inside a word or an identifier.
PAIR = "+"
# Punctuation that ends a phrase: no word pair spans it.
_BREAK = re.compile(r"[.,;:!?()\[\]|\n。，、；：！？（）「」『』]")
#: Query term weights, as repetitions of the term (see :func:`normalize_query`).
WORD_WEIGHT = 12
PART_WEIGHT = 6
PAIR_WEIGHT = 1
# Tokens longer than this are noise (base64, hashes of hashes); a GUID is 36 characters.
_MAX_TOKEN = 64
#: Scripts written without spaces between words: Thai, Lao, Myanmar, Khmer, Hangul, kana,
#: Han (with its extension planes). A run of them is cut into character bigrams.
_SPACELESS = (
    "\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u1100-\u11ff\u3130-\u318f\uac00-\ud7af"
    "\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
    "\U00020000-\U0003134f"
)
_SPACELESS_RUN = re.compile(f"[{_SPACELESS}]+")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Function words of both languages: frequent enough to carry no ranking signal.
_EN_STOP = _words(
    "a an and are as at be been but by for from had has have he her his i if in into is it "
    "its me my no not of on or our she so such than that the their them then there these "
    "they this those to too was we were what when which who will with would you your"
)
_RU_STOP = _words(
    "а без бы был была были было быть в вам вас вот все вы где да для до его ее если "
    "есть еще же за и из или им их к как ко когда ли либо мне мы на над не нет ни но "
    "ну о об однако он она они оно от по под при с со так также там то тоже только у уже "
    "чем что чтобы эта эти это этот я"
)
_STOP = _EN_STOP | _RU_STOP  # already folded: ё is written е


@lru_cache(maxsize=1)
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """The token and part patterns: a word's letters include its combining marks
    (Devanagari, Tamil and Arabic vowel signs; ``\\w`` leaves them out, which cut Hindi
    words apart), and a spaceless run is a token of its own, so ``iphone`` in Chinese text
    is a word beside it, not glued to it. Built on first use (a scan of Unicode's marks)."""
    spaceless = _SPACELESS_RUN
    marks: list[str] = []
    for code in range(0x300, 0x1E950):
        ch = chr(code)
        if unicodedata.category(ch)[0] == "M" and not spaceless.match(ch):
            marks.append(re.escape(ch))
    letter = f"(?:[^\\W_{_SPACELESS}]|[{''.join(marks)}])"
    token = re.compile(f"[{_SPACELESS}]+|{letter}+(?:[-_./:]+{letter}+)*")
    return token, re.compile(f"{letter}+")


def in_word(ch: str) -> bool:
    """Whether ``ch`` (one character; '' is none) is a letter of a word as the analysis
    cuts words: a letter, digit or combining mark outside the spaceless scripts."""
    return bool(ch) and _patterns()[1].fullmatch(ch) is not None


def _grams(run: str) -> list[str]:
    """A spaceless run's character bigrams (a one-character run stays itself)."""
    return [run[i : i + 2] for i in range(max(1, len(run) - 1))]


def _word(word: str, algorithm: str) -> str:
    """One case-folded run of letters/digits -> its index form ('' for a stop word)."""
    if word in _STOP:
        return ""
    if any(ch.isdigit() for ch in word):
        return word  # numbers and codes like v2, 112, 5b04 are matched exactly
    return stem(word, algorithm)


def fold(text: str) -> str:
    """``text`` as both sides compare it: NFKC, case-folded, ``ё`` written ``е``."""
    return unicodedata.normalize("NFKC", text).casefold().replace("ё", "е")


#: One unit of analysed text: its head term (a stem, a whole identifier or a bigram), the
#: index forms of an identifier's parts, and the word as written when a stemmer changes it
#: (else '').
Unit = tuple[str, list[str], str]


def _analyse(text: str, algorithm: str = "") -> tuple[list[Unit], list[str]]:
    """``text``'s units in order and its word pairs, words stemmed as ``algorithm`` (a
    PyStemmer name; '' or one that cannot read a word: its script's default)."""
    token_re, part_re = _patterns()
    folded = fold(text)
    units: list[Unit] = []
    pairs: list[str] = []
    previous, end = "", 0
    for match in token_re.finditer(folded):
        token = match.group()
        if _BREAK.search(folded, end, match.start()):
            previous = ""  # a phrase does not run across a sentence or clause break
        end = match.end()
        if _SPACELESS_RUN.match(token):
            units.extend((gram, [], "") for gram in _grams(token))
            previous = ""  # bigrams already hold the order of the run
            continue
        if len(token) > _MAX_TOKEN:
            previous = ""
            continue
        parts = part_re.findall(token)
        if len(parts) > 1:
            head, pieces, exact = token, [w for w in (_word(p, "") for p in parts) if w], ""
        else:
            head, pieces = _word(token, algorithm), []
            if not head:
                continue  # a stop word: the phrase goes on across it
            # A word its stem leaves unchanged, or one no stemmer reads, needs no second
            # term: every index entry that holds it so holds its stem.
            exact = token if head != token and stemmable(token) else ""
        units.append((head, pieces, exact))
        if previous and previous != head:  # a repeated word is no phrase
            pairs.append(f"{previous}{PAIR}{head}")
        previous = head
    return units, pairs


def _terms(units: list[Unit]) -> list[str]:
    return [t for head, parts, _ in units for t in (head, *parts)]


def tokens(text: str, algorithm: str = "") -> list[str]:
    """The single-word index terms of ``text``, in order (identifiers whole, then their
    parts; spaceless scripts as bigrams); :func:`pairs` gives the two-word ones."""
    return _terms(_analyse(text, algorithm)[0])


def pairs(text: str, algorithm: str = "") -> list[str]:
    """Each two neighbouring words of one phrase of ``text`` as one term, ``a+b``: stems
    (or whole identifiers), stop words skipped, never across ``. , ; : ! ? ( ) |`` or a
    line break."""
    return _analyse(text, algorithm)[1]


def normalize(text: str, algorithm: str = "") -> str:
    """``text``'s single-word terms and word pairs as one term string (what a chunk's
    entry holds of its own body)."""
    units, twos = _analyse(text, algorithm)
    return " ".join([*_terms(units), *twos])


def query_weights(query: str, languages: frozenset[str] = frozenset()) -> dict[str, int]:
    """A query's terms, each once, with its weight (what :func:`normalize_query` repeats:
    the full-text search adds a repeated query term's score once per occurrence).

    The query is analysed under each of ``languages`` (the stemmers of the index's
    chunks) and under its scripts' defaults, and the terms of all of them are its
    alternatives: a short query's language cannot be told, an index's can.

    Relative to a plain word (1): each part of an identifier counts 1/2 and the whole
    identifier as much as all its parts together, at least 1; a word pair counts 1/12.
    (Words as written are no terms: :mod:`~minirag_store.index.text.written` re-ranks by them.)

    * Whole vs parts: a chunk that merely repeats the parts (``socket closed err ...``)
      gains at most ``k1 + 1`` ≈ 2.2 times one occurrence per part (BM25 saturates), and
      the whole identifier is at least as rare as each part, so the chunk holding
      ``ERR_SOCKET_CLOSED`` itself ranks first. With whole and parts at full weight each,
      such notes outranked it.
    * A pair breaks ties among chunks that hold the same words (the one stating the
      phrase wins) but does not outweigh a word: pairs are rare, so their IDF is high.

    Tuned on SciFact train and XQuAD RU even ids (keyword nDCG@10): parts at 1/2
    cost 0.001 on SciFact against full weight; pairs at 1/2 cost 0.016, at 1/8 0.002,
    at 1/12 under 0.001.
    """
    return _weights(_alternatives(query, languages))


def _alternatives(query: str, languages: frozenset[str]) -> list[tuple[list[Unit], list[str]]]:
    """``query`` analysed under its scripts' defaults and under each of ``languages``."""
    return [_analyse(query, algorithm) for algorithm in ["", *sorted(languages)]]


def _weights(alternatives: list[tuple[list[Unit], list[str]]]) -> dict[str, int]:
    """The weights of :func:`query_weights` over analysed ``alternatives``."""
    weights: dict[str, int] = {}
    for units, twos in alternatives:
        for head, parts, _ in units:
            if parts:
                whole = max(WORD_WEIGHT, PART_WEIGHT * len(parts))
                weights[head] = max(weights.get(head, 0), whole)
                for part in parts:
                    weights.setdefault(part, PART_WEIGHT)
            else:
                weights[head] = WORD_WEIGHT
        for pair in twos:
            weights.setdefault(pair, PAIR_WEIGHT)
    return weights


def normalize_query(query: str, languages: frozenset[str] = frozenset()) -> str:
    """A query's terms weighted by repetition, as one full-text query: the full-text search
    adds a repeated query term's score once per occurrence (:func:`query_weights`)."""
    return _repeated(query_weights(query, languages))


def _repeated(weights: dict[str, int]) -> str:
    return " ".join(" ".join([term] * n) for term, n in weights.items())


#: A query of at most this many term repetitions (six plain words and their five pairs:
#: 6 x 12 + 5 = 77) runs as one search (:class:`KeywordQuery`).
SINGLE_SEARCH_TOKENS = 80


@dataclass(frozen=True)
class KeywordQuery:
    """A query's weighted terms as the full-text search runs them.

    ``whole``: every term repeated by its weight (:func:`normalize_query`), one search.
    Lance's full-text search walks one posting list per query *token*, so a term repeated
    12 times is walked 12 times: on the 1M-chunk table of ``bench/scale.py`` a SciFact
    query (~7 words, 87 tokens on average) took 21 ms (p95 62) this way. So on a large
    table a query past :data:`SINGLE_SEARCH_TOKENS` (six words with their pairs) runs as
    two (:attr:`split`; at 100k chunks one search is still the faster, 7.6 vs 8.2 ms):
    the single words, weights divided by their common factor ``scale``, fetch the best
    rows; then the pairs are scored among just those rows, and ``scale`` x words + pairs
    is the one search's score (equal to float rounding): 17 ms (p95 30) in a whole query
    at 1M. What it gives up: a row outside the words' best ``limit`` cannot enter on its
    pairs. A pair weighs 1/12 of a word, so in a long query that is a tie-break among the
    rows at the bottom of the list; a short query, where a phrase can decide the whole
    list (four words stating a phrase outrank the same words apart), keeps the one exact
    search, which is as fast there (measured at 1M: 6.6 vs 7.5 ms at 2 words, 10.9 vs 9.7
    at 6).
    """

    whole: str
    words: str
    scale: int
    pairs: str
    #: The query's words a stemmer changes, case-folded, as typed (:mod:`.written`).
    forms: frozenset[str] = frozenset()

    @property
    def split(self) -> bool:
        """Whether the query runs as the two searches (words, then pairs among their hits)."""
        return bool(self.pairs) and len(self.whole.split()) > SINGLE_SEARCH_TOKENS


def keyword_query(query: str, languages: frozenset[str] = frozenset()) -> KeywordQuery:
    """:class:`KeywordQuery` of ``query`` under ``languages`` (the stemmers of the index's
    chunks: :func:`query_weights`; ``whole`` empty: nothing searchable)."""
    alternatives = _alternatives(query, languages)
    weights = _weights(alternatives)
    singles = {t: w for t, w in weights.items() if PAIR not in t}
    scale = math.gcd(*singles.values()) if singles else 1
    doubles = {t: w for t, w in weights.items() if t not in singles}
    forms = {exact for units, _ in alternatives for _, _, exact in units if exact}
    return KeywordQuery(
        whole=_repeated(weights),
        words=_repeated({t: w // scale for t, w in singles.items()}),
        scale=scale,
        pairs=_repeated(doubles),
        forms=frozenset(forms),
    )


def section_keywords(title: str, chunks: Sequence[tuple[str, int]]) -> tuple[list[str], list[str]]:
    """The keyword-column entries of one section's chunks, given in order as
    ``(text, body_start)``, and each chunk's stemmer (:func:`language.chunk_language` of
    its body, '' for none). An entry holds the words of the title, of the chunk's prefix
    and of the bodies of the chunk and of up to :data:`WINDOW` neighbours on each side
    (each stemmed as its own chunk's language) with the bigrams of spaceless runs cut
    between those bodies (:func:`_seam`), then the word pairs of the chunk's own body
    (each body is analysed once)."""
    bodies = [text[start:] for text, start in chunks]
    languages = [chunk_language(body) for body in bodies]
    analysed = [_analyse(body, lang) for body, lang in zip(bodies, languages, strict=True)]
    words = [" ".join(_terms(units)) for units, _ in analysed]
    seams = [_seam(body, following) for body, following in pairwise(bodies)]
    out = []
    for i, (text, start) in enumerate(chunks):
        prefix = _analyse(text[:start], languages[i])[0]
        terms = [" ".join(tokens(title, languages[i])), " ".join(_terms(prefix))]
        terms += words[max(0, i - WINDOW) : i + WINDOW + 1]
        terms += seams[max(0, i - WINDOW) : i + WINDOW]
        terms.append(" ".join(analysed[i][1]))
        out.append(" ".join(t for t in terms if t))
    return out, languages


def _seam(body: str, following: str) -> str:
    """The bigram of a spaceless run cut between a chunk's body and the next one's, which
    neither body's own analysis holds ('' when the cut falls outside such a run)."""
    if body and following:
        gram = fold(body[-1] + following[0])
        if len(gram) == 2 and _SPACELESS_RUN.fullmatch(gram):
            return gram
    return ""
