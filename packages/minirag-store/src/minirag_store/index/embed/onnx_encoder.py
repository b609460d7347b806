"""Our own onnxruntime session over an embedding model's files, for the models we know.

Why not fastembed's session: after each inference onnxruntime's worker threads spin-wait
for more work, and a query's search then runs beside a core burning for nothing
(measured at 100k chunks: search CPU 28-31 -> 14 ms with spinning off). fastembed exposes
no public way to set that session option, so for the models listed in
:data:`KNOWN_MODELS` we build the session ourselves over the same files, with the same
tokenizer set-up and pooling fastembed applies to them, and spinning off. A test embeds
with fastembed and with this module for every listed model and compares the vectors.

Any other model goes through fastembed's own session (see
:mod:`minirag_store.index.embed.embedding`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    import numpy as np
    from tokenizers import Tokenizer

__all__ = ["KNOWN_MODELS", "KnownModel", "OnnxEncoder", "load_tokenizer"]

Pooling = Literal["mean", "cls"]


@dataclass(frozen=True)
class KnownModel:
    """Where fastembed gets a model (its Hugging Face repo and ONNX file) and how it pools.

    ``hf_repo`` and ``model_file`` match ``TextEmbedding.list_supported_models()``;
    ``pooling`` is what fastembed applies to the model's token outputs.
    """

    hf_repo: str
    model_file: str
    pooling: Pooling


#: Models embedded through our own session, by lower-cased fastembed model name.
KNOWN_MODELS: dict[str, KnownModel] = {
    "sentence-transformers/paraphrase-multilingual-minilm-l12-v2": KnownModel(
        "Qdrant/paraphrase-multilingual-MiniLM-L12-v2-onnx-Q", "model_optimized.onnx", "mean"
    ),
    "sentence-transformers/paraphrase-multilingual-mpnet-base-v2": KnownModel(
        "Xenova/paraphrase-multilingual-mpnet-base-v2", "onnx/model.onnx", "mean"
    ),
    "sentence-transformers/all-minilm-l6-v2": KnownModel(
        "Qdrant/all-MiniLM-L6-v2-onnx", "model.onnx", "mean"
    ),
    "baai/bge-small-en-v1.5": KnownModel(
        "Qdrant/bge-small-en-v1.5-onnx-Q", "model_optimized.onnx", "cls"
    ),
    "baai/bge-base-en-v1.5": KnownModel(
        "Qdrant/bge-base-en-v1.5-onnx-Q", "model_optimized.onnx", "cls"
    ),
    "baai/bge-large-en-v1.5": KnownModel("Qdrant/bge-large-en-v1.5-onnx", "model.onnx", "cls"),
    "thenlper/gte-base": KnownModel("thenlper/gte-base", "onnx/model.onnx", "mean"),
    "thenlper/gte-large": KnownModel("Qdrant/gte-large-onnx", "model.onnx", "mean"),
}


def _json(path: Path) -> dict[str, Any]:
    """A JSON object file, or {} when the file is absent."""
    if not path.is_file():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    return data if isinstance(data, dict) else {}


def _limit(value: Any) -> int | None:
    """A usable length limit (transformers writes 1e30 or 0 when it knows none)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value < 2**31:
        return None
    return value


def _token_text(token: Any) -> str | None:
    """A special token's text: config files hold it as a string or as an AddedToken dict."""
    if isinstance(token, dict):
        token = token.get("content")
    return token if isinstance(token, str) else None


def load_tokenizer(folder: Path, max_tokens: int) -> Tokenizer:
    """The model's tokenizer, set up for embedding: truncation and batch padding.

    Inputs are truncated at the smallest of the tokenizer config's limits and
    ``max_tokens`` (the model's trained length: sentence-transformers models never saw
    more, and the tail only costs activation memory: 64 texts at 512 tokens peaked at
    2.2 GB RSS). Special tokens named in ``special_tokens_map.json`` are registered, and
    padding goes to the longest text of a batch with the model's pad token, on the side
    ``tokenizer_config.json`` names: the same set-up fastembed gives these files.
    Raises ``OSError``/``ValueError`` for missing or unreadable files.
    """
    from tokenizers import AddedToken, Tokenizer

    settings = _json(folder / "tokenizer_config.json")
    config = _json(folder / "config.json")
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    limits = [settings.get("model_max_length"), settings.get("max_length"), max_tokens]
    truncation = tokenizer.truncation or {}
    tokenizer.enable_truncation(
        max_length=min(n for n in map(_limit, limits) if n is not None),
        direction=settings.get("truncation_side") or truncation.get("direction", "right"),
    )
    for value in _json(folder / "special_tokens_map.json").values():
        for token in value if isinstance(value, list) else [value]:
            if isinstance(token, dict):
                tokenizer.add_special_tokens([AddedToken(**token)])
            elif isinstance(token, str):
                tokenizer.add_special_tokens([token])
    padding = tokenizer.padding or {}
    pad_token = padding.get("pad_token") or _token_text(settings.get("pad_token"))
    if pad_token is None:
        raise ValueError(f"{folder} names no pad token (tokenizer.json, tokenizer_config.json)")
    pad_id = padding.get("pad_id", config.get("pad_token_id"))
    if pad_id is None:
        pad_id = tokenizer.token_to_id(pad_token)
    if pad_id is None:
        raise ValueError(f"the pad token {pad_token!r} is not in {folder / 'tokenizer.json'}")
    tokenizer.enable_padding(
        direction=settings.get("padding_side") or padding.get("direction", "right"),
        pad_id=pad_id,
        pad_type_id=padding.get("pad_type_id", 0),
        pad_token=pad_token,
        pad_to_multiple_of=padding.get("pad_to_multiple_of"),
        length=None,  # the longest text of each batch, never a fixed length
    )
    return tokenizer


