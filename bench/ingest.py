"""Sync speed against raw embedding speed, memory, and the no-op re-sync.

Three corpora, each synced into a fresh index with the offline test model:

* ``scifact``: BEIR SciFact written out as one ``.md`` per document (``# title`` + abstract);
* ``mixed``: markitdown's test files plus ``russian_docs`` (PDF, DOCX, PPTX, XLSX, HTML,
  EPUB, CSV, notebooks; the scanned PDFs are left out, OCR has its own bench);
* ``noop``: 10,000 tiny files synced once (vectors faked: they play no part here), then
  re-synced unchanged, which is the number that matters (target: <= 1 s).

For each real corpus the same chunk texts are then embedded alone, through the same
model, in batches of 32: ``ratio`` = sync chunks/s / raw embedding chunks/s (target >= 0.8
for many small files). CPU ms per chunk counts this process and its parse workers.

    uv run python bench/ingest.py [--limit 5183] [--noop-files 10000] [--skip-mixed] [--sorted]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
MIXED_EXT = {".md", ".markdown", ".txt", ".pdf", ".docx", ".pptx", ".xlsx", ".html", ".htm",
             ".csv", ".epub", ".ipynb"}  # fmt: skip
SCANNED = {"MEDRPT-2024-PAT-3847_medical_report_scan.pdf", "avtoreferat_scan_p1-2.pdf"}


@dataclass
class Row:
    """One line of the result table."""

    corpus: str
    files: int
    chunks: int
    seconds: float
    raw_chunks_per_s: float
    cpu_ms_per_chunk: float
    raw_cpu_ms_per_chunk: float
    failed: int
    main_mb: float = 0.0
    worker_mb: float = 0.0
    raw_sorted_per_s: float = 0.0
    embed_share: float = 0.0

    def line(self) -> str:
        """The row formatted for the table."""
        per_s = self.chunks / self.seconds if self.seconds else 0.0
        ratio = per_s / self.raw_chunks_per_s if self.raw_chunks_per_s else 0.0
        ratio_sorted = per_s / self.raw_sorted_per_s if self.raw_sorted_per_s else 0.0
        return (
            f"| {self.corpus:<8} | {self.files:>6} | {self.chunks:>6} | {self.seconds:>8.1f} | "
            f"{self.files / self.seconds:>7.1f} | {per_s:>8.1f} | {self.raw_chunks_per_s:>8.1f} | "
            f"{ratio:>5.2f} | {ratio_sorted:>6.2f} | {self.embed_share:>5.2f} | "
            f"{self.cpu_ms_per_chunk:>8.1f} | "
            f"{self.raw_cpu_ms_per_chunk:>8.1f} | {self.main_mb:>7.0f} | "
            f"{self.worker_mb:>9.0f} | {self.failed:>6} |"
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


def _hwm_mb(pid: str | int = "self") -> float:
    """Peak RSS (VmHWM) of a process in MB, 0 when it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


class WorkerPeak(threading.Thread):
    """Samples the peak RSS of this process's children (the parse workers) while alive.

    ``ru_maxrss`` of children is no use here: a spawned worker starts as a fork of this
    process, so its recorded peak includes the parent's memory from before its exec.
    """

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.peak = 0.0
        self._stop_event = threading.Event()

    def run(self) -> None:
        while not self._stop_event.wait(0.2):
            for children in Path("/proc/self/task").glob("*/children"):
                try:
                    pids = children.read_text().split()
                except OSError:
                    continue
                for pid in pids:
                    self.peak = max(self.peak, _hwm_mb(pid))

    def stop(self) -> float:
        """Stop sampling; the largest worker peak seen, in MB."""
        self._stop_event.set()
        self.join()
        return self.peak


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


