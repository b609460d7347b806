"""How a replacement of whole sources commits: an append when the sources are new; when
they are stored, one Lance ``Update`` commit through fragments (the caller's ``swap``);
each one atomic for readers.

A ``merge_insert`` (on ``id``, with ``when_not_matched_by_source_delete`` restricted to the
replaced sources) would swap a source's chunks in one commit too, but its join and
by-source delete read the ``id`` and ``source`` of every stored row: each commit's peak
grows with the table (``bench/merge_memory.py``, 40 rows of 8 stored sources: +44 MB at
50k rows, +117 at 200k; so in a million-chunk index's server, a re-sync of one edited file
would cost more memory than its searches). The ``swap`` writes the new rows as fragments
and commits them with deletion vectors on just the fragments that hold the old rows
(:func:`~minirag_store.index.storage.fragments.commit_replace`, the shape of commit
``merge_insert`` makes): +0-1 MB at every size (and 0.03 s against 0.18 at 200k), after
the process's first use of pylance (its code mapped in, ~80 MB, which the first
maintenance pays anyway). An append holds nothing of the table either, and a full sync's
sources are all new.

The one ``merge_insert`` left settles a race: two writers adding the same new source at
once (the primary-key check a merge makes is what no other commit here has).
All run under the table's write lock (``writing``) and retry on another process's
conflicting commit (:func:`~minirag_store.index.storage.upkeep.retry_conflicts`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from minirag_store.index.storage import upkeep

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["replace"]

log = logging.getLogger(__name__)
Writing = Callable[[], AbstractContextManager[None]]


def replace(
    table: Any, data: pa.Table, scope: str, writing: Writing, swap: Callable[[pa.Table], None]
) -> None:
    """Make ``data`` the only rows of the sources ``scope`` selects, in one commit:
    appended when they are new, else ``swap(data)``, which replaces the stored rows."""
    appended = _append_new(table, data, scope, writing)
    if appended is None:
        swap(data)
    elif not appended:
        _merge(table, data, scope, writing)


def _merge(table: Any, data: pa.Table, scope: str, writing: Writing) -> None:
    def merge() -> None:  # the same merge again is the same result: safe to retry
        with writing():
            (
                table.merge_insert("id")
                .when_matched_update_all()
                .when_not_matched_insert_all()
                .when_not_matched_by_source_delete(scope)
                .execute(data)
            )

    # Another process's commits (on object storage: another machine's) can outlast
    # LanceDB's own retries: start over from the latest version.
    upkeep.retry_conflicts(merge, give_up=None)


def _append_new(table: Any, data: pa.Table, scope: str, writing: Writing) -> bool | None:
    """Append ``data`` when its sources have no rows yet: True if that is what happened,
    None when they have rows (nothing written), False after the race below.

    An append carries no primary-key check: another writer adding the same new source
    between the count and this commit (a sync and a single-file ingest of one file at
    once) would leave both copies. The count after the commit sees that (of two such
    writers, the later one always sees the earlier one's rows): the sources' rows are
    then deleted and written once by a merge (a merge is the last word in every
    interleaving, and merges check the primary key). Meanwhile a reader may find the
    source briefly absent; a crash in between leaves it absent, and the next sync adds
    it again as a new file.
    """
    with writing():
        if table.count_rows(scope):
            return None
        table.add(data)
        if table.count_rows(scope) == data.num_rows:
            return True
    log.warning("another writer added the same new source at once; writing it once again")

    def delete() -> None:
        with writing():
            table.delete(scope)

    upkeep.retry_conflicts(delete, give_up=None)
    return False
