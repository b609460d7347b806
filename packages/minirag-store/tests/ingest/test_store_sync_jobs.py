"""Background sync jobs: live counts, cancellation, progress, and one-sync-at-a-time.

A gate around the real embedder holds a job still after its first committed batch,
so a test can look at it mid-run without racing it. The vectors stay real.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from minirag_store.errors import NotFoundError, SyncBusyError
from minirag_testkit.answers import expand

FILES = 40  # several writer buffers (shrunk to 8 documents below), and enough to use the pool


@pytest.fixture(autouse=True)
def _small_buffers(monkeypatch: pytest.MonkeyPatch) -> None:
    from minirag_store.index.write import writer as pipeline

    monkeypatch.setattr(pipeline, "FLUSH_DOCS", 8)


def _corpus(root: Path, n: int = FILES) -> list[Path]:
    paths = []
    for i in range(n):
        path = root / f"part{i // 15}" / f"note{i:03d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            f"# Note {i}\n\nObservation {i} about tide pools and crabs.\n\n"
            f"Second paragraph of note {i}, on barnacles.\n\nEND-OF-NOTE-{i:03d}\n",
            encoding="utf-8",
        )
        paths.append(path)
    return paths


class Gate:
    """Lets the first ``free`` embedding calls through, then holds the rest until opened."""

    def __init__(self, index, free: int = 1) -> None:
        self.opened = threading.Event()
        self.calls = 0
        embedder = index.embedder()
        real = embedder.embed_passages

        def gated(texts):
            self.calls += 1
            if self.calls > free:
                assert self.opened.wait(60), "test never opened the gate"
            return real(texts)

        embedder.embed_passages = gated  # instance attribute: only this Index is gated


def _wait_for(predicate, timeout: float = 60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError("condition not reached in time")


def test_counts_are_live_and_a_second_sync_is_refused(make_index, docs_root: Path) -> None:
    index = make_index()
    _corpus(docs_root)
    gate = Gate(index)
    job_id = index.sync_start()["jobId"]
    try:
        mid = _wait_for(lambda: (s := index.sync_status(job_id))["counts"]["ingested"] > 0 and s)
        assert mid["state"] == "running"
        assert mid["finishedAt"] is None
        assert mid["counts"]["scanned"] == FILES
        assert 0 < mid["counts"]["ingested"] < FILES
        with pytest.raises(SyncBusyError, match="already running in this process"):
            index.sync()
        with pytest.raises(SyncBusyError):
            index.sync_start()
    finally:
        gate.opened.set()
    end = index.syncs().wait(job_id, 120)
    assert end["state"] == "succeeded"
    assert end["counts"]["ingested"] == FILES
    assert end["finishedAt"] is not None
    # The lock was released before "succeeded" was published: a new sync starts at once.
    assert index.sync()["counts"]["skipped"] == FILES
    with pytest.raises(NotFoundError):
        index.sync_status("no-such-job")


def test_a_sync_asked_for_while_the_watcher_syncs_is_pending_at_once(
    make_index, docs_root: Path
) -> None:
    index = make_index()
    _corpus(docs_root)
    gate = Gate(index)
    syncs = index.syncs()
    # The watcher's own sync (run_paths is what it runs), held at its second batch.
    watcher = threading.Thread(target=syncs.run_paths, args=(None,), daemon=True)
    watcher.start()
    started: list[str] = []
    try:
        _wait_for(lambda: gate.calls > 1)
        asking = threading.Thread(target=lambda: started.append(index.sync_start()["jobId"]))
        asking.start()
        asking.join(30)  # a hang guard: while the gate is shut the watcher's sync cannot end
        assert started, "sync_start waited for the watcher's sync it pre-empted"
        assert index.sync_status(started[0])["state"] == "pending"
        with pytest.raises(SyncBusyError, match="already running in this process"):
            index.sync_start()  # the pending job is the one running now
    finally:
        gate.opened.set()
    watcher.join(120)
    end = syncs.wait(started[0], 120)
    assert end["state"] == "succeeded", end
    assert end["counts"]["ingested"] + end["counts"]["skipped"] == FILES
    assert end["counts"]["ingested"] > 0  # the watcher's sync made way, leaving work


def test_cancel_leaves_each_file_fully_indexed_or_untouched(make_index, docs_root) -> None:
    index = make_index()
    paths = _corpus(docs_root)
    gate = Gate(index)
    job_id = index.sync_start()["jobId"]
    _wait_for(lambda: index.sync_status(job_id)["counts"]["ingested"] > 0)
    asked = index.sync_cancel(job_id)
    assert asked["state"] == "running"
    gate.opened.set()
    end = index.syncs().wait(job_id, 120)
    assert end["state"] == "cancelled"
    done = end["counts"]["ingested"]
    assert 0 < done < FILES

    indexed = index.table().source_meta()
    assert len(indexed) == done
    for path in paths:
        if str(path) in indexed:
            text = index.read_file(str(path))["text"]
            assert f"END-OF-NOTE-{path.stem[4:]}" in text, "a cancelled file was cut short"
    rest = index.sync()
    assert rest["counts"]["ingested"] == FILES - done
    assert rest["counts"]["skipped"] == done


def test_foreground_sync_reports_progress(make_index, docs_root: Path) -> None:
    index = make_index()
    _corpus(docs_root, 20)
    events = []
    result = index.sync(progress=events.append)
    assert result["counts"]["ingested"] == 20
    assert events[0].total == 20
    # One report per finished file (``current``), and while the parser is busy ones
    # that name only the file being read (``current`` None: no file finished).
    finished = [e for e in events[1:] if e.current is not None]
    assert [e.done for e in finished] == list(range(1, 21))
    assert events[-1].counts["ingested"] == 20 and events[-1].chunks >= 20
    assert {e.current for e in finished} == {str(p) for p in docs_root.rglob("*.md")}
    assert all(e.reading is not None for e in events[1:] if e.current is None)


CHILD_SYNC = """
import json, os, sys, time
from pathlib import Path
from minirag_store import Index

