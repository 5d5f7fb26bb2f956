"""`siterag ask`: retrieval, one schema-constrained generation, citations checked against the passages.

The answer path runs against the real llama-server (Gemma 3 270M); httpx.MockTransport stands in for the
endpoint only to script failures and odd replies.
"""

import json

import httpx
import pytest

from siterag.ask import MIN_SIMILARITY, NO_ANSWER, ask, format_answer
from siterag.chunking import chunk_markdown
from siterag.cli import main
from siterag.config import LLMConfig
from siterag.embedding import get_embedder
from siterag.index import IndexedDoc, sync_site
from siterag.llm import LLMClient, LLMError
from tests.conftest import write_config

TEA = ("# お茶の産地\n\n日本の代表的なお茶の産地は静岡県です。静岡県は日本一の茶の生産量を誇ります。"
       "宇治茶は京都府で作られます。")
ROBOT = "# Gyrobot\n\nGyrobot weighs 98 kg. Its weapon is a 35 kg spinning steel rim driven by a Bosch motor."
TEA_REF, ROBOT_REF = "tea/diary/2003-05-20.html", "robots/specs.htm"


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = tmp_path_factory.mktemp("ask")
    emb = get_embedder("use-multilingual-v3")
    for site, path, title, body in (("tea", "diary/2003-05-20.html", "お茶の産地", TEA),
                                    ("robots", "specs.htm", "Specifications", ROBOT)):
        d = IndexedDoc(doc_id=f"{site}/{path}", site=site, path=path, source="", title=title, category="",
                       tags=[], date="", summary="", content_hash="1", chunks=chunk_markdown(body))
        sync_site(root / "lancedb", site, [d], emb)
    return root


def scripted(*replies, seen=None):
    """An LLMClient whose endpoint answers with `replies` (dicts become the JSON content) and records requests."""
    queue = list(replies)

    def handler(request):
        if seen is not None:
            seen.append(json.loads(request.content))
        reply = queue.pop(0)
        if isinstance(reply, Exception):
            raise reply
        if isinstance(reply, httpx.Response):
            return reply
        content = json.dumps(reply, ensure_ascii=False) if isinstance(reply, dict) else reply
        return httpx.Response(200, json={"choices": [{"message": {"content": content}, "finish_reason": "stop"}]})

    return LLMClient(LLMConfig(base_url="http://llm.test/v1", retries=0, context_tokens=2048),
                     transport=httpx.MockTransport(handler), backoff_s=0)


def test_one_constrained_generation_and_invented_citations_are_dropped(data):
    seen = []
    client = scripted({"found": True, "answer": "静岡県です。", "citations": [TEA_REF, "tea/made-up.html"]}, seen=seen)
    result = ask("お茶の産地はどこ？", data, client, k=2)
    assert result.found and result.answer == "静岡県です。"
    assert result.citations == [TEA_REF] and result.dropped == ["tea/made-up.html"]
    (body,) = seen  # one request = one generation
    assert body["temperature"] == 0 and body["max_tokens"] == 512 and body["stop"]
    schema = body["response_format"]["json_schema"]["schema"]
    refs = {p.ref for p in result.passages}
    assert TEA_REF in refs and set(schema["properties"]["citations"]["items"]["enum"]) == refs
    user = body["messages"][1]["content"]
    assert f"[1] {result.passages[0].ref}" in user and "静岡県" in user and user.endswith("お茶の産地はどこ？")


def test_the_model_saying_no_or_citing_nothing_real_means_no_answer(data):
    result = ask("お茶の産地はどこ？", data, scripted({"found": False, "answer": "", "citations": []}))
    assert not result.found and result.answer == NO_ANSWER and result.reason == "model_no_answer"
    result = ask("お茶の産地はどこ？", data, scripted({"found": True, "answer": "群馬", "citations": ["x/y.html"]}))
    assert not result.found and result.reason == "no_valid_citation" and result.dropped == ["x/y.html"]
    assert result.model_answer == "群馬"
    made_up = ask("お茶の産地はどこ？", data, scripted({"found": True, "answer": "静岡県で、全国の４５％です。",
                                                    "citations": [TEA_REF]}))
    assert not made_up.found and made_up.reason == "unsupported_numbers"  # "45" is in no passage
    dots = ask("お茶の産地はどこ？", data, scripted({"found": True, "answer": "...", "citations": [TEA_REF]}))
    assert not dots.found and dots.reason == "model_no_answer"


