"""Peak RSS of one commit of a sync (LanceDB ``merge_insert``) against the rows already stored.

Why: a sync's RSS climbs with the corpus while it ingests (``bench/sync_memory.py``'s
timeline), and ``tracemalloc`` sees none of it. Each commit replaces some sources as
:meth:`~minirag_store.index.table.ChunkTable.replace_sources` does: ``merge_insert`` on
``id`` with ``when_not_matched_by_source_delete(source IN (...))``. This measures one
such commit of 40 rows (8 sources) at growing table sizes, in five ways:

* ``by-source delete``: as the store commits (the old chunks of a source go in the same
  commit, so a reader never sees a source half replaced);
* ``by-source delete, indexes current``: the same after ``optimize()`` folded every row into
  the BTREE indexes on ``id`` and ``source``;
* ``no delete``: without the by-source clause (not what the store can do: a source whose
  new version has fewer chunks would keep stale ones), to show where the growth comes from;
* ``insert only``: ``when_not_matched_insert_all`` alone (still a join on ``id``);
* ``append``: ``Table.add``, what the store does for sources with no rows yet
  (:mod:`minirag_store.index.storage.commits`).

Those five add sources the table does not hold. A re-sync replaces stored ones (40 rows of
8 sources from the middle of the table), in two ways:

* ``stored: merge``: the by-source delete merge (the store's commit until it swapped);
* ``stored: swap through fragments``: what the store does: the rows written as a fragment,
  one ``Update`` commit with deletion vectors on the fragments holding the old rows
  (:func:`~minirag_store.index.storage.fragments.commit_replace`). The first commit of the
  process also pays pylance's first use (its code mapped in, ~80 MB): the 10k figure.

The table has ``id`` as its unenforced primary key, as the store's does.

The peak is the kernel's high-water mark, reset before each commit (``procmem.Phases``'
method): native memory included.

    uv run python bench/merge_memory.py
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from procmem import status_mb
from results_io import provenance, write_json

RESULTS = Path(__file__).resolve().parent / "results" / "merge_memory.json"
SIZES = (10_000, 50_000, 100_000, 200_000)
MODES = (
    "by-source delete",
    "by-source delete, indexes current",
    "no delete",
    "insert only",
    "append",
    "stored: merge",
    "stored: swap through fragments",
)


def _rows(start: int, n: int, rng):
    """``n`` chunk-like rows (5 a source, ~540 chars of text, a 384-dim float16 vector)."""
    import numpy as np
    import pyarrow as pa

    ids = range(start, start + n)
    vectors = rng.standard_normal(n * 384).astype(np.float16)
    return pa.table({
        "id": [f"s{i // 5}#{i % 5}" for i in ids],
        "source": [f"s{i // 5}" for i in ids],
        "text": ["lorem ipsum dolor sit amet " * 20] * n,
        "vector": pa.FixedSizeListArray.from_arrays(pa.array(vectors), 384),
    })  # fmt: skip


def measure(mode: str) -> dict[str, dict[str, float]]:
    """Peak RSS increase (MB) and seconds of one commit at each of :data:`SIZES`."""
    import lancedb
    import numpy as np
    from lancedb.index import BTree
    from minirag_store.index.storage.fragments import (
        commit_replace,
        fragments_from_json,
        write_fragments,
    )
    from minirag_store.index.storage.schema import in_sources
    from minirag_store.process import configure

    configure()  # as the shells run the store
    rng = np.random.default_rng(0)
    table = lancedb.connect(tempfile.mkdtemp()).create_table("t", _rows(0, 40, rng))
    table.alter_columns({"path": "id", "nullable": False})  # the store's primary key
    table.set_unenforced_primary_key("id")
    for column in ("id", "source"):
        table.create_index(column, config=BTree())
    total, out = 40, {}
    for size in SIZES:
        while total < size:
            table.add(_rows(total, 5000, rng).cast(table.schema))
            total += 5000
        if mode == MODES[1]:
            table.optimize()
        stored = mode.startswith("stored")
        first = (total // 2) // 5 * 5 if stored else total  # the middle of the table
        data = _rows(first, 40, rng).cast(table.schema)
        sources = sorted(set(data["source"].to_pylist()))
        scope = in_sources(sources)
        if mode == "insert only":
            merge = table.merge_insert("id").when_not_matched_insert_all()
        else:
            merge = table.merge_insert("id").when_matched_update_all().when_not_matched_insert_all()
        if mode in (*MODES[:2], "stored: merge"):
            merge = merge.when_not_matched_by_source_delete(scope)
        base = status_mb("self", "VmRSS")
        Path("/proc/self/clear_refs").write_text("5")
        started = time.perf_counter()
        if mode == "append":
            table.add(data)
        elif mode == "stored: swap through fragments":
            uri = table.to_lance().uri
            commit_replace(uri, {}, sources, fragments_from_json(write_fragments(uri, {}, data)))
            table.checkout_latest()
        else:
            merge.execute(data)
        out[str(size)] = {"peak_increase_mb": round(status_mb() - base),
                          "seconds": round(time.perf_counter() - started, 2)}  # fmt: skip
        assert table.count_rows(scope) == 40  # the sources hold exactly the new rows
        total += 0 if stored else 40
    return out


def main() -> None:
    """Each mode in a fresh process; print a table, write bench/results/merge_memory.json."""
    import json
    import subprocess

    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        print(json.dumps(measure(sys.argv[2])))
        return
    meta = provenance()
    figures: dict = {"rows_per_commit": 40, "modes": {}}
    for mode in MODES:
        args = [sys.executable, __file__, "--child", mode]
        out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
        figures["modes"][mode] = json.loads(out.strip().splitlines()[-1])
    print("| rows stored | " + " | ".join(f"{m}: peak +MB" for m in MODES) + " |")
    print("|---:|" + "---:|" * len(MODES))
    for size in SIZES:
        cells = [str(figures["modes"][m][str(size)]["peak_increase_mb"]) for m in MODES]
        print(f"| {size} | " + " | ".join(cells) + " |")
    write_json(RESULTS, figures, meta)
    print(f"figures: {RESULTS}")


if __name__ == "__main__":
    main()
