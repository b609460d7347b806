"""Fixtures shared by every package's tests: the real offline embedding model.

``model_dir`` is a folder fastembed loads with no network (see minirag_testkit);
``model_env`` is the environment that points minirag at it (MODEL_NAME + MODEL_PATH).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import settings
from minirag_testkit import MODEL_NAME
from minirag_testkit import model_dir as _model_dir

# Timing belongs in bench/, not in tests: no per-example deadline (CI shares 2 cores).
settings.register_profile("minirag", deadline=None, max_examples=60)
settings.load_profile("minirag")

SHARED_DATA = Path(__file__).resolve().parent.parent / "shared" / "data"


@pytest.fixture(scope="session")
def model_dir() -> Path:
    """The assembled offline model folder (model.onnx + tokenizer/config files)."""
    return _model_dir()


@pytest.fixture(scope="session")
def model_env(model_dir: Path) -> dict[str, str]:
    """Env vars that make minirag load the offline model instead of downloading one."""
    return {"MODEL_NAME": MODEL_NAME, "MODEL_PATH": str(model_dir)}


@pytest.fixture(scope="session")
def token_counter(model_dir: Path):
    """The model's own token counter: truncation and padding both off."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tok.no_truncation()
    tok.no_padding()
    return lambda text: len(tok.encode(text, add_special_tokens=False).ids)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """../shared/data, or a skip when this checkout has no shared data beside it."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data not found at {SHARED_DATA}")
    return SHARED_DATA


@pytest.fixture
def docs_root(tmp_path: Path) -> Path:
    """An empty document root for one test."""
    root = tmp_path / "docs"
    root.mkdir()
    return root


@pytest.fixture
def index_env(tmp_path: Path, docs_root: Path, model_env: dict[str, str]) -> dict[str, str]:
    """A complete environment for an Index over ``docs_root`` with the offline model."""
    return {**model_env, "BASE_DIR": str(docs_root), "DB_PATH": str(tmp_path / "index")}


@pytest.fixture
def make_index(index_env: dict[str, str]):
    """Factory: ``make_index(**extra_env)`` opens an Index (closed after the test)."""
    from minirag_store import Index

    opened: list[Index] = []

    def make(**extra: str) -> Index:
        index = Index.open({**index_env, **extra})
        opened.append(index)
        return index

    yield make
    for index in opened:
        index.close()
