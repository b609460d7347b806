"""What a person sees of a passage: the query's words marked, the machine's markers gone.

Shared by both places a person reads hits: ``minirag-cli query`` (in the terminal) and the
web page's search and read views (*shared*: the shells import it).

Markers: conversion leaves HTML comments on lines of their own for the machine (``<!--
page 70: OCR (tesseract) -->``, markitdown's ``<!-- Slide number: 6 -->``); the stored
text keeps them (locators and reading rely on them), a reader is not shown them
(:func:`without_markers`). A heading path may hold a link (``[A Short History of
Microsoft](https://www.bing.com/...)``): a reader sees its text (:func:`heading_text`).

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
from minirag_store.index.text.readable import readable

__all__ = ["heading_text", "query_terms", "term_spans", "without_markers"]

#: A line that is one HTML comment, the way converters write their markers.
_MARKER_LINE = re.compile(r"^[ \t]*<!--.*?-->[ \t]*$")
_FENCE = re.compile(r"^[ \t]*(```|~~~)")

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


def without_markers(text: str) -> str:
    """``text`` without the lines that are only an HTML comment, outside code fences (a
    comment in a fenced HTML sample is content); blank lines left doubled are folded."""
    out: list[str] = []
    fenced = False
    for line in text.split("\n"):
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced and _MARKER_LINE.match(line):
            continue
        if not line.strip() and out and not out[-1].strip():
            continue
        out.append(line)
    return "\n".join(out).strip("\n") if len(out) != len(text.split("\n")) else text


def heading_text(heading: str) -> str:
    """A heading path as a reader reads it: link and image markup reduced to their text."""
    return readable(heading)
