"""Deciding when a packed unit is re-counted as a whole: the re-count policy.

Units are sized by summing the counts of their pieces, which are only ever joined at
whitespace. For WordPiece (the default model's tokenizer) and whitespace counters that sum
is exact, and re-counting every unit would double the cost of chunking. A
:class:`RecountPolicy` says how much of that cost to pay:

- :data:`RECOUNT_EVERY_UNIT` re-counts every unit made of more than one count, so every
  unit fits the budget whatever the counter (the one allowed excess, a whole code fence up
  to four budgets, is counted exactly too).
- :data:`DEFAULT_RECOUNT` lets a counter earn trust: every unit is re-counted until the
  counter has matched its sums exactly on ``trust_after`` units with no miss; after that
  only units holding a piece whose count was estimated (a cut inside a word) are
  re-counted, plus one unit in ``spot_check_every``. A single miss revokes trust for that
  counter for good (in this process). A counter whose sums add up loses nothing by this;
  one that matches its first ``trust_after`` sums and later undercounts can leave an
  unchecked unit over the budget.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass

from minirag_chunker.errors import ChunkInputError

__all__ = ["DEFAULT_RECOUNT", "RECOUNT_EVERY_UNIT", "RecountPolicy", "Verifier"]

# Measured with the default model's tokenizer: no miss over the bench documents, and
# re-counting every unit costs about twice the chunking time (bench/chunker.py).
TRUST_AFTER = 32
SPOT_CHECK_EVERY = 16


@dataclass(frozen=True)
class RecountPolicy:
    """When ``chunk_markdown`` re-counts a finished unit instead of trusting its summed count.

    ``trust_after``: exact matches a counter must score before its sums are trusted;
    ``None`` never trusts them (every unit made of more than one count is re-counted, so
    every unit fits the budget with any counter). ``spot_check_every``: once a counter is
    trusted, one unit in this many is still re-counted.
    """

    trust_after: int | None = TRUST_AFTER
    spot_check_every: int = SPOT_CHECK_EVERY

    def __post_init__(self) -> None:
        """Refuse values that would make the policy meaningless."""
        trust = self.trust_after
        if trust is not None and (isinstance(trust, bool) or not isinstance(trust, int)):
            raise ChunkInputError(f"trust_after must be an int or None, got {trust!r}")
        spot = self.spot_check_every
        if isinstance(spot, bool) or not isinstance(spot, int):
            raise ChunkInputError(f"spot_check_every must be an int, got {spot!r}")
        if (trust is not None and trust < 0) or spot < 1:
            raise ChunkInputError(
                f"RecountPolicy needs trust_after >= 0 (or None) and spot_check_every >= 1, "
                f"got {trust!r} and {spot!r}; use RECOUNT_EVERY_UNIT to re-count every unit"
            )


#: Every unit is re-counted whole: "every unit fits the budget" holds for any counter.
RECOUNT_EVERY_UNIT = RecountPolicy(trust_after=None)
#: Trust a counter after 32 exact matches, then spot-check 1 unit in 16 (see module doc).
DEFAULT_RECOUNT = RecountPolicy()

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
    """Applies a :class:`RecountPolicy` to one counter while a document is packed."""

    def __init__(
        self, count: Callable[[str], int], policy: RecountPolicy = DEFAULT_RECOUNT
    ) -> None:
        """Look up what ``count`` has earned so far."""
        self.count = count
        self.policy = policy
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
        trust = self.policy.trust_after
        if not exact or trust is None or self.record < trust:
            return True
        return self.seen % self.policy.spot_check_every == 0

    def learn(self, summed: int, actual: int, *, exact: bool) -> None:
        """Record how a re-count compared with the summed count of exactly counted pieces."""
        if not exact or self.record < 0:
            return
        self.record = self.record + 1 if summed == actual else -1
        if self.trackable:
            with _LOCK:
                _RECORD.setdefault(self.owner, {})[self.func] = self.record
