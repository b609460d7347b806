"""When the server loads the index and starts the watcher: after the client is served.

In memory (fastmcp's Client over the real server and a real index): nothing is loaded
while the handshake is answered; listing the tools, calling one, or the fallback delay
begins the warm-up and then the watcher, once; a server going away starts no watcher.
"""

from __future__ import annotations

import time

import pytest
from fastmcp import Client
from minirag_mcp.readiness import Readiness
from minirag_mcp.server import create_server
from minirag_store import Index

pytestmark = pytest.mark.anyio


@pytest.fixture
def index(corpus_env):
    opened = Index.open({**corpus_env, "RAG_WATCH_POLL_SECONDS": "3600"})
    yield opened
    opened.close()


def _joined(readiness: Readiness) -> None:
    assert readiness.thread is not None, "nothing began"
    readiness.thread.join(120)
    assert not readiness.thread.is_alive(), "the warm-up never finished"


async def test_nothing_loads_until_the_client_lists_the_tools(index):
    readiness = Readiness(index, watch=True, deferred=True, fallback=600)
    async with Client(create_server(index, readiness=readiness)) as client:
        assert readiness.thread is None  # handshake answered, nothing loading
        assert index.watch_state()[0] == "off"
        assert len(await client.list_tools()) == 12
        _joined(readiness)
        deadline = time.monotonic() + 120  # then the watcher (its mode once it synced)
        while index.watch_state()[0] == "off" and time.monotonic() < deadline:
            time.sleep(0.1)
        assert index.watch_state()[0] in ("notify", "poll")


async def test_a_call_without_listing_begins_it_too(index):
    readiness = Readiness(index, watch=False, deferred=True, fallback=600)
    async with Client(create_server(index, readiness=readiness)) as client:
        status = await client.call_tool("status", {})
        assert status.structured_content["model"]
        _joined(readiness)
        assert index.watch_state()[0] == "off"  # RAG_WATCH=off: no watcher


async def test_a_client_that_never_lists_gets_it_after_the_fallback(index):
    readiness = Readiness(index, watch=False, deferred=True, fallback=0.2)
    async with Client(create_server(index, readiness=readiness)):
        deadline = time.monotonic() + 60
        while readiness.thread is None and time.monotonic() < deadline:
            time.sleep(0.05)
        _joined(readiness)


async def test_an_http_server_begins_at_once(index):
    readiness = Readiness(index, watch=False, deferred=False)
    async with Client(create_server(index, readiness=readiness)):
        _joined(readiness)  # before any request


async def test_a_stopped_server_starts_nothing(index):
    readiness = Readiness(index, watch=True, deferred=True, fallback=600)
    readiness.stop()
    async with Client(create_server(index, readiness=readiness)) as client:
        await client.list_tools()
        assert readiness.thread is None
        assert index.watch_state()[0] == "off"


async def test_what_the_warm_up_loaded_stays_out_of_later_collections(index):
    """A full garbage collection walks every tracked object holding the GIL: over what a
    warmed-up server has loaded it took up to 200 ms of a ``list_files`` call. After the
    warm-up that is frozen, and a collection walks only what was made since."""
    import gc

    gc.unfreeze()  # what an earlier test froze: this one must see the warm-up do it
    readiness = Readiness(index, watch=False, deferred=False)
    async with Client(create_server(index, readiness=readiness)):
        _joined(readiness)
        assert gc.get_freeze_count() > 5 * len(gc.get_objects())
