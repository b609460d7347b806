"""Readable text: what the embedder and the keyword column get instead of raw markdown."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st
from minirag_store.index.storage.keyword_column import keyword_column
from minirag_store.index.text.readable import readable, readable_pieces


def test_inline_links_keep_their_text_and_lose_target_and_title():
    text = (
        'Founded by [Bill Gates](/wiki/Bill_Gates "Bill Gates") and '
        "[Paul Allen](https://en.wikipedia.org/wiki/Paul_Allen_(businessman) 'Paul Allen') "
        "to sell [BASIC](<some path/basic.html>)."
    )
    assert readable(text) == "Founded by Bill Gates and Paul Allen to sell BASIC."


def test_link_syntax_without_a_path_or_url_is_text():
    # Scientific notation in a plain abstract: a calcium concentration, a knock-in allele.
    text = "a rise in [Ca(2+)](i) and [M + K](+) ions; see [notes]() and [top](#top)"
    assert readable(text) == "a rise in [Ca(2+)](i) and [M + K](+) ions; see notes and top"


def test_images_keep_their_alt_text_only():
    text = '![A red fox](img/fox.png "Fox") jumps. ![](spacer.gif)Done.'
    assert readable(text) == "A red fox jumps. Done."


def test_a_linked_image_and_a_citation_marker():
    text = "[![Logo](/static/logo.svg)](/wiki/Main_Page) Microsoft.[[4]](#cite_note-4)"
    assert readable(text) == "Logo Microsoft.[4]"


def test_reference_links_and_their_definitions():
    text = (
        "See [the spec][spec] and [RFC 9110][] or [shortcut].\n\n"
        '[spec]: https://example.com/spec "The spec"\n'
        "[rfc 9110]: <https://www.rfc-editor.org/rfc/rfc9110>\n"
    )
    assert readable(text) == "See the spec and RFC 9110 or [shortcut].\n\n"


def test_a_definition_like_line_of_prose_stays():
    text = "Notes\n\n[Warning]: Danger\n\nInside a paragraph\n[spec]: https://example.com"
    assert readable(text) == text


def test_autolinks_keep_the_address_a_reader_sees():
    text = "Docs at <https://example.com/a?b=1> or mail <help@example.com>."
    assert readable(text) == "Docs at https://example.com/a?b=1 or mail help@example.com."


def test_bare_urls_are_visible_text_and_stay():
    text = "Download from https://example.com/files/report.pdf today."
    assert readable(text) == text


def test_a_link_whose_text_is_its_url_keeps_the_url_once():
    assert readable("[https://example.com](https://example.com)") == "https://example.com"


def test_html_tags_go_without_gluing_words_together():
    text = 'one<br>two<br/>three <a href="/x" title="X">four</a> H<sub>2</sub>O <p>five</p>'
    assert readable(text) == "one two three four H2O  five "


def test_img_tags_leave_their_alt_text():
    assert readable('a<img src="x.png" alt="A cat &amp; dog">b') == "a A cat & dog b"


def test_unknown_angle_words_and_comments():
    text = "Use Vec<T> and <placeholder> here<!-- editor note\nover lines -->."
    assert readable(text) == "Use Vec<T> and <placeholder> here."


def test_character_references_become_characters():
    text = "AT&amp;T&nbsp;Inc &#8212; caf&eacute; &#x41; &bogus; & more"
    assert readable(text) == "AT&T Inc — café A &bogus; & more"


def test_backslash_escapes_lose_the_backslash():
    assert readable(r"ERR\_SOCKET\_CLOSED costs \$5 \[not a link\](x)") == (
        "ERR_SOCKET_CLOSED costs $5 [not a link](x)"
    )


def test_code_spans_are_content_and_stay_exactly():
    text = "Write `[a](/b)` or ``x ` [c](/d) &amp;`` then [e](/f)."
    assert readable(text) == "Write `[a](/b)` or ``x ` [c](/d) &amp;`` then e."


def test_an_unclosed_backtick_is_literal():
    assert readable("a ` b [c](/d)") == "a ` b c"


def test_fenced_code_blocks_are_content_and_stay_exactly():
    fence = "```html\n<a href='x'>[y](/z)</a> &amp; \\_\n```"
    tilde = "~~~\n![i](j.png)\n~~~~"
    text = f"[a](/b)\n\n{fence}\n\n{tilde}\n\n[c](/d)"
    assert readable(text) == f"a\n\n{fence}\n\n{tilde}\n\nc"


def test_an_unclosed_fence_runs_to_the_end():
    text = "[a](/b)\n\n```\n[c](/d)\n\n[e](/f)"
    assert readable(text) == "a\n\n```\n[c](/d)\n\n[e](/f)"


def test_links_in_table_cells():
    text = '| Name | Site |\n| --- | --- |\n| [Ada](/wiki/Ada "Ada") | <https://ada.org> |'
    assert readable(text) == "| Name | Site |\n| --- | --- |\n| Ada | https://ada.org |"


def test_brackets_do_not_pair_across_paragraphs():
    # A converter wrapped whole blocks in one link: the stray target still goes.
    text = "[ menu\n\n![](/logo.png)\n![Wikipedia](/wordmark.svg)](/wiki/Main_Page)"
    assert readable(text) == "[ menu\n\n\nWikipedia"


def test_text_without_markup_is_unchanged():
    text = "Plain prose (with parentheses), 5 < 6 > 4, and a_b_c."
    assert readable(text) == text


def test_a_link_cut_between_two_chunks_is_removed_whole():
    section = 'Hello [Ada Lovelace](/wiki/Ada_Lovelace "Ada Lovelace") and [Babbage](/wiki/CB).'
    cut = section.index("(/wiki/Ada") + 6
    pieces = [(section[:cut], 0), ("Intro > " + section[cut:], len("Intro > "))]
    assert readable_pieces(pieces) == [
        ("Hello Ada Lovelace", 0),
        ("Intro >  and Babbage.", len("Intro > ")),
    ]


def test_prefixes_are_made_readable_on_their_own():
    pieces = [("[Guide](/g) > Setup\n\nText &amp; more", len("[Guide](/g) > Setup\n\n"))]
    assert readable_pieces(pieces) == [("Guide > Setup\n\nText & more", len("Guide > Setup\n\n"))]


_MARKUP = st.sampled_from(
    ["[", "]", "(", ")", "![", "](/w/a_(b) \"t\")", "<br>", "<a href='x'>", "</a>", "&amp;",
     "&#8212;", "`", "``", "```\n", "\n~~~\n", "\\_", "<https://x.y>", "\n\n", "[r]: /u\n",
     "word", " ", "\n", "<!--", "-->"]
)  # fmt: skip


@given(st.lists(_MARKUP, max_size=40), st.lists(st.integers(0, 400), max_size=6))
def test_chunk_bodies_join_to_the_readable_section(parts, cuts):
    section = "".join(parts)
    bounds = sorted({min(c, len(section)) for c in cuts} | {0, len(section)})
    pieces = [("P: " + section[a:b], 3) for a, b in itertools.pairwise(bounds)]
    out = readable_pieces(pieces)
    assert "".join(text[start:] for text, start in out) == readable(section)
    assert all(text[:start] == "P: " for text, start in out)


def test_keyword_entries_hold_link_text_not_targets():
    text = 'Founded by [Bill Gates](https://en.wikipedia.org/wiki/Bill_Gates "Gates biography").'
    row = {"source": "/d/a.md", "parent_id": "p0", "chunk_index": 0, "title": "Microsoft",
           "text": text, "body_start": 0}  # fmt: skip
    terms = keyword_column([row])[0][0].split()
    # Words, then the word pairs of the same phrase: nothing from the target or the title.
    assert [t for t in terms if "+" not in t] == ["microsoft", "found", "bill", "gate"]
    assert [t for t in terms if "+" in t] == ["found+bill", "bill+gate"]
