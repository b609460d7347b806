"""The shape of a JSON answer, for the wire-shape snapshot tests of the MCP and CLI shells.

A client parses field names and value types; it does not parse a score or a temp path.
:func:`shape` keeps exactly what a client depends on: every object's keys, in the order
they come (a renamed, added or dropped field is a visible diff), and each value's JSON type
in place of the value (a score, a timestamp, a job id or a path under a test's tmp folder
would make the snapshot change on every run).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["PAGE", "serve_page", "shape"]

#: The page :func:`serve_page` serves: a title, a heading and one fact.
PAGE = (
    b"<html><head><title>Release notes</title></head><body><h1>Release notes</h1>"
    b"<p>Version 2.0 adds resumable uploads and drops the legacy XML export.</p></body></html>"
)


def shape(value: Any, maps: frozenset[str] | set[str] = frozenset()) -> Any:
    """``value`` (parsed JSON) with each leaf replaced by its JSON type name.

    Objects keep their keys in order. A list becomes the list of its elements' distinct
    shapes, in first-seen order (three hits of one shape are one entry; an empty list
    stays empty). Fields named in ``maps`` hold objects keyed by data (``parents``: parent
    id -> text): their keys become ``"<key>"``, one per distinct value shape. Numbers are
    ``"number"`` whether int or float, as JSON has one number type.
    """
    if isinstance(value, dict):
        return {key: _field(key, item, maps) for key, item in value.items()}
    if isinstance(value, list):
        return _distinct([shape(item, maps) for item in value])
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    raise TypeError(f"not a JSON value: {value!r}")


def _field(key: str, value: Any, maps: frozenset[str] | set[str]) -> Any:
    if key in maps and isinstance(value, dict):
        return {"<key>": _distinct([shape(item, maps) for item in value.values()])}
    return shape(value, maps)


def _distinct(shapes: list[Any]) -> list[Any]:
    out: list[Any] = []
    for item in shapes:
        if item not in out:
            out.append(item)
    return out


class _Page(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, *args: object) -> None:
        pass  # a test's output is for its failures


@contextlib.contextmanager
def serve_page() -> Iterator[str]:
    """Serve :data:`PAGE` on 127.0.0.1 (a free port) and yield its URL, for ``ingest_url``
    (the index must be opened with ``ALLOW_PRIVATE_URLS=1`` to fetch from loopback)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/notes.html"
    finally:
        server.shutdown()
        server.server_close()
