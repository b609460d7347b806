"""What a person who started ``minirag-mcp`` in a terminal is told (on stderr).

A stdio MCP server prints fastmcp's one start line and then waits for protocol messages on
stdin: typed by hand, it looks hung. When stdin is a terminal (a client always connects a
pipe), :func:`greeting` says what it is, how to add it to a client with this index's
folder filled in, and that Ctrl-C stops it. Pure: the caller decides whether stdin is a
terminal and prints.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from minirag_store import Index

__all__ = ["greeting", "launch_command"]

_PLACEHOLDER = "/absolute/path/to/docs"


def launch_command(prefix: Path | None = None) -> str:
    """How a client launches this server: ``uv run`` in the clone when this process runs
    from a clone's ``.venv`` (README's set-up), else the released package through uvx."""
    venv = Path(prefix if prefix is not None else sys.prefix)
    project = venv.parent
    if venv.name == ".venv" and (project / "pyproject.toml").is_file():
        return f"uv run --directory {shlex.quote(str(project))} minirag-mcp"
    return "uvx minirag-mcp"


def _env_flags(index: Index) -> str:
    """``--env`` options that give a client's server this index's roots and index."""
    if index.config_error is not None:
        return f"--env BASE_DIR={_PLACEHOLDER}"
    config = index.config
    roots = [str(r) for r in config.roots]
    if len(roots) == 1:
        flags = [f"--env BASE_DIR={shlex.quote(roots[0])}"]
    else:
        flags = ["--env " + shlex.quote(f"BASE_DIRS={json.dumps(roots)}")]
    default_db = config.roots[0] / ".minirag" / "lancedb"
    if config.db_path != default_db:
        flags.append(f"--env DB_PATH={shlex.quote(config.db_uri)}")
    return " ".join(flags)


def greeting(index: Index, prefix: Path | None = None) -> str:
    """The lines for a person at a terminal: what this is, the ``claude mcp add`` line
    with this index's folder, and how to stop it."""
    if index.config_error is not None:
        where = f"Its configuration is broken: {index.config_error}"
    else:
        config = index.config
        roots = ", ".join(str(r) for r in config.roots)
        where = f"It serves the index {config.db_uri} of {roots} ({config.roots_from})."
    add = f"claude mcp add minirag --scope user {_env_flags(index)} -- {launch_command(prefix)}"
    return "\n".join(
        (
            "minirag-mcp: this is an MCP server on stdio, waiting for an MCP client to "
            "connect; typing here does nothing.",
            f"  {where}",
            f"  Add it to Claude Code:  {add}",
            "  (other clients: the same command and --env settings in their MCP config)",
            '  From a terminal, search with minirag-cli instead: uv run minirag-cli query "..."',
            "  Ctrl-C stops it.",
        )
    )
