"""Ingestion entry points: one file, many paths, caller-held data, and URLs.

Everything ends in a :class:`~minirag_store.index.write.writer.DocumentWriter` (chunks,
embeds in batches across documents, replaces each source atomically). Many files go through
:func:`write_parsed`, the engine sync shares: worker processes parse
(:mod:`minirag_store.ingest.workers`) while this process embeds; the writer's ``finish()``
(keyword-index refresh + compaction) runs once per batch, while single-source writes leave
it to ``after_small_write`` (every few writes and at close). None of these take the sync
lock: single-file ingests are never blocked by a sync.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from minirag_store.errors import (
    ConversionError,
    IndexMismatchError,
    InvalidArgumentError,
    ModelLoadError,
    NotFoundError,
)
from minirag_store.ingest.jobs import Job
from minirag_store.ingest.workers import Parsed, ParseTask, file_digest, parse_all
from minirag_store.results import IngestResult, JobStatus, SourceType

if TYPE_CHECKING:
    from minirag_store.index.write.writer import Document, DocumentWriter
    from minirag_store.parts import Ingesting
    from minirag_store.results import ProgressCallback

#: Errors of the embedder or the table, never of one document.
_FATAL = (ModelLoadError, IndexMismatchError, MemoryError)

__all__ = [
    "document_of",
    "idle_seconds",
    "ingest_data",
    "ingest_file",
    "ingest_paths",
    "ingest_url",
    "oversized_message",
    "report_progress",
    "write_parsed",
    "writer_for",
]


def oversized_message(size: int, limit: int) -> str:
    """The warning a too-large file gets (skipped, not failed: see sync's docstring)."""
    return (
        f"skipped-oversized: {size:,} bytes is over MAX_FILE_SIZE ({limit:,} bytes); "
        "raise MAX_FILE_SIZE to index it"
    )


def report_progress(
    job: Job, progress: ProgressCallback | None, current: str | None, *, finished: bool = True
) -> None:
    """Count one more finished file (unless ``finished`` is False) and tell ``progress``."""
    if finished:
        job.done += 1
    if progress is not None:
        from minirag_store.results import Progress

        counts = job.counts()
        progress(Progress(job.done, job.total, current, counts, job.chunks, job.reading))


def document_of(parsed: Parsed, source_type: SourceType = "file") -> Document:
    """What the writer takes of a parsed file (the local and the Ray sync alike)."""
    from minirag_store.index.write.writer import Document

    return Document(
        source=parsed.source,
        source_type=source_type,
        title=parsed.title,
        markdown=parsed.markdown,
        file_hash=parsed.file_hash,
        mtime=parsed.mtime,
        size=parsed.size,
        ocr_engine=parsed.ocr_engine,
        seed_title=bool(parsed.title),
        marks=parsed.marks,
    )


def writer_for(index: Ingesting) -> DocumentWriter:
    """A writer into ``index``'s table with its model and chunk budget (one per batch); a
    watched index keeps the language detector between batches (it writes again soon)."""
    from minirag_store.index.write.writer import DocumentWriter

    return DocumentWriter(
        index.embedder(),
        index.table(),
        index.config.chunk_token_budget,
        keep_languages=index.watch_state()[0] != "off",
    )


def write_parsed(
    index: Ingesting,
    job: Job,
    parsed: Iterable[Parsed | None],
    *,
    progress: ProgressCallback | None = None,
    touched: list[Parsed] | None = None,
) -> None:
    """Feed parse results to one DocumentWriter, updating ``job`` live as files finish.

    A failed parse is counted ``failed`` with its reason, an empty one ``skipped`` with
    its reason (and kept in ``job.empty``); an ``unchanged`` result (its hash matched) is
    counted ``skipped`` and appended to ``touched`` so the caller can store its new mtime.
    A ``None`` (the parser is busy) goes to the writer, which may commit what it holds
    meanwhile, and to ``progress``; each file is counted ``ingested`` at its commit, with
    its measured times offered to the job's slowest files.
    Stops pulling new documents once the job is cancelled: the writer still completes
    what it already holds, so each file ends fully written or untouched. ``finish()``
    runs once at the end, even after a failure.
    """
    writer = writer_for(index)
    outstanding: dict[str, Parsed] = {}  # handed to the writer, not yet committed

    def documents() -> Iterator[Document | None]:
        for item in parsed:
            if item is None:
                report_progress(job, progress, None, finished=False)  # a slow file: say so
                yield None
            elif item.empty:
                job.note(item.source, f"skipped-empty: {item.error}", count="skipped")
                job.empty[item.source] = (item.size, item.mtime, item.error or "")
                job.timed(item.slow())
                report_progress(job, progress, item.source)
            elif item.error is not None:
                job.note(item.source, item.error, count="failed")
                job.timed(item.slow())
                report_progress(job, progress, item.source)
            elif item.unchanged:
                job.record("skipped", [item.source])
                if touched is not None:
                    touched.append(item)
                report_progress(job, progress, item.source)
            else:
                outstanding[item.source] = item
                yield document_of(item)
            if job.cancel_requested:
                return

    stream = documents()
    try:
        while not _drain(writer, stream, job, progress, outstanding):
            pass
    finally:
        writer.finish()


def _drain(
    writer: Any,
    stream: Iterator[Document | None],
    job: Job,
    progress: ProgressCallback | None,
    outstanding: dict[str, Parsed],
) -> bool:
    """Write until ``stream`` ends (True) or one document fails to chunk (False).

    The writer commits everything buffered before a document whose chunking raises, so
    exactly one document is outstanding then: that file failed, the rest go on. More than
    one outstanding means the commit itself failed, which no later file would escape.
    """
    try:
        for doc, chunks in writer.write(stream):
            item = outstanding.pop(doc.source, None)
            job.chunks += chunks
            if item is not None:
                job.timed(item.slow(*writer.timing.pop(doc.source, (0.0, 0.0)), chunks))
            job.record("ingested", [doc.source])
            report_progress(job, progress, doc.source)
    except Exception as e:
        if len(outstanding) != 1 or isinstance(e, _FATAL):
            raise
        source = outstanding.popitem()[0]
        job.note(source, f"could not be chunked: {type(e).__name__}: {e}", count="failed")
        report_progress(job, progress, source)
        return False
    return True


def idle_seconds() -> float:
    """How long the parse stream may stay silent before the writer gets a chance to commit."""
    from minirag_store.index.write.writer import COMMIT_SECONDS

    return COMMIT_SECONDS


def _existing_file(index: Ingesting, path: str) -> tuple[str, Path]:
    from minirag_store.paths import source_for_path

    source = source_for_path(index.config, path)
    target = Path(source)
    if not target.exists():
        raise NotFoundError(f"File not found: {source}")
    return source, target


def ingest_file(index: Ingesting, path: str) -> IngestResult:
    """Ingest or re-ingest one file (absolute path inside a root), replacing its chunks."""
    from minirag_store.convert.converter import convert_file

    source, target = _existing_file(index, path)
    if not target.is_file():
        raise InvalidArgumentError(
            f"{source} is a folder; use sync (or ingest with several paths) for folders"
        )
    size = target.stat().st_size
    if size > index.config.max_file_size:
        raise ConversionError(f"{source}: {oversized_message(size, index.config.max_file_size)}")
    converted = convert_file(target, index.config)
    parsed = Parsed.of(source, file_digest(target), converted)
    return _write_one(index, document_of(parsed), "file")


def _write_one(index: Ingesting, doc: Document, source_type: SourceType) -> IngestResult:
    written = list(writer_for(index).write([doc]))
    index.after_small_write()  # maintenance is batched across single writes
    chunks = sum(n for _, n in written)
    return {
        "source": doc.source,
        "title": doc.title,
        "chunkCount": chunks,
        "sourceType": source_type,
        "ocrEngine": doc.ocr_engine,
    }


def _tasks_for(index: Ingesting, paths: Sequence[str], job: Job) -> list[ParseTask]:
    """Expand files and folders into parse tasks; oversized files become warnings."""
    from minirag_store.ingest.scan import scan

    config = index.config
    tasks: dict[str, ParseTask] = {}
    for path in paths:
        source, target = _existing_file(index, path)
        if target.is_dir():
            result = scan(config, target)
            for warning in result.warnings:
                job.note(source, str(warning))
            found = [*result.files, *result.oversized]
            entries = [(e.source, e.path, e.size) for e in found]
            unsupported = [p.source for p in result.passed if p.state == "unsupported"]
            job.add("scanned", len(unsupported))
            job.record("unsupported", unsupported)
        else:
            entries = [(source, target, target.stat().st_size)]
        for src, file_path, size in entries:
            job.add("scanned")
            if size > config.max_file_size:
                job.note(src, oversized_message(size, config.max_file_size), count="skipped")
            else:
                tasks.setdefault(src, ParseTask(src, str(file_path)))
    return list(tasks.values())


def ingest_paths(
    index: Ingesting, paths: Sequence[str], *, progress: ProgressCallback | None = None
) -> JobStatus:
    """Ingest files and folders (recursively), re-ingesting what is already indexed.

    Every path is checked first (inside a root, existing) so a typo fails before any
    work. Per-file failures are counted and listed; the returned job is finished.
    """
    if not paths:
        raise InvalidArgumentError("Give at least one file or folder to ingest")
    job = Job(listed=None)  # the caller gets the whole report: every file is named
    job.start()
    tasks = _tasks_for(index, paths, job)
    job.total = len(tasks)
    stream = parse_all(
        tasks,
        index.config,
        cancelled=lambda: job.cancel_requested,
        idle=idle_seconds(),
        busy=lambda source: setattr(job, "reading", source),
    )
    try:
        write_parsed(index, job, stream, progress=progress)
    except Exception as e:  # the job record carries the reason; the caller reads it
        job.finish("failed", f"{type(e).__name__}: {e}")
        raise
    finally:
        stream.close()
    job.finish("succeeded")
    return job.snapshot()


def _check_source_id(index: Ingesting, source: str | None, what: str) -> str:
    if source is None or not source.strip():
        raise InvalidArgumentError(f"{what} needs a non-empty source id")
    source = source.strip()
    if os.path.isabs(source):
        from minirag_store.paths import is_inside

        if any(is_inside(Path(os.path.normpath(source)), r) for r in index.config.roots):
            raise InvalidArgumentError(
                f"source {source!r} is a path inside a document root, where it would clash "
                "with the file of that name; use ingest_file for files, or another id"
            )
    return source


def _hash_text(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=20).hexdigest()


def ingest_data(
    index: Ingesting, data: str, source: str, format: str = "text", title: str | None = None
) -> IngestResult:
    """Ingest text, markdown or html the caller holds, under the caller's ``source`` id.

    The title is seeded into the first chunk only when there is one of its own (given,
    or found in the content): a bare id describes nothing.
    """
    from minirag_store.convert.converter import convert_data

    source = _check_source_id(index, source, "ingest_data")
    converted = convert_data(data, format, title)
    parsed = Parsed(
        source,
        len(data.encode("utf-8")),
        0.0,
        _hash_text(data),
        markdown=converted.markdown,
        title=converted.title or "",
    )
    return _write_one(index, document_of(parsed, "data"), "data")


def ingest_url(
    index: Ingesting, url: str, source: str | None = None, title: str | None = None
) -> IngestResult:
    """Fetch an http(s) URL through the SSRF guard, convert it and index it.

    ``source`` defaults to the URL as given. HTML and text bodies are converted as data;
    any other body (a PDF, an office file) is converted as a file of its type.
    """
    from minirag_store.ingest.urlfetch import convert_fetched, fetch

    if not url or not url.strip():
        raise InvalidArgumentError("ingest_url needs a URL (http or https)")
    source = _check_source_id(index, source or url.strip(), "ingest_url")
    fetched = fetch(url.strip(), index.config)
    converted = convert_fetched(fetched, index.config, title)
    parsed = Parsed(
        source,
        len(fetched.body),
        0.0,
        hashlib.blake2b(fetched.body, digest_size=20).hexdigest(),
        markdown=converted.markdown,
        title=converted.title or "",
        ocr_engine=converted.ocr_engine,
        marks=converted.marks,
    )
    return _write_one(index, document_of(parsed, "url"), "url")
