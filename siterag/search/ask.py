"""`siterag ask`: an answer from the archive's own pages, citing `site/path` for what it says.

1. Retrieve the best passages (hybrid search at passage level, at most two per page).
2. Gate: when even the best passage is far from the question (cosine similarity under MIN_SIMILARITY) the
   archive holds no answer, and the LLM is not asked at all. The gate is lenient on purpose (see
   MIN_SIMILARITY): retrieval scores do not separate answerable from unanswerable questions well, so the
   model's `found` and the checks of step 4 do most of the refusing.
3. One generation: the passages, numbered and labelled with their `site/path`, and the question; the model
   must answer only from them as JSON `{"found", "answer", "citations"}`, in the question's language —
   temperature 0, explicit max_tokens and stop, and a JSON schema whose `citations` enum is the retrieved paths
   (llama-server enforces it as a grammar). The prompt shows the reply's form with placeholders only: there is
   no example content a small model could copy. The answer is validated against a looser schema, so an
   endpoint that ignores grammars cannot slip in a path it made up: citations that are not among the passages
   are dropped (and reported).
4. Checks in code, each a reason for "no answer in the archive" (the model's words are kept in
   `model_answer` / --json):
   - `model_no_answer`: `found: false` or an empty answer;  `no_valid_citation`: no citation left;
   - `unsupported`: under MIN_SUPPORT of the answer's content tokens (Latin words, numbers, kanji/katakana
     bigrams) occur in the retrieved passages — an answer from the model's own knowledge or from the prompt
     (Gemma 3 270M copies the prompt's placeholder or instructions more often than not);
   - `question_echo`: every content token of the answer is the question's ("Neil Solomon" for "What does Neil
     Solomon do for a living?"): it says nothing the question did not;
   - `wrong_language`: a Japanese question answered in another language or the reverse (a bare figure or
     name, e.g. "98 kg", "Steve Wood", "静岡県", is fine either way);
   - `unsupported_numbers`: a figure (number, date) that no retrieved passage contains. When the cited
     passages lack a figure that another retrieved passage holds, the answer stands and that passage's page
     is added to the citations (`added_citations`): a model often cites the wrong one of two pages.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from siterag.enrich.metadata import page_language
from siterag.index.store import IndexStore
from siterag.llm.client import LLMClient
from siterag.printable import printable
from siterag.search.extractive import Sentence, best_sentences, fold
from siterag.search.search_api import Hit, Searcher, provenance_line, terminal_marks

NO_ANSWER = "The archive holds no answer to this question."
# The gate, calibrated by benchmarks/ask_gate.py on benchmarks/questions.jsonl (56 answerable questions, 19
# unanswerable: 6 off-topic, 13 about the shared sites' subjects). Rule: each threshold is the highest (in steps
# of 0.05) that alone keeps 95% of the answerable questions; a question passes on either. Nothing separates
# well: best passage cosine has a ROC AUC of 0.74 (unanswerable near-topic questions reach 0.62, answerable
# ones go down to 0.27), the question's terms in a passage 0.91 (but the near-topic negatives were written
# about things the pages do not mention). Together: 100% of the answerable kept, 37% of the unanswerable
# refused — the off-topic ones and those about a site not in the index; the model's `found` and the support
# checks must refuse the rest.
MIN_SIMILARITY = 0.30
MIN_TERM_SHARE = 0.4
# Share of an answer's content tokens that must occur in the retrieved passages (benchmarks/ask_gate.py --llm
# reports the shares of real answers).
MIN_SUPPORT = 0.5
ANSWER_CHARS = 300
ANSWER_MAX_TOKENS = 512

# The form of the reply with placeholders only: a worked example's words (an earlier prompt's "Most of it comes
# from Shizuoka.") came back verbatim as answers to unrelated questions.
SYSTEM = """You answer a question using only the numbered passages below, taken from an archive of old web pages.
Write a JSON object with three keys:
"found": true only if the passages state the answer; false otherwise. Never answer from your own knowledge.
"answer": the answer in one or two sentences, in the same language as the question, with the passages' own
names, words and figures (empty when found is false).
"citations": the site/path of each passage that states the answer, exactly as written after its number.
Form of the reply: {"found": true, "answer": "<answer>", "citations": ["<site/path>"]}
or, when the passages do not state the answer: {"found": false, "answer": "", "citations": []}"""


@dataclass
class Answer:
    """What `ask` found: the answer and its citations, or why there is none."""

    question: str
    found: bool
    answer: str
    citations: list[str]
    passages: list[Hit]
    # why there is no answer: no_passages | low_retrieval | model_no_answer | no_valid_citation | unsupported |
    # question_echo | wrong_language | unsupported_numbers
    reason: str = ""
    dropped: list[str] = field(default_factory=list)  # citations that were not among the passages
    added: list[str] = field(default_factory=list)  # pages added to the citations: they hold the answer's figures
    model_answer: str = ""  # the model's own words, also when they are not used
    support: float | None = None  # share of the answer's content tokens found in the passages
    mode: str = "llm"  # llm: a checked answer from a model | passages: matching sentences, no model
    sentences: list[Sentence] = field(default_factory=list)  # mode passages: what is shown

    def to_dict(self) -> dict:
        return {"question": self.question, "mode": self.mode, "found": self.found, "answer": self.answer,
                "sentences": [s.to_dict() for s in self.sentences],
                "citations": self.citations, "reason": self.reason, "dropped_citations": self.dropped,
                "added_citations": self.added, "model_answer": self.model_answer, "support": self.support,
                "passages": [{"ref": h.ref, "title": h.title, "heading": h.heading, "similarity": h.similarity,
                              "bm25": h.bm25, "snippet": h.snippet, "url": h.url, "captured_at": h.captured_at}
                             for h in self.passages]}


def answer_schema(refs: list[str], answer_chars: int = ANSWER_CHARS, strict: bool = True) -> dict:
    """The answer's JSON schema; strict: citations restricted to `refs` (the grammar the server enforces)."""
    item: dict = {"type": "string", "enum": refs} if strict and refs else {"type": "string"}
    return {"type": "object",
            "properties": {"found": {"type": "boolean"},
                           "answer": {"type": "string", "maxLength": answer_chars},
                           "citations": {"type": "array", "items": item, "maxItems": max(1, len(refs))}},
            "required": ["found", "answer", "citations"], "additionalProperties": False}


