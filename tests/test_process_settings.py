"""Process-wide settings belong to the program, not to the library (issue #36).

Importing the store, opening an index, syncing and searching set no environment variable
and tune no allocator; the two shells' entry points apply them (``minirag_store.process``)
before anything starts a thread.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

#: What ``configure`` sets (engine log level, native memory bounds).
PROCESS_VARIABLES = (
    "LANCE_LOG",
    "LANCEDB_LOG",
    "MALLOC_ARENA_MAX",
    "MALLOC_MMAP_THRESHOLD_",
    "MALLOC_TRIM_THRESHOLD_",
    "LANCE_FTS_PARTITION_SIZE",
    "LANCE_INCLUDE_VECTOR_CENTROIDS",
)

_LIBRARY_RUN = """
import json, os, sys
from minirag_store import Index
index = Index.open(os.environ, base_dirs=[sys.argv[1]], db_path=sys.argv[2])
index.sync()
hits = index.query("lighthouse keeper", top_k=1)["results"]
index.close()
print(json.dumps({"hits": len(hits), "set": [n for n in sys.argv[3:] if n in os.environ]}))
"""

_SHELL_RUN = """
import json, os, sys
from minirag_mcp.__main__ import main
status = main(["status"])
print(json.dumps({"status": status, "set": {n: os.environ.get(n) for n in sys.argv[1:]}}))
"""


def _env(model_env: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in PROCESS_VARIABLES}
    return {**env, **model_env}


def test_the_library_sets_nothing_process_wide(tmp_path: Path, model_env: dict[str, str]):
    root = tmp_path / "docs"
    root.mkdir()
    (root / "keeper.md").write_text("# Keeper\n\nThe lighthouse keeper lit the lamp.\n")
    args = [str(root), str(tmp_path / "db"), *PROCESS_VARIABLES]
    done = subprocess.run(
        [sys.executable, "-c", _LIBRARY_RUN, *args],
        env=_env(model_env), capture_output=True, text=True, timeout=240, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.splitlines()[-1])
    assert out == {"hits": 1, "set": []}


@pytest.mark.parametrize("preset", [None, "4"])
def test_the_shell_entry_point_applies_them(
    tmp_path: Path, model_env: dict[str, str], preset: str | None
):
    env = {**_env(model_env), "DB_PATH": str(tmp_path / "db"), "BASE_DIR": str(tmp_path)}
    if preset is not None:
        env["MALLOC_ARENA_MAX"] = preset  # the user's own setting wins
    done = subprocess.run(
        [sys.executable, "-c", _SHELL_RUN, *PROCESS_VARIABLES],
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.splitlines()[-1])
    assert out["status"] == 0
    assert out["set"]["LANCE_LOG"] == "error"
    assert out["set"]["MALLOC_ARENA_MAX"] == (preset or "2")
    assert all(value is not None for value in out["set"].values())
