"""One way for every bench script to write its figures: ``bench/results/<name>.json``.

Each file carries, beside the figures, where and when they were measured (machine, load,
commit, UTC date), because ``bench/readme.py`` turns these files into README's "Measured"
table and a reader must be able to tell a fresh figure from an old one.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import subprocess
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def provenance() -> dict:
    """Where and when: machine, load average, commit (``+dirty`` when the tree has changes)."""

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
        "commit": commit,
        "measured": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
    }


def write_json(path: Path, figures: dict, meta: dict | None = None) -> None:
    """Write ``figures`` (+ provenance, taken when the run started if ``meta`` is given)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {**figures, **(meta or provenance())}
    data["load_average_after"] = round(os.getloadavg()[0], 2)  # the run's own load included
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
