"""`translation-agent`: translate in the terminal, serve the API or the MCP tools, list sessions, export, analyse,
import memory."""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import sys
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Literal

from .api import ApiClient, ApiError
from .local import TOKEN_ENV, connect
from .local_state import LocalState
from .models import Analysis, FileInfo, JobView, SessionView
from .paths import default_db, default_log
from .review import Job, ReviewApp
from .second_review_cli import add_review_parser, run_review
from .sync_cli import add_sync_parser, sync_command

EXPORT_FORMATS = ("md", "original", "xliff2", "xliff12", "tmx")
IMPORT_FORMATS = ("tmx", "csv", "tbx")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="translation-agent", description=__doc__)
    where = argparse.ArgumentParser(add_help=False)
    where.add_argument("--api", metavar="URL", help="a deployed API (default: the embedded store, in-process)")
    where.add_argument("--token", help=f"bearer token for --api (default: ${TOKEN_ENV})")
    where.add_argument("--db", type=Path, help=f"the embedded SQLite file (default: $SQLITE_PATH or {default_db()})")
    where.add_argument("--log", type=Path, help=f"the app's log file (default: {default_log()})")
    commands = parser.add_subparsers(dest="command", required=True)

    translate = commands.add_parser("translate", parents=[where], help="translate a file and review it")
    translate.add_argument("file", type=Path, nargs="?", help="the document (not needed with --session)")
    translate.add_argument(
        "--to",
        dest="language",
        help="the target language, e.g. French; several make a job: de,fr,pl (one session each)",
    )
    translate.add_argument("--session", help="resume this session (nothing is proposed again)")
    translate.add_argument("--model", help="one of the configured models (default: the server's)")
    translate.add_argument("--project", help="start it in this project (`projects` lists yours): its memory serves")
    translate.add_argument(
        "--pretranslate",
        action="store_true",
        help="the model translates the whole file first with no card; then review it with `review SESSION`",
    )
    translate.add_argument(
        "-o", "--output", type=Path, help="where the translation goes (default: NAME.LANG.EXT beside the source)"
    )

    serve = commands.add_parser("serve", help="start the local service (web UI and API)")
    serve.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
    serve.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    serve.add_argument("--db", type=Path, help=f"the embedded SQLite file (default: $SQLITE_PATH or {default_db()})")

    commands.add_parser("sessions", parents=[where], help="list the sessions")
    projects = commands.add_parser("projects", parents=[where], help="list your projects, or one project's sessions")
    projects.add_argument("project", nargs="?", help="a project's id: its sessions you may read")
    projects.add_argument("--create", metavar="NAME", help="create a project (you are its first manager)")

    export = commands.add_parser("export", parents=[where], help="write a file's translation")
    export.add_argument("session")
    export.add_argument("file", nargs="?", help="the file's id or name (`sessions` lists them; not needed for one)")
    export.add_argument("--format", choices=EXPORT_FORMATS, default="md")
    export.add_argument("-o", "--output", type=Path, help="default: the name the server suggests")

    analyze = commands.add_parser(
        "analyze", parents=[where], help="count a file's segments and words, its memory matches and the cost"
    )
    analyze.add_argument("file", type=Path)
    analyze.add_argument("--to", dest="language", required=True, help="the target language, e.g. fr or French")
    analyze.add_argument("--model", help="price it for this configured model (default: the server's)")

    check = commands.add_parser(
        "check", help="check existing translations (XLIFF, TMX, PO, resource files) offline; exit 1 on an error, for CI"
    )
    check.add_argument("files", type=Path, nargs="+", metavar="FILE")
    check.add_argument(
        "--source",
        metavar="SRC",
        help="pair monolingual files (strings.xml, JSON, YAML, .strings) with their source by key: a path, "
        "or a pattern with {name} (the file's name) or {lang} (its language), e.g. 'locales/en/{name}'",
    )
    check.add_argument("--glossary", type=Path, help="a TBX or CSV glossary the translations should follow")
    check.add_argument(
        "--source-language", help="the source language: the glossary's (a TBX with several), {lang} in --source"
    )
    check.add_argument("--changed-since", metavar="REF", help="check only what differs from this git revision")
    check.add_argument("--format", choices=("text", "json"), default="text")
    check.add_argument("--review", action="store_true", help="add the model's own verdict on each translated segment")
    check.add_argument("--model", help="the model that reviews (default: $AGENT_MODEL, else the offline pseudo model)")
    check.add_argument(
        "--qa-profile",
        metavar="PROFILE",
        help="the QA profile: strings, documents, subtitles or a JSON file (default: each file's kind's)",
    )

    mcp = commands.add_parser("mcp", help="serve the MCP tools for coding agents and assistants (docs/mcp.md)")
    mcp.add_argument("--http", action="store_true", help="serve streamable HTTP on --host:--port (default: stdio)")
    mcp.add_argument("--host", default="127.0.0.1")
    mcp.add_argument("--port", type=int, default=8765)
    mcp.add_argument("--api", metavar="URL", help="the API (default: $TRANSLATION_AGENT_API, else the local service)")
    mcp.add_argument("--token", help=f"bearer token for the API (default: ${TOKEN_ENV})")
    mcp.add_argument(
        "--root", type=Path, default=Path.cwd(), help="the folder whose files the tools may read and write"
    )

    add_review_parser(commands, where)

    memory = commands.add_parser("import", parents=[where], help="add a TMX, CSV or TBX file to the memory")
    memory.add_argument("file", type=Path)
    memory.add_argument("--format", choices=IMPORT_FORMATS, help="default: from the file's extension")
    add_sync_parser(commands, where)
    return parser


