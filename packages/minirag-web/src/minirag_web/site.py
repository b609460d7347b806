"""What every view shares: the Index, the sessions, the templates, and the request checks.

One :class:`Site` per app, kept on ``app.state.site``. Views call the Index only through
:meth:`Site.call` (a worker thread: every Index method blocks), never shape or check
paths and page numbers themselves: the Index checks them exactly as it does for the MCP
tools and the CLI, and its message is what the page shows.
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import parse_qsl, urlencode

from jinja2 import Environment, FileSystemLoader
from minirag_store import Index
from minirag_store.errors import (
    ConfigError,
    InvalidArgumentError,
    MiniragError,
    NotFoundError,
    PathOutsideRootsError,
)
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse

from minirag_web.access import COOKIE, SESSION_SECONDS, Gate, Session, Sessions, same_origin
from minirag_web.joblog import SyncLog

__all__ = ["PageError", "Site"]

log = logging.getLogger(__name__)
T = TypeVar("T")

_HERE = Path(__file__).resolve().parent
#: The largest form body read (a token, a job id and a CSRF token fit many times over).
MAX_FORM_BYTES = 16 * 1024


class PageError(Exception):
    """A request the page answers with a message (and an HTTP status), never a trace."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _status_of(error: MiniragError) -> int:
    if isinstance(error, NotFoundError):
        return 404
    if isinstance(error, PathOutsideRootsError):
        return 403
    if isinstance(error, InvalidArgumentError):
        return 400
    if isinstance(error, ConfigError):
        return 503
    return 500  # the store's own failures: their messages are written for the reader


@dataclass
class Site:
    """The app's shared state; ``allowed_hosts``: Host names the app checks itself (the
    loopback names for ``minirag-cli ui``), or None where the server in front checks them
    (fastmcp's Host/Origin guard on the team server); ``serving``: the transport fields
    the health view adds to the status (the MCP server's bind address, auth mode)."""

    index: Index
    gate: Gate
    allowed_hosts: frozenset[str] | None = None
    serving: Mapping[str, Any] = field(default_factory=dict)  # status fields of the server
    sessions: Sessions = field(default_factory=Sessions)
    syncs: SyncLog = field(default_factory=SyncLog)
    env: Environment = field(init=False)

    def __post_init__(self) -> None:
        self.env = Environment(
            loader=FileSystemLoader(_HERE / "templates"),
            autoescape=True,  # every template, whatever its name
            trim_blocks=True,
            lstrip_blocks=True,
        )

    # ----------------------------------------------------------------- the store
    async def call(self, work: Callable[[], T]) -> T:
        """Run one blocking Index call in a worker thread; its MiniragError becomes a
        :class:`PageError` carrying the store's message."""
        try:
            return await run_in_threadpool(work)
        except MiniragError as e:
            raise PageError(_status_of(e), str(e)) from e

    # ------------------------------------------------------------------ sessions
    def session(self, request: Request) -> Session | None:
        """The request's session, or None (not signed in)."""
        return self.sessions.get(request.cookies.get(COOKIE))

    def sign_in_cookie(self, response: Any, request: Request, sid: str) -> None:
        """Set the session cookie: HttpOnly, SameSite=Strict, this app's path only, Secure
        over https; kept as long as the session lasts unused (a browser restarted at lunch
        is still signed in), not only for the browser's session."""
        response.set_cookie(
            COOKIE,
            sid,
            max_age=int(SESSION_SECONDS),
            httponly=True,
            samesite="strict",
            secure=request.url.scheme == "https",
            path=base(request) + "/",
        )

    async def form(self, request: Request, session: Session | None) -> dict[str, str]:
        """A POSTed form, once it proved it comes from this page: same origin, and (for a
        signed-in session) its CSRF token. Refused with 403 otherwise."""
        if not same_origin(request):
            raise PageError(403, "This form was sent from another site; reload the page and retry.")
        body = await request.body()
        if len(body) > MAX_FORM_BYTES:
            raise PageError(413, "That form is far larger than any of this page's forms.")
        fields = dict(parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True))
        if session is not None and not hmac.compare_digest(
            fields.get("csrf", "").encode(), session.csrf.encode()
        ):
            raise PageError(403, "This form has expired (the page was old); reload it and retry.")
        return fields

    # ------------------------------------------------------------------- pages
    def page(
        self,
        request: Request,
        template: str,
        context: Mapping[str, Any] | None = None,
        status: int = 200,
        session: Session | None = None,
    ) -> HTMLResponse:
        """Render ``template`` with the common context (links, the session's CSRF token)."""
        session = session if session is not None else self.session(request)
        html = self.env.get_template(template).render(
            {
                "url": lambda path, **params: url(request, path, **params),
                "session": session,
                "gate": self.gate.kind,
                "path": request.url.path[len(base(request)) :] or "/",
                **(context or {}),
            }
        )
        return HTMLResponse(html, status_code=status)

    def problem(self, request: Request, problem: PageError) -> HTMLResponse:
        """The error page: the message, and where to go from here."""
        return self.page(request, "error.html", {"message": problem.message}, problem.status)


def base(request: Request) -> str:
    """Where this app is mounted (``/ui`` on the team server, ``""`` alone)."""
    return str(request.scope.get("root_path", "")).rstrip("/")


def url(request: Request, path: str, **params: Any) -> str:
    """A link to ``path`` of this app with ``params`` (None and "" left out)."""
    kept = {k: v for k, v in params.items() if v is not None and v != ""}
    query = f"?{urlencode(kept)}" if kept else ""
    return f"{base(request)}{path}{query}"


def whole(request: Request, name: str, default: int | None = None) -> int | None:
    """Query parameter ``name`` as a whole number (bounds are the Index's to check)."""
    raw = request.query_params.get(name, "").strip()
    if not raw:
        return default
    if not raw.lstrip("-").isdigit() or len(raw) > 9:
        raise PageError(400, f"{name} must be a whole number, got {raw[:40]!r}")
    return int(raw)


def query_string(params: Mapping[str, Any]) -> str:
    """``params`` as a query string (for links built outside a request)."""
    return urlencode({k: v for k, v in params.items() if v is not None and v != ""})
