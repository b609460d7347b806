"""Sync speed against raw embedding speed, memory, and the no-op re-sync.

Three corpora, each synced into a fresh index with the offline test model:

* ``scifact``: BEIR SciFact written out as one ``.md`` per document (``# title`` + abstract);
* ``mixed``: markitdown's test files plus ``russian_docs`` (PDF, DOCX, PPTX, XLSX, HTML,
  EPUB, CSV, notebooks; the scanned PDFs are left out, OCR has its own bench);
* ``noop``: 10,000 tiny files synced once (vectors faked: they play no part here), then
  re-synced unchanged, which is the number that matters (target: <= 1 s).

Each real corpus's sync is timed whole, as a user runs it (scan, read, hash, convert,
chunk, embed, write). The same chunk texts are then embedded alone, twice: (a) by plain
fastembed at its defaults (``TextEmbedding`` over the same offline model,
``passage_embed`` with batch 256) and (b) by the product's own tuned embedder
(``embed_passages``: length-sorted batches on its own onnxruntime session). Each ratio is
sync over embedding alone, in wall time and in CPU (this process + its parse workers);
1.00 means the sync costs no more than embedding its chunks. Figures go to
``bench/results/ingest.json``.

    uv run python bench/ingest.py [--limit 5183] [--noop-files 10000] [--skip-mixed]
    uv run python bench/ingest.py --ray --limit 300    # local vs Ray: bench/ingest_ray.py
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from procmem import ChildPeaks, status_mb
from results_io import provenance, write_json

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
MIXED_EXT = {".md", ".markdown", ".txt", ".pdf", ".docx", ".pptx", ".xlsx", ".html", ".htm",
             ".csv", ".epub", ".ipynb"}  # fmt: skip
RESULTS = Path(__file__).resolve().parent / "results" / "ingest.json"
SCANNED = {"MEDRPT-2024-PAT-3847_medical_report_scan.pdf", "avtoreferat_scan_p1-2.pdf"}


@dataclass
class Row:
    """One corpus: the whole sync beside embedding the same chunks alone, two ways."""

    corpus: str
    files: int
    chunks: int
    failed: int
    sync_s: float
    sync_cpu_s: float
    plain_s: float  # plain fastembed, its defaults
    plain_cpu_s: float
    tuned_s: float  # the product's own embedder (length-sorted batches, its own session)
    tuned_cpu_s: float
    embed_share: float  # time inside the embedder / sync wall time, during the sync
    main_mb: float
    worker_mb: float

    def figures(self) -> dict:
        """The row as JSON figures, the ratios included (sync over embedding alone)."""
        per_chunk = 1000 / max(1, self.chunks)
        return {
            "files": self.files,
            "chunks": self.chunks,
            "failed": self.failed,
            "sync_s": round(self.sync_s, 2),
            "sync_cpu_ms_per_chunk": round(self.sync_cpu_s * per_chunk, 2),
            "plain_fastembed_s": round(self.plain_s, 2),
            "plain_fastembed_cpu_ms_per_chunk": round(self.plain_cpu_s * per_chunk, 2),
            "tuned_embedder_s": round(self.tuned_s, 2),
            "tuned_embedder_cpu_ms_per_chunk": round(self.tuned_cpu_s * per_chunk, 2),
            "sync_over_plain_fastembed": {
                "wall": round(self.sync_s / self.plain_s, 3),
                "cpu": round(self.sync_cpu_s / self.plain_cpu_s, 3),
            },
            "sync_over_tuned_embedder": {
                "wall": round(self.sync_s / self.tuned_s, 3),
                "cpu": round(self.sync_cpu_s / self.tuned_cpu_s, 3),
            },
            "embed_share_of_sync": round(self.embed_share, 3),
            "main_peak_mb": round(self.main_mb),
            "worker_peak_mb": round(self.worker_mb),
        }

    def line(self) -> str:
        """The row formatted for the table."""
        f = self.figures()
        plain, tuned = f["sync_over_plain_fastembed"], f["sync_over_tuned_embedder"]
        return (
            f"| {self.corpus} | {self.files} | {self.chunks} | {self.sync_s:.1f} | "
            f"{f['sync_cpu_ms_per_chunk']:.1f} | {self.plain_s:.1f} | "
            f"{f['plain_fastembed_cpu_ms_per_chunk']:.1f} | {self.tuned_s:.1f} | "
            f"{f['tuned_embedder_cpu_ms_per_chunk']:.1f} | "
            f"{plain['wall']:.2f} / {plain['cpu']:.2f} | "
            f"{tuned['wall']:.2f} / {tuned['cpu']:.2f} | "
            f"{self.embed_share:.2f} | {self.main_mb:.0f} | {self.worker_mb:.0f} | {self.failed} |"
        )


def _cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _reset_peak() -> None:
    """Reset this process's peak RSS (Linux: writing 5 to clear_refs), so each phase is its own."""
    # Not Linux, or not permitted: the peak then covers the run so far.
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")


