"""``ingest DIR --json`` and ``sync --json`` name the files they ingested, skipped and
failed, in one shape (``files``), and the progress callback sees counts grow per file."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from minirag_store import Index
from minirag_store.results import JobFiles, JobStatus

#: Files this small fit under the MAX_FILE_SIZE the tests set; ``big.md`` does not.
LIMIT = 4000


@pytest.fixture
def folder(tmp_path: Path) -> dict[str, Path]:
    root = tmp_path / "docs"
    (root / "sub").mkdir(parents=True)
    files = {
        "alpha": root / "alpha.md",
        "beta": root / "sub" / "beta.txt",
        "broken": root / "sub" / "broken.pdf",
        "big": root / "big.md",
    }
    files["alpha"].write_text("# Alpha\n\nThe alpha relay opens at dawn.\n", encoding="utf-8")
    files["beta"].write_text("Beta notes: the ferry leaves at nine.\n", encoding="utf-8")
    files["broken"].write_bytes(b"this is no PDF at all")
    files["big"].write_text("# Big\n\n" + "word " * LIMIT, encoding="utf-8")
    return files


def _flags(folder: dict[str, Path], tmp_path: Path) -> list[str]:
    root = folder["alpha"].parent
    return ["--base-dir", str(root), "--db-path", str(tmp_path / "index")]


def test_ingest_of_a_folder_names_every_file_by_outcome(invoke, folder, tmp_path):
    root = folder["alpha"].parent
    ran = invoke("ingest", str(root), "--json", *_flags(folder, tmp_path),
                 env={"MAX_FILE_SIZE": str(LIMIT)})  # fmt: skip
    assert ran.code == 1  # a failed file fails the run, and the report still comes out
    job = ran.json()
    files = job["files"]
    assert set(files) == JobFiles.__required_keys__
    assert sorted(files["ingested"]) == sorted([str(folder["alpha"]), str(folder["beta"])])
    assert files["skipped"] == [str(folder["big"])]  # over MAX_FILE_SIZE
    assert files["failed"] == [str(folder["broken"])]
    assert files["deleted"] == [] and files["unreadable"] == []
    counts = job["counts"]
    assert [counts[k] for k in ("ingested", "skipped", "failed")] == [2, 1, 1]
    assert "filesOmitted" not in job
    reasons = {e["source"]: e["error"] for e in job["errors"]}
    assert "MAX_FILE_SIZE" in reasons[str(folder["big"])]
    assert "PDF" in reasons[str(folder["broken"])]


def test_sync_reports_files_in_the_same_shape(invoke, folder, tmp_path):
    flags = _flags(folder, tmp_path)
    env = {"MAX_FILE_SIZE": str(LIMIT)}
    first = invoke("ingest", str(folder["alpha"]), "--json", *flags, env=env).json()
    assert first["files"]["ingested"] == [str(folder["alpha"])]
    folder["beta"].unlink()
    ran = invoke("sync", "--json", *flags, env=env)
    job = ran.json()
    assert set(job) - {"slowest"} == set(first) - {"slowest"}  # one shape for ingest and sync
    assert set(job) == JobStatus.__required_keys__ | {"files", "slowest"}
    files = job["files"]
    assert sorted(files["skipped"]) == sorted([str(folder["alpha"]), str(folder["big"])])
    assert files["failed"] == [str(folder["broken"])]
    assert files["ingested"] == [] and files["deleted"] == []


def test_human_ingest_output_is_one_line_of_counts(invoke, folder, tmp_path):
    ran = invoke("ingest", str(folder["alpha"]), *_flags(folder, tmp_path))
    assert ran.code == 0, ran.stderr
    assert ran.stdout.startswith("ingest done: scanned 1, ingested 1, skipped 0")


def test_progress_sees_the_ingested_count_grow_before_the_job_ends(tmp_path, cli_env):
    """What the CLI's bar is fed: files reported as their rows are committed, while the
    rest of the batch is still being embedded (here: held after its first batch)."""
    from minirag_store.index.embed.embedding import EMBED_BATCH
    from minirag_store.index.write import writer as pipeline

    slow_batch_seconds = 0.6  # longer than COMMIT_SECONDS: the first batch is due a commit

    root = tmp_path / "many"
    root.mkdir()
    total = 200
    for i in range(total):
        (root / f"note{i:03d}.md").write_text(f"Note {i}: crate {i} holds {i * 7} bolts.\n")
    index = Index.open(cli_env, base_dirs=[str(root)], db_path=str(tmp_path / "index"))
    gate, first = threading.Event(), threading.Event()
    embedder = index.embedder()
    real, calls = embedder.embed_passages, [0]

    def held(texts):
        vectors = real(texts)
        calls[0] += 1
        if calls[0] == 1:
            time.sleep(slow_batch_seconds)
        else:
            assert gate.wait(120), "the test never opened the gate"
        return vectors

    embedder.embed_passages = held  # instance attribute: only this Index
    seen: list[int] = []

    def progress(report) -> None:
        seen.append(report.counts["ingested"])
        if report.counts["ingested"]:
            first.set()

    result: list[JobStatus] = []
    worker = threading.Thread(target=lambda: result.append(index.sync(progress=progress)))
    worker.start()
    try:
        assert first.wait(120), "no file was reported ingested"
        time.sleep(0.3)
        assert 0 < max(seen) <= EMBED_BATCH  # reported before the rest was embedded
    finally:
        gate.set()
        worker.join(120)
        index.close()
    assert result[0]["counts"]["ingested"] == total
    assert seen == sorted(seen) and seen[-1] == total
    assert slow_batch_seconds > pipeline.COMMIT_SECONDS
