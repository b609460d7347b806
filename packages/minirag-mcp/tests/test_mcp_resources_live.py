"""Live resources over a real stdio session (the installed console script, watch mode on):
a subscribed document says it was updated after an edit, and a burst of 500 new files is
one ``list_changed``. The client speaks the handshake era (2025-11-25), as desktop
clients do; resource subscriptions belong to it."""

from __future__ import annotations

import warnings
from pathlib import Path

import anyio
import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from mcp_testlib import CORPUS, child_env, console_script, structured
from mcp_types import ResourceListChangedNotification, ResourceUpdatedNotification

pytestmark = pytest.mark.anyio

#: Far above the seconds a change takes to settle and be indexed, for a loaded machine.
PATIENCE = 180
BURST = 500
URI = "minirag://file/specs/cooling.md"


class Heard:
    """The notifications a client received, in order."""

    def __init__(self) -> None:
        self.updated: list[str] = []
        self.list_changed = 0

    async def __call__(self, message: object) -> None:
        if isinstance(message, ResourceUpdatedNotification):
            self.updated.append(str(message.params.uri))
        elif isinstance(message, ResourceListChangedNotification):
            self.list_changed += 1


async def _count(client: Client) -> int:
    return structured(await client.call_tool("status", {}))["sourceCount"] or 0


async def _until(check, what: str) -> None:
    with anyio.fail_after(PATIENCE):
        while not await check():
            await anyio.sleep(0.2)


async def test_a_subscriber_hears_of_an_edit_and_a_burst_is_one_list_change(corpus_env):
    env = {**corpus_env, "RAG_WATCH": "on"}
    root = Path(corpus_env["BASE_DIR"])
    heard = Heard()
    transport = StdioTransport(console_script(), [], env=child_env(env))
    async with Client(transport, message_handler=heard, mode="legacy") as client:
        caps = client.initialize_result.capabilities.resources
        assert caps is not None and caps.subscribe and caps.list_changed
        await _until(lambda: _wait_count(client, len(CORPUS)), "the first sync")
        await _until(lambda: _true(heard.list_changed >= 1), "the first sync's list_changed")
        with warnings.catch_warnings():  # the SDK deprecates it for 2026-07-28 only
            warnings.simplefilter("ignore")
            await client.session.subscribe_resource(URI)

        cooling = root / "specs" / "cooling.md"
        cooling.write_text(CORPUS["specs/cooling.md"] + "\nThe pump P-7 is blue.\n", "utf-8")
        await _until(lambda: _true(URI in heard.updated), "updated after the edit")
        (content,) = await client.read_resource(URI)
        assert "The pump P-7 is blue." in content.text

        heard.list_changed = 0
        burst = root / "burst"
        burst.mkdir()
        for n in range(BURST):
            (burst / f"item{n:03d}.md").write_text(f"# Item {n}\n\nBin {n % 7}.\n", "utf-8")
        await _until(lambda: _wait_count(client, len(CORPUS) + BURST), "the burst indexed")
        await anyio.sleep(5)  # any straggling notification would arrive by now
        assert heard.list_changed == 1
        assert heard.updated.count(URI) == 1  # nothing in the burst touched cooling.md
        listed = {str(r.uri) for r in await client.list_resources()}
        assert "minirag://file/burst/item499.md" in listed


async def _wait_count(client: Client, expected: int) -> bool:
    return await _count(client) >= expected


async def _true(value: bool) -> bool:
    return value
