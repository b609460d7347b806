"""The wire shape of every MCP tool's result, pinned as a reviewed snapshot.

Each of the 11 tools is called through fastmcp's in-memory client on a real folder and
the offline model; :func:`minirag_testkit.wire.shape` keeps the field names (in order)
and JSON types and drops the values that change run to run. A renamed, added or dropped
field is a diff here, so a change to what clients parse is a reviewed change.

After changing a result on purpose: ``uv run pytest <this file> --inline-snapshot=fix``
rewrites the snapshots in place; review the diff like any other. A plain run (and CI,
where inline-snapshot is disabled and ``snapshot(x)`` is just ``x``) fails on a mismatch.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastmcp import Client
from inline_snapshot import snapshot
from mcp_testlib import structured, wait_for_job
from minirag_mcp.server import create_server
from minirag_store import Index
from minirag_testkit.wire import serve_page, shape

pytestmark = pytest.mark.anyio


@pytest.fixture
def page_url() -> Iterator[str]:
    """A page served on 127.0.0.1 (ingest_url's only reachable host in a test)."""
    with serve_page() as url:
        yield url


@pytest.fixture
async def synced(corpus_env):
    """A client over an index whose first sync has run: one file of the folder fails to
    convert (a ``.pdf`` that is not one), so the job and listing carry an error entry."""
    root = Path(corpus_env["BASE_DIR"])
    (root / "broken.pdf").write_bytes(b"this is not a PDF")
    index = Index.open({**corpus_env, "ALLOW_PRIVATE_URLS": "1"})
    async with Client(create_server(index)) as client:
        started = structured(await client.call_tool("sync_start", {}))
        job = await wait_for_job(client, started["jobId"])
        yield client, root, started, job
    index.close()


async def call(client: Client, tool: str, args: dict) -> dict:
    """A tool's structured result as plain JSON."""
    return structured(await client.call_tool(tool, args))


async def test_sync_start_and_sync_status(synced):
    _client, _root, started, job = synced
    assert shape(started) == snapshot({"jobId": "string"})
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
                "ingested": ["string"],
                "skipped": [],
                "deleted": [],
                "unreadable": [],
                "failed": ["string"],
            },
        }
    )


async def test_query_documents(synced):
    client, *_ = synced
    found = await call(client, "query_documents", {"query": "coolant pump flushing"})
    assert found["results"], "nothing found: the shape below would miss the hit fields"
    assert shape(found, maps={"parents"}) == snapshot(
        {
            "results": [
                {
                    "src": "number",
                    "text": "string",
                    "chunkIndex": "number",
                    "score": "number",
                    "distance": "number",
                    "locator": {"headingPath": "string"},
                    "parent": "number",
                },
                {
                    "src": "number",
                    "text": "string",
                    "chunkIndex": "number",
                    "score": "number",
                    "distance": "number",
                    "locator": {},
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


async def test_read_chunk_neighbors(synced):
    client, root, *_ = synced
    args = {"filePath": f"{root}/specs/cooling.md", "chunkIndex": 0, "after": 1}
    assert shape(await call(client, "read_chunk_neighbors", args)) == snapshot(
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


async def test_read_file(synced):
    client, root, *_ = synced
    read = await call(client, "read_file", {"filePath": f"{root}/specs/cooling.md"})
    assert shape(read) == snapshot(
        {
            "source": "string",
            "sourceType": "string",
            "title": "string",
            "chunkCount": "number",
            "text": "string",
            "displayPath": "string",
        }
    )


async def test_list_files(synced):
    client, *_ = synced
    listed = await call(client, "list_files", {})
    assert "ingested" in {f["state"] for f in listed["files"]}
    assert shape(listed) == snapshot(
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


async def test_ingest_file(synced):
    client, root, *_ = synced
    (root / "notes" / "new.md").write_text("# New\n\nA note written after the sync.\n")
    made = await call(client, "ingest_file", {"filePath": f"{root}/notes/new.md"})
    assert shape(made) == snapshot(
        {
            "source": "string",
            "title": "string",
            "chunkCount": "number",
            "sourceType": "string",
            "ocrEngine": "string",
        }
    )


async def test_ingest_data(synced):
    client, *_ = synced
    args = {"data": "# Standup\n\nVersion 7 ships in March.", "source": "notes/standup",
            "format": "markdown"}  # fmt: skip
    assert shape(await call(client, "ingest_data", args)) == snapshot(
        {
            "source": "string",
            "title": "string",
            "chunkCount": "number",
            "sourceType": "string",
            "ocrEngine": "string",
        }
    )


async def test_ingest_url(synced, page_url):
    client, *_ = synced
    made = await call(client, "ingest_url", {"url": page_url, "source": "release-notes"})
    assert shape(made) == snapshot(
        {
            "source": "string",
            "title": "string",
            "chunkCount": "number",
            "sourceType": "string",
            "ocrEngine": "string",
        }
    )


async def test_delete_file(synced):
    client, root, *_ = synced
    gone = await call(client, "delete_file", {"filePath": f"{root}/notes/lunch.txt"})
    assert shape(gone) == snapshot({"source": "string", "deletedChunks": "number"})


async def test_status(synced):
    client, *_ = synced
    status = await call(client, "status", {})
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
            "instructionsTruncated": "boolean",
        }
    )
