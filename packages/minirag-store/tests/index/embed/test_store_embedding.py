"""The embedding model through the real offline all-MiniLM-L6-v2 folder.

Our own ONNX session is checked against fastembed's public API on the same files (same
vectors for every model we run ourselves); fastembed's session is the warned fallback.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from minirag_store import load_config
from minirag_store.errors import ModelLoadError
from minirag_store.index.embed.embedding import Embedder


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


def test_a_batch_run_in_parts_embeds_as_one_run(embedder, monkeypatch):
    # Past ATTENTION_CELLS a batch runs in parts (bounded activation memory): the same
    # vectors, in the same order, as one run of the whole batch.
    from minirag_store.index.embed import onnx_encoder

    texts = [f"passage {i} " + "about invoices and payment runs " * (3 * i) for i in range(9)]
    monkeypatch.setattr(onnx_encoder, "ATTENTION_CELLS", 10**9)
    whole = embedder.embed_passages(texts)
    monkeypatch.setattr(onnx_encoder, "ATTENTION_CELLS", 3 * 64 * 64)
    parted = embedder.embed_passages(texts)
    assert np.allclose(parted, whole, atol=1e-5)
    assert [int(np.argmax(parted @ v)) for v in whole] == list(range(len(texts)))


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


SHORT_TEXTS = [
    "hello world",
    "Invoices are paid on Fridays after the approval run.",
    "Учёт запасов ведётся ежедневно",
    "ERR_CONN_RESET at SPEC-112 [SEP] [MASK]",
    "cat",
]


def _model_folder(model_dir: Path, target: Path, model_file: str = "model.onnx") -> Path:
    """The offline model's files under ``target``, the ONNX file named ``model_file``."""
    (target / model_file).parent.mkdir(parents=True, exist_ok=True)
    (target / model_file).symlink_to(model_dir / "model.onnx")
    for file in model_dir.iterdir():
        if file.name != "model.onnx":
            (target / file.name).symlink_to(file)
    return target


def _hub_cache(cache: Path, repo: str, model_dir: Path, model_file: str) -> None:
    """A Hugging Face cache under ``cache`` holding ``repo`` as fastembed downloads it."""
    root = cache / ("models--" + repo.replace("/", "--"))
    revision = "0123456789abcdef0123456789abcdef01234567"
    (root / "refs").mkdir(parents=True)
    (root / "refs" / "main").write_text(revision)
    _model_folder(model_dir, root / "snapshots" / revision, model_file)


def test_known_models_match_fastembeds_public_model_list():
    """Our table names the repo and file fastembed downloads: a fastembed release that
    moves a model fails here, not on a user's first download. Releases in our range
    spell some repos in another case (the cache look-up finds either)."""
    from fastembed import TextEmbedding
    from minirag_store.index.embed.onnx_encoder import KNOWN_MODELS

    listed = {m["model"].lower(): m for m in TextEmbedding.list_supported_models()}
    for name, known in KNOWN_MODELS.items():
        assert name in listed, name
        assert listed[name]["sources"]["hf"].lower() == known.hf_repo.lower(), name
        assert listed[name]["model_file"] == known.model_file, name
        assert not listed[name]["additional_files"], name  # one self-contained ONNX file


def test_our_session_embeds_as_fastembed_does_for_every_known_model(model_dir, tmp_path):
    """Same files, same tokenizer set-up and pooling: fastembed's vectors within float
    noise, for mean-pooled and CLS-pooled models alike (the offline weights stand in)."""
    from fastembed import TextEmbedding
    from minirag_store.index.embed.onnx_encoder import KNOWN_MODELS

    for k, (name, known) in enumerate(KNOWN_MODELS.items()):
        folder = _model_folder(model_dir, tmp_path / str(k), known.model_file)
        env = {"MODEL_NAME": name, "MODEL_PATH": str(folder), "BASE_DIR": str(tmp_path)}
        ours = Embedder.from_config(load_config(env))
        reference = TextEmbedding(name, specific_model_path=str(folder))
        expected = np.stack(list(reference.passage_embed(SHORT_TEXTS)))
        expected /= np.linalg.norm(expected, axis=1, keepdims=True)
        assert np.allclose(ours.embed_passages(SHORT_TEXTS), expected, atol=1e-5), name
        query = next(iter(reference.query_embed(["where are invoices paid"])))
        query /= np.linalg.norm(query)
        assert np.allclose(ours.embed_query("where are invoices paid"), query, atol=1e-5), name


