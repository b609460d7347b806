"""Vector search through LanceDB's ANN index, for tables past ``RAG_ANN_MIN_CHUNKS``.

Below the threshold search runs over the exact in-memory snapshot (:mod:`vectors`): a few
ms per query and ~1.5 KB of float32 per chunk. Past it that memory grows without bound
(~1.5 GB at a million chunks, reloaded after every commit), so the table gets an IVF index
and search asks LanceDB instead, holding nothing per chunk in memory:

* the vector side is an IVF_RQ (RaBitQ) search probing 15 % of the partitions (at least 20)
  and re-ranking the best
  ``refine_factor`` × limit candidates on their stored vectors (exact cosine of
  the float16 rows), so the returned distances are the same as the exact path's;
* rows added since the index was built are searched flat by LanceDB and merged, so a new
  chunk is found at once; :func:`ChunkTable.maintain` folds them into the index
  (Lance's index optimizer, :func:`~minirag_store.index.storage.upkeep.compact`) and retrains it
  when the table has grown 4× past what it was trained on;
* the keyword hits' cosines (the mixture fusion needs every candidate's) come from their
  stored vectors, read by id; hit rows and parent sections are read by their BTREE-indexed
  ``id`` / ``parent_id``.

The index's name records the row count it was trained for (``vector_ivf_<rows>``): that is
the whole retraining schedule, kept in the table itself, so every process sees the same.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from minirag_store.index.search.vectors import cosines, unit_matrix, unit_rows
from minirag_store.index.storage.schema import in_values

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa

    from minirag_store.config import Config
    from minirag_store.index.search.aio import AsyncTable

__all__ = [
    "INDEX_PREFIX",
    "AnnPass",
    "AnnSearch",
    "AnnSettings",
    "build",
    "due",
    "settings_for",
    "trained_rows",
]

INDEX_PREFIX = "vector_ivf_"
#: Retrain once the table holds this many times the rows the index was trained on.
RETRAIN_GROWTH = 4
#: Rows sampled per IVF partition when training (LanceDB's default, 256, made a 100k-row
#: build take minutes on 2 cores for no measurable recall).
_SAMPLE_RATE = 64


@dataclass(frozen=True)
class AnnSettings:
    """When and how the vector side uses the ANN index (see the module docstring)."""

    min_chunks: int  # RAG_ANN_MIN_CHUNKS: below it the exact in-memory search is used
    #: Share of the index's partitions probed per query (at least MIN_PROBES of them), and
    #: how many times the limit of candidates is re-ranked on stored vectors. At 1M chunks
    #: (1,000 partitions; bench/scale.py vectors; recall of the exact top 10 after our own
    #: re-scoring; vector side alone, idle 2 cores), two builds of the index (k-means
    #: starts differ, and so does recall by up to 0.01 between builds): 10 % x 10 0.975 /
    #: 0.984 at 17.5-18.5 ms p50; 15 % x 5 0.981 / 0.978 (a third build 0.969) at 16 ms;
    #: 15 % x 8 0.988 at 18.3 ms; 10 % without re-ranking 0.877.
    probe_share: float = 0.15
    refine_factor: int = 8
    #: False: hold no exact snapshot at any size; LanceDB searches (flat until the vector
    #: index exists). For a process that asks one question (the CLI's ``query``): loading
    #: the snapshot cost more than that question (SciFact: ~0.4 CPU-s, ~150 MB).
    resident: bool = True


def settings_for(config: Config, *, resident: bool = True) -> AnnSettings:
    """The ANN settings of a configuration (RAG_ANN_MIN_CHUNKS; ``resident``: above)."""
    return AnnSettings(min_chunks=config.ann_min_chunks, resident=resident)


#: Never probe fewer partitions than this.
MIN_PROBES = 20


def partitions_for(rows: int) -> int:
    """IVF partitions for an index trained on ``rows`` rows: ~sqrt(rows), and no more
    than the training sample allows (each partition is trained on ``_SAMPLE_RATE`` rows)."""
    return max(1, min(4096, round(math.sqrt(rows)), rows // _SAMPLE_RATE))


def probes_for(rows: int, settings: AnnSettings) -> int:
    """Partitions probed per query for an index trained on ``rows`` rows."""
    return max(MIN_PROBES, round(settings.probe_share * partitions_for(rows)))


def trained_rows(table: Any) -> int | None:
    """The row count the table's vector index was trained for; None without one."""
    for index in table.list_indices():
        if tuple(index.columns) == ("vector",) and index.name.startswith(INDEX_PREFIX):
            suffix = index.name[len(INDEX_PREFIX) :]
            return int(suffix) if suffix.isdigit() else 0
    return None


