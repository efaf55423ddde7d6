"""What one `…/segments/{id}/context` call reads on DynamoDB (under moto), counted at the client: the
segment list's reads and one page of the owner's sessions; then, for each other session read, its load
(two Queries), and for a file of the same name with something written, the chunk at the string's place
(one BatchGetItem) and the file's units (one Query); the caps bound the sessions read whatever the
owner holds."""

from __future__ import annotations

from collections import Counter

import boto3
import pytest

import service.string_context as string_context
from agent_core.models import resolve_model
from storage.dynamodb import DynamoDBSessionStorage
from tests.aws import DynamoRequests
from tests.helpers import services_for
from tests.test_hostile_files import write_units
from tests.test_projects_api import Team
from tests.test_string_context import ANDROID, context_path, upload


async def written(team: Team, language: str) -> str:
    sid, fid = await upload(team.local, language, "strings.xml", ANDROID)
    write_units(team.services, sid, fid, [("Hello, %1$s!", f"{language}: %1$s!", "approve")])
    return sid


async def test_the_reads_grow_with_the_sessions_read_and_stop_at_the_caps(
    moto_table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = boto3.client("dynamodb", region_name="us-east-1")
    team = Team(services_for(DynamoDBSessionStorage(client, table_name=moto_table), model=resolve_model("pseudo")))
    counted = DynamoRequests(client)
    me = team.local
    fr, fr_file = await upload(me, "fr", "strings.xml", ANDROID)
    path = context_path(fr, fr_file, "s2")

    async def reads() -> tuple[Counter[str], list[str]]:
        await me.ok("GET", path)  # the process's first meeting with the session and its memory aside
        counted.take()
        found = await me.ok("GET", path)
        return Counter(counted.take()), [o["language"] for o in found["otherLanguages"]]

    base, languages = await reads()
    assert languages == [] and base["Query"] >= 1, base
    await written(team, "de")
    await written(team, "pl")
    two, languages = await reads()
    assert sorted(languages) == ["de", "pl"]
    assert two - base == Counter({"Query": 2 * 3, "BatchGetItem": 2}), "per session: its load, chunk and units"
    for language in ("de", "pl"):  # newer sessions of the same file with nothing written: a load each
        await upload(me, language, "strings.xml", ANDROID)
    stale, languages = await reads()
    assert sorted(languages) == ["de", "pl"], "each language's latest session with the string written"
    assert stale - two == Counter({"Query": 2 * 2})

    monkeypatch.setattr(string_context, "MAX_LANGUAGES", 2)
    monkeypatch.setattr(string_context, "MAX_READ", 2)
    await written(team, "es")
    capped, languages = await reads()
    # newest first: es, the stale pl, the stale de, pl, de: two languages (es, pl), two sessions read
    assert languages == ["es"], languages
    assert capped - base == Counter({"Query": 3 + 2, "BatchGetItem": 1}), capped - base
    monkeypatch.setattr(string_context, "MAX_READ", 3)
    again, languages = await reads()
    assert languages == ["es", "pl"] and again - capped == Counter({"Query": 3, "BatchGetItem": 1})
