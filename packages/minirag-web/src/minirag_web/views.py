"""The four views: search, read (with the page image), files and index health.

Each is one or two Index calls (:meth:`Site.call`) and a template; the only work here is
choosing what to show. Every view reads; the one that changes the index (a sync) is in
:mod:`minirag_web.syncs`.
"""

from __future__ import annotations

import os
from collections import Counter
from typing import Any

from minirag_store.arguments import NEIGHBORS, TOP_K
from minirag_store.errors import RenderError
from minirag_store.results import SYNC_ORIGINS, PageImage
from starlette.requests import Request
from starlette.responses import Response

from minirag_web import present
from minirag_web.access import Session
from minirag_web.site import PageError, Site, whole

__all__ = ["files", "health", "page_png", "read", "search"]

#: Hits a search shows first; "More results" asks for this many more.
PAGE_HITS = 10
#: Chunks shown on each side of a hit when it opens; "More around it" adds as many.
AROUND = 2
#: File states in the order the files view counts them ("failed"/"skipped": the syncs').
#: The states a row can show: the listing's, and what the syncs seen here noted (failed,
#: skipped). Files not indexed with a known reason (empty, unsupported, too large) follow.
STATES = ("ingested", "failed", "skipped", "stale", "stale_scheme", "not_ingested", "unreadable",
          "empty", "unsupported", "too_large")  # fmt: skip
#: Widest page image asked for: twice a column's CSS width, sharp on a high-density screen.
IMAGE_WIDTH = 1100


async def search(request: Request, site: Site, session: Session) -> Response:
    """``/?q=...&k=N``: the hits as the CLI shows them, then their sources."""
    query = request.query_params.get("q", "").strip()
    k = whole(request, "k", PAGE_HITS) or PAGE_HITS
    context: dict[str, Any] = {"q": query, "k": k, "title": query or "Search"}
    if query:
        # No token budget: a person reads a page, not a model's context (as the CLI).
        result = await site.call(
            lambda: site.index.query(query, top_k=k, max_tokens=0, explain=True)
        )
        context |= {
            "hits": present.hits(result, query),
            "sources": present.sources(result),
            "notice": result.get("notice"),
            # "weak": the best hit is only loosely related; the page says so first
            "no_match": result.get("bestMatch") == "weak",
            "more": min(k + PAGE_HITS, TOP_K.maximum)
            if len(result["results"]) >= k and k < TOP_K.maximum
            else None,
        }
    return site.page(request, "search.html", context, session=session)


async def read(request: Request, site: Site, session: Session) -> Response:
    """``/read?source=S`` and one of: ``chunk=N`` (a hit, with the chunks around it;
    ``last=M`` when the hit is a passage of chunks N to M),
    ``page=P`` / ``slide=N`` (one page or slide), ``from=N`` (the document from there)."""
    source = request.query_params.get("source", "").strip()
    if not source:
        raise PageError(400, "Which document? Open one from a search or the files view.")
    query = request.query_params.get("q", "")
    chunk, page, slide = whole(request, "chunk"), whole(request, "page"), whole(request, "slide")
    context: dict[str, Any] = {"source": source, "q": query, "title": source, "chunk": chunk}
    if chunk is not None:
        span = whole(request, "span", AROUND) or 0
        last = max(chunk, whole(request, "last") or chunk)
        context["last"] = last if last > chunk else None
        after = min(span + last - chunk, NEIGHBORS.maximum)
        got = await site.call(lambda: site.index.read_chunk_neighbors(source, chunk, span, after))
        context["parts"] = [
            {"index": c["chunkIndex"], "hit": chunk <= c["chunkIndex"] <= last,
             "html": present.markdown(c["text"], query)}
            for c in got["chunks"]
        ]  # fmt: skip
        if got["chunks"]:
            context["doc_title"] = got["chunks"][0]["title"]
        context["key"] = got["source"]
        if span < NEIGHBORS.maximum:
            context["wider"] = min(span + AROUND, NEIGHBORS.maximum)
        context["span"] = span
    else:
        start = whole(request, "from", 0) or 0
        doc = await site.call(
            lambda: site.index.read_file(source, from_chunk=start, page=page, slide=slide)
        )
        context |= {
            "doc_title": doc["title"],
            "html": present.markdown(doc["text"], query),
            "next_chunk": doc.get("nextChunk"),
            "notice": doc.get("notice"),
            "chunk_count": doc["chunkCount"],
            "key": doc["source"],
        }
    context |= {"page": page, "slide": slide, "reindexed": "reindexed" in request.query_params}
    context["is_file"] = os.path.isabs(context["key"])
    if page is not None:
        context["image"] = await _image(site, source, page)
    return site.page(request, "read.html", context, session=session)


