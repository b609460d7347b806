"""Configuration: one frozen object, read once at the edge from env vars and CLI flags.

Only :func:`load_config` reads the environment, and only from the mapping it is given;
everything else in minirag takes a :class:`Config`. Every invalid value is a
:class:`~minirag_store.errors.ConfigError` whose message names the setting, the bad
value and what is accepted, so ``status`` can show it and every other operation can
refuse with it. Each variable is read through its declaration in
:mod:`minirag_store.variables` (default, range, message: written once there).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, TypedDict

from minirag_store import variables as v
from minirag_store.dbpath import URI, object_store_uri, secrets_of, storage_options
from minirag_store.errors import ConfigError
from minirag_store.known import record_file
from minirag_store.roots import MARKER, RECORD, Fallback, Found, locate, resolve_typed
from minirag_store.settings import (
    read_bool,
    read_choice,
    read_float,
    read_int,
    read_optional_choice,
    read_optional_float,
    read_optional_int,
    read_text,
)
from minirag_store.variables import (
    DEFAULT_ANN_MIN_CHUNKS,
    DEFAULT_CHUNK_TOKEN_BUDGET,
    DEFAULT_FUSION,
    DEFAULT_HYBRID_WEIGHT,
    DEFAULT_MAX_FILE_SIZE,
    DEFAULT_MAX_RESPONSE_TOKENS,
    DEFAULT_MODEL_NAME,
    DEFAULT_OCR_MIN_CHARS,
    DEFAULT_SYNC_LEASE_TIMEOUT,
    DEFAULT_WATCH_POLL_SECONDS,
    FUSIONS,
    MIN_MAX_RESPONSE_TOKENS,
    OCR_LANGUAGES,
)

__all__ = [
    "DEFAULT_ANN_MIN_CHUNKS",
    "DEFAULT_MAX_RESPONSE_TOKENS",
    "DEFAULT_MODEL_NAME",
    "FUSIONS",
    "MARKER",
    "MIN_MAX_RESPONSE_TOKENS",
    "OCR_LANGUAGES",
    "RECORD",
    "Config",
    "ConfigFlags",
    "Fallback",
    "Found",
    "load_config",
    "model_max_tokens",
    "object_store_uri",
]

#: Trained sequence lengths of models we know; text past this is never seen by the encoder.
_KNOWN_MAX_TOKENS: dict[str, int] = {
    "sentence-transformers/paraphrase-multilingual-minilm-l12-v2": 128,
    "sentence-transformers/paraphrase-multilingual-mpnet-base-v2": 128,
    "sentence-transformers/all-minilm-l6-v2": 256,
    "baai/bge-small-en-v1.5": 512,
    "baai/bge-base-en-v1.5": 512,
    "intfloat/multilingual-e5-small": 512,
    "intfloat/multilingual-e5-large": 512,
}
#: Ceiling for a model we know nothing about: BERT-family position limit.
_FALLBACK_MAX_TOKENS = 512

Grouping = Literal["similar", "related"]


class ConfigFlags(TypedDict, total=False):
    """What :func:`load_config` takes besides the environment (``Index.open`` passes them)."""

    base_dirs: Sequence[str] | None
    db_path: str | None
    cache_dir: str | None
    model_name: str | None
    model_path: str | None
    cwd: Path | None
    fallback: Fallback


@dataclass(frozen=True)
class Config:
    """Everything minirag needs to know, validated. Built by :func:`load_config`."""

    roots: tuple[Path, ...]
    db_path: Path | None  # the local index folder; None when DB_PATH is an object-store URI
    cache_dir: Path
    model_name: str = DEFAULT_MODEL_NAME
    model_path: Path | None = None
    model_max_tokens: int = 128
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    chunk_token_budget: int = DEFAULT_CHUNK_TOKEN_BUDGET
    hybrid_weight: float = DEFAULT_HYBRID_WEIGHT
    fusion: str = DEFAULT_FUSION
    grouping: Grouping | None = None
    max_distance: float | None = None
    min_score_ratio: float = 0.0  # off: it costs NFCorpus nDCG@10 (bench/cutoff.py)
    max_files: int | None = None
    ocr_lang: str = "eslav"
    ocr_min_chars_per_page: int = DEFAULT_OCR_MIN_CHARS
    instructions_append: str | None = None
    allow_private_urls: bool = False
    max_response_tokens: int = DEFAULT_MAX_RESPONSE_TOKENS
    #: RAG_MAX_RESPONSE_TOKENS was set: the CLI, which has no budget of its own, keeps it.
    max_response_tokens_set: bool = False
    ann_min_chunks: int = DEFAULT_ANN_MIN_CHUNKS
    #: DB_PATH when it is an object-store URI (``s3://bucket/prefix``), else None.
    db_remote: str | None = None
    #: DB_STORAGE_OPTIONS, passed to LanceDB (and the sync lease) as storage options.
    storage_options: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    #: Credential values (env and storage options) masked in every message; never shown.
    secrets: tuple[str, ...] = field(default=(), repr=False)
    sync_lease_timeout: int = DEFAULT_SYNC_LEASE_TIMEOUT
    watch: str = "on"  # RAG_WATCH: "on", "poll" or "off"
    watch_poll_seconds: int = DEFAULT_WATCH_POLL_SECONDS
    #: RAG_RAY_ADDRESS: syncs someone asks for run on this Ray cluster ("local": a Ray
    #: runtime started in this process); None: locally (ingest/distributed.py).
    ray_address: str | None = None
    #: RAG_RAY_GPUS: GPUs each Ray embedding worker reserves (0: CPU only). The model runs
    #: on one only where the workers' onnxruntime has CUDA (onnxruntime-gpu).
    ray_gpus: int = 0
    #: How the roots were found, and the same said for a person (``status`` shows it).
    found_by: Found = "cwd"
    roots_from: str = "the working folder"
    #: Where the index location came from (``--db-path``, ``DB_PATH``, the root, the record).
    index_from: str = "the first root's .minirag/lancedb"
    #: The per-user record of synced indexes (:mod:`minirag_store.known`); None: none kept.
    known_file: Path | None = None
    #: The working folder a caller's relative paths are typed from (the CLI's); None: a
    #: shell whose paths are never relative to a folder (MCP, the web page).
    cwd: Path | None = None

    @property
    def where(self) -> str:
        """The index and the roots it covers, said for a message."""
        roots = ", ".join(str(r) for r in self.roots)
        return f"{self.db_uri} (roots: {roots}; {self.roots_from})"

    @property
    def db_uri(self) -> str:
        """What LanceDB opens: the object-store URI, or the local folder's path."""
        return self.db_remote or str(self.db_path)

    @property
    def ocr_languages(self) -> tuple[str, ...]:
        """The languages RAG_OCR_LANG selects, as short codes (``en``, ``ru`` ...)."""
        return OCR_LANGUAGES[self.ocr_lang]


