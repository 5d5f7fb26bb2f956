"""`siterag ask`: retrieval, the gate, one schema-constrained generation, and the answer checked against the
passages (citations, support, language, figures).

The answer path runs against the real llama-server (Gemma 3 270M); httpx.MockTransport stands in for the
endpoint to script failures and the replies the checks must catch.
"""

import json
import re
from pathlib import Path

import httpx
import pytest

from siterag.cli import main
from siterag.config import LLMConfig
from siterag.index.chunking import chunk_markdown
from siterag.index.embedding import get_embedder
from siterag.index.index import IndexedDoc, sync_site
from siterag.llm.client import LLMClient, LLMError
from siterag.search.ask import (
    MIN_SIMILARITY,
    MIN_SUPPORT,
    NO_ANSWER,
    SYSTEM,
    ask,
    format_answer,
    passes_gate,
    same_language,
)
from siterag.search.search_api import Hit
from tests.conftest import write_config

TEA = ("# お茶の産地\n\n日本の代表的なお茶の産地は静岡県です。静岡県は日本一の茶の生産量を誇ります。"
       "宇治茶は京都府で作られます。")
ROBOT = "# Gyrobot\n\nGyrobot weighs 98 kg. Its weapon is a 35 kg spinning steel rim driven by a Bosch motor."
TEA_REF, ROBOT_REF = "tea/diary/2003-05-20.html", "robots/specs.htm"
# The answer of the worked example the prompt used to carry: it came back, word for word, for unrelated questions.
OLD_EXAMPLE = "Most of it comes from Shizuoka."
PROFILE = "# プロフィール\n\n山田花子。1965年3月12日、京都市生まれ。趣味は茶道と山歩き。"
DIARY = "# 日記\n\n今日は花子さんの誕生日。みんなでケーキを食べて、夜は句会に出た。"
PROFILE_REF, DIARY_REF = "hanako/profile.html", "hanako/diary/2003.html"


def _index(root, site, pages):
    emb = get_embedder("use-multilingual-v3")
    docs = [IndexedDoc(doc_id=f"{site}/{path}", site=site, path=path, source="", title=title, category="",
                       tags=[], date="", summary="", content_hash="1", chunks=chunk_markdown(body))
            for path, title, body in pages]
    sync_site(root / "lancedb", site, docs, emb)


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = tmp_path_factory.mktemp("ask")
    _index(root, "tea", [("diary/2003-05-20.html", "お茶の産地", TEA)])
    _index(root, "robots", [("specs.htm", "Specifications", ROBOT)])
    return root


@pytest.fixture(scope="module")
def hanako(tmp_path_factory):
    """A personal site: a profile page with the birth date, a diary page that only mentions the birthday."""
    root = tmp_path_factory.mktemp("ask-hanako")
    _index(root, "hanako", [("profile.html", "プロフィール", PROFILE), ("diary/2003.html", "日記", DIARY)])
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
    assert made_up.support >= MIN_SUPPORT  # its words are the passage's: only the figure is made up
    part = ask("What does Gyrobot weigh?", data, scripted({"found": True, "answer": "Gyrobot weighs 8 kg.",
                                                           "citations": [ROBOT_REF]}))
    assert not part.found and part.reason == "unsupported_numbers"  # 8 is only a digit of the passage's 98
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


# ---- prompt examples, support, language, second page, gate ----------------------------------------------

def test_the_prompt_shows_the_reply_form_with_placeholders_only():
    assert "Shizuoka" not in SYSTEM and "tea" not in SYSTEM.lower() and "Example" not in SYSTEM
    answers = re.findall(r'"answer": "([^"]*)"', SYSTEM)
    citations = re.findall(r'"citations": \[([^\]]*)\]', SYSTEM)
    assert answers and set(answers) <= {"<answer>", ""}
    assert citations and set(citations) <= {'"<site/path>"', ""}


