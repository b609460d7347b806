"""Hybrid search: vector + keyword top-N → fusion (``RAG_FUSION``: mixture, weighted RRF or
z-scores) → filters → hits + parents."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from typing import TYPE_CHECKING, Any

from minirag_store.arguments import TOP_K, check_top_k
from minirag_store.errors import InvalidArgumentError
from minirag_store.index.fusion import Fused, apply_filters, mixture_fuse, rrf_fuse, score_fuse
from minirag_store.index.schema import scope_filter
from minirag_store.locators import add_places, decode
from minirag_store.paths import display_path, normalize_scopes, scope_matches
from minirag_store.results import QueryResult, SearchHit, SourceSummary

if TYPE_CHECKING:
    from minirag_store.index.searcher import VectorPass
    from minirag_store.index.table import ChunkTable
    from minirag_store.service import Index

__all__ = ["candidate_count", "run_query"]


@cache
def _pool() -> ThreadPoolExecutor:
    """A small shared pool for the keyword side of concurrent queries (made on first use)."""
    return ThreadPoolExecutor(max_workers=4, thread_name_prefix="minirag-keyword")


def candidate_count(top_k: int) -> tuple[int, int]:
    """How many candidates the vector and the keyword side fetch: max(10·topK, 100) and
    max(4·topK, 50).

    RRF rewards a chunk both sides rank well, which only counts when each list is long
    enough to hold the other side's good hits. On SciFact (RRF, w=0.6, nDCG@10 of the top
    30, test / train queries) 120 candidates a side gave 0.729 / 0.730; 300 vector and 120
    keyword candidates 0.731 / 0.731, the same as 300 a side (0.731 / 0.732) at less CPU:
    a deeper vector list costs one partial sort (the pass scores every row anyway), a
    deeper keyword list a slower BM25 search.
    """
    return max(10 * top_k, 100), max(4 * top_k, 50)


def _check(query: str, top_k: int) -> int:
    if not isinstance(query, str) or not query.strip():
        raise InvalidArgumentError("query must be a non-empty string")
    return check_top_k(top_k)


def run_query(
    index: Index, query: str, top_k: int = TOP_K.default, scope: str | Sequence[str] | None = None
) -> QueryResult:
    """Hybrid search over the index, narrowed to ``scope`` (a path/id prefix or a list).

    Raises :class:`InvalidArgumentError` for an empty query or ``top_k`` below
    ``TOP_K.minimum``; above ``TOP_K.maximum`` it is capped (:mod:`minirag_store.arguments`).
    ``RAG_HYBRID_WEIGHT`` 0 skips the keyword search entirely.
    """
    top_k = _check(query, top_k)
    scopes = normalize_scopes(scope)
    config = index.config
    embedder = index.embedder()
    table = index.table()
    where = scope_filter(scopes)
    vector_n, keyword_n = candidate_count(top_k)
    weight = config.hybrid_weight

    # A candidate's source matters only to RAG_MAX_FILES and the scope check below (a
    # hit's row is read whole later): without them the ANN path does not read it.
    source = scopes is not None or config.max_files is not None
    # The keyword side needs no embedding: start it first so it overlaps the ONNX call
    # (which releases the GIL) instead of waiting behind it.
    pending = (
        _pool().submit(table.keyword_search, query, keyword_n, where, source=source)
        if weight > 0
        else None
    )
    query_vector = embedder.embed_query(query)
    # The vector search runs while the keyword search may still run; the keyword hits'
    # cosines (the score fusions need them) are asked of it after (1M chunks: the two
    # searches took ~17 and ~16 ms one after the other).
    nearest = table.vector_pass(query_vector, vector_n, scopes, source=source)
    kw_rows = pending.result() if pending is not None else []
    if scopes is not None:  # belt and braces: the SQL filter narrows already; never leak
        kw_rows = [r for r in kw_rows if scope_matches(r["source"], scopes)]
    if config.fusion == "rrf":
        vec_rows = nearest.rows
        cands = {r["id"]: r for r in kw_rows} | {r["id"]: r for r in vec_rows}
        fused = rrf_fuse([r["id"] for r in vec_rows], [r["id"] for r in kw_rows], weight)
    else:
        fused, cands = _score_fusion(nearest, kw_rows, weight=weight, fusion=config.fusion)
    pairs = [
        (cands[f.key]["source"] if source else "", cands[f.key].get("_distance")) for f in fused
    ]
    kept = apply_filters(
        pairs,
        max_distance=config.max_distance,
        grouping=config.grouping,
        max_files=config.max_files,
    )[:top_k]
    chosen = [(cands[fused[i].key], fused[i].score) for i in kept]
    rows, parents = _fetch(table, [c for c, _ in chosen])
    # A row replaced by a concurrent re-index between the two reads is left out, not faked.
    found = [(rows[c["id"]], c.get("_distance"), score) for c, score in chosen if c["id"] in rows]
    stale = changed_on_disk(row for row, _, _ in found)
    hits = [_hit(row, distance, score, stale) for row, distance, score in found]
    result: QueryResult = {
        "results": hits,
        "sources": _sources(index, hits, rows, stale),
        "parents": parents,
    }
    if not hits:
        notice = _notice(table, scopes)
        if notice:
            result["notice"] = notice
    return result


def _score_fusion(
    found: VectorPass, kw_rows: list[dict[str, Any]], *, weight: float, fusion: str
) -> tuple[list[Fused[str]], dict[str, dict[str, Any]]]:
    """``RAG_FUSION=mixture`` or ``score``: the fused candidates and every candidate row
    by id.

    Both fusions need every candidate's cosine: the vector pass scores the keyword hits
    too (the exact path from the same pass over the vectors).
    """
    known = {r["id"]: r["vector"] for r in kw_rows if "vector" in r}  # ANN path only
    vec_rows = found.rows
    similarity = found.similarity([r["id"] for r in kw_rows], known)
    kw_rows = [r for r in kw_rows if r["id"] in similarity]  # gone since the search: left out
    similarity.update({r["id"]: 1.0 - r["_distance"] for r in vec_rows})
    cands = {r["id"]: r for r in kw_rows} | {r["id"]: r for r in vec_rows}
    keyword = [(r["id"], r["_score"]) for r in kw_rows]
    fuse = mixture_fuse if fusion == "mixture" else score_fuse
    return fuse([r["id"] for r in vec_rows], keyword, similarity, weight), cands


def _fetch(
    table: ChunkTable, chosen: list[dict[str, Any]]
) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
    """Rows of the chosen hits and their reconstructed parent sections, in one query.

    Every hit lies inside its parent section, so fetching the sections' chunks also
    fetches the hits; only a hit without a parent needs a look-up by id.
    """
    from minirag_chunker import reconstruct_section

    grouped = table.parent_chunks([c["parent_id"] for c in chosen if c["parent_id"]])
    rows = {r["id"]: r for pieces in grouped.values() for r in pieces}
    missing = [c["id"] for c in chosen if c["id"] not in rows]
    if missing:  # no parent, or the row changed since the candidate list was made
        rows.update(table.rows_by_id(missing))
    parents = {
        parent: reconstruct_section((r["text"], r["body_start"]) for r in pieces)
        for parent, pieces in grouped.items()
        if pieces
    }
    return rows, parents


def changed_on_disk(rows: Iterable[dict[str, Any]]) -> frozenset[str]:
    """The file sources among ``rows`` whose file is gone or differs in size or mtime from
    what was indexed: one ``os.stat`` per distinct file, a query's only look at the disk
    (a file it may not stat is not called stale: nothing is known of it)."""
    indexed: dict[str, tuple[int, float]] = {}
    for row in rows:
        if row["source_type"] == "file":
            indexed.setdefault(row["source"], (row["size"], row["mtime"]))
    changed: set[str] = set()
    for source, (size, mtime) in indexed.items():
        try:
            now = os.stat(source)
        except (FileNotFoundError, NotADirectoryError):
            changed.add(source)
            continue
        except OSError:
            continue
        if now.st_size != size or now.st_mtime != mtime:
            changed.add(source)
    return frozenset(changed)


def _hit(
    row: dict[str, Any], distance: float | None, score: float, stale: frozenset[str]
) -> SearchHit:
    hit: SearchHit = {
        "text": row["text"],
        "source": row["source"],
        "title": row["title"],
        "chunkIndex": row["chunk_index"],
        "score": score,
        "distance": None if distance is None else float(distance),
        "parentId": row["parent_id"] or None,
        "locator": decode(row.get("locator")),
    }
    if row["source"] in stale:
        hit["stale"] = True
    return hit


def _sources(
    index: Index, hits: list[SearchHit], rows: dict[str, dict[str, Any]], stale: frozenset[str]
) -> list[SourceSummary]:
    types = {r["source"]: r["source_type"] for r in rows.values()}
    summary: dict[str, SourceSummary] = {}
    for hit in hits:
        source = hit["source"]
        if source not in summary:
            shown = display_path(index.config, source, types.get(source, "file"))
            summary[source] = {
                "source": source,
                "title": hit["title"],
                "hits": 0,
                "displayPath": shown,
            }
            if source in stale:
                summary[source]["stale"] = True
        entry = summary[source]
        entry["hits"] += 1
    add_places(summary.values(), hits)
    return list(summary.values())


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
