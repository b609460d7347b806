"""What each chunk's vector is made from, and the stored vectors a re-written source keeps.

A sync re-reads a whole file whenever anything about it changed: one edited paragraph, a
newer chunking scheme, an index written before locators. The model is most of what that
costs (SciFact: ~10 CPU-minutes for 22k chunks), and most chunks come out as they were.
So before the writer (:mod:`minirag_store.index.write.writer`) embeds a window of documents, it
reads the stored rows of those sources (only what :func:`stored_vectors` needs; a window
at a time, never the whole table), and every new chunk whose exact embedding input equals
a stored chunk's takes that stored vector instead of being embedded again.

The key is exactly what the model receives: :func:`embed_texts` (readable text, prefix
included: the title seed, the heading breadcrumb, a repeated table header), so a chunk whose
body stayed the same under a renamed heading is embedded again. The index does not store
that text: a stored row's input is recomputed from its markdown and its section's other
rows by the same :func:`embed_texts`. That holds for rows cut by chunking scheme
:data:`EMBED_INPUT_SCHEME` or later; older rows embedded other text (scheme 3 began
embedding readable text) and are never reused. **Whoever changes what is embedded
(:func:`embed_texts`, :mod:`minirag_store.index.text.readable`) bumps the chunker's
``SCHEME_VERSION`` and sets :data:`EMBED_INPUT_SCHEME` to it.**

A stored vector always comes from the configured model: a table refuses to open with
another model or dimension (:func:`~minirag_store.index.storage.schema.check_model`), so a model
change never reaches this (it needs a new index). Stored float16 values go through
float32 and back to float16 unchanged, so a kept vector is bit-identical.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from minirag_store.index.storage.schema import in_sources
from minirag_store.index.text.readable import readable_pieces

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa
    from minirag_chunker import Unit

__all__ = ["EMBED_INPUT_SCHEME", "REUSE_COLUMNS", "embed_texts", "reuse_filter", "stored_vectors"]

#: Rows cut by this chunking scheme or a later one were embedded from :func:`embed_texts`
#: as it is now (see the module docstring: raise it with any change to what is embedded).
EMBED_INPUT_SCHEME = 3
#: What :func:`stored_vectors` reads of a stored row (never keywords or metadata).
REUSE_COLUMNS = ("source", "parent_id", "chunk_index", "text", "body_start", "vector")


def embed_texts(units: Sequence[Unit]) -> list[str]:
    """What each unit's vector is made from, in unit order: its readable text, read
    section by section (markup split between two chunks is still removed whole).

    A unit with nothing readable (images without alt text, links without text)
    keeps its markdown: an empty text would embed to the same vector for every such unit.
    """
    by_section: dict[int, list[Unit]] = {}
    for unit in units:
        by_section.setdefault(unit.section, []).append(unit)
    texts: dict[int, str] = {}
    for members in by_section.values():
        pieces = readable_pieces([(u.text, u.body_start) for u in members])
        for unit, (text, _) in zip(members, pieces, strict=True):
            texts[unit.index] = text if any(ch.isalnum() for ch in text) else unit.text
    return [texts[u.index] for u in units]


def reuse_filter(sources: Sequence[str]) -> str:
    """SQL for the stored rows of ``sources`` whose embedding input can be recomputed."""
    return f"{in_sources(sources)} AND scheme_version >= {EMBED_INPUT_SCHEME}"


def stored_vectors(stored: pa.Table) -> dict[str, np.ndarray]:
    """Each stored row's embedding input → its stored vector (float16), from
    :data:`REUSE_COLUMNS` of the rows :func:`reuse_filter` selects."""
    import numpy as np
    from minirag_chunker import Unit

    if stored.num_rows == 0:
        return {}
    dim = stored.schema.field("vector").type.list_size
    flat = stored.column("vector").combine_chunks().flatten().to_numpy(zero_copy_only=False)
    matrix = np.asarray(flat).reshape(-1, dim)
    rows = stored.select(list(REUSE_COLUMNS[:-1])).to_pylist()
    by_source: dict[str, list[int]] = {}
    for i, row in enumerate(rows):
        by_source.setdefault(row["source"], []).append(i)
    known: dict[str, np.ndarray] = {}
    for members in by_source.values():
        members.sort(key=lambda i: rows[i]["chunk_index"])
        sections: dict[str, int] = {}  # parent id → a section number, for embed_texts
        units = [
            Unit(
                index=rows[i]["chunk_index"],
                section=sections.setdefault(rows[i]["parent_id"], len(sections)),
                text=rows[i]["text"],
                body_start=rows[i]["body_start"] or 0,
            )
            for i in members
        ]
        for i, text in zip(members, embed_texts(units), strict=True):
            known[text] = matrix[i]
    return known