@pytest.mark.parametrize("question, leaked", [
    ("What does Gyrobot weigh?", OLD_EXAMPLE),
    ("Gyrobot の重さは？", OLD_EXAMPLE),
    ("静岡のお茶の特徴は？", OLD_EXAMPLE),  # the README's question: its passage says 静岡県, never "Shizuoka"
    ("What does Gyrobot weigh?", "<answer>"),  # the placeholder itself
    ("What does Gyrobot weigh?", "Yes, it does."),  # nothing in it the passages could confirm
])
def test_an_answer_that_is_not_in_the_passages_words_is_refused(data, question, leaked):
    seen = []
    client = scripted({"found": True, "answer": leaked, "citations": [ROBOT_REF, TEA_REF]}, seen=seen)
    result = ask(question, data, client)
    assert len(seen) == 1  # the model was asked, and its answer was refused
    words = {w.strip(".").lower() for p in result.passages for w in p.text.split()}
    assert not {"shizuoka", "comes"} & words
    assert not result.found and result.reason == "unsupported" and result.answer == NO_ANSWER
    assert result.model_answer == leaked and result.support < MIN_SUPPORT
    assert "not in the passages' words" in format_answer(result)


def test_an_answer_that_only_repeats_the_question_is_refused(data):
    for question, echo in (("What does Gyrobot weigh?", "Gyrobot weighs."), ("お茶の産地はどこ？", "お茶の産地です。")):
        result = ask(question, data, scripted({"found": True, "answer": echo, "citations": [ROBOT_REF, TEA_REF]}))
        assert not result.found and result.reason == "question_echo" and result.support == 1.0
    assert "only repeats the question" in format_answer(result)


def test_an_answer_in_the_passages_words_stands(data):
    result = ask("What does Gyrobot weigh?", data, scripted({"found": True, "answer": "Gyrobot weighs 98 kg.",
                                                             "citations": [ROBOT_REF]}))
    assert result.found and result.answer == "Gyrobot weighs 98 kg." and result.support == 1.0
    paraphrase = ask("お茶の産地はどこ？", data, scripted({"found": True, "answer": "日本一の茶の産地は静岡県です。",
                                                        "citations": [TEA_REF]}))
    assert paraphrase.found and paraphrase.citations == [TEA_REF]


def test_answers_in_another_language_than_the_question_are_refused(data):
    seen = []
    english = ask("Gyrobot の重さは？", data, scripted({"found": True, "answer": "Gyrobot weighs 98 kg.",
                                                     "citations": [ROBOT_REF]}, seen=seen))
    assert not english.found and english.reason == "wrong_language" and english.support == 1.0
    assert "Answer in Japanese" in seen[0]["messages"][1]["content"]  # the model was told
    japanese = ask("What does Gyrobot weigh?", data, scripted({"found": True, "answer": "Gyrobot の重さは 98 kg です。",
                                                               "citations": [ROBOT_REF]}, seen=seen))
    assert not japanese.found and japanese.reason == "wrong_language"
    assert "Answer in English." in seen[1]["messages"][1]["content"]
    assert "answered in another language" in format_answer(japanese)
    for question, answer in (("Gyrobot の重さは？", "Gyrobot の重さは 98 kg です。"),  # the question's language
                             ("Gyrobot の重さは？", "98 kg"),  # a bare figure
                             ("Gyrobot の武器のモーターは？", "Bosch"),  # a bare name
                             ("Which prefecture grows the most tea?", "静岡県")):
        result = ask(question, data, scripted({"found": True, "answer": answer, "citations": [ROBOT_REF, TEA_REF]}))
        assert result.found and result.answer == answer, (question, answer, result.reason)
    assert same_language("Where is the lab?", "The lab is at 京都市上京区今出川通.")  # a quoted address
    assert not same_language("Where is the lab?", "研究室は京都市にあります。")


