"""Helpers shared by the MCP shell's tests: a small real corpus and subprocess plumbing.

The corpus is a handful of Markdown and text files with distinctive facts, so a search
result can be checked for the right document rather than for "something came back".
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from minirag_testkit.scenarios import NOTES, write_files

#: Facts worth finding: each file says one thing no other file says.
CORPUS: dict[str, str] = NOTES


def write_corpus(root: Path) -> Path:
    """Write :data:`CORPUS` under ``root``; returns ``root``."""
    return write_files(root, CORPUS)


def console_script() -> str:
    """The installed ``minirag-mcp`` console script (the same thing ``uvx`` runs)."""
    beside = Path(sys.executable).with_name("minirag-mcp")
    found = str(beside) if beside.exists() else shutil.which("minirag-mcp")
    if found is None:
        pytest.fail("minirag-mcp console script not installed: run `uv sync --all-packages`")
    return found


def child_env(extra: dict[str, str]) -> dict[str, str]:
    """A minimal environment for a server subprocess: PATH/HOME plus ``extra``.

    Watch mode is off unless ``extra`` turns it on: these servers are driven through
    explicit syncs whose counts the tests check, and a watcher's own first sync would do
    part of that work first (test_mcp_watch.py runs servers with it on).
    """
    keep = ("PATH", "HOME", "LANG", "TMPDIR", "XDG_DATA_HOME")  # the test's own user data
    base = {k: os.environ[k] for k in keep if k in os.environ}
    return {**base, "RAG_WATCH": "off", **extra}


def structured(result) -> dict:
    """A tool result's structured content (what a client parses), as a plain dict."""
    data = result.structured_content
    assert data is not None, f"no structured content in {result!r}"
    return json.loads(json.dumps(data))


async def wait_for_job(client, job_id: str, seconds: float = 180.0) -> dict:
    """Poll sync_status like a model would, until the job ends; its final status."""
    import anyio

    with anyio.fail_after(seconds):
        while True:
            status = structured(await client.call_tool("sync_status", {"jobId": job_id}))
            if status["state"] not in ("pending", "running"):
                return status
            await anyio.sleep(0.2)


#: What today's desktop clients send in their initialize request.
CLIENT_PROTOCOL = "2025-06-18"


class RawServer:
    """A ``minirag-mcp`` subprocess driven by hand-written JSON-RPC lines.

    Used where the SDK client would hide what we want to see: every stdout line (must
    all be protocol messages), exact request ids (to cancel one), a bare handshake.
    ``lines`` keeps every stdout line as received.
    """

    def __init__(
        self, env: dict[str, str], argv: list[str] | None = None, command: list[str] | None = None
    ) -> None:
        import queue
        import subprocess
        import threading

        self.proc = subprocess.Popen(
            [*(command or [console_script()]), *(argv or [])],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=child_env(env),
            text=True,
            encoding="utf-8",
        )
        self.lines: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._errors: list[str] = []
        self._error_pump = threading.Thread(target=self._pump_stderr, daemon=True)
        threading.Thread(target=self._pump, daemon=True).start()
        self._error_pump.start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line)
            self._queue.put(line)
        self._queue.put(None)

    def _pump_stderr(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self._errors.append(line)

    @property
    def stderr(self) -> str:
        """What the server wrote to stderr so far."""
        return "".join(self._errors)

    def wait_for_stderr(self, text: str, timeout: float = 120.0) -> bool:
        """Wait until ``text`` appears on stderr (a log line from a background thread)."""
        import time

        deadline = time.monotonic() + timeout
        while text not in self.stderr:
            if time.monotonic() > deadline or self.proc.poll() is not None:
                return text in self.stderr
            time.sleep(0.05)
        return True

    def send(self, message: dict) -> None:
        """Write one JSON-RPC message (a line) to the server's stdin."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def receive(self, timeout: float = 60.0) -> dict:
        """The next message from stdout (fails the test on EOF or timeout)."""
        line = self._queue.get(timeout=timeout)
        if line is None:
            pytest.fail(f"server closed stdout; stderr:\n{self.close()}")
        return json.loads(line)

    def request(
        self, rid: int, method: str, params: dict | None = None, timeout: float = 120.0
    ) -> tuple[dict, list[dict]]:
        """Send a request; (its response, the notifications that arrived before it)."""
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params or {}})
        notes: list[dict] = []
        while True:
            message = self.receive(timeout)
            if message.get("id") == rid and "method" not in message:
                return message, notes
            notes.append(message)

    def initialize(self) -> dict:
        """The initialize handshake; returns the server's result."""
        response, _ = self.request(
            0,
            "initialize",
            {
                "protocolVersion": CLIENT_PROTOCOL,
                "capabilities": {},
                "clientInfo": {"name": "raw-test", "version": "0"},
            },
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return response["result"]

    def close(self, timeout: float = 30.0) -> str:
        """Close stdin (how clients stop a stdio server), wait for exit; its stderr."""
        import subprocess

        if self.proc.stdin and not self.proc.stdin.closed:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._error_pump.join(timeout)
        return self.stderr


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now (the OS picks it)."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class HttpServer:
    """``minirag-mcp --transport http`` on 127.0.0.1 at a free port, as a subprocess.

    Its stderr goes to ``log`` (a file) so a test can read what the server logged while
    it runs. ``url`` is the MCP endpoint. Use as a context manager: it waits until the
    port accepts connections and terminates the server on exit.
    """

    def __init__(self, env: dict[str, str], log: Path, argv: list[str] | None = None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.env = env
        self.log = log
        self.argv = argv or []
        self.proc = None

    def __enter__(self) -> HttpServer:
        import socket
        import subprocess
        import time

        self._log_file = self.log.open("w", encoding="utf-8")
        self.proc = subprocess.Popen(
            [console_script(), "--transport", "http", "--port", str(self.port), *self.argv],
            env=child_env(self.env),
            stdout=subprocess.DEVNULL,
            stderr=self._log_file,
        )
        deadline = time.monotonic() + 60
        while True:
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", self.port)) == 0:
                    return self
            if self.proc.poll() is not None:
                self.__exit__()
                pytest.fail(f"HTTP server exited {self.proc.returncode}:\n{self.stderr()}")
            if time.monotonic() > deadline:
                self.__exit__()
                pytest.fail(f"HTTP server never listened:\n{self.stderr()}")
            time.sleep(0.1)

    def stderr(self) -> str:
        """Everything the server wrote to stderr so far."""
        return self.log.read_text(encoding="utf-8", errors="replace")

    def __exit__(self, *exc: object) -> None:
        import subprocess

        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log_file.close()
