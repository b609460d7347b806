"""The Index facade: lazy, once-only opening, and reads that need no embedding model."""

from __future__ import annotations

import threading
from dataclasses import replace

import pytest
from minirag_store import Index
from minirag_store.errors import IndexMismatchError, ModelLoadError
from minirag_store.index.table import ChunkTable
from minirag_testkit.answers import expand


def test_reads_of_an_existing_index_do_not_load_the_model(make_index, index_env, tmp_path):
    first = make_index()
    first.ingest_data("Invoice SPEC-112 covers warehouse stock.", "notes/spec", "text", "Spec")
    first.close()

    # A model folder with no files: any attempt to load the model fails loudly.
    no_model = tmp_path / "no-model"
    no_model.mkdir()
    reader = Index.open({**index_env, "MODEL_PATH": str(no_model)})
    try:
        assert reader.read_file("notes/spec")["text"].startswith("Invoice SPEC-112")
        assert [r["source"] for r in reader.list_files()["files"]] == ["notes/spec"]
        assert reader.status()["chunkCount"] >= 1
        with pytest.raises(ModelLoadError, match="MODEL_PATH"):
            expand(reader.query("warehouse stock"))  # a query is what needs the model
    finally:
        reader.close()


def test_an_index_takes_a_loaded_model_and_table_through_its_constructor(make_index):
    base = make_index()
    base.ingest_data("Invoice SPEC-112 covers warehouse stock.", "notes/spec", "text", "Spec")
    keyword_only = Index(
        replace(base.config, hybrid_weight=1.0), embedder=base.embedder(), table=base.table()
    )
    assert keyword_only.embedder() is base.embedder() and keyword_only.table() is base.table()
    hit = expand(keyword_only.query("SPEC-112"))["results"][0]
    assert hit["source"] == "notes/spec"


def test_a_table_and_model_of_different_dimensions_are_refused(make_index):
    base = make_index()
    base.ingest_data("alpha beta gamma", "a", "text")
    small = ChunkTable.open(base.config.db_path.parent / "small", "tiny/model", 8)
    with pytest.raises(IndexMismatchError, match="8-dim"):
        Index(base.config, embedder=base.embedder(), table=small)


def test_concurrent_first_calls_open_the_table_once(make_index):
    make_index().ingest_data("alpha beta gamma", "a", "text")
    index = make_index()  # a fresh Index over the same existing table
    seen: list[object] = []
    barrier = threading.Barrier(4)

    def call() -> None:
        barrier.wait()
        seen.append(index.table())

    threads = [threading.Thread(target=call) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(seen) == 4 and len({id(t) for t in seen}) == 1


def test_status_ocr_hint_for_latin_only_when_the_addon_is_missing(make_index):
    status = make_index(RAG_OCR_LANG="en").status()
    assert status["ocr"]
    if status["ocr"] == "unavailable":
        assert "minirag-mcp[ocr]" in status["ocrHint"]
    else:
        assert status["ocrHint"] is None


def test_close_stops_a_sync_that_is_opening_the_table(make_index, docs_root, monkeypatch):
    """close() during a sync's first table() call waits for the sync to stop, not for a
    timeout: the thread it waits for needs the Index lock to get going."""
    from minirag_store.ingest.sync import SyncManager

    (docs_root / "a.md").write_text("# A\n\nalpha beta gamma\n", encoding="utf-8")
    index = make_index()
    closing = threading.Event()
    opened = Index.table

    def table_once_close_began(self: Index):
        closing.wait(10)
        return opened(self)

    shutdown = SyncManager.shutdown

    def shutdown_quickly(self: SyncManager, timeout: float = 30.0) -> None:
        closing.set()
        shutdown(self, timeout=5.0)

    monkeypatch.setattr(Index, "table", table_once_close_began)
    monkeypatch.setattr(SyncManager, "shutdown", shutdown_quickly)
    job_id = index.sync_start()["jobId"]
    sync_thread = index.syncs()._threads[job_id]
    index.close()
    assert not sync_thread.is_alive()
    assert index.sync_status(job_id)["state"] in ("cancelled", "succeeded")


def test_small_writes_are_found_at_once_and_maintained_in_batches(make_index, monkeypatch):
    """ingest_data/delete_file do not pay for a maintenance pass each: every Nth write
    and close() run it, and rows written in between are searchable right away."""
    import minirag_store.service
    from minirag_store.index.table import ChunkTable

    monkeypatch.setattr(minirag_store.service, "SMALL_WRITES_PER_MAINTENANCE", 3)
    passes: list[int] = []
    maintain = ChunkTable.maintain

    def counted(self: ChunkTable) -> None:
        passes.append(1)
        maintain(self)

    monkeypatch.setattr(ChunkTable, "maintain", counted)
    index = make_index()
    index.ingest_data("The quokkatron calibrates sprockets nightly.", "notes/a", "text")
    index.ingest_data("Lunch is served at noon in the atrium.", "notes/b", "text")
    assert passes == []
    # not yet in the keyword index, yet the keyword side finds it (and so does a query)
    assert [r["source"] for r in index.table().keyword_search("quokkatron", 5)] == ["notes/a"]
    assert expand(index.query("quokkatron"))["results"][0]["source"] == "notes/a"
    index.delete_file("notes/b")  # third small write: maintenance runs
    assert len(passes) == 1
    index.ingest_data("Sprockets are stored in bin 7.", "notes/c", "text")
    index.close()  # one pending write: folded in on close
    assert len(passes) == 2
    reopened = make_index()
    assert {f["source"] for f in reopened.list_files()["files"]} == {"notes/a", "notes/c"}


def test_a_reader_sees_another_writers_commit_within_the_freshness_interval(make_index, index_env):
    """The latest table version is looked up at most every _VERSION_FRESH_S: another
    Index (or process) writing shows up in this one's searches after that, not never."""
    import time

    from minirag_store.index.search import searcher as searcher_module

    writer = make_index()
    writer.ingest_data("Lunch is served at noon in the atrium.", "notes/lunch", "text")
    reader = Index.open(index_env)
    try:
        assert expand(reader.query("lunch atrium"))["results"]  # looks the version up now
        writer.ingest_data("The quokkatron calibrates sprockets nightly.", "notes/q", "text")
        time.sleep(searcher_module._VERSION_FRESH_S + 0.1)
        found = [h["source"] for h in expand(reader.query("quokkatron sprockets"))["results"]]
        assert found[0] == "notes/q"
    finally:
        reader.close()
