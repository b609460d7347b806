"""Configuration: defaults, precedence of roots, and a clear error for every bad value."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from minirag_store import ConfigError, Index, load_config
from minirag_store.config import DEFAULT_MAX_RESPONSE_TOKENS, DEFAULT_MODEL_NAME


@pytest.fixture
def roots(tmp_path: Path) -> tuple[Path, Path, Path]:
    a, b, c = (tmp_path / n for n in ("a", "b", "c"))
    for p in (a, b, c):
        p.mkdir()
    return a, b, c


def test_defaults_use_cwd_as_root_and_index_beside_documents(tmp_path: Path):
    cfg = load_config({}, cwd=tmp_path)
    assert cfg.roots == (tmp_path.resolve(),)
    assert cfg.db_path == tmp_path.resolve() / ".minirag" / "lancedb"
    assert cfg.model_name == DEFAULT_MODEL_NAME
    assert cfg.chunk_token_budget == 110
    assert cfg.model_max_tokens == 128
    assert cfg.hybrid_weight == 0.6 and cfg.fusion == "mixture"
    assert cfg.grouping is None and cfg.max_distance is None and cfg.max_files is None
    assert cfg.max_file_size == 104857600
    assert cfg.ocr_lang == "eslav" and cfg.ocr_min_chars_per_page == 25
    assert cfg.allow_private_urls is False
    assert cfg.cache_dir.name == "models"


def test_root_precedence_each_level_replaces_the_lower(roots, tmp_path: Path):
    a, b, c = roots
    env = {"BASE_DIR": str(a), "BASE_DIRS": json.dumps([str(b), str(c)])}
    assert load_config({"BASE_DIR": str(a)}, cwd=tmp_path).roots == (a,)
    assert load_config(env, cwd=tmp_path).roots == (b, c)
    assert load_config(env, base_dirs=[str(a)], cwd=tmp_path).roots == (a,)


def test_relative_paths_resolve_against_cwd(roots, tmp_path: Path):
    cfg = load_config({"DB_PATH": "idx"}, base_dirs=["a"], cwd=tmp_path)
    assert cfg.roots == (roots[0],)
    assert cfg.db_path == tmp_path / "idx"


@pytest.mark.parametrize(
    ("env", "needle"),
    [
        ({"BASE_DIRS": "not json"}, "BASE_DIRS must be a JSON array"),
        ({"BASE_DIRS": "[]"}, "BASE_DIRS must be a JSON array"),
        ({"BASE_DIRS": '["", "x"]'}, "BASE_DIRS must be a JSON array"),
        ({"BASE_DIR": "/definitely/not/here"}, "/definitely/not/here"),
        ({"CHUNK_TOKEN_BUDGET": "129"}, "CHUNK_TOKEN_BUDGET must be between 16 and 128"),
        ({"CHUNK_TOKEN_BUDGET": "15"}, "CHUNK_TOKEN_BUDGET must be between 16 and 128"),
        ({"CHUNK_TOKEN_BUDGET": "abc"}, "CHUNK_TOKEN_BUDGET must be a whole number"),
        ({"RAG_HYBRID_WEIGHT": "1.5"}, "RAG_HYBRID_WEIGHT must be between"),
        ({"RAG_HYBRID_WEIGHT": "nan"}, "RAG_HYBRID_WEIGHT must be a finite number"),
        (
            {"RAG_GROUPING": "close"},
            "RAG_GROUPING must be one of similar, related (or unset)",
        ),
        ({"RAG_MAX_DISTANCE": "-1"}, "RAG_MAX_DISTANCE must be at least 0.0, got -1.0"),
        ({"RAG_MIN_SCORE_RATIO": "1"}, "RAG_MIN_SCORE_RATIO must be at least 0.0 and below 1.0"),
        ({"RAG_MIN_SCORE_RATIO": "-0.1"}, "RAG_MIN_SCORE_RATIO must be at least 0.0"),
        ({"RAG_MAX_FILES": "0"}, "RAG_MAX_FILES must be at least 1"),
        ({"RAG_MAX_RESPONSE_TOKENS": "999"}, "RAG_MAX_RESPONSE_TOKENS must be at least 1000"),
        ({"RAG_MAX_RESPONSE_TOKENS": "10k"}, "RAG_MAX_RESPONSE_TOKENS must be a whole number"),
        ({"MAX_FILE_SIZE": "big"}, "MAX_FILE_SIZE must be a whole number"),
        ({"RAG_OCR_LANG": "klingon"}, "RAG_OCR_LANG must be one of eslav"),
        ({"RAG_OCR_MIN_CHARS_PER_PAGE": "-3"}, "RAG_OCR_MIN_CHARS_PER_PAGE must be at least 0"),
        ({"ALLOW_PRIVATE_URLS": "maybe"}, "ALLOW_PRIVATE_URLS must be one of"),
        ({"MODEL_PATH": "/no/such/model"}, "MODEL_PATH /no/such/model is not a folder"),
    ],
)
def test_every_bad_value_is_a_config_error_naming_the_setting(tmp_path, env, needle):
    with pytest.raises(ConfigError) as err:
        load_config(env, cwd=tmp_path)
    assert needle in str(err.value)


def test_budget_ceiling_follows_the_model(tmp_path: Path, model_dir: Path):
    cfg = load_config(
        {"MODEL_PATH": str(model_dir), "CHUNK_TOKEN_BUDGET": "200"},
        model_name="sentence-transformers/all-MiniLM-L6-v2",
        cwd=tmp_path,
    )
    assert cfg.model_max_tokens == 256 and cfg.chunk_token_budget == 200


def test_booleans_and_search_settings_parse(tmp_path: Path):
    cfg = load_config(
        {
            "ALLOW_PRIVATE_URLS": "Yes",
            "RAG_GROUPING": "related",
            "RAG_MAX_DISTANCE": "0.8",
            "RAG_MIN_SCORE_RATIO": "0.25",
            "RAG_MAX_FILES": "3",
            "RAG_HYBRID_WEIGHT": "0",
            "RAG_INSTRUCTIONS_APPEND": "  Prefer document codes.  ",
        },
        cwd=tmp_path,
    )
    assert cfg.allow_private_urls is True
    assert (cfg.grouping, cfg.max_distance, cfg.max_files, cfg.hybrid_weight) == (
        "related",
        0.8,
        3,
        0.0,
    )
    assert cfg.instructions_append == "Prefer document codes."
    assert cfg.min_score_ratio == 0.25 and load_config({}, cwd=tmp_path).min_score_ratio == 0


def test_response_budget_default_and_setting(tmp_path: Path):
    assert load_config({}, cwd=tmp_path).max_response_tokens == DEFAULT_MAX_RESPONSE_TOKENS
    assert DEFAULT_MAX_RESPONSE_TOKENS < 10_000  # Claude Code's warning threshold
    cfg = load_config({"RAG_MAX_RESPONSE_TOKENS": " 20000 "}, cwd=tmp_path)
    assert cfg.max_response_tokens == 20_000


def test_fusion_setting(tmp_path: Path):
    assert load_config({"RAG_FUSION": " Score "}, cwd=tmp_path).fusion == "score"
    assert load_config({"RAG_FUSION": "RRF"}, cwd=tmp_path).fusion == "rrf"
    assert load_config({"RAG_FUSION": ""}, cwd=tmp_path).fusion == "mixture"
    message = r"RAG_FUSION must be one of mixture, rrf, score \(default mixture\), got 'rank'"
    with pytest.raises(ConfigError, match=message):
        load_config({"RAG_FUSION": "rank"}, cwd=tmp_path)


def test_broken_config_index_reports_and_refuses(tmp_path: Path):
    index = Index.open({"BASE_DIRS": "{oops"}, cwd=tmp_path)
    assert index.config_error is not None and "BASE_DIRS" in index.config_error
    with pytest.raises(ConfigError, match="BASE_DIRS"):
        index.query("anything")
