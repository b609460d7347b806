"""The LanceDB chunk table on its own: atomic replacement, model check, metadata, filters.

Vectors do not matter for most of these, so rows carry small random unit vectors (dim 8);
everything else is the real table in ``tmp_path``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from minirag_store.errors import IndexMismatchError
from minirag_store.index.storage.schema import scope_filter
from minirag_store.index.table import ChunkTable
from store_rows import DIM, chunk_rows, lance_table


@pytest.fixture
def table(tmp_path) -> ChunkTable:
    return ChunkTable.open(tmp_path / "db", "test-model", DIM)


def put(table: ChunkTable, source: str, texts: list[str], **kw) -> None:
    rows, vectors = chunk_rows(source, texts, **kw)
    table.replace_sources([source], rows, vectors)


def test_replace_is_atomic_for_a_concurrent_reader(table):
    old = [f"old version chunk {i}" for i in range(6)]
    new = [f"new version chunk {i}" for i in range(3)]
    put(table, "/d/a.md", old)
    put(table, "/d/other.md", ["unrelated"])
    seen: list[tuple[str, ...]] = []
    errors: list[BaseException] = []
    stop = threading.Event()

    def reader():
        try:
            while not stop.is_set():
                seen.append(tuple(r["text"] for r in table.source_chunks("/d/a.md")))
        except BaseException as e:  # surfaced by the assertion below
            errors.append(e)

    thread = threading.Thread(target=reader)
    thread.start()
    for i in range(12):
        put(table, "/d/a.md", new if i % 2 == 0 else old)
    table.maintain()  # compaction + cleanup while the reader runs
    put(table, "/d/a.md", new)
    stop.set()
    thread.join()
    assert not errors
    assert len(seen) > 5
    assert set(seen) <= {tuple(old), tuple(new)}  # never a mix, never empty
    assert table.source_chunks("/d/other.md")[0]["text"] == "unrelated"


def test_failed_write_leaves_previous_version(table):
    put(table, "/d/a.md", ["kept text"])
    rows, vectors = chunk_rows("/d/a.md", ["half", "written"])
    with pytest.raises(ValueError, match="rows but"):
        table.replace_sources(["/d/a.md"], rows, vectors[:1])
    rows[1]["chunk_index"] = "not a number"
    with pytest.raises(Exception):  # noqa: B017 - arrow's conversion error type varies
        table.replace_sources(["/d/a.md"], rows, vectors)
    assert [r["text"] for r in table.source_chunks("/d/a.md")] == ["kept text"]


class _AddsAfter:
    """A LanceDB table whose ``add`` first lets another writer in (a race, on cue)."""

    def __init__(self, table: Any, before: Callable[[], None]) -> None:
        self._table, self._before = table, before

    def __getattr__(self, name: str) -> Any:
        return getattr(self._table, name)

    def add(self, *args: Any, **kwargs: Any) -> Any:
        self._before()
        return self._table.add(*args, **kwargs)


def test_a_new_source_gets_its_rows_once_when_another_writer_adds_it_meanwhile(tmp_path):
    """A new source is appended (no merge over the stored rows); another process adding
    the same new source between this writer's check and its commit must not leave both
    copies: the later writer sees them and writes its version once."""
    theirs = ChunkTable.open(tmp_path / "db", "m", DIM)  # another process's handle
    put(theirs, "/d/kept.md", ["an older file"])
    racing = True

    def their_write() -> None:
        nonlocal racing
        if racing:
            racing = False
            put(theirs, "/d/new.md", ["their first", "their second", "their third"])

    lance = lance_table(tmp_path / "db")
    ours = ChunkTable(_AddsAfter(lance, their_write), tmp_path / "db", "m", DIM)
    put(ours, "/d/new.md", ["our first", "our second"])
    assert not racing  # their write did land between our check and our commit
    texts = [r["text"] for r in ours.source_chunks("/d/new.md")]
    assert texts == ["our first", "our second"]
    assert ours.chunk_count("/d/new.md") == 2
    assert [r["text"] for r in theirs.source_chunks("/d/new.md")] == texts
    assert ours.source_chunks("/d/kept.md")[0]["text"] == "an older file"
    ours.maintain()
    assert ours.counts() == (3, 2)


def test_a_stored_source_replaced_by_two_writers_at_once_keeps_one_version(tmp_path, monkeypatch):
    """A stored source is swapped in one commit through fragments (not a merge over every
    stored row): when another process replaces the same source between our fragments'
    write and our commit, Lance refuses ours and it starts over: one version is left,
    never both, and the other sources are untouched."""
    import minirag_store.index.table as table_module

    ours = ChunkTable.open(tmp_path / "db", "m", DIM)
    theirs = ChunkTable.open(tmp_path / "db", "m", DIM)
    put(ours, "/d/kept.md", ["an older file"])
    put(ours, "/d/a.md", ["first old", "second old", "third old"])
    commit = table_module.commit_replace
    tries: list[int] = []

    def commit_after_theirs(*args, **kwargs):
        tries.append(1)
        if len(tries) == 1:
            put(theirs, "/d/a.md", ["their one", "their two", "their three", "their four"])
        return commit(*args, **kwargs)

    monkeypatch.setattr(table_module, "commit_replace", commit_after_theirs)
    put(ours, "/d/a.md", ["our one", "our two"])
    monkeypatch.undo()
    assert len(tries) == 2  # ours was refused once, then committed on the latest version
    texts = [r["text"] for r in ours.source_chunks("/d/a.md")]
    assert texts == ["our one", "our two"]
    assert ours.chunk_count("/d/a.md") == 2
    assert [r["text"] for r in theirs.source_chunks("/d/a.md")] == texts
    assert ours.source_chunks("/d/kept.md")[0]["text"] == "an older file"
    assert ours.counts() == (3, 2)


def test_model_mismatch_is_a_clear_error(tmp_path):
    ChunkTable.open(tmp_path / "db", "model-a", DIM)
    with pytest.raises(IndexMismatchError, match=r"model-a.*model-b.*DB_PATH.*re-index"):
        ChunkTable.open(tmp_path / "db", "model-b", DIM)
    with pytest.raises(IndexMismatchError, match="16 dims"):
        ChunkTable.open(tmp_path / "db", "model-a", 16)


def test_persists_across_reopen(tmp_path):
    first = ChunkTable.open(tmp_path / "db", "m", DIM)
    rows, vectors = chunk_rows("/d/a.md", ["alpha beta", "gamma"])
    first.replace_sources(["/d/a.md"], rows, vectors)
    first.maintain()
    again = ChunkTable.open(tmp_path / "db", "m", DIM)
    assert again.counts() == (2, 1)
    assert again.keyword_search("gamma", 5)[0]["source"] == "/d/a.md"
    hit = again.vector_search(vectors[1], 1)[0]
    assert hit["source"] == "/d/a.md"
    assert hit["_distance"] == pytest.approx(0.0, abs=1e-3)


def test_source_meta_touch_delete_counts(table):
    put(table, "/d/a.md", ["one", "two", "three"], file_hash="ha")
    put(table, "/d/b.md", ["four"], scheme=0, file_hash="hb")
    meta = table.source_meta()
    assert set(meta) == {"/d/a.md", "/d/b.md"}
    assert meta["/d/a.md"].chunk_count == 3
    assert meta["/d/a.md"].file_hash == "ha"
    assert meta["/d/b.md"].scheme_version == 0
    table.touch("/d/a.md", 555.0)
    assert table.source_meta()["/d/a.md"].mtime == 555.0
    assert table.counts() == (4, 2)
    assert table.summary().stale_count(1) == 1
    assert table.delete_sources(["/d/a.md", "/d/missing.md"]) == 3
    assert table.counts() == (1, 1)
    assert table.chunk_count("/d/a.md") == 0


def test_fts_stays_current_without_maintain(table):
    put(table, "/d/a.md", ["first words"])
    table.maintain()
    put(table, "/d/b.md", ["invoices arrived late"])  # after the index was built
    assert [r["source"] for r in table.keyword_search("invoice", 5)] == ["/d/b.md"]
    table.maintain()
    assert [r["source"] for r in table.keyword_search("invoice", 5)] == ["/d/b.md"]


def test_lookups_use_scalar_indexes(table):
    put(table, "/d/a.md", ["x"])
    raw = lance_table(table.db_path)
    indexed = {tuple(ix.columns): ix.index_type for ix in raw.list_indices()}
    assert indexed[("source",)] == "BTree"
    assert indexed[("parent_id",)] == "BTree"
    assert indexed[("keywords",)] == "FTS"


@pytest.mark.parametrize(
    ("scope", "expected"),
    [
        ("/d/proj", {"/d/proj/a.md"}),
        ("/d/pro%", set()),
        ("/d/pro_", set()),
        ("/d/proj' OR '1'='1", set()),
        ("/d/o'brien", {"/d/o'brien/x.md"}),
    ],
)
def test_scope_filter_sql(table, scope, expected):
    for source in ("/d/proj/a.md", "/d/project-secret/b.md", "/d/o'brien/x.md"):
        put(table, source, ["shared zebra text"])
    where = scope_filter([scope])
    assert {r["source"] for r in table.keyword_search("zebra", 10, where)} == expected
    vec = np.ones(DIM) / np.sqrt(DIM)
    assert {r["source"] for r in table.vector_search(vec, 10, [scope])} == expected


def test_reindex_does_not_grow_disk(table, tmp_path):
    texts = [f"chunk {i} " + "lorem ipsum dolor " * 20 for i in range(10)]
    sources = [f"/d/{i}.md" for i in range(10)]

    def write_all() -> int:
        for s in sources:
            put(table, s, texts)
        table.maintain()
        return sum(f.stat().st_size for f in (tmp_path / "db").rglob("*") if f.is_file())

    # The first re-write adds an index segment; from then on the size holds still
    # (old versions and their data files are removed by maintain()).
    sizes = [write_all() for _ in range(4)]
    assert sizes[3] <= sizes[1] * 1.05
    assert sizes[3] < sizes[0] * 2


def test_index_of_an_older_keyword_scheme_is_rebuilt_in_place_by_maintain(tmp_path):
    """An index written before the neighbour window (no keywords_version column, each
    entry only its own chunk) is brought up to date by maintain(), without re-embedding:
    afterwards a neighbour's word finds the chunk, and nothing is stale any more."""
    import pyarrow as pa
    from minirag_store.index.text.keywords import normalize

    table = ChunkTable.open(tmp_path / "db", "test-model", DIM)
    put(table, "/d/a.md", ["walrus colony", "ice floe census", "unrelated"])
    put(table, "/d/b.md", ["narwhal tusk"])
    raw = lance_table(tmp_path / "db")  # make it look like an index from before the change
    rows = raw.search().select(["id", "title", "text"]).limit(100).to_arrow().to_pylist()
    old = [normalize(f"{r['title']}\n{r['text']}") for r in rows]
    fields = pa.schema([raw.schema.field("id"), raw.schema.field("keywords")])
    data = pa.table({"id": [r["id"] for r in rows], "keywords": old}, schema=fields)
    raw.merge_insert("id").when_matched_update_all().execute(data)
    raw.drop_columns(["keywords_version"])
    vectors_before = raw.search().select(["id", "vector"]).limit(100).to_arrow().to_pylist()

    again = ChunkTable.open(tmp_path / "db", "test-model", DIM)
    assert again.keywords_stale()
    census_id = next(r["id"] for r in rows if r["text"] == "ice floe census")
    assert [h["id"] for h in again.keyword_search("census", 5)] == [census_id]
    again.maintain()
    assert not again.keywords_stale()
    census = {h["id"] for h in again.keyword_search("census", 5)}
    assert census == {r["id"] for r in rows if r["text"] in ("walrus colony", "ice floe census")}
    assert [h["source"] for h in again.keyword_search("narwhal", 5)] == ["/d/b.md"]
    after = lance_table(tmp_path / "db").search().select(["id", "vector"]).limit(100).to_arrow()
    assert sorted(after.to_pylist(), key=str) == sorted(vectors_before, key=str)


