"""Hyphens at a printed line's end, dropped where they only split a word.

pdfium marks the hyphens it takes for hyphenation with U+0002. The word is joined without
its hyphen (``immuno-``/``globulin`` → ``immunoglobulin``) unless the hyphen is part of the
word: the next part starts with a digit or a capital (``COVID-``/``19``, ``ERR-``/``17``),
the first part has a digit or is capitals (``SARS-``), or leaves a single letter
(``e-``/``mail``: hyphenation never leaves fewer than two letters before a break, TeX's and
pyphen's ``lefthyphenmin``). The document itself is asked first: a hyphenated form it uses
elsewhere (``whole-genome``) keeps its hyphen, a solid form it uses elsewhere loses it.

What the document cannot tell, a dictionary does, for a document mostly in English words
(:class:`Spelling`): where the solid form is no English word and both parts are
(``gene-``/``silencing``, ``long-``/``term``), the hyphen is the compound's own and stays;
before ``and``, ``or``, ``nor`` or ``to`` it is a suspended one (``age- and sex-matched``).
The dictionary is pyspellchecker's English one (160,572 words in its wheel), loaded once
per process at the first split word it is asked about (0.1 s, 11 MB). Other languages keep
the rules above: pyspellchecker has dictionaries for a dozen, but telling a document's
language here would take a second model (the keyword analysis has its own,
:mod:`minirag_store.index.text.language`).

Measured on every line-end hyphen of all 5,183 SciFact abstracts rendered as narrow
hyphenated columns (``bench/pdf_quality.py``'s PDFs; the truth from the original text):
by the document alone 48,615 of the 48,635 words that hyphenation split were joined right
and 2,883 of the 5,177 compounds broken at their own hyphen kept it (95.7 % right); with
the dictionary 48,447 and 4,654 (98.7 %). What is left is a prefix the dictionary holds
as a word on either side (``sub-``/``clones`` written solid, ``non-``/``nuclear`` written
hyphenated) and a compound with a part no dictionary holds (``nociceptor-specific``).
On NFCorpus's abstracts, never used to choose these rules, likewise (docs/decisions/
pdf-reflow.md).

Pure: no PDF library here.
"""

from __future__ import annotations

import itertools
import re
from array import array
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterable
from functools import cache

__all__ = ["DASHES", "SOFT_HYPHEN", "Spelling", "dehyphenate"]

_WORD = re.compile(r"\w[\w'’-]*\w|\w", re.UNICODE)
_LETTERS = re.compile(r"[^\W\d_]+")
#: Share of a document's words (counted as often as they occur) that must be English
#: dictionary words before that dictionary judges its hyphens: SciFact's abstracts
#: 0.69-0.99 (median 0.92), NFCorpus's 0.56-1.0 (0.95); XQuAD's German passages at most
#: 0.52 (median 0.22), Spanish 0.65 (0.46), Vietnamese 0.40, Arabic 0.13. A Spanish
#: passage taken for English costs little: a split word whose two parts are both English
#: words is rare in any language.
ENGLISH_SHARE = 0.5
#: After a hyphen at a line's end, a word that makes it a suspended one: ``age- and
#: sex-matched``, ``pre- to post-treatment``.
_SUSPENDING = frozenset({"and", "or", "nor", "to"})
DASHES = "-\u2010\u2011\x02"  # hyphen-minus, hyphen, non-breaking hyphen, pdfium's soft one
SOFT_HYPHEN = "\x02"  # how pdfium's bounded text marks a hyphen it took for hyphenation


class Spelling:
    """How one document spells its words, asked about a word split at a line's end: the
    forms it uses (lower-cased, hyphenated words whole) and, for a document mostly in
    English words, an English dictionary (module doc)."""

    def __init__(self, text: str = "") -> None:
        self.forms = frozenset(w.lower() for w in _WORD.findall(text))
        self._letters = Counter(w.lower() for w in _LETTERS.findall(text))
        self._english: bool | None = None

    def compound(self, part: str, after: str) -> bool:
        """Whether ``part`` and ``after`` (the letters each side of a line-end hyphen)
        are two English words whose solid form is none: a compound's own hyphen."""
        if len(part) < 2 or len(after) < 2 or not self._is_english():
            return False
        words = _english()
        solid = f"{part}{after}".lower()
        return solid not in words and part.lower() in words and after.lower() in words

    def suspended(self, part: str, after: str) -> bool:
        """Whether the hyphen after ``part`` is a suspended one (``age- and``): ``after``
        joins words and the solid form is no English word (``thousand``)."""
        if after.lower() not in _SUSPENDING or not self._is_english():
            return False
        return f"{part}{after}".lower() not in _english()

    def _is_english(self) -> bool:
        if self._english is None:
            words, total = _english(), self._letters.total()
            known = sum(n for w, n in self._letters.items() if w in words)
            self._english = total > 0 and known >= ENGLISH_SHARE * total
        return self._english


class _WordList:
    """Sorted words in one string, found by bisection: pyspellchecker's English list kept
    as a set of its words left 33 MB more of a process's heap, this 11 MB."""

    def __init__(self, words: Iterable[str]) -> None:
        ordered = sorted(words)
        self._text = "".join(ordered)
        self._ends = array("I", itertools.accumulate(map(len, ordered)))

    def __len__(self) -> int:
        return len(self._ends)

    def __getitem__(self, i: int) -> str:
        return self._text[self._ends[i - 1] if i else 0 : self._ends[i]]

    def __contains__(self, word: str) -> bool:
        i = bisect_left(self, word)  # type: ignore[arg-type]  # a sequence of str
        return i < len(self) and self[i] == word


@cache
def _english() -> _WordList:
    """pyspellchecker's English words (lower-cased), loaded once per process."""
    from spellchecker import SpellChecker

    return _WordList(SpellChecker(language="en", distance=1))


def dehyphenate(head: str, tail: str, spelling: Spelling | None = None) -> str:
    """``head`` (a line's end, its last character a hyphen) joined to ``tail`` (the next
    line's start): the hyphen dropped where it only split a word (module doc)."""
    body = head[:-1]
    part = re.split(r"[^\w]", body)[-1] if body else ""
    nxt = re.match(r"[\w'’-]*", tail)
    after = nxt.group(0) if nxt else ""
    if not part or not after:  # a dash standing alone, or nothing after it: keep as printed
        return head.replace(SOFT_HYPHEN, "-") + tail
    forms = spelling.forms if spelling is not None else frozenset()
    whole_hyphen = f"{part}-{after}".lower().strip("-")
    whole_solid = f"{part}{after}".lower()
    if whole_hyphen in forms and whole_solid not in forms:
        return f"{body}-{tail}"
    if whole_solid in forms:
        return body + tail
    if spelling is not None and spelling.suspended(part, after):
        return f"{body}- {tail}"
    letters = re.search(r"[^\W\d_]+$", part)
    word_after = _LETTERS.match(after)
    keep = (
        after[0].isdigit()
        or after[0].isupper()
        or any(c.isdigit() for c in part)
        or (part.isupper() and len(part) > 1)
        or letters is None
        or len(letters.group(0)) < 2
        or (
            spelling is not None
            and word_after is not None
            and spelling.compound(letters.group(0), word_after.group(0))
        )
    )
    return f"{body}-{tail}" if keep else body + tail
