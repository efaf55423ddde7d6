"""`translation-agent sync`: the repository's target files kept in step with its sources and the service.

One run, in this order (docs/sync.md):
1. plan, from the files and the lockfile alone (`sync_plan`);
2. the translations people made in the repository (existing targets sync did not know, and targets
   edited in git since the lockfile) go to the memory as one TMX import: decided, never proposed;
3. the decisions made in the service since the last run are collected from each open upload (the
   segment list says which strings are decided and by whom; `export?format=original` gives their text);
4. every target file is written from the source with the decided texts (the rest as the format keeps
   an untranslated string), and the lockfile saved with it;
5. what is new or changed is uploaded, a reduced source file per target, into the language's session
   (started, or continued), each upload saved in the lockfile as it is made, and the session is asked
   to translate it (the old decisions of changed strings quoted as context).
`--frozen` does step 1 only and fails when a target is missing or stale; it makes no request.
"""

from __future__ import annotations

import json
import subprocess
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Any

from interchange.formats import FormatError

from .sync_api import DECIDED, ApiError, SyncApi
from .sync_config import LOCK_NAME, SyncConfig
from .sync_files import (
    AlignError,
    Text,
    blocks,
    is_markdown,
    reduce,
    target_strings,
    text_hash,
    tmx,
    translated_strings,
    write_target,
)
from .sync_lock import FileLock, Lock, StringLock, Upload, load_lock
from .sync_plan import FilePlan, frozen_report, plan_all

Say = Callable[[str], None]
MAX_PREVIOUS = 30
"""The most previous translations a task quotes (each at most 300 characters): the input stays well under its cap."""
MAX_FILES = 20
"""The most files a session holds (the service's cap): a language's session past it is followed by a new one."""


def run_frozen(root: Path, config: SyncConfig, say: Say) -> int:
    """`sync --frozen`: 1 (and why) when a target is missing or stale against the lockfile, else 0."""
    plans, orphans = plan_all(root, config, load_lock(root / LOCK_NAME))
    problems = frozen_report(plans, orphans)
    for line in problems:
        say(line)
    waiting = sum(len(p.pending) for p in plans)
    if not problems:
        say(f"Up to date: {len(plans)} target file(s); {waiting} string(s) waiting for review.")
    return 1 if problems else 0


async def run_sync(root: Path, config: SyncConfig, client: SyncApi, say: Say) -> int:
    """One sync run; 1 when a target file could not be read against its source (left as it is), else 0."""
    lock = load_lock(root / LOCK_NAME)
    plans, orphans = plan_all(root, config, lock)
    for plan in plans:
        if plan.problem:
            say(f"{plan.problem}: left as it is (fix it, or restore it from git).")
    live = [p for p in plans if not p.problem]
    await _import_decisions(live, config, client, say)
    decided = await _collect(lock, {p.pair.target: p for p in live}, client, say)
    files = {
        p.pair.target: _write(root, p, lock.files.get(p.pair.target), decided.get(p.pair.target, {})) for p in live
    }
    lock.files = {**{t: f for t, f in lock.files.items() if t not in orphans}, **files}
    lock.uploads = [u for u in lock.uploads if _open(u, lock.files)]
    for orphan in orphans:
        say(f"{orphan}: no file group names it any more; dropped from the lockfile (the file is left).")
    _save(root, lock)  # the targets as written; what is sent next is saved as each language's upload is made
    await _send(root, live, lock, config, client, say)
    _summary(live, files, decided, say)
    return 1 if any(p.problem for p in plans) else 0


def _save(root: Path, lock: Lock) -> None:
    (root / LOCK_NAME).write_text(lock.dumps(), encoding="utf-8")


async def _import_decisions(plans: list[FilePlan], config: SyncConfig, client: SyncApi, say: Say) -> None:
    """Existing and hand-edited targets into the memory, as the people's decisions they are."""
    pairs = [
        (p.pair.language, source, target)
        for p in plans
        for key in (*p.imported, *p.edited)
        if isinstance(source := p.sources[key], str) and isinstance(target := p.targets[key], str)
    ]
    if pairs:
        result = await client.import_tmx(tmx(pairs, config.source_language), project=config.project)
        say(
            f"Memory: {len(pairs)} translation(s) from the repository ({result.added} added, {result.updated} updated)."
        )


