"""What runs on the Ray workers of a distributed sync (:mod:`minirag_store.ingest.distributed`).

Two Ray Data stages, each reusing the product's own functions so a Ray sync indexes
exactly what a local one does:

* :func:`parse_batch` (stateless tasks): :func:`~minirag_store.ingest.workers.parse_one`
  per file: hash (identical bytes come back ``unchanged``), convert.
* :class:`EmbedWriter` (an actor pool: the model is loaded once per actor):
  :func:`~minirag_store.index.write.writer.document_rows` chunks each document,
  :func:`~minirag_store.index.storage.fragments.arrow_rows` builds the rows, and the batch's
  rows are written as uncommitted Lance fragments straight into the index's folder or
  bucket. What goes back to the driver is small: the fragments' metadata and one
  outcome per file. Nothing is visible until the driver commits.

Every batch is a dict of columns (Ray Data's ``numpy`` format); a per-file problem is
an outcome (``error``), never an exception, so one bad file does not fail the job.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from minirag_store.ingest.workers import Parsed, ParseTask, parse_one

if TYPE_CHECKING:
    import numpy as np

    from minirag_store.config import Config

__all__ = ["PARSED_COLUMNS", "EmbedWriter", "parse_batch"]

#: The columns :func:`parse_batch` hands to :class:`EmbedWriter` (a :class:`Parsed`'s fields).
PARSED_COLUMNS = (
    "source", "size", "mtime", "file_hash", "unchanged", "markdown", "title", "ocr_engine",
    "error", "marks", "empty",
)  # fmt: skip


def parse_batch(batch: dict[str, Any], config: Config) -> dict[str, list[Any]]:
    """Hash and convert each file of ``batch`` (columns ``source``, ``path``, ``known_hash``)."""
    out: dict[str, list[Any]] = {name: [] for name in PARSED_COLUMNS}
    for source, path, known in zip(
        batch["source"], batch["path"], batch["known_hash"], strict=True
    ):
        parsed = parse_one(ParseTask(str(source), str(path), str(known) or None), config)
        for name in PARSED_COLUMNS:
            value = getattr(parsed, name)
            if name == "marks":  # (offset, place) pairs: one JSON string, an Arrow-friendly cell
                value = json.dumps(value)
            out[name].append("" if value is None else value)
    return out


def _parsed(batch: dict[str, Any], i: int) -> Parsed:
    return Parsed(
        source=str(batch["source"][i]),
        size=int(batch["size"][i]),
        mtime=float(batch["mtime"][i]),
        file_hash=str(batch["file_hash"][i]),
        unchanged=bool(batch["unchanged"][i]),
        markdown=str(batch["markdown"][i]),
        title=str(batch["title"][i]),
        ocr_engine=str(batch["ocr_engine"][i]),
        error=str(batch["error"][i]) or None,
        empty=bool(batch["empty"][i]),
        marks=tuple((int(o), dict(p)) for o, p in json.loads(str(batch["marks"][i]) or "[]")),
    )


class EmbedWriter:
    """One actor of the embedding stage: chunk, embed, write fragments.

    ``target``: the dataset URI, storage options and Arrow schema from
    :meth:`~minirag_store.index.table.ChunkTable.fragment_target`.
    """

    def __init__(self, config: Config, target: tuple[str, dict[str, str], Any]) -> None:
        from minirag_store.index.embed.embedding import Embedder

        self._config = config
        self._uri, self._options, self._schema = target
        self._embedder = Embedder.from_config(config)  # once per actor

    def __call__(self, batch: dict[str, Any]) -> dict[str, list[str]]:
        """One output row per batch: ``fragments`` (JSON of the written fragments' metadata,
        "[]" when no rows) and ``outcomes`` (JSON list, one per file)."""
        from minirag_store.index.storage.fragments import arrow_rows, write_fragments
        from minirag_store.index.write.writer import document_rows
        from minirag_store.ingest.operations import document_of

        outcomes: list[dict[str, Any]] = []
        rows: list[dict[str, Any]] = []
        texts: list[str] = []
        for i in range(len(batch["source"])):
            parsed = _parsed(batch, i)
            outcome: dict[str, Any] = {"source": parsed.source, "size": parsed.size,
                                       "mtime": parsed.mtime, "file_hash": parsed.file_hash,
                                       "unchanged": parsed.unchanged, "error": parsed.error,
                                       "empty": parsed.empty, "chunks": 0}  # fmt: skip
            if parsed.error is None and not parsed.unchanged:
                try:
                    doc_rows, doc_texts = document_rows(
                        document_of(parsed), self._embedder.count_tokens,
                        self._config.chunk_token_budget,
                    )  # fmt: skip
                except Exception as e:  # as the local writer: this file failed, the rest go on
                    outcome["error"] = f"could not be chunked: {type(e).__name__}: {e}"
                else:
                    rows += doc_rows
                    texts += doc_texts
                    outcome["chunks"] = len(doc_rows)
            outcomes.append(outcome)
        fragments = "[]"
        if rows:
            data = arrow_rows(self._schema, self._embedder.dim, rows, self._embed(texts))
            fragments = write_fragments(self._uri, self._options, data)
        return {"fragments": [fragments], "outcomes": [json.dumps(outcomes)]}

    def _embed(self, texts: list[str]) -> np.ndarray:
        """Vectors of ``texts``, embedded in length order (a batch pads to its longest
        text) in the local writer's batch size."""
        import numpy as np

        from minirag_store.index.embed.embedding import EMBED_BATCH

        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        vectors = np.empty((len(texts), self._embedder.dim), dtype=np.float32)
        for start in range(0, len(order), EMBED_BATCH):
            picked = order[start : start + EMBED_BATCH]
            vectors[picked] = self._embedder.embed_passages([texts[i] for i in picked])
        return vectors
