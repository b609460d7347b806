"""Fixtures for the MCP shell's tests: a small real corpus, its env, and process helpers.

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

#: Facts worth finding: each file says one thing no other file says.
CORPUS: dict[str, str] = {
    "specs/cooling.md": (
        "# Cooling system\n\n"
        "## Pump maintenance\n\n"
        "The coolant pump P-7 must be flushed every 400 operating hours with "
        "distilled water. A clogged pump raises the core temperature quickly.\n\n"
        "## Fans\n\n"
        "The radiator fans run at 1200 rpm in normal mode and 2400 rpm when the "
        "coolant exceeds 85 degrees.\n"
    ),
    "notes/lunch.txt": (
        "Team lunch is on Fridays at the noodle bar on Elm Street. "
        "Marta books the table every Thursday afternoon.\n"
    ),
    "policies/travel.md": (
        "# Travel policy\n\n"
        "Economy class is required for flights shorter than six hours. "
        "Hotel costs are reimbursed up to 180 euros per night in capital cities.\n"
    ),
}


def write_corpus(root: Path) -> Path:
    """Write :data:`CORPUS` under ``root``; returns ``root``."""
    for rel, text in CORPUS.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def anyio_backend() -> str:
    """Async tests run on asyncio (what the server runs on), via anyio's pytest plugin."""
    return "asyncio"


@pytest.fixture
def corpus_env(tmp_path: Path, model_env: dict[str, str]) -> dict[str, str]:
    """Env for an index over a fresh copy of the corpus (one per test: tests write to it)."""
    root = write_corpus(tmp_path / "docs")
    return {**model_env, "BASE_DIR": str(root), "DB_PATH": str(tmp_path / "index")}


@pytest.fixture
def broken_env(tmp_path: Path) -> dict[str, str]:
    """An env whose configuration cannot load (BASE_DIRS is not JSON)."""
    return {"BASE_DIRS": "[not json", "DB_PATH": str(tmp_path / "index")}


def console_script() -> str:
    """The installed ``minirag-mcp`` console script (the same thing ``uvx`` runs)."""
    beside = Path(sys.executable).with_name("minirag-mcp")
    found = str(beside) if beside.exists() else shutil.which("minirag-mcp")
    if found is None:
        pytest.fail("minirag-mcp console script not installed: run `uv sync --all-packages`")
    return found


def child_env(extra: dict[str, str]) -> dict[str, str]:
    """A minimal environment for a server subprocess: PATH/HOME plus ``extra``."""
    base = {k: os.environ[k] for k in ("PATH", "HOME", "LANG", "TMPDIR") if k in os.environ}
    return {**base, **extra}


def structured(result) -> dict:
    """A tool result's structured content (what a client parses), as a plain dict."""
    data = result.structured_content
    assert data is not None, f"no structured content in {result!r}"
    return json.loads(json.dumps(data))
