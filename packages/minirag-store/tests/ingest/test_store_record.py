"""The index's own account of its syncs (minirag_store.ingest.record): the last sync and who
ran it, and the files syncs could not read, the same from every process."""

from __future__ import annotations

from minirag_store import Index
from minirag_store.ingest.record import FILE_NAME


def _states(index: Index) -> dict[str, tuple[str, str | None]]:
    return {r["displayPath"]: (r["state"], r.get("reason")) for r in index.list_files()["files"]}


def test_a_sync_is_recorded_for_every_process_with_who_ran_it(make_index, docs_root, index_env):
    (docs_root / "good.md").write_text("# Good\n\nThe relief valve opens at 4 bar.\n")
    (docs_root / "broken.pdf").write_bytes(b"%PDF-1.7\nthis is not really a pdf\n")
    index = make_index()
    assert index.status()["lastSync"] is None  # nothing ran yet
    job = index.sync()
    assert job["state"] == "failed" and job["counts"]["failed"] == 1

    # Another process (a fresh Index over the same folder) tells the same story.
    other = Index.open(index_env)
    try:
        last = other.status()["lastSync"]
        assert last is not None and last["origin"] == "cli" and last["state"] == "failed"
        assert last["jobId"] == job["jobId"] and last["counts"]["ingested"] == 1
        assert [e["source"] for e in last["errors"]] == [str(docs_root / "broken.pdf")]
        states = _states(other)
        assert states["good.md"] == ("ingested", None)
        state, reason = states["broken.pdf"]
        assert state == "failed" and reason  # the sync's own error, not "not ingested"

        # Removing another file does not change what the failed one is called.
        other.delete_file("good.md")
        assert _states(other)["broken.pdf"][0] == "failed"
        assert _states(other)["good.md"][0] == "not_ingested"

        # Mended and synced by a client: the failure is forgotten, the origin recorded.
        (docs_root / "broken.pdf").unlink()
        (docs_root / "broken.md").write_text("# Mended\n\nNow plain text.\n")
        started = other.sync_start()
        done = other.syncs().wait(started["jobId"], 120)
        assert done["state"] == "succeeded", done
        last = index.status()["lastSync"]
        assert last is not None and last["origin"] == "client" and last["state"] == "succeeded"
        assert "broken.pdf" not in _states(index)
        assert (index.config.db_path / FILE_NAME).stat().st_size < 4096
    finally:
        other.close()
