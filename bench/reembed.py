"""What re-ingesting costs when most chunks did not change: an old index brought up to date.

``/work/scifact`` holds SciFact (5,183 ``.md`` files, ~25k chunks) indexed by an older
release: no ``locator`` column, so the first sync of current code re-reads every file. Code
that embeds every chunk of a re-read file (``main`` before this change) pays the whole
corpus's embedding again; code that keeps the stored vector of each chunk whose embedding
input is unchanged (:mod:`minirag_store.index.embed.embed_inputs`) embeds only what changed.

Each variant syncs its own copy of that index (the copy's ``source`` column rewritten to
the copy's folder through LanceDB's ``update``; nothing else touched) in a fresh process
running that variant's code, so both start from the same rows:

* ``before``: a Python whose ``minirag_store`` is the code before the change (``--before``,
  e.g. the main checkout's ``.venv/bin/python``); ``after``: this checkout's.
* Per run: wall seconds, CPU seconds (the sync process plus its parse workers), files
  re-read and chunks the model embedded (a counting subclass of the real ``Embedder``).
* Then both results are compared: each chunk's vector (the ``before`` run embedded every
  chunk afresh, so a kept vector that differs from it would show a wrong key) and the
  top-10 hits of 50 SciFact queries.

    uv run python bench/reembed.py --before /work/main/.venv/bin/python [--limit 5183]
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from minirag_testkit.answers import hit_sources
from results_io import provenance, write_json

SCIFACT = Path("/work/scifact")
QUERIES = Path(__file__).resolve().parents[2] / "shared" / "data" / "beir_scifact" / "queries.jsonl"
RESULTS = Path(__file__).resolve().parent / "results" / "reembed.json"


def _env(copy: Path) -> dict[str, str]:
    from minirag_testkit import MODEL_NAME, model_dir

    return {"MODEL_NAME": MODEL_NAME, "MODEL_PATH": str(model_dir()),
            "BASE_DIR": str(copy / "docs"), "DB_PATH": str(copy / "db")}  # fmt: skip


def _table(db: Path):
    from datetime import timedelta

    import lancedb

    return lancedb.connect(str(db), read_consistency_interval=timedelta(0)).open_table("chunks")


def prepare(copy: Path, limit: int) -> int:
    """A copy of the old index and of the first ``limit`` files, its sources renamed to the
    copy's folder (rows of the other files removed); returns the chunks it holds."""
    from minirag_store.index.storage.schema import in_sources, sql_str

    names = sorted(p.name for p in (SCIFACT / "docs").iterdir())[:limit]
    (copy / "docs").mkdir(parents=True)
    for name in names:
        shutil.copy2(SCIFACT / "docs" / name, copy / "docs" / name)
    shutil.copytree(SCIFACT / "db", copy / "db")
    (copy / "db" / "index-summary.json").unlink(missing_ok=True)  # describes the original
    old, new = f"{SCIFACT}/docs/", f"{copy.resolve()}/docs/"
    table = _table(copy / "db")
    table.update(values_sql={"source": f"replace(source, {sql_str(old)}, {sql_str(new)})"})
    kept = [f"{new}{name}" for name in names]
    if limit < len(list((SCIFACT / "docs").iterdir())):
        table.delete(f"NOT ({in_sources(kept)})")
    return table.count_rows()


def child(copy: Path) -> dict:
    """One sync of ``copy`` in this process, with whatever ``minirag_store`` it imports."""
    from minirag_store import Index
    from minirag_store.config import load_config
    from minirag_store.index.embed.embedding import Embedder

    class Counting(Embedder):
        chunks = 0

        def embed_passages(self, texts):
            Counting.chunks += len(texts)
            return super().embed_passages(texts)

    config = load_config(_env(copy))
    index = Index(config, embedder=Counting.from_config(config))
    index.table()  # opening the table is not the sync's cost
    wall, cpu = time.perf_counter(), time.process_time()
    job = index.sync()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    workers = resource.getrusage(resource.RUSAGE_CHILDREN)
    index.close()
    return {
        "files_reread": job["counts"]["ingested"],
        "failed": job["counts"]["failed"],
        "chunks_embedded": Counting.chunks,
        "sync_wall_s": round(wall, 1),
        "sync_cpu_s": round(cpu + workers.ru_utime + workers.ru_stime, 1),
    }


