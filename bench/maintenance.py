"""What one maintenance costs as a table grows: the price a watcher or server pays per batch.

Why: ``ChunkTable.maintain()`` runs after every sync and every
``SMALL_WRITES_PER_MAINTENANCE`` single-file writes, so a watcher on a large index pays it
for each saved file. Compaction and the index update are its bulk (``upkeep.compact``): if
they cost in proportion to the whole table rather than to the rows just written, a large
index makes every small change slow and memory-hungry.

One process (as a server is) opens a table of ``--base`` real chunks (the cached base of
``bench/scale.py``: SciFact and NFCorpus chunks through the product's writer), then per
round appends ``--step`` rows (copies of the base under new sources and ids, in commits of
2,000 rows as a sync makes them) and runs ``ChunkTable.maintain()``. Per round: rows,
maintenance seconds, the process's peak RSS during it and its RSS after (the kernel's
high-water mark, reset per phase: ``procmem.Phases``). The ANN index stays off
(``RAG_ANN_MIN_CHUNKS`` above every size) so the figures are the keyword and scalar
indexes' and the compaction's alone.

    uv run python bench/maintenance.py [--rounds 8] [--step 25000] [--cache DIR]
                                       [--before JSON]

``--before``: this bench's JSON from before a change; its rounds go beside these, with
the ratios after / before.

Writes bench/results/maintenance.json beside the table it prints.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path

from procmem import Phases
from results_io import provenance, write_json

RESULTS = Path(__file__).resolve().parent / "results" / "maintenance.json"
COMMIT_ROWS = 2_000


def _copies(base, round_no: int):
    """``base`` (an Arrow table of stored rows) under new ids, sources and sections."""
    import pyarrow as pa
    import pyarrow.compute as pc

    data = base
    suffix = pa.scalar(f"~{round_no}")
    for column in ("id", "source", "parent_id"):
        i = data.schema.get_field_index(column)
        renamed = pc.binary_join_element_wise(data.column(column), suffix, "")
        data = data.set_column(i, data.schema.field(i), renamed)
    return data


def grow(table, base, rows: int, first_round: int) -> None:
    """Append ``rows`` copies of ``base`` (copy numbers from ``first_round`` on) straight
    to the LanceDB ``table``, in commits of :data:`COMMIT_ROWS` as a sync makes them."""
    import pyarrow as pa

    copies = -(-rows // base.num_rows)
    data = pa.concat_tables([_copies(base, first_round + k) for k in range(copies)])
    data = data.slice(0, rows)
    for start in range(0, rows, COMMIT_ROWS):
        table.add(data.slice(start, COMMIT_ROWS))


def measure(rounds: int, step: int, cache: Path) -> list[dict]:
    """Grow a copy of the base table ``rounds`` times by ``step`` rows, maintaining after each."""
    import scale
    from minirag_store.index.search.ann import AnnSettings
    from minirag_store.index.table import ChunkTable

    scale.base_rows(1000, cache)  # builds the cached base index on first use
    work = Path(tempfile.mkdtemp(prefix="maintenance-", dir=cache))
    try:
        db = work / "db"
        shutil.copytree(cache / "base-1000" / "db", db)
        off = AnnSettings(min_chunks=1 << 40)
        table = ChunkTable.open_existing(db, scale._model_id(), ann=off)
        assert table is not None
        lance_table = table._tbl  # appends go straight to LanceDB, as scale.py writes
        base = lance_table.to_arrow()
        phases = Phases("open")
        table.maintain()
        out = []
        for n in range(1, rounds + 1):
            phases.enter("write")
            grow(lance_table, base, step, n * 1000)
            phases.enter("maintain")
            started = time.perf_counter()
            table.maintain()
            seconds = time.perf_counter() - started
            phases.enter("idle")
            row = {
                "rows": lance_table.count_rows(),
                "maintain_s": round(seconds, 1),
                "maintain_peak_mb": round(phases.peaks["maintain"]),
                "rss_after_mb": round(phases.rss_after["maintain"]),
            }
            phases.peaks.pop("maintain")  # Phases keeps a phase's largest peak: one a round
            out.append(row)
            print(row, flush=True)
        return out
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--step", type=int, default=25_000, help="rows added per round")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "minirag-scale")
    parser.add_argument("--before", type=Path, help="this bench's JSON from before a change")
    args = parser.parse_args()
    meta = provenance()
    args.cache.mkdir(parents=True, exist_ok=True)
    rows = measure(args.rounds, args.step, args.cache)
    print("\n| rows | maintain s | peak RSS MB | RSS after MB |\n|---:|---:|---:|---:|")
    for r in rows:
        cells = (r["rows"], r["maintain_s"], r["maintain_peak_mb"], r["rss_after_mb"])
        print("| " + " | ".join(str(c) for c in cells) + " |")
    first, last = rows[0], rows[-1]
    figures = {
        "bench": "maintenance",
        "step_rows": args.step,
        "rounds": rows,
        "seconds_last_over_first": round(last["maintain_s"] / max(first["maintain_s"], 0.1), 2),
        "peak_last_over_first": round(last["maintain_peak_mb"] / first["maintain_peak_mb"], 2),
    }
    if args.before:
        figures["before"] = json.loads(args.before.read_text())
        figures["after_vs_before"] = _compare(figures["before"]["rounds"], rows)
    write_json(RESULTS, figures, meta)


def _compare(before: list[dict], after: list[dict]) -> list[dict]:
    """Per round of the same size: after / before of each figure, printed and returned."""
    keys = ("maintain_s", "maintain_peak_mb", "rss_after_mb")
    print("\n| rows | " + " | ".join(f"{k} before / after" for k in keys) + " |")
    print("|---:|" + "---:|" * len(keys))
    out = []
    for old, new in zip(before, after, strict=False):
        if old["rows"] != new["rows"]:
            continue
        ratios = {k: round(new[k] / old[k], 3) for k in keys if old[k]}
        out.append({"rows": new["rows"], **ratios})
        cells = " | ".join(f"{old[k]} / {new[k]}" for k in keys)
        print(f"| {new['rows']} | {cells} |")
    return out


if __name__ == "__main__":
    main()
