"""Reading back what is indexed: neighbours of a chunk, a whole source, deletion, and
exclusion (deletion that lasts: a rule in the root's ``.miniragignore``).

Each names its document by exactly one of a file path (checked to lie inside a root) or a
source key. Every look-up is by ``source`` (a BTREE-indexed column), never a table scan.
A document is reconstructed from its chunks' bodies (``text[body_start:]``), so heading
breadcrumbs, repeated table headers and the title seed that prefix a chunk appear once,
not per chunk.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from minirag_store.arguments import (
    FIRST_CHUNK_INDEX,
    NEIGHBORS,
    check_chunk_index,
    check_from_chunk,
    check_neighbors,
    check_place,
    one_document,
)
from minirag_store.errors import InvalidArgumentError, NotFoundError
from minirag_store.locators import Place, decode, numbers
from minirag_store.paths import display_path, resolve_document, root_of
from minirag_store.results import ChunkDict, DeleteResult, NeighborsResult, ReadResult

if TYPE_CHECKING:
    from minirag_store.index.table import ChunkTable
    from minirag_store.parts import Readable, Stored, Writable

__all__ = [
    "EXCLUDE_FILE",
    "delete_source",
    "document_source",
    "exclude_source",
    "read_neighbors",
    "read_source",
    "stored_table",
]


def document_source(index: Stored, source: str | None, file_path: str | None = None) -> str:
    """The source key named by exactly one of ``source`` or ``file_path``.

    Either may be what earlier results returned: a file's absolute path or its
    ``displayPath`` (relative to its root, as a query answer names it), the chosen id for
    data, the URL for a web page; on the CLI also a path relative to the working folder.
    One resolver decides (:func:`minirag_store.paths.resolve_document`).
    """
    one_document(file_path, source)
    text = file_path if file_path is not None else source
    if not isinstance(text, str) or not text.strip():
        name = "filePath" if file_path is not None else "source"
        raise InvalidArgumentError(f"{name} must be a non-empty string, got {text!r}")
    table = index.existing_table()
    return resolve_document(
        index.config,
        text,
        lambda key: table is not None and table.chunk_count(key) > 0,
        checked=file_path is not None,
    )


def stored_table(index: Stored) -> ChunkTable:
    """The index's table; :class:`NotFoundError` naming the index and its roots when it
    has none (a read never creates one)."""
    table = index.existing_table()
    if table is None:
        raise NotFoundError(
            f"The index at {index.config.where} is empty: nothing is indexed there yet. "
            "Run sync (or ingest files) first."
        )
    return table


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
    index: Stored,
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
    table = stored_table(index)
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
    index: Readable,
    source: str | None,
    *,
    file_path: str | None = None,
    from_chunk: int = FIRST_CHUNK_INDEX,
    page: int | None = None,
    slide: int | None = None,
    max_tokens: int | None = None,
) -> ReadResult:
    """The document reconstructed as markdown, section by section, from chunk
    ``from_chunk`` on, as far as ``max_tokens`` allows (None: RAG_MAX_RESPONSE_TOKENS, a
    model's context; 0: the whole rest, a terminal) (:mod:`minirag_store.budget`:
    ``nextChunk`` says where the rest starts). With ``page`` or ``slide``: only the
    chunks on that page of a PDF or slide of a deck (as their locators say)."""
    from minirag_store.arguments import check_max_tokens
    from minirag_store.budget import fit_read

    budget = index.config.max_response_tokens if max_tokens is None else max_tokens
    budget = check_max_tokens(budget)
    source = document_source(index, source, file_path)
    from_chunk = check_from_chunk(from_chunk)
    place = check_place(page, slide)
    rows = stored_table(index).source_chunks(source)
    if not rows:
        raise _not_found(source)
    total, first = len(rows), rows[0]
    if place is not None:
        rows = _on_place(source, rows, *place)
    start = rows[0]["chunk_index"]
    if not start <= from_chunk <= rows[-1]["chunk_index"]:
        if place is None or from_chunk > start:
            held = f"{place[0]} {place[1]} of {source!r} holds" if place else f"{source!r} has"
            raise NotFoundError(
                f"{held} chunks {start}..{rows[-1]['chunk_index']}; fromChunk {from_chunk} "
                "does not exist" + (" there" if place else "")
            )
        from_chunk = start  # fromChunk 0 (the default) with a page: the page's first chunk
    base: ReadResult = {
        "source": source,
        "sourceType": first["source_type"],
        "title": first["title"],
        "chunkCount": total,
        "text": "",
        "displayPath": display_path(index.config, source, first["source_type"]),
    }
    if place is not None:
        base[place[0]] = place[1]  # type: ignore[literal-required]
    rows = rows[from_chunk - start :]
    if budget == 0:
        return {**base, "text": _markdown(rows)}
    bodies = [r["text"][r["body_start"] :] for r in rows]
    return fit_read(
        base,
        lambda stop: _markdown(rows[: stop - from_chunk]),
        bodies,
        first=from_chunk,
        budget=budget,
        count=index.token_counter(),
        place=f", {place[0]}={place[1]}" if place else "",
    )


_KINDS = {"page": "pages (page reads a PDF's)", "slide": "slides (slide reads a deck's: .pptx)"}


def _on_place(
    source: str, rows: list[dict[str, Any]], place: Place, number: int
) -> list[dict[str, Any]]:
    """The chunks of ``source`` on page (slide) ``number``: from the first to the last
    whose locator covers it (a run of chunks, in order). Refuses, saying what to do, a
    number the document does not have or a document without pages (slides)."""
    covers = [number in numbers(decode(r.get("locator")), place) for r in rows]
    if any(covers):
        first, last = covers.index(True), len(covers) - covers[::-1].index(True)
        return rows[first:last]
    known = sorted(set().union(*(numbers(decode(r.get("locator")), place) for r in rows)))
    if not known:
        if any(not r.get("locator") for r in rows):
            raise InvalidArgumentError(
                f"{source!r} was indexed before pages and slides were recorded: run sync "
                f"(it reads the file again), then read {place} {number} again"
            )
        if place == "page" and source.lower().endswith(".pdf"):
            raise InvalidArgumentError(
                f"The pages of {source!r} could not be told apart when it was converted, so "
                "it cannot be read by page: read it without page (fromChunk to go on)"
            )
        raise InvalidArgumentError(
            f"{source!r} has no {_KINDS[place]}: read it without {place} (fromChunk to go on)"
        )
    if number > known[-1]:
        raise NotFoundError(
            f"{source!r} has {place}s {known[0]}..{known[-1]} (as indexed); {place} {number} "
            "does not exist"
        )
    raise NotFoundError(
        f"{place.capitalize()} {number} of {source!r} holds no indexed text (a blank page, or "
        f"a scan OCR could not read); its text is on {place}s {', '.join(map(str, known))}"
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


#: The ignore file :func:`exclude_source` writes in a root (read by ingest/ignore.py).
EXCLUDE_FILE = ".miniragignore"
#: gitignore's special characters, escaped so a rule names one file as written.
_SPECIAL = re.compile(r"([\\*?\[])")


def exclude_source(
    index: Writable, source: str | None, *, file_path: str | None = None
) -> DeleteResult:
    """Keep a file out of the index for good: a rule naming it in its root's
    ``.miniragignore`` (added once), then its chunks deleted, where ``delete_source``
    alone lasts until the next sync."""
    source = document_source(index, source, file_path)
    root = root_of(index.config, source) if os.path.isabs(source) else None
    if root is None:
        raise InvalidArgumentError(
            f"{source!r} is not a file under a document root: only files can be excluded "
            "(delete_file removes data and web pages)"
        )
    rule = "/" + _gitignore_literal(Path(source).relative_to(root).as_posix())
    target = root / EXCLUDE_FILE
    try:
        held = target.read_text(encoding="utf-8") if target.exists() else ""
        if rule not in held.splitlines():
            gap = "" if not held or held.endswith("\n") else "\n"
            with target.open("a", encoding="utf-8") as out:
                out.write(f"{gap}{rule}\n")
    except (OSError, UnicodeDecodeError) as e:
        raise InvalidArgumentError(f"cannot write the rule {rule!r} to {target}: {e}") from e
    deleted = index.table().delete_sources([source])
    if deleted:
        index.after_small_write()
    return {"source": source, "rule": rule, "ignoreFile": str(target), "deletedChunks": deleted}


def _gitignore_literal(path: str) -> str:
    """``path`` as a gitignore pattern that matches only itself."""
    escaped = _SPECIAL.sub(r"\\\1", path)
    if escaped.endswith(" "):  # trailing spaces are dropped unless escaped
        stripped = escaped.rstrip(" ")
        escaped = stripped + "\\ " * (len(escaped) - len(stripped))
    return escaped


def delete_source(
    index: Writable, source: str | None, *, file_path: str | None = None
) -> DeleteResult:
    """Remove every chunk of the document from the index (files on disk are untouched)."""
    source = document_source(index, source, file_path)
    deleted = stored_table(index).delete_sources([source])
    if deleted == 0:
        raise _not_found(source)
    index.after_small_write()
    return {"source": source, "deletedChunks": deleted}
