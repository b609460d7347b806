"""The LanceDB chunk table: schema, model check, atomic writes, look-ups and search.

Design notes:

* Vectors are stored as **float16** and searched in float32 over renormalised rows
  (:mod:`minirag_store.index.search.vectors`; docs/decisions/float16-vectors.md).
* The model that built the index (name + dimension) lives in the table's schema metadata;
  opening with another model raises :class:`IndexMismatchError`.
* A source is replaced in **one commit** (:mod:`minirag_store.index.storage.commits`): a
  reader sees the old chunks or the new ones, never a mix nor none; a crash mid-write
  leaves the previous version (docs/decisions/source-commits.md).
* The FTS index is over our own ``keywords`` column (:mod:`.text.keywords`); rows added
  since its last update are searched too; :meth:`maintain` folds them in, compacts, prunes.
* BTREE indexes on ``source``, ``parent_id`` and ``id``: no look-up scans the table.
* Search (:mod:`.search.searcher`): an in-memory snapshot of the latest version, or past
  ``RAG_ANN_MIN_CHUNKS`` the IVF index :meth:`maintain` builds (:mod:`.search.ann`).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from minirag_store.index.search import ann as ann_index
from minirag_store.index.search.aio import AsyncTable
from minirag_store.index.search.ann import AnnSettings
from minirag_store.index.search.searcher import Searcher, VectorPass
from minirag_store.index.search.vectors import VectorSnapshot, hit_columns
from minirag_store.index.storage import commits, summary, upkeep
from minirag_store.index.storage import keyword_column as kwcol
from minirag_store.index.storage.connection import Location, Options, local_folder, open_lance_table
from minirag_store.index.storage.fragments import (
    arrow_rows,
    commit_replace,
    fragments_from_json,
    write_fragments,
)
from minirag_store.index.storage.native import release_free_memory
from minirag_store.index.storage.rwlock import ReadWriteLock
from minirag_store.index.storage.schema import (
    ALL_ROWS,
    TABLE_NAME,
    check_model,
    has_primary_key,
    in_sources,
    meta_projection,
    missing_columns,
    schema,
    sql_str,
    stored_model,
)
from minirag_store.index.storage.summary import IndexSummary, SourceMeta

Ann = AnnSettings | None

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa

__all__ = ["ChunkTable", "SourceMeta"]


class ChunkTable:
    """The chunk rows of one index. Thread-safe; open with :meth:`open`."""

    def __init__(
        self,
        table: Any,
        db_path: Location,
        model_id: str,
        dim: int,
        options: Options = (),
        *,
        ann: AnnSettings | None = None,
    ) -> None:
        self._tbl = table
        self.db_path = db_path  # a folder, or an object-store URI (s3://bucket/prefix)
        self._local = local_folder(db_path)  # None on object storage: no summary file there
        self.model_id = model_id
        self.dim = dim
        self._ann = ann
        self._options = dict(options)
        self._rw = ReadWriteLock()
        self._write = threading.Lock()
        self._summary: IndexSummary | None = None  # the last one read, of its version
        handle = AsyncTable(db_path, TABLE_NAME, dict(options))
        self._search = Searcher(table, dim, self._rw, handle, ann)

    @classmethod
    def open(
        cls, db_path: Location, model_id: str, dim: int, options: Options = (), *, ann: Ann = None
    ) -> ChunkTable:
        """Open (or create) the table at ``db_path`` (a folder or an object-store URI, with
        its storage ``options``); refuse an index of another model."""
        table = open_lance_table(db_path, options, TABLE_NAME, schema(dim, model_id))
        check_model(table, db_path, model_id, dim)
        chunk_table = cls(table, db_path, model_id, dim, options, ann=ann)
        chunk_table._ensure_indexes()
        return chunk_table

    @classmethod
    def open_existing(
        cls, db_path: Location, model_id: str, options: Options = (), *, ann: Ann = None
    ) -> ChunkTable | None:
        """Open a table that already records its model, checking only its name: reads,
        listings and deletes skip the model's load. None when there is no table yet
        (creating one needs the model's dimension: then :meth:`open`)."""
        table = cls.peek(db_path, options, ann=ann)
        if table is None or not table.model_id:
            return None
        check_model(table._tbl, db_path, model_id, table.dim)
        table._ensure_indexes()
        return table

    @classmethod
    def peek(
        cls, db_path: Location, options: Options = (), *, ann: Ann = None
    ) -> ChunkTable | None:
        """Open an existing table without creating anything or checking the model
        (``status`` reads counts without loading the embedding model); None if absent."""
        table = open_lance_table(db_path, options, TABLE_NAME)
        if table is None:
            return None
        model_id, dim = stored_model(table)
        return cls(table, db_path, model_id, dim, options, ann=ann)

    # ------------------------------------------------------------------ indexes
    def _ensure_indexes(self) -> None:
        """Create missing indexes (on an empty table too), retrying on conflicts."""

        def create() -> None:
            if not has_primary_key(self._tbl.schema):  # an index made before it had one
                with self._writing():
                    upkeep.ensure_primary_key(self._tbl)
            missing = upkeep.missing_indexes(self._tbl)
            if missing:  # the common case is none: no write, so the summary stays current
                with self._writing():
                    upkeep.create_indexes(self._tbl, missing)

        upkeep.retry_conflicts(create, give_up=None)

    def keywords_stale(self) -> bool:
        """Whether some keyword entries predate the current scheme (:meth:`maintain`
        rebuilds them from the stored rows, without re-embedding)."""
        return self.summary().keywords_stale(kwcol.KEYWORDS_VERSION)

    def maintain(self, *, summarize: bool = True) -> None:
        """Fold new rows into every index, compact fragments, delete old versions.

        Keyword entries of an older scheme are rebuilt first (from the stored rows), and a
        current index summary is left behind. Call once per ingest batch or sync, never
        per file. Compaction runs while queries go on (they read their own version's
        files, which it keeps); only the final removal of old versions holds the
        exclusive lock, briefly, so no in-process query reads a file being deleted (another
        process's may: see :func:`~minirag_store.index.storage.upkeep.drop_old_versions`). Past
        ``RAG_ANN_MIN_CHUNKS`` it also (re)trains the vector index when due
        (:func:`~minirag_store.index.search.ann.due`). ``summarize`` False (a long write's
        maintenance before its last): no summary, which reads every row's metadata, and no rebuild
        of the keyword index (:data:`~minirag_store.index.storage.upkeep.KEYWORD_SEGMENTS`).
        """
        self._ensure_indexes()

        def tidy() -> None:
            with self._writing():
                if kwcol.is_stale(self._tbl):  # an older keyword scheme wrote some rows
                    kwcol.refresh_stale(self._tbl, in_sources)
                release_free_memory()  # each step below starts from what is in use
                upkeep.compact(self._tbl, consolidate=summarize)  # see KEYWORD_SEGMENTS
                rows = self._tbl.count_rows()
                if self._ann is not None and ann_index.due(self._tbl, rows, self._ann):
                    release_free_memory()
                    ann_index.build(self._tbl, rows, self.dim)
                with self._rw.exclusive():
                    upkeep.drop_old_versions(self._tbl, shared=self._local is None)

        upkeep.retry_conflicts(tidy, give_up=f"Maintenance of the index at {self.db_path}")
        release_free_memory()
        # Once per batch or sync: the next process's status, list and no-op sync then
        # answer from the summary without opening LanceDB (~1 s of imports).
        if summarize:
            self.summary()

    # ------------------------------------------------------------------- writes
    @contextmanager
    def _writing(self) -> Iterator[None]:
        """The write lock; a write also drops the cached latest version, and removes the index
        summary before and after it commits (see :mod:`minirag_store.index.storage.summary`)."""
        with self._write:
            summary.invalidate(self._local)
            try:
                yield
            finally:
                self._search.forget_version()
                summary.invalidate(self._local)

    def replace_sources(
        self, sources: Sequence[str], rows: Sequence[Mapping[str, Any]], vectors: np.ndarray
    ) -> None:
        """Make ``rows`` (with their ``vectors``) the only chunks of ``sources``, in one commit.

        Every row's ``source`` must be in ``sources``; a source with no rows ends up deleted."""
        if len(rows) != len(vectors):
            raise ValueError(f"{len(rows)} rows but {len(vectors)} vectors")
        unique = list(dict.fromkeys(sources))
        stray = {r["source"] for r in rows} - set(unique)
        if stray:  # a row outside ``sources`` would be added without replacing anything
            raise ValueError(f"rows of sources not being replaced: {sorted(stray)[:3]}")
        if not unique:
            return
        if not rows:
            self.delete_sources(unique)
            return
        upkeep.add_missing_columns(self._tbl, missing_columns, self._writing)  # older index
        data = arrow_rows(self._tbl.schema, self.dim, rows, vectors)

        def swap(data: pa.Table) -> None:  # stored sources: one commit through fragments
            written = write_fragments(self._lance_uri, self._options, data)
            self.replace_with_fragments(unique, fragments_from_json(written))

        commits.replace(self._tbl, data, in_sources(unique), self._writing, swap)

    @functools.cached_property
    def _lance_uri(self) -> str:
        """The table's Lance dataset URI, fixed for this handle's life (``to_lance()``
        opens the dataset, reading its latest manifest: a request on object storage)."""
        return str(self._tbl.to_lance().uri)

    def fragment_target(self) -> tuple[str, dict[str, str], pa.Schema]:
        """Where workers write fragments for :meth:`replace_with_fragments`: the Lance
        dataset's URI, its storage options and the table's schema (model metadata and
        field ids included)."""
        upkeep.add_missing_columns(self._tbl, missing_columns, self._writing)  # older index
        return self._lance_uri, dict(self._options), self._tbl.schema

    def replace_with_fragments(self, sources: Sequence[str], fragments: Sequence[Any]) -> None:
        """Make the rows of ``fragments`` (written by :func:`~minirag_store.index.
        fragments.write_fragments`, rows of ``sources`` only) the only chunks of
        ``sources``, in one commit (a source without rows there ends up deleted)."""
        if not sources:
            return
        uri, options = self._lance_uri, self._options

        def commit() -> None:  # the deletions are recomputed on the latest version each try
            with self._writing():
                commit_replace(uri, options, sources, fragments)
                self._tbl.checkout_latest()

        upkeep.retry_conflicts(commit, give_up=None)

    def delete_sources(self, sources: Sequence[str]) -> int:
        """Delete every chunk of ``sources``; returns how many chunks were removed."""
        unique = list(dict.fromkeys(sources))
        if not unique:
            return 0
        where = in_sources(unique)
        counted: list[int] = []

        def delete() -> None:
            with self._writing():
                counted[:] = [self._tbl.count_rows(where)]
                if counted[0]:
                    self._tbl.delete(where)

        upkeep.retry_conflicts(delete, give_up=None)
        return counted[0]

    def touch(self, source: str, mtime: float) -> None:
        """Record a new mtime for a source whose content hash did not change."""
        with self._writing():
            self._tbl.update(where=f"source = {sql_str(source)}", values={"mtime": float(mtime)})

    # -------------------------------------------------------------------- reads
    def _rows(self, where: str | None, columns: list[str] | dict[str, str]) -> Iterator[dict]:
        """Streamed an Arrow batch at a time (a whole table's metadata as dicts: ~1 KB a chunk)."""
        with self._rw.shared():
            query = self._tbl.search().select(columns).limit(ALL_ROWS)
            for batch in (query.where(where) if where else query).to_batches(8192):
                yield from batch.to_pylist()

    def summary(self, *, wait: bool = True) -> IndexSummary:
        """Per-source metadata and counts of the latest version: from the summary file
        when it describes that version, else read from the table (no vector or text)
        and written for the next process (see :mod:`minirag_store.index.storage.summary`).
        ``wait=False`` (status, list): during a write, the summary last read (a commit or
        more behind) instead of waiting for the write (a poll waited 120-370 ms)."""
        held = self._summary
        if not wait and held is not None and self._write.locked():
            return held
        version = self._fresh_version()
        if held is not None and held.version == version:
            return held  # a sync asks several times: read and parse the file once
        cached = summary.load(self._local)
        if cached is not None and cached.version == version and cached.model_id == self.model_id:
            self._summary = cached
            return cached
        has_kw = kwcol.VERSION_COLUMN in (names := self._tbl.schema.names)
        fresh = summary.summarize(
            self._rows(None, meta_projection(names, [kwcol.VERSION_COLUMN])),
            version=version,
            model_id=self.model_id,
            dim=self.dim,
            keywords_column=kwcol.VERSION_COLUMN if has_kw else None,
            keywords_default=kwcol.KEYWORDS_VERSION,
        )
        summary.store(self._local, fresh, self._fresh_version)
        self._summary = fresh
        return fresh

    def _fresh_version(self) -> int:
        """The latest version, asked of LanceDB now (never the cached one)."""
        with self._rw.shared():
            return int(self._tbl.version)

    def source_meta(self, *, wait: bool = True) -> dict[str, SourceMeta]:
        """Per-source metadata for every indexed source (no vector or text is read)."""
        return self.summary(wait=wait).sources

    def counts(self) -> tuple[int, int]:
        """``(chunk count, source count)``."""
        return (current := self.summary()).chunk_count, len(current.sources)

    def select(self, where: str, columns: Sequence[str]) -> pa.Table:
        """``columns`` of the rows matching ``where`` as one Arrow table (a few sources' rows)."""
        with self._rw.shared():
            return self._tbl.search().where(where).select(list(columns)).limit(ALL_ROWS).to_arrow()

    def chunk_count(self, source: str) -> int:
        """How many chunks ``source`` has (0 when it is not indexed)."""
        with self._rw.shared():
            return self._tbl.count_rows(f"source = {sql_str(source)}")

    def source_chunks(
        self, source: str, first: int | None = None, last: int | None = None
    ) -> list[dict[str, Any]]:
        """The chunks of ``source`` (optionally ``first..last`` inclusive), in order."""
        where = f"source = {sql_str(source)}"
        if first is not None:
            where += f" AND chunk_index >= {int(first)}"
        if last is not None:
            where += f" AND chunk_index <= {int(last)}"
        rows = self._rows(where, hit_columns(self._tbl))
        return sorted(rows, key=lambda r: r["chunk_index"])

    def parent_chunks(self, parent_ids: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
        """Every chunk (all hit columns) of the sections ``parent_ids``, grouped by
        section, each group in order (from the search snapshot, or by id past the ANN
        threshold)."""
        return self._search.parent_chunks(parent_ids)

    def rows_by_id(self, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """The rows (hit columns) with these ids."""
        return self._search.rows_by_id(ids)

    # ------------------------------------------------------------------- search
    def snapshot(self) -> VectorSnapshot:
        """The latest version's exact-search snapshot (what the exact path holds in
        memory; past the ANN threshold search does not use it)."""
        return self._search.snapshot()

    def warm(self) -> None:
        """Load what search holds in memory for the latest version (nothing on ANN)."""
        self._search.warm()

    def uses_ann(self) -> bool:
        """Whether the vector side of the latest version searches the ANN index."""
        return self._search.ann_path() is not None

    def vector_search(
        self, vector: np.ndarray, limit: int, scopes: Sequence[str] | None = None
    ) -> list[dict[str, Any]]:
        """Nearest chunks, best first: ``id``, ``source``, ``parent_id``, ``_distance``."""
        return self._search.vector_pass(vector, limit, scopes).rows

    def vector_pass(
        self, vector: np.ndarray, limit: int, scopes: Sequence[str] | None, *, source: bool = True
    ) -> VectorPass:
        """:meth:`vector_search`, plus ``similarity(ids, known)``: the cosines the fusion
        scores keyword-only candidates with. ``source``: see :meth:`keyword_search`."""
        return self._search.vector_pass(vector, limit, scopes, source=source)

    def term_counts(
        self, terms: Sequence[Sequence[str]], cap: int, scope_sql: str | None = None
    ) -> list[int]:
        """For each group of index terms (one query word's), how many chunks hold any."""
        return self._search.term_counts(terms, cap, scope_sql)

    def languages(self) -> frozenset[str]:
        """The stemmers a query is analysed under (:meth:`Searcher.languages`)."""
        return self._search.languages()

    def keyword_search(
        self, text: str, limit: int, scope_sql: str | None = None, *, source: bool = True
    ) -> list[dict[str, Any]]:
        """BM25 hits, best first: ``id``, ``source``, ``parent_id``, ``_score`` ([]: nothing
        to search). ``source`` False: rows may lack it (not read past the ANN threshold)."""
        return self._search.keyword_search(text, limit, scope_sql, source=source)
