"""The index's own account of its syncs: the last one, whoever ran it, and the files
syncs could not read, kept in ``<DB_PATH>/last-sync.json``.

Why in the index folder: the page, ``minirag-cli``, a client's server and the watcher are
often different processes. Each kept only what it saw: the page said "No sync started from
this page yet" right after ``ui``'s own start-up sync, and its files view counted a file
*failed* or *not ingested* depending on which syncs that process had watched. Written at
the end of every sync (under its lock, so two syncs never interleave their records);
read by ``status`` (``lastSync``) and ``list_files`` (a file a sync failed on is listed
``failed`` with the error until a later sync indexes it or it goes).

An index on object storage has no local folder: it keeps no record (``lastSync`` null).
A record that cannot be written (a read-only folder) is logged, never raised: the sync
itself succeeded or failed on its own.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
from pathlib import Path
from typing import Any

from minirag_store.results import JobStatus, LastSync, SyncOrigin

__all__ = ["FILE_NAME", "MAX_FAILED", "failed_files", "last_sync", "remember"]

log = logging.getLogger(__name__)

FILE_NAME = "last-sync.json"
#: Failed files remembered at most (a broken mount can fail thousands: the first are enough).
MAX_FAILED = 1000
#: The last sync's per-file errors kept for status (the files view lists them all).
_ERRORS_SHOWN = 20


def _load(db_path: Path | None) -> dict[str, Any]:
    if db_path is None:
        return {}
    try:
        data = json.loads((Path(db_path) / FILE_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def last_sync(db_path: Path | None) -> LastSync | None:
    """The last sync of the index at ``db_path``, or None (none yet, or unreadable)."""
    last = _load(db_path).get("last")
    return last if isinstance(last, dict) else None  # type: ignore[return-value]


def failed_files(db_path: Path | None) -> dict[str, str]:
    """``{source: error}`` of the files syncs failed on and have not indexed since."""
    return _failed(_load(db_path))


def _failed(data: dict[str, Any]) -> dict[str, str]:
    failed = data.get("failed")
    if not isinstance(failed, dict):
        return {}
    return {str(k): str(v) for k, v in failed.items()}


def remember(db_path: Path | None, job: JobStatus, origin: SyncOrigin) -> None:
    """Record ``job`` (finished) as the index's last sync, started by ``origin``, and
    update the failed files: those it indexed, deleted or skipped are forgotten, those it
    failed on are noted with their error (files outside its scope keep their notes)."""
    if db_path is None:
        return
    data = _load(db_path)
    failed = _failed(data)  # from the one read of the record
    named = job.get("files") or {}
    for outcome in ("ingested", "deleted", "skipped", "unsupported", "unreadable"):
        for source in named.get(outcome, ()):  # type: ignore[attr-defined]
            failed.pop(source, None)
    errors = {e["source"]: e["error"] for e in job["errors"]}
    for source in named.get("failed", ()):
        if source in errors and (source in failed or len(failed) < MAX_FAILED):
            failed[source] = errors[source]
    data["last"] = {
        "origin": origin,
        "jobId": job["jobId"],
        "state": job["state"],
        "startedAt": job["startedAt"],
        "finishedAt": job["finishedAt"],
        "counts": job["counts"],
        "error": job["error"],
        "errors": job["errors"][:_ERRORS_SHOWN],
    }
    data["failed"] = failed
    _write(Path(db_path), data)


def _write(folder: Path, data: dict[str, Any]) -> None:
    try:
        fd, tmp = tempfile.mkstemp(prefix=".last-sync-", suffix=".tmp", dir=folder)
    except OSError as e:
        log.warning("could not record the sync in %s: %s", folder, e)
        return
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(data, out, ensure_ascii=False)
        os.replace(tmp, folder / FILE_NAME)
    except OSError as e:
        log.warning("could not record the sync in %s: %s", folder, e)
        with contextlib.suppress(OSError):
            Path(tmp).unlink()
