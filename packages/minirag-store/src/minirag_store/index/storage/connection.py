"""The connection to where the index lives: a local folder, or an object store LanceDB opens
(s3://, gs://, az://).

LanceDB reads and writes both through its own object store; this module only connects
with the configured storage options and turns the store's failures into one clear
:class:`~minirag_store.errors.IndexUnavailableError` naming the URI. Its messages never
carry a credential: whatever the configuration marked secret (``Config.secrets``: the
``AWS_SECRET_ACCESS_KEY``-like variables and secret-looking ``DB_STORAGE_OPTIONS``
values) is masked before a message leaves here.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Concatenate, Literal, ParamSpec, Protocol, TypeVar

from minirag_store.dbpath import object_store_uri
from minirag_store.errors import IndexUnavailableError, MiniragError
from minirag_store.index.storage.creation import create_once
from minirag_store.index.storage.native import import_lancedb

if TYPE_CHECKING:
    from minirag_store.config import Config

#: Storage options as the configuration holds them (DB_STORAGE_OPTIONS): name, value.
Options = Sequence[tuple[str, str]]
#: Where an index lives: its local folder, or an object-store URI (``s3://bucket/prefix``).
Location = Path | str

__all__ = [
    "REMOTE_CONSISTENCY",
    "Location",
    "Options",
    "connect",
    "consistency",
    "local_folder",
    "open_lance_table",
    "redact",
    "session",
    "store_errors",
    "store_errors_on",
    "table_absent",
    "unavailable",
]

P = ParamSpec("P")
R = TypeVar("R")
C = TypeVar("C", bound=type)


class _Configured(Protocol):
    @property
    def config(self) -> Config: ...


#: Store answers worth naming as they are, with what to do about each.
_HINTS = {
    "NoSuchBucket": "the bucket does not exist: create it, or fix DB_PATH",
    "AccessDenied": "access denied: check the credentials and the bucket's policy",
    "InvalidAccessKeyId": "the access key is unknown to the store: check the credentials",
    "SignatureDoesNotMatch": "the secret key does not match the access key: check the credentials",
    "ExpiredToken": "the session token expired: renew the credentials",
}
_CREDENTIALS = (
    "AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, AWS_ENDPOINT_URL, AWS_REGION, or DB_STORAGE_OPTIONS"
)


#: How stale a table handle may be before LanceDB looks for a newer commit again. Locally
#: never (a look is a directory listing). On object storage each look is a LIST request,
#: and a query's keyword search made four of them in a row (measured on moto: 4 LISTs +
#: 1 range GET per warm query); one second bounds how late another machine's commit is
#: seen. This process's own commits are seen at once either way.
REMOTE_CONSISTENCY = timedelta(seconds=1)


def open_lance_table(
    db_path: Path | str,
    storage_options: Options,
    name: str,
    create: Any = None,
) -> Any:
    """The LanceDB table ``name`` of the index at ``db_path`` (a folder or an object-store
    URI). When it is absent: created with the schema ``create``, or None without one."""
    from minirag_store.index.storage import summary

    local = local_folder(db_path)
    if local is not None:
        if create is None and not local.is_dir():
            return None
        local.mkdir(parents=True, exist_ok=True)
    db = connect(str(db_path), storage_options)

    def existing() -> Any:
        try:
            return db.open_table(name)
        except ValueError:  # lancedb's "table not found"
            return None

    table = existing()
    if table is not None or create is None:
        return table

    def open_or_create() -> Any:
        found = existing()
        if found is not None:
            return found
        if local is not None:
            summary.invalidate(local)  # left by a table that was deleted
        return db.create_table(name, schema=create, exist_ok=True)

    # one creator at a time: a concurrent create_table empties a table just created
    return create_once(local, str(db_path), dict(storage_options), open_or_create, existing)


def table_absent(db_path: Location, name: str) -> bool:
    """True when ``db_path`` is a local folder that holds no table ``name`` yet (LanceDB
    keeps one in ``<folder>/<name>.lance``), known without importing LanceDB: on a new
    index ``status`` and ``list_files`` then answer at once instead of waiting seconds for
    the import the server's warm-up (or a sync's start) has under way."""
    local = local_folder(db_path)
    return local is not None and not (local / f"{name}.lance").exists()


def consistency(db_uri: str) -> timedelta:
    """The read consistency interval for the index at ``db_uri``."""
    return timedelta(0) if local_folder(db_uri) is not None else REMOTE_CONSISTENCY


#: LanceDB's metadata cache (manifests, fragment and deletion-file metadata, index
#: descriptions) per session. Its default is 1 GiB, and it keeps each version it has
#: read: a sync commits every half second and every commit is a version whose manifest
#: lists every fragment, so a full SciFact sync (~650 commits) grew it to 320 MB and a
#: larger corpus grows it further (quadratically in the commits). So two sessions:
#:
#: * ``search`` (the async handle queries use, :mod:`~minirag_store.index.search.aio`): 64 MB. At
#:   a million chunks its metadata is what a query reads on every search: p50 57-58 ms
#:   with 64 MB, 65 with 32, 77 with 8 (128: 55, little more).
#: * ``table`` (the handle that writes, maintains and looks up rows): 8 MB, which holds
#:   the latest version many times over. A 10x SciFact sync (817 commits) with 64 MB
#:   grew the sync's RSS by 57 MB more than with 8, all of it versions no one reads again.
#:
#: The index caches (posting lists, IVF partitions, scalar index pages): the search
#: session keeps LanceDB's default (what queries read again and again), the table session
#: :data:`TABLE_INDEX_CACHE_BYTES`.
METADATA_CACHE_BYTES = {"search": 64 << 20, "table": 8 << 20}
#: The table handle's index cache: with LanceDB's default (GiBs) it kept the scalar index
#: pages of every look-up a sync's writes and maintenances made, and a process writing
#: 25k rows and maintaining them eight times in a row ended 26 MB higher (bench-style
#: rounds on 210k rows: 34 MB of cache against 8 MB without the maintenances, which are
#: what fold new rows into those indexes). Its look-ups read a few pages each.
TABLE_INDEX_CACHE_BYTES = 16 << 20
Role = Literal["search", "table"]


@functools.cache
def session(role: Role = "search") -> Any:
    """The process's LanceDB session (its caches) for ``role``: see
    :data:`METADATA_CACHE_BYTES`."""
    lancedb = import_lancedb()
    index_cache = TABLE_INDEX_CACHE_BYTES if role == "table" else None  # None: the default
    return lancedb.Session(
        metadata_cache_size_bytes=METADATA_CACHE_BYTES[role], index_cache_size_bytes=index_cache
    )


def connect(db_uri: str, storage_options: Options = ()) -> Any:
    """A LanceDB connection to ``db_uri`` (see :func:`consistency` for how fresh) for the
    table handle: the ``table`` :func:`session`."""
    lancedb = import_lancedb()
    options = dict(storage_options) or None
    return lancedb.connect(
        db_uri,
        read_consistency_interval=consistency(db_uri),
        storage_options=options,
        session=session("table"),
    )


def local_folder(db_path: Path | str) -> Path | None:
    """The index's local folder, or None when it lives on object storage."""
    if isinstance(db_path, Path):
        return db_path
    return None if object_store_uri(db_path) else Path(db_path)


