"""Job records: live counters, per-file errors and the state of one sync or bulk ingest.

A :class:`Job` is written by the one thread doing the work and read by any number of
pollers, so every change and every snapshot happens under its lock: a poll sees the
counts as they are *now*, not zeros until the end. A finished job also names its files
by outcome (``files``) and its slowest files (``slowest``). A job that ends with failed
files ends ``failed``: the state and a shell's exit status always agree.
:class:`JobRegistry` keeps the most recent jobs of an Index so ``sync_status`` can answer
for them after they finish.
"""

from __future__ import annotations

import heapq
import threading
import uuid
from collections import OrderedDict
from collections.abc import Iterable
from datetime import UTC, datetime

from minirag_store.errors import NotFoundError
from minirag_store.results import JobCounts, JobError, JobFiles, JobState, JobStatus, SlowFile

__all__ = [
    "COUNT_KEYS",
    "FILE_KEYS",
    "MAX_ERRORS",
    "SLOWEST",
    "Job",
    "JobRegistry",
    "files_failed",
    "now_iso",
    "only_files_failed",
    "ran_through",
]

#: The seed's six counts, then what was added after (kept in this order on every surface).
COUNT_KEYS: tuple[str, ...] = (
    "scanned", "ingested", "skipped", "deleted", "unreadable", "failed", "unsupported"
)  # fmt: skip
#: The outcomes a file can have; ``files`` lists sources under these keys.
FILE_KEYS: tuple[str, ...] = COUNT_KEYS[1:]
#: How many of the slowest files a finished job names.
SLOWEST = 5
#: Per-file errors a job lists; the rest are only counted (``errorsOmitted``). A sync over
#: a folder of ten thousand broken files must not answer every poll with all of them.
MAX_ERRORS = 100
_TERMINAL: frozenset[str] = frozenset({"succeeded", "failed", "cancelled"})


