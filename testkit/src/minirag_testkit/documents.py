"""Generated documents the budget tests of every package read (one copy, not three)."""

from __future__ import annotations

__all__ = ["coolant_area", "field_manual"]


def field_manual(procedures: int) -> str:
    """A long markdown manual: ``procedures`` sections of six numbered steps each."""

    def steps(n: int) -> str:
        step = "Step {n}.{k}: check valve {valve} and log its pressure."
        return " ".join(step.format(n=n, k=k, valve=n * 10 + k) for k in range(6))

    return "# Field manual\n\n" + "\n\n".join(
        f"## Procedure {n}\n\n" + steps(n) for n in range(procedures)
    )


def coolant_area(n: int) -> str:
    """One ~1,200-character section: a long parent for every hit in it."""
    sentences = [
        f"Area {n} coolant inspection found pump {n}{k} within limits after the flush. "
        f"The inspector logged valve {n}{k} pressure and the gasket wear of line {n}{k}."
        for k in range(6)
    ]
    return f"# Area {n} coolant inspection\n\n" + " ".join(sentences) + "\n"