def _env(root: Path, db: Path) -> dict[str, str]:
    from minirag_testkit import MODEL_NAME, model_dir

    return {
        "MODEL_NAME": MODEL_NAME,
        "MODEL_PATH": str(model_dir()),
        "BASE_DIR": str(root),
        "DB_PATH": str(db),
    }


def write_scifact(root: Path, limit: int) -> int:
    """One markdown file per SciFact document; returns how many were written."""
    count = 0
    with (DATA / "beir_scifact" / "corpus.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            if count >= limit:
                break
            doc = json.loads(line)
            folder = root / f"batch{count // 500:02d}"
            folder.mkdir(exist_ok=True)
            text = f"# {doc['title']}\n\n{doc['text']}\n"
            (folder / f"{doc['_id']}.md").write_text(text, encoding="utf-8")
            count += 1
    return count


def copy_mixed(root: Path) -> int:
    """markitdown test files + russian_docs (scans excluded); returns the file count."""
    count = 0
    sources = [DATA / "markitdown_test_files" / "test_files", DATA / "russian_docs"]
    for base in sources:
        for path in sorted(base.rglob("*")):
            if path.is_file() and path.suffix.lower() in MIXED_EXT and path.name not in SCANNED:
                target = root / base.name / path.relative_to(base)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, target)
                count += 1
    return count


def chunk_texts(db: Path) -> list[str]:
    """Every chunk text the sync embedded, read back from the table."""
    import lancedb

    table = lancedb.connect(str(db)).open_table("chunks")
    rows = table.search().select(["text"]).limit(table.count_rows()).to_arrow()
    return rows.column("text").to_pylist()


def _timed(embed, texts: list[str]) -> tuple[float, float]:
    """(wall s, CPU s) of ``embed(texts)`` after a warm-up call on the first 32 texts."""
    embed(texts[:32])  # first-call allocations and thread start-up are not per chunk
    cpu0, started = _cpu_seconds(), time.perf_counter()
    embed(texts)
    return time.perf_counter() - started, _cpu_seconds() - cpu0


def plain_fastembed(texts: list[str]) -> tuple[float, float]:
    """The same chunks through plain fastembed at its defaults (wall s, CPU s).

    ``TextEmbedding`` over the offline model folder (``specific_model_path``: Hugging Face
    is unreachable here), ``passage_embed`` with its default batch size (256) and
    threads, the texts in table order: what a user would write with fastembed alone.
    """
    from fastembed import TextEmbedding
    from minirag_testkit import MODEL_NAME, model_dir

    model = TextEmbedding(MODEL_NAME, specific_model_path=str(model_dir()))
    return _timed(lambda batch: list(model.passage_embed(batch)), texts)


def tuned_embedder(index_env: dict[str, str], texts: list[str]) -> tuple[float, float]:
    """The same chunks through the product's own embedder, fresh (wall s, CPU s).

    ``Index.embedder().embed_passages`` with every text at once: it sorts by length and
    batches (less padding) on its own onnxruntime session, the best the sync could do.
    """
    from minirag_store import Index

    index = Index.open(index_env)
    try:
        embedder = index.embedder()
        return _timed(embedder.embed_passages, texts)
    finally:
        index.close()


def bench_corpus(name: str, root: Path, db: Path) -> Row:
    """Sync ``root`` into a fresh index at ``db``, then embed its chunks alone, two ways.

    The sync is timed whole, as a user runs it: scan, read, hash, convert, chunk, embed,
    write (model load excluded, as it is from the embedding-alone runs).
    """
    from minirag_store import Index

    env = _env(root, db)
    index = Index.open(env)
    embedder = index.embedder()  # model load is not part of the sync being timed
    real_embed, embed_seconds = embedder.embed_passages, [0.0]

    def timed_embed(texts):  # same call, timed: the sync's own embedding share
        started = time.perf_counter()
        try:
            return real_embed(texts)
        finally:
            embed_seconds[0] += time.perf_counter() - started

    embedder.embed_passages = timed_embed
    _reset_peak()
    sampler = ChildPeaks(every=0.2)
    sampler.start()
    cpu0, t0 = _cpu_seconds(), time.perf_counter()
    result = index.sync()
    seconds = time.perf_counter() - t0
    cpu = _cpu_seconds() - cpu0  # parse workers included: the pool is reaped by now
    main_mb, worker_mb = status_mb(), max(sampler.stop().values(), default=0.0)
    texts = chunk_texts(db)
    index.close()
    plain = plain_fastembed(texts)
    tuned = tuned_embedder(env, texts)
    for error in result["errors"]:
        print(f"  {name}: {error['source']}: {error['error'][:160]}")
    counts = result["counts"]
    return Row(name, counts["ingested"], len(texts), counts["failed"], seconds, cpu, *plain,
               *tuned, embed_seconds[0] / seconds, main_mb, worker_mb)  # fmt: skip


