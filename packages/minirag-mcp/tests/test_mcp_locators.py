"""Where each hit is, through the MCP tools: query_documents' locator and sources' pages,
read_file with a page or slide, and its refusals as tool errors a model can act on."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from fastmcp import Client
from mcp_testlib import structured, wait_for_job
from minirag_mcp.server import create_server
from minirag_store import Index
from minirag_testkit.answers import expand

pytestmark = pytest.mark.anyio

ON_PAGE_4 = "Диссертация состоит из пяти глав"


@pytest.fixture
async def client(corpus_env, fixtures):
    root = Path(corpus_env["BASE_DIR"])
    shutil.copy(fixtures / "thesis" / "avtoreferat.pdf", root / "avtoreferat.pdf")
    shutil.copy(fixtures / "markitdown" / "test.pptx", root / "test.pptx")
    index = Index.open({**corpus_env, "RAG_OCR_MIN_CHARS_PER_PAGE": "0"})
    async with Client(create_server(index)) as connected:
        started = structured(await connected.call_tool("sync_start", {}))
        job = await wait_for_job(connected, started["jobId"])
        assert job["state"] == "succeeded", job
        yield connected, root
    index.close()


async def test_query_hits_and_sources_say_the_page(client):
    connected, _ = client
    found = expand(
        structured(await connected.call_tool("query_documents", {"query": ON_PAGE_4, "topK": 3}))
    )
    top = found["results"][0]
    assert top["source"].endswith("avtoreferat.pdf")
    assert (
        top["locator"]["page"] <= 4 <= top["locator"].get("pages", [0, top["locator"]["page"]])[1]
    )  # pp. 3-4: page 3's last paragraph too
    pdf = next(s for s in found["sources"] if s["source"] == top["source"])
    assert 4 in pdf["pages"]


async def test_read_file_one_page_or_slide(client):
    connected, root = client
    page = structured(
        await connected.call_tool(
            "read_file", {"filePath": str(root / "avtoreferat.pdf"), "page": 5}
        )
    )
    assert page["page"] == 5 and "ЗАКЛЮЧЕНИЕ" in page["text"]
    assert "СОДЕРЖАНИЕ РАБОТЫ" not in page["text"]
    slide = structured(
        await connected.call_tool("read_file", {"filePath": str(root / "test.pptx"), "slide": 4})
    )
    assert "### Chart:" in slide["text"] and "A table" not in slide["text"]


async def test_read_file_page_refusals_are_tool_errors_saying_what_to_do(client):
    connected, root = client
    refused = await connected.call_tool(
        "read_file", {"filePath": str(root / "test.pptx"), "page": 2}, raise_on_error=False
    )
    assert refused.is_error
    message = refused.content[0].text
    assert "has no pages" in message and "read it without page" in message
    both = await connected.call_tool(
        "read_file",
        {"filePath": str(root / "avtoreferat.pdf"), "page": 1, "slide": 1},
        raise_on_error=False,
    )
    assert both.is_error and "not both" in both.content[0].text
