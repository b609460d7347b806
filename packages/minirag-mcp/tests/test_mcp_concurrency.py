"""Several first calls at once: one model load, one table open, and a loop that stays live."""

from __future__ import annotations

import threading

import anyio
import pytest
from fastmcp import Client
from mcp_testlib import structured
from minirag_mcp.server import create_server
from minirag_store import Index
from minirag_store.index.embed.embedding import Embedder
from minirag_store.index.table import ChunkTable

pytestmark = pytest.mark.anyio


@pytest.fixture
def built_env(corpus_env):
    """The corpus already indexed, by another Index, so the server under test starts cold."""
    builder = Index.open(corpus_env)
    try:
        assert builder.sync()["state"] == "succeeded"
    finally:
        builder.close()
    return corpus_env


async def test_concurrent_first_calls_open_the_index_once(built_env, monkeypatch):
    loads: list[int] = []
    opens: list[int] = []
    entered = threading.Event()
    release = threading.Event()
    real_load, real_open = Embedder.from_config, ChunkTable.open
    real_open_existing = ChunkTable.open_existing

    def counted_load(config, **kwargs):
        loads.append(threading.get_ident())
        entered.set()
        release.wait(30)  # hold the first load open so the other calls pile up behind it
        return real_load(config, **kwargs)

    def counted_open(*args, **kwargs):
        opens.append(threading.get_ident())
        return real_open(*args, **kwargs)

    def counted_open_existing(*args, **kwargs):
        opens.append(threading.get_ident())
        return real_open_existing(*args, **kwargs)

    monkeypatch.setattr(Embedder, "from_config", staticmethod(counted_load))
    monkeypatch.setattr(ChunkTable, "open", staticmethod(counted_open))
    # an existing index opens without the model; either way it must open exactly once
    monkeypatch.setattr(ChunkTable, "open_existing", staticmethod(counted_open_existing))

    index = Index.open(built_env)
    questions = ["coolant pump", "team lunch", "hotel costs", "radiator fans"]
    answers: dict[str, dict] = {}
    try:
        async with Client(create_server(index)) as client:

            async def ask(question: str) -> None:
                result = await client.call_tool("query_documents", {"query": question})
                answers[question] = structured(result)

            with anyio.fail_after(120):
                async with anyio.create_task_group() as group:
                    for question in questions:
                        group.start_soon(ask, question)
                    await anyio.to_thread.run_sync(entered.wait, 30)
                    # the loop is not blocked by the load in progress: it still answers
                    assert len(await client.list_tools()) == 12
                    assert answers == {}
                    release.set()
    finally:
        release.set()
        index.close()

    assert len(loads) == 1 and len(opens) == 1
    assert answers["coolant pump"]["sources"][0]["displayPath"] == "specs/cooling.md"
    assert answers["team lunch"]["sources"][0]["displayPath"] == "notes/lunch.txt"
    assert answers["hotel costs"]["sources"][0]["displayPath"] == "policies/travel.md"
