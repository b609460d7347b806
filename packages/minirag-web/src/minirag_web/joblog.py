"""The sync the page started last, so the health view can follow it live.

What every sync did (whoever ran it: the watcher, a client, the CLI, this page) and which
files failed is the index's own record (``status().lastSync``, ``list_files``:
:mod:`minirag_store.ingest.record`), not this process's memory: the page and the CLI
tell the same story.
"""

from __future__ import annotations

import threading

__all__ = ["SyncLog"]


class SyncLog:
    """The id of the latest sync started from the page."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._latest: str | None = None

    @property
    def latest(self) -> str | None:
        """The job id of the latest sync started from the page."""
        with self._lock:
            return self._latest

    def started(self, job_id: str) -> None:
        """A sync was started from the page."""
        with self._lock:
            self._latest = job_id
