"""An answer says how good its hits are, through a real MCP session (fastmcp's
Client(server) in memory) on a real folder and model: an identifier no document holds is
named, nonsense and stop words are flagged, and an identifier two documents hold brings
those two back without unrelated chunks padded in behind them."""

from __future__ import annotations

import pytest
from fastmcp import Client
from mcp_testlib import structured, wait_for_job
from minirag_mcp.server import create_server
from minirag_store import Index
from minirag_testkit.scenarios import MATCH_NOTES, NO_MATCH_QUERIES, write_files

pytestmark = pytest.mark.anyio


@pytest.fixture
async def client(tmp_path, model_env):
    root = write_files(tmp_path / "docs", MATCH_NOTES)
    index = Index.open({**model_env, "BASE_DIR": str(root), "DB_PATH": str(tmp_path / "db")})
    async with Client(create_server(index)) as connected:
        started = structured(await connected.call_tool("sync_start", {}))
        assert (await wait_for_job(connected, started["jobId"]))["state"] == "succeeded"
        yield connected
    index.close()


async def ask(client, query: str) -> dict:
    return structured(await client.call_tool("query_documents", {"query": query}))


async def test_an_absent_identifier_is_named_and_the_answer_flagged(client):
    answer = await ask(client, "ZEBRA-4471")
    assert answer["notice"].startswith('No document contains "ZEBRA-4471".')
    assert "Nothing really matches" in answer["notice"]
    assert answer["bestMatch"] == "weak"
    assert answer["results"], "the hits still come back, flagged"
    assert {h["match"]["level"] for h in answer["results"]} == {"weak"}
    assert all(h["match"]["missing"] == ["ZEBRA-4471"] for h in answer["results"])


@pytest.mark.parametrize("query", NO_MATCH_QUERIES[1:])
async def test_nonsense_and_stop_words_are_flagged(client, query):
    answer = await ask(client, query)
    assert answer["bestMatch"] == "weak", answer
    assert "Nothing really matches" in answer["notice"]


async def test_an_identifier_two_documents_hold_is_not_padded_out(client):
    answer = await ask(client, "DATAKB9A8B")
    assert [s["displayPath"] for s in answer["sources"]] == ["ids/batch-a.md", "ids/batch-b.md"]
    assert len(answer["results"]) == 2
    assert [h["match"] for h in answer["results"]] == [
        {"level": "strong", "found": ["DATAKB9A8B"]}
    ] * 2
    assert answer["bestMatch"] == "strong" and "notice" not in answer


async def test_a_real_question_is_not_flagged(client):
    answer = await ask(client, "coolant pump flushing interval")
    assert answer["bestMatch"] != "weak" and "Nothing really matches" not in answer["notice"]
    assert answer["notice"] == 'No document contains "interval".'
    assert answer["sources"][0]["displayPath"] == "specs/cooling.md"
    top = answer["results"][0]["match"]
    assert (top["found"], top["missing"]) == (["coolant", "pump", "flushing"], ["interval"])
