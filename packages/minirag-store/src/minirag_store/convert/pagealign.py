"""Page boundaries recovered in markdown that lost them, from each page's text layer.

markitdown's table route (a PDF with at least one table- or form-like page) joins its
per-page chunks with blank lines and no page marker, so the form feeds its pdfminer route
ends each page with are gone. Each page's own text layer (another extractor's view of the
same words, in content order rather than reading order, tables flattened) says which words
are whose:

1. Anchors: word 4-grams that occur exactly once in all the pages together and exactly once
   in the markdown pin that markdown word to that page. The longest run of anchors whose
   pages never go back (markitdown writes pages in order) is kept; a coincidence that
   breaks the order is dropped.
2. Between the last anchor of page p and the first of page q, the words are p's tail and q's
   head (any page in between has no words): the cut goes where the most words fall on a
   page that still has them unplaced (what its text layer holds minus what is placed
   already). Words whose side is a tie (in both pages' rest, or in neither) get no page.
   A gap with a wordy page in between, or text before the first anchored page or after the
   last one with wordy pages there, gets no page either.
3. Lines, not words, get pages (markitdown's page chunks are whole lines): a line whose
   words do not all share one page gets none, and so does a table whose rows do not.

A chunk then carries the pages its text is on, or none where the pages could not be told
apart: a page is left out rather than guessed. Pure: text in, pages out.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections import Counter
from collections.abc import Sequence
from itertools import pairwise

__all__ = ["ANCHOR_WORDS", "Pages", "align_pages"]

Pages = list[tuple[int | None, str]]  # (0-based page index, or None: unknown page) and text

#: Words in an anchor: three matched by chance in tables of numbers (a row of "1 2 3"),
#: five miss rows the two extractors break differently.
ANCHOR_WORDS = 4
_WORD = re.compile(r"\w+")
_TABLE_ROW = re.compile(r"^[ \t]*\|.*\|[ \t]*$")
_NEUTRAL = -1  # a line without words: placed by the lines around it
#: Pages with words but no anchor (their text repeats elsewhere: a form's boilerplate page)
#: that a gap between anchors may hold and still be cut; with more, it gets no page.
_MAX_UNANCHORED = 3
#: Share of a run's words its page must still have for the run to get that page: the two
#: extractors split a few words differently (hyphens, ligatures), garbage ("(cid:72)" for
#: a font without a text map) matches only by chance.
_EXPLAINED = 0.8


def _norm(word: str) -> str:
    if word.isascii():
        return word.lower()
    # NFKC: a ligature (U+FB01) one extractor keeps is two letters in the other.
    return unicodedata.normalize("NFKC", word).casefold()


def _words(text: str) -> list[str]:
    return [_norm(m.group()) for m in _WORD.finditer(text)]


def _grams(words: Sequence[str]) -> list[tuple[str, ...]]:
    n = ANCHOR_WORDS
    return [tuple(words[i : i + n]) for i in range(len(words) - n + 1)]


def _anchors(md_words: list[str], layers: list[list[str]]) -> list[tuple[int, int]]:
    """``(markdown word index, page)`` of each unique 4-gram, in the longest page order."""
    in_pages: Counter[tuple[str, ...]] = Counter()
    page_of: dict[tuple[str, ...], int] = {}
    for page, words in enumerate(layers):
        for gram in _grams(words):
            in_pages[gram] += 1
            page_of[gram] = page
    md_grams = _grams(md_words)
    in_md = Counter(md_grams)
    found = [
        (i, page_of[g]) for i, g in enumerate(md_grams) if in_md[g] == 1 and in_pages.get(g) == 1
    ]
    return _non_decreasing(found)


def _non_decreasing(found: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest subsequence of ``found`` (in markdown order) whose pages never go back."""
    tails: list[int] = []  # smallest last page of a run of each length
    ends: list[int] = []  # index in found of that run's last anchor
    before: list[int] = [-1] * len(found)
    for k, (_, page) in enumerate(found):
        length = bisect_right(tails, page)
        before[k] = ends[length - 1] if length else -1
        if length == len(tails):
            tails.append(page)
            ends.append(k)
        else:
            tails[length], ends[length] = page, k
    kept: list[tuple[int, int]] = []
    k = ends[-1] if ends else -1
    while k >= 0:
        kept.append(found[k])
        k = before[k]
    return kept[::-1]


def _matched(words: list[str], rest: Counter[str]) -> list[int]:
    """How many of the first k ``words`` are found in ``rest`` (each use spends one), k = 0.."""
    out = [0]
    rest = rest.copy()
    for word in words:
        hit = rest[word] > 0
        rest[word] -= hit
        out.append(out[-1] + hit)
    return out


def _explained(found: int, total: int) -> bool:
    return found >= _EXPLAINED * total


def _cut(gap: list[str], rest_p: Counter[str], rest_q: Counter[str]) -> tuple[int, int] | None:
    """Where page p's tail ends and page q's head starts in ``gap``: the words before the
    first cut are p's, from the second on q's, between them a tie (no page). None when
    either side is not mostly words its page still has (another extractor's garbage)."""
    left = _matched(gap, rest_p)
    right = _matched(gap[::-1], rest_q)
    size = len(gap)
    scores = [left[b] + right[size - b] for b in range(size + 1)]
    best = max(scores)
    ties = [b for b, s in enumerate(scores) if s == best]
    b1, b2 = ties[0], ties[-1]
    if _explained(left[b1], b1) and _explained(right[size - b2], size - b2):
        return b1, b2
    return None


