"""Every environment variable the store reads, declared once (:class:`Setting` records).

:func:`minirag_store.config.load_config` (and :mod:`minirag_store.dbpath`) read each
value through its record, so the default, the range and the message for a bad value are
the record's; README's configuration table is printed from :data:`SETTINGS` (with the MCP
shell's ``RAG_HTTP_*``, declared in ``minirag_mcp.variables``) by ``bench/readme.py``, and
``tests/test_readme_figures.py`` fails when they differ. The names are the ones users
have always set (the reference's); none is renamed.
"""

from __future__ import annotations

from minirag_store.settings import Setting

__all__ = ["OCR_LANGUAGES", "SETTINGS"]

DEFAULT_MODEL_NAME = "sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2"
DEFAULT_MAX_FILE_SIZE = 100 * 1024 * 1024
DEFAULT_CHUNK_TOKEN_BUDGET = 110
MIN_CHUNK_TOKEN_BUDGET = 16
DEFAULT_HYBRID_WEIGHT = 0.6
#: How the two rankings are fused: a weighted mixture of each side's softmax over the
#: candidates (the default), weighted RRF (the reference behaviour) or weighted z-scores
#: of cosine and BM25 (see fusion.py for what each measured).
FUSIONS = ("mixture", "rrf", "score")
DEFAULT_FUSION = "mixture"
DEFAULT_OCR_MIN_CHARS = 25
#: The most a query_documents or read_file answer may cost, in the embedding model's
#: tokens over the JSON the MCP tool returns (see budget.py). Claude Code warns past 10,000
#: tokens of tool output and cuts at 25,000; this count is the embedding model's, not the
#: client's, and tokenizers disagree by tens of percent, so the default leaves that much
#: headroom under the warning. A default query (8 hits, each in its own ~900-character
#: section) measured ~3,800 with the test model and is not trimmed; eight sections at the
#: chunker's 4,000-character cap (~8,000) are.
DEFAULT_MAX_RESPONSE_TOKENS = 6000
#: Below this an answer could not hold one hit's fields, a cut passage and the notice.
MIN_MAX_RESPONSE_TOKENS = 1000
#: From this many chunks on, vector search goes through LanceDB's IVF index instead of the
#: exact in-memory snapshot (index/search/ann.py; bench/scale.py measures both paths). The exact
#: path holds ~2 KB of memory per chunk and scans every vector.
DEFAULT_ANN_MIN_CHUNKS = 200_000
#: Below this an IVF index has too few rows per partition to be worth training.
MIN_ANN_MIN_CHUNKS = 256
#: How a running server follows the files (see ingest/watch.py). On by default: see README.
WATCH_SETTINGS = ("on", "poll", "off")
_WATCH_ALIASES = (("1", "on"), ("true", "on"), ("yes", "on"), ("auto", "on"), ("0", "off"),
                  ("false", "off"), ("no", "off"))  # fmt: skip
#: The pause between two polls. A poll of an unchanged corpus is a no-op sync (one scan:
#: 0.18 s for 10,000 files, README), under 1 % of a core at 30 s.
DEFAULT_WATCH_POLL_SECONDS = 30
#: Seconds without a heartbeat after which the sync lease of an index on object storage is
#: taken over (why 120: see minirag_store.ingest.lease).
DEFAULT_SYNC_LEASE_TIMEOUT = 120
MIN_SYNC_LEASE_TIMEOUT = 2
#: RAG_OCR_LANG values: each names the scripts a scan may be written in. ``eslav``
#: (default) = Russian, Ukrainian, Belarusian plus English, since office scans mix them.
OCR_LANGUAGES: dict[str, tuple[str, ...]] = {
    "eslav": ("en", "ru", "uk", "be"),
    "en": ("en",),
    "latin": ("en",),
    "ru": ("en", "ru"),
    "uk": ("en", "uk"),
    "be": ("en", "be"),
    "ch": ("en", "ch"),
}
#: LANCE_LOG and LANCEDB_LOG (read by Lance and LanceDB; index/storage/native.py sets the default).
_ENGINE_LOGS = (
    "The level of Lance's and LanceDB's own log lines on stderr (`env_logger` filters, e.g. "
    "`warn` or `debug` when reporting an engine problem). Their warnings speak to the "
    "engine's developers (k-means empty clusters on a small table's vector index, notices "
    "of future defaults), so minirag shows errors only unless these are set."
)

