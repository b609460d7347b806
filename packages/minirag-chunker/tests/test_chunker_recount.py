"""The re-count policy: what "every unit fits the budget" means under each policy.

A unit's size is the sum of its pieces' counts. ``RECOUNT_EVERY_UNIT`` re-counts every unit
whole, so the budget holds for any counter (the hypothesis properties check that for four
non-additive counters); the default trusts a counter once its sums have matched 32 units,
which holds the budget for counters that add up and, as documented, not for one that
matches at first and undercounts later.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable

import pytest
from minirag_chunker import (
    DEFAULT_RECOUNT,
    RECOUNT_EVERY_UNIT,
    ChunkInputError,
    RecountPolicy,
    chunk_markdown,
)

BUDGET = 110


def _longer_costs_more() -> Callable[[str], int]:
    """One per word plus one per 20 words: short texts add up, a long one costs more than
    its sentences counted apart (like a tokenizer whose cost grows with length)."""
    return lambda text: (w := len(text.split())) + w // 20


def _handbook() -> str:
    """Forty short rules (units that add up under any word counter), then a long section
    whose units, packed from many sentences, cost more whole than summed."""
    parts = ["# Handbook"]
    for n in range(40):
        parts.append(f"## Rule {n}\n\nKeep the kitchen tidy and wash your own cup. Rule {n} holds.")
    sentence = "The quarterly audit samples twelve purchase orders from every cost centre"
    parts.append("## Audit\n\n" + " ".join(f"{sentence} number {i}." for i in range(200)))
    return "\n\n".join(parts) + "\n"


def test_every_unit_recounted_holds_the_budget_where_the_default_does_not() -> None:
    markdown = _handbook()
    count = _longer_costs_more()
    strict = chunk_markdown(markdown, count_tokens=count, budget=BUDGET, recount=RECOUNT_EVERY_UNIT)
    assert max(count(u.text) for u in strict.units) <= BUDGET

    # The default, as documented: the counter matched the rules' sums 32 times and was
    # trusted; the audit units it did not spot-check are over the budget, all of them
    # after the units that earned the trust.
    count = _longer_costs_more()
    trusting = chunk_markdown(markdown, count_tokens=count, budget=BUDGET)
    over = [u for u in trusting.units if count(u.text) > BUDGET]
    assert over, "the default policy re-counted every unit: update the documented guarantee"
    assert min(u.index for u in over) > (DEFAULT_RECOUNT.trust_after or 0)
    assert all("The quarterly audit" in u.body for u in over)


def test_the_default_holds_the_budget_for_a_counter_that_adds_up() -> None:
    def count(text: str) -> int:
        return len(text.split())

    result = chunk_markdown(_handbook(), count_tokens=count, budget=BUDGET)
    assert max(count(u.text) for u in result.units) <= BUDGET


def test_the_default_policy_is_the_documented_one() -> None:
    default = inspect.signature(chunk_markdown).parameters["recount"].default
    assert default is DEFAULT_RECOUNT
    assert RecountPolicy(trust_after=32, spot_check_every=16) == DEFAULT_RECOUNT
    assert RECOUNT_EVERY_UNIT.trust_after is None


@pytest.mark.parametrize(
    "make",
    [
        lambda: RecountPolicy(trust_after=-1),
        lambda: RecountPolicy(spot_check_every=0),
        lambda: RecountPolicy(trust_after=1.5),  # type: ignore[arg-type]
        lambda: RecountPolicy(spot_check_every=True),
    ],
)
def test_a_meaningless_policy_is_refused(make) -> None:
    with pytest.raises(ChunkInputError, match=r"trust_after|spot_check_every"):
        make()


def test_recount_must_be_a_policy() -> None:
    with pytest.raises(ChunkInputError, match="recount must be a RecountPolicy"):
        chunk_markdown("text", count_tokens=len, recount="always")  # type: ignore[arg-type]
