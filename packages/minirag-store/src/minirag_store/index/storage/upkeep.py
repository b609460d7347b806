"""The table's indexes and housekeeping: which scalar and full-text indexes it keeps,
compaction, and the removal of old versions (through LanceDB's public table API).
"""

from __future__ import annotations

import itertools
import logging
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import timedelta
from typing import Any

from minirag_store.index.storage.schema import has_primary_key

__all__ = [
    "INDEXED_COLUMNS",
    "compact",
    "create_indexes",
    "drop_old_versions",
    "ensure_primary_key",
    "missing_indexes",
    "retry_conflicts",
]

#: BTREE scalar indexes (per-source, per-section and per-id look-ups and the merge on
#: ``id`` never scan the table) plus the full-text index over our ``keywords`` column.
INDEXED_COLUMNS = ("source", "parent_id", "id", "keywords")


def missing_indexes(table: Any) -> list[str]:
    """The columns of :data:`INDEXED_COLUMNS` that have no index yet."""
    have = {tuple(ix.columns) for ix in table.list_indices()}
    return [c for c in INDEXED_COLUMNS if (c,) not in have]


def ensure_primary_key(table: Any) -> bool:
    """Make ``id`` the primary key of a table made before it was one (True if it did).

    Without it two processes replacing the same source at once both insert its rows
    (schema.py). The ids were never null, so the column can turn non-nullable, which a
    primary key requires; both are one public metadata-only commit each, no rewrite."""
    if has_primary_key(table.schema):
        return False
    if table.schema.field("id").nullable:
        table.alter_columns({"path": "id", "nullable": False})
    table.set_unenforced_primary_key("id")
    return True


def create_indexes(table: Any, columns: list[str]) -> None:
    """Create the indexes of ``columns`` (on an empty table too: later rows are folded in)."""
    from lancedb.index import BTree

    for column in columns:
        if column != "keywords":
            table.create_index(column, config=BTree())
    if "keywords" in columns:
        table.create_index("keywords", config=_keyword_config(), replace=False)


def _keyword_config() -> Any:
    """The full-text index of the keyword column, which is already normalised: split on
    spaces, change nothing."""
    from lancedb.index import FTS

    return FTS(
        base_tokenizer="whitespace",
        lower_case=False,
        stem=False,
        remove_stop_words=False,
        ascii_folding=False,
        max_token_length=None,
    )


#: Compaction joins small fragments (a sync's commits) into fragments of up to this many
#: rows, then leaves them alone: each maintenance rewrites what was written since the last
#: one, not the table. (LanceDB's ``optimize()`` compacts towards 1M-row fragments and
#: re-encodes them, so every maintenance rewrote the table's one big fragment with the new
#: rows: at 210k rows 23.6 s and +500 MB a maintenance, bench/maintenance.py.)
FRAGMENT_ROWS = 16_384
#: How compaction writes the joined fragments: re-encoded, never their pages copied. A
#: sync commits every few seconds, so its fragments hold a few dozen rows each, too few
#: for Lance to pick dictionary or FSST encodings; copying their pages kept them plain for
#: good. Measured on SciFact (24,964 chunks): the compacted data file 61 MB copied against
#: 46 MB re-encoded (text 9.2 -> 5.8 MB, locator 3.0 -> 0.4, title 2.5 -> 0.4); on 4,000
#: rows in 20-row commits the compaction itself took 0.21 s against 0.39.
COMPACTION_MODE = "reencode"
#: An index segment (one of Lance's "delta" indexes) takes in newer rows only up to this
#: many, so what one maintenance merges (the full-text index's above all) stays bounded
#: whatever the table's size; a segment that reached it is final. Every segment costs each
#: keyword query (200 real queries on 210k rows: p50 13.9 ms in one segment, 17.7 in two,
#: 20.0 in three), but a bigger merge costs more memory than building the same rows anew:
#: a 10x SciFact sync (257k rows) peaked at 814 and 882 MB (two runs) with this bound and
#: the rule below, 966 MB merging each batch into one segment of up to 262k rows
#: (bench/sync_memory.py). Lance 14's merge holds memory in proportion to the rows it
#: covers, whatever its part size (bench/fts_memory.py: 25k new rows into a segment of
#: 10k / 85k / 185k rows, +148 / +175 / +220 MB; as a segment of their own, +71-76 MB at
#: every size), so only this bound keeps a maintenance's peak from growing with the table.
#: Only the full-text index is kept in segments: the BTREE and vector indexes merge into
#: one at every maintenance, which costs little (1M rows: +45-79 MB and 0.6-0.8 s a
#: BTREE, +57-64 MB and 2-4 s the IVF_RQ index) while each of their segments is another
#: look-up or another probed IVF search per query (a 1M-row table synced in 32k-row
#: batches had 9 of each; bench/scale.py's "synced" layout).
SEGMENT_ROWS = 131_072
#: Segments this small always merge (a single-file ingest's maintenance would otherwise
#: leave a segment of a few rows each time).
SMALL_SEGMENT_ROWS = 16_384
#: A segment merges into newer rows of at least 1/ratio its size: sizes at least double
#: from newest to oldest, so a table holds about log2(SEGMENT_ROWS / batch rows) growing
#: segments plus one final segment per SEGMENT_ROWS rows, and a maintenance rewrites about
#: as many rows as it adds.
SEGMENT_RATIO = 2
#: A write's last maintenance (what the server then searches) rebuilds the full-text index
#: as one segment instead of leaving it in more than this many. Measured on bench/scale.py's
#: 1M-row table as a sync leaves it (11 segments): hybrid p50 95 ms against 60 with the
#: index in one segment, server RSS after 300 queries 1,003 MB against 819. A rebuild
#: costs the table's size (1M rows: 21 s, +437 MB; 100k: 2.5 s, +125 MB), so it is done
#: only when the segments pile up: a sync's last maintenance, or after enough small ones.
KEYWORD_SEGMENTS = 4


