"""An in-memory snapshot of the table for search: exact vectors plus the light columns.

Why not LanceDB's own search: a flat (exact) Lance scan cost ~133 CPU-ms at 100k chunks
and ~30 at SciFact's 24k on our 2-core machine, against a 10 CPU-ms budget for a whole
query; its IVF indexes took 3 to 11 minutes to build at 100k and recalled 64 % (HNSW-SQ) or
10 % (PQ) of the exact top 50. One float32 matrix-vector product over the same vectors
costs a few ms at 24k and ~15 ms at 100k, and stays exact.

Why the light columns too: each LanceDB read through its sync API costs ~2-8 CPU-ms of
planning and event-loop hand-offs, whatever its size, and building hits and parent
sections used to take one per query. The snapshot keeps every column a hit needs except
the vector's float16 source and the keyword column, so a query's only LanceDB call is the
keyword (FTS) search, which returns bare ids resolved here.

The price is memory and a reload. Memory per chunk: 1.5 KB of float32 vector, the Arrow
text and metadata (~0.6 KB for typical chunks) and an id → row dict entry (~0.15 KB):
~0.2 GB at 100k chunks (~50 MB at SciFact's 23k). The reload happens lazily on the first
query that sees a new table version, i.e. once per commit, and reads only the rows the
previous snapshot lacks (:func:`load_snapshot`); after a compaction it reads everything.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from minirag_store.index.storage.schema import LOCATOR
from minirag_store.paths import scope_matches

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa

__all__ = [
    "ROW_COLUMNS",
    "ExactPass",
    "VectorSnapshot",
    "cosines",
    "hit_columns",
    "load_snapshot",
    "stored_vectors",
    "unit_matrix",
    "unit_rows",
]

#: The columns a snapshot holds besides the vector: everything a search hit needs.
ROW_COLUMNS = ["id", "source", "source_type", "title", "chunk_index", "text", "body_start"]
ROW_COLUMNS += ["parent_id", "mtime", "size"]  # what the file was when indexed: hits' `stale`


def hit_columns(table: Any) -> list[str]:
    """:data:`ROW_COLUMNS`, and the locator when the table has it (an index made before
    locators is searched as it is until a write adds the column)."""
    return [*ROW_COLUMNS, LOCATOR] if LOCATOR in table.schema.names else list(ROW_COLUMNS)


@dataclass(frozen=True)
class VectorSnapshot:
    """Vectors and hit columns of one table version, with look-ups by id and section."""

    version: int
    ids: list[str]
    parent_ids: list[str]
    source_codes: np.ndarray  # row -> index into ``sources``
    sources: list[str]
    matrix: np.ndarray  # float32 [n, dim], unit rows
    columns: pa.Table  # ROW_COLUMNS of every row, in matrix order
    row_of: dict[str, int]  # id -> row
    section_of: dict[str, int]  # parent id -> index into section_starts
    section_order: np.ndarray  # rows sorted by (section, chunk_index)
    section_starts: np.ndarray  # section k is section_order[starts[k]:starts[k + 1]]
    row_ids: np.ndarray  # LanceDB's row id (fragment, offset) of each row: what a reload keeps

    def search(
        self, query: np.ndarray, limit: int, scopes: Sequence[str] | None = None
    ) -> list[dict[str, Any]]:
        """The ``limit`` nearest rows by cosine distance, best first, within ``scopes``."""
        return self.search_pass(query, limit, scopes).rows

    def search_pass(
        self, query: np.ndarray, limit: int, scopes: Sequence[str] | None = None
    ) -> ExactPass:
        """:meth:`search`, keeping every row's cosine for :meth:`ExactPass.similarity` (a
        keyword hit's cosine then costs a look-up: the pass scores every row anyway)."""
        import numpy as np

        if not self.ids:
            return ExactPass(self, [], np.zeros(0, dtype=np.float32))
        scores = cosines(self.matrix, query)
        if limit <= 0:
            return ExactPass(self, [], scores)
        ranked = scores
        if scopes:
            allowed = np.fromiter(
                (scope_matches(s, tuple(scopes)) for s in self.sources), bool, len(self.sources)
            )
            ranked = np.where(allowed[self.source_codes], scores, -np.inf)
        count = min(limit, len(ranked))
        top = np.argpartition(-ranked, count - 1)[:count]
        top = top[np.argsort(-ranked[top], kind="stable")]
        rows = [
            {
                "id": self.ids[i],
                "source": self.sources[self.source_codes[i]],
                "parent_id": self.parent_ids[i],
                "_distance": float(1.0 - ranked[i]),
            }
            for i in top.tolist()
            if ranked[i] > -np.inf
        ]
        return ExactPass(self, rows, scores)

    def source_of(self, row: int) -> str:
        """The source of ``row``."""
        return self.sources[self.source_codes[row]]

    def rows(self, rows: Sequence[int]) -> list[dict[str, Any]]:
        """The hit columns of ``rows`` as dicts, in the order given (one Arrow take)."""
        if not rows:
            return []
        return self.columns.take(list(rows)).to_pylist()

    def section_rows(self, parent_id: str) -> list[int]:
        """The rows of section ``parent_id`` in chunk order ([] when it has none)."""
        k = self.section_of.get(parent_id)
        if k is None:
            return []
        return self.section_order[self.section_starts[k] : self.section_starts[k + 1]].tolist()


