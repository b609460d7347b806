"""Markup is not content: are a document's own strings found in its top 5?

markitdown's test files (``../shared/data/markitdown_test_files``) are synced into one
fresh index through the real pipeline (converter → chunker → offline all-MiniLM-L6-v2 →
LanceDB). Two query sets, each query asked with ``topK=5`` at the default settings:

* **expected strings**: every ``plain`` string of ``expected_strings.json`` for the files
  the product reads (12 document types; images, audio, .xls, .json, .msg, .xml and .zip
  are not read). Left out: strings that are markup rather than reader text (a link target,
  a ``data:`` URI) and strings with no letter or digit (a table rule ``--- --- ---``).
* **quoted phrases**: the first 12 words of each prose sentence of the HTML pages with
  at least two links among them, quoted as a reader sees them (link text, no targets).

A query is *found* when one of the 5 hits comes from its file and the string is in that
hit's passage (its chunk or the parent section handed back with it), both compared after
dropping markdown punctuation and link targets, case-folded (a crude, bench-local
normaliser, the same for every run). *own chunk* asks for the string inside the hit's
chunk itself (a quote cut in two by a chunk boundary is not); *file in top 5* only asks
for a hit from the file.

    uv run python bench/markup.py                     # this checkout
    uv run python bench/markup.py --baseline e6cbbaf  # + the same run on an older commit

``--baseline`` extracts that commit's ``minirag-chunker`` and ``minirag-store`` sources
(``git archive``) and runs this script again with them first on ``PYTHONPATH``: the
before/after table comes from one command. JSON goes to ``bench/results/markup.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "markitdown_test_files"
OUT = ROOT / "bench" / "results" / "markup.json"
TOP_K = 5
PHRASE_WORDS = 12
READ = {".md", ".markdown", ".txt", ".pdf", ".docx", ".pptx", ".xlsx", ".html", ".htm",
        ".csv", ".epub", ".ipynb"}  # fmt: skip
_TARGET = re.compile(r"\]\((?:[^()\s]|\([^()]*\))*(?:\s+\"[^\"]*\")?\)")
_DROP = re.compile(r"[\[\]*\\`]+|!(?=\[)")  # markup around words: deleted, as a reader would
_SPACE = re.compile(r"[|#>]+")  # markup between words (table cells, headings, quotes)
_LINK = re.compile(r"\[([^\[\]\n]+)\]\((?:[^()\s]|\([^()]*\))+(?:\s+\"[^\"]*\")?\)")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def visible(text: str) -> str:
    """Crude markdown → words for matching: no link targets, no markdown punctuation."""
    text = _SPACE.sub(" ", _DROP.sub("", _TARGET.sub("", text)))
    return " ".join(text.casefold().split())


def markup_only(text: str) -> str | None:
    """Why an expected string is not reader text (None when it is)."""
    if "](" in text or text.startswith("data:"):
        return "link target / data URI"
    if not any(ch.isalnum() for ch in text):
        return "no letter or digit"
    return None


def expected_queries(files: list[str]) -> tuple[list[dict], list[dict]]:
    """(queries, left out) from expected_strings.json for the files the product reads."""
    spec = json.loads((DATA / "expected_strings.json").read_text(encoding="utf-8"))["files"]
    queries, left = [], []
    for name, entry in spec.items():
        if name not in files:
            continue
        for text in dict.fromkeys(entry.get("plain", [])):
            why = markup_only(text)
            row = {"file": name, "query": text}
            (left if why else queries).append({**row, "why": why} if why else row)
    return queries, left


def quoted_sentences(markdowns: dict[str, str]) -> list[dict]:
    """Phrases from the prose of the HTML pages: the first :data:`PHRASE_WORDS` words of
    each sentence whose phrase has at least two links running through it, as a reader
    quotes them (link text, no targets). Table rows (infoboxes, navboxes) are left out.

    Links are marked before sentences are cut, so a full stop inside a link's target or
    title ("Warner Bros. Discovery") does not end a sentence.
    """
    out = []
    for name, markdown in sorted(markdowns.items()):
        if Path(name).suffix not in {".html", ".htm"}:
            continue
        for line in markdown.splitlines():
            if line.lstrip().startswith("|"):
                continue
            marked = _LINK.sub(lambda m: "\x00" + m.group(1) + "\x01", line)
            for sentence in _SENTENCE.split(marked):
                phrase = " ".join(sentence.split()[:PHRASE_WORDS])
                quote = visible(phrase.replace("\x00", "").replace("\x01", ""))
                if phrase.count("\x00") >= 2 and len(quote.split()) >= PHRASE_WORDS:
                    out.append({"file": name, "query": quote})
    return out


def measure(work: Path) -> dict:
    """Sync the test files into a fresh index and ask every query; the raw outcome."""
    from minirag_store import Index
    from minirag_testkit import model_env

    root = work / "docs"
    root.mkdir()
    files = sorted(p.name for p in (DATA / "test_files").iterdir() if p.suffix.lower() in READ)
    for name in files:
        shutil.copy2(DATA / "test_files" / name, root / name)
    env = {**model_env(), "BASE_DIR": str(root), "DB_PATH": str(work / "index")}
    env["RAG_MAX_RESPONSE_TOKENS"] = str(10**9)  # whole documents: the bench reads them all
    index = Index.open(env)
    start = time.perf_counter()
    job = index.sync()
    sync_s = time.perf_counter() - start
    markdowns = {}
    for name in files:
        try:
            markdowns[name] = index.read_file(str(root / name))["text"]
        except Exception:  # not indexed (failed or empty): its queries cannot be found
            continue
    queries, left = expected_queries(files)
    sets = {"expected": queries, "quoted": quoted_sentences(markdowns)}
    for rows in sets.values():
        for row in rows:
            row.update(ask(index, root / row["file"], row["query"]))
    chunks = index.status()["chunkCount"]
    index.close()
    counts = job["counts"]
    return {
        "sets": sets,
        "left_out": left,
        "sync_s": sync_s,
        "counts": counts,
        "chunks": chunks,
        "markdown_chars": sum(map(len, markdowns.values())),
        "indexed": sorted(markdowns),
        "readable_ms_per_mb": readable_cost(markdowns),
    }


def readable_cost(markdowns: dict[str, str]) -> float | None:
    """CPU ms per MB of markdown that :func:`minirag_store.index.text.readable.readable` takes here
    (None for code without it)."""
    try:
        from minirag_store.index.text.readable import readable
    except ImportError:
        return None
    text = "\n\n".join(markdowns.values())
    start = time.process_time()
    for _ in range(5):
        readable(text)
    return (time.process_time() - start) / 5 * 1000 / (len(text.encode()) / 1e6)


def ask(index, path: Path, query: str) -> dict:
    """Whether ``query`` finds ``path`` (and the string itself) in the top 5."""
    result = index.query(query, top_k=TOP_K)
    want = visible(query)
    rank = found = in_chunk = None
    for i, hit in enumerate(result["results"], 1):
        if result["sources"][hit["src"]]["source"] != str(path):
            continue
        rank = rank or i
        if in_chunk is None and want in visible(hit["text"]):
            in_chunk = i
        section = result["parents"][hit["parent"]] if "parent" in hit else ""
        passage = hit["text"] + "\n" + section
        if found is None and want in visible(passage):
            found = i
    return {"file_rank": rank, "found_rank": found, "chunk_rank": in_chunk}


def baseline(rev: str, work: Path) -> dict:
    """:func:`measure` on commit ``rev``'s chunker + store sources, in a subprocess."""
    tree = work / "baseline-src"
    tree.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "packages"],
                             check=True, capture_output=True).stdout  # fmt: skip
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    paths = [str(tree / "packages" / p / "src") for p in ("minirag-chunker", "minirag-store")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}
    out = work / "baseline.json"
    run_dir = work / "baseline-run"
    run_dir.mkdir()
    cmd = [sys.executable, __file__, "--measure-only", str(out), "--work", str(run_dir)]
    subprocess.run(cmd, check=True, env=env)
    return json.loads(out.read_text())


