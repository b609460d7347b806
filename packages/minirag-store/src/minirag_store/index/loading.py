"""The first imports of the heavy libraries, one thread at a time.

Two threads importing numpy-based libraries at once (the MCP server's warm-up opening
the table: lancedb, pyarrow, numpy; its first query loading the model: onnxruntime,
numpy) can meet in Python's per-module import locks, and CPython then hands one of them
a partially initialised numpy: onnxruntime failed with "import numpy failed" when a
query arrived as the warm-up began (bench/startup.py, SciFact). So the loaders import
what they need through :func:`preload` first, one module at a time across threads,
numpy first; after the first time it is a set look-up.

A caller waits only until *its* modules are imported: ``status`` (which needs the table's
modules) must not wait behind the warm-up's import of onnxruntime that began after them.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

from minirag_store.index.storage.native import import_lancedb

if TYPE_CHECKING:
    from minirag_store.config import Config
    from minirag_store.index.embed.embedding import Embedder
    from minirag_store.index.table import ChunkTable

__all__ = ["MODEL", "TABLE", "existing_table", "new_table", "preload"]

#: What opening the table imports, and what loading the embedding model imports.
TABLE = ("numpy", "pyarrow", "lancedb")
MODEL = ("numpy", "tokenizers", "onnxruntime")

_CHANGED = threading.Condition()
_DONE: set[str] = set()
#: The module some thread is importing now: at most one (guarded by ``_CHANGED``).
_IMPORTING: set[str] = set()


def preload(modules: Sequence[str]) -> None:
    """Import ``modules`` in order unless done already, no other thread importing meanwhile."""
    for name in modules:
        if name in _DONE:
            continue
        with _CHANGED:
            _CHANGED.wait_for(lambda n=name: n in _DONE or not _IMPORTING)
            if name in _DONE:
                continue
            _IMPORTING.add(name)
        imported = False
        try:
            if name == "lancedb":  # after the settings it reads on import
                import_lancedb()
            else:
                importlib.import_module(name)
            imported = True
        finally:
            with _CHANGED:
                _IMPORTING.clear()
                if imported:
                    _DONE.add(name)
                _CHANGED.notify_all()


def existing_table(config: Config, resident: bool) -> ChunkTable | None:
    """The index's table when it exists (no model needed to open it), else None
    (``resident``: see ``AnnSettings``). A local folder without the table answers None
    without importing LanceDB (seconds): a read of an index not made yet stays quick."""
    from minirag_store.index.search.ann import settings_for
    from minirag_store.index.storage.connection import table_absent
    from minirag_store.index.storage.schema import TABLE_NAME
    from minirag_store.index.table import ChunkTable

    if table_absent(config.db_uri, TABLE_NAME):
        return None
    preload(TABLE)  # never while another thread imports
    db, ann = config.db_uri, settings_for(config, resident=resident)
    return ChunkTable.open_existing(db, config.model_name, config.storage_options, ann=ann)


def new_table(config: Config, embedder: Embedder, resident: bool) -> ChunkTable:
    """The index's table, created for ``embedder``'s model when there is none yet."""
    from minirag_store.index.search.ann import settings_for
    from minirag_store.index.table import ChunkTable

    ann = settings_for(config, resident=resident)
    return ChunkTable.open(
        config.db_uri, embedder.model_id, embedder.dim, config.storage_options, ann=ann
    )
