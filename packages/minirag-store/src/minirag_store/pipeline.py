"""Converted documents → chunks → vectors → rows, in batches across documents.

:class:`DocumentWriter` chunks each :class:`Document`, buffers several documents, embeds
all their chunks together in batches of :data:`~minirag_store.embedding.EMBED_BATCH` and
writes the buffer as **one** commit that replaces every buffered source at once. A source
is never split across commits, so each one stays atomic for readers, while a sync of many
small files pays for one LanceDB commit per buffer instead of one per file (each commit
costs a manifest write and a merge; per file that would dominate small documents).

What is embedded is each chunk's *readable* text (:mod:`minirag_store.readable`: link text
without targets, alt text without paths, no HTML tags), while the row keeps the markdown
the chunker cut, which is what reconstructs sections and what a caller reads back.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from minirag_store.readable import readable, readable_pieces
from minirag_store.table import parent_key

if TYPE_CHECKING:
    from minirag_chunker import Unit

    from minirag_store.service import Index

__all__ = ["FLUSH_CHUNKS", "FLUSH_DOCS", "Document", "DocumentWriter", "embed_texts"]

#: Flush the buffer once it holds this many chunks (16 embedding batches) ...
FLUSH_CHUNKS = 512
#: ... or this many documents, so progress is reported regularly on tiny files.
FLUSH_DOCS = 64


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


@dataclass
class _Pending:
    docs: list[Document] = field(default_factory=list)
    rows: list[dict[str, Any]] = field(default_factory=list)
    embed: list[str] = field(default_factory=list)  # what each row's vector is made from
    counts: list[int] = field(default_factory=list)


class DocumentWriter:
    """Writes documents into an :class:`~minirag_store.service.Index`'s table.

    Use :meth:`write` for any number of documents, then :meth:`finish` once (index
    refresh + compaction). Not thread-safe: one writer per batch.
    """

    def __init__(self, index: Index) -> None:
        self._embedder = index.embedder()
        self._table = index.table()
        self._budget = index.config.chunk_token_budget
        self._pending = _Pending()

    def _count_readable(self, text: str) -> int:
        """The chunk budget is spent on what is embedded: a link's target costs nothing
        (on a Wikipedia page, raw counting left chunks 32 readable tokens on average)."""
        return self._embedder.count_tokens(readable(text))

    def _rows(self, doc: Document) -> tuple[list[dict[str, Any]], list[str]]:
        """The rows of ``doc``'s chunks and the text each one's vector is made from."""
        from minirag_chunker import SCHEME_VERSION, chunk_markdown

        chunked = chunk_markdown(
            doc.markdown,
            count_tokens=self._count_readable,
            budget=self._budget,
            title=doc.title if doc.seed_title and doc.title else None,
        )
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
            }
            for unit in chunked.units
        ]
        return rows, embed_texts(chunked.units)

    def write(self, docs: Iterable[Document]) -> Iterator[tuple[Document, int]]:
        """Index ``docs``; yields ``(document, chunk_count)`` once each is committed.

        Documents are committed in buffers, so yields come in bursts. If chunking a
        document raises, everything buffered before it is committed first, then the
        error propagates (that document and later ones are not written).
        """
        for doc in docs:
            if any(d.source == doc.source for d in self._pending.docs):
                yield from self._flush()  # one commit must not hold two versions of a source
            try:
                rows, embed = self._rows(doc)
            except Exception:
                yield from self._flush()
                raise
            pending = self._pending
            pending.docs.append(doc)
            pending.rows.extend(rows)
            pending.embed.extend(embed)
            pending.counts.append(len(rows))
            if len(pending.rows) >= FLUSH_CHUNKS or len(pending.docs) >= FLUSH_DOCS:
                yield from self._flush()
        yield from self._flush()

    def _flush(self) -> Iterator[tuple[Document, int]]:
        pending, self._pending = self._pending, _Pending()
        if not pending.docs:
            return
        vectors = self._embedder.embed_passages(pending.embed)
        self._table.replace_sources([d.source for d in pending.docs], pending.rows, vectors)
        yield from zip(pending.docs, pending.counts, strict=True)

    def finish(self) -> None:
        """Fold new rows into the indexes, compact and drop old versions (once per batch)."""
        self._table.maintain()


def embed_texts(units: Sequence[Unit]) -> list[str]:
    """What each unit's vector is made from, in unit order: its readable text, read
    section by section (markup split between two chunks is still removed whole).

    A unit with nothing readable (images without alt text, links without text)
    keeps its markdown: an empty text would embed to the same vector for every such unit.
    """
    by_section: dict[int, list[Unit]] = {}
    for unit in units:
        by_section.setdefault(unit.section, []).append(unit)
    texts: dict[int, str] = {}
    for members in by_section.values():
        pieces = readable_pieces([(u.text, u.body_start) for u in members])
        for unit, (text, _) in zip(members, pieces, strict=True):
            texts[unit.index] = text if any(ch.isalnum() for ch in text) else unit.text
    return [texts[u.index] for u in units]
