"""Degraded mode: a broken configuration still serves; status explains, the rest refuse."""

from __future__ import annotations

import pytest
from fastmcp import Client
from mcp_testlib import structured
from minirag_mcp.server import create_server
from minirag_store import Index

pytestmark = pytest.mark.anyio

CALLS = {
    "sync_start": {},
    "sync_status": {"jobId": "0123"},
    "ingest_file": {"filePath": "/tmp/x.md"},
    "ingest_data": {"data": "hello", "source": "greeting"},
    "ingest_url": {"url": "https://example.com/"},
    "query_documents": {"query": "anything"},
    "read_chunk_neighbors": {"source": "greeting", "chunkIndex": 0},
    "read_file": {"source": "greeting"},
    "list_files": {},
    "delete_file": {"source": "greeting"},
}


async def test_status_reports_only_version_and_the_config_error(broken_env):
    async with Client(create_server(Index.open(broken_env))) as client:
        result = await client.call_tool("status", {})
    data = structured(result)
    known = {key for key, value in data.items() if value is not None}
    # the rest null; the record of synced indexes is the user's, whatever the configuration
    assert known == {"version", "configError", "knownIndexes", "instructionsTruncated"}
    assert data["instructionsTruncated"] is False
    assert "BASE_DIRS" in data["configError"]
    assert data["version"]


@pytest.mark.parametrize("tool", sorted(CALLS))
async def test_every_other_tool_fails_with_the_config_message(broken_env, tool):
    async with Client(create_server(Index.open(broken_env))) as client:
        result = await client.call_tool(tool, CALLS[tool], raise_on_error=False)
    assert result.is_error
    message = result.content[0].text
    assert message.startswith("Configuration error: BASE_DIRS must be a JSON array"), message
    assert "Traceback" not in message
