"""A PDF page as an image (``Index.page_image``): drawn cold vs served from the cache (p50).

A few real PDFs (a vendored fixture, data-set PDFs when ../shared/data is there: a paper
with pictures and tables, a slide deck exported as PDF) and two generated ones (a table
page, and a page of noise no PNG compresses, which is drawn twice to fit 1.5 MB) are
indexed once; then each one's page is asked for ``--repeats`` times with its cached file
removed first (cold: hash look-up, draw, PNG, write) and ``--repeats`` times with it kept
(cached: the index look-ups and one file read). Figures are per document and the p50 of
all of them.

    uv run python bench/page_image.py [--repeats 9]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from minirag_store import Index
from minirag_testkit import model_env
from minirag_testkit.pdfs import AUDIT_PAGES, drawn_pdf, table_pdf
from results_io import RESULTS as RESULTS_DIR
from results_io import provenance, write_json

RESULTS = RESULTS_DIR / "page_image.json"
REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data" / "kreuzberg_test_documents" / "pdfs"
#: (file, page): what is read of each
REAL = [
    (REPO / "tests" / "fixtures" / "kreuzberg" / "medium.pdf", 2),
    (DATA / "embedded_images_tables.pdf", 1),
    (DATA / "perfect_hash_functions_slides.pdf", 3),
]


def _docs(root: Path) -> list[tuple[str, int]]:
    """Write the documents under ``root``; ``(displayPath, page)`` of each."""
    out = []
    for path, page in REAL:
        if path.exists():
            (root / path.name).write_bytes(path.read_bytes())
            out.append((path.name, page))
    (root / "generated-table.pdf").write_bytes(table_pdf(AUDIT_PAGES))
    (root / "generated-noise.pdf").write_bytes(drawn_pdf(1, noise=True))
    return [*out, ("generated-table.pdf", 2), ("generated-noise.pdf", 1)]


def _time(call: Callable[[], object]) -> float:
    start = time.perf_counter()
    call()
    return (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=9, help="reads of each kind per page")
    args = parser.parse_args()
    meta = provenance()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "docs"
        root.mkdir()
        docs = _docs(root)
        index = Index.open({**model_env(), "BASE_DIR": str(root), "DB_PATH": f"{tmp}/index"})
        index.sync()
        index.page_image(*docs[0])  # imports (pypdfium2, Pillow) before the first timing
        rows, colds, hits = {}, [], []
        for name, page in docs:
            first = index.page_image(name, page)
            cached = Path(first["path"])

            def cold(name: str = name, page: int = page, cached: Path = cached) -> None:
                cached.unlink(missing_ok=True)
                assert not index.page_image(name, page)["cached"]

            def warm(name: str = name, page: int = page) -> None:
                assert index.page_image(name, page)["cached"]

            cold_ms = [_time(cold) for _ in range(args.repeats)]
            warm_ms = [_time(warm) for _ in range(args.repeats)]
            colds += cold_ms
            hits += warm_ms
            rows[name] = {
                "page": page,
                "size_px": f"{first['width']}x{first['height']}",
                "png_kb": round(len(first["png"]) / 1024),
                "scale": first["scale"],
                "cold_p50_ms": round(statistics.median(cold_ms), 1),
                "cached_p50_ms": round(statistics.median(warm_ms), 1),
            }
        index.close()
    print(f"{'document':40} {'page':>4} {'size':>10} {'KB':>6} {'cold ms':>8} {'cached':>7} ratio")
    for name, row in rows.items():
        ratio = row["cold_p50_ms"] / row["cached_p50_ms"]
        print(
            f"{name:40} {row['page']:>4} {row['size_px']:>10} {row['png_kb']:>6} "
            f"{row['cold_p50_ms']:>8} {row['cached_p50_ms']:>7} {ratio:5.1f}x"
        )
    figures = {
        "repeats": args.repeats,
        "cold_p50_ms": round(statistics.median(colds), 1),
        "cached_p50_ms": round(statistics.median(hits), 1),
        "documents": rows,
    }
    figures["cold_over_cached"] = round(figures["cold_p50_ms"] / figures["cached_p50_ms"], 1)
    print(
        f"all pages: cold p50 {figures['cold_p50_ms']} ms, cached p50 "
        f"{figures['cached_p50_ms']} ms ({figures['cold_over_cached']}x)"
    )
    write_json(RESULTS, figures, meta)


if __name__ == "__main__":
    main()
