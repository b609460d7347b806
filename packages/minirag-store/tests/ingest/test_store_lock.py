"""The sync lock between real processes: refusal names the holder, SIGKILL frees it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from minirag_store.errors import SyncBusyError
from minirag_store.ingest.lock import SyncLock, describe_holder

HOLDER = """
import sys, time
from pathlib import Path
from minirag_store.ingest.lock import SyncLock
lock = SyncLock(Path(sys.argv[1]))
lock.acquire()
print("locked", flush=True)
time.sleep(600)
"""


def _start_holder(db: Path) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(db)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line.strip() == "locked", f"holder did not take the lock: {line!r}"
    return proc


def test_second_acquire_in_same_process_is_refused_and_release_frees(tmp_path: Path) -> None:
    first = SyncLock(tmp_path)
    first.acquire()
    with pytest.raises(SyncBusyError, match=rf"PID {os.getpid()}, running for \d+s"):
        SyncLock(tmp_path).acquire()
    first.release()
    with SyncLock(tmp_path) as again:
        assert again.held
    assert not again.held


def test_other_process_holds_lock_then_sigkill_releases_it(tmp_path: Path) -> None:
    proc = _start_holder(tmp_path)
    try:
        started = time.monotonic()
        with pytest.raises(SyncBusyError) as caught:
            SyncLock(tmp_path).acquire()
        assert time.monotonic() - started < 1.0, "a busy lock must be refused at once"
        message = str(caught.value)
        assert f"PID {proc.pid}" in message
        assert "running for" in message
        assert str(tmp_path / ".sync.lock") in message
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    # The kernel dropped the dead holder's flock: the lock is free without any cleanup.
    with SyncLock(tmp_path) as lock:
        assert lock.held


def test_describe_holder_formats_age_and_copes_with_garbage() -> None:
    assert describe_holder('{"pid": 42, "started": 100.0}', now=100.0 + 125) == (
        "PID 42, running for 2m 5s"
    )
    assert "not recorded" in describe_holder("")
    assert "not recorded" in describe_holder("garbage")
