"""`translation-agent review`: a reviewer's second review of a session's file, on the screen or, with
`--approve-all`, in one go for scripts (docs/terminal.md and docs/api.md "The second review")."""

from __future__ import annotations

import argparse
from typing import Any

from .api import ApiClient, ApiError
from .models import FileInfo, SessionView
from .second_review import SecondReviewApp
from .second_review_models import Segment
from .second_review_queue import approve_all_shown, translated_queue


def add_review_parser(commands: Any, where: argparse.ArgumentParser) -> None:
    """The `review` command's arguments (`commands`: the parser's subparsers; `where`: --api, --db…)."""
    review = commands.add_parser(
        "review", parents=[where], help="review the units translators approved (a project that reviews twice)"
    )
    review.add_argument("session", nargs="?", help="the session (without it, --project lists those that review twice)")
    review.add_argument("file", nargs="?", help="the file's id or name (not needed for one)")
    review.add_argument("--project", help="the session's project (checked); alone, its sessions that review twice")
    review.add_argument(
        "--as", dest="acting", metavar="SUB", help="local mode only: act as this project member (X-Act-As)"
    )
    review.add_argument("--filter", metavar="TEXT", help="only units whose source or translation contains TEXT")
    review.add_argument(
        "--approve-all", action="store_true", help="approve every unit shown without a screen, and print them"
    )


async def run_review(client: ApiClient, args: argparse.Namespace) -> int:
    """The command: the review screen, the `--approve-all` report, or a project's sessions to review."""
    if args.acting:
        if args.api:
            raise ApiError("--as acts as another member in local mode only; with --api the token says who you are.")
        client.act_as(args.acting)
    if not args.session:
        if not args.project:
            raise ApiError("review needs a SESSION (or --project ID to list its sessions that review twice).")
        return await _project_sessions(client, args.project)
    view = await client.session(args.session)
    _check(view, args.project)
    info = _pick_file(view, args.file)
    q = (args.filter or "").strip()
    if args.approve_all:
        return await _approve_all(client, view.id, info, q)
    app = SecondReviewApp(client, view.id, info.fileId, name=info.name)
    app.q = q
    await app.run_async()
    left, more = await translated_queue(client, view.id, info.fileId)
    count = f"{len(left)}{'+' if more else ''}"
    print(f"Session {view.id}, {info.name}: {count} translated unit(s) await review.")
    return 0


def _check(view: SessionView, project: str | None) -> None:
    """The session is of `project` (when given) and reviews twice; else an error saying what it is."""
    if project and view.project != project:
        where = f"in project {view.project}" if view.project else "a personal session"
        raise ApiError(f"Session {view.id} is not in project {project}: it is {where}.")
    if view.review != "double":
        raise ApiError(
            f"Session {view.id} reviews once: what its translators approve is final, nothing awaits a second"
            ' review (a manager may set "review": "double" on it).'
        )


def _pick_file(view: SessionView, wanted: str | None) -> FileInfo:
    """The file named by id or name; without one, the session's only file."""
    names = ", ".join(f"{f.fileId} {f.name}" for f in view.files) or "it has none"
    if wanted is not None:
        match = [f for f in view.files if f.fileId == wanted] or [f for f in view.files if f.name == wanted]
        if len(match) == 1:
            return match[0]
        raise ApiError(
            f"{'Several files are' if match else 'No file is'} called {wanted!r} in session {view.id}: {names}."
        )
    if len(view.files) == 1:
        return view.files[0]
    if not view.files:
        raise ApiError(f"Session {view.id} has no file to review.")
    raise ApiError(f"Session {view.id} has {len(view.files)} files: name one ({names}).")


async def _approve_all(client: ApiClient, session_id: str, info: FileInfo, q: str) -> int:
    """Approve every unit the filter shows and print each (the queue before, less the queue after)."""
    before, _ = await translated_queue(client, session_id, info.fileId, q=q)
    done = await approve_all_shown(client, session_id, info.fileId, q=q)
    if done.error is not None and not done.approved:
        raise done.error
    after, _ = await translated_queue(client, session_id, info.fileId, q=q)
    waiting = {u.start for u in after}
    for unit in before:
        if unit.start not in waiting:
            print(_approved_line(unit))
    shown = f" showing {q!r}" if q else ""
    print(f"Approved {done.approved} translated unit(s) of {info.name}{shown} in session {session_id}.")
    if done.skipped:
        print(
            f"{done.skipped} left: QA warns on them; review them one by one with"
            f" `translation-agent review {session_id}`."
        )
    if done.error is not None:
        raise done.error
    return 0


def _approved_line(unit: Segment) -> str:
    """One approved unit: its segment, source and translation on one line, and its translator."""
    source, target = (t.strip("\n").replace("\n", " ⏎ ") for t in (unit.source, unit.target or ""))
    return f"approved {unit.id:<6} {source}  →  {target}  (translated by {unit.translator})"


async def _project_sessions(client: ApiClient, project: str) -> int:
    """The project's sessions that review twice (of those the caller may read)."""
    found = [s for s in await client.project_sessions(project, limit=100) if s.review == "double"]
    print(f"{'session':<36}  {'language':<9}  {'state':<9}  updated")
    for s in found:
        print(f"{s.id:<36}  {s.targetLanguage or '?':<9}  {s.state:<9}  {s.updatedAt}")
    if found:
        print("Review one with `translation-agent review SESSION`.")
    else:
        print("No session of this project that you may read reviews twice.")
    return 0
