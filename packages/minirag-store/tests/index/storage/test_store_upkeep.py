"""Maintenance that costs what was written, not what the table holds: bounded compaction,
index segments merged by size, and a long write maintained as it goes.

The sizes are scaled down (fragments of 200 rows, segments of at most 1,000) so a few
thousand rows show what a million would; everything runs on the real table in ``tmp_path``.
"""

from __future__ import annotations

import math

import pytest
from minirag_store.index.search.ann import INDEX_PREFIX, AnnSettings
from minirag_store.index.storage import upkeep
from minirag_store.index.storage.upkeep import segments_to_merge
from minirag_store.index.table import ChunkTable
from minirag_store.index.write import writer as writer_module
from minirag_store.index.write.writer import Document
from minirag_store.ingest.operations import writer_for
from minirag_testkit.answers import expand
from store_rows import DIM, chunk_rows, lance_table

SEGMENT = upkeep.SEGMENT_ROWS
SMALL = upkeep.SMALL_SEGMENT_ROWS


@pytest.mark.parametrize(
    ("segments", "new_rows", "merged"),
    [
        ([0], 25_000, 1),  # the empty segment an index starts with
        ([0], 10 * SEGMENT, 1),  # ... however many rows come
        ([], 25_000, 0),
        ([60_000], 25_000, 0),  # more than twice the new rows: a new segment
        ([50_000], 25_000, 1),
        ([100_000, 50_000, 25_000], 25_000, 2),  # 25k+25k, +50k; +100k: over the bound
        ([SEGMENT], 1, 0),  # a full segment is final
        ([SEGMENT - 10, 5, 5, 5], 5, 3),  # small ones always merge, within the bound
        ([SMALL, SMALL // 2], 10, 2),
    ],
)
def test_which_segments_a_maintenance_merges(segments, new_rows, merged):
    assert segments_to_merge(segments, new_rows) == merged


def test_segments_stay_bounded_as_batches_keep_coming():
    """Simulated: a maintenance every 25k rows up to 1M rows, then 200 of 80 rows: no
    merge holds more than the bound, and the segments stay few."""
    segments: list[int] = [0]

    def maintain(new_rows: int) -> None:
        merged = segments_to_merge(segments, new_rows)
        size = new_rows + sum(segments[len(segments) - merged :])
        assert size <= SEGMENT
        segments[len(segments) - merged :] = [size]

    for _ in range(40):
        maintain(25_000)
    for _ in range(200):
        maintain(80)
    rows = sum(segments)
    assert rows == 40 * 25_000 + 200 * 80
    assert len(segments) <= rows / (SEGMENT / 2) + math.log2(SEGMENT / 80) + 1


@pytest.fixture
def small_sizes(monkeypatch):
    monkeypatch.setattr(upkeep, "FRAGMENT_ROWS", 200)
    monkeypatch.setattr(upkeep, "SEGMENT_ROWS", 1_000)
    monkeypatch.setattr(upkeep, "SMALL_SEGMENT_ROWS", 100)


def _write_round(table: ChunkTable, round_no: int, rows_per_round: int) -> None:
    """``rows_per_round`` rows in commits of 50 (a sync's commits), each chunk naming its round."""
    for first in range(0, rows_per_round, 50):
        source = f"/d/r{round_no:02d}-{first:04d}.md"
        texts = [f"round{round_no} chunk {i} of {source}" for i in range(50)]
        rows, vectors = chunk_rows(source, texts, seed=round_no * 1000 + first)
        table.replace_sources([source], rows, vectors)


def _data_files(db) -> dict[str, int]:
    """Each data file of the table's current version, with its fragment's row count."""
    dataset = lance_table(db).to_lance()
    return {
        f.path: fragment.count_rows()
        for fragment in dataset.get_fragments()
        for f in fragment.data_files()
    }


def test_maintenance_leaves_finished_data_and_segments_alone(tmp_path, small_sizes):
    db = tmp_path / "db"
    table = ChunkTable.open(db, "m", DIM, ann=AnnSettings(min_chunks=256))
    rounds, per_round = 12, 300
    finished: set[str] = set()
    for n in range(rounds):
        _write_round(table, n, per_round)
        table.maintain()
        files = _data_files(db)
        # Fragments compacted to full size earlier are still the same files: a maintenance
        # rewrote only the rows written since the last one.
        assert finished <= set(files)
        finished = {path for path, rows in files.items() if rows >= upkeep.FRAGMENT_ROWS}
        stats = lance_table(db).to_lance().stats.index_stats("keywords_idx")
        assert stats["num_unindexed_rows"] == 0
        assert max(stats["num_indexed_rows_per_delta"]) <= max(upkeep.SEGMENT_ROWS, per_round)
    segments = stats["num_indexed_rows_per_delta"]
    assert sum(segments) == rounds * per_round
    assert 1 < len(segments) <= rounds * per_round / 500 + math.log2(1_000 / per_round) + 1
    # Every round's rows are found through the segments, by words and by source.
    for n in range(rounds):
        hits = table.keyword_search(f"round{n}", 1_000)
        assert len(hits) == per_round
        assert {h["source"] for h in hits} == {
            f"/d/r{n:02d}-{first:04d}.md" for first in range(0, per_round, 50)
        }
    assert table.counts() == (rounds * per_round, rounds * per_round // 50)
    assert len(lance_table(db).list_versions()) == 1  # old versions dropped each time
    # Only the keyword index keeps segments: each BTREE or vector segment would be another
    # look-up or probed search per query, and merging them costs little.
    dataset = lance_table(db).to_lance()
    others = [ix.name for ix in dataset.describe_indices() if ix.field_names != ["keywords"]]
    assert {"source_idx", "parent_id_idx", "id_idx"} < set(others)
    assert any(name.startswith(INDEX_PREFIX) for name in others)  # trained, then rows added
    for name in others:
        stats = dataset.stats.index_stats(name)
        assert stats["num_indexed_rows_per_delta"] == [rounds * per_round], name


def test_a_replaced_source_is_found_once_across_segments(tmp_path, small_sizes):
    """Rows deleted by a re-write stay out of keyword and vector results, whichever
    segment indexed them and whichever fragment held them."""
    table = ChunkTable.open(tmp_path / "db", "m", DIM)
    for n in range(4):
        _write_round(table, n, 300)
        table.maintain()
    source = "/d/r01-0050.md"
    rows, vectors = chunk_rows(source, ["round1 rewritten walrus"], seed=7)
    table.replace_sources([source], rows, vectors)
    table.maintain()
    assert [h["source"] for h in table.keyword_search("walrus", 10)] == [source]
    assert len(table.keyword_search("round1", 1_000)) == 300 - 50 + 1
    near = table.vector_search(vectors[0], 5)
    assert [h["source"] for h in near].count(source) == 1


def test_a_long_write_is_maintained_as_it_goes(make_index, docs_root, monkeypatch):
    monkeypatch.setattr(writer_module, "MAINTAIN_ROWS", 3)
    index = make_index()
    writer = writer_for(index)
    db = index.config.db_path
    unindexed = []
    for i in range(10):
        text = f"# Doc {i}\n\nplain text number {i}"
        doc = Document(str(docs_root / f"d{i}.md"), "file", f"d{i}", text, size=len(text))
        assert [n for _, n in writer.write([doc])] == [1]  # one commit, one row
        stats = lance_table(db).to_lance().stats.index_stats("keywords_idx")
        unindexed.append(stats["num_unindexed_rows"])
    # Before finish(): every third row was followed by a maintenance.
    assert unindexed == [1, 2, 0, 1, 2, 0, 1, 2, 0, 1]
    writer.finish()
    assert index.table().counts() == (10, 10)
    hit = expand(index.query("plain text number 7", top_k=1))["results"][0]
    assert hit["source"] == str(docs_root / "d7.md")


def test_a_writes_last_maintenance_rebuilds_piled_up_keyword_segments(tmp_path, small_sizes):
    """A long write's maintenances leave the full-text index in segments; its last one
    (the index a server then searches) rebuilds it as one when they number more than
    KEYWORD_SEGMENTS, and every row is still found by its words."""
    table = ChunkTable.open(tmp_path / "db", "m", DIM)
    rounds, per_round = 8, 1_000  # each round a final segment (SEGMENT_ROWS 1,000)
    for n in range(rounds - 1):
        _write_round(table, n, per_round)
        table.maintain(summarize=False)
    segments = lance_table(tmp_path / "db").to_lance().stats.index_stats("keywords_idx")
    assert len(segments["num_indexed_rows_per_delta"]) > upkeep.KEYWORD_SEGMENTS
    _write_round(table, rounds - 1, per_round)
    table.maintain()
    stats = lance_table(tmp_path / "db").to_lance().stats.index_stats("keywords_idx")
    assert stats["num_indexed_rows_per_delta"] == [rounds * per_round]
    assert stats["num_unindexed_rows"] == 0
    for n in range(rounds):
        assert len(table.keyword_search(f"round{n}", 2_000)) == per_round
    # and a last maintenance with few segments leaves them (a rebuild costs the table)
    _write_round(table, rounds, 300)
    table.maintain()
    stats = lance_table(tmp_path / "db").to_lance().stats.index_stats("keywords_idx")
    assert stats["num_indexed_rows_per_delta"] == [rounds * per_round, 300]


def _prose(rng, words: int) -> str:
    vocabulary = [
        "the",
        "cell",
        "protein",
        "gene",
        "expression",
        "patients",
        "study",
        "results",
        "increased",
        "reduced",
        "model",
        "analysis",
        "tumour",
        "response",
        "treatment",
        "significant",
        "level",
        "signal",
        "pathway",
        "mice",
        "human",
    ]
    return " ".join(rng.choice(vocabulary, words)) + "."


def _data_bytes(db) -> int:
    dataset = lance_table(db).to_lance()
    folder = db / f"{dataset.uri.rstrip('/').rsplit('/', 1)[-1]}" / "data"
    return sum(
        (folder / f.path).stat().st_size
        for fragment in dataset.get_fragments()
        for f in fragment.data_files()
    )


def test_compaction_encodes_a_syncs_small_commits_as_tightly_as_one_write(tmp_path):
    """A sync commits every few seconds, a few dozen rows each; the compacted table must
    take no more disk than the same rows written at once (pages copied from the small
    commits stayed plain-encoded: 1.6x here, 61 against 46 MB on SciFact)."""
    import numpy as np

    rng = np.random.default_rng(7)
    sources = [f"/archive/reports/2026/section-{n:03d}/report-{n:04d}.md" for n in range(100)]
    texts = {s: [_prose(rng, 80) for _ in range(20)] for s in sources}
    written = {}
    for name, per_commit in (("small", 1), ("once", len(sources))):
        db = tmp_path / name
        table = ChunkTable.open(db, "m", DIM)
        for first in range(0, len(sources), per_commit):
            batch = sources[first : first + per_commit]
            rows, vectors = [], []
            for source in batch:
                r, v = chunk_rows(source, texts[source], seed=first)
                rows += r
                vectors.append(v)
            table.replace_sources(batch, rows, np.concatenate(vectors))
        table.maintain()
        assert table.counts() == (2_000, 100)
        written[name] = _data_bytes(db)
    assert written["small"] <= 1.15 * written["once"], written
