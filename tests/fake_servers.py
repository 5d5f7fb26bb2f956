"""Small real HTTP servers on 127.0.0.1 that misbehave on purpose, for the fault tests.

* FakeLLM: an OpenAI-compatible /v1/chat/completions that answers like a well-behaved model (JSON that
  fits the request's schema), or — for pages whose title names a fault — is slow, answers non-JSON, cuts
  its output at max_tokens, or dies mid-run (its socket closes: the next requests are refused).
* FlakySite: a folder served over HTTP where chosen paths answer with an HTTP error status.
* CalendarTrap: an endless calendar (/cal/2001/01/ links to /cal/2001/02/ …, /cal?month=N to N+1), the
  classic crawler trap.
"""

from __future__ import annotations

import functools
import http.server
import json
import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs, urlparse

_TITLE_RE = re.compile(r"Page title: (.*)")
FAULTS = ("slow", "nonjson", "length", "kill")


@dataclass
class Request:
    """What the fake LLM saw: when, for which page title, what kind of question, what it did."""

    at: float
    title: str
    kind: str  # blocks | metadata | choose
    fault: str


def good_answer(body: dict, title: str) -> dict:
    """A schema-valid answer: every block id, or catalogue fields made from the title."""
    fmt = body.get("response_format") or {}
    schema = (fmt.get("json_schema") or {}).get("schema") or {}
    props = schema.get("properties", {})
    if "main" in props:
        content = json.dumps({"main": list(props["main"]["items"]["enum"])})
    elif "title" in props:
        content = json.dumps({"title": (title or "untitled")[:100], "category": "テスト",
                              "tags": ["タグ一", "タグ二", "タグ三"], "summary": f"{title} の要約。"[:190]},
                             ensure_ascii=False)
    else:  # a one-token choice (hybrid judge): "A" with logprobs
        return {"choices": [{"message": {"role": "assistant", "content": "A"}, "finish_reason": "stop",
                             "logprobs": {"content": [{"token": "A", "logprob": -0.01, "top_logprobs": [
                                 {"token": "A", "logprob": -0.01}, {"token": "B", "logprob": -4.6}]}]}}],
                "usage": {"prompt_tokens": 50, "completion_tokens": 1}}
    return {"choices": [{"message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 50, "completion_tokens": 20}}


class FakeLLM:
    """A loopback OpenAI-compatible server; `faults` maps a word in a page title to a fault (slow | nonjson |
    length | kill), `delay` slows every answer, `answer` can replace good_answer."""

    def __init__(self, port: int = 0, faults: dict[str, str] | None = None, delay: float = 0.0,
                 slow_s: float = 2.0, answer=None) -> None:  # noqa: ANN001
        self.faults = faults or {}
        self.delay = delay
        self.slow_s = slow_s
        self.answer = answer or good_answer
        self.requests: list[Request] = []
        self._lock = threading.Lock()
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:  # /health, as llama-server has
                self._send(200, b'{"status": "ok"}')

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                owner.handle(self, body)

            def _send(self, status: int, data: bytes, ctype: str = "application/json") -> None:
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.port = self.server.server_address[1]
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()
        self.alive = True

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def fault_for(self, title: str) -> str:
        return next((fault for word, fault in self.faults.items() if word in title), "")

    def handle(self, handler, body: dict) -> None:  # noqa: ANN001
        user = next((m["content"] for m in reversed(body.get("messages", [])) if m.get("role") == "user"), "")
        match = _TITLE_RE.search(user)
        title = match.group(1).strip() if match else ""
        schema = ((body.get("response_format") or {}).get("json_schema") or {}).get("schema") or {}
        kind = "blocks" if "main" in schema.get("properties", {}) else "metadata" if schema else "choose"
        fault = self.fault_for(title)
        with self._lock:
            self.requests.append(Request(time.monotonic(), title, kind, fault))
        if self.delay:
            time.sleep(self.delay)
        if fault == "kill":  # the server dies: this connection drops unanswered, later ones are refused
            threading.Thread(target=self.stop, daemon=True).start()
            handler.close_connection = True
            return
        if fault == "slow":
            time.sleep(self.slow_s)
        if fault == "nonjson":
            handler._send(200, b"<html><body>502 Bad Gateway</body></html>", "text/html")
            return
        data = self.answer(body, title)
        if fault == "length":
            data["choices"][0]["finish_reason"] = "length"
            data["choices"][0]["message"]["content"] = data["choices"][0]["message"]["content"][:7]
        try:
            handler._send(200, json.dumps(data, ensure_ascii=False).encode())
        except OSError:  # the client gave up (timeout)
            pass

    def calls(self, word: str = "", kind: str = "") -> list[Request]:
        return [r for r in self.requests if word in r.title and (not kind or r.kind == kind)]

    def stop(self) -> None:
        if self.alive:
            self.alive = False
            self.server.shutdown()
            self.server.server_close()


class _QuietHandler(http.server.BaseHTTPRequestHandler):
    """No request log on the terminal; HEAD is GET without the body (subclasses give do_GET a `head` flag)."""

    def log_message(self, *args: object) -> None:
        pass

    def do_HEAD(self) -> None:
        self.do_GET(head=True)  # type: ignore[attr-defined]


class _FlakyHandler(http.server.SimpleHTTPRequestHandler):
    status: dict[str, int] = {}

    def log_message(self, *args: object) -> None:
        pass

    def send_head(self):  # noqa: ANN201
        code = self.status.get(urlparse(self.path).path.lstrip("/"))
        if code:
            self.send_error(code)
            return None
        return super().send_head()


class FlakySite:
    """Serve `root` on 127.0.0.1; `status[path] = 500` makes that path answer 500 (404, 503, …)."""

    def __init__(self, root: Path) -> None:
        self.status: dict[str, int] = {}
        handler = type("Handler", (_FlakyHandler,), {"status": self.status})
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                                      functools.partial(handler, directory=str(root)))
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.alive = True

    def stop(self) -> None:
        if self.alive:
            self.alive = False
            self.server.shutdown()
            self.server.server_close()


@dataclass
class CalendarTrap:
    """An endless calendar site; every month page links to the next month, two ways."""

    delay: float = 0.0
    hits: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        owner = self

        class Handler(_QuietHandler):
            def do_GET(self, head: bool = False) -> None:
                owner.hits.append(self.path)
                status, body = owner.page(self.path)
                if owner.delay:
                    time.sleep(owner.delay)
                data = body.encode()
                self.send_response(status)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if not head:
                    self.wfile.write(data)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @staticmethod
    def page(path: str) -> tuple[int, str]:
        parsed = urlparse(path)
        text = "この月の予定はまだありません。" * 20
        if parsed.path in ("/", "/index.html"):
            return 200, ("<html><head><title>カレンダー</title></head><body><h1>カレンダー</h1>"
                         f"<p>{text}</p><a href='/cal/2001/01/'>2001年1月</a> <a href='/cal?month=1'>月表示</a>"
                         "</body></html>")
        match = re.fullmatch(r"/cal/(\d{4})/(\d\d)/(?:index\.html)?", parsed.path)
        if match:
            year, month = int(match.group(1)), int(match.group(2))
            nxt = f"/cal/{year + month // 12}/{month % 12 + 1:02d}/"
            return 200, (f"<html><head><title>{year}年{month}月</title></head><body><h1>{year}年{month}月</h1>"
                         f"<p>{text}</p><a href='{nxt}'>次の月</a></body></html>")
        if parsed.path == "/cal":
            month = int(parse_qs(parsed.query).get("month", ["1"])[0])
            return 200, (f"<html><head><title>{month}か月目</title></head><body><h1>{month}か月目</h1>"
                         f"<p>{text}</p><a href='/cal?month={month + 1}'>次へ</a></body></html>")
        return 404, "<html><body>not found</body></html>"

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class TrickySite:
    """A site whose every answer is given: `pages[path] = (status, headers, body)`, `path` with its query string
    (`/a/q.html?sid=7`), %-escapes decoded. For answers a plain folder cannot give: a redirect to another host
    name of this same server (`other` is http://localhost:PORT, the site is http://127.0.0.1:PORT), a gzip body
    the client did not ask for, pages under very long names. Other paths answer 404."""

    def __init__(self, pages: dict[str, tuple[int, dict[str, str], bytes]] | None = None) -> None:
        self.pages: dict[str, tuple[int, dict[str, str], bytes]] = dict(pages or {})
        self.hits: list[str] = []
        owner = self

        class Handler(_QuietHandler):
            def do_GET(self, head: bool = False) -> None:
                from urllib.parse import unquote

                path = unquote(self.path)
                owner.hits.append(path)
                status, headers, body = owner.pages.get(path, (404, {}, b"<html><body>not found</body></html>"))
                self.send_response(status)
                headers = {"Content-Type": "text/html", **headers}
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if not head:
                    self.wfile.write(body)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.other = f"http://localhost:{self.port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def page(self, path: str, body: str | bytes, status: int = 200, **headers: str) -> None:
        """Serve `body` (UTF-8 text or bytes) at `path`; headers with '_' for '-' (Content_Encoding=...)."""
        data = body.encode("utf-8") if isinstance(body, str) else body
        self.pages[path] = (status, {k.replace("_", "-"): v for k, v in headers.items()}, data)

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
