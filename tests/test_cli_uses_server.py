"""``minirag-cli query`` asks a running ``minirag-mcp`` for the same index first.

Real processes: the MCP server started as a client starts it (stdio, its console script),
the CLI as a person runs it. The CLI run that must be served by the server cannot import
LanceDB at all, so its answer can only have come from the server.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from minirag_store import Index, peer
from minirag_testkit.answers import hit_sources

#: The CLI's entry point in a process where any import of LanceDB or onnxruntime fails.
_CLI_WITHOUT_ENGINE = """
import sys
sys.modules["lancedb"] = None
sys.modules["onnxruntime"] = None
from minirag_cli.app import main
sys.argv = ["minirag-cli", *sys.argv[1:]]
main()
"""


def _script(name: str) -> str:
    beside = Path(sys.executable).with_name(name)
    found = str(beside) if beside.exists() else shutil.which(name)
    assert found, f"{name} is not installed: run `uv sync --all-packages`"
    return found


def _env(index_env: dict[str, str]) -> dict[str, str]:
    base = {k: os.environ[k] for k in ("PATH", "HOME", "LANG", "TMPDIR") if k in os.environ}
    return {**base, **index_env}


@pytest.fixture
def indexed(index_env, docs_root):
    (docs_root / "pumps.md").write_text(
        "# Pumps\n\nThe centrifugal pump needs new seals every spring.", encoding="utf-8"
    )
    index = Index.open(index_env)
    index.sync()
    index.close()
    return Path(index_env["DB_PATH"])


def _start_server(env: dict[str, str], db: Path) -> subprocess.Popen:
    server = subprocess.Popen(
        [_script("minirag-mcp")],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
    )
    deadline = time.monotonic() + 60
    while not (db / peer.FILE_NAME).exists():
        if server.poll() is not None or time.monotonic() > deadline:
            server.kill()
            _, stderr = server.communicate()
            pytest.fail(f"the server never announced its query endpoint: {stderr.decode()}")
        time.sleep(0.05)
    return server


def _query(env: dict[str, str], *, engine: bool) -> subprocess.CompletedProcess[str]:
    argv = ["query", "pump seals", "--json", "--top-k", "2"]
    command = [_script("minirag-cli")] if engine else [sys.executable, "-c", _CLI_WITHOUT_ENGINE]
    return subprocess.run(
        [*command, *argv], env=env, capture_output=True, text=True, timeout=120, check=False
    )


def test_the_cli_query_is_answered_by_a_running_server(index_env, indexed):
    env = _env(index_env)
    server = _start_server(env, indexed)
    try:
        served = _query(env, engine=False)
        assert served.returncode == 0, served.stderr
        assert hit_sources(json.loads(served.stdout))[0].endswith("pumps.md")
        alone = _query(env, engine=True)  # the same answer the CLI computes itself
        assert json.loads(alone.stdout) == json.loads(served.stdout)
    finally:
        assert server.stdin is not None
        server.stdin.close()  # how a client stops a stdio server
        server.wait(60)
    assert not (indexed / peer.FILE_NAME).exists()  # withdrawn at exit


def test_a_killed_server_is_passed_over_and_its_leftover_removed(index_env, indexed):
    env = _env(index_env)
    server = _start_server(env, indexed)
    server.send_signal(signal.SIGKILL)
    server.wait(60)
    assert (indexed / peer.FILE_NAME).exists()  # nothing could remove it
    answered = _query(env, engine=True)
    assert answered.returncode == 0, answered.stderr
    assert hit_sources(json.loads(answered.stdout))[0].endswith("pumps.md")
    assert not (indexed / peer.FILE_NAME).exists()
    without = _query(env, engine=False)  # and with no server, the engine is needed
    assert without.returncode != 0
