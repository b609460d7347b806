"""The embedding model: loaded once, passages and queries kept apart, through public APIs.

Documents go through passage embedding and queries through query embedding, so models
with ``passage:``/``query:`` prefixes work. ``MODEL_PATH`` points at a local folder and
loads with no network at all (the air-gapped install, and our tests).

How a model is loaded:

* A model in :data:`~minirag_store.index.embed.onnx_encoder.KNOWN_MODELS` runs in our own
  onnxruntime session (:class:`~minirag_store.index.embed.onnx_encoder.OnnxEncoder`, threads that do
  not spin-wait) over its folder: ``MODEL_PATH``, or the Hugging Face cache under
  ``CACHE_DIR`` (found with ``huggingface_hub.try_to_load_from_cache``), which fastembed
  fills on first use. fastembed itself is then only imported to download.
* Any other model fastembed supports runs through fastembed's ``TextEmbedding`` (one
  warning says so: its threads spin-wait after each query, costing query CPU).

The token counter is the model folder's ``tokenizer.json`` with truncation and padding
off (:func:`minirag_store.index.embed.counter.budget_counter`). fastembed, onnxruntime and
huggingface_hub are imported here, lazily, never at package import.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from minirag_store.config import Config
from minirag_store.errors import ModelLoadError
from minirag_store.index.embed.onnx_encoder import (
    KNOWN_MODELS,
    KnownModel,
    OnnxEncoder,
    load_tokenizer,
)

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    import numpy as np
    from tokenizers import Tokenizer

__all__ = ["EMBED_BATCH", "Embedder", "Encoder", "tokenizer_counter"]

#: Texts per ONNX call. 32 was a little faster than 16 on the 2-core build machine, but a
#: run's activations grow with its texts (x their tokens squared): embedding 600 SciFact
#: texts of ~110 tokens peaked at 703 MB RSS with 32 per call and 456 MB with 16 (the
#: model alone: 235 MB), at about the same speed under load, when onnxruntime's arena
#: still kept the largest run's activations (it is off now, and long texts run fewer at a
#: time: :data:`~minirag_store.index.embed.onnx_encoder.ATTENTION_CELLS`). The peak depends on
#: this and the model's length limit, never on how many texts a sync embeds.
EMBED_BATCH = 16


class Encoder(Protocol):
    """What :class:`Embedder` runs texts through (vectors need not be normalised)."""

    def passages(self, texts: Sequence[str]) -> np.ndarray:
        """One vector per text, in input order (one batch)."""
        ...

    def query(self, text: str) -> np.ndarray:
        """The vector of one query."""
        ...


class Embedder:
    """A loaded embedding model plus its own token counter.

    Build with :meth:`from_config`. ``model_id`` is what the index records, so an index
    built by one model refuses another (even one of the same dimension).
    """

    def __init__(
        self,
        encoder: Encoder,
        model_id: str,
        dim: int,
        max_tokens: int,
        counter: Callable[[str], int],
    ) -> None:
        self._encoder = encoder
        self.model_id = model_id
        self.dim = dim
        self.max_tokens = max_tokens
        self._counter = counter

    @classmethod
    def from_config(
        cls, config: Config, *, counter: Callable[[str], int] | None = None
    ) -> Embedder:
        """Load ``config.model_name`` (from ``config.model_path`` when set, else the cache).

        ``counter``: this model's token counter when the caller loaded it already
        (:func:`tokenizer_counter`), so the tokenizer is not held twice.
        Raises :class:`ModelLoadError` naming the model, ``CACHE_DIR`` and ``MODEL_PATH``.
        """
        known = KNOWN_MODELS.get(config.model_name.lower())
        if known is None:
            encoder, own = _through_fastembed(config)
        else:
            encoder, own = _own_session(config, known)
        counter = counter or own
        probe = encoder.query("dimension probe")
        return cls(
            encoder, config.model_name, int(probe.shape[-1]), config.model_max_tokens, counter
        )

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
        batches = range(0, len(ordered), EMBED_BATCH)
        vectors = np.concatenate(
            [self._encoder.passages(ordered[i : i + EMBED_BATCH]) for i in batches]
        )
        out = np.empty_like(vectors)
        out[order] = vectors
        return _unit(out)

    def embed_query(self, text: str) -> np.ndarray:
        """The unit query vector ``[dim]`` (float32)."""
        return _unit(self._encoder.query(text)[None, :])[0]


def _unit(vectors: np.ndarray) -> np.ndarray:
    import numpy as np

    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.maximum(norms, 1e-12)


def _load_error(config: Config, problem: object) -> ModelLoadError:
    where = (
        f"from MODEL_PATH {config.model_path}"
        if config.model_path is not None
        else f"into CACHE_DIR {config.cache_dir}"
    )
    return ModelLoadError(
        f"Could not load embedding model {config.model_name!r} {where}: {problem}. "
        "Check the network and CACHE_DIR, or for an offline install set MODEL_PATH "
        "to a folder holding the model's files (model.onnx, tokenizer.json, config.json)."
    )


def _own_session(config: Config, known: KnownModel) -> tuple[Encoder, Callable[[str], int]]:
    """Our onnxruntime session over the model's folder (downloaded first if need be)."""
    folder = config.model_path
    if folder is None:
        folder = _cached_folder(config, known.hf_repo, known.model_file)
    if folder is None:
        _fastembed(config, lazy=True)  # fastembed downloads into the hub cache
        folder = _cached_folder(config, known.hf_repo, known.model_file)
    if folder is None or not (folder / known.model_file).is_file():
        where = folder or f"the cache's copy of {known.hf_repo}"
        raise _load_error(config, f"{where} holds no {known.model_file}")
    try:
        tokenizer = load_tokenizer(folder, config.model_max_tokens)
        encoder = OnnxEncoder(folder / known.model_file, tokenizer, known.pooling)
    # tokenizers and onnxruntime raise bare Exceptions (missing, unreadable or invalid
    # files); each means the same to the user, so each becomes one clear error.
    except Exception as e:
        raise _load_error(config, e) from e
    return encoder, _counter(config, folder)