def model_max_tokens(model_name: str, model_path: Path | None = None) -> int:
    """The model's trained sequence length: the ceiling for CHUNK_TOKEN_BUDGET.

    A local model folder says it in ``sentence_bert_config.json``; otherwise a table of
    known models answers, and an unknown model gets the BERT position limit.
    """
    if model_path is not None:
        cfg = model_path / "sentence_bert_config.json"
        try:
            value = json.loads(cfg.read_text(encoding="utf-8")).get("max_seq_length")
            if isinstance(value, int) and value > 0:
                return value
        except (OSError, ValueError):
            pass  # no or unreadable file: fall back to what we know of the name
    return _KNOWN_MAX_TOKENS.get(model_name.lower(), _FALLBACK_MAX_TOKENS)


def _search_settings(env: Mapping[str, str]) -> dict:
    return {
        "hybrid_weight": read_float(env, v.RAG_HYBRID_WEIGHT),
        "grouping": read_optional_choice(env, v.RAG_GROUPING),
        "fusion": read_choice(env, v.RAG_FUSION),
        "max_distance": read_optional_float(env, v.RAG_MAX_DISTANCE),
        "min_score_ratio": read_float(env, v.RAG_MIN_SCORE_RATIO),
        "max_files": read_optional_int(env, v.RAG_MAX_FILES),
        "ann_min_chunks": read_int(env, v.RAG_ANN_MIN_CHUNKS),
    }


def _db_location(raw: str, roots: tuple[Path, ...], here: Path) -> tuple[Path | None, str | None]:
    """``(local folder, object-store URI)``: exactly one is set."""
    if not raw:
        return roots[0] / ".minirag" / "lancedb", None
    remote = object_store_uri(raw)
    if remote is None:
        match = URI.match(raw)
        return resolve_typed(match.group(2) if match else raw, here), None
    bucket = URI.match(remote).group(2).split("/", 1)[0]  # type: ignore[union-attr]
    if not bucket:
        raise ConfigError(
            f"DB_PATH {remote!r} names no bucket: use scheme://bucket/prefix, "
            "e.g. s3://team-docs/minirag"
        )
    return None, remote