async def _image(site: Site, source: str, page: int) -> dict[str, Any] | None:
    """What the read view says of page ``page``'s image (its size, how many pages);
    None when the document has no pages to draw (not a PDF)."""
    try:
        got: PageImage = await site.call(
            lambda: site.index.page_image(source, page, max_width=IMAGE_WIDTH)
        )
    except PageError as e:
        if isinstance(e.__cause__, RenderError):
            return {"error": e.message}
        raise
    return {"width": got["width"], "height": got["height"], "count": got["pageCount"]}


async def page_png(request: Request, site: Site, session: Session) -> Response:
    """``/page.png?source=S&page=P``: the page as the MCP tool draws it (cached)."""
    source = request.query_params.get("source", "")
    page = whole(request, "page")
    if page is None:
        raise PageError(400, "Which page? page must be a whole number from 1.")
    got = await site.call(lambda: site.index.page_image(source, page, max_width=IMAGE_WIDTH))
    # private: it is a document's content; a short max-age spares re-reads while paging
    headers = {"Cache-Control": "private, max-age=300"}
    return Response(got["png"], media_type="image/png", headers=headers)


async def files(request: Request, site: Site, session: Session) -> Response:
    """``/files?state=S&path=P``: every file and source with its state, counts on top."""
    listing = await site.call(site.index.list_files)
    # The store's listing is the one account: a file a sync failed on is `failed` with
    # the error, whichever process ran that sync (minirag_store.ingest.record).
    rows = [{**row, "why": row.get("reason")} for row in listing["files"]]
    counts = Counter(row["state"] for row in rows)
    state = request.query_params.get("state", "")
    if state and state not in STATES:
        raise PageError(400, f"state must be one of {', '.join(STATES)}")
    needle = request.query_params.get("path", "").strip()
    shown = [
        row
        for row in rows
        if (not state or row["state"] == state)
        and needle.casefold() in row["displayPath"].casefold()
    ]
    context = {
        "title": "Files",
        "rows": shown,
        "total": len(rows),
        "counts": [(s, counts[s]) for s in STATES if counts[s]],
        "states": STATES,
        "state": state,
        "needle": needle,
        "warnings": listing.get("warnings", []),
        "removed": request.query_params.get("removed"),
        "excluded": request.query_params.get("excluded"),
        "rule": request.query_params.get("rule"),
        "removed_chunks": whole(request, "chunks"),
    }
    return site.page(request, "files.html", context, session=session)


async def health(request: Request, site: Site, session: Session) -> Response:
    """``/health[?job=ID]``: status, and a sync (the latest started here) with its counts."""
    status = await site.call(site.index.status)
    merged = {**status, **site.serving}
    secrets = site.index.config.secrets if site.index.config_error is None else ()
    job_id = request.query_params.get("job") or site.syncs.latest
    job = None
    if job_id:
        try:
            job = await site.call(lambda: site.index.sync_status(job_id))
        except PageError:  # an old or foreign job id: show no job rather than an error page
            job = None
    context = {
        "title": "Index health",
        "rows": present.status_rows(merged, secrets),
        "job": job,
        "running": job is not None and job["state"] in ("pending", "running"),
        "last": status.get("lastSync"),
        "origins": SYNC_ORIGINS,
    }
    return site.page(request, "health.html", context, session=session)
