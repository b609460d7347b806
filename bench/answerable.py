"""Does an answer know when nothing matches? An answerable / unanswerable split.

Each data set's judged queries are split in two halves, deterministically (a hash of the
query id; XQuAD by passage). A copy of the index has the relevant documents of one half
deleted (those the other half also needs are kept, and a query of the deleted half that
still has one is left out), so that half has no answer in the index. The answer's
signal (:mod:`minirag_store.match`) should tell the halves apart:

* AUROC of the answer's best-hit evidence separating answerable from unanswerable;
* at the level the product flags ("nothing really matches": the answer's ``notice``),
  the share of unanswerable queries flagged and of answerable ones wrongly flagged;
* nDCG@10 (first hit per document, topK 30, budget lifted) of the answerable half on the
  held-out index, and of every query on the full index: "before" is the same index
  queried by the code of ``--before-src`` (a checkout of the base commit), "after" this
  tree's.

Identifiers: a generated corpus of documents holding made-up identifiers; queries for
present and absent ones; every absent identifier must be named in the notice, no
present one.

Sets: ``scifact`` (BEIR SciFact, 300 test queries, the whole corpus), ``nfcorpus`` (BEIR
NFCorpus, split by directly relevant documents over a subset of the corpus: see
:func:`nfcorpus`), ``xquad-de`` (XQuAD German, split by passage). Indexes are built once
under ``--work`` (chunker -> offline all-MiniLM-L6-v2 -> LanceDB, written directly like
``bench/quality.py``) and reused; the held-out copy is the full one's folder copied and
its held-out sources deleted, never synced again. ``--merge`` keeps the sets of ``--json``
that ``--only`` leaves out.

    uv run python bench/answerable.py --before-src /tmp/base [--only scifact] [--merge]
        [--work /tmp/minirag-answerable]

where ``/tmp/base`` holds ``git archive a28ddc6 packages/minirag-store/src
packages/minirag-chunker/src`` unpacked.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
from collections.abc import Callable, Iterable
from pathlib import Path

from minirag_store import Index
from minirag_store.index.write.writer import Document
from minirag_store.ingest.operations import writer_for
from minirag_store.ingest.workers import file_digest
from minirag_testkit import model_env

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
RESULTS = Path(__file__).resolve().parent / "results" / "answerable.json"
FETCH = 30  # topK of the nDCG queries: enough for 10 distinct documents


def read_jsonl(path: Path) -> Iterable[dict]:
    """The records of a JSON-lines file."""
    with path.open(encoding="utf-8") as f:
        yield from map(json.loads, f)


def read_qrels(path: Path, floor: int = 1) -> dict[str, dict[str, int]]:
    """query id -> doc id -> grade (at least ``floor``), from a qrels TSV with a header."""
    qrels: dict[str, dict[str, int]] = {}
    for line in path.read_text(encoding="utf-8").splitlines()[1:]:
        qid, did, score = line.split("\t")[:3]
        if int(score) >= floor:
            qrels.setdefault(qid, {})[did] = int(score)
    return qrels


def beir(name: str) -> tuple[dict[str, str], dict[str, str], dict[str, dict[str, int]]]:
    """A BEIR set: documents (id -> markdown), test queries, their qrels."""
    root = DATA / name
    docs = {}
    for d in read_jsonl(root / "corpus.jsonl"):
        title = d.get("title", "").strip() or d["_id"]
        docs[d["_id"]] = f"# {title}\n\n{d['text'].strip()}\n"
    qrels = read_qrels(root / "qrels" / "test.tsv")
    texts = {q["_id"]: q["text"] for q in read_jsonl(root / "queries.jsonl")}
    return docs, {q: texts[q] for q in qrels}, qrels


def xquad(lang: str) -> tuple[dict[str, str], dict[str, str], dict[str, dict[str, int]]]:
    """XQuAD in ``lang``: passages, questions, each question's passage."""
    root = DATA / "xquad_multi" / lang
    docs = {d["_id"]: d["text"].lstrip("\ufeff") + "\n" for d in read_jsonl(root / "corpus.jsonl")}
    qrels = read_qrels(root / "qrels.tsv")
    texts = {q["_id"]: q["text"] for q in read_jsonl(root / "queries.jsonl")}
    return docs, {q: texts[q] for q in qrels}, qrels


def nfcorpus() -> tuple[dict[str, str], dict[str, str], dict[str, dict[str, int]]]:
    """NFCorpus, narrowed: its relevance is dense (a document is judged for many queries),
    so the halves are split by the *directly* relevant documents (grade 2): the test
    queries that have one, over the documents judged (any grade) for them, 1,572 of 3,633
    (a subset, to spare a full sync's CPU). nDCG counts every grade."""
    docs, queries, qrels = beir("beir_nfcorpus")
    direct = read_qrels(DATA / "beir_nfcorpus" / "qrels" / "test.tsv", floor=2)
    judged = {d for q in direct for d in qrels[q]}
    return {d: t for d, t in docs.items() if d in judged}, {q: queries[q] for q in direct}, qrels


