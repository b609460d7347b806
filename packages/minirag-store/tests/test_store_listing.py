"""list_files: every state a user can see, scopes, and data sources after the files."""

from __future__ import annotations

import os
from pathlib import Path

import minirag_chunker
import pytest


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_states_titles_counts_and_display_paths(make_index, docs_root: Path) -> None:
    index = make_index()
    kept = _write(docs_root / "guide" / "kept.md", "# Beekeeping\n\nBees make honey.")
    changed = _write(docs_root / "changed.md", "# Wasps\n\nWasps build paper nests.")
    index.sync()
    new = _write(docs_root / "new.md", "Hornets are large wasps.")
    _write(changed, "# Wasps\n\nWasps also eat aphids.")
    os.utime(changed, (2e9, 2e9))
    index.ingest_data("Ants farm aphids.", "notes/ants", "text", "Ant farming")

    listing = index.list_files()
    rows = {row["source"]: row for row in listing["files"]}
    assert [row["source"] for row in listing["files"]] == [
        str(changed), str(kept), str(new), "notes/ants"
    ]  # fmt: skip
    assert rows[str(kept)] == {
        "source": str(kept),
        "displayPath": "guide/kept.md",
        "sourceType": "file",
        "title": "Beekeeping",
        "state": "ingested",
        "chunkCount": index.table().source_meta()[str(kept)].chunk_count,
        "ocrEngine": "",
    }
    assert rows[str(changed)]["state"] == "stale"
    assert rows[str(new)]["state"] == "not_ingested"
    assert rows[str(new)]["title"] == ""
    assert rows[str(new)]["chunkCount"] == 0
    assert rows["notes/ants"]["sourceType"] == "data"
    assert rows["notes/ants"]["displayPath"] == "notes/ants"
    assert rows["notes/ants"]["state"] == "ingested"
    assert "warnings" not in listing

    index.sync()
    assert {row["state"] for row in index.list_files()["files"]} == {"ingested"}


def test_scope_narrows_files_and_data_sources(make_index, docs_root: Path) -> None:
    index = make_index()
    a = _write(docs_root / "proj" / "a.md", "Alpha notes.")
    _write(docs_root / "project-secret" / "b.md", "Beta notes.")
    index.ingest_data("Gamma notes.", "notes/g", "text")
    index.ingest_data("Delta notes.", "other/d", "text")
    index.sync()
    scoped = index.list_files(str(docs_root / "proj"))["files"]
    assert [row["source"] for row in scoped] == [str(a)]
    both = index.list_files([str(docs_root / "proj"), "notes"])["files"]
    assert [row["source"] for row in both] == [str(a), "notes/g"]


def test_stale_scheme_data_source(make_index, monkeypatch: pytest.MonkeyPatch) -> None:
    index = make_index()
    index.ingest_data("Old words.", "notes/old", "text")
    monkeypatch.setattr(minirag_chunker, "SCHEME_VERSION", minirag_chunker.SCHEME_VERSION + 1)
    [row] = index.list_files()["files"]
    assert row["state"] == "stale_scheme"


def test_scan_warnings_are_passed_on(make_index, docs_root: Path) -> None:
    index = make_index()
    (docs_root / "gone.md").symlink_to(docs_root / "never-existed.md")
    listing = index.list_files()
    assert listing["files"] == []
    assert any("gone.md" in w for w in listing["warnings"])
    result = index.sync()
    assert result["counts"]["failed"] == 0
    assert any("gone.md" in e["error"] for e in result["errors"])
