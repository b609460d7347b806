"""The chunker's result types: sections (what a reader gets back) and units (what is embedded)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

# Bump whenever unit or section boundaries change for the same input, so stores can tell a
# stale index (cut with an older scheme) from a current one and ask for a re-sync.
# 2: Setext headings; fences past the section cap are cut. 3: a sentence end may be followed
# by citation links; minirag-store sizes units by their readable text (a link's target costs
# nothing) and embeds that, so every source is re-cut and re-embedded. 4: minirag-store
# reflows PDF text into paragraphs (its printed lines were paragraphs), so PDFs are read
# and cut again; what is embedded is unchanged (EMBED_INPUT_SCHEME stays 3), so every chunk
# whose text did not change (every other format's) keeps its stored vector. 5: minirag-store
# marks a PDF's lines in a heading's font size as headings (a title, a section's), which
# then lead their chunks' breadcrumbs: PDFs are cut again, every other format's chunk keeps
# its vector. 6: minirag-store keeps the hyphen of a compound a PDF's line broke at its own
# hyphen (an English dictionary tells it from a split word), drops control characters (a
# PDF font's footnote star), takes no figure's labels or margin stamp for a heading and
# reads text set sideways upright: PDFs are read and cut again, every other format's chunk
# keeps its vector.
SCHEME_VERSION: int = 6

Category = Literal["transcript", "slides", "headings", "generic"]


@dataclass(frozen=True)
class Section:
    """One parent section: the passage a caller reads around a hit.

    ``label`` names it (heading breadcrumb, ``Slide 3``, ``[02:00–04:00] Weekly sync``,
    or ``""`` for untitled blocks); ``text`` is exactly this slice of the normalised document.
    """

    index: int
    label: str
    text: str


@dataclass(frozen=True)
class Unit:
    """One retrieval unit: ``text`` is embedded, ``text[body_start:]`` is its share of the section.

    ``text = prefix + body``. The prefix (title seed, heading breadcrumb, repeated table
    header, code-split marker) gives the vector its context and never enters reconstruction.
    """

    index: int
    section: int
    text: str
    body_start: int

    @property
    def body(self) -> str:
        """The part of ``text`` that belongs to the section (prefix removed)."""
        return self.text[self.body_start :]

    @property
    def prefix(self) -> str:
        """The context put in front of the body for embedding only."""
        return self.text[: self.body_start]


@dataclass(frozen=True)
class Chunked:
    """Everything chunking one document yields, in document order."""

    category: Category
    sections: tuple[Section, ...]
    units: tuple[Unit, ...]
