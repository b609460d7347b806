"""A live progress bar on stderr for ``sync`` and ``ingest``: files done/total, the file
being worked on, the rate and the time left.

Drawn only for a person watching a terminal: never with ``--json`` and never when stderr
is piped or redirected, so logs and scripts get no escape codes. rich (which typer
brings) is imported only when a bar is actually drawn.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from minirag_store import Progress

__all__ = ["RateClock", "progress_bar", "rate_and_eta", "wants_bar"]

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


def _relative(source: str) -> str:
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
                current=_shorten(_relative(progress.current or "")),
            )

        yield report
