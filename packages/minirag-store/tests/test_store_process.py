"""process.configure: what a shell's entry point sets for its whole process, in a fresh
interpreter (the settings are process-wide: the test's own process keeps its own)."""

from __future__ import annotations

import json
import os
import subprocess
import sys


def _configured() -> dict:
    code = (
        "import json, os, sys\n"
        "before = sys.getswitchinterval()\n"
        "from minirag_store.process import configure\n"
        "configure(); configure()\n"  # idempotent
        "print(json.dumps({'before': before, 'after': sys.getswitchinterval(),"
        " 'arenas': os.environ.get('MALLOC_ARENA_MAX'), 'lance_log': os.environ.get('LANCE_LOG')}))"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("MALLOC_ARENA_MAX", "LANCE_LOG")}
    ran = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    return json.loads(ran.stdout)


def test_a_server_hands_the_gil_on_within_a_millisecond_and_bounds_native_memory():
    got = _configured()
    assert got["before"] == 0.005  # CPython's default: a status call waited up to 5 ms a stat
    assert got["after"] == 0.001
    assert got["arenas"] == "2" and got["lance_log"] == "error"


def test_settle_leaves_what_is_loaded_out_of_later_collections():
    code = (
        "import gc, json\n"
        "import lancedb, minirag_store.service\n"
        "from minirag_store.process import settle\n"
        "before = gc.get_freeze_count()\n"
        "settle()\n"
        "print(json.dumps({'before': before, 'frozen': gc.get_freeze_count(),"
        " 'walked': len(gc.get_objects())}))"
    )
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    got = json.loads(ran.stdout)
    assert got["before"] == 0
    assert got["frozen"] > 50_000 and got["walked"] < got["frozen"] / 20
