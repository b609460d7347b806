"""Text extracted from a PDF, reflowed into the paragraphs its author wrote.

A PDF holds printed lines, not paragraphs. pdfminer (markitdown's PDF route) and pdfium
hand back one line per printed line, pdfminer often a blank line after each (and, in a
justified line whose word gaps were stretched, after each *word*), and OCR one line per
line it saw. Every such break would be a paragraph to the chunker, a unit boundary, the
end of a phrase. This module decides, for each pair of consecutive printed lines, one of:

* **join** (a space, or nothing after a line-end hyphen that split a word): the same
  paragraph goes on;
* **line** (``\\n``): a line that is a line (an address, verse, a letterhead, a table row,
  code, a list item): kept, within its block;
* **paragraph** (``\\n\\n``): a new block.

The evidence, strongest first, with geometry when the page's text layer gives it
(:func:`reflow_lines`, the ``Line`` boxes pdfium reports) and from the text alone
otherwise (:func:`reflow_text`: markitdown's pdfminer text, its table route's prose, OCR):

1. **Would the next word have fitted?** A typesetter (or a word processor) ends a line of a
   paragraph only when the next word does not fit the measure. So a line whose right edge
   plus a space plus the next line's first word still lies inside its column's measure
   (the farthest right edge of the lines starting at the same left edge) was ended on
   purpose: a paragraph's last line, an address line, a verse line. This holds for
   justified and ragged text alike and needs no threshold tuned to a file. Without
   geometry, lengths in characters stand in (the measure is the longest prose line; a
   line counts as ended on purpose only when the word would have fitted with a tenth of
   the measure to spare, since proportional fonts make character counts loose).
2. **What starts the next line**: a larger or smaller font (a heading), an indent against
   its column (a paragraph's first line), more vertical space than the page's usual
   leading, a list marker, a table row, code (a fixed-pitch font, a fence): a new block
   or line, whatever the fit says.
3. **What ends the line**: after a line ended on purpose, a sentence end (``.``, ``!``,
   ``?``, ``:``) makes the next line a new paragraph; otherwise the break is a kept line.
   A blank line in pdfminer's text counts as a paragraph break only after a line ended on
   purpose: pdfminer writes one after lines that merely reached the margin.

**Hyphens at a line's end** are dropped where they only split a word
(:mod:`.hyphens`).

**Headings**: a paragraph of at most three lines in a font at least :data:`HEADING_RATIO`
times the body's (the size most characters are set in) becomes a Markdown heading on one
line, ``#`` for the largest such size, then ``##``, ``###`` (:func:`heading_levels`): the
chunker carries it as the breadcrumb of what follows, as for a ``.md`` file. Not a heading:
a size holding a fifth of the characters (a deck set large), a line without a word of
three letters (a drop cap, a page number, a figure's labels) or with words set far apart
(a figure's labels side by side).

Runs of spaces inside a prose line (justification, pdfminer's gap spaces) become one;
table rows and code keep theirs. Page marks are placed by the caller on each page's
reflowed text, so ``read_file(page=…)`` and hit locators work as before.

Pure: no PDF library here (:mod:`minirag_store.convert.pdf` reads the boxes).
"""

from __future__ import annotations

import itertools
import math
import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from minirag_store.convert.hyphens import DASHES, Spelling, dehyphenate

__all__ = [
    "HEADING_RATIO",
    "Line",
    "heading_levels",
    "reflow_lines",
    "reflow_text",
    "tabular",
]

JOIN, LINE, PARAGRAPH = " ", "\n", "\n\n"

#: A list item's opening: a bullet, ``1.``, ``(a)``, ``iv)``.
_LIST = re.compile(r"^\s*(?:[•◦▪▫●○■□‣⁃∙·\-–—*+]\s|\(?(?:\d{1,3}|[a-zA-Z]|[ivxIVX]{1,4})[.)]\s)")
_SENTENCE_END = re.compile(r"[.!?:;][\"'”’)\]]*$")
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
_COMMENT = re.compile(r"^\s*<!--.*-->\s*$")
_SPACES = re.compile(r"(?<=\S)[ \t\u00a0]{2,}(?=\S)")
#: How much larger than the body text a heading's font is, at least (module doc).
HEADING_RATIO = 1.2
_HEADING_LINES = 3  # a longer run of large type is a pull quote or a deck, not a heading
_HEADING_SHARE = 0.2  # of the document's characters, at most, in one heading size
_WORDLIKE = re.compile(r"[^\W\d_]{3,}")  # a word of three letters: not a figure's labels
#: Widest space between a heading's words, in font sizes: labels set apart in a figure
#: ("merge    merge") are not one ("1  Introduction" has 1.3).
_HEADING_GAP = 2.5


