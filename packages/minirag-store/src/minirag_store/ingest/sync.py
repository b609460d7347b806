"""Sync: reconcile the index with the document roots, in the foreground or as a job.

One scan, the indexed sources' metadata and a stat comparison decide everything, so a
re-sync of an unchanged corpus issues no per-file query; when the index summary is
current (:mod:`minirag_store.index.storage.summary`) and nothing changed, it opens neither LanceDB
nor the model. Per file:

* not indexed, or cut by an older chunking scheme -> parsed and ingested;
* (size, mtime) as indexed -> skipped, nothing read;
* (size, mtime) differ -> hashed in a worker; the same bytes -> skipped, and the new
  mtime is stored (``table.touch``) so the file is not hashed again next time;
  other bytes -> parsed and ingested;
* larger than MAX_FILE_SIZE -> counted ``skipped`` with a ``skipped-oversized`` entry in
  ``errors``. Deliberately not ``failed``: shells exit 1 on failures, and a file the
  user chose not to index would otherwise fail every sync until it is deleted;
* indexed but gone from the scan -> deleted, except an image that is still on disk
  while the OCR add-on is missing: it is kept and counted ``unreadable``.
* read, but holding no text -> counted ``skipped`` with a ``skipped-empty`` entry in
  ``errors``, and remembered (:mod:`empties`): not read again until it changes;
* of a type minirag does not read -> counted ``unsupported`` (and ``scanned``), named.

Only file sources inside the current roots (and the requested path) are ever deleted;
data and URL sources are never touched. One sync at a time per index: the flock of a
local index folder (:mod:`lock`), the lease object of one on object storage (:mod:`lease`).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from minirag_store.config import Config
from minirag_store.errors import MiniragError, PathOutsideRootsError, SyncBusyError
from minirag_store.ingest.jobs import Job, JobRegistry
from minirag_store.ingest.lease import SyncLease, failure_text, lease_lost, take_sync_guard
from minirag_store.ingest.lock import SyncLock
from minirag_store.ingest.operations import (
    idle_seconds,
    oversized_message,
    report_progress,
    write_parsed,
)
from minirag_store.ingest.plan import Scope, SyncPlan, plan_sync
from minirag_store.ingest.record import remember
from minirag_store.ingest.watch import Watching
from minirag_store.ingest.workers import Parsed, parse_all
from minirag_store.paths import root_of, source_for_path
from minirag_store.results import JobStatus, SyncOrigin

if TYPE_CHECKING:
    from minirag_store.parts import Ingesting
    from minirag_store.results import ProgressCallback

__all__ = ["Scope", "SyncManager", "SyncPlan", "plan_sync", "reconcile"]

#: How long a sync someone asked for waits (pending, in its own thread) for the watcher's
#: sync it cancelled to end (the writer completes the window it holds: at most 512 chunks
#: to embed, then the sync's end: its commit and maintenance).
PREEMPT_WAIT_SECONDS = 60.0


def _unreadable_message() -> str:
    from minirag_store.convert.formats import OCR_INSTALL_HINT

    return (
        "kept in the index: this install cannot read images without the OCR add-on, so the "
        f"file was neither re-ingested nor deleted; install it with: {OCR_INSTALL_HINT}"
    )


def _record_plan(job: Job, plan: SyncPlan, config: Config) -> None:
    job.add("scanned", plan.scanned)
    job.total = plan.scanned
    job.record("skipped", plan.unchanged)
    job.done += len(plan.unchanged)
    for source, size in plan.oversized:
        job.note(source, oversized_message(size, config.max_file_size), count="skipped")
        job.done += 1
    for source in plan.unreadable:
        job.note(source, _unreadable_message(), count="unreadable")
    for source, reason in plan.empty:
        job.note(source, f"skipped-empty: {reason}", count="skipped")
        job.done += 1
    job.record("unsupported", plan.unsupported)


def _touch(table: Any, touched: list[Parsed]) -> None:
    """Store the new mtime of files whose bytes hashed as already indexed.

    One update per such file; they are rare (a checkout or a copy that kept the bytes),
    and each one saves hashing that file on every later sync.
    """
    for parsed in touched:
        table.touch(parsed.source, parsed.mtime)


def reconcile(
    index: Ingesting,
    job: Job,
    under: Scope,
    progress: ProgressCallback | None = None,
    ray: str | None = None,
) -> None:
    """Run one sync of ``under`` (None: every root) into ``job`` (the caller holds the
    sync lock and finishes the job); with ``ray`` (a Ray address) the files are parsed,
    embedded and written on that cluster (:mod:`minirag_store.ingest.distributed`)."""
    from minirag_store.index.storage import summary
    from minirag_store.index.storage.keyword_column import KEYWORDS_VERSION
    from minirag_store.ingest import empties
    from minirag_store.ingest.scan import scan_scope

    config = index.config
    scanned = scan_scope(config, under, job.note)
    known_empty = empties.load(config.db_path)
    # The summary file answers a sync with nothing to do without opening LanceDB or the
    # model; a stale or absent one (or another model's: the table raises the mismatch)
    # means reading the table.
    current = summary.load(config.db_path)
    if current is not None and current.model_id == config.model_name:
        plan = plan_sync(config, scanned, current.sources, under, known_empty)
        if not (plan.tasks or plan.to_delete or current.keywords_stale(KEYWORDS_VERSION)):
            _record_plan(job, plan, config)
            report_progress(job, progress, None, finished=False)
            return
    table = index.table()
    plan = plan_sync(config, scanned, table.source_meta(), under, known_empty)
    _record_plan(job, plan, config)
    report_progress(job, progress, None, finished=False)  # the scan's report: totals known
    if plan.to_delete and not job.cancel_requested:
        table.delete_sources(plan.to_delete)
        job.record("deleted", plan.to_delete)
    if not plan.tasks:
        # An index from an older keyword scheme is rebuilt by a re-sync with no changes too.
        if plan.to_delete or table.keywords_stale():
            table.maintain()
        return
    touched: list[Parsed] = []
    try:
        _parse_and_write(index, job, plan, touched, progress=progress, ray=ray)
    finally:
        _touch(table, touched)
        scope = tuple(str(path) for path in under) if under is not None else None
        present = {entry.source for entry in scanned.files}
        tasks = [task.source for task in plan.tasks]
        found = empties.updated(known_empty, tasks, present, scope, job.empty)
        if found != known_empty:
            empties.store(config.db_path, found)


def _parse_and_write(
    index: Ingesting,
    job: Job,
    plan: SyncPlan,
    touched: list[Parsed],
    *,
    progress: ProgressCallback | None,
    ray: str | None,
) -> None:
    """Parse ``plan``'s tasks (here or on Ray) and write them, counting into ``job``."""
    if ray is not None:
        from minirag_store.ingest.distributed import sync_on_ray

        sync_on_ray(index, job, plan.tasks, ray, progress=progress, touched=touched)
        return
    stream = parse_all(
        plan.tasks,
        index.config,
        cancelled=lambda: job.cancel_requested,
        idle=idle_seconds(),
        busy=lambda source: setattr(job, "reading", source),
    )
    try:
        write_parsed(index, job, stream, progress=progress, touched=touched)
    finally:
        stream.close()  # after a cancel: stop the parse pool now, not at garbage collection


