"""Hyphens at a printed line's end, dropped where they only split a word.

pdfium marks the hyphens it takes for hyphenation with U+0002. The word is joined without
its hyphen (``immuno-``/``globulin`` → ``immunoglobulin``) unless the hyphen is part of the
word: the next part starts with a digit or a capital (``COVID-``/``19``, ``ERR-``/``17``),
the first part has a digit or is capitals (``SARS-``), or leaves a single letter
(``e-``/``mail``: hyphenation never leaves fewer than two letters before a break, TeX's and
pyphen's ``lefthyphenmin``). The document itself is asked first: a hyphenated form it uses
elsewhere (``whole-genome``) keeps its hyphen, a solid form it uses elsewhere loses it.

What the document cannot tell is decided for the split word: on all of SciFact rendered
as narrow hyphenated columns (``bench/pdf_quality.py``'s PDFs), 48,615 of the 48,635
words that hyphenation split were joined right, and 2,883 of the 5,177 compounds broken at
their own hyphen kept it; the rest (``long-term``, ``placebo-controlled``) are spelled
nowhere else in their abstract and came out solid. Only a dictionary would tell those.

Pure: no PDF library here.
"""

from __future__ import annotations

import re

__all__ = ["DASHES", "SOFT_HYPHEN", "dehyphenate", "word_forms"]

_WORD = re.compile(r"\w[\w'’-]*\w|\w", re.UNICODE)
DASHES = "-\u2010\u2011\x02"  # hyphen-minus, hyphen, non-breaking hyphen, pdfium's soft one
SOFT_HYPHEN = "\x02"  # how pdfium's bounded text marks a hyphen it took for hyphenation


def word_forms(text: str) -> frozenset[str]:
    """The lower-cased words of a document (hyphenated ones whole): what
    :func:`dehyphenate` asks about a split word."""
    return frozenset(w.lower() for w in _WORD.findall(text))


def dehyphenate(head: str, tail: str, forms: frozenset[str] = frozenset()) -> str:
    """``head`` (a line's end, its last character a hyphen) joined to ``tail`` (the next
    line's start): the hyphen dropped where it only split a word (module doc)."""
    body = head[:-1]
    part = re.split(r"[^\w]", body)[-1] if body else ""
    nxt = re.match(r"[\w'’-]*", tail)
    after = nxt.group(0) if nxt else ""
    if not part or not after:  # a dash standing alone, or nothing after it: keep as printed
        return head.replace(SOFT_HYPHEN, "-") + tail
    whole_hyphen = f"{part}-{after}".lower().strip("-")
    whole_solid = f"{part}{after}".lower()
    if whole_hyphen in forms and whole_solid not in forms:
        return f"{body}-{tail}"
    if whole_solid in forms:
        return body + tail
    letters = re.search(r"[^\W\d_]+$", part)
    keep = (
        after[0].isdigit()
        or after[0].isupper()
        or any(c.isdigit() for c in part)
        or (part.isupper() and len(part) > 1)
        or letters is None
        or len(letters.group(0)) < 2
    )
    return f"{body}-{tail}" if keep else body + tail