def default_output(source: Path, language: str) -> Path:
    """`guide.md` into French → `guide.french.md`, next to the source."""
    slug = re.sub(r"[^a-z0-9]+", "-", language.lower()).strip("-") or "translated"
    return source.with_name(f"{source.stem}.{slug}{source.suffix}")


def _db(args: argparse.Namespace) -> Path | None:
    return args.db or (Path(os.environ["SQLITE_PATH"]) if os.environ.get("SQLITE_PATH") else None)


def _client(args: argparse.Namespace) -> ApiClient:
    return connect(args.api, args.token, _db(args), args.log)


def _state(args: argparse.Namespace) -> LocalState:
    """The client's records beside the data: the embedded store's folder, or the log's with --api."""
    return LocalState.beside((args.log or default_log()) if args.api else (_db(args) or default_db()))


def _resumed_output(args: argparse.Namespace, view: SessionView, state: LocalState, name: str) -> Path:
    """Where a resumed session writes: -o, beside FILE, or where its first run wrote (remembered here)."""
    if args.output:
        return Path(args.output)
    remembered = state.output(view.id)
    if args.file and (args.language or remembered is None):
        return default_output(args.file, args.language or "translated")
    if remembered is not None:
        return remembered
    # Started elsewhere (another machine, the web UI): the source's folder is unknown here.
    output = default_output(Path.cwd() / name, args.language or "translated")
    print(f"The source's folder of this session is not known here: the translation goes to {output} (-o changes it).")
    return output


def _languages(value: str | None) -> list[str]:
    """The languages `--to` names, comma-separated."""
    return [part.strip() for part in (value or "").split(",") if part.strip()]


async def _translate(client: ApiClient, args: argparse.Namespace) -> int:
    state = _state(args)
    if not args.session and len(_languages(args.language)) > 1:
        return await _translate_job(client, args, state)
    if args.session:
        view = await client.session(args.session)
        name = args.file.name if args.file else None
        match = next((f for f in view.files if f.name == name), view.files[0] if view.files else None)
        output = _resumed_output(args, view, state, match.name if match else "translation.md")
        pretranslate = view.review == "pretranslate"
        job = Job(view.id, match.fileId if match else None, output, state=state, pretranslate=pretranslate)
    else:
        if args.file is None or not args.language:
            raise ApiError("translate needs FILE and --to LANGUAGE (or --session ID to resume).")
        content = file_content(args.file)
        review = "pretranslate" if args.pretranslate else None
        session_id = await client.create_session(
            target_language=args.language, model=args.model, project=args.project, review=review
        )
        info = await client.upload(session_id, args.file.name, content)
        output = args.output or default_output(args.file, args.language)
        first = f"Translate {args.file.name} into {args.language}."
        job = Job(session_id, info.fileId, output, first_input=first, state=state, pretranslate=args.pretranslate)
    state.remember_output(job.session_id, job.output)
    app = ReviewApp(client, job)
    await app.run_async()
    if app.farewell:
        print(app.farewell)
    view = await client.session(job.session_id)
    done = all(f.progress.complete for f in view.files) and not view.pendingCopilotRequests
    print(f"Session {job.session_id}: {'complete, written to' if done else 'the translation goes to'} {job.output}.")
    _print_files(view.files)
    if not done:
        print(f"Resume with `translation-agent translate --session {job.session_id}`.")
    elif view.review == "pretranslate":
        print(f"Pre-translated: review it with `translation-agent review {job.session_id}`.")
    print(f"Export with `translation-agent export {job.session_id}{_file_arg(view.files)} --format xliff2`.")
    return 0


