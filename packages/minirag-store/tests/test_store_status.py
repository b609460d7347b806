"""status: always answers; counts, stale chunks and the scheme warning."""

from __future__ import annotations

import numpy as np
from minirag_chunker import SCHEME_VERSION
from minirag_store import Index
from minirag_store.status import STATUS_FIELDS


def test_broken_config_gives_version_and_error(tmp_path):
    index = Index.open({"BASE_DIR": str(tmp_path / "missing")})
    status = index.status()
    given = {key for key, value in status.items() if value is not None}
    assert given == {"version", "configError", "knownIndexes"}
    assert status["knownIndexes"] == []  # none synced yet: a fresh user data folder
    assert list(status) == list(STATUS_FIELDS)  # every field, null where it has no value
    assert "does not exist" in status["configError"]


def test_fresh_index_reports_config_and_zero_counts(make_index):
    status = make_index(RAG_HYBRID_WEIGHT="0.3", RAG_OCR_LANG="en").status()
    assert status["chunkCount"] == 0 and status["sourceCount"] == 0
    assert status["staleChunkCount"] == 0
    assert status["schemeWarning"] is None
    assert status["hybridWeight"] == 0.3
    assert status["model"] == "sentence-transformers/all-MiniLM-L6-v2"
    assert status["chunkScheme"] == SCHEME_VERSION
    assert status["ocr"] and (status["ocrHint"] is not None) == (status["ocr"] == "unavailable")


def _older_scheme_row(index, source: str, source_type: str) -> tuple[dict, np.ndarray]:
    """One chunk of ``source`` as the previous chunking scheme would have left it: for an
    indexed file, with the file's own hash, size and mtime (so only the scheme is old)."""
    from minirag_store.index.storage.schema import parent_key

    meta = index.table().source_meta().get(source)
    row = {
        "source": source, "source_type": source_type, "title": "Old", "chunk_index": 0,
        "text": "old text", "body_start": 0, "parent_id": parent_key(source, 0),
        "file_hash": meta.file_hash if meta else "", "mtime": meta.mtime if meta else 0.0,
        "size": meta.size if meta else 0, "ocr_engine": "",
        "scheme_version": SCHEME_VERSION - 1, "locator": "{}",
    }  # fmt: skip
    return row, np.ones((1, 384)) / np.sqrt(384)


def test_the_scheme_warning_says_to_sync_and_a_sync_clears_it(make_index, docs_root):
    index = make_index()
    (docs_root / "new.md").write_text("# New\n\nfresh text", encoding="utf-8")
    (docs_root / "old.md").write_text("# Old\n\nwritten before the upgrade", encoding="utf-8")
    assert index.sync()["counts"]["ingested"] == 2
    old = str(docs_root / "old.md")
    for source, kind in ((old, "file"), ("notes/standup", "data")):
        row, vector = _older_scheme_row(index, source, kind)
        index.table().replace_sources([source], [row], vector)

    status = index.status()
    assert status["staleChunkCount"] == 2
    warning = status["schemeWarning"]
    assert "delete" not in warning.replace("nothing needs deleting", "")
    assert "A sync re-cuts the 1 file in place" in warning
    assert "minirag-cli sync" in warning and "sync_start" in warning
    assert "ingesting them again (ingest_data / ingest_url): notes/standup." in warning

    job = index.sync()  # a plain sync: old.md's bytes, size and mtime have not changed
    assert job["counts"]["ingested"] == 1 and job["counts"]["skipped"] == 1  # new.md
    after = index.status()
    assert after["staleChunkCount"] == 1  # only the data source is left
    assert "A sync" not in after["schemeWarning"]
    assert "notes/standup" in after["schemeWarning"]
    assert "written before the upgrade" in index.read_file(old)["text"]


def test_status_reports_a_foreign_index(make_index, index_env):
    from pathlib import Path

    from minirag_store.index.table import ChunkTable

    ChunkTable.open(Path(index_env["DB_PATH"]), "some/other-model", 384)
    status = make_index().status()
    assert "some/other-model" in status["indexError"]


def test_a_new_index_answers_status_and_list_without_lancedb(tmp_path, model_env):
    """A first sync has made the index folder (its lock) but not the table yet, and the
    server's warm-up is importing LanceDB (seconds): status and list_files answer from
    the folder alone instead of waiting for that import."""
    import json
    import subprocess
    import sys

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\nAlpha.\n", encoding="utf-8")
    (tmp_path / "index").mkdir()
    env = {**model_env, "BASE_DIR": str(docs), "DB_PATH": str(tmp_path / "index")}
    code = (
        "import json, sys\n"
        "sys.modules['lancedb'] = None  # any import of it now fails\n"
        "from minirag_store import Index\n"
        "index = Index.open(json.loads(sys.argv[1]))\n"
        "status, files = index.status(), index.list_files()['files']\n"
        "print(json.dumps([status.get('chunkCount'), status.get('indexError'),\n"
        "                  [f['state'] for f in files]]))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, json.dumps(env)],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == [0, None, ["not_ingested"]]
    assert not (tmp_path / "index" / "chunks.lance").exists()  # nothing created either


def test_status_and_list_answer_during_a_write_without_waiting_for_it(make_index, docs_root):
    """A client polling while a sync commits or maintains the table (which holds the
    write lock, and the exclusive lock while old versions are dropped) is answered at
    once with what the index held before that write, not after it."""
    import threading
    import time

    index = make_index()
    (docs_root / "a.md").write_text("# A\n\nfirst file", encoding="utf-8")
    assert index.sync()["counts"]["ingested"] == 1
    table = index.table()
    inside, leave = threading.Event(), threading.Event()

    def maintenance_under_way() -> None:  # as ChunkTable.maintain holds them
        with table._writing(), table._rw.exclusive():
            inside.set()
            leave.wait(60)

    writer = threading.Thread(target=maintenance_under_way)
    writer.start()
    try:
        assert inside.wait(10)
        started = time.monotonic()
        status, listing = index.status(), index.list_files()
        waited = time.monotonic() - started
    finally:
        leave.set()
        writer.join()
    assert waited < 30, "status and list_files waited for the write to end"
    assert status["chunkCount"] >= 1 and status["sourceCount"] == 1
    assert [row["state"] for row in listing["files"]] == ["ingested"]
