"""The installed ``minirag-mcp`` console script as clients run it: stdio, HTTP, status."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from mcp_testlib import (
    CORPUS,
    RawServer,
    child_env,
    console_script,
    structured,
    wait_for_job,
)
from minirag_mcp.instructions import INSTRUCTIONS
from minirag_testkit.answers import expand


def stdio_client(env: dict[str, str], **kwargs) -> Client:
    return Client(StdioTransport(console_script(), [], env=child_env(env)), **kwargs)


@pytest.mark.anyio
async def test_stdio_flow_through_the_console_script(corpus_env):
    root = corpus_env["BASE_DIR"]
    async with stdio_client(corpus_env) as client:
        assert client.instructions == INSTRUCTIONS
        assert len(await client.list_tools()) == 12
        started = structured(await client.call_tool("sync_start", {}))
        job = await wait_for_job(client, started["jobId"])
        assert job["state"] == "succeeded" and job["counts"]["ingested"] == len(CORPUS)

        found = structured(
            await client.call_tool(
                "query_documents", {"query": "hotel reimbursement per night", "topK": 3}
            )
        )
        top = expand(found)["results"][0]
        assert found["sources"][0]["displayPath"] == "policies/travel.md"
        assert len(found["results"]) <= 3
        whole = structured(await client.call_tool("read_file", {"filePath": top["source"]}))
        assert "180 euros" in whole["text"]
        around = structured(
            await client.call_tool(
                "read_chunk_neighbors",
                {
                    "filePath": f"{root}/policies/travel.md",
                    "chunkIndex": top["chunkIndex"],
                    "before": 2,
                    "after": 2,
                },
            )
        )
        assert top["chunkIndex"] in [c["chunkIndex"] for c in around["chunks"]]
        gone = structured(await client.call_tool("delete_file", {"filePath": top["source"]}))
        assert gone["deletedChunks"] > 0
        missing = await client.call_tool(
            "read_file", {"source": top["source"]}, raise_on_error=False
        )
        assert missing.is_error


def test_stdout_carries_only_protocol_messages(corpus_env):
    server = RawServer({**corpus_env, "FASTMCP_LOG_LEVEL": "DEBUG"})
    try:
        result = server.initialize()
        assert result["serverInfo"]["name"] == "minirag"
        assert result["instructions"] == INSTRUCTIONS
        listed, _ = server.request(1, "tools/list")
        assert len(listed["result"]["tools"]) == 12
        # these load the model and LanceDB, which log (to stderr, we require)
        made, _ = server.request(
            2,
            "tools/call",
            {
                "name": "ingest_data",
                "arguments": {"data": "Blue widgets ship on Tuesdays.", "source": "ops"},
            },
        )
        assert not made["result"]["isError"], made
        found, _ = server.request(
            3,
            "tools/call",
            {
                "name": "query_documents",
                "arguments": {"query": "when do widgets ship"},
            },
        )
        assert found["result"]["structuredContent"]["sources"][0]["displayPath"] == "ops"
        bad, _ = server.request(
            4,
            "tools/call",
            {
                "name": "read_file",
                "arguments": {"filePath": "relative/path.md"},
            },
        )
        assert bad["result"]["isError"] and "absolute" in bad["result"]["content"][0]["text"]
    finally:
        stderr = server.close()
    assert server.proc.returncode == 0, stderr
    for line in server.lines:
        assert json.loads(line)["jsonrpc"] == "2.0", line


def _listening(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.anyio
async def test_http_transport_on_loopback(corpus_env):
    port = _free_port()
    proc = subprocess.Popen(
        [console_script(), "--transport", "http", "--port", str(port)],
        env=child_env(corpus_env),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while not _listening(port):
            assert proc.poll() is None, proc.communicate()[1]
            assert time.monotonic() < deadline, "HTTP server never listened"
            time.sleep(0.2)
        async with Client(f"http://127.0.0.1:{port}/mcp") as client:
            assert client.instructions == INSTRUCTIONS
            assert len(await client.list_tools()) == 12
            status = structured(await client.call_tool("status", {}))
            assert status["roots"] == [corpus_env["BASE_DIR"]]
            assert status["transport"] == "http"
            assert status["bindAddress"] == f"127.0.0.1:{port}"
            assert status["authMode"] == "none"
    finally:
        proc.terminate()
        proc.wait(30)


def test_status_command_exits_0_even_with_a_broken_config(broken_env):
    done = subprocess.run(  # noqa: PLW1510 - the exit status is what we assert
        [console_script(), "status"],
        env=child_env(broken_env),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert {k for k, v in data.items() if v is not None} == {
        "version",
        "configError",
        "knownIndexes",
        "transport",
        "instructionsTruncated",
    }
    assert data["transport"] == "stdio"
    assert "BASE_DIRS" in data["configError"]


def test_status_command_reports_roots_and_a_cut_append(corpus_env):
    env = {**corpus_env, "RAG_INSTRUCTIONS_APPEND": "Prefer exact codes. " * 60}
    done = subprocess.run(  # noqa: PLW1510 - the exit status is what we assert
        [console_script(), "status"],
        env=child_env(env),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["roots"] == [str(Path(corpus_env["BASE_DIR"]))]
    assert data["instructionsTruncated"] is True


def test_version_flag():
    done = subprocess.run(  # noqa: PLW1510 - the exit status is what we assert
        [console_script(), "--version"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0
    assert done.stdout.startswith("minirag-mcp ")


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_or_sigterm_stops_a_stdio_server_at_once(corpus_env, signum):
    server = RawServer(corpus_env)
    try:
        server.initialize()
        made, _ = server.request(
            1,
            "tools/call",
            {"name": "ingest_data", "arguments": {"data": "Kept after the stop.", "source": "k"}},
        )
        assert not made["result"]["isError"], made
        server.proc.send_signal(signum)  # stdin stays open: no EOF to wake it
        assert server.proc.wait(15) == 128 + signum
    finally:
        stderr = server.close()
    assert "Traceback" not in stderr and f"{signum.name}: stopping" in stderr
    from minirag_store import Index

    index = Index.open(corpus_env)  # the write survived, and the index opens cleanly
    try:
        assert index.read_file("k")["text"].startswith("Kept after the stop.")
    finally:
        index.close()


def test_status_command_takes_the_cli_overrides(tmp_path, model_env):
    elsewhere = tmp_path / "other-docs"
    elsewhere.mkdir()
    done = subprocess.run(  # noqa: PLW1510 - the exit status is what we assert
        [
            console_script(),
            "status",
            "--base-dir",
            str(elsewhere),
            "--db-path",
            str(tmp_path / "idx"),
            "--json",
        ],
        env=child_env({**model_env, "BASE_DIRS": "[broken"}),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["roots"] == [str(elsewhere)] and data["dbPath"] == str(tmp_path / "idx")
