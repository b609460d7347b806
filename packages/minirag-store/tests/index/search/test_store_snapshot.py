"""Search reads hit rows and parent sections from the in-memory snapshot, not from disk:
these check that what it serves equals what is on disk, and that another writer's commit
(another Index object or process on the same folder) shows up at the next keyword search,
which reads the latest version with its hits (a vector-only read within 0.25 s)."""

from __future__ import annotations

import numpy as np
from minirag_store.index.storage.schema import parent_key
from minirag_store.index.table import ChunkTable
from store_rows import DIM, chunk_rows


def _put(table: ChunkTable, source: str, texts: list[str], seed: int = 0) -> None:
    # varied prefix lengths, so the snapshot's reconstruction offsets are exercised
    rows, vectors = chunk_rows(source, texts, body_start=lambda i: i % 3, seed=seed)
    table.replace_sources([source], rows, vectors)


def test_snapshot_rows_equal_disk_rows(tmp_path):
    table = ChunkTable.open(tmp_path / "db", "m", DIM)
    # Written out of order so section order must come from chunk_index, not row order.
    _put(table, "/d/b.md", ["b zero", "b one", "b two"], seed=1)
    _put(table, "/d/a.md", [f"a chunk {i}" for i in range(5)], seed=2)
    disk = table.source_chunks("/d/a.md")
    section = parent_key("/d/a.md", 1)
    grouped = table.parent_chunks([section, parent_key("/d/b.md", 0), "no-such-section"])
    assert grouped[section] == [r for r in disk if r["parent_id"] == section]
    assert [r["text"] for r in grouped[parent_key("/d/b.md", 0)]] == ["b zero", "b one"]
    assert grouped["no-such-section"] == []
    by_id = table.rows_by_id([disk[4]["id"], "missing:id", disk[0]["id"]])
    assert by_id == {disk[4]["id"]: disk[4], disk[0]["id"]: disk[0]}


def test_another_writers_commit_is_seen_at_once(tmp_path):
    reader = ChunkTable.open(tmp_path / "db", "m", DIM)
    writer = ChunkTable.open(tmp_path / "db", "m", DIM)
    _put(writer, "/d/a.md", ["walrus notes", "second chunk", "third"], seed=3)
    section = parent_key("/d/a.md", 0)
    assert [r["text"] for r in reader.parent_chunks([section])[section]] == [
        "walrus notes",
        "second chunk",
    ]
    # chunk 1 holds its neighbour's words too (the keyword window), chunk 2 is another section
    walrus = reader.keyword_search("walrus", 5)
    assert [r["parent_id"] for r in walrus] == [section, section]

    _put(writer, "/d/a.md", ["narwhal notes"], seed=4)  # replaces all three chunks
    assert reader.keyword_search("walrus", 5) == []
    hits = reader.keyword_search("narwhal", 5)
    assert [(h["source"], h["parent_id"]) for h in hits] == [("/d/a.md", section)]
    assert [r["text"] for r in reader.parent_chunks([section])[section]] == ["narwhal notes"]
    assert set(reader.rows_by_id([hits[0]["id"], "x"])) == {hits[0]["id"]}
    nearest = reader.vector_search(np.ones(DIM), 5)
    assert [r["id"] for r in nearest] == [hits[0]["id"]]


def test_after_another_writers_commit_a_query_loads_the_snapshot_once(tmp_path, monkeypatch):
    """The keyword side reads the new version with its hits; the vector side and the
    parent look-up must reuse that snapshot, not reload under the cached older version."""
    import minirag_store.index.search.searcher as searcher_module

    reader = ChunkTable.open(tmp_path / "db", "m", DIM)
    writer = ChunkTable.open(tmp_path / "db", "m", DIM)
    _put(writer, "/d/a.md", ["walrus notes", "second chunk"], seed=5)
    reader.vector_search(np.ones(DIM), 5)  # caches the latest version and its snapshot
    _put(writer, "/d/b.md", ["narwhal notes"], seed=6)
    loads: list[int] = []
    load = searcher_module.load_snapshot

    def counted(*args, **kwargs):
        loads.append(1)
        return load(*args, **kwargs)

    monkeypatch.setattr(searcher_module, "load_snapshot", counted)
    hits = reader.keyword_search("narwhal", 5)
    assert [h["source"] for h in hits] == ["/d/b.md"]
    assert "/d/b.md" in {r["source"] for r in reader.vector_search(np.ones(DIM), 5)}
    assert reader.parent_chunks([hits[0]["parent_id"]])[hits[0]["parent_id"]]
    assert len(loads) == 1


def test_a_large_matrix_scored_on_threads_gets_every_rows_own_score():
    """Past PARALLEL_ROWS a core the cosines run in slices on threads: each row's score is
    the very one it gets scored alone or among a few rows (the ANN path scores its
    candidates that way, and both paths must give a chunk the same distance)."""
    from minirag_store.index.search import vectors

    rows = 2 * vectors.PARALLEL_ROWS + 7
    rng = np.random.default_rng(5)
    matrix = vectors.unit_rows(rng.standard_normal((rows, 384)).astype(np.float32))
    query = rng.standard_normal(384).astype(np.float32)
    whole = vectors.cosines(matrix, query)
    assert whole.shape == (rows,)
    picked = [0, 1, vectors.PARALLEL_ROWS - 1, vectors.PARALLEL_ROWS, rows - 1]
    alone = vectors.cosines(matrix[picked], query)
    assert whole[picked].tolist() == alone.tolist()
    assert whole.tolist() == np.einsum("ij,j->i", matrix, query).tolist()


def test_a_chunk_committed_after_the_vector_pass_still_gets_its_cosine(tmp_path):
    """The vector pass runs beside the keyword search, which may see a newer version: a
    keyword hit committed in between is scored on the newer snapshot, to the very value a
    search of that version gives it, instead of being left out of the fusion."""
    table = ChunkTable.open(tmp_path / "db", "m", DIM)
    _put(table, "/d/a.md", ["alpha one", "alpha two", "alpha three"], seed=1)
    query = np.random.default_rng(3).standard_normal(DIM).astype(np.float32)
    query /= np.linalg.norm(query)
    found = table.vector_pass(query, 2, None)
    assert len(found.rows) == 2
    old_ids = list(table.snapshot().ids)
    _put(table, "/d/b.md", ["bravo one", "bravo two"], seed=4)
    newer = table.snapshot()
    new_ids = [i for i in newer.ids if i not in old_ids]
    assert len(new_ids) == 2
    similar = found.similarity([*new_ids, *old_ids, "no such chunk"])
    assert similar == newer.search_pass(query, 0).similarity([*new_ids, *old_ids])
