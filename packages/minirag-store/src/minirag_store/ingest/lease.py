"""The sync lease of an index on object storage: one sync at a time, across machines.

A ``flock`` protects an index folder on one machine only; on object storage the rule
"one sync at a time" is kept by one small JSON object, ``<DB_PATH>/.sync-lease.json``,
holding the holder's host, PID, start time and heartbeat, written only with conditional
puts (obstore, the Python binding of the Rust ``object_store`` crate LanceDB itself uses,
configured by the same variables):

* **take**: create-if-absent (``If-None-Match: *``). When it exists, it is read: a lease
  released by its holder, or whose heartbeat is older than the timeout, is taken over with
  a compare-and-swap on the ETag read (``If-Match``), so of two processes taking over the
  same stale lease exactly one wins; a live one refuses the sync naming its holder.
* **heartbeat**: the holder rewrites it every ``timeout / 8`` seconds, again with
  ``If-Match`` on its own last ETag. A mismatch means another process took the lease over
  (this one was frozen longer than the timeout): the lease is marked lost and the sync
  stops before its next commit.
* **release**: a compare-and-swap to a ``released`` record (never a plain delete, which
  could remove a lease another process took over meanwhile).

Staleness is judged by the object's ``Last-Modified`` (the store's clock, not the
holder's), against the reader's clock: a skew of a few seconds between a machine and
the store is small beside the timeout.

Why 120 s by default (``RAG_SYNC_LEASE_TIMEOUT``): a killed sync blocks the next one for at
most two minutes, while a live holder must miss 8 heartbeats in a row (each one a PUT that
``object_store`` already retries) before anyone takes over, which rides out a slow or
briefly unreachable store. A holder that lost its lease may still finish the commit in
flight; LanceDB's conditional-put commits keep the table consistent even then.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Mapping
from types import TracebackType
from typing import Any

from minirag_store.config import Config
from minirag_store.errors import SyncBusyError
from minirag_store.index.storage.creation import open_store
from minirag_store.ingest.lock import SyncLock, describe_age

__all__ = [
    "LEASE_NAME",
    "SyncLease",
    "failure_text",
    "lease_lost",
    "sync_guard",
    "take_sync_guard",
]

log = logging.getLogger(__name__)
_HOST = socket.gethostname()

LEASE_NAME = ".sync-lease.json"
#: A heartbeat every timeout / HEARTBEATS_PER_TIMEOUT seconds.
HEARTBEATS_PER_TIMEOUT = 8
#: Lease URIs held by live SyncLease objects of this process: a lease recorded with this
#: host and PID but not in here was left by an earlier sync of this process that could
#: not release it (the store was down), so it is taken over at once.
_HELD: set[str] = set()
_HELD_GUARD = threading.Lock()


class SyncLease:
    """The sync lease of one index on object storage (see the module docstring).

    ``acquire()`` never waits: it takes the lease or raises :class:`SyncBusyError` naming
    the holder. While held, a daemon thread keeps the heartbeat; :attr:`lost` turns True
    if another process took the lease over.
    """

    def __init__(
        self,
        uri: str,
        storage_options: Mapping[str, str],
        timeout: float,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.uri = uri
        self.timeout = timeout
        self._options = dict(storage_options)
        self._clock = clock
        self._store: Any = None
        self._etag: str | None = None
        self._record: dict[str, Any] = {}
        self._guard = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lost = False
        self._beat_warned = False
        #: Called (from the heartbeat thread) when another process took the lease over.
        self.on_lost: Callable[[], None] | None = None

    @property
    def where(self) -> str:
        """The lease object's URI, for messages."""
        return f"{self.uri.rstrip('/')}/{LEASE_NAME}"

    @property
    def held(self) -> bool:
        """True while this object holds the lease."""
        return self._etag is not None

    @property
    def lost(self) -> bool:
        """True once another process took this lease over (the sync must stop)."""
        return self._lost

    def _client(self) -> Any:
        if self._store is None:
            self._store = open_store(self.uri, self._options)
        return self._store

    def _put(self, record: dict[str, Any], mode: Any) -> str:
        import obstore

        body = json.dumps(record).encode()
        result = obstore.put(self._client(), LEASE_NAME, body, mode=mode, use_multipart=False)
        return str(result["e_tag"])

    def acquire(self) -> None:
        """Take the lease now or raise :class:`SyncBusyError` naming who holds it."""
        from obstore.exceptions import AlreadyExistsError, PreconditionError

        with self._guard:
            if self._etag is not None:
                raise SyncBusyError("This sync lease is already held by this process")
            now = self._clock()
            record = {"host": _HOST, "pid": os.getpid(), "started": now,
                      "heartbeat": now, "released": False}  # fmt: skip
            try:
                etag = self._put(record, "create")
            except AlreadyExistsError:
                etag = self._take_over(record)
            except PreconditionError:  # some stores answer a lost create with 412
                etag = self._take_over(record)
            self._etag, self._record, self._lost = etag, record, False
            with _HELD_GUARD:
                _HELD.add(self.where)
            self._stop.clear()
            self._thread = threading.Thread(
                target=self._beat, name="minirag-sync-lease", daemon=True
            )
            self._thread.start()

    def _take_over(self, record: dict[str, Any]) -> str:
        """Replace an existing lease that is released or stale; refuse a live one."""
        import obstore
        from obstore.exceptions import NotFoundError, PreconditionError

        try:
            found = obstore.get(self._client(), LEASE_NAME)
            current, meta = bytes(found.bytes()), found.meta
        except (NotFoundError, FileNotFoundError):
            return self._put(record, "create")  # released and removed meanwhile: try again
        try:
            held = json.loads(current)
        except ValueError:
            held = {}  # unreadable: judged by its age alone
        modified = meta["last_modified"]
        age = self._clock() - modified.timestamp()
        if not (held.get("released") or age >= self.timeout or self._left_by_us(held)):
            raise SyncBusyError(self._busy_message(held, age))
        try:
            return self._put(record, {"e_tag": meta["e_tag"]})
        except PreconditionError:
            raise SyncBusyError(
                f"Another process took over the sync lease {self.where} at the same moment; "
                "wait for its sync to finish."
            ) from None

    def _left_by_us(self, held: Mapping[str, Any]) -> bool:
        """A lease of this very process that no live SyncLease here holds."""
        with _HELD_GUARD:
            ours = self.where in _HELD
        return not ours and held.get("pid") == os.getpid() and held.get("host") == _HOST

    def _busy_message(self, held: Mapping[str, Any], age: float) -> str:
        try:
            who = f"PID {int(held['pid'])} on {held['host']}"
            ran = describe_age(self._clock() - float(held["started"]))
        except (KeyError, TypeError, ValueError):
            who, ran = "another process", "an unknown time"
        return (
            f"Another sync is already running on this index ({who}, running for {ran}, "
            f"last heartbeat {describe_age(age)} ago; lease {self.where}). Wait for it to "
            f"finish; if that process was killed, its lease is taken over once its heartbeat "
            f"is {describe_age(self.timeout)} old (RAG_SYNC_LEASE_TIMEOUT)."
        )

    def _beat(self) -> None:
        """Rewrite the heartbeat until released; a lost compare-and-swap means taken over."""
        from obstore.exceptions import PreconditionError

        interval = self.timeout / HEARTBEATS_PER_TIMEOUT
        while not self._stop.wait(interval):
            with self._guard:
                if self._etag is None:
                    return
                record = {**self._record, "heartbeat": self._clock()}
                try:
                    self._etag = self._put(record, {"e_tag": self._etag})
                    self._record = record
                except PreconditionError:
                    self._lost = True
                    log.warning("Sync lease %s was taken over by another process", self.where)
                    if self.on_lost is not None:
                        self.on_lost()
                    return
                except Exception as e:  # a failed beat is retried at the next one
                    if not self._beat_warned:
                        self._beat_warned = True
                        log.warning("Sync lease %s: a heartbeat failed (%s); retrying",
                                    self.where, type(e).__name__)  # fmt: skip

    def release(self) -> None:
        """Give the lease back (a no-op when not held or lost)."""
        with self._guard:
            etag, self._etag = self._etag, None
            self._stop.set()
            if etag is not None:
                with _HELD_GUARD:
                    _HELD.discard(self.where)
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        if etag is None or self._lost:
            return
        # Only our own lease is released: a compare-and-swap, never a plain delete.
        try:
            self._put({**self._record, "released": True, "heartbeat": self._clock()},
                      {"e_tag": etag})  # fmt: skip
        except Exception as e:  # the next sync takes it over once its heartbeat is stale
            log.warning(
                "Could not release the sync lease %s (%s); the next sync takes it over "
                "after RAG_SYNC_LEASE_TIMEOUT",
                self.where,
                type(e).__name__,
            )

    def __enter__(self) -> SyncLease:
        self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()


