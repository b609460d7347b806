"""minirag-web: minirag in a browser, a thin shell over :class:`minirag_store.Index`.

Search, read the page an answer came from, see every file's state and the index's
health, start a sync: server-rendered HTML (Starlette + Jinja2, autoescaped), one small
script of our own, every asset inside this package. Two hosts serve it:
``minirag-cli ui`` (one person, loopback, a one-time secret: :mod:`minirag_web.local`)
and ``minirag-mcp --transport http`` (a team, at ``/ui``, behind the MCP tokens).
:func:`minirag_web.app.create_app` builds it. A package of its own, not a module of
the MCP server: the CLI serves it too and must not need fastmcp for that, and the MCP
server must not depend on the CLI; both depend on this one instead. Importing this
package is cheap (no Starlette).
"""

from __future__ import annotations

__all__ = ["version"]


def version() -> str:
    """The installed minirag-web version (from package metadata, so it cannot drift)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return dist_version("minirag-web")
    except PackageNotFoundError:  # running from a source tree without metadata
        return "0+unknown"
