"""Path identity and containment: source keys, display paths and scopes, and the one
resolver of what a person or a model typed to name a document or a scope.

What is typed may be an absolute path, a ``displayPath`` (relative to its root, as every
answer prints it), a data or URL id, or, from the CLI only (a :class:`Config` with
``cwd``), a path relative to the working folder. :func:`resolve_document` and
:func:`resolve_scopes` try them in one order, written once here: absolute; a URL or a
data id as indexed; relative to the working folder when that names something inside a
root; the ``displayPath`` under each root (two roots holding it is an error naming both).
A file's source key is its absolute path *as reached from a root* (a symlink inside a
root keeps the link's path), and it must resolve, symlinks followed, to a place inside
some root. Scopes match a prefix only at a separator boundary, so ``/docs/proj`` never
covers ``/docs/project-secret``; data and URL ids use ``/`` the same way.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

from minirag_store.config import Config
from minirag_store.errors import InvalidArgumentError, PathOutsideRootsError

__all__ = [
    "display_path",
    "is_inside",
    "normalize_scopes",
    "resolve_document",
    "resolve_path",
    "resolve_scopes",
    "root_of",
    "scope_matches",
    "source_for_path",
]


def is_inside(path: Path, root: Path) -> bool:
    """True when ``path`` is ``root`` or lies below it (pure path comparison)."""
    return path == root or root in path.parents


def root_of(config: Config, path: str | os.PathLike[str]) -> Path | None:
    """The innermost configured root that contains ``path`` (no symlink resolution).

    String prefixes ending at a separator, not pathlib: a source key (or a ``Path``) is
    already a normalised absolute path, and list_files asks once per file under the roots
    (pathlib's parents and relative_to were two thirds of its CPU time: 63 us a file)."""
    text = os.fspath(path)
    best: Path | None = None
    for root in config.roots:
        name = str(root)
        inside = text == name or text.startswith(name.rstrip(os.sep) + os.sep)
        if inside and (best is None or len(name) > len(str(best))):
            best = root
    return best


def source_for_path(config: Config, path: str) -> str:
    """The source key of ``path``; raises unless it is absolute and (resolved) inside a root.

    Tool paths must be absolute; the CLI resolves what a person typed against the current
    folder before calling.
    """
    if not path or not path.strip():
        raise InvalidArgumentError("A file path is required")
    raw = Path(path).expanduser()
    if not raw.is_absolute():
        raise InvalidArgumentError(f"filePath must be an absolute path, got {path!r}")
    lexical = Path(os.path.normpath(raw))
    real = lexical.resolve()
    if not any(is_inside(real, root) for root in config.roots):
        raise PathOutsideRootsError(
            f"Path outside configured document roots: {lexical} "
            f"(roots: {', '.join(str(r) for r in config.roots)})"
        )
    # Keep the link's path when it is itself under a root; otherwise the real path is.
    return str(lexical if root_of(config, lexical) is not None else real)


def display_path(config: Config, source: str, source_type: str = "file") -> str:
    """What a person is shown: a file's path relative to its root; a data/URL id as is."""
    if source_type != "file":
        return source
    root = root_of(config, source)
    if root is None or source == str(root):
        return source
    return source[len(str(root).rstrip(os.sep)) + 1 :].replace(os.sep, "/")


def _normalize_one(scope: str) -> str:
    text = scope.strip()
    if not text:
        raise InvalidArgumentError("scope must not be empty")
    if "://" in text or not (text.startswith(("/", "~")) or os.path.isabs(text)):
        return text.rstrip("/") or text  # a data or URL id prefix
    normalized = os.path.normpath(os.path.expanduser(text))
    return normalized


def normalize_scopes(scope: str | Sequence[str] | None) -> tuple[str, ...] | None:
    """Turn a scope argument (one string, a list, or None) into clean prefixes."""
    if scope is None:
        return None
    items = [scope] if isinstance(scope, str) else list(scope)
    if not items:
        return None
    return tuple(dict.fromkeys(_normalize_one(s) for s in items))


def scope_matches(source: str, scopes: tuple[str, ...] | None) -> bool:
    """True when ``source`` is one of ``scopes`` or lies under one at a separator."""
    if scopes is None:
        return True
    for prefix in scopes:
        if source == prefix:
            return True
        base = prefix if prefix.endswith(("/", os.sep)) else prefix + "/"
        if source.startswith(base) or (os.sep != "/" and source.startswith(prefix + os.sep)):
            return True
    return False


def _typed(text: str, what: str) -> str:
    if not isinstance(text, str) or not text.strip():
        raise InvalidArgumentError(f"{what} must be a non-empty path or source id, got {text!r}")
    return text.strip()


def _absolute(text: str) -> bool:
    return text.startswith("~") or os.path.isabs(text)


def _ambiguous(text: str, candidates: Sequence[str]) -> InvalidArgumentError:
    return InvalidArgumentError(
        f"{text!r} is under several document roots: {', '.join(candidates)}; give the one "
        "you mean as an absolute path"
    )


def _relative_candidates(
    config: Config, text: str, found: Callable[[str], bool]
) -> list[str] | None:
    """What a relative ``text`` names: the working folder's path when it names something
    (``found``) inside a root, else each root's path that does; None when nothing does."""
    if config.cwd is not None:
        here = os.path.normpath(config.cwd / text)
        if root_of(config, here) is not None and found(here):
            return [here]
    under = [os.path.normpath(root / text) for root in config.roots]
    hits = [p for p in dict.fromkeys(under) if root_of(config, p) is not None and found(p)]
    return hits or None


def resolve_path(config: Config, text: str) -> str:
    """A file or folder a person typed, absolute (``~`` expanded, lexical: no symlink
    resolution): relative to the working folder, else under the one root that holds it,
    else as the working folder (or the one root) would have it. What ``sync`` and
    ``ingest`` take, before the store checks it lies inside a root. Nothing typed is
    passed on as it is: the operation's own check names what is missing."""
    if not isinstance(text, str) or not text.strip():
        return text
    text = text.strip()
    if _absolute(text):
        return os.path.normpath(os.path.expanduser(text))
    hits = _relative_candidates(config, text, os.path.exists)
    if hits is not None and len(hits) > 1:
        raise _ambiguous(text, hits)
    if hits:
        return hits[0]
    base = config.cwd if config.cwd is not None else config.roots[0]
    return os.path.normpath(base / text)


def resolve_document(
    config: Config, text: str, indexed: Callable[[str], bool], *, checked: bool = False
) -> str:
    """The source key of the document ``text`` names (``indexed(key)``: whether the index
    holds that source). Order: a URL id as is; an absolute path (checked to lie inside a
    root); a data id the index holds; relative to the working folder (CLI); a
    ``displayPath`` under the one root that holds it, indexed or on disk. Several roots
    holding it: :class:`InvalidArgumentError` naming them. Nothing found: the most likely
    key, so the caller's "not indexed" message names a path a person recognises.
    ``checked``: an absolute path must lie inside a root now even when it is indexed (a
    ``filePath``); else an indexed key is taken as it is (a ``source``: a link that now
    leads out of the roots can still be deleted)."""
    text = _typed(text, "source")
    if "://" in text:
        return text
    if _absolute(text):
        key = os.path.normpath(os.path.expanduser(text))
        return key if not checked and indexed(key) else source_for_path(config, text)
    if indexed(text):
        return text  # a data source's own id
    for found in (indexed, os.path.exists):
        hits = _relative_candidates(config, text, found)
        if hits is not None and len(hits) > 1:
            raise _ambiguous(text, hits)
        if hits:
            return source_for_path(config, hits[0])
    if config.cwd is not None and root_of(config, config.cwd) is not None:
        # typed where a root is: the path as typed, refused when it leads out of the roots
        return source_for_path(config, os.path.normpath(config.cwd / text))
    return os.path.normpath(config.roots[0] / text) if len(config.roots) == 1 else text


def resolve_scopes(config: Config, scope: str | Sequence[str] | None) -> tuple[str, ...] | None:
    """Scope prefixes for what was typed (one string, a list, or None).

    An absolute path or a URL-id prefix is taken as it is (:func:`normalize_scopes`). A
    relative one is both a path (relative to the working folder on the CLI, else a
    ``displayPath`` under the one root holding it; two roots: an error naming them) and
    a prefix of data source ids, so ``notes`` covers ``<root>/notes/...`` and the data
    sources ``notes/...`` alike.
    """
    typed = normalize_scopes(scope)
    if typed is None:
        return None
    out: list[str] = []
    for text in typed:
        if not ("://" in text or _absolute(text)):
            hits = _relative_candidates(config, text, os.path.exists)
            if hits is not None and len(hits) > 1:
                raise _ambiguous(text, hits)
            out.extend(hits or ())
        out.append(text)
    return tuple(dict.fromkeys(out))
