"""When the server loads the index and starts following the files: once the client is served.

A client that starts a stdio server can do nothing until ``initialize`` and ``tools/list``
are answered. Loading the index (:meth:`Index.warm_up`: LanceDB, the model, the search
snapshot) and the watcher's first full sync are seconds of mostly-Python work; run in
threads *while* the handshake is answered, they held the GIL that every hand-off between
fastmcp's stdin reader thread and its event loop waits for, and ``tools/list`` came
~0.5 s later than a plain fastmcp server's. So on stdio they begin as soon as the client
has listed the tools (or called one), or :data:`FALLBACK_SECONDS` after start for a client
that does neither; a person asks the first question later than that, and a client that
asks at once waits for the same loading either way. An HTTP server (nobody waits for its
start) begins at once.

Order: the warm-up first (the first query wants it), then the watcher (``RAG_WATCH``),
whose first full sync would otherwise compete with that query.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from minirag_store.process import settle

if TYPE_CHECKING:
    from minirag_store import Index
    from minirag_store.results import WatchBatch

__all__ = ["FALLBACK_SECONDS", "Readiness", "ReadyAfterListing"]

logger = logging.getLogger(__name__)

#: A stdio client that neither lists nor calls tools this long after start still gets a
#: warm index (a person's first question comes later than this).
FALLBACK_SECONDS = 3.0


def _warm(index: Index) -> None:
    """:meth:`Index.warm_up`, a failure logged (the first call that needs it reports it)."""
    try:
        index.warm_up()
    # The thread has no caller to raise to: log it where the user looks (stderr).
    except Exception as e:
        logger.warning("warm-up failed (the first call that needs it will retry): %s", e)


class Readiness:
    """Begins, once, the warm-up and then (with ``watch``) the watcher of ``index``:
    at once, or (``deferred``) when the client listed the tools, else after ``fallback``
    seconds."""

    def __init__(
        self, index: Index, *, watch: bool, deferred: bool, fallback: float = FALLBACK_SECONDS
    ) -> None:
        self._index = index
        self._fallback = fallback
        self._watch = watch and index.config_error is None
        self.deferred = deferred
        self._guard = threading.Lock()
        self._begun = False
        self._stopped = False
        #: The thread doing it, once begun (tests join it).
        self.thread: threading.Thread | None = None
        #: What hears of each sync the watcher applies (the server's live resources).
        self.on_batch: Callable[[WatchBatch], None] | None = None

    def on_start(self) -> None:
        """The server runs: begin now, or after the fallback delay when deferred."""
        if not self.deferred:
            self.begin()
            return
        timer = threading.Timer(self._fallback, self.begin)
        timer.daemon = True
        timer.start()

    def begin(self) -> None:
        """Start the warm-up, then the watcher (each at most once; never after stop)."""
        with self._guard:
            if self._begun or self._stopped or self._index.config_error is not None:
                return
            self._begun = True
            thread = threading.Thread(target=self._run, name="minirag-ready", daemon=True)
            thread.start()
            self.thread = thread

    def _run(self) -> None:
        _warm(self._index)
        settle()  # what the warm-up loaded stays out of later collections
        with self._guard:
            if self._watch and not self._stopped:
                # RAG_WATCH: follow the files while serving
                self._index.start_watching(self.on_batch)

    def stop(self) -> None:
        """No watcher starts after this (the server is going away)."""
        with self._guard:
            self._stopped = True


class ReadyAfterListing(Middleware):
    """Begin :class:`Readiness` once ``tools/list`` is answered, or at a tool call."""

    def __init__(self, readiness: Readiness) -> None:
        super().__init__()
        self._readiness = readiness

    async def on_list_tools(
        self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]
    ) -> Any:
        """Answer first, then begin: the client is waiting for this answer."""
        listed = await call_next(context)
        self._readiness.begin()
        return listed

    async def on_call_tool(
        self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]
    ) -> Any:
        """A client that calls without listing: the call needs the index anyway."""
        self._readiness.begin()
        return await call_next(context)
