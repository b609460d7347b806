"""minirag-cli: index, sync and search your documents from the terminal.

A thin typer shell over :class:`minirag_store.Index`; ``minirag-cli --help`` lists the
commands. Importing this package loads typer only, never the heavy libraries.
"""

from minirag_cli.app import app, main

__all__ = ["app", "main"]
