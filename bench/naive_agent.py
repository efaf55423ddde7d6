"""The naive design `bench/step_cost.py` measures the project against, in the same run.

What anyone would write first with pydantic-ai: an `Agent` whose `Translate` tool requires approval
(a batch of proposals ends the run with `DeferredToolRequests`; the reviewer's verdicts resume it
with `DeferredToolResults(approvals=...)`), and the session's whole message history stored as ONE
DynamoDB item (JSON through `ModelMessagesTypeAdapter`, zlib-compressed so it stays under the 400 KB
item limit longer), read and written whole by every step. One step is one request: load the item,
run the agent once (or resume it), write the item back.

To give it the same translation work as the project, each step's user prompt is the project's own
state note (progress and the `<next-text …>` block, built with `agent_core.prompts`), and the system
prompt is the project's; the model is the same `PseudoModel`. A `Read` tool answers like the
project's (it is called once, at the end, when the pseudo model checks that the file is complete).
The document is kept in the process after upload, as the project caches file text.

Compression is what keeps it alive at all: at 10 KB of source the history is already 133 KB of
JSON (16 KB compressed), so plain JSON would pass DynamoDB's item limit at about 30 KB of source;
compressed it does at about 300 KB (step_cost's 1 MB run stops 304,794 characters in), as real
DynamoDB would refuse it; the benchmark reports where and keeps the figures of the steps before.
It has none of the project's per-step work beyond that: no translation memory, QA checks, lessons,
idempotency, authentication or HTTP layer (the project's Lambda and FastAPI layer costs about a
millisecond a request, measured on `GET /api/health`).
"""

from __future__ import annotations

import json
import re
import zlib
from dataclasses import dataclass
from typing import Any

from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults, RunContext, Tool
from pydantic_ai.messages import ModelMessage, ModelMessagesTypeAdapter
from pydantic_ai.models import Model

from agent_core.document import (
    FileState,
    Spans,
    add_span,
    file_handle,
    find_file,
    first_gap,
    initial_coverage,
)
from agent_core.prompts import NextText, state_note, system_prompt

BATCH_CHARS = 3_000
"""As the project's runtime: how much next text a request shows."""
BATCH_LINES = 20
"""As the project's runtime: the next text shows at most this many non-blank lines."""
READ_WINDOW = 3_000
"""As the project's Read tool's default window."""


def at_most_lines(text: str, count: int) -> str:
    """`text` cut after its `count`-th non-blank line (the units a batch can hold)."""
    for seen, match in enumerate(re.finditer(r"[^\n]*\S[^\n]*(\n|$)", text), start=1):
        if seen == count:
            return text[: match.end()]
    return text


def to_block_end(text: str) -> str:
    """`text` cut after its last complete block (a blank line), else its last line, else as it is."""
    for boundary in ("\n\n", "\n"):
        cut = text.rfind(boundary)
        if cut > 0:
            return text[: cut + len(boundary)]
    return text


@dataclass(frozen=True, slots=True)
class Proposal:
    """One Translate call awaiting the reviewer."""

    tool_call_id: str
    src_string: str
    translate_string: str


@dataclass(frozen=True, slots=True)
class StepResult:
    """What a step answers: the proposals to review, or the agent's final text."""

    proposals: tuple[Proposal, ...]
    text: str = ""


@dataclass
class _Deps:
    """The step's mutable state, which the tools update (coverage of the one file)."""

    file: FileState
    content: str


class NaiveStore:
    """One DynamoDB item per session (the whole history, compressed) and one per file."""

    def __init__(self, client: Any, table: str) -> None:
        self.client = client
        self.table = table
        self._files: dict[str, str] = {}

    def create_table(self) -> None:
        """A table keyed by pk/sk, on demand."""
        self.client.create_table(
            TableName=self.table,
            AttributeDefinitions=[{"AttributeName": k, "AttributeType": "S"} for k in ("pk", "sk")],
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
            BillingMode="PAY_PER_REQUEST",
        )

    def put_file(self, session_id: str, file_id: str, name: str, content: str) -> None:
        """Upload: the file's text as its own item (documents larger than an item are out of scope here)."""
        item: dict[str, dict[str, str | bytes]] = {"pk": {"S": session_id}, "sk": {"S": f"FILE#{file_id}"}}
        item.update(name={"S": name}, content={"B": zlib.compress(content.encode())})
        self.client.put_item(TableName=self.table, Item=item)
        self._files[file_id] = content

    def load(self, session_id: str) -> tuple[list[ModelMessage], FileState]:
        """The session item: the whole history and the file's coverage."""
        key = {"pk": {"S": session_id}, "sk": {"S": "SESSION"}}
        item = self.client.get_item(TableName=self.table, Key=key)["Item"]
        history = ModelMessagesTypeAdapter.validate_json(zlib.decompress(item["history"]["B"]))
        file = json.loads(item["file"]["S"])
        covered: Spans = tuple((int(a), int(b)) for a, b in file["covered"])
        return history, FileState(file["file_id"], file["name"], file["chars"], covered)

    def save(self, session_id: str, history: list[ModelMessage], file: FileState) -> None:
        """Write the session item back whole."""
        state = {"file_id": file.file_id, "name": file.name, "chars": file.chars, "covered": file.covered}
        item = {
            "pk": {"S": session_id},
            "sk": {"S": "SESSION"},
            "history": {"B": zlib.compress(ModelMessagesTypeAdapter.dump_json(history))},
            "file": {"S": json.dumps(state)},
        }
        self.client.put_item(TableName=self.table, Item=item)

    def content(self, file_id: str) -> str:
        """The file's text (cached in the process after upload)."""
        return self._files[file_id]


