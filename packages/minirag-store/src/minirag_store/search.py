"""Hybrid search: vector top-N + keyword top-N → weighted RRF → filters → hits + parents."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from minirag_store.errors import InvalidArgumentError
from minirag_store.fusion import apply_filters, rrf_fuse
from minirag_store.paths import display_path, normalize_scopes, scope_matches
from minirag_store.results import QueryResult, SearchHit, SourceSummary
from minirag_store.table import scope_filter

if TYPE_CHECKING:
    from minirag_store.service import Index
    from minirag_store.table import ChunkTable

__all__ = ["MAX_TOP_K", "candidate_count", "run_query"]

#: topK above this is clamped: each side fetches a multiple of topK, so it bounds the scan.
MAX_TOP_K = 100


def candidate_count(top_k: int) -> int:
    """How many candidates each side fetches: max(4·topK, 50)."""
    return max(4 * top_k, 50)


def _check(query: str, top_k: int) -> int:
    if not isinstance(query, str) or not query.strip():
        raise InvalidArgumentError("query must be a non-empty string")
    if isinstance(top_k, bool) or not isinstance(top_k, int):
        raise InvalidArgumentError(f"topK must be a whole number, got {top_k!r}")
    if top_k < 1:
        raise InvalidArgumentError(f"topK must be at least 1, got {top_k}")
    return min(top_k, MAX_TOP_K)


def run_query(
    index: Index, query: str, top_k: int = 8, scope: str | Sequence[str] | None = None
) -> QueryResult:
    """Hybrid search over the index, narrowed to ``scope`` (a path/id prefix or a list).

    Raises :class:`InvalidArgumentError` for an empty query or ``top_k < 1``; ``top_k``
    above 100 is clamped. ``RAG_HYBRID_WEIGHT`` 0 skips the keyword search entirely.
    """
    top_k = _check(query, top_k)
    scopes = normalize_scopes(scope)
    config = index.config
    embedder = index.embedder()
    table = index.table()
    where = scope_filter(scopes)
    fetch = candidate_count(top_k)
    weight = config.hybrid_weight

    vec_rows = table.vector_search(embedder.embed_query(query), fetch, where)
    kw_rows = table.keyword_search(query, fetch, where) if weight > 0 else []
    # Belt and braces: the SQL filter already narrows; never let a row outside scope out.
    vec_rows = [r for r in vec_rows if scope_matches(r["source"], scopes)]
    kw_rows = [r for r in kw_rows if scope_matches(r["source"], scopes)]

    rows: dict[str, dict[str, Any]] = {r["id"]: r for r in kw_rows}
    rows.update({r["id"]: r for r in vec_rows})
    fused = rrf_fuse([r["id"] for r in vec_rows], [r["id"] for r in kw_rows], weight)
    pairs = [(rows[f.key]["source"], rows[f.key].get("_distance")) for f in fused]
    kept = apply_filters(
        pairs,
        max_distance=config.max_distance,
        grouping=config.grouping,
        max_files=config.max_files,
    )[:top_k]
    hits = [_hit(rows[fused[i].key], fused[i].score) for i in kept]
    result: QueryResult = {
        "results": hits,
        "sources": _sources(index, hits, rows),
        "parents": _parents(table, hits),
    }
    if not hits:
        notice = _notice(table, scopes)
        if notice:
            result["notice"] = notice
    return result


def _hit(row: dict[str, Any], score: float) -> SearchHit:
    distance = row.get("_distance")
    return {
        "text": row["text"],
        "source": row["source"],
        "title": row["title"],
        "chunkIndex": row["chunk_index"],
        "score": score,
        "distance": None if distance is None else float(distance),
        "parentId": row["parent_id"] or None,
    }


def _sources(
    index: Index, hits: list[SearchHit], rows: dict[str, dict[str, Any]]
) -> list[SourceSummary]:
    types = {r["source"]: r["source_type"] for r in rows.values()}
    summary: dict[str, SourceSummary] = {}
    for hit in hits:
        source = hit["source"]
        if source in summary:
            summary[source]["hits"] += 1
            continue
        shown = display_path(index.config, source, types.get(source, "file"))
        summary[source] = {"source": source, "title": hit["title"], "hits": 1, "displayPath": shown}
    return list(summary.values())


def _parents(table: ChunkTable, hits: list[SearchHit]) -> dict[str, str]:
    """Each distinct parent section of the hits, reconstructed, fetched in one query."""
    from minirag_chunker import reconstruct_section

    grouped = table.parent_chunks([h["parentId"] for h in hits if h["parentId"]])
    return {
        parent: reconstruct_section((r["text"], r["body_start"]) for r in pieces)
        for parent, pieces in grouped.items()
        if pieces
    }


def _notice(table: ChunkTable, scopes: tuple[str, ...] | None) -> str | None:
    chunks, _ = table.counts()
    if chunks == 0:
        return "The index is empty: run sync (or ingest files) first, then query again."
    if scopes:
        return (
            f"Nothing indexed matches under scope {', '.join(scopes)}; check the path, "
            "or query without a scope."
        )
    return None
