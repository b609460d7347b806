"""status: always answers; counts, stale chunks and the scheme warning."""

from __future__ import annotations

import numpy as np
from minirag_chunker import SCHEME_VERSION
from minirag_store import Index


def test_broken_config_gives_version_and_error(tmp_path):
    index = Index.open({"BASE_DIR": str(tmp_path / "missing")})
    status = index.status()
    assert set(status) == {"version", "configError"}
    assert "does not exist" in status["configError"]


def test_fresh_index_reports_config_and_zero_counts(make_index):
    status = make_index(RAG_HYBRID_WEIGHT="0.3", RAG_OCR_LANG="en").status()
    assert status["chunkCount"] == 0 and status["sourceCount"] == 0
    assert status["staleChunkCount"] == 0
    assert "schemeWarning" not in status
    assert status["hybridWeight"] == 0.3
    assert status["model"] == "sentence-transformers/all-MiniLM-L6-v2"
    assert status["chunkScheme"] == SCHEME_VERSION
    assert status["ocr"] and ("ocrHint" in status) == (status["ocr"] == "unavailable")


def test_stale_chunks_give_a_scheme_warning(make_index, docs_root, write_docs):
    from minirag_store.table import parent_key

    index = make_index()
    write_docs(index, docs_root, {"new.md": "# New\n\nfresh text"})
    old = str(docs_root / "old.md")
    row = {
        "source": old, "source_type": "file", "title": "Old", "chunk_index": 0,
        "text": "old text", "body_start": 0, "parent_id": parent_key(old, 0),
        "file_hash": "x", "mtime": 1.0, "size": 1, "ocr_engine": "",
        "scheme_version": SCHEME_VERSION - 1,
    }  # fmt: skip
    index.table().replace_sources([old], [row], np.ones((1, 384)) / np.sqrt(384))
    status = index.status()
    assert status["chunkCount"] == 2 and status["sourceCount"] == 2
    assert status["staleChunkCount"] == 1
    assert "older chunking scheme" in status["schemeWarning"]


def test_status_reports_a_foreign_index(make_index, index_env):
    from pathlib import Path

    from minirag_store.table import ChunkTable

    ChunkTable.open(Path(index_env["DB_PATH"]), "some/other-model", 384)
    status = make_index().status()
    assert "some/other-model" in status["indexError"]
