"""Fixtures for the web page's tests: one indexed corpus per module (a sync costs seconds)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# pytest runs with --import-mode=importlib: this folder on sys.path makes web_testlib
# importable (a name no other package's tests use).
sys.path.insert(0, str(Path(__file__).parent))

from web_testlib import write_corpus


@pytest.fixture(scope="module")
def indexed(tmp_path_factory, model_env) -> Iterator[dict[str, Any]]:
    """An Index over the corpus, synced once: ``index``, ``root``, ``job`` (the sync)."""
    from minirag_store import Index

    base = tmp_path_factory.mktemp("web")
    root = write_corpus(base / "docs")
    env = {**model_env, "BASE_DIR": str(root), "DB_PATH": str(base / "index"), "RAG_WATCH": "off"}
    index = Index.open(env)
    job = index.sync()
    try:
        yield {"index": index, "root": root, "job": job, "env": env}
    finally:
        index.close()
