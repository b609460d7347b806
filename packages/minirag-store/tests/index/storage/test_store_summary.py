"""The index summary: status, list and a no-op sync answer from it without LanceDB,
and no write (here or in another Index) ever leaves it describing an older version."""

from __future__ import annotations

import json
import subprocess
import sys

from minirag_store.index.storage import summary
from minirag_testkit.answers import expand

#: Runs in a fresh interpreter where importing LanceDB or onnxruntime fails: what it
#: prints was answered without either.
_WITHOUT_LANCEDB = """
import json, sys
sys.modules["lancedb"] = None
sys.modules["onnxruntime"] = None
from minirag_store import Index
index = Index.open(json.loads(sys.argv[1]))
status = index.status()
job = index.sync()
print(json.dumps({"status": status, "sync": job["counts"], "state": job["state"]}))
"""


def _without_lancedb(env: dict[str, str]) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", _WITHOUT_LANCEDB, json.dumps(env)],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def _corpus(root, count: int = 3) -> None:
    for k in range(count):
        (root / f"note{k}.md").write_text(f"# Note {k}\n\nText of note {k}.", encoding="utf-8")


def test_status_and_a_no_op_sync_answer_without_lancedb_or_the_model(
    make_index, index_env, docs_root
):
    _corpus(docs_root)
    index = make_index()
    assert index.sync()["counts"]["ingested"] == 3  # its maintenance leaves the summary
    assert summary.load(index.config.db_path) is not None
    expected = index.status()
    index.close()

    got = _without_lancedb(index_env)
    assert got["state"] == "succeeded"
    assert got["sync"]["skipped"] == 3 and got["sync"]["ingested"] == 0
    for key in ("chunkCount", "sourceCount", "staleChunkCount"):
        assert got["status"][key] == expected[key]
    assert got["status"]["sourceCount"] == 3


def test_every_write_removes_the_summary_and_the_next_read_is_current(make_index, docs_root):
    _corpus(docs_root)
    index = make_index()
    index.sync()
    db = index.config.db_path
    assert index.status()["sourceCount"] == 3
    assert summary.load(db) is not None

    index.ingest_data("standup notes", "notes/standup")
    assert summary.load(db) is None
    assert index.status()["sourceCount"] == 4
    index.delete_file("notes/standup")
    assert summary.load(db) is None
    assert index.status()["sourceCount"] == 3


def test_another_index_commit_is_never_hidden_by_the_summary(make_index, docs_root):
    """Two Index objects stand in for two processes: B's write removes the summary A
    wrote, so A's next status counts B's source."""
    _corpus(docs_root)
    a, b = make_index(), make_index()
    a.sync()
    assert a.status()["sourceCount"] == 3
    b.ingest_data("from the other process", "notes/other")
    assert a.status()["sourceCount"] == 4
    assert "notes/other" in {f["source"] for f in a.list_files()["files"]}


def test_a_summary_is_dropped_when_a_commit_lands_while_it_is_written(make_index, docs_root):
    """The reader's second look at the version: a commit between its read and its
    rename means its file is removed, not trusted."""
    _corpus(docs_root, 1)
    index = make_index()
    index.sync()
    table = index.table()
    current = table.summary()
    db = index.config.db_path
    summary.invalidate(db)
    assert not summary.store(db, current, lambda: current.version + 1)
    assert summary.load(db) is None
    assert summary.store(db, current, lambda: current.version)
    assert summary.load(db) == current


def test_a_damaged_or_foreign_summary_is_read_from_the_table_instead(make_index, docs_root):
    _corpus(docs_root)
    index = make_index()
    index.sync()
    db = index.config.db_path
    assert index.status()["chunkCount"] > 0
    path = db / summary.FILE_NAME
    for damage in ("{not json", json.dumps({"format": 999}), json.dumps({"format": 1})):
        path.write_text(damage, encoding="utf-8")
        status = index.status()
        assert status["sourceCount"] == 3, damage
        assert status["indexError"] is None


def test_a_changed_file_is_synced_even_when_the_summary_is_current(make_index, docs_root):
    _corpus(docs_root)
    index = make_index()
    index.sync()
    index.status()
    assert summary.load(index.config.db_path) is not None
    (docs_root / "note1.md").write_text("# Note 1\n\nRewritten entirely.", encoding="utf-8")
    (docs_root / "note2.md").unlink()
    job = index.sync()
    assert job["counts"]["ingested"] == 1 and job["counts"]["deleted"] == 1
    assert index.status()["sourceCount"] == 2
    hits = expand(index.query("Rewritten entirely", top_k=1))["results"]
    assert hits and hits[0]["source"].endswith("note1.md")
