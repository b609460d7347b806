"""``stale: true`` on a hit (and its source) whose file changed or went away on disk since
it was indexed; an unchanged file, a data source and a re-synced file carry no flag."""

from __future__ import annotations

import os
from pathlib import Path

from minirag_testkit.answers import expand


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def _flags(result: dict) -> tuple[dict[str, bool], dict[str, bool]]:
    hits = {h["source"]: h.get("stale", False) for h in result["results"]}
    sources = {s["source"]: s.get("stale", False) for s in result["sources"]}
    return hits, sources


def test_stale_says_which_hits_changed_on_disk(make_index, docs_root: Path) -> None:
    otters = _write(docs_root / "otters.md", "# Otters\n\nSea otters hold hands while asleep.")
    seals = _write(docs_root / "seals.md", "# Seals\n\nHarbour seals sleep on sandbanks.")
    gone = _write(docs_root / "walrus.md", "# Walrus\n\nWalruses sleep in the water too.")
    index = make_index()
    index.sync()
    index.ingest_data("Dolphins sleep with one half of the brain.", "notes/dolphins")
    query = "which animals sleep how"
    hits, sources = _flags(expand(index.query(query, top_k=10)))
    assert set(hits) == {str(otters), str(seals), str(gone), "notes/dolphins"}
    assert not any(hits.values()) and not any(sources.values())

    _write(seals, "# Seals\n\nHarbour seals sleep on sandbanks at low tide.")  # size changes
    os.utime(otters, (2e9, 2e9))  # same bytes, new mtime: it may have changed
    gone.unlink()
    hits, sources = _flags(expand(index.query(query, top_k=10)))
    stale = {str(otters), str(seals), str(gone)}
    assert hits == {s: s in stale for s in hits} and sources == {s: s in stale for s in sources}

    index.sync()
    hits, _ = _flags(expand(index.query(query, top_k=10)))
    assert hits == {str(otters): False, str(seals): False, "notes/dolphins": False}
