"""`translation-agent sync` end to end: a git repository made here (Android, i18next, PO and Markdown
sources, some translations already there) kept in step through the local service and the offline
`pseudo` model, in two languages; reviews given over the API as a reviewer would."""

from __future__ import annotations

import json
import subprocess
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from terminal.api import ApiError, verdicts_body
from terminal.cli import main
from terminal.local import connect
from terminal.models import FileInfo, ToolRef, Verdict
from terminal.sync import run_sync
from terminal.sync_api import SyncApi
from terminal.sync_config import LOCK_NAME, load_config
from terminal.sync_files import Text, target_strings
from terminal.sync_lock import load_lock
from tests.local_service import logging_restored

pytestmark = pytest.mark.slow

CONFIG = """\
source = "en"
languages = ["fr", "de"]

[[files]]
source = "app/src/main/res/values/strings.xml"
target = "app/src/main/res/values-{android_lang}/strings.xml"

[[files]]
source = "locales/en/*.json"
target = "locales/{lang}/*.json"

[[files]]
source = "po/messages.pot"
target = "po/{lang}.po"

[[files]]
source = "docs/en/**/*.md"
target = "docs/{lang}/**/*.md"
"""

FILES = {
    "app/src/main/res/values/strings.xml": """\
<?xml version="1.0" encoding="utf-8"?>
<resources>
    <!-- The app's name on the launcher -->
    <string name="app_name">Notes</string>
    <string name="greeting">Hello, %1$s!</string>
    <string name="save">Save</string>
</resources>
""",
    "app/src/main/res/values-fr/strings.xml": """\
<?xml version="1.0" encoding="utf-8"?>
<resources>
    <string name="save">Enregistrer</string>
</resources>
""",
    "locales/en/common.json": json.dumps(
        {"title": "Welcome back", "menu": {"open": "Open the file", "close": "Close the window"}}, indent=2
    )
    + "\n",
    "locales/de/common.json": json.dumps({"menu": {"close": "Fenster schließen"}}, indent=2) + "\n",
    "po/messages.pot": """\
msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"

#. Shown on the start screen
msgid "Open a document"
msgstr ""

msgid "Settings"
msgstr ""
""",
    "po/fr.po": """\
msgid ""
msgstr ""
"Language: fr\\n"
"Content-Type: text/plain; charset=UTF-8\\n"

msgid "Settings"
msgstr "Paramètres"
""",
    "docs/en/howto/guide.md": """\
# Taking notes

Notes keeps what you write on this device.

```sh
notes --new
```

Press the plus button to start a note.
""",
    "translation-agent.toml": CONFIG,
}


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=True)
    return done.stdout


