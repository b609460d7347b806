"""Tool schemas with their ``$ref``s inlined here, when the tools are registered.

fastmcp inlines the ``$ref``s of every listed tool's schemas (some clients cannot follow
them) through jsonref, whose import (it pulls in requests) cost ~0.15 CPU-s on the first
``tools/list``: the request a client waits for before it can do anything. Our results are
TypedDicts that nest without cycles, so inlining their definitions ourselves is a few dict
copies at registration; fastmcp then finds no ``$ref`` left to resolve, and the schemas a
client sees are the ones it saw before (a test compares them with fastmcp's own result).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fastmcp.tools import Tool

__all__ = ["inline_refs", "with_inlined_schemas"]

_LOCAL = "#/$defs/"


class _NotInlinableError(Exception):
    """A reference this module leaves to fastmcp (a cycle, an unknown or escaped name)."""


def inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with every ``#/$defs/...`` reference replaced by its definition (the
    reference's sibling keywords win) and ``$defs`` dropped; unchanged when it holds a
    reference that cannot be inlined safely (then fastmcp resolves it as before)."""
    defs = schema.get("$defs", {})

    def walk(node: Any, seen: frozenset[str]) -> Any:
        if isinstance(node, list):
            return [walk(item, seen) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if ref is None:
            return {k: walk(v, seen) for k, v in node.items() if k != "$defs"}
        name = ref[len(_LOCAL) :] if isinstance(ref, str) and ref.startswith(_LOCAL) else None
        if name is None or name in seen or name not in defs or "~" in name or "/" in name:
            raise _NotInlinableError(ref)
        resolved = walk(defs[name], seen | {name})
        siblings = {k: walk(v, seen) for k, v in node.items() if k not in ("$ref", "$defs")}
        return {**resolved, **siblings}

    try:
        return walk(schema, frozenset())
    except _NotInlinableError:
        return schema


def with_inlined_schemas(tool: Tool) -> Tool:
    """``tool`` with :func:`inline_refs` applied to its input and output schemas."""
    updates: dict[str, Any] = {"parameters": inline_refs(tool.parameters)}
    if tool.output_schema is not None:
        updates["output_schema"] = inline_refs(tool.output_schema)
    return tool.model_copy(update=updates)