def _cached_folder(config: Config, repo: str, model_file: str | None) -> Path | None:
    """The folder of ``repo``'s files in the Hugging Face cache under ``CACHE_DIR``
    (where fastembed downloads), or None when it does not hold them (all of them).

    The cache folder keeps the repo's spelling at download time, and fastembed releases
    in our range spell some repos differently (0.7 and 0.8 ``qdrant/all-MiniLM-…``, 0.9
    ``Qdrant/all-MiniLM-…``; the Hub itself ignores case), so a repo cached under
    another case is found too.
    """
    from huggingface_hub import try_to_load_from_cache

    for spelling in [repo, *_other_spellings(config, repo)]:
        found = try_to_load_from_cache(spelling, "tokenizer.json", cache_dir=str(config.cache_dir))
        if not isinstance(found, str):
            continue
        folder = Path(found).parent
        if model_file is None or (folder / model_file).is_file():
            return folder
        # else an interrupted download: fastembed completes it
    return None


def _other_spellings(config: Config, repo: str) -> list[str]:
    """Repos in the cache under ``CACHE_DIR`` whose ids equal ``repo`` but for case."""
    from huggingface_hub import CacheNotFound, scan_cache_dir

    try:
        cached = scan_cache_dir(config.cache_dir).repos
    except (CacheNotFound, OSError):
        return []
    wanted = repo.lower()
    return sorted(
        r.repo_id
        for r in cached
        if r.repo_type == "model" and r.repo_id.lower() == wanted and r.repo_id != repo
    )


def tokenizer_counter(config: Config) -> Callable[[str], int] | None:
    """The model's token counter from its ``tokenizer.json`` alone (no ONNX session),
    when the file is on disk: in ``MODEL_PATH``, or in the cache's copy of a model in
    ``KNOWN_MODELS``; None otherwise (then the model must be loaded, or downloaded)."""
    folder = config.model_path
    known = KNOWN_MODELS.get(config.model_name.lower())
    if folder is None and known is not None:
        folder = _cached_folder(config, known.hf_repo, None)
    if folder is None or not (folder / "tokenizer.json").is_file():
        return None
    return _counter(config, folder)