def run(python: str, copy: Path) -> dict:
    """:func:`child` of ``copy`` in a fresh ``python`` process."""
    args = ["nice", "-n", "5", python, __file__, "--child", str(copy)]
    out = subprocess.run(args, check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def vectors(copy: Path) -> dict[tuple[str, int], bytes]:
    """(file name, chunk index) → the stored float16 vector's bytes."""
    import numpy as np

    data = _table(copy / "db").to_arrow().select(["source", "chunk_index", "vector"])
    flat = data.column("vector").combine_chunks().flatten().to_numpy(zero_copy_only=False)
    matrix = np.asarray(flat).reshape(data.num_rows, -1)
    keys = zip(
        data.column("source").to_pylist(), data.column("chunk_index").to_pylist(), strict=True
    )
    return {(Path(s).name, i): matrix[n].tobytes() for n, (s, i) in enumerate(keys)}


def compare(before: Path, after: Path, queries: int) -> dict:
    """Vectors and top-10 hits of the two synced copies."""
    import numpy as np
    from minirag_store import Index
    from minirag_store.config import load_config
    from minirag_store.index.embed.embedding import Embedder

    a, b = vectors(before), vectors(after)
    same = sum(a[k] == b.get(k) for k in a)
    gaps = [
        1 - float(np.dot(np.frombuffer(a[k], np.float16), np.frombuffer(b[k], np.float16)))
        for k in a
        if k in b and a[k] != b[k]
    ]
    texts = [json.loads(line)["text"] for line in QUERIES.open(encoding="utf-8")][:queries]
    embedder = Embedder.from_config(load_config(_env(before)))
    tops = []
    for copy in (before, after):
        index = Index(load_config(_env(copy)), embedder=embedder)
        answers = [index.query(q, top_k=10) for q in texts]
        tops.append(
            [
                [
                    (Path(s).name, h["chunkIndex"])
                    for s, h in zip(hit_sources(a), a["results"], strict=True)
                ]
                for a in answers
            ]
        )
        index.close()
    return {
        "chunks_before": len(a),
        "chunks_after": len(b),
        "vectors_bit_identical": same,
        "max_cosine_gap_of_the_rest": round(max(gaps), 6) if gaps else 0.0,
        "queries": len(texts),
        "queries_same_top10": sum(x == y for x, y in zip(*tops, strict=True)),
    }


def _code_of(python: str) -> str:
    """Which commit ``python``'s ``minirag_store`` comes from (``+dirty``: uncommitted edits)."""
    where = subprocess.run(
        [python, "-c", "import minirag_store, os; print(os.path.dirname(minirag_store.__file__))"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip

    def git(*argv: str) -> str:
        command = ["git", "-C", where, *argv]
        out = subprocess.run(command, check=False, capture_output=True, text=True)
        return out.stdout.strip()

    dirty = "+dirty" if git("status", "--porcelain", "--untracked-files=no") else ""
    return f"{git('rev-parse', '--short', 'HEAD')}{dirty} ({where})"


def main() -> None:
    """Prepare two copies, sync one with each variant, compare, print and write JSON."""
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        print(json.dumps(child(Path(sys.argv[2]))))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="a Python running the code before")
    parser.add_argument("--limit", type=int, default=5183, help="SciFact files (all: 5183)")
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--json", type=Path, default=RESULTS)
    args = parser.parse_args()
    meta = provenance()
    before_code = _code_of(args.before)
    with tempfile.TemporaryDirectory(prefix="minirag-reembed-") as tmp:
        copies = {name: Path(tmp) / name for name in ("before", "after")}
        chunks = {name: prepare(copy, args.limit) for name, copy in copies.items()}
        runs = {
            "before": run(args.before, copies["before"]),
            "after": run(sys.executable, copies["after"]),
        }
        for name, figures in runs.items():
            figures["chunks_in_old_index"] = chunks[name]
            print(f"{name}: {figures}", flush=True)
        checks = compare(copies["before"], copies["after"], args.queries)
    saved = 1 - runs["after"]["sync_cpu_s"] / runs["before"]["sync_cpu_s"]
    print("| run | files re-read | chunks embedded | sync wall s | sync CPU s |")
    print("|---|---:|---:|---:|---:|")
    for name, f in runs.items():
        print(f"| {name} | {f['files_reread']} | {f['chunks_embedded']} | {f['sync_wall_s']} "
              f"| {f['sync_cpu_s']} |")  # fmt: skip
    print(f"CPU saved: {saved:.0%}; {checks}")
    figures = {
        "what": "first sync of current code over SciFact indexed before locators",
        "before_code": before_code,
        "files": args.limit,
        "runs": runs,
        "cpu_saved": round(saved, 3),
        "checks": checks,
    }
    write_json(args.json, figures, meta)
    print(f"figures: {args.json}")


if __name__ == "__main__":
    main()
