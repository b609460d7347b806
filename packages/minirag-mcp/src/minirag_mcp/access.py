"""Enforcing :class:`~minirag_mcp.auth.HttpSettings` with fastmcp's public auth API.

- :func:`auth_provider`: what fastmcp checks on every HTTP request before any MCP message
  is read (no or a wrong credential: 401). Static tokens go through
  :class:`TokenListVerifier`, JWTs through fastmcp's own ``JWTVerifier``; both at once
  through fastmcp's ``MultiAuth``.
- :class:`WriteGuard`: a fastmcp middleware that refuses a writer tool (any tool not
  annotated read-only) to a caller without the ``minirag:write`` scope, with a tool error
  saying so, before the tool runs. The writers stay listed: a model that tries one learns
  why it may not, instead of finding the tool missing.

Imported only when serving HTTP with authentication (fastmcp's auth pulls in more).
"""

from __future__ import annotations

import hashlib
import hmac
from typing import TYPE_CHECKING, Any

from fastmcp.exceptions import ToolError
from fastmcp.server.auth import AccessToken, AuthProvider, MultiAuth, TokenVerifier
from fastmcp.server.dependencies import get_access_token
from fastmcp.server.middleware import Middleware

from minirag_mcp.auth import READ_SCOPE, WRITE_SCOPE, HttpSettings

if TYPE_CHECKING:
    from fastmcp.server.middleware import CallNext, MiddlewareContext
    from fastmcp.tools import ToolResult
    from mcp.types import CallToolRequestParams

__all__ = ["TokenListVerifier", "WriteGuard", "auth_provider"]


def auth_provider(settings: HttpSettings) -> AuthProvider | None:
    """fastmcp's auth for ``settings``; None when no authentication is configured."""
    verifiers: dict[str, TokenVerifier] = {}
    if settings.tokens or settings.read_tokens:
        verifiers["tokens"] = TokenListVerifier(settings.tokens, settings.read_tokens)
    if settings.jwks_uri:
        from fastmcp.server.auth import JWTVerifier

        verifiers["jwt"] = JWTVerifier(
            jwks_uri=settings.jwks_uri, issuer=settings.issuer, audience=settings.audience
        )
    if len(verifiers) > 1:
        return MultiAuth(verifiers=verifiers)
    return next(iter(verifiers.values()), None)


class TokenListVerifier(TokenVerifier):
    """Static bearer tokens: full-access ones carry both scopes, read tokens only read.

    The presented token is hashed and compared with every configured token's hash by
    ``hmac.compare_digest``, all of them every time: neither an early match nor the
    token's length shows in the time taken. Only the hashes are kept.
    """

    def __init__(self, tokens: tuple[str, ...], read_tokens: tuple[str, ...]) -> None:
        super().__init__()
        self._known: list[tuple[bytes, str, list[str]]] = [
            (_digest(token), f"token-{i}", [READ_SCOPE, WRITE_SCOPE])
            for i, token in enumerate(tokens, 1)
        ] + [
            (_digest(token), f"read-token-{i}", [READ_SCOPE])
            for i, token in enumerate(read_tokens, 1)
        ]

    async def verify_token(self, token: str) -> AccessToken | None:
        """The caller's access if ``token`` is one of ours, else None (fastmcp: 401)."""
        presented = _digest(token)
        found: tuple[str, list[str]] | None = None
        for digest, client_id, scopes in self._known:
            if hmac.compare_digest(presented, digest) and found is None:
                found = (client_id, scopes)
        if found is None:
            return None
        return AccessToken(token=token, client_id=found[0], scopes=list(found[1]))


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).digest()


class WriteGuard(Middleware):
    """Refuse writer tools to callers without ``minirag:write``; the tool never runs.

    A tool counts as a reader only when its annotations say ``readOnlyHint: true`` (the
    six read tools); every other tool, a future one included, needs the write scope.
    """

    async def on_call_tool(
        self,
        context: MiddlewareContext[CallToolRequestParams],
        call_next: CallNext[CallToolRequestParams, ToolResult],
    ) -> ToolResult:
        """Pass readers and authorised writers on; refuse the rest with a tool error."""
        name = context.message.name
        if context.fastmcp_context is None:  # never on fastmcp 4.2; refuse rather than guess
            tool = None
        else:
            tool = await context.fastmcp_context.fastmcp.get_tool(name)
            if tool is None:  # unknown: fastmcp answers so, and nothing runs
                return await call_next(context)
        if (tool is None or not _read_only(tool)) and not _may_write():
            raise ToolError(
                f"{name} changes the index, and this server gave your credential read "
                f"access only. Ask its operator for a full-access token (RAG_HTTP_TOKENS) "
                f"or a JWT with the scope {WRITE_SCOPE}; the read-only tools still work."
            )
        return await call_next(context)


def _read_only(tool: Any) -> bool:
    annotations = tool.annotations
    return annotations is not None and annotations.read_only_hint is True


def _may_write() -> bool:
    token = get_access_token()
    return token is not None and WRITE_SCOPE in token.scopes