async def _translate_job(client: ApiClient, args: argparse.Namespace, state: LocalState) -> int:
    """One job for several languages: each language's session reviewed in turn, each translation
    beside the source (`guide.de.md`); quitting one stops there, and the rest can be resumed."""
    if args.file is None:
        raise ApiError("translate needs FILE with --to de,fr,pl.")
    if args.output:
        raise ApiError("-o names one file; with several languages each translation goes beside the source.")
    languages = _languages(args.language)
    content = args.file.read_text(encoding="utf-8")
    job_id, sessions = await client.create_job(
        [(args.file.name, content)], languages, model=args.model, project=args.project
    )
    print(f"Job {job_id}: {', '.join(f'{tag} {sid}' for tag, sid in sessions.items())}")
    stopped: list[str] = []
    for tag, sid in sessions.items():
        if stopped:
            stopped.append(tag)
            continue
        view = await client.session(sid)
        output = default_output(args.file, tag)
        job = Job(sid, view.files[0].fileId if view.files else None, output, state=state)
        state.remember_output(sid, output)
        app = ReviewApp(client, job)
        app.title = f"translation-agent · {tag}"
        await app.run_async()
        if app.farewell:
            print(app.farewell)
        after = await client.session(sid)
        if after.state != "complete" or after.pendingCopilotRequests:
            stopped.append(tag)
    _print_job(await client.job(job_id))
    for tag in stopped:
        print(f"Resume {tag} with `translation-agent translate {args.file} --to {tag} --session {sessions[tag]}`.")
    return 0


def _print_job(view: JobView) -> None:
    """Each language of a job: state, segments left, spending against the estimate."""
    print(f"{'language':<10}  {'state':<9}  {'segments left':>13}  {'spent':>10}  {'estimate':>10}  session")
    for tag, lang in view.languages.items():
        left = f"{lang.progress.segmentsLeft}/{lang.progress.segments}"
        spent, estimate = (
            _usd(lang.spent.usd, lang.spent.inputTokens),
            _usd(lang.estimate.usd, lang.estimate.inputTokens),
        )
        note = f"  ({lang.error})" if lang.error else f"  (retry at {lang.retryAt})" if lang.retryAt else ""
        print(f"{tag:<10}  {lang.state:<9}  {left:>13}  {spent:>10}  {estimate:>10}  {lang.sessionId}{note}")


def _usd(usd: float | None, tokens: int) -> str:
    """Dollars when priced, else input tokens."""
    return f"${usd:.4f}" if usd is not None else f"{tokens} tok"


def _print_files(files: Sequence[FileInfo]) -> None:
    for f in files:
        total = f.progress.totalChars or f.chars
        state = "complete" if f.progress.complete else f"{f.progress.translatedChars}/{total} chars"
        print(f"    file {f.fileId}  {f.name}  ({state})")


def _file_arg(files: Sequence[FileInfo]) -> str:
    """What `export` needs besides the session: nothing for one file, else the first file's id."""
    return f" {files[0].fileId}" if len(files) > 1 else ""


async def _sessions(client: ApiClient, args: argparse.Namespace) -> int:
    page = await client.sessions()
    views = await _views(client, [s.id for s in page.sessions])
    print(f"{'session':<36}  {'updated':<25}  {'msgs':>5}  title")
    for s in page.sessions:
        print(f"{s.id:<36}  {s.updatedAt:<25}  {s.messageCount:>5}  {s.title or ''}")
        _print_files(views[s.id].files if s.id in views else ())
    if page.nextCursor:
        print("… (more sessions)")
    return 0


