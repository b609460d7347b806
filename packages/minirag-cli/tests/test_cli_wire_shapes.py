"""The wire shape of every ``minirag-cli ... --json`` output, pinned as a reviewed snapshot.

Each command runs in-process (typer's runner) on a real folder and the offline model;
:func:`minirag_testkit.wire.shape` keeps the field names (in order) and JSON types and
drops the values that change run to run. A renamed, added or dropped field is a diff
here: scripts parse this output, so a change to it is a reviewed change.

After changing an output on purpose: ``uv run pytest <this file> --inline-snapshot=fix``
rewrites the snapshots in place; review the diff like any other. A plain run (and CI,
where inline-snapshot is disabled and ``snapshot(x)`` is just ``x``) fails on a mismatch.
"""

from __future__ import annotations

import pytest
from inline_snapshot import snapshot
from minirag_testkit.wire import serve_page, shape


@pytest.fixture
def indexed(tmp_path, corpus, invoke):
    """The test corpus ingested through ``ingest --json``: (flags, files, the job)."""
    files = corpus(tmp_path / "docs")
    flags = ["--base-dir", str(tmp_path / "docs"), "--db-path", str(tmp_path / "index")]
    ran = invoke("ingest", str(tmp_path / "docs"), "--json", *flags)
    assert ran.code == 0, ran.stderr
    return flags, files, ran.json()


def test_ingest(indexed):
    *_, job = indexed
    assert shape(job) == snapshot(
        {
            "jobId": "string",
            "state": "string",
            "startedAt": "string",
            "finishedAt": "string",
            "counts": {
                "scanned": "number",
                "ingested": "number",
                "skipped": "number",
                "deleted": "number",
                "unreadable": "number",
                "failed": "number",
            },
            "errors": [],
            "error": "null",
            "files": {
                "ingested": ["string"],
                "skipped": [],
                "deleted": [],
                "unreadable": [],
                "failed": [],
            },
        }
    )


def test_sync_with_a_failed_file(indexed, invoke):
    flags, files, _ = indexed
    (files["guide"].parent / "broken.pdf").write_bytes(b"this is not a PDF")
    ran = invoke("sync", "--json", *flags)
    assert ran.code == 1  # a failed file fails the run; the JSON still says which
    job = ran.json()
    assert job["errors"], job
    assert shape(job) == snapshot(
        {
            "jobId": "string",
            "state": "string",
            "startedAt": "string",
            "finishedAt": "string",
            "counts": {
                "scanned": "number",
                "ingested": "number",
                "skipped": "number",
                "deleted": "number",
                "unreadable": "number",
                "failed": "number",
            },
            "errors": [{"source": "string", "error": "string"}],
            "error": "null",
            "files": {
                "ingested": [],
                "skipped": ["string"],
                "deleted": [],
                "unreadable": [],
                "failed": ["string"],
            },
        }
    )


def test_query(indexed, invoke):
    flags, *_ = indexed
    ran = invoke("query", "connection timeout", "--json", *flags)
    assert ran.code == 0, ran.stderr
    found = ran.json()
    assert found["results"], "nothing found: the shape below would miss the hit fields"
    assert shape(found, maps={"parents"}) == snapshot(
        {
            "results": [
                {
                    "src": "number",
                    "chunkIndex": "number",
                    "score": "number",
                    "distance": "number",
                    "locator": {},
                    "text": "string",
                    "parent": "number",
                },
                {
                    "src": "number",
                    "chunkIndex": "number",
                    "score": "number",
                    "distance": "number",
                    "locator": {"headingPath": "string"},
                    "text": "string",
                    "parent": "number",
                },
            ],
            "sources": [
                {"title": "string", "hits": "number", "displayPath": "string", "root": "number"}
            ],
            "roots": ["string"],
            "parents": ["string"],
        }
    )


def test_read_neighbors(indexed, invoke):
    flags, files, _ = indexed
    args = ("--file-path", str(files["guide"]), "--chunk-index", "1", "--before", "1")
    ran = invoke("read-neighbors", *args, "--json", *flags)
    assert ran.code == 0, ran.stderr
    assert shape(ran.json()) == snapshot(
        {
            "source": "string",
            "chunks": [
                {
                    "text": "string",
                    "source": "string",
                    "title": "string",
                    "chunkIndex": "number",
                    "parentId": "string",
                }
            ],
        }
    )


def test_read(indexed, invoke):
    flags, files, _ = indexed
    ran = invoke("read", str(files["timeouts"]), "--json", *flags)
    assert ran.code == 0, ran.stderr
    assert shape(ran.json()) == snapshot(
        {
            "source": "string",
            "sourceType": "string",
            "title": "string",
            "chunkCount": "number",
            "text": "string",
            "displayPath": "string",
        }
    )


def test_list(indexed, invoke):
    flags, *_ = indexed
    ran = invoke("list", "--json", *flags)
    assert ran.code == 0, ran.stderr
    assert shape(ran.json()) == snapshot(
        {
            "files": [
                {
                    "source": "string",
                    "displayPath": "string",
                    "sourceType": "string",
                    "title": "string",
                    "state": "string",
                    "chunkCount": "number",
                    "ocrEngine": "string",
                }
            ]
        }
    )


def test_status(indexed, invoke):
    flags, *_ = indexed
    ran = invoke("status", "--json", *flags)
    assert ran.code == 0, ran.stderr
    status = ran.json()
    # ocrHint comes only when an OCR engine or language pack is missing: this machine's
    # install decides, not the wire shape; when present it is a string.
    assert isinstance(status.pop("ocrHint", ""), str)
    assert shape(status) == snapshot(
        {
            "version": "string",
            "configError": "null",
            "roots": ["string"],
            "dbPath": "string",
            "cacheDir": "string",
            "model": "string",
            "modelPath": "string",
            "chunkTokenBudget": "number",
            "hybridWeight": "number",
            "fusion": "string",
            "grouping": "null",
            "maxDistance": "null",
            "minScoreRatio": "number",
            "maxFiles": "null",
            "maxFileSize": "number",
            "maxResponseTokens": "number",
            "ocrLang": "string",
            "chunkScheme": "number",
            "watch": "string",
            "watchMode": "string",
            "schemeWarning": "null",
            "indexError": "null",
            "ocr": "string",
            "chunkCount": "number",
            "sourceCount": "number",
            "staleChunkCount": "number",
            "watchNote": "null",
            "transport": "null",
            "bindAddress": "null",
            "authMode": "null",
            "httpConfigError": "null",
            "instructionsTruncated": "null",
        }
    )


def test_ingest_url(indexed, invoke):
    flags, *_ = indexed
    with serve_page() as url:
        ran = invoke("ingest-url", url, "--source", "release-notes", "--json", *flags,
                     env={"ALLOW_PRIVATE_URLS": "1"})  # fmt: skip
    assert ran.code == 0, ran.stderr
    assert shape(ran.json()) == snapshot(
        {
            "source": "string",
            "title": "string",
            "chunkCount": "number",
            "sourceType": "string",
            "ocrEngine": "string",
        }
    )


def test_delete(indexed, invoke):
    flags, files, _ = indexed
    ran = invoke("delete", str(files["pancakes"]), "--json", *flags)
    assert ran.code == 0, ran.stderr
    assert shape(ran.json()) == snapshot({"source": "string", "deletedChunks": "number"})
