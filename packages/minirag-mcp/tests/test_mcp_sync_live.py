"""A sync job seen the way a model sees it: ``sync_status`` polled every 0.1 s over a real
stdio session with the installed console script, on a corpus of a few hundred small
files. The counts move while the job runs, and the final status names the files."""

from __future__ import annotations

import itertools
import time
from pathlib import Path

import pytest
from mcp_testlib import RawServer

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
    assert status["state"] == "succeeded", (status, stderr[-2000:])
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
