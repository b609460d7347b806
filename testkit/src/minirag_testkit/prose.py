"""Prose PDFs laid out the way typesetters print articles, for the reflow tests and
``bench/pdf_quality.py``: a title and paragraphs, every printed line a line of its own in
the PDF, in one of :data:`KINDS`.

* ``justified``: one 6.5-inch column, both edges flush (each word placed on its own, the
  spare width shared between the gaps), paragraphs after the first indented.
* ``ragged``: the same column, left edge flush only, paragraphs parted by a blank space.
* ``two-column``: two justified columns a page.
* ``hyphenated``: one narrow justified column (2.8 inches), words hyphenated where they
  do not fit (pyphen's en_US points, at least two letters either side, and after a hyphen
  a word already has), as in a journal's narrow columns.

Written with ReportLab's canvas, word by word, so each kind's geometry is what is tested,
not a layout engine's defaults.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

__all__ = ["KINDS", "Article", "prose_pdf"]

KINDS = ("justified", "ragged", "two-column", "hyphenated")

_PAGE_W, _PAGE_H = 612.0, 792.0
_MARGIN = 72.0
_FONT, _BOLD = "ProseSerif", "ProseBold"
#: DejaVu Serif where the system has it (Greek, symbols: SciFact's abstracts use them), else
#: the Vera fonts ReportLab ships (Latin-1): embedded TrueType either way, as most PDFs are.
_FONT_FILES = (
    (
        "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf",
        "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
    ),
    ("Vera.ttf", "VeraBd.ttf"),
)
_SIZE, _LEADING = 10.0, 12.5
_TITLE_SIZE = 14.0


@dataclass(frozen=True)
class Article:
    """A title (printed as a heading) and its paragraphs."""

    title: str
    paragraphs: Sequence[str]


@dataclass(frozen=True)
class _Layout:
    columns: int
    width: float
    justify: bool
    hyphenate: bool
    indent: float  # first-line indent of a paragraph after the first
    gap: float  # extra space between paragraphs


_LAYOUTS = {
    "justified": _Layout(1, 468.0, True, False, 18.0, 0.0),
    "ragged": _Layout(1, 468.0, False, False, 0.0, 6.0),
    "two-column": _Layout(2, 222.0, True, False, 12.0, 0.0),
    "hyphenated": _Layout(1, 200.0, True, True, 12.0, 0.0),
}


@cache
def _hyphenator():
    import pyphen

    return pyphen.Pyphen(lang="en_US", left=2, right=3)


@cache
def _fonts() -> None:
    """Register the two fonts once (the first pair whose files exist)."""
    from pathlib import Path

    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    for regular, bold in _FONT_FILES:
        if Path(regular).is_absolute() and not Path(regular).exists():
            continue
        pdfmetrics.registerFont(TTFont(_FONT, regular))
        pdfmetrics.registerFont(TTFont(_BOLD, bold))
        return


def _width(text: str, font: str = _FONT, size: float = _SIZE) -> float:
    from reportlab.pdfbase.pdfmetrics import stringWidth

    _fonts()
    return stringWidth(text, font, size)


def _split(word: str, room: float) -> tuple[str, str] | None:
    """The longest head of ``word`` (with its hyphen) that fits ``room``, and the rest."""
    best: tuple[str, str] | None = None
    for i in range(2, len(word) - 1):  # after a hyphen the word has: no hyphen added
        if word[i - 1] == "-" and word[i - 2].isalnum() and _width(word[:i]) <= room:
            best = (word[:i], word[i:])
    if not word.isalpha() or word.isupper():
        return best  # no syllables of a code, a number or an acronym (TeX's habit too)
    for head, tail in _hyphenator().iterate(word):
        if head[-1:].isalpha() and tail[:1].isalpha() and _width(head + "-") <= room:
            if best is None or len(head) + 1 > len(best[0]):
                best = (head + "-", tail)
            break  # iterate() goes from the longest head down
    return best


def _lines(words: list[str], first: float, width: float, hyphenate: bool) -> list[list[str]]:
    """Words broken into lines (greedy, as most producers do); the first line is
    ``first`` wide (an indent), the others ``width``."""
    lines: list[list[str]] = [[]]
    space = _width(" ")
    used, room = 0.0, first
    queue = list(words)
    while queue:
        word = queue.pop(0)
        need = _width(word) + (space if lines[-1] else 0.0)
        if used + need <= room or not lines[-1]:
            lines[-1].append(word)
            used += need
            continue
        parts = _split(word, room - used - space) if hyphenate else None
        if parts is not None:
            lines[-1].append(parts[0])
            queue.insert(0, parts[1])
        else:
            queue.insert(0, word)
        lines.append([])
        used, room = 0.0, width
    return lines


class _Writer:
    """A canvas and where the next line goes (column, y), page and column breaks included."""

    def __init__(self, layout: _Layout) -> None:
        from reportlab.pdfgen.canvas import Canvas

        _fonts()
        self.buffer = io.BytesIO()
        self.canvas = Canvas(self.buffer, pagesize=(_PAGE_W, _PAGE_H), pageCompression=0)
        self.layout = layout
        self.column = 0
        self.y = _PAGE_H - _MARGIN

    def x(self) -> float:
        gap = (_PAGE_W - 2 * _MARGIN - self.layout.columns * self.layout.width) / max(
            self.layout.columns - 1, 1
        )
        return _MARGIN + self.column * (self.layout.width + gap)

    def advance(self, height: float) -> None:
        self.y -= height
        if self.y < _MARGIN:
            self.column += 1
            if self.column == self.layout.columns:
                self.canvas.showPage()
                self.column = 0
            self.y = _PAGE_H - _MARGIN

    def title(self, text: str) -> None:
        self.canvas.setFont(_BOLD, _TITLE_SIZE)
        self.canvas.drawString(_MARGIN, self.y, text)
        self.advance(_TITLE_SIZE * 2)  # a full-width heading: columns start below it
        self.top = self.y

    def line(self, words: list[str], x: float, width: float, justify: bool) -> None:
        self.canvas.setFont(_FONT, _SIZE)
        if not justify or len(words) < 2:
            self.canvas.drawString(x, self.y, " ".join(words))
        else:
            spare = width - sum(_width(w) for w in words)
            gap = spare / (len(words) - 1)
            for word in words:
                self.canvas.drawString(x, self.y, word)
                x += _width(word) + gap
        self.advance(_LEADING)

    def paragraph(self, text: str, first: bool) -> None:
        layout = self.layout
        indent = 0.0 if first else layout.indent
        lines = _lines(text.split(), layout.width - indent, layout.width, layout.hyphenate)
        for n, words in enumerate(lines):
            x = self.x() + (indent if n == 0 else 0.0)
            last = n == len(lines) - 1
            self.line(
                words, x, layout.width - (indent if n == 0 else 0.0), layout.justify and not last
            )
        if layout.gap:
            self.advance(layout.gap)

    def finish(self) -> bytes:
        self.canvas.showPage()
        self.canvas.save()
        return self.buffer.getvalue()


def prose_pdf(article: Article, kind: str) -> bytes:
    """The article as a PDF of ``kind`` (one of :data:`KINDS`)."""
    writer = _Writer(_LAYOUTS[kind])
    writer.title(article.title)
    for n, paragraph in enumerate(article.paragraphs):
        writer.paragraph(paragraph, n == 0)
    return writer.finish()
