"""Peak memory of a full sync, and whether it grows with the corpus.

Target (issue 15): a full SciFact sync (5,183 ``.md`` files, ~22k chunks) peaks at
<= 600 MB RSS, and a 10x larger corpus raises that peak by <= 10 %.

Each run syncs a fresh index in its own process (peaks are per process; nothing carried
over from a previous run), and reports:

* ``main``: the sync process's own peak RSS (``VmHWM``), what a user's server or CLI holds;
* ``workers``: the spawn-context parse workers, sampled every 0.1 s (each one's ``VmHWM``;
  ``workers_sum`` adds them up, an upper bound of what they held at once);
* ``total``: main + workers_sum, the whole process tree;
* a timeline: the main process's RSS when 10 %, 25 %, 50 %, 75 % and 100 % of the files
  were done (a peak independent of the corpus shows as a flat line).
* ``main_calls``: every call of a measured step in order (index creation, compaction +
  index update, ANN build, old versions dropped, summary, the rest of a maintenance), each
  with the RSS it began at and its peak: which of a long sync's maintenances peaks, and
  whether by what it adds or by what the process already held.

Runs: ``real x1`` embeds SciFact with the offline test model (the absolute figure).
Embedding 10x SciFact (~220k chunks) would take over an hour on this 2-core machine, so
the growth is measured with ``fake`` vectors (a deterministic hash of each text, as
cheap as can be) at x1 and x10, everything else the real sync: scan, parse workers,
chunking, keyword column, LanceDB commits, maintenance. The embedder's own memory does
not depend on the corpus (its batches are at most 32 texts of at most the model's
trained length, whatever the corpus; see the real x1 timeline). The x10 corpus is
SciFact + NFCorpus cycled, each later copy's sentences rotated (different bytes,
different chunks, the same kind of text).

    uv run python bench/sync_memory.py [--runs real:1,fake:1,fake:10] [--limit 5183]
                                       [--json bench/results/sync_memory.json]

A million chunks (x40, ~18 min here) on its own, beside the usual runs:
``--runs fake:40 --json bench/results/sync_memory_1m.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from procmem import ChildPeaks, Phases, status_mb
from results_io import provenance, write_json

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
RESULTS = Path(__file__).resolve().parent / "results" / "sync_memory.json"
TARGET_MB = 600
CORPORA = ("beir_scifact", "beir_nfcorpus")


def _docs() -> list[tuple[str, str, str]]:
    """(id, title, text) of every SciFact document, then every NFCorpus one."""
    docs = []
    for corpus in CORPORA:
        with (DATA / corpus / "corpus.jsonl").open(encoding="utf-8") as fh:
            for line in fh:
                doc = json.loads(line)
                docs.append((f"{corpus[5:]}-{doc['_id']}", doc["title"], doc["text"]))
    return docs


def _rotated(text: str, by: int) -> str:
    """``text`` with its sentences rotated ``by`` places: other bytes, same kind of text."""
    sentences = [s for s in text.replace("\n", " ").split(". ") if s]
    if len(sentences) < 2:
        return f"{text} (copy {by})"
    k = by % len(sentences)
    return ". ".join(sentences[k:] + sentences[:k]) + f" (copy {by})"


def write_corpus(root: Path, files: int) -> int:
    """``files`` markdown files: SciFact first (the x1 corpus is exactly SciFact), then
    NFCorpus, then rotated copies of both; returns how many were written."""
    docs = _docs()
    for n in range(files):
        doc_id, title, text = docs[n % len(docs)]
        copy = n // len(docs)
        if copy:
            text = _rotated(text, copy)
        folder = root / f"b{n // 500:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        name = f"{doc_id}-{copy}.md" if copy else f"{doc_id}.md"
        (folder / name).write_text(f"# {title}\n\n{text}\n", encoding="utf-8")
    return files


def _fake_embed(dim: int):
    """Unit vectors from a hash of each text: deterministic, distinct, nearly free."""
    import zlib

    import numpy as np

    def embed(texts):
        out = np.empty((len(texts), dim), dtype=np.float32)
        for i, text in enumerate(texts):
            rng = np.random.default_rng(zlib.crc32(text.encode("utf-8")))
            out[i] = rng.standard_normal(dim, dtype=np.float32)
        out /= np.linalg.norm(out, axis=1, keepdims=True)
        return out

    return embed


def _watch(phases: Phases) -> None:
    """Make the sync's maintenance steps phases of their own (the rest is ``ingest``)."""
    from minirag_store.index.search import ann
    from minirag_store.index.storage import upkeep
    from minirag_store.index.table import ChunkTable

    phases.wrap(ChunkTable, "maintain", "maintain (rest)")
    phases.wrap(ChunkTable, "summary", "summary")
    phases.wrap(upkeep, "create_indexes", "create indexes")
    phases.wrap(upkeep, "compact", "maintain: compact + index update")
    phases.wrap(ann, "build", "maintain: ANN build")
    phases.wrap(upkeep, "drop_old_versions", "maintain: drop old versions")


