"""EPUB chapters: where each document of the book's reading order starts in markitdown's
output (which joins them without a marker).

The spine (``META-INF/container.xml`` → the package's ``<spine>``) lists the chapter
files in reading order; each one's opening words, read from its HTML, are found in the
converted markdown after the previous chapter's start (:func:`~.marks.find_words`).
Chapter ``n`` is the ``n``-th spine document, as a reader's table of contents counts
them. A chapter whose words are not found stays part of the one before it.
"""

from __future__ import annotations

import posixpath
import zipfile
from html.parser import HTMLParser
from pathlib import Path
from xml.etree import ElementTree

from minirag_store.convert.marks import Mark, find_words

__all__ = ["chapter_marks"]

#: Enough of a chapter's start to find its opening words (never the whole chapter).
_HEAD_BYTES = 64 * 1024
_SKIPPED = frozenset({"head", "script", "style", "title"})


class _Text(HTMLParser):
    """The visible text of an HTML document (no head, scripts or styles)."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: object) -> None:
        self._skip += tag in _SKIPPED

    def handle_endtag(self, tag: str) -> None:
        self._skip -= tag in _SKIPPED and self._skip > 0

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.parts.append(data)


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _spine(book: zipfile.ZipFile) -> list[str | None]:
    """The zip entries of the spine documents, in reading order; None for the book's own
    table of contents (the EPUB 3 ``nav`` document), which is no chapter but whose text
    markitdown keeps in its place."""
    container = ElementTree.fromstring(book.read("META-INF/container.xml"))
    rootfile = next(e for e in container.iter() if _local(e.tag) == "rootfile")
    opf_path = rootfile.attrib["full-path"]
    package = ElementTree.fromstring(book.read(opf_path))
    items = [e for e in package.iter() if _local(e.tag) == "item"]
    manifest = {e.attrib.get("id"): e.attrib.get("href", "") for e in items}
    navs = {e.attrib.get("id") for e in items if "nav" in e.attrib.get("properties", "").split()}
    base = posixpath.dirname(opf_path)
    names = set(book.namelist())
    spine: list[str | None] = []
    for e in package.iter():
        idref = e.attrib.get("idref") if _local(e.tag) == "itemref" else None
        href = manifest.get(idref)
        if href:
            name = posixpath.normpath(posixpath.join(base, href.split("#", 1)[0]))
            if name in names:
                spine.append(None if idref in navs else name)
    return spine


def _opening(book: zipfile.ZipFile, name: str) -> str:
    with book.open(name) as fh:
        head = fh.read(_HEAD_BYTES).decode("utf-8", errors="replace")
    parser = _Text()
    parser.feed(head)
    return " ".join("".join(parser.parts).split())[:400]


def chapter_marks(path: Path, markdown: str) -> tuple[Mark, ...]:
    """A mark where each chapter of the EPUB at ``path`` starts in its ``markdown``; none
    when the book's structure cannot be read (markitdown converted it all the same)."""
    try:
        with zipfile.ZipFile(path) as book:
            openings = [_opening(book, name) if name else None for name in _spine(book)]
    except (
        OSError,
        KeyError,
        StopIteration,
        ValueError,
        zipfile.BadZipFile,
        ElementTree.ParseError,
    ):
        return ()
    marks: list[Mark] = []
    cursor, number = 0, 0
    for opening in openings:
        if opening is None:  # the table of contents: no chapter, and no place of its own
            continue
        number += 1
        start = find_words(markdown, opening, cursor) if opening else None
        if start is not None:
            marks.append((start, {"chapter": number}))
            cursor = start + 1
    return tuple(marks)
