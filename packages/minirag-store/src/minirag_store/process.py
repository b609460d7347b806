"""Process-wide settings a program that runs minirag applies once, first thing.

The library changes nothing process-wide by itself: importing it or opening an index sets
no environment variable and tunes no allocator. The shells' entry points (``minirag-mcp``,
``minirag-cli``) call :func:`configure` before anything starts a thread, and so does a
bench that measures what they do; a program embedding the store decides for itself.
What is applied, and the measurements behind it: :mod:`minirag_store.index.storage.native`
and docs/decisions/native-memory.md.
"""

from __future__ import annotations

import gc
import sys

from minirag_store.index.storage.native import bound_native_memory, quiet_engine_logs

__all__ = ["SWITCH_INTERVAL_S", "configure", "settle"]

#: How long a thread may hold the GIL while another waits for it (CPython's default is
#: 5 ms). A server answers ``status`` and ``list_files`` while its own sync runs, and the
#: sync's thread is then mostly Python (the first seconds import the conversion and index
#: stack: pandas, pyarrow, lancedb, ~900 modules; then conversion and chunking). Every
#: ``stat`` of ``list_files``'s scan releases the GIL and waited up to 5 ms to get it
#: back: 300 files took 170-295 ms in a sync's first second, 8-15 ms of it CPU. At 1 ms
#: the worst was 95-165 ms, and the sync took as long (12.3-12.6 s either way). Measured
#: in-process (a sync of 300 small files, the three calls polled every 0.1 s) and over
#: stdio with ``bench/sync_latency.py``.
SWITCH_INTERVAL_S = 0.001


def configure() -> None:
    """Quiet LanceDB's and Lance's own log lines to errors, bound native memory (glibc
    arenas and mmap threshold, Lance's full-text build parts) and hand the GIL on sooner
    (:data:`SWITCH_INTERVAL_S`). A variable already set in the environment wins.
    Idempotent; call it before the first LanceDB or ONNX session."""
    quiet_engine_logs()
    bound_native_memory()
    sys.setswitchinterval(SWITCH_INTERVAL_S)


def settle() -> None:
    """Leave what the process has loaded so far out of every later garbage collection
    (:func:`gc.freeze`): call it once the start-up imports are done (a server, after its
    warm-up). Why: CPython's full collection walks every tracked object and holds the GIL
    while it does. A server that has imported the index and conversion stack holds ~250k of
    them, and a full collection then took 70-200 ms in whichever thread allocated last:
    a ``list_files`` answer of 300 rows took 213 ms during a sync, 201 of them collecting.
    The modules, classes and functions frozen here live as long as the process anyway;
    what is made later is collected as before."""
    gc.freeze()
