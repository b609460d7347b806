"""The MCP handshake answers, built without the MCP SDK.

Importing fastmcp costs most of a second (the protocol's pydantic models), and a desktop
client waits for the handshake before it shows the server as ready. So on stdio the
server answers the opening ``initialize`` (the handshake era) or ``server/discover``
(the 2026-07-28 era) itself, from these plain dicts, while fastmcp imports in the
background (see :mod:`minirag_mcp.early`).

The answers must be exactly what fastmcp would send. The constants below mirror the
installed SDK (``mcp_types.version``, fastmcp's capabilities) and are checked against it
by the test suite, request by request; at run time :mod:`minirag_mcp.early` also compares
fastmcp's own answer with ours and logs any difference. Anything this module is not sure
to answer identically (an unknown version, a malformed request, another method) returns
``None`` and is left to fastmcp.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

__all__ = [
    "HANDSHAKE_VERSIONS",
    "MODERN_VERSIONS",
    "ServerIdentity",
    "handshake_answer",
]

#: Protocol revisions reached through ``initialize`` (``mcp_types.version``).
HANDSHAKE_VERSIONS: tuple[str, ...] = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
#: Revisions using the per-request ``_meta`` envelope and ``server/discover``.
MODERN_VERSIONS: tuple[str, ...] = ("2026-07-28",)

PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CLIENT_INFO_KEY = "io.modelcontextprotocol/clientInfo"
CLIENT_CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"

#: What fastmcp advertises on a handshake-era connection: its tool, resource and prompt
#: lists can change at run time, and it serves logging/setLevel.
_HANDSHAKE_CAPABILITIES: dict[str, Any] = {
    "logging": {},
    "prompts": {"listChanged": True},
    "resources": {"subscribe": False, "listChanged": True},
    "tools": {"listChanged": True},
}
#: On a 2026-era connection change notifications need subscriptions/listen, which
#: fastmcp does not serve, so every listChanged is false; it also offers MCP Apps.
_MODERN_CAPABILITIES: dict[str, Any] = {
    "logging": {},
    "prompts": {"listChanged": False},
    "resources": {"subscribe": False, "listChanged": False},
    "tools": {"listChanged": False},
    "extensions": {"io.modelcontextprotocol/ui": {}},
}


@dataclass(frozen=True)
class ServerIdentity:
    """What the handshake tells a client about this server."""

    name: str
    version: str
    instructions: str


def handshake_answer(message: object, server: ServerIdentity) -> dict[str, Any] | None:
    """The JSON-RPC response to ``message`` when it opens a connection, else ``None``.

    ``message`` is one decoded line from the client. Only a well-formed ``initialize``
    or ``server/discover`` request is answered; the result is a fresh dict.
    """
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return None
    rid = message.get("id")
    if isinstance(rid, bool) or not isinstance(rid, int | str):
        return None
    params = message.get("params")
    if message.get("method") == "initialize":
        result = _initialize(params, server)
    elif message.get("method") == "server/discover":
        result = _discover(params, server)
    else:
        return None
    if result is None:
        return None
    return {"jsonrpc": "2.0", "id": rid, "result": result}


def _initialize(params: object, server: ServerIdentity) -> dict[str, Any] | None:
    """The ``initialize`` result; the client's version if offered, else the newest one."""
    if not isinstance(params, dict):
        return None
    meta = params.get("_meta")
    if meta is not None and (not isinstance(meta, dict) or PROTOCOL_VERSION_KEY in meta):
        return None  # a 2026 envelope on initialize: the SDK refuses it, let it say how
    requested = params.get("protocolVersion")
    if not isinstance(requested, str) or not _is_capabilities(params.get("capabilities")):
        return None
    if not _is_implementation(params.get("clientInfo")):
        return None
    version = requested if requested in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]
    return {
        "protocolVersion": version,
        "capabilities": copy.deepcopy(_HANDSHAKE_CAPABILITIES),
        "serverInfo": {"name": server.name, "version": server.version},
        "instructions": server.instructions,
    }


def _discover(params: object, server: ServerIdentity) -> dict[str, Any] | None:
    """The ``server/discover`` result, for a probe at a 2026-era version we speak."""
    meta = params.get("_meta") if isinstance(params, dict) else None
    if not isinstance(meta, dict) or meta.get(PROTOCOL_VERSION_KEY) not in MODERN_VERSIONS:
        return None  # unknown era or version: the SDK's error names what it supports
    if not _is_implementation(meta.get(CLIENT_INFO_KEY)):
        return None
    if not _is_capabilities(meta.get(CLIENT_CAPABILITIES_KEY)):
        return None
    return {
        "_meta": {SERVER_INFO_KEY: {"name": server.name, "version": server.version}},
        "ttlMs": 0,
        "cacheScope": "private",
        "supportedVersions": list(MODERN_VERSIONS),
        "capabilities": copy.deepcopy(_MODERN_CAPABILITIES),
        "instructions": server.instructions,
        "resultType": "complete",
    }


def _is_implementation(value: object) -> bool:
    """A client's ``{name, version}`` as the SDK accepts it (strings, both present)."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("name"), str)
        and isinstance(value.get("version"), str)
    )


def _is_capabilities(value: object) -> bool:
    """Client capabilities: an object whose every capability is an object itself."""
    return isinstance(value, dict) and all(isinstance(v, dict) or v is None for v in value.values())