def _counter(config: Config, folder: Path) -> Callable[[str], int]:
    from minirag_chunker import TokenizerLoadError

    from minirag_store.index.embed.counter import budget_counter

    try:
        return budget_counter(folder / "tokenizer.json")
    except TokenizerLoadError as e:
        raise _load_error(config, e) from e


def _fastembed(config: Config, *, lazy: bool = False, cached: bool = False) -> Any:
    """fastembed's ``TextEmbedding`` for the model (downloading it into the cache);
    ``lazy`` fetches the files without opening an ONNX session; ``cached`` says the
    files are in the cache already, so fastembed must not ask the Hub (before 0.9 it
    did, and failed offline)."""
    try:
        from fastembed import TextEmbedding
    except ImportError as e:  # a broken install, not a config problem
        raise ModelLoadError(f"fastembed is not importable ({e}); reinstall minirag") from e
    kwargs: dict[str, Any] = {"cache_dir": str(config.cache_dir), "lazy_load": lazy}
    if cached:
        kwargs["local_files_only"] = True
    if config.model_path is not None:
        kwargs["specific_model_path"] = str(config.model_path)
    try:
        return TextEmbedding(config.model_name, **kwargs)
    # fastembed surfaces download, hub, file and ONNX failures as many unrelated types;
    # every one of them means the same thing to the user, so they become one clear error.
    except Exception as e:
        raise _load_error(config, e) from e


def _through_fastembed(config: Config) -> tuple[Encoder, Callable[[str], int]]:
    """fastembed's own session for a model we have no session of ours for; warns once."""
    folder = config.model_path or _hub_folder(config)
    model = _fastembed(config, cached=folder is not None)
    folder = folder or _hub_folder(config)  # downloaded just now
    if folder is None:
        raise _load_error(config, "fastembed loaded it, but its tokenizer.json is not in CACHE_DIR")
    try:
        cutter = load_tokenizer(folder, config.model_max_tokens)
    except Exception as e:  # as in _own_session: unreadable tokenizer files
        raise _load_error(config, e) from e
    log.warning(
        "minirag has no ONNX session of its own for %s: embedding through fastembed's, whose "
        "worker threads spin-wait after each query (more CPU per query). Known models: %s",
        config.model_name, ", ".join(sorted(KNOWN_MODELS)),
    )  # fmt: skip
    return _FastembedEncoder(model, cutter), _counter(config, folder)


def _hub_folder(config: Config) -> Path | None:
    """Where fastembed keeps a model it downloaded from the hub (its public model list
    names the repo), or None."""
    from fastembed import TextEmbedding

    name = config.model_name.lower()
    for model in TextEmbedding.list_supported_models():
        repo = (model.get("sources") or {}).get("hf")
        if model.get("model", "").lower() == name and repo:
            return _cached_folder(config, repo, None)
    return None


class _FastembedEncoder:
    """fastembed's ``TextEmbedding``, fed texts cut to the model's trained length.

    fastembed truncates at the tokenizer config's limit (often 512 positions), past the
    128/256 tokens sentence-transformers models were trained on; cutting the text first
    bounds ONNX activation memory as our own session's truncation does.
    """

    def __init__(self, model: Any, tokenizer: Tokenizer) -> None:
        self._model = model
        self._tokenizer = tokenizer

    def _cut(self, text: str) -> str:
        encoding = self._tokenizer.encode(text)
        if not encoding.overflowing:
            return text
        pairs = zip(encoding.offsets, encoding.special_tokens_mask, strict=True)
        return text[: max((end for (_, end), special in pairs if not special), default=0)]

    def passages(self, texts: Sequence[str]) -> np.ndarray:
        """One vector per text, in input order."""
        import numpy as np

        cut = [self._cut(t) for t in texts]
        return np.stack(list(self._model.passage_embed(cut, batch_size=len(cut))))

    def query(self, text: str) -> np.ndarray:
        """The query vector (fastembed's query embedding: prefixes where a model has them)."""
        return next(iter(self._model.query_embed([self._cut(text)])))