#: Texts x tokens x tokens one ONNX run may hold (``passages`` splits a batch past it).
#: A run's activations grow with that product, not with the weights: one run of 8 texts
#: of 256 tokens (all-MiniLM-L6-v2, no arena) peaked at +550-600 MB RSS, 8 of 128 tokens
#: at +125 MB, 1 of 256 at +6 MB; per text 1 x 256 ran no slower than 8 x 256. Batches of
#: 32 long SciFact abstracts peaked +73-128 MB with two 256-token texts a run and +15-35
#: MB with one, the same speed within noise: so one full-length text a run, 4 of 128
#: tokens, 8 of 90.
ATTENTION_CELLS = 256 * 256


class OnnxEncoder:
    """One onnxruntime session plus its tokenizer and pooling: texts in, vectors out."""

    def __init__(self, model_file: Path, tokenizer: Tokenizer, pooling: Pooling) -> None:
        """Open ``model_file`` with worker threads that sleep instead of spin-waiting.

        Raises onnxruntime's errors for an unreadable or invalid file.
        """
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        # Batch ingest is unaffected within noise: its operators run long enough that the
        # threads rarely wait. A query's search is what the spinning slowed down.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.add_session_config_entry("session.inter_op.allow_spinning", "0")
        # No arena and no memory pattern: each run allocates its activations and frees
        # them. The arena kept the largest batch's activations (planned by the pattern)
        # for the session's life, on top of everything else a sync holds: 320 SciFact
        # texts, 16 a run, peaked at 621 MB RSS without the arena and 568 MB without the
        # pattern either, and fell back to ~260-380 MB after; at the same speed.
        options.enable_cpu_mem_arena = False
        options.enable_mem_pattern = False
        available = ort.get_available_providers()
        providers = [p for p in ("CUDAExecutionProvider", "CPUExecutionProvider") if p in available]
        self._session = ort.InferenceSession(
            str(model_file), sess_options=options, providers=providers
        )
        self._inputs = {node.name for node in self._session.get_inputs()}
        self._tokenizer = tokenizer
        self._pooling = pooling

    def passages(self, texts: Sequence[str]) -> np.ndarray:
        """One vector per text (not normalised), in input order: one ONNX run, or several
        when the batch's attention would outgrow :data:`ATTENTION_CELLS`."""
        import numpy as np

        encoded = self._tokenizer.encode_batch(list(texts))
        longest = max((len(e.ids) for e in encoded), default=0)
        if len(encoded) * longest * longest <= ATTENTION_CELLS:
            return self._run(encoded)
        lengths = [sum(e.attention_mask) for e in encoded]
        parts, start = [], 0
        while start < len(texts):
            end, widest = start, 0
            while end < len(texts):
                wider = max(widest, lengths[end])
                if end > start and (end + 1 - start) * wider * wider > ATTENTION_CELLS:
                    break
                end, widest = end + 1, wider
            parts.append(self._run(self._tokenizer.encode_batch(list(texts[start:end]))))
            start = end
        return np.concatenate(parts)

    def _run(self, encoded: Sequence[Any]) -> np.ndarray:
        """One ONNX run over tokenized texts (padded alike), pooled."""
        import numpy as np

        ids = np.array([e.ids for e in encoded], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
        feed = {"input_ids": ids}
        if "attention_mask" in self._inputs:
            feed["attention_mask"] = mask
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        output = self._session.run(None, feed)[0]
        if output.ndim == 2:  # the graph pools itself
            return output
        if self._pooling == "cls":
            return output[:, 0]
        # Mean over real tokens only; the sum in float64, as fastembed sums.
        summed = np.sum(output, axis=1, where=mask[:, :, None].astype(bool), dtype=np.float64)
        counts = np.maximum(mask.sum(axis=1, keepdims=True), 1e-9)
        return (summed / counts).astype(output.dtype)

    def query(self, text: str) -> np.ndarray:
        """The vector of one query (these models embed queries and passages alike)."""
        return self.passages([text])[0]
