"""Which file changes matter to the index, and when a batch of them is due.

The pure half of watch mode (:mod:`minirag_store.ingest.watch` runs it): the filter that
keeps notifications that could change the index, the batching rule (a batch is due
:data:`SETTLE_SECONDS` after its last change, or :data:`MAX_WAIT_SECONDS` after its
first), the paths one sync of a batch covers, and the filesystems whose notifications
cannot be trusted.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from minirag_store.ingest.ignore import IGNORE_FILE_NAMES
from minirag_store.ingest.scan import SKIPPED_DIR_NAMES, supported_extensions

if TYPE_CHECKING:
    from minirag_store.config import Config

__all__ = [
    "MAX_WAIT_SECONDS",
    "NETWORK_FILESYSTEMS",
    "SETTLE_SECONDS",
    "Pending",
    "batch_scopes",
    "network_filesystem",
    "relevant_change",
]

#: A batch is applied once this long passed without a new change in it: an editor's
#: save (write, rename, chmod) or a checkout lands as one batch, and a person who saves
#: sees the result about this long after.
SETTLE_SECONDS = 2.0
#: ... or this long after its first change, however busy the folder stays.
MAX_WAIT_SECONDS = (
    10.0  #: Filesystem types whose notifications miss other machines' writes (Linux names).
)
NETWORK_FILESYSTEMS: frozenset[str] = frozenset(
    {"nfs", "nfs4", "cifs", "smb3", "smbfs", "ncpfs", "afs", "9p", "ceph", "glusterfs",
     "lustre", "gpfs", "fuse.sshfs", "fuse.rclone", "fuse.s3fs", "davfs", "fuse.davfs2"}
)  # fmt: skip


@dataclass
class Pending:
    """Changed paths waiting to be applied, and when they are due (clock-free: every
    method takes ``now``)."""

    settle: float = SETTLE_SECONDS
    max_wait: float = MAX_WAIT_SECONDS
    paths: dict[str, None] = field(default_factory=dict)
    first: float = 0.0
    last: float = 0.0
    not_before: float = 0.0

    def add(self, paths: Iterable[str], now: float) -> None:
        """Note changed paths (a path already waiting keeps its place)."""
        fresh = [p for p in paths if p not in self.paths]
        if not fresh and self.paths:
            self.last = now
            return
        if not self.paths:
            self.first = now
        self.last = now
        self.paths.update(dict.fromkeys(fresh))

    def due(self, now: float) -> bool:
        """Whether the batch should be applied now."""
        if not self.paths or now < self.not_before:
            return False
        return now - self.last >= self.settle or now - self.first >= self.max_wait

    def take(self) -> list[str]:
        """The waiting paths, in arrival order; the batch is empty afterwards."""
        taken, self.paths = list(self.paths), {}
        return taken

    def put_back(self, paths: Sequence[str], now: float, delay: float) -> None:
        """Keep paths that could not be applied; try again ``delay`` from ``now``."""
        self.add(paths, now)
        self.first = min(self.first, now)
        self.not_before = now + delay


def _skipped_name(name: str) -> bool:
    return name.startswith((".", "~$"))


class _Relevance:
    """Which notified paths could change the index (the rest never wake a sync).

    Kept: a file with an indexed extension, an ignore file, a folder, and a path that is
    gone (a deleted folder looks like any deleted name). Dropped: anything under a
    dot-folder, a skipped folder or the index's own folder (every commit writes there),
    and files of other types (an editor's swap and temporary files).
    """

    def __init__(self, config: Config, exts: frozenset[str]) -> None:
        self.prefixes = sorted((str(r).rstrip(os.sep) + os.sep for r in config.roots), key=len)
        self.db = os.path.realpath(config.db_path).rstrip(os.sep) + os.sep
        self.exts = exts

    def __call__(self, change: Any, path: str) -> bool:
        parts = self._parts(path)
        if not parts or any(_skipped_name(p) or p in SKIPPED_DIR_NAMES for p in parts[:-1]):
            return False
        name = parts[-1]
        if name in IGNORE_FILE_NAMES:
            return True
        if _skipped_name(name) or name in SKIPPED_DIR_NAMES:
            return False
        if os.path.splitext(name)[1].lower() in self.exts:
            return True
        return os.path.isdir(path) or not os.path.lexists(path)

    def _parts(self, path: str) -> list[str]:
        """The names from ``path``'s root down ([] outside the roots or in the index)."""
        if (path + os.sep).startswith(self.db):
            return []
        root = next((p for p in reversed(self.prefixes) if path.startswith(p)), None)
        return [] if root is None else [part for part in path[len(root) :].split(os.sep) if part]


def relevant_change(config: Config, ocr: bool) -> Callable[[Any, str], bool]:
    """The watch filter for ``config``'s roots (``ocr``: images are indexed too)."""
    return _Relevance(config, supported_extensions(ocr))


def batch_scopes(paths: Iterable[str]) -> list[str]:
    """The paths one sync must reconcile for these changes: an ignore file stands for
    its whole folder (its rules changed), and a path under another one is covered by it."""
    wanted = {os.path.dirname(p) if os.path.basename(p) in IGNORE_FILE_NAMES else p for p in paths}
    kept: list[str] = []
    for path in sorted(wanted):  # a folder sorts right before what lies under it
        if kept and (path + os.sep).startswith(kept[-1].rstrip(os.sep) + os.sep):
            continue
        kept.append(path)
    return kept


def _mount_types(mountinfo: str) -> list[tuple[str, str]]:
    """(mount point, filesystem type) pairs of a ``/proc/self/mountinfo`` text."""
    mounts: list[tuple[str, str]] = []
    for line in mountinfo.splitlines():
        left, sep, right = line.partition(" - ")
        fields = left.split()
        if not sep or len(fields) < 5 or not right.split():
            continue
        point = fields[4].encode().decode("unicode_escape")  # \040 for a space and the like
        mounts.append((point, right.split()[0]))
    return mounts


def shared_index(db_remote: str | None) -> str | None:
    """Why an index on object storage is followed by polling, or None (a local index).

    Such an index is shared: other machines sync into it, often from their own copy of
    the same folders, and a notification here reports only this machine's edits. A poll
    reconciles the roots with whatever the index holds now, whoever wrote it.
    """
    if db_remote is None:
        return None
    return (
        "the index is on object storage (DB_PATH is a URI), shared with other machines: "
        "notifications here would report this machine's edits only"
    )


def network_filesystem(roots: Sequence[Path], mountinfo: str | None = None) -> str | None:
    """Why notifications cannot be trusted for ``roots``, or None.

    A root on a network filesystem is notified of this machine's writes only. Read from
    ``/proc/self/mountinfo`` (Linux; elsewhere nothing is known and None is returned).
    """
    if mountinfo is None:
        try:
            with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as fh:
                mountinfo = fh.read()
        except OSError:
            return None
    mounts = _mount_types(mountinfo)
    for root in roots:
        text = str(root)
        best = max(
            (m for m in mounts if text == m[0] or text.startswith(m[0].rstrip("/") + "/")),
            key=lambda m: len(m[0]),
            default=None,
        )
        if best is not None and best[1] in NETWORK_FILESYSTEMS:
            return (
                f"{root} is on a network filesystem ({best[1]}), whose notifications miss "
                "other machines' writes"
            )
    return None
