"""Finding the files to index under the roots: extensions, skips, ignore files, containment.

The walk uses ``os.scandir`` and plain strings (a no-op re-sync of 10,000 files has a
one-second budget, and per-file ``pathlib`` work is a large share of that). Rules:

- only supported extensions (image extensions only when the OCR add-on is installed);
- skipped: dot-names, ``~$…`` office lock files, ``node_modules``, ``__pycache__``,
  ``venv``, the index's own folder, and what ``.miniragignore`` / ``.gitignore`` exclude;
- a symlink is followed only when its target lies inside a root, and is then listed under
  the link's path; one escaping every root is skipped silently (a ``notes.md`` pointing
  at ``~/.ssh/id_rsa`` is not part of the corpus);
- a dangling link, a file vanishing mid-scan or an unreadable folder is a warning;
- a file over ``MAX_FILE_SIZE`` goes to :attr:`ScanResult.oversized`, not to ``files``;
- a file of any other type goes to :attr:`ScanResult.passed` as ``unsupported`` (a user
  must tell "not supported" from "missed"); what was skipped or ignored goes there too,
  with the rule, only when asked (``list --all``): recording it costs a rule look-up.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from minirag_store.convert.formats import (
    DOCUMENT_EXTENSIONS,
    IMAGE_EXTENSIONS,
    OCR_INSTALL_HINT,
)
from minirag_store.convert.ocr import ocr_available
from minirag_store.errors import PathOutsideRootsError
from minirag_store.ingest.ignore import (
    IGNORE_FILE_NAMES,
    IgnoreRules,
    ignored_by,
    is_ignored,
    load_rules,
)

if TYPE_CHECKING:
    from minirag_store.config import Config

__all__ = [
    "DOCUMENT_EXTENSIONS",
    "IMAGE_EXTENSIONS",
    "SKIPPED_DIR_NAMES",
    "FileEntry",
    "Passed",
    "ScanResult",
    "is_supported",
    "scan",
    "scan_scope",
    "supported_extensions",
]

#: Folder names never entered (dot-names such as ``.git`` and ``.venv`` are skipped anyway).
SKIPPED_DIR_NAMES: frozenset[str] = frozenset({"node_modules", "__pycache__", "venv"})
_IGNORE_NAMES = frozenset(IGNORE_FILE_NAMES)


@dataclass(frozen=True)
class FileEntry:
    """One file to index: its source key (the path as reached from a root) and stat data."""

    source: str
    size: int
    mtime: float
    ext: str  # lower-case, with the dot

    @property
    def path(self) -> Path:
        """The source as a Path (built on demand: 10k of them cost a tenth of a scan)."""
        return Path(self.source)


@dataclass(frozen=True)
class Passed:
    """A file the scan does not index, and why: ``unsupported`` (its type), or ``ignored``
    (a file or folder, with the rule that skips it)."""

    source: str
    state: str  # "unsupported" | "ignored"
    reason: str


@dataclass(frozen=True)
class ScanResult:
    """What a scan found: indexable files, oversized files, warnings for the user, and
    the files it passes over (unsupported always; ignored ones when asked)."""

    files: list[FileEntry]
    warnings: list[str]
    oversized: list[FileEntry] = field(default_factory=list)
    passed: list[Passed] = field(default_factory=list)


def unsupported_reason(ext: str) -> str:
    """Why a file of extension ``ext`` (lower-case, with the dot) is not read."""
    if ext in IMAGE_EXTENSIONS:
        return f"{ext} image: reading images needs the OCR add-on; install: {OCR_INSTALL_HINT}"
    return f"unsupported file type {ext or '(no extension)'}: README lists the formats read"


def _hidden_reason(name: str, is_dir: bool) -> str:
    what = "folder" if is_dir else "file"
    if name.startswith("~$"):
        return "an office lock file (~$ name)"
    return f"hidden {what} (its name starts with a dot)"


def supported_extensions(ocr: bool) -> frozenset[str]:
    """The extensions a scan picks up: the 12 document types, plus images with OCR."""
    return DOCUMENT_EXTENSIONS | IMAGE_EXTENSIONS if ocr else DOCUMENT_EXTENSIONS


def _skipped_name(name: str) -> bool:
    return name.startswith((".", "~$"))


def is_supported(path: str | os.PathLike[str], ocr_available: bool) -> bool:
    """Whether a file with this name would be indexed (extension, dot-name, lock file)."""
    name = os.path.basename(os.fspath(path))
    if _skipped_name(name):
        return False
    return os.path.splitext(name)[1].lower() in supported_extensions(ocr_available)


def _under(path: str, prefix: str) -> bool:
    """``path`` is the folder ``prefix`` (which ends in a separator) or lies below it."""
    return path.startswith(prefix) or path + os.sep == prefix


class _Walk:
    """One scan's state: the roots, what was found, and the loop guard for linked folders."""

    def __init__(self, config: Config, exts: frozenset[str], keep_ignored: bool = False) -> None:
        self.prefixes = [str(root).rstrip(os.sep) + os.sep for root in config.roots]
        # the index folder is never scanned (none on this machine for an object store)
        self.db = os.path.realpath(config.db_path) if config.db_path is not None else None
        self.max_size = config.max_file_size
        self.exts = exts
        self.files: dict[str, FileEntry] = {}
        self.oversized: dict[str, FileEntry] = {}
        self.warnings: list[str] = []
        self.linked_dirs: set[str] = set()
        self.passed: dict[str, Passed] = {}
        self.keep_ignored = keep_ignored

    def ignore(self, path: str, reason: str) -> None:
        """Record a skipped file or folder (only for ``list --all``)."""
        if self.keep_ignored:
            self.passed[path] = Passed(path, "ignored", reason)

    def inside_roots(self, real: str) -> bool:
        return any(_under(real, prefix) for prefix in self.prefixes)

    def walk(self, folder: str, rules: list[IgnoreRules]) -> None:
        stack = [(folder, rules)]
        while stack:
            current, current_rules = stack.pop()
            self._folder(current, current_rules, stack)

    def _folder(self, folder: str, rules: list[IgnoreRules], stack: list) -> None:
        try:
            with os.scandir(folder) as it:
                entries = list(it)
        except OSError as e:
            self.warnings.append(f"Cannot read folder {folder}: {e.strerror or e}; skipped")
            return
        if any(entry.name in _IGNORE_NAMES for entry in entries):
            own = load_rules(folder, {entry.name for entry in entries}, self.warnings)
            if own is not None:
                rules = [*rules, own]
        for entry in entries:
            if not _skipped_name(entry.name):
                self._entry(entry, rules, stack)
            elif self.keep_ignored:
                self.ignore(entry.path, _hidden_reason(entry.name, _is_dir(entry)))

    def _entry(self, entry: os.DirEntry[str], rules: list[IgnoreRules], stack: list) -> None:
        path = entry.path
        try:
            linked = entry.is_symlink()
            is_dir = entry.is_dir()  # follows a link
        except OSError as e:
            self.warnings.append(f"Cannot inspect {path}: {e.strerror or e}; skipped")
            return
        real = path
        if linked:
            real = os.path.realpath(path)
            if not os.path.exists(real):
                self.warnings.append(f"Dangling symlink {path} -> {real}; skipped")
                return
            if not self.inside_roots(real):
                return  # escapes every root: not part of the corpus, by design silent
        if is_dir:
            self._subfolder(path, real, linked, rules, stack)
        else:
            ext = os.path.splitext(entry.name)[1].lower()
            if ext in self.exts:
                self.add_file(path, rules, ext)
            else:
                self.add_unsupported(path, rules, ext)

    def _subfolder(
        self, path: str, real: str, linked: bool, rules: list[IgnoreRules], stack: list
    ) -> None:
        if os.path.basename(path) in SKIPPED_DIR_NAMES:
            self.ignore(path, f"folder {os.path.basename(path)} is never indexed")
            return
        if real == self.db:
            self.ignore(path, "the index's own folder")
            return
        if linked:
            # A link to an ancestor would loop forever; one folder linked twice is read once.
            parent_real = os.path.realpath(os.path.dirname(path)) + os.sep
            if _under(parent_real, real.rstrip(os.sep) + os.sep) or real in self.linked_dirs:
                return
            self.linked_dirs.add(real)
        if rules and is_ignored(rules, path, True):
            self.ignore(path, f"folder ignored by {ignored_by(rules, path, True)}")
            return
        stack.append((path, rules))

    def add_file(self, path: str, rules: list[IgnoreRules], ext: str) -> None:
        """Stat one candidate file (symlinks followed) and file it as found or oversized."""
        if rules and is_ignored(rules, path, False):
            self.ignore(path, f"ignored by {ignored_by(rules, path, False)}")
            return
        try:
            st = os.stat(path)
        except FileNotFoundError:
            self.warnings.append(f"{path} vanished during the scan; skipped")
            return
        except OSError as e:
            self.warnings.append(f"Cannot stat {path}: {e.strerror or e}; skipped")
            return
        if not stat.S_ISREG(st.st_mode):
            return  # a FIFO or device named like a document is not one
        entry = FileEntry(path, st.st_size, st.st_mtime, ext)
        if st.st_size > self.max_size:
            self.oversized[path] = entry
        else:
            self.files[path] = entry

    def add_unsupported(self, path: str, rules: list[IgnoreRules], ext: str) -> None:
        """File a regular file of a type not read (unless a rule ignores it)."""
        if rules and is_ignored(rules, path, False):
            self.ignore(path, f"ignored by {ignored_by(rules, path, False)}")
            return
        if os.path.isfile(path):  # a FIFO or device is no document of any type
            self.passed[path] = Passed(path, "unsupported", unsupported_reason(ext))


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _lexical_start(config: Config, under: Path) -> tuple[str, str]:
    """``under`` as an absolute lexical path, plus the root it lies in (checked)."""
    lexical = os.path.normpath(os.path.abspath(os.path.expanduser(under)))
    real = os.path.realpath(lexical)
    prefixes = [str(root).rstrip(os.sep) + os.sep for root in config.roots]
    if not any(_under(real, prefix) for prefix in prefixes):
        raise PathOutsideRootsError(
            f"Path outside configured document roots: {lexical} "
            f"(roots: {', '.join(str(r) for r in config.roots)})"
        )
    for prefix in sorted(prefixes, key=len, reverse=True):
        if _under(lexical, prefix):
            return lexical, prefix.rstrip(os.sep) or os.sep
    # Reached only through a symlink outside the roots: scan its real place instead.
    root = next(p for p in sorted(prefixes, key=len, reverse=True) if _under(real, p))
    return real, root.rstrip(os.sep) or os.sep