LOADERS = {
    "scifact": lambda: beir("beir_scifact"),
    "nfcorpus": nfcorpus,
    "xquad-de": lambda: xquad("de"),
}


def open_index(work: Path, docs: Path) -> Index:
    """The Index over ``docs`` + ``work/db`` with the offline test model, budget lifted."""
    env = {**model_env(), "BASE_DIR": str(docs), "DB_PATH": str(work / "db")}
    env["RAG_MAX_RESPONSE_TOKENS"] = str(10**9)
    return Index.open(env)


def build(work: Path, docs: dict[str, str]) -> Index:
    """The full index of ``docs`` in ``work`` (written as ``<id>.md``), built on first use."""
    root = work / "docs"
    if (work / "db").is_dir():
        return open_index(work, root)
    root.mkdir(parents=True, exist_ok=True)
    index = open_index(work, root)
    documents = []
    for did, text in docs.items():
        path = root / f"{did}.md"
        path.write_text(text, encoding="utf-8")
        digest, size, mtime = file_digest(path)
        title = text.split("\n", 1)[0].lstrip("# ").strip() if text.startswith("# ") else did
        documents.append(Document(str(path), "file", title, text, digest, mtime, size))
    writer = writer_for(index)
    for _ in writer.write(documents):
        pass
    writer.finish()
    index.table().maintain()
    return index


def half(key: str) -> int:
    """0 or 1, from a hash of ``key``: the same split on every run and machine."""
    return hashlib.sha256(key.encode()).digest()[0] % 2


def split(
    queries: dict[str, str], qrels: dict[str, dict[str, int]], key: dict[str, str] | None = None
) -> tuple[list[str], list[str], set[str]]:
    """The answerable queries, the unanswerable ones, and the documents to hold out: the
    relevant documents of the second half that no query of the first needs (``key``: what a
    query is split by, its id by default)."""
    first = [q for q in queries if half((key or {}).get(q, q)) == 0]
    second = [q for q in queries if half((key or {}).get(q, q)) == 1]
    needed = {d for q in first for d in qrels[q]}
    held = {d for q in second for d in qrels[q]} - needed
    return first, [q for q in second if set(qrels[q]) <= held], held


def split_of(
    name: str, queries: dict[str, str], qrels: dict[str, dict[str, int]]
) -> tuple[list[str], list[str], set[str]]:
    """:func:`split` as each set is split: XQuAD by passage, NFCorpus by its directly
    relevant documents (:func:`nfcorpus`), the others by query."""
    if name.startswith("xquad"):  # a passage's questions stay together
        return split(queries, qrels, {q: next(iter(rel)) for q, rel in qrels.items()})
    if name == "nfcorpus":
        direct = read_qrels(DATA / "beir_nfcorpus" / "qrels" / "test.tsv", floor=2)
        return split(queries, direct)
    return split(queries, qrels)


def held_out(work: Path, full: Index, held: set[str]) -> Index:
    """A copy of the full index without the ``held`` documents (made once)."""
    target = work / "held"
    if not (target / "db").is_dir():
        target.mkdir(parents=True, exist_ok=True)
        shutil.copytree(work / "full" / "db", target / "db")
        index = open_index(target, work / "full" / "docs")
        docs = work / "full" / "docs"
        index.table().delete_sources([str(docs / f"{d}.md") for d in sorted(held)])
        index.table().maintain()
        return index
    return open_index(target, work / "full" / "docs")


def doc_order(answer: dict) -> list[str]:
    """Document ids in order of their first hit."""
    return list(dict.fromkeys(Path(answer["sources"][h["src"]]["displayPath"]).stem
                              for h in answer["results"]))  # fmt: skip


def ndcg10(ranked: list[str], rel: dict[str, int]) -> float:
    """nDCG@10 with linear gain."""
    import math

    dcg = sum(rel.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranked[:10]))
    ideal = sorted(rel.values(), reverse=True)[:10]
    return dcg / sum(g / math.log2(i + 2) for i, g in enumerate(ideal))


def answers(index: Index, queries: dict[str, str], ids: list[str]) -> dict[str, dict]:
    """Each query's answer (topK 30, explained): its documents, level, notice, hits'
    evidence."""
    out = {}
    for qid in ids:
        answer = index.query(queries[qid], top_k=FETCH, explain=True)
        out[qid] = {
            "docs": doc_order(answer),
            "best": answer.get("bestMatch"),
            "notice": answer.get("notice", ""),
            "hits": [h.get("match", {}) for h in answer["results"]],
        }
    return out


