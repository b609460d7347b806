"""The parts of an index an operation may use, as protocols the facade satisfies.

Operations below the facade (search, reading, listing, pages, sync, ingest) take the
narrowest of these instead of :class:`~minirag_store.service.Index` itself: a module's
signature says what it touches, a test can hand it just those parts, and the facade can
change shape without them. Each part opens lazily and once (the facade's job), which is
why they are methods and not values. Annotations only: nothing here runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from minirag_store.config import Config
    from minirag_store.index.embed.embedding import Embedder
    from minirag_store.index.table import ChunkTable

__all__ = ["Configured", "Ingesting", "Readable", "Searchable", "Stored", "Writable"]


class Configured(Protocol):
    """The validated configuration (raises ``ConfigError`` when it is broken)."""

    @property
    def config(self) -> Config: ...


class Stored(Configured, Protocol):
    """... and the chunk table, opened (or created) on first use; or only when it exists
    (what a read opens: it never creates an index)."""

    def table(self) -> ChunkTable: ...

    def existing_table(self) -> ChunkTable | None: ...


class Readable(Stored, Protocol):
    """... and the token counter a response budget counts in (never loads the model)."""

    def token_counter(self) -> Callable[[str], int]: ...


class Searchable(Readable, Protocol):
    """... and the embedding model, loaded on first use: what a query needs."""

    def embedder(self) -> Embedder: ...


class Writable(Stored, Protocol):
    """The table, and the count of single-source writes that schedules its upkeep."""

    def after_small_write(self) -> None: ...


class Ingesting(Writable, Protocol):
    """... and the embedding model: what writing new chunks needs; and whether the index
    follows the files (``watch_state``: a watched index writes again soon)."""

    def embedder(self) -> Embedder: ...

    def watch_state(self) -> tuple[str, str | None]: ...
