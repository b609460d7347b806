"""Memory of this process and its children, read from ``/proc`` (Linux), for the benches.

``ru_maxrss`` of children is no use here: a spawned worker starts as a fork of this
process, so its recorded peak includes the parent's memory from before its exec. So
the children's peaks are sampled while they live.
"""

from __future__ import annotations

import threading
from pathlib import Path


def status_mb(pid: str | int = "self", field: str = "VmHWM") -> float:
    """A ``/proc/<pid>/status`` memory field in MB (VmHWM: peak RSS; 0 when gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


class ChildPeaks(threading.Thread):
    """Samples the peak RSS (``VmHWM``) of each child of this process while alive."""

    def __init__(self, every: float = 0.1) -> None:
        super().__init__(daemon=True)
        self.peaks: dict[str, float] = {}
        self._every = every
        self._stop_event = threading.Event()

    def run(self) -> None:
        while not self._stop_event.wait(self._every):
            for children in Path("/proc/self/task").glob("*/children"):
                try:
                    pids = children.read_text().split()
                except OSError:
                    continue
                for pid in pids:
                    peak = status_mb(pid)
                    self.peaks[pid] = max(self.peaks.get(pid, 0.0), peak)

    def stop(self) -> dict[str, float]:
        """Stop sampling; each child's largest peak seen, in MB."""
        self._stop_event.set()
        self.join()
        return self.peaks


class Phases:
    """Peak RSS of this process in each phase of a run, native memory included.

    The kernel's high-water mark (``VmHWM``) is reset when a phase begins (writing ``5`` to
    ``/proc/self/clear_refs``) and read when it ends, so a phase's peak is exact (no
    sampling) and counts what tracemalloc cannot see (LanceDB's Rust heap, onnxruntime's
    arena). A phase entered again keeps its largest peak. Since the mark is reset, the
    process's peak is the largest phase peak (:meth:`peak`), not ``VmHWM`` at the end.
    """

    def __init__(self, first: str) -> None:
        self.peaks: dict[str, float] = {}
        self.rss_after: dict[str, float] = {}
        #: every call of a wrapped function, in order: phase, RSS at entry and peak (MB)
        self.calls: list[dict[str, object]] = []
        self.current = first

    def enter(self, name: str) -> tuple[float, float]:
        """End the current phase (record its peak) and begin ``name``; returns the ended
        phase's peak and the RSS at the switch (MB)."""
        peak, rss = status_mb(), status_mb("self", "VmRSS")
        self.peaks[self.current] = max(self.peaks.get(self.current, 0.0), peak)
        self.rss_after[self.current] = rss
        Path("/proc/self/clear_refs").write_text("5")
        self.current = name
        return peak, rss

    def wrap(self, owner: object, attr: str, name: str) -> None:
        """Make calls of ``owner.attr`` the phase ``name`` (the outer phase resumes after)."""
        original = getattr(owner, attr)

        def wrapped(*args, **kwargs):
            outer = self.current
            _, entry = self.enter(name)
            try:
                return original(*args, **kwargs)
            finally:
                peak, _ = self.enter(outer)
                self.calls.append({"phase": name, "entry_mb": round(entry), "peak_mb": round(peak)})

        setattr(owner, attr, wrapped)

    def peak(self) -> float:
        """The process's peak RSS so far, in MB."""
        return max([*self.peaks.values(), status_mb()])