def now_iso() -> str:
    """The current time as ISO-8601 UTC (what startedAt/finishedAt carry)."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def files_failed(count: int) -> str:
    """The ``error`` of a job that ran to its end with ``count`` failed files."""
    return f"{count} file{'s' if count != 1 else ''} could not be ingested (see errors)"


def only_files_failed(status: JobStatus) -> bool:
    """Whether a finished job ran to its end and failed only because some files did
    (a retry of the same files would fail alike): not the whole job."""
    failed = status["counts"]["failed"]
    return status["state"] == "failed" and bool(failed) and status["error"] == files_failed(failed)


def ran_through(status: JobStatus) -> bool:
    """Whether a finished job ran to its end: succeeded, or failed only on some files."""
    return status["state"] == "succeeded" or only_files_failed(status)


def _zero_counts() -> JobCounts:
    return JobCounts(**dict.fromkeys(COUNT_KEYS, 0))  # type: ignore[typeddict-item]


class Job:
    """One job's live record. Thread-safe; :meth:`snapshot` returns the wire shape.

    ``listed``: how many sources of each outcome ``files`` names (None: all of them).
    A background job a model polls keeps the default, :data:`MAX_ERRORS`; a foreground
    run, whose caller asked for the whole report, names every file.
    """

    def __init__(self, job_id: str | None = None, *, listed: int | None = MAX_ERRORS) -> None:
        self.job_id = job_id or uuid.uuid4().hex
        self._lock = threading.Lock()
        self._state: JobState = "pending"
        self._started: str | None = None
        self._finished: str | None = None
        self._counts = _zero_counts()
        self._errors: list[JobError] = []
        self._errors_omitted = 0
        self._listed = listed
        self._files: dict[str, list[str]] = {key: [] for key in FILE_KEYS}
        self._files_omitted = 0
        self._error: str | None = None
        self._cancel = threading.Event()
        self._ended = threading.Event()  # set once the terminal state is published
        self._slowest: list[tuple[float, int, SlowFile]] = []  # a min-heap of SLOWEST
        self._offered = 0
        self.done = 0  # files finished, for progress bars
        self.total: int | None = None
        self.chunks = 0  # chunks written, for progress lines
        self.reading: str | None = None  # the file being converted now
        #: source -> (size, mtime, reason) of the files this job found to hold no text
        self.empty: dict[str, tuple[int, float, str]] = {}

    # ---------------------------------------------------------------- writers
    def start(self) -> None:
        """Mark the job running (records startedAt)."""
        with self._lock:
            self._state = "running"
            self._started = now_iso()

    def add(self, key: str, n: int = 1) -> None:
        """Bump one counter (``scanned``, ``ingested`` ...) by ``n``, naming no file."""
        with self._lock:
            self._counts[key] += n  # type: ignore[literal-required]

    def record(self, key: str, sources: Iterable[str]) -> None:
        """Count ``sources`` under the outcome ``key`` (``ingested``, ``skipped`` ...) and
        name them in ``files``."""
        with self._lock:
            for source in sources:
                self._counts[key] += 1  # type: ignore[literal-required]
                self._list(key, source)

    def _list(self, key: str, source: str) -> None:
        names = self._files[key]
        if self._listed is None or len(names) < self._listed:
            names.append(source)
        else:
            self._files_omitted += 1

    def note(self, source: str, error: str, *, count: str | None = None) -> None:
        """Record a per-file problem, optionally counting (and naming) the file under
        the outcome ``count``."""
        with self._lock:
            if len(self._errors) < MAX_ERRORS:
                self._errors.append({"source": source, "error": error})
            else:
                self._errors_omitted += 1
            if count is not None:
                self._counts[count] += 1  # type: ignore[literal-required]
                self._list(count, source)

    def timed(self, slow: SlowFile) -> None:
        """Offer one file's measured times; the job keeps the :data:`SLOWEST`."""
        with self._lock:
            self._offered += 1  # a tie-break: two equal times never compare their dicts
            item = (slow["seconds"], self._offered, slow)
            if len(self._slowest) < SLOWEST:
                heapq.heappush(self._slowest, item)
            elif item[0] > self._slowest[0][0]:
                heapq.heapreplace(self._slowest, item)

    def finish(self, state: JobState, error: str | None = None) -> None:
        """Publish the end: finishedAt first, then the terminal state pollers act on.

        A job said to have succeeded while some file failed ends ``failed``, saying how
        many: its state then tells what a shell's exit status does (one rule, here)."""
        with self._lock:
            state, error = self._final(state, error)
            if self._started is None:
                self._started = now_iso()
            self._finished = now_iso()
            self._error = error
            self._state = state
        self._ended.set()

    def _final(self, state: JobState, error: str | None) -> tuple[JobState, str | None]:
        if state == "succeeded" and self._counts["failed"]:
            return "failed", files_failed(self._counts["failed"])
        return state, error

    def ending(self, state: JobState, error: str | None = None) -> JobStatus:
        """The report :meth:`finish` with ``state`` and ``error`` would publish, before it
        does (what a sync records while it still holds its lock)."""
        with self._lock:
            final = self._final(state, error)
            ended = {"finishedAt": self._finished or now_iso(), "startedAt": self._started}
        status = self.snapshot()
        status.update({"state": final[0], "error": final[1], **ended})  # type: ignore[typeddict-item]
        if "files" not in status:
            with self._lock:
                status["files"] = self._named()
        return status

    # ---------------------------------------------------------------- readers
    @property
    def state(self) -> JobState:
        """The current state."""
        with self._lock:
            return self._state

    @property
    def finished(self) -> bool:
        """True once the job reached succeeded, failed or cancelled."""
        return self.state in _TERMINAL

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the job has finished (or ``timeout`` passes); True once it has."""
        return self._ended.wait(timeout)

    def counts(self) -> JobCounts:
        """A copy of the counters now."""
        with self._lock:
            return JobCounts(**self._counts)

    def snapshot(self) -> JobStatus:
        """The job as ``sync_status`` returns it, consistent at one instant."""
        with self._lock:
            status: JobStatus = {
                "jobId": self.job_id,
                "state": self._state,
                "startedAt": self._started,
                "finishedAt": self._finished,
                "counts": JobCounts(**self._counts),
                "errors": list(self._errors),
                "error": self._error,
            }
            if self._errors_omitted:
                status["errorsOmitted"] = self._errors_omitted
            if self._state in _TERMINAL:
                # Only the final report names files: live polls stay small.
                status["files"] = self._named()
                if self._files_omitted:
                    status["filesOmitted"] = self._files_omitted
                if self._slowest:
                    status["slowest"] = [s for _, _, s in sorted(self._slowest, reverse=True)]
            return status

    def _named(self) -> JobFiles:
        files = self._files
        return {
            "ingested": list(files["ingested"]),
            "skipped": list(files["skipped"]),
            "deleted": list(files["deleted"]),
            "unreadable": list(files["unreadable"]),
            "failed": list(files["failed"]),
            "unsupported": list(files["unsupported"]),
        }

    # ------------------------------------------------------------ cancellation
    def request_cancel(self) -> None:
        """Ask the worker to stop at the next file boundary."""
        self._cancel.set()

    @property
    def cancel_requested(self) -> bool:
        """True once :meth:`request_cancel` was called."""
        return self._cancel.is_set()


class JobRegistry:
    """The recent jobs of one Index, newest last; old finished ones are forgotten."""

    def __init__(self, keep: int = 32) -> None:
        self._keep = keep
        self._jobs: OrderedDict[str, Job] = OrderedDict()
        self._lock = threading.Lock()

    def add(self, job: Job) -> None:
        """Register a job, dropping the oldest finished ones beyond ``keep``."""
        with self._lock:
            self._jobs[job.job_id] = job
            excess = len(self._jobs) - self._keep
            for old_id in [j for j, old in self._jobs.items() if old.finished][: max(0, excess)]:
                del self._jobs[old_id]

    def get(self, job_id: str) -> Job:
        """The job with this id, or :class:`NotFoundError`."""
        with self._lock:
            job = self._jobs.get(job_id)
        if job is None:
            raise NotFoundError(
                f"Unknown sync job {job_id!r}: it was never started by this process, or it "
                "finished long enough ago to be forgotten. Start a new one with sync_start."
            )
        return job

    def active(self) -> list[Job]:
        """Jobs not finished yet."""
        with self._lock:
            return [job for job in self._jobs.values() if not job.finished]
