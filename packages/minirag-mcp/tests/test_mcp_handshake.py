"""The stdio handshake answered before fastmcp has loaded, and identical to fastmcp's own.

The early answer (minirag_mcp.handshake + minirag_mcp.early) only helps if a client
cannot tell it from fastmcp's: every opening request here is sent both to the console
script and to a plain fastmcp stdio server over the same index, and the two responses
must be equal. That is what catches an SDK upgrade that changes the handshake.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from mcp_testlib import CLIENT_PROTOCOL, RawServer
from mcp_types import version as sdk_versions
from minirag_mcp import version
from minirag_mcp.handshake import (
    HANDSHAKE_VERSIONS,
    MODERN_VERSIONS,
    ServerIdentity,
    handshake_answer,
)
from minirag_mcp.instructions import INSTRUCTIONS

#: fastmcp's stdio server over the same Index, without the early handshake.
PLAIN_SERVER = [
    sys.executable,
    "-c",
    "import os; from minirag_store import Index; from minirag_mcp.server import serve; "
    "serve(Index.open(os.environ))",
]

#: Blocks ``import fastmcp`` until the file named by FASTMCP_GATE exists.
GATE = """
import os, sys, time

class _Gate:
    def find_spec(self, name, path=None, target=None):
        if name == "fastmcp":
            while not os.path.exists(os.environ["FASTMCP_GATE"]):
                time.sleep(0.01)
            sys.meta_path.remove(self)
        return None

sys.meta_path.insert(0, _Gate())
"""

CLIENT = {"name": "handshake-test", "version": "1.0"}
MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": MODERN_VERSIONS[-1],
    "io.modelcontextprotocol/clientInfo": CLIENT,
    "io.modelcontextprotocol/clientCapabilities": {},
}


def initialize(protocol: str, rid: int | str = 0, **capabilities: dict) -> dict:
    return {
        "jsonrpc": "2.0",
        "id": rid,
        "method": "initialize",
        "params": {"protocolVersion": protocol, "capabilities": capabilities, "clientInfo": CLIENT},
    }


#: Opening requests the server answers itself.
ANSWERED = {
    **{f"initialize {v}": initialize(v) for v in HANDSHAKE_VERSIONS},
    "initialize, unknown version": initialize("1999-01-01"),
    "initialize offering a 2026 version": initialize(MODERN_VERSIONS[-1]),
    "initialize, string id, rich capabilities": initialize(
        CLIENT_PROTOCOL, "init-1", roots={"listChanged": True}, sampling={}, elicitation={}
    ),
    "server/discover": {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "server/discover",
        "params": {"_meta": MODERN_META},
    },
}

#: Opening requests left to fastmcp, which must still be answered exactly as before.
LEFT_TO_FASTMCP = {
    "initialize without clientInfo": {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {"protocolVersion": CLIENT_PROTOCOL, "capabilities": {}},
    },
    "server/discover at an unknown version": {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "server/discover",
        "params": {"_meta": {**MODERN_META, "io.modelcontextprotocol/protocolVersion": "2099"}},
    },
    "ping first": {"jsonrpc": "2.0", "id": 2, "method": "ping"},
    "tools/list before initialize": {"jsonrpc": "2.0", "id": 3, "method": "tools/list"},
}


def identity() -> ServerIdentity:
    return ServerIdentity("minirag", version(), INSTRUCTIONS)


def first_answer(server: RawServer, request: dict) -> dict:
    server.send(request)
    return server.receive(timeout=120)


def test_protocol_versions_match_the_installed_sdk():
    assert HANDSHAKE_VERSIONS == sdk_versions.HANDSHAKE_PROTOCOL_VERSIONS
    assert MODERN_VERSIONS == sdk_versions.MODERN_PROTOCOL_VERSIONS


@pytest.mark.parametrize("name", list(ANSWERED))
def test_the_server_answers_these_itself(name):
    answer = handshake_answer(ANSWERED[name], identity())
    assert answer is not None and answer["id"] == ANSWERED[name]["id"]


@pytest.mark.parametrize(
    "message",
    [
        *LEFT_TO_FASTMCP.values(),
        None,
        [initialize(CLIENT_PROTOCOL)],  # a batch
        {**initialize(CLIENT_PROTOCOL), "jsonrpc": "1.0"},
        {**initialize(CLIENT_PROTOCOL), "id": True},
        {**initialize(CLIENT_PROTOCOL), "id": None},
        {**initialize(CLIENT_PROTOCOL), "params": None},
        initialize(CLIENT_PROTOCOL, roots="yes"),
        {**initialize(CLIENT_PROTOCOL), "params": {"protocolVersion": 20250618}},
    ],
)
def test_anything_unusual_is_left_to_fastmcp(message):
    assert handshake_answer(message, identity()) is None


def test_an_answer_is_a_fresh_object_each_time():
    first = handshake_answer(initialize(CLIENT_PROTOCOL), identity())
    assert first is not None
    first["result"]["capabilities"]["tools"]["listChanged"] = "edited"
    again = handshake_answer(initialize(CLIENT_PROTOCOL), identity())
    assert again is not None and again["result"]["capabilities"]["tools"]["listChanged"] is True


def test_opening_answers_are_identical_to_fastmcps(corpus_env):
    """Every opening request, early server vs plain fastmcp: the same response."""
    requests = {**ANSWERED, **LEFT_TO_FASTMCP}
    # Start every process first: they import fastmcp in parallel.
    pairs = {
        name: (RawServer(corpus_env), RawServer(corpus_env, command=PLAIN_SERVER))
        for name in requests
    }
    try:
        for name, (early, plain) in pairs.items():
            ours, theirs = first_answer(early, requests[name]), first_answer(plain, requests[name])
            assert ours == theirs, name
    finally:
        for early, plain in pairs.values():
            plain.close()
            assert "differs from fastmcp" not in early.close()


def test_fastmcps_own_handshake_answer_never_reaches_the_client(corpus_env):
    server = RawServer(corpus_env)
    try:
        result = server.initialize()
        assert result["protocolVersion"] == CLIENT_PROTOCOL
        listed, _ = server.request(1, "tools/list")
        assert len(listed["result"]["tools"]) == 11
        pong, _ = server.request(2, "ping")
        assert pong["result"] == {}
    finally:
        stderr = server.close()
    assert server.proc.returncode == 0, stderr
    ids = [json.loads(line).get("id") for line in server.lines]
    assert ids == [0, 1, 2], server.lines
    assert "differs from fastmcp" not in stderr


def test_the_handshake_is_answered_while_fastmcp_is_still_loading(corpus_env, tmp_path: Path):
    """fastmcp's import is held until the test opens a gate; the handshake cannot wait."""
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "sitecustomize.py").write_text(GATE, encoding="utf-8")
    gate = tmp_path / "fastmcp-may-load"
    env = {**corpus_env, "PYTHONPATH": str(tmp_path / "site"), "FASTMCP_GATE": str(gate)}
    server = RawServer(env)
    try:
        result = server.initialize()
        assert result["instructions"] == INSTRUCTIONS
        assert server.proc.poll() is None and not gate.exists()
        gate.touch()
        listed, _ = server.request(1, "tools/list")
        assert len(listed["result"]["tools"]) == 11
    finally:
        stderr = server.close()
    assert server.proc.returncode == 0, stderr


def test_a_client_that_leaves_after_the_handshake_stops_the_server(corpus_env):
    server = RawServer(corpus_env)
    server.initialize()
    stderr = server.close(timeout=60)
    assert server.proc.returncode == 0, stderr
    assert len(server.lines) == 1
