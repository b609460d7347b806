"""What one sync will do: the scan diffed against the indexed sources' metadata.

Pure decisions (a stat of a file that may be gone, no index or model): which files are
unchanged, which need parsing (with the hash to compare when only size/mtime moved), which
are too large, known to hold no text (:mod:`.empties`) or of a type not read, and which
indexed sources are deleted or kept as unreadable (see
:mod:`minirag_store.ingest.sync` for the rules).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from minirag_store.ingest.workers import ParseTask
from minirag_store.paths import root_of, scope_matches

if TYPE_CHECKING:
    from minirag_store.config import Config

__all__ = ["Scope", "SyncPlan", "plan_sync"]

#: What one sync reconciles: these paths (files or folders, as reached from a root), or
#: every root (None). Data and URL sources are never in it.
Scope = tuple[Path, ...] | None


@dataclass
class SyncPlan:
    """What one sync will do, decided from the scan and the index's source metadata."""

    scanned: int = 0
    unchanged: list[str] = field(default_factory=list)
    tasks: list[ParseTask] = field(default_factory=list)
    oversized: list[tuple[str, int]] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)
    to_delete: list[str] = field(default_factory=list)
    empty: list[tuple[str, str]] = field(default_factory=list)  # (source, reason), unchanged
    unsupported: list[str] = field(default_factory=list)


def _image_extensions() -> frozenset[str]:
    from minirag_store.convert.formats import IMAGE_EXTENSIONS

    return IMAGE_EXTENSIONS


def _task_for(entry: Any, meta: Any, scheme: int) -> ParseTask | None:
    """None when the file is unchanged; else a task (with the hash to compare, if any)."""
    source, path = entry.source, str(entry.path)
    if meta is None or meta.source_type != "file" or meta.scheme_version < scheme:
        return ParseTask(source, path)
    if not meta.located:  # indexed before locators: read again to record its pages
        return ParseTask(source, path)
    if meta.size == entry.size and meta.mtime == entry.mtime:
        return None
    return ParseTask(source, path, known_hash=meta.file_hash or None)


def plan_sync(
    config: Config,
    scanned: Any,
    metas: dict[str, Any],
    under: Scope,
    empties: Mapping[str, tuple[int, float, str]] | None = None,
) -> SyncPlan:
    """Diff a :class:`~minirag_store.ingest.scan.ScanResult` of ``under`` against indexed
    ``metas`` and the ``empties`` record: only sources under ``under`` (every file source
    when None) may be deleted."""
    from minirag_chunker import SCHEME_VERSION

    plan = SyncPlan()
    empties = empties or {}
    for entry in scanned.oversized:
        plan.oversized.append((entry.source, entry.size))
    for entry in scanned.files:
        meta = metas.get(entry.source)
        known = empties.get(entry.source) if meta is None else None
        if known is not None and known[:2] == (entry.size, entry.mtime):
            plan.empty.append((entry.source, known[2]))
        elif (task := _task_for(entry, meta, SCHEME_VERSION)) is None:
            plan.unchanged.append(entry.source)
        else:
            plan.tasks.append(task)
    unsupported = [p.source for p in scanned.passed if p.state == "unsupported"]
    plan.scanned = len(scanned.files) + len(scanned.oversized) + len(unsupported)
    seen = {e.source for e in scanned.files} | {e.source for e in scanned.oversized}
    scope = tuple(str(path) for path in under) if under is not None else None
    images = _image_extensions()
    for source, meta in metas.items():
        if source in seen or meta.source_type != "file" or not scope_matches(source, scope):
            continue
        root = root_of(config, Path(source))
        if root is None or _hidden_from_scan(source, root):
            continue  # under other roots, or behind an unreadable folder: leave it be
        if Path(source).suffix.lower() in images and os.path.isfile(source):
            plan.unreadable.append(source)
        else:
            plan.to_delete.append(source)
    kept = set(plan.unreadable)  # an indexed image without OCR is counted once, there
    plan.unsupported = [source for source in unsupported if source not in kept]
    plan.scanned -= len(unsupported) - len(plan.unsupported)
    return plan


def _hidden_from_scan(source: str, root: Path) -> bool:
    """True when ``source`` may still exist but the scan could not see it.

    A folder without read permission is a scan warning, not a reason to drop every
    file indexed from it; only a file that is provably gone (or now excluded by the
    rules) is deleted.
    """
    try:
        os.lstat(source)
    except FileNotFoundError:
        return False
    except OSError:
        return True  # permission denied on the way: cannot tell, keep it
    folder = Path(source).parent
    while folder != root and root in folder.parents:
        if not os.access(folder, os.R_OK | os.X_OK):
            return True
        folder = folder.parent
    return False
