"""The embedding model through the real offline all-MiniLM-L6-v2 folder."""

from __future__ import annotations

import numpy as np
import pytest
from minirag_store import load_config
from minirag_store.embedding import Embedder
from minirag_store.errors import ModelLoadError


@pytest.fixture(scope="module")
def embedder(model_env, tmp_path_factory):
    root = tmp_path_factory.mktemp("emb")
    return Embedder.from_config(load_config({**model_env, "BASE_DIR": str(root)}))


def test_model_identity_and_dimensions(embedder):
    assert embedder.model_id == "sentence-transformers/all-MiniLM-L6-v2"
    assert embedder.dim == 384
    assert embedder.max_tokens == 256


def test_vectors_are_unit_and_keep_input_order(embedder):
    texts = ["a much longer passage about invoices and payment runs on fridays", "cat", "dog"]
    batch = embedder.embed_passages(texts)
    assert batch.shape == (3, 384) and batch.dtype == np.float32
    assert np.allclose(np.linalg.norm(batch, axis=1), 1.0, atol=1e-5)
    single = embedder.embed_passages(["cat"])[0]
    assert float(batch[1] @ single) > 0.999  # row 1 is still "cat" after length sorting
    assert embedder.embed_passages([]).shape == (0, 384)


def test_query_vector_matches_its_passage(embedder):
    passages = embedder.embed_passages(["Bake the bread for thirty minutes.", "Invoices are paid."])
    query = embedder.embed_query("how long to bake a loaf")
    assert query.shape == (384,)
    assert float(passages[0] @ query) > float(passages[1] @ query)


def test_token_counter_is_the_models_own(embedder, token_counter):
    for text in ("hello world", "ERR_CONN_RESET at SPEC-112", "Учёт запасов " * 50):
        assert embedder.count_tokens(text) == token_counter(text)
    assert embedder.count_tokens("word " * 400) == 400  # no truncation at 256


def test_missing_model_files_are_a_clear_error(tmp_path):
    empty = tmp_path / "model"
    empty.mkdir()
    config = load_config(
        {
            "MODEL_NAME": "sentence-transformers/all-MiniLM-L6-v2",
            "MODEL_PATH": str(empty),
            "BASE_DIR": str(tmp_path),
        }
    )
    with pytest.raises(ModelLoadError, match=r"all-MiniLM-L6-v2.*MODEL_PATH"):
        Embedder.from_config(config)


def test_unknown_model_names_cache_dir(tmp_path):
    config = load_config(
        {"MODEL_NAME": "no-such/model", "CACHE_DIR": str(tmp_path / "c"), "BASE_DIR": str(tmp_path)}
    )
    with pytest.raises(ModelLoadError, match=r"no-such/model.*CACHE_DIR.*MODEL_PATH"):
        Embedder.from_config(config)


def test_a_failed_session_rebuild_keeps_the_working_model(model_env, tmp_path, monkeypatch):
    """The no-spin rebuild is an optimisation: if onnxruntime refuses it, embedding still works."""
    import onnxruntime as ort
    from minirag_store import load_config
    from minirag_store.embedding import Embedder

    real = ort.InferenceSession
    calls: list[int] = []

    def refuse_the_rebuild(*args, **kwargs):
        calls.append(1)
        if len(calls) > 1:  # fastembed's own load passes; our rebuild is refused
            raise RuntimeError("simulated onnxruntime refusal")
        return real(*args, **kwargs)

    monkeypatch.setattr(ort, "InferenceSession", refuse_the_rebuild)
    embedder = Embedder.from_config(load_config(model_env, base_dirs=[str(tmp_path)]))
    assert len(calls) == 2  # the rebuild was attempted, refused, and survived
    assert embedder.embed_query("warehouse stock").shape == (embedder.dim,)
