"""Which document roots a command works on, when they are not simply given.

Part of the configuration loader (:func:`minirag_store.config.load_config` calls
:func:`locate`): ``--base-dir`` > ``BASE_DIRS`` > ``BASE_DIR`` > the nearest folder at or
above the working folder holding ``.minirag/`` (as git finds ``.git``) > the fallback a
command asks for: the per-user record of synced indexes (:mod:`minirag_store.known`) and
then a refusal that says what to do (a command that only reads), or the working folder
(a command that builds an index).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from minirag_store import variables as v
from minirag_store.errors import ConfigError
from minirag_store.known import KnownIndex, forget_missing
from minirag_store.known import load as load_known
from minirag_store.settings import read_text

__all__ = [
    "MARKER",
    "RECORD",
    "Fallback",
    "Found",
    "Located",
    "discover_root",
    "locate",
    "nothing_found",
    "resolve_typed",
]

#: How the roots were found: ``flag`` (--base-dir), ``variable`` (BASE_DIRS/BASE_DIR),
#: ``discovered`` (a folder holding ``.minirag/`` at or above the working folder),
#: ``known`` (the per-user record of synced indexes), ``cwd`` (the working folder itself).
Found = Literal["flag", "variable", "discovered", "known", "cwd"]
#: What to do when no root is given and none is found from the working folder: take the
#: working folder (a command that builds an index), the record's index else refuse (a
#: command that only reads one), or the record's index else the working folder (a server).
Fallback = Literal["cwd", "known", "known_or_cwd"]
#: The folder whose presence marks a root (as ``.git`` marks a repository).
MARKER = ".minirag"
#: ``Config.index_from`` when the record of synced indexes chose the index.
RECORD = "the record of synced indexes"


def resolve_typed(raw: str, cwd: Path) -> Path:
    """``raw`` as a person typed it: ``~`` expanded, relative to ``cwd``, resolved."""
    path = Path(raw).expanduser()
    if not path.is_absolute():
        path = cwd / path
    return path.resolve()


def _given_roots(
    env: Mapping[str, str], base_dirs: Sequence[str] | None
) -> tuple[list[str], str] | None:
    """``(raw roots, origin)`` from the flag or a variable; None when none was given."""
    if base_dirs:
        return list(base_dirs), "--base-dir"
    if listed := read_text(env, v.BASE_DIRS):
        try:
            value = json.loads(listed)
        except ValueError as e:
            raise ConfigError(f"BASE_DIRS {v.BASE_DIRS.must}: {e}") from e
        if (
            not isinstance(value, list)
            or not value
            or not all(isinstance(item, str) and item.strip() for item in value)
        ):
            raise v.BASE_DIRS.error(repr(env["BASE_DIRS"]))
        return value, "BASE_DIRS"
    if read_text(env, v.BASE_DIR):
        return [env["BASE_DIR"]], "BASE_DIR"
    return None


def discover_root(cwd: Path) -> Path | None:
    """The nearest folder at or above ``cwd`` holding ``.minirag/`` (as git finds ``.git``)."""
    for folder in (cwd, *cwd.parents):
        if (folder / MARKER).is_dir():
            return folder
    return None


def _known_for(cwd: Path, known: list[KnownIndex], index: str | None) -> KnownIndex | None:
    """The record's entry for ``index`` when one was given; else the one whose roots hold
    ``cwd`` (most recent first), else the most recently synced; None when none fits."""
    present = forget_missing(known)
    if index is not None:
        return next((k for k in present if k.index == index), None)
    for entry in present:
        if any(cwd == r or r in cwd.parents for r in entry.roots):
            return entry
    return present[0] if present else None


def nothing_found(cwd: Path, known: list[KnownIndex], file: Path) -> str:
    """What a command that reads an index says when it was given none and finds none."""
    head = f"No index found for {cwd}: no folder from here up holds {MARKER}/"
    if known:
        roots = "; ".join(", ".join(str(r) for r in k.roots) for k in known)
        return (
            f"{head}, and the indexes synced before ({file}) are gone: {roots}. "
            "Sync one again: minirag-cli sync --base-dir <your documents folder>"
        )
    return (
        f"{head}, and no index has been synced yet ({file} lists none). Index your "
        "documents first: minirag-cli sync --base-dir <your documents folder>; then run "
        "commands from inside that folder, or give it with --base-dir (or BASE_DIR)"
    )


def _existing_dirs(raws: Sequence[str], origin: str, cwd: Path) -> tuple[Path, ...]:
    roots: list[Path] = []
    for raw in raws:
        path = resolve_typed(raw, cwd)
        if not path.is_dir():
            what = "does not exist" if not path.exists() else "is not a directory"
            raise ConfigError(f"Document root {path} (from {origin}) {what}")
        if path not in roots:
            roots.append(path)
    return tuple(roots)


@dataclass(frozen=True)
class Located:
    """The roots found, how (:data:`Found`, and said for ``status``), and the record's
    index location when the record chose them."""

    roots: tuple[Path, ...]
    found_by: Found
    roots_from: str
    known_index: str | None = None  # the record's index location, when it chose the roots


def locate(
    env: Mapping[str, str],
    base_dirs: Sequence[str] | None,
    cwd: Path,
    *,
    fallback: Fallback,
    known_file: Path,
    index: str | None,
) -> Located:
    """The roots: flag > variables > discovered from ``cwd`` > the record > ``cwd``.

    ``index``: the index location given (flag or DB_PATH), else None. Given one, the
    record supplies its roots when it has them; otherwise the working folder does (the
    index was named, so nothing is refused)."""
    given = _given_roots(env, base_dirs)
    if given is not None:
        raws, origin = given
        found: Found = "flag" if origin == "--base-dir" else "variable"
        return Located(_existing_dirs(raws, origin, cwd), found, origin)
    if (root := discover_root(cwd)) is not None:
        said = f"discovered: {root} holds {MARKER}/ (looked up from {cwd})"
        return Located((root,), "discovered", said)
    if fallback != "cwd":
        known = load_known(known_file)
        entry = _known_for(cwd, known, index)
        if entry is not None:
            roots = tuple(r for r in entry.roots if r.is_dir())
            if roots:
                said = f"the record of synced indexes, synced at {entry.synced_at} ({known_file})"
                return Located(roots, "known", said, entry.index)
        if fallback == "known" and index is None:
            raise ConfigError(nothing_found(cwd, known, known_file))
    return Located((cwd,), "cwd", "the working folder")
