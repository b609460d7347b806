"""What ``tools/list`` costs a session: bytes per tool, split into description, input
schema, output schema and the rest (name, title, annotations, meta), as the wire carries
them (compact JSON). Every MCP session reads the whole list into the model's context
before its first question, so this is context spent on every conversation.

Each tree is measured in a child process of its own virtualenv (``--compare
LABEL=VENV`` adds one, e.g. an older checkout's), through fastmcp's in-memory client over
a server on an empty index: the list does not depend on the documents.

    uv run python bench/tool_list.py [--compare before=/work/main/.venv]
        [--out bench/results/tool_list.json]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from results_io import RESULTS, write_json

_CHILD = """
import asyncio, json, os, sys, tempfile
from fastmcp import Client
from minirag_mcp.server import create_server
from minirag_store import Index, load_config

async def main():
    env = {**os.environ, "BASE_DIR": tempfile.mkdtemp(), "RAG_WATCH": "off"}
    async with Client(create_server(Index(load_config(env)))) as client:
        listed = await client.session.list_tools()
    wire = json.loads(listed.model_dump_json(by_alias=True, exclude_none=True))
    size = lambda v: len(json.dumps(v, separators=(",", ":"), ensure_ascii=False).encode())
    tools = {}
    for tool in wire["tools"]:
        parts = {
            "description": len((tool.get("description") or "").encode()),
            "input": size(tool.get("inputSchema", {})),
            "output": size(tool["outputSchema"]) if "outputSchema" in tool else 0,
        }
        parts["other"] = size(tool) - sum(parts.values())
        tools[tool["name"]] = parts
    print(json.dumps({"total": size(wire), "tools": tools}))

asyncio.run(main())
"""


def measure(python: str) -> dict:
    """The list's sizes as the tree of interpreter ``python`` serves it."""
    out = subprocess.run([python, "-c", _CHILD], check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    """Measure, print the table, write the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--compare", action="append", default=[], metavar="LABEL=VENV")
    parser.add_argument("--out", type=Path, default=RESULTS / "tool_list.json")
    args = parser.parse_args()
    trees = {"this": sys.executable}
    for item in args.compare:
        label, _, venv = item.partition("=")
        trees[label] = str(Path(venv) / "bin" / "python")
    runs = {label: measure(python) for label, python in trees.items()}
    names = list(runs["this"]["tools"])
    parts = ("description", "input", "output", "other")
    for label, run in runs.items():
        print(f"\n{label}: tools/list {run['total']:,} bytes")
        print(f"| tool | {' | '.join(parts)} |\n|---|{'---|' * len(parts)}")
        for name in names:
            row = run["tools"].get(name, {})
            print(f"| {name} | {' | '.join(str(row.get(p, '-')) for p in parts)} |")
    if len(runs) > 1:
        for label, run in runs.items():
            if label != "this":
                print(f"\nthis / {label}: {runs['this']['total'] / run['total']:.2f}x")
    write_json(args.out, {"runs": runs, "targetBytes": 12_000})


if __name__ == "__main__":
    main()
