"""A snapshot reloaded after a commit (only the rows it lacks are read) serves exactly what a
full read of the same version serves: rows, vectors, sections and search results.

The reload keeps rows by LanceDB row id; these tests change the table every way a writer
does (replace, add, delete, touch, compact) and compare with a fresh full load each time.
"""

from __future__ import annotations

import numpy as np
import pytest
from minirag_store.index.search.vectors import load_snapshot
from minirag_store.index.table import ChunkTable
from store_rows import DIM, chunk_rows, lance_table


def _put(table: ChunkTable, source: str, texts: list[str], seed: int) -> None:
    rows, vectors = chunk_rows(source, texts, body_start=lambda i: i % 3, seed=seed)
    table.replace_sources([source], rows, vectors)


def _same(served, full) -> None:
    """The served snapshot holds the same rows, vectors and sections as the full load."""
    assert sorted(served.ids) == sorted(full.ids)
    mine = {r["id"]: r for r in served.rows(list(range(len(served.ids))))}
    theirs = {r["id"]: r for r in full.rows(list(range(len(full.ids))))}
    assert mine == theirs
    for row_id in full.ids:
        np.testing.assert_array_equal(
            served.matrix[served.row_of[row_id]], full.matrix[full.row_of[row_id]]
        )
    for parent in set(full.parent_ids):
        if parent:
            assert [served.ids[i] for i in served.section_rows(parent)] == [
                full.ids[i] for i in full.section_rows(parent)
            ]
    probe = np.random.default_rng(7).standard_normal(DIM).astype(np.float32)
    probe /= np.linalg.norm(probe)
    assert [h["id"] for h in served.search(probe, 10)] == [h["id"] for h in full.search(probe, 10)]


@pytest.mark.parametrize("compact_between", [False, True])
def test_reloaded_snapshot_equals_a_full_read(tmp_path, compact_between: bool) -> None:
    table = ChunkTable.open(tmp_path / "db", "m", DIM)
    for i in range(6):
        _put(table, f"/d/s{i}.md", [f"source {i} chunk {k}" for k in range(4 + i)], seed=i)
    table.snapshot()  # the first load reads everything
    raw = lance_table(tmp_path / "db")
    changes = [
        lambda: _put(table, "/d/s1.md", ["s1 rewritten", "shorter now"], seed=11),
        lambda: _put(table, "/d/new.md", [f"new chunk {k}" for k in range(3)], seed=12),
        lambda: table.delete_sources(["/d/s4.md"]),
        lambda: table.touch("/d/s2.md", 555.0),
        lambda: _put(table, "/d/s0.md", ["s0 again", "and again", "three", "four"], seed=13),
    ]
    for change in changes:
        change()
        if compact_between:
            table.maintain()
        served = table.snapshot()
        full = load_snapshot(raw, served.version, DIM, 10_000)
        _same(served, full)
    assert "/d/s4.md" not in table.snapshot().sources
