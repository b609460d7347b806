"""Hybrid search: vector + keyword top-N → fusion (``RAG_FUSION``: mixture, weighted RRF or
z-scores) → filters → the answer: hits, their sources and their sections.

The answer says each thing once (:class:`~minirag_store.results.QueryResult`): a hit names
its source by index into ``sources`` and its section by index into ``parents``, carries
its passage without the heading breadcrumb its locator already holds, and a score of four
significant digits. At topK 50 the per-hit paths, titles, ids and 17-digit floats of the
former shape left ~30 % of a budgeted answer for document text (bench/answers.py).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from minirag_store.arguments import OFFSET, TOP_K, check_offset, check_top_k
from minirag_store.convert.titles import stem_title
from minirag_store.errors import InvalidArgumentError
from minirag_store.index.search.evidence import (
    LEVELS,
    Judged,
    WordCounts,
    count_cap,
    judge,
    match_notice,
    padding,
)
from minirag_store.index.search.fusion import (
    Fused,
    apply_filters,
    mixture_fuse,
    rrf_fuse,
    score_fuse,
)
from minirag_store.index.storage.schema import scope_filter
from minirag_store.index.text.keywords import keyword_query
from minirag_store.index.text.terms import query_words, words_in
from minirag_store.locators import decode
from minirag_store.passages import in_wire_order
from minirag_store.paths import display_path, resolve_scopes, root_of, scope_matches
from minirag_store.results import HitMatch, QueryResult, SearchHit, SourceSummary

if TYPE_CHECKING:
    from minirag_store.config import Config
    from minirag_store.index.search.searcher import VectorPass
    from minirag_store.index.table import ChunkTable
    from minirag_store.parts import Configured, Searchable

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
    index: Searchable,
    query: str,
    top_k: int = TOP_K.default,
    scope: str | Sequence[str] | None = None,
    offset: int = OFFSET.default,
) -> QueryResult:
    """Hybrid search over the index, narrowed to ``scope`` (a path/id prefix or a list):
    the hits ranked ``offset + 1`` to ``offset + top_k``.

    Raises :class:`InvalidArgumentError` for an empty query, ``top_k`` below
    ``TOP_K.minimum`` or ``offset`` outside ``OFFSET``; above ``TOP_K.maximum`` topK is
    capped (:mod:`minirag_store.arguments`). ``RAG_HYBRID_WEIGHT`` 0 skips the keyword
    search entirely.
    """
    top_k = _check(query, top_k)
    offset = check_offset(offset)
    config = index.config
    scopes = resolve_scopes(config, scope)
    table = index.existing_table()
    if table is None:  # a query never creates an index (nor its folder)
        empty: QueryResult = {"results": [], "sources": [], "roots": [], "parents": []}
        return {**empty, "notice": _empty(config)}
    embedder = index.embedder()
    where = scope_filter(scopes)
    vector_n, keyword_n = candidate_count(offset + top_k)
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
        scores=[f.score for f in fused],
        min_score_ratio=config.min_score_ratio,
        max_distance=config.max_distance,
        grouping=config.grouping,
        max_files=config.max_files,
    )[offset : offset + top_k]
    chosen = [(cands[fused[i].key], fused[i].score) for i in kept]
    rows, parents = _fetch(table, [c for c, _ in chosen])
    # A row replaced by a concurrent re-index between the two reads is left out, not faked.
    found = [(rows[c["id"]], c.get("_distance"), s) for c, s in chosen if c["id"] in rows]
    counts = word_counts(table, query, where)
    judged = _judge(table, counts, nearest, [row for row, _, _ in found])
    if not offset:  # a later page is asked for on purpose: its hits stay, flagged
        left_out = padding(counts, judged, [row["source"] for row, _, _ in found])
        found = [f for f, out in zip(found, left_out, strict=True) if not out]
        judged = [j for j, out in zip(judged, left_out, strict=True) if not out]
    result = _answer(index, found, parents)
    result["results"] = [
        in_wire_order({**hit, "match": _match_field(j)})
        for hit, j in zip(result["results"], judged, strict=True)
    ]
    notice = match_notice(counts, judged) if found else None
    if found:
        result["bestMatch"] = LEVELS[min(LEVELS.index(j.level) for j in judged)]
    else:
        notice = _notice(config, table, scopes) if not offset else _past_the_end(offset)
    if notice:
        result["notice"] = notice
    return result


def _judge(
    table: ChunkTable, counts: WordCounts, nearest: VectorPass, rows: list[dict[str, Any]]
) -> list[Judged]:
    """Each found row's evidence (:mod:`minirag_store.index.search.evidence`): the query's
    words counted in the index, each row's terms and its cosine against the background."""
    languages = table.languages()
    cosine = nearest.similarity([r["id"] for r in rows]) if rows else {}
    held = [words_in(r["text"], languages) for r in rows]
    return judge(counts, held, [cosine.get(r["id"]) for r in rows], nearest.background)


def word_counts(table: ChunkTable, query: str, where: str | None) -> WordCounts:
    """The query's words and how many chunks (within ``where``) hold each."""
    words = query_words(query, table.languages())
    chunks = table.summary(wait=False).chunk_count  # a sync under way need not be waited for
    counts = table.term_counts([w.heads for w in words], count_cap(chunks), where)
    searchable = bool(keyword_query(query, table.languages()).whole)
    return WordCounts(words, counts, chunks, searchable)


