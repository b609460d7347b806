"""Start-up as clients see it: plain fastmcp answers at once, the index warms up behind it.

The server answers the handshake and ``tools/list`` without waiting for the embedding
model or the table; a background warm-up loads them as the server starts, so the first
query finds them ready. Checked over a real stdio subprocess of the console script (and
in memory where a thread must be joined): the warm-up never holds the client up, never
breaks degraded mode or a missing index, and a failing warm-up is reported, not swallowed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from fastmcp import Client
from mcp_testlib import RawServer, structured
from minirag_mcp.instructions import INSTRUCTIONS
from minirag_mcp.readiness import Readiness
from minirag_mcp.schemas import compact_parameters
from minirag_mcp.server import create_server
from minirag_store import Index

#: Holds ``import $WARM_UP_HOLD`` (onnxruntime: the model load; lancedb: the table, which
#: the documents' resources need too; only the warm-up loads either before a tool call)
#: until the file named by WARM_UP_GATE exists. It waits in the loader, under the
#: module's own lock: a finder that waited would hold Python's global import
#: lock and stall every other thread's first import too (fastmcp imports modules lazily
#: while answering tools/list), which a real slow import does not.
GATE = """
import importlib.abc, importlib.machinery, os, sys, time

class _Held(importlib.abc.Loader):
    def __init__(self, real):
        self.real = real
    def create_module(self, spec):
        return self.real.create_module(spec)
    def exec_module(self, module):
        while not os.path.exists(os.environ["WARM_UP_GATE"]):
            time.sleep(0.01)
        self.real.exec_module(module)

class _Gate(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name != os.environ["WARM_UP_HOLD"]:
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        spec.loader = _Held(spec.loader)
        return spec

sys.meta_path.insert(0, _Gate())
"""


def warm_up_in_background(index: Index):
    """The server's warm-up, begun as an HTTP server begins it (at once, no watcher)."""
    readiness = Readiness(index, watch=False, deferred=False)
    readiness.begin()
    return readiness.thread


def call(server: RawServer, rid: int, tool: str, arguments: dict) -> dict:
    """A tools/call over the raw connection; its result."""
    reply, _ = server.request(rid, "tools/call", {"name": tool, "arguments": arguments})
    return reply["result"]


@pytest.mark.parametrize("held", ["onnxruntime", "lancedb"])
def test_tools_list_is_answered_while_the_warm_up_is_held(corpus_env, tmp_path: Path, held: str):
    # An index with documents in it: fastmcp's start asks every provider for background
    # tasks, and a documents provider that answered by listing them opened the table
    # (and imported lancedb) before the handshake could be answered.
    index = Index.open(corpus_env)
    assert index.ingest_data("Plums ship on Fridays.", "p")["chunkCount"] >= 1
    index.close()
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "sitecustomize.py").write_text(GATE, encoding="utf-8")
    gate = tmp_path / "may-load"
    env = {
        **corpus_env,
        "PYTHONPATH": str(tmp_path / "site"),
        "WARM_UP_GATE": str(gate),
        "WARM_UP_HOLD": held,
    }
    server = RawServer(env)
    try:
        assert server.initialize()["instructions"] == INSTRUCTIONS
        listed, _ = server.request(1, "tools/list")
        assert len(listed["result"]["tools"]) == 12
        status = call(server, 2, "status", {})  # from the index's summary, no table
        assert status["structuredContent"]["chunkCount"] == 1
        assert server.proc.poll() is None and not gate.exists()
        gate.touch()
        made = call(server, 3, "ingest_data", {"data": "Kiwis ship on Mondays.", "source": "k"})
        assert not made["isError"], made
        found = call(server, 4, "query_documents", {"query": "when do kiwis ship"})
        assert found["structuredContent"]["sources"][0]["displayPath"] == "k"
    finally:
        stderr = server.close()
    assert server.proc.returncode == 0, stderr
    assert "warm-up failed" not in stderr


def test_the_warm_up_loads_what_the_first_query_needs(corpus_env):
    index = Index.open(corpus_env)
    assert index.sync()["state"] == "succeeded"
    index.close()
    index = Index.open(corpus_env)
    try:
        thread = warm_up_in_background(index)
        assert thread is not None
        thread.join(120)
        assert not thread.is_alive(), "the warm-up never finished"
        found = index.query("hotel cost per night")
        assert found["sources"][0]["displayPath"] == "policies/travel.md"
    finally:
        index.close()


