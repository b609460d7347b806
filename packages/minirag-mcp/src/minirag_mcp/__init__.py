"""minirag-mcp: minirag's MCP server, a thin shell over :class:`minirag_store.Index`.

``minirag-mcp`` serves MCP on stdio; :func:`minirag_mcp.server.create_server` builds the
server for embedding or in-memory testing. Importing this package stays cheap (no
fastmcp, no model): ``minirag-mcp status`` and ``--version`` depend on it.
"""

from __future__ import annotations

__all__ = ["version"]


def version() -> str:
    """The installed minirag-mcp version (from package metadata, so it cannot drift)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return dist_version("minirag-mcp")
    except PackageNotFoundError:  # running from a source tree without metadata
        return "0+unknown"
