"""``status``: configuration and index health. It always answers, whatever is broken.

A broken configuration gives ``{version, configError, knownIndexes}``. A broken or foreign
index gives the configuration plus ``indexError``. Status reads the index summary
(:mod:`minirag_store.index.storage.summary`) when it is current, without importing LanceDB, else the
table; it never loads the embedding model (opening ONNX costs seconds) and never creates
an index that is absent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from minirag_store.results import StatusResult

if TYPE_CHECKING:
    from pathlib import Path

    from minirag_store.config import Config
    from minirag_store.index.storage.summary import IndexSummary
    from minirag_store.index.table import ChunkTable
    from minirag_store.results import KnownIndexRow

__all__ = ["STATUS_FIELDS", "build_status"]

#: Every field of a status report, in order: each shell's answer has all of them.
STATUS_FIELDS: tuple[str, ...] = tuple(StatusResult.__annotations__)


def build_status(
    config: Config | str, watch: tuple[str, str | None], table: ChunkTable | None = None
) -> StatusResult:
    """The status report of ``config`` (or of the configuration error it is), with how
    this process follows the files (``watch``: mode and why it polls), every field of
    :data:`STATUS_FIELDS` present (``None`` where it has no value); never raises.
    ``table``: the index's table when this process has it open (its summary is at hand,
    and a poll during one of its writes answers without waiting for it)."""
    out = _status(config, watch, table)
    return {key: out.get(key) for key in STATUS_FIELDS}  # type: ignore[return-value]


def _status(
    config: Config | str, watch: tuple[str, str | None], table: ChunkTable | None
) -> StatusResult:
    from minirag_store import known
    from minirag_store.meta import version

    out: StatusResult = {"version": version()}
    if isinstance(config, str):
        out["configError"] = config
        out["knownIndexes"] = _known_rows(known.record_file())
        return out
    out["knownIndexes"] = _known_rows(config.known_file)
    out.update(_config_fields(config))
    mode, note = watch
    out["watch"], out["watchMode"] = config.watch, mode
    if note:
        out["watchNote"] = note
    out.update(_ocr_fields(config))
    out.update(_index_fields(config, table))
    from minirag_store.ingest.record import last_sync

    out["lastSync"] = last_sync(config.db_path)
    return out


def _known_rows(file: Path | None) -> list[KnownIndexRow]:
    from minirag_store import known

    return [k.as_dict() for k in known.load(file)]


def _config_fields(config: Config) -> StatusResult:
    from minirag_chunker import SCHEME_VERSION

    fields: StatusResult = {
        "roots": [str(r) for r in config.roots],
        "rootsFrom": config.roots_from,
        "dbPath": config.db_uri,
        "indexFrom": config.index_from,
        "cacheDir": str(config.cache_dir),
        "model": config.model_name,
        "modelPath": str(config.model_path) if config.model_path else None,
        "chunkTokenBudget": config.chunk_token_budget,
        "hybridWeight": config.hybrid_weight,
        "fusion": config.fusion,
        "grouping": config.grouping,
        "maxDistance": config.max_distance,
        "minScoreRatio": config.min_score_ratio,
        "maxFiles": config.max_files,
        "maxFileSize": config.max_file_size,
        "maxResponseTokens": config.max_response_tokens,
        "ocrLang": config.ocr_lang,
        "chunkScheme": SCHEME_VERSION,
    }
    return fields


def _ocr_fields(config: Config) -> StatusResult:
    """``ocr`` (engines or "unavailable") and, when something needs installing, ``ocrHint``."""
    from minirag_store.convert.ocr import INSTALL_HINT, ocr_status

    try:
        info = ocr_status(config)
    # status must answer even when an add-on's probe breaks in an unforeseen way
    except Exception as e:
        return {"ocr": "unavailable", "ocrHint": f"OCR probe failed ({e}); {INSTALL_HINT}"}
    fields: StatusResult = {"ocr": str(info.get("ocr", "unavailable"))}
    if info.get("ocrHint"):
        fields["ocrHint"] = str(info["ocrHint"])
    return fields


def _index_fields(config: Config, table: ChunkTable | None) -> StatusResult:
    from minirag_chunker import SCHEME_VERSION

    try:
        current = table.summary(wait=False) if table is not None else _summary(config)
        if current is None:
            return {"chunkCount": 0, "sourceCount": 0, "staleChunkCount": 0}
        chunks = current.chunk_count
        stale = current.stale_count(SCHEME_VERSION)
        warning = _scheme_warning(current, stale, chunks) if stale else None
        warning = _locator_warning(current, warning)
        warning = _keyword_warning(current, warning)
    # a corrupt or unreadable index is reported, not raised: status is the diagnosis tool
    except Exception as e:
        if config.db_remote is not None:  # the store's own text is long and may echo secrets
            from minirag_store.index.storage.connection import unavailable

            return {"indexError": str(unavailable(config, e, "read"))}
        return {"indexError": f"Cannot read the index at {config.db_path}: {e}"}
    fields: StatusResult = {
        "chunkCount": chunks,
        "sourceCount": len(current.sources),
        "staleChunkCount": stale,
    }
    if current.model_id and current.model_id != config.model_name:
        fields["indexError"] = (
            f"The index at {config.db_uri} was built with {current.model_id}, but the "
            f"configured model is {config.model_name}: set a new DB_PATH or re-index."
        )
    if warning:
        fields["schemeWarning"] = warning
    return fields


def _summary(config: Config) -> IndexSummary | None:
    """The index summary, from its file when current (LanceDB is then not even imported),
    else from the table (always on object storage: no local file there is current);
    None when there is no index, or a local one without its table yet (no import either)."""
    from minirag_store.index.storage import summary
    from minirag_store.index.storage.connection import table_absent
    from minirag_store.index.storage.schema import TABLE_NAME

    if config.db_path is not None:
        current = summary.load(config.db_path)
        if current is not None:
            return current
        if table_absent(config.db_path, TABLE_NAME):
            return None  # nothing indexed yet (a first sync is loading the model, say)
    from minirag_store.index.loading import TABLE, preload
    from minirag_store.index.table import ChunkTable

    preload(TABLE)  # the server's status may run beside its warm-up (index/loading.py)
    table = ChunkTable.peek(config.db_uri, config.storage_options)
    return None if table is None else table.summary()


#: Stale data/URL sources named in the warning before the rest are only counted.
_NAMED_SOURCES = 3


def _scheme_warning(current: IndexSummary, stale: int, chunks: int) -> str:
    """What to run for chunks cut by an older chunking scheme.

    A sync re-cuts every stale file in place (its plan re-parses any file indexed with an
    older scheme, changed or not), so nothing needs deleting; data and URL sources exist
    only in the index, and only ingesting them again re-cuts them.
    """
    from minirag_chunker import SCHEME_VERSION

    old = [
        (source, meta.source_type)
        for source, meta in sorted(current.sources.items())
        if meta.scheme_version < SCHEME_VERSION
    ]
    files = sum(1 for _, kind in old if kind == "file")
    others = [source for source, kind in old if kind != "file"]
    parts = [
        f"{stale} of {chunks} chunks were cut by an older chunking scheme (current: "
        f"{SCHEME_VERSION}); queries still work."
    ]
    if files:
        parts.append(
            f"A sync re-cuts the {_plural(files, 'file')} in place, nothing needs deleting: "
            "run sync_start (MCP) or `minirag-cli sync`."
        )
    if others:
        named = ", ".join(others[:_NAMED_SOURCES])
        if len(others) > _NAMED_SOURCES:
            named += f" and {len(others) - _NAMED_SOURCES} more"
        parts.append(
            "Data and URL sources are re-cut only by ingesting them again (ingest_data / "
            f"ingest_url): {named}."
        )
    return " ".join(parts)


def _locator_warning(current: IndexSummary, warning: str | None) -> str | None:
    """``warning``, plus what to run for files indexed before locators (pages, slides)."""
    files = sum(1 for m in current.sources.values() if m.source_type == "file" and not m.located)
    if not files:
        return warning
    text = (
        f"{_plural(files, 'file')} were indexed before hits said their page, slide or sheet: "
        "a sync reads them again in place (sync_start, or `minirag-cli sync`); until then "
        "their hits carry no locator."
    )
    return f"{warning} {text}" if warning else text


def _keyword_warning(current: IndexSummary, warning: str | None) -> str | None:
    """``warning``, plus a note while keyword entries of an older keyword scheme remain."""
    from minirag_store.index.storage.keyword_column import KEYWORDS_VERSION

    if not current.keywords_stale(KEYWORDS_VERSION):
        return warning
    text = (
        f"Keyword entries were written by an older keyword scheme ({current.keywords_version}; "
        f"current: {KEYWORDS_VERSION}); queries still work. The next sync rebuilds them in "
        "place, without re-embedding (sync_start, or `minirag-cli sync`)."
    )
    return f"{warning} {text}" if warning else text


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"
