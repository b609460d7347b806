"""Realistic documents chunked with the offline model's real tokenizer (budget 110)."""

from __future__ import annotations

from minirag_chunker import Chunked


def units_of(result: Chunked, label: str) -> list:
    """The units of every section with this label, in order."""
    owners = {s.index for s in result.sections if s.label == label}
    return [u for u in result.units if u.section in owners]


ROLES = [
    ("Requester", "Raises the purchase request in the portal and attaches three written quotes"),
    ("Budget holder", "Confirms that the cost centre has uncommitted budget for the full amount"),
    ("Procurement officer", "Checks supplier status, sanctions screening and framework agreements"),
    ("Legal counsel", "Reviews non-standard terms, liability caps and data-processing clauses"),
    ("Finance controller", "Approves requests between 10,000 and 50,000 EUR and checks VAT codes"),
    ("Chief financial officer", "Approves requests above 50,000 EUR and any multi-year commitment"),
    ("Information security", "Assesses cloud services, data residency and access to personal data"),
    ("Facilities manager", "Confirms delivery, installation space and disposal of replaced assets"),
]

SPEC = "\n".join(
    [
        "# Procurement policy",
        "",
        "## 1 General provisions",
        "",
        "This policy governs how the company buys goods, works and services. It applies to "
        "every legal entity of the group and to every currency. Exceptions need written "
        "approval from the chief financial officer.",
        "",
        "### 1.1 Roles and responsibilities",
        "",
        "Each purchase passes through the roles below, in order.",
        "",
        "| Role | Responsibility | Approval limit |",
        "|---|---|---|",
        *[f"| {role} | {duty} | {n * 5000} EUR |" for n, (role, duty) in enumerate(ROLES * 3)],
        "",
        "## 2 Procedures",
        "",
        "### 2.1 Purchasing",
        "",
        "#### 2.1.1 Approval",
        "",
        "A request is approved when every role listed for its amount has signed it. Signatures "
        "are collected in the portal; e-mail approval is not accepted.",
    ]
)


def test_nested_heading_spec_with_tables(chunk_and_check, token_counter) -> None:
    """Breadcrumbs on every unit, the table broken between rows with its header repeated."""
    result = chunk_and_check(SPEC, token_counter, title="Procurement policy")
    assert result.category == "headings"
    labels = [s.label for s in result.sections]
    assert "Procurement policy > 1 General provisions > 1.1 Roles and responsibilities" in labels
    # the bodiless "2 Procedures" and "2.1 Purchasing" headings join their sub-section
    assert labels[-1] == "Procurement policy > 2 Procedures > 2.1 Purchasing > 2.1.1 Approval"
    assert result.sections[-1].text.startswith("## 2 Procedures\n\n### 2.1 Purchasing\n\n####")

    assert labels[0] == "Procurement policy > 1 General provisions"
    assert result.sections[0].text.startswith("# Procurement policy\n\n## 1 General provisions")
    table_units = units_of(result, labels[1])
    assert len(table_units) >= 3, "24 long rows cannot fit one unit"
    first, *later = table_units
    assert first.body.startswith("### 1.1 Roles and responsibilities")
    assert first.prefix == "Procurement policy > 1 General provisions\n\n"
    header = "| Role | Responsibility | Approval limit |\n|---|---|---|\n"
    for unit in later:
        assert unit.prefix.endswith(header), unit.text[:200]
        assert unit.prefix.startswith("Procurement policy > 1 General provisions > 1.1 Roles")
        assert not unit.body.startswith("|---")
    # every data row sits whole in exactly one unit body
    for n, (role, duty) in enumerate(ROLES * 3):
        row = f"| {role} | {duty} | {n * 5000} EUR |"
        assert sum(row in u.body.split("\n") for u in table_units) == 1, row
    # reading the document back shows the header once and no breadcrumbs
    document = "\n\n".join(s.text for s in result.sections)
    assert document.count("| Role | Responsibility |") == 1
    assert "Procurement policy > " not in document
    # the title is the document's own first heading, so it is not seeded again
    assert not result.units[0].prefix


