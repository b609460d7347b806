"""The web page (:mod:`minirag_web`) on the team server, at ``/ui/``, behind MCP's tokens.

The page is one more ASGI app inside the server's HTTP app, reached through
:class:`MountUi`, an ASGI middleware given to fastmcp's public ``middleware=``: fastmcp's
Host/Origin guard runs before it, so the page answers only to the Host names and Origins
the MCP endpoint answers to. The MCP endpoint's bearer-token check does not cover it (a
browser sends no Authorization header): the page's sign-in takes the same credentials
and asks the same verifier fastmcp uses (:func:`minirag_mcp.access.auth_provider`), so a
read token gets a read-only page and nothing the MCP endpoint would refuse is served
without a sign-in. Without authentication (loopback only, as MCP itself) everyone is full.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from minirag_store import Index
from minirag_web.access import Gate, OpenGate, Role, TokenGate
from minirag_web.app import create_app
from starlette.middleware import Middleware
from starlette.responses import RedirectResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from minirag_mcp.auth import WRITE_SCOPE, HttpSettings

if TYPE_CHECKING:
    pass

__all__ = ["PREFIX", "MountUi", "web_ui"]

#: Where the page lives on the team server.
PREFIX = "/ui"


class MountUi:
    """ASGI middleware: requests under :data:`PREFIX` go to the page (mounted there, as
    Starlette's Mount would), everything else to the MCP app it wraps."""

    def __init__(self, app: ASGIApp, ui: ASGIApp, prefix: str = PREFIX) -> None:
        self.app = app
        self.ui = ui
        self.prefix = prefix

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if path in (self.prefix, "/"):
            await RedirectResponse(f"{self.prefix}/")(scope, receive, send)
        elif path.startswith(self.prefix + "/"):
            root = scope.get("root_path", "")
            await self.ui({**scope, "root_path": root + self.prefix}, receive, send)
        else:
            await self.app(scope, receive, send)


def _gate(http: HttpSettings | None) -> Gate:
    """The sign-in the MCP settings call for: their own verifier, or none at all."""
    if http is None or http.auth_mode == "none":
        return OpenGate()
    from minirag_mcp.access import auth_provider

    provider = auth_provider(http)
    assert provider is not None  # auth_mode is not "none"

    async def verify(token: str) -> Role | None:
        access = await provider.verify_token(token)
        if access is None:
            return None
        return "full" if WRITE_SCOPE in access.scopes else "read"

    return TokenGate(verify)


def web_ui(index: Index, http: HttpSettings | None, serving: Mapping[str, Any]) -> Middleware:
    """The middleware that serves the page beside MCP."""
    ui = create_app(index, _gate(http), serving=serving)
    return Middleware(MountUi, ui=ui)
