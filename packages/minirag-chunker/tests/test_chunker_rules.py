"""The chunking rules one at a time: breadcrumbs, headings, tables, fences, packing, caps."""

from __future__ import annotations

import pytest
from minirag_chunker import chunk_markdown
from minirag_chunker.pack import CODE_SPLIT_MARKER

SENTENCES = [
    "The approval workflow starts when the requester submits the form.",
    "Each approver receives a notification and has three working days to respond.",
    "Escalation goes to the next level when the deadline passes without a decision.",
    "Rejected requests return to the requester with the approver's comment attached.",
]


def prose(n: int) -> str:
    """``n`` realistic sentences, cycling."""
    return " ".join(SENTENCES[i % len(SENTENCES)] for i in range(n))


def test_breadcrumb_is_elided_from_the_middle(chunk_and_check, token_counter) -> None:
    """Past a third of the budget the chain keeps its outermost and innermost headings."""
    md = "\n\n".join(
        [
            "# 1 General",
            "## 3 Procedures for purchasing goods, works and services across all entities",
            "### 3.4 Purchasing of equipment, software licences and cloud subscriptions",
            "#### 3.4.2 Approval",
            prose(12),
        ]
    )
    budget = 60
    result = chunk_and_check(md, token_counter, budget=budget)
    units = result.units
    assert len(units) >= 3
    for unit in units[1:]:
        assert unit.prefix == "1 General > … > 3.4.2 Approval\n\n"
        assert token_counter(unit.prefix) <= budget // 3
    # the unit that opens with the heading lines carries only what they do not say
    assert units[0].body.startswith("# 1 General\n\n## 3 Procedures")
    assert units[0].prefix == ""


def test_full_breadcrumb_when_it_fits(chunk_and_check, token_counter) -> None:
    """A short chain is kept whole on every unit after the heading's own."""
    md = "# Manual\n\n## Setup\n\n### Network\n\n" + prose(10)
    result = chunk_and_check(md, token_counter)
    assert len(result.units) >= 2
    assert all(u.prefix == "Manual > Setup > Network\n\n" for u in result.units[1:])


def test_bodiless_leaf_heading_is_its_own_unit(chunk_and_check, token_counter) -> None:
    """A heading with no text and no sub-heading still reaches the index, as its own text."""
    md = "# Handbook\n\nIntro.\n\n## 2 Definitions\n\n## 3 Scope\n\nThis applies to staff."
    result = chunk_and_check(md, token_counter)
    section = next(s for s in result.sections if s.label == "Handbook > 2 Definitions")
    assert section.text == "## 2 Definitions"
    (unit,) = [u for u in result.units if u.section == section.index]
    assert unit.body == "## 2 Definitions"
    assert unit.prefix == "Handbook\n\n"


def test_bodiless_parent_joins_its_first_child(chunk_and_check, token_counter) -> None:
    """A heading followed directly by its sub-heading is not left as an empty section."""
    md = "# Guide\n\n## 3 Scope\n\n### 3.1 Staff\n\nEveryone.\n\n### 3.2 Contractors\n\nSome."
    result = chunk_and_check(md, token_counter)
    assert [s.label for s in result.sections] == [
        "Guide > 3 Scope > 3.1 Staff",
        "Guide > 3 Scope > 3.2 Contractors",
    ]
    assert result.sections[0].text.startswith("# Guide\n\n## 3 Scope\n\n### 3.1 Staff")


def test_header_only_table_is_kept_as_rows(chunk_and_check, token_counter) -> None:
    """A header row with nothing under it is content, not a prefix."""
    md = "# Inventory\n\n| Asset tag | Owner | Location |\n|---|---|---|\n\n# Notes\n\nEmpty."
    result = chunk_and_check(md, token_counter)
    bodies = [u.body for u in result.units]
    assert any("| Asset tag | Owner | Location |\n|---|---|---|" in b for b in bodies)
    assert not any("Asset tag" in u.prefix for u in result.units)


def test_single_row_longer_than_the_budget_is_split_at_whitespace(
    chunk_and_check, token_counter
) -> None:
    """Last resort: the row is cut into units at whitespace; the section holds it intact."""
    cell = prose(8)
    md = f"# Log\n\n| When | What |\n|---|---|\n| Monday | short |\n| Tuesday | {cell} |\n"
    result = chunk_and_check(md, token_counter, budget=50)
    row = f"| Tuesday | {cell} |"
    assert row in result.sections[0].text.split("\n")
    pieces = [u for u in result.units if "Tuesday" in u.body or u.body.strip() in row]
    assert len(pieces) >= 2
    assert all(u.body[-1:] in " \n|" for u in pieces[:-1]), "cuts fall at whitespace"


