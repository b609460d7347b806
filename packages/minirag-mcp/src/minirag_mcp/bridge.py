"""Calling the blocking store from the event loop; the one place store errors become MCP errors.

Every tool body that touches :class:`minirag_store.Index` goes through :func:`call_store`:
the work runs in a worker thread, so a model load, a long ingest or a LanceDB write never
stalls the event loop (other calls, pings, progress and cancellation keep flowing), and a
:class:`~minirag_store.errors.MiniragError` turns into a :class:`~fastmcp.exceptions.ToolError`
carrying the store's message, which is written for the model to act on. Anything else is a
bug; fastmcp reports it as a tool error too (message only, the traceback goes to stderr).
A resource read goes through :func:`read_store`, whose errors are JSON-RPC errors instead
(resources have no error result): ``-32002`` (the spec's "resource not found") for what
names nothing readable, ``-32602`` for a bad argument in the URI, fastmcp's
``ResourceError`` for the rest, each with the store's message.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import anyio.to_thread
from fastmcp.exceptions import ResourceError, ToolError
from mcp import MCPError
from mcp.types import INVALID_PARAMS
from minirag_store.errors import (
    InvalidArgumentError,
    MiniragError,
    NotFoundError,
    PathOutsideRootsError,
)

__all__ = ["RESOURCE_NOT_FOUND", "call_store", "read_store"]

#: The MCP specification's JSON-RPC code for a resource that does not exist.
RESOURCE_NOT_FOUND = -32002

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


async def read_store(work: Callable[[], T], uri: str) -> T:
    """:func:`call_store` for a resource read of ``uri``: its MiniragError becomes the
    JSON-RPC error a client expects of ``resources/read`` (see the module doc)."""
    try:
        return await anyio.to_thread.run_sync(work, abandon_on_cancel=True)
    except (NotFoundError, PathOutsideRootsError) as e:
        # outside the roots is "not found" too: a resource never says what lies beyond them
        raise MCPError(RESOURCE_NOT_FOUND, str(e), {"uri": uri}) from e
    except InvalidArgumentError as e:
        raise MCPError(INVALID_PARAMS, str(e), {"uri": uri}) from e
    except MiniragError as e:
        raise ResourceError(str(e)) from e
