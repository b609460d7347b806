"""The search side of a chunk table: which vector path serves the current version, and
the hits, rows and sections a query reads.

Two paths, chosen per table version:

* **exact** (the default, and always below ``RAG_ANN_MIN_CHUNKS``): an in-memory snapshot
  of the version (vectors + hit columns, :mod:`minirag_store.index.search.vectors`), reloaded once
  per commit; a query's only disk read is the keyword search, which returns bare ids;
* **ANN** (past the threshold, once :meth:`ChunkTable.maintain` has built the vector
  index): LanceDB's IVF index plus reads by id (:mod:`minirag_store.index.search.ann`), with
  nothing per chunk held in memory.

Both return the same shapes with the same cosine distances, so fusion, filters and
grouping above them cannot tell which one answered.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from minirag_store.index.search.ann import AnnSearch, AnnSettings, trained_rows
from minirag_store.index.search.fts import KeywordSearcher
from minirag_store.index.search.vectors import (
    VectorSnapshot,
    cosines,
    hit_columns,
    load_snapshot,
    stored_vectors,
    unit_matrix,
)
from minirag_store.index.storage.keyword_column import LANGUAGE_COLUMN
from minirag_store.index.storage.schema import ALL_ROWS, scope_filter
from minirag_store.index.text.keywords import keyword_query
from minirag_store.index.text.written import rerank_as_written

if TYPE_CHECKING:
    import numpy as np

    from minirag_store.index.search.aio import AsyncTable
    from minirag_store.index.storage.rwlock import ReadWriteLock

__all__ = ["Searcher", "VectorPass", "held_languages"]

#: A chunk language a query is analysed under must be told for at least this share of the
#: table's chunks, or :data:`LANGUAGE_MIN_CHUNKS` of them.
LANGUAGE_MIN_SHARE = 0.001
LANGUAGE_MIN_CHUNKS = 20
#: Stored vectors the ANN path estimates a query's cosine background from (the exact
#: path scores every chunk anyway): a mean and standard deviation need no more.
BACKGROUND_SAMPLE = 4096
#: Word counts a searcher remembers for the current table version (then it starts over).
_COUNTS_KEPT = 10_000
#: How long a looked-up latest table version is trusted before asking LanceDB again.
_VERSION_FRESH_S = 0.25


@dataclass(frozen=True)
class VectorPass:
    """One query's vector search on either path: its nearest rows, and the cosine
    similarity of more chunks on demand (see :meth:`Searcher.vector_pass`)."""

    rows: list[dict[str, Any]]  # ``id``, ``source``, ``parent_id``, ``_distance``, best first
    score: Callable[[Sequence[str], Mapping[str, Any]], dict[str, float]]
    #: The mean and standard deviation of the query's cosine over every chunk of the index
    #: (the exact path scores them all anyway); None on the ANN path, which does not.
    background: tuple[float, float] | None = None

    def similarity(
        self, ids: Sequence[str], known: Mapping[str, Any] | None = None
    ) -> dict[str, float]:
        """The cosine similarity of each chunk of ``ids`` still in the table. ``known``:
        stored vectors already read for some of them (the ANN path's keyword hits carry
        theirs), so they are not read again."""
        return self.score(ids, known or {})


class Searcher:
    """Vector and keyword search over one LanceDB table, on the exact or the ANN path."""

    def __init__(
        self,
        table: Any,
        dim: int,
        rw: ReadWriteLock,
        handle: AsyncTable,
        ann: AnnSettings | None,
    ) -> None:
        self._tbl = table
        self._handle = handle
        self._dim = dim
        self._rw = rw
        self._keywords = KeywordSearcher(handle)
        self._ann_settings = ann
        self._snap: VectorSnapshot | None = None
        self._ann: tuple[int, AnnSearch | None] | None = None  # (version, path at it)
        self._lock = threading.Lock()
        self._version_seen: tuple[float, int] | None = None  # (monotonic time, version)
        self._languages: tuple[int, frozenset[str]] | None = None  # (version, stemmers)
        self._sample: tuple[int, np.ndarray] | None = None  # (version, unit vectors)
        # (version, {(terms, cap, scope): chunks holding them}): term_counts' memo
        self._counted: tuple[int, dict[tuple[tuple[str, ...], int, str | None], int]] | None = None

    def forget_version(self) -> None:
        """This process just wrote: ask LanceDB for the latest version next time."""
        self._version_seen = None

    def _latest_version(self) -> int:
        """The table's latest version, asked of LanceDB at most every
        :data:`_VERSION_FRESH_S` (each ask is a hop to its event loop, ~0.45 ms, and a
        query asks twice). This process's own writes are seen at once; another
        process's commit within that interval."""
        now = time.monotonic()
        seen = self._version_seen
        if seen is not None and now - seen[0] < _VERSION_FRESH_S:
            return seen[1]
        version: int = self._tbl.version
        self._version_seen = (now, version)
        return version

    def _current(self, version: int | None) -> int:
        """``version``, or the latest one; an explicit newer version (the keyword search
        reads it with its hits) also refreshes the cached latest one, so a query's vector
        side does not reload the older one right after its keyword side saw the newer."""
        if version is None:
            return self._latest_version()
        seen = self._version_seen
        if seen is None or version > seen[1]:
            self._version_seen = (time.monotonic(), version)
        return version

    def ann_path(self, version: int | None = None) -> AnnSearch | None:
        """The ANN path when it serves ``version`` (past the threshold, index built)."""
        settings = self._ann_settings
        if settings is None:
            return None
        current = self._current(version)
        held = self._ann
        if held is not None and held[0] >= current:
            return held[1]
        with self._lock:
            held = self._ann
            if held is None or held[0] < current:
                trained = trained_rows(self._tbl)
                large = trained is not None and self._tbl.count_rows() >= settings.min_chunks
                ready = large or not settings.resident
                columns = hit_columns(self._tbl)
                path = (
                    AnnSearch(self._handle, settings, columns, trained or 0, large=large)
                    if ready
                    else None
                )
                if path is not None:
                    self._snap = None  # the exact snapshot's memory goes back
                held = (current, path)
                self._ann = held
            return held[1]

    def snapshot(self, version: int | None = None) -> VectorSnapshot:
        """The exact path's snapshot, at least as new as ``version`` (else the latest)."""
        current = self._current(version)
        snap = self._snap
        if snap is None or snap.version < current:
            with self._lock:
                snap = self._snap
                if snap is None or snap.version < current:
                    snap = load_snapshot(self._tbl, current, self._dim, ALL_ROWS, snap)
                    self._snap = snap
        return snap

    def warm(self) -> None:
        """Load what the current version's path holds in memory (nothing for ANN)."""
        with self._rw.shared():
            if self.ann_path() is None:
                self.snapshot()

    def vector_pass(
        self, vector: np.ndarray, limit: int, scopes: Sequence[str] | None, *, source: bool = True
    ) -> VectorPass:
        """Nearest chunks (``id``, ``source``, ``parent_id``, ``_distance``), best first,
        now; the cosine similarity of more chunks (the keyword hits') on demand, so the
        vector search need not wait for the keyword search. ``source`` False: the ANN
        path's rows may lack ``source`` (see :meth:`keyword_search`)."""
        with self._rw.shared():
            ann = self.ann_path()
            if ann is not None:
                found = ann.search_pass(vector, limit, scope_filter(scopes), source=source)

                def ann_score(ids: Sequence[str], known: Mapping[str, Any]) -> dict[str, float]:
                    with self._rw.shared():  # it may read vectors: no cleanup meanwhile
                        return found.similarity(ids, known)

                return VectorPass(found.rows, ann_score, self._sampled_background(vector))
            exact = self.snapshot().search_pass(vector, limit, scopes)

        def exact_score(ids: Sequence[str], known: Mapping[str, Any]) -> dict[str, float]:
            similar = exact.similarity(ids)
            if len(similar) < len(set(ids)):
                # Chunks a commit added since the pass's snapshot (the keyword search may
                # have seen a newer version): scored on the newer one, row by row as alike.
                newer = self.snapshot()
                fresh = [i for i in ids if i not in similar and i in newer.row_of]
                if fresh and newer is not exact.snapshot:
                    rows = newer.matrix[[newer.row_of[i] for i in fresh]]
                    similar.update(zip(fresh, cosines(rows, vector).tolist(), strict=True))
            return similar

        scores = exact.scores
        background = (float(scores.mean()), float(scores.std())) if len(scores) > 1 else None
        return VectorPass(exact.rows, exact_score, background)

    def _sampled_background(self, vector: np.ndarray) -> tuple[float, float] | None:
        """The ANN path's estimate of the query's cosine background (mean, std): over up
        to :data:`BACKGROUND_SAMPLE` stored vectors, read once per table version (the
        caller holds the shared lock). Nothing per chunk is held otherwise on this path,
        and a CLI's one question takes it too: without it its levels would rest on the
        keyword side alone, unlike a server's."""
        version = self._latest_version()
        held = self._sample
        if held is None or held[0] != version:
            data = self._tbl.search().select(["vector"]).limit(BACKGROUND_SAMPLE).to_arrow()
            held = self._sample = (version, unit_matrix(data, self._dim))
        scores = cosines(held[1], vector)
        return (float(scores.mean()), float(scores.std())) if len(scores) > 1 else None

    def languages(self) -> frozenset[str]:
        """The stemmers the table's chunks were analysed with (a query is analysed under
        each: :func:`keywords.query_weights`), read once per table version; a language
        told for a few stray chunks only is left out (:func:`held_languages`)."""
        version = self._latest_version()
        held = self._languages
        if held is not None and held[0] == version:
            return held[1]
        found: frozenset[str] = frozenset()
        with self._rw.shared():
            if LANGUAGE_COLUMN in self._tbl.schema.names:
                query = self._tbl.search().select([LANGUAGE_COLUMN]).limit(ALL_ROWS)
                found = held_languages(query.to_arrow().column(0))
        self._languages = (version, found)
        return found

    def keyword_search(
        self, text: str, limit: int, scope_sql: str | None = None, *, source: bool = True
    ) -> list[dict[str, Any]]:
        """BM25 hits over the keyword column, best first: ``id``, ``source``,
        ``parent_id``, ``_score``; [] when the query has no searchable term. A hit whose
        chunk says the query's inflected words as typed gains on its score
        (:func:`written.rerank_as_written`).

        ``source`` False: the ANN path's rows may lack ``source``, for a caller that
        needs no candidate's source (its hits' rows are read whole later): reading it
        for 100 vector and 50 keyword candidates cost ~3 ms of a query at 1M chunks."""
        terms = keyword_query(text, self.languages())
        if not terms.whole:
            return []
        with self._rw.shared():
            ann = self.ann_path()
            if ann is not None:
                # Nothing in memory resolves ids: read the hit's source and section, and
                # its vector, which the fusion's cosine of this candidate needs next.
                columns = ["id", "_score", *(["source"] if source else []), "parent_id"]
                columns += ["vector", *(["text"] if terms.forms else [])]
                # A long query splits in two searches only past the threshold, where the
                # posting lists are long (at 100k one search is still the faster), and
                # so for every process alike (the CLI's one question takes this path at
                # any size, and must answer as a server does).
                found, _ = self._keywords.search(
                    terms, "keywords", limit, scope_sql, columns, split=ann.large
                )
                texts = found["text"].to_pylist() if terms.forms else []
                read = [c for c in ("vector", "text") if c in found.column_names]
                rows = found.drop_columns(read).to_pylist()
                vectors = stored_vectors(found, self._dim)  # float16 values, not Python lists
                for row, stored in zip(rows, vectors, strict=True):
                    row["parent_id"] = row["parent_id"] or ""
                    row["vector"] = stored
                return _as_written_first(rows, texts, terms.forms)
            found, version = self._keywords.search(terms, "keywords", limit, scope_sql)
        snap = self.snapshot(version)  # read after the search: at least as new as its rows
        out, at = [], []
        for row_id, score in zip(found["id"].to_pylist(), found["_score"].to_pylist(), strict=True):
            row = snap.row_of.get(row_id)
            if row is not None:  # deleted by a commit since the search: left out
                source, parent = snap.source_of(row), snap.parent_ids[row]
                out.append({"id": row_id, "source": source, "parent_id": parent, "_score": score})
                at.append(row)
        texts = snap.columns["text"].take(at).to_pylist() if terms.forms and at else []
        return _as_written_first(out, texts, terms.forms)

    def term_counts(
        self, terms: Sequence[Sequence[str]], cap: int, scope_sql: str | None = None
    ) -> list[int]:
        """For each group of index terms (one query word's), how many chunks' keyword
        entries hold any of them, counted up to ``cap``. Remembered per table version: a
        count costs a full-text search (~3 ms at SciFact's 25k chunks), and a person's
        queries repeat their words."""
        version = self._latest_version()
        held = self._counted
        if held is None or held[0] != version or len(held[1]) > _COUNTS_KEPT:
            held = self._counted = (version, {})
        memo = held[1]
        keys = [(tuple(group), cap, scope_sql) for group in terms]
        missing = list(dict.fromkeys(k for k in keys if k not in memo))
        if missing:
            with self._rw.shared():
                found = self._keywords.counts([k[0] for k in missing], "keywords", cap, scope_sql)
            memo.update(zip(missing, found, strict=True))
        return [memo[k] for k in keys]

    def parent_chunks(self, parent_ids: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
        """Every chunk (all hit columns) of the sections ``parent_ids``, grouped by
        section, each group in order."""
        ann = self.ann_path()
        if ann is not None:
            with self._rw.shared():
                return ann.parent_chunks(parent_ids)
        unique = list(dict.fromkeys(p for p in parent_ids if p))
        if not unique:
            return {}
        snap = self.snapshot()
        sections = [snap.section_rows(p) for p in unique]
        rows = iter(snap.rows([r for section in sections for r in section]))
        pairs = zip(unique, sections, strict=True)
        return {p: [next(rows) for _ in section] for p, section in pairs}

    def rows_by_id(self, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """The rows (hit columns) with these ids."""
        ann = self.ann_path()
        if ann is not None:
            with self._rw.shared():
                return ann.rows_by_id(ids)
        snap = self.snapshot()
        found = [snap.row_of[i] for i in dict.fromkeys(ids) if i in snap.row_of]
        return {r["id"]: r for r in snap.rows(found)}


def _as_written_first(
    rows: list[dict[str, Any]], texts: list[str], forms: frozenset[str]
) -> list[dict[str, Any]]:
    """Keyword hits re-ranked by the query's words as typed (``texts``: their chunks; none
    when the query has no inflected word, and then ``rows`` are returned as they are)."""
    if not texts:
        return rows
    ranked = rerank_as_written(forms, [r["_score"] for r in rows], texts)
    return [{**rows[i], "_score": score} for i, score in ranked]


def held_languages(column: Any) -> frozenset[str]:
    """The stemmers named in ``column`` (each chunk's language, '' for none) that a query is
    analysed under: those told for at least :data:`LANGUAGE_MIN_SHARE` of the chunks or
    :data:`LANGUAGE_MIN_CHUNKS` of them. Why: a query's words are stemmed under every such
    language as alternatives, and a stray chunk told wrongly adds stems that match other
    words. On SciFact one chunk of 24,964 came out French, and French stems of English
    questions cost keyword nDCG@10 0.6935 -> 0.684. The price: a short document in a
    language told for fewer chunks (a 3-chunk German note in a 25k-chunk English archive)
    is found by the words as its reader typed them and by the script's default stems,
    not by that language's stems."""
    import pyarrow.compute as pc

    counts = pc.value_counts(column).to_pylist()
    floor = min(LANGUAGE_MIN_CHUNKS, LANGUAGE_MIN_SHARE * len(column))
    return frozenset(c["values"] for c in counts if c["values"] and c["counts"] >= floor)
