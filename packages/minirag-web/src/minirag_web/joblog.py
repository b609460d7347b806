"""What the page remembers of syncs: the latest one, and which files failed in it.

The index keeps no record of a failed file (it is simply not indexed: ``list_files``
says ``not_ingested``); only the sync that tried it knows why. So the files view shows
a file as *failed*, with its error, when a sync this server ran or watched
(:meth:`SyncLog.record`: the team server feeds its watcher's batches here) failed on it
and no later one indexed it. A server that ran no sync yet knows of no failure.
"""

from __future__ import annotations

import threading

from minirag_store.results import JobStatus

__all__ = ["SyncLog"]


class SyncLog:
    """The id of the latest sync started from the page, and the files syncs failed on
    or skipped, with why."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._latest: str | None = None
        self._notes: dict[str, tuple[str, str]] = {}

    @property
    def latest(self) -> str | None:
        """The job id of the latest sync started from the page."""
        with self._lock:
            return self._latest

    def started(self, job_id: str) -> None:
        """A sync was started from the page."""
        with self._lock:
            self._latest = job_id

    def record(self, job: JobStatus) -> None:
        """A sync finished (one the page started, or a watcher's batch): a file it now
        indexed or dropped is no longer noted; each file it failed on or skipped (too
        large) is noted with why (a watcher's batch looks at a few files: the others'
        notes stand)."""
        if job["state"] in ("pending", "running"):
            return
        files = job.get("files")
        reasons = {e["source"]: e["error"] for e in job["errors"]}
        with self._lock:
            for key in ("ingested", "deleted", "unreadable"):
                for source in files[key] if files else ():  # type: ignore[literal-required]
                    self._notes.pop(source, None)
            for key in ("failed", "skipped"):
                for source in files[key] if files else ():  # type: ignore[literal-required]
                    if source in reasons:  # an unchanged file is skipped without a reason
                        self._notes[source] = (key, reasons[source])

    def notes(self) -> dict[str, tuple[str, str]]:
        """``{source: ("failed" | "skipped", why)}`` from the syncs seen."""
        with self._lock:
            return dict(self._notes)
