"""One path form everywhere, through real MCP sessions: every tool that takes a document or
a scope takes the displayPath an answer printed as well as the absolute path; a scope
that matches nothing says so; a displayPath under two roots is an error naming both. And
``minirag-mcp`` typed at a terminal says what it is, while a client (a pipe) hears nothing.
"""

from __future__ import annotations

import json
import os
import pty
import select
import signal
import subprocess
import time
from pathlib import Path

import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from fastmcp.exceptions import ToolError
from mcp_testlib import RawServer, child_env, console_script, structured, write_corpus
from minirag_mcp.server import create_server
from minirag_store import Index
from minirag_testkit.answers import expand

pytestmark = pytest.mark.anyio


@pytest.fixture
async def synced(corpus_env):
    opened = Index.open(corpus_env)
    job = opened.sync()
    assert job["state"] == "succeeded", job
    yield opened
    opened.close()


async def _paths(client: Client, tool: str, args: dict) -> list[str]:
    got = structured(await client.call_tool(tool, args))
    if tool == "list_files":
        return [f["displayPath"] for f in got["files"]]
    return [s["displayPath"] for s in got["sources"]]


async def test_scopes_as_display_paths_or_absolute_paths(synced, corpus_env):
    root = Path(corpus_env["BASE_DIR"])
    query = {"query": "coolant pump flushing hours", "topK": 8}
    async with Client(create_server(synced)) as client:
        for scope in ("specs", "specs/cooling.md", str(root / "specs"), ["specs", "notes"]):
            found = await _paths(client, "query_documents", {**query, "scope": scope})
            assert found and found[0] == "specs/cooling.md", scope
            assert set(found) <= {"specs/cooling.md", "notes/lunch.txt"}
        listed = await _paths(client, "list_files", {"scope": "policies"})
        assert listed == ["policies/travel.md"]
        listed = await _paths(client, "list_files", {"scope": str(root / "policies")})
        assert listed == ["policies/travel.md"]


async def test_a_scope_matching_nothing_says_so_in_every_tool(synced):
    async with Client(create_server(synced)) as client:
        listed = structured(await client.call_tool("list_files", {"scope": "no-such-folder"}))
        assert listed["files"] == []
        assert "no-such-folder" in listed["notice"]
        query = {"query": "coolant", "scope": "no-such-folder"}
        found = structured(await client.call_tool("query_documents", query))
        assert found["results"] == [] and "no-such-folder" in found["notice"]


async def test_documents_by_display_path_in_every_tool(synced):
    async with Client(create_server(synced)) as client:
        read = structured(await client.call_tool("read_file", {"source": "specs/cooling.md"}))
        assert "2400 rpm" in read["text"]
        read = structured(await client.call_tool("read_file", {"filePath": "specs/cooling.md"}))
        assert "2400 rpm" in read["text"]
        around = structured(
            await client.call_tool(
                "read_chunk_neighbors", {"filePath": "specs/cooling.md", "chunkIndex": 0}
            )
        )
        assert around["chunks"][0]["chunkIndex"] == 0
        gone = structured(await client.call_tool("delete_file", {"filePath": "notes/lunch.txt"}))
        assert gone["deletedChunks"] >= 1


async def test_a_display_path_under_two_roots_names_the_candidates(tmp_path, model_env):
    first, second = write_corpus(tmp_path / "a"), write_corpus(tmp_path / "b")
    env = {
        **model_env,
        "BASE_DIRS": json.dumps([str(first), str(second)]),
        "DB_PATH": str(tmp_path / "index"),
    }
    index = Index.open(env)
    try:
        assert index.sync()["state"] == "succeeded"
        async with Client(create_server(index)) as client:
            for tool, args in (
                ("read_file", {"source": "specs/cooling.md"}),
                ("query_documents", {"query": "coolant", "scope": "specs"}),
                ("list_files", {"scope": "specs"}),
            ):
                with pytest.raises(ToolError) as raised:
                    await client.call_tool(tool, args)
                message = str(raised.value)
                assert str(first / "specs") in message and str(second / "specs") in message
            chosen = {"source": str(second / "specs" / "cooling.md")}
            assert "2400 rpm" in structured(await client.call_tool("read_file", chosen))["text"]
    finally:
        index.close()


async def test_stdio_server_takes_display_path_scopes(corpus_env):
    from minirag_store import Index as StoreIndex

    built = StoreIndex.open(corpus_env)
    try:
        assert built.sync()["state"] == "succeeded"
    finally:
        built.close()
    transport = StdioTransport(console_script(), [], env=child_env(corpus_env))
    async with Client(transport) as client:
        query = {"query": "noodle bar lunch", "scope": "notes"}
        found = expand(structured(await client.call_tool("query_documents", query)))
        assert [s["displayPath"] for s in found["sources"]] == ["notes/lunch.txt"]
        listed = structured(await client.call_tool("list_files", {"scope": "nothing"}))
        assert listed["files"] == [] and "nothing" in listed["notice"]


async def test_without_base_dir_the_server_finds_the_root_it_runs_in(corpus_env, tmp_path):
    root = Path(corpus_env["BASE_DIR"])
    env = {k: v for k, v in corpus_env.items() if k not in ("BASE_DIR", "DB_PATH")}
    built = Index.open(env, base_dirs=[str(root)])
    try:
        assert built.sync()["state"] == "succeeded"
    finally:
        built.close()
    transport = StdioTransport(console_script(), [], env=child_env(env), cwd=str(root / "specs"))
    async with Client(transport) as client:
        status = structured(await client.call_tool("status", {}))
        assert status["roots"] == [str(root)]
        assert status["rootsFrom"].startswith(f"discovered: {root} holds .minirag/")
        found = structured(await client.call_tool("query_documents", {"query": "coolant pump"}))
        assert found["sources"][0]["displayPath"] == "specs/cooling.md"


def _stderr_until(fd: int, text: str, seconds: float = 120.0) -> str:
    seen, deadline = b"", time.monotonic() + seconds
    while text.encode() not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            seen += chunk
    return seen.decode(errors="replace")


def test_started_at_a_terminal_it_says_what_it_is_and_how_to_add_it(corpus_env):
    primary, secondary = pty.openpty()
    err_r, err_w = os.pipe()
    proc = subprocess.Popen(
        [console_script()],
        stdin=secondary,
        stdout=subprocess.DEVNULL,
        stderr=err_w,
        env=child_env(corpus_env),
    )
    os.close(secondary)
    os.close(err_w)
    try:
        said = _stderr_until(err_r, "Ctrl-C stops it")
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(30)
        os.close(primary)
        os.close(err_r)
    start = said.index("Starting MCP server")
    hello = said.index("this is an MCP server on stdio, waiting for an MCP client")
    assert start < hello  # after fastmcp's start line
    assert f"claude mcp add minirag --scope user --env BASE_DIR={corpus_env['BASE_DIR']}" in said
    assert f"--env DB_PATH={corpus_env['DB_PATH']}" in said
    assert "Ctrl-C stops it" in said


def test_a_client_on_a_pipe_hears_no_greeting(corpus_env):
    server = RawServer(corpus_env)
    try:
        # the greeting would be printed before the first message is read: once the
        # handshake is answered it would be there
        assert server.initialize()["serverInfo"]["name"] == "minirag"
    finally:
        said = server.close()
    assert "Starting MCP server" in said
    assert "claude mcp add" not in said and "waiting for an MCP client" not in said