def due(table: Any, rows: int, settings: AnnSettings) -> bool:
    """Whether :func:`build` should run: past the threshold with no index, or the table
    grew :data:`RETRAIN_GROWTH`× past the rows the index was trained for."""
    if rows < settings.min_chunks:
        return False
    trained = trained_rows(table)
    return trained is None or rows >= RETRAIN_GROWTH * max(trained, 1)


def build(table: Any, rows: int, dim: int) -> None:
    """(Re)train the vector index for ``rows`` rows, then drop the one it replaces.

    Queries go on meanwhile: until the new index commits they use the old one (or a flat
    search), and a build killed half-way leaves no new index, only the old state.
    """
    from lancedb.index import IvfRq

    old = [
        ix.name
        for ix in table.list_indices()
        if tuple(ix.columns) == ("vector",) and ix.name != f"{INDEX_PREFIX}{rows}"
    ]
    # ~sqrt(n) partitions. RaBitQ codes (1 bit a dimension: 48 bytes a 384-dim chunk) need
    # no codebook training: at 100k rows the build took 34 s against 263 s for IVF_PQ, and
    # recalled 0.991 of the exact top 10 at 20 probes (PQ 0.961; synthetic clustered
    # vectors, bench/scale.py measures real ones). Candidates are re-ranked
    # on the stored vectors, so the coarse codes only choose candidates; distances are exact.
    config = IvfRq(
        distance_type="cosine",
        num_partitions=partitions_for(rows),
        num_bits=1,
        max_iterations=20,
        sample_rate=_SAMPLE_RATE,
    )
    for name in old:  # one vector index per column: the old one goes first
        table.drop_index(name)
    table.create_index("vector", config=config, name=f"{INDEX_PREFIX}{rows}", replace=True)


@dataclass(frozen=True)
class AnnPass:
    """One query's vector search on the ANN path: its nearest rows, and the cosines of
    more chunks on demand (the keyword hits', once that search is done)."""

    search: AnnSearch
    vector: np.ndarray
    rows: list[dict[str, Any]]  # ``id``, ``source``, ``parent_id``, ``_distance``, best first

    def similarity(
        self, ids: Sequence[str], known: Mapping[str, Any] | None = None
    ) -> dict[str, float]:
        """The cosine similarity of each of ``ids`` still in the table."""
        return self.search.similarity(self.vector, ids, known or {})


