"""`translation-agent`: translate in the terminal, serve the API, list sessions, export, import memory."""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import sys
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

from .api import ApiClient, ApiError
from .local import DEFAULT_DB, DEFAULT_LOG, TOKEN_ENV, connect
from .review import Job, ReviewApp

EXPORT_FORMATS = ("md", "xliff2", "xliff12", "tmx")
IMPORT_FORMATS = ("tmx", "csv", "tbx")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="translation-agent", description=__doc__)
    where = argparse.ArgumentParser(add_help=False)
    where.add_argument("--api", metavar="URL", help="a deployed API (default: the embedded store, in-process)")
    where.add_argument("--token", help=f"bearer token for --api (default: ${TOKEN_ENV})")
    where.add_argument("--db", type=Path, help=f"the embedded SQLite file (default: $SQLITE_PATH or {DEFAULT_DB})")
    where.add_argument("--log", type=Path, default=DEFAULT_LOG, help=f"the app's log file (default: {DEFAULT_LOG})")
    commands = parser.add_subparsers(dest="command", required=True)

    translate = commands.add_parser("translate", parents=[where], help="translate a file and review it")
    translate.add_argument("file", type=Path, nargs="?", help="the document (not needed with --session)")
    translate.add_argument("--to", dest="language", help="the target language, e.g. French")
    translate.add_argument("--session", help="resume this session (nothing is proposed again)")
    translate.add_argument("-o", "--output", type=Path, help="where the translation goes (default: NAME.LANG.EXT)")

    serve = commands.add_parser("serve", help="start the local service (web UI and API)")
    serve.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
    serve.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    serve.add_argument("--db", type=Path, help=f"the embedded SQLite file (default: {DEFAULT_DB})")

    commands.add_parser("sessions", parents=[where], help="list the sessions")

    export = commands.add_parser("export", parents=[where], help="write a file's translation")
    export.add_argument("session")
    export.add_argument("file_id")
    export.add_argument("--format", choices=EXPORT_FORMATS, default="md")
    export.add_argument("-o", "--output", type=Path, help="default: the name the server suggests")

    memory = commands.add_parser("import", parents=[where], help="add a TMX, CSV or TBX file to the memory")
    memory.add_argument("file", type=Path)
    memory.add_argument("--format", choices=IMPORT_FORMATS, help="default: from the file's extension")
    return parser


def default_output(source: Path, language: str) -> Path:
    """`guide.md` into French → `guide.french.md`, next to the source."""
    slug = re.sub(r"[^a-z0-9]+", "-", language.lower()).strip("-") or "translated"
    return source.with_name(f"{source.stem}.{slug}{source.suffix}")


def _client(args: argparse.Namespace) -> ApiClient:
    db = args.db or (Path(os.environ["SQLITE_PATH"]) if os.environ.get("SQLITE_PATH") else None)
    return connect(args.api, args.token, db, args.log)


async def _translate(client: ApiClient, args: argparse.Namespace) -> int:
    if args.session:
        view = await client.session(args.session)
        name = args.file.name if args.file else None
        match = next((f for f in view.files if f.name == name), view.files[0] if view.files else None)
        base = args.file or Path(match.name if match else "translation.md")
        output = args.output or default_output(base, args.language or "translated")
        job = Job(view.id, match.fileId if match else None, output)
    else:
        if args.file is None or not args.language:
            raise ApiError("translate needs FILE and --to LANGUAGE (or --session ID to resume).")
        content = args.file.read_text(encoding="utf-8")
        session_id = await client.create_session()
        info = await client.upload(session_id, args.file.name, content)
        output = args.output or default_output(args.file, args.language)
        job = Job(session_id, info.fileId, output, first_input=f"Translate {args.file.name} into {args.language}.")
    await ReviewApp(client, job).run_async()
    print(f"Session {job.session_id}: resume with `translation-agent translate --session {job.session_id}`.")
    return 0


async def _sessions(client: ApiClient, args: argparse.Namespace) -> int:
    page = await client.sessions()
    print(f"{'session':<36}  {'updated':<25}  {'msgs':>5}  title")
    for s in page.sessions:
        print(f"{s.id:<36}  {s.updatedAt:<25}  {s.messageCount:>5}  {s.title or ''}")
    if page.nextCursor:
        print("… (more sessions)")
    return 0


async def _export(client: ApiClient, args: argparse.Namespace) -> int:
    download = await client.download(args.session, args.file_id, args.format)
    output: Path = args.output or Path(download.filename)
    output.write_text(download.content, encoding="utf-8")
    print(f"Wrote {output}")
    return 0


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
    "export": _export,
    "import": _import,
}


def serve(host: str, port: int, db: Path | None) -> int:
    """The local service, as `scripts/serve` starts it: SQLite storage, the pseudo model unless set."""
    os.environ.setdefault("STORAGE_BACKEND", "sqlite")
    os.environ.setdefault("SQLITE_PATH", str(db or DEFAULT_DB))
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
    try:
        return asyncio.run(_run(args))
    except ApiError as exc:
        print(f"translation-agent: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"translation-agent: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
