"""Progress of ``sync`` and ``ingest`` on stderr: a live bar at a terminal, lines off one.

The bar (files done/total, the file being worked on, the rate and the time left) is drawn
only for a person watching a terminal, never with ``--json``; rich (which typer brings) is
imported only then. When stderr is no terminal (a script, CI, ``nohup``) a plain line is
written every ``--progress-every`` seconds instead (files done/total, chunks written,
elapsed time, the file being read), so a long sync shows it is alive without escape
codes; ``--json`` output on stdout is unaffected.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from minirag_store import Progress

__all__ = [
    "ProgressEvery",
    "RateClock",
    "progress_bar",
    "progress_for",
    "rate_and_eta",
    "relative",
    "wants_bar",
]

#: ``--progress-every``: seconds between progress lines when stderr is no terminal.
ProgressEvery = Annotated[
    float,
    typer.Option(
        "--progress-every",
        metavar="SECONDS",
        min=0,
        help="When stderr is not a terminal (a script, CI, nohup): write a progress line "
        "to stderr this often; 0: none.",
    ),
]

#: Long paths are cut from the left so the file name, the informative end, stays visible.
_CURRENT_WIDTH = 48


def wants_bar(as_json: bool) -> bool:
    """True when a live bar helps: a person at a terminal, not a script reading JSON."""
    isatty = getattr(sys.stderr, "isatty", None)
    return not as_json and isatty is not None and bool(isatty())


def _shorten(text: str, width: int = _CURRENT_WIDTH) -> str:
    return text if len(text) <= width else "…" + text[-(width - 1) :]


def rate_and_eta(finished: int, left: int | None, elapsed: float) -> str:
    """``"12.5 files/s, 0:00:03 left"`` from the files finished in ``elapsed`` seconds."""
    if finished <= 0 or elapsed <= 0:
        return ""
    rate = finished / elapsed
    text = f"{rate:.1f} files/s"
    if left:
        eta = int(left / rate)
        text += f", {eta // 3600}:{eta // 60 % 60:02d}:{eta % 60:02d} left"
    return text


class RateClock:
    """The average rate since the first progress report, shown once it means something.

    Averaged over the whole run because the store reports files in bursts (one burst per
    embedding batch), so a rate over the last few reports swings from 0 to 100,000 files/s;
    and silent for the first second, when one burst over a few milliseconds is all there is.
    """

    #: Seconds of history needed before a rate is shown.
    MIN_ELAPSED = 1.0

    def __init__(self, now: Callable[[], float] = time.monotonic) -> None:
        self._now = now
        self._start: float | None = None
        self._done_at_start = 0

    def rate(self, done: int, total: int | None) -> str:
        """The text for the bar's rate column after a report of ``done`` of ``total``."""
        now = self._now()
        if self._start is None:
            self._start, self._done_at_start = now, done
        elapsed = now - self._start
        if elapsed < self.MIN_ELAPSED:
            return ""
        left = None if total is None else max(total - done, 0)
        return rate_and_eta(done - self._done_at_start, left, elapsed)


def relative(source: str) -> str:
    """A file under the current folder shown relative to it; ids and other paths as is."""
    here = os.getcwd()
    if source.startswith(here + os.sep):
        return source[len(here) + 1 :]
    return source


def _columns() -> tuple[Any, ...]:
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn

    return (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}", style="cyan", markup=False),
        TextColumn("{task.fields[current]}", markup=False),
    )


@contextmanager
def progress_bar(enabled: bool, label: str) -> Iterator[Callable[[Progress], None] | None]:
    """Yield a progress callback drawing a bar on stderr, or None when ``enabled`` is false.

    The bar disappears when the run ends; the final counts are printed by the caller.
    """
    if not enabled:
        yield None
        return
    from rich.console import Console
    from rich.progress import Progress as Bar

    with Bar(*_columns(), console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(label, total=None, current="scanning…", rate="")
        clock = RateClock()

        def report(progress: Progress) -> None:
            bar.update(
                task,
                completed=progress.done,
                total=progress.total,
                rate=clock.rate(progress.done, progress.total),
                current=_shorten(relative(progress.reading or progress.current or "")),
            )

        yield report


def _clock_text(seconds: float) -> str:
    whole = int(seconds)
    return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"


def progress_line(label: str, progress: Progress | None, elapsed: float) -> str:
    """One line of progress for a log: ``sync: 12/188 files, 340 chunks, 0:00:42 elapsed,
    reading pdfs/big.pdf``."""
    if progress is None:
        return f"{label}: starting (scan, index, model), {_clock_text(elapsed)} elapsed"
    total = "?" if progress.total is None else str(progress.total)
    text = f"{label}: {progress.done}/{total} files, {progress.chunks} chunks"
    text += f", {_clock_text(elapsed)} elapsed"
    if progress.reading and progress.done != progress.total:
        text += f", reading {relative(progress.reading)}"
    return text


@contextmanager
def progress_lines(label: str, every: float) -> Iterator[Callable[[Progress], None]]:
    """Yield a progress callback; a thread writes the latest report as a line to stderr
    every ``every`` seconds (a slow file gets lines too) until the block ends."""
    latest: list[Progress | None] = [None]
    started = time.monotonic()
    stop = threading.Event()

    def tick() -> None:
        while not stop.wait(every):
            print(progress_line(label, latest[0], time.monotonic() - started), file=sys.stderr)
            sys.stderr.flush()

    def report(progress: Progress) -> None:
        latest[0] = progress  # one reference swapped: the thread reads whole reports

    thread = threading.Thread(target=tick, name="minirag-progress", daemon=True)
    thread.start()
    try:
        yield report
    finally:
        stop.set()
        thread.join()


@contextmanager
def progress_for(
    as_json: bool, label: str, every: float
) -> Iterator[Callable[[Progress], None] | None]:
    """The progress a run shows: the bar at a terminal (never with ``--json``), lines
    every ``every`` seconds off one (0: none), else nothing."""
    isatty = getattr(sys.stderr, "isatty", None)
    if isatty is not None and isatty():
        with progress_bar(not as_json, label) as bar:
            yield bar
    elif every > 0:
        with progress_lines(label, every) as lines:
            yield lines
    else:
        yield None
