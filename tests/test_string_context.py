"""A string's context through HTTP, on both backends: a PO entry's key, note, refs, flags, codes and
plural forms with its neighbours as the file's translation moves on; an Android string written in
two other languages of the owner's sessions (each language once, its latest written text); a
project's sessions, shown to its members only in the languages they may read; unknown segments,
files and sessions 404 and another caller's 404."""

from __future__ import annotations

from typing import Any

import pytest

from agent_core.models import resolve_model
from tests.helpers import services_for
from tests.storage_cases import backend
from tests.test_hostile_files import write_units
from tests.test_projects_api import Person, Team, until_reviews

PO = r"""msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\n"

#: src/app.c:10
msgid "Open"
msgstr ""

#. Shown in the toolbar
#: src/app.c:12 src/menu.c:3
#, c-format
msgid "%d file"
msgid_plural "%d files"
msgstr[0] ""
msgstr[1] ""

#, fuzzy, c-format
msgid "Hello %s"
msgstr "Bonjour %s"

msgctxt "menu"
msgid "Save"
msgstr ""

msgid "Quit <b>now</b>"
msgstr ""
"""

ANDROID = """<?xml version="1.0" encoding="utf-8"?>
<resources>
    <!-- The title of the inbox screen -->
    <string name="inbox_title">Inbox</string>
    <string name="greeting">Hello, %1$s!</string>
    <string name="sent">Sent</string>
</resources>
"""


@pytest.fixture(params=["sqlite", "dynamodb"])
async def team(request: pytest.FixtureRequest, tmp_path: Any) -> Team:
    made = Team(services_for(backend(request.param, request, tmp_path), model=resolve_model("pseudo")))
    await made.form()
    return made


def context_path(sid: str, fid: str, segment: str) -> str:
    return f"/api/sessions/{sid}/files/{fid}/segments/{segment}/context"


async def upload(person: Person, language: str, name: str, content: str, project: str | None = None) -> tuple[str, str]:
    body = {"targetLanguage": language, **({"project": project} if project else {})}
    sid = (await person.ok("POST", "/api/sessions", body))["id"]
    fid = (await person.ok("POST", f"/api/sessions/{sid}/files", {"name": name, "content": content}))["fileId"]
    return sid, fid


async def translate_all(person: Person, sid: str, language: str) -> None:
    """The pseudo model's proposals, each approved, until the file is translated."""
    requests = await until_reviews(person, sid, userInput=f"Translate the file into {language}.")
    while requests:
        verdicts = [{"tool": r["tool"], "status": "approve"} for r in requests]
        requests = await until_reviews(person, sid, copilotResponses=verdicts)


def neighbours(found: list[dict[str, Any]]) -> list[tuple[str, str | None, str]]:
    return [(n["id"], n["key"], n["status"]) for n in found]


async def test_a_po_entry_shows_its_note_refs_flags_codes_plural_and_neighbours(team: Team) -> None:
    me = team.local
    sid, fid = await upload(me, "fr", "messages.po", PO)
    found = await me.ok("GET", context_path(sid, fid, "s2"))
    assert found == {
        "id": "s2",
        "key": "%d file",
        "note": "Shown in the toolbar",
        "refs": ["src/app.c:12", "src/menu.c:3"],
        "flags": ["c-format"],
        "codes": ["%d"],
        "plural": {"one": "%d file", "other": "%d files"},
        "before": [{"id": "s1", "key": "Open", "source": "Open", "target": None, "status": "untranslated"}],
        "after": [
            {"id": "s3", "key": "Hello %s", "source": "Hello %s", "target": None, "status": "untranslated"},
            {"id": "s4", "key": "menu | Save", "source": "Save", "target": None, "status": "untranslated"},
        ],
        "otherLanguages": [],
    }
    fuzzy = await me.ok("GET", context_path(sid, fid, "s3"))
    assert (fuzzy["flags"], fuzzy["codes"], fuzzy["plural"]) == (["fuzzy", "c-format"], ["%s"], None)
    segments = (await me.ok("GET", f"/api/sessions/{sid}/files/{fid}/segments"))["segments"]
    assert segments[2]["context"]["flags"] == ["fuzzy", "c-format"], "the segment list shows the flags too"

    requests = await until_reviews(me, sid, userInput="Translate the file into French.")
    proposed = {r["segments"][0]: r["translate_string"] for r in requests}
    last = await me.ok("GET", context_path(sid, fid, "s5"))
    assert (last["key"], last["codes"], last["after"]) == ("Quit <b>now</b>", ["<b>", "</b>"], [])
    assert neighbours(last["before"]) == [("s3", "Hello %s", "pending"), ("s4", "menu | Save", "pending")]
    assert [n["target"] for n in last["before"]] == [proposed["s3"], proposed["s4"]], "a pending proposal's text"
    await until_reviews(me, sid, copilotResponses=[{"tool": r["tool"], "status": "approve"} for r in requests])
    first = await me.ok("GET", context_path(sid, fid, "S1"))
    assert (first["id"], first["before"], first["refs"], first["flags"]) == ("s1", [], ["src/app.c:10"], [])
    assert neighbours(first["after"]) == [("s2", "%d file", "approved"), ("s3", "Hello %s", "approved")]
    assert first["after"][1]["target"] == proposed["s3"]


async def test_unknown_segments_files_and_other_callers_are_refused(team: Team) -> None:
    me = team.local
    sid, fid = await upload(me, "fr", "messages.po", PO)
    for segment in ("s6", "s0", "x1", "s" + "9" * 30):
        await me.refused(404, "GET", context_path(sid, fid, segment), words="segment")
    await me.refused(404, "GET", context_path(sid, "f_" + "0" * 32, "s1"))
    await me.refused(404, "GET", context_path("s_" + "0" * 32, fid, "s1"))
    await team.carol.refused(404, "GET", context_path(sid, fid, "s1"))


