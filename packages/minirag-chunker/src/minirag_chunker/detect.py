"""Reading structure off the markdown: line patterns, closed code fences, the category.

The category comes from the converted markdown, never from a file extension: one ``.docx``
can hold a meeting transcript, a numbered specification or a letter. Detection fails safe:
whatever does not clearly match a category is ``generic``.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

from minirag_chunker.model import Category

# A transcript turn line: the time alone on its line, optionally after a bold speaker name
# (``**Dana Marx** 0:03``), which is the shape Teams exports take after conversion.
STAMP_LINE = re.compile(
    r"^[ \t]*(?:\*\*[^*\n]{1,80}\*\*[ \t]+)?((?:\d{1,2}:)?\d{1,2}:\d{2})[ \t]*$"
)
SLIDE_MARKER = re.compile(r"^[ \t]*<!--[ \t]*Slide number:[ \t]*(\d+)[ \t]*-->[ \t]*$")
# group 2 may still end in a closing ``###`` run; clean_heading drops it. (A lazy group
# followed by optional trailing parts backtracks quadratically on long lines.)
HEADING_LINE = re.compile(r"^ {0,3}(#{1,6})[ \t]+(\S.*)$")
TABLE_ROW = re.compile(r"^[ \t]*\|.*\|[ \t]*$")
TABLE_DELIMITER = re.compile(r"^[ \t]*\|(?:[ \t]*:?-+:?[ \t]*\|)+[ \t]*$")
# A Setext underline (``Title`` over ``=====`` is level 1, over ``-----`` level 2). Three
# characters at least: a lone ``-`` under a line is far more often a stray list marker.
SETEXT_UNDERLINE = re.compile(r"^ {0,3}(={3,}|-{3,})[ \t]*$")
# Lines that cannot be a Setext heading's text: indented code, list items, quotes, table
# rows, HTML, ATX headings (CommonMark gives them their own meaning first).
_NOT_SETEXT_TEXT = re.compile(r"^(?: {4}|\t| {0,3}(?:[-*+>]|\d{1,9}[.)])(?:[ \t]|$)| {0,3}[|<#])")
FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})")
FENCE_CLOSE = re.compile(r"^ {0,3}(`{3,}|~{3,})[ \t]*$")

# The real transcripts this was calibrated on have ~50% of non-blank lines matching
# STAMP_LINE (stamp and speech alternate) and other documents ~0%: 15% sits in the gap.
# The absolute floor keeps a short note with a couple of times in it out.
TRANSCRIPT_MIN_LINES = 5
TRANSCRIPT_MIN_SHARE = 0.15
# Two markers, so a document that merely quotes one marker is not a deck.
SLIDES_MIN_MARKERS = 2
HEADINGS_MIN = 2


@dataclass(frozen=True)
class Scan:
    """The document's lines (line endings and blank lines normalised) and its closed fences.

    ``fences`` maps the first line of each closed fence to the index just past its closer;
    ``setext`` maps the text line of each Setext heading to its level (its underline is
    the next line).
    """

    lines: tuple[str, ...]
    fences: dict[int, int]
    setext: dict[int, int]

    def outside_fences(self) -> list[str]:
        """Every line that is not inside (or part of) a closed code fence."""
        out: list[str] = []
        i = 0
        while i < len(self.lines):
            end = self.fences.get(i)
            if end is not None:
                i = end
                continue
            out.append(self.lines[i])
            i += 1
        return out


def scan(markdown: str) -> Scan:
    """Split ``markdown`` into normalised lines and find its closed code fences."""
    text = markdown.replace("\r\n", "\n").replace("\r", "\n")
    # A whitespace-only line is a blank line to markdown; making it empty lets every later
    # stage test blankness with ``not line``.
    lines = tuple(line if line.strip() else "" for line in text.split("\n"))
    fences = _closed_fences(lines)
    return Scan(lines, fences, _setext_headings(lines, fences))


def _setext_headings(lines: tuple[str, ...], fences: dict[int, int]) -> dict[int, int]:
    """Setext headings outside fences: a one-line paragraph directly over an underline.

    Only a paragraph of one line counts (a blank line, the document start, a fence or a
    heading before it): the underline under a longer paragraph, and the ``---`` closing
    YAML front matter, stay text, which is the safe reading when in doubt.
    """
    found: dict[int, int] = {}
    fenced = {i for start, end in fences.items() for i in range(start, end)}
    fence_ends = set(fences.values())
    i = 0
    while i + 1 < len(lines):
        line, under = lines[i], SETEXT_UNDERLINE.match(lines[i + 1])
        starts_paragraph = i == 0 or not lines[i - 1] or i in fence_ends or i - 1 in found
        if (
            under
            and line
            and starts_paragraph
            and i not in fenced
            and i + 1 not in fenced
            and not _NOT_SETEXT_TEXT.match(line)
            and not SLIDE_MARKER.match(line)
        ):
            found[i] = 1 if under.group(1)[0] == "=" else 2
            i += 2
            continue
        i += 1
    return found


def _closed_fences(lines: tuple[str, ...]) -> dict[int, int]:
    """Pair fence openers with closers; an opener without a closer is ordinary text.

    A closer is looked up by bisecting the sorted closer candidates of the same character,
    so a document full of stray fence lines stays linear-ish instead of rescanning to the end.
    """
    closers: dict[str, list[int]] = {"`": [], "~": []}
    for i, line in enumerate(lines):
        match = FENCE_CLOSE.match(line)
        if match:
            closers[match.group(1)[0]].append(i)
    fences: dict[int, int] = {}
    i = 0
    while i < len(lines):
        match = FENCE_OPEN.match(lines[i])
        end = _find_closer(lines, closers, i, match.group(1)) if match else None
        if end is None:
            i += 1
            continue
        fences[i] = end + 1
        i = end + 1
    return fences


def _find_closer(
    lines: tuple[str, ...], closers: dict[str, list[int]], start: int, opener: str
) -> int | None:
    """Index of the line closing a fence opened at ``start`` with ``opener``, if any."""
    candidates = closers[opener[0]]
    for pos in range(bisect_right(candidates, start), len(candidates)):
        index = candidates[pos]
        if len(lines[index].strip()) >= len(opener):
            return index
    return None


def detect_category(doc: Scan) -> Category:
    """Which structure the document has; anything unclear is ``generic``."""
    outside = doc.outside_fences()
    non_blank = [line for line in outside if line]
    stamps = sum(1 for line in non_blank if STAMP_LINE.match(line))
    if stamps >= TRANSCRIPT_MIN_LINES and stamps >= TRANSCRIPT_MIN_SHARE * len(non_blank):
        return "transcript"
    if sum(1 for line in non_blank if SLIDE_MARKER.match(line)) >= SLIDES_MIN_MARKERS:
        return "slides"
    atx = sum(1 for line in non_blank if HEADING_LINE.match(line))
    if atx + len(doc.setext) >= HEADINGS_MIN:
        return "headings"
    return "generic"


def parse_stamp(text: str) -> int:
    """Seconds from ``H:MM:SS`` / ``MM:SS`` / ``M:SS``."""
    seconds = 0
    for part in text.split(":"):
        seconds = seconds * 60 + int(part)
    return seconds


def format_stamp(seconds: int) -> str:
    """``MM:SS`` under an hour, ``H:MM:SS`` beyond, as the transcripts themselves write it."""
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes:02d}:{secs:02d}"


def clean_heading(text: str) -> str:
    """Heading text without emphasis markup: ``# **2** **Scope**`` gives ``2 Scope``."""
    text = " ".join(text.replace("**", " ").replace("__", " ").split())
    head, _, tail = text.rpartition(" ")
    if head and tail and set(tail) == {"#"}:  # ATX closing sequence: ``## Scope ##``
        text = head
    return text.strip("*_`~ ")
