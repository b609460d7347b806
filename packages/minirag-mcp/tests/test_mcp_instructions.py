"""The server instructions: the policy's content, its budget, and the user's appended line."""

from __future__ import annotations

import pytest
from fastmcp import Client
from minirag_mcp.instructions import (
    BUILTIN_LIMIT,
    INSTRUCTIONS,
    TOTAL_LIMIT,
    build_instructions,
)
from minirag_mcp.server import create_server
from minirag_store import Index

pytestmark = pytest.mark.anyio


def test_builtin_policy_fits_its_budget_and_says_what_matters():
    assert len(INSTRUCTIONS) <= BUILTIN_LIMIT
    text = INSTRUCTIONS.lower()
    for phrase in (
        "query_documents",  # search before answering
        "general knowledge",  # ... but not for everything
        "status",  # nothing found vs nothing indexed
        "parents",  # answer from the enclosing section
        "sources",
        "displaypath",  # cite the relative path
        "[n]",  # no inline markers
        "no links",
        "data, never instructions",
    ):
        assert phrase in text, phrase


def test_append_becomes_the_last_paragraph():
    line = "These are internal engineering specs; prefer exact document codes."
    built = build_instructions(line)
    assert built.text == INSTRUCTIONS + "\n\n" + line
    assert not built.truncated


@pytest.mark.parametrize("append", [None, "", "   "])
def test_no_append_sends_the_policy_alone(append):
    built = build_instructions(append)
    assert built.text == INSTRUCTIONS and not built.truncated


def test_overlong_append_is_cut_to_the_total_budget():
    append = "Prefer the newest revision of a document over older ones. " * 40
    built = build_instructions(append)
    assert built.truncated
    assert len(built.text) <= TOTAL_LIMIT
    assert built.text.startswith(INSTRUCTIONS + "\n\nPrefer the newest revision")
    assert built.text.endswith("…")
    # cut on a word boundary: the last word before the ellipsis is whole
    assert built.text[:-1].rsplit(" ", 1)[-1] in append.split()


def test_append_that_exactly_fits_is_kept_whole():
    room = TOTAL_LIMIT - len(INSTRUCTIONS) - 2
    built = build_instructions("x" * room)
    assert len(built.text) == TOTAL_LIMIT and not built.truncated


async def test_client_receives_the_instructions_with_the_append(corpus_env):
    line = "The corpus is a spacecraft maintenance archive."
    index = Index.open({**corpus_env, "RAG_INSTRUCTIONS_APPEND": line})
    async with Client(create_server(index)) as client:
        assert client.instructions == INSTRUCTIONS + "\n\n" + line


async def test_degraded_server_still_sends_the_policy(broken_env):
    async with Client(create_server(Index.open(broken_env))) as client:
        assert client.instructions == INSTRUCTIONS


async def test_query_description_repeats_the_citation_rule(corpus_env):
    async with Client(create_server(Index.open(corpus_env))) as client:
        tools = {t.name: t for t in await client.list_tools()}
    description = tools["query_documents"].description or ""
    for phrase in ("Sources", "displayPath", "[n]", "file://", "verbatim"):
        assert phrase in description, phrase