async def test_an_android_string_in_the_owner_s_other_languages(team: Team) -> None:
    me = team.local
    older_de, older_de_file = await upload(me, "de", "strings.xml", ANDROID)
    await translate_all(me, older_de, "German")
    pl, pl_file = await upload(me, "pl", "strings.xml", ANDROID)
    await translate_all(me, pl, "Polish")
    pl_segments = (await me.ok("GET", f"/api/sessions/{pl}/files/{pl_file}/segments"))["segments"]
    greeting = pl_segments[1]
    await me.ok(
        "PUT", f"/api/sessions/{pl}/files/{pl_file}/segments/{greeting['start']}", {"translated_string": "Cześć, %1$s!"}
    )
    newer_de, _ = await upload(me, "de", "strings.xml", ANDROID)  # the latest German session: nothing written
    await until_reviews(me, newer_de, userInput="Translate the file into German.")
    es, es_file = await upload(me, "es", "other.xml", ANDROID)  # another file's name
    write_units(team.services, es, es_file, [("Hello, %1$s!", "¡Hola, %1$s!", "approve")])
    fr_before, fr_before_file = await upload(me, "fr", "strings.xml", ANDROID)  # the asking session's language
    write_units(team.services, fr_before, fr_before_file, [("Hello, %1$s!", "Bonjour, %1$s !", "approve")])
    fr, fr_file = await upload(me, "fr", "strings.xml", ANDROID)

    found = await me.ok("GET", context_path(fr, fr_file, "s2"))
    assert (found["key"], found["codes"], found["note"]) == ("greeting", ["%1$s"], None)
    german = (await me.ok("GET", f"/api/sessions/{older_de}/files/{older_de_file}/segments"))["segments"][1]["target"]
    assert sorted(found["otherLanguages"], key=lambda o: o["language"]) == [
        {"language": "de", "sessionId": older_de, "fileId": older_de_file, "target": german, "status": "approved"},
        {"language": "pl", "sessionId": pl, "fileId": pl_file, "target": "Cześć, %1$s!", "status": "revised"},
    ]
    title = await me.ok("GET", context_path(fr, fr_file, "s1"))
    assert title["note"] == "The title of the inbox screen"
    assert {o["language"] for o in title["otherLanguages"]} == {"de", "pl"}
    from_polish = await me.ok("GET", context_path(pl, pl_file, "s2"))
    shown = [(o["language"], o["sessionId"]) for o in from_polish["otherLanguages"]]
    assert shown == [("fr", fr_before), ("de", older_de)], "the newest language first"
    await team.carol.refused(404, "GET", context_path(fr, fr_file, "s2"))
    carol_sid, carol_file = await upload(team.carol, "it", "strings.xml", ANDROID)
    assert (await team.carol.ok("GET", context_path(carol_sid, carol_file, "s2")))["otherLanguages"] == [], (
        "another owner's sessions are never shown"
    )


async def test_a_project_s_sessions_share_their_languages_with_members_who_may_read_them(team: Team) -> None:
    fr, fr_file = await upload(team.alice, "fr", "strings.xml", ANDROID, project=team.pid)
    de, de_file = await upload(team.alice, "de", "strings.xml", ANDROID, project=team.pid)
    write_units(team.services, de, de_file, [("Hello, %1$s!", "Hallo, %1$s!", "approve")])
    own_pl, own_pl_file = await upload(team.alice, "pl", "strings.xml", ANDROID)  # alice's own, not the project's
    write_units(team.services, own_pl, own_pl_file, [("Hello, %1$s!", "Cześć, %1$s!", "approve")])

    by_manager = await team.alice.ok("GET", context_path(fr, fr_file, "s2"))
    assert by_manager["otherLanguages"] == [
        {"language": "de", "sessionId": de, "fileId": de_file, "target": "Hallo, %1$s!", "status": "approved"}
    ]
    by_reviewer = await team.rita.ok("GET", context_path(fr, fr_file, "s2"))
    assert by_reviewer["otherLanguages"] == [], "rita reads French only: the German session is not hers to read"
    assert by_reviewer["key"] == "greeting"
    by_german = await team.gus.ok("GET", context_path(de, de_file, "s2"))
    assert by_german["otherLanguages"] == [] and by_german["before"][0]["key"] == "inbox_title"
    await team.gus.refused(403, "GET", context_path(fr, fr_file, "s2"))
    await team.carol.refused(404, "GET", context_path(fr, fr_file, "s2"))
    personal = await team.alice.ok("GET", context_path(own_pl, own_pl_file, "s2"))
    assert personal["otherLanguages"] == [], "a personal session does not see the project's"


async def test_a_changed_file_s_string_is_found_by_its_key_near_its_place(team: Team) -> None:
    me = team.local
    changed = ANDROID.replace(
        '<string name="greeting">', '<string name="added">A new line</string>\n    <string name="greeting">'
    )
    de, de_file = await upload(me, "de", "strings.xml", changed)
    write_units(
        team.services,
        de,
        de_file,
        [("A new line", "Eine neue Zeile", "approve"), ("Hello, %1$s!", "Hallo, %1$s!", "approve")],
    )
    fr, fr_file = await upload(me, "fr", "strings.xml", ANDROID)
    found = await me.ok("GET", context_path(fr, fr_file, "s2"))
    assert [(o["language"], o["target"]) for o in found["otherLanguages"]] == [("de", "Hallo, %1$s!")]
    sent = await me.ok("GET", context_path(fr, fr_file, "s3"))
    assert sent["otherLanguages"] == [] and [n["key"] for n in sent["before"]] == ["inbox_title", "greeting"]