def test_keyword_search_finds_what_lancedbs_own_full_text_search_finds(table):
    """Our async keyword search (its own event loop, LanceDB's public async API) returns
    the hits and BM25 scores of LanceDB's sync search, indexed rows and new ones alike
    (then raised where a chunk says the query's words as typed, as the search does)."""
    from minirag_store.index.text.keywords import keyword_query, normalize_query
    from minirag_store.index.text.written import rerank_as_written

    put(table, "/d/a/1.md", ["invoice payment run", "the payment terms", "walrus census"])
    put(table, "/d/a/2.md", ["late invoice reminders", "invoice invoice dispute"])
    put(table, "/d/b/3.md", ["payment of an invoice by card"])
    table.maintain()
    put(table, "/d/b/4.md", ["an invoice written after the index was built"])
    raw = lance_table(table.db_path)
    for text, scopes in [("invoice", None), ("invoice payment", ["/d/a"]), ("payment", ["/d/b"])]:
        where = scope_filter(scopes)
        query = raw.search(normalize_query(text), query_type="fts", fts_columns="keywords")
        if where:
            query = query.where(where, prefilter=True)
        found = query.select(["id", "_score", "text"]).limit(10).to_arrow().to_pylist()
        assert found, text
        ranked = rerank_as_written(
            keyword_query(text).forms, [h["_score"] for h in found], [h["text"] for h in found]
        )
        expected = [{"id": found[i]["id"], "_score": score} for i, score in ranked]
        got = table.keyword_search(text, 10, where)
        key = lambda hit: (-round(hit["_score"], 5), hit["id"])  # noqa: E731
        assert sorted(map(key, got)) == sorted(map(key, expected)), text
        assert [h["_score"] for h in got] == sorted((h["_score"] for h in got), reverse=True)