def test_unclosed_fence_is_ordinary_text(chunk_and_check, token_counter) -> None:
    """One stray fence line neither swallows the headings after it nor makes text atomic."""
    md = "# Setup\n\n```bash\n" + prose(16) + "\n\n# Usage\n\nRun it."
    result = chunk_and_check(md, token_counter)
    assert result.category == "headings"
    assert [s.label for s in result.sections] == ["Setup", "Usage"]
    assert all(token_counter(u.text) <= 110 for u in result.units)


def test_closed_fence_is_atomic_up_to_four_budgets(chunk_and_check, token_counter) -> None:
    """A real fence over the budget stays one unit, as long as it is under four budgets."""
    code = "\n".join(f"    total += price[{i}] * quantity[{i}]  # line {i}" for i in range(12))
    md = f"# Billing\n\nThe loop:\n\n```python\n{code}\n```\n\nDone."
    result = chunk_and_check(md, token_counter)
    fenced = [u for u in result.units if "```python" in u.body]
    assert len(fenced) == 1
    assert fenced[0].body.count("```") == 2
    assert 110 < token_counter(fenced[0].text) <= 440


def test_huge_fence_is_split_at_lines_with_a_marker(chunk_and_check, token_counter) -> None:
    """Past four budgets the fence is cut at line boundaries and every piece says so."""
    code = "\n".join(f"    total += price[{i}] * quantity[{i}]  # line {i}" for i in range(60))
    md = f"# Billing\n\n```python\n{code}\n```\n\nDone."
    result = chunk_and_check(md, token_counter)
    pieces = [u for u in result.units if "price[" in u.body]
    assert len(pieces) >= 5
    for unit in pieces:
        assert unit.prefix.endswith(CODE_SPLIT_MARKER + "\n")
        assert token_counter(unit.text) <= 110
        assert unit.body.endswith(("\n", "```")), "pieces end at line boundaries"
    assert CODE_SPLIT_MARKER not in "\n\n".join(s.text for s in result.sections)


def test_generic_small_paragraphs_are_packed(chunk_and_check, token_counter) -> None:
    """Tiny paragraphs share units up to the budget instead of one fragment each."""
    notes = [f"Note {n}: the printer on floor {n} needs toner by Friday." for n in range(1, 15)]
    result = chunk_and_check("\n\n".join(notes), token_counter)
    assert result.category == "generic"
    assert len(result.units) <= 3
    assert all(u.body.count("Note ") >= 4 for u in result.units[:-1])


def test_title_is_seeded_once(chunk_and_check, token_counter) -> None:
    """The title opens the first unit only, and counts against its budget."""
    md = "\n\n".join(prose(3) for _ in range(6))
    result = chunk_and_check(md, token_counter, title="Annual maintenance contract")
    assert result.units[0].prefix == "Annual maintenance contract\n\n"
    assert not any("Annual maintenance" in u.prefix for u in result.units[1:])


def test_title_already_opening_the_document_is_not_repeated(chunk_and_check, token_counter):
    """A document whose first heading is the title gets no seed."""
    md = "# Annual maintenance contract\n\n" + prose(3)
    result = chunk_and_check(md, token_counter, title="Annual  maintenance contract")
    assert all(not u.prefix for u in result.units)


def test_long_title_is_shortened_to_a_third(chunk_and_check, token_counter) -> None:
    """A title longer than a third of the budget is cut at a word and marked with …."""
    title = " ".join(["Framework agreement for maintenance services"] * 10)
    result = chunk_and_check(prose(4), token_counter, title=title)
    seed = result.units[0].prefix
    assert seed.startswith("Framework agreement") and seed.endswith(" …\n\n")
    assert token_counter(seed) <= 110 // 3


def test_heading_section_over_the_cap_is_cut_at_paragraphs(chunk_and_check, token_counter):
    """A long heading section becomes several sections with the same label, each ≤ 4,000."""
    body = "\n\n".join(prose(5) for _ in range(14))
    result = chunk_and_check(f"# Guide\n\n## Rules\n\n{body}", token_counter)
    rules = [s for s in result.sections if s.label == "Guide > Rules"]
    assert len(rules) >= 2
    assert all(len(s.text) <= 4000 for s in result.sections)
    later = [u for u in result.units if u.section == rules[1].index]
    assert all(u.prefix == "Guide > Rules\n\n" for u in later)


