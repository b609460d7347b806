"""Where the index lives, as DB_PATH and DB_STORAGE_OPTIONS say: a local folder or an
object-store URI, the storage options, and which values are credentials.

Read by :func:`minirag_store.config.load_config` only (the one place env is read); kept
apart so the configuration module stays one screenful of settings.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping

from minirag_store.errors import ConfigError
from minirag_store.settings import read_text
from minirag_store.variables import DB_STORAGE_OPTIONS

__all__ = ["URI", "object_store_uri", "secrets_of", "storage_options"]

#: ``scheme://`` at the start of DB_PATH: an object store LanceDB opens (s3, gs, az ...).
URI = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://(.*)$")
#: Variables LanceDB's object store reads whose values are credentials: masked in every
#: message minirag writes (errors, status, logs).
_SECRET_VARIABLES = (
    "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
    "GOOGLE_SERVICE_ACCOUNT_KEY", "AZURE_STORAGE_ACCOUNT_KEY", "AZURE_STORAGE_SAS_KEY",
    "AZURE_STORAGE_TOKEN", "AZURE_CLIENT_SECRET",
)  # fmt: skip
#: DB_STORAGE_OPTIONS keys whose values are masked the same way.
_SECRET_OPTION = re.compile(r"secret|key|token|password|credential|sas|signature", re.I)


def object_store_uri(raw: str) -> str | None:
    """``raw`` without a trailing slash when it names an object store (``s3://bucket/prefix``,
    ``gs://``, ``az://`` ...: any scheme LanceDB opens but ``file://``), else None."""
    match = URI.match(raw.strip())
    if match is None or match.group(1).lower() == "file":
        return None
    return raw.strip().rstrip("/")


def storage_options(env: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """DB_STORAGE_OPTIONS: a JSON object of option names to strings (numbers and booleans
    are turned into strings). Its text is never quoted in an error: it may hold secrets."""
    raw = read_text(env, DB_STORAGE_OPTIONS)
    if not raw:
        return ()
    usage = f"DB_STORAGE_OPTIONS {DB_STORAGE_OPTIONS.must}"
    try:
        value = json.loads(raw)
    except ValueError as e:
        # e.msg and e.pos only: the text itself may hold a secret
        raise ConfigError(f"{usage}; it is not valid JSON ({e.msg} at character {e.pos})") from None
    if not isinstance(value, dict):
        raise ConfigError(f"{usage}; got a JSON {type(value).__name__}")
    options: list[tuple[str, str]] = []
    for key, item in value.items():
        if isinstance(item, bool):
            options.append((key, "true" if item else "false"))
        elif isinstance(item, str | int | float):
            options.append((key, str(item)))
        else:
            raise ConfigError(f"{usage}; the value of {key!r} is a JSON {type(item).__name__}")
    return tuple(options)


def secrets_of(env: Mapping[str, str], options: tuple[tuple[str, str], ...]) -> tuple[str, ...]:
    """The credential values to mask: those of the secret variables and secret-looking
    options, longest first (so a secret holding another is masked whole)."""
    found = [env.get(name, "").strip() for name in _SECRET_VARIABLES]
    found += [value for key, value in options if _SECRET_OPTION.search(key)]
    return tuple(sorted({s for s in found if len(s) >= 4}, key=len, reverse=True))
