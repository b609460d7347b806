"""The wire shapes of syncs and jobs: counts, per-file errors, the finished job, the
watcher's batches, the index's last sync, progress reports. Re-exported by
:mod:`minirag_store.results` (import them from there); kept apart so neither module
outgrows the size cap.

No ``from __future__ import annotations`` here: with string annotations a TypedDict
cannot see ``NotRequired``, and every optional field would count as required.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, NotRequired

# typing_extensions, not typing: pydantic rejects typing.TypedDict on Python < 3.12.
from typing_extensions import TypedDict

__all__ = [
    "SYNC_ORIGINS",
    "JobCounts",
    "JobError",
    "JobFiles",
    "JobState",
    "JobStatus",
    "KnownIndexRow",
    "LastSync",
    "Progress",
    "ProgressCallback",
    "SlowFile",
    "SyncOrigin",
    "SyncStarted",
    "WatchBatch",
]

JobState = Literal["pending", "running", "succeeded", "failed", "cancelled"]
#: Who started a sync: the watcher, the web page, an MCP client (sync_start), the CLI.
SyncOrigin = Literal["watcher", "page", "client", "cli"]
#: Each origin as the shells say who ran a sync.
SYNC_ORIGINS: dict[str, str] = {
    "watcher": "the watcher (files changed)",
    "page": "the web page",
    "client": "an MCP client (sync_start)",
    "cli": "minirag-cli",
}


class JobCounts(TypedDict):
    """Live counters of a sync job. ``skipped`` covers files left as they are: unchanged
    since the last sync, holding no text (empty), or excluded (over MAX_FILE_SIZE); each
    empty or excluded one has its reason in ``errors``."""

    scanned: int
    ingested: int
    skipped: int
    deleted: int
    unreadable: int
    failed: int
    unsupported: int  # files of a type minirag does not read (counted in ``scanned`` too)


class JobError(TypedDict):
    """A per-file problem of a sync job."""

    source: str
    error: str


class JobFiles(TypedDict):
    """The files a finished sync or multi-file ingest handled, by outcome (the count keys)."""

    ingested: list[str]
    skipped: list[str]  # unchanged, or over MAX_FILE_SIZE (its entry in errors says so)
    deleted: list[str]
    unreadable: list[str]
    failed: list[str]  # each one's reason is in errors
    unsupported: list[str]


class SlowFile(TypedDict):
    """One of a sync's slowest files and where its time went (measured, in seconds)."""

    source: str
    seconds: float  # the parts below added up (time queued or committing not included)
    convertSeconds: float  # converting it to markdown in a worker, OCR included
    ocrPages: int  # pages (image frames) OCRed ...
    ocrSeconds: float  # ... and the time they took
    chunkSeconds: float  # cutting it into chunks
    embedSeconds: float  # its share of the embedding batches its chunks were in
    chunks: int


class JobStatus(TypedDict):
    """``sync_status``, and the result of a foreground sync or multi-file ``ingest``."""

    jobId: str
    state: JobState
    startedAt: str | None  # ISO-8601 UTC
    finishedAt: str | None
    counts: JobCounts
    errors: list[JobError]  # the first jobs.MAX_ERRORS per-file problems
    errorsOmitted: NotRequired[int]  # how many more there were, when there were more
    error: str | None  # why the whole job failed, when it did
    # Once the job finished: which files, by outcome. A foreground run (CLI sync/ingest)
    # names every file; a background job names the first jobs.MAX_ERRORS of each outcome.
    files: NotRequired[JobFiles]
    filesOmitted: NotRequired[int]  # names left out of ``files`` (their counts still hold)
    slowest: NotRequired[list[SlowFile]]  # once finished: the files that took longest


class WatchBatch(TypedDict):
    """One sync the watcher applied (``minirag-cli watch`` prints each one; ``--json``
    one per line)."""

    mode: Literal["notify", "poll"]  # how the change was learnt
    changedPaths: int  # notified paths behind it (0: a full sync, at start or a poll)
    seconds: float  # how long the sync took
    job: JobStatus  # the sync itself: counts, files by outcome, errors


class SyncStarted(TypedDict):
    """``sync_start``."""

    jobId: str


class LastSync(TypedDict):
    """``status.lastSync``: the index's last sync, whichever process ran it
    (:mod:`minirag_store.ingest.record`)."""

    origin: SyncOrigin
    jobId: str
    state: JobState
    startedAt: str | None  # ISO-8601 UTC
    finishedAt: str | None
    counts: JobCounts
    error: str | None
    errors: list[JobError]  # its first per-file problems (list_files names every failed file)


class KnownIndexRow(TypedDict):
    """One index in the per-user record of synced indexes."""

    roots: list[str]
    index: str  # its folder (or object-store URI)
    syncedAt: str  # when it last synced successfully, ISO 8601 UTC


@dataclass(frozen=True)
class Progress:
    """One progress report of a running sync or multi-file ingest, for a bar or a log."""

    done: int  # files finished (ingested, skipped, failed ...)
    total: int | None  # files to look at, once the scan has counted them
    current: str | None  # the source last finished
    counts: JobCounts
    chunks: int = 0  # chunks written so far
    reading: str | None = None  # the file being converted (in a pool: longest in flight)


ProgressCallback = Callable[[Progress], None]