def test_degraded_mode_serves_and_warms_nothing(broken_env):
    server = RawServer(broken_env)
    try:
        server.initialize()
        listed, _ = server.request(1, "tools/list")
        assert len(listed["result"]["tools"]) == 12
        status = call(server, 2, "status", {})["structuredContent"]
        known = {k for k, v in status.items() if v is not None}
        assert known == {
            "version",
            "configError",
            "knownIndexes",
            "transport",
            "instructionsTruncated",
        }
        assert status["transport"] == "stdio"
        refused = call(server, 3, "query_documents", {"query": "anything"})
        assert refused["isError"]
        assert refused["content"][0]["text"].startswith("Configuration error: BASE_DIRS")
    finally:
        stderr = server.close()
    assert server.proc.returncode == 0, stderr
    assert "degraded mode" in stderr and "warm-up failed" not in stderr


def test_a_failing_warm_up_is_reported_and_the_query_says_why(corpus_env, tmp_path: Path):
    empty = tmp_path / "no-model-here"  # a folder, so the configuration is valid
    empty.mkdir()
    built = Index.open(corpus_env)  # an index to search: a query on none needs no model
    try:
        assert built.sync()["state"] == "succeeded"
    finally:
        built.close()
    env = {**corpus_env, "MODEL_PATH": str(empty)}
    server = RawServer(env)
    try:
        server.initialize()
        listed, _ = server.request(1, "tools/list")
        assert len(listed["result"]["tools"]) == 12
        failed = call(server, 2, "query_documents", {"query": "pump maintenance"})
        assert failed["isError"]
        assert "Could not load embedding model" in failed["content"][0]["text"]
        status = call(server, 3, "status", {})  # what needs no model still works
        assert status["structuredContent"]["model"] == corpus_env["MODEL_NAME"]
        # The warm-up thread logs its failure when it gets there, which on a loaded
        # machine can be after the calls above (it opens the table first).
        assert server.wait_for_stderr("warm-up failed"), server.stderr
    finally:
        stderr = server.close()
    assert server.proc.returncode == 0, stderr
    assert "no-model-here" in stderr


@pytest.mark.anyio
async def test_warming_a_missing_index_creates_nothing(corpus_env):
    index = Index.open(corpus_env)
    thread = warm_up_in_background(index)
    assert thread is not None
    thread.join(120)
    assert not thread.is_alive()
    assert not Path(corpus_env["DB_PATH"]).exists()  # the model loaded; no index was made
    async with Client(create_server(index)) as client:
        status = structured(await client.call_tool("status", {}))
        assert status["chunkCount"] == 0
        found = structured(await client.call_tool("query_documents", {"query": "pump"}))
        assert found["results"] == []
    index.close()


def test_a_broken_configuration_starts_no_warm_up(broken_env):
    assert warm_up_in_background(Index.open(broken_env)) is None


#: The real entry point, plus a record (at exit) of whether jsonref was ever imported.
JSONREF_PROBE = """
import atexit, json, os, sys
def dump():
    with open(os.environ["PROBE_OUT"], "w") as f:
        json.dump("jsonref" in sys.modules, f)
atexit.register(dump)
from minirag_mcp.__main__ import main
sys.exit(main())
"""


def test_tools_list_needs_no_schema_dereferencing_library(corpus_env, tmp_path: Path):
    """fastmcp would import jsonref (and requests) to inline our schemas' $refs on the
    first tools/list; ours come inlined (minirag_mcp.schemas)."""
    out = tmp_path / "jsonref.json"
    command = [sys.executable, "-c", JSONREF_PROBE]
    server = RawServer({**corpus_env, "PROBE_OUT": str(out)}, command=command)
    try:
        server.initialize()
        listed, _ = server.request(1, "tools/list")
        assert len(listed["result"]["tools"]) == 12
    finally:
        stderr = server.close()
    assert json.loads(out.read_text()) is False, stderr


@pytest.mark.anyio
async def test_listed_arguments_are_fastmcps_own_without_the_null_variants(corpus_env):
    from fastmcp.tools import Tool

    server = create_server(Index.open(corpus_env))
    listed = await server.list_tools()
    assert len(listed) == 12
    for tool in listed:
        plain = Tool.from_function(tool.fn)  # as fastmcp's decorator derives it
        assert tool.output_schema is None, tool.name
        assert "$ref" not in json.dumps(tool.parameters), tool.name
        assert set(tool.parameters["properties"]) == set(plain.parameters["properties"])
        assert tool.parameters.get("required") == plain.parameters.get("required")
        assert '{"type": "null"}' not in json.dumps(tool.parameters), tool.name


def test_an_optional_argument_is_listed_as_its_own_type():
    schema = {"properties": {
        "path": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None,
                 "description": "a path"},
        "scope": {"anyOf": [{"type": "string"}, {"type": "array"}, {"type": "null"}],
                  "default": None},
        "topK": {"type": "integer", "default": 8},
        "either": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": "x"},
    }}  # fmt: skip
    assert compact_parameters(schema)["properties"] == {
        "path": {"type": "string", "description": "a path"},
        "scope": {"anyOf": [{"type": "string"}, {"type": "array"}]},
        "topK": {"type": "integer", "default": 8},  # a real default stays
        "either": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": "x"},
    }