def auroc(positive: list[float], negative: list[float]) -> float:
    """P(a positive scores above a negative), ties half: the Mann-Whitney AUROC."""
    wins = sum((p > n) + 0.5 * (p == n) for p in positive for n in negative)
    return wins / (len(positive) * len(negative))


def collect(name: str, work: Path) -> dict:
    """The answers of one set: the answerable and unanswerable halves on the held-out
    index, every query on the full one."""
    docs, queries, qrels = LOADERS[name]()
    first, second, held = split_of(name, queries, qrels)
    full = build(work / "full", docs)
    on_held = held_out(work, full, held)
    return {
        "docs": len(docs),
        "held_docs": len(held),
        "answerable": answers(on_held, queries, first),
        "unanswerable": answers(on_held, queries, second),
        "full": answers(full, queries, list(queries)),
        "qrels": {q: qrels[q] for q in queries},
    }


def best(record: dict, key: str) -> float:
    """The best value of a hit evidence field (``z`` or ``coverage``) in one answer."""
    values = [h[key] for h in record["hits"] if key in h]
    return max(values, default=0.0 if key == "coverage" else -10.0)


def strength(record: dict) -> float:
    """The answer's evidence on one scale (:func:`evidence.strength` of its best hit)."""
    from minirag_store.index.search.evidence import strength as of

    return max((of(h.get("coverage"), h.get("z")) for h in record["hits"]), default=0.0)


def separation(yes: dict, no: dict, score: Callable[[dict], float]) -> float:
    """AUROC of ``score`` of the answers separating answerable from unanswerable."""
    return round(auroc([score(r) for r in yes.values()], [score(r) for r in no.values()]), 4)


def figures(got: dict) -> dict:
    """AUROC, flag rates and nDCG@10 of one set's answers."""
    yes, no, qrels = got["answerable"], got["unanswerable"], got["qrels"]

    def ndcg(records: dict) -> float:
        return round(sum(ndcg10(r["docs"], qrels[q]) for q, r in records.items()) / len(records), 4)

    def flagged(records: dict) -> float:
        return round(sum(r["best"] == "weak" for r in records.values()) / len(records), 4)

    return {
        "docs": got["docs"],
        "held_docs": got["held_docs"],
        "answerable": len(yes),
        "unanswerable": len(no),
        "auroc": separation(yes, no, strength),
        "auroc_z": separation(yes, no, lambda r: best(r, "z")),
        "auroc_coverage": separation(yes, no, lambda r: best(r, "coverage")),
        "unanswerable_flagged": flagged(no),
        "answerable_flagged": flagged(yes),
        "ndcg_answerable": ndcg(yes),
        "ndcg_full": ndcg(got["full"]),
    }


def identifiers(work: Path, count: int = 60) -> dict:
    """A generated corpus holding made-up identifiers; queries for ``count`` present and
    ``count`` absent ones (bare, and in a sentence). The share of absent ones the notice
    names, and of present ones it names (wrongly)."""
    import random

    rng = random.Random(47)
    letters = "ABCDEFGHJKLMNPQRSTUVWXYZ"

    def made() -> str:
        kind = rng.randrange(3)
        if kind == 0:
            return f"{''.join(rng.choices(letters, k=4))}-{rng.randrange(1000, 9999)}"
        if kind == 1:
            return "".join(rng.choices(letters + "0123456789", k=10))
        head, tail = rng.choice(["err", "cfg", "svc"]), rng.choice(["conn", "disk", "auth"])
        return f"{head}_{tail}_{rng.randrange(100, 999)}"

    ids = list(dict.fromkeys(made() for _ in range(4 * count)))[: 2 * count]
    present, absent = ids[:count], ids[count:]
    topics = ["the pump", "the billing run", "the nightly export", "the badge reader"]
    docs = {
        f"d{i:03d}": f"# Ticket {i}\n\nIncident {code} hit {rng.choice(topics)} on day {i}; "
        f"it was closed after a restart.\n"
        for i, code in enumerate(present)
    }
    index = build(work / "full", docs)
    named = {"absent": 0, "present": 0}
    for kind, codes in (("absent", absent), ("present", present)):
        for code in codes:
            for query in (code, f"what happened with {code} last week"):
                said = index.query(query).get("notice", "")
                named[kind] += f'"{code}"' in said
    return {
        "queries": 4 * count,
        "absent_named": round(named["absent"] / (2 * count), 4),
        "present_named": round(named["present"] / (2 * count), 4),
    }