def test_printed_answers_list_their_sources_or_say_why_there_is_none(data):
    found = ask("お茶の産地はどこ？", data, scripted({"found": True, "answer": "静岡県です。",
                                                  "citations": [TEA_REF, "x/y.html"]}))
    text = format_answer(found)
    assert text.startswith("静岡県です。\n\nSources:\n  [1] tea/diary/2003-05-20.html  お茶の産地")
    assert "dropped citations that are not among the passages: x/y.html" in text
    none = ask("Who won the 2018 FIFA World Cup final?", data, scripted())
    assert format_answer(none).startswith(f"{NO_ANSWER}\n(no passage is close to the question)\nClosest pages:")


def test_low_retrieval_scores_answer_without_asking_the_model(data):
    seen = []
    result = ask("Who won the 2018 FIFA World Cup final?", data, scripted(seen=seen))
    assert not result.found and result.reason == "low_retrieval" and seen == []
    assert all(p.similarity < MIN_SIMILARITY for p in result.passages)


def test_llm_failures_raise_llm_errors(data):
    with pytest.raises(LLMError) as down:
        ask("お茶の産地はどこ？", data, scripted(httpx.ConnectError("refused")))
    assert down.value.reason == "down"
    truncated = httpx.Response(200, json={"choices": [{"message": {"content": '{"found": true, "ans'},
                                                       "finish_reason": "length"}]})
    with pytest.raises(LLMError) as cut:
        ask("お茶の産地はどこ？", data, scripted(truncated))
    assert cut.value.reason == "length"
    with pytest.raises(LLMError) as bad:
        ask("お茶の産地はどこ？", data, scripted({"answer": "no found field"}))
    assert bad.value.reason == "schema"


def _config(tmp_path, data, llm: str) -> str:
    return str(write_config(tmp_path, f'[defaults]\ndata_dir = "{data}"\n{llm}\n'
                                      '[[site]]\nname = "tea"\nstart_urls = ["http://127.0.0.1:9/"]\n'))


def test_cli_errors_are_one_line_without_traceback(tmp_path, data, capsys):
    down = _config(tmp_path, data, '[llm]\nbase_url = "http://127.0.0.1:9/v1"\nretries = 0\ntimeout = 5')
    assert main(["--config", down, "ask", "お茶の産地はどこ？"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("siterag: error: LLM down") and "127.0.0.1:9" in err and "Traceback" not in err
    empty = _config(tmp_path, tmp_path / "nothing", '[llm]\nbase_url = "http://127.0.0.1:9/v1"')
    assert main(["--config", empty, "ask", "お茶の産地はどこ？"]) == 2
    assert "no index" in capsys.readouterr().err
    assert main(["--config", _config(tmp_path, data, ""), "ask", "お茶の産地はどこ？"]) == 2
    assert "needs an LLM" in capsys.readouterr().err


@pytest.mark.llama
def test_ask_with_the_real_llama_server(tmp_path, data, llama_url, capsys):
    port = llama_url.rsplit(":", 1)[1].split("/")[0]
    # embedded = true on the fixture's port: the CLI finds that server healthy and uses it
    cfg = _config(tmp_path, data, f"[llm]\nembedded = true\nembedded_port = {port}\ncontext_tokens = 4096\n"
                                  "timeout = 300\nretries = 1")
    rc = main(["--config", cfg, "ask", "What does Gyrobot weigh?", "-k", "2", "--json"])
    out = json.loads(capsys.readouterr().out)
    refs = {p["ref"] for p in out["passages"]}
    assert ROBOT_REF in refs and rc == (0 if out["found"] else 1)
    assert set(out["citations"]) <= refs and out["dropped_citations"] == []  # the grammar allows no other path
    if out["found"]:
        assert out["citations"] and out["answer"] and out["answer"] != NO_ANSWER
    else:
        assert out["answer"] == NO_ANSWER and out["reason"] in ("model_no_answer", "no_valid_citation",
                                                                "unsupported_numbers")
