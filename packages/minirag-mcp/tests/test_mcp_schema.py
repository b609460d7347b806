"""What a client sees in tools/list: names, argument schemas, its size, annotations."""

from __future__ import annotations

import pytest
from fastmcp import Client
from minirag_mcp.server import create_server
from minirag_store import Index

pytestmark = pytest.mark.anyio

ARGS = {
    "sync_start": {"path"},
    "sync_status": {"jobId"},
    "ingest_file": {"filePath"},
    "ingest_data": {"data", "source", "format", "title"},
    "ingest_url": {"url", "source", "title"},
    "query_documents": {"query", "topK", "scope", "offset", "explain"},
    "read_chunk_neighbors": {"filePath", "source", "chunkIndex", "before", "after"},
    "read_file": {"filePath", "source", "fromChunk", "page", "slide"},
    "read_page_image": {"filePath", "source", "page", "scale", "maxWidth"},
    "list_files": {"scope", "includeIgnored"},
    "delete_file": {"filePath", "source"},
    "status": set(),
}
READ_ONLY = {
    "sync_status",
    "query_documents",
    "read_chunk_neighbors",
    "read_file",
    "read_page_image",
    "list_files",
    "status",
}
#: Answered with image content, not structured content: a client that prefers structured
#: content would show the model a JSON object instead of the page (minirag_mcp.pages).
IMAGE_TOOLS = {"read_page_image"}


@pytest.fixture
async def tools(corpus_env):
    async with Client(create_server(Index.open(corpus_env))) as client:
        yield {t.name: t for t in await client.list_tools()}


async def test_the_twelve_tools_with_camelcase_arguments(tools):
    assert set(tools) == set(ARGS)
    for name, tool in tools.items():
        assert set(tool.input_schema.get("properties", {})) == ARGS[name], name
        assert len(tool.description or "") > 80, f"{name} needs a real description"
        assert tool.title, f"{name} needs a title clients can show"


async def test_required_arguments_and_bounds(tools):
    def schema(tool: str) -> dict:
        return tools[tool].input_schema

    assert set(schema("query_documents")["required"]) == {"query"}
    top_k = schema("query_documents")["properties"]["topK"]
    assert top_k["default"] == 8 and top_k["minimum"] == 1
    assert schema("ingest_data")["properties"]["format"]["enum"] == ["text", "markdown", "html"]
    assert set(schema("ingest_data")["required"]) == {"data", "source"}
    assert schema("read_chunk_neighbors")["required"] == ["chunkIndex"]
    from_chunk = schema("read_file")["properties"]["fromChunk"]
    assert from_chunk["default"] == 0 and from_chunk["minimum"] == 0
    assert schema("sync_status")["required"] == ["jobId"]
    assert schema("ingest_file")["required"] == ["filePath"]
    assert schema("read_page_image")["required"] == ["page"]
    scale, width = (schema("read_page_image")["properties"][k] for k in ("scale", "maxWidth"))
    assert (scale["default"], scale["minimum"], scale["maximum"]) == (2.0, 0.1, 8.0)
    assert (width["default"], width["minimum"], width["maximum"]) == (1600, 64, 1600)
    scope = schema("query_documents")["properties"]["scope"]
    assert {"type": "string"} in scope["anyOf"]
    assert {"items": {"type": "string"}, "type": "array"} in scope["anyOf"]
    for tool in ARGS:
        for prop, spec in schema(tool).get("properties", {}).items():
            assert spec.get("description"), f"{tool}.{prop} has no description"


async def test_the_tool_list_is_small_and_keeps_the_rules_a_model_needs(corpus_env):
    # Read into every session's context before the first question: 24.8 KB on a28ddc6,
    # 10 of it output schemas (bench/tool_list.py measures each part).
    async with Client(create_server(Index.open(corpus_env))) as client:
        listed = await client.session.list_tools()
    wire = listed.model_dump_json(by_alias=True, exclude_none=True)
    assert len(wire.encode()) <= 12_000, len(wire.encode())
    assert all(tool.output_schema is None for tool in listed.tools)
    query = next(t.description for t in listed.tools if t.name == "query_documents") or ""
    for rule in ("parents[parent]", "displayPath", "Sources", "not instructions", "budget"):
        assert rule in query, rule


async def test_results_still_come_as_structured_content(corpus_env):
    index = Index.open(corpus_env)
    assert index.sync()["state"] == "succeeded"
    async with Client(create_server(index)) as client:
        found = await client.call_tool("query_documents", {"query": "coolant pump"})
        status = await client.call_tool("status", {})
    assert {"results", "sources", "parents"} <= set(found.structured_content or {})
    assert "maxResponseTokens" in (status.structured_content or {})
    assert found.content and found.content[0].text.startswith("{")  # and as JSON text


async def test_annotations_tell_clients_what_is_safe(tools):
    for name, tool in tools.items():
        hints = tool.annotations
        assert hints is not None, name
        assert hints.read_only_hint is (name in READ_ONLY), name
        assert hints.open_world_hint is (name == "ingest_url"), name
        if name not in READ_ONLY:
            assert hints.destructive_hint is (name == "delete_file"), name
