"""The HTTP server's settings: bind address, who may call it, which Host/Origin it accepts.

The one place the ``RAG_HTTP_*`` variables are read (from the mapping the caller passes)
and checked. A bad setting raises :class:`HttpSettingsError` with a message that names the
variable and says what to do; no message ever holds a token. Cheap to import (no
fastmcp): ``minirag-mcp status`` uses it. What enforces these settings at run time lives
in :mod:`minirag_mcp.access`.

- ``RAG_HTTP_TOKENS``: comma-separated bearer tokens with full access.
- ``RAG_HTTP_READ_TOKENS``: bearer tokens that may call only the read-only tools.
- ``RAG_HTTP_JWKS_URI`` + ``RAG_HTTP_ISSUER`` + ``RAG_HTTP_AUDIENCE``: JWTs from an identity
  provider; any valid one may read, the scope ``minirag:write`` also grants the writers.
- ``RAG_HTTP_ALLOWED_HOSTS`` / ``RAG_HTTP_ALLOWED_ORIGINS``: Host names and browser Origins
  accepted beyond loopback and the bind address.

A bind address other than loopback needs one of the authentication settings.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

from minirag_store.errors import ConfigError

# typing_extensions, not typing, as the store's results: pydantic rejects typing.TypedDict
# on Python < 3.12 wherever one reaches a tool's output schema.
from typing_extensions import TypedDict

from minirag_mcp.variables import HTTP_SETTINGS

__all__ = [
    "READ_SCOPE",
    "WRITE_SCOPE",
    "HttpSettings",
    "HttpSettingsError",
    "Serving",
    "load_http_settings",
    "serving_status",
]

#: The scope a JWT needs for the writer tools; full-access tokens carry it too.
WRITE_SCOPE = "minirag:write"
#: What every authenticated caller holds (read tokens carry only this).
READ_SCOPE = "minirag:read"

AuthMode = Literal["none", "tokens", "jwt", "tokens+jwt"]

#: Every variable this module reads, in the order the README lists them (declared, with
#: what each means, in :mod:`minirag_mcp.variables`).
VARIABLES = tuple(setting.name for setting in HTTP_SETTINGS)

# Visible ASCII: what an Authorization header carries unquoted (RFC 6750's b64token and
# the random strings people generate); no comma, since commas separate tokens.
_TOKEN = re.compile(r"[\x21-\x2b\x2d-\x7e]+")
#: A shorter secret can be guessed; 16 characters of token_urlsafe is 96 bits.
MIN_TOKEN_LENGTH = 16
_GENERATE = "python -c 'import secrets; print(secrets.token_urlsafe(32))'"
_HOW_TO_AUTH = (
    "set RAG_HTTP_TOKENS (comma-separated bearer tokens with full access) and/or "
    "RAG_HTTP_READ_TOKENS (read-only), or RAG_HTTP_JWKS_URI with RAG_HTTP_ISSUER and "
    "RAG_HTTP_AUDIENCE for JWTs from your identity provider"
)


class HttpSettingsError(ConfigError):
    """A ``RAG_HTTP_*`` setting or the bind address is unusable; the server does not start."""


@dataclass(frozen=True, repr=False)
class HttpSettings:
    """What ``minirag-mcp --transport http`` serves with; tokens are never in its repr."""

    host: str
    port: int
    tokens: tuple[str, ...] = ()
    read_tokens: tuple[str, ...] = ()
    jwks_uri: str | None = None
    issuer: str | None = None
    audience: str | None = None
    allowed_hosts: tuple[str, ...] = ()
    allowed_origins: tuple[str, ...] = ()

    @property
    def auth_mode(self) -> AuthMode:
        """``none``, ``tokens``, ``jwt`` or ``tokens+jwt``: what a caller must present."""
        tokens = bool(self.tokens or self.read_tokens)
        if tokens and self.jwks_uri:
            return "tokens+jwt"
        if tokens:
            return "tokens"
        return "jwt" if self.jwks_uri else "none"

    @property
    def bind_address(self) -> str:
        """``host:port`` as a URL would write it (IPv6 in brackets)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"

    def __repr__(self) -> str:
        return (
            f"HttpSettings(bind={self.bind_address}, auth={self.auth_mode}, "
            f"tokens={len(self.tokens)}, read_tokens={len(self.read_tokens)})"
        )