def test_one_long_paragraph_is_cut_at_sentences(chunk_and_check, token_counter) -> None:
    """A 10,000-character paragraph becomes sections that end at sentence ends."""
    result = chunk_and_check(prose(150), token_counter)
    assert len(result.sections) >= 3
    for section in result.sections:
        assert len(section.text) <= 4000
        assert section.text.endswith(".")


def test_long_table_is_cut_at_rows_with_the_header_repeated(chunk_and_check, token_counter):
    """An oversized table becomes sections that are each a complete table."""
    rows = [f"| {n} | Replace filter in unit {n} | done |" for n in range(300)]
    md = "| # | Task | State |\n|---|---|---|\n" + "\n".join(rows)
    result = chunk_and_check(md, token_counter)
    assert len(result.sections) >= 3
    for section in result.sections:
        assert len(section.text) <= 4000
        assert section.text.startswith("| # | Task | State |\n|---|---|---|\n| ")


@pytest.mark.parametrize("kind", ["sentence", "row"])
def test_cap_is_soft_for_one_sentence_or_row(chunk_and_check, token_counter, kind) -> None:
    """A single sentence or row longer than 4,000 characters is left whole in its section."""
    words = " ".join(f"item{n} delivered" for n in range(500))
    piece = words if kind == "sentence" else f"| batch | {words} |"
    md = f"# Report\n\nBefore.\n\n{piece}\n\n## Next\n\nAfter."
    result = chunk_and_check(md, token_counter)
    holder = [s for s in result.sections if piece in s.text]
    assert len(holder) == 1 and len(holder[0].text) > 4000


@pytest.mark.parametrize(
    ("markdown", "category"),
    [
        ("\n\n".join(f"0:{s:02d}\nHi." for s in range(4)), "generic"),  # four stamps only
        ("\n\n".join(f"0:{s:02d}\nHi." for s in range(5)), "transcript"),
        ("```\n" + "\n".join(f"0:{s:02d}" for s in range(9)) + "\n```", "generic"),
        ("<!-- Slide number: 1 -->\nOnly one slide.", "generic"),
        ("<!-- Slide number: 1 -->\nA\n\n<!-- Slide number: 2 -->\nB", "slides"),
        ("```\n# not a heading\n# nor this\n```\n\n# One heading", "generic"),
        ("# One\n\ntext\n\n## Two\n\ntext", "headings"),
        ("A letter with no structure.", "generic"),
    ],
)
def test_category_detection_fails_safe(chunk_and_check, markdown, category) -> None:
    """Categories need clear evidence outside code fences; anything else is generic."""
    assert chunk_and_check(markdown, lambda t: len(t.split())).category == category


def test_transcript_detection_needs_a_share_of_lines() -> None:
    """Five stamps lost in a long document are not a transcript."""
    md = "\n\n".join(f"0:{s:02d}" for s in range(5)) + "\n\n" + "\n\n".join(["Text."] * 40)
    assert chunk_markdown(md, count_tokens=lambda t: len(t.split())).category == "generic"


def test_empty_document_has_no_sections() -> None:
    """Blank input gives an empty result rather than an empty unit."""
    result = chunk_markdown(" \n\n\t\n", count_tokens=len)
    assert result.sections == () and result.units == ()


def test_oversized_fence_does_not_drag_a_full_unit_over_budget(chunk_and_check, token_counter):
    """Only a near-empty unit (a heading) may share the over-budget unit of a fence."""
    code = "\n".join(f"    total += price[{i}] * quantity[{i}]  # line {i}" for i in range(12))
    fence = f"```python\n{code}\n```"
    md = f"# Billing\n\n## Loop\n\n{prose(4)}\n\n{fence}\n\n## Next\n\n{fence}"
    result = chunk_and_check(md, token_counter)
    fenced = [u for u in result.units if "```python" in u.body]
    assert len(fenced) == 2
    assert fenced[0].body.startswith("```python")  # the paragraph before it stays in budget
    assert fenced[1].body.startswith("## Next\n\n```python")  # the bare heading rides along


