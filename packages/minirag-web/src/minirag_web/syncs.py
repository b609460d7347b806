"""The page's writes: starting, cancelling and watching a sync, and removing a document.

``POST /sync`` starts one (or cancels one) and ``POST /remove`` takes a document out of
the index, for a full-access session only: a read-only sign-in is refused with 403 before
the Index is asked anything, as the MCP server's write guard refuses a read token the
``sync_start`` and ``delete_file`` tools. ``GET /sync/{job}/events`` is
the job's live progress as server-sent events: ``sync_status``'s state and counts each
time they change, then a ``done`` event. What each sync did and failed on is the index's
own record (``status().lastSync``, ``list_files``), whoever watched it.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response, StreamingResponse

from minirag_web.access import Session
from minirag_web.site import PageError, Site, url

__all__ = ["events", "remove", "sync"]

#: How often progress is looked at (a sync's counters move file by file).
POLL_SECONDS = 0.4
_TERMINAL = frozenset({"succeeded", "failed", "cancelled"})


def _full_access(session: Session, what: str) -> None:
    if not session.may_write:
        raise PageError(
            403,
            "You signed in with a read-only token: it searches and reads, but only a "
            f"full-access token (RAG_HTTP_TOKENS) {what}.",
        )


async def sync(request: Request, site: Site, session: Session) -> Response:
    """``POST /sync`` with ``action=start`` (all roots) or ``action=cancel&job=ID``."""
    form = await site.form(request, session)
    _full_access(session, "starts or cancels a sync")
    action = form.get("action")
    if action == "start":
        started = await site.call(lambda: site.index.sync_start(origin="page"))
        job_id = started["jobId"]
        site.syncs.started(job_id)
    elif action == "cancel":
        job_id = form.get("job", "")
        await site.call(lambda: site.index.sync_cancel(job_id))
    else:
        raise PageError(400, "action must be start or cancel")
    return RedirectResponse(url(request, "/health", job=job_id), status_code=303)


async def remove(request: Request, site: Site, session: Session) -> Response:
    """``POST /remove`` with ``source=`` and ``action=``: ``remove`` takes the document's
    chunks out of the index (the file on disk is untouched; the next sync indexes it again
    while it is under a root); ``exclude`` also writes a ``.miniragignore`` rule so it stays
    out; ``reindex`` reads the file again now (``key``: its absolute path)."""
    form = await site.form(request, session)
    _full_access(session, "removes or re-indexes a document")
    source, action = form.get("source", ""), form.get("action", "remove")
    if action == "remove":
        gone = await site.call(lambda: site.index.delete_file(source))
        target = url(request, "/files", removed=source, chunks=gone["deletedChunks"])
    elif action == "exclude":
        out = await site.call(lambda: site.index.delete_file(source, exclude=True))
        target = url(request, "/files", excluded=source, rule=out["rule"])
    elif action == "reindex":
        key = form.get("key", "")
        await site.call(lambda: site.index.ingest_file(key))  # a failure: the error page
        target = url(request, "/read", source=source, reindexed=1)
    else:
        raise PageError(400, "action must be remove, exclude or reindex")
    return RedirectResponse(target, status_code=303)


async def events(request: Request, site: Site, session: Session) -> Response:
    """``GET /sync/{job}/events``: the job's state and counts as they change (SSE)."""
    job_id = request.path_params["job"]
    first = await site.call(lambda: site.index.sync_status(job_id))  # unknown: 404 page

    async def stream() -> AsyncIterator[str]:
        job, last = first, ""
        while True:
            payload = json.dumps(
                {"state": job["state"], "counts": job["counts"], "error": job["error"]}
            )
            if payload != last:
                yield f"event: progress\ndata: {payload}\n\n"
                last = payload
            if job["state"] in _TERMINAL:
                yield "event: done\ndata: {}\n\n"
                return
            await asyncio.sleep(POLL_SECONDS)
            try:
                job = await site.call(lambda: site.index.sync_status(job_id))
            except PageError:
                return

    headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
    return StreamingResponse(stream(), media_type="text/event-stream", headers=headers)
