"""Reading back what is indexed: neighbours of a chunk, a whole source, and deletion.

Each names its document by exactly one of a file path (checked to lie inside a root) or a
source key. Every look-up is by ``source`` (a BTREE-indexed column), never a table scan.
A document is reconstructed from its chunks' bodies (``text[body_start:]``), so heading
breadcrumbs, repeated table headers and the title seed that prefix a chunk appear once,
not per chunk.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from minirag_store.arguments import (
    FIRST_CHUNK_INDEX,
    NEIGHBORS,
    check_chunk_index,
    check_from_chunk,
    check_neighbors,
    one_document,
)
from minirag_store.errors import InvalidArgumentError, NotFoundError
from minirag_store.paths import display_path, source_for_path
from minirag_store.results import ChunkDict, DeleteResult, NeighborsResult, ReadResult

if TYPE_CHECKING:
    from minirag_store.service import Index

__all__ = ["delete_source", "document_source", "read_neighbors", "read_source"]


def document_source(index: Index, source: str | None, file_path: str | None = None) -> str:
    """The source key named by exactly one of ``source`` or ``file_path``.

    ``file_path`` must be absolute and inside a root (symlinks followed); ``source`` is
    taken as given, because it is what earlier results returned (an absolute path for a
    file, the chosen id for data, the URL for a web page).
    """
    one_document(file_path, source)
    if file_path is not None:
        return source_for_path(index.config, file_path)
    if not isinstance(source, str) or not source.strip():
        raise InvalidArgumentError(f"source must be a non-empty string, got {source!r}")
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
    index: Index,
    source: str | None,
    chunk_index: int,
    before: int = NEIGHBORS.default,
    after: int = NEIGHBORS.default,
    *,
    file_path: str | None = None,
) -> NeighborsResult:
    """Chunks ``chunk_index - before .. chunk_index + after`` of the document, in order."""
    source = document_source(index, source, file_path)
    chunk_index = check_chunk_index(chunk_index)
    before, after = check_neighbors("before", before), check_neighbors("after", after)
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


def read_source(
    index: Index,
    source: str | None,
    *,
    file_path: str | None = None,
    from_chunk: int = FIRST_CHUNK_INDEX,
) -> ReadResult:
    """The document reconstructed as markdown, section by section, from chunk
    ``from_chunk`` on, as far as RAG_MAX_RESPONSE_TOKENS allows (:mod:`minirag_store.budget`:
    ``nextChunk`` says where the rest starts)."""
    from minirag_store.budget import fit_read

    source = document_source(index, source, file_path)
    from_chunk = check_from_chunk(from_chunk)
    rows = index.table().source_chunks(source)
    if not rows:
        raise _not_found(source)
    if from_chunk >= len(rows):
        raise NotFoundError(
            f"{source!r} has chunks 0..{len(rows) - 1}; fromChunk {from_chunk} does not exist"
        )
    first = rows[0]
    base: ReadResult = {
        "source": source,
        "sourceType": first["source_type"],
        "title": first["title"],
        "chunkCount": len(rows),
        "text": "",
        "displayPath": display_path(index.config, source, first["source_type"]),
    }
    rows = rows[from_chunk:]
    bodies = [r["text"][r["body_start"] :] for r in rows]
    return fit_read(
        base,
        lambda stop: _markdown(rows[: stop - from_chunk]),
        bodies,
        first=from_chunk,
        budget=index.config.max_response_tokens,
        count=index.token_counter(),
    )


def _markdown(rows: list[dict[str, Any]]) -> str:
    """The markdown of consecutive chunks: their bodies, sections joined as a document."""
    from minirag_chunker import reconstruct_document, reconstruct_section

    sections: dict[str, list[tuple[str, int]]] = {}
    for row in rows:  # ordered by chunk_index, so sections come in document order
        sections.setdefault(row["parent_id"] or f"#{row['chunk_index']}", []).append(
            (row["text"], row["body_start"])
        )
    return reconstruct_document(reconstruct_section(pieces) for pieces in sections.values())


def delete_source(
    index: Index, source: str | None, *, file_path: str | None = None
) -> DeleteResult:
    """Remove every chunk of the document from the index (files on disk are untouched)."""
    source = document_source(index, source, file_path)
    deleted = index.table().delete_sources([source])
    if deleted == 0:
        raise _not_found(source)
    index.after_small_write()
    return {"source": source, "deletedChunks": deleted}