def select_passages(hits: list[Hit], k: int, per_doc: int = 2) -> list[Hit]:
    """The best `k` passages, at most `per_doc` from one page."""
    out: list[Hit] = []
    count: dict[str, int] = {}
    for h in hits:
        if count.get(h.doc_id, 0) < per_doc:
            out.append(h)
            count[h.doc_id] = count.get(h.doc_id, 0) + 1
        if len(out) == k:
            break
    return out


def passes_gate(passages: list[Hit], min_similarity: float = MIN_SIMILARITY, question: str = "",
                min_terms: float = MIN_TERM_SHARE) -> bool:
    """Whether retrieval found anything close enough to be worth asking the model about: a passage with a cosine
    similarity of at least `min_similarity`, or (given the question) one that holds at least `min_terms` of the
    question's content tokens. Either is enough: a keyword question scores a low cosine, a question in
    another language than its page holds few of its words."""
    if any(h.similarity >= min_similarity for h in passages):
        return True
    return bool(question) and question_term_share(question, passages) >= min_terms


def question_term_share(question: str, passages: list[Hit]) -> float:
    """The largest share of the question's content tokens (content_tokens) that one passage holds."""
    tokens = content_tokens(question, answer=False)
    if not tokens:
        return 0.0
    best = 0.0
    for h in passages:
        source = _source_tokens([h])
        best = max(best, sum(_found(t, *source) for t in tokens) / len(tokens))
    return best


