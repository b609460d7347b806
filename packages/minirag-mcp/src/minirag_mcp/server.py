"""Build and run the minirag MCP server over one :class:`minirag_store.Index`.

The Index is created up front because opening it only reads the configuration (cheap,
and never raises: a broken configuration becomes degraded mode). :func:`serve` answers
the client's handshake and ``tools/list`` first, then warms the index up in a background
thread (:meth:`Index.warm_up`: the embedding model, the table, the search snapshot) so the
first query finds everything loaded, and then, unless ``RAG_WATCH=off``, follows the
files (:meth:`Index.start_watching`: a full sync, then the changes as they happen): see
:mod:`minirag_mcp.readiness` for when. A failed warm-up is logged; the first tool call that
needs the failed part reports it.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from fastmcp import FastMCP
from minirag_store import Index

from minirag_mcp import version
from minirag_mcp.auth import HttpSettings, Serving, serving_status
from minirag_mcp.instructions import instructions_for
from minirag_mcp.live import Live
from minirag_mcp.pages import register_pages
from minirag_mcp.prompts import register_prompts
from minirag_mcp.readiness import Readiness, ReadyAfterListing
from minirag_mcp.resources import PAGE_SIZE, Documents, register_resources
from minirag_mcp.tools import register_tools

__all__ = ["create_server", "serve"]

logger = logging.getLogger(__name__)


def create_server(
    index: Index,
    *,
    readiness: Readiness | None = None,
    serving: Serving | None = None,
    http: HttpSettings | None = None,
    greeting: str | None = None,
) -> FastMCP:
    """The FastMCP server exposing minirag's 12 tools over ``index``.

    With a broken configuration the server still builds: ``status`` reports the error
    and every other tool fails with it. ``RAG_INSTRUCTIONS_APPEND`` (read by the config
    loader) is added to the instructions only when the configuration loaded.
    ``readiness``: what loads the index and starts the watcher once the client is served
    (:mod:`minirag_mcp.readiness`); without it nothing is loaded ahead of a call.
    ``serving``: the transport fields ``status`` adds (none when omitted).
    ``http``: settings whose authentication the server enforces on HTTP (see
    :mod:`minirag_mcp.access`); without authentication configured it enforces none.
    ``greeting``: lines for a person at a terminal, printed to stderr once the server runs
    (with ``readiness``; :mod:`minirag_mcp.terminal`).
    """
    instructions = instructions_for(index)
    if instructions.truncated:
        logger.warning(
            "RAG_INSTRUCTIONS_APPEND was cut to keep the instructions within 2048 characters"
        )
    if index.config_error is not None:
        logger.warning("starting in degraded mode: %s", index.config_error)
    auth = None
    middleware: list[Any] = [] if readiness is None else [ReadyAfterListing(readiness)]
    if http is not None and http.auth_mode != "none":
        from minirag_mcp.access import WriteGuard, auth_provider

        auth = auth_provider(http)
        middleware.append(WriteGuard())
    mcp = FastMCP(
        name="minirag",
        instructions=instructions.text,
        version=version(),
        # Our tool errors carry messages written for the model; unexpected ones are bugs
        # whose message still helps more than a bare "Error calling tool".
        mask_error_details=False,
        lifespan=_starting(readiness, greeting) if readiness is not None else None,
        auth=auth,
        middleware=middleware or None,
        list_page_size=PAGE_SIZE,  # resources/list in pages: any number of documents
    )
    register_tools(mcp, index, instructions_truncated=instructions.truncated, serving=serving or {})
    documents = Documents(index)
    register_resources(mcp, documents)
    register_prompts(mcp)
    mcp.add_middleware(live := Live(documents))  # subscriptions, change notifications
    if readiness is not None:
        readiness.on_batch = live.on_batch
    register_pages(mcp, index)  # read_page_image and the page-image resource
    return mcp


def _starting(readiness: Readiness, greeting: str | None = None) -> Any:
    """A fastmcp lifespan that tells ``readiness`` the server runs (before it reads its
    first message); what it starts runs on in daemon threads that end with the process.
    ``greeting`` goes to stderr right after fastmcp's start line (:class:`_AfterStartLine`)."""

    @asynccontextmanager
    async def lifespan(server: FastMCP) -> AsyncIterator[dict[str, Any]]:
        readiness.on_start()
        if greeting is not None:
            _AfterStartLine.install(greeting)
        yield {}

    return lifespan


