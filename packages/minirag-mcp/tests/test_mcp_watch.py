"""The index follows the files while the server runs (RAG_WATCH, on by default), and a
hit whose file changed since it was indexed says ``stale: true`` - over a real stdio
session with the installed console script."""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from mcp_testlib import CORPUS, child_env, console_script, structured, wait_for_job
from minirag_testkit.answers import expand, hit_sources

#: Far above the ~2 s a change takes to settle and be applied, for a loaded CI machine.
PATIENCE = 120


def _client(env: dict[str, str]) -> Client:
    return Client(StdioTransport(console_script(), [], env=child_env(env)))


async def _top_source(client: Client, query: str) -> str | None:
    found = structured(await client.call_tool("query_documents", {"query": query, "topK": 1}))
    return hit_sources(found)[0] if found["results"] else None


@pytest.mark.anyio
async def test_the_server_indexes_what_changes_without_a_sync(corpus_env):
    env = {k: v for k, v in corpus_env.items() if k != "RAG_WATCH"}
    env["RAG_WATCH"] = ""  # unset: the default
    root = Path(corpus_env["BASE_DIR"])
    async with _client(env) as client:
        status = structured(await client.call_tool("status", {}))
        assert status["watch"] == "on"
        with anyio.fail_after(PATIENCE):  # the first full sync indexes the corpus
            while structured(await client.call_tool("status", {}))["sourceCount"] < len(CORPUS):
                await anyio.sleep(0.2)
        status = structured(await client.call_tool("status", {}))
        assert status["watchMode"] == "notify" and status["watchNote"] is None

        kiwis = root / "notes" / "kiwis.md"
        kiwis.write_text("# Kiwis\n\nThe kiwi crates ship from dock nine.\n", encoding="utf-8")
        with anyio.fail_after(PATIENCE):
            while await _top_source(client, "which dock do kiwi crates ship from") != str(kiwis):
                await anyio.sleep(0.2)
        (root / "notes" / "lunch.txt").unlink()
        with anyio.fail_after(PATIENCE):
            while structured(await client.call_tool("status", {}))["sourceCount"] != len(CORPUS):
                await anyio.sleep(0.2)
        listed = structured(await client.call_tool("list_files", {}))
        assert str(root / "notes" / "lunch.txt") not in {f["source"] for f in listed["files"]}


@pytest.mark.anyio
async def test_a_hit_on_a_file_changed_since_indexing_is_stale(corpus_env):
    # Watch mode off: nothing re-indexes the edited file behind the test's back.
    env = {**corpus_env, "RAG_WATCH": "off"}
    travel = Path(corpus_env["BASE_DIR"]) / "policies" / "travel.md"
    async with _client(env) as client:
        assert structured(await client.call_tool("status", {}))["watchMode"] == "off"
        started = structured(await client.call_tool("sync_start", {}))
        assert (await wait_for_job(client, started["jobId"]))["state"] == "succeeded"
        query = {"query": "hotel costs per night", "topK": 3}
        fresh = expand(structured(await client.call_tool("query_documents", query)))
        assert fresh["results"][0]["source"] == str(travel)
        assert not any("stale" in hit for hit in fresh["results"])
        assert not any("stale" in source for source in fresh["sources"])

        travel.write_text(travel.read_text(encoding="utf-8") + "\nRevised.\n", encoding="utf-8")
        os.utime(travel, (2e9, 2e9))
        changed = expand(structured(await client.call_tool("query_documents", query)))
        hits = changed["results"]
        assert hits[0]["source"] == str(travel) and hits[0]["stale"] is True
        assert all(h.get("stale") is None for h in hits if h["source"] != str(travel))
        stale = [s for s in changed["sources"] if s.get("stale")]
        assert [s["source"] for s in stale] == [str(travel)]
