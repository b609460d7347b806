"""Process-wide settings a program that runs minirag applies once, first thing.

The library changes nothing process-wide by itself: importing it or opening an index sets
no environment variable and tunes no allocator. The shells' entry points (``minirag-mcp``,
``minirag-cli``) call :func:`configure` before anything starts a thread, and so does a
bench that measures what they do; a program embedding the store decides for itself.
What is applied, and the measurements behind it: :mod:`minirag_store.index.storage.native`
and docs/decisions/native-memory.md.
"""

from __future__ import annotations

from minirag_store.index.storage.native import bound_native_memory, quiet_engine_logs

__all__ = ["configure"]


def configure() -> None:
    """Quiet LanceDB's and Lance's own log lines to errors and bound native memory (glibc
    arenas and mmap threshold, Lance's full-text build parts). A variable already set in
    the environment wins. Idempotent; call it before the first LanceDB or ONNX session."""
    quiet_engine_logs()
    bound_native_memory()
