"""The Starlette app: routes, sign-in, and the headers that make every page inert.

:func:`create_app` builds the whole site over one :class:`minirag_store.Index`;
``minirag-cli ui`` serves it alone on loopback (:mod:`minirag_web.local`) and the MCP
server mounts it at ``/ui`` of its HTTP app, behind its Host/Origin guard.

Every response carries a Content-Security-Policy that allows scripts, styles, images and
connections from this server only and no inline script at all (the one script is the
vendored ``static/app.js``), forbids framing, and sends no Referer elsewhere. HTML pages
are not cached (they hold document text). Every view goes through :func:`_view`: no
session, no page (sign in first); a :class:`PageError` or an error the store raised on
purpose becomes a page with its message; anything else is logged and answered with a
plain message, never a trace.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from minirag_store import Index
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from minirag_web import syncs, views
from minirag_web.access import COOKIE, Gate, Session
from minirag_web.joblog import SyncLog
from minirag_web.site import PageError, Site, base, url

__all__ = ["CSP", "create_app"]

log = logging.getLogger(__name__)

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    # same-origin: POSTs keep their Origin header (no-referrer would send "null")
    (b"referrer-policy", b"same-origin"),
    (b"cross-origin-opener-policy", b"same-origin"),
]

View = Callable[[Request, Site, Session], Awaitable[Response]]


_ICON = Path(__file__).resolve().parent / "static" / "favicon.svg"


async def _favicon(request: Request) -> Response:
    """The icon a browser asks for at ``/favicon.ico`` before reading the page's own
    ``<link rel="icon">`` (a 404 otherwise fills the server's log): the same SVG."""
    return FileResponse(
        _ICON, media_type="image/svg+xml", headers={"Cache-Control": "max-age=86400"}
    )


def create_app(
    index: Index,
    gate: Gate,
    *,
    allowed_hosts: Iterable[str] | None = None,
    serving: Mapping[str, Any] | None = None,
    sync_log: SyncLog | None = None,
) -> ASGIApp:
    """The web page over ``index``, signed into through ``gate``.

    ``allowed_hosts``: Host names (any port) the app accepts, checked here (``None``: the
    server in front checks them); ``serving``: status fields of that server;
    ``sync_log``: where syncs' failures are noted (a watcher can feed the same one).
    """
    site = Site(
        index,
        gate,
        allowed_hosts=None
        if allowed_hosts is None
        else frozenset(h.lower() for h in allowed_hosts),
        serving=dict(serving or {}),
        syncs=sync_log or SyncLog(),
    )
    static = StaticFiles(directory=Path(__file__).resolve().parent / "static")
    app = Starlette(
        routes=[
            Route("/", _view(views.search), name="search"),
            Route("/read", _view(views.read), name="read"),
            Route("/page.png", _view(views.page_png), name="page_png"),
            Route("/files", _view(views.files), name="files"),
            Route("/health", _view(views.health), name="health"),
            Route("/sync", _view(syncs.sync), methods=["POST"], name="sync"),
            Route("/remove", _view(syncs.remove), methods=["POST"], name="remove"),
            Route("/sync/{job}/events", _view(syncs.events), name="events"),
            Route("/signin", _signin, methods=["GET", "POST"], name="signin"),
            Route("/login", _login, name="login"),
            Route("/signout", _signout, methods=["POST"], name="signout"),
            Route("/favicon.ico", _favicon, name="favicon"),
            Mount("/static", static, name="static"),
        ],
        exception_handlers={HTTPException: _http_error, Exception: _crash},
    )
    app.state.site = site
    return Headers(app, site.allowed_hosts)


class Headers:
    """ASGI middleware: refuse a Host not allowed (421, DNS rebinding) and add the
    security headers to every response (a plain ASGI wrapper: streams stay streams)."""

    def __init__(self, app: Starlette, allowed_hosts: frozenset[str] | None) -> None:
        self.app = app
        self.state = app.state
        self._hosts = allowed_hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self._hosts is not None and _host(scope) not in self._hosts:
            await _refuse_host(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers.extend(_HEADERS)
                if not any(k == b"cache-control" for k, _ in headers):
                    headers.append((b"cache-control", b"no-store"))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)


def _host(scope: Scope) -> str:
    for key, value in scope.get("headers", []):
        if key == b"host":
            host = value.decode("latin-1").lower()
            return host.rsplit(":", 1)[0] if not host.endswith("]") else host
    return ""


async def _refuse_host(scope: Scope, receive: Receive, send: Send) -> None:
    response = Response("Misdirected request: this server answers on loopback only.", 421)
    await response(scope, receive, send)


def _view(handler: View) -> Callable[[Request], Awaitable[Response]]:
    """``handler`` behind the sign-in: with a session it runs (its PageError becomes the
    error page); without one, the open gate signs the visitor in, the others send them
    to the sign-in."""

    async def endpoint(request: Request) -> Response:
        site: Site = request.app.state.site
        session = site.session(request)
        new_sid = None
        if session is None:
            if site.gate.kind != "open":
                return _to_signin(request)
            new_sid, session = site.sessions.create("full")
        try:
            response = await handler(request, site, session)
        except PageError as problem:
            response = site.problem(request, problem)
        if new_sid is not None:
            site.sign_in_cookie(response, request, new_sid)
        return response

    return endpoint


def _to_signin(request: Request) -> Response:
    here = request.url.path[len(base(request)) :] or "/"
    if request.url.query:
        here += f"?{request.url.query}"
    if request.method != "GET":  # a form post without a session: nothing to come back to
        here = "/"
    return RedirectResponse(url(request, "/signin", next=here), status_code=303)


def _next(raw: str | None) -> str:
    """Where to go after signing in: a path of this app only (never another site)."""
    if not raw or not raw.startswith("/") or raw.startswith("//") or "\\" in raw:
        return "/"
    return raw


async def _signin(request: Request) -> Response:
    """The sign-in page; a POSTed token that the gate accepts starts a session."""
    site: Site = request.app.state.site
    target = _next(request.query_params.get("next"))
    try:
        if request.method == "GET":
            return site.page(request, "signin.html", {"title": "Sign in", "next": target})
        form = await site.form(request, None)
        role = (
            await site.gate.role_for(form.get("token", "")) if site.gate.kind == "token" else None
        )
        if role is None:
            raise PageError(401, "That token is not one this server accepts.")
    except PageError as problem:
        context = {"title": "Sign in", "next": target, "refused": problem.message}
        return site.page(request, "signin.html", context, status=problem.status)
    return _signed_in(request, site, role, _next(form.get("next")))


async def _login(request: Request) -> Response:
    """``minirag-cli ui``'s link: trade the one-time secret for a session, then go to a
    clean URL (the secret leaves the address bar and the history)."""
    site: Site = request.app.state.site
    secret = request.query_params.get("secret", "")
    role = await site.gate.role_for(secret) if site.gate.kind == "secret" and secret else None
    if role is None:
        context = {"title": "Sign in", "used": True, "next": "/"}
        return site.page(request, "signin.html", context, status=401)
    return _signed_in(request, site, role, "/")


def _signed_in(request: Request, site: Site, role: Any, target: str) -> Response:
    old = request.cookies.get(COOKIE)
    site.sessions.drop(old)  # a fresh id at every sign-in: no fixation
    sid, _ = site.sessions.create(role)
    response = RedirectResponse(url(request, target), status_code=303)
    site.sign_in_cookie(response, request, sid)
    return response


async def _signout(request: Request) -> Response:
    site: Site = request.app.state.site
    session = site.session(request)
    try:
        if session is not None:
            await site.form(request, session)
    except PageError as problem:
        return site.problem(request, problem)
    site.sessions.drop(request.cookies.get(COOKIE))
    response = RedirectResponse(url(request, "/signin"), status_code=303)
    response.delete_cookie(COOKIE, path=base(request) + "/", httponly=True, samesite="strict")
    return response


async def _http_error(request: Request, exc: Exception) -> Response:
    site: Site = request.app.state.site
    status = getattr(exc, "status_code", 500)
    message = {404: "There is no such page here.", 405: "That page does not take this method."}
    text = message.get(status, "That request could not be served.")
    return site.problem(request, PageError(status, text))


async def _crash(request: Request, exc: Exception) -> Response:
    log.exception("the page failed on %s", request.url.path)
    site: Site = request.app.state.site
    problem = PageError(500, "Something went wrong on the server; its log says what.")
    try:
        return site.problem(request, problem)
    except Exception:  # the error page itself failed: plain text, still no trace
        return Response(problem.message, status_code=500, media_type="text/plain")
