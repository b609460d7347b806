"""One way for every bench script to write its figures: ``bench/results/<name>.json``.

Each file carries, beside the figures, where and when they were measured (machine, load,
commit, UTC date), because ``bench/readme.py`` turns these files into README's "Measured"
table and a reader must be able to tell a fresh figure from an old one. And how fast the
machine was: the same 2-core cloud machine has streamed a 100k x 384 float32 matrix in
9.8 ms one day and 16 ms another, and lost a third of its busy time to the hypervisor
(steal), so a latency figure means little without :func:`cpu_probe_ms` and the run's
steal share beside it.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

from minirag_store.process import configure

RESULTS = Path(__file__).resolve().parent / "results"

# Every bench that writes here measures the store as the shells run it: with the process
# settings their entry points apply (engine log level, native memory bounds).
configure()


#: A vector search's inner loop at 100k chunks: one matrix-vector product over this many
#: rows of 384 float32 (154 MB, more than any cache), what :func:`cpu_probe_ms` times.
PROBE_ROWS = 100_000


_PROBE = """
import sys, time
import numpy as np
matrix = np.random.default_rng(0).random(({rows}, 384), dtype=np.float32)
vector = matrix[0].copy()
times = []
for _ in range({repeats}):
    start = time.perf_counter()
    matrix @ vector
    times.append(time.perf_counter() - start)
print(sorted(times)[len(times) // 2] * 1000)
"""


def cpu_probe_ms(repeats: int = 15) -> float:
    """Median milliseconds of a 100k x 384 float32 matrix-vector product on one core: the
    machine's speed at a vector search's work (memory bandwidth), comparable across runs.
    In a child process: its 154 MB must not count in a bench's own peak RSS."""
    code = _PROBE.format(rows=PROBE_ROWS, repeats=repeats)
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return round(float(out.stdout), 2)


def _cpu_ticks() -> tuple[int, int] | None:
    """``(busy, steal)`` jiffies of every CPU so far (/proc/stat), None off Linux."""
    try:
        fields = Path("/proc/stat").read_text(encoding="ascii").split("\n", 1)[0].split()[1:]
    except OSError:
        return None
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(f) for f in fields[:8])
    return user + nice + system + irq + softirq + steal, steal


def provenance() -> dict:
    """Where and when: machine, its speed (:func:`cpu_probe_ms`), load average, commit
    (``+dirty`` when the tree has changes); :func:`write_json` adds the run's steal share."""

    def git(*args: str) -> str:
        out = subprocess.run(["git", *args], check=False, capture_output=True, text=True)
        return out.stdout.strip()

    commit = git("rev-parse", "--short", "HEAD")
    if git("status", "--porcelain", "--untracked-files=no"):
        commit += "+dirty"
    return {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}",
        "load_average_before": round(os.getloadavg()[0], 2),
        "cpu_probe_ms": cpu_probe_ms(),
        "cpu_ticks_before": _cpu_ticks(),
        "commit": commit,
        "measured": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
    }


def write_json(path: Path, figures: dict, meta: dict | None = None) -> None:
    """Write ``figures`` (+ provenance, taken when the run started if ``meta`` is given)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {**figures, **(meta or provenance())}
    data["load_average_after"] = round(os.getloadavg()[0], 2)  # the run's own load included
    before, after = data.pop("cpu_ticks_before", None), _cpu_ticks()
    if before and after and after[0] > before[0]:
        # the share of the run's busy CPU time the hypervisor gave to other machines
        data["steal_percent"] = round(100 * (after[1] - before[1]) / (after[0] - before[0]), 1)
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