@dataclass(frozen=True)
class ExactPass:
    """One query's pass over a snapshot: its nearest rows and every row's cosine."""

    snapshot: VectorSnapshot
    rows: list[dict[str, Any]]  # ``id``, ``source``, ``parent_id``, ``_distance``, best first
    scores: np.ndarray  # each row's cosine similarity with the query (no scope applied)

    def similarity(self, ids: Sequence[str]) -> dict[str, float]:
        """The cosine similarity of each of ``ids`` that is in the snapshot."""
        row_of = self.snapshot.row_of
        found = [(i, row_of[i]) for i in ids if i in row_of]
        if not found:
            return {}
        picked = self.scores[[row for _, row in found]].tolist()
        return {i: s for (i, _), s in zip(found, picked, strict=True)}


def load_snapshot(
    table: Any, version: int, dim: int, limit: int, previous: VectorSnapshot | None = None
) -> VectorSnapshot:
    """Read the hit columns and vector of every row of a LanceDB ``table``.

    With the ``previous`` snapshot, only the rows it lacks are read: LanceDB row ids
    (fragment, offset) stay put until a row is rewritten, so a commit that replaced a few
    sources costs one scan of a 4-byte column plus those sources' rows, not the whole
    table (on object storage, the difference between kilobytes and the whole index per
    commit). A compaction rewrites every row: that reload reads everything, as before.
    """
    if previous is not None:
        snapshot = _reload(table, version, dim, limit, previous)
        if snapshot is not None:
            return snapshot
    columns = hit_columns(table)
    data = table.search().with_row_id(True).select([*columns, "vector"]).limit(limit)
    data = data.to_arrow()
    return _build(version, data.select(columns), unit_matrix(data, dim), _row_ids(data))


def _reload(
    table: Any, version: int, dim: int, limit: int, previous: VectorSnapshot
) -> VectorSnapshot | None:
    """``previous`` plus the rows it lacks, or None when most rows changed (or a commit
    landed between the two reads and some new row is gone already: read everything)."""
    import numpy as np
    import pyarrow as pa

    hit = hit_columns(table)
    if previous.columns.column_names != hit:
        return None  # a column was added since: read every row with it
    scan = table.search().with_row_id(True).select(["chunk_index"]).limit(limit).to_arrow()
    now = _row_ids(scan)
    kept = np.isin(now, previous.row_ids)
    wanted = now[~kept]
    if len(wanted) > len(now) // 2:
        return None
    order = np.argsort(previous.row_ids)
    at = order[np.searchsorted(previous.row_ids, now[kept], sorter=order)]
    columns = previous.columns.take(pa.array(at))
    matrix, row_ids = previous.matrix[at], now[kept]
    if len(wanted):
        fresh = table.take_row_ids(wanted.tolist()).with_row_id().select([*hit, "vector"])
        fresh = fresh.to_arrow()
        if fresh.num_rows != len(wanted):
            return None
        columns = pa.concat_tables([columns, fresh.select(hit).cast(columns.schema)])
        matrix = np.vstack([matrix, unit_matrix(fresh, dim)])
        row_ids = np.concatenate([row_ids, _row_ids(fresh)])
    return _build(version, columns, matrix, row_ids)


def _row_ids(data: Any) -> np.ndarray:
    import numpy as np

    return np.asarray(data.column("_rowid").to_numpy(zero_copy_only=False), dtype=np.uint64)