def mean_ndcg(index: Index, queries: dict, qrels: dict, ids: list[str]) -> float:
    """Mean nDCG@10 of the queries ``ids`` (topK 30, first hit per document)."""
    total = sum(ndcg10(doc_order(index.query(queries[q], top_k=FETCH)), qrels[q]) for q in ids)
    return round(total / len(ids), 4)


def ndcg_only(work: Path, names: list[str]) -> dict:
    """nDCG@10 of the answerable half (held-out index) and of every query (full index),
    with whatever code this process imports (``--before-src`` runs it on the base's)."""
    out = {}
    for name in names:
        _, queries, qrels = LOADERS[name]()
        first, _, _ = split_of(name, queries, qrels)
        full = open_index(work / name / "full", work / name / "full" / "docs")
        held = open_index(work / name / "held", work / name / "full" / "docs")
        out[name] = {
            "ndcg_answerable": mean_ndcg(held, queries, qrels, first),
            "ndcg_full": mean_ndcg(full, queries, qrels, list(queries)),
        }
    return out


def table_of(sets: dict) -> str:
    """A markdown table: one row per set."""
    lines = [
        "| set | answerable / unanswerable | AUROC | unanswerable flagged | answerable flagged "
        "| nDCG@10 answerable before → after | nDCG@10 all before → after |",
        "|---|---|---:|---:|---:|---|---|",
    ]
    for name, f in sets.items():
        before = f.get("before", {})
        lines.append(
            f"| {name} | {f['answerable']} / {f['unanswerable']} | {f['auroc']:.3f} "
            f"| {f['unanswerable_flagged']:.1%} | {f['answerable_flagged']:.1%} "
            f"| {before.get('ndcg_answerable', float('nan')):.4f} → {f['ndcg_answerable']:.4f} "
            f"| {before.get('ndcg_full', float('nan')):.4f} → {f['ndcg_full']:.4f} |"
        )
    return "\n".join(lines)


def join(runs: list[Path], target: Path) -> None:
    """The sets of several runs of this script (each run's commit and date kept beside
    its sets) as one file, provenance from the last run."""
    from results_io import write_json

    sets, ids, meta = {}, {}, {}
    for run in runs:
        data = json.loads(run.read_text())
        stamp = {k: data[k] for k in ("commit", "measured") if k in data}
        sets |= {name: {**f, "measured": stamp} for name, f in data["sets"].items()}
        ids = data["identifiers"]
        meta = {k: v for k, v in data.items() if k not in ("sets", "identifiers")}
    sets = {n: sets[n] for n in LOADERS if n in sets}
    print(table_of(sets))
    write_json(target, {"sets": sets, "identifiers": ids}, meta)


def main() -> None:
    """Build what is missing, answer every query, print the table and write the JSON."""
    import os
    import subprocess
    import sys

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path("/tmp/minirag-answerable"))
    parser.add_argument("--only", default="", help="comma-separated set names")
    parser.add_argument("--before-src", type=Path, help="a checkout of the base commit")
    parser.add_argument("--ndcg-only", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--json", type=Path, default=RESULTS)
    parser.add_argument(
        "--merge", action="store_true", help="keep the sets of --json that --only leaves out"
    )
    parser.add_argument(
        "--merge-from", type=Path, nargs="+", help="only join these runs' sets into --json"
    )
    args = parser.parse_args()
    names = [n for n in LOADERS if n in args.only.split(",")] if args.only else list(LOADERS)
    if args.ndcg_only:
        print(json.dumps(ndcg_only(args.work, names)))
        return
    if args.merge_from:
        join(args.merge_from, args.json)
        return
    from results_io import provenance, write_json

    meta = provenance()
    sets = {}
    if args.merge and args.json.is_file():
        sets = {
            k: v for k, v in json.loads(args.json.read_text())["sets"].items() if k not in names
        }
    for name in names:
        records = args.work / name / "records.json"
        got = collect(name, args.work / name)
        records.write_text(json.dumps(got))
        sets[name] = figures(got)
        print(name, sets[name], flush=True)
    if args.before_src is not None:
        src = args.before_src / "packages"
        env = {**os.environ, "PYTHONPATH": f"{src}/minirag-store/src:{src}/minirag-chunker/src"}
        cmd = [sys.executable, __file__, "--ndcg-only", "--work", str(args.work)]
        cmd += ["--only", ",".join(names)]
        ran = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
        for name, before in json.loads(ran.stdout.splitlines()[-1]).items():
            sets[name]["before"] = before
    ids = identifiers(args.work / "identifiers")
    sets = {n: sets[n] for n in LOADERS if n in sets}
    print(table_of(sets))
    print(f"identifiers: {ids}")
    write_json(args.json, {"sets": sets, "identifiers": ids}, meta)


if __name__ == "__main__":
    main()
