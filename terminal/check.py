"""`translation-agent check FILE…`: the QA, glossary and placeholder checks on existing translations.

It runs offline (no server, no model, no session): each file is read and checked by
`service.check`, and a report is printed, as text for a person or as JSON for a pipeline. The exit
status is 1 when any file has an error (a missing translation, broken inline codes or placeholders,
a file that cannot be read), else 0, so a CI job fails on a broken or missing translation. With
`--changed-since REF` only the pairs that differ from the file at that git revision are checked (a
file the revision does not have is checked whole). With `--review`, the configured model (`--model`,
else `AGENT_MODEL`; the offline `pseudo` model flags only targets left as their source) also gives its
verdict on every translated pair checked (`agent_core.review`): an issue it names is a warning, never
an error, since a model's opinion should not fail a build on its own.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
from collections.abc import Sequence
from dataclasses import asdict, replace
from pathlib import Path

from agent_core.languages import ANY
from agent_core.memory import GlossaryEntry
from interchange.errors import InterchangeError
from interchange.glossary import parse_glossary_csv, parse_tbx
from service.check import FileReport, Finding, check_file


class CheckError(Exception):
    """The check could not run as asked (a glossary that cannot be read, a revision git does not know)."""


def run_check(
    files: Sequence[Path],
    *,
    glossary: Path | None = None,
    source_language: str | None = None,
    changed_since: str | None = None,
    as_json: bool = False,
    review: str | None = None,
) -> tuple[int, str]:
    """The exit status and the report of checking `files`; with `review` (a model's name), each translated
    pair checked also gets the model's verdict, a warning where it names an issue."""
    terms = _glossary(glossary, source_language) if glossary else []
    reports: list[FileReport] = []
    for path in files:
        data = path.read_bytes()  # a format reads its own encoding (UTF-16 .strings); XLIFF and TMX UTF-8
        previous = _at_revision(path, changed_since) if changed_since else None
        reports.append(check_file(str(path), data, glossary=terms, previous=previous))
    if review is not None:
        reports = asyncio.run(_reviewed(reports, review))
    status = 1 if any(r.errors for r in reports) else 0
    return status, (_json(reports) if as_json else _text(reports))


async def _reviewed(reports: Sequence[FileReport], model_name: str) -> list[FileReport]:
    """Each report with the model's verdicts on its translated pairs (issues as `model_review` warnings)."""
    from agent_core.errors import AgentError
    from agent_core.models import ModelConfigError, resolve_model
    from agent_core.review import ReviewPair, review_pairs

    try:
        model = resolve_model(model_name)
    except ModelConfigError as exc:
        raise CheckError(str(exc)) from exc
    done: list[FileReport] = []
    for report in reports:
        pairs = [ReviewPair(key=p.key, source=p.source, target=p.target) for p in report.pairs if p.target]
        try:
            verdicts = await review_pairs(model, pairs) if pairs else {}
        except AgentError as exc:
            raise CheckError(f"the review of {report.file} by {model_name} failed: {exc}") from exc
        issues = [
            Finding(key=v.key, severity="warning", code="model_review", message=f"The model: {v.issue or 'not ok.'}")
            for v in verdicts.values()
            if not v.ok
        ]
        done.append(replace(report, findings=(*report.findings, *issues), reviewed=len(verdicts)))
    return done


def _glossary(path: Path, source_language: str | None) -> list[GlossaryEntry]:
    """The glossary's term pairs (TBX, or CSV with `source,target` columns)."""
    text = path.read_text(encoding="utf-8-sig")
    try:
        terms = parse_tbx(text, srclang=source_language) if path.suffix.lower() == ".tbx" else parse_glossary_csv(text)
    except (InterchangeError, ValueError) as exc:
        raise CheckError(f"{path}: {exc}") from exc
    return [GlossaryEntry(source=t.source, target=t.target, languages=ANY) for t in terms]


def _at_revision(path: Path, revision: str) -> str | None:
    """The file's text at git `revision` (None: the revision has no such file)."""
    where = path.resolve().parent
    try:
        top = _git(where, "rev-parse", "--show-toplevel").strip()
        _git(where, "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}")
    except CheckError as exc:
        raise CheckError(f"--changed-since {revision}: {exc}") from exc
    relative = path.resolve().relative_to(Path(top).resolve()).as_posix()
    try:
        return _git(where, "show", f"{revision}:{relative}")
    except CheckError:
        return None  # the file is new since the revision: all of it is checked


def _git(where: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(where), *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise CheckError(done.stderr.strip() or f"git {args[0]} failed")
    return done.stdout


def _text(reports: Sequence[FileReport]) -> str:
    lines: list[str] = []
    for r in reports:
        reviewed = f", {r.reviewed} reviewed by the model" if r.reviewed is not None else ""
        counts = f"{r.checked} checked{reviewed}, {_count(r.errors, 'error')}, {_count(r.warnings, 'warning')}"
        lines.append(f"{r.file}: {counts}")
        lines += [f"  {f.severity:<7} {f.key or '-'}  {f.message}" for f in r.findings]
    errors, warnings = sum(r.errors for r in reports), sum(r.warnings for r in reports)
    verdict = "FAILED" if errors else "passed"
    lines.append(
        f"Check {verdict}: {_count(errors, 'error')}, {_count(warnings, 'warning')} in {_count(len(reports), 'file')}."
    )
    return "\n".join(lines)


def _json(reports: Sequence[FileReport]) -> str:
    return json.dumps(
        {
            "errors": sum(r.errors for r in reports),
            "warnings": sum(r.warnings for r in reports),
            "files": [
                {
                    "file": r.file,
                    "checked": r.checked,
                    **({"reviewed": r.reviewed} if r.reviewed is not None else {}),
                    "errors": r.errors,
                    "warnings": r.warnings,
                    "findings": [asdict(f) for f in r.findings],
                }
                for r in reports
            ],
        },
        ensure_ascii=False,
        indent=2,
    )


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"