BASE_DIR = Setting(
    "BASE_DIR",
    "text",
    "One document root; also the security boundary for file access.",
    shown="current directory",
)
BASE_DIRS = Setting(
    "BASE_DIRS",
    "text",
    ('JSON array of roots, e.g. `["/docs/a", "/docs/b"]`; wins over `BASE_DIR`.'),
    must=(
        "must be a JSON array of one or more non-empty path strings, "
        'e.g. \'["/docs/a", "/docs/b"]\''
    ),
)
DB_PATH = Setting(
    "DB_PATH",
    "text",
    (
        "The index directory, or an object-store URI LanceDB opens: `s3://bucket/prefix` "
        "(tested), `gs://…`, `az://…` (LanceDB's own support; not tested here). See [For a "
        "team](#for-a-team)."
    ),
    shown="`<first root>/.minirag/lancedb`",
)
DB_STORAGE_OPTIONS = Setting(
    "DB_STORAGE_OPTIONS",
    "text",
    (
        "JSON object passed to LanceDB (and the sync lease) as storage options, e.g. "
        '`{"aws_region": "eu-west-1", "aws_endpoint": "https://minio.internal:9000"}`; numbers '
        "and booleans become strings. Credentials otherwise come from the standard variables "
        "(`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, `AWS_REGION`, "
        "`AWS_ENDPOINT_URL`, `AWS_ALLOW_HTTP` …; LanceDB also reads `AWS_PROFILE`, the sync "
        "lease does not). Neither its text nor any credential ever appears in an error, a log "
        "line or `status`."
    ),
    must=(
        "must be a JSON object of storage option names to string values, "
        'e.g. \'{"aws_region": "eu-west-1", "allow_http": "true"}\''
    ),
)
RAG_SYNC_LEASE_TIMEOUT = Setting(
    "RAG_SYNC_LEASE_TIMEOUT",
    "int",
    (
        "Seconds (at least 2) after which the sync lease of an index on object storage whose "
        "holder stopped heartbeating is taken over."
    ),
    default=DEFAULT_SYNC_LEASE_TIMEOUT,
    minimum=MIN_SYNC_LEASE_TIMEOUT,
)
CACHE_DIR = Setting(
    "CACHE_DIR",
    "text",
    "Where downloaded models are cached (a Hugging Face hub cache; fastembed downloads into it).",
    shown="the user cache dir + `minirag/models`",
)
MODEL_NAME = Setting(
    "MODEL_NAME",
    "text",
    (
        "fastembed model id. An index remembers its model; opening it with another is an error "
        "(use a new `DB_PATH` or re-index). The paraphrase-multilingual MiniLM/mpnet, "
        "all-MiniLM-L6-v2, bge-small/base/large-en-v1.5 and gte-base/large run in minirag's own "
        "ONNX session; any other fastembed model runs through fastembed's, with a warning (more "
        "CPU per query)."
    ),
    default=DEFAULT_MODEL_NAME,
)
MODEL_PATH = Setting(
    "MODEL_PATH",
    "text",
    (
        "A local folder with the model's files (`model.onnx`, `tokenizer.json`, `config.json` "
        "…): loaded with no download at all — the air-gapped install."
    ),
)
MAX_FILE_SIZE = Setting(
    "MAX_FILE_SIZE",
    "int",
    (
        "Per-file byte limit, checked before parsing (also caps `ingest_url` bodies, and what a "
        "`.docx` may unpack to, embedded parts included)."
    ),
    default=DEFAULT_MAX_FILE_SIZE,
    minimum=1,
)
CHUNK_TOKEN_BUDGET = Setting(
    "CHUNK_TOKEN_BUDGET",
    "int",
    (
        "Retrieval-unit size in the model's own tokens, counted on the readable text (a link's "
        "target costs nothing); 16 … the model's trained sequence length (128 for the default "
        "model)."
    ),
    default=DEFAULT_CHUNK_TOKEN_BUDGET,
    minimum=MIN_CHUNK_TOKEN_BUDGET,
)
RAG_HYBRID_WEIGHT = Setting(
    "RAG_HYBRID_WEIGHT",
    "float",
    "Keyword weight in the fusion, 0.0–1.0 (0 = vector only, 1 = keyword order).",
    default=DEFAULT_HYBRID_WEIGHT,
    minimum=0.0,
    maximum=1.0,
)
RAG_FUSION = Setting(
    "RAG_FUSION",
    "choice",
    (
        "How the vector and keyword candidates are fused. `mixture` (default): `(1 − "
        "w)·softmax(z_vector/2.5) + w·softmax(z_keyword/2.0)` over the candidates, so a side "
        "whose scores do not stand out (a model that does not know the query's language) carries "
        "little weight while a clear keyword match keeps its lead. `rrf`: weighted reciprocal "
        "rank fusion, `(1 − w)/(60 + vector_rank + 1) + w/(60 + keyword_rank + 1)` (the "
        "reference behaviour). `score`: a weighted sum of z-scored cosine and BM25 scores. "
        "`bench/fusion.py` measures all three on SciFact and XQuAD RU."
    ),
    default=DEFAULT_FUSION,
    choices=FUSIONS,
)
RAG_GROUPING = Setting(
    "RAG_GROUPING",
    "choice",
    "`similar` or `related`: cut results at a natural distance gap.",
    choices=("similar", "related"),
)
RAG_MIN_SCORE_RATIO = Setting(
    "RAG_MIN_SCORE_RATIO",
    "float",
    (
        "Drop hits whose fused score is below this fraction (0 … <1) of the top hit's: behind an "
        "exact match of a rare word or identifier, the rest of topK is then left out instead of "
        "filled with unrelated chunks. Off by default because it costs ranking where many "
        "documents are relevant: see [Leaving out the filler](#leaving-out-the-filler)."
    ),
    default=0.0,
    minimum=0.0,
    maximum=1.0,
    below=True,
    shown="`0` (off)",
)
RAG_MAX_DISTANCE = Setting(
    "RAG_MAX_DISTANCE",
    "float",
    "Drop hits farther than this (and hits without a distance).",
    minimum=0.0,
)
RAG_MAX_FILES = Setting(
    "RAG_MAX_FILES",
    "int",
    "Keep hits from the first N distinct sources only.",
    minimum=1,
)
RAG_OCR_LANG = Setting(
    "RAG_OCR_LANG",
    "choice",
    "OCR languages: `eslav` (ru, uk, be + en), `en`, `latin`, `ru`, `uk`, `be`, `ch`.",
    default="eslav",
    choices=tuple(OCR_LANGUAGES),
)
RAG_OCR_MIN_CHARS_PER_PAGE = Setting(
    "RAG_OCR_MIN_CHARS_PER_PAGE",
    "int",
    "A PDF page with a shorter text layer is OCRed (0 disables).",
    default=DEFAULT_OCR_MIN_CHARS,
    minimum=0,
)
RAG_MAX_RESPONSE_TOKENS = Setting(
    "RAG_MAX_RESPONSE_TOKENS",
    "int",
    (
        "The most a `query_documents` or `read_file` answer may cost (at least 1000), counted "
        "with the embedding model's tokenizer on the JSON the MCP tool returns. MCP clients cap "
        "tool output (Claude Code warns past 10,000 tokens and cuts at 25,000); our count is the "
        "embedding model's, not the client's, and tokenizers differ by tens of percent, so the "
        "default leaves that much room under the warning. An ordinary query (8 hits with "
        "~900-character sections: ~3,800) is not trimmed. Over it, a query drops parent sections "
        "(lowest-ranked hits' first), then the lowest-ranked hits (never the top one), then cuts "
        "the top hit's text; `trimmed` counts what went, `trimmed.nextOffset` is the `offset` "
        "that returns the hits left out, and `notice` says so in a line. The CLI applies it only "
        "when asked (`--max-tokens`, or this variable set): `query` prints every hit and `read` "
        "the whole document, through the pager. An answer names each document and section once "
        "(hits point at them by index: see the MCP README), and sends no section beside a hit "
        "that is all of it. `read_file` returns the "
        "first chunks that fit and `nextChunk`: `read_file` with `fromChunk=nextChunk` (CLI: "
        "`read --from-chunk N`) reads on."
    ),
    default=DEFAULT_MAX_RESPONSE_TOKENS,
    minimum=MIN_MAX_RESPONSE_TOKENS,
)
RAG_ANN_MIN_CHUNKS = Setting(
    "RAG_ANN_MIN_CHUNKS",
    "int",
    (
        "From this many chunks on (at least 256), vector search goes through an IVF_RQ index "
        "that LanceDB keeps on disk (built and retrained by the sync's maintenance; chunks added "
        "since are searched too) instead of an exact search over an in-memory copy of every "
        "vector (~2 KB of memory per chunk). Answers are the same on both paths up to the "
        "index's recall; `bench/scale.py` measures both."
    ),
    default=DEFAULT_ANN_MIN_CHUNKS,
    minimum=MIN_ANN_MIN_CHUNKS,
)
RAG_WATCH = Setting(
    "RAG_WATCH",
    "choice",
    (
        "How a running MCP server follows the files (see [The index follows the "
        "files](#the-index-follows-the-files)): `on` (OS notifications, polling where they "
        "cannot be trusted; also `1/true/yes/auto`), `poll` (always poll), `off` (only explicit "
        "syncs; also `0/false/no`)."
    ),
    default="on",
    choices=WATCH_SETTINGS,
    aliases=_WATCH_ALIASES,
    must=(
        "must be on (follow the files through OS notifications, polling where they cannot "
        "be used), poll (always poll) or off (only explicit syncs)"
    ),
)
RAG_WATCH_POLL_SECONDS = Setting(
    "RAG_WATCH_POLL_SECONDS",
    "int",
    (
        "Seconds between two polls (1 … 86400). A poll of an unchanged folder is a no-op sync "
        "(~0.2 s per 10,000 files)."
    ),
    default=DEFAULT_WATCH_POLL_SECONDS,
    minimum=1,
    maximum=24 * 3600,
)
RAG_RAY_ADDRESS = Setting(
    "RAG_RAY_ADDRESS",
    "text",
    (
        "Run the syncs someone asks for (`minirag-cli sync`, `sync_start`) on this Ray cluster "
        "(`host:port`, `ray://host:port`, `auto`; `local`: a Ray runtime started in the "
        "process). Needs the `ray` extra. See [Ingest on a Ray "
        "cluster](#ingest-on-a-ray-cluster)."
    ),
)
RAG_RAY_GPUS = Setting(
    "RAG_RAY_GPUS",
    "int",
    (
        "GPUs each Ray embedding worker reserves (one actor per that many GPUs); the model runs "
        "on them where the workers' onnxruntime has CUDA (`onnxruntime-gpu`). A cluster with "
        "fewer GPUs is refused at the start of the sync."
    ),
    default=0,
    minimum=0,
    maximum=16,
)
RAG_INSTRUCTIONS_APPEND = Setting(
    "RAG_INSTRUCTIONS_APPEND",
    "text",
    "A paragraph appended to the MCP server's instructions (total capped at 2,048 chars).",
)
LANCE_LOG = Setting(
    "LANCE_LOG",
    "engine",
    _ENGINE_LOGS,
    default="error",
)
LANCEDB_LOG = Setting(
    "LANCEDB_LOG",
    "engine",
    _ENGINE_LOGS,
    default="error",
)
ALLOW_PRIVATE_URLS = Setting(
    "ALLOW_PRIVATE_URLS",
    "bool",
    "Let `ingest_url` fetch private/local hosts (`1/true/yes/on`, `0/false/no/off`).",
    default=False,
    shown="off",
)

#: Every variable, in the order README lists them.
SETTINGS: tuple[Setting, ...] = (
    BASE_DIR,
    BASE_DIRS,
    DB_PATH,
    DB_STORAGE_OPTIONS,
    RAG_SYNC_LEASE_TIMEOUT,
    CACHE_DIR,
    MODEL_NAME,
    MODEL_PATH,
    MAX_FILE_SIZE,
    CHUNK_TOKEN_BUDGET,
    RAG_HYBRID_WEIGHT,
    RAG_FUSION,
    RAG_GROUPING,
    RAG_MIN_SCORE_RATIO,
    RAG_MAX_DISTANCE,
    RAG_MAX_FILES,
    RAG_OCR_LANG,
    RAG_OCR_MIN_CHARS_PER_PAGE,
    RAG_MAX_RESPONSE_TOKENS,
    RAG_ANN_MIN_CHUNKS,
    RAG_WATCH,
    RAG_WATCH_POLL_SECONDS,
    RAG_RAY_ADDRESS,
    RAG_RAY_GPUS,
    RAG_INSTRUCTIONS_APPEND,
    LANCE_LOG,
    LANCEDB_LOG,
    ALLOW_PRIVATE_URLS,
)