class _AfterStartLine(logging.Handler):
    """Prints a greeting once, right after fastmcp logs its start line (which it does after
    the lifespan starts): the last handler of fastmcp's logger, so its own handler has
    printed the line already. When fastmcp logs nothing at INFO (its log level, or its
    logging turned off), there is no line to follow: the greeting is printed at once."""

    #: fastmcp's start line (server/mixins/transport.py), logged once per run.
    START = "Starting MCP server"

    def __init__(self, greeting: str) -> None:
        super().__init__(level=logging.INFO)
        self._greeting: str | None = greeting
        self._lock_said = threading.Lock()

    @classmethod
    def install(cls, greeting: str) -> None:
        """Print ``greeting`` after the start line (at once when none will be logged)."""
        handler = cls(greeting)
        logger = logging.getLogger("fastmcp")
        if not (logger.handlers and logger.isEnabledFor(logging.INFO)):
            handler.say()
            return
        logger.addHandler(handler)

    def emit(self, record: logging.LogRecord) -> None:
        if str(record.msg).startswith(self.START):
            self.say()

    def say(self) -> None:
        with self._lock_said:
            text, self._greeting = self._greeting, None
        if text is not None:
            logging.getLogger("fastmcp").removeHandler(self)
            print(text, file=sys.stderr, flush=True)


def serve(index: Index, http: HttpSettings | None = None, *, greeting: str | None = None) -> None:
    """Serve ``index`` until the client goes away, then stop background syncs.

    On stdio (what desktop clients launch) without ``http``; otherwise Streamable HTTP
    on ``http.host:http.port`` with its authentication and the web page at ``/ui/``
    (:mod:`minirag_mcp.webui`), and fastmcp's Host/Origin guard on every request (a
    foreign Host gets 421, a present foreign Origin 403), widened by
    ``RAG_HTTP_ALLOWED_HOSTS`` / ``RAG_HTTP_ALLOWED_ORIGINS``. No banner: on stdio,
    stdout carries protocol messages only, and logs go to stderr; ``greeting`` (stdio
    started at a terminal) too.
    """
    from minirag_store.peer import start_endpoint
    from minirag_store.process import settle

    serving = serving_status(http)
    watch = index.config_error is None and index.config.watch != "off"
    readiness = Readiness(index, watch=watch, deferred=http is None)
    server = create_server(
        index, readiness=readiness, serving=serving, http=http, greeting=greeting
    )
    # The CLI's queries on this index are answered here, warm (minirag_store.peer).
    endpoint = start_endpoint(index)
    settle()  # the server's own modules stay out of the collections of its first seconds

    def stop() -> None:
        readiness.stop()
        if endpoint is not None:
            endpoint.close()
        index.close()

    try:
        if http is not None:
            server.run(
                "http",
                show_banner=False,
                host=http.host,
                port=http.port,
                # True = strict: check every request, not only loopback-bound servers'.
                # Allowed: loopback names, the bind address, and the lists given.
                host_origin_protection=True,
                allowed_hosts=list(http.allowed_hosts),
                allowed_origins=list(http.allowed_origins),
                middleware=[_web_page(index, http, serving)],
            )
        else:
            _exit_on_interrupt(stop)
            server.run("stdio", show_banner=False)
    finally:
        stop()


def _web_page(index: Index, http: HttpSettings, serving: Serving) -> Any:
    """The web page at /ui/ (:mod:`minirag_mcp.webui`)."""
    from minirag_mcp.webui import web_ui

    return web_ui(index, http, serving)


def _exit_on_interrupt(stop_serving: Callable[[], None]) -> None:
    """Make Ctrl-C (and a client's SIGTERM) stop a stdio server at once, cleanly.

    The stdio transport reads stdin in a worker thread that no cancellation can interrupt,
    so after SIGINT the process would linger until the next input line or EOF. A person
    who started the server by hand to check it (see Troubleshooting) expects Ctrl-C to
    end it: stop any sync cleanly, fold in pending writes, then leave without waiting for
    that thread. Clients that stop servers with SIGTERM get the same clean stop instead
    of Python's default immediate exit.
    """

    def stop(signum: int, frame: object) -> None:
        logger.warning("%s: stopping", signal.Signals(signum).name)
        stop_serving()
        sys.stderr.flush()
        os._exit(128 + signum)

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
