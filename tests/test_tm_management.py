"""Translation-memory management through HTTP, on both backends: a pair's entries listed a page at a time
(most recently changed first, filtered), edited and deleted (a tombstone every lookup, the concordance,
the analysis' matches and the TMX export honour, in this process and another), bad input 422 or 404 with
nothing stored, a project's under its path by role, and the glossary and style notes by target language."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agent_core.models import resolve_model
from service.access import LOCAL_USER, project_owner
from service.container import Services
from service.tm import TranslationMemory, record_of
from service.tm_entries import entry_id
from storage.errors import NotFoundError
from storage.interface import Storage
from tests.helpers import AsyncApi, assert_error, services_for
from tests.storage_cases import backend
from tests.test_projects_api import Team

OWNER = LOCAL_USER


@pytest.fixture(params=["sqlite", "dynamodb"])
def api(request: pytest.FixtureRequest, tmp_path: Any) -> AsyncApi:
    return AsyncApi(services_for(backend(request.param, request, tmp_path), model=resolve_model("pseudo")))


def remember(services: Services, owner: str, *entries: tuple[str, str, str], key: str | None = None) -> None:
    """Entries `(source, target, language)` into the owner's memory, one write each (in this order)."""
    for source, target, language in entries:
        services.tm.record(owner, [record_of(source, target, f"auto>{language}", "approved", key=key)])


async def test_a_page_lists_one_pair_most_recently_changed_first_filtered_and_paged(api: AsyncApi) -> None:
    remember(api.services, OWNER, *((f"Line {n} of the Guide.", f"Ligne {n} du guide.", "fr") for n in range(5)))
    remember(api.services, OWNER, ("Line 9 of the Guide.", "Zeile 9.", "de"))
    page = await api.ok("GET", "/api/memory/tm?language=fr")
    assert [e["source"] for e in page["entries"]] == [f"Line {n} of the Guide." for n in (4, 3, 2, 1, 0)]
    assert page["nextCursor"] is None
    first = page["entries"][0]
    assert set(first) == {"id", "source", "target", "language", "key", "origin", "updatedAt"}
    assert (first["language"], first["key"], first["origin"]) == ("fr", None, "approved")
    assert first["id"].startswith("fr.")
    one = await api.ok("GET", "/api/memory/tm?language=fr-CA&limit=2")
    two = await api.ok("GET", f"/api/memory/tm?language=French&limit=2&cursor={one['nextCursor']}")
    three = await api.ok("GET", f"/api/memory/tm?language=fr&limit=2&cursor={two['nextCursor']}")
    pages = [[e["source"][5] for e in p["entries"]] for p in (one, two, three)]
    assert pages == [["4", "3"], ["2", "1"], ["0"]] and three["nextCursor"] is None
    found = await api.ok("GET", "/api/memory/tm?language=fr&q=LIGNE%203%20DU")
    assert [e["target"] for e in found["entries"]] == ["Ligne 3 du guide."]
    assert (await api.ok("GET", "/api/memory/tm?language=fr&q=guide."))["entries"][0]["source"].startswith("Line 4")
    assert (await api.ok("GET", "/api/memory/tm?language=it"))["entries"] == []


async def test_an_edit_is_the_newest_write_and_a_deletion_is_gone_everywhere(api: AsyncApi) -> None:
    services = api.services
    remember(services, OWNER, ("Save the file.", "Enregistrez le fichier.", "fr"), ("Open it.", "Ouvrez-le.", "fr"))
    elsewhere = TranslationMemory(services.storage)  # another process's replica, warm before the changes
    assert await elsewhere.exact(OWNER, "auto>fr", ["Save the file."])
    page = (await api.ok("GET", "/api/memory/tm?language=fr"))["entries"]
    save = next(e for e in page if e["source"] == "Save the file.")
    edited = await api.ok("PUT", f"/api/memory/tm/{save['id']}", {"target": "Enregistre le fichier."})
    assert (edited["id"], edited["target"], edited["origin"]) == (save["id"], "Enregistre le fichier.", "revised")
    newest = (await api.ok("GET", "/api/memory/tm?language=fr"))["entries"][0]
    assert newest["source"] == "Save the file."
    found = await services.tm.exact(OWNER, "auto>fr", ["Save the file."])
    assert found["Save the file."].target == "Enregistre le fichier."

    response = await api.client.delete(f"/api/memory/tm/{save['id']}")
    assert response.status_code == 204 and response.content == b""
    assert [e["source"] for e in (await api.ok("GET", "/api/memory/tm?language=fr"))["entries"]] == ["Open it."]
    assert await services.tm.exact(OWNER, "auto>fr", ["Save the file."]) == {}
    assert await services.tm.similar(OWNER, "auto>fr", "Save the files.") == []
    concordance = await api.ok("GET", "/api/memory/concordance?q=file&language=fr")
    assert concordance["memory"] == [] and concordance["similar"] == []
    tmx = (await api.client.get("/api/memory/export?format=tmx")).text
    assert "Open it." in tmx and "Save the file." not in tmx
    assert [e.source for e in services.storage.tm_entries(OWNER)] == ["Open it."]
    await elsewhere.refresh(OWNER)  # unobserved: its next lookup reads the pair's changes
    assert await elsewhere.exact(OWNER, "auto>fr", ["Save the file."]) == {}
    cold = TranslationMemory(services.storage)
    assert await cold.exact(OWNER, "auto>fr", ["Save the file.", "Open it."]) == {
        "Open it.": (await cold.exact(OWNER, "auto>fr", ["Open it."]))["Open it."]
    }
    assert_error(await api.client.delete(f"/api/memory/tm/{save['id']}"), 404, "no such translation-memory entry")
    assert_error(await api.client.put(f"/api/memory/tm/{save['id']}", json={"target": "x"}), 404)
    remember(services, OWNER, ("Save the file.", "Sauvegardez le fichier.", "fr"))  # the place is free again
    assert (await services.tm.exact(OWNER, "auto>fr", ["Save the file."]))["Save the file."].target.startswith("Sauv")


