"""Keyword (BM25) search over the full-text index, through LanceDB's async API
(:mod:`minirag_store.index.search.aio`): a search and the table version its hits belong to in one
hand-off to the loop.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from minirag_store.index.storage.connection import local_folder
from minirag_store.index.storage.schema import in_values

if TYPE_CHECKING:
    import pyarrow as pa

    from minirag_store.index.search.aio import AsyncTable
    from minirag_store.index.text.keywords import KeywordQuery

__all__ = ["KeywordSearcher"]


class KeywordSearcher:
    """BM25 search over one table's full-text index, plus the version it searched."""

    def __init__(self, handle: AsyncTable) -> None:
        self._handle = handle
        # On object storage the index is loaded whole into LanceDB's cache once per table
        # version (see _search); locally its files are read in place.
        self._prewarm = local_folder(handle.db_path) is None
        self._warm_version: int | None = None

    def search(
        self,
        query: KeywordQuery,
        column: str,
        limit: int,
        where: str | None,
        columns: Sequence[str] = ("id", "_score"),
        *,
        split: bool = False,
    ) -> tuple[pa.Table, int]:
        """``columns`` (by default the id and BM25 score) of the best ``limit`` rows for
        ``query`` in ``column``, within the SQL filter ``where``, and the table version.
        ``split``: a long query may run as two searches (:attr:`KeywordQuery.split`).

        Read only what is needed: each further column selected is read from the
        fragments of every hit.
        """
        run = self._search(query, column, limit, where, list(columns), split=split)
        return self._handle.run(run)

    def counts(
        self, terms: Sequence[Sequence[str]], column: str, cap: int, where: str | None
    ) -> list[int]:
        """For each group of ``terms``, how many rows hold any of them in ``column``
        (within ``where``), counted up to ``cap``: the index's own statistics of how rare
        a query word is (:mod:`minirag_store.index.search.evidence`). All in one hand-off
        to the loop; the searches run concurrently there."""
        return self._handle.run(self._counts(terms, column, cap, where))

    async def _counts(
        self, terms: Sequence[Sequence[str]], column: str, cap: int, where: str | None
    ) -> list[int]:
        import asyncio

        table = await self._handle.opened()
        found = await asyncio.gather(
            *(
                _match(table, " ".join(group), column, cap, where, columns=["id", "_score"])
                for group in terms
            )
        )
        return [t.num_rows for t in found]

    async def _search(
        self,
        query: KeywordQuery,
        column: str,
        limit: int,
        where: str | None,
        columns: list[str],
        *,
        split: bool,
    ) -> tuple[pa.Table, int]:
        table = await self._handle.opened()
        if split and query.split:
            found = await _split_search(table, query, column, limit, where, columns=columns)
        else:
            found = await _match(table, query.whole, column, limit, where, columns=columns)
        # Read after the search: at least as new as the version its hits came from.
        version = await table.version()
        if self._prewarm and version != self._warm_version:
            # Measured on moto (1,189 chunks): a query read 12 ranges of the index's
            # posting lists (518 KB) without this, 1 request (26 KB) after it; loading the
            # whole index cost 3 requests (194 KB), once per version (a no-op when the
            # index itself did not change: LanceDB caches it by its files).
            await table.prewarm_index(f"{column}_idx")  # LanceDB's default index name
            self._warm_version = version
        return found, version


async def _match(
    table: Any, terms: str, column: str, limit: int, where: str | None, *, columns: list[str]
) -> pa.Table:
    """One full-text search: ``columns`` of the best ``limit`` rows for ``terms``."""
    query = table.query().nearest_to_text(terms, columns=column)
    if where:
        query = query.where(where)  # a prefilter: scoped hits are not crowded out
    return await query.select(columns).limit(limit).to_arrow()


async def _split_search(
    table: Any,
    query: KeywordQuery,
    column: str,
    limit: int,
    where: str | None,
    *,
    columns: list[str],
) -> pa.Table:
    """:attr:`KeywordQuery.split`: the words' best ``limit`` rows, re-ranked with the
    score of the pairs among just those rows (a prefilter on the id index)."""
    wanted = list(dict.fromkeys(["id", "_score", *columns]))
    found = await _match(table, query.words, column, limit, where, columns=wanted)
    ids = found["id"].to_pylist()
    bonus: dict[str, float] = {}
    if ids:
        among = f"id IN {in_values(ids)}"
        paired = await _match(table, query.pairs, column, len(ids), among, columns=wanted[:2])
        bonus = dict(zip(paired["id"].to_pylist(), paired["_score"].to_pylist(), strict=True))
    return _rescored(found, query.scale, [bonus.get(i, 0.0) for i in ids]).select(columns)


def _rescored(found: pa.Table, scale: int, extra: Sequence[float]) -> pa.Table:
    """``found`` with ``_score`` = ``scale`` x its score + ``extra`` (row by row), best
    first (a tie keeps the search's order)."""
    import numpy as np
    import pyarrow as pa

    column = found.schema.get_field_index("_score")
    scores = found["_score"].to_numpy().astype(np.float64) * scale + np.asarray(extra)
    order = np.argsort(-scores, kind="stable")
    kind = found.schema.field(column).type
    return found.take(order).set_column(column, "_score", pa.array(scores[order]).cast(kind))
