"""Language facts through the public contract, on both backends: a PO header's hostile `Plural-Forms`,
`nplurals` or `Language-Team` and a job's overlong language are refused (or read) at the same cost at
n and 4n with nothing stored; strftime, printf and Rails directives are locked codes that a proposal
may not alter (refused to the model) and an edit is warned of; a percent sign in prose is no code."""

from __future__ import annotations

import json
import timeit
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic_ai.messages import ToolReturnPart

from agent_core.copilot import Approve, ToolRef
from agent_core.runtime import StepInput
from handlers.app import create_app
from tests.helpers import calls, harness, services_for, translate_ids

RAILS = """en:
  date:
    formats:
      short: "%b %-d"
      long: "%A, %B %-d, %Y"
  number:
    currency:
      format:
        format: "%u %n"
  greeting: "Hello %{name}, 100% ready"
"""


@pytest.fixture
def client(storage: Any) -> Iterator[TestClient]:
    with TestClient(create_app(services_for(storage))) as found:
        yield found


def _po(header: str, language_team: str = "Polish <pl@li.org>") -> str:
    return (
        'msgid ""\nmsgstr ""\n'
        f'"Language-Team: {language_team}\\n"\n'
        '"Language: pl\\n"\n'
        f'"Plural-Forms: {header}\\n"\n\n'
        'msgid "file"\nmsgid_plural "files"\nmsgstr[0] ""\nmsgstr[1] ""\n'
    )


def _ratio(make: Callable[[int], Callable[[], object]], n: int, rounds: int = 3) -> float:
    """The fastest time at 4n over the fastest at n (a few runs each, in turns)."""
    small, large = make(n), make(4 * n)
    fastest = [float("inf"), float("inf")]
    for _ in range(rounds):
        fastest = [
            min(fastest[0], *timeit.repeat(small, number=1, repeat=1)),
            min(fastest[1], *timeit.repeat(large, number=1, repeat=1)),
        ]
    return fastest[1] / max(fastest[0], 1e-6)


def _files(client: TestClient, sid: str) -> list[Any]:
    return list(client.get(f"/api/sessions/{sid}").json()["files"])


@pytest.mark.parametrize(
    ("header", "words"),
    [
        ("nplurals=2; plural=n" + " " * 1500 + "x", "longer than 500"),  # a backtracking regex paid n³ here
        ("nplurals=2; plural=(n" + " " * 400 + "!= 1) x", "unreadable plural expression"),
        ("nplurals=1000000; plural=n;", "nplurals=1000000"),
        ("nplurals=7; plural=n%7;", "nplurals=7"),
    ],
)
def test_a_po_header_that_cannot_be_bounded_is_422_and_stores_nothing(
    client: TestClient, header: str, words: str
) -> None:
    sid = client.post("/api/sessions", json={}).json()["id"]
    answer = client.post(f"/api/sessions/{sid}/files", json={"name": "pl.po", "content": _po(header)})
    assert answer.status_code == 422, answer.text
    assert "Plural-Forms" in answer.json()["error"] and words in answer.json()["error"]
    assert _files(client, sid) == []


def test_a_hostile_plural_forms_costs_the_same_at_n_and_4n(client: TestClient) -> None:
    sid = client.post("/api/sessions", json={}).json()["id"]

    def make(n: int) -> Callable[[], object]:
        body = {"name": "pl.po", "content": _po("nplurals=2; plural=n" + " " * n + "x")}
        return lambda: client.post(f"/api/sessions/{sid}/files", json=body)

    assert _ratio(make, 2_000) < 4  # both refused after a length check: the request's cost, not n's
    assert _files(client, sid) == []


def test_an_overlong_language_team_is_read_at_the_same_cost_at_n_and_4n(client: TestClient) -> None:
    sid = client.post("/api/sessions", json={}).json()["id"]
    names: list[str] = []

    def make(n: int) -> Callable[[], object]:
        def upload() -> None:
            name = f"f{len(names)}.po"
            names.append(name)
            content = _po("nplurals=3; plural=n==1 ? 0 : 1;", ("Brazilian Portuguese " * n)[:n])
            answer = client.post(f"/api/sessions/{sid}/files", json={"name": name, "content": content})
            assert answer.status_code == 201, answer.text

        return upload

    assert _ratio(make, 12_000) < 8  # the upload reads 4x the bytes; the name's matching adds nothing
    assert len(_files(client, sid)) == len(names)