async def test_bad_input_is_422_or_404_and_stores_nothing(api: AsyncApi) -> None:
    remember(api.services, OWNER, ("Close.", "Fermer.", "fr"))
    [entry] = (await api.ok("GET", "/api/memory/tm?language=fr"))["entries"]
    before = api.services.storage.tm_changes(OWNER, "*>fr", since=None)
    for path in (
        "/api/memory/tm",
        "/api/memory/tm?language=klingonese-x",
        "/api/memory/tm?language=fr&limit=0",
        "/api/memory/tm?language=fr&limit=201",
        "/api/memory/tm?language=fr&cursor=elsewhere",
        f"/api/memory/tm?language=fr&q={'x' * 201}",
    ):
        assert (await api.client.get(path)).status_code == 422, path
    for body in ({"target": "   "}, {}, {"target": "Fermer", "source": "Open."}, {"target": "a\x00b"}):
        assert (await api.client.put(f"/api/memory/tm/{entry['id']}", json=body)).status_code == 422, body
    for wrong in ("nothing", f"de.{entry['id'][3:]}", "fr." + "0" * 32, entry["id"].upper()):
        assert_error(await api.client.put(f"/api/memory/tm/{wrong}", json={"target": "x"}), 404)
        assert_error(await api.client.delete(f"/api/memory/tm/{wrong}"), 404)
    after = api.services.storage.tm_changes(OWNER, "*>fr", since=None)
    assert (after.seq, after.entries) == (before.seq, before.entries)


async def test_another_owner_s_entry_is_404(api: AsyncApi) -> None:
    remember(api.services, "someone-else", ("Close.", "Fermer.", "fr"))
    [theirs] = await TranslationMemory(api.services.storage).pair_entries("someone-else", "*>fr")
    assert (await api.ok("GET", "/api/memory/tm?language=fr"))["entries"] == []
    assert_error(await api.client.put(f"/api/memory/tm/{entry_id(theirs)}", json={"target": "x"}), 404)
    assert_error(await api.client.delete(f"/api/memory/tm/{entry_id(theirs)}"), 404)
    assert api.services.storage.tm_entries("someone-else")[0].target == "Fermer."


async def test_the_memory_view_shows_one_target_language_s_glossary_and_notes(api: AsyncApi) -> None:
    for body in (
        {"source": "file", "target": "fichier", "languages": "en>fr"},
        {"source": "file", "target": "Datei", "languages": "de"},
        {"source": "Clippy", "target": "Clippy"},
    ):
        await api.ok("POST", "/api/memory/glossary", body)
    await api.ok("POST", "/api/memory/style-notes", {"text": "Vouvoyez.", "languages": "fr"})
    await api.ok("POST", "/api/memory/style-notes", {"text": "Pas d'anglicismes.", "languages": "French"})
    await api.ok("POST", "/api/memory/style-notes", {"text": "Duzen.", "languages": "de"})
    french = await api.ok("GET", "/api/memory?language=fr-FR")
    assert sorted(g["target"] for g in french["glossary"]) == ["Clippy", "fichier"]
    assert sorted(n["text"] for n in french["styleNotes"]) == ["Pas d'anglicismes.", "Vouvoyez."]
    every = await api.ok("GET", "/api/memory")
    assert len(every["glossary"]) == 3 and len(every["styleNotes"]) == 3
    assert (await api.client.get("/api/memory?language=nowhere-land")).status_code == 422


@pytest.fixture(params=["sqlite", "dynamodb"])
async def team(request: pytest.FixtureRequest, tmp_path: Any) -> Team:
    return await Team.formed(request, tmp_path)


