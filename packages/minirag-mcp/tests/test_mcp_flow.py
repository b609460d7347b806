"""The tools end to end in memory (fastmcp's Client(server)) on a real folder and model."""

from __future__ import annotations

import anyio
import pytest
from fastmcp import Client
from mcp_testlib import CORPUS, structured, wait_for_job
from minirag_mcp.server import create_server
from minirag_store import Index
from minirag_testkit.answers import expand

pytestmark = pytest.mark.anyio


@pytest.fixture
async def index(corpus_env):
    opened = Index.open(corpus_env)
    yield opened
    opened.close()


@pytest.fixture
async def client(index):
    async with Client(create_server(index)) as connected:
        yield connected


async def test_sync_query_read_neighbors_delete(client, corpus_env):
    root = corpus_env["BASE_DIR"]
    started = structured(await client.call_tool("sync_start", {}))
    job = await wait_for_job(client, started["jobId"])
    assert job["state"] == "succeeded", job
    assert job["counts"]["ingested"] == len(CORPUS) and job["counts"]["failed"] == 0

    question = {"query": "how often is the coolant pump flushed"}
    found = expand(structured(await client.call_tool("query_documents", question)))
    top = found["results"][0]
    assert top["source"] == f"{root}/specs/cooling.md"
    assert found["sources"][0]["displayPath"] == "specs/cooling.md"
    # the passage is its whole (short) section, so no section is sent beside it
    assert top["parentId"] is None and "400 operating hours" in top["text"]

    whole = structured(
        await client.call_tool("read_file", {"filePath": f"{root}/specs/cooling.md"})
    )
    assert whole["displayPath"] == "specs/cooling.md"
    assert "Pump maintenance" in whole["text"] and "2400 rpm" in whole["text"]

    around = structured(
        await client.call_tool(
            "read_chunk_neighbors",
            {"source": top["source"], "chunkIndex": top["chunkIndex"], "before": 1, "after": 1},
        )
    )
    indexes = [c["chunkIndex"] for c in around["chunks"]]
    assert top["chunkIndex"] in indexes and indexes == sorted(indexes)

    listed = structured(await client.call_tool("list_files", {}))
    assert {f["displayPath"]: f["state"] for f in listed["files"]} == dict.fromkeys(
        CORPUS, "ingested"
    )
    assert all(f["ocrEngine"] == "" for f in listed["files"])  # plain text: no OCR involved

    gone = structured(await client.call_tool("delete_file", {"source": top["source"]}))
    assert gone["deletedChunks"] > 0
    after = structured(await client.call_tool("query_documents", {"query": "coolant pump"}))
    assert top["displayPath"] not in {s["displayPath"] for s in after["sources"]}
    listed = structured(await client.call_tool("list_files", {"scope": f"{root}/specs"}))
    assert [(f["displayPath"], f["state"]) for f in listed["files"]] == [
        ("specs/cooling.md", "not_ingested")
    ]


@pytest.mark.parametrize("token", [True, False], ids=["progress-token", "no-token"])
async def test_sync_start_returns_at_once(client, token):
    # fastmcp's call_tool attaches a progressToken to every call; the raw SDK session
    # sends none unless given a progress callback. Either way the answer comes at once.
    with anyio.fail_after(5):  # the job itself needs longer: it loads the model first
        if token:
            job_id = structured(await client.call_tool("sync_start", {}))["jobId"]
        else:
            job_id = (await client.session.call_tool("sync_start", {})).structured_content["jobId"]
    status = structured(await client.call_tool("sync_status", {"jobId": job_id}))
    assert status["state"] in ("pending", "running")
    assert (await wait_for_job(client, job_id))["state"] == "succeeded"


async def test_ingest_data_is_found_under_its_own_id(client):
    note = "# Standup\n\nThe release of version 7 moves to the 14th of March."
    made = structured(
        await client.call_tool(
            "ingest_data", {"data": note, "source": "notes/standup", "format": "markdown"}
        )
    )
    assert made["source"] == "notes/standup" and made["sourceType"] == "data"
    found = structured(
        await client.call_tool("query_documents", {"query": "when is version 7 released"})
    )
    assert found["sources"][0] == {**found["sources"][0], "displayPath": "notes/standup"}
    read = structured(await client.call_tool("read_file", {"source": "notes/standup"}))
    assert "14th of March" in read["text"]


@pytest.mark.parametrize(
    ("tool", "args", "expected"),
    [
        ("ingest_file", {"filePath": "specs/no-such.md"}, "File not found: /"),
        ("ingest_file", {"filePath": "/etc/hostname"}, "outside configured document roots"),
        ("read_file", {}, "Name the document: give a file path"),
        ("read_file", {"filePath": "/etc/hostname", "source": "x"}, "not both"),
        ("query_documents", {"query": "x", "topK": 0}, "topK must be at least 1, got 0"),
        ("read_chunk_neighbors", {"source": "x", "chunkIndex": 0, "after": 51}, "at most 50"),
        ("delete_file", {"filePath": "relative.md"}, "is empty: nothing is indexed there yet"),
        ("sync_status", {"jobId": "no-such-job"}, "sync_start"),
        ("sync_start", {"path": "/etc"}, "outside configured document roots"),
    ],
)
async def test_bad_arguments_are_tool_errors_a_model_can_act_on(client, tool, args, expected):
    result = await client.call_tool(tool, args, raise_on_error=False)
    assert result.is_error
    assert expected in result.content[0].text
    assert "Traceback" not in result.content[0].text


async def test_schema_violations_are_refused_before_the_store(client):
    result = await client.call_tool(
        "ingest_data", {"data": "x", "source": "y", "format": "pdf"}, raise_on_error=False
    )
    assert result.is_error and "format" in result.content[0].text
    result = await client.call_tool(
        "query_documents", {"query": "x", "topK": "many"}, raise_on_error=False
    )
    assert result.is_error and "topK" in result.content[0].text


async def test_status_says_when_the_appended_instructions_were_cut(corpus_env):
    index = Index.open({**corpus_env, "RAG_INSTRUCTIONS_APPEND": "Prefer exact codes. " * 60})
    try:
        async with Client(create_server(index)) as client:
            data = structured(await client.call_tool("status", {}))
            assert len(client.instructions or "") <= 2048
    finally:
        index.close()
    assert data["instructionsTruncated"] is True
    assert data["chunkCount"] == 0
