"""Store-only fixtures: one small English + Russian corpus indexed once per module.

The corpus goes through the real pipeline (real chunker, real offline model, real
LanceDB). Filler passages about weather make the index larger than one vector window
(max(10·topK, 100) candidates) and than the topK cap (100), so those behaviours are
observable.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest

# pytest runs with --import-mode=importlib, so test modules can import a helper module
# only when this folder is on sys.path; store_rows has a name no other package's tests use.
sys.path.insert(0, str(Path(__file__).parent))

from store_corpus import CORPUS, fillers, write_corpus


@pytest.fixture(scope="module")
def corpus_index(tmp_path_factory, model_env):
    """``(index, root)``: the corpus + fillers indexed once per test module."""
    from minirag_store import Index

    base = tmp_path_factory.mktemp("store")
    root = base / "docs"
    root.mkdir()
    env = {**model_env, "BASE_DIR": str(root), "DB_PATH": str(base / "db")}
    env["CHUNK_TOKEN_BUDGET"] = "40"  # small, so the guide splits into several chunks
    index = Index.open(env)
    write_corpus(index, root, {**CORPUS, **fillers()})
    yield index, root
    index.close()


@pytest.fixture(scope="module")
def with_config(corpus_index):
    """Factory: an Index over the same table and model with some config fields changed.

    Shares the loaded model and table (loading ONNX again costs seconds per test).
    """
    from minirag_store import Index

    base, _ = corpus_index

    def make(**changes):
        return Index(replace(base.config, **changes), embedder=base.embedder(), table=base.table())

    return make


@pytest.fixture(scope="session")
def corpus_files() -> dict[str, str]:
    """The named corpus (relative path → markdown), without the fillers."""
    return CORPUS


@pytest.fixture(scope="session")
def write_docs():
    """:func:`write_corpus`, for tests that build their own small index."""
    return write_corpus


@pytest.fixture(scope="session")
def s3():
    """One S3 server (moto, loopback) for the whole session: moto keeps its users and its
    signature checking process-wide, so a second server's set-up would be refused."""
    from s3_server import start_s3

    server = start_s3()
    yield server
    server.stop()
