"""The sync Action (action.yml) offline: its composite steps run as GitHub would run them (inputs and
contexts filled in, bash), against a local bare repository as `origin`, the local service under
uvicorn, and the file fake of GitHub (`TRANSLATION_AGENT_GITHUB_FAKE`). The setup steps (Python, pip)
are GitHub's and are not run here."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from terminal.local import connect
from terminal.sync_api import SyncApi
from terminal.sync_github import FAKE_ENV, FileGitHub, GitHubError, RestGitHub, github_from_env
from terminal.sync_lock import load_lock
from tests.local_service import local_service
from tests.test_sync import FILES, review_all

ROOT = Path(__file__).resolve().parents[1]
SKIPPED = {"python", "install"}
"""Steps that set up the runner (actions/setup-python, pip install of the Action): the test's venv is that."""


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=True)
    return done.stdout.strip()


def as_dev(root: Path, *args: str) -> str:
    return git(root, "-c", "user.name=Dev", "-c", "user.email=dev@example.com", *args)


@pytest.fixture
def service(tmp_path: Path) -> Iterator[str]:
    """The local service under uvicorn (SQLite, the pseudo model); its URL."""
    with local_service(tmp_path) as url:
        yield url


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    """A bare `origin` with the sources on main, and a clone of it with no committer configured (a runner)."""
    origin = tmp_path / "origin.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(origin)], check=True)
    work = tmp_path / "work"
    subprocess.run(["git", "clone", "-q", str(origin), str(work)], check=True, capture_output=True)
    git(work, "checkout", "-q", "-b", "main")
    for name, text in FILES.items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text(text, encoding="utf-8")
    git(work, "add", "-A")
    as_dev(work, "commit", "-qm", "sources")
    git(work, "push", "-q", "origin", "main")
    return work


def expand(value: str, context: dict[str, str]) -> str:
    """`${{ name }}` filled from `context` (the contexts this Action uses; anything else is an error)."""
    return re.sub(r"\$\{\{\s*([\w.-]+)\s*\}\}", lambda m: context[m.group(1)], value)


def run_action(work: Path, inputs: dict[str, str], env: dict[str, str]) -> list[str]:
    """Run action.yml's steps in `work` as a runner would; the steps' output."""
    action: dict[str, Any] = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    context = {
        "github.action_path": str(ROOT),
        "github.token": "not-a-token",
        "github.event.repository.default_branch": "main",
    }
    for name, spec in action["inputs"].items():
        if name not in inputs and spec.get("required"):
            raise AssertionError(f"input {name} is required")
        context[f"inputs.{name}"] = inputs.get(name, expand(str(spec.get("default", "")), context))
    assert action["runs"]["using"] == "composite"
    outputs: list[str] = []
    for step in action["runs"]["steps"]:
        if step["id"] in SKIPPED:
            continue
        step_env = {k: expand(str(v), context) for k, v in step.get("env", {}).items()}
        done = subprocess.run(
            [step["shell"], "-e", "-c", expand(step["run"], context)],
            cwd=work,
            env={**env, **step_env},
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, f"step {step['id']}: {done.stdout}\n{done.stderr}"
        outputs.append(done.stdout)
    return outputs


@pytest.mark.slow
async def test_the_action_opens_one_pull_request_and_updates_it(service: str, clone: Path, tmp_path: Path) -> None:
    pulls = tmp_path / "pulls.json"
    env = {
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "PYTHONPATH": str(ROOT),
        "HOME": str(tmp_path),
        "GIT_CONFIG_NOSYSTEM": "1",
        FAKE_ENV: str(pulls),
    }
    main_before = git(clone, "rev-parse", "origin/main")
    run_action(clone, {"api": service}, env)
    (pull,) = FileGitHub(pulls).pulls()
    assert (pull.head, pull.base) == ("translation-agent/sync", "main")
    lock = load_lock(clone / "translation-agent.lock")
    assert f"({service}/#{lock.sessions['fr']})" in pull.body and "| fr | 2 | imported (2) |" in pull.body
    assert git(clone, "rev-parse", "origin/translation-agent/sync") == git(clone, "rev-parse", "HEAD")
    assert git(clone, "log", "-1", "--format=%ae") == "translation-agent@users.noreply.github.com"

    client = SyncApi.over(connect(service, None, None))
    try:
        for session in lock.sessions.values():
            await review_all(client, session)
    finally:
        await client.aclose()

    # The next push to main: a source string changes; the run continues the same branch and pull request.
    git(clone, "checkout", "-q", "main")
    source = json.loads((clone / "locales/en/common.json").read_text("utf-8"))
    source["title"] = "Welcome back, friend"
    (clone / "locales/en/common.json").write_text(json.dumps(source, indent=2) + "\n", "utf-8")
    as_dev(clone, "commit", "-qam", "a new title")
    git(clone, "push", "-q", "origin", "main")
    run_action(clone, {"api": service, "ui": "https://ui.example"}, env)
    (pull,) = FileGitHub(pulls).pulls()
    assert "| fr | 10 | local (8), imported (2) | 1 ([review](https://ui.example/#" in pull.body, pull.body
    assert "| de | 10 | local (9), imported (1) | 1 ([review](https://ui.example/#" in pull.body, pull.body
    fr = json.loads((clone / "locales/fr/common.json").read_text("utf-8"))
    assert fr["menu"]["open"] != "Open the file"
    # Never merged: main has the developers' commits only.
    assert git(clone, "log", "--format=%ae", "origin/main") == "dev@example.com\ndev@example.com"
    assert main_before != git(clone, "rev-parse", "origin/main")


def test_github_from_env_needs_a_repository_and_a_token(tmp_path: Path) -> None:
    with pytest.raises(GitHubError, match="GITHUB_REPOSITORY and GITHUB_TOKEN must be set"):
        github_from_env({})
    assert isinstance(github_from_env({FAKE_ENV: str(tmp_path / "p.json")}), FileGitHub)


def test_the_rest_backend_speaks_githubs_pulls_api() -> None:
    seen: list[tuple[str, str, str]] = []

    def github(request: httpx.Request) -> httpx.Response:
        seen.append((request.method, request.url.path, request.url.query.decode() or request.content.decode()))
        if request.method == "GET":
            return httpx.Response(200, json=[])
        if request.url.path.endswith("/pulls/7"):
            return httpx.Response(422, json={"message": "Validation Failed"})
        pull = {"number": 7, "html_url": "https://github.com/o/r/pull/7", "title": "t", "body": "b"}
        return httpx.Response(201, json=pull | {"head": {"ref": "sync"}, "base": {"ref": "main"}})

    rest = RestGitHub(
        "https://api.github.test",
        "o/r",
        "t",
        http=httpx.Client(base_url="https://api.github.test", transport=httpx.MockTransport(github)),
    )
    assert rest.open_pull("sync", "main") is None
    assert rest.create_pull(head="sync", base="main", title="t", body="b").number == 7
    with pytest.raises(GitHubError, match="GitHub answered 422 to PATCH /pulls/7"):
        rest.update_pull(7, title="t", body="b")
    assert seen[0] == ("GET", "/repos/o/r/pulls", "head=o%3Async&base=main&state=open")
    assert seen[1][:2] == ("POST", "/repos/o/r/pulls") and json.loads(seen[1][2])["head"] == "sync"