def test_a_long_query_split_in_two_searches_scores_as_the_one_search(table):
    """Past six words a query runs as words, then pairs among their hits (keywords.py):
    the same hits with the same BM25 scores as LanceDB's one search of every repeated
    term, an identifier's weights (whole and parts) and a phrase's pairs included."""
    from minirag_store.index.search.aio import AsyncTable
    from minirag_store.index.search.fts import KeywordSearcher
    from minirag_store.index.storage.schema import TABLE_NAME
    from minirag_store.index.text.keywords import keyword_query, normalize_query

    put(table, "/d/a.md", ["the late invoice reminder was sent after the payment run", "x"])
    put(table, "/d/b.md", ["payment reminder for a late invoice", "ERR_SOCKET_CLOSED on retry"])
    put(table, "/d/c.md", ["invoice run sent late, reminder paid; socket closed"])
    put(table, "/d/d.md", ["the payment run: reminders, invoices, a retry after ERR_SOCKET_CLOSED"])
    table.maintain()
    put(table, "/d/e.md", ["a late payment reminder written after the index was built"])
    raw = lance_table(table.db_path)
    # The split runs on tables past RAG_ANN_MIN_CHUNKS (searcher.py); asked for directly here.
    searcher = KeywordSearcher(AsyncTable(table.db_path, TABLE_NAME))
    for text in [
        "late invoice reminder sent after the payment run failed again",
        "retry ERR_SOCKET_CLOSED late invoice reminder payment run today",
    ]:
        assert keyword_query(text).split, text  # else this tests the one search
        query = raw.search(normalize_query(text), query_type="fts", fts_columns="keywords")
        expected = query.select(["id", "_score"]).limit(10).to_arrow().to_pylist()
        found, _ = searcher.search(keyword_query(text), "keywords", 10, None, split=True)
        got = found.to_pylist()
        assert len(expected) >= 4, text
        assert {h["id"] for h in got} == {h["id"] for h in expected}, text
        scores = {h["id"]: h["_score"] for h in expected}
        for hit in got:
            assert hit["_score"] == pytest.approx(scores[hit["id"]], rel=1e-5), text
        assert [h["_score"] for h in got] == sorted((h["_score"] for h in got), reverse=True)


