"""The one service API both shells call: :class:`Index`.

The MCP server and the CLI parse their input, call one method here, and shape nothing
themselves: every method returns the TypedDict from :mod:`minirag_store.results` that
the matching MCP tool and ``--json`` output carry. Errors are
:class:`~minirag_store.errors.MiniragError` subclasses with messages written for the reader.

The heavy parts (the embedding model, the LanceDB table) open lazily on first use, once,
even when several first calls arrive together from different threads. Methods are
blocking and thread-safe; an async shell runs them in a worker thread.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Unpack

from minirag_store import known
from minirag_store.arguments import FIRST_CHUNK_INDEX, NEIGHBORS, OFFSET, TOP_K
from minirag_store.budget import utf8_bytes
from minirag_store.config import Config, ConfigFlags, load_config
from minirag_store.errors import ConfigError
from minirag_store.index.loading import MODEL, existing_table, new_table, preload
from minirag_store.index.storage.connection import store_errors_on
from minirag_store.index.storage.schema import check_dims
from minirag_store.ingest.jobs import ran_through  # light: the job record's rules
from minirag_store.listing import list_documents, list_files  # light: a scan, the summary
from minirag_store.reading import read_source  # light: what read_file runs
from minirag_store.results import (
    DeleteResult,
    DocumentRow,
    IngestResult,
    JobStatus,
    ListResult,
    NeighborsResult,
    PageImage,
    ProgressCallback,
    QueryResult,
    ReadResult,
    StatusResult,
    SyncOrigin,
    SyncStarted,
)

if TYPE_CHECKING:
    from minirag_store.index.embed.embedding import Embedder
    from minirag_store.index.table import ChunkTable
    from minirag_store.ingest.sync import SyncManager
    from minirag_store.ingest.watch import OnBatch

__all__ = ["Index"]

log = logging.getLogger(__name__)


#: Single-source writes (ingest_file/data/url, delete_file) between two maintenance passes
#: (~0.7 s at 25k chunks whatever the write). Rows not folded in yet are still found.
SMALL_WRITES_PER_MAINTENANCE = 16


# Every method that reaches the store: on object storage its failures name the URI.
@store_errors_on("table", "warm_up", "sync_start", "sync", "ingest_file", "ingest_paths",
                 "ingest_data", "ingest_url", "query", "read_chunk_neighbors", "read_file",
                 "list_files", "documents", "delete_file", "page_image")  # fmt: skip
class Index:
    """A minirag index over the configured document roots.

    Build one with :meth:`open` (reads the env mapping and flags once) or from a
    :class:`Config`. A broken configuration does not raise here: :meth:`status` reports
    it and every other method raises the same :class:`ConfigError`.

    ``embedder`` and ``table`` hand the Index an already loaded model and an already
    opened table instead of loading them lazily: several Index objects with different
    settings (ranking, fusion) can share one model and one table, as tests and benchmarks
    do, without loading ONNX again. They must be this configuration's model and index;
    a table whose vectors do not fit the model raises :class:`IndexMismatchError`.
    """

    def __init__(
        self,
        config: Config | None,
        config_error: str | None = None,
        *,
        embedder: Embedder | None = None,
        table: ChunkTable | None = None,
        resident: bool = True,
    ) -> None:
        if config is None and config_error is None:
            raise ValueError("Index needs a Config or a config_error")
        if embedder is not None and table is not None:
            check_dims(table.dim, table.db_path, embedder.model_id, embedder.dim)
        self._config = config
        self._config_error = config_error
        self._lock = threading.RLock()  # quick state only: never held across slow work
        self._model_lock = threading.Lock()  # held while the model loads (seconds)
        self._table_lock = threading.Lock()  # held while the table opens (LanceDB's import)
        self._embedder_obj = embedder
        self._counter_obj: Callable[[str], int] | None = None  # the tokenizer alone
        self._bytes_warned = False  # token_counter fell back to UTF-8 bytes (said once)
        self._table_obj = table
        self._resident = resident  # False: search holds no snapshot (index/search/ann.py)
        self._sync_obj: SyncManager | None = None
        self._small_writes = 0  # since the last maintenance pass

    @classmethod
    def open(
        cls, env: Mapping[str, str], *, resident: bool = True, **flags: Unpack[ConfigFlags]
    ) -> Index:
        """Load the configuration from ``env`` and ``flags`` (:func:`load_config`'s: the
        CLI's flags, ``cwd``, ``fallback``); never raises for a bad config.
        ``resident=False``: a process that asks one question (see ``AnnSettings``)."""
        try:
            config = load_config(env, **flags)
        except ConfigError as e:
            return cls(None, str(e), resident=resident)
        return cls(config, resident=resident)

    # ----------------------------------------------------------------- plumbing
    @property
    def config(self) -> Config:
        """The validated configuration; raises :class:`ConfigError` when it is broken."""
        if self._config is None:
            raise ConfigError(f"Configuration error: {self._config_error}")
        return self._config

    def _check(self) -> None:
        """Raise the configuration error before any lazy import or work happens."""
        self.config  # noqa: B018 - the property raises when the configuration is broken

    @property
    def config_error(self) -> str | None:
        """The configuration error message, or None when the configuration is valid."""
        return self._config_error

    def embedder(self) -> Embedder:
        """The embedding model, loaded on first use (exactly once). A load in progress
        holds up only the calls that need the model too (not list, read or status)."""
        config = self.config
        with self._model_lock:
            if self._embedder_obj is None:
                from minirag_store.index.embed.embedding import Embedder

                preload(MODEL)  # never while another thread imports (index/loading.py)
                embedder = Embedder.from_config(config, counter=self._counter_obj)
                with self._lock:
                    table = self._table_obj
                if table is not None:
                    check_dims(table.dim, table.db_path, embedder.model_id, embedder.dim)
                self._embedder_obj = embedder
            return self._embedder_obj

    def token_counter(self) -> Callable[[str], int]:
        """What RAG_MAX_RESPONSE_TOKENS counts in: the model's counter, else its
        ``tokenizer.json`` alone (no ONNX session), else UTF-8 bytes (warned once)."""
        config = self.config
        with self._lock:
            if self._embedder_obj is not None:
                return self._embedder_obj.count_tokens
            if self._counter_obj is not None:
                return self._counter_obj
        from minirag_store.index.embed.embedding import tokenizer_counter

        counter = tokenizer_counter(config)
        with self._lock:
            if counter is None:
                if not self._bytes_warned:
                    self._bytes_warned = True
                    log.warning(
                        "No tokenizer.json of %s on disk yet: RAG_MAX_RESPONSE_TOKENS counts "
                        "UTF-8 bytes until the model is loaded (answers come back shorter)",
                        config.model_name,
                    )
                return utf8_bytes
            if self._counter_obj is None:
                self._counter_obj = counter
            return self._counter_obj

    def table(self) -> ChunkTable:
        """The LanceDB chunk table, opened (or created) on first use, once. An existing index
        opens without the model (reads stay fast); a new one needs the model's dimension."""
        config = self.config
        with self._table_lock:
            if self._table_obj is None:
                self._table_obj = existing_table(config, self._resident)
            if self._table_obj is not None:
                return self._table_obj
        embedder = self.embedder()  # not under the lock: a model load holds up no one else
        with self._table_lock:
            if self._table_obj is None:
                self._table_obj = new_table(config, embedder, self._resident)
            return self._table_obj

    def existing_table(self) -> ChunkTable | None:
        """The chunk table if the index has one, else None; never creates one (reads)."""
        config = self.config
        with self._table_lock:
            if self._table_obj is None:
                self._table_obj = existing_table(config, self._resident)
            return self._table_obj

    def warm_up(self) -> None:
        """Load now what the first query needs (search snapshot, model, the rest of a
        search's path; a server calls it as it starts). Never creates an index: without one
        only the model loads. Raises what loading raises (ConfigError, ModelLoadError, ...)."""
        config = self.config
        with self._table_lock:
            if self._table_obj is None:
                self._table_obj = existing_table(config, self._resident)
            table = self._table_obj
        if table is not None:
            table.warm()
        self.embedder()
        if table is not None:
            # One throwaway search: the first real one then also finds the modules it
            # imports lazily, the stemmers and the keyword searcher's loop ready.
            self.query("warm up", top_k=1)

    def syncs(self) -> SyncManager:
        """The background sync job manager of this Index."""
        self._check()
        if (manager := self._sync_obj) is not None:
            return manager
        with self._lock:
            if self._sync_obj is None:
                from minirag_store.ingest.sync import SyncManager

                self._sync_obj = SyncManager(self)
            return self._sync_obj

    def resolve_path(self, path: str) -> str:
        """A file or folder typed to sync or ingest, made absolute: paths.resolve_path."""
        from minirag_store.paths import resolve_path

        return resolve_path(self.config, path)

    # ------------------------------------------------------------------ status
    def status(self) -> StatusResult:
        """Configuration and index health. Always answers, even with a broken configuration."""
        from minirag_store.status import build_status

        return build_status(self._config_error or self.config, self.watch_state(), self._table_obj)

    # -------------------------------------------------------------------- sync
    def sync_start(self, path: str | None = None, *, origin: SyncOrigin = "client") -> SyncStarted:
        """Start reconciling the roots (or one path inside them) in the background."""
        path = None if path is None else self.resolve_path(path)
        return {"jobId": self.syncs().start(path, origin=origin)}

    def sync_status(self, job_id: str) -> JobStatus:
        """Live status of a sync job started by :meth:`sync_start`."""
        return self.syncs().status(job_id)

    def sync_cancel(self, job_id: str) -> JobStatus:
        """Ask a running sync job to stop; every file stays fully indexed or untouched."""
        return self.syncs().cancel(job_id)

    def sync(
        self,
        path: str | None = None,
        *,
        progress: ProgressCallback | None = None,
        ray: str | None = None,
    ) -> JobStatus:
        """Reconcile in the foreground (the CLI's ``sync``); returns the finished job.
        ``ray``: a Ray address ("" = RAG_RAY_ADDRESS or a local runtime; ingest/distributed)."""
        job = self.syncs().run(path, progress=progress, ray=ray)
        return known.after(self.config, job, ran_through)

    def start_watching(self, on_batch: OnBatch | None = None, *, block: bool = False) -> None:
        """Follow the roots until :meth:`close` (``block``: here until interrupted, as the
        CLI's ``watch``); ``on_batch`` hears of each sync. See ``minirag_store.ingest.watch``."""
        self.syncs().watching.start(on_batch, block=block)

    def watch_state(self) -> tuple[str, str | None]:
        """How this process follows the files: ``("notify" | "poll" | "off", why it polls)``."""
        return ("off", None) if self._sync_obj is None else self._sync_obj.watching.state()

    # ------------------------------------------------------------------ ingest
    def ingest_file(self, path: str) -> IngestResult:
        """Ingest or re-ingest one file inside a root."""
        self._check()
        from minirag_store.ingest.operations import ingest_file

        return ingest_file(self, self.resolve_path(path))

    def ingest_paths(
        self, paths: Sequence[str], *, progress: ProgressCallback | None = None
    ) -> JobStatus:
        """Ingest files and folders (recursively, again where indexed): the finished job."""
        self._check()
        from minirag_store.ingest.operations import ingest_paths

        return known.after(self.config, ingest_paths(self, paths, progress=progress), ran_through)

    def ingest_data(
        self, data: str, source: str, format: str = "text", title: str | None = None
    ) -> IngestResult:
        """Ingest text, markdown or html the caller holds, under ``source``."""
        self._check()
        from minirag_store.ingest.operations import ingest_data

        return ingest_data(self, data, source, format, title)

    def ingest_url(
        self, url: str, source: str | None = None, title: str | None = None
    ) -> IngestResult:
        """Fetch an http(s) URL (guarded against private hosts), convert and index it."""
        self._check()
        from minirag_store.ingest.operations import ingest_url

        return ingest_url(self, url, source, title)

    # ------------------------------------------------------------------- reads
    def query(
        self,
        query: str,
        top_k: int = TOP_K.default,
        scope: str | Sequence[str] | None = None,
        *,
        offset: int = OFFSET.default,
        max_tokens: int | None = None,
        ask_server: bool = False,
        explain: bool = False,
    ) -> QueryResult:
        """Hybrid search (:func:`minirag_store.search.answer_query`): the hits ranked
        ``offset + 1`` on, fitted to ``max_tokens`` (None: RAG_MAX_RESPONSE_TOKENS, an MCP
        client's context; 0: no limit, a terminal); ``explain`` adds each hit's scores.
        ``ask_server``: a running server for this configuration answers when there is one
        (the CLI asks: its model is warm; :mod:`minirag_store.peer`)."""
        self._check()
        from minirag_store.search import answer_query

        return answer_query(
            self,
            query,
            top_k,
            scope,
            offset=offset,
            max_tokens=max_tokens,
            ask_server=ask_server,
            explain=explain,
        )

    def read_chunk_neighbors(
        self,
        source: str | None,
        chunk_index: int,
        before: int = NEIGHBORS.default,
        after: int = NEIGHBORS.default,
        *,
        file_path: str | None = None,
    ) -> NeighborsResult:
        """The chunks around ``chunk_index`` of the document named by ``source`` or
        ``file_path`` (exactly one), in order."""
        self._check()
        from minirag_store.reading import read_neighbors

        return read_neighbors(self, source, chunk_index, before, after, file_path=file_path)

    def read_file(
        self,
        source: str | None = None,
        *,
        file_path: str | None = None,
        from_chunk: int = FIRST_CHUNK_INDEX,
        page: int | None = None,
        slide: int | None = None,
        max_tokens: int | None = None,
    ) -> ReadResult:
        """A document's markdown from ``from_chunk`` on, or one ``page``/``slide``, within
        ``max_tokens`` as :meth:`query` (None: RAG_MAX_RESPONSE_TOKENS): read_source."""
        self._check()
        return read_source(
            self,
            source,
            file_path=file_path,
            from_chunk=from_chunk,
            page=page,
            slide=slide,
            max_tokens=max_tokens,
        )

    def page_image(
        self,
        source: str | None = None,
        page: int | None = None,
        *,
        file_path: str | None = None,
        scale: float | None = None,
        max_width: int | None = None,
    ) -> PageImage:
        """Page ``page`` of an indexed PDF as a PNG within the caps, cached: pages.page_image."""
        self._check()
        from minirag_store.pages import page_image

        return page_image(self, source, page, file_path=file_path, scale=scale, max_width=max_width)

    def list_files(
        self, scope: str | Sequence[str] | None = None, *, ignored: bool = False
    ) -> ListResult:
        """Files under the roots with their state (``ignored``: what rules skip too), plus
        indexed data/url sources: listing.list_files."""
        self._check()
        return list_files(self, scope, ignored=ignored)

    def documents(self) -> list[DocumentRow]:
        """The indexed documents still there to read (MCP resources): listing.list_documents."""
        self._check()
        return list_documents(self)

    def delete_file(
        self, source: str | None = None, *, file_path: str | None = None, exclude: bool = False
    ) -> DeleteResult:
        """Remove a document's chunks (by ``source`` or ``file_path``, exactly one) from the
        index; the file on disk is untouched. ``exclude``: first a rule naming the file in
        its root's ``.miniragignore``, so no later sync indexes it again (reading.py)."""
        self._check()
        from minirag_store.reading import delete_source, exclude_source

        remove = exclude_source if exclude else delete_source
        return remove(self, source, file_path=file_path)

    def after_small_write(self) -> None:
        """Count a single-source write; maintain the table every
        :data:`SMALL_WRITES_PER_MAINTENANCE` of them (and at :meth:`close`)."""
        with self._lock:
            self._small_writes += 1
            due = self._small_writes >= SMALL_WRITES_PER_MAINTENANCE
            if due:
                self._small_writes = 0
        if due:
            self.table().maintain()

    def close(self) -> None:
        """Stop background work (cancels a running sync), fold in pending small writes,
        and release the table."""
        with self._lock:
            syncs = self._sync_obj
        # Outside the lock: a sync thread that is just starting takes it to open the
        # table, and waiting for that thread while holding it would stall until timeout.
        if syncs is not None:
            syncs.shutdown()
        with self._table_lock, self._lock:
            table, pending = self._table_obj, self._small_writes
            self._small_writes = 0
            self._table_obj = None
        if table is not None and pending:
            table.maintain()
