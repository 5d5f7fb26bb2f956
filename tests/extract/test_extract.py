import json

import httpx
import pytest

from siterag.config import LLMConfig
from siterag.extract.blocks import html_to_blocks, render_blocks
from siterag.extract.extract import extract_page, windows
from siterag.llm.client import LLMClient, LLMError, parse_answer

NAV = '<td><a href="a.html">Home</a><br><a href="b.html">Diary</a><br><a href="c.html">Links</a></td>'
ARTICLE = ("<h1>お茶の産地</h1><p>日本の代表的なお茶の産地は、静岡県、鹿児島県、三重県、京都府の宇治などです。"
           "静岡県は生産量が日本一で、深蒸し茶が有名です。</p><p>宇治茶は京都府南部で作られるお茶で、鎌倉時代から続く"
           "長い歴史があります。<a href='uji.html'>宇治の話</a>もどうぞ。<img src='cha.jpg' alt='茶畑'></p>")
LAYOUT = (f"<html><head><title>お茶</title></head><body><table width=700><tr>{NAV}<td>{ARTICLE}</td></tr></table>"
          "<center>Copyright (C) 2003 緑茶の部屋 All rights reserved. あなたは 1234 人目</center></body></html>")


def mock_client(handler, **cfg) -> LLMClient:
    config = LLMConfig(base_url="http://llm.test/v1", retries=cfg.pop("retries", 1), **cfg)
    return LLMClient(config, transport=httpx.MockTransport(handler), backoff_s=0)


def answer(content: str, finish: str = "stop") -> httpx.Response:
    return httpx.Response(200, json={"choices": [{"message": {"content": content}, "finish_reason": finish}],
                                     "usage": {"prompt_tokens": 10, "completion_tokens": 3}})


def test_table_layout_page_keeps_article_and_drops_nav_and_footer():
    result = extract_page(LAYOUT, "heuristic")
    md = result.markdown
    assert "# お茶の産地" in md and "深蒸し茶" in md and "鎌倉時代" in md
    assert "[宇治の話](uji.html)" in md and '![](cha.jpg "茶畑")' in md
    assert "Diary" not in md and "Copyright" not in md and "人目" not in md


def test_br_separated_text_and_pre_and_data_table_render():
    html = ("<html><body>一行目です。<br>二行目です。<br><br>次の段落です。<pre>code  line\n  indented</pre>"
            "<table border=1><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table></body></html>")
    blocks, _ = html_to_blocks(html)
    kinds = [b.kind for b in blocks]
    assert kinds == ["para", "para", "pre", "table"]
    md = render_blocks(blocks, {b.id for b in blocks})
    assert "一行目です。  \n二行目です。" in md  # a hard break
    assert "```\ncode  line\n  indented\n```" in md
    assert "| a | b |\n|---|---|\n| 1 | 2 |" in md


def test_frameset_page_is_skipped_with_its_frames():
    html = '<html><frameset cols="20%,*"><frame src="menu.html"><frame src="main.html"></frameset></html>'
    result = extract_page(html, "heuristic")
    assert result.mode == "frameset" and result.frames == ["menu.html", "main.html"]


