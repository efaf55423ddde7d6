"""A fake OpenAI API on loopback: Chat Completions (plain and streamed) and Responses, driven by a policy.

The server is real HTTP (stdlib `ThreadingHTTPServer` in a background thread), so the real OpenAI SDK
and pydantic-ai's adapters run end to end against it:

    with FakeOpenAIServer(lambda body: Reply(text="hi")) as server:
        os.environ["OPENAI_BASE_URL"] = server.base_url     # http://127.0.0.1:PORT/v1
        ...                                                  # AGENT_MODEL=openai-chat:gpt-4.1

The policy receives each request's parsed JSON body (`messages` for Chat Completions, `input` for
Responses) and returns what to answer: a `Reply`, a `Fault` (status, error body, headers), a `Hang`
or a `RawBody` (any bytes with status 200, for malformed answers). Every request is recorded.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODEL = "gpt-4.1-2025-04-14"


@dataclass(frozen=True)
class ToolCallSpec:
    """One tool call of a reply; `arguments` is JSON text as the model produced it (it may be cut off)."""

    name: str
    arguments: str
    id: str


@dataclass(frozen=True)
class UsageSpec:
    """Token counts the reply reports; `cached_tokens` goes to `prompt_tokens_details`."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0


@dataclass(frozen=True)
class Reply:
    """A successful answer: text and/or tool calls; `finish_reason` defaults from the content."""

    text: str = ""
    tool_calls: tuple[ToolCallSpec, ...] = ()
    finish_reason: str | None = None
    usage: UsageSpec = UsageSpec()

    @property
    def finish(self) -> str:
        """The Chat Completions finish reason."""
        return self.finish_reason or ("tool_calls" if self.tool_calls else "stop")


@dataclass(frozen=True)
class Fault:
    """An HTTP error answer with a JSON body and headers (e.g. `Retry-After`)."""

    status: int
    body: Mapping[str, Any]
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Hang:
    """Wait `seconds` (or until the server stops) before answering `then` (None: close without answer)."""

    seconds: float
    then: Reply | Fault | None = None


@dataclass(frozen=True)
class RawBody:
    """Any body with any status: for malformed answers (e.g. Responses without `output`)."""

    body: str
    status: int = 200
    content_type: str = "application/json"


Spec = Reply | Fault | Hang | RawBody
Policy = Callable[[dict[str, Any]], Spec]


