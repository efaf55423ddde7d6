"""The MCP tools: each a few requests to the API, its description saying what it costs and who decides.

Costs are named as the service counts them: a model request (a step makes at most one), its tokens,
and nothing else; reads and the offline check cost none. Every proposal waits for a person's verdict,
and `decide` relays only verdicts a person gave on the exact proposals shown (mcp_server.verdicts).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Literal

import anyio.to_thread
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from interchange.errors import InterchangeError
from interchange.tmx import parse_tmx

from . import files
from .api import AgentApi, ApiError
from .lookup import MemoryMatch, glossary_hits, memory_matches
from .verdicts import Decision, StaleVerdict, bind
from .views import Export, FileAnalysis, JobReport, Lookup, SessionReport, Spent, job_report, report

INSTRUCTIONS = """\
A human-in-the-loop translation service. The model proposes translations; a person decides each one.
You may look things up, estimate, start translations the person asked for, show the person the
proposals, relay the verdicts the person gives, and fetch what people decided. You never decide a
proposal yourself. Each tool's description says what it costs (model requests and tokens, or nothing).
"""

READ = ToolAnnotations(readOnlyHint=True, idempotentHint=True, openWorldHint=False)
WRITE = ToolAnnotations(readOnlyHint=False, destructiveHint=False, openWorldHint=True)

CONCORDANCE_QUERY = 200
"""The longest text the service's concordance route looks up (service.concordance.MAX_QUERY)."""
CONCORDANCE_SIMILAR = 5
"""The most matches it answers (service.concordance.SIMILAR)."""

DESCRIPTIONS: dict[str, tuple[ToolAnnotations, str]] = {
    "lookup_memory": (
        READ,
        "Look a term or a sentence up in the glossary and the translation memory (yours, or a project's). "
        "Answers the glossary entries whose term occurs in `text` or that name it, and the translations "
        "people approved or edited for similar sources, with their similarity (0–100). "
        "Cost: no model request, no tokens (two reads of the API; without target_language, or with a limit "
        "over 5, the second reads the whole translation memory). Decides nothing.",
    ),
    "analyze_file": (
        READ,
        "Analyse a file and price its translation: segments, words, translation-memory matches, and the "
        "estimate (model requests, input and output tokens, US dollars for the model). Cost: no model "
        "request, no tokens: a temporary session holds the file while the service counts, and is deleted. "
        "Decides nothing.",
    ),
    "start_translation": (
        WRITE,
        "Start translating one file into one language (a session with the file), when the person asked for "
        "it. With `propose` (the default) the model is asked for the first proposals at once. Cost: model "
        "requests and their tokens: up to `max_steps` now (`analyze_file` prices the whole file), none with "
        "`propose` false. Decides nothing: every proposal waits for a person's verdict (`decide`), unless "
        "the session's project approves by its own rule.",
    ),
    "start_job": (
        WRITE,
        "Start a job: files (by path) and/or resource strings (key → source text, sent as one i18next JSON "
        "file) into several languages, one session a language, each reviewed on its own. Cost: no model "
        "request when it is made (the service estimates each language: see `estimate`); each language's "
        "session asks the model only when `continue_translation` is called for it. Decides nothing.",
    ),
    "continue_translation": (
        WRITE,
        "Ask the model for a session's next proposals, when none waits for a verdict. Cost: up to "
        "`max_steps` model requests and their tokens (a step makes at most one; none while proposals wait "
        "for a person). Decides nothing.",
    ),
    "read_session": (
        READ,
        "A session's progress, spending and the proposals waiting for a person's verdict, each with its "
        "`call_id`, source and proposed text, QA warnings and estimate. Cost: none. Decides nothing.",
    ),
    "read_job": (
        READ,
        "A job's languages: each one's session, state, segments left, spending and estimate. Cost: none. "
        "Decides nothing.",
    ),
    "decide": (
        WRITE,
        "Send a person's verdicts on proposals. WHO DECIDES: the person, never you. Send only verdicts a "
        "person gave on proposals you showed them, each quoting the proposal exactly as shown (`proposal`) "
        "and their reason in their words; decide on their behalf only when the person told you so "
        "explicitly, and only as far as they said (for example 'approve the ones without warnings'). Never "
        "approve, edit or reject on your own judgement. A verdict whose proposal changed, was decided "
        "meanwhile or is not pending is refused, and nothing is sent. Reasons reach the model. Cost: when "
        "the verdicts complete the batch, the same request asks the model for the next proposals (one model "
        "request); with `go_on`, up to `max_steps` in all.",
    ),
    "export_translation": (
        READ,
        "Fetch a file's translation: what people decided (approved, edited or revised units; untranslated "
        "text is left out and `complete` is false). `format`: `original` (the file's own format, everything "
        "else unchanged), `md`, `xliff2`, `xliff12`, `tmx`. With `write_to`, it is also written under the "
        "server's folder. Cost: none. Decides nothing.",
    ),
    "check": (
        READ,
        "Check translated files offline, as `translation-agent check` does in CI: missing translations, "
        "broken placeholders and inline codes, glossary terms. `source` pairs monolingual files with their "
        "source (`locales/en/{name}`, `{lang}`). Cost: none (no server, no model). Decides nothing.",
    ),
}