TURNS = [
    ("Dana Marx", "0:03", "Good morning everyone, let's start with the release status."),
    ("Oleg Petrov", "0:41", "The build is green since Tuesday. Two flaky tests were quarantined."),
    ("Dana Marx", "1:15", "Thanks. What about the migration of the billing database?"),
    ("Priya Nair", "1:52", "The dry run finished in forty minutes, well within the window."),
    ("Oleg Petrov", "2:10", "I still need a rollback plan signed off by operations."),
    ("Dana Marx", "2:48", "Let's make that an action item for Friday."),
    ("Priya Nair", "3:30", "Customer support asked for the new invoice template before go-live."),
    ("Dana Marx", "4:05", "Agreed. Priya will share the template with support this week."),
    ("Oleg Petrov", "6:31", "One more thing: the staging certificates expire next month."),
]
TRANSCRIPT = "# Weekly sync\n\nRecorded on 1 March 2024\n\n" + "\n\n".join(
    f"**{who}** {when}\n{said}" for who, when, said in TURNS
)


def test_teams_transcript_windows(chunk_and_check, token_counter) -> None:
    """Turns grouped into 120-second windows labelled with the meeting title."""
    result = chunk_and_check(TRANSCRIPT, token_counter, title="Weekly sync")
    assert result.category == "transcript"
    labels = [s.label for s in result.sections]
    assert labels == [
        "",
        "[00:00–02:00] Weekly sync",
        "[02:00–04:00] Weekly sync",
        "[04:00–06:00] Weekly sync",
        "[06:00–08:00] Weekly sync",
    ]
    window = next(s for s in result.sections if s.label.startswith("[02:00"))
    assert window.text.startswith("**Oleg Petrov** 2:10\nI still need a rollback plan")
    assert "**Priya Nair** 3:30" in window.text
    assert "4:05" not in window.text
    for unit in result.units[1:]:
        assert unit.prefix.startswith(result.sections[unit.section].label)


def test_transcript_windows_past_an_hour(chunk_and_check, token_counter) -> None:
    """Stamps past an hour give H:MM:SS labels, as the transcript writes them."""
    turns = "\n\n".join(f"1:{m:02d}:05\nPoint number {m} was discussed." for m in range(0, 10, 2))
    result = chunk_and_check(turns, token_counter, title="Board meeting")
    assert result.category == "transcript"
    assert result.sections[0].label == "[1:00:00–1:02:00] Board meeting"


LONG_SLIDE = (
    "The pilot covered four plants and 212 operators over twelve weeks. Downtime fell by "
    "eighteen percent on the two lines that used predictive maintenance alerts, while the "
    "control lines stayed flat. Operators asked for fewer, better-ranked alerts; the second "
    "iteration cut alert volume by half without missing a failure. Maintenance planners now "
    "schedule part replacements a week earlier on average, and spare-part inventory was "
    "reduced by nine percent. The business case assumes a rollout to all eleven plants "
    "during the next fiscal year, with a payback period of fourteen months."
)
PPTX = f"""<!-- Slide number: 1 -->
# Predictive maintenance pilot
Results and rollout proposal

### Notes:
Open with the downtime number.

<!-- Slide number: 2 -->
# Regional breakdown
| Region | Plants | Downtime change |
| --- | --- | --- |
| North | 2 | -21% |
| South | 2 | -15% |

<!-- Slide number: 3 -->
# Findings

![Bar chart of downtime per plant](chart3.png)
{LONG_SLIDE}
"""


