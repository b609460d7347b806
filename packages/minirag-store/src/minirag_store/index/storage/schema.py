"""The chunk table's shape: columns, row ids, the model recorded in its metadata, and the
SQL filters built from user input (always through :func:`sql_str`).

Pure (pyarrow is imported only to build the schema): :mod:`minirag_store.index.table`
uses it, and so do the keyword column's rebuild and the search's scope filters.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from minirag_store.errors import IndexMismatchError

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = [
    "LOCATOR",
    "META_COLUMNS",
    "ROW_FIELDS",
    "TABLE_NAME",
    "check_dims",
    "check_model",
    "chunk_id",
    "in_sources",
    "in_values",
    "meta_projection",
    "missing_columns",
    "parent_key",
    "schema",
    "scope_filter",
    "sql_str",
    "stored_model",
]

TABLE_NAME = "chunks"
_META_MODEL = b"minirag.model"
_META_DIM = b"minirag.dim"
META_COLUMNS = ["source", "source_type", "title", "file_hash", "mtime", "size"]
META_COLUMNS += ["scheme_version", "ocr_engine"]

#: Fields a caller supplies per chunk; the table adds id, keywords, vector and ingested_at.
ROW_FIELDS = (
    "source", "source_type", "title", "chunk_index", "text", "body_start", "parent_id",
    "file_hash", "mtime", "size", "ocr_engine", "scheme_version", "locator",
)  # fmt: skip
#: Where a chunk is in its source (JSON, :mod:`minirag_store.index.write.chunk_locators`).
#: Indexes made before it lack the column until their first write adds it (:func:`missing_columns`);
#: a NULL says "written before locators" and makes the next sync re-read that source.
LOCATOR = "locator"


def sql_str(value: str) -> str:
    """``value`` as a SQL string literal: quotes doubled, so it can never end the literal.

    Used with ``=``/``IN``/``starts_with`` only (never ``LIKE``), so ``%`` and ``_`` stay
    ordinary characters and cannot widen a filter.
    """
    return "'" + value.replace("'", "''") + "'"


def _key(source: str) -> str:
    return hashlib.sha1(source.encode("utf-8")).hexdigest()[:16]


#: The limit of a read meant to return every matching row: LanceDB's plain queries
#: return 10 rows unless given a limit.
ALL_ROWS = 2**31 - 1

#: Lance's field metadata naming the (unenforced) primary key its merge_insert checks.
_PRIMARY_KEY = b"lance-schema:unenforced-primary-key"


def has_primary_key(table_schema: pa.Schema) -> bool:
    """Whether ``id`` is the table's primary key (indexes made before it was lack it).

    Lance spells the mark two ways: ``...-primary-key`` (set at creation, as here) and
    ``...-primary-key:position`` (set by ``set_unenforced_primary_key``)."""
    meta = table_schema.field("id").metadata or {}
    return any(key.startswith(_PRIMARY_KEY) for key in meta)


def chunk_id(source: str, chunk_index: int) -> str:
    """Stable row id of a chunk: replacing a source updates rows with the same ids."""
    return f"{_key(source)}:{chunk_index}"


def parent_key(source: str, section: int) -> str:
    """The ``parentId`` of a section of a source."""
    return f"{_key(source)}:s{section}"


def schema(dim: int, model_id: str) -> pa.Schema:
    """The table's columns, with the model that fills ``vector`` in the metadata."""
    import pyarrow as pa

    # The id is LanceDB's (unenforced) primary key: two processes replacing the same source
    # at once then conflict and retry instead of both inserting its rows (measured: without
    # it, two concurrent merge_inserts on moto S3 left duplicate ids).
    key = pa.field("id", pa.string(), nullable=False, metadata={_PRIMARY_KEY: b"true"})
    fields = [
        key,
        ("source", pa.string()),
        ("source_type", pa.string()),
        ("title", pa.string()),
        ("chunk_index", pa.int32()),
        ("text", pa.string()),
        ("body_start", pa.int32()),
        ("keywords", pa.string()),
        ("vector", pa.list_(pa.float16(), dim)),
        ("parent_id", pa.string()),
        ("file_hash", pa.string()),
        ("mtime", pa.float64()),
        ("size", pa.int64()),
        ("ingested_at", pa.string()),
        ("ocr_engine", pa.string()),
        ("scheme_version", pa.int32()),
        ("keywords_version", pa.int32()),  # see keyword_column.py
        ("keywords_language", pa.string()),  # see keyword_column.py
        (LOCATOR, pa.string()),
    ]
    meta = {_META_MODEL: model_id.encode(), _META_DIM: str(dim).encode()}
    return pa.schema(
        [f if isinstance(f, pa.Field) else pa.field(*f) for f in fields], metadata=meta
    )


