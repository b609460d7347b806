"""Chunking throughput against one plain tokenization pass over the same text.

Target (issue 2): chunking costs at most 2x one tokenization pass. Documents are real: the
markitdown conversions of the office/PDF files in ../shared/data (markitdown test files and
the Russian thesis) plus BEIR SciFact abstracts written as markdown (title heading + text).

    uv run python bench/chunker.py [--repeat 3] [--scifact-docs 2000]
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path

from minirag_chunker import (
    DEFAULT_RECOUNT,
    RECOUNT_EVERY_UNIT,
    RecountPolicy,
    chunk_markdown,
    counter_from_tokenizer_file,
)
from minirag_testkit import model_dir
from results_io import RESULTS as RESULTS_DIR
from results_io import provenance, write_json

RESULTS = RESULTS_DIR / "chunker.json"

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
OFFICE = (
    "markitdown_test_files/test_files/test.docx",
    "markitdown_test_files/test_files/test.pptx",
    "markitdown_test_files/test_files/test.xlsx",
    "markitdown_test_files/test_files/test.pdf",
    "markitdown_test_files/test_files/test_with_comment.docx",
    "markitdown_test_files/test_files/masterformat_partial_numbering.pdf",
    "markitdown_test_files/test_files/test_wikipedia.html",
    "markitdown_test_files/test_files/test_blog.html",
    "russian_docs/master_thesis/Записка.docx",
    "russian_docs/master_thesis/Автореферат.docx",
    "russian_docs/master_thesis/Презентация.pptx",
    "russian_docs/udhr/rus.html",
)


def office_docs() -> list[tuple[str, str]]:
    """(name, markdown) for each office/PDF file markitdown converts."""
    from markitdown import MarkItDown

    converter = MarkItDown()
    out = []
    for rel in OFFICE:
        path = DATA / rel
        if path.is_file():
            out.append((path.name, converter.convert(str(path)).text_content))
    return out


def scifact_docs(limit: int) -> list[tuple[str, str]]:
    """SciFact abstracts as small markdown documents (title heading + abstract)."""
    out = []
    with (DATA / "beir_scifact" / "corpus.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            if len(out) >= limit:
                break
            doc = json.loads(line)
            out.append((doc["_id"], f"# {doc['title']}\n\n{doc['text']}\n"))
    return out


def best_of(repeat: int, run: Callable[[], object]) -> float:
    """Fastest wall time of ``repeat`` runs (least disturbed by the shared CPUs)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def measure(
    name: str,
    docs: list[tuple[str, str]],
    repeat: int,
    recount: RecountPolicy = DEFAULT_RECOUNT,
) -> tuple[str, ...]:
    """One table row: size, tokenize MB/s, chunk MB/s, ratio, units, max unit tokens."""
    from tokenizers import Tokenizer

    tok_path = model_dir() / "tokenizer.json"
    count = counter_from_tokenizer_file(tok_path)
    tokenizer = Tokenizer.from_file(str(tok_path))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    texts = [md for _, md in docs]
    megabytes = sum(len(t.encode("utf-8")) for t in texts) / 1e6

    def tokenize() -> None:
        for text in texts:
            tokenizer.encode(text, add_special_tokens=False)

    def chunk() -> None:
        for text in texts:
            chunk_markdown(text, count_tokens=count, budget=110, recount=recount)

    t_tok = best_of(repeat, tokenize)
    t_batch = best_of(repeat, lambda: tokenizer.encode_batch(texts, add_special_tokens=False))
    t_chunk = best_of(repeat, chunk)
    units = [
        u for text in texts for u in chunk_markdown(text, count_tokens=count, recount=recount).units
    ]
    biggest = max((count(u.text) for u in units), default=0)
    return (
        name,
        f"{len(docs)}",
        f"{megabytes:.2f}",
        f"{megabytes / t_tok:.2f}",
        f"{megabytes / t_batch:.2f}",
        f"{megabytes / t_chunk:.2f}",
        f"{t_chunk / t_tok:.2f}x",
        f"{len(units)}",
        f"{biggest}",
    )


def main() -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--scifact-docs", type=int, default=2000)
    args = parser.parse_args()
    meta = provenance()  # load average before: other work on the machine skews every figure
    office = office_docs()
    science = scifact_docs(args.scifact_docs)
    joined = "\n\n".join(md for _, md in science)
    rows = [
        measure("office+pdf (markitdown)", office, args.repeat),
        measure("office+pdf, every unit re-counted", office, args.repeat, RECOUNT_EVERY_UNIT),
        measure("scifact abstracts", science, args.repeat),
        measure("scifact as one document", [("all", joined)], args.repeat),
    ]
    header = (
        "corpus",
        "docs",
        "MB",
        "encode MB/s",
        "encode_batch MB/s",
        "chunk MB/s",
        "chunk/encode",
        "units",
        "max unit tok",
    )
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, tuple("-" * w for w in widths), *rows]:
        print(" | ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)))
    print("\nchunk/encode = chunking time / one sequential encode pass (target <= 2x);")
    print("encode_batch uses every core, shown for reference; budget 110, all-MiniLM-L6-v2.")
    keys = [h.replace(" ", "_").replace("/", "_per_") for h in header]
    write_json(RESULTS, {"rows": [dict(zip(keys, row, strict=True)) for row in rows]}, meta)
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
