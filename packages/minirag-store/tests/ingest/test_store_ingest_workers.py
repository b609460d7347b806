"""The parse worker pool: results, hash short-cut, cancellation, and a crashing worker."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from minirag_store.config import load_config
from minirag_store.ingest.workers import POOL_THRESHOLD, ParseTask, file_digest, parse_all


def _files(root: Path, n: int) -> list[ParseTask]:
    tasks = []
    for i in range(n):
        path = root / f"doc{i:02d}.md"
        path.write_text(f"# Heading {i}\n\nBody of document {i}.", encoding="utf-8")
        tasks.append(ParseTask(str(path), str(path)))
    return tasks


def test_pool_parses_every_file_and_skips_known_hashes(tmp_path: Path) -> None:
    n = POOL_THRESHOLD + 8
    tasks = _files(tmp_path, n)
    known = file_digest(tasks[0].path)[0]
    tasks[0] = ParseTask(tasks[0].source, tasks[0].path, known_hash=known)
    tasks[1] = ParseTask(tasks[1].source, tasks[1].path, known_hash="0" * 40)
    config = load_config({"BASE_DIR": str(tmp_path)})
    results = {r.source: r for r in parse_all(tasks, config, workers=2)}
    assert len(results) == n
    first = results[tasks[0].source]
    assert first.unchanged
    assert first.markdown == ""
    assert first.file_hash == known
    second = results[tasks[1].source]
    assert not second.unchanged
    assert second.title == "Heading 1"
    assert "Body of document 1." in second.markdown
    assert all(r.error is None for r in results.values())


def test_cancel_stops_submitting(tmp_path: Path) -> None:
    tasks = _files(tmp_path, 60)
    config = load_config({"BASE_DIR": str(tmp_path)})
    seen = []
    for result in parse_all(tasks, config, workers=1, cancelled=lambda: len(seen) >= 3):
        seen.append(result)
    assert 3 <= len(seen) < 60


CRASHER = """
import os
if os.environ.get("CRASH_ON"):
    import minirag_store.convert.converter as convert
    real = convert.convert_file
    def crashing(path, config):
        if os.environ["CRASH_ON"] in str(path) and os.getpid() != int(os.environ["MAIN_PID"]):
            os._exit(9)  # what a segfaulting parser looks like from outside
        return real(path, config)
    convert.convert_file = crashing
"""

RUN = """
import os, sys
from pathlib import Path
from minirag_store.config import load_config
from minirag_store.ingest.workers import ParseTask, parse_all
root = Path(sys.argv[1])
tasks = [ParseTask(str(p), str(p)) for p in sorted(root.glob("*.md"))]
results = list(parse_all(tasks, load_config({"BASE_DIR": str(root)}), workers=2))
print(len(results), sum(r.error is None for r in results))
print("\\n".join(sorted(Path(r.source).name for r in results if r.error)))
print([r.error for r in results if r.error][0])
"""


def test_a_worker_crash_fails_files_in_flight_and_the_rest_go_on(tmp_path: Path) -> None:
    import os

    docs = tmp_path / "docs"
    docs.mkdir()
    _files(docs, 80)  # more than the tasks in flight (2 workers x 4 + 32)
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(textwrap.dedent(CRASHER), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(hook), "CRASH_ON": "doc13", "MAIN_PID": "0"}
    out = subprocess.run(
        [sys.executable, "-c", RUN, str(docs)],
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
        check=True,
    ).stdout.splitlines()
    total, ok = map(int, out[0].split())
    failed = out[1:-1]
    assert total == 80
    assert "doc13.md" in failed
    assert ok >= 40, "only files in flight with the crash may fail"
    assert "doc79.md" not in failed, "files queued after the crash go to a fresh pool"
    assert ok + len(failed) == 80
    assert "parser process died" in out[-1]
