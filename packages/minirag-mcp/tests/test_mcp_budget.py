"""RAG_MAX_RESPONSE_TOKENS through the MCP tools: what a client gets fits, and says how to
read the rest. Sizes are the tool result's text content (the JSON a client hands the
model), counted with the model's own tokenizer."""

from __future__ import annotations

import json

import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from mcp_testlib import child_env, console_script, structured
from minirag_mcp.server import create_server
from minirag_store import Index
from minirag_testkit.answers import chunks_held
from minirag_testkit.documents import coolant_area, field_manual

pytestmark = pytest.mark.anyio

BUDGET = 1000

MANUAL = field_manual(50)


@pytest.fixture
async def env(corpus_env):
    root = corpus_env["BASE_DIR"]
    with open(f"{root}/manual.md", "w", encoding="utf-8") as f:
        f.write(MANUAL)
    for n in range(6):
        with open(f"{root}/area{n}.md", "w", encoding="utf-8") as f:
            f.write(coolant_area(n))
    index = Index.open(corpus_env)
    job = index.sync()
    index.close()
    assert job["state"] == "succeeded", job
    return {**corpus_env, "RAG_MAX_RESPONSE_TOKENS": str(BUDGET)}


def client_tokens(result, count) -> int:
    """Tokens of the text content a client shows the model; it must match the structure."""
    (content,) = result.content
    assert json.loads(content.text) == structured(result)
    return count(content.text)


async def test_query_documents_is_trimmed_to_the_budget(env, token_counter):
    index = Index.open(env)
    async with Client(create_server(index)) as client:
        result = await client.call_tool(
            "query_documents", {"query": "coolant inspection pump valve pressure", "topK": 8}
        )
        data = structured(result)
        assert client_tokens(result, token_counter) <= BUDGET
        trimmed = data["trimmed"]
        assert trimmed["maxTokens"] == BUDGET and trimmed["parentsLeftOut"]
        assert "RAG_MAX_RESPONSE_TOKENS" in data["notice"]
        assert data["results"] and data["results"][0]["chunkIndex"] >= 0
        # A hit whose parent was left out is read whole with the tool the notice names.
        orphan = next(h for h in data["results"] if "parent" not in h)
        around = structured(
            await client.call_tool(
                "read_chunk_neighbors",
                {
                    "source": data["sources"][orphan["src"]]["displayPath"],
                    "chunkIndex": orphan["chunkIndex"],
                },
            )
        )
        assert any(c["text"].endswith(orphan["text"]) for c in around["chunks"])
    index.close()


async def test_the_offset_a_trimmed_answer_names_reads_the_hits_it_left_out(env):
    index = Index.open(env)
    query = "coolant inspection pump valve pressure"
    async with Client(create_server(index)) as client:
        first = structured(await client.call_tool("query_documents", {"query": query, "topK": 30}))
        offset = first["trimmed"]["nextOffset"]
        # offset counts ranked chunks: a passage of neighbours holds several
        assert offset == len(chunks_held(first)) and f"offset={offset}" in first["notice"]
        rest = structured(
            await client.call_tool(
                "query_documents", {"query": query, "topK": 30, "offset": offset}
            )
        )
    best = index.query(query, top_k=offset, max_tokens=0)
    more = index.query(query, top_k=offset + 30, max_tokens=0)
    index.close()

    def seen(answer):
        sources = answer["sources"]
        return {(sources[src]["displayPath"], chunk) for src, chunk in chunks_held(answer)}

    # The first answer holds the best ``offset`` chunks; the second (fitted too) goes on
    # from there: none of them again, only the next-ranked ones.
    assert seen(first) == seen(best)
    assert seen(rest) and not seen(rest) & seen(first) and seen(rest) <= seen(more) - seen(best)


async def test_read_file_pages_within_the_budget_and_the_notice_reads_on(env, token_counter):
    index = Index.open(env)
    path = f"{env['BASE_DIR']}/manual.md"
    async with Client(create_server(index)) as client:
        pages = [await client.call_tool("read_file", {"filePath": path})]
        while "nextChunk" in structured(pages[-1]):
            nxt = structured(pages[-1])["nextChunk"]
            assert f"fromChunk={nxt}" in structured(pages[-1])["notice"]
            pages.append(await client.call_tool("read_file", {"filePath": path, "fromChunk": nxt}))
            assert len(pages) < 100
    index.close()
    assert len(pages) > 2
    assert all(client_tokens(p, token_counter) <= BUDGET for p in pages)
    text = "".join(structured(p)["text"] for p in pages)
    assert "".join(text.split()) == "".join(MANUAL.split())  # all of it, in order, once


async def test_a_budget_that_fits_changes_nothing(env):
    roomy = Index.open({**env, "RAG_MAX_RESPONSE_TOKENS": "1000000"})
    path = f"{env['BASE_DIR']}/manual.md"
    async with Client(create_server(roomy)) as client:
        data = structured(await client.call_tool("read_file", {"filePath": path}))
        query = structured(await client.call_tool("query_documents", {"query": "coolant pump"}))
    roomy.close()
    assert "nextChunk" not in data and "notice" not in data
    assert "".join(data["text"].split()) == "".join(MANUAL.split())
    assert "trimmed" not in query and "notice" not in query and len(chunks_held(query)) == 8


async def test_a_bad_budget_refuses_tools_but_status_answers(corpus_env):
    index = Index.open({**corpus_env, "RAG_MAX_RESPONSE_TOKENS": "12"})
    async with Client(create_server(index)) as client:
        status = structured(await client.call_tool("status", {}))
        query = await client.call_tool("query_documents", {"query": "x"}, raise_on_error=False)
    assert status["configError"] == "RAG_MAX_RESPONSE_TOKENS must be at least 1000, got 12"
    assert query.is_error and "RAG_MAX_RESPONSE_TOKENS must be at least 1000" in (
        query.content[0].text
    )


async def test_over_stdio_the_bytes_a_client_reads_fit(env, token_counter):
    """The installed server as a client runs it: every answer read off the pipe fits."""
    path = f"{env['BASE_DIR']}/manual.md"
    transport = StdioTransport(console_script(), [], env=child_env(env))
    async with Client(transport) as client:
        query = await client.call_tool(
            "query_documents", {"query": "coolant inspection pump valve pressure"}
        )
        first = await client.call_tool("read_file", {"filePath": path})
        nxt = structured(first)["nextChunk"]
        second = await client.call_tool("read_file", {"filePath": path, "fromChunk": nxt})
    assert structured(query)["trimmed"]["maxTokens"] == BUDGET
    for result in (query, first, second):
        assert client_tokens(result, token_counter) <= BUDGET
    assert structured(first)["text"] and structured(second)["text"]
    assert structured(first)["text"] != structured(second)["text"]


async def test_explain_gives_each_hit_its_scores_and_nothing_else_changes(env):
    index = Index.open({**env, "RAG_MAX_RESPONSE_TOKENS": "1000000"})
    query = {"query": "coolant inspection pump valve pressure", "topK": 8}
    async with Client(create_server(index)) as client:
        plain = structured(await client.call_tool("query_documents", query))
        told = structured(await client.call_tool("query_documents", {**query, "explain": True}))
    index.close()
    assert all("score" not in h and "distance" not in h for h in plain["results"])
    assert all(isinstance(h["score"], float) and "distance" in h for h in told["results"])
    assert [h["score"] for h in told["results"]] == sorted(
        (h["score"] for h in told["results"]), reverse=True
    )
    assert chunks_held(told) == chunks_held(plain)  # the same hits, in the same order
