"""The options every subcommand takes, and turning CLI paths into what the store expects.

``--base-dir`` (repeatable), ``--db-path``, ``--cache-dir``, ``--model-name``,
``--model-path`` and ``--json`` come *after* the subcommand, so :func:`with_shared` adds
them to each command's signature instead of hanging them on the top-level group.
"""

from __future__ import annotations

import functools
import inspect
import os
import typing
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from minirag_store import Index

__all__ = ["Shared", "absolute", "resolve_scopes", "with_shared"]

_CONFIG = "Configuration (after the subcommand; flags beat env vars)"

BaseDirs = Annotated[
    list[str] | None,
    typer.Option(
        "--base-dir",
        help="Document root; repeatable. Replaces BASE_DIRS/BASE_DIR (default: current folder).",
        rich_help_panel=_CONFIG,
        show_default=False,
    ),
]
DbPath = Annotated[
    str | None,
    typer.Option(help="Index folder. Overrides DB_PATH.", rich_help_panel=_CONFIG),
]
CacheDir = Annotated[
    str | None,
    typer.Option(help="Embedding model cache. Overrides CACHE_DIR.", rich_help_panel=_CONFIG),
]
ModelName = Annotated[
    str | None,
    typer.Option(help="fastembed model id. Overrides MODEL_NAME.", rich_help_panel=_CONFIG),
]
ModelPath = Annotated[
    str | None,
    typer.Option(
        help="Local model folder, loaded offline. Overrides MODEL_PATH.", rich_help_panel=_CONFIG
    ),
]
Json = Annotated[
    bool,
    typer.Option("--json", help="Print the result as JSON (the MCP tool's fields)."),
]


@dataclass(frozen=True)
class Shared:
    """The shared options of one invocation."""

    base_dir: list[str] | None = None
    db_path: str | None = None
    cache_dir: str | None = None
    model_name: str | None = None
    model_path: str | None = None
    json: bool = False

    @contextmanager
    def open_index(self, *, resident: bool = True) -> Iterator[Index]:
        """The store's Index for these options (a broken config does not raise here);
        ``resident=False`` for a command that asks one question (``Index.open``)."""
        from minirag_store import Index

        index = Index.open(
            os.environ,
            base_dirs=self.base_dir or None,
            db_path=self.db_path,
            cache_dir=self.cache_dir,
            model_name=self.model_name,
            model_path=self.model_path,
            cwd=Path.cwd(),
            resident=resident,
        )
        try:
            yield index
        finally:
            index.close()


_SHARED_PARAMS = (
    ("base_dir", BaseDirs, None),
    ("db_path", DbPath, None),
    ("cache_dir", CacheDir, None),
    ("model_name", ModelName, None),
    ("model_path", ModelPath, None),
    ("json", Json, False),
)


def with_shared(func: Callable[..., Any]) -> Callable[..., Any]:
    """Give ``func(..., shared: Shared)`` the six shared options as its own CLI options.

    typer reads a command's options from its signature, so the wrapper advertises the
    command's own parameters followed by the shared ones, and bundles the latter into
    one :class:`Shared` on the way in.
    """
    return _sharing(func, _SHARED_PARAMS)


def with_config(func: Callable[..., Any]) -> Callable[..., Any]:
    """:func:`with_shared` without ``--json``: for a command that prints no result (``ui``)."""
    return _sharing(func, tuple(p for p in _SHARED_PARAMS if p[0] != "json"))


def _sharing(func: Callable[..., Any], shared_params: tuple) -> Callable[..., Any]:
    hints = typing.get_type_hints(func, include_extras=True)
    own = [
        p.replace(annotation=hints[p.name])
        for p in inspect.signature(func).parameters.values()
        if p.name != "shared"
    ]
    extra = [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=ann)
        for name, ann, default in shared_params
    ]

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        shared = Shared(**{name: kwargs.pop(name) for name, _, _ in shared_params})
        return func(*args, shared=shared, **kwargs)

    params = own + extra
    wrapper.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    wrapper.__annotations__ = {p.name: p.annotation for p in params}
    return wrapper


def absolute(path: str, roots: Sequence[Path] = ()) -> str:
    """A CLI path made absolute: against the current folder, or, when that lands under no
    root of ``roots``, against the one root it names something under (``~`` expanded).

    Why the second: ``query``, ``read`` and ``list`` show a file's path relative to its
    root, so that path has to work when typed back from another folder. A path found under
    several roots stays the current folder's (the store's error then lists the roots); with
    one root, the path is taken from it even when nothing is there (``delete`` of a file
    gone from disk). Kept lexical (no symlink resolution) so the store sees the path the
    person typed.
    """
    typed = Path(path).expanduser()
    here = Path(os.path.normpath(Path.cwd() / typed))
    if typed.is_absolute() or not roots or any(here.is_relative_to(r) for r in roots):
        return str(here)
    under = [root / typed for root in roots]
    found = [p for p in under if p.exists()] or under
    return os.path.normpath(found[0]) if len(found) == 1 else str(here)


def resolve_scopes(scopes: Sequence[str] | None, roots: Sequence[Path] = ()) -> list[str] | None:
    """``--scope`` values: a relative path that exists, from the current folder or under
    one of ``roots`` (as :func:`absolute` takes it), becomes absolute; anything else (a data
    or URL source id prefix) is passed on unchanged."""
    if not scopes:
        return None
    out: list[str] = []
    for scope in scopes:
        candidate = Path(scope).expanduser()
        is_path = candidate.is_absolute() or any(
            (base / candidate).exists() for base in (Path.cwd(), *roots)
        )
        out.append(absolute(scope, roots) if is_path else scope)
    return out
