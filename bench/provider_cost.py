"""Real-provider cost of translating a document: the `openai-chat:` path against a fake OpenAI server.

The whole document goes through the public HTTP contract (the FastAPI app in-process over httpx's
ASGITransport); the model is pydantic-ai's real OpenAI Chat adapter and SDK, talking over loopback to
`tests/fakes/openai_server.py`, where a scripted translator (`tests/fakes/translator_policy.py`)
proposes units for all the text it is shown, in one Translate call (`--call-per-unit`: a call a
unit), and calls `Remember` for the reviewer's edits. A scripted reviewer approves every unit but
one in `--refine-every`, which it edits (a word replaced; a plural entry's forms are approved
instead), and one in `--reject-every`, which it rejects. Prints, per document size: model input
tokens per source character (o200k over the tools and messages the server received), output tokens
per character, the cost per million characters at gpt-4.1's list price (cached input at a quarter,
as the fake provider's imitation of OpenAI's prompt cache reports it), model requests per 1,000
source characters, HTTP
requests per reviewed batch, the median share of a request's input tokens in a prefix identical to
the previous request's, storage calls per step (DynamoDB calls under moto, or SQLite statements), and
DynamoDB bytes of file text read per step, and the analysis's estimate against the metered tokens
(also on stderr as each run ends; `--dump` keeps each run's model requests for a closer look). A
benchmark, not a test: it asserts only completion.

    .venv/bin/python bench/provider_cost.py                       # 20 KB and 100 KB, DynamoDB (moto)
    .venv/bin/python bench/provider_cost.py --sizes 20000 --backend sqlite
    .venv/bin/python bench/provider_cost.py --backend sqlite --file tests/formats/data/jitsi-main.json
    .venv/bin/python bench/provider_cost.py --backend sqlite --file strings.xml movie.srt --dump /tmp/runs
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import itertools
import json
import os
import re
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
os.environ.setdefault("AWS_ACCESS_KEY_ID", "bench")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "bench")
os.environ.setdefault("AWS_EC2_METADATA_DISABLED", "true")
os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")

import boto3  # noqa: E402
import httpx  # noqa: E402
from moto import mock_aws  # noqa: E402

from tests.aws import create_sessions_table  # noqa: E402
from tests.fakes.openai_server import FakeOpenAIServer  # noqa: E402
from tests.fakes.tokens import common_prefix, prompt_tokens  # noqa: E402
from tests.fakes.translator_policy import TranslatorPolicy, kept_word  # noqa: E402

SHARED = ROOT.parent / "shared" / "corpus" / "httpx-CHANGELOG.md"
CORPUS = SHARED if SHARED.exists() else ROOT / "tests" / "data" / "httpx-CHANGELOG.md"  # the same file, in a worktree
TABLE = "provider-bench"
TASK = "Translate doc.md into French."


def build_app(backend: str, base_url: str, workdir: Path) -> Any:
    """The app under test, with its services from the environment: the one place that knows how it is built."""
    os.environ.update(
        AGENT_MODEL="openai-chat:gpt-4.1",
        OPENAI_BASE_URL=base_url,
        OPENAI_API_KEY="sk-fake",
        STORAGE_BACKEND=backend,
        SESSIONS_TABLE=TABLE,
        SQLITE_PATH=str(workdir / "sessions.sqlite3"),
    )
    from handlers.app import create_app
    from service.container import build_services

    return create_app(build_services())


@dataclass
class StorageCounter:
    """Storage calls and file-text bytes read, per HTTP request (DynamoDB calls or SQLite statements)."""

    calls: int = 0
    text_bytes: int = 0
    steps: list[tuple[int, int]] = field(default_factory=list)

    def attach_dynamodb(self) -> None:
        """Count every client the default boto3 session creates from now on."""
        boto3.setup_default_session()
        events = boto3.DEFAULT_SESSION.events
        events.register("before-call.dynamodb.*", self._call)
        events.register("after-call.dynamodb.*", self._read)

    def attach_sqlite(self) -> None:
        """Trace every statement of connections opened from now on."""
        connect = sqlite3.connect

        def traced(*args: Any, **kwargs: Any) -> sqlite3.Connection:
            conn: sqlite3.Connection = connect(*args, **kwargs)
            conn.set_trace_callback(lambda _statement: self._call())
            return conn

        sqlite3.connect = traced  # type: ignore[assignment]

    def _call(self, **_: Any) -> None:
        self.calls += 1

    def _read(self, parsed: dict[str, Any], **_: Any) -> None:
        items = [parsed["Item"]] if "Item" in parsed else list(parsed.get("Items", []))
        for found in parsed.get("Responses", {}).values():
            items.extend(found)
        for item in items:
            if item.get("sk", {}).get("S", "").startswith("C#") and "text" in item:
                self.text_bytes += len(item["text"]["S"].encode("utf-8"))

    def mark(self) -> None:
        """Close the current HTTP request's counts."""
        self.steps.append((self.calls, self.text_bytes))
        self.calls = self.text_bytes = 0


