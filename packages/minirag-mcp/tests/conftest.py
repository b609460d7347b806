"""Fixtures for the MCP shell's tests (helpers live in mcp_testlib, importable from here)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

# pytest runs with --import-mode=importlib, so test modules cannot import siblings unless
# this folder is on sys.path; mcp_testlib has a name no other package's tests use.
sys.path.insert(0, str(Path(__file__).parent))

from mcp_testlib import write_corpus


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
