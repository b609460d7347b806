"""MCP progress notifications for a sync job, while the client is listening.

MCP progress belongs to a request: notifications carry the request's ``progressToken``
and must stop once the response is sent, so a job that outlives its ``sync_start`` call
cannot keep reporting on it (clients drop notifications for a finished request). So when
the client asked for progress, ``sync_start`` stays open for up to :data:`WATCH_SECONDS`
while the job runs, polling its live counts and reporting each change, then returns the
``jobId``: a small sync completes inside the call with a live bar, a big one hands over
to ``sync_status`` before common client request timeouts (60 s in the TypeScript SDK)
fire. Without a token the call returns at once.

Cancelling the watching call (the user pressing Esc) cancels the job too: the client was
following it as this call, and the store keeps every file fully indexed or untouched.
"""

from __future__ import annotations

import logging

import anyio
import anyio.to_thread
from fastmcp import Context
from minirag_store import Index, MiniragError
from minirag_store.results import JobStatus

from minirag_mcp.bridge import call_store

__all__ = ["POLL_SECONDS", "WATCH_SECONDS", "progress_token", "watch_job"]

#: How long sync_start keeps reporting before it returns and leaves the rest to sync_status.
WATCH_SECONDS = 30.0
#: Poll interval: a job's counts are cheap to read; four updates a second look live.
POLL_SECONDS = 0.25

logger = logging.getLogger(__name__)

_TERMINAL = frozenset({"succeeded", "failed", "cancelled"})


def progress_token(ctx: Context) -> str | int | None:
    """The progressToken the client attached to this request, if it asked for progress."""
    request = ctx.request_context
    meta = request.meta if request is not None else None
    token = meta.get("progressToken") if meta else None
    return token if isinstance(token, str | int) else None


def _position(status: JobStatus) -> tuple[float, float | None]:
    """(files finished, files found so far) from a job's counts."""
    counts = status["counts"]
    done = counts["ingested"] + counts["skipped"] + counts["unreadable"] + counts["failed"]
    found = counts["scanned"]
    return float(done), float(max(found, done)) if found else None


def _message(status: JobStatus) -> str:
    counts = status["counts"]
    parts = [f"{counts[key]} {key}" for key in ("ingested", "skipped", "deleted", "failed")]
    return f"sync {status['state']}: " + ", ".join(parts)


async def watch_job(
    ctx: Context,
    index: Index,
    job_id: str,
    *,
    seconds: float = WATCH_SECONDS,
    poll: float = POLL_SECONDS,
) -> JobStatus:
    """Report the job's progress on this request until it ends or ``seconds`` pass.

    Progress values only ever grow (the MCP rule): a report is sent when the number of
    finished files rises, plus one at the start so the client sees the job is alive.
    """
    deadline = anyio.current_time() + seconds
    last = -1.0
    try:
        while True:
            status = await call_store(lambda: index.sync_status(job_id))
            done, total = _position(status)
            if done > last:
                await ctx.report_progress(done, total, _message(status))
                last = done
            if status["state"] in _TERMINAL or anyio.current_time() >= deadline:
                return status
            await anyio.sleep(poll)
    except anyio.get_cancelled_exc_class():
        with anyio.CancelScope(shield=True):
            await _cancel(index, job_id)
        raise


async def _cancel(index: Index, job_id: str) -> None:
    """Stop the job the client stopped watching; a job that already ended stays as it is."""
    try:
        await anyio.to_thread.run_sync(index.sync_cancel, job_id)
    except MiniragError as e:  # e.g. forgotten already: nothing left to stop, but say so
        logger.warning("could not cancel sync job %s: %s", job_id, e)
