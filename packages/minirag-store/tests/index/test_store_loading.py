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


HELD = """
import os, time
while not os.path.exists({gate!r}):
    time.sleep(0.01)
"""


def test_a_loader_waits_only_for_its_own_modules(tmp_path, monkeypatch):
    # The MCP server's status (table modules) arrived while its warm-up imported them and
    # then went on to onnxruntime: status must answer once the table's modules are in,
    # not when the model's are (it waited for ever when that import was held).
    import builtins

    spans: list[tuple[str, str, float]] = []
    monkeypatch.setattr(builtins, "SPANS", spans, raising=False)
    gate = tmp_path / "gate"
    (tmp_path / "minirag_slow_t.py").write_text(SLOW.format(name="minirag_slow_t"), "utf-8")
    (tmp_path / "minirag_held_m.py").write_text(HELD.format(gate=str(gate)), "utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    warm_up = threading.Thread(
        target=loading.preload, args=(("minirag_slow_t", "minirag_held_m"),), daemon=True
    )
    status_done = threading.Event()

    def status() -> None:
        loading.preload(("minirag_slow_t",))
        status_done.set()

    try:
        warm_up.start()
        while not spans:  # the warm-up is inside the table module's import
            threading.Event().wait(0.005)
        threading.Thread(target=status, daemon=True).start()
        assert status_done.wait(30), "status waited for the held import"
        assert warm_up.is_alive()  # still held in the model's import
        gate.touch()
        warm_up.join(30)
        assert not warm_up.is_alive()
    finally:
        gate.touch()
        for name in ("minirag_slow_t", "minirag_held_m"):
            sys.modules.pop(name, None)
    assert [edge for _, edge, _ in spans] == ["in", "out"]
