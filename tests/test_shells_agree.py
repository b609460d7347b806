"""One rule in one place: both shells show the store's defaults, bounds and error messages.

The same bad input goes to the store's ``Index``, to the MCP tool (in memory,
``Client(server)``) and to the CLI (typer's runner); all three must refuse it with the very
message the store raises. The defaults each shell advertises (tool schemas, CLI options)
must be the store's constants, and a call that leaves them out must read the same chunks.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import anyio
import pytest
from fastmcp import Client
from minirag_cli import app
from minirag_mcp.server import create_server
from minirag_store import Index
from minirag_store.arguments import FIRST_CHUNK_INDEX, NEIGHBORS, TOP_K
from minirag_store.errors import InvalidArgumentError
from typer.main import get_command
from typer.testing import CliRunner

GUIDE = "# Guide\n\n" + "\n\n".join(
    f"## Part {n}\n\n" + f"Step {n} of the procedure checks valve {n} twice before opening it. " * 6
    for n in range(1, 7)
)


@dataclass
class Shells:
    """One indexed document, and a way to ask each shell about it."""

    index: Index
    path: str
    flags: list[str]
    env: dict[str, str]

    def mcp(self, tool: str, args: dict[str, Any]) -> tuple[bool, str, Any]:
        """(is_error, first text content, structured content) of one tool call."""

        async def call() -> tuple[bool, str, Any]:
            async with Client(create_server(self.index)) as client:
                result = await client.call_tool(tool, args, raise_on_error=False)
                text = result.content[0].text if result.content else ""  # type: ignore[union-attr]
                return result.is_error, text, result.structured_content

        return anyio.run(call)

    def cli(self, *args: str) -> tuple[int, str, str]:
        """(exit code, stdout, stderr) of one CLI run against the same index."""
        ran = CliRunner().invoke(app, [*args, *self.flags], env=self.env)
        return ran.exit_code, ran.stdout, ran.stderr


@pytest.fixture(scope="module")
def shells(tmp_path_factory: pytest.TempPathFactory, model_env: dict[str, str]) -> Iterator[Shells]:
    base = tmp_path_factory.mktemp("shells")
    root, db = base / "docs", base / "index"
    root.mkdir()
    guide = root / "guide.md"
    guide.write_text(GUIDE, encoding="utf-8")
    env = {**model_env, "BASE_DIR": str(root), "DB_PATH": str(db)}
    # one user data folder for both shells: status lists the same record of synced indexes
    user = {"XDG_DATA_HOME": str(base / "user-data")}
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_DATA_HOME", user["XDG_DATA_HOME"])
        index = Index.open(env)
    index.ingest_file(str(guide))
    assert index.table().chunk_count(str(guide)) >= 4
    flags = ["--base-dir", str(root), "--db-path", str(db)]
    yield Shells(index, str(guide), flags, {**model_env, **user})
    index.close()


def _store_message(call: Callable[[Index], object], index: Index) -> str:
    with pytest.raises(InvalidArgumentError) as refused:
        call(index)
    return str(refused.value)


def _cases(path: str) -> dict[str, tuple[Callable[[Index], object], str, dict, list[str]]]:
    """name: (store call, MCP tool, its arguments, CLI arguments) for one bad input."""
    low_k, low_span, high_span = TOP_K.minimum - 1, NEIGHBORS.minimum - 1, NEIGHBORS.maximum + 1
    bad_chunk = FIRST_CHUNK_INDEX - 1
    around = ["read-neighbors", "--source", path, "--chunk-index", "0"]
    return {
        "read: no document named": (
            lambda i: i.read_file(),
            "read_file",
            {},
            ["read"],
        ),
        "read: path and source": (
            lambda i: i.read_file("x", file_path=path),
            "read_file",
            {"filePath": path, "source": "x"},
            ["read", path, "--source", "x"],
        ),
        "read: empty source": (
            lambda i: i.read_file("  "),
            "read_file",
            {"source": "  "},
            ["read", "--source", "  "],
        ),
        "delete: no document named": (
            lambda i: i.delete_file(),
            "delete_file",
            {},
            ["delete"],
        ),
        "delete: path and source": (
            lambda i: i.delete_file("x", file_path=path),
            "delete_file",
            {"filePath": path, "source": "x"},
            ["delete", path, "--source", "x"],
        ),
        "neighbours: no document named": (
            lambda i: i.read_chunk_neighbors(None, 0),
            "read_chunk_neighbors",
            {"chunkIndex": 0},
            ["read-neighbors", "--chunk-index", "0"],
        ),
        "neighbours: chunkIndex below the first": (
            lambda i: i.read_chunk_neighbors(path, bad_chunk),
            "read_chunk_neighbors",
            {"source": path, "chunkIndex": bad_chunk},
            ["read-neighbors", "--source", path, f"--chunk-index={bad_chunk}"],
        ),
        "neighbours: before below the minimum": (
            lambda i: i.read_chunk_neighbors(path, 0, before=low_span),
            "read_chunk_neighbors",
            {"source": path, "chunkIndex": 0, "before": low_span},
            [*around, f"--before={low_span}"],
        ),
        "neighbours: after above the maximum": (
            lambda i: i.read_chunk_neighbors(path, 0, after=high_span),
            "read_chunk_neighbors",
            {"source": path, "chunkIndex": 0, "after": high_span},
            [*around, f"--after={high_span}"],
        ),
        "query: topK below the minimum": (
            lambda i: i.query("valve", low_k),
            "query_documents",
            {"query": "valve", "topK": low_k},
            ["query", "valve", f"--top-k={low_k}"],
        ),
    }


CASE_NAMES = list(_cases("/x"))


@pytest.mark.parametrize("case", CASE_NAMES)
def test_the_same_bad_input_gets_the_store_message_in_both_shells(shells: Shells, case: str):
    store_call, tool, tool_args, cli_args = _cases(shells.path)[case]
    message = _store_message(store_call, shells.index)
    is_error, text, _ = shells.mcp(tool, tool_args)
    assert is_error and text == message
    code, stdout, stderr = shells.cli(*cli_args)
    assert (code, stdout, stderr) == (1, "", f"error: {message}\n")
    assert shells.index.read_file(shells.path)["chunkCount"] >= 4  # nothing was deleted


def _cli_default(command: str, param: str) -> Any:
    group = get_command(app)
    return next(p.default for p in group.commands[command].params if p.name == param)  # type: ignore[attr-defined]


def test_defaults_and_bounds_are_the_store_constants_in_both_shells(shells: Shells):
    async def schemas() -> dict[str, dict]:
        async with Client(create_server(shells.index)) as client:
            return {t.name: t.input_schema["properties"] for t in await client.list_tools()}

    tools = anyio.run(schemas)
    top_k, neighbours = tools["query_documents"]["topK"], tools["read_chunk_neighbors"]
    assert (top_k["default"], top_k["minimum"]) == (TOP_K.default, TOP_K.minimum)
    assert str(TOP_K.maximum) in top_k["description"]  # served as the maximum, not refused
    for side in ("before", "after"):
        spec = neighbours[side]
        assert (spec["default"], spec["minimum"], spec["maximum"]) == (
            NEIGHBORS.default,
            NEIGHBORS.minimum,
            NEIGHBORS.maximum,
        )
    assert neighbours["chunkIndex"]["minimum"] == FIRST_CHUNK_INDEX

    assert _cli_default("query", "top_k") == TOP_K.default
    assert _cli_default("read-neighbors", "before") == NEIGHBORS.default
    assert _cli_default("read-neighbors", "after") == NEIGHBORS.default
    store = inspect.signature(Index.read_chunk_neighbors).parameters
    assert store["before"].default == store["after"].default == NEIGHBORS.default
    assert inspect.signature(Index.query).parameters["top_k"].default == TOP_K.default


def test_leaving_the_defaults_out_reads_the_same_in_both_shells(shells: Shells):
    _, _, from_mcp = shells.mcp("read_chunk_neighbors", {"filePath": shells.path, "chunkIndex": 2})
    code, stdout, _ = shells.cli(
        "read-neighbors", "--file-path", shells.path, "--chunk-index", "2", "--json"
    )
    assert code == 0
    expected = shells.index.read_chunk_neighbors(shells.path, 2)
    assert json.loads(stdout) == json.loads(json.dumps(from_mcp)) == expected
    span = range(2 - NEIGHBORS.default, 2 + NEIGHBORS.default + 1)
    assert [c["chunkIndex"] for c in expected["chunks"]] == list(span)
    _, _, hits = shells.mcp("query_documents", {"query": "valve procedure"})
    assert len(hits["results"]) == min(TOP_K.default, shells.index.table().counts()[0])


def _keys(value: Any, at: str = "") -> set[str]:
    """Every key path of a JSON value (``results[].locator.page``), values left out."""
    if isinstance(value, dict):
        out = set()
        for key, item in value.items():
            out |= {f"{at}.{key}"} | _keys(item, f"{at}.{key}")
        return out
    if isinstance(value, list):
        return set().union(*(_keys(item, f"{at}[]") for item in value))
    return set()


def _json_pairs(path: str) -> dict[str, tuple[str, dict, list[str]]]:
    """Each ``--json`` output with the MCP tool that answers the same: (tool, args, CLI args)."""
    return {
        "status": ("status", {}, ["status"]),
        "query": ("query_documents", {"query": "valve procedure"}, ["query", "valve procedure"]),
        "read": ("read_file", {"filePath": path}, ["read", path]),
        "neighbours": (
            "read_chunk_neighbors",
            {"filePath": path, "chunkIndex": 1},
            ["read-neighbors", "--file-path", path, "--chunk-index", "1"],
        ),
        "list": ("list_files", {}, ["list"]),
    }


@pytest.mark.parametrize("output", list(_json_pairs("/x")))
def test_every_json_output_has_its_tools_keys(shells: Shells, output: str):
    """A script written against one shell's JSON reads the other's: the same key set (a
    field with no meaning for a shell is ``null`` there, never missing)."""
    tool, tool_args, cli_args = _json_pairs(shells.path)[output]
    is_error, text, from_mcp = shells.mcp(tool, tool_args)
    assert not is_error, text
    code, stdout, stderr = shells.cli(*cli_args, "--json")
    assert code == 0, stderr
    from_cli = json.loads(stdout)
    assert _keys(from_cli) == _keys(from_mcp)
    if output == "status":  # the CLI serves nothing: what only a server knows is null
        assert from_cli["transport"] is from_cli["bindAddress"] is None
