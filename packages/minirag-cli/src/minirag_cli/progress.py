"""A live progress bar on stderr for ``sync`` and ``ingest``: files done/total, the file
being worked on, the rate and the time left.

Drawn only for a person watching a terminal: never with ``--json`` and never when stderr
is piped or redirected, so logs and scripts get no escape codes. rich (which typer
brings) is imported only when a bar is actually drawn.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from minirag_store import Progress

__all__ = ["progress_bar", "rate_and_eta", "wants_bar"]

#: Long paths are cut from the left so the file name, the informative end, stays visible.
_CURRENT_WIDTH = 48


def wants_bar(as_json: bool) -> bool:
    """True when a live bar helps: a person at a terminal, not a script reading JSON."""
    isatty = getattr(sys.stderr, "isatty", None)
    return not as_json and isatty is not None and bool(isatty())


def _shorten(text: str, width: int = _CURRENT_WIDTH) -> str:
    return text if len(text) <= width else "…" + text[-(width - 1) :]


def rate_and_eta(done: float, total: float | None, elapsed: float | None) -> str:
    """``"12.5 files/s, 0:00:03 left"`` from the run's average rate so far.

    The store reports files in bursts (one per embedding batch), so an instantaneous rate
    swings wildly; the average since the start is what predicts the rest of the run.
    """
    if not done or not elapsed or elapsed <= 0:
        return ""
    rate = done / elapsed
    text = f"{rate:.1f} files/s"
    if total is not None and total > done:
        left = int((total - done) / rate)
        text += f", {left // 3600}:{left // 60 % 60:02d}:{left % 60:02d} left"
    return text


def _relative(source: str) -> str:
    """A file under the current folder shown relative to it; ids and other paths as is."""
    here = os.getcwd()
    if source.startswith(here + os.sep):
        return source[len(here) + 1 :]
    return source


def _columns() -> tuple[Any, ...]:
    from rich.progress import BarColumn, MofNCompleteColumn, ProgressColumn, TextColumn
    from rich.text import Text

    class RateColumn(ProgressColumn):
        """Average files per second and the time left at that rate."""

        def render(self, task: Any) -> Text:
            return Text(rate_and_eta(task.completed, task.total, task.elapsed), style="cyan")

    return (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        RateColumn(),
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
        task = bar.add_task(label, total=None, current="scanning…")

        def report(progress: Progress) -> None:
            bar.update(
                task,
                completed=progress.done,
                total=progress.total,
                current=_shorten(_relative(progress.current or "")),
            )

        yield report