def commit(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-qm", message)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "dev@example.com")
    git(root, "config", "user.name", "Dev")
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    commit(root, "sources and some translations")
    return root


@pytest.fixture(autouse=True)
def restore_logging() -> Iterator[None]:
    """The in-process app routes the app's logs to a file; undo that after the test."""
    with logging_restored():
        yield


@pytest.fixture
async def client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[SyncApi]:
    db = tmp_path / "sessions.sqlite3"
    for name, value in {
        "STORAGE_BACKEND": "sqlite",
        "SQLITE_PATH": str(db),
        "AGENT_MODEL": "pseudo",
        "POWERTOOLS_METRICS_DISABLED": "true",
    }.items():
        monkeypatch.setenv(name, value)
    api = SyncApi.over(connect(None, None, db, tmp_path / "agent.log"))
    yield api
    await api.aclose()


async def sync(root: Path, client: SyncApi) -> list[str]:
    said: list[str] = []
    assert await run_sync(root, load_config(root), client, said.append) == 0, said
    return said


async def review_all(client: SyncApi, session_id: str, *, complete: bool = True) -> list[str]:
    """Approve every proposal of the session until it is complete; the sources proposed, in order."""
    proposed: list[str] = []
    view = await client.session(session_id)
    pending = list(view.pendingCopilotRequests)
    for _ in range(100):
        if not pending:
            turn = await client.do_next({"sessionId": session_id})
            if not turn.copilot_requests:
                break
            pending = list(turn.copilot_requests)
        proposed += [r.src_string for r in pending]
        verdicts = [Verdict(tool=ToolRef(name=r.tool.name, callId=r.tool.callId), status="approve") for r in pending]
        turn = await client.do_next(verdicts_body(session_id, verdicts))
        pending = list(turn.copilot_requests)
    view = await client.session(session_id)
    assert view.state == "complete" or not complete, view
    return proposed


def frozen(root: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    capsys.readouterr()
    status = main(["sync", "--frozen", "--root", str(root)])
    return status, capsys.readouterr().out


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.parts
    }


async def test_sync_round_trip(repo: Path, client: SyncApi, capsys: pytest.CaptureFixture[str]) -> None:
    status, out = frozen(repo, capsys)
    assert status == 1 and "the target file is missing" in out and not (repo / LOCK_NAME).exists()

    said = await sync(repo, client)
    lock = load_lock(repo / LOCK_NAME)
    assert set(lock.sessions) == {"fr", "de"}
    # The translations already there are decisions: in the memory, in the lock, never sent.
    assert any("Memory: 3 translation(s)" in line for line in said), said
    fr_android = lock.files["app/src/main/res/values-fr/strings.xml"].strings
    assert fr_android["save"].by == "import" and not fr_android["save"].pending
    assert fr_android["greeting"].pending and fr_android["greeting"].by is None
    memory = (await client._request("GET", "/api/memory/export", params={"format": "tmx"})).text
    assert "Enregistrer" in memory and "Paramètres" in memory and "Fenster schließen" in memory
    # Each language's session proposes only what has no translation yet.
    fr_proposed = await review_all(client, lock.sessions["fr"])
    de_proposed = await review_all(client, lock.sessions["de"])
    assert "Save" not in fr_proposed and "Settings" not in fr_proposed
    assert "Close the window" not in de_proposed and "Save" in de_proposed
    assert {"Welcome back", "Open a document", "Hello, %1$s!"} <= set(fr_proposed)

    await sync(repo, client)
    fr_json = json.loads((repo / "locales/fr/common.json").read_text(encoding="utf-8"))
    assert fr_json["title"] != "Welcome back" and fr_json["menu"]["open"] != "Open the file"
    de_json = json.loads((repo / "locales/de/common.json").read_text(encoding="utf-8"))
    assert de_json["menu"]["close"] == "Fenster schließen"
    fr_po = (repo / "po/fr.po").read_text(encoding="utf-8")
    assert 'msgstr "Paramètres"' in fr_po and "Language: fr" in fr_po and "#. Shown on the start screen" in fr_po
    fr_xml = (repo / "app/src/main/res/values-fr/strings.xml").read_text(encoding="utf-8")
    assert "Enregistrer" in fr_xml and "%1$s" in fr_xml and "<!-- The app's name on the launcher -->" in fr_xml
    de_md = (repo / "docs/de/howto/guide.md").read_text(encoding="utf-8")
    assert "notes --new" in de_md and "Press the plus button" not in de_md
    lock = load_lock(repo / LOCK_NAME)
    assert lock.files["locales/fr/common.json"].strings["title"].by == "person:local"
    assert not lock.uploads and not any(s.pending for f in lock.files.values() for s in f.strings.values())
    commit(repo, "translations")
    assert frozen(repo, capsys)[0] == 0

    # A hand edit in git is a person's decision: kept, learned, never overwritten.
    fr_json["title"] = "Bon retour parmi nous"
    (repo / "locales/fr/common.json").write_text(json.dumps(fr_json, ensure_ascii=False, indent=2) + "\n", "utf-8")
    commit(repo, "a better French title")
    status, out = frozen(repo, capsys)
    assert status == 1 and "edited in the target since the lockfile" in out
    await sync(repo, client)
    assert json.loads((repo / "locales/fr/common.json").read_text("utf-8"))["title"] == "Bon retour parmi nous"
    lock = load_lock(repo / LOCK_NAME)
    assert lock.files["locales/fr/common.json"].strings["title"].by == "git:dev@example.com"
    memory = (await client._request("GET", "/api/memory/export", params={"format": "tmx"})).text
    assert "Bon retour parmi nous" in memory
    assert not lock.uploads
    commit(repo, "sync")

    # A changed source string is proposed again, and nothing else; a removed one leaves the targets.
    source = json.loads((repo / "locales/en/common.json").read_text("utf-8"))
    source["menu"]["open"] = "Open a file from the cloud"
    del source["menu"]["close"]
    (repo / "locales/en/common.json").write_text(json.dumps(source, indent=2) + "\n", "utf-8")
    commit(repo, "a new string for open, close gone")
    before = snapshot(repo)
    status, out = frozen(repo, capsys)
    assert status == 1 and "changed in the source" in out and snapshot(repo) == before
    await sync(repo, client)
    fr_session = await client.session(load_lock(repo / LOCK_NAME).sessions["fr"])
    said_to_model = fr_session.model_dump_json()
    assert (
        "previous translations, for context" in said_to_model
        and f"menu.open: {fr_json['menu']['open']}" in said_to_model
    )
    for language in ("fr", "de"):
        target = json.loads((repo / f"locales/{language}/common.json").read_text("utf-8"))
        assert "close" not in target["menu"]
        assert await review_all(client, load_lock(repo / LOCK_NAME).sessions[language]) == [
            "Open a file from the cloud"
        ]
    assert frozen(repo, capsys)[0] == 0  # waiting for review is not stale
    await sync(repo, client)
    fr_json = json.loads((repo / "locales/fr/common.json").read_text("utf-8"))
    assert fr_json["title"] == "Bon retour parmi nous" and "cloud" not in fr_json["menu"]["open"]
    assert frozen(repo, capsys)[0] == 0
    counting = Counting.over(client)
    await sync(repo, counting)
    assert counting.requests == 0  # nothing changed, nothing waits: nothing to ask


class Counting(SyncApi):
    """The API, counting the requests made."""

    requests = 0

    async def _request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        self.requests += 1
        return await super()._request(method, path, **kwargs)


class FailingUploads(SyncApi):
    """The API, but the service refuses every upload after the first `allowed`."""

    allowed = 1

    async def upload(self, session_id: str, name: str, content: str | bytes) -> FileInfo:
        if self.allowed <= 0:
            raise ApiError("The translation model or the store is busy or unavailable.", status=503)
        self.allowed -= 1
        return await super().upload(session_id, name, content)


async def test_a_run_cut_short_sends_nothing_twice_and_a_deleted_session_is_replaced(
    repo: Path, client: SyncApi
) -> None:
    config = load_config(repo)
    failing = FailingUploads.over(client)
    said: list[str] = []
    with pytest.raises(ApiError):
        await run_sync(repo, config, failing, said.append)
    lock = load_lock(repo / LOCK_NAME)
    assert len(lock.uploads) == 1 and lock.uploads[0].target == "app/src/main/res/values-fr/strings.xml"
    await sync(repo, client)
    lock = load_lock(repo / LOCK_NAME)
    fr = lock.sessions["fr"]
    assert sorted(u.target for u in lock.uploads if u.session == fr) == [
        "app/src/main/res/values-fr/strings.xml",
        "docs/fr/howto/guide.md",
        "locales/fr/common.json",
        "po/fr.po",
    ]
    proposed = await review_all(client, fr)
    assert len(proposed) == len(set(proposed)) == 9  # every French string without a translation, once

    await client.delete_session(lock.sessions["de"])
    await sync(repo, client)
    lock = load_lock(repo / LOCK_NAME)
    assert lock.sessions["de"] != fr and {u.session for u in lock.uploads} == {lock.sessions["de"]}
    assert len(await review_all(client, lock.sessions["de"])) == 10
    await sync(repo, client)
    lock = load_lock(repo / LOCK_NAME)
    assert not lock.uploads and all(not s.pending for f in lock.files.values() for s in f.strings.values())


async def test_a_projects_repository_uses_the_projects_sessions_and_memory(repo: Path, client: SyncApi) -> None:
    project = await client.create_project("App strings")
    config = repo / "translation-agent.toml"
    config.write_text(f'project = "{project}"\n' + config.read_text(encoding="utf-8"), encoding="utf-8")
    await sync(repo, client)
    lock = load_lock(repo / LOCK_NAME)
    listed = {s.id for s in await client.project_sessions(project)}
    assert set(lock.sessions.values()) <= listed
    memory = (await client._request("GET", f"/api/projects/{project}/memory/export", params={"format": "tmx"})).text
    own = (await client._request("GET", "/api/memory/export", params={"format": "tmx"})).text
    assert "Enregistrer" in memory and "Enregistrer" not in own
    await review_all(client, lock.sessions["fr"])
    await sync(repo, client)
    assert load_lock(repo / LOCK_NAME).files["po/fr.po"].strings["Open a document"].by == "person:local"


def po_targets(repo: Path) -> dict[str, Text]:
    return target_strings("fr.po", (repo / "po/fr.po").read_bytes(), [])


class SplitMarkdown(SyncApi):
    """The API, but a Markdown export comes back with one block more than was uploaded."""

    async def original(self, session_id: str, file_id: str) -> bytes:
        data = await super().original(session_id, file_id)
        return data + b"\nA paragraph the upload did not have.\n" if data.startswith(b"# ") else data


async def test_an_export_that_cannot_be_paired_leaves_its_strings_waiting(repo: Path, client: SyncApi) -> None:
    await sync(repo, client)
    lock = load_lock(repo / LOCK_NAME)
    for session in lock.sessions.values():
        await review_all(client, session)
    said = await sync(repo, SplitMarkdown.over(client))
    assert any("docs/fr/howto/guide.md: the decisions of guide.md" in line for line in said), said
    lock = load_lock(repo / LOCK_NAME)
    assert all(s.pending for s in lock.files["docs/fr/howto/guide.md"].strings.values())
    assert not any(s.pending for s in lock.files["po/fr.po"].strings.values())
    await sync(repo, client)
    assert not any(s.pending for s in load_lock(repo / LOCK_NAME).files["docs/fr/howto/guide.md"].strings.values())


async def test_a_project_that_reviews_twice_writes_only_what_the_reviewer_passed(repo: Path, client: SyncApi) -> None:
    created = await client._request("POST", "/api/projects", json={"name": "App", "review": "double"})
    project = created.json()["id"]
    member = {"role": "translator", "languages": ["fr", "de"]}
    await client._request("PUT", f"/api/projects/{project}/members/ana", json=member)
    config = repo / "translation-agent.toml"
    config.write_text(f'project = "{project}"\n' + config.read_text(encoding="utf-8"), encoding="utf-8")
    await sync(repo, client)
    lock = load_lock(repo / LOCK_NAME)
    client._http.headers["X-Act-As"] = "ana"  # the translator approves everything
    try:
        for session in lock.sessions.values():
            await review_all(client, session, complete=False)
    finally:
        del client._http.headers["X-Act-As"]
    await sync(repo, client)
    lock = load_lock(repo / LOCK_NAME)
    assert all(s.pending for s in lock.files["po/fr.po"].strings.values() if s.by != "import")
    assert po_targets(repo) == {"Settings": "Paramètres"}  # nothing the reviewer has not passed
    for upload in lock.uploads:  # the reviewer (the local manager) passes what the translator approved
        path = f"/api/sessions/{upload.session}/files/{upload.file}/approve"
        await client._request("POST", path, json={"step": "review", "filter": {}})
    await sync(repo, client)
    lock = load_lock(repo / LOCK_NAME)
    assert lock.files["po/fr.po"].strings["Open a document"].by == "person:local"
    assert not lock.uploads and set(po_targets(repo)) == {"Settings", "Open a document"}
