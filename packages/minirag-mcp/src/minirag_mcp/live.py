"""Live resources: subscribed documents say when they were re-indexed, lists when they grew.

With watch mode on (:meth:`Index.start_watching`), each sync the watcher applies reaches
:meth:`Live.on_batch` (its ``on_batch``, in the watcher's thread). Then:

- every session that subscribed (``resources/subscribe``) to a document the sync wrote or
  deleted gets ``notifications/resources/updated`` with the URI it subscribed to (a page
  URI counts for its document);
- every session the server has seen gets one ``notifications/resources/list_changed``
  when documents were added or removed, sent :data:`COALESCE_SECONDS` after the first
  such sync: the watcher already folds a burst of changes into one sync or two, and this
  folds those into one notification (a 500-file burst is one, not 500);
- the resources' kept list (:class:`~minirag_mcp.resources.Documents`) is dropped.

fastmcp 4.2.3 has no resource subscriptions (PrefectHQ/fastmcp#3641 is open; its PR #3645
was closed unmerged), and the SDK's ``resources/subscribe`` handler can only be set on the
low-level server that fastmcp keeps private. What fastmcp does expose is its middleware:
every request without a handler of fastmcp's own passes through ``on_request``, so
:class:`Live` answers ``resources/subscribe``/``unsubscribe`` there, and ``on_initialize``
adds ``subscribe: true`` to the capabilities it answers. Notifications go out through the
MCP SDK's public ``ServerSession.send_resource_updated``/``send_resource_list_changed``
of the session each request came on (``Context.session``). That is the handshake era
(protocol up to 2025-11-25: what desktop clients speak). On a 2026-07-28 connection,
notifications travel only on ``subscriptions/listen`` streams, which fastmcp does not
serve either; the SDK then advertises neither ``subscribe`` nor ``listChanged``, so such
a client knows to re-list instead.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from typing import TYPE_CHECKING, Any

from fastmcp.server.middleware import Middleware
from mcp_types import EmptyResult, InitializeResult
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from minirag_mcp.uris import parse_uri

if TYPE_CHECKING:
    from fastmcp.server.middleware import CallNext, MiddlewareContext
    from mcp.server.session import ServerSession
    from minirag_store.results import WatchBatch

    from minirag_mcp.resources import Documents

__all__ = ["COALESCE_SECONDS", "Live"]

logger = logging.getLogger(__name__)

#: How long after the first sync that added or removed documents the one
#: ``list_changed`` goes out (later syncs within it ride along).
COALESCE_SECONDS = 1.0


class Live(Middleware):
    """Subscriptions and change notifications for the documents of one server."""

    def __init__(self, documents: Documents, *, coalesce: float = COALESCE_SECONDS) -> None:
        super().__init__()
        self._documents = documents
        self._coalesce = coalesce
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        #: session id -> the session, for list_changed (every client seen).
        self._sessions: dict[str, ServerSession] = {}
        #: (session id, URI) subscriptions.
        self._subscribed: set[tuple[str, str]] = set()
        #: source -> (size, chunk count) of each document after the last sync
        self._known: dict[str, tuple[int, int]] | None = None
        self._pending: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    # ---------------------------------------------------------------- requests
    async def on_initialize(
        self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]
    ) -> Any:
        """Answer the handshake saying resources can be subscribed to."""
        result = await call_next(context)
        if isinstance(result, InitializeResult) and result.capabilities.resources is not None:
            resources = result.capabilities.resources.model_copy(
                update={"subscribe": True, "list_changed": True}
            )
            capabilities = result.capabilities.model_copy(update={"resources": resources})
            result = result.model_copy(update={"capabilities": capabilities})
        return result

    async def on_message(
        self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]
    ) -> Any:
        """Remember the session every message comes on (list_changed goes to each)."""
        self._remember(context)
        return await call_next(context)

    async def on_request(
        self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]
    ) -> Any:
        """Answer ``resources/subscribe`` and ``resources/unsubscribe``; pass the rest on."""
        if context.method not in ("resources/subscribe", "resources/unsubscribe"):
            return await call_next(context)
        key = self._remember(context)
        message = context.message
        uri = str(message.get("uri", "") if isinstance(message, dict) else message.uri)
        if key is not None and parse_uri(uri) is not None:
            with self._lock:
                if context.method == "resources/subscribe":
                    self._subscribed.add((key, uri))
                else:
                    self._subscribed.discard((key, uri))
        # A URI that names no document is accepted too: it will simply never change.
        return EmptyResult()

    def _remember(self, context: MiddlewareContext[Any]) -> str | None:
        ctx = context.fastmcp_context
        if ctx is None or ctx.request_context is None:
            return None
        session, key = ctx.session, ctx.session_id
        if session.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return None  # each request its own connection: nothing to notify later
        with self._lock:
            self._loop = asyncio.get_running_loop()
            self._sessions[key] = session
        return key

    # ------------------------------------------------------------- the watcher
    def on_batch(self, batch: WatchBatch) -> None:
        """One applied sync (in the watcher's thread): notify what it changed."""
        job = batch["job"]
        counts = job["counts"]
        if not (counts["ingested"] or counts["deleted"]):
            return  # an unchanged corpus: nothing to say
        self._documents.forget()
        now = {r["source"]: (r["size"], r["chunkCount"]) for r in self._documents.index.documents()}
        with self._lock:
            before, self._known = self._known, now
            loop = self._loop
        files = job.get("files", {"ingested": [], "deleted": []})
        written = set(files["ingested"]) | set(files["deleted"])
        if "filesOmitted" in job and before is not None:
            # Not every file is named (a background job names 100 of each outcome): the
            # documents whose size or chunk count moved, or that came or went, changed.
            written |= {s for s in before.keys() | now.keys() if before.get(s) != now.get(s)}
        grew = before is None or before.keys() != now.keys()
        updated = self._updated(written)
        if loop is not None and (updated or grew):
            loop.call_soon_threadsafe(self._send, updated, grew)

    def _updated(self, written: set[str]) -> list[tuple[str, str]]:
        with self._lock:
            subscribed = list(self._subscribed)
        return [(key, uri) for key, uri in subscribed if self._names(uri) & written]

    def _names(self, uri: str) -> set[str]:
        """The sources a subscribed URI can mean (a file's, under each root it may name)."""
        address = parse_uri(uri)
        if address is None:
            return set()
        if address.kind != "file":
            return {address.name}
        roots = [str(root) for root in self._documents.index.config.roots]
        return {
            os.path.join(root, address.name)
            for root in roots
            if address.root is None or root == address.root
        }

    # ------------------------------------------------------------ on the loop
    def _send(self, updated: list[tuple[str, str]], grew: bool) -> None:
        for key, uri in updated:
            self._spawn(self._notify(key, lambda s, u=uri: s.send_resource_updated(u)))
        if grew and self._pending is None:
            assert self._loop is not None  # set before any batch could be sent here
            self._pending = self._loop.call_later(self._coalesce, self._list_changed)

    def _list_changed(self) -> None:
        self._pending = None
        with self._lock:
            keys = list(self._sessions)
        for key in keys:
            self._spawn(self._notify(key, lambda s: s.send_resource_list_changed()))

    def _spawn(self, coroutine: Any) -> None:
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)  # held until done: the loop keeps only weak references
        task.add_done_callback(self._tasks.discard)

    async def _notify(self, key: str, send: Any) -> None:
        with self._lock:
            session = self._sessions.get(key)
        if session is None:
            return
        try:
            await send(session)
        except Exception as e:  # the client went away: forget it and its subscriptions
            logger.debug("dropping a session that cannot be notified: %s", e)
            with self._lock:
                self._sessions.pop(key, None)
                self._subscribed = {s for s in self._subscribed if s[0] != key}
