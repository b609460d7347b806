"""A sync's work on a Ray cluster (``minirag-cli sync --ray [ADDRESS]``, ``RAG_RAY_ADDRESS``).

The driver (this process) does what a local sync does up to the plan: it holds the sync
lock or lease, scans, diffs against the index and deletes what is gone
(:mod:`minirag_store.ingest.sync`). Only the files to parse leave it, as a Ray Data
pipeline (:mod:`minirag_store.ingest.ray_stages`): conversion as tasks, then chunking,
embedding and writing Lance fragments in an actor pool (one model load per actor).
The workers write the rows; the driver commits them
(:meth:`~minirag_store.index.table.ChunkTable.replace_with_fragments`): every fragment
batch's files are committed together in one Lance commit that also removes their old
rows, so **each source is replaced atomically** (a batch's sources share a commit) and
a job that fails or is cancelled leaves every source as its last commit left it: fully
new or untouched. Fragments written but never committed are unreferenced files that
Lance's old-version cleanup removes after its safety window (7 days).

Counts move as commits land, like a local sync; a cancel stops pulling results, commits
the batches already written and shuts the pipeline down. The workers need this package
(with the same model available: ``MODEL_PATH`` or the cache) and, for an index on object
storage, credentials for the bucket (the ``AWS_*``-style variables on the cluster, or
``DB_STORAGE_OPTIONS``, which travels with the job).

Ray comes with the ``ray`` extra and is imported only here and on the workers.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from minirag_store.errors import ConfigError
from minirag_store.ingest.operations import report_progress
from minirag_store.ingest.ray_stages import EmbedWriter, parse_batch
from minirag_store.ingest.workers import Parsed, ParseTask

if TYPE_CHECKING:
    from minirag_store.config import Config
    from minirag_store.ingest.jobs import Job
    from minirag_store.parts import Stored
    from minirag_store.results import ProgressCallback

__all__ = ["INSTALL_HINT", "LOCAL", "check_installed", "sync_on_ray"]

#: What ``--ray`` without the extra tells the user to run.
INSTALL_HINT = "pip install 'minirag-cli[ray]' (or: uv tool install 'minirag-cli[ray]')"
#: The address that starts a Ray runtime in this process instead of joining a cluster.
LOCAL = "local"
#: Files per parse task, and documents per embedding call (one fragment write each):
#: small enough that a 2-core machine keeps both stages busy, large enough that a commit
#: and a fragment file carry several documents.
PARSE_BATCH = 4
EMBED_BATCH_DOCS = 8
#: The stages (module attributes so a test can wrap one, e.g. with a worker that dies).
PARSE_STAGE = parse_batch
EMBED_STAGE = EmbedWriter


def check_installed() -> None:
    """Refuse ``--ray`` with what to install when the extra is missing."""
    try:
        import ray.data  # noqa: F401
    except ImportError as e:
        raise ConfigError(
            f"Running a sync on Ray needs the ray extra ({e.name or 'ray'} is not installed): "
            f"{INSTALL_HINT}"
        ) from e


def _connect(address: str) -> Any:
    """Ray, connected: the runtime already started in this process (a test's, or an
    earlier sync's), else a new local one for :data:`LOCAL`, else the cluster at
    ``address`` (``auto``, ``host:port`` or ``ray://host:port``)."""
    import ray

    if not ray.is_initialized():
        try:
            ray.init(address=address, include_dashboard=False, log_to_driver=False)
        except (ConnectionError, RuntimeError, ValueError) as e:
            raise ConfigError(
                f"Could not reach the Ray cluster at {address!r}: {e}. Check RAG_RAY_ADDRESS "
                "(or --ray ADDRESS), or run `--ray` alone for a local Ray runtime"
            ) from e
    return ray


def _workers(ray: Any, config: Config, address: str) -> int:
    """How many embedding actors the cluster holds: one per CPU, or per ``RAG_RAY_GPUS``
    GPUs when set (a cluster without that many is refused now: Ray Data would wait for
    them forever)."""
    resources = ray.cluster_resources()
    cpus = max(1, int(resources.get("CPU", 1)))
    if not config.ray_gpus:
        return cpus
    gpus = int(resources.get("GPU", 0))
    if gpus < config.ray_gpus:
        raise ConfigError(
            f"RAG_RAY_GPUS={config.ray_gpus} asks a GPU count for each embedding worker, and "
            f"the Ray cluster at {address!r} has {gpus} GPU(s). Add GPU nodes, or unset "
            "RAG_RAY_GPUS to embed on CPUs"
        )
    return max(1, min(cpus, gpus // config.ray_gpus))


def _pipeline(ray: Any, config: Config, tasks: list[ParseTask], target: Any, workers: int) -> Any:
    """The Ray Data pipeline: parse tasks, then an actor pool that embeds and writes."""
    items = [{"source": t.source, "path": t.path, "known_hash": t.known_hash or ""} for t in tasks]
    dataset = ray.data.from_items(items, override_num_blocks=max(1, len(items) // PARSE_BATCH))
    parsed = dataset.map_batches(
        PARSE_STAGE, batch_size=PARSE_BATCH, fn_kwargs={"config": config}, num_cpus=1
    )
    return parsed.map_batches(
        EMBED_STAGE,
        batch_size=EMBED_BATCH_DOCS,
        fn_constructor_kwargs={"config": config, "target": target},
        compute=ray.data.ActorPoolStrategy(min_size=1, max_size=workers),
        num_cpus=1,
        num_gpus=config.ray_gpus or None,
    )


def _outcomes(stream: Iterator[dict[str, Any]]) -> Iterator[tuple[list[Any], list[dict]]]:
    """Each output row as (fragment metadata, per-file outcomes)."""
    from minirag_store.index.storage.fragments import fragments_from_json

    for row in stream:
        yield fragments_from_json(row["fragments"]), json.loads(row["outcomes"])


def sync_on_ray(
    index: Stored,
    job: Job,
    tasks: list[ParseTask],
    address: str,
    *,
    progress: ProgressCallback | None = None,
    touched: list[Parsed] | None = None,
) -> None:
    """Parse, embed and write ``tasks`` on Ray, committing from here (see the module doc).

    ``job``'s counts move at each commit; ``touched`` gets the files whose bytes were
    already indexed (the caller stores their new mtime), as a local sync does.
    """
    check_installed()
    ray = _connect(address)
    workers = _workers(ray, index.config, address)
    table = index.table()
    # Credentials in the environment stay on the workers' own machines; the masking list
    # is of no use there.
    config = dataclasses.replace(index.config, secrets=())
    pipeline = _pipeline(ray, config, tasks, table.fragment_target(), workers)
    held: list[tuple[list[Any], list[dict]]] = []  # written, not yet committed
    last_commit = time.monotonic()
    stream = pipeline.iter_rows()
    try:
        for fragments, outcomes in _outcomes(stream):
            _settle(job, outcomes, progress, touched)
            held.append((fragments, [o for o in outcomes if _written(o)]))
            if time.monotonic() - last_commit >= _commit_seconds():
                _commit(table, job, held, progress)
                last_commit = time.monotonic()
            if job.cancel_requested:
                break  # the batches in hand are committed below; nothing new starts
        _commit(table, job, held, progress)
    finally:
        close = getattr(stream, "close", None)
        if close is not None:
            close()  # a cancel or failure: stop the pipeline's tasks now
        table.maintain()  # as the local writer's finish(): once per sync, even after a failure


def _commit_seconds() -> float:
    from minirag_store.index.write.writer import COMMIT_SECONDS

    return COMMIT_SECONDS


def _written(outcome: dict[str, Any]) -> bool:
    """A file whose new rows (possibly none: then its old rows go) are in a fragment batch."""
    return outcome["error"] is None and not outcome["unchanged"]


def _settle(
    job: Job,
    outcomes: list[dict[str, Any]],
    progress: ProgressCallback | None,
    touched: list[Parsed] | None,
) -> None:
    """Count the files that need no commit: failed, or already indexed with these bytes."""
    for o in outcomes:
        if o.get("empty"):  # no text: skipped with the reason, as a local sync does
            job.note(o["source"], f"skipped-empty: {o['error']}", count="skipped")
            job.empty[o["source"]] = (o["size"], o["mtime"], o["error"] or "")
            report_progress(job, progress, o["source"])
        elif o["error"] is not None:
            job.note(o["source"], o["error"], count="failed")
            report_progress(job, progress, o["source"])
        elif o["unchanged"]:
            job.record("skipped", [o["source"]])
            if touched is not None:
                touched.append(Parsed(o["source"], o["size"], o["mtime"], o["file_hash"], True))
            report_progress(job, progress, o["source"])


def _commit(table: Any, job: Job, held: list[tuple[list[Any], list[dict]]], progress: Any) -> None:
    """One commit of every held batch: their fragments replace their sources' rows."""
    if not held:
        return
    sources = [o["source"] for _, outcomes in held for o in outcomes]
    fragments = [f for batch, _ in held for f in batch]
    table.replace_with_fragments(sources, fragments)
    held.clear()
    for source in sources:
        job.record("ingested", [source])
        report_progress(job, progress, source)
