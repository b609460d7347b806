"""The wire shape of every ``minirag-cli ... --json`` output: the shared scenario.

The story and each answer's shape are written once, in :mod:`minirag_testkit.scenarios`
(the MCP test runs the same one). Here each step is a command run in-process (typer's
runner) on a real folder and the offline model; :func:`minirag_testkit.wire.shape` keeps
the field names (in order) and JSON types and drops the values that change run to run.
Scripts parse this output: a renamed, added or dropped field fails here; after changing
an output on purpose, change its shape in the scenario module.
"""

from __future__ import annotations

from typing import Any

from minirag_testkit.scenarios import Context, expected, steps_for, write_files
from minirag_testkit.wire import serve_page, shape


def _argv(tool: str, args: dict[str, Any]) -> list[str]:
    """The command that runs the store operation ``tool`` with ``args``."""
    commands: dict[str, list[str]] = {
        "sync": ["sync"],
        "list_files": ["list"],
        "status": ["status"],
    }
    if tool in commands:
        return commands[tool]
    if tool == "query_documents":
        return ["query", args["query"]]
    if tool == "read_chunk_neighbors":
        chunk, after = str(args["chunkIndex"]), str(args["after"])
        return ["read-neighbors", "--file-path", args["filePath"], "--chunk-index", chunk,
                "--after", after]  # fmt: skip
    if tool == "read_file":
        return ["read", args["filePath"]]
    if tool == "ingest_url":
        return ["ingest-url", args["url"], "--source", args["source"]]
    if tool == "delete_file":
        return ["delete", args["filePath"]]
    raise AssertionError(f"no CLI command runs {tool}: add it here or mark the step mcp-only")


def test_every_command_answers_in_the_shared_shapes(tmp_path, invoke):
    root = write_files(tmp_path / "docs")
    flags = ["--base-dir", str(root), "--db-path", str(tmp_path / "index")]
    wrong: dict[str, object] = {}
    with serve_page() as url:
        ctx = Context(root, url)
        for step in steps_for("cli"):
            if step.prepare is not None:
                step.prepare(ctx)
            ran = invoke(*_argv(step.tool, step.args(ctx)), "--json", *flags,
                         env={"ALLOW_PRIVATE_URLS": "1"})  # fmt: skip
            # a sync with a failed file exits 1; its JSON still says which
            assert ran.code == (1 if step.tool == "sync" else 0), ran.stderr
            answer = ran.json()
            if step.tool == "sync":
                assert answer["errors"] and answer["files"]["ingested"], answer
            if step.tool == "query_documents":
                assert answer["results"], "nothing found: the shape would miss the hit fields"
            if step.tool == "status":  # ocrHint: only when an OCR engine is missing here
                assert isinstance(answer.pop("ocrHint", ""), str)
            got = shape(answer, maps=step.maps)
            if got != expected(step, "cli"):
                wrong[step.tool] = got
    assert not wrong, f"shapes differ from minirag_testkit.scenarios: {wrong}"