def stored_vectors(data: Any, dim: int) -> np.ndarray:
    """The ``vector`` column of ``data`` (an Arrow table) as float32 rows, as stored (float16
    values, not renormalised), straight from Arrow: a Python list per vector
    (``to_pylist``) cost ~8 ms for 100 rows of 384."""
    import numpy as np

    n = data.num_rows
    if not n:
        return np.zeros((0, dim), dtype=np.float32)
    flat = data.column("vector").combine_chunks().flatten().to_numpy(zero_copy_only=False)
    return flat.astype(np.float32).reshape(n, dim)


def unit_matrix(data: Any, dim: int) -> np.ndarray:
    """The ``vector`` column of ``data`` as float32 unit rows (:func:`unit_rows`)."""
    return unit_rows(stored_vectors(data, dim))


def unit_rows(matrix: np.ndarray) -> np.ndarray:
    """``matrix`` (float32 copies of stored float16 vectors) renormalised in place:
    float16 storage rounds the norm, so 1 - dot is then a true cosine distance.

    The exact and the LanceDB paths (``ann.py``) both score with this and :func:`cosines`,
    row by row in the same order of operations, so a chunk gets the very same distance
    whichever path answered (the CLI's one question and a server agree to the last bit)."""
    import numpy as np

    matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
    return matrix


#: A matrix of at least this many rows per core is scored on several threads (below it a
#: thread hand-off costs more than it saves).
PARALLEL_ROWS = 32_768


@functools.cache
def _pool() -> ThreadPoolExecutor:
    """Threads for :func:`cosines` over large matrices (made on first use)."""
    return ThreadPoolExecutor(max_workers=_cores(), thread_name_prefix="minirag-cosines")


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def cosines(matrix: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Each unit row's cosine similarity with ``query`` (float32)."""
    import numpy as np

    # einsum, not ``@``: BLAS splits a matrix-vector product over threads that spin
    # while waiting for each other; on 2 busy cores that cost 16.6 CPU-ms at 100k
    # rows against 7 for this single-threaded loop (the 10k case: 1.7 vs 1.2). And BLAS
    # rounds a row differently depending on the rows around it, while einsum computes
    # each row alone: the same chunk gets the same score in a matrix of any size.
    vector = np.asarray(query, dtype=np.float32)
    rows = len(matrix)
    parts = min(_cores(), rows // PARALLEL_ROWS)
    if parts < 2:
        return np.einsum("ij,j->i", matrix, vector)
    # A large matrix in slices, one a core, on threads that sleep while waiting (einsum
    # releases the GIL): 100k rows 9.8 -> 6.6 ms on 2 idle cores, every score the same.
    out = np.empty(rows, dtype=np.float32)
    cuts = [rows * k // parts for k in range(parts + 1)]

    def score(k: int) -> None:
        part = slice(cuts[k], cuts[k + 1])
        np.einsum("ij,j->i", matrix[part], vector, out=out[part])

    list(_pool().map(score, range(parts)))
    return out


def _build(version: int, columns: Any, matrix: np.ndarray, row_ids: np.ndarray) -> VectorSnapshot:
    """A snapshot of ``columns`` (ROW_COLUMNS) and their ``matrix`` rows, in that order."""
    import numpy as np

    n = columns.num_rows
    columns = columns.combine_chunks()
    sources, codes = _encode(columns.column("source"))
    parents, parent_codes = _encode(columns.column("parent_id").fill_null(""))
    chunk_index = columns.column("chunk_index").fill_null(0).to_numpy()
    order = np.lexsort((chunk_index, parent_codes)) if n else np.zeros(0, dtype=np.int64)
    starts = np.searchsorted(parent_codes[order], np.arange(len(parents) + 1))
    ids = columns.column("id").to_pylist()
    parent_ids = [parents[c] for c in parent_codes.tolist()]
    return VectorSnapshot(
        version=version,
        ids=ids,
        parent_ids=parent_ids,
        source_codes=codes,
        sources=sources,
        matrix=matrix,
        columns=columns,
        row_of={row_id: i for i, row_id in enumerate(ids)},
        section_of={p: k for k, p in enumerate(parents) if p},
        section_order=order,
        section_starts=starts,
        row_ids=row_ids,
    )


def _encode(column: Any) -> tuple[list[Any], np.ndarray]:
    """Distinct values of an Arrow string column and each row's index into them."""
    import numpy as np

    if len(column) == 0:
        return [], np.zeros(0, dtype=np.int32)
    encoded = column.combine_chunks().dictionary_encode()
    return encoded.dictionary.to_pylist(), encoded.indices.to_numpy(zero_copy_only=False)