def test_text_past_the_trained_length_is_cut_there(embedder):
    """all-MiniLM-L6-v2 was trained on 256 tokens: the rest of a text changes nothing."""
    long, cut = "alpha beta " * 300, "alpha beta " * 127  # 600 vs 254 tokens (+2 special)
    vectors = embedder.embed_passages([long, cut])
    assert float(vectors[0] @ vectors[1]) > 0.9999


def test_loads_without_fastembed_from_model_path_or_the_hub_cache(model_dir, tmp_path):
    """Our own session needs only onnxruntime, tokenizers and the files: fastembed is not
    imported (it costs ~1.5 s) when the model is in MODEL_PATH or already in CACHE_DIR."""
    _hub_cache(tmp_path / "cache", "Qdrant/all-MiniLM-L6-v2-onnx", model_dir, "model.onnx")
    name = "sentence-transformers/all-MiniLM-L6-v2"
    envs = [
        {"MODEL_NAME": name, "MODEL_PATH": str(model_dir), "BASE_DIR": str(tmp_path)},
        {"MODEL_NAME": name, "CACHE_DIR": str(tmp_path / "cache"), "BASE_DIR": str(tmp_path)},
    ]
    code = (
        "import json, sys\n"
        "sys.modules['fastembed'] = None  # any import of it now fails\n"
        "from minirag_store import load_config\n"
        "from minirag_store.index.embed.embedding import Embedder\n"
        "for env in json.loads(sys.argv[1]):\n"
        "    e = Embedder.from_config(load_config(env))\n"
        "    print(e.embed_query('invoices').shape[0], e.count_tokens('hello world'))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, json.dumps(envs)],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["384", "2", "384", "2"]


def test_finds_a_model_cached_under_an_older_fastembeds_spelling(model_dir, tmp_path):
    """fastembed 0.7 and 0.8 download this model as ``qdrant/…``, 0.9 as ``Qdrant/…``:
    a cache either one filled is found, without downloading again."""
    name = "sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2"
    old = "qdrant/paraphrase-multilingual-MiniLM-L12-v2-onnx-Q"
    _hub_cache(tmp_path / "cache", old, model_dir, "model_optimized.onnx")
    _hub_cache(tmp_path / "cache", "someone/else", model_dir, "model.onnx")
    env = {"MODEL_NAME": name, "CACHE_DIR": str(tmp_path / "cache"), "BASE_DIR": str(tmp_path)}
    embedder = Embedder.from_config(load_config(env))
    assert embedder.embed_query("invoices").shape == (384,)


@pytest.fixture(scope="module")
def custom_model():
    """A model only fastembed knows how to run (registered through its public API):
    the offline files under a new name, mean-pooled and normalised."""
    from fastembed import TextEmbedding
    from fastembed.common.model_description import ModelSource, PoolingType

    name = "minirag-tests/custom-minilm"
    TextEmbedding.add_custom_model(
        name, pooling=PoolingType.MEAN, normalization=True,
        sources=ModelSource(hf="minirag-tests/custom-minilm-onnx"), dim=384,
        model_file="model.onnx",
    )  # fmt: skip
    return name


def test_a_model_we_have_no_session_for_runs_through_fastembed_with_one_warning(
    custom_model, embedder, model_dir, tmp_path, caplog
):
    env = {"MODEL_NAME": custom_model, "MODEL_PATH": str(model_dir), "BASE_DIR": str(tmp_path)}
    with caplog.at_level("WARNING", logger="minirag_store.index.embed.embedding"):
        fallback = Embedder.from_config(load_config(env))
    warned = [r for r in caplog.records if "no ONNX session of its own" in r.getMessage()]
    assert len(warned) == 1 and custom_model in warned[0].getMessage()
    # the same weights and pooling as all-MiniLM-L6-v2 through our session
    assert np.allclose(
        fallback.embed_passages(SHORT_TEXTS), embedder.embed_passages(SHORT_TEXTS), atol=1e-5
    )
    assert np.allclose(fallback.embed_query("stock"), embedder.embed_query("stock"), atol=1e-5)
    assert fallback.count_tokens("word " * 400) == 400
    # texts are cut at the trained length before fastembed sees them (bounded memory)
    long, cut = fallback.embed_passages(["alpha beta " * 300, "alpha beta " * 127])
    assert float(long @ cut) > 0.9999


def test_the_fallback_finds_its_tokenizer_in_the_hub_cache(custom_model, model_dir, tmp_path):
    cache = tmp_path / "cache"
    _hub_cache(cache, "minirag-tests/custom-minilm-onnx", model_dir, "model.onnx")
    env = {"MODEL_NAME": custom_model, "CACHE_DIR": str(cache), "BASE_DIR": str(tmp_path)}
    fallback = Embedder.from_config(load_config(env))
    assert fallback.dim == 384 and fallback.count_tokens("hello world") == 2
