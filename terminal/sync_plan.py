"""What sync has to do, read from the repository and the lockfile alone (no service, no model).

Each source string of each target file falls in one class: `unchanged` (the target holds what the
lock says was decided for this source), `pending` (sent for translation, undecided, nothing changed
since), `imported` (the target holds a translation the lock does not know: a person's, taken as
decided), `edited` (the target's text differs from the lock's: a person edited it in git, decided),
`new` (no translation), `changed` (the source changed since its decision). Strings of the lock the
source no longer has are `removed`. `--frozen` fails on anything but unchanged and pending.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from interchange.formats import FormatError

from .sync_config import Pair, SyncConfig
from .sync_files import AlignError, Text, source_strings, target_strings, text_hash
from .sync_lock import FileLock, Lock


@dataclass(slots=True)
class FilePlan:
    """One target file's strings by class, with the texts read."""

    pair: Pair
    source_data: bytes
    sources: dict[str, Text]
    targets: dict[str, Text]
    exists: bool
    problem: str | None = None
    unchanged: list[str] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)
    imported: list[str] = field(default_factory=list)
    edited: list[str] = field(default_factory=list)
    new: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    previous: dict[str, Text] = field(default_factory=dict)
    """For a changed string, the decided translation of its old source the target still holds."""

    @property
    def to_translate(self) -> list[str]:
        """The strings to send for translation, in source order."""
        wanted = {*self.new, *self.changed}
        return [k for k in self.sources if k in wanted]

    def stale(self) -> list[str]:
        """Why this target is missing or stale against the lockfile (empty when it is not)."""
        reasons = [self.problem] if self.problem else []
        if not self.exists:
            reasons.append("the target file is missing")
        for label, keys in (
            ("not in the lockfile (translated before sync knew it)", self.imported),
            ("edited in the target since the lockfile", self.edited),
            ("without a translation", self.new),
            ("changed in the source since its decision", self.changed),
            ("removed from the source but still in the lockfile", self.removed),
        ):
            if keys:
                reasons.append(f"{len(keys)} string(s) {label}: {', '.join(keys[:5])}{' …' if len(keys) > 5 else ''}")
        return reasons


def plan_file(root: Path, pair: Pair, lock: FileLock | None, carried: set[tuple[str, str]]) -> FilePlan:
    """Read one pair's source and target and class each string against the lock; a pending string no
    open upload carries (`carried`: key and source hash) is new again (its upload never happened or
    its session is gone)."""
    source_data = (root / pair.source).read_bytes()
    try:
        sources = source_strings(pair.source, source_data)
    except (FormatError, UnicodeDecodeError) as exc:
        raise FormatError(f"{pair.source} cannot be read: {exc}") from exc
    path = root / pair.target
    plan = FilePlan(pair=pair, source_data=source_data, sources=sources, targets={}, exists=path.is_file())
    if plan.exists:
        order = list(lock.strings) if lock else list(sources)
        try:
            plan.targets = target_strings(pair.target, path.read_bytes(), order)
        except (FormatError, AlignError, UnicodeDecodeError) as exc:
            plan.problem = f"{pair.target} cannot be read against its source: {exc}"
            return plan
    strings = lock.strings if lock else {}
    for key, text in sources.items():
        known = strings.get(key)
        target = plan.targets.get(key)
        if known is None:
            has_translation = target is not None and target != text
            (plan.imported if has_translation else plan.new).append(key)
        elif known.source != text_hash(text):
            plan.changed.append(key)
            if known.by is not None and target is not None and text_hash(target) == known.target:
                plan.previous[key] = target
        elif (text_hash(target) if target is not None else None) == known.target:
            if not known.pending:
                plan.unchanged.append(key)
            else:
                (plan.pending if (key, known.source) in carried else plan.new).append(key)
        elif target is None:
            plan.new.append(key)
        else:
            plan.edited.append(key)
    plan.removed = [k for k in strings if k not in sources]
    return plan


def plan_all(root: Path, config: SyncConfig, lock: Lock) -> tuple[list[FilePlan], list[str]]:
    """Every pair's plan, and the lock's target files no pair has any more."""
    carried: dict[str, set[tuple[str, str]]] = {}
    for upload in lock.uploads:
        carried.setdefault(upload.target, set()).update(upload.strings.items())
    plans = [
        plan_file(root, pair, lock.files.get(pair.target), carried.get(pair.target, set()))
        for pair in config.pairs(root)
    ]
    known = {p.pair.target for p in plans}
    return plans, sorted(t for t in lock.files if t not in known)


def frozen_report(plans: list[FilePlan], orphans: list[str]) -> list[str]:
    """What makes `sync --frozen` fail: one line per stale or missing target (empty: it passes)."""
    lines = [f"{p.pair.target}: {reason}" for p in plans for reason in p.stale()]
    lines += [f"{t}: in the lockfile, but no file group names it any more" for t in orphans]
    return lines
