"""A running server answers the CLI's queries: no second process pays the cold start.

Why: a query in a fresh process imports LanceDB (~1 s here, most of it its REST client's
models), opens the ONNX model and loads the search snapshot before it can answer, while
an MCP server for the same index already holds all of that warm. So a server announces a
query endpoint, and ``minirag-cli query`` asks it first.

How a server is found: it listens on ``127.0.0.1`` (a port the OS picks) and writes
``<DB_PATH>/query-server.json`` (mode 0600: only its user can read the token in it) with
its PID, port, a random bearer token and a fingerprint of its configuration and version.
The CLI uses it only when the fingerprint equals its own (same index, model, ranking
settings and minirag version, so the answer is the one it would compute itself).

What happens when it is gone: the file of a server that exited normally is removed at
exit. A killed server leaves it behind: the CLI finds its PID dead (or the port refusing,
or the token refused) and answers in its own process, removing the file if the PID is
dead. Any failure of the server's answer (a bad argument included) also falls back to the
CLI's own process, which raises the error exactly as it would have without a server.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import secrets
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from minirag_store.config import Config

if TYPE_CHECKING:
    from minirag_store.results import QueryResult

__all__ = [
    "FILE_NAME",
    "Answering",
    "QueryEndpoint",
    "ask",
    "fingerprint",
    "start_endpoint",
    "write_private",
]

FILE_NAME = "query-server.json"


class Answering(Protocol):
    """What the endpoint serves: the index's configuration (or why it is broken) and its
    query, which fits each answer to the budget the asking process sends."""

    @property
    def config_error(self) -> str | None: ...

    @property
    def config(self) -> Config: ...

    def query(
        self,
        query: str,
        top_k: int = ...,
        scope: str | Sequence[str] | None = ...,
        *,
        offset: int = ...,
        max_tokens: int | None = ...,
        explain: bool = ...,
    ) -> QueryResult: ...


_HOST = "127.0.0.1"
_PATH = "/query"
_MAX_BODY = 1 << 20  # a query request is a few hundred bytes
#: How long the CLI waits to connect: a live server on loopback accepts at once.
_CONNECT_TIMEOUT_S = 0.5
#: How long it waits for the answer: a server still warming up is still the faster path.
_ANSWER_TIMEOUT_S = 60.0


def fingerprint(config: Config) -> str:
    """What must match for a server's answer to be the caller's own: every setting and
    the minirag-store version. Not how the server follows the files (RAG_WATCH*) or
    where its syncs run (RAG_RAY_ADDRESS): a client's server settings often carry them
    and a terminal's do not, and they change no answer. Nor how the roots were found or
    the folder a CLI stands in (the caller resolves its scopes before asking)."""
    from dataclasses import replace

    from minirag_store.meta import version

    # the budget travels with each request (Index.query's max_tokens), not in the settings
    answering = replace(
        config,
        watch="",
        watch_poll_seconds=0,
        ray_address=None,
        max_response_tokens=0,
        max_response_tokens_set=False,
        found_by="cwd",
        roots_from="",
        index_from="",
        known_file=None,
        cwd=None,
    )
    return hashlib.sha256(f"{version()}\n{answering!r}".encode()).hexdigest()


@dataclass
class QueryEndpoint:
    """A running endpoint and its announcement; :meth:`close` stops and withdraws it."""

    server: ThreadingHTTPServer
    announcement: Path
    token: str

    @property
    def port(self) -> int:
        return self.server.server_address[1]

    def close(self) -> None:
        """Stop serving and remove the announcement (only if it is still ours)."""
        self.server.shutdown()
        self.server.server_close()
        with contextlib.suppress(OSError, ValueError, KeyError):
            if json.loads(self.announcement.read_text(encoding="utf-8"))["token"] == self.token:
                self.announcement.unlink()


def start_endpoint(index: Answering) -> QueryEndpoint | None:
    """Serve ``index.query`` on loopback and announce it; None when there is nothing to
    announce (a broken configuration, no index folder yet: nothing to query, or an index
    on object storage: no local folder to announce it in)."""
    if index.config_error is not None:
        return None
    config = index.config
    folder = config.db_path
    if folder is None or not folder.is_dir():
        return None
    token = secrets.token_urlsafe(32)
    server = ThreadingHTTPServer((_HOST, 0), _handler(index, token))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="minirag-query-endpoint")
    thread.daemon = True
    thread.start()
    record = {
        "pid": os.getpid(),
        "port": server.server_address[1],
        "token": token,
        "fingerprint": fingerprint(config),
        "started": time.time(),
    }
    target = folder / FILE_NAME
    try:
        write_private(target, json.dumps(record))
    except OSError:  # a read-only index folder: serve MCP only, the CLI works alone
        server.shutdown()
        server.server_close()
        return None
    return QueryEndpoint(server, target, token)


def write_private(target: Path, text: str) -> None:
    """Write ``text`` to ``target`` atomically, readable by this user only."""
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)
    os.replace(tmp, target)


def _handler(index: Answering, token: str) -> type[BaseHTTPRequestHandler]:
    expected = f"Bearer {token}".encode()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # http.server's naming
            given = self.headers.get("Authorization", "").encode()
            if not hmac.compare_digest(given, expected):
                self._reply(401, {"error": "unauthorized"})
                return
            if self.path != _PATH:
                self._reply(404, {"error": "not found"})
                return
            try:
                length = int(self.headers.get("Content-Length", "0"))
                if not 0 < length <= _MAX_BODY:
                    raise ValueError("bad length")
                request = json.loads(self.rfile.read(length))
                result = index.query(
                    str(request["query"]),
                    top_k=int(request["topK"]),
                    scope=request["scope"],
                    max_tokens=int(request["maxTokens"]),
                    offset=int(request["offset"]),
                    explain=bool(request.get("explain", False)),
                )
            # The caller falls back to its own process, which raises this error properly.
            except Exception as e:
                self._reply(400, {"error": f"{type(e).__name__}: {e}"})
                return
            self._reply(200, result)

        def _reply(self, status: int, body: Any) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # queries are the user's business: nothing of them goes to the log

    return Handler


def ask(
    config: Config,
    query: str,
    top_k: int,
    scope: str | Sequence[str] | None,
    *,
    max_tokens: int,
    offset: int = 0,
    explain: bool = False,
) -> QueryResult | None:
    """The query's answer from a running server for this configuration, fitted to
    ``max_tokens`` (0: no limit), or None (no server, another configuration, gone,
    refused, failed): then answer it yourself."""
    import http.client

    found = _announcement(config)
    if found is None:
        return None
    target, pid, port, token = found
    if not _alive(pid):
        with contextlib.suppress(OSError):
            target.unlink()  # a killed server's leftover
        return None
    request = {"query": query, "topK": top_k, "scope": scope, "maxTokens": max_tokens}
    body = json.dumps({**request, "offset": offset, "explain": explain})
    connection = http.client.HTTPConnection(_HOST, port, timeout=_CONNECT_TIMEOUT_S)
    try:
        connection.connect()
        if connection.sock is not None:
            connection.sock.settimeout(_ANSWER_TIMEOUT_S)
        connection.request(
            "POST",
            _PATH,
            body=body.encode(),
            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        )
        response = connection.getresponse()
        payload = response.read()
        if response.status != 200:
            return None
        return json.loads(payload)
    except (OSError, ValueError, http.client.HTTPException):
        return None
    finally:
        connection.close()


def _announcement(config: Config) -> tuple[Path, int, int, str] | None:
    """``(file, pid, port, token)`` of a server announced for this very configuration, or
    None (none, another configuration's, unreadable, or an index on object storage: no
    local folder to announce a server in)."""
    if config.db_path is None:
        return None
    target = config.db_path / FILE_NAME
    try:
        record = json.loads(target.read_text(encoding="utf-8"))
        pid, port, token = int(record["pid"]), int(record["port"]), str(record["token"])
        if record["fingerprint"] != fingerprint(config):
            return None
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return target, pid, port, token


def _alive(pid: int) -> bool:
    """Whether a process with ``pid`` exists (on this machine: the endpoint is loopback)."""
    if os.name == "nt":  # os.kill would terminate it there: let the connection tell
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, but another user's: not a server we could have started
        return True
    return True