def test_a_figure_held_by_another_retrieved_page_adds_that_page_instead_of_refusing(hanako):
    seen = []
    reply = {"found": True, "answer": "花子さんは1965年3月12日生まれです。", "citations": [DIARY_REF]}
    result = ask("花子さんの誕生日はいつ？", hanako, scripted(reply, seen=seen))
    assert {p.ref for p in result.passages} == {PROFILE_REF, DIARY_REF}
    assert result.found and result.answer == reply["answer"] and result.reason == ""
    assert result.citations == [DIARY_REF, PROFILE_REF] and result.added == [PROFILE_REF]
    assert result.to_dict()["added_citations"] == [PROFILE_REF]
    text = format_answer(result)
    assert f"[2] {PROFILE_REF}" in text and f"(added {PROFILE_REF}: it holds the answer's figures" in text
    made_up = {**reply, "answer": "花子さんは1966年3月12日生まれです。"}
    wrong = ask("花子さんの誕生日はいつ？", hanako, scripted(made_up))
    assert not wrong.found and wrong.reason == "unsupported_numbers" and wrong.added == []  # 1966: in no passage
    right = ask("花子さんの誕生日はいつ？", hanako, scripted({**reply, "citations": [PROFILE_REF]}))
    assert right.found and right.citations == [PROFILE_REF] and right.added == []


def _hit(text: str, similarity: float) -> Hit:
    return Hit(site="s", path="p.html", title="Specs", date="", score=0.0, snippet="", heading="", doc_id="s/p.html",
               similarity=similarity, text=f"Specs\n{text}")


def test_the_gate_passes_on_cosine_or_on_the_question_terms_a_passage_holds():
    near, far = [_hit(ROBOT, MIN_SIMILARITY)], [_hit(ROBOT, MIN_SIMILARITY - 0.01)]
    assert passes_gate(near) and not passes_gate(far)
    assert passes_gate(far, question="Gyrobot Bosch motor weapon rim")  # a keyword question: all its terms
    assert passes_gate(far, question="Gyrobot の Bosch モーター")  # 2 of its 5 terms
    assert not passes_gate(far, question="Who won the 2018 FIFA World Cup final?")
    assert not passes_gate(far, question="Gyrobot に Android アプリはある？ 料金は？")  # 1 term of 5


def test_the_gate_asks_the_model_when_only_the_terms_are_there(data):
    seen = []
    never = 1.01  # no cosine reaches it: only the question's terms can open the gate
    ask("Gyrobot weapon Bosch motor", data, scripted({"found": False, "answer": "", "citations": []}, seen=seen),
        min_similarity=never)
    assert len(seen) == 1
    closed = ask("Who won the 2018 FIFA World Cup final?", data, scripted(seen=seen), min_similarity=never)
    assert closed.reason == "low_retrieval" and len(seen) == 1