def stored_model(table: Any) -> tuple[str, int]:
    """The ``(model id, dimension)`` recorded in a table ('', 0 when none is)."""
    meta = table.schema.metadata or {}
    raw_dim = meta.get(_META_DIM, b"").decode()
    return meta.get(_META_MODEL, b"").decode(), int(raw_dim) if raw_dim.isdigit() else 0


def check_model(table: Any, db_path: Path, model_id: str, dim: int) -> None:
    """Refuse a table built with another model or dimension (vectors would not compare)."""
    stored, stored_dim = stored_model(table)
    if stored != model_id or stored_dim != dim:
        stored = stored or "an unknown model"
        raise IndexMismatchError(
            f"The index at {db_path} was built with {stored} ({stored_dim} dims), but the "
            f"configured model is {model_id} ({dim} dims). Vectors of different models are "
            "not comparable: set a new DB_PATH for this model, or delete the index folder "
            "and re-index (sync) with the new model."
        )


def in_values(values: Sequence[str]) -> str:
    """``values`` as a SQL list for ``IN``: ``('a', 'b')``."""
    return "(" + ", ".join(sql_str(v) for v in values) + ")"


def in_sources(sources: Sequence[str]) -> str:
    """SQL for "source is one of ``sources``"."""
    return f"source IN {in_values(sources)}"


def scope_filter(scopes: Sequence[str] | None) -> str | None:
    """SQL for "source is one of ``scopes`` or lies under one at a ``/`` boundary"."""
    if not scopes:
        return None
    parts = []
    for prefix in scopes:
        base = prefix if prefix.endswith("/") else prefix + "/"
        parts.append(f"source = {sql_str(prefix)} OR starts_with(source, {sql_str(base)})")
    return "(" + " OR ".join(f"({p})" for p in parts) + ")"


def missing_columns(table: Any) -> dict[str, str]:
    """Columns an index made by an older version lacks, with the SQL that fills them in
    (LanceDB ``add_columns``): all NULL, "not recorded"."""
    names = table.schema.names
    wanted = {LOCATOR: "CAST(NULL AS STRING)", "keywords_language": "CAST(NULL AS STRING)"}
    return {column: sql for column, sql in wanted.items() if column not in names}


def meta_projection(names: Sequence[str], optional: Sequence[str]) -> dict[str, str]:
    """What a summary reads of each row of a table with columns ``names``: the metadata
    columns, those of ``optional`` it has, and ``located`` (whether the row has a locator,
    without reading it; False throughout before the column exists)."""
    projection = {c: c for c in [*META_COLUMNS, *(c for c in optional if c in names)]}
    if LOCATOR in names:
        projection["located"] = f"{LOCATOR} IS NOT NULL"
    return projection


def check_dims(table_dim: int, db: object, model_id: str, dim: int) -> None:
    """Refuse a model whose vectors do not fit the table's (``db`` names the index)."""
    if table_dim != dim:
        raise IndexMismatchError(
            f"The index at {db} holds {table_dim}-dim vectors, but {model_id} makes "
            f"{dim}-dim ones. Use a new DB_PATH or re-index with the model that built it."
        )