def _match_field(judged: Judged) -> HitMatch:
    """A hit's ``match``: its level, and the distinctive words it holds and lacks."""
    out: HitMatch = {"level": judged.level}
    if judged.found:
        out["found"] = judged.found
    if judged.missing:
        out["missing"] = judged.missing
    if judged.coverage is not None:
        out["coverage"] = _short(judged.coverage)
    if judged.z is not None:
        out["z"] = _short(judged.z)
    return out


def answer_query(
    index: Searchable,
    query: str,
    top_k: int,
    scope: str | Sequence[str] | None,
    *,
    offset: int,
    max_tokens: int | None,
    ask_server: bool,
    explain: bool = False,
) -> QueryResult:
    """What :meth:`Searchable.query` answers: a running server's answer when ``ask_server`` and
    one answers, else :func:`run_query` here; shaped for the client (adjacent chunks of a
    section as one passage, scores with ``explain``: :mod:`minirag_store.passages`) and
    fitted to ``max_tokens`` (None: the configured RAG_MAX_RESPONSE_TOKENS, 0: no limit)."""
    from minirag_store.arguments import check_max_tokens

    budget = index.config.max_response_tokens if max_tokens is None else max_tokens
    budget = check_max_tokens(budget)
    # Resolved here, with this process's working folder: a server asked next has its own.
    scope = resolve_scopes(index.config, scope)
    if ask_server:
        from minirag_store.peer import ask

        answer = ask(
            index.config, query, top_k, scope, max_tokens=budget, offset=offset, explain=explain
        )
        # A server older than ``explain`` answers without scores: then answer here.
        if answer is not None and (not explain or all("score" in h for h in answer["results"])):
            return answer
    result = run_query(index, query, top_k=top_k, scope=scope, offset=offset)
    from minirag_store.budget import fit_query, shape_query

    if not budget:
        return shape_query(result, explain=explain)
    return fit_query(result, budget, index.token_counter(), offset, explain=explain)


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


def _answer(
    index: Configured,
    found: list[tuple[dict[str, Any], float | None, float]],
    sections: dict[str, str],
) -> QueryResult:
    """The answer for the ranked ``(row, distance, score)``: each source and each section
    once, in the order of the first hit that needs it, and the hits pointing at them."""
    stale = changed_on_disk(row for row, _, _ in found)
    roots: list[str] = []
    sources: list[SourceSummary] = []
    source_at: dict[str, int] = {}
    parents: list[str] = []
    parent_at: dict[str, int] = {}
    hits: list[SearchHit] = []
    for row, distance, score in found:
        source = row["source"]
        if source not in source_at:
            source_at[source] = len(sources)
            sources.append(_summary(index, row, source in stale, roots))
        src = source_at[source]
        locator = decode(row.get("locator"))
        if locator.get("headingPath") == row["title"]:
            del locator["headingPath"]  # the title alone: sources[src] says it
        hit: SearchHit = {
            "src": src,
            "chunkIndex": row["chunk_index"],
            "score": _short(score),
            "distance": None if distance is None else _short(distance),
            **({"locator": locator} if locator else {}),  # type: ignore[typeddict-item]
            "text": row["text"][row["body_start"] :],
        }
        parent = row["parent_id"]
        if parent and parent in sections:
            if parent not in parent_at:
                parent_at[parent] = len(parents)
                parents.append(sections[parent])
            hit["parent"] = parent_at[parent]
        hits.append(hit)
    # Each source's pages and slides are counted as the client gets it (budget.shape_query).
    return {"results": hits, "sources": sources, "roots": roots, "parents": parents}


def _short(value: float) -> float:
    """Four significant digits: what tells hits apart, without 17-digit floats."""
    return float(f"{value:.4g}")


def _summary(
    index: Configured, row: dict[str, Any], stale: bool, roots: list[str]
) -> SourceSummary:
    """A source's entry: its displayPath and, for a file, which of ``roots`` (grown here)
    it is under; a path is said once (the absolute one is root + displayPath)."""
    source = row["source"]
    shown = display_path(index.config, source, row["source_type"])
    summary: SourceSummary = {"displayPath": shown}
    # A title made from the file's name would say displayPath again: said once.
    if row["source_type"] != "file" or row["title"] != stem_title(Path(shown).stem):
        summary["title"] = row["title"]
    root = root_of(index.config, source) if row["source_type"] == "file" else None
    if root is not None and source != str(root):
        if str(root) not in roots:
            roots.append(str(root))
        summary["root"] = roots.index(str(root))
    if stale:
        summary["stale"] = True
    return summary


def _past_the_end(offset: int) -> str:
    return f"No hits ranked past {offset}: the earlier answers hold every hit of this query."


def _empty(config: Config) -> str:
    return (
        f"The index at {config.where} is empty: run sync (or ingest files) first, then query again."
    )


def _notice(config: Config, table: ChunkTable, scopes: tuple[str, ...] | None) -> str | None:
    chunks, _ = table.counts()
    if chunks == 0:
        return _empty(config)
    if scopes:
        return (
            f"Nothing indexed matches under scope {', '.join(scopes)}; check the path, "
            "or query without a scope."
        )
    return None
