"""Watch mode with a real watcher (inotify through watchfiles) on tmp folders, the real
model and a real LanceDB: adds, edits, deletes, renames, ignored files, a burst of 500
files, busy locks and the polling fallback. After each scenario the watched index must
equal what a fresh full sync of the same folder builds.

Waits are bounded polls for what a user would see (a query finding the new text); no
test asserts how fast it happened (that is bench/watch.py).
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from collections.abc import Callable
from dataclasses import astuple
from pathlib import Path

import pytest
from minirag_store.errors import ConfigError
from minirag_store.ingest.lock import SyncLock
from minirag_store.ingest.watch import Pending, batch_scopes, network_filesystem
from minirag_testkit.answers import expand

#: Upper bound of any wait: far above the ~2 s settle time, for a loaded CI machine.
PATIENCE = 120.0


def _until(check: Callable[[], bool], what: str, patience: float = PATIENCE) -> None:
    deadline = time.monotonic() + patience
    while not check():
        if time.monotonic() > deadline:
            pytest.fail(f"not seen within {patience:.0f} s: {what}")
        time.sleep(0.1)


class Batches:
    """Collects the watcher's batches (it calls from its own thread)."""

    def __init__(self) -> None:
        self.items: list[dict] = []
        self._lock = threading.Lock()

    def __call__(self, batch: dict) -> None:
        with self._lock:
            self.items.append(batch)

    def __len__(self) -> int:
        with self._lock:
            return len(self.items)

    def since(self, start: int) -> list[dict]:
        with self._lock:
            return self.items[start:]

    def count(self, outcome: str, start: int) -> int:
        """Files of ``outcome`` (ingested, deleted ...) in the batches from ``start`` on."""
        return sum(b["job"]["counts"][outcome] for b in self.since(start))


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _indexed(index) -> dict[str, tuple]:
    """source -> what the index holds about it (hash, size, mtime, chunks, scheme ...)."""
    return {s: astuple(m) for s, m in index.table().source_meta().items()}


def _finds(index, query: str, source: Path) -> bool:
    hits = expand(index.query(query, top_k=3))["results"]
    return bool(hits) and hits[0]["source"] == str(source)


def _matches_fresh_sync(index, make_index, tmp_path: Path) -> None:
    """The watched index holds what a full sync of the same roots builds from scratch,
    and a sync of it finds nothing left to do."""
    fresh = make_index(DB_PATH=str(tmp_path / "fresh-index"))
    assert fresh.sync()["state"] == "succeeded"
    assert _indexed(index) == _indexed(fresh)
    again = index.sync()["counts"]
    assert (again["ingested"], again["deleted"], again["failed"]) == (0, 0, 0)


def _start(index) -> Batches:
    batches = Batches()
    index.start_watching(batches)
    _until(lambda: len(batches) >= 1, "the watcher's first full sync")
    return batches


def test_add_edit_delete_rename_and_ignored_files_follow_the_disk(
    make_index, docs_root: Path, tmp_path: Path
) -> None:
    glaciers = _write(docs_root / "glaciers.md", "# Glaciers\n\nGlaciers carve valleys.")
    _write(docs_root / ".gitignore", "private/\n")
    index = make_index()
    batches = _start(index)
    assert index.status()["watchMode"] == "notify"
    assert index.status()["watchNote"] is None
    assert batches.items[0]["changedPaths"] == 0  # the catch-up full sync
    assert _finds(index, "how are valleys carved", glaciers)

    # add
    comets = _write(docs_root / "space" / "comets.md", "# Comets\n\nComets grow tails.")
    _until(lambda: _finds(index, "why do comets have tails", comets), "the added file")
    # edit
    _write(glaciers, "# Glaciers\n\nMoraines are heaps of rock left by retreating ice.")
    _until(lambda: "Moraines" in index.read_file(str(glaciers))["text"], "the edit")
    assert "carve valleys" not in index.read_file(str(glaciers))["text"]
    # rename, with an ignored file and an editor's swap file written at the same time
    moved = docs_root / "space" / "tails.md"
    os.rename(comets, moved)
    _write(docs_root / "private" / "diary.md", "# Diary\n\nMy secret zebra.")
    _write(docs_root / ".tails.md.swp", "swap")
    _until(lambda: str(moved) in _indexed(index), "the renamed file")
    _until(lambda: str(comets) not in _indexed(index), "the old name gone")
    # delete
    glaciers.unlink()
    _until(lambda: str(glaciers) not in _indexed(index), "the deleted file gone")

    assert set(_indexed(index)) == {str(moved)}
    assert all(b["job"]["state"] == "succeeded" for b in batches.items)
    _matches_fresh_sync(index, make_index, tmp_path)