def test_markitdown_pptx_output(chunk_and_check, token_counter) -> None:
    """One section per slide; a long slide splits and its later units name the slide."""
    result = chunk_and_check(PPTX, token_counter, title="Predictive maintenance pilot")
    assert result.category == "slides"
    assert [s.label for s in result.sections] == ["Slide 1", "Slide 2", "Slide 3"]
    for section in result.sections:
        assert section.text.startswith(f"<!-- Slide number: {section.index + 1} -->")
    third = units_of(result, "Slide 3")
    assert len(third) >= 2
    assert all(u.prefix == "Slide 3\n\n" for u in third[1:])
    assert "| North | 2 | -21% |" in units_of(result, "Slide 2")[0].body


def test_markitdown_xlsx_output(chunk_and_check, token_counter) -> None:
    """Each sheet is a heading section; its rows pack under a repeated header."""
    regions = ["North", "South", "East", "West", "Central"]
    rows = [
        f"| {regions[n % 5]} | SKU-{1000 + n} | {n * 7 % 90 + 3} | {n * 131 % 9000 + 100}.50 |"
        for n in range(80)
    ]
    sheet1 = "\n".join(
        ["## Sheet1", "| Region | Product | Units | Revenue |", *["| --- " * 4 + "|"]]
    )
    xlsx = sheet1 + "\n" + "\n".join(rows) + "\n\n## Sheet2\n| Note |\n| --- |\n| Draft |\n"
    result = chunk_and_check(xlsx, token_counter)
    assert result.category == "headings"
    assert {s.label for s in result.sections} == {"Sheet1", "Sheet2"}
    sheet_units = units_of(result, "Sheet1")
    assert len(sheet_units) >= 4
    for unit in sheet_units[1:]:
        assert unit.prefix.startswith("Sheet1\n\n| Region | Product | Units | Revenue |\n| --- |")
    bodies = "".join(u.body for u in sheet_units)
    assert all(row in bodies.split("\n") for row in rows)
    assert bodies.count("| Region |") == 1


RUSSIAN = """# Положение о закупках

## 1 Общие положения

Настоящее положение определяет порядок закупки товаров, работ и услуг. Положение
применяется всеми подразделениями компании. Исключения согласует финансовый директор.

## 2 Порядок согласования

### 2.1 Заявка

Инициатор оформляет заявку на портале и прикладывает три коммерческих предложения.
Руководитель подразделения проверяет наличие бюджета. Заявка без бюджета возвращается
инициатору с комментарием.

| Сумма | Кто согласует |
|---|---|
| до 10 000 руб. | руководитель подразделения |
| свыше 10 000 руб. | финансовый директор |
"""


def test_russian_document(chunk_and_check, token_counter) -> None:
    """Cyrillic headings become breadcrumbs; every unit fits the real token budget."""
    result = chunk_and_check(RUSSIAN, token_counter, title="Положение о закупках")
    assert result.category == "headings"
    labels = [s.label for s in result.sections]
    assert labels[-1] == "Положение о закупках > 2 Порядок согласования > 2.1 Заявка"
    last = units_of(result, labels[-1])
    # "2 Порядок согласования" has no text of its own, so it opens its sub-section's body
    assert last[0].body.startswith("## 2 Порядок согласования\n\n### 2.1 Заявка")
    assert last[0].prefix == "Положение о закупках\n\n"
    assert any("| свыше 10 000 руб. | финансовый директор |" in u.body for u in last)


def test_single_sheet_xlsx_keeps_the_sheet_name_with_its_rows(chunk_and_check, token_counter):
    """One sheet is a generic document; the sheet heading still names every later unit."""
    rows = [f"| {n} | Pump station {n} | inspected |" for n in range(60)]
    xlsx = "## Sheet1\n| Id | Asset | State |\n| --- | --- | --- |\n" + "\n".join(rows)
    result = chunk_and_check(xlsx, token_counter)
    assert result.category == "generic"
    assert result.sections[0].label == "Sheet1"
    assert result.sections[0].text.startswith("## Sheet1\n\n| Id | Asset | State |")
    assert result.units[0].body.startswith("## Sheet1\n\n| Id |")
    for unit in result.units[1:]:
        assert unit.prefix == "Sheet1\n\n| Id | Asset | State |\n| --- | --- | --- |\n"
