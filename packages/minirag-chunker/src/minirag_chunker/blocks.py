"""The normalised document as a sequence of blocks joined by blank lines.

Blocks are the atoms sections are made of: a heading line, a slide marker, a closed code
fence, a run of table rows, or a run of other text lines (a paragraph, a list, a transcript
turn). Section boundaries always fall between blocks, so joining every section's text with
``"\\n\\n"`` gives back ``"\\n\\n".join(block texts)`` — that join *is* the normalised
document. Normalising means: ``\\r\\n`` → ``\\n``, whitespace-only lines emptied, runs of
blank lines collapsed to one, a blank line forced around headings, slide markers, fences and
tables and before each transcript turn, and any block longer than the section cap cut into
several (tables repeating their header, text at line then sentence boundaries).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from minirag_chunker.detect import (
    HEADING_LINE,
    SLIDE_MARKER,
    STAMP_LINE,
    TABLE_ROW,
    Scan,
    clean_heading,
    parse_stamp,
)
from minirag_chunker.model import Category
from minirag_chunker.tables import split_table

BlockKind = Literal["heading", "marker", "text", "table", "fence"]

# A section is what a caller reads back with a hit; an unbounded one would hand back a whole
# chapter for a one-line match. 4,000 characters is about ten retrieval units of prose.
SECTION_MAX_CHARS = 4000
# Where one long line is cut when it must be: after sentence-ending punctuation.
SENTENCE_END = re.compile(r"(?<=[.!?…])\s+")
# Where a long fence may be cut: a blank line (the last of a run of them).
_FENCE_GAP = re.compile(r"\n\n(?!\n)")


@dataclass(frozen=True)
class Block:
    """One block of the normalised document.

    ``level``/``name`` describe a heading (``name`` is the cleaned heading text) or a slide
    marker (``name`` is the slide number); ``stamp`` is a transcript turn's time in seconds.
    """

    kind: BlockKind
    text: str
    level: int = 0
    name: str = ""
    stamp: int | None = None


def build_blocks(doc: Scan, category: Category) -> list[Block]:
    """Cut the scanned document into blocks (see the module docstring), capped in size."""
    blocks: list[Block] = []
    for block in _raw_blocks(doc, category == "transcript"):
        blocks.extend(_cap(block))
    return blocks


def _raw_blocks(doc: Scan, turns: bool) -> list[Block]:
    """Blocks before capping; ``turns`` starts a new block at every transcript stamp line."""
    blocks: list[Block] = []
    run: list[str] = []

    def flush() -> None:
        if run:
            blocks.append(_text_block(run, turns))
            run.clear()

    lines, i = doc.lines, 0
    while i < len(lines):
        end = doc.fences.get(i)
        if end is not None:
            flush()
            blocks.append(Block("fence", "\n".join(lines[i:end])))
            i = end
            continue
        level = doc.setext.get(i)
        if level is not None:  # text line + underline: one heading block, both lines kept
            flush()
            text = lines[i] + "\n" + lines[i + 1]
            name = clean_heading(lines[i]) or lines[i].strip()
            blocks.append(Block("heading", text, level=level, name=name))
            i += 2
            continue
        line = lines[i]
        i += 1
        single = _single_line_block(line)
        if single is not None or not line:
            flush()
            if single is not None:
                blocks.append(single)
            continue
        starts_turn = turns and STAMP_LINE.match(line) is not None
        if run and (starts_turn or bool(TABLE_ROW.match(run[-1])) != bool(TABLE_ROW.match(line))):
            flush()
        run.append(line)
    flush()
    return blocks


def _single_line_block(line: str) -> Block | None:
    """A heading or slide-marker block, which always stands alone, or None."""
    heading = HEADING_LINE.match(line)
    if heading:
        name = clean_heading(heading.group(2)) or line.strip()
        return Block("heading", line, level=len(heading.group(1)), name=name)
    marker = SLIDE_MARKER.match(line)
    if marker:
        return Block("marker", line, name=marker.group(1))
    return None


def _text_block(run: list[str], turns: bool) -> Block:
    """A table block when the run is table rows, else a text block (with its turn time)."""
    if TABLE_ROW.match(run[0]):
        return Block("table", "\n".join(run))
    stamp = STAMP_LINE.match(run[0]) if turns else None
    return Block("text", "\n".join(run), stamp=parse_stamp(stamp.group(1)) if stamp else None)


def _cap(block: Block) -> list[Block]:
    """The block itself, or pieces of it no longer than the section cap.

    Headings and markers are a line or two. A long fence is cut at its blank lines (so the
    pieces, joined by a blank line, are the code exactly), else between lines: a search hit
    in a 50 KB listing must not hand the whole listing back as its section. A single row,
    sentence or code line longer than the cap stays whole: the cap is soft only there.
    """
    if len(block.text) <= SECTION_MAX_CHARS or block.kind in ("heading", "marker"):
        return [block]
    if block.kind == "fence":
        parts: list[str] = []
        # The last blank line of a run is the cut, so no piece starts with a newline.
        for stretch in _FENCE_GAP.split(block.text):
            fits = len(stretch) <= SECTION_MAX_CHARS
            parts.extend([stretch] if fits else _pack(stretch.split("\n"), "\n", SECTION_MAX_CHARS))
        return [Block("fence", piece) for piece in _pack(parts, "\n\n", SECTION_MAX_CHARS)]
    if block.kind == "table":
        return [Block("table", piece) for piece in split_table(block.text, SECTION_MAX_CHARS)]
    parts = []
    for line in block.text.split("\n"):
        if len(line) <= SECTION_MAX_CHARS:
            parts.append(line)
        else:
            parts.extend(_pack(SENTENCE_END.split(line), " ", SECTION_MAX_CHARS))
    pieces = _pack(parts, "\n", SECTION_MAX_CHARS)
    return [
        Block("text", piece, stamp=block.stamp if n == 0 else None)
        for n, piece in enumerate(pieces)
    ]


def _pack(parts: list[str], glue: str, cap: int) -> list[str]:
    """Join consecutive parts with ``glue`` into strings of at most ``cap`` characters."""
    out: list[str] = []
    current: list[str] = []
    size = 0
    for part in parts:
        add = len(part) + (len(glue) if current else 0)
        if current and size + add > cap:
            out.append(glue.join(current))
            current, size, add = [], 0, len(part)
        current.append(part)
        size += add
    if current:
        out.append(glue.join(current))
    return [piece for piece in out if piece.strip()]