def child(corpus: Path, db: Path, embed: str, total: int) -> dict:
    """One sync of ``corpus`` into a fresh index at ``db``, in this process."""
    phases = Phases("load")
    from minirag_store import Index
    from minirag_testkit import MODEL_NAME, model_dir

    env = {"MODEL_NAME": MODEL_NAME, "MODEL_PATH": str(model_dir()),
           "BASE_DIR": str(corpus), "DB_PATH": str(db)}  # fmt: skip
    index = Index.open(env)
    embedder = index.embedder()
    if embed == "fake":
        embedder.embed_passages = _fake_embed(embedder.dim)
    loaded = status_mb("self", "VmRSS")
    marks = {round(total * f): f for f in (0.1, 0.25, 0.5, 0.75)}
    timeline: dict[str, float] = {}

    def progress(p) -> None:
        if p.done in marks:
            timeline[f"{marks[p.done]:.0%}"] = round(status_mb("self", "VmRSS"))

    sampler = ChildPeaks()
    sampler.start()
    _watch(phases)
    phases.enter("ingest")
    started = time.perf_counter()
    result = index.sync(progress=progress)
    seconds = time.perf_counter() - started
    timeline["100%"] = round(status_mb("self", "VmRSS"))
    phases.enter("after")
    workers = sampler.stop()
    chunks = index.status()["chunkCount"]
    index.close()
    phases.enter("closed")
    return {
        "files": result["counts"]["ingested"],
        "failed": result["counts"]["failed"],
        "chunks": chunks,
        "sync_s": round(seconds, 1),
        "main_after_model_load_mb": round(loaded),
        "main_peak_mb": round(phases.peak()),
        "worker_peak_max_mb": round(max(workers.values(), default=0)),
        "workers_sum_mb": round(sum(workers.values())),
        "workers": len(workers),
        "main_rss_timeline_mb": timeline,
        "main_phase_peak_mb": {k: round(v) for k, v in phases.peaks.items()},
        "main_rss_after_phase_mb": {k: round(v) for k, v in phases.rss_after.items()},
        "main_calls": phases.calls,
    }


def run(embed: str, scale: int, limit: int, work: Path) -> dict:
    """Write the corpus (``scale`` x ``limit`` files) and sync it in a fresh process."""
    corpus = work / f"corpus-x{scale}"
    if not corpus.exists():
        write_corpus(corpus, scale * limit)
    db = work / f"db-{embed}-x{scale}"
    args = [sys.executable, __file__, "--child", str(corpus), str(db), embed, str(scale * limit)]
    out = subprocess.run(args, check=True, capture_output=True, text=True)
    figures = json.loads(out.stdout.strip().splitlines()[-1])
    figures["total_peak_mb"] = figures["main_peak_mb"] + figures["workers_sum_mb"]
    return figures


