"""Files a sync found holding no text, remembered so later syncs skip them unread.

A document with no text (a ``.docx`` of page numbers only, a scan OCR found nothing in)
is no failure: a sync counts it ``skipped`` with the reason. Without a record it would be
converted again by every sync, and a sync with nothing to do would open the table and
the model for it. So its (size, mtime) and the reason are kept in
``<DB_PATH>/empty-files.json``: while they hold, the file is skipped unread (and listed
``empty``); once it changes it is read again. An index on object storage keeps no record
(no local folder): its empty files are read, and skipped, on every sync.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path

from minirag_store.paths import scope_matches

__all__ = ["FILE_NAME", "Empty", "load", "store", "updated"]

FILE_NAME = "empty-files.json"
#: source -> (size, mtime, reason)
Empty = dict[str, tuple[int, float, str]]


def load(db_path: Path | None) -> Empty:
    """The record of the index at ``db_path`` ({} when absent, unreadable or remote)."""
    if db_path is None:
        return {}
    try:
        raw = json.loads((Path(db_path) / FILE_NAME).read_text(encoding="utf-8"))
        return {str(s): (int(v[0]), float(v[1]), str(v[2])) for s, v in raw.items()}
    # absent or hand-edited: the files are simply read again
    except (OSError, ValueError, KeyError, TypeError, AttributeError, IndexError):
        return {}


def store(db_path: Path | None, record: Empty) -> None:
    """Write ``record`` atomically (remove the file when it is empty). A failure to write
    only means the files are read again next time, so it is not raised."""
    if db_path is None:
        return
    target = Path(db_path) / FILE_NAME
    if not record:
        with contextlib.suppress(OSError):
            target.unlink(missing_ok=True)
        return
    try:
        fd, tmp = tempfile.mkstemp(prefix=".empty-", suffix=".tmp", dir=db_path)
    except OSError:
        return
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump({s: list(v) for s, v in record.items()}, out, ensure_ascii=False)
        os.replace(tmp, target)
    except OSError:
        Path(tmp).unlink(missing_ok=True)


def updated(
    old: Mapping[str, tuple[int, float, str]],
    read: Iterable[str],
    present: set[str],
    scope: tuple[str, ...] | None,
    found: Mapping[str, tuple[int, float, str]],
) -> Empty:
    """The record after a sync of ``scope`` (None: every root) that scanned the files
    ``present``, read the files ``read`` and found ``found`` of them empty. Pure.

    An entry is dropped when its file was read again (it is in ``found`` if still
    empty) or is gone from a scope the sync covered; entries outside the scope stay."""
    again = set(read)
    kept = {
        source: entry
        for source, entry in old.items()
        if source not in again and (source in present or not scope_matches(source, scope))
    }
    return {**kept, **found}
