"""ingest_file / ingest_paths / ingest_data / ingest_url against the real model and LanceDB."""

from __future__ import annotations

import http.server
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest
from minirag_store.errors import (
    ConversionError,
    InvalidArgumentError,
    NotFoundError,
    PathOutsideRootsError,
    UrlRefusedError,
)
from minirag_testkit.answers import expand


@pytest.fixture
def index(make_index):
    return make_index()


def _top(index, query: str, **kw) -> dict:
    return expand(index.query(query, top_k=3, **kw))["results"][0]


def test_ingest_file_indexes_and_reingest_replaces(index, docs_root: Path) -> None:
    path = docs_root / "otters.md"
    path.write_text("# Sea otters\n\nSea otters hold hands while they sleep.", encoding="utf-8")
    result = index.ingest_file(str(path))
    assert result["source"] == str(path)
    assert result["title"] == "Sea otters"
    assert result["sourceType"] == "file"
    assert result["ocrEngine"] == ""
    assert result["chunkCount"] >= 1
    assert _top(index, "animals that hold hands when sleeping")["source"] == str(path)

    path.write_text("# Sea otters\n\nOtters use rocks to crack shellfish.", encoding="utf-8")
    index.ingest_file(str(path))
    text = index.read_file(str(path))["text"]
    assert "crack shellfish" in text
    assert "hold hands" not in text


def test_ingest_file_refuses_bad_paths_with_clear_errors(
    make_index, docs_root: Path, tmp_path: Path
) -> None:
    index = make_index(MAX_FILE_SIZE="100")
    outside = tmp_path / "outside.md"
    outside.write_text("secret", encoding="utf-8")
    with pytest.raises(PathOutsideRootsError, match="outside configured document roots"):
        index.ingest_file(str(outside))
    with pytest.raises(NotFoundError, match="File not found"):
        index.ingest_file(str(docs_root / "missing.md"))
    (docs_root / "folder").mkdir()
    with pytest.raises(InvalidArgumentError, match="folder"):
        index.ingest_file(str(docs_root / "folder"))
    # a path relative to its root is taken under it (the displayPath answers print)
    with pytest.raises(NotFoundError, match=f"File not found: {docs_root}/relative.md"):
        index.ingest_file("relative.md")
    big = docs_root / "big.md"
    big.write_text("x" * 500, encoding="utf-8")
    with pytest.raises(ConversionError, match="MAX_FILE_SIZE"):
        index.ingest_file(str(big))
    odd = docs_root / "data.xyz"
    odd.write_text("hello", encoding="utf-8")
    with pytest.raises(ConversionError, match="unsupported file type"):
        index.ingest_file(str(odd))
    symlink = docs_root / "escape.md"
    symlink.symlink_to(outside)
    with pytest.raises(PathOutsideRootsError):
        index.ingest_file(str(symlink))


def test_ingest_paths_walks_folders_counts_failures_and_reports_progress(
    index, docs_root: Path
) -> None:
    for i in range(3):
        (docs_root / "pack").mkdir(exist_ok=True)
        (docs_root / "pack" / f"f{i}.md").write_text(f"Fact {i}: puffins dive.", encoding="utf-8")
    single = docs_root / "single.txt"
    single.write_text("Narwhal tusks are teeth.", encoding="utf-8")
    (docs_root / "pack" / "empty.md").write_text("   \n", encoding="utf-8")
    events = []
    result = index.ingest_paths([str(docs_root / "pack"), str(single)], progress=events.append)
    assert result["state"] == "succeeded"  # a document with no text is no failure
    assert result["counts"]["scanned"] == 5
    assert result["counts"]["ingested"] == 4
    assert (result["counts"]["failed"], result["counts"]["skipped"]) == (0, 1)
    [error] = result["errors"]
    assert error["source"] == str(docs_root / "pack" / "empty.md")
    assert error["error"].startswith("skipped-empty: ") and "no text" in error["error"]
    assert [e.done for e in events] == [1, 2, 3, 4, 5]
    assert events[-1].total == 5
    # Re-ingesting is unconditional: nothing is skipped as unchanged.
    assert index.ingest_paths([str(single)])["counts"]["ingested"] == 1
    with pytest.raises(NotFoundError):
        index.ingest_paths([str(single), str(docs_root / "nope")])


