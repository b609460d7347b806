"""Parsing files in parallel worker processes, streamed back in bounded batches.

Conversion (markitdown, PDF text, OCR) is CPU-bound Python, so it runs in a
``ProcessPoolExecutor`` while the main process embeds: the embedder never waits for a
slow PDF as long as other files are ready. At most a few tasks per worker are in
flight, so however many files a sync covers, only that many parsed documents sit in
memory at once. Each worker imports markitdown once, in its initializer.

A worker also hashes the file: a file whose (size, mtime) changed but whose bytes hash
to the value already indexed comes back ``unchanged`` without being converted at all.

With ``idle`` set, the stream also yields ``None`` whenever that long passes without a
result, so its consumer (the writer) can commit what it holds while a slow file parses.

Each result carries the time its conversion took in the worker and the OCR pages and
seconds within it (measured there, :data:`~minirag_store.convert.ocr.METER`): a sync's
report names its slowest files and where their time went.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import time
from collections.abc import Callable, Generator, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from minirag_store.config import Config

if TYPE_CHECKING:
    from minirag_store.convert.engine import Converted
    from minirag_store.results import SlowFile

__all__ = [
    "POOL_THRESHOLD",
    "ParseTask",
    "Parsed",
    "default_workers",
    "file_digest",
    "parse_all",
    "parse_one",
]

#: Below this many files a pool costs more than it saves: spawning a worker and
#: importing markitdown takes about a second, converting a small file a few ms.
POOL_THRESHOLD = 12
#: Tasks in flight: a few per worker, plus about one writer buffer, so the workers keep
#: parsing while the main process embeds a buffer. This also bounds how many parsed
#: documents are held in memory at once, however large the corpus.
_IN_FLIGHT_PER_WORKER = 4
_IN_FLIGHT_EXTRA = 32
_HASH_BLOCK = 1 << 20


@dataclass(frozen=True)
class ParseTask:
    """One file to parse. With ``known_hash`` set, identical bytes mean "unchanged"."""

    source: str
    path: str
    known_hash: str | None = None


@dataclass(frozen=True)
class Parsed:
    """What a worker sends back for one file: a document, "unchanged", or an error."""

    source: str
    size: int = 0
    mtime: float = 0.0
    file_hash: str = ""
    unchanged: bool = False
    markdown: str = ""
    title: str = ""
    ocr_engine: str = ""
    error: str | None = None
    marks: tuple[tuple[int, dict[str, Any]], ...] = ()  # the conversion's (convert/marks.py)
    empty: bool = False  # read, but no text in it: ``error`` says so; skipped, not failed
    convert_seconds: float = 0.0  # the conversion's wall time in the worker, OCR included
    ocr_pages: int = 0  # pages (image frames) OCRed, and the seconds that took
    ocr_seconds: float = 0.0

    @classmethod
    def of(cls, source: str, digest: tuple[str, int, float], converted: Converted) -> Parsed:
        """A parsed document from a file's ``(hash, size, mtime)`` and its conversion."""
        file_hash, size, mtime = digest
        return cls(
            source,
            size,
            mtime,
            file_hash,
            markdown=converted.markdown,
            title=converted.title or "",
            ocr_engine=converted.ocr_engine,
            marks=converted.marks,
        )

    def slow(self, chunk: float = 0.0, embed: float = 0.0, chunks: int = 0) -> SlowFile:
        """This file's measured times, with the writer's ``chunk`` and ``embed`` seconds."""
        return {
            "source": self.source,
            "seconds": round(self.convert_seconds + chunk + embed, 3),
            "convertSeconds": round(self.convert_seconds, 3),
            "ocrPages": self.ocr_pages,
            "ocrSeconds": round(self.ocr_seconds, 3),
            "chunkSeconds": round(chunk, 3),
            "embedSeconds": round(embed, 3),
            "chunks": chunks,
        }


def default_workers() -> int:
    """Worker processes for parsing: one per core, at most four."""
    return max(1, min(4, os.cpu_count() or 1))


def file_digest(path: str | Path) -> tuple[str, int, float]:
    """(blake2b hex digest, size, mtime) of a file, stat taken on the open file."""
    digest = hashlib.blake2b(digest_size=20)
    with open(path, "rb") as fh:
        st = os.fstat(fh.fileno())
        while block := fh.read(_HASH_BLOCK):
            digest.update(block)
    return digest.hexdigest(), st.st_size, st.st_mtime


def parse_one(task: ParseTask, config: Config) -> Parsed:
    """Hash and convert one file; never raises for a per-file problem (it is returned)."""
    from minirag_store.convert.ocr import METER

    try:
        file_hash, size, mtime = file_digest(task.path)
    except OSError as e:
        return Parsed(task.source, error=f"could not read the file: {e.strerror or e}")
    if task.known_hash is not None and file_hash == task.known_hash:
        return Parsed(task.source, size, mtime, file_hash, unchanged=True)
    _load_engine(task.path)
    pages, ocr, started = METER.pages, METER.seconds, time.perf_counter()
    parsed = _convert(task, config, (file_hash, size, mtime))
    return replace(
        parsed,
        convert_seconds=time.perf_counter() - started,
        ocr_pages=METER.pages - pages,
        ocr_seconds=METER.seconds - ocr,
    )


