"""The first imports of the heavy libraries, one thread at a time.

Two threads importing numpy-based libraries at once (the MCP server's warm-up opening
the table: lancedb, pyarrow, numpy; its first query loading the model: onnxruntime,
numpy) can meet in Python's per-module import locks, and CPython then hands one of them
a partially initialised numpy: onnxruntime failed with "import numpy failed" when a
query arrived as the warm-up began (bench/startup.py, SciFact). So the loaders import
what they need through :func:`preload` first, under one lock, numpy first; after the
first time it is a set look-up.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Sequence

__all__ = ["MODEL", "TABLE", "preload"]

#: What opening the table imports, and what loading the embedding model imports.
TABLE = ("numpy", "pyarrow", "lancedb")
MODEL = ("numpy", "tokenizers", "onnxruntime")

_LOCK = threading.Lock()
_DONE: set[str] = set()


def preload(modules: Sequence[str]) -> None:
    """Import ``modules`` in order unless done already, no other thread importing them."""
    if _DONE.issuperset(modules):
        return
    with _LOCK:
        for name in modules:
            if name not in _DONE:
                importlib.import_module(name)
                _DONE.add(name)
