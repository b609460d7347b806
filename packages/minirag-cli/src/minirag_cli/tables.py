"""``list`` and ``status`` as tables a person can scan."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from minirag_cli.render import console

if TYPE_CHECKING:
    from minirag_store.results import FileRow, ListResult, StatusResult

__all__ = ["file_label", "show_list", "show_status"]

_STATE_STYLE = {
    "ingested": "green",
    "stale": "yellow",
    "stale_scheme": "yellow",
    "not_ingested": "dim",
    "unreadable": "red",
    "failed": "red",
    "empty": "dim",
    "unsupported": "dim",
    "too_large": "yellow",
    "ignored": "dim",
}

#: status fields in reading order, with their labels; unknown fields follow at the end.
_STATUS_LABELS = {
    "version": "version",
    "configError": "configuration error",
    "roots": "document roots",
    "rootsFrom": "roots from",
    "dbPath": "index folder",
    "indexFrom": "index from",
    "knownIndexes": "indexes you synced",
    "cacheDir": "model cache",
    "model": "model",
    "modelPath": "model path",
    "chunkTokenBudget": "chunk token budget",
    "hybridWeight": "hybrid weight",
    "fusion": "fusion",
    "grouping": "grouping",
    "maxDistance": "max distance",
    "minScoreRatio": "min score ratio",
    "maxFiles": "max files",
    "maxFileSize": "max file size (bytes)",
    "maxResponseTokens": "max response tokens",
    "chunkScheme": "chunk scheme",
    "sourceCount": "sources",
    "chunkCount": "chunks",
    "staleChunkCount": "stale chunks",
    "schemeWarning": "scheme warning",
    "indexError": "index error",
    "ocr": "OCR",
    "ocrLang": "OCR language",
    "ocrHint": "OCR install",
    "watch": "watch setting",
    "watchMode": "watching here",
    "watchNote": "why it polls",
    "lastSync": "last sync",
}
#: settings whose ``None`` means something a person should see ("unset"); any other field
#: that is ``None`` (no warning, a server's transport) is left out of the table.
_UNSET_SHOWN = frozenset({"modelPath", "grouping", "maxDistance", "maxFiles"})
_PROBLEMS = frozenset({"configError", "indexError"})
_WARNINGS = frozenset({"schemeWarning", "ocrHint"})


def file_label(row: FileRow) -> str:
    """The path column of a row: display path, ``[ocr:ENGINE]`` when OCR read it."""
    label = row["displayPath"]
    if row["sourceType"] != "file":
        label += f" ({row['sourceType']})"
    if row["ocrEngine"]:
        label += f" [ocr:{row['ocrEngine']}]"
    return label


def show_list(result: ListResult) -> None:
    """One row per file or source: state, chunks, path, title; then a summary line.

    Scan warnings are not printed here: the command prints them (``warn:``) in every mode."""
    from rich import box
    from rich.table import Table

    out = console()
    rows = result["files"]
    if rows:
        table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, header_style="bold")
        table.add_column("state", no_wrap=True)
        table.add_column("chunks", justify="right", no_wrap=True)
        table.add_column("path", overflow="fold", ratio=3)
        table.add_column("title / reason", overflow="fold", ratio=2)
        for row in rows:
            state = row["state"]
            table.add_row(
                state,
                str(row["chunkCount"]),
                file_label(row),
                row.get("reason") or row["title"],  # a file not indexed has no title
                style=_STATE_STYLE.get(state),
            )
        out.print(table)
    states = Counter(row["state"] for row in rows)
    summary = ", ".join(f"{n} {state}" for state, n in sorted(states.items()))
    out.print(f"{len(rows)} entries" + (f": {summary}" if summary else ""))


def _last_sync(last: Any) -> str:
    """``failed, by minirag-cli, 2026-12-07 04:50 UTC: 3 ingested, 1 failed`` (the index's
    record of its last sync, whoever ran it)."""
    when = (last.get("finishedAt") or "")[:16].replace("T", " ")
    counts = ", ".join(f"{n} {k}" for k, n in last.get("counts", {}).items() if n)
    from minirag_store.results import SYNC_ORIGINS

    line = f"{last['state']}, by {SYNC_ORIGINS.get(last['origin'], last['origin'])}"
    line += f", {when} UTC" if when else ""
    return line + (f": {counts}" if counts else "")


def _value(value: Any) -> str:
    if value is None:
        return "unset"
    if isinstance(value, list):
        return "\n".join(_item(v) for v in value) or "none"
    return str(value)


def _item(value: Any) -> str:
    """A list entry: a known index as ``roots -> index (synced at)``, anything else as is."""
    if isinstance(value, dict) and "index" in value:
        return f"{', '.join(value['roots'])} -> {value['index']} (synced {value['syncedAt']})"
    return str(value)


def show_status(result: StatusResult) -> None:
    """Configuration and index health as a two-column table; problems stand out."""
    from rich.table import Table

    table = Table(show_header=False, show_edge=False, pad_edge=False, box=None)
    table.add_column(style="bold", no_wrap=True)
    table.add_column(overflow="fold")
    data = {k: v for k, v in result.items() if v is not None or k in _UNSET_SHOWN}
    keys = [k for k in _STATUS_LABELS if k in data] + [k for k in data if k not in _STATUS_LABELS]
    for key in keys:
        style = "bold red" if key in _PROBLEMS else "yellow" if key in _WARNINGS else None
        value = _last_sync(data[key]) if key == "lastSync" else _value(data[key])
        table.add_row(_STATUS_LABELS.get(key, key), value, style=style)
    console().print(table)
