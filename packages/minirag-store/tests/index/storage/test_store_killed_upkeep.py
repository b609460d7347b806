"""kill -9 in the middle of a compaction or of an ANN index build: the index still answers,
and the next maintenance finishes the job.

"In the middle" is observed, not guessed from a timer: the child maintains the table, the
test watches the table's folder and sends SIGKILL as soon as the operation has written its
first new file (a compacted data file, an index file), then checks that the operation had
not committed (its result is not in the table). An attempt whose kill came too late (the
operation committed in between) is repeated on a fresh copy.
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from minirag_store.index.search.ann import AnnSettings, trained_rows
from minirag_store.index.storage.upkeep import compact
from minirag_store.index.table import ChunkTable
from store_rows import DIM, chunk_rows, lance_table

LOW = 256
ATTEMPTS = 6

_MAINTAIN = (
    "import sys; from pathlib import Path; from minirag_store.index.table import ChunkTable;"
    "from minirag_store.index.search.ann import AnnSettings;"
    f"t = ChunkTable.open(Path(sys.argv[1]), 'm', {DIM}, ann=AnnSettings(min_chunks={LOW}));"
    "print('go', flush=True); t.maintain(); print('done', flush=True)"
)


def _files(folder: Path) -> set[str]:
    return {str(p) for p in folder.rglob("*")} if folder.exists() else set()


def _kill_at_first_new_file(db: Path, watched: str) -> bool:
    """Maintain ``db`` in a child; SIGKILL it when a new file shows up under the table's
    ``watched`` folder. False when the child finished first."""
    folder = db / "chunks.lance" / watched
    before = _files(folder)
    proc = subprocess.Popen([sys.executable, "-c", _MAINTAIN, str(db)], stdout=subprocess.PIPE)
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == b"go"
    deadline = time.monotonic() + 120
    try:
        while proc.poll() is None and time.monotonic() < deadline:
            if _files(folder) - before:
                proc.send_signal(signal.SIGKILL)
                proc.wait(timeout=60)
                return proc.returncode == -signal.SIGKILL
            time.sleep(0.001)
        return False
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=60)


def _fill(table: ChunkTable, rows_total: int, per_commit: int) -> None:
    """``rows_total`` rows, ten chunks per source, ``per_commit`` rows a commit (a fragment
    each: what a sync leaves before its maintenance)."""
    _fill_from(table, 0, rows_total, per_commit)


def _fill_from(table: ChunkTable, first_row: int, count: int, per_commit: int = 200) -> None:
    """``count`` rows from row ``first_row`` on, ten chunks a source (see :func:`_fill`)."""
    for batch in range(first_row, first_row + count, per_commit):
        sources, rows, vectors = [], [], []
        for first in range(batch, min(batch + per_commit, first_row + count), 10):
            source = f"/d/s{first // 10:05d}.md"
            texts = [f"chunk {i} of {source}, quokka {i % 7}" for i in range(first, first + 10)]
            more_rows, more_vectors = chunk_rows(source, texts, seed=first)
            sources.append(source)
            rows += more_rows
            vectors.append(more_vectors)
        table.replace_sources(sources, rows, np.concatenate(vectors))


def _answers(db: Path, rows: int) -> ChunkTable:
    """The killed index opened again: every row there, vector and keyword search answer."""
    table = ChunkTable.open(db, "m", DIM, ann=AnnSettings(min_chunks=LOW))
    assert table.counts() == (rows, rows // 10)
    probe = np.ones(DIM, dtype=np.float32) / np.sqrt(DIM)
    assert len(table.vector_search(probe, 5)) == 5
    assert table.keyword_search("chunk 1234", 3)[0]["source"] == "/d/s00123.md"
    return table


def _killed_copies(template: Path, tmp_path: Path, watched: str, still_undone) -> Path:
    """A copy of ``template`` whose maintenance was killed mid-way (``still_undone(db)``
    true after the kill), trying fresh copies until one kill lands before the commit."""
    for attempt in range(ATTEMPTS):
        db = tmp_path / f"killed{attempt}"
        shutil.copytree(template, db)
        if _kill_at_first_new_file(db, watched) and still_undone(db):
            return db
    raise AssertionError(f"no kill landed before the commit in {ATTEMPTS} attempts")


def test_a_compaction_killed_midway_is_finished_by_the_next_maintenance(tmp_path):
    rows = 6000
    template = tmp_path / "template"
    _fill(ChunkTable.open(template, "m", DIM), rows, 200)  # 30 fragments
    fragments = lance_table(template).stats()["fragment_stats"]["num_fragments"]
    assert fragments == 30

    def uncompacted(db: Path) -> bool:
        return lance_table(db).stats()["fragment_stats"]["num_fragments"] == fragments

    db = _killed_copies(template, tmp_path, "data", uncompacted)
    table = _answers(db, rows)
    table.maintain()
    assert lance_table(db).stats()["fragment_stats"]["num_fragments"] == 1
    assert trained_rows(lance_table(db)) == rows  # the ANN index came with it
    _answers(db, rows)
    assert table.uses_ann()


def test_an_ann_build_killed_midway_is_finished_by_the_next_maintenance(tmp_path):
    rows = 6000
    template = tmp_path / "template"
    _fill(ChunkTable.open(template, "m", DIM), rows, 1000)
    compact(lance_table(template))  # only the vector index is left for the child to do

    def untrained(db: Path) -> bool:
        return trained_rows(lance_table(db)) is None

    db = _killed_copies(template, tmp_path, "_indices", untrained)
    table = _answers(db, rows)
    assert not table.uses_ann()  # the exact path answers meanwhile
    table.maintain()
    assert trained_rows(lance_table(db)) == rows
    assert table.uses_ann()
    _answers(db, rows)


#: The child for the keyword rebuild: segments as small as the template's were written
#: with, and a line on stdout once the rebuild begins (every index's merge is done then),
#: so the kill lands in the rebuild, not before it.
_REBUILD = (
    "import sys; from pathlib import Path; from minirag_store.index.storage import upkeep;"
    "from minirag_store.index.table import ChunkTable;"
    "upkeep.SEGMENT_ROWS, upkeep.SMALL_SEGMENT_ROWS = 1000, 100;"
    "config = upkeep._keyword_config;"
    "upkeep._keyword_config = lambda: (print('rebuild', flush=True), config())[1];"
    f"t = ChunkTable.open(Path(sys.argv[1]), 'm', {DIM});"
    "print('go', flush=True); t.maintain(); print('done', flush=True)"
)


def _keyword_segments(db: Path) -> list[int]:
    return (
        lance_table(db).to_lance().stats.index_stats("keywords_idx")["num_indexed_rows_per_delta"]
    )


def test_a_keyword_rebuild_killed_midway_is_finished_by_the_next_maintenance(tmp_path, monkeypatch):
    from minirag_store.index.storage import upkeep

    monkeypatch.setattr(upkeep, "SEGMENT_ROWS", 1000)
    monkeypatch.setattr(upkeep, "SMALL_SEGMENT_ROWS", 100)
    rows = 6000
    template = tmp_path / "template"
    table = ChunkTable.open(template, "m", DIM)
    for first in range(0, rows, 1000):  # a long write: a final segment per 1,000 rows
        _fill_from(table, first, 1000)
        table.maintain(summarize=False)
    _fill_from(table, rows, 500)  # what the write's last maintenance folds in
    rows += 500
    piled = _keyword_segments(template)
    assert len(piled) > upkeep.KEYWORD_SEGMENTS

    for attempt in range(ATTEMPTS):
        db = tmp_path / f"killed{attempt}"
        shutil.copytree(template, db)
        proc = subprocess.Popen([sys.executable, "-c", _REBUILD, str(db)], stdout=subprocess.PIPE)
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == b"go"
        assert proc.stdout.readline().strip() == b"rebuild"
        folder = db / "chunks.lance" / "_indices"
        before = _files(folder)
        deadline = time.monotonic() + 120
        while proc.poll() is None and time.monotonic() < deadline and not _files(folder) - before:
            time.sleep(0.001)
        proc.kill()
        proc.wait(timeout=60)
        if proc.returncode == -signal.SIGKILL and len(_keyword_segments(db)) > 1:
            break  # killed before the rebuild committed
    else:
        raise AssertionError(f"no kill landed before the rebuild committed in {ATTEMPTS} tries")
    table = _answers(db, rows)  # the old segments answer, new rows searched flat
    table.maintain()
    assert _keyword_segments(db) == [rows]
    _answers(db, rows)
