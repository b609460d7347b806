"""The store's exception tree: one root, each subclass also a matching builtin.

Shells convert these to their own error surface in exactly one place (an MCP tool
error, or ``error: <message>`` with exit 1), so every message here is written for the
person or model who reads it: what went wrong and what to do about it.
"""

from __future__ import annotations

__all__ = [
    "ConfigError",
    "ConversionError",
    "EmptyDocumentError",
    "EncryptedDocumentError",
    "FetchError",
    "IndexMismatchError",
    "IndexUnavailableError",
    "InvalidArgumentError",
    "MiniragError",
    "ModelLoadError",
    "NotFoundError",
    "OcrUnavailableError",
    "PathOutsideRootsError",
    "RenderError",
    "SyncBusyError",
    "UrlRefusedError",
]


class MiniragError(Exception):
    """Root of every error minirag_store raises on purpose."""


class ConfigError(MiniragError, ValueError):
    """The configuration (env vars or flags) is invalid; the message names the setting."""


class InvalidArgumentError(MiniragError, ValueError):
    """A caller passed a bad argument (empty query, topK < 1, unknown format, ...)."""


class PathOutsideRootsError(MiniragError, PermissionError):
    """A path, or what its symlinks resolve to, lies outside every configured root."""


class NotFoundError(MiniragError, LookupError):
    """A source, chunk or job the caller named does not exist."""


class ConversionError(MiniragError, ValueError):
    """A file could not be turned into text (corrupt, empty, unsupported, too large)."""


class EmptyDocumentError(ConversionError):
    """A file was read but holds no text to index (a sync skips it instead of failing)."""


class OcrUnavailableError(ConversionError):
    """A file needs OCR and no installed engine can read it; the message names the install."""


class ModelLoadError(MiniragError, RuntimeError):
    """The embedding model could not be loaded or downloaded."""


class IndexMismatchError(MiniragError, RuntimeError):
    """The index on disk was built with another model (or an incompatible layout)."""


class IndexUnavailableError(MiniragError, OSError):
    """The object store holding the index cannot be reached or refused access; the message
    names the index URI (never a credential) and the settings that decide it."""


class SyncBusyError(MiniragError, RuntimeError):
    """Another sync holds the index's sync lock; the message names its PID and age."""


class UrlRefusedError(MiniragError, PermissionError):
    """ingest_url refused a URL: bad scheme, or a host that is private/local."""


class FetchError(MiniragError, OSError):
    """ingest_url could not fetch a permitted URL (DNS, connection, timeout, HTTP status, size)."""


class RenderError(MiniragError, ValueError):
    """A document's page could not be drawn as an image (damaged file, a format with no
    renderer); the message says what can be read instead."""


class EncryptedDocumentError(RenderError):
    """The document is encrypted with a password minirag does not have."""
