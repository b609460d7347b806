"""Chunk-table rows built by hand, for the tests of the table and its snapshot.

Vectors do not matter to those tests, so rows carry small random unit vectors (``DIM``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
from minirag_store.index.storage.schema import parent_key

DIM = 8


def chunk_rows(
    source: str,
    texts: list[str],
    *,
    scheme: int = 1,
    file_hash: str = "h1",
    body_start: Callable[[int], int] = lambda i: 0,
    seed: int | None = None,
) -> tuple[list[dict], np.ndarray]:
    """Rows of one source (one section per two chunks) and a unit vector for each;
    ``body_start(i)`` gives chunk ``i``'s prefix length, ``seed`` defaults to the count."""
    rows = [
        {
            "source": source,
            "source_type": "file",
            "title": f"title of {Path(source).name}",
            "chunk_index": i,
            "text": text,
            "body_start": body_start(i),
            "parent_id": parent_key(source, i // 2),
            "file_hash": file_hash,
            "mtime": 100.0,
            "size": 10,
            "ocr_engine": "",
            "scheme_version": scheme,
            "locator": "{}",
        }
        for i, text in enumerate(texts)
    ]
    rng = np.random.default_rng(len(texts) if seed is None else seed)
    vectors = rng.standard_normal((len(texts), DIM))
    return rows, vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def lance_table(db_path: Path):
    """The index's chunk table opened through LanceDB itself (always at its latest
    version), for what a test checks or changes beneath ``ChunkTable``."""
    from datetime import timedelta

    import lancedb
    from minirag_store.index.storage.schema import TABLE_NAME

    db = lancedb.connect(str(db_path), read_consistency_interval=timedelta(0))
    return db.open_table(TABLE_NAME)