def _descend(walk: _Walk, root: str, target: str) -> list[IgnoreRules] | None:
    """Ignore rules in force at ``target`` (from its root down), or None if it is skipped."""
    rules: list[IgnoreRules] = []
    folder = root
    parts = [p for p in target[len(root) :].split(os.sep) if p]
    for index, name in enumerate(parts):
        names = {n for n in IGNORE_FILE_NAMES if os.path.exists(os.path.join(folder, n))}
        own = load_rules(folder, names, walk.warnings) if names else None
        if own is not None:
            rules.append(own)
        folder = os.path.join(folder, name)
        last = index == len(parts) - 1
        is_dir = not last or os.path.isdir(folder)
        if _skipped_name(name) or (is_dir and name in SKIPPED_DIR_NAMES):
            return None
        if os.path.realpath(folder) == walk.db or is_ignored(rules, folder, is_dir):
            return None
    return rules


def scan(
    config: Config, under: Path | None = None, *, ocr: bool | None = None, ignored: bool = False
) -> ScanResult:
    """Every indexable file under the roots, or under ``under`` (a folder or file in a root).

    ``ocr`` overrides the probe for the OCR add-on (images are scanned only with it);
    ``ignored``: also record what is skipped and by which rule (:attr:`ScanResult.passed`).
    Raises :class:`PathOutsideRootsError` when ``under`` resolves outside every root; a
    missing ``under`` gives an empty result with a warning (its files were deleted).
    """
    exts = supported_extensions(ocr_available() if ocr is None else ocr)
    walk = _Walk(config, exts, ignored)
    if under is None:
        for root in config.roots:
            walk.walk(str(root), [])
    else:
        start, root = _lexical_start(config, under)
        if not os.path.lexists(start):
            walk.warnings.append(f"{start} does not exist")
        elif (rules := _descend(walk, root, start)) is not None:
            if os.path.isdir(start):
                walk.walk(start, rules)
            elif (ext := os.path.splitext(start)[1].lower()) in exts:
                walk.add_file(start, rules, ext)
            else:
                walk.add_unsupported(start, rules, ext)
    return ScanResult(
        list(walk.files.values()),
        walk.warnings,
        list(walk.oversized.values()),
        list(walk.passed.values()),
    )


def scan_scope(
    config: Config, under: tuple[Path, ...] | None, warn: Callable[[str, str], None]
) -> ScanResult:
    """The scan of every root (``under`` None), or of each path of ``under`` merged into
    one result; each warning goes to ``warn(path, text)`` (a sync's job notes them)."""
    if under is None:
        result = scan(config, None)
        for warning in result.warnings:
            warn("(scan)", f"warning: {warning}")
        return result
    files: dict[str, FileEntry] = {}
    oversized: dict[str, FileEntry] = {}
    passed: dict[str, Passed] = {}
    for path in under:
        if not os.path.lexists(path):
            continue  # gone: reconciling it means deleting what was indexed
        try:
            found = scan(config, path)
        except PathOutsideRootsError:
            # A link now leading outside every root (the watcher names such paths): not
            # part of the corpus, as in a full scan, so what was indexed under it goes.
            continue
        for warning in found.warnings:
            warn(str(path), f"warning: {warning}")
        files.update((e.source, e) for e in found.files)
        oversized.update((e.source, e) for e in found.oversized)
        passed.update((e.source, e) for e in found.passed)
    return ScanResult(list(files.values()), [], list(oversized.values()), list(passed.values()))