def test_llm_mode_renders_only_chosen_blocks_verbatim():
    seen = {}

    def handler(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        seen["body"] = body
        return answer('{"main": [1, 2]}')

    client = mock_client(handler)
    result = extract_page(LAYOUT, "llm", client)
    blocks, _ = html_to_blocks(LAYOUT)
    assert result.kept == [1, 2] and result.mode == "llm" and result.llm_calls == 1
    assert result.markdown == render_blocks(blocks, {1, 2})
    body = seen["body"]
    assert body["temperature"] == 0 and body["max_tokens"] > 0 and body["stop"]
    assert body["response_format"]["type"] == "json_schema"
    # The prompt carries short previews, not the page's HTML.
    assert "<td>" not in body["messages"][1]["content"]


@pytest.mark.parametrize("reply,reason", [
    (lambda r: answer("not json at all"), "invalid_json"),
    (lambda r: answer('{"main": [1', "length"), "length"),
    (lambda r: answer('{"main": [999]}'), "schema"),
    (lambda r: httpx.Response(500, text="boom"), "http"),
])
def test_llm_failures_fall_back_to_heuristic_and_are_marked(reply, reason):
    client = mock_client(reply)
    result = extract_page(LAYOUT, "llm", client)
    assert result.fallback == reason and result.mode == "heuristic"
    assert "深蒸し茶" in result.markdown


def test_llm_down_is_retried_then_falls_back():
    calls = []

    def handler(request):
        calls.append(1)
        raise httpx.ConnectError("refused")

    client = mock_client(handler, retries=2)
    result = extract_page(LAYOUT, "llm", client)
    assert result.fallback == "down" and len(calls) == 3


def test_hybrid_asks_only_about_uncertain_blocks():
    prompts = []

    def handler(request):
        prompts.append(json.loads(request.content)["messages"][1]["content"])
        return answer('{"main": []}')

    result = extract_page(LAYOUT, "hybrid", mock_client(handler))
    assert "深蒸し茶" in result.markdown
    for prompt in prompts:
        assert "深蒸し茶" not in prompt  # clear article blocks are settled without the model


def test_long_pages_are_windowed():
    paragraphs = "".join(f"<p>段落{i}の本文です。これは長いページです。</p>" for i in range(300))
    html = "<html><body>" + paragraphs + "</body></html>"
    blocks, _ = html_to_blocks(html)
    groups = windows(blocks, 400)
    assert len(groups) > 5 and sum(len(g) for g in groups) == len(blocks)
    calls = []

    def handler(request):
        calls.append(1)
        ids = [int(line[1:line.index("]")]) for line in json.loads(request.content)["messages"][1]["content"]
               .splitlines() if line.startswith("[")]
        return answer(json.dumps({"main": ids}))

    client = mock_client(handler, context_tokens=1200, max_tokens=64)
    result = extract_page(html, "llm", client)
    assert len(calls) > 1 and len(result.kept) == len(blocks)


def test_parse_answer_rejects_missing_content():
    with pytest.raises(LLMError) as err:
        parse_answer({"choices": []}, {"type": "object"})
    assert err.value.reason == "invalid_json"


@pytest.mark.llama
def test_real_llama_server_answers_block_ids(llama_url):
    client = LLMClient(LLMConfig(base_url=llama_url, context_tokens=4096))
    result = extract_page(LAYOUT, "llm", client)
    assert result.llm_calls >= 1
    blocks, _ = html_to_blocks(LAYOUT)
    assert set(result.kept) <= {b.id for b in blocks}
    # Whatever the small model picks, the body is the page's own text.
    assert result.markdown.strip() and all(line in render_blocks(blocks, {b.id for b in blocks})
                                           for line in result.markdown.splitlines() if line)


def logprob_answer(p_content: float) -> httpx.Response:
    import math

    top = [{"token": "A", "logprob": math.log(p_content)}, {"token": "B", "logprob": math.log(1 - p_content)}]
    return httpx.Response(200, json={"choices": [{"message": {"content": "A" if p_content >= 0.5 else "B"},
                                                  "finish_reason": "length",
                                                  "logprobs": {"content": [{"token": "A", "top_logprobs": top}]}}],
                                     "usage": {"prompt_tokens": 50, "completion_tokens": 1}})


def test_parse_choice_reads_top_logprobs_or_the_token():
    from siterag.llm.client import parse_choice

    probs = parse_choice(json.loads(logprob_answer(0.8).content), ("A", "B"))
    assert abs(probs["A"] - 0.8) < 1e-6
    plain = {"choices": [{"message": {"content": "B"}}]}
    assert parse_choice(plain, ("A", "B")) == {"A": 0.0, "B": 1.0}
    with pytest.raises(LLMError):
        parse_choice({"choices": [{"message": {"content": "maybe"}}]}, ("A", "B"))


def test_hybrid_changes_a_block_only_when_the_model_is_confident():
    from siterag.extract.extract import judge_blocks, uncertain_blocks
    from siterag.extract.heuristics import block_votes, heuristic_keep

    blocks, _ = html_to_blocks(LAYOUT)
    votes = block_votes(LAYOUT, blocks)
    # Make one article paragraph "uncertain" the way a disagreeing voter would.
    votes.keep["readability"][2] = not votes.keep["readability"][2]
    assert 2 in {b.id for b in uncertain_blocks(blocks, votes)}
    base = heuristic_keep(blocks, votes)
    unsure = mock_client(lambda r: logprob_answer(0.5))
    probs = judge_blocks(unsure, "お茶", uncertain_blocks(blocks, votes))
    assert 2 in probs and all(p == pytest.approx(0.5) for p in probs.values())
    from siterag.extract.extract import hybrid_keep

    kept, dropped = min(base), min({b.id for b in blocks} - base)
    assert hybrid_keep(blocks, votes, {kept: 0.5, dropped: 0.5}) == base  # a coin flip changes nothing
    assert hybrid_keep(blocks, votes, {kept: 0.01}) == base - {kept}  # a confident "not content" drops it
    assert hybrid_keep(blocks, votes, {dropped: 0.99}) == base | {dropped}  # a confident "content" adds one
    result = extract_page(LAYOUT, "hybrid", unsure)
    assert result.mode == "hybrid" and "深蒸し茶" in result.markdown


@pytest.mark.llama
def test_real_llama_server_gives_block_probabilities(llama_url):
    from siterag.extract.extract import judge_blocks

    client = LLMClient(LLMConfig(base_url=llama_url, context_tokens=4096))
    blocks, _ = html_to_blocks(LAYOUT)
    probs = judge_blocks(client, "お茶", blocks)
    assert set(probs) == {b.id for b in blocks} and all(0.0 <= p <= 1.0 for p in probs.values())
    # llama-server returns top_logprobs, so these are real probabilities, not just 0/1 votes.
    assert any(0.0 < p < 1.0 for p in probs.values())
    assert client.stats.calls == len(blocks) and client.stats.prompt_tokens > 0


def test_a_word_export_without_a_title_is_named_by_its_opening_paragraph_not_its_first_heading():
    body = ("<body><p class=MsoNormal><b>魔術</b></p><h2>登場人物</h2><p>健太　中学二年生</p>"
            "<p>健太　今日は、魔術の練習をしよう。</p></body>")
    word = '<html><head><meta name="ProgId" content="Word.Document"><title>{}</title></head>' + body + "</html>"
    assert extract_page(word.format(""), "heuristic").title == "魔術"
    # a title someone set stays, and a page no Word saved keeps its first heading as before
    assert extract_page(word.format("魔術　脚本集２収録作品"), "heuristic").title == "魔術 脚本集２収録作品"
    assert extract_page(f"<html><head><title></title></head>{body}</html>", "heuristic").title == "登場人物"


def test_a_title_holding_a_stray_tag_is_text():
    html = "<html><head><title>sfddiff -- 比較プログラム</A></title></head><body><p>本文です。</p></body></html>"
    assert extract_page(html, "heuristic").title == "sfddiff -- 比較プログラム"


@pytest.mark.parametrize("placeholder", ["新しいページ 1", "無題ドキュメント", "Untitled Document",
                                         "スライド タイトルなし", "ｽﾗｲﾄﾞ ﾀｲﾄﾙなし"])
def test_an_editors_default_title_names_no_page(placeholder):
    html = (f"<html><head><title>{placeholder}</title></head><body><h1>ありあけすみれ</h1><p>本文です。</p>"
            "</body></html>")
    assert extract_page(html, "heuristic").title == "ありあけすみれ"


def test_a_frameset_without_frames_is_no_page_of_text():
    """PowerPoint's HTML export: a script redirects to the slides, the <frameset> holds only its "no frames"
    notice; that notice is no text of the page."""
    html = ("<html><head><title>座標系</title><script>window.location.replace('x.files/slide0001.htm')</script>"
            "</head><frameset><noframes><body><p>このページはフレームを使っていますが、お使いのブラウザはフレームを"
            "サポートしていません。</p></body></noframes></frameset></html>")
    result = extract_page(html, "heuristic")
    assert result.mode == "frameset" and result.markdown == "" and result.frames == []
