"""What tools/list says of each tool's arguments and results, kept small.

Every session reads tools/list into the model's context before its first question: at
24.8 KB (a28ddc6) it cost more than most answers. Measured per tool by
``bench/tool_list.py``, most of it was output schemas (10 KB: the result TypedDicts, with
their developer docstrings) and the ``anyOf: [{type}, {type: null}], default: null`` form
pydantic gives every optional argument. So:

- no output schema: results still come as structured content (fastmcp sends a dict
  result as ``structuredContent`` and as JSON text whether or not a schema is listed),
  and what a model needs of them (``parents``, ``nextChunk``, ``notice``, the budget) is
  in the tool descriptions. Their shapes are pinned by the wire-shape tests
  (``minirag_testkit.scenarios``), not by a schema a client may or may not check.
- an optional argument is listed as its own type(s), not required, without ``null`` and
  ``default: null`` (leaving it out is what "optional" says; the store reads ``None`` as
  before).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fastmcp.tools import Tool

__all__ = ["compact_parameters", "listed"]


def compact_parameters(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` (a tool's arguments) with each ``X or None, default None`` property
    listed as plain ``X``; anything else as it was."""
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return schema
    return {**schema, "properties": {k: _plain(v) for k, v in properties.items()}}


def _plain(prop: Any) -> Any:
    if not isinstance(prop, dict) or prop.get("default", ...) is not None:
        return prop
    variants = prop.get("anyOf")
    if not isinstance(variants, list) or {"type": "null"} not in variants:
        return prop
    kept = [v for v in variants if v != {"type": "null"}]
    rest = {k: v for k, v in prop.items() if k not in ("anyOf", "default")}
    if len(kept) == 1 and isinstance(kept[0], dict):
        return {**kept[0], **rest}
    return {"anyOf": kept, **rest}


def listed(tool: Tool) -> Tool:
    """``tool`` as tools/list shows it: compact arguments, no output schema."""
    return tool.model_copy(
        update={"parameters": compact_parameters(tool.parameters), "output_schema": None}
    )
