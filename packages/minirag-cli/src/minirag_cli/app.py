"""The ``minirag-cli`` commands: each parses its arguments, makes one call on the store's
:class:`~minirag_store.Index` and prints the result (``--json``: the dict itself).

Errors are not handled here: :class:`~minirag_cli.errors.GuardedGroup` turns every one
into ``error: <message>`` with exit status 1.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

import typer
from minirag_store.arguments import FIRST_CHUNK_INDEX, FIRST_PAGE, NEIGHBORS, OFFSET, TOP_K
from minirag_store.config import MIN_MAX_RESPONSE_TOKENS

from minirag_cli import render, tables
from minirag_cli.errors import GuardedGroup, fail, warn
from minirag_cli.options import Shared, with_config, with_shared
from minirag_cli.progress import ProgressEvery, progress_for

if TYPE_CHECKING:
    from minirag_store import Index
    from minirag_store.results import JobStatus

__all__ = ["app", "main"]

app = typer.Typer(
    name="minirag-cli",
    cls=GuardedGroup,
    help="Index, sync and search your documents from the terminal (the same index the "
    "minirag MCP server uses). Configuration options go after the subcommand.",
    no_args_is_help=True,
    # markdown: a docstring's lines flow into one paragraph (typer's "rich" mode keeps its
    # line breaks, so the command list broke summaries where the source wraps)
    rich_markup_mode="markdown",
    pretty_exceptions_enable=False,  # the guarded group prints one line instead
    context_settings={"help_option_names": ["-h", "--help"]},
)

_SOURCE_HELP = "A data or URL source id (instead of a file path)."
# Defaults and bounds are the store's (minirag_store.arguments), so both shells show the
# same ones; the store checks every value and its message is the one printed.
_TOP_K_HELP = (
    f"Hits to return (at least {TOP_K.minimum}; more than {TOP_K.maximum} gives {TOP_K.maximum})."
)
_SPAN = f"({NEIGHBORS.minimum}-{NEIGHBORS.maximum})"
_MAX_TOKENS_HELP = (
    "Fit the answer to this many tokens, as the MCP server fits what it gives a model "
    f"(at least {MIN_MAX_RESPONSE_TOKENS}). Default: no limit, every hit asked for, unless "
    "RAG_MAX_RESPONSE_TOKENS is set."
)


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError
        from importlib.metadata import version as dist_version

        from minirag_store import version

        try:
            own = dist_version("minirag-cli")
        except PackageNotFoundError:  # a source tree without metadata
            own = "0+unknown"
        typer.echo(f"minirag-cli {own} (minirag-store {version()})")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool | None,
        typer.Option("--version", callback=_version, is_eager=True, help="Show the version."),
    ] = None,
) -> None:
    """Index, sync and search your documents from the terminal."""


def _emit(shared: Shared, result: Any, human: Callable[[Any], None]) -> None:
    """``--json``: the result dict itself; otherwise its human rendering, through the
    pager on a terminal (:func:`render.paged`)."""
    if shared.json:
        render.emit_json(result)
    else:
        with render.paged():
            human(result)


def _finish_job(job: JobStatus, shared: Shared, verb: str) -> None:
    """Print a finished ingest/sync; exit 1 exactly when its state is not ``succeeded``
    (the store ends a job with failed files ``failed``: the two always agree)."""
    _emit(shared, job, lambda j: render.show_job(j, verb))
    for err in job["errors"]:
        warn(f"{err['source']}: {err['error']}")
    if omitted := job.get("errorsOmitted", 0):
        warn(f"... and {omitted} more (`minirag-cli list` shows every file's state)")
    if job["state"] != "succeeded":
        fail(job["error"] or f"{verb} {job['state']}")


def _terminal_budget(max_tokens: int | None, index: Index) -> int:
    """The token budget of an answer printed in a terminal: ``--max-tokens``, else
    RAG_MAX_RESPONSE_TOKENS when the user set it, else none (0): a terminal is not a
    model's context, and its pager takes the whole."""
    if max_tokens is not None:
        return max_tokens
    config = index.config
    return config.max_response_tokens if config.max_response_tokens_set else 0


def _file_path(path: str | None, index: Index) -> str | None:
    """A file or folder to index, given on the command line, made absolute by the store's
    one rule (relative to the working folder, else under the root that holds it)."""
    return None if path is None else index.resolve_path(path)


@app.command()
@with_shared
def ingest(
    paths: Annotated[list[str], typer.Argument(help="Files or folders (recursive).")],
    progress_every: ProgressEvery = 5.0,
    *,
    shared: Shared,
) -> None:
    """Ingest files and folders, re-ingesting what is already indexed."""
    with shared.open_index() as index, progress_for(shared.json, "ingest", progress_every) as cb:
        job = index.ingest_paths([index.resolve_path(p) for p in paths], progress=cb)
    _finish_job(job, shared, "ingest")


