"""PDF conversion CPU per file: this checkout against an older commit, side by side.

#33's target for reading PDFs as their authors wrote them (reflow, headings, the hyphen
dictionary): conversion takes at most 1.1x what it took before (``--baseline``, by
default b5a2db1, the commit before the reflow). ``convert_file`` (markitdown, pdfium's
lines, reflow) is timed in a child process per tree, in CPU ms per file over the first
``--files`` PDFs (by name) of each kind ``bench/pdf_quality.py`` renders (SciFact's
sample, rendered into its cache when missing) and of NFCorpus's real article PDFs. The
first file of each child is converted before the clock starts: markitdown's import and
magika's model are a process's, not a file's; what loads at a later file (the hyphen
dictionary, 0.1 s once per process) is counted.

The two trees run in alternating rounds (``--rounds``, baseline first) and each kind's
median is kept, so a change in the machine's load between runs falls on both. The
baseline's ``minirag-chunker`` and ``minirag-store`` sources are extracted with ``git
archive`` and put first on ``PYTHONPATH``. Run on a quiet machine.

    uv run python bench/pdf_convert.py [--baseline b5a2db1] [--rounds 3] [--files 60]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "results" / "pdf_convert.json"
CACHE = Path("/tmp/minirag-pdf-quality")
SCIFACT_KINDS = ("justified", "ragged", "two-column", "hyphenated")
TARGET = 1.1


def folders(cache: Path) -> dict[str, Path]:
    """Each kind's folder of PDFs, SciFact's rendered when missing."""
    import pdf_quality  # bench/ is on the path of a script run from it

    docs, _, _ = pdf_quality.load_scifact(200, 3)
    out = {}
    for kind in SCIFACT_KINDS:
        out[kind] = cache / "scifact" / kind
        pdf_quality.render("scifact", kind, docs, out[kind])
    nf_docs, _, _ = pdf_quality.load_nfcorpus(150)
    out["real"] = cache / "nfcorpus" / "real"
    pdf_quality.render("nfcorpus", "real", nf_docs, out["real"])
    return out


def conversion_ms(folder: Path, files: int = 60) -> float:
    """CPU ms per file of ``convert_file`` over the first ``files`` files of ``folder`` (by
    name), after one conversion that loads what a process loads once (module doc)."""
    from minirag_store.config import load_config
    from minirag_store.convert.converter import convert_file

    config = load_config({"BASE_DIR": str(folder)})
    paths = sorted(folder.iterdir())[:files]
    convert_file(paths[0], config)  # markitdown's import and magika's model: not a file's
    start = time.process_time()
    for path in paths:
        convert_file(path, config)
    return (time.process_time() - start) / len(paths) * 1000


def child(kinds: dict[str, Path], files: int, pythonpath: list[str], work: Path) -> dict:
    """:func:`conversion_ms` of each kind in a fresh process, with ``pythonpath`` first
    (a baseline's sources)."""
    out = work / "child.json"
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = os.pathsep.join(pythonpath)
    spec = json.dumps({k: str(v) for k, v in kinds.items()})
    cmd = [sys.executable, __file__, "--child", spec, "--files", str(files), "--out", str(out)]
    subprocess.run(cmd, check=True, env=env)
    return json.loads(out.read_text())


def baseline_sources(rev: str, work: Path) -> list[str]:
    """Commit ``rev``'s chunker and store sources, extracted under ``work``."""
    tree = work / "baseline-src"
    tree.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "packages"],
                             check=True, capture_output=True).stdout  # fmt: skip
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    return [str(tree / "packages" / p / "src") for p in ("minirag-chunker", "minirag-store")]


def main() -> None:
    """Alternate the two trees, keep each kind's median, print and write the ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="b5a2db1")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--files", type=int, default=60)
    parser.add_argument("--cache", type=Path, default=CACHE)
    parser.add_argument("--json", type=Path, default=OUT)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        kinds = {k: Path(v) for k, v in json.loads(args.child).items()}
        times = {kind: conversion_ms(folder, args.files) for kind, folder in kinds.items()}
        args.out.write_text(json.dumps(times))
        return
    from results_io import provenance, write_json

    meta = provenance()
    kinds = folders(args.cache)
    with tempfile.TemporaryDirectory(prefix="minirag-pdf-convert-") as tmp:
        work = Path(tmp)
        old = baseline_sources(args.baseline, work)
        runs: dict[str, list[dict]] = {"baseline": [], "current": []}
        for n in range(args.rounds):
            runs["baseline"].append(child(kinds, args.files, old, work))
            runs["current"].append(child(kinds, args.files, [], work))
            print(f"round {n + 1}: {json.dumps(runs)}", flush=True)
    rows = {}
    for kind in kinds:
        before = statistics.median(r[kind] for r in runs["baseline"])
        after = statistics.median(r[kind] for r in runs["current"])
        rows[kind] = {"baseline_ms": round(before, 1), "current_ms": round(after, 1),
                      "ratio": round(after / before, 3)}  # fmt: skip
    print(f"\n| kind | {args.baseline} ms | this commit ms | ratio (target <= {TARGET}) |")
    print("|---|---|---|---|")
    for kind, r in rows.items():
        print(f"| {kind} | {r['baseline_ms']} | {r['current_ms']} | {r['ratio']:.2f} |")
    figures = {"baseline": args.baseline, "rounds": args.rounds, "files": args.files,
               "target_ratio": TARGET, "kinds": rows, "runs": runs}  # fmt: skip
    write_json(args.json, figures, meta)
    print(f"\nfigures: {args.json}")


if __name__ == "__main__":
    main()