@pytest.mark.slow
def test_writers_starting_together_on_a_new_index_lose_no_row(tmp_path):
    # Lance turns a create that lost the race for the table's first version into an
    # overwrite, which emptied a table another writer had just written to (creation.py).
    # Threads with their own connections race the same way processes do; the race is
    # narrow, hence the rounds.
    for trial in range(25):
        where = tmp_path / f"db{trial}"
        start = threading.Barrier(3)
        errors: list[BaseException] = []

        def writer(k: int, where=where, start=start, errors=errors) -> None:
            try:
                start.wait()
                put(ChunkTable.open(where, "test-model", DIM), f"/d/{k}.md", [f"writer {k}"])
            except BaseException as e:  # reported below
                errors.append(e)

        threads = [threading.Thread(target=writer, args=(k,)) for k in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        found = ChunkTable.open(where, "test-model", DIM).source_meta()
        assert sorted(found) == ["/d/0.md", "/d/1.md", "/d/2.md"], f"round {trial}"


def test_an_index_made_before_the_primary_key_gets_it_and_keeps_its_rows(tmp_path):
    import lancedb
    import pyarrow as pa
    from minirag_store.index.storage.schema import TABLE_NAME, has_primary_key, schema

    current = ChunkTable.open(tmp_path / "now", "test-model", DIM)
    put(current, "/d/a.md", ["alpha one", "alpha two", "alpha three"])
    rows = lancedb.connect(tmp_path / "now").open_table(TABLE_NAME).to_arrow()
    # the same table as an earlier version made it: `id` nullable, no primary key
    new = schema(DIM, "test-model")
    old = new.set(0, pa.field("id", pa.string()))
    assert not has_primary_key(old)
    lancedb.connect(tmp_path / "old").create_table(TABLE_NAME, rows.cast(old))

    table = ChunkTable.open(tmp_path / "old", "test-model", DIM)
    stored = lancedb.connect(tmp_path / "old").open_table(TABLE_NAME).schema
    assert has_primary_key(stored) and not stored.field("id").nullable
    assert table.chunk_count("/d/a.md") == 3
    put(table, "/d/a.md", ["alpha one", "alpha two, edited"])  # replaced, not added to
    assert table.chunk_count("/d/a.md") == 2
    assert [h["text"] for h in table.source_chunks("/d/a.md")] == ["alpha one", "alpha two, edited"]
