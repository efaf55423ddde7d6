"""The sync Action's steps around `translation-agent sync` (action.yml): `prepare` checks out the pull
request's branch (the open one, brought up to date with the base branch, or a new one from it), and
`publish` commits the targets and the lockfile there, pushes, and opens or updates the one pull
request, whose description says per language what people decided since the base branch's lockfile
and what still waits for review (links into the web UI). It never merges.

`python -m terminal.sync_pr prepare|publish --branch B --base main [--ui URL]`; GitHub through
`sync_github` (the REST API, or the file fake).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

from .sync_config import LOCK_NAME
from .sync_github import GitHub, GitHubError, Pull, github_from_env
from .sync_lock import Lock, LockError, load_lock, parse_lock

Say = Callable[[str], None]
TITLE = "Translations from translation-agent sync"
BOT = ("translation-agent", "translation-agent@users.noreply.github.com")


class GitError(Exception):
    """A git command failed: the message holds what git said."""


def git(root: Path, *args: str, check: bool = True) -> str:
    """Run git in `root`; its output (GitError when it fails and `check`)."""
    done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=False)
    if check and done.returncode != 0:
        raise GitError(f"git {' '.join(args)}: {done.stderr.strip() or done.stdout.strip()}")
    return done.stdout.strip()


def prepare(root: Path, *, branch: str, base: str, say: Say) -> None:
    """Check out `branch`: the remote one merged with `base` when it exists, else a new one at `base`."""
    git(root, "fetch", "--quiet", "origin")
    if git(root, "ls-remote", "--heads", "origin", branch):
        git(root, "checkout", "--quiet", "-B", branch, f"origin/{branch}")
        merged = subprocess.run(
            ["git", "-C", str(root), *_identity(root), "merge", "--quiet", "--no-edit", f"origin/{base}"],
            capture_output=True,
            text=True,
            check=False,
        )
        if merged.returncode != 0:
            git(root, "merge", "--abort", check=False)
            raise GitError(f"{branch} does not merge with {base}: resolve it by hand ({merged.stdout.strip()}).")
        say(f"On {branch}, brought up to date with {base}.")
    else:
        git(root, "checkout", "--quiet", "-B", branch, f"origin/{base}")
        say(f"On a new {branch} from {base}.")


def publish(root: Path, github: GitHub, *, branch: str, base: str, ui: str, say: Say) -> Pull | None:
    """Commit the targets and the lockfile on `branch`, push it, and open or update its pull request;
    None when the branch has nothing `base` lacks."""
    lock = load_lock(root / LOCK_NAME)
    paths = [p for p in [LOCK_NAME, *lock.files] if (root / p).is_file()]
    git(root, "add", "--", *paths)
    if _staged(root):
        git(root, *_identity(root), "commit", "--quiet", "-m", "Translations: sync with the translation agent")
    if git(root, "rev-list", "--count", f"origin/{base}..HEAD") == "0":
        say(f"Nothing to propose: {branch} holds nothing {base} lacks.")
        return None
    git(root, "push", "--quiet", "origin", f"HEAD:refs/heads/{branch}")
    before = git(root, "show", f"origin/{base}:{LOCK_NAME}", check=False)
    body = pull_body(parse_lock(before) if before else Lock(), lock, ui)
    found = github.open_pull(branch, base)
    pull = (
        github.update_pull(found.number, title=TITLE, body=body)
        if found
        else github.create_pull(head=branch, base=base, title=TITLE, body=body)
    )
    say(f"Pull request {pull.url} ({'updated' if found else 'opened'}).")
    return pull


def _staged(root: Path) -> bool:
    return subprocess.run(["git", "-C", str(root), "diff", "--cached", "--quiet"], check=False).returncode != 0


def _identity(root: Path) -> list[str]:
    """`-c user.name=… -c user.email=…` when the repository has no committer configured (a CI runner)."""
    if git(root, "config", "user.email", check=False):
        return []
    return ["-c", f"user.name={BOT[0]}", "-c", f"user.email={BOT[1]}"]


def pull_body(before: Lock, after: Lock, ui: str) -> str:
    """Per language: the strings decided since `before` and by whom, and what waits for review."""
    decided: dict[str, Counter[str]] = defaultdict(Counter)
    waiting: Counter[str] = Counter()
    for path, file in after.files.items():
        old = before.files.get(path)
        for key, entry in file.strings.items():
            if entry.pending or entry.by is None:
                waiting[file.language] += 1
                continue
            was = old.strings.get(key) if old else None
            if was is None or (was.target, was.by, was.source) != (entry.target, entry.by, entry.source):
                decided[file.language][entry.by] += 1
    lines = [
        "Translations kept in step by `translation-agent sync`. Review the diff; this pull request is never "
        "merged by the Action.",
        "",
        "| language | decided since the last merge | by | waiting for review |",
        "| --- | ---: | --- | --- |",
    ]
    for language in sorted({*decided, *waiting, *after.sessions}):
        who = ", ".join(f"{_who(by)} ({n})" for by, n in decided[language].most_common()) or "—"
        session = after.sessions.get(language)
        link = f" ([review]({ui.rstrip('/')}/#{session}))" if session and waiting[language] and ui else ""
        lines.append(f"| {language} | {sum(decided[language].values())} | {who} | {waiting[language]}{link} |")
    return "\n".join(lines) + "\n"


def _who(by: str) -> str:
    kind, _, name = by.partition(":")
    return {"person": name, "rule": f"rule {name}", "git": f"{name or 'someone'} in git", "import": "imported"}.get(
        kind, by
    )


def main(argv: Sequence[str] | None = None) -> int:
    """The Action's steps: 0 done, 1 failed (the message says why)."""
    parser = argparse.ArgumentParser(prog="python -m terminal.sync_pr", description=__doc__)
    parser.add_argument("step", choices=("prepare", "publish"))
    parser.add_argument("--branch", default="translation-agent/sync")
    parser.add_argument("--base", required=True, help="the default branch")
    parser.add_argument("--ui", default="", help="the web UI's URL, for links to the sessions")
    parser.add_argument("--root", type=Path, default=Path.cwd())
    args = parser.parse_args(argv)
    try:
        if args.step == "prepare":
            prepare(args.root, branch=args.branch, base=args.base, say=print)
        else:
            publish(args.root, github_from_env(os.environ), branch=args.branch, base=args.base, ui=args.ui, say=print)
    except (GitError, GitHubError, LockError) as exc:
        print(f"translation-agent sync: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
