"""Calling the blocking store from the event loop; the one place store errors become tool errors.

Every tool body that touches :class:`minirag_store.Index` goes through :func:`call_store`:
the work runs in a worker thread, so a model load, a long ingest or a LanceDB write never
stalls the event loop (other calls, pings, progress and cancellation keep flowing), and a
:class:`~minirag_store.errors.MiniragError` turns into a :class:`~fastmcp.exceptions.ToolError`
carrying the store's message, which is written for the model to act on. Anything else is a
bug; fastmcp reports it as a tool error too (message only, the traceback goes to stderr).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import anyio.to_thread
from fastmcp.exceptions import ToolError
from minirag_store.errors import MiniragError

__all__ = ["call_store"]

T = TypeVar("T")


async def call_store(work: Callable[[], T]) -> T:
    """Run ``work`` in a worker thread; its MiniragError becomes a ToolError (no traceback).

    ``abandon_on_cancel``: when the client cancels a call, the answer is released at once
    instead of after the store finishes; the store keeps every write atomic per source,
    so an abandoned ingest either lands whole or not at all.
    """
    try:
        return await anyio.to_thread.run_sync(work, abandon_on_cancel=True)
    except MiniragError as e:
        raise ToolError(str(e)) from e