def _compare(before: dict, runs: dict[str, dict]) -> dict:
    """``before``'s figures beside these runs' (ratios after / before), printed and
    returned for the JSON."""
    keys = ("main_peak_mb", "total_peak_mb")
    phases = ("ingest", "maintain: compact + index update", "maintain: ANN build", "summary")
    rows = {}
    print("\n| run | figure | before | after | after / before |\n|---|---|---:|---:|---:|")
    for name, after in runs.items():
        old = before["runs"].get(name)
        if old is None:
            continue
        pairs = [(k, old.get(k), after.get(k)) for k in keys]
        pairs += [(f"phase {p}", old.get("main_phase_peak_mb", {}).get(p),
                   after["main_phase_peak_mb"].get(p)) for p in phases]  # fmt: skip
        for figure, was, now in pairs:
            if was and now:
                rows[f"{name}: {figure}"] = {"before": was, "after": now,
                                             "ratio": round(now / was, 3)}  # fmt: skip
                print(f"| {name} | {figure} | {was} | {now} | {now / was:.2f} |")
    return {"before": before, "after_vs_before": rows}


def main() -> None:
    """Run the syncs asked for, print a table and write bench/results/sync_memory.json."""
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        corpus, db, embed, total = sys.argv[2:6]
        print(json.dumps(child(Path(corpus), Path(db), embed, int(total))))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", default="real:1,fake:1,fake:10",
                        help="embedder:scale pairs: real or fake vectors, corpus size")  # fmt: skip
    parser.add_argument("--limit", type=int, default=5183, help="files at x1 (SciFact: 5183)")
    parser.add_argument("--json", type=Path, default=RESULTS, help="where the figures go")
    parser.add_argument(
        "--add", type=Path, action="append", default=[], help="a JSON of runs made apart"
    )
    parser.add_argument("--before", type=Path, help="a JSON from before a change, to compare")
    args = parser.parse_args()
    meta = provenance()
    runs: dict[str, dict] = {}
    for extra in args.add:  # each run keeps where and when it was measured
        made = json.loads(extra.read_text())
        when = {k: made[k] for k in ("commit", "measured", "load_average_before") if k in made}
        runs.update({name: {**run, "measured_at": when} for name, run in made["runs"].items()})
    with tempfile.TemporaryDirectory(prefix="minirag-syncmem-") as tmp:
        for spec in filter(None, args.runs.split(",")):
            embed, scale = spec.split(":")
            runs[f"{embed} x{scale}"] = run(embed, int(scale), args.limit, Path(tmp))
            print(f"{embed} x{scale}: {runs[f'{embed} x{scale}']}", flush=True)
    print(f"cores: {os.cpu_count()}, load average: {os.getloadavg()[0]:.1f} (shared machine)")
    print("| run | files | chunks | sync s | main peak MB | worker peak MB (max / sum) "
          "| total MB | main RSS at 10/25/50/75/100 % |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for name, f in runs.items():
        line = " / ".join(str(v) for v in f["main_rss_timeline_mb"].values())
        print(f"| {name} | {f['files']} | {f['chunks']} | {f['sync_s']} | {f['main_peak_mb']} "
              f"| {f['worker_peak_max_mb']} / {f['workers_sum_mb']} | {f['total_peak_mb']} "
              f"| {line} |")  # fmt: skip
    figures: dict = {"target_main_peak_mb": TARGET_MB, "runs": runs}
    scales = sorted(int(name.split(" x")[1]) for name in runs if name.startswith("fake"))
    if len(scales) > 1:
        small, large = runs[f"fake x{scales[0]}"], runs[f"fake x{scales[-1]}"]
        figures["growth_between"] = [f"fake x{scales[0]}", f"fake x{scales[-1]}"]
        for key in ("main_peak_mb", "total_peak_mb"):
            ratio = large[key] / small[key]
            figures[f"growth_{key}"] = round(ratio, 3)
            print(f"growth of {key} from x1 to the largest corpus (fake vectors): {ratio:.3f} "
                  "(target <= 1.10)")  # fmt: skip
    if args.before:
        figures.update(_compare(json.loads(args.before.read_text()), runs))
    write_json(args.json, figures, meta)
    print(f"figures: {args.json}")


if __name__ == "__main__":
    main()