def segments_to_merge(segments: list[int], new_rows: int) -> int:
    """How many of an index's newest segments (row counts, oldest first) a maintenance
    merges with ``new_rows`` unindexed rows (Lance's ``num_indices_to_merge``). An empty
    segment (what an index made on an empty table starts with) always goes."""
    merged, count = new_rows, 0
    for rows in reversed(segments):
        small = rows <= max(SMALL_SEGMENT_ROWS, SEGMENT_RATIO * merged)
        if rows and (not small or merged + rows > SEGMENT_ROWS):
            break
        merged += rows
        count += 1
    return count


def compact(table: Any, *, consolidate: bool = False) -> None:
    """Compact new fragments and fold new rows into every index, keeping every version
    (queries go on reading their own version's files meanwhile).

    Through Lance's own optimizer on the table's dataset (LanceDB's public ``to_lance()``),
    whose options LanceDB's ``optimize()`` does not pass on: bounded compaction
    (:data:`FRAGMENT_ROWS`, re-encoded: :data:`COMPACTION_MODE`) and, for the
    full-text index, segments merged by :func:`segments_to_merge` instead of the whole
    index rewritten for every batch. The BTREE and vector indexes stay one segment each
    (new rows of the vector index go to the trained partitions; :mod:`ann` retrains).
    ``consolidate`` (a write's last maintenance): the full-text index is built anew as one
    segment instead when it would be left in more than :data:`KEYWORD_SEGMENTS`."""
    dataset = table.to_lance()
    dataset.optimize.compact_files(
        target_rows_per_fragment=FRAGMENT_ROWS, compaction_mode=COMPACTION_MODE
    )
    rebuild = False
    # the keyword index last: a rebuild commits through the table, after every merge here
    for index in sorted(dataset.describe_indices(), key=lambda ix: ix.field_names == ["keywords"]):
        stats = dataset.stats.index_stats(index.name)
        if not stats["num_unindexed_rows"]:
            continue
        segments = stats["num_indexed_rows_per_delta"]
        if index.field_names == ["keywords"]:
            merge = segments_to_merge(segments, stats["num_unindexed_rows"])
            if consolidate and len(segments) - merge + 1 > KEYWORD_SEGMENTS:
                rebuild = True
                continue
        else:  # BTREE and vector: one segment, see SEGMENT_ROWS
            merge = len(segments)
        dataset.optimize.optimize_indices(index_names=[index.name], num_indices_to_merge=merge)
    if rebuild:  # replaced in one commit: a build killed half-way leaves the old segments
        table.create_index("keywords", config=_keyword_config(), replace=True)
    table.checkout_latest()


