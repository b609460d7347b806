"""The wire shape of every MCP tool's result: the shared scenario, through a real client.

The story and each answer's shape are written once, in :mod:`minirag_testkit.scenarios`
(the CLI's ``--json`` test runs the same one). Here each step is a tool call through
fastmcp's in-memory client on a real folder and the offline model;
:func:`minirag_testkit.wire.shape` keeps the field names (in order) and JSON types and
drops the values that change run to run. A renamed, added or dropped field fails here;
after changing a result on purpose, change its shape in the scenario module.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastmcp import Client
from mcp_testlib import structured, wait_for_job
from minirag_mcp.server import create_server
from minirag_store import Index
from minirag_testkit.scenarios import SYNC_STARTED, Context, expected, steps_for, write_files
from minirag_testkit.wire import serve_page, shape

pytestmark = pytest.mark.anyio


@pytest.fixture
def page_url() -> Iterator[str]:
    """A page served on 127.0.0.1 (ingest_url's only reachable host in a test)."""
    with serve_page() as url:
        yield url


async def test_every_tool_answers_in_the_shared_shapes(tmp_path, model_env, page_url):
    ctx = Context(write_files(tmp_path / "docs"), page_url)
    env = {**model_env, "BASE_DIR": str(ctx.root), "DB_PATH": str(tmp_path / "index"),
           "ALLOW_PRIVATE_URLS": "1", "RAG_WATCH": "off"}  # fmt: skip
    index = Index.open(env)
    wrong: dict[str, object] = {}
    try:
        async with Client(create_server(index)) as client:
            for step in steps_for("mcp"):
                if step.prepare is not None:
                    step.prepare(ctx)
                if step.tool == "sync":  # a sync is a job: started, then polled to its end
                    started = structured(await client.call_tool("sync_start", {}))
                    assert shape(started) == SYNC_STARTED
                    answer = await wait_for_job(client, started["jobId"])
                else:
                    answer = structured(await client.call_tool(step.tool, step.args(ctx)))
                _check_values(step.tool, answer)
                got = shape(answer, maps=step.maps)
                if got != expected(step, "mcp"):
                    wrong[step.tool] = got
    finally:
        index.close()
    assert not wrong, f"shapes differ from minirag_testkit.scenarios: {wrong}"


def _check_values(tool: str, answer: dict) -> None:
    """What the shape alone would not catch: a step that found nothing has no hit fields."""
    if tool == "sync":
        assert answer["errors"] and answer["files"]["ingested"], answer
    elif tool == "query_documents":
        assert answer["results"], "nothing found: the shape would miss the hit fields"
    elif tool == "list_files":
        assert "ingested" in {f["state"] for f in answer["files"]}
    elif tool == "status":
        # ocrHint comes only when an OCR engine or language pack is missing: this
        # machine's install decides, not the wire shape; when present it is a string.
        assert isinstance(answer.pop("ocrHint", ""), str)
