"""Converted documents → chunks → vectors → rows, in batches across documents.

:class:`DocumentWriter` chunks each :class:`Document` into a *window* of several
documents, embeds the window's chunks in length order (a batch is padded to its longest
text, so grouping similar lengths wastes less) in batches of
:data:`~minirag_store.index.embed.embedding.EMBED_BATCH`, and commits the documents whose chunks are
all embedded. A source is never split across commits, so each one stays atomic for
readers; and a commit costs a manifest write and a merge whatever its size, so documents
are committed together, but at least every :data:`COMMIT_SECONDS` while work goes on:
each document is reported (and counted ``ingested``) as soon as its rows are committed,
so a job's counts move during a sync of a few hundred small files or a few big ones
instead of jumping once per window.

What is embedded is each chunk's *readable* text (:mod:`minirag_store.index.text.readable`: link
text without targets, alt text without paths, no HTML tags), while the row keeps the markdown
the chunker cut, which is what reconstructs sections and what a caller reads back.

A chunk whose embedding input is the same as a stored chunk of the sources being replaced
keeps that stored vector instead of being embedded again
(:mod:`minirag_store.index.embed.embed_inputs`): re-reading a file after an edit, a chunking-scheme
bump or a metadata upgrade embeds only the chunks that changed. :attr:`DocumentWriter.embedded`
and :attr:`DocumentWriter.reused` count both kinds.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from minirag_store.index.embed.embed_inputs import embed_texts
from minirag_store.index.storage.schema import parent_key
from minirag_store.index.text.language import release_detector
from minirag_store.index.text.readable import readable
from minirag_store.index.write.chunk_locators import locate
from minirag_store.locators import encode as encode_locator

if TYPE_CHECKING:
    import numpy as np

    from minirag_store.index.embed.embedding import Embedder
    from minirag_store.index.table import ChunkTable

__all__ = [
    "COMMIT_SECONDS",
    "FLUSH_CHUNKS",
    "FLUSH_DOCS",
    "MAINTAIN_ROWS",
    "Document",
    "DocumentWriter",
    "document_rows",
    "embed_texts",
]

#: A window holds at most this many chunks (16 embedding batches sorted together) ...
FLUSH_CHUNKS = 512
#: ... or this many documents.
FLUSH_DOCS = 64
#: Commit embedded documents at least this often, and embed a window whose first document
#: has waited this long. A commit (merge + manifest) measured 70-400 ms on the shared 2-core
#: machine under load, whatever its size: per file it would dominate small files, and at
#: most two a second it stays a small share of the embedding it follows.
COMMIT_SECONDS = 0.5
#: A long write maintains the table (:meth:`~minirag_store.index.table.ChunkTable.maintain`)
#: each time it has committed this many rows, not only at its end: what one maintenance
#: compacts and folds into the indexes stays about this size, each commit's by-source
#: look-ups stay on indexes (a 10x SciFact sync: 527 s against 1,088 s maintained only at
#: its end, two runs side by side), and the rows written so far are indexed if the sync
#: stops early. Its peak memory still grows with the corpus (bench/sync_memory.py).
MAINTAIN_ROWS = 32_768
#: Rows are embedded in order of (length // this, document): near-equal lengths pad alike,
#: and within one bucket a document's chunks stay together, so documents complete (and get
#: committed) one after another through the window instead of all in its last batch.
_LENGTH_BUCKET = 128


@dataclass(frozen=True)
class Document:
    """A converted source ready to index.

    ``seed_title``: prepend ``title`` to the first chunk (files always; data/URL sources
    only when the title is their own, not just their id).
    """

    source: str
    source_type: Literal["file", "data", "url"]
    title: str
    markdown: str
    file_hash: str = ""
    mtime: float = 0.0
    size: int = 0
    ocr_engine: str = ""
    seed_title: bool = True
    marks: tuple[tuple[int, dict[str, Any]], ...] = ()  # where pages/slides/rows start


@dataclass
class _Window:
    """Chunked documents waiting to be embedded, and when the first of them arrived."""

    docs: list[Document] = field(default_factory=list)
    rows: list[list[dict[str, Any]]] = field(default_factory=list)  # per document
    embed: list[list[str]] = field(default_factory=list)  # what each row's vector is made from
    chunks: int = 0
    since: float = 0.0
    #: Per document: seconds chunking it, and its share of the embedding batches (each
    #: batch's measured time split by its rows: what :attr:`DocumentWriter.timing` reports).
    seconds: list[list[float]] = field(default_factory=list)

    def add(
        self, doc: Document, rows: list[dict[str, Any]], embed: list[str], now: float, took: float
    ) -> None:
        if not self.docs:
            self.since = now
        self.docs.append(doc)
        self.rows.append(rows)
        self.embed.append(embed)
        self.chunks += len(rows)
        self.seconds.append([took, 0.0])

    def holds(self, source: str) -> bool:
        return any(d.source == source for d in self.docs)

    def full(self) -> bool:
        return self.chunks >= FLUSH_CHUNKS or len(self.docs) >= FLUSH_DOCS

    def order(self) -> list[tuple[int, int]]:
        """Every (document, row) pair in embedding order."""
        pairs = [(d, r) for d, rows in enumerate(self.rows) for r in range(len(rows))]
        return sorted(pairs, key=lambda p: (len(self.embed[p[0]][p[1]]) // _LENGTH_BUCKET, p[0]))


class DocumentWriter:
    """Writes documents into ``table``, embedded by ``embedder``, chunked to ``budget``
    tokens (RAG_CHUNK_TOKENS).

    Use :meth:`write` for any number of documents, then :meth:`finish` once (index
    refresh + compaction). Not thread-safe: one writer per batch. ``clock`` is the time
    source for :data:`COMMIT_SECONDS` (a test can pass its own); ``keep_languages``: see
    :meth:`finish`.
    """

    def __init__(
        self,
        embedder: Embedder,
        table: ChunkTable,
        budget: int,
        *,
        clock: Callable[[], float] = time.monotonic,
        keep_languages: bool = False,
    ) -> None:
        self._embedder = embedder
        self._keep_languages = keep_languages
        self._table = table
        self._budget = budget
        self._clock = clock
        self._window = _Window()
        self._last_commit = clock()
        # Stored vectors are this model's (a table refuses another model at open); checked
        # again here because a caller may inject a table and an embedder of its own.
        self._reusable = (self._table.model_id, self._table.dim) == (
            self._embedder.model_id,
            self._embedder.dim,
        )
        self.embedded = 0  # chunks run through the model
        self._unmaintained = 0  # rows committed since the last maintenance
        self.reused = 0  # chunks that kept a stored vector (the same embedding input)
        #: source -> (seconds chunking, seconds embedding) of each committed document, for
        #: the caller to take (``pop``) as :meth:`write` yields it: a sync's slowest files.
        self.timing: dict[str, tuple[float, float]] = {}

    def _rows(self, doc: Document) -> tuple[list[dict[str, Any]], list[str]]:
        return document_rows(doc, self._embedder.count_tokens, self._budget)

    def write(self, docs: Iterable[Document | None]) -> Iterator[tuple[Document, int]]:
        """Index ``docs``; yields ``(document, chunk_count)`` once each is committed.

        A ``None`` in ``docs`` says "nothing new yet": the window is embedded if its first
        document has waited :data:`COMMIT_SECONDS`, so a slow source (a big PDF being
        parsed) does not hold back documents already in hand. If chunking a document
        raises, everything before it is committed first, then the error propagates (that
        document and later ones are not written).
        """
        for doc in docs:
            if doc is None:
                if self._waited():
                    yield from self._flush()
                continue
            if self._window.holds(doc.source):
                yield from self._flush()  # one commit must not hold two versions of a source
            started = time.perf_counter()
            try:
                rows, embed = self._rows(doc)
            except Exception:
                yield from self._flush()
                raise
            took = time.perf_counter() - started
            self._window.add(doc, rows, embed, self._clock(), took)
            if self._window.full() or self._waited():
                yield from self._flush()
        yield from self._flush()

    def _waited(self) -> bool:
        window = self._window
        return bool(window.docs) and self._clock() - window.since >= COMMIT_SECONDS

    def _flush(self) -> Iterator[tuple[Document, int]]:
        """Embed the window batch by batch; commit finished documents as time passes."""
        import numpy as np

        from minirag_store.index.embed.embedding import EMBED_BATCH

        window, self._window = self._window, _Window()
        if not window.docs:
            return
        left = [len(rows) for rows in window.rows]
        vectors = [np.empty((n, self._embedder.dim), dtype=np.float32) for n in left]
        kept = self._keep_stored(window, vectors)
        for d, _ in kept:
            left[d] -= 1
        # No chunks (a commit deletes it) or every vector kept: ready without the model.
        ready = [d for d, n in enumerate(left) if n == 0]
        order = [pair for pair in window.order() if pair not in kept]
        self.reused += len(kept)
        self.embedded += len(order)
        for start in range(0, len(order), EMBED_BATCH):
            batch = order[start : start + EMBED_BATCH]
            started = time.perf_counter()
            embedded = self._embedder.embed_passages([window.embed[d][r] for d, r in batch])
            share = (time.perf_counter() - started) / len(batch)
            for (d, r), vector in zip(batch, embedded, strict=True):
                window.seconds[d][1] += share
                vectors[d][r] = vector
                left[d] -= 1
                if left[d] == 0:
                    ready.append(d)
            if ready and self._clock() - self._last_commit >= COMMIT_SECONDS:
                yield from self._commit(window, ready, vectors)
                ready = []
        if ready:
            yield from self._commit(window, ready, vectors)

    def _keep_stored(self, window: _Window, vectors: list[np.ndarray]) -> set[tuple[int, int]]:
        """Put the stored vector of the window's sources into ``vectors`` wherever a new
        row's embedding input equals a stored row's; the (document, row) pairs filled."""
        from minirag_store.index.embed.embed_inputs import (
            REUSE_COLUMNS,
            reuse_filter,
            stored_vectors,
        )

        if not self._reusable:
            return set()
        where = reuse_filter([doc.source for doc in window.docs])
        known = stored_vectors(self._table.select(where, REUSE_COLUMNS))
        kept: set[tuple[int, int]] = set()
        for d, texts in enumerate(window.embed):
            for r, text in enumerate(texts):
                stored = known.get(text)
                if stored is not None:
                    vectors[d][r] = stored
                    kept.add((d, r))
        return kept

    def _commit(
        self, window: _Window, ready: list[int], vectors: list[np.ndarray]
    ) -> Iterator[tuple[Document, int]]:
        import numpy as np

        ready = sorted(ready)
        rows = [row for d in ready for row in window.rows[d]]
        stacked = np.concatenate([vectors[d] for d in ready])
        self._table.replace_sources([window.docs[d].source for d in ready], rows, stacked)
        self._last_commit = self._clock()
        self._unmaintained += len(rows)
        if self._unmaintained >= MAINTAIN_ROWS:
            self._table.maintain(summarize=False)  # finish() leaves the summary
            self._unmaintained = 0
        for d in ready:
            self.timing[window.docs[d].source] = (window.seconds[d][0], window.seconds[d][1])
            yield window.docs[d], len(window.rows[d])

    def finish(self) -> None:
        """Fold new rows into the indexes, compact and drop old versions (once per batch,
        and every :data:`MAINTAIN_ROWS` committed rows before). The language detector is
        let go first unless ``keep_languages`` (more writes follow soon: a watched index)."""
        if not self._keep_languages:
            release_detector()
        self._table.maintain()
        self._unmaintained = 0


def document_rows(
    doc: Document, count_tokens: Callable[[str], int], budget: int
) -> tuple[list[dict[str, Any]], list[str]]:
    """The rows of ``doc``'s chunks and the text each one's vector is made from.

    Pure given the model's ``count_tokens``: the local writer and a Ray worker
    (:mod:`minirag_store.ingest.ray_stages`) both cut documents here, so both index the
    same chunks. The budget is spent on what is embedded: a link's target costs nothing
    (on a Wikipedia page, raw counting left chunks 32 readable tokens on average).
    """
    from minirag_chunker import SCHEME_VERSION, chunk_markdown

    chunked = chunk_markdown(
        doc.markdown,
        count_tokens=lambda text: count_tokens(readable(text)),
        budget=budget,
        title=doc.title if doc.seed_title and doc.title else None,
    )
    locators = locate(doc.markdown, doc.marks, chunked)
    rows = [
        {
            "source": doc.source,
            "source_type": doc.source_type,
            "title": doc.title,
            "chunk_index": unit.index,
            "text": unit.text,
            "body_start": unit.body_start,
            "parent_id": parent_key(doc.source, unit.section),
            "file_hash": doc.file_hash,
            "mtime": float(doc.mtime),
            "size": int(doc.size),
            "ocr_engine": doc.ocr_engine,
            "scheme_version": SCHEME_VERSION,
            "locator": encode_locator(locator),
        }
        for unit, locator in zip(chunked.units, locators, strict=True)
    ]
    return rows, embed_texts(chunked.units)