@pytest.mark.slow
def test_a_burst_of_500_files_is_applied_in_a_few_syncs(
    make_index, docs_root: Path, tmp_path: Path
) -> None:
    index = make_index()
    batches = _start(index)
    before = len(batches)
    burst = docs_root / "checkout"
    burst.mkdir()
    for n in range(500):
        _write(burst / f"note{n:03d}.md", f"# Note {n}\n\nPart QX-{n:03d} sits in bin {n}.")
    _until(lambda: batches.count("ingested", before) >= 500, "500 files reported indexed")
    applied = batches.since(before)
    assert len(_indexed(index)) == 500
    # One sync per settled burst (a slow disk may split it): never one per file.
    assert len(applied) <= 5
    assert _finds(index, "QX-417", burst / "note417.md")
    _matches_fresh_sync(index, make_index, tmp_path)

    before = len(batches)
    shutil.rmtree(burst)
    _until(lambda: batches.count("deleted", before) >= 500, "500 files reported deleted")
    assert not _indexed(index)


def test_an_ignore_file_change_applies_to_its_whole_folder(make_index, docs_root: Path) -> None:
    keep = _write(docs_root / "notes" / "keep.md", "# Keep\n\nOtters hold hands.")
    drop = _write(docs_root / "notes" / "drafts" / "draft.md", "# Draft\n\nBadgers dig.")
    index = make_index()
    _start(index)
    assert set(_indexed(index)) == {str(keep), str(drop)}
    _write(docs_root / "notes" / ".miniragignore", "drafts/\n")
    _until(lambda: set(_indexed(index)) == {str(keep)}, "the newly ignored folder dropped")
    (docs_root / "notes" / ".miniragignore").unlink()
    _until(lambda: str(drop) in _indexed(index), "the folder indexed again")


def test_a_batch_that_meets_another_sync_waits_and_is_not_lost(
    make_index, docs_root: Path, index_env: dict[str, str]
) -> None:
    index = make_index()
    _start(index)
    held = SyncLock(Path(index_env["DB_PATH"]))
    held.acquire()  # another process's sync, as far as the watcher can tell
    try:
        late = _write(docs_root / "late.md", "# Late\n\nNarwhals have tusks.")
        time.sleep(5)  # the batch is due meanwhile and meets the lock
        assert str(late) not in _indexed(index)
    finally:
        held.release()
    _until(lambda: _finds(index, "which animal has a tusk", late), "the batch after the lock")


def test_a_sync_asked_for_while_the_watcher_works_goes_first(
    make_index, docs_root: Path, tmp_path: Path
) -> None:
    index = make_index()
    batches = _start(index)
    before = len(batches)
    for n in range(300):
        _write(docs_root / "many" / f"n{n:03d}.md", f"# N{n}\n\nItem {n} of the heron count.")
    time.sleep(3)  # the batch is settled: the watcher is applying it (or about to)
    mine = index.sync()  # never refused as busy: a watcher sync in the way makes room
    assert mine["state"] == "succeeded", mine
    assert mine["counts"]["failed"] == 0
    _until(lambda: len(batches) > before, "the watcher's batch reported (applied or made way)")
    assert len(_indexed(index)) == 300
    _matches_fresh_sync(index, make_index, tmp_path)


