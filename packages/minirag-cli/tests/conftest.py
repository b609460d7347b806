"""Fixtures for the CLI tests: a small real document folder, the offline model, and
helpers to run ``minirag-cli`` through typer's runner or as a real subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

#: The installed console script, next to the interpreter running the tests.
CLI = Path(sys.executable).parent / "minirag-cli"

_GUIDE_TOPICS = [
    "Backups run every night at two o'clock and keep fourteen daily snapshots on the NAS.",
    "Restoring a snapshot means mounting it read-only and copying the folder back by hand.",
    "Monitoring sends an alert to the on-call phone when a disk is more than ninety percent full.",
    "The staging cluster mirrors production but uses anonymised customer records only.",
    "Certificates renew automatically thirty days before they expire, through the ACME client.",
    "Log retention is ninety days for application logs and one year for the audit trail.",
]


def _guide() -> str:
    """A document long enough for several chunks, one topic per section."""
    parts = ["# Operations guide"]
    for n, topic in enumerate(_GUIDE_TOPICS, 1):
        parts.append(f"## Part {n}\n\n" + " ".join([topic] * 4))
    return "\n\n".join(parts) + "\n"


def write_corpus(root: Path) -> dict[str, Path]:
    """Write the test documents under ``root``; returns them by short name."""
    files = {
        "timeouts": root / "notes" / "timeouts.md",
        "pancakes": root / "recipes" / "pancakes.md",
        "guide": root / "guide.md",
    }
    files["timeouts"].parent.mkdir(parents=True, exist_ok=True)
    files["pancakes"].parent.mkdir(parents=True, exist_ok=True)
    files["timeouts"].write_text(
        "# Connection timeouts\n\nWhen the server does not answer within 30 seconds the client "
        "raises a connection timeout error. Raise TIMEOUT_SECONDS in the settings file to wait "
        "longer, or check the firewall between the two hosts.\n",
        encoding="utf-8",
    )
    files["pancakes"].write_text(
        "# Pancakes\n\nWhisk two eggs with milk and flour, rest the batter for ten minutes, "
        "then fry thin pancakes in a hot buttered pan.\n",
        encoding="utf-8",
    )
    files["guide"].write_text(_guide(), encoding="utf-8")
    return files


@dataclass
class Ran:
    """The outcome of one CLI run, the same for the runner and a subprocess."""

    code: int
    stdout: str
    stderr: str

    def json(self):
        """stdout parsed as JSON."""
        return json.loads(self.stdout)


@pytest.fixture(scope="session")
def cli_env(model_env: dict[str, str]) -> dict[str, str]:
    """Environment for a CLI run: the offline model, no inherited roots or index path."""
    # XDG_DATA_HOME is each test's own (the root conftest): run_cli and invoke add it per run
    skip = {"BASE_DIR", "BASE_DIRS", "DB_PATH", "XDG_DATA_HOME"}
    env = {k: v for k, v in os.environ.items() if k not in skip}
    env.update(model_env)
    env.pop("NO_COLOR", None)
    env.pop("FORCE_COLOR", None)
    env["COLUMNS"] = "200"  # tables unfolded, so assertions see whole paths
    return env


@pytest.fixture(scope="session")
def run_cli(cli_env: dict[str, str]) -> Callable[..., Ran]:
    """Run the installed console script as a real subprocess: ``run_cli(*args, cwd=, env=)``."""

    def run(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> Ran:
        proc = subprocess.run(
            [str(CLI), *args],
            cwd=cwd,
            env={**cli_env, "XDG_DATA_HOME": os.environ["XDG_DATA_HOME"], **(env or {})},
            capture_output=True,
            text=True,
            timeout=240,
            check=False,
        )
        return Ran(proc.returncode, proc.stdout, proc.stderr)

    return run


@pytest.fixture
def invoke(cli_env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Callable[..., Ran]:
    """Run the app in-process through typer's CliRunner: ``invoke(*args, env=)``."""
    from minirag_cli import app
    from typer.testing import CliRunner

    for key in ("BASE_DIR", "BASE_DIRS", "DB_PATH", "NO_COLOR", "FORCE_COLOR"):
        monkeypatch.delenv(key, raising=False)
    runner = CliRunner()

    def run(*args: str, env: dict[str, str] | None = None) -> Ran:
        here = {"XDG_DATA_HOME": os.environ["XDG_DATA_HOME"]}
        result = runner.invoke(app, list(args), env={**cli_env, **here, **(env or {})})
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception
        return Ran(result.exit_code, result.stdout, result.stderr)

    return run


@pytest.fixture(scope="session")
def corpus() -> Callable[[Path], dict[str, Path]]:
    """The corpus writer: ``corpus(root)`` writes the test documents under ``root``."""
    return write_corpus


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory, run_cli) -> dict:
    """A real folder with the corpus, ingested once through the CLI (read-only tests)."""
    base = tmp_path_factory.mktemp("built")
    root = base / "docs"
    files = write_corpus(root)
    flags = ["--base-dir", str(root), "--db-path", str(base / "index")]
    ran = run_cli("ingest", str(root), *flags)
    assert ran.code == 0, ran.stderr
    return {"root": root, "files": files, "flags": flags, "db": base / "index"}