def _label_words(md_words: list[str], layers: list[list[str]]) -> list[int | None]:
    """Each markdown word's page (None: not known)."""
    labels: list[int | None] = [None] * len(md_words)
    spans: dict[int, list[int]] = {}  # page -> [first word, last word] of its anchors
    for i, page in _anchors(md_words, layers):
        span = spans.setdefault(page, [i, i + ANCHOR_WORDS - 1])
        span[1] = i + ANCHOR_WORDS - 1
    for page, (lo, hi) in spans.items():
        labels[lo : hi + 1] = [page] * (hi + 1 - lo)
    stops: list[int | None] = [None, *sorted(spans), None]  # None: the start, the end
    head = 0  # where the words of the anchored page in hand start
    for p, q in pairwise(stops):
        start = spans[p][1] + 1 if p is not None else 0
        end = spans[q][0] if q is not None else len(md_words)
        low = p + 1 if p is not None else 0
        between = [m for m in range(low, q if q is not None else len(layers)) if layers[m]]
        if len(between) <= _MAX_UNANCHORED:
            # the start and the end are owners without words: what no page holds stays out
            rests = [
                Counter(layers[p]) - Counter(md_words[head:start]) if p is not None else Counter(),
                *(Counter(layers[m]) for m in between),
                Counter(layers[q]) - Counter(md_words[end : spans[q][1] + 1])
                if q is not None
                else Counter(),
            ]
            head = _split_gap(md_words, labels, (start, end), [p, *between, q], rests)
        else:
            head = end
    return labels


def _split_gap(
    md_words: list[str],
    labels: list[int | None],
    gap: tuple[int, int],
    owners: list[int | None],
    rests: list[Counter[str]],
) -> int:
    """Label the words of ``gap`` with ``owners`` (pages in order, each with the words it
    still has unplaced in ``rests``; None: the document's start or end, which has none):
    one cut after another, each between one owner and all those after it; the words of a
    tie get no page. Returns where the last owner's words start (the gap's end when the
    cuts could not be made)."""
    cursor, end = gap
    for k, owner in enumerate(owners[:-1]):
        after: Counter[str] = Counter()
        for rest in rests[k + 1 :]:
            after.update(rest)
        cut = _cut(md_words[cursor:end], rests[k], after)
        if cut is None:
            return end  # the rest of the gap gets no page
        labels[cursor : cursor + cut[0]] = [owner] * cut[0]
        cursor += cut[1]
    labels[cursor:end] = [owners[-1]] * (end - cursor)
    return cursor


def _line_labels(markdown: str, labels: list[int | None]) -> tuple[list[str], list[int | None]]:
    """The markdown's lines and each one's page (None: unknown) from its words' pages."""
    lines = markdown.split("\n")
    out: list[int | None] = []
    k = 0
    for line in lines:
        count = sum(1 for _ in _WORD.finditer(line))
        held = set(labels[k : k + count])
        k += count
        if not count:
            out.append(_NEUTRAL)
        elif len(held) == 1:
            out.append(held.pop())
        else:
            out.append(None)
    _place_wordless(lines, out)
    _tables_whole(lines, out)
    return lines, out


def _place_wordless(lines: list[str], labels: list[int | None]) -> None:
    """A line without words (a table's ``|---|``, a lone symbol, a blank line) is on the
    page of the lines around it when both are on the same one, else on none (a blank
    line goes with the line before it: it holds nothing to place)."""
    following: list[int | None] = [None] * len(labels)  # the next worded line's page
    upcoming: int | None = None
    for i in range(len(labels) - 1, -1, -1):
        following[i] = upcoming
        if labels[i] != _NEUTRAL:
            upcoming = labels[i]
    previous: int | None = None
    for i, label in enumerate(labels):
        if label != _NEUTRAL:
            previous = label
        elif not lines[i].strip():
            labels[i] = previous
        else:
            labels[i] = previous if previous == following[i] else None


def _tables_whole(lines: list[str], labels: list[int | None]) -> None:
    """A table whose rows are not all on one known page gets no page: markitdown writes a
    page's tables inside that page, so a table split between pages is a wrong cut."""
    i = 0
    while i < len(lines):
        if not _TABLE_ROW.match(lines[i]):
            i += 1
            continue
        j = i
        while j < len(lines) and _TABLE_ROW.match(lines[j]):
            j += 1
        if len(set(labels[i:j])) > 1:
            labels[i:j] = [None] * (j - i)
        i = j


def align_pages(markdown: str, layers: Sequence[str]) -> Pages:
    """Cut ``markdown`` (one PDF's conversion, pages in order, no page marks) into runs of
    lines with the 0-based page each run is on (None where not known), from ``layers``
    (each page's text layer, in page order). See the module doc."""
    page_words = [_words(layer) for layer in layers]
    md_words = _words(markdown)
    lines, labels = _line_labels(markdown, _label_words(md_words, page_words))
    runs: list[tuple[int | None, list[str]]] = []
    for line, label in zip(lines, labels, strict=True):
        if runs and runs[-1][0] == label:
            runs[-1][1].append(line)
        else:
            runs.append((label, [line]))
    return [(label, "\n".join(run)) for label, run in runs]
