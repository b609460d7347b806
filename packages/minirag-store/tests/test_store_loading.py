"""The heavy first imports happen one thread at a time (index/loading.py).

Two threads importing numpy-based libraries at once can be handed a partially
initialised numpy by CPython's import locks (onnxruntime: "import numpy failed", seen
when the MCP server's first query met its warm-up). Modules of our own that record when
their import runs stand in for the libraries here.
"""

from __future__ import annotations

import sys
import threading

from minirag_store.index import loading

SLOW = """
import time
SPANS.append(("{name}", "in", time.monotonic()))
time.sleep(0.3)
SPANS.append(("{name}", "out", time.monotonic()))
"""


def test_two_loaders_never_import_at_the_same_time(tmp_path, monkeypatch):
    import builtins

    spans: list[tuple[str, str, float]] = []
    monkeypatch.setattr(builtins, "SPANS", spans, raising=False)
    for name in ("minirag_slow_a", "minirag_slow_b", "minirag_slow_c"):
        (tmp_path / f"{name}.py").write_text(SLOW.format(name=name), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    start = threading.Barrier(2)

    def load(modules: tuple[str, ...]) -> None:
        start.wait()
        loading.preload(modules)

    threads = [
        threading.Thread(target=load, args=(("minirag_slow_a", "minirag_slow_b"),)),
        threading.Thread(target=load, args=(("minirag_slow_a", "minirag_slow_c"),)),
    ]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
    finally:
        for name in ("minirag_slow_a", "minirag_slow_b", "minirag_slow_c"):
            sys.modules.pop(name, None)
    # each module imported once, and no import began while another was running
    assert sorted(name for name, edge, _ in spans if edge == "in") == [
        "minirag_slow_a", "minirag_slow_b", "minirag_slow_c",
    ]  # fmt: skip
    ordered = sorted(spans, key=lambda span: span[2])
    assert [edge for _, edge, _ in ordered] == ["in", "out"] * 3
    # and a second time it is only a look-up
    loading.preload(("minirag_slow_a",))
    assert len(spans) == 6
