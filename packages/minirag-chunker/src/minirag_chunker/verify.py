"""Deciding when a packed unit must be re-counted as a whole.

Units are sized by summing the counts of their pieces, which are only ever joined at
whitespace. For WordPiece (the default model's tokenizer) and whitespace counters that sum
is exact, and re-counting every unit would double the cost of chunking. So a counter earns
trust: every unit is re-counted until the counter has matched its sums exactly on
``TRUST_AFTER`` units with no miss; after that only units holding a piece whose count was
estimated (a cut inside a word) are re-counted, plus one unit in ``SPOT_CHECK_EVERY`` as a
spot check. A single mismatch revokes trust for that counter for good.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable

TRUST_AFTER = 32
SPOT_CHECK_EVERY = 16

# Per counter owner, per function: exact matches seen, or -1 once a sum missed. A bound method
# (``embedder.count_tokens``) is a new object on every attribute access, so it is keyed by
# the object it is bound to; weak keys let a dropped counter be forgotten.
_RECORD: weakref.WeakKeyDictionary[object, dict[object, int]] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def _key(count: Callable[[str], int]) -> tuple[object, object]:
    owner = getattr(count, "__self__", None)
    func = getattr(count, "__func__", None)
    if owner is not None and func is not None:
        return owner, func
    return count, None


class Verifier:
    """Tracks one counter's record while a document is packed."""

    def __init__(self, count: Callable[[str], int]) -> None:
        """Look up what ``count`` has earned so far."""
        self.count = count
        self.seen = 0
        self.owner, self.func = _key(count)
        try:
            with _LOCK:
                self.record = _RECORD.get(self.owner, {}).get(self.func, 0)
            self.trackable = True
        except TypeError:  # not weak-referenceable (e.g. a builtin): re-count every unit
            self.record, self.trackable = 0, False

    def needs_check(self, *, exact: bool) -> bool:
        """Whether a unit (``exact``: no piece count was estimated) must be re-counted."""
        self.seen += 1
        if not exact or self.record < TRUST_AFTER:
            return True
        return self.seen % SPOT_CHECK_EVERY == 0

    def learn(self, summed: int, actual: int, *, exact: bool) -> None:
        """Record how a re-count compared with the summed count of exactly counted pieces."""
        if not exact or self.record < 0:
            return
        self.record = self.record + 1 if summed == actual else -1
        if self.trackable:
            with _LOCK:
                _RECORD.setdefault(self.owner, {})[self.func] = self.record
