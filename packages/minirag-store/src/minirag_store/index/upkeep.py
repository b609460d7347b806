"""The table's indexes and housekeeping: which scalar and full-text indexes it keeps,
compaction, and the removal of old versions (through LanceDB's public table API).
"""

from __future__ import annotations

import warnings
from datetime import timedelta
from typing import Any

__all__ = ["INDEXED_COLUMNS", "compact", "create_indexes", "drop_old_versions", "missing_indexes"]

#: BTREE scalar indexes (per-source, per-section and per-id look-ups and the merge on
#: ``id`` never scan the table) plus the full-text index over our ``keywords`` column.
INDEXED_COLUMNS = ("source", "parent_id", "id", "keywords")
_KEEP_ALL = timedelta(days=36500)  # an optimize() that prunes nothing


def missing_indexes(table: Any) -> list[str]:
    """The columns of :data:`INDEXED_COLUMNS` that have no index yet."""
    have = {tuple(ix.columns) for ix in table.list_indices()}
    return [c for c in INDEXED_COLUMNS if (c,) not in have]


def create_indexes(table: Any, columns: list[str]) -> None:
    """Create the indexes of ``columns`` (on an empty table too: later rows are folded in)."""
    from lancedb.index import FTS, BTree

    for column in columns:
        if column != "keywords":
            table.create_index(column, config=BTree())
    if "keywords" in columns:
        # Our column is already normalised: split on spaces, change nothing.
        fts = FTS(
            base_tokenizer="whitespace",
            lower_case=False,
            stem=False,
            remove_stop_words=False,
            ascii_folding=False,
            max_token_length=None,
        )
        table.create_index("keywords", config=fts, replace=False)


def compact(table: Any) -> None:
    """Fold new rows into every index and compact fragments, keeping every version
    (queries go on reading their own version's files meanwhile)."""
    table.optimize(cleanup_older_than=_KEEP_ALL)


def drop_old_versions(table: Any) -> None:
    """Delete every version but the latest: the index stays one version's size across
    re-syncs. LanceDB warns that a reader in another process still on an older version
    then fails (a time window would not help: a version superseded a moment ago may be
    hours old); that risk is taken on purpose, so only that one message is ignored."""
    with warnings.catch_warnings():
        warnings.filterwarnings(
            "ignore", message=r"optimize\(cleanup_older_than=0\)", category=UserWarning
        )
        table.optimize(cleanup_older_than=timedelta(0))
