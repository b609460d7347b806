"""A sync on Ray (``sync --ray``): the same index as a local sync, atomic per source.

Everything real: a local Ray runtime (``ray.init(num_cpus=2)``, started once per module),
the offline model loaded in the Ray actors, LanceDB in tmp_path, moto for S3. Marked
``ray``: .ci/run runs these in the locked resolution only (the Ray start-up and worker
imports cost about a minute).
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
from minirag_store import Index
from minirag_testkit.answers import expand

pytestmark = pytest.mark.ray

ray = pytest.importorskip("ray")

QUERIES = ["invoice total amount", "booking a movie theater", "test document heading", "cats"]
PDFS = ["test.pdf", "movie-theater-booking-2024.pdf", "RECEIPT-2024-TXN-98765_retail_purchase.pdf"]
DOCX = ["test.docx", "rlink.docx"]
SCAN = "MEDRPT-2024-PAT-3847_medical_report_scan_p1.pdf"


@pytest.fixture(scope="module")
def ray_runtime():
    if not ray.is_initialized():
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def _corpus(root: Path, fixtures: Path) -> None:
    """A mixed corpus: markdown, PDFs, Word documents, and a scan when OCR is installed."""
    from minirag_store.convert.ocr import ocr_available

    root.mkdir(parents=True, exist_ok=True)
    for i in range(6):
        paragraphs = "\n\n".join(
            f"Note {i}.{k}: the cats of house {i} sleep {k + i} hours after the test."
            for k in range(8)
        )
        (root / f"note{i}.md").write_text(f"# Note {i}\n\n{paragraphs}\n", encoding="utf-8")
    sub = root / "office"
    sub.mkdir(exist_ok=True)
    for name in [*PDFS, *DOCX] + ([SCAN] if ocr_available() else []):
        shutil.copy(fixtures / "markitdown" / name, sub / name)


def _env(model_env: dict[str, str], root: Path, db: str) -> dict[str, str]:
    return {**model_env, "BASE_DIR": str(root), "DB_PATH": db, "CHUNK_TOKEN_BUDGET": "40"}


def _rows(index: Index) -> dict[str, list[dict]]:
    """Every source's chunks (text, vector, metadata), in order."""
    out: dict[str, list[dict]] = {}
    for source in sorted(index.table().source_meta()):
        out[source] = index.table().source_chunks(source)
    return out


def _vectors(index: Index, source: str) -> np.ndarray:
    tbl = index.table()._tbl  # the stored float16 vectors, through LanceDB's public search
    from minirag_store.index.storage.schema import sql_str

    rows = tbl.search().where(f"source = {sql_str(source)}").select(["chunk_index", "vector"])
    table = rows.limit(10_000).to_arrow().to_pylist()
    return np.array([r["vector"] for r in sorted(table, key=lambda r: r["chunk_index"])], float)


def _same_index(ray_index: Index, local_index: Index) -> None:
    """Same sources, chunk texts and metadata, vectors within float16 rounding, same top-10."""
    got, want = _rows(ray_index), _rows(local_index)
    assert sorted(got) == sorted(want)
    # per source: type, title, hash, mtime, size, scheme, OCR engine, chunk count
    assert ray_index.table().source_meta() == local_index.table().source_meta()
    for source in want:
        assert [r["text"] for r in got[source]] == [r["text"] for r in want[source]], source
        keep = ("id", "title", "parent_id", "body_start", "source_type")
        assert [{k: r[k] for k in keep} for r in got[source]] == [
            {k: r[k] for k in keep} for r in want[source]
        ]
        # float16 keeps ~3 decimal digits of a unit vector's components
        np.testing.assert_allclose(
            _vectors(ray_index, source), _vectors(local_index, source), atol=2e-3
        )
    for query in QUERIES:
        hits = [
            (h["source"], h["chunkIndex"])
            for h in expand(ray_index.query(query, top_k=10))["results"]
        ]
        expected = expand(local_index.query(query, top_k=10))["results"]
        assert hits == [(h["source"], h["chunkIndex"]) for h in expected], query


@pytest.fixture
def pair(tmp_path: Path, fixtures: Path, model_env: dict[str, str], ray_runtime):
    """``(ray_index, local_index, root)``: two indexes of one corpus."""
    root = tmp_path / "docs"
    _corpus(root, fixtures)
    ray_index = Index.open(_env(model_env, root, str(tmp_path / "ray-db")))
    local_index = Index.open(_env(model_env, root, str(tmp_path / "local-db")))
    yield ray_index, local_index, root
    ray_index.close()
    local_index.close()


def test_ray_sync_equals_local_sync_then_resync_after_changes(pair) -> None:
    ray_index, local_index, root = pair
    reports = []
    job = ray_index.sync(progress=reports.append, ray="")
    local = local_index.sync()
    assert job["state"] == "succeeded", job
    assert job["counts"] == local["counts"]
    assert job["counts"]["ingested"] == len(list(root.rglob("*.*"))) > 10
    assert reports[-1].done == reports[-1].total  # live progress reached the end
    assert len({r.done for r in reports}) > 2  # and moved on the way
    _same_index(ray_index, local_index)

    # modify one, delete one, add one: the re-sync through Ray equals the local one again
    (root / "note0.md").write_text("# Note zero\n\nRewritten: the cats now sleep all day.\n")
    (root / "note1.md").unlink()
    shutil.copy(root / "office" / "test.pdf", root / "added.pdf")
    job = ray_index.sync(ray="")
    local = local_index.sync()
    assert job["state"] == "succeeded", job
    assert job["counts"] == local["counts"]
    assert job["counts"]["ingested"] == 2 and job["counts"]["deleted"] == 1
    _same_index(ray_index, local_index)