def build_prompt(question: str, passages: list[Hit], budget_chars: int) -> str:
    """The passages (trimmed to fit `budget_chars` in all), each under `[n] site/path`, the language to answer in,
    then the question."""
    parts, used = [], 0
    share = max(200, budget_chars // max(1, len(passages)))
    for n, h in enumerate(passages, 1):
        body = h.text.split("\n", 1)[1] if "\n" in h.text else h.text
        body = body[:share]
        head = f"[{n}] {h.ref} — {h.title}" + (f" > {h.heading}" if h.heading else "")
        block = f"{head}\n{body}"
        if used + len(block) > budget_chars and parts:
            break
        parts.append(block)
        used += len(block)
    return "Passages:\n\n" + "\n\n".join(parts) + f"\n\n{language_hint(question)}\nQuestion: {question}"


def language_hint(question: str) -> str:
    """The instruction on the answer's language: Japanese for a Japanese question, else the question's own."""
    if page_language(question) == "ja":
        return "Answer in Japanese (日本語で答えてください)."
    letters = [ch for ch in question if ch.isalpha()]
    if letters and all(ch.isascii() for ch in letters):
        return "Answer in English."
    return "Answer in the language of the question."


def prompt_budget(context_tokens: int, max_tokens: int) -> int:
    """Characters of passages that fit the model's context: one token a character (about right for Japanese,
    generous for English), less the answer and ~300 tokens of instructions."""
    return max(600, context_tokens - max_tokens - 300)


def ask(question: str, data_dir: str | Path | IndexStore,
        client: LLMClient | Callable[[], LLMClient] | None, *, k: int = 5,
        site: str | None = None, tags: tuple[str, ...] = (), category: str | None = None,
        since: str | None = None, until: str | None = None, min_similarity: float = MIN_SIMILARITY,
        context_tokens: int | None = None, max_tokens: int = ANSWER_MAX_TOKENS,
        answer_chars: int = ANSWER_CHARS, min_terms: float = MIN_TERM_SHARE,
        min_support: float = MIN_SUPPORT) -> Answer:
    """Answer `question` from the archive in `data_dir`; `client` may be a factory (called only if needed).
    Without a client (None) no model is asked: the answer is the passages' sentences that match the question
    (siterag.search.extractive), `mode` "passages".

    Raises NoIndexError without an index and siterag.llm.client.LLMError when the model gives no usable reply.
    """
    searcher = Searcher(data_dir)
    hits = searcher.search(question, site=site, tags=tags, category=category, since=since, until=until,
                           k=k * 3, group=False)
    passages = select_passages(hits, k)
    if not passages:
        return Answer(question, False, NO_ANSWER, [], [], reason="no_passages")
    if not passes_gate(passages, min_similarity, question, min_terms):
        return Answer(question, False, NO_ANSWER, [], passages, reason="low_retrieval",
                      mode="llm" if client else "passages")
    if client is None:
        sentences = best_sentences(question, passages)
        return Answer(question, bool(sentences), "" if sentences else NO_ANSWER,
                      list(dict.fromkeys(x.ref for x in sentences)), passages,
                      reason="" if sentences else "no_matching_sentence", mode="passages", sentences=sentences)
    llm = client if isinstance(client, LLMClient) else client()
    refs = list(dict.fromkeys(h.ref for h in passages))
    ctx = context_tokens or llm.config.context_tokens
    user = build_prompt(question, passages, prompt_budget(ctx, max_tokens))
    reply = llm.chat_json(SYSTEM, user, answer_schema(refs, answer_chars), max_tokens=max_tokens,
                          check=answer_schema(refs, answer_chars, strict=False))
    return check_answer(question, passages, reply, min_support)


def check_answer(question: str, passages: list[Hit], reply: dict, min_support: float = MIN_SUPPORT) -> Answer:
    """The model's reply (`found`, `answer`, `citations`) checked against the passages it was given (module doc,
    step 4): the Answer to show, or "no answer" with the reason."""
    refs = list(dict.fromkeys(h.ref for h in passages))
    text = reply["answer"].strip()
    if not any(ch.isalnum() for ch in text):  # "...", "" or punctuation: no answer, whatever `found` says
        text = ""
    cited = list(dict.fromkeys(reply["citations"]))
    valid = [c for c in cited if c in refs]
    dropped = [c for c in cited if c not in refs]
    result = Answer(question, True, text, valid, passages, dropped=dropped, model_answer=reply["answer"].strip())

    def refuse(reason: str) -> Answer:
        result.found, result.answer, result.reason = False, NO_ANSWER, reason
        return result

    if not reply["found"] or not text:
        result.citations = []
        return refuse("model_no_answer")
    if not valid:
        return refuse("no_valid_citation")
    result.support = round(support_share(text, passages), 3)
    if result.support < min_support:
        return refuse("unsupported")
    if content_tokens(text) <= content_tokens(question, answer=False):
        return refuse("question_echo")
    if not same_language(question, text):
        return refuse("wrong_language")
    missing = unsupported_numbers(text, [h.text for h in passages if h.ref in valid])
    if missing:
        added = pages_with(missing, [h for h in passages if h.ref not in valid])
        if added is None:
            return refuse("unsupported_numbers")
        result.added = added
        result.citations = valid + added
    return result


# ---- support: the answer's content tokens in the passages -----------------------------------------------

_NUMBER_RE = re.compile(r"\d+(?:[.,]\d+)*")
_LATIN_RE = re.compile(r"[a-z\u00c0-\u024f]+")
_KANJI_KATAKANA_RE = re.compile(r"[\u30a0-\u30ff\u3400-\u9fff\uf900-\ufaff々〆ヶ]+")
_HIRAGANA_RE = re.compile(r"[\u3040-\u309f]")
_STOP = set("""a about above after again all also am an and any are as at be because been being both but by can
could did do does doing done each either for from had has have having he her here him his how i if in into is it
its itself just me more my neither no nor not of on once only or other our out over own please she should so
some such than that the their them then there these they this those through to too under until up very was we
were what when where which while who whom why will with would yes you your""".split())
# words an answer uses to talk about the passages rather than to say what they say
_META = set("""according answer archive cite cited mention mentioned mentions page pages passage passages say says
said site state stated states text""".split())
_META_JA = ("パッセージ", "ページ", "記載", "文書", "資料", "回答", "該当", "情報")


def _stem(word: str) -> str:
    """A crude English stem, so that a paraphrase matches its passage: motors → motor, powered → power."""
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def content_tokens(text: str, answer: bool = True) -> set[str]:
    """What a text says, as tokens checkable against passages: numbers, Latin words (stemmed, no function words)
    and the bigrams (a lone character: itself) of each kanji/katakana run; hiragana — particles and endings —
    carries no content of its own. `answer`: also leave out the words an answer uses about the passages
    ("the page says", "記載")."""
    folded = fold(text)
    for word in _META_JA if answer else ():
        folded = folded.replace(word, " ")
    skip = _STOP | _META if answer else _STOP
    tokens = set(_NUMBER_RE.findall(folded))
    tokens |= {_stem(w) for w in _LATIN_RE.findall(folded) if len(w) > 1 and w not in skip}
    for run in _KANJI_KATAKANA_RE.findall(folded):
        tokens |= {run} if len(run) == 1 else {run[i:i + 2] for i in range(len(run) - 1)}
    return tokens


def _source_tokens(passages: list[Hit]) -> tuple[str, set[str], set[str]]:
    """The passages (with titles) folded, their Latin words (stemmed) and their numbers (numbers_in)."""
    folded = fold("\n".join(f"{h.title}\n{h.text}" for h in passages))
    return folded, {_stem(w) for w in _LATIN_RE.findall(folded)}, numbers_in(folded)


def _found(token: str, folded: str, words: set[str], numbers: set[str]) -> bool:
    if _NUMBER_RE.fullmatch(token):
        return _number_held(token, numbers)
    return token in words if _LATIN_RE.fullmatch(token) else token in folded


def support_share(answer: str, passages: list[Hit]) -> float:
    """Share of the answer's content tokens that occur in the passages (Latin words as words, the rest as
    substrings); 0 for an answer with no content token (a bare "yes": nothing in it can be checked).

    An answer in another language than every passage (a Japanese answer from English pages, or the reverse)
    cannot be looked up word for word: it must share at least one token with the passages, and the share is
    taken over the tokens that cross languages — for a Japanese answer its numbers and Latin names, for any
    other its numbers."""
    tokens = content_tokens(answer)
    if not tokens:
        return 0.0
    source = _source_tokens(passages)
    found = {t for t in tokens if _found(t, *source)}
    answer_ja = _is_japanese(answer)
    if any(_is_japanese(h.text) == answer_ja for h in passages):
        return len(found) / len(tokens)
    if not found:
        return 0.0
    portable = {t for t in tokens if not _KANJI_KATAKANA_RE.search(t)} if answer_ja else \
        {t for t in tokens if _NUMBER_RE.fullmatch(t)}
    return len(found & portable) / len(portable) if portable else 1.0


# ---- language --------------------------------------------------------------------------------------------

def _hiragana_share(text: str) -> float:
    letters = [ch for ch in text if ch.isalpha()]
    return sum(1 for ch in letters if _HIRAGANA_RE.match(ch)) / len(letters) if letters else 0.0


def _is_japanese(text: str) -> bool:
    return page_language(text) == "ja"


def is_bare(answer: str) -> bool:
    """A figure or a name rather than a sentence, fine in any language: a number with at most a unit
    ("98 kg", "1965年3月12日", "750 RPM"), or up to 4 words each capitalised or a number ("Steve Wood", "Mac OS X",
    "40 KJoules"), or up to 20 kanji/katakana/Latin characters with no hiragana ("静岡県", "京都市上京区")."""
    text = unicodedata.normalize("NFKC", answer).strip().rstrip(".。!！")
    if not text or len(text) > 40:
        return False
    if re.search(r"\d", text) and len(re.sub(r"[\d\W_]", "", text)) <= 5:
        return True
    words = text.replace(",", " ").split()
    if len(words) <= 4 and all(w[0].isupper() or w[0].isdigit() for w in words):
        return True
    return len(text) <= 20 and not _HIRAGANA_RE.search(text) and not re.search(r"[a-z]{2}", text) and \
        bool(_KANJI_KATAKANA_RE.search(text))


def same_language(question: str, answer: str) -> bool:
    """Whether the answer is in the question's language: Japanese for a Japanese question (siterag.enrich.metadata's
    page_language: a fifth of the letters Japanese); for any other, not Japanese sentences — Japanese by
    page_language with a tenth of its letters hiragana (particles, endings), where a quoted name or address in
    kanji/katakana has none. A bare figure or name passes either way."""
    if is_bare(answer):
        return True
    if _is_japanese(question):
        return _is_japanese(answer)
    return not (_is_japanese(answer) and _hiragana_share(answer) >= 0.1)


# ---- figures ---------------------------------------------------------------------------------------------

def _plain(number: str) -> str:
    return number.replace(",", "").lstrip("0") or "0"


def numbers_in(text: str) -> set[str]:
    """The numbers a text holds, as whole numbers: "2003.05.20" holds 2003.05.20, 2003, 5 and 20 (leading zeros
    dropped, "1,000" is 1000) — but not 3 or 200, which a substring test would find in it."""
    out: set[str] = set()
    for number in _NUMBER_RE.findall(unicodedata.normalize("NFKC", text)):
        out.add(_plain(number))
        out |= {_plain(part) for part in number.split(".")}
    return out


def _number_held(number: str, held: set[str]) -> bool:
    """A number of the answer is held as a whole, or part by part ("1965.3.12" by a passage's 1965年3月12日)."""
    return _plain(number) in held or all(_plain(p) in held for p in number.split("."))


def unsupported_numbers(answer: str, cited_texts: list[str]) -> list[str]:
    """Numbers in the answer that none of its cited passages contains (a small model's made-up figures)."""
    held = numbers_in(" ".join(cited_texts))
    return [n for n in _NUMBER_RE.findall(unicodedata.normalize("NFKC", answer)) if not _number_held(n, held)]


def pages_with(figures: list[str], others: list[Hit]) -> list[str] | None:
    """The pages of other retrieved passages (best first) that hold the figures the cited ones lack: one passage
    with all of them if there is one, else passages in rank order until every figure is held; None if some figure
    is in none of them."""
    for h in others:
        if not unsupported_numbers(" ".join(figures), [h.text]):
            return [h.ref]
    left, refs = list(figures), []
    for h in others:
        held = [n for n in left if _number_held(n, numbers_in(h.text))]
        if held:
            refs.append(h.ref)
            left = [n for n in left if n not in held]
        if not left:
            return list(dict.fromkeys(refs))
    return None


_WHY = {"low_retrieval": "no passage is close to the question", "no_passages": "nothing matched",
        "model_no_answer": "the model found no answer in the passages",
        "no_valid_citation": "the model's answer cited none of the passages",
        "unsupported": "the model's answer is not in the passages' words: it did not come from the archive",
        "question_echo": "the model's answer only repeats the question's words",
        "wrong_language": "the model answered in another language than the question's",
        "unsupported_numbers": "the model's answer has figures its passages do not contain",
        "no_matching_sentence": "no sentence of the closest passages holds the question's words"}


PASSAGES_NOTE = ("Passages from the archive that match the question (not an answer: no model read them; set "
                 "[llm] base_url to a capable model for answers):")


def format_passages(result: Answer, tty: bool = False) -> str:
    """`ask` without a model: each matching sentence, then its page's title, date and URL (site/path#entry)."""
    lines = [PASSAGES_NOTE, ""]
    for n, sentence in enumerate(result.sentences, 1):
        where = sentence.ref + (f"#{sentence.anchor}" if sentence.anchor else "")
        meta = "  ".join(x for x in (printable(sentence.title), printable(sentence.date)) if x)
        lines += [f"[{n}] {terminal_marks(printable(sentence.text), tty)}",
                  f"    {meta}  [{printable(where)}]".rstrip()]
        if sentence.url:
            lines.append(f"    {printable(sentence.url)}")
    return "\n".join(lines)


def format_answer(result: Answer, tty: bool = False) -> str:
    """The answer as `siterag ask` prints it: the text, then its sources (or why there is no answer). Every text
    that comes from a page or the model goes through printable(): no escape sequence reaches the terminal."""
    if result.mode == "passages" and result.found:
        return format_passages(result, tty)
    lines = [printable(result.answer, multiline=True)]
    if result.found:
        titles = {h.ref: h.title for h in result.passages}
        origins = {h.ref: provenance_line(h) for h in result.passages}  # original URL, capture date
        lines += ["", "Sources:"] + [f"  [{n}] {printable(ref)}  {printable(titles.get(ref, ''))}".rstrip()
                                     + (f"\n      {printable(origins[ref])}" if origins.get(ref) else "")
                                     for n, ref in enumerate(result.citations, 1)]
        if result.added:
            lines.append(f"(added {printable(', '.join(result.added))}: it holds the answer's figures, which the "
                         "pages the model cited do not)")
    else:
        lines.append(f"({printable(_WHY.get(result.reason, result.reason))})")
        if result.passages:
            titles = {h.ref: h.title for h in reversed(result.passages)}
            lines += ["Closest pages:"] + [f"  {printable(titles[ref])}  [{printable(ref)}]".lstrip()
                                           for ref in dict.fromkeys(h.ref for h in result.passages)]
    if result.dropped:
        lines.append(f"(dropped citations that are not among the passages: {printable(', '.join(result.dropped))})")
    return "\n".join(lines)
