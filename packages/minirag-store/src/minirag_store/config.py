"""Configuration: one frozen object, read once at the edge from env vars and CLI flags.

Only :func:`load_config` reads the environment, and only from the mapping it is given;
everything else in minirag takes a :class:`Config`. Every invalid value is a
:class:`~minirag_store.errors.ConfigError` whose message names the setting, the bad
value and what is accepted, so ``status`` can show it and every other operation can
refuse with it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from minirag_store.errors import ConfigError
from minirag_store.location import URI, object_store_uri, secrets_of, storage_options

__all__ = [
    "DEFAULT_ANN_MIN_CHUNKS",
    "DEFAULT_MAX_RESPONSE_TOKENS",
    "DEFAULT_MODEL_NAME",
    "OCR_LANGUAGES",
    "Config",
    "load_config",
    "model_max_tokens",
    "object_store_uri",
]

DEFAULT_MODEL_NAME = "sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2"
DEFAULT_MAX_FILE_SIZE = 100 * 1024 * 1024
DEFAULT_CHUNK_TOKEN_BUDGET = 110
MIN_CHUNK_TOKEN_BUDGET = 16
DEFAULT_HYBRID_WEIGHT = 0.6
#: How the two rankings are fused (RAG_FUSION): a weighted mixture of each side's softmax
#: over the candidates (the default), weighted RRF (the reference behaviour) or weighted
#: z-scores of cosine and BM25 (see fusion.py for what each measured).
FUSIONS = ("mixture", "rrf", "score")
DEFAULT_FUSION = "mixture"
DEFAULT_OCR_MIN_CHARS = 25
#: RAG_MAX_RESPONSE_TOKENS: the most a query_documents or read_file answer may cost, in the
#: embedding model's tokens over the JSON the MCP tool returns (see budget.py). Claude Code
#: warns past 10,000 tokens of tool output and cuts at 25,000; this count is the embedding
#: model's, not the client's, and tokenizers disagree by tens of percent, so the default
#: leaves that much headroom under the warning. A default query (8 hits, each in its own
#: ~900-character section) measured ~3,800 with the test model and is not trimmed; eight
#: sections at the chunker's 4,000-character cap (~8,000) are.
DEFAULT_MAX_RESPONSE_TOKENS = 6000
#: Below this an answer could not hold one hit's fields, a cut passage and the notice.
MIN_MAX_RESPONSE_TOKENS = 1000
#: RAG_ANN_MIN_CHUNKS: from this many chunks on, vector search goes through LanceDB's IVF
#: index instead of the exact in-memory snapshot (index/search/ann.py; bench/scale.py measures
#: both paths). The exact path holds ~2 KB of memory per chunk and scans every vector.
DEFAULT_ANN_MIN_CHUNKS = 200_000
#: Below this an IVF index has too few rows per partition to be worth training.
MIN_ANN_MIN_CHUNKS = 256
#: RAG_WATCH: how a running server follows the files (see ingest/watch.py): ``on`` =
#: OS notifications, falling back to polling where they cannot be trusted; ``poll`` =
#: always poll; ``off`` = only explicit syncs. On by default: see the README.
WATCH_SETTINGS = ("on", "poll", "off")
_WATCH_ALIASES = {"1": "on", "true": "on", "yes": "on", "auto": "on", "0": "off",
                  "false": "off", "no": "off"}  # fmt: skip
#: RAG_WATCH_POLL_SECONDS: the pause between two polls. A poll of an unchanged corpus is
#: a no-op sync (one scan: 0.18 s for 10,000 files, README), under 1 % of a core at 30 s.
DEFAULT_WATCH_POLL_SECONDS = 30

#: RAG_SYNC_LEASE_TIMEOUT: seconds without a heartbeat after which the sync lease of an index
#: on object storage is taken over (why 120: see minirag_store.ingest.lease).
DEFAULT_SYNC_LEASE_TIMEOUT = 120
MIN_SYNC_LEASE_TIMEOUT = 2
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

#: RAG_OCR_LANG values: each names the scripts a scan may be written in.
#: ``eslav`` (default) = Russian, Ukrainian, Belarusian plus English, since office scans mix them.
OCR_LANGUAGES: dict[str, tuple[str, ...]] = {
    "eslav": ("en", "ru", "uk", "be"),
    "en": ("en",),
    "latin": ("en",),
    "ru": ("en", "ru"),
    "uk": ("en", "uk"),
    "be": ("en", "be"),
    "ch": ("en", "ch"),
}

Grouping = Literal["similar", "related"]
_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off", ""})


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


def _resolve(raw: str, cwd: Path) -> Path:
    path = Path(raw).expanduser()
    if not path.is_absolute():
        path = cwd / path
    return path.resolve()


def _roots(env: Mapping[str, str], base_dirs: Sequence[str] | None, cwd: Path) -> tuple[Path, ...]:
    if base_dirs:
        raws = list(base_dirs)
        origin = "--base-dir"
    elif env.get("BASE_DIRS", "").strip():
        origin = "BASE_DIRS"
        try:
            value = json.loads(env["BASE_DIRS"])
        except ValueError as e:
            raise ConfigError(
                f"BASE_DIRS must be a JSON array of one or more non-empty path strings, "
                f'e.g. \'["/docs/a", "/docs/b"]\': {e}'
            ) from e
        if (
            not isinstance(value, list)
            or not value
            or not all(isinstance(v, str) and v.strip() for v in value)
        ):
            raise ConfigError(
                "BASE_DIRS must be a JSON array of one or more non-empty path strings, "
                f'e.g. \'["/docs/a", "/docs/b"]\'; got {env["BASE_DIRS"]!r}'
            )
        raws = value
    elif env.get("BASE_DIR", "").strip():
        raws, origin = [env["BASE_DIR"]], "BASE_DIR"
    else:
        raws, origin = [str(cwd)], "the current directory"
    roots: list[Path] = []
    for raw in raws:
        path = _resolve(raw, cwd)
        if not path.is_dir():
            what = "does not exist" if not path.exists() else "is not a directory"
            raise ConfigError(f"Document root {path} (from {origin}) {what}")
        if path not in roots:
            roots.append(path)
    return tuple(roots)


def _int(env: Mapping[str, str], key: str, default: int | None, lo: int, hi: int | None = None):
    raw = env.get(key, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError as e:
        raise ConfigError(f"{key} must be a whole number, got {raw!r}") from e
    if value < lo or (hi is not None and value > hi):
        bound = f"between {lo} and {hi}" if hi is not None else f"at least {lo}"
        raise ConfigError(f"{key} must be {bound}, got {value}")
    return value


def _float(env: Mapping[str, str], key: str) -> float | None:
    raw = env.get(key, "").strip()
    if not raw:
        return None
    try:
        value = float(raw)
    except ValueError as e:
        raise ConfigError(f"{key} must be a number, got {raw!r}") from e
    if not math.isfinite(value):
        raise ConfigError(f"{key} must be a finite number, got {raw!r}")
    return value


def _bool(env: Mapping[str, str], key: str) -> bool:
    raw = env.get(key, "").strip().lower()
    if raw in _TRUE:
        return True
    if raw in _FALSE:
        return False
    raise ConfigError(f"{key} must be one of 1/true/yes/on or 0/false/no/off, got {env[key]!r}")


def _watch(env: Mapping[str, str]) -> str:
    raw = env.get("RAG_WATCH", "").strip().lower() or "on"
    value = _WATCH_ALIASES.get(raw, raw)
    if value not in WATCH_SETTINGS:
        raise ConfigError(
            "RAG_WATCH must be on (follow the files through OS notifications, polling where "
            "they cannot be used), poll (always poll) or off (only explicit syncs); got "
            f"{env['RAG_WATCH']!r}"
        )
    return value


def _search_settings(env: Mapping[str, str]) -> dict:
    weight = _float(env, "RAG_HYBRID_WEIGHT")
    if weight is None:
        weight = DEFAULT_HYBRID_WEIGHT
    if not 0.0 <= weight <= 1.0:
        raise ConfigError(f"RAG_HYBRID_WEIGHT must be between 0.0 and 1.0, got {weight}")
    grouping = env.get("RAG_GROUPING", "").strip().lower() or None
    if grouping not in (None, "similar", "related"):
        raise ConfigError(
            f"RAG_GROUPING must be 'similar' or 'related' (or unset), got {env['RAG_GROUPING']!r}"
        )
    fusion = env.get("RAG_FUSION", "").strip().lower() or DEFAULT_FUSION
    if fusion not in FUSIONS:
        raise ConfigError(
            f"RAG_FUSION must be one of {', '.join(FUSIONS)} (default {DEFAULT_FUSION}), "
            f"got {env['RAG_FUSION']!r}"
        )
    max_distance = _float(env, "RAG_MAX_DISTANCE")
    if max_distance is not None and max_distance < 0:
        raise ConfigError(f"RAG_MAX_DISTANCE must be 0 or more, got {max_distance}")
    ratio = _float(env, "RAG_MIN_SCORE_RATIO") or 0.0
    if not 0.0 <= ratio < 1.0:
        raise ConfigError(f"RAG_MIN_SCORE_RATIO must be at least 0.0 and below 1.0, got {ratio}")
    return {
        "hybrid_weight": weight,
        "fusion": fusion,
        "grouping": grouping,
        "max_distance": max_distance,
        "min_score_ratio": ratio,
        "max_files": _int(env, "RAG_MAX_FILES", None, 1),
        "ann_min_chunks": _int(
            env, "RAG_ANN_MIN_CHUNKS", DEFAULT_ANN_MIN_CHUNKS, MIN_ANN_MIN_CHUNKS
        ),
    }


def _db_location(raw: str, roots: tuple[Path, ...], here: Path) -> tuple[Path | None, str | None]:
    """``(local folder, object-store URI)``: exactly one is set."""
    if not raw:
        return roots[0] / ".minirag" / "lancedb", None
    remote = object_store_uri(raw)
    if remote is None:
        match = URI.match(raw)
        return _resolve(match.group(2) if match else raw, here), None
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
) -> Config:
    """Build and validate the configuration.

    ``env`` is the environment mapping (the caller passes ``os.environ``); the keyword
    arguments are CLI flags and win over their env vars. Roots resolve as explicit
    ``base_dirs`` > ``BASE_DIRS`` > ``BASE_DIR`` > ``cwd``, each level replacing the lower.
    Raises :class:`ConfigError` naming the first bad setting.
    """
    here = (cwd or Path.cwd()).resolve()
    roots = _roots(env, base_dirs, here)
    db, db_remote = _db_location(str(db_path or env.get("DB_PATH", "")).strip(), roots, here)
    options = storage_options(env)
    raw_cache = cache_dir or env.get("CACHE_DIR", "").strip()
    cache = _resolve(raw_cache, here) if raw_cache else _default_cache_dir()
    name = (model_name or env.get("MODEL_NAME", "").strip()) or DEFAULT_MODEL_NAME
    raw_model_path = model_path or env.get("MODEL_PATH", "").strip()
    local_model: Path | None = None
    if raw_model_path:
        local_model = _resolve(raw_model_path, here)
        if not local_model.is_dir():
            raise ConfigError(
                f"MODEL_PATH {local_model} is not a folder; point it at a folder holding the "
                "model's files (model.onnx, tokenizer.json, config.json ...)"
            )
    ceiling = model_max_tokens(name, local_model)
    budget = _int(
        env, "CHUNK_TOKEN_BUDGET", DEFAULT_CHUNK_TOKEN_BUDGET, MIN_CHUNK_TOKEN_BUDGET, ceiling
    )
    ocr_lang = env.get("RAG_OCR_LANG", "").strip().lower() or "eslav"
    if ocr_lang not in OCR_LANGUAGES:
        raise ConfigError(
            f"RAG_OCR_LANG must be one of {', '.join(OCR_LANGUAGES)}; got {env['RAG_OCR_LANG']!r}"
        )
    append = env.get("RAG_INSTRUCTIONS_APPEND", "").strip() or None
    return Config(
        roots=roots,
        db_path=db,
        cache_dir=cache,
        model_name=name,
        model_path=local_model,
        model_max_tokens=ceiling,
        max_file_size=_int(env, "MAX_FILE_SIZE", DEFAULT_MAX_FILE_SIZE, 1),
        chunk_token_budget=budget,
        ocr_lang=ocr_lang,
        ocr_min_chars_per_page=_int(env, "RAG_OCR_MIN_CHARS_PER_PAGE", DEFAULT_OCR_MIN_CHARS, 0),
        instructions_append=append,
        allow_private_urls=_bool(env, "ALLOW_PRIVATE_URLS"),
        max_response_tokens=_int(
            env, "RAG_MAX_RESPONSE_TOKENS", DEFAULT_MAX_RESPONSE_TOKENS, MIN_MAX_RESPONSE_TOKENS
        ),
        max_response_tokens_set=bool(env.get("RAG_MAX_RESPONSE_TOKENS", "").strip()),
        db_remote=db_remote,
        storage_options=options,
        secrets=secrets_of(env, options),
        sync_lease_timeout=_int(
            env, "RAG_SYNC_LEASE_TIMEOUT", DEFAULT_SYNC_LEASE_TIMEOUT, MIN_SYNC_LEASE_TIMEOUT
        ),
        watch=_watch(env),
        watch_poll_seconds=_int(
            env, "RAG_WATCH_POLL_SECONDS", DEFAULT_WATCH_POLL_SECONDS, 1, 24 * 3600
        ),
        ray_address=env.get("RAG_RAY_ADDRESS", "").strip() or None,
        ray_gpus=_int(env, "RAG_RAY_GPUS", 0, 0, 16),
        **_search_settings(env),
    )