def test_a_job_in_an_overlong_language_is_422_at_the_same_cost_at_n_and_4n(client: TestClient) -> None:
    def make(n: int) -> Callable[[], object]:
        body = {"targetLanguages": ["de", ("Brazilian " * n)[:n]], "files": [{"name": "a.md", "content": "Hi.\n"}]}

        def create() -> None:
            answer = client.post("/api/jobs", json=body)
            assert answer.status_code == 422 and "language" in answer.text

        return create

    assert _ratio(make, 12_000) < 8
    assert client.get("/api/sessions").json()["sessions"] == []


def test_rails_directives_are_locked_codes_an_edit_is_warned_of(client: TestClient) -> None:
    sid = client.post("/api/sessions", json={"targetLanguage": "de"}).json()["id"]
    uploaded = client.post(f"/api/sessions/{sid}/files", json={"name": "en.yml", "content": RAILS})
    assert uploaded.status_code == 201, uploaded.text
    fid = uploaded.json()["fileId"]
    segments = client.get(f"/api/sessions/{sid}/files/{fid}/segments").json()["segments"]
    by_source = {s["source"]: s for s in segments}
    qa = f"/api/sessions/{sid}/files/{fid}/qa"

    def locked(source: str, text: str) -> list[str]:
        body = {"source": source, "translated_string": text, "start": by_source[source]["start"]}
        found = client.post(qa, json=body).json()["warnings"]
        return [w["message"] for w in found if w["code"] == "locked_code"]

    assert locked("%b %-d", "%-d. %b") == []  # moved, kept
    assert any("%-d is missing" in m for m in locked("%b %-d", "%d. %b"))
    assert any("%u" in m for m in locked("%u %n", "%n USD"))
    assert locked("Hello %{name}, 100% ready", "Hallo %{name}, zu 100 % bereit") == []  # a percent is no code


async def test_a_proposal_that_alters_a_directive_is_refused_to_the_model() -> None:
    h = harness()
    h.session_id = h.services.sessions.create(h.owner).session_id
    fid = h.add_file(RAILS, name="en.yml")
    h.script.replies.append(
        calls(
            translate_ids(fid, ["s1"], "%-d. %b", call_id="c0"),  # the directives kept, in another order
            translate_ids(fid, ["s2"], "%A, %d. %B %Y", call_id="c1"),
        )
    )
    step = await h.runtime.step(h.owner, h.session_id, StepInput(user_input="Translate en.yml into German."))
    assert [r.translate_string for r in step.result.copilot_requests] == ["%-d. %b"]
    h.script.replies.append(calls())
    verdict = Approve(tool=ToolRef(name="Translate", call_id="c0"), status="approve")
    await h.runtime.step(h.owner, h.session_id, StepInput(copilot_responses=[verdict]))
    returns = {p.tool_call_id: p.content for m in h.history() for p in m.parts if isinstance(p, ToolReturnPart)}
    refused = json.dumps(returns["c1"], ensure_ascii=False)
    assert "locked codes" in refused and "%-d is missing" in refused and "%d is not in the source" in refused


def test_markdown_prose_locks_directives_not_percent_signs(client: TestClient) -> None:
    sid = client.post("/api/sessions", json={"targetLanguage": "fr"}).json()["id"]
    text = "Dates look like %Y-%m-%d.\n\nIt is 100% free for 50 % of users, 20%off.\n"
    fid = client.post(f"/api/sessions/{sid}/files", json={"name": "a.md", "content": text}).json()["fileId"]
    qa = f"/api/sessions/{sid}/files/{fid}/qa"

    def placeholders(source: str, translated: str, start: int) -> list[str]:
        body = {"source": source, "translated_string": translated, "start": start}
        found = client.post(qa, json=body).json()["warnings"]
        return [w["message"] for w in found if w["code"] == "missing_placeholder"]

    first, second = "Dates look like %Y-%m-%d.", "It is 100% free for 50 % of users, 20%off."
    assert placeholders(first, "Les dates ressemblent à AAAA-MM-JJ.", 0) == ["Missing placeholder: «%Y», «%m», «%d»."]
    assert placeholders(first, "Les dates ressemblent à %Y-%m-%d.", 0) == []
    assert (
        placeholders(second, "C'est gratuit à 100 % pour 50 % des utilisateurs, 20 % de remise.", text.index(second))
        == []
    )
