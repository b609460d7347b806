"""The per-index sync lock: one sync at a time, across processes.

An advisory ``fcntl.flock`` on ``<DB_PATH>/.sync.lock``. The holder writes its PID and
start time into the file so a refused sync can say who holds it and for how long. The
kernel drops a flock when the holding process dies (even by SIGKILL), so the lock can
never go stale; the leftover text of a dead holder is simply overwritten by the next one.

Only syncs take this lock: single-file ingests and reads never look at it.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from types import TracebackType

from minirag_store.errors import SyncBusyError

__all__ = ["LOCK_NAME", "SyncLock", "describe_age", "describe_holder"]

LOCK_NAME = ".sync.lock"


def describe_age(seconds: float) -> str:
    """A duration for a message: "42s", "2m 3s", "1h 5m"."""
    seconds = max(0, int(seconds))
    if seconds < 60:
        return f"{seconds}s"
    minutes, sec = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}m {sec}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes}m"


def describe_holder(text: str, now: float | None = None) -> str:
    """Say who holds the lock from the lock file's content ("PID 123, running for 2m 3s")."""
    try:
        info = json.loads(text)
        pid = int(info["pid"])
        started = float(info["started"])
    except (ValueError, KeyError, TypeError):
        return "another process (its PID is not recorded yet)"
    ran = (time.time() if now is None else now) - started
    return f"PID {pid}, running for {describe_age(ran)}"


class SyncLock:
    """The advisory sync lock of one index directory.

    ``acquire()`` never waits: it either takes the lock or raises
    :class:`SyncBusyError` naming the holder. A flock belongs to the open file
    description, so it may be released from another thread than the one that took it
    (a background job takes it in the caller's thread and releases it in its worker).
    """

    def __init__(self, db_path: Path) -> None:
        self.path = Path(db_path) / LOCK_NAME
        self._fd: int | None = None
        self._guard = threading.Lock()

    @property
    def held(self) -> bool:
        """True while this object holds the lock."""
        return self._fd is not None

    def acquire(self) -> None:
        """Take the lock now or raise :class:`SyncBusyError` naming who holds it."""
        import fcntl

        with self._guard:
            if self._fd is not None:
                raise SyncBusyError("This sync lock is already held by this process")
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = describe_holder(_read_all(fd))
                os.close(fd)
                raise SyncBusyError(
                    f"Another sync is already running on this index ({holder}; lock file "
                    f"{self.path}). Wait for it to finish, or stop that process."
                ) from None
            except OSError as e:
                os.close(fd)
                raise SyncBusyError(f"Could not take the sync lock {self.path}: {e}") from e
            record = json.dumps({"pid": os.getpid(), "started": time.time()})
            os.ftruncate(fd, 0)
            os.pwrite(fd, record.encode(), 0)
            self._fd = fd

    def release(self) -> None:
        """Give the lock back (a no-op when not held)."""
        import fcntl

        with self._guard:
            fd, self._fd = self._fd, None
            if fd is None:
                return
            try:
                # Clear the record first so a reader never blames a finished process.
                os.ftruncate(fd, 0)
                fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                os.close(fd)

    def __enter__(self) -> SyncLock:
        self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()


def _read_all(fd: int) -> str:
    try:
        return os.pread(fd, 4096, 0).decode("utf-8", "replace")
    except OSError:
        return ""
