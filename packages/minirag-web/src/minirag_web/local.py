"""``minirag-cli ui``: the page for one person, on loopback, until Ctrl-C.

The server binds 127.0.0.1 on a free port (or the one asked for) before anything is
printed, so the URL printed is the one that answers. The URL carries a one-time secret
(:class:`~minirag_web.access.OneTimeSecret`): another user of this machine can reach the
port but not the secret, and a web page cannot guess it. The browser is opened through a
file only this user can read that forwards to the URL (as Jupyter does), so the secret
is not on a command line another user's ``ps`` would show.

Signing in again: the session cookie lasts a working day unused, and while the page runs
``minirag-cli ui --link`` prints a new link (:func:`new_link`), good for one sign-in like
the first. The page leaves ``<DB_PATH>/ui-link.json`` (mode 0600, as the query endpoint's
announcement: only this user can read it) with its PID, port and a key that signs such
links; the page removes it when it stops, and a stale one (its PID gone) is ignored.

Like the MCP server, it follows the files while it runs (``RAG_WATCH``, on by default):
its first sync brings the index up to date; the health view shows the last sync, and the
files view each file a sync failed on, with the error (the index's record of its syncs).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import secrets
import socket
import tempfile
import threading
import webbrowser
from collections.abc import Callable
from html import escape
from pathlib import Path

from minirag_store import Index
from minirag_store.errors import NotFoundError
from minirag_store.peer import write_private
from minirag_store.process import settle

from minirag_web.access import OneTimeSecret, mint_link
from minirag_web.app import create_app

__all__ = ["LINK_FILE", "LOOPBACK_HOSTS", "new_link", "serve_local"]

log = logging.getLogger(__name__)

#: The Host names a loopback page answers to (anything else: DNS rebinding, 421).
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
#: Where a running page says how to mint it a sign-in link, in the index folder.
LINK_FILE = "ui-link.json"


def bind(port: int = 0) -> socket.socket:
    """A listening socket on 127.0.0.1 (port 0: a free one)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def serve_local(
    index: Index,
    *,
    port: int = 0,
    open_browser: bool = True,
    say: Callable[[str], None] = print,
) -> None:
    """Serve the page over ``index`` on 127.0.0.1 until interrupted; ``say`` prints the
    URL (with its secret) for the person who started it."""
    import uvicorn

    secret, key = secrets.token_urlsafe(32), secrets.token_bytes(32)
    gate = OneTimeSecret(secret, key)
    app = create_app(index, gate, allowed_hosts=LOOPBACK_HOSTS)
    sock = bind(port)
    link = f"http://127.0.0.1:{sock.getsockname()[1]}/login?secret={secret}"
    say(f"minirag in your browser: {link}")
    announced = _announce(index, sock.getsockname()[1], key)
    again = " (`minirag-cli ui --link` prints another)" if announced else ""
    say(f"(the link signs in once{again}; Ctrl-C stops the server)")
    # The first search should not wait for the model: load it while the browser opens;
    # then follow the files as a server does (RAG_WATCH); the index records each sync.
    threading.Thread(target=_warm_up, args=(index,), daemon=True).start()
    if open_browser:
        _open(link)
    config = uvicorn.Config(
        app, log_level="warning", access_log=False, lifespan="off", timeout_graceful_shutdown=2
    )
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        if announced is not None:
            _withdraw(announced, key)


def _announce(index: Index, port: int, key: bytes) -> Path | None:
    """Write :data:`LINK_FILE` for ``minirag-cli ui --link``; None where it cannot be
    (an index on object storage, a read-only folder: then only the first link works)."""
    folder = index.config.db_path if index.config_error is None else None
    if folder is None:
        return None
    record = {"pid": os.getpid(), "port": port, "key": key.hex()}
    try:
        folder.mkdir(parents=True, exist_ok=True)
        write_private(folder / LINK_FILE, json.dumps(record))
    except OSError as e:
        log.info("no re-issuable sign-in link: %s", e)
        return None
    return folder / LINK_FILE


def _withdraw(target: Path, key: bytes) -> None:
    """Remove the link file, if it is still this page's (another page may have taken it)."""
    with contextlib.suppress(OSError, ValueError, KeyError):
        if json.loads(target.read_text(encoding="utf-8"))["key"] == key.hex():
            target.unlink()


def new_link(index: Index) -> str:
    """A new one-time sign-in link for the page running over ``index`` (its
    :data:`LINK_FILE`); NotFoundError, saying what to do, when none runs."""
    folder = index.config.db_path
    target = None if folder is None else folder / LINK_FILE
    try:
        record = json.loads(target.read_text(encoding="utf-8")) if target else None
        pid, port, key = int(record["pid"]), int(record["port"]), bytes.fromhex(record["key"])
    except (OSError, ValueError, KeyError, TypeError):
        record = None
    if record is None or not _alive(pid):
        where = f" (index {folder})" if folder else ""
        raise NotFoundError(
            f"No minirag-cli ui is running for this index{where}: start one with "
            "`minirag-cli ui`; it prints a link that signs you in."
        )
    return f"http://127.0.0.1:{port}/login?secret={mint_link(key)}"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: not a page this user started
        return False
    return True


def _warm_up(index: Index) -> None:
    try:
        if index.config_error is None:
            index.warm_up()
            settle()  # what the warm-up loaded stays out of later garbage collections
            if index.config.watch != "off":
                index.start_watching()
    except Exception as e:  # the page's first call that needs the part says what failed
        log.warning("warm-up failed: %s", e)


def _open(link: str) -> None:
    """Open ``link`` in the browser through a 0600 file that forwards to it."""
    fd, name = tempfile.mkstemp(prefix="minirag-ui-", suffix=".html")
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(
            '<!doctype html><meta charset="utf-8">'
            f'<meta http-equiv="refresh" content="0;url={escape(link)}">'
            f'<a href="{escape(link)}">Open minirag</a>\n'
        )
    opened = webbrowser.open(Path(name).as_uri())
    if not opened:
        log.info("no browser to open; the link above works in any browser on this machine")
    # The browser reads the file at once; leave it a few seconds, then remove it.
    remove = threading.Timer(30, lambda: Path(name).unlink(missing_ok=True))
    remove.daemon = True  # Ctrl-C before then: the temporary folder's cleaner takes it
    remove.start()
