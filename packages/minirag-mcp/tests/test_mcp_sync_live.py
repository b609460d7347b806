"""A sync job seen the way a model sees it: ``sync_status`` polled every 0.1 s over a real
stdio session with the installed console script, on a corpus of a few hundred small
files. ``sync_start`` answers at once, ``sync_status``, ``status`` and ``list_files``
answer while the job runs, the counts move meanwhile, and the final status names the
files. (How fast each call answers is measured in ``bench/sync_latency.py``.)"""

from __future__ import annotations

import itertools
import time
from pathlib import Path

import anyio
import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from mcp_testlib import RawServer, child_env, console_script, structured

FILES = 300
#: Sentences for the corpus: each file gets five, two chunks of real text.
WORDS = ["harbour", "lantern", "granite", "orchard", "falcon", "meadow", "copper", "willow"]


def _corpus(root: Path) -> list[Path]:
    paths = []
    for i in range(FILES):
        path = root / f"box{i // 100}" / f"note{i:03d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = [f"# Note {i}"]
        for j in range(5):
            a, b = WORDS[(i + j) % 8], WORDS[(i * 3 + j) % 8]
            lines.append(
                f"Paragraph {j} of note {i} says the {a} by the {b} was counted {i * j} times "
                f"in season {j}, and the {b} keeper wrote it down twice for the record."
            )
        path.write_text("\n\n".join(lines) + "\n", encoding="utf-8")
        paths.append(path)
    (root / "box0" / "broken.pdf").write_bytes(b"not a pdf")
    return paths


def _call(server: RawServer, rid: int, tool: str, args: dict) -> dict:
    response, _ = server.request(rid, "tools/call", {"name": tool, "arguments": args})
    result = response["result"]
    assert not result.get("isError"), result
    return result["structuredContent"]


@pytest.mark.slow
def test_sync_status_counts_grow_while_the_job_runs(tmp_path, model_env):
    root = tmp_path / "docs"
    paths = _corpus(root)
    env = {**model_env, "BASE_DIR": str(root), "DB_PATH": str(tmp_path / "index")}
    server = RawServer(env)
    try:
        server.initialize()
        # A bare tools/call carries no progressToken: sync_start answers at once.
        job_id = _call(server, 1, "sync_start", {})["jobId"]
        running: list[int] = []
        rid = 2
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            status = _call(server, rid, "sync_status", {"jobId": job_id})
            rid += 1
            if status["state"] not in ("pending", "running"):
                break
            running.append(status["counts"]["ingested"])
            time.sleep(0.1)
        else:
            raise AssertionError("the sync did not finish in 10 minutes")
    finally:
        stderr = server.close()
    assert status["state"] == "failed", (status, stderr[-2000:])  # one broken file: it says so
    assert status["counts"]["ingested"] == FILES and status["counts"]["failed"] == 1
    assert running == sorted(running)  # never goes back
    distinct = sorted(set(running))
    # One window of the writer holds 64 documents; a count that moved only per window
    # could take at most FILES // 64 + 1 values here. It moves per commit instead.
    assert len(distinct) > FILES // 64 + 2, distinct
    steps = [b - a for a, b in itertools.pairwise(distinct)]
    assert max(steps) < 64, distinct

    # The final status names the files by outcome; a background job lists the first 100.
    files = status["files"]
    assert len(files["ingested"]) == 100 and set(files["ingested"]) <= {str(p) for p in paths}
    assert status["filesOmitted"] == FILES - 100
    assert files["failed"] == [str(root / "box0" / "broken.pdf")]
    assert status["errors"][0]["source"] == files["failed"][0]


#: How long a sync of the corpus may take on a loaded CI machine (it takes 10-40 s).
PATIENCE = 600
_TERMINAL = ("succeeded", "failed", "cancelled")


async def _watcher_syncing(client: Client) -> None:
    """Wait until the watcher's first full sync has begun: it indexes the corpus, one
    window of documents at a time, for many seconds after ``watchMode`` turns ``notify``."""
    with anyio.fail_after(PATIENCE):
        while structured(await client.call_tool("status", {})).get("watchMode") != "notify":
            await anyio.sleep(0.1)


@pytest.mark.slow
@pytest.mark.anyio
@pytest.mark.parametrize(
    ("watch", "handover"),
    [("off", False), ("on", False), ("on", True)],
    ids=["watch-off", "watch-on", "watch-on-handover"],
)
async def test_a_client_polling_sees_the_sync_run(tmp_path, model_env, watch, handover):
    # fastmcp's client attaches a progressToken to every call, as the client did;
    # sync_start once held its answer up to 30 s for it, and a client's first poll then
    # found the sync over. ``handover``: sync_start pre-empts the watcher's own first sync.
    root = tmp_path / "docs"
    _corpus(root)
    env = {**model_env, "BASE_DIR": str(root), "DB_PATH": str(tmp_path / "index")}
    env["RAG_WATCH"] = watch
    transport = StdioTransport(console_script(), [], env=child_env(env))
    async with Client(transport, timeout=PATIENCE) as client:
        await client.list_tools()  # begins the warm-up, then the watcher
        if handover:
            await _watcher_syncing(client)
        job_id = structured(await client.call_tool("sync_start", {}))["jobId"]
        first = structured(await client.call_tool("sync_status", {"jobId": job_id}))
        # Answered at once: before the job committed a single file.
        assert first["state"] in ("pending", "running"), first
        assert first["counts"]["ingested"] == 0, first
        running: list[int] = []  # ingested, as each poll during the run saw it
        during: dict[str, list[dict]] = {"status": [], "list_files": []}
        with anyio.fail_after(PATIENCE):
            while True:
                status = structured(await client.call_tool("sync_status", {"jobId": job_id}))
                if status["state"] in _TERMINAL:
                    break
                if status["state"] == "running":
                    running.append(status["counts"]["ingested"])
                answers = {tool: structured(await client.call_tool(tool, {})) for tool in during}
                # Both answered while the job still ran: a poll after them says so.
                after = structured(await client.call_tool("sync_status", {"jobId": job_id}))
                if after["state"] not in _TERMINAL:
                    for tool, answer in answers.items():
                        during[tool].append(answer)
                await anyio.sleep(0.1)
    assert status["state"] == "failed", status  # the one broken file
    counts = status["counts"]
    assert counts["failed"] == 1 and counts["ingested"] + counts["skipped"] == FILES, counts
    # A running job whose count grows, seen before it ended.
    assert running == sorted(running), running
    assert len(set(running)) >= 3 and running[0] < counts["ingested"], running
    assert during["status"] and during["list_files"], "status/list_files waited for the end"
    ingested = [
        sum(f["state"] == "ingested" for f in listed["files"]) for listed in during["list_files"]
    ]
    assert ingested == sorted(ingested), ingested
    assert min(ingested) < FILES, ingested  # a listing from the middle of the sync