def redact(text: str, secrets: Sequence[str]) -> str:
    """``text`` with every secret value masked."""
    for secret in sorted(secrets, key=len, reverse=True):
        if secret:
            text = text.replace(secret, "***")
    return text


#: Words in a store error's text (lower-cased) and what they mean, first match wins.
_SYMPTOMS = (
    (
        ("169.254.169.254", "credential"),
        "no credentials found (the sync lease reads the AWS_ACCESS_KEY_ID / "
        "AWS_SECRET_ACCESS_KEY variables, web identity or an instance role, not AWS_PROFILE)",
    ),
    (
        ("connectionrefused", "tcp connect error"),
        "connection refused: is the endpoint (AWS_ENDPOINT_URL) right and up?",
    ),
    (("dns error",), "the endpoint's host name does not resolve"),
    (("timed out", "timeout"), "the store did not answer in time"),
)


def _reason(text: str) -> str:
    """What went wrong, in a few words, from a store error's (long, Rust-debug) text."""
    code = re.search(r"<Code>(\w+)</Code>", text)
    if code:
        return _HINTS.get(code.group(1), f"the store answered {code.group(1)}")
    lowered = text.lower()
    for words, meaning in _SYMPTOMS:
        if any(word in lowered for word in words):
            return meaning
    status = re.search(r"status: (\d{3})", text)
    if status:
        return f"the store answered HTTP {status.group(1)}"
    first = text.strip().splitlines()[0] if text.strip() else "unknown error"
    return first[:200]


def unavailable(
    config: Config, error: BaseException, doing: str = "reach"
) -> IndexUnavailableError:
    """The error to raise when the store behind ``config``'s index failed."""
    reason = redact(_reason(str(error)), config.secrets)
    return IndexUnavailableError(
        f"Cannot {doing} the index at {config.db_uri}: {reason}. Settings that decide it: "
        f"{_CREDENTIALS}."
    )


def store_errors(method: Callable[Concatenate[Any, P], R]) -> Callable[Concatenate[Any, P], R]:
    """Decorates a facade method: on an index on object storage, a failure of the store
    (unreachable, refused credentials, missing bucket) becomes one IndexUnavailableError
    naming the URI, every credential masked; a local index's errors pass through as
    they are. The facade's ``config`` is valid here: a broken one raised before any work."""

    @functools.wraps(method)
    def wrapper(self: _Configured, *args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return method(self, *args, **kwargs)
        except MiniragError:
            raise
        except (OSError, RuntimeError, ValueError) as e:
            config = self.config
            if config.db_remote is None:
                raise
            raise unavailable(config, e) from e

    return wrapper


def store_errors_on(*names: str) -> Callable[[C], C]:
    """A class decorator: :func:`store_errors` on each of the methods ``names``."""

    def decorate(cls: C) -> C:
        for name in names:
            setattr(cls, name, store_errors(getattr(cls, name)))
        return cls

    return decorate
