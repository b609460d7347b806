"""Word documents whose body is in embedded ``w:altChunk`` parts: HTML, MHT, RTF, text,
another .docx. The packages are built here with zipfile, as Word lays them out."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest
from minirag_store.config import Config, load_config
from minirag_store.convert.converter import convert_file
from minirag_store.errors import ConversionError
from minirag_testkit.answers import expand

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
DOC_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"


def paragraph(text: str) -> str:
    return f"<w:p><w:r><w:t>{text}</w:t></w:r></w:p>"


def alt_chunk(rid: str) -> str:
    return f'<w:altChunk r:id="{rid}"/>'


def make_docx(
    body: list[str],
    parts: dict[str, tuple[str, bytes]] | None = None,
    *,
    rels: dict[str, str] | None = None,
    external: dict[str, str] | None = None,
    extra: dict[str, bytes] | None = None,
) -> bytes:
    """A Word package: ``body`` XML snippets; ``parts``: rId -> (part name, bytes).

    Each part's content type goes in [Content_Types].xml as an Override (how Word does it);
    ``rels`` adds relationships whose parts are missing; ``external`` external targets.
    """
    parts = parts or {}
    overrides = "".join(
        f'<Override PartName="/word/{name}" ContentType="{ctype}"/>'
        for name, ctype in ((n, _ctype(n)) for n, _ in parts.values())
    )
    types = (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
        'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>'
        f'<Override PartName="/word/document.xml" ContentType="{DOC_TYPE}.main+xml"/>'
        f"{overrides}</Types>"
    )
    package_rels = (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        f'<Relationship Id="rId1" Type="{R}/officeDocument" Target="word/document.xml"/>'
        "</Relationships>"
    )
    links = [f'<Relationship Id="{rid}" Type="{R}/aFChunk" Target="{name}"/>'
             for rid, (name, _) in parts.items()]  # fmt: skip
    links += [f'<Relationship Id="{rid}" Type="{R}/aFChunk" Target="{name}"/>'
              for rid, name in (rels or {}).items()]  # fmt: skip
    links += [f'<Relationship Id="{rid}" Type="{R}/aFChunk" Target="{url}" '
              'TargetMode="External"/>' for rid, url in (external or {}).items()]  # fmt: skip
    doc_rels = (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        f"{''.join(links)}</Relationships>"
    )
    document = (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        f'<w:document xmlns:w="{W}" xmlns:r="{R}"><w:body>{"".join(body)}'
        "<w:sectPr/></w:body></w:document>"
    )
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("[Content_Types].xml", types)
        zf.writestr("_rels/.rels", package_rels)
        zf.writestr("word/document.xml", document)
        zf.writestr("word/_rels/document.xml.rels", doc_rels)
        for name, data in parts.values():
            zf.writestr(f"word/{name}", data)
        for name, data in (extra or {}).items():
            zf.writestr(name, data)
    return out.getvalue()


def _ctype(name: str) -> str:
    return {
        ".html": "text/html",
        ".xhtml": "application/xhtml+xml",
        ".mht": "message/rfc822",
        ".rtf": "application/rtf",
        ".txt": "text/plain",
        ".docx": f"{DOC_TYPE}.main+xml",  # what Word and the Open XML SDK declare
        ".bin": "application/octet-stream",
    }[Path(name).suffix]


def html(body: str, title: str = "") -> bytes:
    return (
        f"<html><head><meta charset='utf-8'><title>{title}</title></head><body>{body}</body></html>"
    ).encode()


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory) -> Config:
    return load_config({"BASE_DIR": str(tmp_path_factory.mktemp("root"))})


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_a_body_that_is_one_embedded_html_page_is_converted(tmp_path, config):
    page = html(
        "<h1>Originality report</h1><p>Search operation #1 matched 12% of the text.</p>"
        "<table><tr><th>Source</th><th>Share</th></tr><tr><td>thesis.pdf</td>"
        "<td>7%</td></tr></table>",
        title="Report 2041",
    )
    doc = make_docx([alt_chunk("rId5")], {"rId5": ("in.html", page)})
    path = write(tmp_path, "report.docx", doc)
    converted = convert_file(path, config)
    assert "# Originality report" in converted.markdown
    assert "Search operation #1 matched 12% of the text." in converted.markdown
    assert "| thesis.pdf | 7% |" in converted.markdown
    assert converted.title == "Report 2041"  # the embedded page's own title


def test_an_embedded_word_document_is_converted(tmp_path, config):
    inner = make_docx([paragraph("The inner memo sets the budget at 4,200 euros.")])
    outer = make_docx([alt_chunk("rId7")], {"rId7": ("afchunk.docx", inner)})
    converted = convert_file(write(tmp_path, "memo.docx", outer), config)
    assert "The inner memo sets the budget at 4,200 euros." in converted.markdown


def test_parts_land_in_document_order_between_ordinary_paragraphs(tmp_path, config):
    inner = make_docx([paragraph("Delta comes from a nested Word document.")])
    body = [
        paragraph("Alpha is an ordinary paragraph."),
        alt_chunk("rId2"),
        paragraph("Charlie is ordinary again."),
        alt_chunk("rId3"),
        paragraph("Echo closes the document."),
    ]
    parts = {"rId2": ("b.html", html("<p>Bravo comes from embedded HTML.</p>")),
             "rId3": ("d.docx", inner)}  # fmt: skip
    text = convert_file(write(tmp_path, "mixed.docx", make_docx(body, parts)), config).markdown
    order = ["Alpha is", "Bravo comes", "Charlie is", "Delta comes", "Echo closes"]
    positions = [text.find(marker) for marker in order]
    assert -1 not in positions, text
    assert positions == sorted(positions), text
    assert "MINIRAGALTCHUNK" not in text  # no placeholder left behind


def test_an_altchunk_inside_a_nested_document_is_followed(tmp_path, config):
    innermost = html("<p>The innermost page names the auditor Ingrid Svensson.</p>")
    inner = make_docx(
        [paragraph("Inner preface."), alt_chunk("rId9")], {"rId9": ("deep.html", innermost)}
    )
    outer = make_docx([alt_chunk("rId4")], {"rId4": ("inner.docx", inner)})
    text = convert_file(write(tmp_path, "nested.docx", outer), config).markdown
    assert text.index("Inner preface.") < text.index("Ingrid Svensson")


MHT = (
    b"MIME-Version: 1.0\r\n"
    b'Content-Type: multipart/related; boundary="XYZ"; type="text/html"\r\n\r\n'
    b'--XYZ\r\nContent-Type: text/html; charset="utf-8"\r\n'
    b"Content-Transfer-Encoding: quoted-printable\r\n\r\n"
    b"<html><body><p>=D0=A1=D0=BA=D0=BB=D0=B0=D0=B4 =E2=84=967 closes at six.</p>"
    b"</body></html>\r\n--XYZ--\r\n"
)
RTF = (
    rb"{\rtf1\ansi\ansicpg1251\deff0{\fonttbl{\f0\fcharset204 Arial;}}\pard\f0 "
    rb"\'cf\'f0\'e8\'ea\'e0\'e7 \u8470?12 signed by the director.\par}"
)


@pytest.mark.parametrize(
    ("name", "data", "expected"),
    [
        ("page.mht", MHT, "Склад №7 closes at six."),
        ("letter.rtf", RTF, "Приказ №12 signed by the director."),
        ("notes.txt", "Plain embedded note: коробка передач.".encode(), "коробка передач"),
        ("page.xhtml", html("<p>An XHTML part says hello.</p>"), "An XHTML part says hello."),
    ],
    ids=["mht", "rtf", "text", "xhtml"],
)
def test_each_kind_of_embedded_part(tmp_path, config, name, data, expected):
    doc = make_docx([alt_chunk("rId3")], {"rId3": (name, data)})
    assert expected in convert_file(write(tmp_path, "part.docx", doc), config).markdown


def test_a_missing_part_fails_that_file_with_a_reason(tmp_path, config):
    doc = make_docx([alt_chunk("rId3")], rels={"rId3": "gone.html"})
    with pytest.raises(ConversionError, match=r"broken\.docx.*word/gone\.html.*missing"):
        convert_file(write(tmp_path, "broken.docx", doc), config)


def test_an_altchunk_without_a_relationship_is_a_damaged_document(tmp_path, config):
    doc = make_docx([alt_chunk("rId8")], {"rId3": ("a.html", html("<p>x</p>"))})
    with pytest.raises(ConversionError, match=r"rId8.*no relationship.*damaged"):
        convert_file(write(tmp_path, "norel.docx", doc), config)


def test_an_external_part_is_not_fetched(tmp_path, config):
    doc = make_docx([alt_chunk("rId3")], external={"rId3": "http://example.invalid/a.html"})
    with pytest.raises(ConversionError, match="outside the document"):
        convert_file(write(tmp_path, "external.docx", doc), config)


def test_a_part_of_an_unknown_kind_says_what_is_supported(tmp_path, config):
    doc = make_docx([alt_chunk("rId3")], {"rId3": ("blob.bin", b"\x00\x01\x02binary")})
    with pytest.raises(ConversionError, match=r"application/octet-stream.*supported embedded"):
        convert_file(write(tmp_path, "blob.docx", doc), config)


def test_a_damaged_nested_document_fails_with_a_reason(tmp_path, config):
    doc = make_docx([alt_chunk("rId3")], {"rId3": ("in.docx", b"PK\x03\x04 not really a zip")})
    with pytest.raises(ConversionError, match=r"in\.docx.*not a valid Word document"):
        convert_file(write(tmp_path, "badnest.docx", doc), config)


def test_a_zip_bomb_is_refused_by_its_unpacked_size(tmp_path):
    small = load_config({"BASE_DIR": str(tmp_path), "MAX_FILE_SIZE": str(1_000_000)})
    zeros = b"<p>" + b" " * 5_000_000 + b"</p>"  # 5 MB that compress to a few KB
    doc = make_docx([alt_chunk("rId3")], {"rId3": ("big.html", zeros)})
    path = write(tmp_path, "bomb.docx", doc)
    assert path.stat().st_size < 100_000  # the file itself is well under the limit
    with pytest.raises(ConversionError, match=r"bomb\.docx unpacks to .* over MAX_FILE_SIZE"):
        convert_file(path, small)


def test_a_zip_bomb_nested_in_an_embedded_document_is_refused(tmp_path):
    small = load_config({"BASE_DIR": str(tmp_path), "MAX_FILE_SIZE": str(1_000_000)})
    inner = make_docx([paragraph("inner")], extra={"word/media/pad.bin": b"\0" * 3_000_000})
    doc = make_docx([alt_chunk("rId3")], {"rId3": ("in.docx", inner)})
    path = write(tmp_path, "nestbomb.docx", doc)
    assert path.stat().st_size < 100_000
    with pytest.raises(ConversionError, match=r"in\.docx unpacks to .* over MAX_FILE_SIZE"):
        convert_file(path, small)


def test_a_document_nested_in_itself_too_deep_stops(tmp_path, config):
    doc = make_docx([paragraph("bottom")])
    for level in range(6):
        doc = make_docx([paragraph(f"level {level}"), alt_chunk("rId3")], {"rId3": ("n.docx", doc)})
    with pytest.raises(ConversionError, match="more than 4 deep"):
        convert_file(write(tmp_path, "deep.docx", doc), config)


def test_an_ordinary_document_is_unchanged(tmp_path, config):
    doc = make_docx([paragraph("Just one paragraph."), paragraph("And another.")])
    text = convert_file(write(tmp_path, "plain.docx", doc), config).markdown
    assert text.split() == ["Just", "one", "paragraph.", "And", "another."]


def _has_alt_chunks(path: Path) -> bool:
    with zipfile.ZipFile(path) as zf:
        names = {n.lower(): n for n in zf.namelist()}
        rels = names.get("word/_rels/document.xml.rels")
        return rels is not None and b"/aFChunk" in zf.read(rels)


def _check_real_altchunk_documents(base: Path, expected: dict, config: Config) -> None:
    """Every .docx under ``base`` whose body is embedded parts gives its expected strings."""
    found = [p for p in sorted(base.rglob("*.docx")) if _has_alt_chunks(p)]
    assert found, f"no altChunk document under {base}"
    for path in found:
        strings = expected[path.relative_to(base).as_posix()]["must_include"]
        assert strings, path
        # The expectations were taken whitespace-normalised and with ** removed.
        text = " ".join(convert_file(path, config).markdown.replace("**", "").split())
        for want in strings:
            assert want in text, (path.name, want)


def test_the_real_altchunk_document_gives_its_text(fixtures: Path, config):
    """antiplagiat.docx (Антиплагиат.docx): its whole text is an embedded HTML page
    (markitdown alone gives nothing)."""
    base = fixtures / "thesis"
    expected = json.loads((base / "expected_strings.json").read_text(encoding="utf-8"))["files"]
    _check_real_altchunk_documents(base, expected, config)


@pytest.mark.corpus
def test_the_real_altchunk_documents_of_the_corpus_give_their_text(shared_data: Path, config):
    base = shared_data / "russian_docs"
    expected = json.loads((base / "expected_strings.json").read_text(encoding="utf-8"))["files"]
    _check_real_altchunk_documents(base, expected, config)


def test_sync_indexes_an_embedded_report_and_fails_only_the_broken_file(docs_root, make_index):
    page = html("<p>The plagiarism check found the borrowed chapter on glacier hydrology.</p>")
    (docs_root / "report.docx").write_bytes(
        make_docx([alt_chunk("rId2")], {"rId2": ("page.html", page)})
    )
    (docs_root / "broken.docx").write_bytes(make_docx([alt_chunk("rId2")], rels={"rId2": "x.htm"}))
    (docs_root / "other.md").write_text("# Bread\n\nBake the loaf at 220 degrees.\n")
    index = make_index()
    job = index.sync()
    assert job["counts"]["ingested"] == 2 and job["counts"]["failed"] == 1, job
    [error] = job["errors"]
    assert error["source"].endswith("broken.docx") and "word/x.htm" in error["error"]
    found = expand(index.query("glacier hydrology chapter borrowed", top_k=3))
    assert found["results"][0]["source"] == str(docs_root / "report.docx")
