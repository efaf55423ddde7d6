"""`translation-agent check FILE…`: the QA, glossary and placeholder checks on existing translations.

It runs offline (no server, no model, no session): each file is read and checked by
`service.check`, and a report is printed, as text for a person or as JSON for a pipeline. The exit
status is 1 when any file has an error (a missing translation, broken inline codes or placeholders,
a file that cannot be read: an error line of its own, the other files are still checked), else 0, so
a CI job fails on a broken or missing translation. With `--source`, monolingual files (what the
project exports: Android `strings.xml`, i18next JSON, Rails YAML, Apple `.strings`) are paired with
their source file by key (`source_for`; docs/terminal.md shows the layouts); files that hold their
source (XLIFF, TMX, PO, xcstrings) are checked as they are, so one command can check a mixed folder. With
`--changed-since REF` only the pairs that differ from the file at that git revision are checked (a
file the revision does not have is checked whole). With `--review`, the configured model (`--model`,
else `AGENT_MODEL`; the offline `pseudo` model flags only targets left as their source) also gives its
verdict on every translated pair checked (`agent_core.review`): an issue it names is a warning, never
an error, since a model's opinion should not fail a build on its own. Every translated pair also
gets the checks of a QA profile (`agent_core.qa_profiles`: each file its kind's built-in one, or the
one `--qa-profile` names: a built-in name or a JSON file), each at its level: an `error` fails the
check, a `warning` does not.
"""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
from collections.abc import Sequence
from dataclasses import asdict, replace
from pathlib import Path

from agent_core.languages import ANY
from agent_core.memory import GlossaryEntry
from agent_core.qa_profiles import QaProfile, parse_profile
from interchange.errors import InterchangeError
from interchange.glossary import parse_glossary_csv, parse_tbx
from service.check import FileReport, Finding, check_file, holds_source, unreadable

PLACEHOLDERS = ("{name}", "{lang}")
"""What a `--source` pattern may hold: the target's file name, and its language (the source's in the source)."""
_LANGUAGE = r"(?P<lang>[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*)"


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
    source: str | None = None,
    qa_profile: str | None = None,
) -> tuple[int, str]:
    """The exit status and the report of checking `files`; with `review` (a model's name), each translated
    pair checked also gets the model's verdict, a warning where it names an issue; with `source` (a path
    or a pattern, `source_for`), each file is paired with its source file by key; `qa_profile`: a built-in
    profile's name or a JSON file's path (`load_profile`), else each file's kind's."""
    terms = _glossary(glossary, source_language) if glossary else []
    profile = load_profile(qa_profile) if qa_profile is not None else None
    if source is not None:
        _pattern_check(source, source_language)
    reports: list[FileReport] = []
    skipped: list[str] = []
    for path in files:
        try:
            paired = source_for(path, source, source_language) if source is not None else None
            if paired is not None and paired[0].resolve() == path.resolve():
                skipped.append(str(path))
                continue
            reports.append(_check_one(path, paired, terms, changed_since, profile, source_language))
        except CheckError:
            raise
        except Exception as exc:  # one file that cannot be read is its own error line; the others go on
            reports.append(unreadable(str(path), f"{path}: {_reason(exc)}"))
    if review is not None:
        reports = asyncio.run(_reviewed(reports, review))
    status = 1 if any(r.errors for r in reports) else 0
    return status, (_json(reports, skipped) if as_json else _text(reports, skipped))


def load_profile(value: str) -> QaProfile:
    """The QA profile `--qa-profile` names: a built-in one's name, else a JSON file holding a profile's
    object (or a name); CheckError when it is neither."""
    if "." not in value and "/" not in value:
        try:
            return parse_profile(value)
        except ValueError as exc:
            raise CheckError(f"--qa-profile {value}: {exc}") from exc
    try:
        raw = json.loads(Path(value).read_text(encoding="utf-8"))
        return parse_profile(raw)
    except OSError as exc:
        raise CheckError(f"--qa-profile {value}: {_reason(exc)}.") from exc
    except ValueError as exc:  # JSONDecodeError is one
        raise CheckError(f"--qa-profile {value}: {exc}") from exc


