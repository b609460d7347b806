"""Rows as Arrow tables, and Lance's distributed write: fragments written anywhere, one
commit by whoever holds the table.

:func:`arrow_rows` is the one place chunk rows become the table's Arrow shape (the
local writer and a Ray worker both use it, so both write identical rows).
:func:`write_fragments` runs on a worker, or in the local writer when it replaces stored
sources (:mod:`~minirag_store.index.storage.commits`): it writes data files into the dataset's
folder (or bucket) without committing, so nothing is visible yet.
:func:`commit_replace` runs on the driver: one ``LanceOperation.Update`` that removes
every old row of the replaced sources (deletion vectors on the fragments holding them,
or the whole fragment when nothing else is left in it) and adds the new fragments. It
is exactly the shape of commit LanceDB's own ``merge_insert`` makes, so readers see the
old rows or the new ones of each source, never a mix, and an interrupted job leaves the
last committed version. New fragments are outside the scalar and keyword indexes until
:meth:`~minirag_store.index.table.ChunkTable.maintain` folds them in (Lance searches
unindexed rows flat meanwhile, as after any write).

Through ``pylance`` (a dependency of ours: LanceDB itself does not pull it in).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from minirag_store.index.storage import keyword_column as kwcol
from minirag_store.index.storage.schema import ROW_FIELDS, chunk_id, in_sources

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa

__all__ = ["arrow_rows", "commit_replace", "fragments_from_json", "write_fragments"]


def arrow_rows(
    schema: pa.Schema, dim: int, rows: Sequence[Mapping[str, Any]], vectors: np.ndarray
) -> pa.Table:
    """``rows`` (the writer's :data:`~minirag_store.index.storage.schema.ROW_FIELDS`) with their
    ``vectors`` as a table of ``schema``: id, keyword entries, float16 vectors, time."""
    import numpy as np
    import pyarrow as pa

    now = datetime.now(UTC).isoformat(timespec="seconds")
    columns: dict[str, Any] = {f: [r[f] for r in rows] for f in ROW_FIELDS}
    columns["id"] = [chunk_id(r["source"], r["chunk_index"]) for r in rows]
    columns["keywords"], columns[kwcol.LANGUAGE_COLUMN] = kwcol.keyword_column(rows)
    columns[kwcol.VERSION_COLUMN] = [kwcol.KEYWORDS_VERSION] * len(rows)
    columns["ingested_at"] = [now] * len(rows)
    flat = pa.array(np.asarray(vectors, dtype=np.float16).reshape(-1), pa.float16())
    columns["vector"] = pa.FixedSizeListArray.from_arrays(flat, dim)
    return pa.table({f.name: columns[f.name] for f in schema}, schema=schema)


def write_fragments(uri: str, options: Mapping[str, str], data: pa.Table) -> str:
    """Write ``data`` as new, uncommitted fragments of the dataset at ``uri``; returns
    their metadata as JSON (what travels back to the driver)."""
    import lance.fragment

    written = lance.fragment.write_fragments(
        data, uri, schema=data.schema, storage_options=dict(options) or None
    )
    return json.dumps([fragment.to_json() for fragment in written])


def fragments_from_json(text: str) -> list[Any]:
    """The fragment metadata :func:`write_fragments` returned."""
    from lance.fragment import FragmentMetadata

    return [FragmentMetadata.from_json(json.dumps(item)) for item in json.loads(text)]


def commit_replace(
    uri: str, options: Mapping[str, str], sources: Sequence[str], new_fragments: Sequence[Any]
) -> int:
    """Make ``new_fragments`` the only rows of ``sources``, in one commit on the latest
    version; returns that version. A concurrent commit touching the same fragments makes
    Lance refuse this one ("commit conflict"): the caller starts over (the new
    fragments' files stay valid, only the deletions are recomputed)."""
    import lance

    dataset = lance.dataset(uri, storage_options=dict(options) or None)
    where = in_sources(list(dict.fromkeys(sources)))
    # Only fragments holding an old row of these sources are touched (the BTREE index on
    # ``source`` answers this without a scan).
    hits = dataset.to_table(columns=[], filter=where, with_row_address=True)
    holding = {int(address) >> 32 for address in hits["_rowaddr"].to_pylist()}
    updated, removed = [], []
    for fragment in dataset.get_fragments():
        if fragment.fragment_id not in holding:
            continue
        kept = fragment.delete(where)
        if kept is None:
            removed.append(fragment.fragment_id)
        else:
            updated.append(kept)
    operation = lance.LanceOperation.Update(
        removed_fragment_ids=removed, updated_fragments=updated, new_fragments=list(new_fragments)
    )
    committed = lance.LanceDataset.commit(
        uri, operation, read_version=dataset.version, storage_options=dict(options) or None
    )
    return int(committed.version)