def _load_engine(path: str) -> None:
    """Load markitdown before timing a file that is read with it: its import in a new
    worker (seconds, once) is not that file's conversion time."""
    from minirag_store.convert.formats import IMAGE_EXTENSIONS, PLAIN_EXTENSIONS

    ext = os.path.splitext(path)[1].lower()
    if ext not in PLAIN_EXTENSIONS and ext not in IMAGE_EXTENSIONS:
        from minirag_store.convert.engine import load_engine

        # A broken install fails the conversion itself, with the file named: not here.
        with contextlib.suppress(Exception):
            load_engine()


def _convert(task: ParseTask, config: Config, digest: tuple[str, int, float]) -> Parsed:
    from minirag_store.convert.converter import convert_file
    from minirag_store.errors import EmptyDocumentError, MiniragError

    file_hash, size, mtime = digest
    try:
        converted = convert_file(Path(task.path), config)
    except EmptyDocumentError as e:
        return Parsed(task.source, size, mtime, file_hash, error=str(e), empty=True)
    except MiniragError as e:
        return Parsed(task.source, size, mtime, file_hash, error=str(e))
    except Exception as e:  # a converter bug on one file must not end the whole sync
        return Parsed(task.source, size, mtime, file_hash, error=f"{type(e).__name__}: {e}")
    return Parsed.of(task.source, digest, converted)


def _warm() -> None:
    """Worker initializer: import the converter once per worker, not per file.

    markitdown itself loads on the first file that needs it (plain text and markdown
    never do) and then stays loaded for the worker's life.
    """
    import minirag_store.convert.converter  # noqa: F401


def parse_all(
    tasks: list[ParseTask],
    config: Config,
    *,
    cancelled: Callable[[], bool] = lambda: False,
    workers: int | None = None,
    idle: float | None = None,
    busy: Callable[[str], None] | None = None,
) -> Generator[Parsed | None, None, None]:
    """Parse ``tasks``, yielding results as they complete (not in task order).

    Few tasks are parsed in this process; more go to a spawn-context process pool (fork
    is unsafe once LanceDB and onnxruntime threads exist) with a bounded number in
    flight. Stops submitting as soon as ``cancelled()`` turns true. With ``idle``
    seconds, a pooled parse yields ``None`` each time that long passes with no result
    (without ``idle`` it never yields ``None``). ``busy(source)`` is told the file being
    read (in a pool: the one longest in flight) before each wait, for a progress line.
    """
    count = workers if workers is not None else default_workers()
    reading = busy or (lambda source: None)
    if len(tasks) < POOL_THRESHOLD or count < 1:
        for task in tasks:
            if cancelled():
                return
            reading(task.source)
            yield parse_one(task, config)
        return
    yield from _pooled(tasks, config, cancelled, count, idle=idle, reading=reading)


def _new_pool(workers: int) -> ProcessPoolExecutor:
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    return ProcessPoolExecutor(workers, mp_context=context, initializer=_warm)


def _pooled(
    tasks: Iterable[ParseTask],
    config: Config,
    cancelled: Callable[[], bool],
    workers: int,
    *,
    idle: float | None,
    reading: Callable[[str], None],
) -> Iterator[Parsed | None]:
    queue = iter(tasks)
    limit = workers * _IN_FLIGHT_PER_WORKER + _IN_FLIGHT_EXTRA
    pool = _new_pool(workers)
    pending: dict[Future[Parsed], ParseTask] = {}
    finished_cleanly = False
    try:
        while True:
            _fill(pool, queue, pending, limit, config)
            if not pending:
                break
            reading(next(iter(pending.values())).source)  # submitted first: longest in flight
            done, _ = wait(pending, timeout=idle, return_when=FIRST_COMPLETED)
            if not done:
                yield None  # nothing finished for ``idle`` seconds
            broken = False
            for future in done:
                broken = broken or isinstance(future.exception(), BrokenProcessPool)
                yield _outcome(future, pending.pop(future))
            if cancelled():
                return
            if broken:
                # A dead worker poisons its whole pool: every file in flight was failed
                # above; the rest of the queue gets a fresh pool.
                pool.shutdown(wait=False, cancel_futures=True)
                pool = _new_pool(workers)
        finished_cleanly = True
    finally:
        # On cancel (or the consumer stopping) drop queued work and do not wait for a
        # slow conversion still running: its result would be thrown away anyway.
        pool.shutdown(wait=finished_cleanly, cancel_futures=True)


def _fill(
    pool: ProcessPoolExecutor,
    queue: Iterator[ParseTask],
    pending: dict[Future[Parsed], ParseTask],
    limit: int,
    config: Config,
) -> None:
    while len(pending) < limit:
        task = next(queue, None)
        if task is None:
            return
        pending[pool.submit(parse_one, task, config)] = task


def _outcome(future: Future[Parsed], task: ParseTask) -> Parsed:
    try:
        return future.result()
    except BrokenProcessPool:
        return Parsed(
            task.source,
            error="the parser process died (a crash or out of memory) while converting this "
            "file or one converted beside it; it is tried again on the next sync",
        )
    except Exception as e:  # a result that could not be sent back (pickling) and the like
        return Parsed(task.source, error=f"the parser process failed: {type(e).__name__}: {e}")