def _check_one(
    path: Path,
    paired: tuple[Path, str | None] | None,
    terms: Sequence[GlossaryEntry],
    changed_since: str | None,
    profile: QaProfile | None = None,
    source_language: str | None = None,
) -> FileReport:
    data = path.read_bytes()  # each format reads its own encoding, as uploads are read (service/check.py)
    previous = _at_revision(path, changed_since) if changed_since else None
    source: tuple[str, bytes] | None = None
    language = None
    if paired is not None and not holds_source(str(path), data):
        source_path, language = paired
        try:
            source = (str(source_path), source_path.read_bytes())
        except OSError as exc:
            return unreadable(str(path), f"{path}: its source {source_path} cannot be read ({_reason(exc)}).")
    return check_file(
        str(path),
        data,
        glossary=terms,
        previous=previous,
        source=source,
        language=language,
        profile=profile,
        source_language=source_language,
    )


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror.lower()
    return str(exc) or type(exc).__name__


def source_for(target: Path, pattern: str, source_language: str | None) -> tuple[Path, str | None]:
    """The source file of `target` by the `--source` pattern, and the target's language when the
    pattern tells it.

    A plain path is every target's source (`res/values/strings.xml` for `res/values-*/strings.xml`).
    `{name}` stands for the target's file name (`locales/en/{name}` for `locales/fr/common.json`).
    `{lang}` stands for a language: the target's path must match the pattern with its own language
    there (`config/locales/devise.{lang}.yml` matches `config/locales/devise.fr.yml`: French), and the
    source is the pattern with `--source-language` there (`devise.en.yml`).
    """
    if "{lang}" not in pattern:
        return Path(pattern.replace("{name}", target.name)), None
    assert source_language is not None  # _pattern_check
    shape = re.escape(pattern).replace(re.escape("{lang}"), _LANGUAGE, 1).replace(re.escape("{lang}"), "(?P=lang)")
    shape = shape.replace(re.escape("{name}"), "[^/]+")
    found = re.fullmatch(r"(?:\./)?" + shape, target.as_posix())
    if found is None:
        raise ValueError(f"its path does not match the --source pattern {pattern!r}, so its source is not known")
    source = pattern.replace("{lang}", source_language).replace("{name}", target.name)
    return Path(source), found.group("lang").replace("_", "-")


def _pattern_check(pattern: str, source_language: str | None) -> None:
    """CheckError for a `--source` pattern that cannot work for any file."""
    unknown = set(re.findall(r"\{[^{}]*\}", pattern)) - set(PLACEHOLDERS)
    if unknown:
        raise CheckError(f"--source {pattern}: {', '.join(sorted(unknown))} is not one of {', '.join(PLACEHOLDERS)}.")
    if "{lang}" in pattern and not source_language:
        raise CheckError(f"--source {pattern}: give --source-language, the language {{lang}} is in the source's path.")


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


def _at_revision(path: Path, revision: str) -> bytes | None:
    """The file's bytes at git `revision` (None: the revision has no such file)."""
    where = path.resolve().parent
    try:
        top = _git(where, "rev-parse", "--show-toplevel").strip()
        _git(where, "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}")
    except CheckError as exc:
        raise CheckError(f"--changed-since {revision}: {exc}") from exc
    relative = path.resolve().relative_to(Path(top).resolve()).as_posix()
    try:
        return _git_bytes(where, "show", f"{revision}:{relative}")
    except CheckError:
        return None  # the file is new since the revision: all of it is checked


def _git(where: Path, *args: str) -> str:
    return _git_bytes(where, *args).decode("utf-8", errors="replace")


def _git_bytes(where: Path, *args: str) -> bytes:
    """git's output as bytes (a file at a revision may be UTF-16 or Latin-1)."""
    done = subprocess.run(["git", "-C", str(where), *args], capture_output=True, check=False)
    if done.returncode != 0:
        raise CheckError(done.stderr.decode("utf-8", errors="replace").strip() or f"git {args[0]} failed")
    return done.stdout


def _text(reports: Sequence[FileReport], skipped: Sequence[str]) -> str:
    lines = [f"{name}: the source file itself, not checked" for name in skipped]
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


def _json(reports: Sequence[FileReport], skipped: Sequence[str]) -> str:
    return json.dumps(
        {
            "errors": sum(r.errors for r in reports),
            "warnings": sum(r.warnings for r in reports),
            **({"skipped": list(skipped)} if skipped else {}),
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