Language = Annotated[str, Field(description="A BCP 47 tag or a language name: `fr`, `pt-BR`, `German`.")]
Project = Annotated[str | None, Field(description="A project's id: its memory and settings serve (default: yours).")]
Model = Annotated[str | None, Field(description="One of the service's configured models (default: its default).")]
Path_ = Annotated[str | None, Field(description="A file under the server's folder (`--root`), relative to it.")]
Name = Annotated[str | None, Field(description="With `content`: the file's name; its extension picks the format.")]
Content = Annotated[str | None, Field(description="The file's text, when it is not given by `path`.")]
Steps = Annotated[int, Field(ge=1, le=20, description="The most model requests this call may make.")]


@contextlib.contextmanager
def _plainly() -> Iterator[None]:
    """The API's, the files' and the verdicts' errors as the tool's error message (nothing else raised)."""
    try:
        yield
    except (ApiError, StaleVerdict, files.FileError, InterchangeError) as exc:
        raise ToolError(str(exc)) from exc


class Tools:
    """The tools' bodies over one API client and one root folder (a method a tool, named as in DESCRIPTIONS)."""

    def __init__(self, api: AgentApi, root: Path) -> None:
        self.api = api
        self.root = root

    async def lookup_memory(
        self,
        text: Annotated[str, Field(min_length=1, max_length=5000, description="A term or a sentence.")],
        target_language: Annotated[str | None, Field(description="Only this language's entries.")] = None,
        project: Project = None,
        limit: Annotated[int, Field(ge=1, le=20)] = 5,
        min_score: Annotated[float, Field(ge=50, le=100, description="The lowest similarity shown.")] = 50,
    ) -> Lookup:
        with _plainly():
            memory = await self.api.memory(project)
            if target_language and len(text.strip()) <= CONCORDANCE_QUERY and limit <= CONCORDANCE_SIMILAR:
                tag, found = await self.api.similar(project, text, target_language)
                matches = [
                    MemoryMatch(score=h.score, source=h.source, target=h.target, language=tag)
                    for h in found
                    if h.score >= min_score
                ][:limit]
            else:  # every language, or more than the service's route answers: the memory's export
                pairs = parse_tmx(await self.api.memory_tmx(project))
                matches = memory_matches(text, pairs, target_language, min_score=min_score, limit=limit)
        return Lookup(glossary=glossary_hits(text, memory.glossary, target_language), memory=matches)

    async def analyze_file(
        self,
        target_language: Language,
        path: Path_ = None,
        name: Name = None,
        content: Content = None,
        model: Model = None,
    ) -> FileAnalysis:
        with _plainly():
            file_name, text = files.source(self.root, path, name, content)
            session_id = await self.api.create_session(target_language=target_language, model=model)
            try:
                info = await self.api.upload(session_id, file_name, text)
                found = await self.api.analysis(session_id, info.fileId)
            finally:
                await self.api.delete_session(session_id)
        e = found.estimate
        return FileAnalysis(
            name=file_name,
            target_language=found.targetLanguage,
            segments=found.segments,
            words=found.words,
            chars=found.chars,
            locked=found.locked,
            repetitions=found.repetitions,
            bands={band: b.segments for band, b in found.bands.items()},
            estimate=Spent(
                model_requests=e.modelRequests, input_tokens=e.inputTokens, output_tokens=e.outputTokens, usd=e.usd
            ),
            model=e.model,
        )

    async def start_translation(
        self,
        target_language: Language,
        path: Path_ = None,
        name: Name = None,
        content: Content = None,
        model: Model = None,
        project: Project = None,
        budget_tokens: Annotated[
            int | None, Field(ge=1, description="Stop asking the model past this many tokens (input and output).")
        ] = None,
        propose: bool = True,
        max_steps: Steps = 3,
    ) -> SessionReport:
        with _plainly():
            file_name, text = files.source(self.root, path, name, content)
            session_id = await self.api.new_session(
                target_language, model=model, project=project, budget_tokens=budget_tokens
            )
            await self.api.upload(session_id, file_name, text)
            if propose:
                task = {"sessionId": session_id, "userInput": f"Translate {file_name} into {target_language}."}
                try:
                    await self.api.until_review(task, max_steps=max_steps)
                except ApiError as exc:
                    message = f"Session {session_id} holds the file, but the model was not asked: {exc}"
                    raise ApiError(f"{message} `continue_translation` asks again.", status=exc.status) from exc
            return report(await self.api.session_status(session_id))

    async def start_job(
        self,
        target_languages: Annotated[list[str], Field(min_length=1, max_length=30)],
        paths: Annotated[list[str] | None, Field(description="Files under the server's folder.")] = None,
        strings: Annotated[
            dict[str, str] | None, Field(description="Resource strings to translate: key → source text.")
        ] = None,
        strings_name: Annotated[str, Field(description="The JSON file the strings are sent as.")] = "strings.json",
        model: Model = None,
        project: Project = None,
    ) -> JobReport:
        with _plainly():
            sources = [files.read_source(self.root, p) for p in paths or ()]
            if strings:
                sources.append((strings_name, json.dumps(strings, ensure_ascii=False, indent=2)))
            if not sources:
                raise files.FileError("Give `paths`, `strings`, or both.")
            texts = [(n, t) for n, t in sources if isinstance(t, str)]
            if len(texts) < len(sources):
                binary = ", ".join(n for n, t in sources if isinstance(t, bytes))
                raise files.FileError(f"A job takes text files; start_translation takes {binary}.")
            job_id, _ = await self.api.create_job(texts, target_languages, model=model, project=project)
            return job_report(await self.api.job(job_id))

    async def continue_translation(self, session_id: str, max_steps: Steps = 3) -> SessionReport:
        with _plainly():
            await self.api.until_review({"sessionId": session_id}, max_steps=max_steps)
            return report(await self.api.session_status(session_id))

    async def read_session(self, session_id: str) -> SessionReport:
        with _plainly():
            return report(await self.api.session_status(session_id))

    async def read_job(self, job_id: str) -> JobReport:
        with _plainly():
            return job_report(await self.api.job(job_id))

    async def decide(
        self,
        session_id: str,
        decisions: Annotated[list[Decision], Field(min_length=1, max_length=50)],
        go_on: Annotated[bool, Field(description="Go on to the next proposals while the model has the turn.")] = True,
        max_steps: Steps = 3,
    ) -> SessionReport:
        with _plainly():
            verdicts = bind(await self.api.session_status(session_id), decisions)
            try:
                step = await self.api.verdicts(session_id, verdicts)
            except ApiError as exc:
                if exc.status == 409:
                    raise StaleVerdict(f"Refused by the service, nothing was changed: {exc}") from exc
                raise
            if go_on and step.agentResponse.actor == "agent" and max_steps > 1:
                await self.api.until_review({"sessionId": session_id}, max_steps=max_steps - 1)
            return report(await self.api.session_status(session_id))

    async def export_translation(
        self,
        session_id: str,
        file: Annotated[str | None, Field(description="The file's id or name (not needed for one).")] = None,
        format: Literal["original", "md", "xliff2", "xliff12", "tmx"] = "original",
        write_to: Annotated[str | None, Field(description="A path under the server's folder.")] = None,
    ) -> Export:
        with _plainly():
            view = await self.api.session_status(session_id)
            named = [f for f in view.files if file in (None, f.fileId, f.name)]
            if len(named) != 1:
                names = ", ".join(f"{f.fileId} {f.name}" for f in view.files) or "none"
                raise files.FileError(f"Name one file of the session (`file`): {names}.")
            download = await self.api.download(session_id, named[0].fileId, format)
            info = await self.api.file(session_id, named[0].fileId)
            written = str(files.write(self.root, write_to, download.data)) if write_to else None
        try:
            text: str | None = download.data.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        return Export(file_name=download.filename, complete=info.progress.complete, text=text, written_to=written)

    async def check(
        self,
        paths: Annotated[list[str], Field(min_length=1, description="Files under the server's folder.")],
        source: Annotated[str | None, Field(description="The source file or a pattern with {name}/{lang}.")] = None,
        glossary: Annotated[str | None, Field(description="A TBX or CSV glossary under the folder.")] = None,
        source_language: str | None = None,
        changed_since: Annotated[str | None, Field(description="Only what differs from this git revision.")] = None,
    ) -> files.CheckResult:
        def run() -> files.CheckResult:
            return files.check(
                self.root,
                paths,
                source_pattern=source,
                glossary=glossary,
                source_language=source_language,
                changed_since=changed_since,
            )

        with _plainly():
            return await anyio.to_thread.run_sync(run)


def build_server(api: AgentApi, *, root: Path) -> MCPServer:
    """The MCP server whose tools speak to the API through `api`, with local files under `root`."""
    server = MCPServer("translation-agent", instructions=INSTRUCTIONS)
    tools = Tools(api, root)
    for name, (hints, description) in DESCRIPTIONS.items():
        server.add_tool(getattr(tools, name), name=name, description=description, annotations=hints)
    return server