def document(size: int, corpus: Path | list[Path] = CORPUS, code_blocks: int = 0) -> str:
    """About `size` characters of the corpus, ending at a blank line: of several files an equal share
    of each, in turn (each repeated as needed); with `code_blocks`, that many short fenced shell
    blocks set between its paragraphs, evenly (a README's shape: prose and commands in turn)."""
    files = [corpus] if isinstance(corpus, Path) else corpus
    found = "\n\n".join(_cut(p.read_text(encoding="utf-8").strip(), size // len(files)) for p in files)
    if not code_blocks:
        return found
    paragraphs = found.split("\n\n")
    every = max(1, len(paragraphs) // (code_blocks + 1))
    out: list[str] = []
    for k, paragraph in enumerate(paragraphs):
        out.append(paragraph)
        if (k + 1) % every == 0 and len(out) - len(paragraphs[: k + 1]) < code_blocks:
            out.append(f"```sh\npip install example-{k}\nexample-{k} --check\n```")
    return "\n\n".join(out)


def _cut(text: str, size: int) -> str:
    """About `size` characters of `text` (repeated as needed), ending at a blank line."""
    joined = "\n\n".join([text] * (size // len(text) + 2))
    cut = joined.rfind("\n\n", 0, size)
    return joined[: cut if cut > 0 else size]


@dataclass
class Trace:
    """What the client did: requests to /api/next and how many of them carried a reviewed batch."""

    next_requests: int = 0
    batches: int = 0
    units: int = 0
    estimate: dict[str, float] = field(default_factory=dict)
    """The analysis's estimate, asked for before the first step."""
    telemetry: dict[str, float] = field(default_factory=dict)
    """The session's metered model use at the end."""


async def translate(
    app: Any, source: str, counter: StorageCounter, refine_every: int, reject_every: int, name: str = "doc.md"
) -> Trace:
    """Create a session, upload the document and drive it to the end like the web UI, reviewing every unit."""
    trace = Trace()
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://bench", timeout=None) as client:
        created = (await client.post("/api/sessions")).json()
        sid = created["id"]
        upload = await client.post(f"/api/sessions/{sid}/files", json={"name": name, "content": source})
        assert upload.status_code == 201, upload.text
        file_id = upload.json()["fileId"]
        analysis = await client.get(f"/api/sessions/{sid}/files/{file_id}/analysis", params={"to": "fr"})
        assert analysis.status_code == 200, analysis.text
        trace.estimate = analysis.json()["estimate"]
        counter.mark()
        counter.steps.clear()

        async def step(body: dict[str, Any]) -> dict[str, Any]:
            answer = await client.post("/api/next", json={"sessionId": sid, **body})
            counter.mark()
            trace.next_requests += 1
            assert answer.status_code == 200, answer.text
            agent: dict[str, Any] = answer.json()["agentResponse"]
            return agent

        agent = await step({"userInput": TASK})
        for _ in range(20_000):
            if requests := agent["copilotRequests"]:
                trace.batches += 1
                verdicts = [
                    _verdict(r, trace.units + i + 1, refine_every, reject_every) for i, r in enumerate(requests)
                ]
                trace.units += len(requests)
                agent = await step({"copilotResponses": verdicts})
            elif agent["actor"] == "agent":
                agent = await step({})
            else:
                break
        view = (await client.get(f"/api/sessions/{sid}/files/{file_id}")).json()
        assert view["progress"]["complete"], f"the document did not complete: {view['progress']}"
        trace.telemetry = (await client.get(f"/api/sessions/{sid}")).json()["telemetry"]
    return trace


def _verdict(request: dict[str, Any], n: int, refine_every: int, reject_every: int) -> dict[str, Any]:
    """The reviewer's verdict on the `n`th proposal: rejected at every `reject_every`th, edited at
    every `refine_every`th (counted from half of it, so the two rarely meet; a plural entry's forms
    are approved instead), else approved."""
    text = request["translate_string"]
    if reject_every and n % reject_every == 0:
        return {"tool": request["tool"], "status": "reject", "reason": "Too literal; say it naturally."}
    if refine_every and (n + refine_every // 2) % refine_every == 0 and isinstance(text, str):
        return {"tool": request["tool"], "status": "refined", "translated_string": _edited(text)}
    return {"tool": request["tool"], "status": "approve"}


def _edited(text: str) -> str:
    """The reviewer's edit: the first long word the proposal kept from the source replaced by the
    reviewer's own (a term preference), or a word added when there is none."""
    for m in re.finditer(r"[A-Za-z]{6,}", text):
        word = m.group()
        if kept_word(word):
            better = word + ("s" if word.endswith("e") else "e")
            return text[: m.start()] + better + text[m.end() :]
    return "« " + text


def run(
    size: int,
    backend: str,
    server: FakeOpenAIServer,
    counter: StorageCounter,
    *,
    refine_every: int,
    reject_every: int,
    max_units: int | None,
    corpus: Path | list[Path] = CORPUS,
    code_blocks: int = 0,
    whole: Path | None = None,
    dump: Path | None = None,
    call_per_unit: bool = False,
) -> dict[str, float]:
    """Translate one document of about `size` characters (or the file `whole` as it is) and compute the figures."""
    source = whole.read_text(encoding="utf-8") if whole else document(size, corpus, code_blocks)
    policy = TranslatorPolicy(max_units=max_units, call_per_unit=call_per_unit)
    server.policy = policy
    server.requests.clear()
    counter.steps.clear()
    started = time.perf_counter()
    # Powertools writes its metrics (EMF) to stdout; they would bury the table.
    with tempfile.TemporaryDirectory() as tmp, mock_aws(), contextlib.redirect_stdout(io.StringIO()):
        if backend == "dynamodb":
            create_sessions_table(boto3.client("dynamodb"), TABLE)
            # moto resets boto3's default session; the app's client, cached per process as on a warm
            # Lambda, keeps the hooks of the session it was made from (the same counter).
            counter.attach_dynamodb()
        app = build_app(backend, server.base_url, Path(tmp))
        name = whole.name if whole else "doc.md"
        trace = asyncio.run(translate(app, source, counter, refine_every, reject_every, name))
    assert not server.failures, server.failures
    # The agent loop's requests; any without tools (none is expected: learning makes no request of
    # its own) are counted apart.
    everything = server.bodies()
    if dump:
        dump.mkdir(parents=True, exist_ok=True)
        name = whole.name if whole else f"{size}-chars"
        name += f"-{max_units}-units" if max_units else ""
        (dump / f"{name}.json").write_text(json.dumps(everything, ensure_ascii=False), encoding="utf-8")
    bodies = [b for b in everything if b.get("tools")]
    tokens = [prompt_tokens(b) for b in bodies]
    shares = [common_prefix(a, b) / len(b) for a, b in itertools.pairwise(tokens)]
    # What a provider's prompt cache cannot serve: each request's tokens past the prefix it shares
    # with the previous request (the first request's all).
    uncached = sum(len(b) - common_prefix(a, b) for a, b in itertools.pairwise([[], *tokens]))
    calls = [float(c) for c, _ in counter.steps]
    text = [float(t) for _, t in counter.steps]
    return {
        "chars": len(source),
        "seconds": time.perf_counter() - started,
        "model_requests": len(bodies),
        "reads": policy.decisions.count("read"),
        "untooled": policy.decisions.count("untooled"),
        "remember": policy.decisions.count("remember"),
        "all_requests_per_1000": 1000 * len(everything) / len(source),
        "tokens_per_char": sum(len(t) for t in tokens) / len(source),
        "uncached_per_char": uncached / len(source),
        "requests_per_1000": 1000 * len(bodies) / len(source),
        "http_per_batch": trace.next_requests / max(1, trace.batches),
        "units_per_batch": trace.units / max(1, trace.batches),
        "batches": trace.batches,
        "output_per_char": sum(float(v) for k, v in trace.telemetry.items() if k == "outputTokens") / len(source),
        "prefix_share": statistics.median(shares) if shares else 0.0,
        "storage_median": statistics.median(calls),
        "storage_per_unit": sum(calls) / max(1, trace.units),
        "text_bytes_median": statistics.median(text),
        "text_bytes_mean": statistics.fmean(text),
        **{f"estimate_{k}": float(v or 0) for k, v in trace.estimate.items() if k not in ("model", "basis")},
        **{f"metered_{k}": float(v) for k, v in trace.telemetry.items()},
    }


ROWS: list[tuple[str, Callable[[dict[str, float]], str]]] = [
    ("model input tokens per source character", lambda r: f"{r['tokens_per_char']:.1f}"),
    ("model output tokens per source character", lambda r: f"{r['output_per_char']:.2f}"),
    (
        "$ per 1 M source characters at gpt-4.1's list price (cached input at a quarter)",
        lambda r: f"{1e6 * _usd_cached(r) / r['chars']:.2f}",
    ),
    ("model requests per 1,000 source characters, all", lambda r: f"{r['all_requests_per_1000']:.2f}"),
    ("  of which the agent's own (with tools)", lambda r: f"{r['requests_per_1000']:.2f}"),
    ("  responses that also called Remember", lambda r: f"{r['remember']:.0f}"),
    ("  of which Read (share of model requests)", lambda r: f"{100 * r['reads'] / r['model_requests']:.0f}%"),
    ("HTTP requests per reviewed batch (POST /api/next)", lambda r: f"{r['http_per_batch']:.2f}"),
    ("  units per reviewed batch", lambda r: f"{r['units_per_batch']:.1f}"),
    ("  reviewed batches", lambda r: f"{r['batches']:.0f}"),
    (
        "median share of input tokens in a prefix identical to the previous request",
        lambda r: f"{r['prefix_share']:.1%}",
    ),
    ("  input tokens per source character outside that prefix", lambda r: f"{r['uncached_per_char']:.1f}"),
    ("storage calls per request (median; DynamoDB calls or SQLite statements)", lambda r: f"{r['storage_median']:.0f}"),
    ("  storage calls per reviewed unit", lambda r: f"{r['storage_per_unit']:.1f}"),
    (
        "analysis estimate / metered: model requests",
        lambda r: (
            f"{r['estimate_modelRequests']:.0f} / {r['metered_modelRequests']:.0f}"
            f" ({r['estimate_modelRequests'] / r['metered_modelRequests']:.2f})"
        ),
    ),
    (
        "analysis estimate / metered: input tokens",
        lambda r: (
            f"{r['estimate_inputTokens']:,.0f} / {r['metered_inputTokens']:,.0f}"
            f" ({r['estimate_inputTokens'] / r['metered_inputTokens']:.2f})"
        ),
    ),
    (
        "analysis estimate / metered: output tokens",
        lambda r: (
            f"{r['estimate_outputTokens']:,.0f} / {r['metered_outputTokens']:,.0f}"
            f" ({r['estimate_outputTokens'] / r['metered_outputTokens']:.2f})"
        ),
    ),
    (
        "analysis estimate / metered: cost at gpt-4.1's list price",
        lambda r: f"${r['estimate_usd']:.3f} / ${_usd(r):.3f} ({r['estimate_usd'] / _usd(r):.2f})",
    ),
    (
        "DynamoDB bytes of file text read per step (median / mean)",
        lambda r: f"{r['text_bytes_median']:,.0f} / {r['text_bytes_mean']:,.0f}",
    ),
]


def _usd(result: dict[str, float]) -> float:
    """The metered tokens at gpt-4.1's list price (the model the bench configures)."""
    from service.pricing import price_of

    price = price_of("openai:gpt-4.1")
    assert price is not None
    return price.cost(int(result["metered_inputTokens"]), int(result["metered_outputTokens"]))


CACHED_SHARE = 0.25
"""What a cached input token costs against an uncached one (OpenAI's prompt cache for gpt-4.1)."""


def _usd_cached(result: dict[str, float]) -> float:
    """The metered tokens at gpt-4.1's list price, the input the fake provider's prompt cache served
    (`cachedInputTokens`, as OpenAI's cache reports it) at a quarter of the input price."""
    from service.pricing import price_of

    price = price_of("openai:gpt-4.1")
    assert price is not None
    cached = result.get("metered_cachedInputTokens", 0.0)
    full = price.cost(int(result["metered_inputTokens"] - cached), int(result["metered_outputTokens"]))
    return full + price.cost(int(cached), 0) * CACHED_SHARE


def main() -> None:
    """Run every size and print the table."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[20_000, 100_000])
    parser.add_argument("--backend", choices=["dynamodb", "sqlite"], default="dynamodb")
    parser.add_argument("--refine-every", type=int, default=10, help="edit one unit in N (0: none)")
    parser.add_argument("--reject-every", type=int, default=20, help="reject one unit in N (0: none)")
    parser.add_argument(
        "--max-units",
        type=int,
        nargs="+",
        default=[0],
        help="units per response at most, one run each (0: all the text shown, the default; e.g. 1 4 0)",
    )
    parser.add_argument(
        "--corpus",
        type=Path,
        nargs="+",
        default=[CORPUS],
        help="the document (several: joined in turn), cut or repeated to each size",
    )
    parser.add_argument(
        "--file",
        type=Path,
        nargs="+",
        default=[],
        help="files translated whole, each in its own format (by its name), one run each; --sizes is then ignored",
    )
    parser.add_argument(
        "--dump",
        type=Path,
        default=None,
        help="a folder to write each run's model requests to (JSON, one file a run), to study offline",
    )
    parser.add_argument("--code-blocks", type=int, default=0, help="short code blocks set between its paragraphs")
    parser.add_argument(
        "--call-per-unit",
        action="store_true",
        help="the model sends a Translate call a unit (the one-unit shape) instead of one call with its units",
    )
    parser.add_argument(
        "--memory",
        choices=["on", "off", "both"],
        default="on",
        help="the translation memory's proposals (both: each size twice, off then on)",
    )
    args = parser.parse_args()
    counter = StorageCounter()  # DynamoDB's hooks are attached in each run, inside moto
    if args.backend == "sqlite":
        counter.attach_sqlite()
    memories = ["off", "on"] if args.memory == "both" else [args.memory]
    results: list[dict[str, float]] = []
    labels: list[str] = []
    with FakeOpenAIServer(TranslatorPolicy()) as server:
        wholes: list[Path | None] = list(args.file) or [None]
        sizes = [0] if args.file else args.sizes
        for whole, size, max_units, memory in itertools.product(wholes, sizes, args.max_units, memories):
            os.environ["TRANSLATION_MEMORY"] = memory
            label = whole.name if whole else f"{size / 1000:.0f} K chars"
            label += f", {max_units or 'all'} a response" if len(args.max_units) > 1 else ""
            label += f", memory {memory}" if len(memories) > 1 else ""
            labels.append(label)
            results.append(
                run(
                    size,
                    args.backend,
                    server,
                    counter,
                    refine_every=args.refine_every,
                    reject_every=args.reject_every,
                    max_units=max_units or None,
                    corpus=args.corpus,
                    code_blocks=args.code_blocks,
                    whole=whole,
                    dump=args.dump,
                    call_per_unit=args.call_per_unit,
                )
            )
            done = results[-1]
            print(
                f"{label}: estimate / metered input {done['estimate_inputTokens']:,.0f} / "
                f"{done['metered_inputTokens']:,.0f}, output {done['estimate_outputTokens']:,.0f} / "
                f"{done['metered_outputTokens']:,.0f}, requests {done['estimate_modelRequests']:.0f} / "
                f"{done['metered_modelRequests']:.0f} ({done['seconds']:.0f} s)",
                file=sys.stderr,
                flush=True,
            )
    header = ["figure", *labels]
    lines = [header, ["---"] * len(header)]
    lines += [[name, *(show(r) for r in results)] for name, show in ROWS]
    lines.append(
        [
            "the agent's model requests / requests without tools / seconds",
            *(f"{r['model_requests']:.0f} / {r['untooled']:.0f} / {r['seconds']:.0f} s" for r in results),
        ]
    )
    units = ", ".join(str(m or "all the text shown") for m in args.max_units)
    print(
        f"\nbackend: {args.backend}; edit one unit in {args.refine_every or 'none'}, reject one in "
        f"{args.reject_every or 'none'}; units per response: {units}"
    )
    for line in lines:
        print("| " + " | ".join(line) + " |")


if __name__ == "__main__":
    main()