def drop_old_versions(table: Any, *, shared: bool = False) -> None:
    """Delete every version but the latest: the index stays one version's size across
    re-syncs. A reader in another process still on an older version then fails (a time
    window would not help: a version superseded a moment ago may be hours old); on a
    local index that risk is taken on purpose.

    ``shared`` (an index on object storage, read by other machines whose table handles
    may be a second behind,
    :data:`~minirag_store.index.storage.connection.REMOTE_CONSISTENCY`): only versions
    superseded more than :data:`SUPERSEDED_GRACE` ago go (measured on moto: a reader
    querying through three re-syncs hit a deleted data file without this).
    """
    older_than = _superseded_cutoff(table) if shared else timedelta(0)
    # Lance's cleanup itself: LanceDB's optimize(cleanup_older_than=...) would compact and
    # update every index first, with the defaults :func:`compact` avoids.
    table.to_lance().cleanup_old_versions(older_than=older_than)
    table.checkout_latest()


#: How long a superseded version of a shared index stays readable: a reader's handle may
#: be a second old and its read (a snapshot load over a real network) take many more.
SUPERSEDED_GRACE = timedelta(minutes=5)
#: Slack between the latest commit's timestamp and the cleanup's own clock.
_CLOCK_SLACK = timedelta(seconds=30)


def _superseded_cutoff(table: Any) -> timedelta:
    """The ``cleanup_older_than`` that deletes exactly the versions superseded more than
    :data:`SUPERSEDED_GRACE` ago. LanceDB ages a version by when it was written, not when
    a newer one replaced it, so the age is taken from the oldest version to keep; all
    timestamps are LanceDB's own (the latest commit's stands for "now")."""
    versions = sorted(table.list_versions(), key=lambda v: v["version"])
    latest = versions[-1]["timestamp"]
    for older, newer in itertools.pairwise(versions):
        if latest - newer["timestamp"] < SUPERSEDED_GRACE:  # ``older`` was read lately
            return latest - older["timestamp"] + _CLOCK_SLACK
    return timedelta(0)


log = logging.getLogger(__name__)
#: Tries at an index creation or a maintenance pass that other writers keep preempting.
CONFLICT_ATTEMPTS = 5


def retry_conflicts(action: Callable[[], None], *, give_up: str | None) -> bool:
    """Run ``action``, again (up to :data:`CONFLICT_ATTEMPTS` times) while another process's
    commit preempts it; True once it ran through.

    Why: two processes writing one index (on object storage: two machines) meet here.
    LanceDB refuses the later of two concurrent commits that touch the same thing
    ("Retryable commit conflict ... preempted by concurrent transaction", or "Index name
    ... already exists" when both create a new table's indexes); each try starts over
    from the latest version. ``give_up`` (what the action is, for a warning): after the
    last try, warn and return False instead of raising (maintenance only tidies: every
    write has already landed, and the next batch's maintenance tries again).
    """
    for attempt in range(CONFLICT_ATTEMPTS):
        try:
            action()
            return True
        except (RuntimeError, OSError, ValueError) as e:
            text = str(e).lower()
            if "commit conflict" not in text and "already exists" not in text:
                raise
            if attempt == CONFLICT_ATTEMPTS - 1:
                if give_up:
                    log.warning("%s gave way to other writers %d times; it runs again after "
                                "the next batch of writes", give_up, CONFLICT_ATTEMPTS)  # fmt: skip
                    return False
                raise
            time.sleep(0.2 * (attempt + 1))
    return False


def add_missing_columns(
    table: Any,
    missing: Callable[[Any], dict[str, str]],
    writing: Callable[[], AbstractContextManager[None]],
) -> None:
    """Before a write: add the columns an index made by an older version lacks, as
    ``missing(table)`` names them with the SQL filling them (NULL: "not recorded"; for
    the locator, the next sync then re-reads those sources), under ``writing()``. Asked
    again on each try: another process may have added them meanwhile."""

    def add() -> None:
        if columns := missing(table):
            table.add_columns(columns)

    if missing(table):
        with writing():
            retry_conflicts(add, give_up=None)
