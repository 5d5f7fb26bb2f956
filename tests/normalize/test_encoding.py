from collections import Counter

from siterag.acquire.purge import is_binary, looks_like_html
from siterag.normalize.encoding import detect_encoding, rewrite_meta_charset, to_utf8

JA = "日本語のページです。お茶の産地は静岡県です。"


def page(charset: str | None, body: str = JA) -> str:
    meta = f'<meta http-equiv="Content-Type" content="text/html; charset={charset}">' if charset else ""
    return f"<html><head>{meta}<title>t</title></head><body><p>{body}</p></body></html>"


def test_declared_and_undeclared_japanese_encodings_decode_correctly():
    for codec, label in (("cp932", "Shift_JIS"), ("euc_jp", "EUC-JP"), ("iso2022_jp", "ISO-2022-JP")):
        for declared in (label, None):
            text, det = to_utf8(page(declared).encode(codec))
            assert JA in text, (codec, declared, det)


def test_wrong_declaration_is_not_trusted():
    text, det = to_utf8(page("EUC-JP").encode("cp932"))
    assert JA in text
    assert det.encoding == "cp932" and det.declared == "euc-jp"


def test_shift_jis_is_decoded_as_cp932_for_nec_characters():
    data = page("Shift_JIS", "丸数字①と髙橋さん").encode("cp932")
    text, det = to_utf8(data)
    assert "丸数字①と髙橋さん" in text and det.encoding == "cp932"


def test_latin1_page_and_utf8_bom():
    text, _ = to_utf8(page("iso-8859-1", "Price: £5").encode("latin-1"))
    assert "£5" in text
    text, det = to_utf8(b"\xef\xbb\xbf" + page(None, "héllo").encode("utf-8"))
    assert "héllo" in text and det.method == "bom"


def test_meta_charset_rewritten_or_added_and_line_endings_lf():
    text, _ = to_utf8(page("Shift_JIS").replace("<body>", "<body>\r\nline\rnext").encode("cp932"))
    assert "charset=UTF-8" in text and "Shift_JIS" not in text
    assert "\r" not in text
    assert rewrite_meta_charset("<html><head><title>x</title></head></html>").count('<meta charset="UTF-8">') == 1
    assert rewrite_meta_charset('<meta charset="euc-jp">') == '<meta charset="UTF-8">'


def test_binary_detection_is_by_content():
    assert is_binary(b"GIF89a\x01\x00")
    assert is_binary(b"<html>\x00\x00\x00")
    assert not is_binary(page("ISO-2022-JP").encode("iso2022_jp"))  # ESC bytes are text
    assert not is_binary(b"")
    assert looks_like_html(b"<HTML><BODY>x")
    assert not looks_like_html(b"body { color: red }")


def test_a_programs_source_printing_html_is_no_page():
    """Read on a held-out sample (seed 1255): leftyuncle's `email/lib/CGI/Minimal/Misc.pm`, a Perl module whose
    here-documents print a `<table>`, was a corpus document titled `untitled`; a page whose text mentions code
    stays a page."""
    module = b'package CGI::Minimal;\n\nuse strict;\n\nsub table {\n  my $outs = <<"EOF";\n<table border="1">\n'
    assert not looks_like_html(module)
    assert not looks_like_html(b'#!/usr/bin/perl\nprint "<html><body>hello</body></html>";\n')
    assert not looks_like_html(b'#include <stdio.h>\nconst char *page = "<html><p>x";\n')
    assert looks_like_html(b'<html><body><p>use strict; package Foo;</p></body></html>')
    assert looks_like_html(b'\n\n<!-- package list -->\n<html><body><p>use strict;</p>')


def test_shared_crest_site_encodings_match_the_byte_census(shared_sites):
    """SOURCE.txt: Shift_JIS 175 | EUC-JP 43 | ISO-2022-JP 16, 17 pages with no declaration at all."""
    root = shared_sites / "crest-digitalcity"
    counts: Counter[str] = Counter()
    for path in root.rglob("*"):
        if not path.is_file() or path.name == "SOURCE.txt":
            continue
        data = path.read_bytes()
        if is_binary(data) or not looks_like_html(data):
            continue
        det = detect_encoding(data)
        counts[det.encoding] += 1
        text = data.decode(det.encoding, errors="replace")
        assert "\ufffd" not in text, path
    assert counts["cp932"] == 175
    assert counts["euc_jp"] == 43
    assert counts["iso2022_jp_ext"] == 16


def test_a_latin_page_whose_quotes_pair_into_kanji_keeps_its_declared_charset():
    """An English page declaring ISO-8859-1 whose cp1252 quotes happen to be valid Shift_JIS (`God\\x92s` read as
    `God壮s`) is Latin: Japanese text holds kana. A Japanese page that declares a Latin charset is still Japanese."""
    from siterag.normalize.encoding import detect_encoding

    english = (b'<html><head><meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1"></head><body>'
               b"<h1>How You Can Receive God\x92s Power</h1><p>It\x92s Christ\x92s love.</p></body></html>")
    assert detect_encoding(english).encoding == "cp1252"
    japanese = ('<html><head><meta charset="iso-8859-1"></head><body><p>お茶の産地は静岡県です。</p></body></html>'
                ).encode("cp932")
    assert detect_encoding(japanese).encoding == "cp932"
