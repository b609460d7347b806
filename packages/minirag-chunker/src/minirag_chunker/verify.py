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

# Per counter: number of exact matches seen, or -1 once a sum missed. Weak keys, so a counter
# that is dropped is forgotten; a counter that cannot be weakly referenced is never trusted.
_RECORD: weakref.WeakKeyDictionary[Callable[[str], int], int] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


class Verifier:
    """Tracks one counter's record while a document is packed."""

    def __init__(self, count: Callable[[str], int]) -> None:
        """Look up what ``count`` has earned so far."""
        self.count = count
        self.seen = 0
        try:
            with _LOCK:
                self.record = _RECORD.get(count, 0)
            self.trackable = True
        except TypeError:  # not weak-referenceable (e.g. a bound builtin): never trusted
            self.record, self.trackable = 0, False

    def needs_check(self, *, exact: bool) -> bool:
        """Whether a unit whose pieces were counted (``exact``: none estimated) needs a re-count."""
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
                _RECORD[self.count] = self.record