def summary(run: dict) -> dict:
    """Totals per query set (and per file for the expected strings)."""
    out: dict = {}
    for name, rows in run["sets"].items():
        out[name] = {
            "queries": len(rows),
            "found": sum(r["found_rank"] is not None for r in rows),
            "found_at_1": sum(r["found_rank"] == 1 for r in rows),
            "in_own_chunk": sum(r["chunk_rank"] is not None for r in rows),
            "file_in_top5": sum(r["file_rank"] is not None for r in rows),
        }
    per_file: dict[str, list[int]] = {}
    for r in run["sets"]["expected"]:
        counts = per_file.setdefault(r["file"], [0, 0])
        counts[0] += 1
        counts[1] += r["found_rank"] is not None
    out["per_file"] = per_file
    return out


def table(runs: dict[str, dict]) -> str:
    """The printed before/after table."""
    labels = list(runs)
    sums = {label: summary(run) for label, run in runs.items()}
    lines = [f"| measure | {' | '.join(labels)} |", "|---|" + "---|" * len(labels)]
    for name, title in (("expected", "expected strings"), ("quoted", "quoted phrases")):
        for key, what in (("found", "found in top 5"), ("found_at_1", "found at rank 1"),
                          ("in_own_chunk", "found in a top-5 hit's own chunk"),
                          ("file_in_top5", "file in top 5")):  # fmt: skip
            cells = [f"{sums[x][name][key]}/{sums[x][name]['queries']}" for x in labels]
            lines.append(f"| {title}: {what} | {' | '.join(cells)} |")
    files = sorted(set().union(*(s["per_file"] for s in sums.values())))
    lines += ["", f"| file (expected strings found) | {' | '.join(labels)} |",
              "|---|" + "---|" * len(labels)]  # fmt: skip
    for name in files:
        cells = []
        for label in labels:
            total, found = sums[label]["per_file"].get(name, [0, 0])
            cells.append(f"{found}/{total}")
        lines.append(f"| {name} | {' | '.join(cells)} |")
    return "\n".join(lines)


def main() -> None:
    """Parse arguments, run, print the table and write the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--baseline", help="also measure this commit (git rev) as 'before'")
    parser.add_argument("--measure-only", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--work", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure_only:
        args.measure_only.write_text(json.dumps(measure(args.work)))
        return
    with tempfile.TemporaryDirectory(prefix="minirag-markup-") as tmp:
        work = Path(tmp)
        runs: dict[str, dict] = {}
        if args.baseline:
            runs[f"before ({args.baseline})"] = baseline(args.baseline, work)
        (work / "current").mkdir()
        runs["after"] = measure(work / "current")
    print(table(runs))
    for label, run in runs.items():
        cost = run["readable_ms_per_mb"]
        print(f"{label}: {run['chunks']} chunks, sync {run['sync_s']:.1f} s wall, "
              f"readable() {'-' if cost is None else f'{cost:.0f} CPU ms/MB'}")  # fmt: skip
    OUT.parent.mkdir(parents=True, exist_ok=True)
    result = {label: {"summary": summary(run), **run} for label, run in runs.items()}
    OUT.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