env, marker, release = json.loads(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
index = Index.open(env)

def progress(event):
    if not marker.exists():
        marker.write_text(str(os.getpid()))
        while not release.exists():
            time.sleep(0.05)

print(json.dumps(index.sync(progress=progress)), flush=True)
"""


def _child_sync(index_env: dict[str, str], tmp_path: Path) -> tuple[subprocess.Popen, Path]:
    marker, release = tmp_path / "child-started", tmp_path / "child-release"
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD_SYNC, json.dumps(index_env), str(marker), str(release)],
        stdout=subprocess.PIPE,
        text=True,
    )
    _wait_for(lambda: marker.exists() or proc.poll() is not None, 120)
    assert proc.poll() is None, "the child sync ended before holding the lock"
    return proc, release


def test_sync_in_another_process_blocks_syncs_but_not_ingests_or_reads(
    make_index, index_env, docs_root: Path, tmp_path: Path
) -> None:
    _corpus(docs_root, 5)
    extra = docs_root / "extra.md"
    extra.write_text("Axolotls regrow their limbs.", encoding="utf-8")
    index = make_index()
    proc, release = _child_sync(index_env, tmp_path)
    try:
        started = time.monotonic()
        with pytest.raises(SyncBusyError) as caught:
            index.sync()
        assert time.monotonic() - started < 2.0
        assert f"PID {proc.pid}" in str(caught.value)
        assert "running for" in str(caught.value)
        with pytest.raises(SyncBusyError, match=f"PID {proc.pid}"):
            index.sync_start()
        # Single-file ingests and reads never wait for the sync lock.
        assert index.ingest_file(str(extra))["chunkCount"] >= 1
        assert expand(index.query("which animal regrows limbs"))["results"][0]["source"] == str(
            extra
        )
    finally:
        release.touch()
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 0
    child = json.loads(out.strip().splitlines()[-1])
    assert child["state"] == "succeeded"
    assert child["counts"]["scanned"] == 6
    assert index.sync()["counts"]["skipped"] == 6


def test_a_sigkilled_sync_frees_the_lock_and_the_next_sync_heals(
    make_index, index_env, docs_root: Path, tmp_path: Path
) -> None:
    _corpus(docs_root, 5)
    proc, _release = _child_sync(index_env, tmp_path)
    index = make_index()
    with pytest.raises(SyncBusyError):
        index.sync()
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(30)
    healed = index.sync()
    assert healed["state"] == "succeeded"
    assert healed["counts"]["ingested"] == 5