class SyncManager:
    """Sync jobs of one Ingesting: background (:meth:`start`) or foreground (:meth:`run`)."""

    def __init__(self, index: Ingesting) -> None:
        self._index = index
        self._jobs = JobRegistry()
        self._guard = threading.Lock()
        self._threads: dict[str, threading.Thread] = {}
        self._watch_job: Job | None = None  # the watcher's sync, while it runs
        self.watching = Watching(index.config, self)  # watch mode: the watcher, when one runs

    def _under(self, path: str | None) -> Scope:
        if path is None or not path.strip():
            return None
        return (Path(source_for_path(self._index.config, path)),)

    def _inside(self, path: str) -> Path:
        """``path`` as given (a link's own path is kept), refused unless it lies under a
        root: a sync of it may delete what was indexed there."""
        lexical = Path(os.path.normpath(path))
        if not lexical.is_absolute() or root_of(self._index.config, lexical) is None:
            raise PathOutsideRootsError(f"Not a path under the document roots: {path}")
        return lexical

    def _begin(
        self, under: Scope, *, foreground: bool, watcher: bool = False, preempt: bool = False
    ) -> tuple[Job, SyncLock | SyncLease | None, Job | None]:
        """Refuse if a sync runs (here or elsewhere), register a job: ``(job, its lock,
        the watcher's sync it waits for)``.

        ``preempt`` (a sync someone asked for): a watcher's sync in the way is asked to
        stop instead of refusing the caller; the job is then registered pending, without
        the lock, which :meth:`_work` takes once that sync has ended (so the caller does
        not wait for it, and the watcher's retry meets this job and waits its turn).
        A foreground job names every file in its result; a background one, polled by a
        model, the first :data:`~minirag_store.ingest.jobs.MAX_ERRORS` of each outcome.
        """
        with self._guard:
            ahead = self._watch_job if preempt else None
            if ahead is not None and ahead.finished:
                ahead = None  # ended, and its lock released: nothing to wait for
            # Checked before the flock: this process's own lock would otherwise refuse us
            # with a message naming our own PID.
            if active := [job for job in self._jobs.active() if job is not ahead]:
                raise SyncBusyError(
                    f"A sync job ({active[0].job_id}) is already running in this process; "
                    "poll sync_status until it finishes, or cancel it"
                )
            lock = None if ahead is not None else self._take_guard()
            job = Job(listed=None) if foreground else Job()
            if isinstance(lock, SyncLease):
                # Taken over by another process (this one froze past the lease timeout):
                # stop after the files in hand instead of racing the new holder.
                lock.on_lost = job.request_cancel
            self._jobs.add(job)
            if watcher:
                self._watch_job = job
        if ahead is not None:
            ahead.request_cancel()
        return job, lock, ahead

    def _take_guard(self) -> SyncLock | SyncLease:
        return take_sync_guard(self._index.config)

    def _after(self, job: Job, ahead: Job) -> SyncLock | SyncLease | None:
        """Wait (in the job's thread) for the watcher's sync ``job`` pre-empted to end,
        then take the lock; None (and ``job`` finished) when it cannot run."""
        if not ahead.wait(PREEMPT_WAIT_SECONDS):
            job.finish(
                "failed", f"the watcher's sync did not stop within {PREEMPT_WAIT_SECONDS:.0f} s"
            )
            return None
        if job.cancel_requested:
            job.finish("cancelled")
            return None
        try:
            lock = self._take_guard()
        except MiniragError as e:  # another process took the lock meanwhile
            job.finish("failed", str(e))
            return None
        if isinstance(lock, SyncLease):
            lock.on_lost = job.request_cancel
        return lock

    def _work(
        self,
        job: Job,
        lock: SyncLock | SyncLease | None,
        under: Scope,
        progress: ProgressCallback | None,
        ray: str | None = None,
        *,
        ahead: Job | None = None,
        origin: SyncOrigin = "client",
    ) -> None:
        if lock is None:
            assert ahead is not None, "a job without its lock waits for the watcher's sync"
            lock = self._after(job, ahead)
            if lock is None:
                return
        job.start()
        state, error = "failed", "interrupted"
        try:
            reconcile(self._index, job, under, progress, ray)
            state, error = ("cancelled" if job.cancel_requested else "succeeded"), None
        except MiniragError as e:
            error = str(e)
        except Exception as e:  # a background job reports what broke instead of dying silently
            error = failure_text(self._index.config, e)
        finally:
            if (lost := lease_lost(lock)) is not None:
                state, error = "failed", lost
            # Recorded under the lock (no other sync's record interleaves), released
            # before publishing the terminal state: a client that restarts as soon as it
            # sees "succeeded" must not meet this process's own flock.
            remember(self._index.config.db_path, job.ending(state, error), origin)  # type: ignore[arg-type]
            lock.release()
            job.finish(state, error)  # type: ignore[arg-type]

    def _ray(self, ray: str | None) -> str | None:
        """The Ray address a sync someone asked for runs on: ``ray`` ("" = the configured
        RAG_RAY_ADDRESS, else a local runtime), else RAG_RAY_ADDRESS, else None (local).
        The extra's absence is refused here, before any lock is taken."""
        address = self._index.config.ray_address if ray is None else ray
        if address is None:
            return None
        from minirag_store.ingest.distributed import LOCAL, check_installed

        check_installed()
        return address or self._index.config.ray_address or LOCAL

    def start(
        self, path: str | None = None, *, ray: str | None = None, origin: SyncOrigin = "client"
    ) -> str:
        """Start a background sync; returns its jobId at once. Refuses at once when busy;
        a watcher's sync in the way is cancelled to make way, and the job waits for it
        in its own thread, ``pending`` meanwhile (see :meth:`_begin`)."""
        under = self._under(path)
        address = self._ray(ray)
        job, lock, ahead = self._begin(under, foreground=False, preempt=True)
        thread = threading.Thread(
            target=self._work,
            args=(job, lock, under, None, address),
            kwargs={"ahead": ahead, "origin": origin},
            name=f"minirag-sync-{job.job_id}",
        )
        thread.daemon = True
        try:
            thread.start()
        except RuntimeError as e:
            if lock is not None:
                lock.release()
            job.finish("failed", f"could not start the sync thread: {e}")
            raise
        self._threads[job.job_id] = thread
        return job.job_id

    def run(
        self,
        path: str | None = None,
        progress: ProgressCallback | None = None,
        *,
        ray: str | None = None,
        origin: SyncOrigin = "cli",
    ) -> JobStatus:
        """Sync in the calling thread and return the finished job (before a watcher's,
        which is cancelled and waited for); ``ray``: on a Ray cluster (see :meth:`_ray`)."""
        under = self._under(path)
        address = self._ray(ray)
        job, lock, ahead = self._begin(under, foreground=True, preempt=True)
        self._work(job, lock, under, progress, address, ahead=ahead, origin=origin)
        return job.snapshot()

    def run_paths(
        self, paths: Sequence[str] | None, progress: ProgressCallback | None = None
    ) -> JobStatus:
        """Sync exactly ``paths`` (absolute, under a root; None: every root) in the
        calling thread, as one job: the watcher's batches. A path that is gone has what
        was indexed under it deleted; an empty list does nothing. Files are named as a
        background job names them (the first hundred of each outcome): the job id is
        what a model polling sync_status may meet."""
        under = None if paths is None else tuple(self._inside(p) for p in paths)
        job, lock, _ = self._begin(under, foreground=False, watcher=True)
        try:
            self._work(job, lock, under, progress, origin="watcher")
        finally:
            self._watch_job = None
        return job.snapshot()

    def status(self, job_id: str) -> JobStatus:
        """The live status of a job (NotFoundError for an unknown id)."""
        return self._jobs.get(job_id).snapshot()

    def cancel(self, job_id: str) -> JobStatus:
        """Ask a job to stop after the files in hand; returns its status now."""
        job = self._jobs.get(job_id)
        if not job.finished:
            job.request_cancel()
        return job.snapshot()

    def wait(self, job_id: str, timeout: float | None = None) -> JobStatus:
        """Block until a background job finishes (or ``timeout`` passes); its status."""
        thread = self._threads.get(job_id)
        if thread is not None:
            thread.join(timeout)
        return self.status(job_id)

    def cancel_all(self) -> None:
        """Ask every running job to stop after the files in hand."""
        for job in self._jobs.active():
            job.request_cancel()

    def shutdown(self, timeout: float = 30.0) -> None:
        """Stop the watcher, cancel running jobs and wait (up to ``timeout`` each) for
        their threads."""
        self.watching.stop()
        self.cancel_all()
        for thread in list(self._threads.values()):
            thread.join(timeout)
