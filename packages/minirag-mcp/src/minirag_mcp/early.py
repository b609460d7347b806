"""Answer the stdio handshake before fastmcp has finished importing.

A desktop client starts the server and waits for its ``initialize`` (or, in the
2026-07-28 era, ``server/discover``) answer before it shows the server as ready; some
give up on a slow one. Importing fastmcp alone takes most of a second, so the server
answers that first request itself (:mod:`minirag_mcp.handshake`) while fastmcp imports
in a background thread, then hands the connection over.

How the hand-over works, at the file-descriptor level so fastmcp's own stdio transport
runs unchanged: the real stdin/stdout (the *wire*) move to private descriptors, and
fd 0 and fd 1 become pipes that fastmcp reads and writes. Two relay threads join them.

- Inbound: every byte from the client, starting with the opening line already read,
  goes to fastmcp's stdin pipe. fastmcp therefore sees the handshake too and its
  session starts exactly as it would have.
- Outbound: fastmcp's lines go to the wire, except its answer to the handshake we
  already answered (same id), which is compared with ours (a difference is logged:
  it means :mod:`minirag_mcp.handshake` fell behind the SDK) and dropped.

POSIX only (``select`` on pipes); elsewhere :func:`supported` is false and the server
starts the plain way.
"""

from __future__ import annotations

import json
import logging
import os
import select
import threading
from typing import Any

from minirag_mcp.handshake import ServerIdentity, handshake_answer

__all__ = ["EarlyStdio", "supported"]

logger = logging.getLogger(__name__)

_CHUNK = 1 << 16


def supported() -> bool:
    """Whether this platform can run the early handshake (needs ``select`` on pipes)."""
    return os.name == "posix"


class EarlyStdio:
    """The process's stdio, held between start-up and fastmcp taking over.

    Create it first thing (it swaps fd 0 and fd 1), call :meth:`greet` to answer the
    client's opening request, run fastmcp's stdio server, then :meth:`close` to flush
    what fastmcp wrote.
    """

    def __init__(self) -> None:
        self._wire_in = os.dup(0)
        self._wire_out = os.dup(1)
        server_in, self._to_server = os.pipe()
        self._from_server, server_out = os.pipe()
        os.dup2(server_in, 0)
        os.dup2(server_out, 1)
        os.close(server_in)
        os.close(server_out)
        self._wake, self._waker = os.pipe()
        #: Our handshake answer, until fastmcp's duplicate of it has been dropped.
        self._answered: dict[str, Any] | None = None
        self._partial = b""  # an unfinished fastmcp line, while looking for the duplicate
        self._wire_gone = False
        self._outbound: threading.Thread | None = None

    def greet(self, server: ServerIdentity) -> bool:
        """Read the client's opening line, answer it now if it is a handshake, and
        start relaying. True if this process answered the handshake itself.

        Blocks until the client sends a line (or closes stdin).
        """
        opening, rest = self._read_line()
        answer = handshake_answer(_decode(opening), server) if opening.strip() else None
        if answer is not None:
            text = json.dumps(answer, ensure_ascii=False, separators=(",", ":"))
            self._send((text + "\n").encode())
            self._answered = answer
        inbound = threading.Thread(
            target=self._relay_in, args=(opening + rest,), name="minirag-stdin", daemon=True
        )
        inbound.start()
        self._outbound = threading.Thread(
            target=self._relay_out, name="minirag-stdout", daemon=True
        )
        self._outbound.start()
        return answer is not None

    def close(self, timeout: float = 10.0) -> None:
        """Forward what fastmcp has written, then stop the outbound relay.

        Call after fastmcp's server returned: nothing writes to its pipe any more, so
        whatever is in the pipe now is all there is.
        """
        os.write(self._waker, b"x")
        if self._outbound is not None:
            self._outbound.join(timeout)

    def _read_line(self) -> tuple[bytes, bytes]:
        """The first line from the wire (with its newline) and any bytes read past it."""
        data = b""
        while b"\n" not in data:
            chunk = os.read(self._wire_in, _CHUNK)
            if not chunk:
                return data, b""
            data += chunk
        line, _, rest = data.partition(b"\n")
        return line + b"\n", rest

    def _relay_in(self, pending: bytes) -> None:
        """Client → fastmcp; closing fastmcp's stdin when the client closes ours."""
        try:
            if pending:
                _write_all(self._to_server, pending)
            while chunk := os.read(self._wire_in, _CHUNK):
                _write_all(self._to_server, chunk)
        except OSError as exc:
            logger.debug("stdin relay stopped: %s", exc)
        finally:
            os.close(self._to_server)

    def _relay_out(self) -> None:
        """fastmcp → client, until :meth:`close` and the pipe is empty."""
        while True:
            ready, _, _ = select.select([self._from_server, self._wake], [], [])
            if self._from_server in ready:
                chunk = os.read(self._from_server, _CHUNK)
                if not chunk:
                    break
                self._forward(chunk)
            elif self._wake in ready:
                os.set_blocking(self._from_server, False)
                try:
                    while chunk := os.read(self._from_server, _CHUNK):
                        self._forward(chunk)
                except BlockingIOError:
                    pass
                break
        if self._partial:
            self._send(self._partial)

    def _forward(self, chunk: bytes) -> None:
        """Send ``chunk`` on, minus fastmcp's duplicate handshake answer."""
        if self._answered is None:
            self._send(chunk)
            return
        *lines, self._partial = (self._partial + chunk).split(b"\n")
        kept = [line + b"\n" for line in lines if not self._is_duplicate(line)]
        if self._answered is None:  # found it: the rest passes through untouched
            kept.append(self._partial)
            self._partial = b""
        self._send(b"".join(kept))

    def _is_duplicate(self, line: bytes) -> bool:
        """Whether ``line`` is fastmcp's answer to the handshake we answered."""
        ours = self._answered
        if ours is None or b'"id"' not in line:
            return False
        theirs = _decode(line)
        if not isinstance(theirs, dict) or "method" in theirs or theirs.get("id") != ours["id"]:
            return False
        if type(theirs.get("id")) is not type(ours["id"]):  # 1 and "1" are different ids
            return False
        if theirs != ours:
            differing = sorted(
                key
                for key in {*_fields(theirs), *_fields(ours)}
                if _fields(theirs).get(key) != _fields(ours).get(key)
            )
            logger.warning(
                "the early handshake answer differs from fastmcp's in %s; "
                "minirag_mcp.handshake needs updating for this fastmcp version",
                ", ".join(differing),
            )
        self._answered = None
        return True

    def _send(self, data: bytes) -> None:
        """Write to the client; once it has gone, keep draining fastmcp but drop output."""
        if data and not self._wire_gone:
            try:
                _write_all(self._wire_out, data)
            except OSError:
                self._wire_gone = True


def _decode(line: bytes) -> object:
    """A JSON-RPC line decoded, or ``None`` when it is not valid JSON."""
    try:
        return json.loads(line)
    except ValueError:
        return None


def _fields(message: dict[str, Any]) -> dict[str, Any]:
    """The parts of a response worth naming in a difference: result keys, or error."""
    result = message.get("result")
    return result if isinstance(result, dict) else {"error": message.get("error")}


def _write_all(fd: int, data: bytes) -> None:
    """``os.write`` until every byte is out (pipes take partial writes)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