class Serving(TypedDict, total=False):
    """The transport fields ``status`` shows (never a secret)."""

    transport: Literal["stdio", "http"]
    bindAddress: str  # http only: host:port
    authMode: AuthMode  # http only
    httpConfigError: str  # ``minirag-mcp status`` only: why an http server would not start


def serving_status(http: HttpSettings | None) -> Serving:
    """The ``status`` fields of a server on stdio (None) or on HTTP with ``http``."""
    if http is None:
        return {"transport": "stdio"}
    return {
        "transport": "http",
        "bindAddress": http.bind_address,
        "authMode": http.auth_mode,
    }


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` serves this machine only (``localhost``, 127.0.0.0/8, ::1)."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip().strip("[]")).is_loopback
    except ValueError:  # a host name: it may resolve to anything
        return False


def load_http_settings(env: Mapping[str, str], *, host: str, port: int) -> HttpSettings:
    """Read and check the ``RAG_HTTP_*`` variables of ``env`` for a server on ``host:port``.

    Raises :class:`HttpSettingsError` for a bad value, for a JWT setting without its
    partners, and for a non-loopback ``host`` with no authentication configured.
    """
    if not host.strip():
        raise HttpSettingsError("--host is empty: give an address to bind, e.g. 127.0.0.1")
    if not 0 <= port <= 65535:
        raise HttpSettingsError(f"--port {port} is not a TCP port (0-65535)")
    tokens = _tokens(env, "RAG_HTTP_TOKENS")
    read_tokens = _tokens(env, "RAG_HTTP_READ_TOKENS")
    for position, token in enumerate(read_tokens, 1):
        if token in tokens:
            raise HttpSettingsError(
                f"RAG_HTTP_READ_TOKENS entry {position} is also in RAG_HTTP_TOKENS: a token "
                "is either full-access or read-only; remove it from one of the two"
            )
    jwks_uri, issuer, audience = _jwt(env)
    settings = HttpSettings(
        host=host.strip(),
        port=port,
        # A repeated token is the same credential: keep one.
        tokens=tuple(dict.fromkeys(tokens)),
        read_tokens=tuple(dict.fromkeys(read_tokens)),
        jwks_uri=jwks_uri,
        issuer=issuer,
        audience=audience,
        allowed_hosts=_list(env, "RAG_HTTP_ALLOWED_HOSTS", _check_host),
        allowed_origins=_list(env, "RAG_HTTP_ALLOWED_ORIGINS", _check_origin),
    )
    if settings.auth_mode == "none" and not is_loopback(settings.host):
        raise HttpSettingsError(
            f"refusing to serve on {settings.bind_address} without authentication: anyone "
            f"who can reach it could read and delete the index. To share it, {_HOW_TO_AUTH}. "
            "To serve this machine only, bind to 127.0.0.1 (the default)."
        )
    return settings


def _raw(env: Mapping[str, str], name: str) -> str | None:
    """The variable's value, None when unset; set but blank is an error (a template
    whose secret went missing should not quietly start a server without it)."""
    value = env.get(name)
    if value is None:
        return None
    if not value.strip():
        raise HttpSettingsError(f"{name} is set but empty: give a value, or unset it")
    return value.strip()


def _entries(env: Mapping[str, str], name: str) -> list[str]:
    """The comma-separated entries of ``name``; an empty entry is an error."""
    raw = _raw(env, name)
    if raw is None:
        return []
    entries = [part.strip() for part in raw.split(",")]
    for position, entry in enumerate(entries, 1):
        if not entry:
            raise HttpSettingsError(
                f"{name} entry {position} is empty (a stray comma?): separate entries with "
                "single commas"
            )
    return entries


def _tokens(env: Mapping[str, str], name: str) -> tuple[str, ...]:
    """Bearer tokens of ``name``, checked; messages give positions, never the tokens."""
    tokens = _entries(env, name)
    for position, token in enumerate(tokens, 1):
        if not _TOKEN.fullmatch(token):
            raise HttpSettingsError(
                f"{name} entry {position} has a character a bearer token cannot carry "
                f"(spaces, quotes or non-ASCII): generate tokens with {_GENERATE}"
            )
        if len(token) < MIN_TOKEN_LENGTH:
            raise HttpSettingsError(
                f"{name} entry {position} is shorter than {MIN_TOKEN_LENGTH} characters, "
                f"too easy to guess: generate tokens with {_GENERATE}"
            )
    return tuple(tokens)


def _jwt(env: Mapping[str, str]) -> tuple[str | None, str | None, str | None]:
    """(JWKS URI, issuer, audience): all three or none."""
    jwks_uri = _raw(env, "RAG_HTTP_JWKS_URI")
    issuer = _raw(env, "RAG_HTTP_ISSUER")
    audience = _raw(env, "RAG_HTTP_AUDIENCE")
    if jwks_uri is None:
        if issuer is not None or audience is not None:
            given = "RAG_HTTP_ISSUER" if issuer is not None else "RAG_HTTP_AUDIENCE"
            raise HttpSettingsError(
                f"{given} is set without RAG_HTTP_JWKS_URI: JWTs are checked against the "
                "identity provider's published keys; set RAG_HTTP_JWKS_URI to its JWKS URL "
                "(e.g. https://login.example.com/.well-known/jwks.json)"
            )
        return None, None, None
    parts = urlsplit(jwks_uri)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise HttpSettingsError(
            "RAG_HTTP_JWKS_URI is not an http(s) URL: give the identity provider's JWKS URL "
            "(e.g. https://login.example.com/.well-known/jwks.json)"
        )
    if parts.scheme == "http" and not is_loopback(parts.hostname):
        raise HttpSettingsError(
            "RAG_HTTP_JWKS_URI uses plain http to another machine: anyone on the way could "
            "swap the keys and sign their own tokens; use its https URL"
        )
    for name, value, example in (
        ("RAG_HTTP_ISSUER", issuer, "https://login.example.com/"),
        ("RAG_HTTP_AUDIENCE", audience, "the id your identity provider gave this server"),
    ):
        if value is None:
            raise HttpSettingsError(
                f"RAG_HTTP_JWKS_URI is set without {name}: without it a token your identity "
                f"provider issued for any other service would be accepted; set {name} "
                f"({example}), as the provider writes it in its tokens"
            )
    return jwks_uri, issuer, audience


def _list(
    env: Mapping[str, str], name: str, check: Callable[[str, int, str], str]
) -> tuple[str, ...]:
    """The entries of ``name``, each passed through ``check(name, position, entry)``."""
    return tuple(check(name, i, entry) for i, entry in enumerate(_entries(env, name), 1))


def _check_host(name: str, position: int, entry: str) -> str:
    """A Host header pattern: a name or address, optionally ``*``-globbed (``*`` = any)."""
    if "/" in entry or "@" in entry or " " in entry:
        raise HttpSettingsError(
            f"{name} entry {position} ({entry!r}) is not a host name: write names or "
            "addresses as clients type them, e.g. rag.example.com,10.0.0.5 (no scheme or path)"
        )
    return entry


def _check_origin(name: str, position: int, entry: str) -> str:
    """A browser Origin: ``scheme://host[:port]``, or ``*``."""
    if entry == "*":
        return entry
    parts = urlsplit(entry)
    if not parts.scheme or not parts.netloc or parts.path not in ("", "/") or parts.query:
        raise HttpSettingsError(
            f"{name} entry {position} ({entry!r}) is not an origin: write "
            "scheme://host[:port], e.g. https://chat.example.com"
        )
    return entry
