"""The index summary: what ``status``, ``list`` and a sync's plan read, kept in one file.

Why: those three need only per-source metadata and a few counts, but reading them from
LanceDB means importing it first, and ``import lancedb`` alone costs more than the whole
half-second a ``status`` may take (its REST client's models and pandas). So each full
read of the metadata is also written to ``<DB_PATH>/index-summary.json``, tagged with the
table version LanceDB reported, and the next process answers from that file while it is
current. A ``sync`` with nothing to do then never opens LanceDB or the model either.

When is the file current? It is our own data, kept honest by the writers, not a guess
from LanceDB's files:

* every write in this package goes through ``ChunkTable._writing``, which removes the
  file **before** it commits and again **after** (:func:`invalidate`);
* a reader that rebuilt the summary from the table writes it (atomically: temporary
  file + rename) and then asks LanceDB for the latest version again: if a commit landed
  meanwhile, it removes its file (:func:`store`).

So a writer's commit either precedes the reader's second look (the reader removes its
own file) or follows its rename (the writer's second removal does). One window remains:
a writer killed between its commit and its second removal, while another process was
rebuilding the summary at that very moment; the summary is then behind until the next
write. And a writer outside minirag (another LanceDB client changing the table) must
remove the file, or ``status`` and a no-op ``sync`` go on describing the version before.
In a process that has the table open, the summary is also checked against the version
LanceDB reports, so searches, reads and writes never depend on it.

An index on object storage has no summary file (``db_path`` None below): another
machine's commit could not remove it, so status, list and sync read the table there.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

__all__ = ["FILE_NAME", "IndexSummary", "SourceMeta", "invalidate", "load", "store", "summarize"]

FILE_NAME = "index-summary.json"
#: Bumped when the file's layout changes: an older layout is simply rebuilt.
FORMAT = 2  # 2: SourceMeta.located


@dataclass(frozen=True)
class SourceMeta:
    """What the index holds about one source (read without touching vectors or text)."""

    source_type: str
    title: str
    file_hash: str
    mtime: float
    size: int
    chunk_count: int
    scheme_version: int  # the oldest scheme among its chunks
    ocr_engine: str
    located: bool = True  # False: some chunk was written before locators (sync re-reads it)


@dataclass(frozen=True)
class IndexSummary:
    """Per-source metadata and counts of one table version."""

    version: int
    model_id: str
    dim: int
    sources: dict[str, SourceMeta]
    chunks_by_scheme: dict[int, int]  # chunking scheme -> chunks cut by it
    keywords_version: int  # the oldest keyword scheme among the rows (0: unrecorded)

    @property
    def chunk_count(self) -> int:
        return sum(self.chunks_by_scheme.values())

    def keywords_stale(self, keywords_version: int) -> bool:
        """Whether some keyword entries predate the keyword scheme ``keywords_version``."""
        return bool(self.sources) and self.keywords_version < keywords_version

    def stale_count(self, scheme_version: int) -> int:
        """Chunks cut by a chunking scheme older than ``scheme_version``."""
        return sum(n for scheme, n in self.chunks_by_scheme.items() if scheme < scheme_version)


def path_for(db_path: Path) -> Path:
    return Path(db_path) / FILE_NAME


def load(db_path: Path | None) -> IndexSummary | None:
    """The current summary of the index at ``db_path``, or None (absent, outdated layout,
    unreadable, or no local folder: the caller reads the table instead)."""
    if db_path is None:
        return None
    try:
        raw = json.loads(path_for(db_path).read_text(encoding="utf-8"))
        if raw.get("format") != FORMAT:
            return None
        return IndexSummary(
            version=int(raw["version"]),
            model_id=str(raw["model"]),
            dim=int(raw["dim"]),
            sources={s: SourceMeta(*fields) for s, fields in raw["sources"].items()},
            chunks_by_scheme={int(k): int(v) for k, v in raw["chunksByScheme"].items()},
            keywords_version=int(raw["keywordsVersion"]),
        )
    # absent, half-readable or hand-edited: never trusted, never an error
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _encode(summary: IndexSummary) -> dict[str, Any]:
    sources: Mapping[str, SourceMeta] = summary.sources
    return {
        "format": FORMAT,
        "version": summary.version,
        "model": summary.model_id,
        "dim": summary.dim,
        "chunksByScheme": {str(k): v for k, v in summary.chunks_by_scheme.items()},
        "keywordsVersion": summary.keywords_version,
        "sources": {s: _fields(m) for s, m in sources.items()},
    }


def _fields(m: SourceMeta) -> list[Any]:
    """A source's metadata as the list :func:`load` reads back, in field order."""
    return [m.source_type, m.title, m.file_hash, m.mtime, m.size, m.chunk_count,
            m.scheme_version, m.ocr_engine, m.located]  # fmt: skip


