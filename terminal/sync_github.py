"""The few GitHub calls the sync Action makes, behind one small interface: find the open pull request of
a branch, open one, update one. Never a merge.

Two backends: `RestGitHub` (GitHub's REST API with the workflow's token) and `FileGitHub`, a fake
that keeps pull requests in a JSON file, for tests and dry runs (`TRANSLATION_AGENT_GITHUB_FAKE`
names the file). `github_from_env` picks one from the environment the Action runs in.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import httpx

FAKE_ENV = "TRANSLATION_AGENT_GITHUB_FAKE"


class GitHubError(Exception):
    """GitHub refused a call: the message says which and what it answered."""


@dataclass(frozen=True, slots=True)
class Pull:
    """A pull request, as far as the Action needs one."""

    number: int
    url: str
    head: str
    base: str
    title: str
    body: str


class GitHub(ABC):
    """Pull requests of one repository."""

    @abstractmethod
    def open_pull(self, head: str, base: str) -> Pull | None:
        """The open pull request from branch `head` into `base`, if there is one."""

    @abstractmethod
    def create_pull(self, *, head: str, base: str, title: str, body: str) -> Pull:
        """Open a pull request from `head` into `base`."""

    @abstractmethod
    def update_pull(self, number: int, *, title: str, body: str) -> Pull:
        """Change an open pull request's title and description."""


class RestGitHub(GitHub):
    """GitHub's REST API (`GITHUB_API_URL`, the repository `owner/name`, a token that may write pull requests)."""

    def __init__(self, api_url: str, repository: str, token: str, *, http: httpx.Client | None = None) -> None:
        self._repository = repository
        self._owner = repository.split("/", 1)[0]
        self._http = http or httpx.Client(
            base_url=api_url.rstrip("/"),
            headers={"Authorization": f"Bearer {token}", "Accept": "application/vnd.github+json"},
            timeout=httpx.Timeout(30.0),
        )

    def _call(self, method: str, path: str, **kwargs: Any) -> Any:
        try:
            response = self._http.request(method, f"/repos/{self._repository}{path}", **kwargs)
        except httpx.TransportError as exc:
            raise GitHubError(f"Could not reach GitHub ({exc.__class__.__name__}).") from exc
        if response.is_error:
            raise GitHubError(f"GitHub answered {response.status_code} to {method} {path}: {response.text[:300]}")
        return response.json()

    def open_pull(self, head: str, base: str) -> Pull | None:
        found = self._call("GET", "/pulls", params={"head": f"{self._owner}:{head}", "base": base, "state": "open"})
        return _pull(found[0]) if found else None

    def create_pull(self, *, head: str, base: str, title: str, body: str) -> Pull:
        return _pull(self._call("POST", "/pulls", json={"head": head, "base": base, "title": title, "body": body}))

    def update_pull(self, number: int, *, title: str, body: str) -> Pull:
        return _pull(self._call("PATCH", f"/pulls/{number}", json={"title": title, "body": body}))


def _pull(data: Mapping[str, Any]) -> Pull:
    return Pull(
        number=int(data["number"]),
        url=str(data["html_url"]),
        head=str(data["head"]["ref"]),
        base=str(data["base"]["ref"]),
        title=str(data["title"]),
        body=str(data.get("body") or ""),
    )


class FileGitHub(GitHub):
    """A fake GitHub: pull requests kept in a JSON file (a list, newest last); open until closed by hand."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def pulls(self) -> list[Pull]:
        """Every pull request the file holds."""
        if not self.path.is_file():
            return []
        return [Pull(**p) for p in json.loads(self.path.read_text(encoding="utf-8"))]

    def _save(self, pulls: list[Pull]) -> None:
        self.path.write_text(json.dumps([asdict(p) for p in pulls], indent=2) + "\n", encoding="utf-8")

    def open_pull(self, head: str, base: str) -> Pull | None:
        return next((p for p in self.pulls() if p.head == head and p.base == base), None)

    def create_pull(self, *, head: str, base: str, title: str, body: str) -> Pull:
        pulls = self.pulls()
        number = len(pulls) + 1
        pull = Pull(number=number, url=f"fake://pull/{number}", head=head, base=base, title=title, body=body)
        self._save([*pulls, pull])
        return pull

    def update_pull(self, number: int, *, title: str, body: str) -> Pull:
        pulls = self.pulls()
        found = next((p for p in pulls if p.number == number), None)
        if found is None:
            raise GitHubError(f"No pull request {number}.")
        updated = Pull(number=number, url=found.url, head=found.head, base=found.base, title=title, body=body)
        self._save([updated if p.number == number else p for p in pulls])
        return updated


def github_from_env(env: Mapping[str, str]) -> GitHub:
    """The fake when `TRANSLATION_AGENT_GITHUB_FAKE` names a file, else the REST API of the workflow's
    repository (`GITHUB_REPOSITORY`, `GITHUB_API_URL`, `GITHUB_TOKEN`)."""
    if env.get(FAKE_ENV):
        return FileGitHub(Path(env[FAKE_ENV]))
    missing = [name for name in ("GITHUB_REPOSITORY", "GITHUB_TOKEN") if not env.get(name)]
    if missing:
        raise GitHubError(f"{' and '.join(missing)} must be set (the Action sets them from its inputs).")
    return RestGitHub(
        env.get("GITHUB_API_URL", "https://api.github.com"), env["GITHUB_REPOSITORY"], env["GITHUB_TOKEN"]
    )