def _default_cache_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_cache_dir("minirag")) / "models"


def load_config(
    env: Mapping[str, str],
    *,
    base_dirs: Sequence[str] | None = None,
    db_path: str | None = None,
    cache_dir: str | None = None,
    model_name: str | None = None,
    model_path: str | None = None,
    cwd: Path | None = None,
    fallback: Fallback = "cwd",
) -> Config:
    """Build and validate the configuration.

    ``env`` is the environment mapping (the caller passes ``os.environ``); the keyword
    arguments are CLI flags and win over their env vars. Roots resolve as explicit
    ``base_dirs`` > ``BASE_DIRS`` > ``BASE_DIR`` > the nearest folder at or above the
    working folder holding ``.minirag/`` > ``fallback`` (:data:`Fallback`: the record of
    synced indexes, :mod:`minirag_store.known`, or the working folder), each level
    replacing the lower. ``cwd``: the folder a CLI's relative paths are typed from (None:
    the process's, for discovery only).
    Raises :class:`ConfigError` naming the first bad setting.
    """
    here = (cwd or Path.cwd()).resolve()
    known_file = record_file()
    raw_db = str(db_path or read_text(env, v.DB_PATH) or "").strip()
    index_from = "--db-path" if db_path else "DB_PATH" if raw_db else None
    given = None
    if raw_db:  # where the index is does not depend on the roots once it is given
        local, remote = _db_location(raw_db, (here,), here)
        given = remote or str(local)
    located = locate(env, base_dirs, here, fallback=fallback, known_file=known_file, index=given)
    roots = located.roots
    if not raw_db and located.known_index is not None:
        raw_db, index_from = located.known_index, RECORD
    db, db_remote = _db_location(raw_db, roots, here)
    options = storage_options(env)
    raw_cache = cache_dir or read_text(env, v.CACHE_DIR)
    cache = resolve_typed(raw_cache, here) if raw_cache else _default_cache_dir()
    name = model_name or read_text(env, v.MODEL_NAME) or DEFAULT_MODEL_NAME
    raw_model_path = model_path or read_text(env, v.MODEL_PATH)
    local_model: Path | None = None
    if raw_model_path:
        local_model = resolve_typed(raw_model_path, here)
        if not local_model.is_dir():
            raise ConfigError(
                f"MODEL_PATH {local_model} is not a folder; point it at a folder holding the "
                "model's files (model.onnx, tokenizer.json, config.json ...)"
            )
    ceiling = model_max_tokens(name, local_model)
    budget = read_int(env, v.CHUNK_TOKEN_BUDGET, maximum=ceiling)
    ocr_lang = read_choice(env, v.RAG_OCR_LANG)
    return Config(
        roots=roots,
        db_path=db,
        cache_dir=cache,
        model_name=name,
        model_path=local_model,
        model_max_tokens=ceiling,
        max_file_size=read_int(env, v.MAX_FILE_SIZE),
        chunk_token_budget=budget,
        ocr_lang=ocr_lang,
        ocr_min_chars_per_page=read_int(env, v.RAG_OCR_MIN_CHARS_PER_PAGE),
        instructions_append=read_text(env, v.RAG_INSTRUCTIONS_APPEND),
        allow_private_urls=read_bool(env, v.ALLOW_PRIVATE_URLS),
        max_response_tokens=read_int(env, v.RAG_MAX_RESPONSE_TOKENS),
        max_response_tokens_set=v.RAG_MAX_RESPONSE_TOKENS.given(env),
        db_remote=db_remote,
        storage_options=options,
        secrets=secrets_of(env, options),
        sync_lease_timeout=read_int(env, v.RAG_SYNC_LEASE_TIMEOUT),
        watch=read_choice(env, v.RAG_WATCH),
        watch_poll_seconds=read_int(env, v.RAG_WATCH_POLL_SECONDS),
        ray_address=read_text(env, v.RAG_RAY_ADDRESS),
        ray_gpus=read_int(env, v.RAG_RAY_GPUS),
        found_by=located.found_by,
        roots_from=located.roots_from,
        index_from=index_from or f"the root's {MARKER}/lancedb",
        known_file=known_file,
        cwd=cwd.resolve() if cwd is not None else None,
        **_search_settings(env),
    )
