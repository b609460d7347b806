"""Sync against a real LanceDB and the real offline model.

Covers add / modify / delete / unchanged, mtime-only changes, the chunking-scheme and
keyword-scheme upgrades, oversized and broken files, scoped syncs, images kept without
OCR, and data sources surviving a sync.
"""

from __future__ import annotations

import os
from pathlib import Path

import minirag_chunker
import pytest
from minirag_store.errors import InvalidArgumentError, NotFoundError, PathOutsideRootsError
from minirag_testkit.answers import expand


def _write(path: Path, text: str, mtime: float | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


def _top_source(index, query: str) -> str:
    return expand(index.query(query, top_k=3))["results"][0]["source"]


@pytest.fixture
def index(make_index):
    return make_index()


def test_sync_adds_then_skips_then_applies_modify_delete_add(index, docs_root: Path) -> None:
    a = _write(docs_root / "alpha.md", "# Glaciers\n\nGlaciers carve valleys as they slide.")
    b = _write(docs_root / "beta.md", "# Bread\n\nSourdough rises because of wild yeast.")
    c = _write(docs_root / "sub" / "gamma.txt", "Comets grow tails near the sun.")

    first = index.sync()
    assert first["state"] == "succeeded"
    assert first["counts"] == {
        "scanned": 3, "ingested": 3, "skipped": 0, "deleted": 0, "unreadable": 0, "failed": 0,
        "unsupported": 0,
    }  # fmt: skip
    assert first["errors"] == []
    assert _top_source(index, "why does a comet have a tail") == str(c)

    again = index.sync()
    assert again["counts"]["ingested"] == 0
    assert again["counts"]["skipped"] == 3

    _write(a, "# Glaciers\n\nMoraines are heaps of rock left by retreating ice.", mtime=2e9)
    b.unlink()
    d = _write(docs_root / "delta.md", "# Volcanoes\n\nMagma erupts as lava.")
    third = index.sync()
    assert third["counts"] == {
        "scanned": 3, "ingested": 2, "skipped": 1, "deleted": 1, "unreadable": 0, "failed": 0,
        "unsupported": 0,
    }  # fmt: skip
    assert "Moraines" in index.read_file(str(a))["text"]
    assert "carve valleys" not in index.read_file(str(a))["text"]
    assert _top_source(index, "where does lava come from") == str(d)
    with pytest.raises(NotFoundError):
        index.read_file(str(b))


def test_same_bytes_with_new_mtime_is_skipped_and_mtime_is_stored(
    index, docs_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import minirag_store.ingest.workers as pw

    note = _write(docs_root / "note.md", "Tidal locking keeps one face of the moon toward us.")
    index.sync()
    os.utime(note, (2e9, 2e9))

    second = index.sync()
    assert second["counts"]["skipped"] == 1
    assert second["counts"]["ingested"] == 0
    assert index.table().source_meta()[str(note)].mtime == note.stat().st_mtime

    hashed: list[str] = []
    real = pw.file_digest
    monkeypatch.setattr(pw, "file_digest", lambda p: hashed.append(str(p)) or real(p))
    third = index.sync()
    assert third["counts"]["skipped"] == 1
    assert hashed == [], "the stored mtime must spare the file a second hash"


def test_older_chunking_scheme_is_reingested(
    index, docs_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for i in range(3):
        _write(docs_root / f"doc{i}.md", f"# Topic {i}\n\nParagraph number {i} about owls.")
    index.sync()
    assert index.sync()["counts"]["ingested"] == 0

    monkeypatch.setattr(minirag_chunker, "SCHEME_VERSION", minirag_chunker.SCHEME_VERSION + 1)
    states = {row["state"] for row in index.list_files()["files"]}
    assert states == {"stale_scheme"}
    upgraded = index.sync()
    assert upgraded["counts"]["ingested"] == 3
    assert upgraded["counts"]["skipped"] == 0
    assert {row["state"] for row in index.list_files()["files"]} == {"ingested"}
    assert index.sync()["counts"]["skipped"] == 3


def test_older_keyword_scheme_is_rebuilt_by_a_sync_without_changes(
    index, docs_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from minirag_store.index.storage import keyword_column

    _write(docs_root / "owls.md", "# Owls\n\nBarn owls hunt voles at night.")
    index.sync()
    monkeypatch.setattr(keyword_column, "KEYWORDS_VERSION", keyword_column.KEYWORDS_VERSION + 1)
    assert index.table().keywords_stale()
    again = index.sync()
    assert again["counts"]["ingested"] == 0  # nothing re-read or re-embedded
    assert not index.table().keywords_stale()
    assert _top_source(index, "voles") == str(docs_root / "owls.md")


def test_data_sources_survive_full_and_scoped_syncs(index, docs_root: Path) -> None:
    _write(docs_root / "file.md", "Sundials tell time with shadows.")
    index.ingest_data("Quokkas live on Rottnest Island.", "notes/quokka", "text", "Quokkas")
    index.sync()
    index.sync(str(docs_root))
    assert "Rottnest" in index.read_file("notes/quokka")["text"]
    assert index.sync()["counts"]["deleted"] == 0


def test_oversized_file_is_a_skip_with_a_warning_not_a_failure(make_index, docs_root) -> None:
    index = make_index(MAX_FILE_SIZE="300")
    big = _write(docs_root / "big.md", "word " * 200)
    _write(docs_root / "small.md", "Tiny note about kestrels.")
    result = index.sync()
    assert result["state"] == "succeeded"
    assert result["counts"]["failed"] == 0
    assert result["counts"]["skipped"] == 1
    assert result["counts"]["ingested"] == 1
    assert result["counts"]["scanned"] == 2
    [error] = result["errors"]
    assert error["source"] == str(big)
    assert "skipped-oversized" in error["error"]
    assert "MAX_FILE_SIZE" in error["error"]


@pytest.mark.usefixtures("file_modes_apply")
def test_an_unreadable_file_fails_alone_and_is_indexed_once_readable(
    index, docs_root: Path
) -> None:
    locked = _write(docs_root / "locked.md", "The vault ledger lists every osprey nest.")
    _write(docs_root / "open.md", "Herons stand still in shallow water.")
    locked.chmod(0)
    try:
        result = index.sync()
    finally:
        locked.chmod(0o644)
    assert result["counts"]["ingested"] == 1 and result["counts"]["failed"] == 1, result
    [error] = result["errors"]
    assert error["source"] == str(locked)
    assert "could not read the file: Permission denied" in error["error"]
    assert _top_source(index, "herons in shallow water") == str(docs_root / "open.md")
    again = index.sync()
    assert again["counts"]["ingested"] == 1 and again["errors"] == [], again
    assert _top_source(index, "osprey nest ledger") == str(locked)


@pytest.mark.usefixtures("file_modes_apply")
def test_files_under_a_folder_that_turns_unreadable_stay_indexed(index, docs_root: Path) -> None:
    kept = _write(docs_root / "private" / "kept.md", "Puffins nest in burrows on cliffs.")
    index.sync()
    kept.parent.chmod(0)
    try:
        result = index.sync()
    finally:
        kept.parent.chmod(0o755)
    assert result["counts"]["deleted"] == 0
    assert any("Cannot read folder" in e["error"] for e in result["errors"]), result
    assert _top_source(index, "puffins nest in burrows") == str(kept)


def test_a_broken_file_fails_alone_and_the_sync_carries_on(index, docs_root: Path) -> None:
    bad = docs_root / "broken.pdf"
    bad.write_bytes(b"%PDF-1.7 truncated garbage, no objects at all")
    good = _write(docs_root / "good.md", "Herons stand still in shallow water.")
    result = index.sync()
    assert (result["state"], result["error"]) == (
        "failed",
        "1 file could not be ingested (see errors)",
    )
    assert result["counts"]["failed"] == 1
    assert result["counts"]["ingested"] == 1
    [error] = result["errors"]
    assert error["source"] == str(bad)
    assert "PDF" in error["error"]
    assert _top_source(index, "bird standing in water") == str(good)
    # Still not indexed, so it is tried (and fails) again next time.
    assert index.sync()["counts"]["failed"] == 1


def test_sync_of_one_path_touches_only_that_path(index, docs_root: Path, tmp_path) -> None:
    x = _write(docs_root / "one" / "x.md", "Lichens are fungi living with algae.")
    y = _write(docs_root / "two" / "y.md", "Mosses have no true roots.")
    index.sync()
    x.unlink()
    y.unlink()
    scoped = index.sync(str(docs_root / "one"))
    assert scoped["counts"]["deleted"] == 1
    assert "Mosses" in index.read_file(str(y))["text"]
    # A folder that no longer exists still reconciles: what was indexed there goes.
    (docs_root / "two").rmdir()
    assert index.sync(str(docs_root / "two"))["counts"]["deleted"] == 1

    single = _write(docs_root / "z.md", "Ferns spread by spores.")
    assert index.sync(str(single))["counts"]["ingested"] == 1

    outside = _write(tmp_path / "elsewhere.md", "not in a root")
    with pytest.raises(PathOutsideRootsError, match="outside"):
        index.sync(str(outside))
    with pytest.raises(InvalidArgumentError, match="absolute"):
        index.sync("one")


def test_indexed_image_without_ocr_is_kept_and_counted_unreadable(
    index, docs_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import minirag_store.ingest.scan as scan_module
    from minirag_store.index.write.writer import Document
    from minirag_store.ingest.operations import writer_for

    monkeypatch.setattr(scan_module, "ocr_available", lambda: False)
    image = docs_root / "receipt.png"
    image.write_bytes(b"\x89PNG\r\n\x1a\n not a real picture")
    writer = writer_for(index)
    doc = Document(
        source=str(image),
        source_type="file",
        title="receipt",
        markdown="Receipt from the hardware store: 3 hinges, 12 screws.",
        file_hash="x",
        mtime=image.stat().st_mtime,
        size=image.stat().st_size,
        ocr_engine="rapidocr",
    )
    assert [n for _, n in writer.write([doc])] == [1]
    writer.finish()

    result = index.sync()
    assert result["counts"]["unreadable"] == 1
    assert result["counts"]["deleted"] == 0
    assert result["counts"]["failed"] == 0
    [error] = result["errors"]
    assert error["source"] == str(image)
    assert "OCR" in error["error"]
    assert "hinges" in index.read_file(str(image))["text"]
    [row] = index.list_files()["files"]
    assert row["state"] == "unreadable"
    assert row["ocrEngine"] == "rapidocr"

    image.unlink()
    assert index.sync()["counts"]["deleted"] == 1