def raw_throughput(texts: list[str], with_sorted: bool) -> tuple[float, float, float]:
    """Raw embedding of ``texts`` alone: (chunks/s, CPU ms/chunk, chunks/s length-sorted).

    The first figure is plain fastembed, batch 32, in table order: the baseline the
    target is defined against. The second run sorts by length first (less padding per
    batch), the best any caller could do with all texts in hand at once.
    """
    from fastembed import TextEmbedding
    from minirag_testkit import MODEL_NAME, model_dir

    model = TextEmbedding(MODEL_NAME, specific_model_path=str(model_dir()))
    list(model.passage_embed(texts[:32], batch_size=32))  # warm-up: first-call allocations
    cpu0, started = _cpu_seconds(), time.perf_counter()
    list(model.passage_embed(texts, batch_size=32))
    seconds, cpu = time.perf_counter() - started, _cpu_seconds() - cpu0
    n = len(texts)
    if not with_sorted:
        return n / seconds, cpu * 1000 / max(1, n), 0.0
    started = time.perf_counter()
    list(model.passage_embed(sorted(texts, key=len), batch_size=32))
    return n / seconds, cpu * 1000 / max(1, n), n / (time.perf_counter() - started)


def bench_corpus(name: str, root: Path, db: Path, with_sorted: bool = False) -> Row:
    """Sync ``root`` into a fresh index at ``db`` and measure it against raw embedding."""
    from minirag_store import Index

    index = Index.open(_env(root, db))
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
    sampler = WorkerPeak()
    sampler.start()
    cpu0, t0 = _cpu_seconds(), time.perf_counter()
    result = index.sync()
    seconds = time.perf_counter() - t0
    cpu = _cpu_seconds() - cpu0
    main_mb, worker_mb = _hwm_mb(), sampler.stop()
    texts = chunk_texts(db)
    index.close()
    raw, raw_cpu, raw_sorted = raw_throughput(texts, with_sorted)
    for error in result["errors"]:
        print(f"  {name}: {error['source']}: {error['error'][:160]}")
    counts = result["counts"]
    return Row(name, counts["ingested"], len(texts), seconds, raw,
               cpu * 1000 / max(1, len(texts)), raw_cpu, counts["failed"], main_mb,
               worker_mb, raw_sorted, embed_seconds[0] / seconds)  # fmt: skip


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
    """Run the corpora asked for and print one table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=5183, help="SciFact documents to write")
    parser.add_argument("--noop-files", type=int, default=10_000)
    parser.add_argument("--skip-mixed", action="store_true")
    parser.add_argument("--sorted", action="store_true", help="also time length-sorted raw")
    args = parser.parse_args()

    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="minirag-bench-") as tmp:
        work = Path(tmp)
        sci = work / "scifact"
        sci.mkdir()
        write_scifact(sci, args.limit)
        rows.append(bench_corpus("scifact", sci, work / "scifact-db", args.sorted))
        if not args.skip_mixed:
            mixed = work / "mixed"
            mixed.mkdir()
            copy_mixed(mixed)
            rows.append(bench_corpus("mixed", mixed, work / "mixed-db", args.sorted))
        noop = bench_noop(args.noop_files, work) if args.noop_files else None

    print(f"cores: {os.cpu_count()}, load average: {os.getloadavg()[0]:.1f} (shared machine)")
    print("| corpus   |  files | chunks |   sync s | files/s | chunks/s |  raw c/s | ratio "
          "| ratio* | embed share | CPU ms/c | raw CPU ms/c | main MB | worker MB "
          "| failed |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        print(row.line())
    print("ratio = sync chunks/s / raw fastembed chunks/s (batch 32, table order); ratio* = the")
    print("same against raw embedding of the texts sorted by length (all at once, least padding)")
    print("embed share = time inside the embedder / sync wall time, measured during the sync")
    print("(on a shared machine the load drifts between the sync and the raw run; this does not)")
    print("main MB / worker MB: peak RSS during the sync (worker = the largest parse process)")
    if noop is not None:
        initial, first, best = noop
        print(
            f"no-op re-sync of {args.noop_files} unchanged files: {first:.2f} s "
            f"(best of 3: {best:.2f} s; target <= 1 s). "
            f"Initial sync with faked vectors: {initial:.1f} s"
        )


if __name__ == "__main__":
    main()
