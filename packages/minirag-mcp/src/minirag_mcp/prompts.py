"""The prompts a user picks by name (Claude Code: ``/mcp__minirag__answer`` and so on).

Each is a ready-made request to the model with typed arguments; the text lives here, beside
the handshake instructions (:mod:`minirag_mcp.instructions`), and names the tools the way
those instructions do. A prompt only asks: the model still calls the read-only tools.
"""

# ruff: noqa: N803 - camelCase argument names match the tools' published interface

from __future__ import annotations

from fastmcp import FastMCP
from fastmcp.prompts import Prompt
from fastmcp.prompts.base import PromptArgument

__all__ = ["ANSWER", "FIND", "SUMMARIZE", "register_prompts"]

ANSWER = """\
Answer this question from my own documents: {question}

1. Search first: call query_documents with the question, then again with other wording \
or the exact names and terms if the hits are few or off-topic. Read more around a hit \
(its section in parents, read_chunk_neighbors, read_file) when the passage alone is thin.
2. Answer only from what the documents say, then end with a "Sources" list, as the \
server's instructions ask: one line per document used, its displayPath and where in it \
from the hits' locators (p. 12, slide 4, sheet Q3).
3. If the documents do not answer the question, or only part of it, say so plainly \
instead of filling the gap from memory."""

SUMMARIZE = """\
Summarize the document {path} from my index{pages}.

Read it with read_file (source: {path}{page_argument}); when the answer has a nextChunk, \
call read_file again with fromChunk set to it until the text is complete. Then write a \
summary: what the document is, its main points in order, and any figures, dates or \
decisions it records. Cite pages or sections where they help. If read_file says the \
document is not indexed, say so and suggest list_files."""

FIND = """\
Find where my documents say: "{phrase}"

Call query_documents with the phrase, and again with its key terms if the exact wording \
does not come up. List each place that says it or nearly so: the displayPath, the \
locator (page, slide, sheet, section) and the sentence itself, quoted. Say which places \
match exactly and which only in meaning. If nothing does, say so."""


def _pages(first: int | None, last: int | None) -> tuple[str, str]:
    """The range as the prompt says it, and the read_file argument for its first page."""
    if first is None:
        return "", ""
    if last is None or last == first:
        return f" (page {first})", f", page: {first}"
    return f" (pages {first} to {last})", f", page: {first}, then each page up to {last}"


def answer(question: str) -> str:
    """Answer a question from the indexed documents, searching first and citing each claim."""
    return ANSWER.format(question=question.strip())


def summarize(path: str, firstPage: int | None = None, lastPage: int | None = None) -> str:
    """Summarize one indexed document, or a range of its pages."""
    pages, argument = _pages(firstPage, lastPage)
    return SUMMARIZE.format(path=path.strip(), pages=pages, page_argument=argument)


def find(phrase: str) -> str:
    """Find the places in the documents that say something, quoted with where they are."""
    return FIND.format(phrase=phrase.strip())


#: name -> (title, function): the slash command is /mcp__<server>__<name>.
PROMPTS = {
    "answer": ("Answer from my documents", answer),
    "summarize": ("Summarize a document", summarize),
    "find": ("Find where it is said", find),
}


#: What a client shows beside each argument, in words. A prompt's arguments travel as
#: strings; fastmcp appends a JSON schema and "Encode non-string values as JSON" to the
#: description of every argument not annotated as a bare ``str`` (ours all are
#: ``Annotated``), which a person filling in the form has no use for.
ARGUMENT_TEXTS = {
    "question": "What you want answered from your documents.",
    "path": "The document, as searches and resources name it (its displayPath, e.g. "
    "notes/setup.md), or its absolute path.",
    "phrase": "The words, a name or a claim to look for.",
    "firstPage": "For a PDF: the first page to summarize, a number such as 3. Leave empty "
    "for the whole document.",
    "lastPage": "For a PDF: the last page to summarize, a number (with the first page).",
}


def _described(prompt: Prompt) -> Prompt:
    """``prompt`` with each argument described by :data:`ARGUMENT_TEXTS`."""
    arguments = [
        PromptArgument(
            name=arg.name,
            title=arg.title,
            description=ARGUMENT_TEXTS[arg.name],
            required=arg.required,
        )
        for arg in prompt.arguments or []
    ]
    return prompt.model_copy(update={"arguments": arguments})


def register_prompts(mcp: FastMCP) -> None:
    """Add the prompts to ``mcp``."""
    for name, (title, fn) in PROMPTS.items():
        mcp.add_prompt(_described(Prompt.from_function(fn, name=name, title=title)))