async def _projects(client: ApiClient, args: argparse.Namespace) -> int:
    """The caller's projects (id, role, languages, name), or one project's sessions; or a new project."""
    if args.create:
        print(f"Project {await client.create_project(args.create)}: {args.create}.")
        return 0
    if args.project:
        found = await client.project_sessions(args.project)
        print(f"{'session':<36}  {'language':<9}  {'state':<9}  {'written':>17}  updated")
        for s in found:
            written = f"{s.progress.translatedChars}/{s.progress.totalChars} chars"
            print(f"{s.id:<36}  {s.targetLanguage or '?':<9}  {s.state:<9}  {written:>17}  {s.updatedAt}")
        if not found:
            print("No session of this project that you may read.")
        return 0
    mine = await client.projects()
    print(f"{'project':<36}  {'role':<10}  {'languages':<12}  name")
    for p in mine:
        print(f"{p.id:<36}  {p.role:<10}  {','.join(p.languages):<12}  {p.name}")
    if not mine:
        print("You are a member of no project.")
    return 0


async def _views(client: ApiClient, ids: Sequence[str]) -> dict[str, SessionView]:
    """The sessions' views, a few requests at a time; a session gone meanwhile is left out."""
    gate = asyncio.Semaphore(4)

    async def one(session_id: str) -> SessionView | None:
        async with gate:
            try:
                return await client.session(session_id)
            except ApiError as exc:
                if exc.status == 404:
                    return None
                raise

    found = await asyncio.gather(*(one(i) for i in ids))
    return {v.id: v for v in found if v is not None}


def _pick_file(view: SessionView, wanted: str | None) -> FileInfo:
    """The file named by id or name; without one, the session's only file."""
    if wanted is not None:
        match = [f for f in view.files if f.fileId == wanted] or [f for f in view.files if f.name == wanted]
        if len(match) == 1:
            return match[0]
        problem = "Several files are" if match else "No file is"
        raise ApiError(f"{problem} called {wanted!r} in session {view.id}: {_names(view.files)}.")
    if len(view.files) == 1:
        return view.files[0]
    if not view.files:
        raise ApiError(f"Session {view.id} has no file to export.")
    raise ApiError(f"Session {view.id} has {len(view.files)} files: name one ({_names(view.files)}).")


def _names(files: Sequence[FileInfo]) -> str:
    return ", ".join(f"{f.fileId} {f.name}" for f in files) or "it has none"


async def _export(client: ApiClient, args: argparse.Namespace) -> int:
    view = await client.session(args.session)
    info = _pick_file(view, args.file)
    download = await client.download(view.id, info.fileId, args.format)
    output: Path = args.output or Path(download.filename)
    output.write_bytes(download.data)
    print(f"Wrote {output} ({info.name}, {args.format})")
    return 0


def file_content(path: Path) -> str | bytes:
    """A file to upload: its text when it is UTF-8, else its bytes (sent as base64: `.docx`, UTF-16)."""
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data


async def _analyze(client: ApiClient, args: argparse.Namespace) -> int:
    """The file's analysis, from a session made for it and deleted after (nothing is left behind)."""
    content = file_content(args.file)
    session_id = await client.create_session(target_language=args.language, model=args.model)
    try:
        info = await client.upload(session_id, args.file.name, content)
        found = await client.analysis(session_id, info.fileId)
    finally:
        await client.delete_session(session_id)
    print(analysis_report(args.file.name, found))
    return 0


def analysis_report(name: str, found: Analysis) -> str:
    """An analysis as a CAT tool prints one: totals, then a row a category, then the estimate."""
    rows: list[tuple[str, int, int | None]] = [("Locked", found.locked, None), ("Repetitions", found.repetitions, None)]
    rows += [(f"{band}%" if band != "none" else "No match", b.segments, b.words) for band, b in found.bands.items()]
    lines = [
        f"{name}: {found.segments} segments, {found.words} words, {found.chars} characters"
        f" (into {found.targetLanguage or 'an unknown language'})",
        f"  {'category':<12} {'segments':>9} {'words':>8}",
    ]
    lines += [f"  {label:<12} {segments:>9} {'' if words is None else words:>8}" for label, segments, words in rows]
    e = found.estimate
    cost = "no price known" if e.usd is None else f"${e.usd:,.4f}"
    lines.append(
        f"Estimate with {e.model}: {e.modelRequests} model request{'' if e.modelRequests == 1 else 's'},"
        f" {e.inputTokens:,} input and"
        f" {e.outputTokens:,} output tokens, {cost}"
    )
    return "\n".join(lines)