def error(
    status: int,
    message: str,
    *,
    type_: str = "invalid_request_error",
    code: str | None = None,
    headers: Mapping[str, str] | None = None,
) -> Fault:
    """An OpenAI-shaped error answer."""
    body = {"error": {"message": message, "type": type_, "param": None, "code": code}}
    return Fault(status=status, body=body, headers=dict(headers or {}))


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the server received it."""

    path: str
    headers: Mapping[str, str]
    raw: bytes
    body: dict[str, Any]


class FakeOpenAIServer:
    """Serves the OpenAI API on 127.0.0.1 (a free port) from a policy, recording every request."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.requests: list[RecordedRequest] = []
        self.failures: list[BaseException] = []
        """Exceptions the policy raised (each answered 500): a test should assert this stays empty."""
        self._stopping = threading.Event()
        self._ids = itertools.count(1)
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_class(self))
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        """The port the server listens on."""
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """The value for `OPENAI_BASE_URL`."""
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> FakeOpenAIServer:
        """Serve in a background thread."""
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving; hung answers are released."""
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()

    def bodies(self, path: str = "/v1/chat/completions") -> list[dict[str, Any]]:
        """The parsed bodies received on `path`, in order."""
        return [r.body for r in self.requests if r.path == path]

    def next_id(self) -> int:
        """A number unique within this server (response ids)."""
        return next(self._ids)

    def wait(self, seconds: float) -> None:
        """Sleep for a Hang, returning early when the server stops."""
        self._stopping.wait(seconds)


def _handler_class(server: FakeOpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            return  # quiet: a test's own output matters more than an access log

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {}
            path = self.path.split("?", 1)[0]
            server.requests.append(RecordedRequest(path=path, headers=dict(self.headers), raw=raw, body=body))
            if path not in ("/v1/chat/completions", "/v1/responses"):
                self._send(404, json.dumps({"error": {"message": f"No route {path}", "type": "invalid_request_error"}}))
                return
            try:
                spec = server.policy(body)
            except Exception as exc:  # the policy's own bug: answered 500 and kept for the test to see
                server.failures.append(exc)
                self._send(500, json.dumps({"error": {"message": f"policy failed: {exc!r}", "type": "server_error"}}))
                return
            # The client may have given up (its timeout): then there is nobody to answer.
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self._answer(path, body, spec)

        def _answer(self, path: str, body: dict[str, Any], spec: Spec) -> None:
            if isinstance(spec, Hang):
                server.wait(spec.seconds)
                if spec.then is None:
                    self.close_connection = True
                    return
                spec = spec.then
            if isinstance(spec, Fault):
                self._send(spec.status, json.dumps(spec.body), spec.headers)
            elif isinstance(spec, RawBody):
                self._send(spec.status, spec.body, content_type=spec.content_type)
            elif path == "/v1/responses":
                self._send(200, json.dumps(responses_body(spec, server.next_id())))
            elif body.get("stream"):
                usage = bool((body.get("stream_options") or {}).get("include_usage"))
                self._stream(chat_chunks(spec, server.next_id(), include_usage=usage))
            else:
                self._send(200, json.dumps(chat_body(spec, server.next_id())))

        def _send(
            self,
            status: int,
            text: str,
            headers: Mapping[str, str] | None = None,
            content_type: str = "application/json",
        ) -> None:
            data = text.encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def _stream(self, chunks: Iterator[dict[str, Any]]) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            for chunk in chunks:
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                self.wfile.flush()
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()

    return Handler


def _usage_chat(usage: UsageSpec) -> dict[str, Any]:
    return {
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens,
        "total_tokens": usage.prompt_tokens + usage.completion_tokens,
        "prompt_tokens_details": {"cached_tokens": usage.cached_tokens, "audio_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0},
    }


def chat_body(reply: Reply, n: int) -> dict[str, Any]:
    """A non-streamed Chat Completions answer."""
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None, "refusal": None}
    if reply.tool_calls:
        message["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in reply.tool_calls
        ]
    return {
        "id": f"chatcmpl-{n}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": MODEL,
        "choices": [{"index": 0, "message": message, "finish_reason": reply.finish, "logprobs": None}],
        "usage": _usage_chat(reply.usage),
    }


def _halves(text: str) -> list[str]:
    """A text cut in two, as a stream delivers it in pieces."""
    middle = len(text) // 2
    return [p for p in (text[:middle], text[middle:]) if p]


def chat_chunks(reply: Reply, n: int, *, include_usage: bool) -> Iterator[dict[str, Any]]:
    """The Chat Completions stream of a reply: role, text pieces, tool-call deltas, finish, usage."""
    base = {"id": f"chatcmpl-{n}", "object": "chat.completion.chunk", "created": int(time.time()), "model": MODEL}
    extra = {"usage": None} if include_usage else {}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra}

    yield chunk({"role": "assistant", "content": ""})
    for piece in _halves(reply.text):
        yield chunk({"content": piece})
    for index, call in enumerate(reply.tool_calls):
        head = {"index": index, "id": call.id, "type": "function", "function": {"name": call.name, "arguments": ""}}
        yield chunk({"tool_calls": [head]})
        for piece in _halves(call.arguments):
            yield chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    yield chunk({}, reply.finish)
    if include_usage:
        yield {**base, "choices": [], "usage": _usage_chat(reply.usage)}


def responses_body(reply: Reply, n: int) -> dict[str, Any]:
    """A non-streamed Responses API answer (`finish_reason` `length` becomes status `incomplete`)."""
    output: list[dict[str, Any]] = []
    if reply.text:
        content = [{"type": "output_text", "text": reply.text, "annotations": [], "logprobs": []}]
        output.append(
            {"type": "message", "id": f"msg_{n}", "status": "completed", "role": "assistant", "content": content}
        )
    for call in reply.tool_calls:
        output.append(
            {
                "type": "function_call",
                "id": f"fc_{call.id}",
                "call_id": call.id,
                "name": call.name,
                "arguments": call.arguments,
                "status": "completed",
            }
        )
    incomplete = reply.finish_reason == "length"
    usage = reply.usage
    return {
        "id": f"resp_{n}",
        "object": "response",
        "created_at": int(time.time()),
        "status": "incomplete" if incomplete else "completed",
        "incomplete_details": {"reason": "max_output_tokens"} if incomplete else None,
        "error": None,
        "model": MODEL,
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": usage.prompt_tokens,
            "input_tokens_details": {"cached_tokens": usage.cached_tokens},
            "output_tokens": usage.completion_tokens,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": usage.prompt_tokens + usage.completion_tokens,
        },
    }