def sync_guard(config: Config) -> SyncLock | SyncLease:
    """What keeps one sync at a time on this index: the flock of a local index folder, or
    the lease object of an index on object storage."""
    if config.db_path is not None:
        return SyncLock(config.db_path)
    return SyncLease(config.db_uri, dict(config.storage_options), config.sync_lease_timeout)


_LEASE_LOST = (
    "Another process took over the sync lease {where} (this one did not renew it within "
    "RAG_SYNC_LEASE_TIMEOUT); the files committed before are indexed. Run sync again once "
    "the other sync finishes."
)


def take_sync_guard(config: Config) -> SyncLock | SyncLease:
    """:func:`sync_guard`, acquired. A busy guard raises :class:`SyncBusyError` naming its
    holder; a failing object store is named by its URI, with every credential masked."""
    lock = sync_guard(config)
    try:
        lock.acquire()
    except SyncBusyError:
        raise
    except Exception as e:  # the lease's store failed: say which, without secrets
        from minirag_store.index.storage.connection import unavailable

        raise unavailable(config, e, "take the sync lease of") from e
    return lock


def lease_lost(lock: SyncLock | SyncLease) -> str | None:
    """The job's error when its lease was taken over while it ran, else None."""
    if isinstance(lock, SyncLease) and lock.lost:
        return _LEASE_LOST.format(where=lock.where)
    return None


def failure_text(config: Config, error: Exception) -> str:
    """What broke, for a job's error: on object storage, the store's failure named by its
    URI with every credential masked (the raw text is long and may echo them)."""
    if config.db_remote is not None:
        from minirag_store.index.storage.connection import unavailable

        return str(unavailable(config, error, "write to"))
    return f"{type(error).__name__}: {error}"
