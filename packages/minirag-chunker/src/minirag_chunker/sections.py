"""Grouping blocks into parent sections, by category.

transcript: 120-second windows of turns; slides: one slide; headings: one heading section
(a bodiless heading followed by its own sub-heading joins that sub-section, so its words
are not lost and it does not become an empty section); generic: runs of blocks. Every
section is then held under the character cap by cutting between blocks.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from minirag_chunker.blocks import SECTION_MAX_CHARS, Block
from minirag_chunker.context import BREADCRUMB_JOIN, breadcrumb_candidates
from minirag_chunker.detect import format_stamp
from minirag_chunker.model import Category

TRANSCRIPT_WINDOW_SECONDS = 120
# Generic sections gather consecutive blocks up to this size: roughly four units of prose,
# near the median section size (~1,200 characters) measured on a real office corpus. Larger
# would return too much text per hit; one block per section would leave tiny parents.
GENERIC_SECTION_CHARS = 1500


@dataclass(frozen=True)
class RawSection:
    """A section before packing: its blocks and the context candidates for its units.

    ``lead`` is offered to the unit that opens the section (whose body may already carry
    the heading line itself), ``rest`` to every later unit.
    """

    label: str
    blocks: tuple[Block, ...]
    lead: tuple[str, ...] = ("",)
    rest: tuple[str, ...] = ("",)

    @property
    def text(self) -> str:
        """The section's text: its blocks joined by blank lines."""
        return "\n\n".join(block.text for block in self.blocks)


def build_sections(blocks: list[Block], category: Category, title: str) -> list[RawSection]:
    """Group ``blocks`` into capped sections for ``category``."""
    if category == "transcript":
        raw = _transcript(blocks, title)
    elif category == "slides":
        raw = _slides(blocks)
    elif category == "headings":
        raw = _headings(blocks)
    else:
        raw = _generic(blocks)
    limit = GENERIC_SECTION_CHARS if category == "generic" else SECTION_MAX_CHARS
    return [piece for section in raw for piece in _cap(section, limit)]


def _cap(section: RawSection, target: int) -> Iterator[RawSection]:
    """Cut a section between blocks so each piece stays within ``target`` characters.

    A piece is never left holding only a heading or slide marker while the block it
    introduces would still fit under the hard cap: a bare heading is no use to a reader.
    """
    groups: list[list[Block]] = [[]]
    size = 0
    for block in section.blocks:
        add = len(block.text) + (2 if groups[-1] else 0)
        bare = all(b.kind in ("heading", "marker") for b in groups[-1])
        over = size + add > (SECTION_MAX_CHARS if bare else target)
        if groups[-1] and over:
            groups.append([])
            add = len(block.text)
            size = 0
        groups[-1].append(block)
        size += add
    for n, group in enumerate(groups):
        lead = section.lead if n == 0 else section.rest
        yield RawSection(section.label, tuple(group), lead, section.rest)


def _transcript(blocks: list[Block], title: str) -> list[RawSection]:
    """One section per run of turns inside the same 120-second window."""
    out: list[RawSection] = []
    group: list[Block] = []
    window: int | None = None
    for block in blocks:
        if block.stamp is not None:
            start = block.stamp // TRANSCRIPT_WINDOW_SECONDS * TRANSCRIPT_WINDOW_SECONDS
            if start != window or not group:
                _close_window(out, group, window, title)
                group, window = [], start
        group.append(block)
    _close_window(out, group, window, title)
    return out


def _close_window(out: list[RawSection], group: list[Block], start: int | None, title: str) -> None:
    if not group:
        return
    if start is None:  # lines before the first timestamp: the meeting's header
        out.append(RawSection("", tuple(group)))
        return
    end = start + TRANSCRIPT_WINDOW_SECONDS
    window = f"[{format_stamp(start)}–{format_stamp(end)}]"
    label = f"{window} {title}".strip()
    candidates = tuple(dict.fromkeys((label, window, "")))
    out.append(RawSection(label, tuple(group), candidates, candidates))


def _runs(blocks: list[Block], opener: str) -> list[list[Block]]:
    """Consecutive groups of ``blocks``, a new one starting at each block of kind ``opener``."""
    groups: list[list[Block]] = []
    for block in blocks:
        if block.kind == opener or not groups:
            groups.append([])
        groups[-1].append(block)
    return groups


def _slides(blocks: list[Block]) -> list[RawSection]:
    """One section per slide; the marker opens it, so only later units need the label."""
    return [_slide(group) for group in _runs(blocks, "marker")]


def _slide(group: list[Block]) -> RawSection:
    first = group[0]
    if first.kind != "marker":
        return RawSection("", tuple(group))
    label = f"Slide {first.name}"
    return RawSection(label, tuple(group), ("",), (label, ""))


def _headings(blocks: list[Block]) -> list[RawSection]:
    """One section per heading, carrying the heading chain; bodiless parents merge down."""
    runs: list[tuple[tuple[str, ...], list[Block]]] = []
    stack: list[tuple[int, str]] = []
    for block in blocks:
        if block.kind == "heading":
            while stack and stack[-1][0] >= block.level:
                stack.pop()
            stack.append((block.level, block.name))
            runs.append((tuple(name for _, name in stack), [block]))
        elif runs:
            runs[-1][1].append(block)
        else:
            runs.append(((), [block]))
    merged: list[tuple[tuple[str, ...], tuple[str, ...], list[Block]]] = []
    for chain, group in reversed(runs):
        opens = group[0].kind == "heading"
        lead = chain[:-1] if opens else chain
        if merged and opens and len(group) == 1 and _extends(merged[-1][0], chain):
            child_chain, _, child = merged[-1]
            merged[-1] = (child_chain, lead, group + child)
        else:
            merged.append((chain, lead, group))
    return [
        RawSection(
            BREADCRUMB_JOIN.join(chain),
            tuple(group),
            breadcrumb_candidates(lead),
            breadcrumb_candidates(chain),
        )
        for chain, lead, group in reversed(merged)
    ]


def _extends(child: tuple[str, ...], parent: tuple[str, ...]) -> bool:
    """Whether ``child`` is a heading chain nested under ``parent``."""
    return len(child) > len(parent) and child[: len(parent)] == parent


def _generic(blocks: list[Block]) -> list[RawSection]:
    """Runs of blocks; a heading (there is at most one in a generic document) opens a run,
    names it, and is the context of the run's later units."""
    return [_run(group) for group in _runs(blocks, "heading")]


def _run(group: list[Block]) -> RawSection:
    first = group[0]
    if first.kind != "heading":
        return RawSection("", tuple(group))
    return RawSection(first.name, tuple(group), ("",), (first.name, ""))
