"""The prompts a user picks by name, through fastmcp's Client in memory: their typed
arguments, the requests they make of the model, and path completion for ``summarize``."""

from __future__ import annotations

import pytest
from fastmcp import Client
from mcp.shared.exceptions import MCPError
from minirag_mcp.server import create_server
from minirag_store import Index

pytestmark = pytest.mark.anyio


@pytest.fixture
async def client(corpus_env):
    index = Index.open(corpus_env)
    assert index.sync()["state"] == "succeeded"
    async with Client(create_server(index)) as connected:
        yield connected
    index.close()


def _text(result) -> str:
    (message,) = result.messages
    assert message.role == "user"
    return message.content.text


async def test_three_prompts_with_typed_arguments(client):
    listed = {p.name: p for p in await client.list_prompts()}
    assert set(listed) == {"answer", "summarize", "find"}
    assert listed["answer"].title == "Answer from my documents"
    arguments = {n: [(a.name, a.required) for a in p.arguments or []] for n, p in listed.items()}
    assert arguments == {
        "answer": [("question", True)],
        "summarize": [("path", True), ("firstPage", False), ("lastPage", False)],
        "find": [("phrase", True)],
    }


async def test_answer_searches_first_cites_and_admits_silence(client):
    text = _text(await client.get_prompt("answer", {"question": "How often is P-7 flushed?"}))
    assert "How often is P-7 flushed?" in text
    assert text.index("query_documents") < text.index("Sources")
    assert "displayPath" in text and "locator" in text
    assert "do not answer" in text


async def test_arguments_are_described_in_words_not_schemas(client):
    # fastmcp appends "Provide a value matching the following JSON schema: {...}" to an
    # argument that is not a bare str: a person filling in the form reads words.
    for prompt in await client.list_prompts():
        for argument in prompt.arguments or []:
            assert argument.description, (prompt.name, argument.name)
            assert "schema" not in argument.description.lower(), argument.description
            assert "{" not in argument.description, argument.description


async def test_the_answer_prompt_cites_as_the_instructions_do(client):
    # One citation style: the instructions' "Sources" list, never inline (path, p. 3).
    from minirag_mcp.instructions import INSTRUCTIONS

    text = _text(await client.get_prompt("answer", {"question": "Where is P-7?"}))
    assert '"Sources" list' in INSTRUCTIONS and '"Sources" list' in text
    assert "e.g. (" not in text


async def test_summarize_takes_a_page_range_and_find_a_phrase(client):
    whole = _text(await client.get_prompt("summarize", {"path": "specs/cooling.md"}))
    assert "specs/cooling.md" in whole and "page" not in whole.split("\n")[0]
    ranged = _text(
        await client.get_prompt("summarize", {"path": "a.pdf", "firstPage": 2, "lastPage": 4})
    )
    assert "(pages 2 to 4)" in ranged and "page: 2" in ranged
    found = _text(await client.get_prompt("find", {"phrase": "distilled water"}))
    assert '"distilled water"' in found and "query_documents" in found
    with pytest.raises(MCPError):
        await client.get_prompt("summarize", {"path": "a.pdf", "firstPage": "two"})


async def test_summarize_completes_its_path_from_the_index(client):
    ref = {"type": "ref/prompt", "name": "summarize"}
    done = await client.complete(ref, {"name": "path", "value": "pol"})
    assert done.values == ["policies/travel.md"]
    assert (await client.complete(ref, {"name": "firstPage", "value": "1"})).values == []
