"""Human output: the store's result dicts printed for a person to read.

Nothing here changes a result; ``--json`` prints the dict itself (:func:`emit_json`).
Styling goes through rich, which drops colour when stdout is not a terminal and honours
``NO_COLOR``; rich is imported only when a command prints human output.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shlex
import sys
import textwrap
from collections import Counter
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

import typer
from minirag_store.highlight import heading_text, query_terms, term_spans, without_markers
from minirag_store.locators import describe

from minirag_cli.progress import relative

if TYPE_CHECKING:
    from minirag_store.results import (
        DeleteResult,
        IngestResult,
        JobStatus,
        NeighborsResult,
        QueryResult,
        ReadResult,
        SearchHit,
        SlowFile,
        SourceSummary,
        WatchBatch,
    )
    from rich.console import Console

__all__ = [
    "console",
    "emit_json",
    "emit_json_line",
    "paged",
    "read_on",
    "show_deleted",
    "show_ingested",
    "show_job",
    "show_neighbors",
    "show_query",
    "show_read",
    "show_watch_batch",
]

_COUNT_ORDER = ("scanned", "ingested", "skipped", "deleted", "unreadable", "failed", "unsupported")


def emit_json(result: Mapping[str, Any]) -> None:
    """Print a result exactly as the service returned it, as JSON on stdout."""
    typer.echo(json.dumps(result, ensure_ascii=False, indent=2))


def emit_json_line(result: Mapping[str, Any]) -> None:
    """One result as one line of JSON (a stream of them: ``watch --json``), flushed."""
    typer.echo(json.dumps(result, ensure_ascii=False, separators=(",", ":")))


#: Line width when stdout is piped: wide enough that no table cell is ever folded, so
#: ``minirag-cli list | grep`` sees whole paths (rich would otherwise assume 80 columns).
_PIPE_WIDTH = 4096


#: Set while :func:`paged` gathers a command's output for the pager: what consoles write to.
_PAGE: ContextVar[io.StringIO | None] = ContextVar("page", default=None)


def console() -> Console:
    """A stdout console: no markup parsing (paths hold ``[``), no auto-highlighting.

    On a terminal it fits the terminal; piped, lines are as long as their content
    (``COLUMNS`` still wins when set). Inside :func:`paged` it writes to the page, styled
    and as wide as the terminal the pager shows it on.
    """
    from rich.console import Console

    page = _PAGE.get()
    if page is not None:
        import shutil

        width = shutil.get_terminal_size().columns
        return Console(
            file=page, force_terminal=True, width=width, markup=False, highlight=False, emoji=False
        )
    out = Console(markup=False, highlight=False, emoji=False)
    if not out.is_terminal and not os.environ.get("COLUMNS"):
        out.width = _PIPE_WIDTH
    return out


@contextlib.contextmanager
def paged() -> Iterator[None]:
    """Send what is printed inside through the user's pager when stdin and stdout are a
    terminal, as ``git log`` does: ``$PAGER`` (``less`` when unset) with ``LESS=FRX``
    unless ``LESS`` is set, so a page that fits the screen is just printed, colours kept.
    Piped or redirected, output goes straight out, never through a pager."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        yield
        return
    import pydoc

    page = io.StringIO()
    token = _PAGE.set(page)
    try:
        with contextlib.redirect_stdout(page):  # typer.echo's lines join the page too
            yield
    finally:
        _PAGE.reset(token)
        os.environ.setdefault("LESS", "FRX")
        pydoc.pager(page.getvalue())


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def show_job(job: JobStatus, verb: str) -> None:
    """A finished sync/ingest: its state and every counter on one line (unsupported
    files by extension), then its slowest files and where their time went."""
    counts = job["counts"]
    line = ", ".join(f"{key} {counts[key]}" for key in _COUNT_ORDER if key in counts)
    if unsupported := job.get("files", {}).get("unsupported"):
        kinds = Counter(os.path.splitext(name)[1].lower() or "no extension" for name in unsupported)
        line += " (" + ", ".join(f"{ext} {n}" for ext, n in sorted(kinds.items())) + ")"
    state = "done" if job["state"] == "succeeded" else job["state"]
    typer.echo(f"{verb} {state}: {line}")
    if slowest := job.get("slowest"):
        typer.echo("slowest files:")
        for slow in slowest:
            typer.echo(f"  {slow['seconds']:.1f} s  {relative(slow['source'])}: {_spent(slow)}")


def _spent(slow: SlowFile) -> str:
    """Where one file's time went: ``convert 3.2 s (OCR 4 pages 2.9 s), embed 1.1 s``."""
    parts = [f"convert {slow['convertSeconds']:.1f} s"]
    if slow["ocrPages"]:
        pages = _plural(slow["ocrPages"], "page")
        parts[0] += f" (OCR {pages} {slow['ocrSeconds']:.1f} s)"
    if slow["chunks"]:
        parts.append(f"chunk {slow['chunkSeconds']:.1f} s")
        parts.append(f"embed {slow['embedSeconds']:.1f} s ({_plural(slow['chunks'], 'chunk')})")
    return ", ".join(parts)


#: How each file a watch batch touched is marked, by outcome (unchanged files are not shown).
_WATCH_MARKS = (("ingested", "+"), ("deleted", "-"), ("unreadable", "?"), ("failed", "!"))


def show_watch_batch(batch: WatchBatch) -> None:
    """One sync the watcher applied: a time-stamped summary line, then one line per file
    it indexed (+), dropped (-), kept unreadable (?) or failed on (!, with the reason).
    Only the first full sync is shown when nothing changed: a poll, a touch or a re-save
    of the same bytes prints nothing."""
    import time

    job = batch["job"]
    counts = job["counts"]
    catch_up = batch["mode"] == "notify" and not batch["changedPaths"]
    if not catch_up and not any(counts[key] for key, _ in _WATCH_MARKS):
        return
    what = _plural(batch["changedPaths"], "change") if batch["changedPaths"] else "full sync"
    line = ", ".join(f"{key} {counts[key]}" for key in _COUNT_ORDER if counts[key])
    state = "" if job["state"] == "succeeded" else f" [{job['state']}]"
    if job["error"]:
        state = f" [{job['state']}: {job['error']}]"
    stamp = time.strftime("%H:%M:%S")
    took = f"{batch['mode']}, {batch['seconds']:.1f} s"
    typer.echo(f"{stamp} {what} ({took}): {line or 'nothing'}{state}")
    reasons = {e["source"]: e["error"] for e in job["errors"]}
    files = job.get("files")
    for key, mark in _WATCH_MARKS if files else ():
        for source in files[key]:  # type: ignore[index]
            reason = f": {reasons[source]}" if key == "failed" and source in reasons else ""
            typer.echo(f"  {mark} {source}{reason}")
    if omitted := job.get("filesOmitted", 0):
        typer.echo(f"  ... and {omitted} more (`minirag-cli list` shows every file's state)")


def show_ingested(result: IngestResult) -> None:
    """One ingested source (file, data or URL)."""
    ocr = f" [ocr:{result['ocrEngine']}]" if result["ocrEngine"] else ""
    typer.echo(
        f"ingested {result['source']}{ocr} - {result['title']!r} "
        f"({_plural(result['chunkCount'], 'chunk')})"
    )


def show_deleted(result: DeleteResult) -> None:
    """What delete removed (the file on disk is untouched)."""
    typer.echo(
        f"deleted {result['source']} from the index "
        f"({_plural(result['deletedChunks'], 'chunk')}); files on disk are untouched"
    )


def _passage(text: str, terms: frozenset[str]) -> Any:
    from rich.text import Text

    # Blank lines inside a passage would blur where one hit ends and the next begins.
    compact = re.sub(r"\n\s*\n", "\n", text.strip())
    indented = textwrap.indent(compact, "   ")
    passage = Text(indented)
    for start, end in term_spans(indented, terms):
        passage.stylize("bold yellow", start, end)
    return passage


#: Said after a hit (and its source) whose file changed on disk since it was indexed.
_STALE = "  [changed on disk since indexed: sync to refresh]"


def show_query(result: QueryResult, query: str) -> None:
    """Ranked hits (score, path, title, passage with the query's words highlighted),
    then the sources they came from."""
    out = console()
    if not result["results"]:
        notice = result.get("notice")
        out.print("no results" + (f": {notice}" if notice else ""))
        return
    if result.get("bestMatch") == "weak":
        out.print("No good match: the documents do not seem to cover this; the hits below "
                  "are only loosely related.", style="bold yellow")  # fmt: skip
    # A trimmed answer's notice (what the match said, then what the budget left out) is
    # the warning the command prints on stderr already.
    if (notice := result.get("notice")) and "trimmed" not in result:
        out.print(notice, style="yellow")
    terms = query_terms(query)
    held = Counter(hit["src"] for hit in result["results"])
    for rank, hit in enumerate(result["results"], 1):
        source = result["sources"][hit["src"]]
        out.print(f"{rank}. ", style="bold", end="")
        locator = hit.get("locator", {})
        place = describe(locator)
        out.print(source["displayPath"], style="cyan", end="")
        out.print(f" {place}" if place else "", style="cyan", end="")
        out.print(f"  {_chunks(hit)}  {_title(source)}", style="bold", end="")
        out.print(_match(hit), style="dim", end="")
        out.print(_scores(hit), style="dim", end="")
        out.print(_STALE if source.get("stale") else "", style="yellow")
        if heading := locator.get("headingPath"):
            out.print(f"   § {heading_text(heading)}", style="dim")
        out.print(_passage(without_markers(hit["text"]), terms), soft_wrap=True)
        out.print()
    out.print("Sources:", style="bold")
    for src, s in enumerate(result["sources"]):
        out.print(f"  {s['displayPath']}", style="cyan", end="")
        out.print(f"  {_title(s)}  ({_plural(held[src], 'hit')}{_places(s)})", end="")
        out.print(_STALE if s.get("stale") else "", style="yellow")


def _chunks(hit: SearchHit) -> str:
    """``#4``, or ``#4-6`` for a passage of chunks 4 to 6."""
    last = hit.get("lastChunk")
    return f"#{hit['chunkIndex']}" + (f"-{last}" if last is not None else "")


def _match(hit: SearchHit) -> str:
    """``  [strong match]`` / ``  [weak match; lacks ZEBRA-4471]``: how the hit matched."""
    match = hit.get("match")
    if not match:
        return ""
    missing = match.get("missing", [])
    return f"  [{match['level']} match" + (f"; lacks {', '.join(missing)}]" if missing else "]")


def _scores(hit: SearchHit) -> str:
    """``  score 0.0312  distance 0.412`` (each only when the answer has it: --explain)."""
    out = f"  score {hit['score']:.4f}" if "score" in hit else ""
    distance = hit.get("distance")
    return out + (f"  distance {distance:.3f}" if distance is not None else "")


def _title(summary: SourceSummary) -> str:
    """A source's title; the answer leaves out one that is only the file's name, which
    the path printed before it already says."""
    return summary.get("title", "")


def _places(summary: SourceSummary) -> str:
    """``; pp. 2, 5`` / ``; slides 3, 4``: where a source's hits are."""
    out = ""
    for key, one, many in (("pages", "p.", "pp."), ("slides", "slide", "slides")):
        numbers: list[int] = summary.get(key, [])  # type: ignore[assignment]
        if numbers:
            out += f"; {one if len(numbers) == 1 else many} {', '.join(map(str, numbers))}"
    return out


def show_neighbors(result: NeighborsResult) -> None:
    """Chunks in order, each under a header naming its index."""
    out = console()
    for chunk in result["chunks"]:
        out.print(f"── chunk {chunk['chunkIndex']} · {chunk['title']}", style="bold cyan")
        out.print(chunk["text"].strip(), soft_wrap=True)
        out.print()
    if not result["chunks"]:
        out.print(f"no chunks for {result['source']}")


def show_read(result: ReadResult) -> None:
    """The reconstructed markdown, raw, so it can be piped into a file."""
    typer.echo(result["text"])


def read_on(result: ReadResult, path: str | None, source: str | None) -> str:
    """The notice of a shortened read, plus the command that reads on."""
    notice = result.get("notice", "")
    if "nextChunk" not in result:
        return notice
    target = f"--source {shlex.quote(source)}" if source is not None else shlex.quote(path or "")
    for place in ("page", "slide"):
        if place in result:
            target += f" --{place} {result[place]}"  # type: ignore[literal-required]
    return f"{notice} Here: minirag-cli read {target} --from-chunk {result['nextChunk']}"