def test_rag_watch_poll_polls_and_status_says_so(make_index, docs_root: Path) -> None:
    index = make_index(RAG_WATCH="poll", RAG_WATCH_POLL_SECONDS="1")
    _start(index)
    status = index.status()
    assert (status["watch"], status["watchMode"]) == ("poll", "poll")
    assert "RAG_WATCH=poll" in status["watchNote"]
    owls = _write(docs_root / "owls.md", "# Owls\n\nOwls hunt at night.")
    _until(lambda: _finds(index, "which birds hunt at night", owls), "the polled change")
    index.close()  # stops the watcher
    assert index.status()["watchMode"] == "off"


def test_without_notifications_it_falls_back_to_polling(make_index, docs_root: Path) -> None:
    # A root that vanished after the configuration was read: inotify cannot watch it.
    index = make_index(RAG_WATCH_POLL_SECONDS="1")
    index.config  # noqa: B018 - read while the root exists
    docs_root.rmdir()
    index.start_watching()
    _until(lambda: index.status()["watchMode"] == "poll", "the polling fallback")
    assert "notifications are not available" in index.status()["watchNote"]


def test_status_without_a_watcher_and_the_setting() -> None:
    from minirag_store.config import load_config

    assert load_config({}).watch == "on"
    assert load_config({"RAG_WATCH": "0"}).watch == "off"
    assert load_config({"RAG_WATCH": "Poll"}).watch == "poll"
    with pytest.raises(ConfigError, match=r"RAG_WATCH must be on .* poll .* off"):
        load_config({"RAG_WATCH": "sometimes"})
    with pytest.raises(ConfigError, match="RAG_WATCH_POLL_SECONDS must be"):
        load_config({"RAG_WATCH_POLL_SECONDS": "0"})


def test_pending_batches_settle_and_cap() -> None:
    pending = Pending(settle=2.0, max_wait=10.0)
    pending.add(["/r/a.md"], 0.0)
    assert not pending.due(1.9)
    pending.add(["/r/b.md"], 1.5)  # a new change restarts the settle time
    assert not pending.due(3.0)
    assert pending.due(3.5)
    for t in range(1, 12):  # a folder that never settles is still applied
        pending.add([f"/r/{t}.md"], float(t))
    assert pending.due(10.0)
    assert pending.take()[:2] == ["/r/a.md", "/r/b.md"]
    assert not pending.due(100.0)
    pending.put_back(["/r/a.md"], 20.0, 2.0)
    assert not pending.due(21.0)
    assert pending.due(22.0)


def test_batch_scopes() -> None:
    paths = ["/r/a/x.md", "/r/a", "/r/ab.md", "/r/b/.gitignore", "/r/b/c/d.md", "/r/e.md"]
    assert batch_scopes(paths) == ["/r/a", "/r/ab.md", "/r/b", "/r/e.md"]


MOUNTINFO = """\
22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw
40 22 0:35 / /mnt/share rw,relatime shared:20 - nfs4 server:/export rw,vers=4.2
41 22 0:36 / /mnt/my\\040drive rw - fuse.sshfs me@host: rw
"""


def test_network_filesystems_are_polled() -> None:
    assert network_filesystem([Path("/home/me/docs")], MOUNTINFO) is None
    reason = network_filesystem([Path("/home/me"), Path("/mnt/share/docs")], MOUNTINFO)
    assert reason is not None and "nfs4" in reason and "/mnt/share/docs" in reason
    assert "fuse.sshfs" in (network_filesystem([Path("/mnt/my drive/x")], MOUNTINFO) or "")
    assert network_filesystem([Path("/mnt/shared")], MOUNTINFO) is None  # not /mnt/share
