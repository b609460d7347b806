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
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from minirag_store import Index

__all__ = ["Shared", "with_config", "with_shared"]

_CONFIG = "Configuration (after the subcommand; flags beat env vars)"

BaseDirs = Annotated[
    list[str] | None,
    typer.Option(
        "--base-dir",
        help="Document root; repeatable. Replaces BASE_DIRS/BASE_DIR (default: the nearest "
        "folder holding .minirag/, here or above; else the current folder, or for a command "
        "that only reads, the index you synced last).",
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
    def open_index(self, *, resident: bool = True, reads: bool = False) -> Iterator[Index]:
        """The store's Index for these options (a broken config does not raise here);
        ``resident=False`` for a command that asks one question (``Index.open``).

        ``reads``: a command that only reads an index (query, read, list, status ...):
        given no root and standing in none, it takes the index the user synced (the
        store's record), saying so on stderr, instead of the working folder; with none
        recorded its configuration error says what to do. Any command finds the root
        it stands in (a folder holding ``.minirag/``, here or above)."""
        from minirag_store import Index
        from minirag_store.config import RECORD

        index = Index.open(
            os.environ,
            base_dirs=self.base_dir or None,
            db_path=self.db_path,
            cache_dir=self.cache_dir,
            model_name=self.model_name,
            model_path=self.model_path,
            cwd=Path.cwd(),
            fallback="known" if reads else "cwd",
            resident=resident,
        )
        # Said when the record chose the index too: a person who named it knows which it is.
        if index.config_error is None and index.config.index_from == RECORD:
            config = index.config
            roots = ", ".join(str(r) for r in config.roots)
            typer.echo(
                f"minirag-cli: no index in {Path.cwd()} or above it: using {config.db_uri} "
                f"over {roots}, from {config.roots_from}. --base-dir picks another; "
                "`minirag-cli status` lists the indexes you synced.",
                err=True,
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
