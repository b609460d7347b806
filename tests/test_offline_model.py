"""The offline test model is real: unit vectors, meaningful similarity, honest token counts."""

from __future__ import annotations

import numpy as np
from fastembed import TextEmbedding
from minirag_testkit import MODEL_DIM, MODEL_NAME


def test_model_embeds_unit_vectors_with_meaningful_similarity(model_dir):
    model = TextEmbedding(MODEL_NAME, specific_model_path=str(model_dir))
    cat, kitten, tax = (
        np.asarray(v)
        for v in model.embed(
            [
                "The cat sat on the mat.",
                "A kitten is resting on the rug.",
                "File the quarterly VAT return before the deadline.",
            ]
        )
    )
    assert cat.shape == (MODEL_DIM,)
    for v in (cat, kitten, tax):
        assert abs(float(np.linalg.norm(v)) - 1.0) < 1e-3
    assert float(cat @ kitten) > float(cat @ tax) + 0.3


def test_token_counter_counts_past_the_model_window(token_counter):
    long_text = "retrieval " * 700
    assert token_counter(long_text) >= 700  # not silently truncated at 128/256/512
    assert token_counter("hello world") == 2  # no special tokens, no padding
