"""What a first sync costs, measured from outside as ``/usr/bin/time`` would: CPU, peak memory.

Each tree's installed ``minirag-cli sync`` runs as a user runs it, in a fresh process over
a fresh index of the same folder, timed from ``Popen`` to its exit. ``os.wait4`` gives its
CPU seconds (user + system, the parse workers it reaped included), its peak RSS (the
largest process: the sync's own, as ``/usr/bin/time`` reports it) and its minor page
faults (a heap cut and faulted back in shows there, and as system CPU). Beside it, the
whole process tree's RSS is sampled every 0.2 s (the sync and its parse workers together).

``--compare LABEL=VENV`` adds another tree's virtualenv (a checkout of an older commit with
``uv sync``); rounds alternate the trees, so load drift on a shared machine hits each
alike, and the figures are medians over ``--runs`` rounds with each tree's ratio to this
one. This is the bench that would have caught a change's sync cost: run it against the
commit before a change to chunking, keywords, conversion or process settings.

    uv run python bench/sync_cost.py [--limit 5183] [--runs 1]
        [--compare b5a2db1=/work/base-b5a2db1/.venv] [--docs DIR] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from minirag_testkit import model_env
from results_io import RESULTS, provenance, write_json

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
OUT = RESULTS / "sync_cost.json"


def write_scifact(folder: Path, limit: int) -> int:
    """The first ``limit`` SciFact abstracts as ``# title`` + text ``.md`` files."""
    folder.mkdir(parents=True, exist_ok=True)
    written = 0
    with (DATA / "beir_scifact" / "corpus.jsonl").open(encoding="utf-8") as f:
        for line in f:
            doc = json.loads(line)
            text = f"# {doc.get('title', '').strip() or doc['_id']}\n\n{doc['text'].strip()}\n"
            (folder / f"{doc['_id']}.md").write_text(text, encoding="utf-8")
            written += 1
            if written >= limit:
                break
    return written


class TreeRss(threading.Thread):
    """The largest sum of RSS over a process and its descendants, sampled while it runs."""

    def __init__(self, pid: int, every: float = 0.2) -> None:
        super().__init__(daemon=True)
        self.pid, self.every, self.peak_mb = pid, every, 0.0
        self._done = threading.Event()

    def _tree(self) -> list[str]:
        found, todo = [], [str(self.pid)]
        while todo:
            pid = todo.pop()
            found.append(pid)
            for children in Path(f"/proc/{pid}/task").glob("*/children"):
                try:
                    todo += children.read_text().split()
                except OSError:
                    continue
        return found

    def run(self) -> None:
        while not self._done.wait(self.every):
            total = 0
            for pid in self._tree():
                try:
                    status = Path(f"/proc/{pid}/status").read_text()
                except OSError:
                    continue
                total += next(
                    (int(x.split()[1]) for x in status.splitlines() if x.startswith("VmRSS:")), 0
                )
            self.peak_mb = max(self.peak_mb, total / 1024)

    def stop(self) -> float:
        self._done.set()
        self.join()
        return round(self.peak_mb, 1)


def one_sync(cli: str, docs: Path, env: dict[str, str]) -> dict:
    """One fresh sync of ``docs`` by ``cli``; its cost from outside."""
    db = Path(tempfile.mkdtemp(prefix="minirag-sync-cost-"))
    try:
        start = time.perf_counter()
        proc = subprocess.Popen(
            [cli, "sync", "--base-dir", str(docs), "--db-path", str(db / "index"), "--json"],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        tree = TreeRss(proc.pid)
        tree.start()
        out = proc.stdout.read() if proc.stdout is not None else b""
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        summary = json.loads(out.decode() or "{}")
        return {
            "exit": proc.returncode,
            "cpuSeconds": round(usage.ru_utime + usage.ru_stime, 1),
            "userSeconds": round(usage.ru_utime, 1),
            "systemSeconds": round(usage.ru_stime, 1),
            "peakMB": round(usage.ru_maxrss / 1024, 1),
            "treePeakMB": tree.stop(),
            "minorFaults": usage.ru_minflt,
            "wallSeconds": round(wall, 1),
            "ingested": summary.get("ingested"),
            "failed": summary.get("failed"),
        }
    finally:
        shutil.rmtree(db, ignore_errors=True)


def median(runs: list[dict], key: str) -> float:
    return round(statistics.median(r[key] for r in runs), 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=5183, help="SciFact files to write")
    parser.add_argument("--docs", type=Path, help="sync this folder instead of SciFact")
    parser.add_argument("--runs", type=int, default=1, help="rounds (medians are reported)")
    parser.add_argument("--compare", action="append", default=[], metavar="LABEL=VENV")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    meta = provenance()
    trees = {"this": str(Path(sys.prefix) / "bin" / "minirag-cli")}
    for spec in args.compare:
        label, venv = spec.split("=", 1)
        trees[label] = str(Path(venv) / "bin" / "minirag-cli")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(model_env(), RAG_WATCH="off")
    work = Path(tempfile.mkdtemp(prefix="minirag-sync-cost-docs-"))
    try:
        docs = args.docs or work / "docs"
        files = len(list(docs.rglob("*.*"))) if args.docs else write_scifact(docs, args.limit)
        runs: dict[str, list[dict]] = {label: [] for label in trees}
        for round_ in range(args.runs):
            for label, cli in trees.items():
                runs[label].append(one_sync(cli, docs, env))
                print(f"round {round_ + 1}/{args.runs} {label}: {runs[label][-1]}", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    keys = ("cpuSeconds", "systemSeconds", "peakMB", "treePeakMB", "minorFaults", "wallSeconds")
    figures = {label: {k: median(r, k) for k in keys} for label, r in runs.items()}
    this = figures["this"]
    print(f"\n{files} files, medians of {args.runs} round(s); ratio = tree / this")
    print("| tree | CPU s | system s | peak MB | tree peak MB | minor faults | wall s |")
    print("|---|---|---|---|---|---|---|")
    for label, fig in figures.items():
        cells = [f"{fig[k]:,.1f} ({fig[k] / this[k]:.2f}×)" if this[k] else "0" for k in keys]
        print(f"| {label} | " + " | ".join(cells) + " |")
    write_json(
        args.out,
        {"files": files, "runs": runs, "medians": figures, "source": str(args.docs or "scifact")},
        meta,
    )
    print(f"figures written to {args.out}")


if __name__ == "__main__":
    main()
