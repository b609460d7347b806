"""Long texts that are hard to count in pieces, for the token counters' tests (the
chunker's plain counter and the store's response-budget counter): each must count the
same in pieces as whole."""

from __future__ import annotations

import json

__all__ = ["LONG_TEXTS"]

#: Long prose, JSON, a run without whitespace for thousands of characters, tabs and lines.
LONG_TEXTS = {
    "prose": "The retrieval unit is sized in tokens, not characters.  \n\n" * 400,
    "json": json.dumps(
        {
            "results": [
                {"text": "Белки́ сворачиваются быстро; 蛋白质折叠。 e^x ≈ 1+x", "n": i}
                for i in range(600)
            ]
        },
        ensure_ascii=False,
    ),
    "no whitespace for long stretches": ("https://example.org/" + "a1b2c3" * 2000 + " tail ") * 3,
    "tabs and newlines": "\t".join(f"cell{i}\nrow{i}" for i in range(3000)),
}