@dataclass(frozen=True)
class Line:
    """One printed line as the text layer reports it (PDF points, y up).

    ``first_word`` is the width of its first word, ``size`` its font size, ``gaps`` the
    widths of the spaces between its words, ``fixed`` whether its font is fixed-pitch.
    ``soft`` says pdfium ended it with a hyphen it took for hyphenation (the text then
    ends with ``-``); ``sideways`` that it runs across most of its page's text (a stamp up
    the margin), which makes it no heading, whatever its size."""

    text: str
    left: float
    right: float
    bottom: float
    top: float
    size: float
    first_word: float
    gaps: tuple[float, ...] = ()
    fixed: bool = False
    soft: bool = False
    sideways: bool = False


def _join(parts: list[str], breaks: list[str], spelling: Spelling | None) -> str:
    """Lines and the break after each (one fewer) as one text."""
    out = parts[0] if parts else ""
    for brk, nxt in zip(breaks, parts[1:], strict=True):
        if brk == JOIN and out and out[-1] in DASHES and not out[-2:-1].isspace():
            out = dehyphenate(out, nxt, spelling)
        else:
            out += brk + nxt
    return out


def _prose(text: str) -> str:
    """A prose line with justification's runs of spaces made one."""
    return _SPACES.sub(" ", text.strip())


def _ends_sentence(text: str) -> bool:
    return bool(_SENTENCE_END.search(text.rstrip()))


def _structural(text: str) -> bool:
    """A line that is structure of its own: a list item, a table row, a heading, a fence,
    a comment (the OCR page mark)."""
    return bool(
        _LIST.match(text)
        or _TABLE_ROW.match(text)
        or _HEADING.match(text)
        or _FENCE.match(text)
        or _COMMENT.match(text)
    )


