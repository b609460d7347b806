"""The ``minirag-mcp`` command: serve MCP (stdio by default, or HTTP), or print status.

Kept to argparse and late imports: ``status`` and ``--version`` never load fastmcp, and
``status`` reads the index without the heavy libraries (see :mod:`minirag_store.status`).
Serving is plain fastmcp; the model and the index warm up in the background once the
server runs (:mod:`minirag_mcp.server`). Nothing here writes to stdout while serving on
stdio; logging goes to stderr. An HTTP server whose ``RAG_HTTP_*`` settings or bind address
are unusable (:mod:`minirag_mcp.auth`) does not start: ``error: <what to do>``, exit 1.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from minirag_store import Index

    from minirag_mcp.auth import Serving

__all__ = ["main"]

DEFAULT_PORT = 8000
#: Given no BASE_DIR/BASE_DIRS, the server takes the root it is started in (a folder holding
#: ``.minirag/``, there or above), else the index the user synced last (a client's working
#: folder is often their home), else its working folder: the store's one rule.
_FALLBACK: Final = "known_or_cwd"


def _parser() -> argparse.ArgumentParser:
    from minirag_mcp import version

    parser = argparse.ArgumentParser(
        prog="minirag-mcp",
        description="Local hybrid search over your documents, as an MCP server. "
        "Configure with BASE_DIR/BASE_DIRS, DB_PATH, MODEL_NAME ... env vars.",
        epilog="Indexing and searching from a terminal: the minirag-cli command.",
    )
    parser.add_argument("--version", action="version", version=f"minirag-mcp {version()}")
    parser.add_argument(
        "--transport",
        choices=("stdio", "http"),
        default="stdio",
        help="stdio (default; what desktop clients launch) or http (Streamable HTTP)",
    )
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="HTTP bind address (loopback); any other needs RAG_HTTP_TOKENS or "
        "RAG_HTTP_JWKS_URI (see the README)",
    )
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help="HTTP port")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    status = commands.add_parser(
        "status",
        help="print configuration and index status as JSON and exit 0, even when the "
        "configuration is broken (run it before restarting a desktop client); "
        "`minirag-mcp --transport http [--host H] status` also checks the HTTP settings",
    )
    # The same overrides the CLI takes, to check a configuration before putting it in a
    # client's settings; each replaces its env var.
    status.add_argument("--base-dir", action="append", help="document root (repeatable)")
    status.add_argument("--db-path", help="index directory")
    status.add_argument("--cache-dir", help="embedding model cache directory")
    status.add_argument("--model-name", help="fastembed model id")
    status.add_argument("--json", action="store_true", help="accepted; output is always JSON")
    return parser


def _serving(args: argparse.Namespace) -> Serving:
    """The transport fields ``status`` shows for the server these arguments would start;
    unusable HTTP settings become ``httpConfigError`` (the message the server would stop
    with) instead of a failure."""
    from minirag_mcp.auth import HttpSettingsError, load_http_settings, serving_status

    if args.transport != "http":
        return serving_status(None)
    try:
        return serving_status(load_http_settings(os.environ, host=args.host, port=args.port))
    except HttpSettingsError as e:
        return {"transport": "http", "httpConfigError": str(e)}


def _status(index: Index, serving: Serving) -> int:
    """Print what the ``status`` tool would answer; exit 0 even with a broken config."""
    from minirag_mcp.instructions import instructions_for

    result = {**index.status(), **serving}
    result["instructionsTruncated"] = instructions_for(index).truncated
    print(json.dumps(result, indent=2, ensure_ascii=False))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``minirag-mcp`` console script; returns the exit status."""
    args = _parser().parse_args(argv)
    logging.basicConfig(
        level=logging.WARNING, stream=sys.stderr, format="minirag-mcp %(levelname)s: %(message)s"
    )
    from minirag_store import Index
    from minirag_store.process import configure

    configure()  # the process's engine log level and native memory, before any thread

    if args.command == "status":
        index = Index.open(
            os.environ,
            fallback=_FALLBACK,
            base_dirs=args.base_dir,
            db_path=args.db_path,
            cache_dir=args.cache_dir,
            model_name=args.model_name,
        )
        try:
            return _status(index, _serving(args))
        finally:
            index.close()
    from minirag_mcp.auth import HttpSettingsError, load_http_settings

    http = None
    if args.transport == "http":
        try:
            http = load_http_settings(os.environ, host=args.host, port=args.port)
        except HttpSettingsError as e:  # the one place a setting stops the server
            print(f"error: {e}", file=sys.stderr)
            return 1
    from minirag_mcp.server import serve

    index = Index.open(os.environ, fallback=_FALLBACK)
    greeting = None
    if http is None and sys.stdin.isatty():  # a person, not a client: say what this is
        from minirag_mcp.terminal import greeting as greet

        greeting = greet(index)
    try:
        serve(index, http, greeting=greeting)
    except KeyboardInterrupt:  # Ctrl-C in a terminal is how a hand-started server stops
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
