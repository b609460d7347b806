"""The per-user record of the indexes this user synced: how a command typed outside every
root still finds the index it meant, and what ``status`` lists.

One small JSON file in the user data folder (platformdirs: ``~/.local/share/minirag`` on
Linux, ``$XDG_DATA_HOME/minirag`` when that is set), newest first, written after each
successful ``sync`` or ``ingest``. It holds where an index is and which roots it covers,
never what is in it. A missing, unreadable or foreign file reads as no record: the
record only helps find an index, so it must never stop a command.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from minirag_store.results import KnownIndexRow

if TYPE_CHECKING:
    from minirag_store.config import Config
    from minirag_store.results import JobStatus

__all__ = ["KnownIndex", "after", "forget_missing", "load", "record_file", "remember"]

#: How many indexes the record keeps (the oldest synced drop out first).
MAX_KNOWN = 20
_FORMAT = 1


@dataclass(frozen=True)
class KnownIndex:
    """One synced index: its roots, where it is (a folder or an object-store URI), when."""

    roots: tuple[Path, ...]
    index: str
    synced_at: str  # ISO 8601, UTC, seconds

    def as_dict(self) -> KnownIndexRow:
        """The wire form ``status`` shows (``roots``, ``index``, ``syncedAt``)."""
        roots = [str(r) for r in self.roots]
        return {"roots": roots, "index": self.index, "syncedAt": self.synced_at}


def record_file() -> Path:
    """Where the record lives: the per-user data folder platformdirs names for minirag."""
    import platformdirs

    return Path(platformdirs.user_data_dir("minirag")) / "indexes.json"


def load(file: Path | None) -> list[KnownIndex]:
    """The indexes ``file`` records, most recently synced first (``[]`` when none)."""
    if file is None:
        return []
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
        entries = data["indexes"]
        return [
            KnownIndex(tuple(Path(r) for r in e["roots"]), str(e["index"]), str(e["syncedAt"]))
            for e in entries
            if isinstance(e, dict) and isinstance(e.get("roots"), list) and e["roots"]
        ]
    except (OSError, ValueError, KeyError, TypeError):
        return []


def forget_missing(known: Sequence[KnownIndex]) -> list[KnownIndex]:
    """``known`` without the local indexes whose folder is gone (a URI is kept)."""
    return [k for k in known if "://" in k.index or os.path.isdir(k.index)]


def remember(file: Path | None, roots: Sequence[Path], index: str) -> None:
    """Record that ``index`` over ``roots`` was just synced (first in the record).

    Atomic (temporary file + rename); a failure to write is ignored: the record is a
    convenience, and a sync that succeeded must not fail over it.
    """
    if file is None:
        return
    now = datetime.now(UTC).replace(microsecond=0).isoformat()
    entry = KnownIndex(tuple(roots), index, now)
    kept = [k for k in load(file) if k.index != index][: MAX_KNOWN - 1]
    payload = {"format": _FORMAT, "indexes": [k.as_dict() for k in (entry, *kept)]}
    with contextlib.suppress(OSError):
        file.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=file.parent, prefix=".indexes-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(payload, out, indent=1)
            os.replace(tmp, file)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def after(config: Config, job: JobStatus, ran_through: Callable[[JobStatus], bool]) -> JobStatus:
    """``job`` (a foreground sync or ingest), recorded for ``config`` when it ran to its end
    (``ran_through``: succeeded, or failed only on some files, the rest indexed): a command
    typed later outside every root finds this index."""
    if ran_through(job):
        remember(config.known_file, config.roots, config.db_uri)
    return job
