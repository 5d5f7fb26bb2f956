import pytest

from siterag.normalize.encoding import _is_jis_char, japanese_score


def _reference(text: str, sample: int = 20000) -> float:
    """japanese_score as a per-character loop: what the table-driven version must agree with."""
    chars = [ch for ch in text if ord(ch) >= 0x80][:sample]
    return sum(1 for ch in chars if _is_jis_char(ch)) / len(chars) if chars else 0.0


@pytest.mark.parametrize("text", [
    "", "plain ascii <html>", "日本語のページです。", "ｶﾀｶﾅ half-width", "①②③ NEC row 13 ㈱", "café ñ €",
    "emoji 😀 and 漢字", "mojibake: ï»¿ã\x81\x82", "mixed 日本 ﾃｽﾄ ① é 😀 \ud800",
])
def test_japanese_score_matches_the_per_character_definition(text: str):
    assert japanese_score(text) == _reference(text)


def test_japanese_score_samples_the_first_non_ascii_characters():
    text = "a日" * 5 + "ｱ" * 5  # the first 5 non-ASCII characters are all JIS X 0208
    assert japanese_score(text, sample=5) == 1.0
    assert japanese_score(text, sample=10) == 0.5
    assert japanese_score("日本", sample=0) == 0.0
