"""A team's data is never reachable by a non-member: every route that names a session, file, segment,
job, project or memory entry answers 404 to a caller outside the project, whatever the method, and
nothing of the project shows in that caller's lists."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from agent_core.models import resolve_model
from handlers.app import create_app
from storage.sqlite import SQLiteStorage
from tests.helpers import services_for

ALICE, MALLORY = {"X-Act-As": "alice"}, {"X-Act-As": "mallory"}
BODIES = {"put /api/projects/{project_id}/members/{sub}": {"role": "manager", "languages": ["*"]}}
"""A body that passes validation, where an empty one would be refused before the route looks at the
project (a 422 that tells nothing of it): she must still meet a 404."""
QUERIES = {"get /api/projects/{project_id}/quality": "?language=fr"}
"""A query a route requires, for the same reason."""


def test_every_route_of_a_project_s_things_is_404_to_a_non_member() -> None:
    app = create_app(services_for(SQLiteStorage(":memory:"), model=resolve_model("pseudo")))
    client = TestClient(app)
    pid = client.post("/api/projects", json={"name": "Site"}, headers=ALICE).json()["id"]
    sid = client.post("/api/sessions", json={"project": pid, "targetLanguage": "fr"}, headers=ALICE).json()["id"]
    upload = {"name": "a.md", "content": "Hello world.\n\nSecond.\n"}
    fid = client.post(f"/api/sessions/{sid}/files", json=upload, headers=ALICE).json()["fileId"]
    first = {"sessionId": sid, "userInput": "Translate a.md into French."}
    assert client.post("/api/next", json=first, headers=ALICE).status_code == 200
    job = {"project": pid, "files": [{"name": "b.md", "content": "Hi.\n"}], "targetLanguages": ["de"]}
    jid = client.post("/api/jobs", json=job, headers=ALICE).json()["id"]
    term = {"source": "world", "target": "monde"}
    entry = client.post(f"/api/projects/{pid}/memory/glossary", json=term, headers=ALICE).json()["id"]
    values = {
        "session_id": sid,
        "file_id": fid,
        "project_id": pid,
        "job_id": jid,
        "start": "0",
        "segment_id": "s1",
        "entry_id": entry,
        "sub": "alice",
    }
    answered: dict[str, int] = {}
    for template, operations in app.openapi()["paths"].items():  # every documented route
        names = re.findall(r"{(\w+)}", template)
        if not {"session_id", "project_id", "job_id"} & set(names):
            continue
        path = template
        for name in names:
            path = path.replace(f"{{{name}}}", values.get(name, "c_0"))
        for method in operations:
            body = BODIES.get(f"{method} {template}", {})
            query = QUERIES.get(f"{method} {template}", "")
            answered[f"{method} {template}"] = client.request(
                method, path + query, headers=MALLORY, json=body
            ).status_code
    assert len(answered) >= 30, sorted(answered)
    assert {k: v for k, v in answered.items() if v != 404} == {}
    for body in ({"sessionId": sid}, {"sessionId": sid, "userInput": "Go on."}):
        assert client.post("/api/next", json=body, headers=MALLORY).status_code == 404
    assert client.get("/api/sessions", headers=MALLORY).json()["sessions"] == []
    assert client.get("/api/projects", headers=MALLORY).json()["projects"] == []
    assert client.get("/api/memory", headers=MALLORY).json()["glossary"] == [], "the project's memory is not hers"
