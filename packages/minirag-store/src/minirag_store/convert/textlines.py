"""A PDF page's printed lines as pdfium's text layer reports them, with their boxes.

What :func:`minirag_store.convert.reflow.reflow_lines` decides by: each line's left and
right edges, baseline, font size, first word's width, the gaps between its words, whether
its font is fixed-pitch, and whether pdfium ended it with a hyphen it took for
hyphenation (U+0002 in its text, the line break after it left out). A line set at 90, 180
or 270 degrees is measured turned upright (a landscape slide printed on a portrait page
reads like one printed upright); one running across most of its page's text is marked
``sideways`` (a stamp up the margin).

The page's text is read in one call and only the characters that bound a line or a word
are asked for their boxes: asking every character (six ctypes calls each) cost 50 ms on a
1,800-character page, about what pdfminer's whole conversion of it costs.
"""

from __future__ import annotations

import ctypes
import math
from collections import Counter
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from minirag_store.convert.engine import printable
from minirag_store.convert.reflow import Line

if TYPE_CHECKING:
    import pypdfium2 as pdfium

__all__ = ["page_lines"]

_FIXED_PITCH = 1  # FPDF_FONT_FIXEDPITCH in FPDFText_GetFontInfo's flags
#: How pdfium's text stands for a hyphen it took for hyphenation: U+0002 from the bounded
#: call, U+FFFE from the range one (the line break after it left out).
_SOFT = "\x02\ufffe"


_TO_HYPHEN = str.maketrans(dict.fromkeys(_SOFT, "-"))
_TO_LINE_END = str.maketrans(dict.fromkeys(_SOFT, "-\n"))


class _Boxes:
    """Boxes of single characters of one text page (pypdfium2's raw API)."""

    def __init__(self, textpage: pdfium.PdfTextPage) -> None:
        from pypdfium2 import raw

        self.raw = raw
        self.page = textpage.raw
        self.rect = raw.FS_RECTF()
        self.x, self.y = ctypes.c_double(), ctypes.c_double()
        self.flags = ctypes.c_int()
        self.quarters = 0  # quarter turns that set the current line upright

    def upright(self, index: int) -> None:
        """Read what follows in the frame of the line holding ``index``: text set at 90,
        180 or 270 degrees (a landscape slide printed on a portrait page and turned by
        the page's /Rotate, a chart's axis) is turned upright, so its lines' edges, sizes
        and baselines mean what they mean for upright text."""
        angle = self.raw.FPDFText_GetCharAngle(self.page, index)
        # pdfium's angle runs clockwise; -1 when it cannot tell
        self.quarters = (4 - round(angle / (math.pi / 2))) % 4 if angle >= 0 else 0

    def _turn(self, x: float, y: float) -> tuple[float, float]:
        for _ in range(self.quarters):
            x, y = y, -x  # a quarter turn clockwise
        return x, y

    def box(self, index: int) -> tuple[float, float, float, float]:
        """(left, right, bottom, top) of the glyph's loose box (the font's ascent and
        descent: the same height for every character of a line), upright."""
        self.raw.FPDFText_GetLooseCharBox(self.page, index, self.rect)
        r = self.rect
        (x1, y1), (x2, y2) = self._turn(r.left, r.bottom), self._turn(r.right, r.top)
        return min(x1, x2), max(x1, x2), min(y1, y2), max(y1, y2)

    def baseline(self, index: int) -> float:
        self.raw.FPDFText_GetCharOrigin(self.page, index, self.x, self.y)
        return self._turn(self.x.value, self.y.value)[1]

    def size(self, index: int) -> float:
        return float(self.raw.FPDFText_GetFontSize(self.page, index))

    def fixed(self, index: int) -> bool:
        self.raw.FPDFText_GetFontInfo(self.page, index, None, 0, self.flags)
        return bool(self.flags.value & _FIXED_PITCH)


def _text(textpage: pdfium.PdfTextPage, count: int) -> str:
    """The page's characters, one per index (generated spaces and line breaks included)."""
    text = textpage.get_text_range(0, count) if count else ""
    if len(text) == count:
        return text
    # A character outside UCS-2, or one pdfium leaves out of its text: ask each.
    from pypdfium2 import raw

    return "".join(chr(raw.FPDFText_GetUnicode(textpage.raw, i)) for i in range(count))


def _line(boxes: _Boxes, text: str, start: int, end: int) -> Line | None:
    """The printed line of characters ``start``..``end`` (exclusive)."""
    visible = [i for i in range(start, end) if not text[i].isspace()]
    if not visible:
        return None
    first, last = visible[0], visible[-1]
    boxes.upright(first)
    left, _, _, top = boxes.box(first)
    right = boxes.box(last)[1]
    # The loose box's height (the font's ascent + descent at its size): pdfium's font size
    # is 1 where a PDF scales its text with the text matrix (fake_memo.pdf of kreuzberg's).
    # Taken at the first letter or digit: a brace or bullet of another font may stand taller
    # ("{a,b}@host" read as a heading's size).
    sized = next((i for i in visible if text[i].isalnum()), first)
    _, _, low, high = boxes.box(sized)
    size = high - low if high > low else boxes.size(sized)
    gaps: list[float] = []
    first_word = right - left
    i = first
    while i <= last:
        if text[i].isspace():
            before = i - 1
            while i <= last and text[i].isspace():
                i += 1
            edge = boxes.box(before)[1]
            if not gaps:
                first_word = edge - left
            gaps.append(boxes.box(i)[0] - edge)
            continue
        i += 1
    return Line(
        text=printable(text[start:end].translate(_TO_HYPHEN)),
        left=left,
        right=right,
        bottom=boxes.baseline(first),
        top=top,
        size=size,
        first_word=first_word,
        gaps=tuple(gaps),
        fixed=boxes.fixed(first),
        soft=text[end - 1 : end] in _SOFT,
    )


def page_lines(textpage: Any) -> tuple[str, list[Line]]:
    """The page's text (as pypdfium2's bounded call gives it) and its printed lines."""
    count = textpage.count_chars()
    text = _text(textpage, count)
    boxes = _Boxes(textpage)
    lines: list[Line] = []
    turns: list[int] = []
    start = 0
    for i, char in enumerate(f"{text}\n"):  # the newline ends the last line
        if char in "\r\n" or char in _SOFT:
            end = i + 1 if char in _SOFT else i
            if (line := _line(boxes, text, start, end)) is not None:
                lines.append(line)
                turns.append(boxes.quarters)
            start = i + 1
    # Text running across most of the page's (by characters) is a margin's stamp
    chars: Counter[int] = Counter()
    for line, turn in zip(lines, turns, strict=True):
        chars[turn] += len(line.text)
    if len(chars) > 1:
        usual = chars.most_common(1)[0][0]
        lines = [replace(line, sideways=True) if turn != usual else line
                 for line, turn in zip(lines, turns, strict=True)]  # fmt: skip
    # A hyphen pdfium took for hyphenation ends its line again in the text, so that the
    # split word is not among the document's words (reflow's evidence for hyphens).
    return text.replace("\r\n", "\n").translate(_TO_LINE_END), lines