class NaiveAgent:
    """The naive design: a pydantic-ai Agent with deferred Translate approvals, one item per session."""

    def __init__(self, model: Model, store: NaiveStore) -> None:
        self.store = store
        self.agent: Agent[_Deps, str | DeferredToolRequests] = Agent(
            model,
            deps_type=_Deps,
            output_type=[str, DeferredToolRequests],
            tools=[
                # One at a time, in the model's order: each approved unit moves the coverage on.
                Tool(_translate, name="Translate", requires_approval=True, sequential=True),
                Tool(_read, name="Read"),
            ],
        )
        self.agent.system_prompt(_system)

    def upload(self, session_id: str, file_id: str, name: str, content: str) -> None:
        """Add the session's file (before the first step, as the project's upload)."""
        self.store.put_file(session_id, file_id, name, content)

    def start(self, session_id: str, file_id: str, name: str, user_input: str) -> StepResult:
        """The session's first step: the user's request, with the state note."""
        content = self.store.content(file_id)
        file = FileState(file_id, name, len(content), initial_coverage(content))
        deps = _Deps(file, content)
        prompt = f"{user_input}\n\n{_note(file, content)}"
        result = self.agent.run_sync(prompt, deps=deps)
        self.store.save(session_id, result.all_messages(), deps.file)
        return _answer(result.output)

    def step(self, session_id: str, approvals: dict[str, bool]) -> StepResult:
        """A reviewed batch: load the item, resume with the verdicts (and a fresh state note), save."""
        history, file = self.store.load(session_id)
        deps = _Deps(file, self.store.content(file.file_id))
        results = DeferredToolResults(approvals=dict(approvals))
        note = _note_after(file, deps.content, history, approvals)
        result = self.agent.run_sync(note, message_history=history, deferred_tool_results=results, deps=deps)
        self.store.save(session_id, result.all_messages(), deps.file)
        return _answer(result.output)


def _system(ctx: RunContext[_Deps]) -> str:
    """The project's system prompt (rules and the file list), set by the first run and kept in the history."""
    return system_prompt([ctx.deps.file])


def _answer(output: str | DeferredToolRequests) -> StepResult:
    if isinstance(output, str):
        return StepResult(proposals=(), text=output)
    proposals = []
    for call in output.approvals:
        args = call.args_as_dict()
        proposals.append(Proposal(call.tool_call_id, str(args["src_string"]), str(args["translate_string"])))
    return StepResult(proposals=tuple(proposals))


def _note_after(file: FileState, content: str, history: list[ModelMessage], approvals: dict[str, bool]) -> str:
    """The state note as it will stand once the approved units are written (the tools run after the prompt is set)."""
    calls = {c.tool_call_id: c for c in getattr(history[-1], "tool_calls", [])}
    for call_id, approved in approvals.items():
        call = calls.get(call_id)
        if approved and call is not None:
            file = _cover(file, content, str(call.args_as_dict().get("src_string", ""))) or file
    return _note(file, content)


def _note(file: FileState, content: str) -> str:
    gap = file.next_gap()
    shown: dict[str, list[NextText]] = {}
    if gap is not None:
        start, gap_end = gap
        end = min(gap_end, start + BATCH_CHARS)
        text = content[start:end]
        if end < gap_end:
            text = to_block_end(text)
        text = at_most_lines(text, BATCH_LINES)
        later = first_gap(add_span(file.covered, start, start + len(text)), file.chars)
        shown[file.file_id] = [NextText(start=start, text=text, more=later is not None)]
    return state_note([file], shown)


def _cover(file: FileState, content: str, src: str) -> FileState | None:
    """The file with `src` covered where it first stands in the untranslated text (and the blanks after it)."""
    gap = file.next_gap()
    at = content.find(src, gap[0]) if gap and src.strip() else -1
    if at < 0:
        return None
    end = at + len(src)
    end += len(content[end:]) - len(content[end:].lstrip())
    return FileState(file.file_id, file.name, file.chars, add_span(file.covered, at, end))


async def _translate(ctx: RunContext[_Deps], file_id: str, src_string: str, translate_string: str) -> dict[str, str]:
    """Propose the translation of the next unit of a file; the reviewer approves it before it is written."""
    named = find_file([ctx.deps.file], file_id) is not None  # its handle (f1, as the prompt shows it) or id
    covered = _cover(ctx.deps.file, ctx.deps.content, src_string) if named else None
    if covered is None:
        return {"status": "reject", "reason": "Not reviewed: the source is not the file's next untranslated text."}
    ctx.deps.file = covered
    return {"status": "approve", "translated_string": translate_string}


async def _read(ctx: RunContext[_Deps], file_id: str, max_chars: int = READ_WINDOW) -> dict[str, Any]:
    """Read the untranslated text of a file, from its first untranslated character."""
    file = ctx.deps.file
    result: dict[str, Any] = {
        "file_id": file_handle([file], file.file_id),
        "name": file.name,
        "total_chars": file.chars,
    }
    result.update(translated_chars=file.translated_chars, complete=file.complete)
    gap = file.next_gap()
    if gap is None:
        return {**result, "start": file.chars, "text": "", "more": False}
    start, gap_end = gap
    end = min(gap_end, start + max_chars)
    return {**result, "start": start, "text": ctx.deps.content[start:end], "more": end < file.chars}