async def _collect(
    lock: Lock, plans: dict[str, FilePlan], client: SyncApi, say: Say
) -> dict[str, dict[str, tuple[Text, str]]]:
    """The decisions the service holds for strings still pending here, by target file and key (in a
    session that reviews twice, what the reviewer passed: a `translated` unit still waits)."""
    found: dict[str, dict[str, tuple[Text, str]]] = defaultdict(dict)
    for upload in list(lock.uploads):
        plan = plans.get(upload.target)
        if plan is None:
            continue
        pending = set(plan.pending)
        wanted = {k for k, h in upload.strings.items() if k in pending and text_hash(plan.sources[k]) == h}
        if not wanted:
            continue
        try:
            segments = await client.every_segment(upload.session, upload.file)
            exported = await client.original(upload.session, upload.file)
            markdown = is_markdown(upload.name, exported)
            uploaded = await client.source_text(upload.session, upload.file) if markdown else ""
        except ApiError as exc:
            if exc.status != 404:
                raise
            # The session or file was deleted: its strings are sent again, now.
            lock.uploads.remove(upload)
            plan.pending = [k for k in plan.pending if k not in wanted]
            plan.new += sorted(wanted)
            continue
        who = _decided_by(upload, segments, uploaded if markdown else None)
        try:
            texts = translated_strings(upload.name, list(upload.strings), exported)
        except (AlignError, FormatError) as exc:
            say(f"{upload.target}: the decisions of {upload.name} in {upload.session} cannot be read back ({exc}).")
            continue
        for key in wanted & who.keys() & texts.keys():
            found[upload.target][key] = (texts[key], who[key])
    return found


def _decided_by(upload: Upload, segments: list[dict[str, Any]], uploaded: str | None) -> dict[str, str]:
    """Each string of the upload whose every segment is decided, with who decided it."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    if uploaded is not None:  # Markdown: a block is the segments within its span
        spans = [(b.start, b.end) for b in blocks(uploaded) if not b.verbatim]
        for (start, end), key in zip(spans, upload.strings, strict=False):
            groups[key] = [s for s in segments if s["start"] < end and s["end"] > start]
    else:
        for segment in segments:
            key = str((segment.get("context") or {}).get("key", ""))
            groups[key].append(segment)
    return {
        key: _who(group)
        for key, group in groups.items()
        if key in upload.strings and group and all(s["status"] in DECIDED for s in group)
    }


def _who(segments: list[dict[str, Any]]) -> str:
    """`person:<sub>`, `rule:<rule>`: the latest decision among the segments' audit trails."""
    events = sorted((e for s in segments for e in (s.get("history") or [])), key=lambda e: str(e.get("at") or ""))
    for event in reversed(events):
        if event.get("rule"):
            return f"rule:{event['rule'].get('rule', 'rule')}"
        if event.get("action") == "verbatim":
            return "rule:verbatim"
        if event.get("by") and event.get("action") != "rejected":
            return f"person:{event['by']}"
    return "rule:verbatim"


def _write(root: Path, plan: FilePlan, old: FileLock | None, decided: dict[str, tuple[Text, str]]) -> FileLock:
    """Write the target file from the source and what is decided; its lock, hashed as written."""
    texts: dict[str, Text] = {}
    strings: dict[str, StringLock] = {}
    author: str | None = None
    imported, edited, unchanged = set(plan.imported), set(plan.edited), set(plan.unchanged)
    for key, source in plan.sources.items():
        before = old.strings.get(key) if old else None
        current = plan.targets.get(key)
        by: str | None
        text: Text | None
        if key in imported:
            by, text, pending = "import", current, False
        elif key in edited:
            author = author or _git_author(root, plan.pair.target)
            by, text, pending = author, current, False
        elif key in decided:
            text, by = decided[key]
            pending = False
        else:
            by = before.by if before else None
            pending = key not in unchanged
            text = current if by is not None else None  # a stale decision stays until the new one
        if text is not None:
            texts[key] = text
        strings[key] = StringLock(source=text_hash(source), target=None, by=by, pending=pending)
    data = write_target(plan.pair.source, plan.source_data, texts, plan.pair.language)
    path = root / plan.pair.target
    if not path.is_file() or path.read_bytes() != data:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    written = target_strings(plan.pair.target, data, list(plan.sources))
    for key, entry in strings.items():  # the file as written, read back: what the next run compares
        entry.target = text_hash(written[key]) if key in written else None
    return FileLock(source=plan.pair.source, language=plan.pair.language, strings=strings)


