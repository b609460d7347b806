"""Reading back what is indexed: neighbours of a chunk, a whole source, and deletion.

Every look-up is by ``source`` (a BTREE-indexed column), never a table scan. A document is
reconstructed from its chunks' bodies (``text[body_start:]``), so heading breadcrumbs,
repeated table headers and the title seed that prefix a chunk appear once, not per chunk.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from minirag_store.errors import InvalidArgumentError, NotFoundError
from minirag_store.paths import display_path
from minirag_store.results import ChunkDict, DeleteResult, NeighborsResult, ReadResult

if TYPE_CHECKING:
    from minirag_store.service import Index

__all__ = ["delete_source", "read_neighbors", "read_source"]


def _require_source(source: str) -> str:
    if not isinstance(source, str) or not source.strip():
        raise InvalidArgumentError("source must be a non-empty string")
    return source


def _not_found(source: str) -> NotFoundError:
    return NotFoundError(
        f"No indexed source {source!r}; list_files shows what is indexed (file sources are "
        "absolute paths)."
    )


def _chunk(row: dict[str, Any]) -> ChunkDict:
    return {
        "text": row["text"],
        "source": row["source"],
        "title": row["title"],
        "chunkIndex": row["chunk_index"],
        "parentId": row["parent_id"] or None,
    }


def read_neighbors(
    index: Index, source: str, chunk_index: int, before: int = 2, after: int = 2
) -> NeighborsResult:
    """Chunks ``chunk_index - before .. chunk_index + after`` of ``source``, in order."""
    _require_source(source)
    for name, value in (("chunkIndex", chunk_index), ("before", before), ("after", after)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise InvalidArgumentError(f"{name} must be a whole number >= 0, got {value!r}")
    table = index.table()
    rows = table.source_chunks(source, max(0, chunk_index - before), chunk_index + after)
    if not any(r["chunk_index"] == chunk_index for r in rows):
        count = table.chunk_count(source)
        if count == 0:
            raise _not_found(source)
        raise NotFoundError(
            f"{source!r} has chunks 0..{count - 1}; chunkIndex {chunk_index} does not exist"
        )
    return {"source": source, "chunks": [_chunk(r) for r in rows]}


def read_source(index: Index, source: str) -> ReadResult:
    """The whole of ``source`` reconstructed as markdown, section by section."""
    from minirag_chunker import reconstruct_document, reconstruct_section

    _require_source(source)
    rows = index.table().source_chunks(source)
    if not rows:
        raise _not_found(source)
    sections: dict[str, list[tuple[str, int]]] = {}
    for row in rows:  # ordered by chunk_index, so sections come in document order
        sections.setdefault(row["parent_id"] or f"#{row['chunk_index']}", []).append(
            (row["text"], row["body_start"])
        )
    text = reconstruct_document(reconstruct_section(pieces) for pieces in sections.values())
    first = rows[0]
    return {
        "source": source,
        "sourceType": first["source_type"],
        "title": first["title"],
        "chunkCount": len(rows),
        "text": text,
        "displayPath": display_path(index.config, source, first["source_type"]),
    }


def delete_source(index: Index, source: str) -> DeleteResult:
    """Remove every chunk of ``source`` from the index (files on disk are untouched)."""
    _require_source(source)
    deleted = index.table().delete_sources([source])
    if deleted == 0:
        raise _not_found(source)
    index.after_small_write()
    return {"source": source, "deletedChunks": deleted}