def test_the_gate_benchmark_has_unanswerable_questions_in_both_languages():
    lines = (Path(__file__).resolve().parents[2] / "benchmarks" / "questions.jsonl").read_text("utf-8").splitlines()
    questions = [json.loads(line) for line in lines if line.strip()]
    assert len({q["id"] for q in questions}) == len(questions)
    # an answerable question also names its answer: a 5-40 character span of an answering page (ask_gate --passages)
    assert all(set(q) == {"id", "lang", "kind", "q", "relevant"} | ({"answer"} if q["relevant"] else set())
               for q in questions)
    assert all(5 <= len(q["answer"]) <= 40 for q in questions if q["relevant"])
    negatives = [q for q in questions if not q["relevant"]]
    assert len(negatives) >= 12 and all(q["kind"] == "negative" for q in negatives)
    assert {q["lang"] for q in negatives} == {"ja", "en"}


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
    assert main(["--config", _config(tmp_path, data, ""), "ask", "--llm", "お茶の産地はどこ？"]) == 2
    assert "needs an LLM" in capsys.readouterr().err
    assert main(["--config", _config(tmp_path, data, ""), "ask", "お茶の産地はどこ？", "--site", "taa"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("siterag: error: unknown site 'taa'") and "tea" in err


def test_without_a_model_ask_shows_the_matching_sentences_as_passages(tmp_path, data, capsys):
    cfg = _config(tmp_path, data, "[llm]\nembedded = true\n")  # only the packaged model: not used unless --llm
    assert main(["--config", cfg, "ask", "日本一のお茶の産地はどこですか？"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Passages from the archive that match the question (not an answer")
    assert "**静岡**県は**日本一**の**茶**の生産量" in out or "**日本一**" in out
    assert f"[{TEA_REF.split('/', 1)[0]}/{TEA_REF.split('/', 1)[1]}]" in out and "お茶の産地" in out
    assert main(["--config", cfg, "ask", "What does Gyrobot weigh?", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["mode"] == "passages" and got["found"]
    assert got["sentences"][0]["ref"] == ROBOT_REF and "98 kg" in got["sentences"][0]["text"]


def test_passages_mode_finds_the_sentence_holding_the_answer(data):
    result = ask("Which motor drives the spinning rim?", data, None)
    assert result.mode == "passages" and result.found
    assert any("Bosch" in s.text and s.ref == ROBOT_REF for s in result.sentences)
    assert all(s.text.count("**") % 2 == 0 for s in result.sentences)
    nothing = ask("量子コンピュータの誤り訂正符号について", data, None)
    assert not nothing.found and nothing.answer == NO_ANSWER


@pytest.mark.llama
def test_ask_with_the_real_llama_server(tmp_path, data, llama_url, capsys):
    port = llama_url.rsplit(":", 1)[1].split("/")[0]
    # embedded = true on the fixture's port: the CLI finds that server healthy and uses it
    cfg = _config(tmp_path, data, f"[llm]\nembedded = true\nembedded_port = {port}\ncontext_tokens = 4096\n"
                                  "timeout = 300\nretries = 1")
    rc = main(["--config", cfg, "ask", "--llm", "What does Gyrobot weigh?", "-k", "2", "--json"])
    out = json.loads(capsys.readouterr().out)
    refs = {p["ref"] for p in out["passages"]}
    assert ROBOT_REF in refs and rc == (0 if out["found"] else 1)
    assert set(out["citations"]) <= refs and out["dropped_citations"] == []  # the grammar allows no other path
    if out["found"]:
        assert out["citations"] and out["answer"] and out["answer"] != NO_ANSWER
    else:
        assert out["answer"] == NO_ANSWER and out["reason"] in REFUSALS


REFUSALS = ("model_no_answer", "no_valid_citation", "unsupported", "question_echo", "wrong_language",
            "unsupported_numbers")


@pytest.mark.llama
@pytest.mark.parametrize("question", ["静岡のお茶の特徴は？", "FontForge を Mac OS X にインストールするには？",
                                      "How heavy is Gyrobot?"])
def test_the_real_model_answers_from_the_passages_in_the_question_language_or_not_at_all(data, llama_url,
                                                                                       question):
    client = LLMClient(LLMConfig(base_url=llama_url, context_tokens=4096, timeout=300, retries=1))
    result = ask(question, data, client, min_similarity=-1.0)  # the gate always opens: the model is asked
    assert OLD_EXAMPLE not in result.answer and "Shizuoka" not in result.answer
    if result.found:
        assert result.support >= MIN_SUPPORT and same_language(question, result.answer)
        assert result.citations and set(result.citations) <= {p.ref for p in result.passages}
    else:
        assert result.answer == NO_ANSWER and result.reason in REFUSALS


def test_a_label_is_shown_with_the_line_it_announces():
    from siterag.search.extractive import best_sentences

    text = "Specs > Weight\nThe robot is small.\n\nWeight:\n\n98kg.\n\nIt has two wheels."
    hit = Hit(site="r", path="specs.htm", title="Specs", date="", score=1.0, snippet="", heading="", doc_id="r/s",
              text=text)
    shown = [s.text for s in best_sentences("What is the weight of the robot?", [hit])]
    assert any("**Weight**:" in s and "98kg." in s for s in shown), shown
