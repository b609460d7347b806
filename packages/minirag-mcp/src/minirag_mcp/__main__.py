"""The ``minirag-mcp`` command: serve MCP (stdio by default, or HTTP), or print status.

Kept to argparse and late imports: ``status`` and ``--version`` never load fastmcp, and
serving loads fastmcp but nothing heavy until the first tool call. On stdio the handshake
is answered while fastmcp is still importing (:mod:`minirag_mcp.early`). Nothing here
writes to stdout while serving on stdio; logging goes to stderr.
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import os
import sys
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

from minirag_mcp import early

if TYPE_CHECKING:
    from minirag_store import Index

__all__ = ["main"]

DEFAULT_PORT = 8000

logger = logging.getLogger("minirag_mcp")


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
    parser.add_argument("--host", default="127.0.0.1", help="HTTP bind address (loopback)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help="HTTP port")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    status = commands.add_parser(
        "status",
        help="print configuration and index status as JSON and exit 0, even when the "
        "configuration is broken (run it before restarting a desktop client)",
    )
    # The same overrides the CLI takes, to check a configuration before putting it in a
    # client's settings; each replaces its env var.
    status.add_argument("--base-dir", action="append", help="document root (repeatable)")
    status.add_argument("--db-path", help="index directory")
    status.add_argument("--cache-dir", help="embedding model cache directory")
    status.add_argument("--model-name", help="fastembed model id")
    status.add_argument("--json", action="store_true", help="accepted; output is always JSON")
    return parser


def _status(index: Index) -> int:
    """Print what the ``status`` tool would answer; exit 0 even with a broken config."""
    from minirag_mcp.instructions import instructions_for

    result = dict(index.status())
    if instructions_for(index).truncated:
        result["instructionsTruncated"] = True
    print(json.dumps(result, indent=2, ensure_ascii=False))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``minirag-mcp`` console script; returns the exit status."""
    args = _parser().parse_args(argv)
    logging.basicConfig(
        level=logging.WARNING, stream=sys.stderr, format="minirag-mcp %(levelname)s: %(message)s"
    )
    from minirag_store import Index

    if args.command == "status":
        index = Index.open(
            os.environ,
            base_dirs=args.base_dir,
            db_path=args.db_path,
            cache_dir=args.cache_dir,
            model_name=args.model_name,
        )
        try:
            return _status(index)
        finally:
            index.close()
    try:
        if args.transport == "stdio" and early.supported():
            _serve_stdio_early(Index.open(os.environ))
        else:
            from minirag_mcp.server import serve

            serve(Index.open(os.environ), args.transport, host=args.host, port=args.port)
    except KeyboardInterrupt:  # Ctrl-C in a terminal is how a hand-started server stops
        return 130
    return 0


def _serve_stdio_early(index: Index) -> None:
    """Serve stdio, answering the client's handshake while fastmcp still imports.

    fastmcp's import is most of the start-up time, so it runs in a thread from the
    start; the main thread meanwhile reads the opening request and answers it by hand
    (see :mod:`minirag_mcp.early`), then waits for the import and runs the server.
    """
    from minirag_mcp import version
    from minirag_mcp.handshake import ServerIdentity
    from minirag_mcp.instructions import instructions_for

    try:
        stdio = early.EarlyStdio()
    except OSError as exc:  # stdin or stdout is not an open descriptor: no early answer
        logger.debug("early handshake unavailable: %s", exc)
        from minirag_mcp.server import serve

        serve(index, "stdio")
        return
    importer = threading.Thread(target=_import_server, name="minirag-import", daemon=True)
    importer.start()
    stdio.greet(ServerIdentity("minirag", version(), instructions_for(index).text))
    importer.join()
    from minirag_mcp.server import serve  # re-raises here if the thread's import failed

    try:
        serve(index, "stdio")
    finally:
        stdio.close()


def _import_server() -> None:
    """Import the fastmcp server module (the slow part of start-up)."""
    try:
        importlib.import_module("minirag_mcp.server")
    except BaseException:  # the main thread's own import re-raises it, with context
        logger.debug("background import of the server failed", exc_info=True)


if __name__ == "__main__":
    sys.exit(main())
