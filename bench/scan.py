"""Scanning speed: one walk over 10,000 small files, the scan half of a no-op re-sync.

Target (issue 4): a no-op re-sync of 10k unchanged files within 1 s in total, so the scan
must take a small part of that. The tree is built in a temp folder: 100 folders x 100
markdown files, a root ``.gitignore`` and a nested ``.miniragignore`` (so every file is
matched against ignore patterns), plus skipped noise (``node_modules``, lock files).
For scale, the table also shows a bare ``os.walk`` + ``os.stat`` over the same tree.

    uv run python bench/scan.py [--files 10000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from minirag_store.config import load_config
from minirag_store.ingest.scan import scan
from results_io import RESULTS as RESULTS_DIR
from results_io import provenance, write_json

RESULTS = RESULTS_DIR / "scan.json"


def build_tree(root: Path, files: int) -> None:
    """``files`` markdown files in folders of 100, with ignore files and skipped noise."""
    per_dir = 100
    for d in range((files + per_dir - 1) // per_dir):
        folder = root / f"dept{d:03d}" / "notes"
        folder.mkdir(parents=True)
        for i in range(min(per_dir, files - d * per_dir)):
            (folder / f"note{i:03d}.md").write_text("x")
        (folder / f"~$lock{d}.docx").write_text("")
    (root / ".gitignore").write_text("*.log\nbuild/\n")
    (root / "dept001" / ".miniragignore").write_text("secret*\n!secret-ok.md\n")
    (root / "node_modules" / "pkg").mkdir(parents=True)
    (root / "node_modules" / "pkg" / "README.md").write_text("x")


def bare_walk(root: Path) -> int:
    """The floor: os.walk plus one stat per file, no rules at all."""
    count = 0
    for folder, _dirs, names in os.walk(root):
        for name in names:
            os.stat(os.path.join(folder, name))
            count += 1
    return count


def timed(fn: Callable[[], int], repeat: int) -> tuple[int, float, float]:
    """(result, best ms, median ms) over ``repeat`` runs."""
    times: list[float] = []
    result = 0
    for _ in range(repeat):
        started = time.perf_counter()
        result = fn()
        times.append((time.perf_counter() - started) * 1000)
    return result, min(times), statistics.median(times)


def main() -> None:
    """Build the tree, time both walks, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    meta = provenance()  # load average before: other work on the machine skews every figure
    with tempfile.TemporaryDirectory(prefix="minirag-scan-bench-") as tmp:
        root = Path(tmp)
        build_tree(root, args.files)
        config = load_config({"BASE_DIR": str(root)})
        rows = [
            ("minirag scan (no OCR probe)", lambda: len(scan(config, ocr=False).files)),
            ("minirag scan (OCR probed)", lambda: len(scan(config).files)),
            ("bare os.walk + os.stat", lambda: bare_walk(root)),
        ]
        print(f"| walk ({args.files:,} files) | files found | best ms | median ms |")
        print("|---|---:|---:|---:|")
        figures = []
        for label, fn in rows:
            found, best, median = timed(fn, args.repeat)
            print(f"| {label} | {found:,} | {best:.0f} | {median:.0f} |")
            figures.append({"walk": label, "files_found": found, "best_ms": round(best, 1),
                            "median_ms": round(median, 1)})  # fmt: skip
    write_json(RESULTS, {"files": args.files, "rows": figures}, meta)
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
