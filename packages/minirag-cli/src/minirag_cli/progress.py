"""A live progress bar on stderr for ``sync`` and ``ingest``: files done/total, the file
being worked on, the rate and the time left.

Drawn only for a person watching a terminal: never with ``--json`` and never when stderr
is piped or redirected, so logs and scripts get no escape codes. rich (which typer
brings) is imported only when a bar is actually drawn.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from minirag_store import Progress

__all__ = ["progress_bar", "wants_bar"]

#: Long paths are cut from the left so the file name, the informative end, stays visible.
_CURRENT_WIDTH = 48


def wants_bar(as_json: bool) -> bool:
    """True when a live bar helps: a person at a terminal, not a script reading JSON."""
    isatty = getattr(sys.stderr, "isatty", None)
    return not as_json and isatty is not None and bool(isatty())


def _shorten(text: str, width: int = _CURRENT_WIDTH) -> str:
    return text if len(text) <= width else "…" + text[-(width - 1) :]


def _columns() -> tuple[Any, ...]:
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        ProgressColumn,
        SpinnerColumn,
        TextColumn,
        TimeRemainingColumn,
    )
    from rich.text import Text

    class RateColumn(ProgressColumn):
        """Files per second, once there is a rate to show."""

        def render(self, task: Any) -> Text:
            speed = task.finished_speed or task.speed
            rate = "" if speed is None else f"{speed:.1f} files/s"
            return Text(rate, style="progress.data.speed")

    return (
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        RateColumn(),
        TimeRemainingColumn(),
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
                current=_shorten(progress.current or ""),
            )

        yield report
