"""What a user waits for, from process start: MCP start-up, the first query, CLI commands.

Every figure is a fresh process started the way users start it (the installed console
scripts), timed from ``Popen`` to the answer, with bytecode caching as users have it
(``PYTHONDONTWRITEBYTECODE`` removed from the children's environment; the .pyc files go
to a private ``PYTHONPYCACHEPREFIX`` so no source tree is written to) and one warm-up run
of each measurement first. The MCP rows speak MCP over stdio: JSON-RPC lines, written the
way a client writes them (``initialize``, ``notifications/initialized``, ``tools/list``,
then ``tools/call``). Peak RSS is the child's own ``ru_maxrss`` (``os.wait4``).

Beside them: bare ``python -c pass`` and a plain fastmcp hello-world server (one tool),
start to ``tools/list`` answered: the floor the MCP framework sets.

The index is a copy of ``--index``'s ``db/`` (a folder with ``docs/`` and ``db/``, as
``bench/quality.py --keep DIR`` leaves it; the SciFact one is 5,183 files, ~25k chunks),
one per tree measured, over the same ``docs/``, synced once before timing so that the
timed ``sync`` has nothing to do. ``--compare LABEL=VENV`` adds another tree's
virtualenv (e.g. the main branch's); its runs are interleaved with this tree's, so load
drift on a shared machine hits both.

    uv run python bench/startup.py --index /work/wt/scifact [--runs 7]
        [--compare before=/work/main/.venv] [--out bench/results/startup.json]
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from minirag_testkit import model_env

ROOT = Path(__file__).resolve().parents[1]
QUERIES = ROOT.parent / "shared" / "data" / "beir_scifact" / "queries_test.jsonl"
FALLBACK_QUERIES = ["what lowers blood pressure", "gene expression in tumour cells"]
CLIENT = {"name": "startup-bench", "version": "0"}
PROTOCOL = "2025-06-18"

HELLO = """\
from fastmcp import FastMCP

mcp = FastMCP("hello")


@mcp.tool
def hello(name: str) -> str:
    \"\"\"Say hello.\"\"\"
    return f"Hello, {name}!"


mcp.run("stdio", show_banner=False)
"""

#: key -> (label, target); the checks themselves are in verdict()
ROWS: dict[str, tuple[str, str]] = {
    "bare": ("python -c pass", ""),
    "hello": ("plain fastmcp hello-world: start -> tools/list", ""),
    "mcp_tools": ("MCP: start -> tools/list answered", "<= hello + 0.10 s"),
    "mcp_query": ("MCP: start -> first query_documents answered", "<= 1.5 s"),
    "cli_query": ('minirag-cli query "..." --json', "<= 1.0 s, <= 300 MB"),
    "cli_query_served": (
        'minirag-cli query "..." --json, minirag-mcp running on the index',
        "<= 1.0 s, <= 300 MB",
    ),
    "cli_status": ("minirag-cli status --json", "<= 0.5 s"),
    "cli_sync": ("minirag-cli sync, nothing changed", "<= 1.0 s"),
}


@dataclass
class Tree:
    """One installed tree to measure: its virtualenv, its index copy, its samples."""

    label: str
    venv: Path
    workdir: Path
    env: dict[str, str] = field(default_factory=dict)
    seconds: dict[str, list[float]] = field(default_factory=dict)
    peak_mb: dict[str, list[float]] = field(default_factory=dict)
    prepared: dict[str, Any] = field(default_factory=dict)

    def bin(self, name: str) -> str:
        return str(self.venv / "bin" / name)

    @property
    def db(self) -> Path:
        return self.workdir / "db"


@dataclass
class Sample:
    """One timed process: wall seconds to the answer, and its peak RSS in MB."""

    seconds: float
    peak_mb: float
    output: str = ""


def run_to_end(argv: list[str], env: dict[str, str]) -> Sample:
    """Run a command to completion: wall time, peak RSS, stdout (failures raise)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        began = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - began
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if proc.returncode != 0:
            raise SystemExit(f"{argv} failed ({proc.returncode}): {err.read().decode()[-2000:]}")
        return Sample(seconds, usage.ru_maxrss / 1024, out.read().decode())