async def test_a_project_s_memory_is_listed_by_members_and_changed_by_reviewers_and_managers(team: Team) -> None:
    project = project_owner(team.pid)
    remember(team.services, project, ("Hello.", "Bonjour.", "fr"), ("Bye.", "Au revoir.", "fr"))
    p = f"{team.path}/memory/tm"
    listed = (await team.bob.ok("GET", f"{p}?language=fr"))["entries"]
    assert [e["source"] for e in listed] == ["Bye.", "Hello."]
    assert (await team.alice.ok("GET", "/api/memory/tm?language=fr"))["entries"] == [], "the manager's own is apart"
    bye, hello = listed
    await team.bob.refused(403, "PUT", f"{p}/{hello['id']}", {"target": "Salut."}, "reviewer")
    await team.bob.refused(403, "DELETE", f"{p}/{hello['id']}")
    await team.carol.refused(404, "GET", f"{p}?language=fr")
    assert (await team.rita.ok("PUT", f"{p}/{hello['id']}", {"target": "Salut."}))["target"] == "Salut."
    await team.alice.ok("DELETE", f"{p}/{bye['id']}")
    assert [(e.source, e.target) for e in team.services.storage.tm_entries(project)] == [("Hello.", "Salut.")]


def test_a_deletion_frees_its_place_under_the_pair_s_cap_and_an_edit_takes_none(storage: Storage) -> None:
    """Storage's rule on every backend: a tombstone holds no place, and a put over it adds the entry again."""
    owner = "capped"
    records = [record_of(f"Text {n}.", f"Texte {n}.", "auto>fr", "approved") for n in range(3)]
    assert storage.put_tm(owner, records[:2], max_entries=2) == (2, 0, 0)
    assert storage.put_tm(owner, records[2:], max_entries=2) == (0, 0, 1)
    before = storage.tm_changes(owner, "*>fr", since=None).seq
    stamp = "2026-12-07T00:00:00.000+00:00"
    gone = storage.rewrite_tm(owner, "*>fr", records[0].source_hash, target="", updated_at=stamp)
    assert gone.deleted and gone.written == before + 1 and gone.source == "Text 0."
    assert storage.tm_changes(owner, "*>fr", since=before).entries == [gone]
    assert storage.put_tm(owner, records[2:], max_entries=2) == (1, 0, 0)
    assert storage.put_tm(owner, records[:1], max_entries=2) == (0, 0, 1), "the pair is full again"
    assert sorted(e.source for e in storage.tm_entries(owner)) == ["Text 1.", "Text 2."]
    with pytest.raises(NotFoundError):
        storage.rewrite_tm(owner, "*>fr", records[0].source_hash, target="", updated_at="")
    with pytest.raises(NotFoundError):
        storage.rewrite_tm(owner, "*>fr", records[0].source_hash, target="Texte.", updated_at="")
    edited = storage.rewrite_tm(owner, "*>fr", records[1].source_hash, target="Autre.", updated_at=stamp)
    assert (edited.target, edited.origin) == ("Autre.", "revised")
    assert storage.tm_changes(owner, "*>fr", since=edited.written - 1).entries == [edited]
    assert storage.put_tm(owner, records[:1], max_entries=2) == (0, 0, 1), "an edit takes no place"
    blank = storage.rewrite_tm(owner, "*>fr", records[1].source_hash, target=" \n", updated_at=stamp)
    assert blank.deleted and blank.target == "" and [e.source for e in storage.tm_entries(owner)] == ["Text 2."]


@pytest.mark.slow
def test_a_page_grows_linearly_with_the_pair_s_entries() -> None:
    from service.tm_entries import TmEntries
    from storage.sqlite import SQLiteStorage
    from tests.growth import cpu_seconds

    sizes = (2_500, 10_000)  # a pair holds at most MAX_TM_ENTRIES (20,000): the bound of any page's work
    pages = {}
    for n in sizes:
        services = services_for(SQLiteStorage(":memory:"))
        lines = ((f"Line {k} of the guide.", f"Ligne {k} du guide.") for k in range(n))
        services.tm.record(OWNER, [record_of(source, target, "auto>fr", "approved") for source, target in lines])
        entries = TmEntries(services.tm)
        first = asyncio.run(entries.page(OWNER, "fr", q="guide", limit=200))  # warms the pair's replica
        assert len(first.entries) == 200 and first.nextCursor
        pages[n] = (entries, first.nextCursor)
    best = dict.fromkeys(sizes, float("inf"))
    for _ in range(3):  # interleaved: a busy machine slows both alike
        for n, (entries, cursor) in pages.items():
            page = entries.page(OWNER, "fr", q="Guide", cursor=cursor)
            best[n] = min(best[n], cpu_seconds(lambda page=page: asyncio.run(page), runs=1))
    assert best[10_000] / best[2_500] < 7.0, best  # linear work is about 4x
