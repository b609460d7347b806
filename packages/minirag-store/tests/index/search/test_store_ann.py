"""Past RAG_ANN_MIN_CHUNKS the vector side searches LanceDB's IVF index instead of the
exact in-memory snapshot. A user must not be able to tell from the answers: the same hits,
distances, scope filters, max-distance, grouping and fusion on both paths, new chunks
found at once, and an index build killed half-way never leaves an unsearchable index.

The threshold is set low (the product's floor, 256 chunks) so this runs at small scale;
``bench/scale.py`` measures the paths at 100k-1M chunks.
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from minirag_store.index.search.ann import AnnSettings, due, trained_rows
from minirag_store.index.table import ChunkTable
from minirag_testkit.answers import expand
from store_corpus import CORPUS, fillers, write_corpus
from store_rows import DIM, chunk_rows, lance_table

LOW = 256


@pytest.fixture(scope="module")
def both(tmp_path_factory, model_env):
    """``(exact, ann, root)``: two Index objects over one table of ~430 chunks, one
    searching the exact snapshot, one the ANN index (built by the writer's maintenance)."""
    from minirag_store import Index

    base = tmp_path_factory.mktemp("ann")
    root = base / "docs"
    root.mkdir()
    env = {**model_env, "BASE_DIR": str(root), "DB_PATH": str(base / "db")}
    env["RAG_ANN_MIN_CHUNKS"] = str(LOW)
    ann = Index.open(env)
    write_corpus(ann, root, {**CORPUS, **fillers(420)})
    exact_table = ChunkTable.open_existing(ann.config.db_path, ann.config.model_name)
    assert exact_table is not None
    exact = Index(ann.config, embedder=ann.embedder(), table=exact_table)
    yield exact, ann, root
    ann.close()


QUERIES = [
    "how long to bake bread",
    "ERR_CONN_RESET proxy",
    "warehouse stock audit SPEC-113",
    "zebra migration",
    "инвентаризация склада",
    "heavy rain over the coast",
    "backup restore log auditors",
]


def _same(a: dict, b: dict) -> bool:
    """The same hits (a passage: chunks ``chunkIndex`` to ``lastChunk``) in the same order,
    with distances and scores (both queried with ``explain``) equal up to float16 rounding
    (the ANN path re-ranks on the stored float16 vectors in LanceDB, the exact path on
    renormalised float32 copies of them)."""
    if [(h["source"], h["chunkIndex"], h.get("lastChunk")) for h in a["results"]] != [
        (h["source"], h["chunkIndex"], h.get("lastChunk")) for h in b["results"]
    ]:
        return False
    return all(
        abs((x["distance"] or 0.0) - (y["distance"] or 0.0)) < 2e-3
        and abs(x["score"] - y["score"]) < 2e-3
        for x, y in zip(a["results"], b["results"], strict=True)
    )


def test_the_threshold_picks_the_path(both):
    exact, ann, _ = both
    chunks, _ = ann.table().counts()
    assert chunks > LOW
    assert trained_rows(_lance(ann)) is not None  # the writer's maintenance built it
    assert ann.table().uses_ann()
    assert not exact.table().uses_ann()
    # the same table seen with the default threshold (200,000) stays exact
    assert ann.config.ann_min_chunks == LOW


@pytest.mark.parametrize("fusion", ["mixture", "rrf", "score"])
def test_both_paths_give_the_same_answers(both, fusion):
    exact, ann, _ = both
    for query in QUERIES:
        a = expand(_with(exact, fusion=fusion).query(query, top_k=8, explain=True))
        b = expand(_with(ann, fusion=fusion).query(query, top_k=8, explain=True))
        assert _same(a, b), query
        assert a["parents"] == b["parents"]
        assert a["sources"] == b["sources"]


def test_scope_filters_agree_and_hold(both):
    exact, ann, root = both
    for scope in ["proj", "project-secret", "quo'te", "meteo", "ru", str(root / "en")]:
        a = expand(exact.query("zebra migration notes", 10, str(root / scope), explain=True))
        b = expand(ann.query("zebra migration notes", 10, str(root / scope), explain=True))
        assert _same(a, b), scope
        prefix = str(root / scope) + "/"
        assert all(h["source"].startswith(prefix) for h in b["results"]), scope
    # "proj" must not leak "project-secret" on the ANN path either
    sources = {
        h["source"] for h in expand(ann.query("zebra secret", scope=str(root / "proj")))["results"]
    }
    assert sources == {str(root / "proj/a.md")}


def test_max_distance_and_grouping_agree(both):
    exact, ann, _ = both
    for changes in [
        {"max_distance": 0.6},
        {"grouping": "similar"},
        {"grouping": "related"},
        {"max_files": 2},
    ]:
        for query in QUERIES[:4]:
            a = expand(_with(exact, **changes).query(query, explain=True))
            b = expand(_with(ann, **changes).query(query, explain=True))
            assert _same(a, b), (changes, query)
    answer = _with(ann, max_distance=0.6).query("heavy rain over the coast", explain=True)
    far = answer["results"]
    assert far and all(h["distance"] is not None and h["distance"] <= 0.6 for h in far)


def test_new_chunks_are_found_before_the_index_is_rebuilt(both):
    _, ann, _ = both
    ann.ingest_data("The quokkatron calibrates brass sprockets every night.", "notes/q", "text")
    assert ann.table().uses_ann()
    hits = expand(ann.query("quokkatron calibrating sprockets", top_k=3))["results"]
    assert hits[0]["source"] == "notes/q"
    # the vector side alone finds it too (flat search over rows the index does not cover)
    vector_only = expand(
        _with(ann, hybrid_weight=0.0).query("machine that tunes brass gears at night")
    )
    assert "notes/q" in [h["source"] for h in vector_only["results"]]
    ann.delete_file("notes/q")
    assert "notes/q" not in [
        h["source"] for h in expand(ann.query("quokkatron sprockets"))["results"]
    ]


def test_the_index_is_retrained_when_the_table_outgrows_it(tmp_path):
    settings = AnnSettings(min_chunks=LOW)
    table = ChunkTable.open(tmp_path / "db", "m", DIM, ann=settings)
    _fill(table, 0, 300)
    assert trained_rows(_raw(table)) is None
    table.maintain()
    assert trained_rows(_raw(table)) == 300
    assert not due(_raw(table), 1199, settings)
    assert due(_raw(table), 1200, settings)
    _fill(table, 300, 1250)
    table.maintain()
    assert trained_rows(_raw(table)) == 1250
    vectors = [ix for ix in _raw(table).list_indices() if tuple(ix.columns) == ("vector",)]
    assert len(vectors) == 1  # the old index went
    assert table.uses_ann()


def test_a_build_killed_midway_leaves_a_searchable_index(tmp_path):
    """kill -9 at 20 %, 50 % and 80 % of a maintenance that trains the index (timed on an
    uninterrupted run of the same table): each time the table still answers searches,
    and the next maintenance ends with a trained index."""
    template = tmp_path / "template"
    _fill(ChunkTable.open(template, "m", DIM), 0, 3000)
    whole = _maintain_in_child(_copy(template, tmp_path / "whole"), kill_after=None)
    assert trained_rows(lance_table(tmp_path / "whole")) == 3000
    for fraction in (0.2, 0.5, 0.8):
        db = _copy(template, tmp_path / f"killed{fraction}")
        _maintain_in_child(db, kill_after=whole * fraction)
        reader = ChunkTable.open(db, "m", DIM, ann=AnnSettings(min_chunks=LOW))
        assert len(reader.vector_search(np.ones(DIM) / np.sqrt(DIM), 5)) == 5
        assert reader.keyword_search("chunk 7", 5)
        reader.maintain()
        assert trained_rows(lance_table(db)) == 3000
        assert reader.uses_ann()
        assert len(reader.vector_search(np.ones(DIM) / np.sqrt(DIM), 5)) == 5


_MAINTAIN = (
    "import sys, time; from pathlib import Path; from minirag_store.index.table import ChunkTable;"
    "from minirag_store.index.search.ann import AnnSettings;"
    f"t = ChunkTable.open(Path(sys.argv[1]), 'm', {DIM}, ann=AnnSettings(min_chunks={LOW}));"
    "print('go', flush=True); t.maintain(); print('done', flush=True)"
)


def _maintain_in_child(db: Path, kill_after: float | None) -> float:
    """Run a maintenance in another process; SIGKILL it ``kill_after`` seconds in.
    Returns how long the maintenance ran."""
    proc = subprocess.Popen([sys.executable, "-c", _MAINTAIN, str(db)], stdout=subprocess.PIPE)
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == b"go"
    start = time.monotonic()
    if kill_after is None:
        assert proc.stdout.readline().strip() == b"done"
        proc.wait(timeout=120)
        return time.monotonic() - start
    time.sleep(kill_after)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    return time.monotonic() - start


def _copy(source: Path, target: Path) -> Path:
    shutil.copytree(source, target)
    return target


def _fill(table: ChunkTable, start: int, stop: int) -> None:
    """Rows ``start..stop-1``, ten chunks per source, random unit vectors, 500 a commit."""
    for batch in range(start, stop, 500):
        sources, rows, vectors = [], [], []
        for first in range(batch, min(batch + 500, stop), 10):
            source = f"/d/s{first // 10:05d}.md"
            texts = [f"chunk {i} of {source}" for i in range(first, min(first + 10, stop))]
            more_rows, more_vectors = chunk_rows(source, texts, seed=first)
            sources.append(source)
            rows += more_rows
            vectors.append(more_vectors)
        table.replace_sources(sources, rows, np.concatenate(vectors))


def _raw(table: ChunkTable):
    return lance_table(table.db_path)


def _lance(index):
    return _raw(index.table())


def _with(index, **changes):
    from minirag_store import Index

    return Index(replace(index.config, **changes), embedder=index.embedder(), table=index.table())
