"""Who may use the page, and the checks every request goes through.

A person holds a *session*: a random id in an HttpOnly, SameSite=Strict cookie, mapped
here (in memory) to a role and a CSRF token. How one is obtained is the :class:`Gate`:

- :class:`OneTimeSecret` (``minirag-cli ui``): the URL the command prints carries a secret
  that is exchanged once for a full-access session, as Jupyter does; the browser is then
  sent to a clean URL, so the secret is in no history entry, bookmark or Referer.
- :class:`TokenGate` (the team server): a sign-in form takes one of the server's MCP
  credentials; whatever the MCP endpoint would grant it (full or read) is the role.
- :class:`OpenGate`: a loopback MCP server without authentication, where MCP itself asks
  for none; every visitor is full, as every MCP client is there.

State-changing requests (POST) must come from the page itself: their ``Origin`` (or, when
a browser sends none, ``Referer``) must name the host the request was sent to, and the
form must carry the session's CSRF token. SameSite=Strict alone would stop most
cross-site posts; the two checks also cover a sibling subdomain and old browsers.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

from starlette.requests import Request

__all__ = [
    "COOKIE",
    "SESSION_SECONDS",
    "Gate",
    "OneTimeSecret",
    "OpenGate",
    "Role",
    "Session",
    "Sessions",
    "TokenGate",
    "mint_link",
    "same_origin",
]

Role = Literal["read", "full"]
#: The session cookie's name.
COOKIE = "minirag_session"
#: How long a session lasts without use: a working day, then sign in again.
SESSION_SECONDS = 12 * 3600
#: Sessions kept at most: signing in in a loop cannot grow the server's memory unbounded.
MAX_SESSIONS = 10_000


@dataclass
class Session:
    """One signed-in browser."""

    role: Role
    csrf: str  # the token every form of this session carries
    expires: float  # time.monotonic() after which it is gone

    @property
    def may_write(self) -> bool:
        """Whether it may start or cancel syncs (a full credential signed in)."""
        return self.role == "full"


class Sessions:
    """The live sessions, by id. In memory: a restarted server signs everyone out, and
    the cookie is a bare random id that means nothing to anyone else."""

    def __init__(self, seconds: float = SESSION_SECONDS) -> None:
        self._seconds = seconds
        self._by_id: dict[str, Session] = {}
        self._lock = threading.Lock()

    def create(self, role: Role) -> tuple[str, Session]:
        """A new session with ``role``: its cookie value and the session."""
        sid = secrets.token_urlsafe(32)
        session = Session(role, secrets.token_urlsafe(32), time.monotonic() + self._seconds)
        with self._lock:
            if len(self._by_id) >= MAX_SESSIONS:
                self._prune()
            if len(self._by_id) >= MAX_SESSIONS:  # all live: the oldest goes
                oldest = min(self._by_id, key=lambda k: self._by_id[k].expires)
                del self._by_id[oldest]
            self._by_id[_key(sid)] = session
        return sid, session

    def get(self, sid: str | None) -> Session | None:
        """The session of cookie value ``sid``, extended by its use; None when unknown or
        expired."""
        if not sid:
            return None
        now = time.monotonic()
        with self._lock:
            session = self._by_id.get(_key(sid))
            if session is None:
                return None
            if session.expires < now:
                del self._by_id[_key(sid)]
                return None
            session.expires = now + self._seconds
            return session

    def drop(self, sid: str | None) -> None:
        """Sign the session out."""
        if sid:
            with self._lock:
                self._by_id.pop(_key(sid), None)

    def _prune(self) -> None:
        now = time.monotonic()
        for key in [k for k, s in self._by_id.items() if s.expires < now]:
            del self._by_id[key]


def _key(sid: str) -> str:
    """Sessions are kept by a hash of their id: a look-up's timing says nothing of ids."""
    return hashlib.sha256(sid.encode("utf-8", "surrogateescape")).hexdigest()


class Gate:
    """How a person signs in; subclasses say which way (``kind``) and check credentials."""

    kind: Literal["secret", "token", "open"]

    async def role_for(self, credential: str) -> Role | None:
        """The role ``credential`` grants, or None: refused."""
        return None


class OneTimeSecret(Gate):
    """``minirag-cli ui``: the secret in the printed URL, good for one sign-in; and, with a
    ``key``, every link :func:`mint_link` makes from it (``minirag-cli ui --link``), each
    good for one sign-in too, so a person whose cookie is gone can sign in again without
    restarting the page."""

    kind = "secret"

    def __init__(self, secret: str, key: bytes | None = None) -> None:
        self._digest: bytes | None = _digest(secret)
        self._key = key
        self._spent: set[str] = set()
        self._lock = threading.Lock()

    async def role_for(self, credential: str) -> Role | None:
        """Full access for the secret, or a link made from the key, once each; every later
        use (a leaked URL) is refused."""
        with self._lock:
            if self._digest is not None and hmac.compare_digest(_digest(credential), self._digest):
                self._digest = None
                return "full"
            nonce, _, signature = credential.partition(".")
            if self._key is None or not nonce or nonce in self._spent:
                return None
            if not hmac.compare_digest(signature, _sign(self._key, nonce)):
                return None
            if len(self._spent) >= MAX_SESSIONS:  # bounded: the oldest links lapse
                self._spent.clear()
            self._spent.add(nonce)
            return "full"


def mint_link(key: bytes) -> str:
    """A new sign-in credential for a page whose :class:`OneTimeSecret` holds ``key``."""
    nonce = secrets.token_urlsafe(16)
    return f"{nonce}.{_sign(key, nonce)}"


def _sign(key: bytes, nonce: str) -> str:
    return hmac.new(key, nonce.encode("ascii", "replace"), hashlib.sha256).hexdigest()


class TokenGate(Gate):
    """The team server: a credential the MCP endpoint accepts, with the role it grants
    there (``verify``: the MCP server's own check, so the page never grants more)."""

    kind = "token"

    def __init__(self, verify: Callable[[str], Awaitable[Role | None]]) -> None:
        self._verify = verify

    async def role_for(self, credential: str) -> Role | None:
        """What ``verify`` says, for a non-empty credential."""
        credential = credential.strip()
        return await self._verify(credential) if credential else None


class OpenGate(Gate):
    """No authentication configured (a loopback MCP server): everyone is full, as there."""

    kind = "open"

    async def role_for(self, credential: str) -> Role | None:
        """Always full: there is nothing to check."""
        return "full"


def _digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).digest()


def same_origin(request: Request) -> bool:
    """Whether a state-changing request comes from a page of this server: its ``Origin``
    (or ``Referer``, for a browser that sends no Origin) has the request's own Host.

    Only the host and port are compared, not the scheme: behind a TLS proxy the page is
    https while the request reaching us is http, with the Host preserved. The Host itself
    is checked before this (fastmcp's guard, or ``allowed_hosts`` of the app).
    """
    host = request.headers.get("host", "").lower()
    origin = request.headers.get("origin")
    if origin is None or origin == "null":
        origin = request.headers.get("referer")
    if not origin or not host:
        return False
    parts = urlsplit(origin)
    return parts.scheme in ("http", "https") and parts.netloc.lower() == host