def bench_noop(files: int, work: Path) -> tuple[float, float, float]:
    """(first sync s with fake vectors, no-op re-sync s, best of 3 no-op re-syncs)."""
    import numpy as np
    from minirag_store import Index

    root = work / "noop"
    for i in range(files):
        folder = root / f"d{i // 100:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"n{i:05d}.md").write_text(f"Note {i}.", encoding="utf-8")
    index = Index.open(_env(root, work / "noop-db"))
    embedder = index.embedder()

    def fake(texts):  # vectors play no part in a no-op re-sync
        vectors = np.zeros((len(texts), embedder.dim), dtype=np.float32)
        vectors[:, 0] = 1.0
        return vectors

    embedder.embed_passages = fake
    t0 = time.perf_counter()
    first = index.sync()
    initial = time.perf_counter() - t0
    assert first["counts"]["ingested"] == files, first["counts"]
    runs = []
    for _ in range(3):
        t0 = time.perf_counter()
        again = index.sync()
        runs.append(time.perf_counter() - t0)
        assert again["counts"]["skipped"] == files, again["counts"]
    index.close()
    return initial, runs[0], min(runs)


def main() -> None:
    """Run the corpora asked for, print one table and write bench/results/ingest.json."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=5183, help="SciFact documents to write")
    parser.add_argument("--noop-files", type=int, default=10_000)
    parser.add_argument("--skip-mixed", action="store_true")
    parser.add_argument("--json", type=Path, default=RESULTS, help="where the figures go")
    ray_help = "local vs Ray sync instead (bench/ingest_ray.py; --limit documents)"
    parser.add_argument("--ray", action="store_true", help=ray_help)
    args = parser.parse_args()
    if args.ray:
        from ingest_ray import main as ray_main

        ray_main(args.limit)
        return

    meta = provenance()
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="minirag-bench-") as tmp:
        work = Path(tmp)
        sci = work / "scifact"
        sci.mkdir()
        write_scifact(sci, args.limit)
        rows.append(bench_corpus("scifact", sci, work / "scifact-db"))
        if not args.skip_mixed:
            mixed = work / "mixed"
            mixed.mkdir()
            copy_mixed(mixed)
            rows.append(bench_corpus("mixed", mixed, work / "mixed-db"))
        noop = bench_noop(args.noop_files, work) if args.noop_files else None

    print(f"cores: {os.cpu_count()}, load average: {os.getloadavg()[0]:.1f} (shared machine)")
    print("| corpus | files | chunks | sync s | sync CPU ms/chunk | plain fastembed s "
          "| plain CPU ms/chunk | tuned embedder s | tuned CPU ms/chunk "
          "| sync / plain fastembed (wall / CPU) | sync / tuned embedder (wall / CPU) "
          "| embed share | main MB | worker MB | failed |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        print(row.line())
    print("sync = the whole `sync` (scan, read, hash, convert, chunk, embed, write), wall s and")
    print("CPU (this process + parse workers); plain fastembed = TextEmbedding over the same")
    print("model, passage_embed at its defaults, the same chunk texts; tuned embedder = the")
    print("product's own embed_passages on them. A ratio is sync over embedding alone (1.00 =")
    print("the sync costs no more than embedding its chunks). embed share = time inside the")
    print("embedder / sync wall time. main / worker MB: peak RSS during the sync.")
    figures: dict = {"corpora": {row.corpus: row.figures() for row in rows}}
    if noop is not None:
        initial, first, best = noop
        print(
            f"no-op re-sync of {args.noop_files} unchanged files: {first:.2f} s "
            f"(best of 3: {best:.2f} s; target <= 1 s). "
            f"Initial sync with faked vectors: {initial:.1f} s"
        )
        figures["noop"] = {"files": args.noop_files, "first_resync_s": round(first, 3),
                           "best_of_3_resync_s": round(best, 3),
                           "initial_sync_fake_vectors_s": round(initial, 1)}  # fmt: skip
    write_json(args.json, figures, meta)
    print(f"figures: {args.json}")


if __name__ == "__main__":
    main()