class AnnSearch:
    """The vector side and row look-ups of one table through LanceDB's async API
    (:mod:`~minirag_store.index.search.aio`; no snapshot)."""

    def __init__(
        self,
        handle: AsyncTable,
        settings: AnnSettings,
        columns: Sequence[str],
        trained: int,
        *,
        large: bool,
    ) -> None:
        self._handle = handle
        #: Past ``min_chunks`` with the vector index built (else a process that holds no
        #: snapshot searching a small table flat).
        self.large = large
        self._settings = settings
        self._columns = list(columns)
        self._probes = probes_for(trained, settings)

    def search_pass(
        self, query: np.ndarray, limit: int, scope_sql: str | None, *, source: bool = True
    ) -> AnnPass:
        """The ``limit`` nearest rows (``id``, ``source`` unless ``source`` is False,
        ``parent_id``, ``_distance``), best first, within ``scope_sql``;
        :meth:`AnnPass.similarity` scores more chunks."""
        import numpy as np

        vector = np.asarray(query, dtype=np.float32)
        if limit <= 0:
            return AnnPass(self, vector, [])
        found = self._handle.run(self._nearest(vector, limit, scope_sql, source))
        if not found.num_rows:
            return AnnPass(self, vector, [])
        # Distances scored as the exact path scores them (vectors.py), not LanceDB's own
        # float16 arithmetic: the same chunk gets the same distance on either path.
        scores = cosines(unit_matrix(found, len(vector)), vector)
        rows = found.drop_columns(["vector"]).to_pylist()
        for row, score in zip(rows, scores, strict=True):
            row["_distance"] = float(1.0 - score)
            row["parent_id"] = row["parent_id"] or ""
        rows.sort(key=lambda row: row["_distance"])  # stable: LanceDB's order on a tie
        return AnnPass(self, vector, rows)

    def similarity(
        self, vector: np.ndarray, ids: Sequence[str], known: Mapping[str, Any]
    ) -> dict[str, float]:
        """The cosine similarity with ``vector`` of each of ``ids`` still in the table
        (``known``: stored vectors of some of them, already read; the rest are read)."""
        import numpy as np

        unique = list(dict.fromkeys(ids))
        have = [i for i in unique if i in known]
        unread = [i for i in unique if i not in known]
        similar: dict[str, float] = {}
        if have:
            matrix = unit_rows(np.asarray([known[i] for i in have], dtype=np.float32))
            similar.update(zip(have, cosines(matrix, vector).tolist(), strict=True))
        if unread:
            read = self._handle.run(
                _rows(self._handle, f"id IN {in_values(unread)}", ["id", "vector"])
            )
            scores = cosines(unit_matrix(read, len(vector)), vector).tolist()
            similar.update(zip(read["id"].to_pylist(), scores, strict=True))
        return similar

    def rows_by_id(self, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """The hit columns of the rows with these ids."""
        unique = list(dict.fromkeys(ids))
        if not unique:
            return {}
        rows = self._read(f"id IN {in_values(unique)}", self._columns)
        return {r["id"]: r for r in rows}

    def parent_chunks(self, parent_ids: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
        """Every chunk of the sections ``parent_ids``, grouped by section, in order."""
        unique = list(dict.fromkeys(p for p in parent_ids if p))
        if not unique:
            return {}
        rows = self._read(f"parent_id IN {in_values(unique)}", self._columns)
        grouped: dict[str, list[dict[str, Any]]] = {p: [] for p in unique}
        for row in sorted(rows, key=lambda r: r["chunk_index"]):
            grouped[row["parent_id"]].append(row)
        return grouped

    async def _nearest(
        self, vector: np.ndarray, limit: int, scope_sql: str | None, source: bool
    ) -> pa.Table:
        table = await self._handle.opened()
        search = (
            table.query()
            .nearest_to(vector)
            .column("vector")
            .distance_type("cosine")
            .nprobes(self._probes)
            .refine_factor(self._settings.refine_factor)
            # ``_distance`` named: without it Lance logs a deprecation warning to stderr on
            # every search (its auto-projection is going away), which a CLI user would see.
            .select(["id", *(["source"] if source else []), "parent_id", "vector", "_distance"])
            .limit(limit)
        )
        if scope_sql:
            search = search.where(scope_sql)  # a prefilter (the async API's default)
        return await search.to_arrow()

    def _read(self, where: str, columns: list[str]) -> list[dict[str, Any]]:
        return self._handle.run(_rows(self._handle, where, columns)).to_pylist()


async def _rows(handle: AsyncTable, where: str, columns: list[str]) -> pa.Table:
    """``columns`` of every row matching ``where``."""
    table = await handle.opened()
    return await table.query().where(where).select(columns).to_arrow()
