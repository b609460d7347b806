"""The embedding model: fastembed ONNX, loaded once, passages and queries kept apart.

Documents go through passage embedding and queries through query embedding, so models
with ``passage:``/``query:`` prefixes (e5 and friends) work. ``MODEL_PATH`` points at a
local folder and loads with no network at all (the air-gapped install, and our tests).
fastembed and onnxruntime are imported here, lazily, never at package import.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from minirag_store.config import Config
from minirag_store.errors import ModelLoadError

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    import numpy as np

__all__ = ["EMBED_BATCH", "Embedder"]

#: Texts per ONNX call. Measured on the 2-core build machine: 32 beat 8, 16, 64 and 256.
EMBED_BATCH = 32


class Embedder:
    """A loaded embedding model plus its own token counter.

    Build with :meth:`from_config`. ``model_id`` is what the index records, so an index
    built by one model refuses another (even one of the same dimension).
    """

    def __init__(
        self, model: Any, model_id: str, dim: int, max_tokens: int, counter: Callable[[str], int]
    ) -> None:
        self._model = model
        self.model_id = model_id
        self.dim = dim
        self.max_tokens = max_tokens
        self._counter = counter

    @classmethod
    def from_config(cls, config: Config) -> Embedder:
        """Load ``config.model_name`` (from ``config.model_path`` when set, else the cache).

        Raises :class:`ModelLoadError` naming the model, ``CACHE_DIR`` and ``MODEL_PATH``.
        """
        model = _load(config)
        counter = _token_counter(model)
        _cap_truncation(model, config.model_max_tokens)
        _stop_spinning(model)
        probe = next(iter(model.query_embed(["dimension probe"])))
        return cls(model, config.model_name, int(probe.shape[-1]), config.model_max_tokens, counter)

    def count_tokens(self, text: str) -> int:
        """Tokens ``text`` costs this model (no special tokens, no truncation, no padding)."""
        return self._counter(text)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors ``[len(texts), dim]`` (float32) for document passages."""
        import numpy as np

        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        # A batch is padded to its longest text: embedding in length order wastes less
        # padding (measured -10 % CPU on SciFact chunks), then rows go back in input order.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        ordered = [texts[i] for i in order]
        vectors = np.stack(list(self._model.passage_embed(ordered, batch_size=EMBED_BATCH)))
        out = np.empty_like(vectors)
        out[order] = vectors
        return _unit(out)

    def embed_query(self, text: str) -> np.ndarray:
        """The unit query vector ``[dim]`` (float32)."""
        vector = next(iter(self._model.query_embed([text])))
        return _unit(vector[None, :])[0]


def _unit(vectors: np.ndarray) -> np.ndarray:
    import numpy as np

    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.maximum(norms, 1e-12)


def _load(config: Config) -> Any:
    try:
        from fastembed import TextEmbedding
    except ImportError as e:  # a broken install, not a config problem
        raise ModelLoadError(f"fastembed is not importable ({e}); reinstall minirag") from e
    kwargs: dict[str, Any] = {"cache_dir": str(config.cache_dir)}
    if config.model_path is not None:
        kwargs["specific_model_path"] = str(config.model_path)
    try:
        return TextEmbedding(config.model_name, **kwargs)
    # fastembed surfaces download, hub, file and ONNX failures as many unrelated types;
    # every one of them means the same thing to the user, so they become one clear error.
    except Exception as e:
        where = (
            f"from MODEL_PATH {config.model_path}"
            if config.model_path is not None
            else f"into CACHE_DIR {config.cache_dir}"
        )
        raise ModelLoadError(
            f"Could not load embedding model {config.model_name!r} {where}: {e}. "
            "Check the network and CACHE_DIR, or for an offline install set MODEL_PATH "
            "to a folder holding the model's files (model.onnx, tokenizer.json, config.json)."
        ) from e


def _stop_spinning(model: Any) -> None:
    """Rebuild the ONNX session with its worker threads sleeping instead of spin-waiting.

    After each inference onnxruntime's intra-op threads spin for a while; on a query that
    burns a core while the search runs (measured at 100k chunks: search CPU 28-31 -> 14 ms,
    p50 / embedding 3.7x -> 2.9x). Batch ingest is unaffected within noise: its operators
    are long enough that threads rarely wait. fastembed does not expose the setting, so the
    session is rebuilt from the same file with fastembed's own options plus this one; if
    fastembed's internals differ from what we expect, we keep its session and warn once.
    """
    import onnxruntime as ort

    inner = model.model
    session = getattr(inner, "model", None)
    description = getattr(inner, "model_description", None)
    model_dir = getattr(inner, "_model_dir", None)
    if getattr(description, "additional_files", None):
        return  # external-data models load through fastembed's links; leave them as built
    if session is None or description is None or model_dir is None:
        log.warning("fastembed internals changed; onnxruntime threads keep spin-waiting")
        return
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.add_session_config_entry("session.inter_op.allow_spinning", "0")
    path = Path(model_dir) / description.model_file
    try:
        inner.model = ort.InferenceSession(
            str(path), sess_options=options, providers=session.get_providers()
        )
    # The rebuild is an optimisation: whatever goes wrong, fastembed's own session still works.
    except Exception as e:
        log.warning("kept fastembed's ONNX session (threads spin-wait): %s", e)


def _cap_truncation(model: Any, max_tokens: int) -> None:
    """Truncate the encoder's input at the model's trained sequence length.

    fastembed truncates at the tokenizer's 512 positions, but sentence-transformers models
    only ever saw ``max_seq_length`` tokens (128/256), so the tail adds nothing but ONNX
    activation memory: 64 long texts at 512 tokens peaked at 2.2 GB RSS (measured).
    Our chunks fit the budget anyway; this bounds memory for the ones that may not
    (atomic code fences up to 4x the budget).
    """
    tokenizer = getattr(model.model, "tokenizer", None)
    truncation = getattr(tokenizer, "truncation", None)
    if tokenizer is None or not truncation or truncation.get("max_length", 0) <= max_tokens:
        return
    tokenizer.enable_truncation(
        max_length=max_tokens,
        stride=truncation.get("stride", 0),
        strategy=truncation.get("strategy", "longest_first"),
        direction=truncation.get("direction", "right"),
    )


def _token_counter(model: Any) -> Callable[[str], int]:
    """The model's own tokenizer, cloned with truncation and padding off."""
    from tokenizers import Tokenizer

    inner = model.model
    if hasattr(inner, "_ensure_tokenizer"):  # a lazily loaded fastembed model
        inner._ensure_tokenizer()
    source = getattr(inner, "tokenizer", None)
    if source is None:
        raise ModelLoadError(f"The embedding model {model.model_name!r} exposes no tokenizer")
    tokenizer = Tokenizer.from_str(source.to_str())
    tokenizer.no_truncation()
    tokenizer.no_padding()

    def count(text: str) -> int:
        return len(tokenizer.encode(text, add_special_tokens=False).ids)

    return count
