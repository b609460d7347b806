"""What fitting an answer to RAG_MAX_RESPONSE_TOKENS costs a query: its pieces cut at
whitespace against cut at quotes, side by side on the same answers.

Why: every query's answer is counted in the model's tokens before it is returned
(``minirag_store.budget.fit_query``), and one over the budget is counted again for each
trimmed version tried: ~3-4 ms of a 15-20 ms query at 100k chunks. The counter remembers
the pieces it encoded; cut at whitespace, a trimmed answer shares only the pieces before
its first change, cut before quotes (a BERT tokenizer makes every ``"`` a token of its
own: ``minirag_store.index.embed.counter.quotes_stand_alone``), each hit's text and
section is a piece wherever it stands.

The answers are real: ``--queries`` SciFact/NFCorpus queries through ``Index.query`` with
no budget, over ``bench/scale.py``'s cached base index (real chunks, real model). Each
way gets a fresh counter and fits the answers in query order, as one server would; both
must give the same fitted answer.

    uv run python bench/budget.py [--queries 300] [--budgets 6000,2000] [--cache DIR]

Writes bench/results/budget.json beside the table it prints.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from results_io import provenance, write_json
from scale import base_rows, corpus_queries

RESULTS = Path(__file__).resolve().parent / "results" / "budget.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument(
        "--budgets",
        type=lambda text: [int(b) for b in text.split(",")],
        default=[6000, 2000],
        help="RAG_MAX_RESPONSE_TOKENS values (the default, and one most answers go over)",
    )
    parser.add_argument("--base-docs", type=int, default=1000, help="documents per corpus")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "minirag-scale")
    args = parser.parse_args()

    from minirag_store import Index
    from minirag_testkit import model_env

    meta = provenance()
    base_rows(args.base_docs, args.cache)  # builds the base index once, if not cached
    root = args.cache / f"base-{args.base_docs}"
    env = {**model_env(), "BASE_DIR": str(root / "docs"), "DB_PATH": str(root / "db")}
    env["RAG_MAX_RESPONSE_TOKENS"] = str(10**9)  # the whole answers, fitted below
    index = Index.open(env)
    answers = [index.query(q) for q in corpus_queries(args.queries)]
    index.close()
    tokenizer = Path(env["MODEL_PATH"]) / "tokenizer.json"
    rows = [fit_both(answers, budget, tokenizer) for budget in args.budgets]
    print("| budget (tokens) | answers trimmed | pieces cut at | p50 ms | p95 ms | mean ms |")
    print("|---:|---:|---|---:|---:|---:|")
    for row in rows:
        for way, f in row["ways"].items():
            print(
                f"| {row['budget_tokens']} | {row['trimmed']} / {len(answers)} | {way} "
                f"| {f['p50_ms']} | {f['p95_ms']} | {f['mean_ms']} |"
            )
        print(f"quotes / whitespace at {row['budget_tokens']}: {row['quotes_vs_whitespace']}")
    write_json(
        RESULTS,
        {"bench": "budget", "answers": len(answers), "cores": os.cpu_count(), "rows": rows},
        meta,
    )
    print(f"wrote {RESULTS}")


def fit_both(answers: list[dict], budget: int, tokenizer: Path) -> dict:
    """Each answer fitted to ``budget`` both ways (a fresh counter each), timed."""
    from minirag_store.budget import fit_query
    from minirag_store.index.embed.counter import budget_counter

    figures, fitted = {}, {}
    for way, quotes in {"whitespace": False, "quotes": True}.items():
        count = budget_counter(tokenizer, quotes=quotes)
        times, out = [], []
        for answer in answers:
            start = time.perf_counter()
            out.append(fit_query(answer, budget, count))
            times.append((time.perf_counter() - start) * 1000)
        fitted[way] = out
        times.sort()
        figures[way] = {
            "p50_ms": round(statistics.median(times), 2),
            "p95_ms": round(times[int(0.95 * (len(times) - 1))], 2),
            "mean_ms": round(statistics.fmean(times), 2),
        }
    if fitted["whitespace"] != fitted["quotes"]:
        raise SystemExit(f"the two ways fitted some answer differently at {budget}: a counting bug")
    quotes, whitespace = figures["quotes"], figures["whitespace"]
    return {
        "budget_tokens": budget,
        "trimmed": sum("trimmed" in a for a in fitted["quotes"]),
        "ways": figures,
        "quotes_vs_whitespace": {k: round(quotes[k] / whitespace[k], 2) for k in quotes},
    }


if __name__ == "__main__":
    main()
