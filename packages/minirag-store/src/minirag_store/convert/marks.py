"""Where each page, slide, sheet (and row) or chapter starts in a converted document.

A converter returns its markdown with *marks*: ``(offset, place)`` pairs in document
order, each saying "from this character on, the text is on this page / slide / sheet
row / chapter". The writer (:mod:`minirag_store.index.write.chunk_locators`) gives
each chunk the places its body covers. Marks are data beside the markdown, never text
in it: nothing a reader sees or a vector is made from changes.

``place`` keys: ``page`` (1-based PDF page), ``slide`` (the deck's slide number),
``sheet`` + ``row`` (a spreadsheet's sheet name and row: the header row is 1, as in a
sheet whose table starts at its first row), ``chapter`` (an EPUB chapter's 1-based
position in reading order).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["Mark", "find_words", "join_pages", "slide_marks", "table_marks"]

Mark = tuple[int, dict[str, int | str]]

# markitdown's pptx converter opens each slide with this comment (the chunker's marker too).
_SLIDE = re.compile(r"^[ \t]*<!--[ \t]*Slide number:[ \t]*(\d+)[ \t]*-->[ \t]*$", re.M)
# markitdown's xlsx/xls converters open each sheet with a level-2 heading of its name.
_SHEET = re.compile(r"^## (.+)$", re.M)
_TABLE_ROW = re.compile(r"^[ \t]*\|.*\|[ \t]*$")
_DELIMITER = re.compile(r"^[ \t]*\|(?:[ \t]*:?-+:?[ \t]*\|)+[ \t]*$")


def join_pages(pages: Iterable[tuple[int | None, str]]) -> tuple[str, tuple[Mark, ...]]:
    """``(page index (0-based), text)`` pairs joined by blank lines, with a page mark at
    the start of each non-blank page: the PDF's markdown and where its pages start. A
    page of unknown number (None) gets no mark: its text is not placed on any page."""
    parts: list[str] = []
    marks: list[Mark] = []
    offset = 0
    for index, page in pages:
        text = page.strip()
        if not text:
            continue
        if parts:
            offset += 2  # the "\n\n" join
        marks.append((offset, {"page": index + 1} if index is not None else {}))
        parts.append(text)
        offset += len(text)
    return "\n\n".join(parts), tuple(marks)


def find_words(markdown: str, text: str, cursor: int) -> int | None:
    """Start of the line where ``text``'s opening words occur in ``markdown`` after cursor
    (a page's text layer, a chapter's text: another extractor's view of the same words).

    Four words in a row, punctuation and markup between them allowed, tried from the first
    three word offsets: a page number or header that one extractor puts first may come
    last in the other. None when they do not occur.
    """
    words = re.findall(r"\w+", text)
    for offset in range(min(3, max(len(words) - 3, 1))):
        pattern = r"\W*".join(map(re.escape, words[offset : offset + 4]))
        found = re.compile(pattern).search(markdown, cursor) if pattern else None
        if found is not None:
            return markdown.rfind("\n", 0, found.start()) + 1
    return None


def slide_marks(markdown: str) -> tuple[Mark, ...]:
    """A mark at each ``<!-- Slide number: N -->`` line of a converted deck."""
    return tuple((m.start(), {"slide": int(m.group(1))}) for m in _SLIDE.finditer(markdown))


def table_marks(markdown: str, *, workbook: bool) -> tuple[Mark, ...]:
    """Marks of a converted spreadsheet: each table row's sheet and row number.

    In a ``workbook`` every ``## name`` line opens a sheet (rows before the first one
    get none); a CSV is one unnamed sheet (row marks only). The first table row of a sheet
    is its header, row 1; rows count on from there (the ``|---|`` delimiter is not a row).
    """
    marks: list[Mark] = []
    current: str | None = None if workbook else ""
    row = 0
    offset = 0
    for line in markdown.split("\n"):
        heading = _SHEET.match(line) if workbook else None
        if heading is not None:
            current, row = heading.group(1).strip(), 0
            marks.append((offset, {"sheet": current}))
        elif current is not None and _TABLE_ROW.match(line) and not _DELIMITER.match(line):
            row += 1
            place: dict[str, int | str] = {"sheet": current} if current else {}
            marks.append((offset, {**place, "row": row}))
        offset += len(line) + 1
    return tuple(marks)
