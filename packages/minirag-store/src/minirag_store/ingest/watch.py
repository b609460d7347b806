"""Watch mode: the index follows the files under the roots while a process runs.

How changes are learnt (``RAG_WATCH``, :attr:`Config.watch`):

* ``notify`` (RAG_WATCH=on, the default): OS notifications through ``watchfiles``
  (inotify, FSEvents, ReadDirectoryChangesW). It starts with one full sync, so what
  changed while nothing watched is caught up, then applies only what it is told about.
* ``poll``: a full sync every ``RAG_WATCH_POLL_SECONDS``. A sync of an unchanged corpus
  is the cheap (size, mtime) pass: one scan, and neither LanceDB nor the model is opened
  (:mod:`minirag_store.index.storage.summary`). Used when RAG_WATCH=poll, when a root lies on a
  network filesystem (a notification there reports this machine's writes only), when
  the index is on object storage (shared with other machines, for the same reason), and
  when notifications cannot start (the inotify watch limit, say).

Changes are gathered into batches (:mod:`minirag_store.ingest.changes`): a batch is
applied 2 s after the last change in it (or 10 s after its first, so a folder that never
stops changing is still followed). Each batch is one sync of just its paths
(:meth:`SyncManager.run_paths`): the same scan rules as a full sync (ignore files,
extensions, size limit, symlink containment) and the same lock, so a ``git checkout``
of 1,000 files becomes one or two syncs. A batch that meets another sync (this process's
or another's) is kept and tried again; nothing is dropped.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal

from minirag_store.errors import MiniragError, SyncBusyError
from minirag_store.ingest.changes import (
    Pending,
    batch_scopes,
    network_filesystem,
    relevant_change,
    shared_index,
)
from minirag_store.ingest.jobs import only_files_failed
from minirag_store.results import JobStatus, WatchBatch

if TYPE_CHECKING:
    from minirag_store.config import Config
    from minirag_store.ingest.sync import SyncManager

__all__ = ["WHOLE_ROOTS_ABOVE", "Watcher", "Watching"]

log = logging.getLogger(__name__)

#: How soon a batch that met a running sync is tried again.
BUSY_RETRY_SECONDS = 2.0
#: How soon a batch whose sync failed as a whole (the model would not load, the disk is
#: full) is tried again: its changes are kept, not dropped, without retrying in a loop.
FAILED_RETRY_SECONDS = 30.0
#: A batch of more paths than this is applied as one full sync: past it, scanning each
#: path on its own (ignore rules read from the root down for each) costs more than one
#: walk that skips every unchanged file by its (size, mtime).
WHOLE_ROOTS_ABOVE = 2000
#: watchfiles' own grouping: it hands over what it has after 50 ms of quiet (at most
#: 1.6 s); the settle time above is ours. Its wait returns every 250 ms without changes,
#: so a stop or a due batch is noticed that soon.
_STEP_MS, _DEBOUNCE_MS, _TIMEOUT_MS = 50, 1600, 250

WatchMode = Literal["notify", "poll"]
OnBatch = Callable[[WatchBatch], None]


class Watcher:
    """Keeps an index following the roots of ``config``, in a thread of its own: each
    batch of changes is one sync that ``syncs`` runs.

    ``force_poll``: poll even where notifications work (RAG_WATCH=poll).
    ``on_batch`` is called (in the watcher's thread) with each applied batch.
    """

    def __init__(
        self,
        config: Config,
        syncs: SyncManager,
        *,
        force_poll: bool = False,
        on_batch: OnBatch | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._config = config
        self._syncs = syncs
        self._force_poll = force_poll
        self._on_batch = on_batch
        self._clock = clock
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._state_lock = threading.Lock()
        self._mode: WatchMode | None = None
        self._note: str | None = None

    # ------------------------------------------------------------------ state
    @property
    def mode(self) -> WatchMode | None:
        """``notify`` or ``poll`` once running (None while starting or once stopped)."""
        with self._state_lock:
            return self._mode

    @property
    def note(self) -> str | None:
        """Why it polls (None when it uses notifications)."""
        with self._state_lock:
            return self._note

    def _set(self, mode: WatchMode | None, note: str | None) -> None:
        with self._state_lock:
            self._mode, self._note = mode, note

    # -------------------------------------------------------------- lifecycle
    def start(self) -> None:
        """Start watching in a daemon thread (returns at once)."""
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self.run, name="minirag-watch", daemon=True)
        self._thread.start()

    def stop(self, timeout: float | None = 30.0) -> None:
        """Stop watching; a batch being applied is finished first (up to ``timeout``)."""
        self._stop.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the watcher stops (or ``timeout`` passes); True once stopped."""
        thread = self._thread
        if thread is None:
            return True
        thread.join(timeout)
        return not thread.is_alive()

    @property
    def stopping(self) -> bool:
        """True once :meth:`stop` was called."""
        return self._stop.is_set()

    def run(self) -> None:
        """Watch until :meth:`stop`: notifications when they can be trusted, else polling."""
        try:
            reason = "RAG_WATCH=poll" if self._force_poll else None
            reason = reason or shared_index(self._config.db_remote)
            reason = reason or network_filesystem(self._config.roots)
            if reason is None:
                reason = self._run_notify()
            if reason is not None and not self._stop.is_set():
                log.warning("watching by polling every %ss: %s", self._poll_seconds(), reason)
                self._run_poll(reason)
        except Exception:  # a bug: say so where the user looks; status then says "off"
            log.exception("watch mode stopped; the index no longer follows the files")
        finally:
            self._set(None, None)

    # ------------------------------------------------------------- the loops
    def _poll_seconds(self) -> float:
        return float(self._config.watch_poll_seconds)

    def _run_poll(self, reason: str) -> None:
        self._set("poll", reason)
        while not self._stop.is_set():
            retry = self._apply(None, 0, "poll")
            self._stop.wait(self._poll_seconds() if retry is None else retry)

    def _run_notify(self) -> str | None:
        """Follow notifications until stopped (None), or say why they cannot be used."""
        from watchfiles import watch

        from minirag_store.convert.ocr import ocr_available

        # watchfiles skips a path it cannot watch when told to ignore permission errors
        # (what a subfolder without access needs), and would then watch nothing there.
        gone = [str(root) for root in self._config.roots if not os.path.isdir(root)]
        if gone:
            return f"file notifications are not available for {', '.join(gone)}: not a folder"
        changes = watch(
            *self._config.roots,
            watch_filter=relevant_change(self._config, ocr_available()),
            debounce=_DEBOUNCE_MS,
            step=_STEP_MS,
            rust_timeout=_TIMEOUT_MS,
            yield_on_timeout=True,
            stop_event=self._stop,
            raise_interrupt=False,
            force_polling=False,
            ignore_permission_denied=True,
        )
        try:
            self._follow(changes)
        except (OSError, RuntimeError) as e:  # no inotify, its watch limit, a root gone
            return f"file notifications are not available here ({type(e).__name__}: {e})"
        finally:
            changes.close()
        return None

    def _follow(self, changes: Iterable[set[tuple[Any, str]]]) -> None:
        pending = Pending()
        caught_up = False
        retry_at = 0.0
        for batch in changes:  # the first one (maybe empty) arrives once the watch is live
            now = self._clock()
            if self.mode is None:
                self._set("notify", None)
            if batch:
                pending.add(sorted(path for _, path in batch), now)
            if not caught_up and now >= retry_at:
                # Changes made while nothing watched: one full sync, after the watch is live
                # so nothing that changes meanwhile slips between the two.
                retry = self._apply(None, 0, "notify")
                caught_up = retry is None
                retry_at = self._clock() + (retry or 0.0)
            elif caught_up and pending.due(now):
                paths = pending.take()
                if (retry := self._apply(paths, len(paths), "notify")) is not None:
                    pending.put_back(paths, self._clock(), retry)
            if self._stop.is_set():
                return

    # ---------------------------------------------------------------- applying
    def _apply(self, paths: Sequence[str] | None, changed: int, mode: WatchMode) -> float | None:
        """One sync of ``paths`` (None: all roots). None once applied; else the seconds
        after which to try again (another sync runs, or this one failed)."""
        scopes = None
        if paths is not None and len(paths) <= WHOLE_ROOTS_ABOVE:
            scopes = batch_scopes(paths)
        started = self._clock()
        try:
            job = self._syncs.run_paths(scopes)
        except SyncBusyError:
            return BUSY_RETRY_SECONDS
        except MiniragError as e:  # the sync could not start (a path it refused): kept
            log.warning("watch: could not sync %s: %s", scopes or "the roots", e)
            return FAILED_RETRY_SECONDS
        self._report(job, changed, mode, self._clock() - started)
        if self._stop.is_set() or job["state"] == "succeeded" or only_files_failed(job):
            return None  # a file that failed to convert fails again until it changes
        # Cancelled: it made way for a sync someone asked for (what it wrote stays), and
        # is applied again after that one. Failed: kept, and tried again later.
        return BUSY_RETRY_SECONDS if job["state"] == "cancelled" else FAILED_RETRY_SECONDS

    def _report(self, job: JobStatus, changed: int, mode: WatchMode, seconds: float) -> None:
        if job["state"] == "failed":
            log.warning("watch: a sync failed: %s", job["error"])
        if self._on_batch is None:
            return
        batch: WatchBatch = {
            "mode": mode,
            "changedPaths": changed,
            "seconds": round(seconds, 3),
            "job": job,
        }
        try:
            self._on_batch(batch)
        except Exception as e:  # a display error must not stop the index from following
            log.warning("watch: the batch report failed: %s", e)


class Watching:
    """The watch mode of one index: at most one :class:`Watcher` at a time, started,
    waited for and stopped here (the facade's watch methods are one line each)."""

    def __init__(self, config: Config, syncs: SyncManager) -> None:
        self._config = config
        self._syncs = syncs
        self._lock = threading.Lock()
        self._watcher: Watcher | None = None

    def start(self, on_batch: OnBatch | None, *, block: bool = False) -> None:
        """Start a watcher unless one runs (RAG_WATCH=poll makes it poll). ``block``: then
        wait until interrupted (KeyboardInterrupt propagates after a clean stop)."""
        with self._lock:
            if self._watcher is None:
                force = self._config.watch == "poll"
                self._watcher = Watcher(
                    self._config, self._syncs, force_poll=force, on_batch=on_batch
                )
                self._watcher.start()
            watcher = self._watcher
        if block:
            self._block(watcher)

    def _block(self, watcher: Watcher) -> None:
        try:
            while not watcher.wait(0.5):
                pass
        finally:
            self.stop()

    def stop(self) -> None:
        """Stop the watcher: a sync it runs is cancelled (each file stays whole), and its
        thread is waited for (up to 30 s)."""
        with self._lock:
            watcher, self._watcher = self._watcher, None
        if watcher is None:
            return
        watcher.stop(timeout=0)
        self._syncs.cancel_all()  # the sync it runs, if any
        watcher.wait(30.0)

    def state(self) -> tuple[str, str | None]:
        """``(mode, note)``: "notify", "poll" or "off" here, and why it polls."""
        with self._lock:
            watcher = self._watcher
        if watcher is None or watcher.mode is None:
            return "off", None
        return watcher.mode, watcher.note
