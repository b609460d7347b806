"""``minirag-cli watch`` as a real subprocess on a real folder: it applies what changes
(a line per file, or one JSON batch per line with --json) until Ctrl-C, which ends it
cleanly with exit 0; and ``query`` marks a hit whose file changed since it was indexed."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from minirag_testkit.answers import expand

CLI = Path(sys.executable).parent / "minirag-cli"
#: Far above the ~2 s a change takes to settle and be applied, for a loaded CI machine.
PATIENCE = 120.0


def _sigint_default() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Watching:
    """A ``minirag-cli watch`` subprocess whose stdout lines arrive on a queue."""

    def __init__(self, env: dict[str, str], *args: str) -> None:
        self.proc = subprocess.Popen(
            [str(CLI), "watch", *args],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            # Ctrl-C as in a terminal: a test run started in the background by a script
            # (``.ci/run &``) has SIGINT ignored, children inherit that, and Python then
            # installs no KeyboardInterrupt handler, so the watch would never hear it.
            preexec_fn=_sigint_default,  # noqa: PLW1509 - one signal call, no lock taken
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)

    def next_line(self, what: str) -> str:
        try:
            return self.lines.get(timeout=PATIENCE)
        except queue.Empty:
            self.proc.kill()
            raise AssertionError(f"no line within {PATIENCE} s: {what}") from None

    def until(self, check, what: str) -> str:
        deadline = time.monotonic() + PATIENCE
        while time.monotonic() < deadline:
            line = self.next_line(what)
            if check(line):
                return line
        raise AssertionError(f"not seen: {what}")

    def interrupt(self) -> tuple[int, str]:
        self.proc.send_signal(signal.SIGINT)
        _, stderr = self.proc.communicate(timeout=PATIENCE)
        return self.proc.returncode, stderr


def _flags(tmp_path: Path, root: Path) -> list[str]:
    return ["--base-dir", str(root), "--db-path", str(tmp_path / "index")]


def _ingested(line: str) -> list[str]:
    return json.loads(line)["job"]["files"]["ingested"]


@pytest.mark.slow
def test_watch_json_applies_adds_and_deletes_until_ctrl_c(cli_env, tmp_path, corpus):
    root = tmp_path / "docs"
    files = corpus(root)
    watching = Watching(cli_env, "--json", *_flags(tmp_path, root))
    first = json.loads(watching.next_line("the first full sync"))
    assert (first["mode"], first["changedPaths"]) == ("notify", 0)
    assert sorted(first["job"]["files"]["ingested"]) == sorted(str(p) for p in files.values())

    added = root / "notes" / "ferries.md"
    added.write_text("# Ferries\n\nThe night ferry leaves at ten.\n", encoding="utf-8")
    line = watching.until(lambda ln: str(added) in _ingested(ln), "the added file")
    assert json.loads(line)["changedPaths"] >= 1
    files["guide"].unlink()
    watching.until(
        lambda ln: json.loads(ln)["job"]["files"]["deleted"] == [str(files["guide"])],
        "the deleted file",
    )
    code, stderr = watching.interrupt()
    assert code == 0, stderr
    assert "stopped watching" in stderr


@pytest.mark.slow
def test_watch_prints_a_line_per_applied_file(cli_env, tmp_path, corpus):
    root = tmp_path / "docs"
    corpus(root)
    watching = Watching(cli_env, *_flags(tmp_path, root))
    summary = watching.next_line("the first full sync's summary")
    assert "full sync (notify" in summary and "ingested 3" in summary
    added = root / "ferries.md"
    added.write_text("# Ferries\n\nThe night ferry leaves at ten.\n", encoding="utf-8")
    watching.until(lambda ln: ln.strip() == f"+ {added}", "the added file's line")
    code, stderr = watching.interrupt()
    assert code == 0
    assert stderr.startswith(f"watching {root} (Ctrl-C to stop)")


def test_query_marks_a_hit_whose_file_changed_since_indexing(run_cli, tmp_path, corpus):
    root = tmp_path / "docs"
    files = corpus(root)
    flags = _flags(tmp_path, root)
    assert run_cli("sync", *flags).code == 0
    guide = files["guide"]
    guide.write_text(guide.read_text(encoding="utf-8") + "\nRevised.\n", encoding="utf-8")
    os.utime(guide, (2e9, 2e9))
    ran = run_cli("query", "nightly backups snapshots", "--json", *flags)
    assert ran.code == 0, ran.stderr
    top = expand(ran.json())["results"][0]
    assert top["source"] == str(guide) and top["stale"] is True
    human = run_cli("query", "nightly backups snapshots", *flags)
    assert "[changed on disk since indexed: sync to refresh]" in human.stdout
    assert run_cli("sync", *flags).code == 0
    again = run_cli("query", "nightly backups snapshots", "--json", *flags).json()
    assert "stale" not in expand(again)["results"][0]
