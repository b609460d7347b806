"""A sync on Ray against the same sync run locally (``bench/ingest.py --ray``).

One SciFact subset (one ``.md`` per document) is synced into fresh indexes three ways:
locally (``Index.sync()``), and through Ray Data on a local Ray runtime with 1 and with 2
CPUs (``Index.sync(ray="")``, one embedding actor per CPU). Each run reports chunks/s and
CPU ms per chunk: this process plus every process it started (parse workers; the Ray
runtime's daemons, workers and actors), read from ``/proc`` by a sampler every 0.2 s (a
process that lives under 0.2 s is missed: Ray's are long-lived). The Ray runtime is
started before the timed sync (``ray_start_s``), as a cluster would be.

The driver's own cost is timed inside the Ray syncs: scan + plan + commits + maintenance
(everything but waiting for the pipeline). From the two Ray runs the scaling model for N
workers is fitted:

    T(N) = S + D + C / (N * r)

S: until the first batch is back (scan, plan, actor start-up, one model load per actor in
parallel, one batch), D: the driver's own time (metadata read, commits, maintenance), C:
chunks, r: one worker's steady rate (chunks after the first batch over their time), all
from the one-worker run. The driver is the ceiling: past N = 1 / (D per chunk * r)
workers it commits slower than they write. Figures go to
``bench/results/ingest_ray.json``.
"""

from __future__ import annotations

import os
import tempfile
import threading
import time
from pathlib import Path

from ingest import _env, write_scifact
from results_io import RESULTS, provenance, write_json

JSON = RESULTS / "ingest_ray.json"
_TICKS = os.sysconf("SC_CLK_TCK")


def _descendants(root: int) -> list[int]:
    """Every live descendant of ``root`` (from /proc/<pid>/task/*/children)."""
    found, queue = [], [root]
    while queue:
        pid = queue.pop()
        for children in Path(f"/proc/{pid}/task").glob("*/children"):
            try:
                kids = [int(k) for k in children.read_text().split()]
            except OSError:
                continue
            found += kids
            queue += kids
    return found


def _cpu_of(pid: int) -> float | None:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / _TICKS  # utime + stime