@app.command("ingest-url")
@with_shared
def ingest_url(
    url: Annotated[str, typer.Argument(help="An http(s) URL.")],
    source: Annotated[str | None, typer.Option(help="Source id (default: the URL).")] = None,
    title: Annotated[str | None, typer.Option(help="Title (default: from the page).")] = None,
    *,
    shared: Shared,
) -> None:
    """Fetch a web page, convert it to Markdown and index it."""
    with shared.open_index() as index:
        result = index.ingest_url(url, source, title)
    _emit(shared, result, render.show_ingested)


@app.command()
@with_shared
def sync(
    path: Annotated[
        str | None, typer.Argument(help="Only this file or folder (default: all roots).")
    ] = None,
    ray: Annotated[
        bool,
        typer.Option(
            "--ray",
            help="Parse, embed and write on Ray: the cluster of RAG_RAY_ADDRESS, else a local "
            "Ray runtime using this machine's cores. Needs minirag-cli\\[ray].",
        ),
    ] = False,
    ray_address: Annotated[
        str | None,
        typer.Option(
            "--ray-address",
            metavar="ADDRESS",
            help="--ray on this cluster (host:port, ray://host:port or auto). Overrides "
            "RAG_RAY_ADDRESS.",
            show_default=False,
        ),
    ] = None,
    progress_every: ProgressEvery = 5.0,
    *,
    shared: Shared,
) -> None:
    """Reconcile the index with the disk: ingest new and changed files, drop deleted ones.

    Counts: scanned (every file under the roots but ignored ones), ingested, skipped
    (unchanged, empty: no text in it, or excluded: over MAX_FILE_SIZE; each empty or
    excluded file gets a warn line with its reason), deleted, unreadable (an indexed image
    without the OCR add-on), failed (could not be read: exit 1), unsupported (a type not
    read; `list` names each). Then the slowest files and where their time went.
    """
    with shared.open_index() as index, progress_for(shared.json, "sync", progress_every) as cb:
        where = ray_address or ("" if ray else None)  # "": RAG_RAY_ADDRESS or a local runtime
        job = index.sync(_file_path(path, index), progress=cb, ray=where)
    _finish_job(job, shared, "sync")


@app.command()
@with_shared
def watch(*, shared: Shared) -> None:
    """Keep the index following the files until Ctrl-C: a full sync first, then each
    change ~2 s after it settles (OS notifications; RAG_WATCH=poll, or a network folder,
    polls instead). Prints each file it indexed (+), dropped (-) or failed on (!)."""
    show = render.emit_json_line if shared.json else render.show_watch_batch
    with shared.open_index() as index:
        index.config  # noqa: B018 - a broken configuration fails here, before any message
        roots = ", ".join(str(root) for root in index.config.roots)
        typer.echo(f"watching {roots} (Ctrl-C to stop)", err=True)
        try:
            index.start_watching(show, block=True)
        except KeyboardInterrupt:
            typer.echo("stopped watching", err=True)


@app.command()
@with_shared
def query(
    text: Annotated[str, typer.Argument(help="What to look for.")],
    top_k: Annotated[int, typer.Option(help=_TOP_K_HELP)] = TOP_K.default,
    scope: Annotated[
        list[str] | None,
        typer.Option(help="Only under this folder/file or source-id prefix; repeatable."),
    ] = None,
    max_tokens: Annotated[int | None, typer.Option(help=_MAX_TOKENS_HELP)] = None,
    offset: Annotated[
        int, typer.Option(help=f"Skip the best N hits ({OFFSET.minimum}-{OFFSET.maximum}).")
    ] = OFFSET.default,
    *,
    explain: Annotated[
        bool,
        typer.Option(
            help="With --json: give each hit its fused score and vector distance (the "
            "human view always shows them)."
        ),
    ] = False,
    shared: Shared,
) -> None:
    """Hybrid search: meaning plus exact words. Returns every hit asked for (--top-k): a
    terminal is not a model's context, so no token budget applies unless you ask for one
    (--max-tokens, or RAG_MAX_RESPONSE_TOKENS set). Long output goes through your pager
    on a terminal (PAGER; `| cat` or a redirect prints straight). Answered by a running
    minirag-mcp server for the same index and settings when there is one (its model is
    warm)."""
    # One question: no in-memory search snapshot (LanceDB reads the vectors instead).
    with shared.open_index(resident=False, reads=True) as index:
        result = index.query(
            text,
            top_k=top_k,
            scope=scope,
            offset=offset,
            max_tokens=_terminal_budget(max_tokens, index),
            ask_server=True,
            explain=explain or not shared.json,
        )
    _emit(shared, result, lambda r: render.show_query(r, text))
    if not shared.json and result.get("trimmed"):
        warn(result.get("notice", ""))


