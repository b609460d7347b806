"""Job records: live counters seen by another thread, terminal publication, registry."""

from __future__ import annotations

import threading

import pytest
from minirag_store.errors import NotFoundError
from minirag_store.ingest.jobs import MAX_ERRORS, Job, JobRegistry


def test_snapshot_shows_live_counts_from_a_writer_thread() -> None:
    job = Job()
    job.start()
    step, seen = threading.Event(), threading.Event()

    def work() -> None:
        job.add("scanned", 3)
        job.add("ingested")
        job.note("/docs/bad.pdf", "broken", count="failed")
        step.set()
        seen.wait(5)
        job.add("ingested")
        job.finish("succeeded")

    thread = threading.Thread(target=work)
    thread.start()
    assert step.wait(5)
    mid = job.snapshot()
    assert mid["state"] == "running"
    assert mid["finishedAt"] is None
    assert mid["counts"]["ingested"] == 1
    assert mid["counts"]["failed"] == 1
    assert mid["errors"] == [{"source": "/docs/bad.pdf", "error": "broken"}]
    seen.set()
    thread.join(5)
    end = job.snapshot()
    # It ran to its end, but a file failed: the state says so (a shell exits 1 on it).
    assert (end["state"], end["error"]) == ("failed", "1 file could not be ingested (see errors)")
    assert end["counts"]["ingested"] == 2
    assert end["startedAt"] is not None
    assert end["finishedAt"] is not None
    assert end["startedAt"] <= end["finishedAt"]
    # A snapshot is a copy: later changes do not leak into one already returned.
    assert mid["counts"]["ingested"] == 1


def test_registry_forgets_old_finished_jobs_but_keeps_running_ones() -> None:
    registry = JobRegistry(keep=2)
    running = Job()
    registry.add(running)
    finished = []
    for _ in range(3):
        job = Job()
        job.finish("succeeded")
        registry.add(job)
        finished.append(job)
    assert registry.get(running.job_id) is running
    assert registry.get(finished[-1].job_id) is finished[-1]
    with pytest.raises(NotFoundError, match="Unknown sync job"):
        registry.get(finished[0].job_id)
    assert registry.active() == [running]


def test_cancel_flag() -> None:
    job = Job()
    assert not job.cancel_requested
    job.request_cancel()
    assert job.cancel_requested


def test_errors_beyond_the_cap_are_counted_not_listed() -> None:
    job = Job()
    job.start()
    for n in range(MAX_ERRORS + 7):
        job.note(f"/docs/bad-{n}.pdf", "broken", count="failed")
    status = job.snapshot()
    assert status["counts"]["failed"] == MAX_ERRORS + 7
    assert len(status["errors"]) == MAX_ERRORS
    assert status["errors"][0]["source"] == "/docs/bad-0.pdf"
    assert status.get("errorsOmitted") == 7


def test_no_omitted_count_when_every_error_is_listed() -> None:
    job = Job()
    job.note("/docs/bad.pdf", "broken", count="failed")
    assert "errorsOmitted" not in job.snapshot()


def test_slowest_keeps_the_longest_files_longest_first() -> None:
    job = Job()
    for n, seconds in enumerate([0.5, 3.0, 0.1, 2.0, 2.0, 9.0, 0.2, 1.0]):
        job.timed({"source": f"/d/{n}", "seconds": seconds, "convertSeconds": seconds,
                   "ocrPages": 0, "ocrSeconds": 0.0, "chunkSeconds": 0.0, "embedSeconds": 0.0,
                   "chunks": 1})  # fmt: skip
    assert "slowest" not in job.snapshot()  # live polls stay small
    job.finish("succeeded")
    slowest = job.snapshot()["slowest"]
    assert [s["seconds"] for s in slowest] == [9.0, 3.0, 2.0, 2.0, 1.0]
    assert slowest[0]["source"] == "/d/5"
