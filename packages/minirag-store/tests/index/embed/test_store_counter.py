"""The response budget's token counter (index/embed/counter.py): cut at quotes where
exact, memoising, and the same count as encoding the whole text."""

from __future__ import annotations

import json

import pytest
from minirag_chunker.tokens import SPLIT_CHARS
from minirag_store.index.embed.counter import budget_counter, quotes_stand_alone, split_at_quotes
from minirag_testkit.texts import LONG_TEXTS

SECTION = (
    'He said "stop" \\ then «ушёл»; naïve café, 蛋白质折叠.\n\tNext\u00a0line: résumé '
    'ÉCOLE 1.5e-3 a\u0301 ﬁ x="y" ' * 12
)
#: Answers as the response budget counts them: long string values (texts, sections with
#: quotes, escapes, accents, CJK, combining marks) between short JSON.
ANSWERS = {
    "answer": json.dumps(
        {
            "results": [
                {"text": f"{i}: {SECTION}", "source": f"/docs/{i}.md", "score": i / 7}
                for i in range(12)
            ],
            "parents": {f"p{i}": SECTION * (i + 1) for i in range(4)},
            "notice": "x" * 300,
        },
        ensure_ascii=False,
    ),
    "one huge section": json.dumps({"parents": {"p": SECTION * 30}}, ensure_ascii=False),
    "a quote inside a word": ('ab"cd' + "e" * 300 + 'f"gh ') * 40,
    "quote first and last": '"' + "word " * 2000 + '"',
}


@pytest.mark.parametrize("name", sorted(LONG_TEXTS | ANSWERS))
def test_a_long_text_cut_at_quotes_counts_as_a_whole(model_dir, name) -> None:
    """With a BERT tokenizer an answer is counted in pieces cut before quotes (each hit's
    text and section a piece of its own): the pieces' counts add up to the whole's."""
    from tokenizers import Tokenizer

    text = (LONG_TEXTS | ANSWERS)[name]
    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    assert quotes_stand_alone(tokenizer)
    pieces = split_at_quotes(text, SPLIT_CHARS)
    assert "".join(pieces) == text
    assert all(len(p) <= 2 * SPLIT_CHARS for p in pieces) or name.startswith("no whitespace")

    def whole(t: str) -> int:
        return len(tokenizer.encode(t, add_special_tokens=False))

    assert sum(whole(p) for p in pieces) == whole(text)
    count = budget_counter(model_dir / "tokenizer.json")
    assert count(text) == whole(text)
    assert count(text) == whole(text)  # again, from the remembered pieces


def test_a_section_is_the_same_piece_in_every_answer_that_shows_it() -> None:
    """Why quotes: a trimmed answer, or a later one showing the same section, re-encodes
    only the short JSON around the sections it shares with an answer counted before."""
    text = "Proteins fold fast;\n\tnaïve «café» 蛋白质 \\ e^x " * 20
    value = json.dumps(text, ensure_ascii=False)
    first = json.dumps({"results": [{"t": "a" * 300}], "parents": {"p": text}}, ensure_ascii=False)
    second = json.dumps({"parents": {"q": "b" * 400, "p": text}, "n": 3}, ensure_ascii=False)
    shared = set(split_at_quotes(first, SPLIT_CHARS)) & set(split_at_quotes(second, SPLIT_CHARS))
    assert shared == {value[:-1]}  # from its opening quote to its last character
    # a value holding quotes: its long stretches between them are shared the same way
    quoted = 'he said "' + "x " * 200 + '" and left ' + "y " * 200
    third, fourth = json.dumps([quoted, 1]), json.dumps({"k": quoted})
    shared = set(split_at_quotes(third, SPLIT_CHARS)) & set(split_at_quotes(fourth, SPLIT_CHARS))
    assert len(shared) == 2


def test_a_tokenizer_that_keeps_quotes_with_words_is_cut_at_whitespace_only(tmp_path) -> None:
    """A SentencePiece-style tokenizer counts ``"text":"hello`` as one word: cutting at
    its quotes would count more tokens than the answer costs, so it is not cut there."""
    from tokenizers import Tokenizer, models, pre_tokenizers

    tokenizer = Tokenizer(models.WordLevel({"[UNK]": 0, "▁word": 1}, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace()
    assert not quotes_stand_alone(tokenizer)
    path = tmp_path / "tokenizer.json"
    tokenizer.save(str(path))
    text = json.dumps({"results": [{"text": "word " * 100 + "end"} for _ in range(40)]})
    assert len(text) > 2 * SPLIT_CHARS
    whole = len(tokenizer.encode(text, add_special_tokens=False))
    assert budget_counter(path)(text) == whole
    assert sum(len(tokenizer.encode(p)) for p in split_at_quotes(text, SPLIT_CHARS)) > whole