@app.command("read-neighbors")
@with_shared
def read_neighbors(
    chunk_index: Annotated[int, typer.Option(help="The chunk to read around.")],
    file_path: Annotated[str | None, typer.Option(help="The file the chunk is in.")] = None,
    source: Annotated[str | None, typer.Option(help=_SOURCE_HELP)] = None,
    before: Annotated[int, typer.Option(help=f"Chunks before it {_SPAN}.")] = NEIGHBORS.default,
    after: Annotated[int, typer.Option(help=f"Chunks after it {_SPAN}.")] = NEIGHBORS.default,
    *,
    shared: Shared,
) -> None:
    """Read the chunks around a search hit, for context."""
    with shared.open_index(reads=True) as index:
        result = index.read_chunk_neighbors(source, chunk_index, before, after, file_path=file_path)
    _emit(shared, result, render.show_neighbors)


@app.command()
@with_shared
def read(
    path: Annotated[str | None, typer.Argument(help="An indexed file.")] = None,
    *,
    source: Annotated[str | None, typer.Option(help=_SOURCE_HELP)] = None,
    from_chunk: Annotated[
        int,
        typer.Option(help="Start at this chunk (the next chunk a shortened read names)."),
    ] = FIRST_CHUNK_INDEX,
    page: Annotated[
        int | None,
        typer.Option(help=f"Only this page of a PDF (from {FIRST_PAGE}; a hit's p. N)."),
    ] = None,
    slide: Annotated[
        int | None, typer.Option(help="Only this slide of a deck (a hit's slide N).")
    ] = None,
    max_tokens: Annotated[int | None, typer.Option(help=_MAX_TOKENS_HELP)] = None,
    shared: Shared,
) -> None:
    """Print an indexed document (or one page or slide of it) back as Markdown: the whole
    of it, through your pager on a terminal, as `query` prints every hit (with
    --max-tokens or RAG_MAX_RESPONSE_TOKENS set, as much as fits, and a warning on stderr
    says how to read on)."""
    with shared.open_index(reads=True) as index:
        result = index.read_file(
            source,
            file_path=path,
            from_chunk=from_chunk,
            page=page,
            slide=slide,
            max_tokens=_terminal_budget(max_tokens, index),
        )
    _emit(shared, result, render.show_read)
    if not shared.json and "notice" in result:
        warn(render.read_on(result, path, source))


@app.command("list")
@with_shared
def list_files(
    scope: Annotated[
        list[str] | None, typer.Option(help="Only under this folder or id prefix; repeatable.")
    ] = None,
    every: Annotated[
        bool,
        typer.Option(
            "--all",
            help="Also what is skipped by a rule (hidden names, .gitignore/.miniragignore "
            "lines, node_modules, the index folder), with the rule.",
        ),
    ] = False,
    *,
    shared: Shared,
) -> None:
    """List the files under the roots with their state, plus data and URL sources.

    States: ingested, stale, stale_scheme, not_ingested, failed, unreadable, and with a
    reason: empty (no text), unsupported (a type not read), too_large, ignored (with --all)."""
    with shared.open_index(reads=True) as index:
        result = index.list_files(scope, ignored=every)
    _emit(shared, result, tables.show_list)
    for message in result.get("warnings", []):
        warn(message)
    if notice := result.get("notice"):
        warn(notice)


@app.command()
@with_shared
def status(*, shared: Shared) -> None:
    """Configuration and index health, where the roots and the index came from, and the
    indexes you synced. Answers (exit 0) even when the configuration is broken."""
    with shared.open_index(reads=True) as index:
        result = index.status()
    _emit(shared, result, tables.show_status)


@app.command()
@with_shared
def delete(
    path: Annotated[str | None, typer.Argument(help="An indexed file.")] = None,
    source: Annotated[str | None, typer.Option(help=_SOURCE_HELP)] = None,
    *,
    shared: Shared,
) -> None:
    """Remove a document from the index (the file on disk is untouched)."""
    with shared.open_index(reads=True) as index:  # finds an index as a read does
        result = index.delete_file(source, file_path=path)
    _emit(shared, result, render.show_deleted)


@app.command()
@with_config
def ui(
    port: Annotated[int, typer.Option(help="Port on 127.0.0.1 (default: a free one).")] = 0,
    browser: Annotated[
        bool, typer.Option("--browser/--no-browser", help="Open the page in your browser.")
    ] = True,
    *,
    link: Annotated[
        bool,
        typer.Option(
            "--link",
            help="Print a new sign-in link for the page already running over this index "
            "(its cookie is gone, another browser) and exit.",
        ),
    ] = False,
    shared: Shared,
) -> None:
    """Search, read and watch the index in your browser, until Ctrl-C: serves it on
    127.0.0.1 and prints a link that signs you in once (a one-time secret);
    `minirag-cli ui --link` prints another while it runs."""
    from minirag_web.local import new_link, serve_local

    with shared.open_index(reads=True) as index:  # a page over the index found, as reads
        if link:
            typer.echo(new_link(index))
            return
        serve_local(
            index, port=port, open_browser=browser, say=lambda line: typer.echo(line, err=True)
        )


def main() -> None:
    """The ``minirag-cli`` console script."""
    from minirag_store.process import configure

    configure()  # the process's engine log level and native memory, before any thread
    app(prog_name="minirag-cli")