def tabular(line: Line) -> bool:
    """Word gaps far wider than the others (columns), not the even ones of justification."""
    if len(line.gaps) < 1:
        return False
    widest = max(line.gaps)
    usual = sorted(line.gaps)[len(line.gaps) // 2]
    return widest > 2.5 * line.size and widest > 2 * max(usual, 0.2 * line.size)


class _Columns:
    """Each line's column and its measure.

    A line's peers are the lines of its size that start where it starts (within half a
    line height: a column's lines, or a column's indented first lines); a line with fewer
    than three such peers (a centred address, a signature, a lone first line) is measured
    against the lines of its size that it lies across. The measure's right edge is where
    most peers end when at least three (and 30%) end within a point of each other
    (justified text, even with a few wider lines above it: an abstract across two
    columns), else the second farthest right edge (ragged text; the second, so that one
    line reaching past the column does not set it)."""

    def __init__(self, lines: Sequence[Line]) -> None:
        self.lines = [o for o in lines if not tabular(o)]

    def _peers(self, line: Line) -> list[Line]:
        same = [o for o in self.lines if abs(o.size - line.size) < 0.15 * line.size]
        aligned = [o for o in same if abs(o.left - line.left) <= 0.5 * line.size]
        if len(aligned) >= 3:
            return aligned
        return [o for o in same if o.left <= line.right and o.right >= line.left]

    def right(self, line: Line) -> float:
        edges = sorted(o.right for o in self._peers(line))
        if len(edges) < 2:
            return line.right
        count, edge = max(
            (bisect_right(edges, e + 1.0) - i, edges[bisect_right(edges, e + 1.0) - 1])
            for i, e in enumerate(edges)
        )
        if count >= 3 and count >= 0.3 * len(edges):
            return edge
        return edges[-2]

    def left(self, line: Line) -> float:
        return min((o.left for o in self._peers(line)), default=line.left)


def _leading(lines: Sequence[Line]) -> dict[float, float]:
    """Each type size's baseline distance within a paragraph: the smallest drop between
    consecutive lines of that size, at least 0.7 of their height (a memo spaces its
    paragraphs wider; a title in large type its lines)."""
    steps: dict[float, float] = {}
    for a, b in itertools.pairwise(lines):
        if 0.7 * a.size <= a.bottom - b.bottom < 3 * a.size and abs(a.size - b.size) < 0.5:
            steps[_size(a)] = min(steps.get(_size(a), math.inf), a.bottom - b.bottom)
    return steps


def _forced(a: Line, b: Line, columns: _Columns, leading: dict[float, float]) -> str | None:
    """The break that what starts ``b`` forces, whatever the fit says (None: none)."""
    if a.fixed or b.fixed or tabular(a) or tabular(b):
        return LINE
    if abs(a.size - b.size) > 0.15 * max(a.size, b.size):
        return PARAGRAPH  # a heading, a caption, a footnote
    if _LIST.match(b.text):
        return PARAGRAPH if _ends_sentence(a.text) and a.right < columns.right(a) else LINE
    drop = a.bottom - b.bottom
    if 0 < drop < 3 * a.size:  # the next line of the same column
        usual = leading.get(_size(a), min(leading.values(), default=0.0))
        if usual and drop > 1.4 * usual:
            return PARAGRAPH  # space between paragraphs
        indent = 0.6 * b.size
        if b.left > columns.left(b) + indent and b.left > a.left + indent:
            return PARAGRAPH  # an indented first line
    return None


def _break(a: Line, b: Line, columns: _Columns, leading: dict[float, float]) -> str:
    """What separates printed line ``a`` from the next, ``b`` (module doc)."""
    if a.soft:
        return JOIN
    forced = _forced(a, b, columns, leading)
    if forced is not None:
        return forced
    fits = a.right + 0.25 * a.size + b.first_word < columns.right(a) - 0.5
    if not fits:
        return JOIN
    next_column = not 0 < a.bottom - b.bottom < 3 * a.size
    return PARAGRAPH if _ends_sentence(a.text) or next_column else LINE


def _size(line: Line) -> float:
    return round(line.size * 2) / 2  # to half a point: one style's lines vary by less


def heading_levels(lines: Iterable[Line]) -> dict[float, int]:
    """The font sizes a document's headings are set in, each with its level: 1 for the
    largest, at most 3 (module doc). Empty when there is no body text to compare with."""
    chars: Counter[float] = Counter()
    for line in lines:
        if not line.sideways:
            chars[_size(line)] += len(line.text.strip())
    if not chars:
        return {}
    body = max(chars, key=lambda size: (chars[size], -size))
    total = chars.total()
    large = [size for size, n in chars.items()
             if size >= HEADING_RATIO * body and n < _HEADING_SHARE * total]  # fmt: skip
    return {size: min(rank, 3) for rank, size in enumerate(sorted(large, reverse=True), 1)}


def _mark_headings(
    lines: Sequence[Line], parts: list[str], breaks: list[str], levels: Mapping[float, int]
) -> None:
    """Each paragraph set in a heading's size made a Markdown heading on one line; lines
    of one heading size that follow each other closely are one heading (a centred title
    whose line ends with a colon or a full stop, which would end a paragraph)."""
    bounds = [i + 1 for i, brk in enumerate(breaks) if brk == PARAGRAPH]
    start = 0
    for end in [*(b for b in bounds if not _same_heading(lines[b - 1], lines[b], levels)),
                len(lines)]:  # fmt: skip
        found = [0 if line.sideways else levels.get(_size(line), 0) for line in lines[start:end]]
        text = " ".join(parts[start:end])
        if (
            all(found)
            and end - start <= _HEADING_LINES
            and _WORDLIKE.search(text)
            and not _structural(parts[start])
            and all(
                gap <= _HEADING_GAP * line.size for line in lines[start:end] for gap in line.gaps
            )
        ):
            parts[start] = "#" * min(found) + " " + parts[start]
            breaks[start : end - 1] = [JOIN] * (end - 1 - start)
        start = end


def _same_heading(a: Line, b: Line, levels: Mapping[float, int]) -> bool:
    """Whether ``b`` goes on the heading ``a`` is a line of: the same heading size, and
    the next line down (within two of its heights)."""
    return (
        levels.get(_size(a), 0) > 0
        and _size(a) == _size(b)
        and 0 < a.bottom - b.bottom < 2 * a.size
    )


def reflow_lines(
    lines: Sequence[Line],
    spelling: Spelling | None = None,
    levels: Mapping[float, int] | None = None,
) -> str:
    """One page's printed lines (in reading order, with their boxes) as paragraphs;
    ``spelling``: the document's, for its split words; ``levels``: the document's
    :func:`heading_levels` (else the page's own)."""
    lines = [line for line in lines if line.text.strip()]
    if not lines:
        return ""
    columns = _Columns(lines)
    leading = _leading(lines)
    parts = [line.text.rstrip() if line.fixed or tabular(line) else _prose(line.text)
             for line in lines]  # fmt: skip
    breaks = [_break(a, b, columns, leading) for a, b in itertools.pairwise(lines)]
    _mark_headings(lines, parts, breaks, heading_levels(lines) if levels is None else levels)
    return _join(parts, breaks, spelling)


def _first_word(text: str) -> int:
    return len(text.split(maxsplit=1)[0]) if text.strip() else 0


def _blocks(lines: list[str]) -> Iterable[tuple[bool, list[tuple[str, bool]]]]:
    """Runs of lines: (is code, [(line, blank line before it)]); fenced code stays as is."""
    run: list[tuple[str, bool]] = []
    blank = fence = False
    for line in lines:
        if _FENCE.match(line):
            if not fence and run:
                yield False, run
                run = []
            run.append((line, blank))
            if fence:
                yield True, run
                run = []
            fence, blank = not fence, False
        elif fence:
            run.append((line, False))
        elif not line.strip():
            blank = True
        else:
            run.append((line, blank))
            blank = False
    if run:
        yield fence, run


def _text_break(a: str, b: str, blank: bool, measure: int) -> str:
    """What separates line ``a`` from the next, ``b``, by their text alone."""
    if _COMMENT.match(a):  # the OCR page mark stays on the line above its text
        return PARAGRAPH if blank else LINE
    if (_structural(a) and not _LIST.match(a)) or _structural(b):
        return PARAGRAPH if blank or _HEADING.match(a) or _HEADING.match(b) else LINE
    if a.rstrip()[-1:] in DASHES and len(a) >= 0.6 * measure:
        return JOIN
    fits = len(a.rstrip()) + 1 + _first_word(b) <= 0.9 * measure
    if not fits:
        return JOIN
    return PARAGRAPH if blank or _ends_sentence(a) else LINE


def reflow_text(text: str, spelling: Spelling | None = None) -> str:
    """Text without geometry (markitdown's PDF text, OCR output) as paragraphs: printed
    lines joined by the same evidence as :func:`reflow_lines`, from their lengths in
    characters. Tables, fenced code, headings, comments and list items stay lines."""
    spelling = Spelling(text) if spelling is None else spelling
    out: list[str] = []
    for code, run in _blocks(text.split("\n")):
        if code:
            out.append("\n".join(line for line, _ in run))
            continue
        prose = [_prose(line) for line, _ in run]
        lengths = sorted(len(p) for p, (line, _) in zip(prose, run, strict=True)
                         if not _structural(line))  # fmt: skip
        # the 95th percentile (a stray long line, a URL, does not set it); all of a few
        measure = lengths[-(-95 * (len(lengths) - 1) // 100)] if lengths else 0
        parts = [line.rstrip() if _TABLE_ROW.match(line) else p
                 for p, (line, _) in zip(prose, run, strict=True)]  # fmt: skip
        blanks = [blank for _, blank in run]
        breaks = [
            _text_break(a, b, blank, measure)
            for a, b, blank in zip(parts, parts[1:], blanks[1:], strict=False)
        ]
        out.append(_join(parts, breaks, spelling))
    return "\n\n".join(block for block in out if block)