class TreeCpu(threading.Thread):
    """CPU seconds used by this process's descendants between :meth:`start` and :meth:`stop`."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self._first: dict[int, float] = {}
        self._last: dict[int, float] = {}
        self._done = threading.Event()
        self._sample()  # processes alive now count from here, not from their start

    def _sample(self) -> None:
        for pid in _descendants(os.getpid()):
            cpu = _cpu_of(pid)
            if cpu is not None:
                self._first.setdefault(pid, cpu if not self.is_alive() else 0.0)
                self._last[pid] = cpu

    def run(self) -> None:
        while not self._done.wait(0.2):
            self._sample()

    def stop(self) -> float:
        self._sample()
        self._done.set()
        self.join()
        return sum(self._last[p] - self._first[p] for p in self._last)


def _timed_sync(index, ray: str | None) -> tuple[dict, float, float, float]:
    """(job, wall s, CPU s of this process + descendants, driver s outside the pipeline)."""
    from minirag_store.index import table as table_module

    driver = [0.0]
    originals = {}
    for name in ("replace_with_fragments", "maintain", "source_meta"):
        real = getattr(table_module.ChunkTable, name)
        originals[name] = real

        def timed(self, *args, _real=real, **kwargs):
            started = time.perf_counter()
            try:
                return _real(self, *args, **kwargs)
            finally:
                driver[0] += time.perf_counter() - started

        setattr(table_module.ChunkTable, name, timed)
    from minirag_store.ingest import distributed

    arrivals: list[tuple[float, int]] = []  # (time, chunks) of each pipeline output row
    real_outcomes = distributed._outcomes

    def outcomes(stream):
        for fragments, results in real_outcomes(stream):
            arrivals.append((time.perf_counter(), sum(o["chunks"] for o in results)))
            yield fragments, results

    distributed._outcomes = outcomes
    sampler = TreeCpu()
    sampler.start()
    cpu0, t0 = _own_cpu(), time.perf_counter()
    try:
        job = index.sync(ray=ray)
    finally:
        for name, real in originals.items():
            setattr(table_module.ChunkTable, name, real)
        distributed._outcomes = real_outcomes
    wall = time.perf_counter() - t0
    timing = {"driver_s": driver[0]}
    if len(arrivals) > 1:
        # S: until the first batch is back (scan, plan, actor start, model load, one batch);
        # the steady rate: chunks after the first batch over the time they took.
        timing["first_batch_s"] = arrivals[0][0] - t0
        after = sum(c for _, c in arrivals[1:])
        timing["steady_chunks_per_s"] = after / (arrivals[-1][0] - arrivals[0][0])
    return job, wall, _own_cpu() - cpu0 + sampler.stop(), timing


def _own_cpu() -> float:
    """This process's CPU seconds (its children are sampled by :class:`TreeCpu`)."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run(limit: int) -> dict:
    """Sync the corpus locally and on Ray with 1 and 2 CPUs; returns the figures."""
    import ray
    from minirag_store import Index

    out: dict = {"corpus": f"scifact, first {limit} documents as .md"}
    with tempfile.TemporaryDirectory(prefix="minirag-bench-ray-") as tmp:
        work = Path(tmp)
        root = work / "docs"
        root.mkdir()
        write_scifact(root, limit)
        runs = [("local", None, 0), ("ray_1cpu", "", 1), ("ray_2cpu", "", 2)]
        for name, address, cpus in runs:
            index = Index.open(_env(root, work / f"{name}-db"))
            index.embedder()  # the local model load is not part of the timed sync
            started = time.perf_counter()
            if cpus:
                ray.init(num_cpus=cpus, include_dashboard=False, log_to_driver=False)
            ray_start = time.perf_counter() - started
            try:
                job, wall, cpu, timing = _timed_sync(index, address)
                chunks = index.table().counts()[0]
            finally:
                index.close()
                if cpus:
                    ray.shutdown()
            assert job["state"] == "succeeded", job
            out[name] = {
                "files": job["counts"]["ingested"],
                "chunks": chunks,
                "sync_s": round(wall, 2),
                "chunks_per_s": round(chunks / wall, 1),
                "cpu_ms_per_chunk": round(1000 * cpu / chunks, 2),
                "driver_s": round(timing["driver_s"], 2) if cpus else None,
                "ray_start_s": round(ray_start, 1) if cpus else None,
            }
            if cpus:
                out[name]["first_batch_s"] = round(timing["first_batch_s"], 1)
                out[name]["steady_chunks_per_s"] = round(timing["steady_chunks_per_s"], 1)
    return out


def model(figures: dict) -> dict:
    """T(N) = S + D + C / (N r), with S, D and r measured on the one-worker Ray run."""
    one = figures["ray_1cpu"]
    return {
        "formula": "T(N) = S + D + C / (N * r)",
        "S_first_batch_s": one["first_batch_s"],
        "D_driver_s": one["driver_s"],
        "D_driver_ms_per_chunk": round(1000 * one["driver_s"] / one["chunks"], 3),
        "r_chunks_per_s_per_worker": one["steady_chunks_per_s"],
        "two_workers_steady_chunks_per_s": figures["ray_2cpu"]["steady_chunks_per_s"],
        "local_chunks_per_s": figures["local"]["chunks_per_s"],
        "driver_bound_workers": round(one["chunks"] / one["driver_s"] / one["steady_chunks_per_s"]),
    }


def main(limit: int) -> None:
    meta = provenance()
    figures = run(limit)
    figures["scaling_model"] = model(figures)
    print(f"cores: {os.cpu_count()}, load average: {os.getloadavg()[0]:.1f} (shared machine)")
    print("| run | files | chunks | sync s | chunks/s | CPU ms/chunk | driver s | Ray start s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name in ("local", "ray_1cpu", "ray_2cpu"):
        f = figures[name]
        driver, start = f["driver_s"] or "-", f["ray_start_s"] or "-"
        print(f"| {name} | {f['files']} | {f['chunks']} | {f['sync_s']} | {f['chunks_per_s']} | "
              f"{f['cpu_ms_per_chunk']} | {driver} | {start} |")  # fmt: skip
    m = figures["scaling_model"]
    print(f"scaling model: {m['formula']} with S = {m['S_first_batch_s']} s, D = "
          f"{m['D_driver_s']} s ({m['D_driver_ms_per_chunk']} ms/chunk), r = "
          f"{m['r_chunks_per_s_per_worker']} chunks/s per worker; the driver keeps up with "
          f"~{m['driver_bound_workers']} workers (1 / (D per chunk * r))")  # fmt: skip
    write_json(JSON, figures, meta)
    print(f"figures: {JSON}")