def test_ingest_data_titles_replaces_and_validates(index, docs_root: Path) -> None:
    result = index.ingest_data(
        "Meeting notes: the budget for Q3 was approved.", "notes/2024-07", "text", "Q3 budget"
    )
    assert result == {
        "source": "notes/2024-07",
        "title": "Q3 budget",
        "chunkCount": 1,
        "sourceType": "data",
        "ocrEngine": "",
    }
    assert _top(index, "was the quarterly budget approved")["source"] == "notes/2024-07"

    html = "<html><head><title>Gecko feet</title></head><body><p>Geckos climb glass.</p></body>"
    from_html = index.ingest_data(html, "web/gecko", "html")
    assert from_html["title"] == "Gecko feet"
    assert "Geckos climb glass." in index.read_file("web/gecko")["text"]

    index.ingest_data("Replaced text about moths.", "notes/2024-07", "markdown")
    assert "moths" in index.read_file("notes/2024-07")["text"]
    assert "budget" not in index.read_file("notes/2024-07")["text"]

    with pytest.raises(InvalidArgumentError, match="format"):
        index.ingest_data("x", "id", "pdf")
    with pytest.raises(InvalidArgumentError, match="source id"):
        index.ingest_data("x", "  ", "text")
    with pytest.raises(InvalidArgumentError, match="empty"):
        index.ingest_data("   ", "id", "text")
    with pytest.raises(InvalidArgumentError, match="inside a document root"):
        index.ingest_data("x", str(docs_root / "fake.md"), "text")


class _Site(http.server.BaseHTTPRequestHandler):
    PAGES: ClassVar[dict[str, tuple[str, bytes]]] = {
        "/birds.html": (
            "text/html; charset=utf-8",
            b"<html><head><title>Pelican facts</title></head><body><h1>Pelicans</h1>"
            b"<p>A pelican's pouch holds three gallons of water.</p></body></html>",
        ),
        "/plain": ("text/plain", b"Flamingos are pink because of their diet."),
        "/blob": ("application/octet-stream", b"\x00\x01\x02"),
    }

    def do_GET(self) -> None:
        page = self.PAGES.get(self.path)
        if page is None:
            self.send_error(404)
            return
        ctype, body = page
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:  # keep test output quiet
        pass


@pytest.fixture
def site() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Site)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_ingest_url_fetches_converts_and_indexes(make_index, site: str) -> None:
    index = make_index(ALLOW_PRIVATE_URLS="1")
    url = f"{site}/birds.html"
    result = index.ingest_url(url)
    assert result["source"] == url
    assert result["sourceType"] == "url"
    assert result["title"] == "Pelican facts"
    assert _top(index, "how much water fits in a pelican pouch")["source"] == url

    named = index.ingest_url(f"{site}/plain", source="web/flamingo", title="Flamingos")
    assert named["source"] == "web/flamingo"
    assert named["title"] == "Flamingos"
    assert "pink" in index.read_file("web/flamingo")["text"]

    with pytest.raises(ConversionError, match="cannot convert"):
        index.ingest_url(f"{site}/blob")
    with pytest.raises(InvalidArgumentError):
        index.ingest_url("  ")


def test_ingest_url_refuses_private_hosts_by_default(index, site: str) -> None:
    with pytest.raises(UrlRefusedError):
        index.ingest_url(f"{site}/birds.html")
    assert index.list_files()["files"] == []


def test_ingest_file_does_not_need_the_sync_lock(index, docs_root: Path) -> None:
    from minirag_store.ingest.lock import SyncLock

    path = docs_root / "note.md"
    path.write_text("Ibis birds probe mud for food.", encoding="utf-8")
    with SyncLock(index.config.db_path):
        assert index.ingest_file(str(path))["chunkCount"] == 1
        assert index.ingest_data("Storks migrate.", "n/stork")["chunkCount"] == 1
    assert os.path.exists(index.config.db_path / ".sync.lock")