async def _import(client: ApiClient, args: argparse.Namespace) -> int:
    fmt = args.format or args.file.suffix.lstrip(".").lower()
    if fmt not in IMPORT_FORMATS:
        raise ApiError(f"Cannot tell the format of {args.file.name}: pass --format {'|'.join(IMPORT_FORMATS)}.")
    result = await client.import_memory(fmt, args.file.read_text(encoding="utf-8"))
    print(f"Memory: {result.added} added, {result.updated} updated, {result.skipped} skipped.")
    return 0


COMMANDS: dict[str, Callable[[ApiClient, argparse.Namespace], Awaitable[int]]] = {
    "translate": _translate,
    "sessions": _sessions,
    "projects": _projects,
    "export": _export,
    "import": _import,
    "analyze": _analyze,
    "review": run_review,
}


def serve(host: str, port: int, db: Path | None) -> int:
    """The local service, as `scripts/serve` starts it: SQLite storage, the pseudo model unless set."""
    os.environ.setdefault("STORAGE_BACKEND", "sqlite")
    os.environ.setdefault("SQLITE_PATH", str(db or default_db()))
    if db is not None:
        os.environ["SQLITE_PATH"] = str(db)
    os.environ.setdefault("AGENT_MODEL", "pseudo")
    Path(os.environ["SQLITE_PATH"]).parent.mkdir(parents=True, exist_ok=True)
    try:
        import uvicorn
    except ImportError:
        print("serve needs uvicorn: pip install 'translation-agent[local]'", file=sys.stderr)
        return 2
    print(f"Translation agent: http://{host}:{port}/  (model: {os.environ['AGENT_MODEL']}, storage: sqlite)")
    uvicorn.run("handlers.api:app", host=host, port=port, access_log=False)
    return 0


async def _run(args: argparse.Namespace) -> int:
    client = _client(args)
    try:
        return await COMMANDS[args.command](client, args)
    finally:
        await client.aclose()


def main(argv: Sequence[str] | None = None) -> int:
    """The console script."""
    args = _parser().parse_args(argv)
    if args.command == "serve":
        return serve(args.host, args.port, args.db)
    if args.command == "check":
        return _check(args)
    if args.command == "mcp":
        return _mcp(args)
    if args.command == "sync":
        return sync_command(args)
    try:
        return asyncio.run(_run(args))
    except ApiError as exc:
        print(f"translation-agent: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"translation-agent: {exc}", file=sys.stderr)
        return 1


def _mcp(args: argparse.Namespace) -> int:
    """`mcp`: the MCP server over stdio or streamable HTTP; the `mcp` SDK is needed for this command only."""
    try:
        from mcp_server.serve import run
    except ImportError as exc:
        print(f"mcp needs the MCP SDK: pip install 'translation-agent[mcp]' ({exc})", file=sys.stderr)
        return 2
    transport: Literal["stdio", "http"] = "http" if args.http else "stdio"
    return run(transport, api_url=args.api, token=args.token, root=args.root, host=args.host, port=args.port)


def _check(args: argparse.Namespace) -> int:
    """`check`: the report on stdout, its exit status (2 when the check could not run)."""
    from .check import CheckError, run_check

    try:
        status, report = run_check(
            args.files,
            glossary=args.glossary,
            source_language=args.source_language,
            changed_since=args.changed_since,
            as_json=args.format == "json",
            review=(args.model or os.environ.get("AGENT_MODEL") or "pseudo") if args.review else None,
            source=args.source,
            qa_profile=args.qa_profile,
        )
    except (CheckError, OSError, UnicodeDecodeError) as exc:
        print(f"translation-agent check: {exc}", file=sys.stderr)
        return 2
    print(report)
    return status


if __name__ == "__main__":
    sys.exit(main())
