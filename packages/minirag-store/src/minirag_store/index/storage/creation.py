"""Creating a new index's table exactly once, when several processes start on it together.

LanceDB's ``create_table`` is not safe against a concurrent creation of the same table:
Lance turns a create that lost the race for version 1 into an overwrite of version 2
(concurrent overwrites are retryable upstream, lance#6014), which empties the table again,
and a write committed in between by the first creator is lost or fails with "incompatible
with concurrent transaction Overwrite" (seen here on a local folder and on moto's S3, two
or three threads creating and then appending). So the check "is there a table?" and the
creation are done by one process at a time:

* **local folder**: an exclusive ``flock`` on ``<DB_PATH>/.create.lock`` (released by the
  kernel if the process dies);
* **object storage**: a marker object ``<DB_PATH>/.create-table.json`` written with a
  create-if-absent put (the same conditional puts the sync lease uses). The others wait
  for the table to appear; a marker older than :data:`STALE_MARKER_SECONDS` was left by a
  creator that died and is taken over by a compare-and-swap on its ETag.

Under it, a table that exists by now is opened, not created.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

__all__ = ["CREATE_LOCK", "CREATE_MARKER", "STALE_MARKER_SECONDS", "create_once", "open_store"]

CREATE_LOCK = ".create.lock"
CREATE_MARKER = ".create-table.json"
#: A creation takes well under a second; a marker this old belongs to a dead creator.
STALE_MARKER_SECONDS = 30.0
#: How long a process waits for another one's creation before giving up.
_WAIT_SECONDS = 120.0
#: obstore's client settings; the rest of the storage options are the store's own keys
#: (LanceDB accepts both kinds in one mapping, obstore takes them apart).
_CLIENT_KEYS = frozenset({
    "allow_http", "allow_invalid_certificates", "connect_timeout", "default_content_type",
    "http1_only", "http2_only", "pool_idle_timeout", "pool_max_idle_per_host", "proxy_url",
    "proxy_ca_certificate", "proxy_excludes", "randomize_addresses", "read_timeout",
    "timeout", "user_agent",
})  # fmt: skip
_TRUE = frozenset({"1", "true", "yes", "on"})


def open_store(uri: str, storage_options: Mapping[str, str]) -> Any:
    """An obstore store at ``uri`` (the index's prefix) with the index's storage options.

    Credentials, region and endpoint not in the options come from the same environment
    variables LanceDB reads (``AWS_*``, ``GOOGLE_*``, ``AZURE_*``). Options obstore does
    not know are LanceDB's own (``client_max_retries`` ...) and are left out here.
    """
    from obstore.exceptions import UnknownConfigurationKeyError
    from obstore.store import from_url

    client: dict[str, Any] = {}
    config: dict[str, str] = {}
    for key, value in storage_options.items():
        name = key.lower()
        if name in _CLIENT_KEYS:
            client[name] = value.strip().lower() in _TRUE if name.startswith("allow") else value
            continue
        try:
            from_url(uri, config={name: value})
        except UnknownConfigurationKeyError:
            continue  # one of LanceDB's own options (client_max_retries, ...)
        except Exception:  # a known key, incomplete alone (a key id needs its secret)
            pass
        config[name] = value
    return from_url(uri, config=config or None, client_options=client or None)  # type: ignore[arg-type]


def create_once(
    local: Path | None,
    uri: str,
    storage_options: Mapping[str, str],
    open_or_create: Callable[[], Any],
    exists: Callable[[], Any],
) -> Any:
    """Run ``open_or_create`` (open the table if it exists by now, else create it) while
    no other process does the same for this index; ``exists`` returns the table once
    someone created it, else None (a waiting process's look)."""
    if local is not None:
        return _locally(local, open_or_create)
    return _remotely(uri, storage_options, open_or_create, exists)


def _locally(folder: Path, open_or_create: Callable[[], Any]) -> Any:
    import fcntl

    with (folder / CREATE_LOCK).open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)  # held for well under a second
        try:
            return open_or_create()
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _remotely(
    uri: str,
    storage_options: Mapping[str, str],
    open_or_create: Callable[[], Any],
    exists: Callable[[], Any],
    *,
    clock: Callable[[], float] = time.time,
) -> Any:
    import obstore
    from obstore.exceptions import AlreadyExistsError, NotFoundError, PreconditionError

    store = open_store(uri, storage_options)
    record = json.dumps({"host": socket.gethostname(), "pid": os.getpid()}).encode()
    deadline = time.monotonic() + _WAIT_SECONDS
    while True:
        try:
            obstore.put(store, CREATE_MARKER, record, mode="create", use_multipart=False)
            break
        except (AlreadyExistsError, PreconditionError):
            pass
        table = exists()  # another process is creating it: wait for its table
        if table is not None:
            return table
        try:
            found = obstore.head(store, CREATE_MARKER)
        except (NotFoundError, FileNotFoundError):
            continue  # its creator finished or gave up meanwhile: try again
        if clock() - found["last_modified"].timestamp() >= STALE_MARKER_SECONDS:
            try:  # its creator died: take the marker over (one of the waiters wins)
                mode = {"e_tag": found["e_tag"]}
                obstore.put(store, CREATE_MARKER, record, mode=mode, use_multipart=False)
                break
            except (PreconditionError, NotFoundError, FileNotFoundError):
                continue
        if time.monotonic() > deadline:
            raise TimeoutError(
                f"Another process has been creating the index at {uri} for over "
                f"{_WAIT_SECONDS:.0f} s; if it was killed, remove {CREATE_MARKER} there"
            )
        time.sleep(0.2)
    try:
        return open_or_create()
    finally:
        # only the holder removes it; if that fails, the marker is stale (taken over) soon
        with contextlib.suppress(Exception):
            obstore.delete(store, CREATE_MARKER)