def _kill_once(marker: str):
    """A parse stage whose worker process kills itself the first time it runs."""
    from minirag_store.ingest.ray_stages import parse_batch

    def parse(batch, config):
        if not os.path.exists(marker):
            Path(marker).write_text("killed")
            os.kill(os.getpid(), 9)
        return parse_batch(batch, config)

    return parse


def test_a_worker_killed_mid_job_is_retried_or_fails_cleanly(pair, tmp_path, monkeypatch) -> None:
    from minirag_store.ingest import distributed
    from ray import cloudpickle

    ray_index, local_index, _ = pair
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    marker = str(tmp_path / "killed")
    monkeypatch.setattr(distributed, "PARSE_STAGE", _kill_once(marker))
    job = ray_index.sync(ray="")
    assert Path(marker).exists()  # a worker did die
    print(f"a killed worker: the job {job['state']}")  # which outcome (pytest -s shows it)
    local_index.sync()
    if job["state"] == "succeeded":  # Ray retried the dead worker's task
        _same_index(ray_index, local_index)
    else:  # or the job failed, with every source whole: a re-run completes it
        assert job["state"] == "failed" and job["error"], job
        assert ray_index.sync(ray="")["state"] == "succeeded"
        _same_index(ray_index, local_index)


def test_a_cancelled_ray_sync_leaves_whole_sources(pair) -> None:
    ray_index, local_index, root = pair
    cancelled: list[str] = []

    def cancel_after_first_commit(report) -> None:
        if report.counts.get("ingested") and not cancelled:
            cancelled.append(ray_index.syncs().cancel_all() or "yes")

    job = ray_index.sync(progress=cancel_after_first_commit, ray="")
    assert job["state"] == "cancelled", job
    local_index.sync()
    done = job["counts"]["ingested"]
    assert 0 < done < len(list(root.rglob("*.*")))
    # every committed source is whole (the same chunks as a full local sync)
    want = _rows(local_index)
    for source, rows in _rows(ray_index).items():
        assert [r["text"] for r in rows] == [r["text"] for r in want[source]]
    assert ray_index.sync(ray="")["state"] == "succeeded"
    _same_index(ray_index, local_index)


def test_ray_sync_into_s3_equals_a_local_sync(tmp_path, model_env, ray_runtime, s3) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    for i in range(5):
        body = " ".join(f"The lighthouse of station {i} logs fog horn test {k}." for k in range(12))
        (root / f"station{i}.md").write_text(f"# Station {i}\n\n{body}\n", encoding="utf-8")
    remote_env = _env(model_env, root, s3.uri("ray"))
    remote_env["DB_STORAGE_OPTIONS"] = s3.storage_options()  # travels to the workers
    remote = Index.open(remote_env)
    local = Index.open(_env(model_env, root, str(tmp_path / "local-db")))
    try:
        job = remote.sync(ray="")
        assert job["state"] == "succeeded", job
        assert job["counts"]["ingested"] == 5
        assert local.sync()["counts"] == job["counts"]
        (root / "station0.md").write_text("# Station 0\n\nRebuilt lamp, new keeper.\n")
        (root / "station1.md").unlink()
        job = remote.sync(ray="")
        assert (job["counts"]["ingested"], job["counts"]["deleted"]) == (1, 1), job
        local.sync()
        _same_index(remote, local)
    finally:
        remote.close()
        local.close()


def _poisoned(poison: str):
    """An embedding stage that fails (an exception, not a per-file error) on one source."""
    from minirag_store.ingest.ray_stages import EmbedWriter

    class Poisoned(EmbedWriter):
        def __call__(self, batch):
            if any(str(s).endswith(poison) for s in batch["source"]):
                raise RuntimeError(f"poisoned batch ({poison})")
            return super().__call__(batch)

    return Poisoned


def test_a_failing_ray_job_leaves_every_source_old_or_new_whole(pair, monkeypatch) -> None:
    from minirag_store.ingest import distributed
    from ray import cloudpickle

    ray_index, local_index, root = pair
    assert ray_index.sync()["state"] == "succeeded"  # the last good version, synced locally
    before = _rows(ray_index)
    for note in root.glob("note*.md"):
        note.write_text(note.read_text() + "\nEdition two: the cats moved house.\n")
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    monkeypatch.setattr(distributed, "EMBED_STAGE", _poisoned("note5.md"))
    job = ray_index.sync(ray="")
    assert job["state"] == "failed" and "poisoned batch" in job["error"], job
    local_index.sync()
    after, new = _rows(ray_index), _rows(local_index)
    assert sorted(after) == sorted(before)  # nothing deleted, nothing half-added
    texts = {s: [r["text"] for r in rows] for s, rows in after.items()}
    for source, rows in texts.items():  # every source whole: its old chunks or its new ones
        assert rows in ([r["text"] for r in before[source]], [r["text"] for r in new[source]])
    poisoned = str(root / "note5.md")
    assert texts[poisoned] == [r["text"] for r in before[poisoned]]
    monkeypatch.undo()
    assert ray_index.sync(ray="")["state"] == "succeeded"  # a rerun completes it
    _same_index(ray_index, local_index)


def test_gpus_asked_of_a_cluster_without_them_are_refused(pair, model_env, tmp_path) -> None:
    _, _, root = pair
    env = {**_env(model_env, root, str(tmp_path / "gpu-db")), "RAG_RAY_GPUS": "1"}
    index = Index.open(env)
    try:
        assert index.config.ray_gpus == 1
        job = index.sync(ray="")  # the local runtime of this module: 2 CPUs, no GPU
        assert job["state"] == "failed"
        assert "RAG_RAY_GPUS=1" in job["error"] and "0 GPU(s)" in job["error"]
        assert job["counts"]["ingested"] == 0  # refused before any work went out
    finally:
        index.close()