class StdioServer:
    """An MCP server subprocess driven with raw JSON-RPC lines, timed from its start."""

    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        self._err = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the server
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._err, env=env
        )
        self._lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._lines.put(line)
        self._lines.put(b"")

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def request(self, rid: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """Send a request, wait for its response (notifications are skipped)."""
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        while True:
            line = self._lines.get(timeout=300)
            if not line:
                self._err.seek(0)
                raise SystemExit(f"server exited: {self._err.read().decode()[-2000:]}")
            message = json.loads(line)
            if message.get("id") == rid and "method" not in message:
                if "error" in message or message.get("result", {}).get("isError"):
                    raise SystemExit(f"{method} failed: {message}")
                return message

    def open(self) -> None:
        """The client's side of the handshake, then ``tools/list`` (what a client does)."""
        self.request(
            0, "initialize", {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": CLIENT}
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        self.request(1, "tools/list", {})

    def elapsed(self) -> float:
        return time.perf_counter() - self.started

    def close(self) -> float:
        """Close stdin (how clients stop a stdio server); the server's peak RSS in MB."""
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        _, _, usage = os.wait4(self.proc.pid, 0)
        self.proc.returncode = 0
        self._err.close()
        return usage.ru_maxrss / 1024


def queries() -> list[str]:
    """SciFact test claims (the bench rotates through them), or two built-in ones."""
    if not QUERIES.exists():
        return FALLBACK_QUERIES
    with QUERIES.open(encoding="utf-8") as lines:
        return [json.loads(line)["text"] for line, _ in zip(lines, range(50), strict=False)]


def measurements(
    tree: Tree, hello: Path, ask: Callable[[], str]
) -> dict[str, Callable[[], Sample]]:
    """Each measurement of ``tree`` as a callable giving one sample."""
    env = tree.env

    def hello_server() -> Sample:
        server = StdioServer([tree.bin("python"), str(hello)], env)
        server.open()
        seconds = server.elapsed()
        return Sample(seconds, server.close())

    def mcp_tools() -> Sample:
        server = StdioServer([tree.bin("minirag-mcp")], env)
        server.open()
        seconds = server.elapsed()
        return Sample(seconds, server.close())

    def mcp_query() -> Sample:
        server = StdioServer([tree.bin("minirag-mcp")], env)
        server.open()
        args = {"name": "query_documents", "arguments": {"query": ask()}}
        server.request(2, "tools/call", args)
        seconds = server.elapsed()
        return Sample(seconds, server.close())

    def cli(*args: str) -> Callable[[], Sample]:
        return lambda: run_to_end([tree.bin("minirag-cli"), *args], env)

    def cli_query() -> Sample:
        return run_to_end([tree.bin("minirag-cli"), "query", ask(), "--json"], env)

    def cli_query_served() -> Sample:
        # A server a client started earlier, warm (it has answered a query), then the
        # CLI as a person runs it in a terminal beside it.
        server = StdioServer([tree.bin("minirag-mcp")], env)
        server.open()
        server.request(2, "tools/call", {"name": "query_documents", "arguments": {"query": ask()}})
        try:
            return cli_query()
        finally:
            server.close()

    return {
        "bare": lambda: run_to_end([tree.bin("python"), "-c", "pass"], env),
        "hello": hello_server,
        "mcp_tools": mcp_tools,
        "mcp_query": mcp_query,
        "cli_query": cli_query,
        "cli_query_served": cli_query_served,
        "cli_status": cli("status", "--json"),
        "cli_sync": cli("sync", "--json"),
    }


def prepare(tree: Tree, index: Path, tmp: Path) -> None:
    """Copy the index's db/ for ``tree``, set its environment, and sync it once (untimed).

    The documents stay where the index was built (its sources are their absolute paths,
    and the timed commands only read them), so the first sync has nothing to re-ingest.
    """
    shutil.copytree(index / "db", tree.db, symlinks=True)
    keep = ("PATH", "HOME", "LANG", "TMPDIR")
    tree.env = {
        **{k: os.environ[k] for k in keep if k in os.environ},
        **model_env(),
        "BASE_DIR": str(index / "docs"),
        "DB_PATH": str(tree.db),
        "PYTHONPYCACHEPREFIX": str(tmp / f"pycache-{tree.label}"),
    }
    first = run_to_end([tree.bin("minirag-cli"), "sync", "--json"], tree.env)
    tree.prepared = {"firstSync": json.loads(first.output)["counts"], "seconds": first.seconds}


def measure(trees: list[Tree], runs: int, hello: Path) -> None:
    """One warm-up, then ``runs`` samples of every row for every tree, interleaved."""
    pool = queries()
    turn = iter(range(10**9))

    def ask() -> str:
        return pool[next(turn) % len(pool)]

    plans = {t.label: measurements(t, hello, ask) for t in trees}
    for rnd in range(runs + 1):
        for key in ROWS:
            for tree in trees:
                sample = plans[tree.label][key]()
                if rnd == 0:
                    continue  # warm-up: .pyc files, page cache, the disk cache
                tree.seconds.setdefault(key, []).append(sample.seconds)
                tree.peak_mb.setdefault(key, []).append(sample.peak_mb)
        print(f"round {rnd}/{runs} done", file=sys.stderr, flush=True)


def verdict(key: str, tree: Tree) -> str:
    """Whether ``tree`` meets the row's target (from medians)."""
    med = statistics.median(tree.seconds[key])
    rss = statistics.median(tree.peak_mb[key])
    hello = statistics.median(tree.seconds["hello"])
    checks = {
        "mcp_tools": med <= hello + 0.10,
        "mcp_query": med <= 1.5,
        "cli_query": med <= 1.0 and rss <= 300,
        "cli_query_served": med <= 1.0 and rss <= 300,
        "cli_status": med <= 0.5,
        "cli_sync": med <= 1.0,
    }
    if key not in checks:
        return ""
    return "met" if checks[key] else "missed"


def report(trees: list[Tree]) -> dict[str, Any]:
    """Print the table; return the figures for the JSON file."""
    head = "| what a user waits for | target | " + " | ".join(t.label for t in trees) + " |"
    print("\n" + head)
    print("|---|---|" + "---|" * len(trees))
    for key, (label, target) in ROWS.items():
        cells = []
        for tree in trees:
            med = statistics.median(tree.seconds[key])
            cell = f"{med:.2f} s"
            if key.startswith("cli_query") or key == "mcp_query":  # the memory targets
                cell += f", {statistics.median(tree.peak_mb[key]):.0f} MB"
            if mark := verdict(key, tree):
                cell += f" ({mark})"
            cells.append(cell)
        print(f"| {label} | {target} | " + " | ".join(cells) + " |")
    for tree in trees:
        print(f"\n{tree.label}: the untimed first sync of its index copy: {tree.prepared}")
    return {
        "rows": {key: {"label": label, "target": target} for key, (label, target) in ROWS.items()},
        "trees": {
            t.label: {
                "venv": str(t.venv),
                "firstSync": t.prepared,
                "figures": {
                    key: {
                        "medianSeconds": statistics.median(t.seconds[key]),
                        "minSeconds": min(t.seconds[key]),
                        "medianPeakMB": statistics.median(t.peak_mb[key]),
                        "seconds": t.seconds[key],
                        "peakMB": t.peak_mb[key],
                        "verdict": verdict(key, t),
                    }
                    for key in ROWS
                },
            }
            for t in trees
        },
    }


def main() -> None:
    """Copy the index per tree, sync it once, then time every row and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", type=Path, required=True, help="folder with docs/ and db/")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--compare", action="append", default=[], metavar="LABEL=VENV")
    parser.add_argument("--label", default="this tree", help="label of this tree's column")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "startup.json")
    args = parser.parse_args()
    if not (args.index / "docs").is_dir() or not (args.index / "db").is_dir():
        raise SystemExit(f"{args.index} needs docs/ and db/ (bench/quality.py --keep DIR)")
    with tempfile.TemporaryDirectory(prefix="minirag-startup-") as raw:
        tmp = Path(raw)
        hello = tmp / "hello_server.py"
        hello.write_text(HELLO, encoding="utf-8")
        venvs = [(label, Path(path)) for label, _, path in (c.partition("=") for c in args.compare)]
        venvs.append((args.label, Path(sys.prefix)))
        trees = [Tree(label, venv, tmp / f"index-{n}") for n, (label, venv) in enumerate(venvs)]
        for tree in trees:
            prepare(tree, args.index, tmp)
        measure(trees, args.runs, hello)
        figures = report(trees)
    figures["machine"] = {"cpus": os.cpu_count(), "loadavg": os.getloadavg(), "runs": args.runs}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    print(f"\nfigures written to {args.out}")


if __name__ == "__main__":
    main()
