"""What Lance's full-text index costs in memory to build or to update, against its rows.

Why: a sync's peak RSS grows with the corpus (``bench/sync_memory.py``: x10 the corpus,
~1.5x the peak) and the growth is the keyword index's maintenance. A maintenance folds
new rows into the index either as a segment of their own or merged with the newest
segments (``upkeep.segments_to_merge``); if the memory a merge or a build takes grows
with the rows it covers, no policy bounds a sync's peak without leaving more segments,
and every segment costs each keyword query (``upkeep.SEGMENT_ROWS``' comment).

For each size, a table of real chunks (copies of ``bench/scale.py``'s cached base under
new ids and sources, as ``bench/maintenance.py`` makes them) and, each in a fresh process
(the kernel's high-water mark reset just before the one call measured):

* ``new segment``: 25,000 new rows indexed as a segment of their own (what a maintenance
  that merges nothing costs: ``optimize_indices(num_indices_to_merge=0)``);
* ``merge``: the same 25,000 rows merged with the one segment that covers the rest
  (``num_indices_to_merge=1``);
* ``fresh build``: the whole index built anew over every row (the store's full-text
  configuration, ``upkeep.create_indexes``).

``merge`` also runs under other ``LANCE_FTS_PARTITION_SIZE`` values (the store sets 64
MiB, :mod:`minirag_store.index.storage.native`), which bound how much a build holds before it
spills a part.

    uv run python bench/fts_memory.py [--sizes 35000,110000,210000] [--cache DIR]

Writes bench/results/fts_memory.json beside the table it prints.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from procmem import status_mb
from results_io import provenance, write_json

RESULTS = Path(__file__).resolve().parent / "results" / "fts_memory.json"
NEW_ROWS = 25_000
OPERATIONS = ("new segment", "merge", "fresh build")
#: Part sizes (MiB) the merge is also measured with, at the middle size.
PARTITION_SIZES = ("8", "2048")


def fixture(size: int, cache: Path, work: Path) -> Path:
    """A table of ``size`` rows whose keyword index is one segment over all but the last
    :data:`NEW_ROWS` (which are not indexed yet)."""
    import lancedb
    import scale
    from maintenance import grow
    from minirag_store.index.storage import upkeep

    scale.base_rows(1000, cache)  # builds the cached base index on first use
    db = work / f"db-{size}"
    shutil.copytree(cache / "base-1000" / "db", db)
    table = lancedb.connect(db).open_table("chunks")
    base = table.to_arrow()
    grow(table, base, size - NEW_ROWS - base.num_rows, 1_000)
    table.drop_index("keywords_idx")
    upkeep.create_indexes(table, ["keywords"])  # one segment over the rows so far
    grow(table, base, NEW_ROWS, 9_000)
    return db


def child(db: Path, operation: str) -> dict:
    """Run ``operation`` on a copy of ``db`` in this process; its peak RSS increase."""
    from minirag_store.index.storage import upkeep
    from minirag_store.index.storage.native import import_lancedb, release_free_memory
    from minirag_store.process import configure

    configure()  # the shells' native settings, as a sync runs
    lancedb = import_lancedb()
    work = Path(tempfile.mkdtemp(prefix="fts-memory-"))
    try:
        shutil.copytree(db, work / "db")
        table = lancedb.connect(work / "db").open_table("chunks")
        dataset = table.to_lance()
        dataset.stats.index_stats("keywords_idx")  # pylance's first use before the mark
        release_free_memory()
        before = status_mb("self", "VmRSS")
        Path("/proc/self/clear_refs").write_text("5")  # reset the high-water mark
        started = time.perf_counter()
        if operation == "fresh build":
            table.drop_index("keywords_idx")
            upkeep.create_indexes(table, ["keywords"])
        else:
            merge = 1 if operation == "merge" else 0
            dataset.optimize.optimize_indices(
                index_names=["keywords_idx"], num_indices_to_merge=merge
            )
        seconds = time.perf_counter() - started
        peak = status_mb("self", "VmHWM") - before
        segments = table.to_lance().stats.index_stats("keywords_idx")
        return {
            "peak_increase_mb": round(peak),
            "seconds": round(seconds, 1),
            "segments": segments["num_indexed_rows_per_delta"],
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _run(db: Path, operation: str, partition_mb: str | None = None) -> dict:
    env = dict(os.environ)
    if partition_mb is not None:
        env["LANCE_FTS_PARTITION_SIZE"] = partition_mb
    args = [sys.executable, __file__, "--child", str(db), operation]
    out = subprocess.run(args, check=True, capture_output=True, text=True, env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    """Build the fixtures, measure each operation in a fresh process, print and save."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="35000,110000,210000")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "minirag-scale")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(Path(args.child[0]), args.child[1])))
        return
    meta = provenance()
    sizes = [int(s) for s in args.sizes.split(",")]
    work = Path(tempfile.mkdtemp(prefix="fts-memory-", dir=args.cache))
    figures: dict = {"new_rows": NEW_ROWS, "sizes": {}, "merge_by_partition_mib": {}}
    try:
        for size in sizes:
            db = fixture(size, args.cache, work)
            figures["sizes"][str(size)] = {op: _run(db, op) for op in OPERATIONS}
            if size == sizes[len(sizes) // 2]:
                figures["merge_by_partition_mib"] = {
                    "size": size,
                    **{mib: _run(db, "merge", mib) for mib in PARTITION_SIZES},
                    "64": figures["sizes"][str(size)]["merge"],
                }
            shutil.rmtree(db)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"\nPeak RSS increase (MB) of one keyword-index operation; {NEW_ROWS:,} new rows\n")
    print("| rows in the table | " + " | ".join(OPERATIONS) + " |")
    print("|---:|" + "---:|" * len(OPERATIONS))
    for size, row in figures["sizes"].items():
        cells = [f"{row[op]['peak_increase_mb']} ({row[op]['seconds']} s)" for op in OPERATIONS]
        print(f"| {int(size):,} | " + " | ".join(cells) + " |")
    parts = figures["merge_by_partition_mib"]
    if parts:
        print(f"\nmerge at {parts['size']:,} rows by LANCE_FTS_PARTITION_SIZE (MiB):", end="")
        for mib in ("8", "64", "2048"):
            print(f" {mib}: +{parts[mib]['peak_increase_mb']} MB", end="")
        print()
    write_json(RESULTS, figures, meta)
    print(f"figures: {RESULTS}")


if __name__ == "__main__":
    main()
