"""Settings of the native (non-Python) code a minirag process runs, applied by its entry
point (:func:`minirag_store.process.configure`), never on import. Bounds on its memory:
glibc's arenas and mapping threshold, and Lance's full-text index builds, which grew a
sync's peak with the corpus (``bench/sync_memory.py``; tracemalloc sees none of them: the
bench reads RSS by phase). And the level of LanceDB's and Lance's own log lines.
"""

from __future__ import annotations

import functools
from typing import Any

__all__ = [
    "ENGINE_LOGS",
    "NATIVE_MEMORY",
    "bound_native_memory",
    "import_lancedb",
    "quiet_engine_logs",
    "release_free_memory",
]

#: Native memory settings of the process, applied once before the first onnxruntime
#: session (:mod:`~minirag_store.index.embed.onnx_encoder`) or LanceDB session
#: (:func:`~minirag_store.index.storage.connection.session`) starts its threads; a
#: variable already set in the environment wins. Measured with
#: ``bench/sync_memory.py`` (peak RSS by phase of a full sync):
#:
#: * ``MALLOC_ARENA_MAX``: glibc gives each thread that contends for the heap an arena of
#:   its own (up to 8 a core), and LanceDB's Rust threads (its runtime, compaction and
#:   index builds) allocate through glibc. Memory freed in one arena is not reused by
#:   another, so RSS grew with every commit; two arenas cut a SciFact sync's peak (fake
#:   vectors) from 740 to 652 MB at the same speed.
#: * ``LANCE_FTS_PARTITION_SIZE`` (MiB): the full-text index build (and its update at each
#:   maintenance) holds a worker's postings in memory up to this size before it spills a
#:   part to disk; Lance's default is 2 GiB, so the build of a large table held all of its
#:   postings at once. The index then has more parts, and search answers the same: SciFact
#:   built and updated with 1 MiB parts (11 of them) gave the same top-10 ids and BM25
#:   scores as with the default, on ten queries.
#: * ``MALLOC_MMAP_THRESHOLD_`` (bytes): glibc serves a block this large or larger with
#:   its own mapping, returned to the system when freed. Left alone, the threshold rises
#:   to the largest block freed so far (up to 32 MiB), so the big buffers of a compaction
#:   or an index update then come from the heap, whose freed holes stay resident: the
#:   end-of-sync ``optimize()`` of a 257k-chunk table peaked +455 MB, +367 with 4 MiB
#:   fixed. 4 MiB, not less: one attention tensor of a 256-token text is 3 MiB, and at
#:   1 MiB each ONNX run mapped and faulted it in again (embedding 36 % slower).
#: * ``LANCE_INCLUDE_VECTOR_CENTROIDS``: Lance's statistics of a vector index, which each
#:   maintenance reads for its unindexed rows, carry every IVF centroid unless this is
#:   false (Lance's announced future default); left unset, Lance 14 also printed a
#:   warning saying so on every sync of a table with a vector index.
#: * ``MALLOC_TRIM_THRESHOLD_`` (bytes): glibc gives the heap's top back to the system
#:   once this much of it is free. Fixing the mmap threshold (above) also fixes this one,
#:   at 128 KiB when the process has not yet freed a large block: set first thing by
#:   :func:`minirag_store.process.configure`, it stayed there, and a sync's heap was cut
#:   and faulted back in all the time (300 SciFact files: 3.0M minor page faults and 8.4 s
#:   of system CPU against 0.45M and 2.2 s on b5a2db1, which fixed the threshold only when
#:   LanceDB was first imported, after the dynamic one had grown). At 32 MiB: 0.54M faults,
#:   2.5 s, the same peak RSS; what stays free below it is returned by
#:   :func:`release_free_memory` around each maintenance.
NATIVE_MEMORY = {
    "MALLOC_ARENA_MAX": "2",
    "MALLOC_MMAP_THRESHOLD_": str(4 << 20),
    "MALLOC_TRIM_THRESHOLD_": str(32 << 20),
    "LANCE_FTS_PARTITION_SIZE": "64",
    "LANCE_INCLUDE_VECTOR_CENTROIDS": "false",
}
#: glibc's mallopt parameter numbers (malloc.h), for the variables of the same name.
_MALLOPT = {"MALLOC_ARENA_MAX": -8, "MALLOC_MMAP_THRESHOLD_": -3, "MALLOC_TRIM_THRESHOLD_": -1}


@functools.cache
def bound_native_memory() -> None:
    """Apply :data:`NATIVE_MEMORY`: the Lance variables through the environment (Lance
    reads them at first use), glibc's through ``mallopt`` (glibc reads its variables only
    when a process starts; child processes inherit them from the environment). Nothing
    happens off glibc."""
    import os

    for name, value in NATIVE_MEMORY.items():
        os.environ.setdefault(name, value)
    mallopt = _glibc("mallopt")
    if mallopt is None:
        return
    for name, parameter in _MALLOPT.items():
        value = os.environ[name]
        if value.isdigit():  # glibc ignores a malformed variable too
            mallopt(parameter, int(value))


#: The least severe of LanceDB's and Lance's own log lines (their Rust loggers, which print
#: to stderr) that a user sees: errors. Their warnings speak to the engine's developers
#: ("KMeans: more than 10% of clusters are empty" on a small or repetitive table's vector
#: index, Lance 14's notice about vector index statistics) and nobody running minirag can
#: act on them; minirag reports what it does itself. Set in the environment (the
#: variables' ``env_logger`` filter syntax, e.g. ``LANCE_LOG=debug``), the user's wins.
ENGINE_LOGS = {"LANCEDB_LOG": "error", "LANCE_LOG": "error"}


def quiet_engine_logs() -> None:
    """Apply :data:`ENGINE_LOGS` through the environment. Before the first ``import
    lancedb`` of the process: each library reads its filter once, when it is imported."""
    import os

    for name, value in ENGINE_LOGS.items():
        os.environ.setdefault(name, value)


def import_lancedb() -> Any:
    """The ``lancedb`` module. Every way into LanceDB comes here:
    :mod:`~minirag_store.index.storage.connection`, :mod:`~minirag_store.index.search.aio`
    and the preload of :mod:`~minirag_store.index.loading`. The settings above are the
    entry point's to apply, before this (:func:`minirag_store.process.configure`)."""
    import lancedb

    return lancedb


def release_free_memory() -> None:
    """Give the heap's free pages back to the system (glibc's ``malloc_trim``; nothing
    elsewhere). Called around a table's maintenance: a compaction or an index update frees
    hundreds of MB in blocks below the mmap threshold, which glibc otherwise keeps
    resident. ``bench/maintenance.py`` (one process, a table grown by 25k rows and
    maintained eight times): RSS after the eighth maintenance 1,206 -> 547 MB, its peak
    1,272 -> 1,116."""
    trim = _glibc("malloc_trim")
    if trim is not None:
        trim(0)


def _glibc(function: str) -> Any:
    """``function`` of the C library this process runs on, or None off glibc (macOS,
    Windows: other allocators, without ``mallopt``/``malloc_trim``)."""
    import ctypes

    try:
        return getattr(ctypes.CDLL(None), function)
    except (OSError, AttributeError):
        return None