async def _send(root: Path, plans: list[FilePlan], lock: Lock, config: SyncConfig, client: SyncApi, say: Say) -> None:
    """Upload what is new or changed, a reduced source per target, to each language's session; start it."""
    by_language: dict[str, list[FilePlan]] = defaultdict(list)
    for plan in plans:
        if plan.to_translate:
            by_language[plan.pair.language].append(plan)
    for language, todo in by_language.items():
        session = await _session(lock, language, len(todo), config, client)
        names: list[str] = []
        for plan in todo:
            keys = plan.to_translate
            name = PurePosixPath(plan.pair.source).name
            content = reduce(plan.pair.source, plan.source_data, keys) or plan.source_data
            info = await client.upload(session, name, content.decode("utf-8-sig"))
            strings = {k: text_hash(plan.sources[k]) for k in keys}  # source order, as a reduced file has them
            lock.uploads.append(
                Upload(session=session, file=info.fileId, name=name, target=plan.pair.target, strings=strings)
            )
            _save(root, lock)  # recorded at once: a failure later never sends it twice
            names.append(name)
        task = f"Translate {', '.join(names)} into {language}." + _previous(todo)
        await client.do_next({"sessionId": session, "userInput": task})
        await client.release(session)  # the reviewers drive it from here
        count = sum(len(p.to_translate) for p in todo)
        say(f"{language}: {count} string(s) sent for translation in session {session}.")


def _previous(plans: list[FilePlan]) -> str:
    """The old decisions of the strings whose source changed, as context for the model and the reviewer."""
    lines = [
        f"- {PurePosixPath(p.pair.source).name} {key}: {text if isinstance(text, str) else json.dumps(text)}"[:300]
        for p in plans
        for key, text in p.previous.items()
    ]
    if not lines:
        return ""
    shown = "\n".join(lines[:MAX_PREVIOUS]) + (
        f"\n- … and {len(lines) - MAX_PREVIOUS} more" if len(lines) > MAX_PREVIOUS else ""
    )
    return f"\nThese strings' sources changed; their previous translations, for context:\n{shown}"


async def _session(lock: Lock, language: str, adding: int, config: SyncConfig, client: SyncApi) -> str:
    """The language's session, continued while it has room for `adding` more files, else a new one."""
    known = lock.sessions.get(language)
    if known is not None:
        try:
            if len((await client.session(known)).files) + adding <= MAX_FILES:
                return known
        except ApiError as exc:
            if exc.status != 404:
                raise
    session = await client.new_session(
        target=language, source=config.source_language, project=config.project, model=config.model
    )
    lock.sessions[language] = session
    return session


def _open(upload: Upload, files: dict[str, FileLock]) -> bool:
    """Whether an upload still carries a string that waits for its decision."""
    target = files.get(upload.target)
    if target is None:
        return False
    return any(
        (s := target.strings.get(k)) is not None and s.pending and s.source == h for k, h in upload.strings.items()
    )


def _git_author(root: Path, path: str) -> str:
    """`git:<email>`: who edited the target (the last commit's author when the file is committed as it is,
    else the repository's configured user); `git` when git cannot tell."""

    def git(*args: str) -> str:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=False)
        return done.stdout.strip() if done.returncode == 0 else ""

    dirty = git("status", "--porcelain", "--", path)
    email = git("config", "user.email") if dirty else git("log", "-1", "--format=%ae", "--", path)
    return f"git:{email}" if email else "git"


def _summary(plans: list[FilePlan], files: dict[str, FileLock], decided: dict[str, dict[str, Any]], say: Say) -> None:
    """Per language: the strings decided and by whom, and what waits for review."""
    labels = {"person": "by reviewers", "rule": "by rules", "import": "imported", "git": "edited in git"}
    per: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    fresh: dict[str, int] = defaultdict(int)
    for plan in plans:
        counts = per[plan.pair.language]
        for entry in files[plan.pair.target].strings.values():
            kind = "waiting" if entry.pending or entry.by is None else entry.by.split(":")[0]
            counts[kind] += 1
        fresh[plan.pair.language] += len(decided.get(plan.pair.target, {}))
    for language, counts in sorted(per.items()):
        parts = [f"{counts[k]} {label}" for k, label in labels.items() if counts[k]]
        since = f"{fresh[language]} decided since the last sync"
        say(f"{language}: decided {', '.join(parts) or 'none'}; {counts['waiting']} waiting for review ({since}).")
