"""Each chunk's locator: the pages, slides, sheet rows or chapter its body covers, and its
heading path.

Conversion gives the document's markdown with marks (``(offset, place)``, see
:mod:`minirag_store.convert.marks`); the chunker cuts a *normalised* copy of that markdown
(blank lines collapsed, a blank line forced around headings, tables longer than a section
repeating their header rows). Normalising only moves whitespace, except those repeated
rows, so offsets are compared by non-whitespace characters: a mark's place in the chunked
text is the first occurrence of the text that follows it in the markdown, searched from
where it has to be at the earliest (the previous mark's place plus the characters
between the two in the markdown; inserted header rows only push it further). Pure.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from minirag_chunker import Chunked

__all__ = ["locate"]

_SPACE = re.compile(r"\s+")
#: Characters of text after a mark looked for in the chunked text (fewer when not found).
_ANCHORS = (48, 12)
#: How far past its earliest place a mark's text is looked for (repeated table header rows
#: in between: wide tables have long headers).
_WINDOW = 20_000
_HEADING_CATEGORIES = ("headings", "generic")  # where a section label is a heading path


def _squash(text: str) -> str:
    return _SPACE.sub("", text)


def _mark_places(markdown: str, offsets: Sequence[int], chunked_text: str) -> list[int]:
    """Where each mark (at ``offsets`` of ``markdown``, in order) falls in
    ``chunked_text`` (the chunked bodies, whitespace removed), in its characters."""
    source = _squash(markdown)
    places: list[int] = []
    prev_offset = prev_source = prev_place = 0
    for offset in offsets:
        at = prev_source + len(_squash(markdown[prev_offset:offset]))
        earliest = min(prev_place + (at - prev_source), len(chunked_text))
        place = earliest
        for size in _ANCHORS:
            anchor = source[at : at + size]
            if not anchor:
                break
            found = chunked_text.find(anchor, earliest, earliest + _WINDOW + size)
            if found >= 0:
                place = found
                break
        places.append(place)
        prev_offset, prev_source, prev_place = offset, at, place
    return places


def _merge(places: list[dict[str, Any]]) -> dict[str, Any]:
    """One locator from the places a chunk covers (in document order)."""
    out: dict[str, Any] = {}
    for key, plural in (("page", "pages"), ("slide", "slides"), ("chapter", "chapters")):
        values = [p[key] for p in places if key in p]
        if values:
            out[key] = values[0]
            if max(values) != values[0]:
                out[plural] = [min(values), max(values)]
    sheets = [p["sheet"] for p in places if "sheet" in p]
    if sheets:
        out["sheet"] = sheets[0]
    rows = [p["row"] for p in places if "row" in p and p.get("sheet") == out.get("sheet")]
    if rows:
        out["rows"] = [min(rows), max(rows)]
    return out


def locate(
    markdown: str, marks: Sequence[tuple[int, dict[str, Any]]], chunked: Chunked
) -> list[dict[str, Any]]:
    """The locator of each of ``chunked``'s units, in unit order (see the module doc):
    ``page``/``pages``, ``slide``/``slides``, ``sheet`` + ``rows``, ``chapter``, and
    ``headingPath`` (the section's heading breadcrumb) where known."""
    bodies = [_squash(unit.body) for unit in chunked.units]
    starts: list[int] = []
    total = 0
    for body in bodies:
        starts.append(total)
        total += len(body)
    ordered = sorted(marks, key=lambda m: m[0])
    places = _mark_places(markdown, [m[0] for m in ordered], "".join(bodies))
    labels = chunked.category in _HEADING_CATEGORIES
    out: list[dict[str, Any]] = []
    for unit, start, body in zip(chunked.units, starts, bodies, strict=True):
        end = start + max(len(body), 1)
        # the marks in force over [start, end): the last one at or before start (none
        # when the chunk begins before the first mark), and every one inside
        first = max(bisect_right(places, start) - 1, 0)
        covered = [ordered[i][1] for i in range(first, bisect_left(places, end))]
        locator = _merge(covered)
        label = chunked.sections[unit.section].label
        if labels and label:
            locator["headingPath"] = label
        out.append(locator)
    return out
