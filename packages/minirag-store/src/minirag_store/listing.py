"""``list_files``: the files on disk under the roots with their index state; and
``list_documents``: what is indexed and can still be read (the MCP server's resources).

One scan plus one ``table.source_meta()`` call; the state comes from a stat
comparison (no hashing, no per-file query), so listing a large tree stays cheap:

* ``ingested``      indexed, (size, mtime) as indexed, current chunking scheme;
* ``stale``         indexed, but the file's size or mtime changed since;
* ``stale_scheme``  indexed with an older chunking scheme, or before locators (a sync
  re-cuts it);
* ``not_ingested``  on disk, not in the index;
* ``failed``        on disk, not in the index: the last sync that tried it could not read
  it (``reason``: the error; :mod:`.ingest.record`);
* ``unreadable``    an indexed image still on disk while the OCR add-on is missing;
* ``empty``         a sync read it and found no text (until it changes, :mod:`.ingest.empties`);
* ``unsupported``   a type minirag does not read;
* ``too_large``     over MAX_FILE_SIZE;
* ``ignored``       (only when asked) a file or folder a rule skips: a dot-name, a
  ``.gitignore`` / ``.miniragignore`` line, ``node_modules``, the index folder.

These and ``failed`` carry a ``reason``: a user can tell "not supported" from "missed".

Indexed data and URL sources follow the files (they have no file to compare with).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from minirag_store.errors import MiniragError
from minirag_store.paths import display_path, resolve_scopes, scope_matches, source_for_path
from minirag_store.results import DocumentRow, FileRow, FileState, ListResult

if TYPE_CHECKING:
    from minirag_store.parts import Stored

__all__ = ["file_state", "list_documents", "list_files"]


def file_state(entry: Any, meta: Any, scheme: int) -> FileState:
    """The state of a scanned file given its indexed metadata (or None)."""
    if meta is None:
        return "not_ingested"
    if meta.scheme_version < scheme or not meta.located:
        return "stale_scheme"
    if meta.size != entry.size or meta.mtime != entry.mtime:
        return "stale"
    return "ingested"


def _row(
    index: Stored,
    source: str,
    source_type: str,
    meta: Any,
    state: FileState,
    *,
    reason: str | None = None,
) -> FileRow:
    row: FileRow = {
        "source": source,
        "displayPath": display_path(index.config, source, source_type),
        "sourceType": source_type,  # type: ignore[typeddict-item]
        "title": meta.title if meta is not None else "",
        "state": state,
        "chunkCount": meta.chunk_count if meta is not None else 0,
        "ocrEngine": meta.ocr_engine if meta is not None else "",
    }
    if reason is not None:
        row["reason"] = reason
    return row


def _passed_over(index: Stored, result: Any, scopes: tuple[str, ...] | None) -> list[FileRow]:
    """Rows of what the scan does not index: empty, too large, unsupported, ignored."""
    from minirag_store.ingest import empties
    from minirag_store.ingest.operations import oversized_message

    limit = index.config.max_file_size
    known = empties.load(index.config.db_path)
    rows = [
        _row(index, e.source, "file", None, "empty", reason=known[e.source][2])
        for e in result.files
        if e.source in known and known[e.source][:2] == (e.size, e.mtime)
    ]
    rows += [
        _row(index, e.source, "file", None, "too_large", reason=oversized_message(e.size, limit))
        for e in result.oversized
    ]
    rows += [_row(index, p.source, "file", None, p.state, reason=p.reason) for p in result.passed]  # type: ignore[arg-type]
    return [row for row in rows if scope_matches(row["source"], scopes)]


def list_files(
    index: Stored, scope: str | Sequence[str] | None = None, *, ignored: bool = False
) -> ListResult:
    """Files under the roots (within ``scope``) with their state, then data/url sources;
    ``ignored``: also what the scan skips by rule, each with the rule."""
    from minirag_chunker import SCHEME_VERSION

    from minirag_store.convert.formats import IMAGE_EXTENSIONS
    from minirag_store.index.storage.connection import table_absent
    from minirag_store.index.storage.schema import TABLE_NAME
    from minirag_store.ingest.record import failed_files
    from minirag_store.ingest.scan import scan

    scopes = resolve_scopes(index.config, scope)
    result = scan(index.config, None, ignored=ignored)
    metas: dict[str, Any] = {}
    # A new index without its table yet lists every file as not ingested at once; opening
    # the table would import LanceDB (seconds, while the warm-up imports it) and create it.
    if not table_absent(index.config.db_uri, TABLE_NAME):
        metas = index.table().source_meta(wait=False)  # a sync's commit is not awaited
    rows: list[FileRow] = []
    seen: set[str] = set()
    passed = {row["source"]: row for row in _passed_over(index, result, scopes)}
    failed = failed_files(index.config.db_path)  # what syncs could not read, and why
    for entry in sorted(result.files, key=lambda e: e.source):
        seen.add(entry.source)
        if scope_matches(entry.source, scopes):
            meta = metas.get(entry.source)
            empty = passed.pop(entry.source, None)  # indexed since: its state wins
            empty = empty if meta is None else None
            state = file_state(entry, meta, SCHEME_VERSION)
            row = empty or _row(index, entry.source, "file", meta, state)
            if state == "not_ingested" and entry.source in failed:
                row = {**row, "state": "failed", "reason": failed[entry.source]}
            rows.append(row)
    others: list[FileRow] = []
    for source in sorted(metas):
        meta = metas[source]
        if source in seen or not scope_matches(source, scopes):
            continue
        if meta.source_type != "file":
            state: FileState = (
                "stale_scheme" if meta.scheme_version < SCHEME_VERSION else "ingested"
            )
            others.append(_row(index, source, meta.source_type, meta, state))
        elif Path(source).suffix.lower() in IMAGE_EXTENSIONS and os.path.isfile(source):
            passed.pop(source, None)  # listed once: as indexed and unreadable
            rows.append(_row(index, source, "file", meta, "unreadable"))
    rows += sorted(passed.values(), key=lambda row: row["source"])
    listing: ListResult = {"files": rows + others}
    if scopes is not None and not listing["files"]:
        listing["notice"] = (
            f"Nothing on disk or indexed lies under scope {', '.join(scopes)}; check the "
            "path (a folder's absolute path or its path relative to its root, as listed "
            "without a scope), or list without a scope."
        )
    warnings = [str(w) for w in result.warnings]
    if warnings:
        listing["warnings"] = warnings
    return listing


def list_documents(index: Stored) -> list[DocumentRow]:
    """Every indexed document, by source, that a reader can open now: a file only while it
    is on disk and, symlinks followed, inside a root (one whose file was deleted or whose
    link now leads out is left out, whatever the index still holds); data and web pages
    always. Read from the index summary: no scan of the roots, no text or vector read.
    """
    from minirag_store.index.storage.connection import table_absent
    from minirag_store.index.storage.schema import TABLE_NAME

    if table_absent(index.config.db_uri, TABLE_NAME):
        return []
    metas = index.table().source_meta()
    rows: list[DocumentRow] = []
    for source in sorted(metas):
        meta = metas[source]
        if meta.source_type == "file" and not _readable(index, source):
            continue
        rows.append(
            {
                "source": source,
                "displayPath": display_path(index.config, source, meta.source_type),
                "sourceType": meta.source_type,  # type: ignore[typeddict-item]
                "title": meta.title,
                "size": meta.size,
                "chunkCount": meta.chunk_count,
            }
        )
    return rows


def _readable(index: Stored, source: str) -> bool:
    """Whether the indexed file ``source`` is still a file inside a root (links followed)."""
    if not os.path.isfile(source):
        return False
    try:
        return source_for_path(index.config, source) == source
    except MiniragError:  # it resolves outside every root now
        return False