def test_setext_headings_are_headings(chunk_and_check, token_counter) -> None:
    """``Title`` over ``====`` is a level-1 heading, over ``----`` level 2, as in CommonMark."""
    md = (
        "Operations manual\n=================\n\n"
        "Read this before the first shift.\n\n"
        "Cooling\n-------\n\n"
        "The coolant pump P-7 is flushed every 400 operating hours.\n\n"
        "Lighting\n--------\n\n"
        "Lamps are checked monthly."
    )
    result = chunk_and_check(md, token_counter)
    assert result.category == "headings"
    labels = [s.label for s in result.sections]
    assert labels == [
        "Operations manual",
        "Operations manual > Cooling",
        "Operations manual > Lighting",
    ]
    cooling = result.sections[1]
    assert cooling.text.startswith("Cooling\n-------\n\nThe coolant pump")


@pytest.mark.parametrize(
    "md",
    [
        # an underline under a two-line paragraph: the safe reading is text
        "First line of a paragraph\nand its second line\n---\n\nMore text here.",
        # YAML front matter
        "---\ntitle: Notes\ntags: ops\n---\n\nBody text of the notes.",
        # a list item, a quote and a table row over a rule
        "- item one\n---\n\n> quoted\n===\n\n| a | b |\n---",
        # inside a closed fence
        "```\nTitle\n=====\n```\n\nAfter the code.",
    ],
)
def test_underlines_that_are_not_setext_headings(chunk_and_check, token_counter, md) -> None:
    result = chunk_and_check(md, token_counter)
    assert result.category != "headings"
    assert all(s.label == "" for s in result.sections)


@pytest.mark.parametrize("budget", [110, 400])
def test_a_fence_past_the_section_cap_is_cut_at_its_blank_lines(
    chunk_and_check, token_counter, budget
):
    """A hit in a long listing hands back a bounded section, and read-back is exact; a
    piece of the cut fence never gets the whole fence's over-budget allowance (at 400 a
    piece would fit in four budgets)."""
    from minirag_chunker.blocks import SECTION_MAX_CHARS

    functions = [
        f"def step_{n}(order):\n    total = order.price * order.quantity\n"
        f"    return round(total * {1 + n / 100:.2f}, 2)  # step {n} of the billing run"
        for n in range(80)
    ]
    fence = "```python\n" + "\n\n".join(functions) + "\n```"
    assert len(fence) > 2 * SECTION_MAX_CHARS
    md = f"# Billing\n\nThe billing run applies every step in order.\n\n{fence}\n\nDone."
    result = chunk_and_check(md, token_counter, budget=budget)
    holding = [s for s in result.sections if "def step_" in s.text]
    assert len(holding) >= 3
    assert all(len(s.text) <= SECTION_MAX_CHARS + 200 for s in holding)  # + the heading
    # cut only where the code already had a blank line: the document reads back unchanged
    assert "\n\n".join(s.text for s in result.sections) == md


def test_a_long_fence_with_double_blank_lines_cuts_into_pieces_with_text(
    chunk_and_check, token_counter
):
    """Cut at the last blank line of a run: no piece (and no unit) starts as a bare newline."""
    functions = [
        f"def f{n}():\n    return {n}  # the value of step {n} in the run" for n in range(120)
    ]
    md = "```python\n" + "\n\n\n".join(functions) + "\n```"
    from minirag_chunker.blocks import build_blocks
    from minirag_chunker.detect import scan

    pieces = [b.text for b in build_blocks(scan(md), "generic") if b.kind == "fence"]
    assert len(pieces) >= 2 and not any(p.startswith("\n") for p in pieces)
    result = chunk_and_check(md, token_counter, budget=20)
    assert "\n\n".join(s.text for s in result.sections) == md


def test_citation_links_after_a_full_stop_end_the_sentence(chunk_and_check, token_counter):
    """Wikipedia closes sentences with ``.[[4]](#cite_note-4)``: units still end there."""
    sentence = (
        "Engine number {n} was assembled by the workshop from brass gears and iron frames, "
        "then tested for a week on tables of logarithms before delivery to its buyer."
    )
    cites = ["[[{n}]](#cite_note-{n})", "[[{n}]](#cite_note-Allan_2001-{n}): 232",
             "[[{n}]](#cite_note-{n})[[a]](#cite_note-a{n})"]  # fmt: skip
    paragraph = " ".join(sentence.format(n=n) + cites[n % 3].format(n=n) for n in range(1, 13))
    result = chunk_and_check(paragraph, token_counter)
    assert len(result.units) > 1
    for unit in result.units:
        assert unit.body.startswith("Engine number "), unit.body[:40]