def store(db_path: Path | None, summary: IndexSummary, latest_version: Any) -> bool:
    """Write ``summary`` atomically, then keep it only if ``latest_version()`` (asked of
    LanceDB after the rename) is still the summary's version. True when it was kept.

    A failure to write (read-only folder, full disk) only means the next process reads
    the table again, so it is not raised.
    """
    if db_path is None:
        return False
    target = path_for(db_path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=".summary-", suffix=".tmp", dir=db_path)
    except OSError:
        return False
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(_encode(summary), out, ensure_ascii=False, separators=(",", ":"))
        os.replace(tmp, target)
    except OSError:
        Path(tmp).unlink(missing_ok=True)
        return False
    if latest_version() != summary.version:
        invalidate(db_path)
        return False
    return True


def invalidate(db_path: Path | None) -> None:
    """Remove the summary (a writer calls this before and after each commit)."""
    if db_path is None:
        return
    # a folder we cannot write to holds no summary of ours either
    with contextlib.suppress(OSError):
        path_for(db_path).unlink(missing_ok=True)


def summarize(
    rows: Iterable[Mapping[str, Any]],
    *,
    version: int,
    model_id: str,
    dim: int,
    keywords_column: str | None,
    keywords_default: int,
) -> IndexSummary:
    """The summary of a table version from its metadata rows (one per chunk; any
    iterable, read once, so a caller can stream them batch by batch).

    A source's metadata is taken from its chunk of the oldest chunking scheme, so a source
    half-way through a scheme change still counts as stale. ``keywords_column`` names the
    keyword-scheme column when the table has one (its lowest value is the table's scheme;
    ``keywords_default`` when there are no rows); without it the scheme is 0.
    """
    metas: dict[str, SourceMeta] = {}
    counts: dict[str, int] = {}
    unlocated: set[str] = set()  # rows without ``located`` (no column yet) count as such
    by_scheme: dict[int, int] = {}
    lowest_keywords: int | None = None  # a running minimum: ``rows`` may be a stream
    for row in rows:
        source, scheme = row["source"], row["scheme_version"]
        counts[source] = counts.get(source, 0) + 1
        if not row.get("located", False):
            unlocated.add(source)
        by_scheme[scheme] = by_scheme.get(scheme, 0) + 1
        if keywords_column is not None:
            entry = row[keywords_column] or 0
            lowest_keywords = entry if lowest_keywords is None else min(lowest_keywords, entry)
        prev = metas.get(source)
        if prev is None or scheme < prev.scheme_version:
            metas[source] = SourceMeta(
                row["source_type"], row["title"], row["file_hash"], row["mtime"],
                row["size"], 0, scheme, row["ocr_engine"],
            )  # fmt: skip
    return IndexSummary(
        version=version,
        model_id=model_id,
        dim=dim,
        sources={
            s: replace(m, chunk_count=counts[s], located=s not in unlocated)
            for s, m in metas.items()
        },
        chunks_by_scheme=by_scheme,
        keywords_version=(
            (keywords_default if lowest_keywords is None else lowest_keywords)
            if keywords_column
            else 0
        ),
    )
