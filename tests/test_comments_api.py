"""Comments on segments through HTTP, on both backends: a thread in a personal session; in a project,
members of the session's language reading, commenting and resolving as themselves, others refused (403,
404); bad input refused (422, nothing stored); unknown segments, files and comments 404; the session's
threads listed by file."""

from __future__ import annotations

from typing import Any

import pytest

from service.access import LOCAL_USER, project_owner
from storage import comments
from storage.comments import MAX_COMMENT_CHARS
from tests.test_projects_api import Person, Team

DOC = "Hello world. How are you?\n\nA second paragraph.\n"


@pytest.fixture(params=["sqlite", "dynamodb"])
async def team(request: pytest.FixtureRequest, tmp_path: Any) -> Team:
    return await Team.formed(request, tmp_path)


def thread_path(sid: str, fid: str, segment: str = "s1") -> str:
    return f"/api/sessions/{sid}/files/{fid}/segments/{segment}/comments"


async def personal_file(person: Person) -> tuple[str, str]:
    sid = (await person.ok("POST", "/api/sessions", {"targetLanguage": "fr"}))["id"]
    fid = (await person.ok("POST", f"/api/sessions/{sid}/files", {"name": "doc.md", "content": DOC}))["fileId"]
    return sid, fid


async def test_a_thread_on_a_personal_session(team: Team) -> None:
    me = team.local
    sid, fid = await personal_file(me)
    segments = (await me.ok("GET", f"/api/sessions/{sid}/files/{fid}/segments"))["segments"]
    assert [s["id"] for s in segments] == ["s1", "s2", "s3"]
    assert await me.ok("GET", thread_path(sid, fid, "s2")) == []
    response = await me.call("POST", thread_path(sid, fid, "s2"), {"text": "Is “you” formal here?\nAsk the author."})
    assert response.status_code == 201, response.text
    first = response.json()
    assert set(first) == {"id", "by", "at", "text", "resolved", "resolvedBy", "resolvedAt"}
    assert (first["by"], first["text"], first["resolved"]) == (
        LOCAL_USER,
        "Is “you” formal here?\nAsk the author.",
        False,
    )
    second = await me.ok("POST", thread_path(sid, fid, "s2"), {"text": "Formal: vous."})
    assert [c["id"] for c in await me.ok("GET", thread_path(sid, fid, "s2"))] == [first["id"], second["id"]]
    done = await me.ok("PATCH", f"{thread_path(sid, fid, 's2')}/{first['id']}", {"resolved": True})
    assert (done["resolved"], done["resolvedBy"], done["text"]) == (True, LOCAL_USER, first["text"])
    shown = await me.ok("GET", thread_path(sid, fid, "s2"))
    assert [c["resolved"] for c in shown] == [True, False]
    assert await me.ok("GET", thread_path(sid, fid, "s1")) == [], "a thread is the segment's own"
    await team.bob.refused(404, "GET", thread_path(sid, fid, "s2"))
    await team.bob.refused(404, "POST", thread_path(sid, fid, "s2"), {"text": "Mine?"})
    await team.bob.refused(404, "PATCH", f"{thread_path(sid, fid, 's2')}/{first['id']}", {"resolved": False})
    assert await me.ok("GET", thread_path(sid, fid, "s2")) == shown


async def test_members_of_the_session_s_language_comment_as_themselves(team: Team) -> None:
    fr, fr_file = await team.session("fr", DOC)
    path = thread_path(fr, fr_file)
    asked = await team.bob.ok("POST", path, {"text": "What does “world” mean here?"})
    answered = await team.rita.ok("POST", path, {"text": "The whole planet."})
    noted = await team.alice.ok("POST", path, {"text": "Agreed."})
    assert [asked["by"], answered["by"], noted["by"]] == ["bob", "rita", "alice"]
    assert project_owner(team.pid) not in {asked["by"], answered["by"], noted["by"]}
    resolved = await team.rita.ok("PATCH", f"{path}/{asked['id']}", {"resolved": True})
    assert (resolved["resolved"], resolved["resolvedBy"], resolved["by"]) == (True, "rita", "bob")
    thread = await team.dan.ok("GET", path)
    assert [(c["by"], c["resolved"]) for c in thread] == [("bob", True), ("rita", False), ("alice", False)]
    reopened = await team.dan.ok("PATCH", f"{path}/{asked['id']}", {"resolved": False})
    assert (reopened["resolved"], reopened["resolvedBy"]) == (False, "dan")
    # A German translator is a member, but not of this session's language; an outsider sees nothing.
    await team.gus.refused(403, "GET", path, words="fr")
    await team.gus.refused(403, "POST", path, {"text": "Hallo?"}, words="fr")
    await team.gus.refused(403, "PATCH", f"{path}/{asked['id']}", {"resolved": True}, words="fr")
    for method, body in (("GET", None), ("POST", {"text": "Hi"})):
        await team.carol.refused(404, method, path, body)
    await team.carol.refused(404, "PATCH", f"{path}/{asked['id']}", {"resolved": True})
    assert len(await team.alice.ok("GET", path)) == 3, "the refusals stored nothing"


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"text": ""},
        {"text": "   \n "},
        {"text": "x" * (MAX_COMMENT_CHARS + 1)},
        {"text": "a bell \x07 rings"},
        {"text": "ok", "by": "someone-else"},
        {"text": 5},
    ],
)
async def test_a_bad_comment_is_refused_and_stores_nothing(team: Team, body: dict[str, Any]) -> None:
    sid, fid = await personal_file(team.local)
    await team.local.refused(422, "POST", thread_path(sid, fid), body)
    assert await team.local.ok("GET", thread_path(sid, fid)) == []


async def test_the_longest_comment_is_kept_whole(team: Team) -> None:
    sid, fid = await personal_file(team.local)
    text = "é\t" * (MAX_COMMENT_CHARS // 2)
    assert (await team.local.ok("POST", thread_path(sid, fid), {"text": text}))["text"] == text


async def test_unknown_segments_files_sessions_and_comments_are_not_found(team: Team) -> None:
    me = team.local
    sid, fid = await personal_file(me)
    posted = await me.ok("POST", thread_path(sid, fid), {"text": "Here."})
    other_sid, other_fid = await personal_file(me)
    for segment in ("s4", "s0", "s01", "x", "1"):
        await me.refused(404, "GET", thread_path(sid, fid, segment))
        await me.refused(404, "POST", thread_path(sid, fid, segment), {"text": "Where?"})
    await me.refused(404, "POST", thread_path(sid, other_fid), {"text": "Another session's file"})
    await me.refused(404, "POST", thread_path("s_" + "0" * 32, fid), {"text": "No session"})
    for cid in ("c_" + "0" * 32, "nope", posted["id"].upper()):
        await me.refused(404, "PATCH", f"{thread_path(sid, fid)}/{cid}", {"resolved": True})
    await me.refused(404, "PATCH", f"{thread_path(sid, fid, 's2')}/{posted['id']}", {"resolved": True})
    await me.refused(422, "PATCH", f"{thread_path(sid, fid)}/{posted['id']}", {"resolved": "maybe"})
    await me.refused(422, "PATCH", f"{thread_path(sid, fid)}/{posted['id']}", {})
    assert await me.ok("GET", thread_path(sid, fid)) == [posted]
    assert await me.ok("GET", thread_path(other_sid, other_fid)) == []


async def test_a_post_past_the_segment_cap_is_refused(team: Team, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(comments, "MAX_COMMENTS_PER_SEGMENT", 2)
    sid, fid = await personal_file(team.local)
    for k in range(2):
        await team.local.ok("POST", thread_path(sid, fid), {"text": f"Note {k}"})
    await team.local.refused(422, "POST", thread_path(sid, fid), {"text": "One more"}, words="2 comments")
    assert len(await team.local.ok("GET", thread_path(sid, fid))) == 2
    await team.local.ok("POST", thread_path(sid, fid, "s2"), {"text": "Another segment"})


async def test_the_session_s_threads_by_file_and_the_open_ones(team: Team) -> None:
    fr, fr_file = await team.session("fr", DOC)
    second = (await team.alice.ok("POST", f"/api/sessions/{fr}/files", {"name": "b.md", "content": DOC}))["fileId"]
    done = await team.bob.ok("POST", thread_path(fr, fr_file, "s3"), {"text": "Done soon."})
    await team.bob.ok("POST", thread_path(fr, fr_file, "s2"), {"text": "Open question."})
    await team.rita.ok("POST", thread_path(fr, second, "s1"), {"text": "Check this."})
    await team.rita.ok("PATCH", f"{thread_path(fr, fr_file, 's3')}/{done['id']}", {"resolved": True})
    everything = await team.bob.ok("GET", f"/api/sessions/{fr}/comments")
    shape = [
        (f["fileId"], [(t["segmentId"], t["comments"], t["open"]) for t in f["threads"]]) for f in everything["files"]
    ]
    assert shape == [(fr_file, [("s2", 1, 1), ("s3", 1, 0)]), (second, [("s1", 1, 1)])]
    assert everything["files"][0]["name"] == "doc.md"
    assert everything["files"][0]["threads"][0]["thread"][0]["text"] == "Open question."
    open_only = await team.bob.ok("GET", f"/api/sessions/{fr}/comments?open=true")
    segments = [(f["fileId"], [t["segmentId"] for t in f["threads"]]) for f in open_only["files"]]
    assert segments == [(fr_file, ["s2"]), (second, ["s1"])]
    await team.gus.refused(403, "GET", f"/api/sessions/{fr}/comments", words="fr")
    await team.carol.refused(404, "GET", f"/api/sessions/{fr}/comments?open=true")
    await team.local.refused(422, "GET", f"/api/sessions/{fr}/comments?open=perhaps")


async def test_the_segment_list_shows_each_segment_s_comment_counts(team: Team) -> None:
    fr, fr_file = await team.session("fr", DOC)
    segments = f"/api/sessions/{fr}/files/{fr_file}/segments"
    before = (await team.bob.ok("GET", segments))["segments"]
    assert [(s["id"], s["comments"], s["openComments"]) for s in before] == [("s1", 0, 0), ("s2", 0, 0), ("s3", 0, 0)]
    first = await team.bob.ok("POST", thread_path(fr, fr_file, "s2"), {"text": "One?"})
    await team.rita.ok("POST", thread_path(fr, fr_file, "s2"), {"text": "Two."})
    await team.rita.ok("POST", thread_path(fr, fr_file, "s3"), {"text": "Three."})
    await team.rita.ok("PATCH", f"{thread_path(fr, fr_file, 's2')}/{first['id']}", {"resolved": True})
    other, other_file = await team.session("fr", DOC)
    await team.bob.ok("POST", thread_path(other, other_file, "s1"), {"text": "Elsewhere."})
    after = (await team.bob.ok("GET", segments))["segments"]
    assert [(s["id"], s["comments"], s["openComments"]) for s in after] == [("s1", 0, 0), ("s2", 2, 1), ("s3", 1, 1)]
    page = (await team.bob.ok("GET", f"{segments}?q=second"))["segments"]
    assert [(s["id"], s["comments"]) for s in page] == [("s3", 1)]


async def test_the_xliff_exports_keep_comments_as_notes_by_their_authors(team: Team) -> None:
    from xml.etree import ElementTree

    fr, fr_file = await team.session("fr", DOC)
    asked = await team.bob.ok("POST", thread_path(fr, fr_file, "s2"), {"text": "Formal or not?"})
    await team.rita.ok("POST", thread_path(fr, fr_file, "s2"), {"text": "Formal <always> & polite."})
    await team.rita.ok("PATCH", f"{thread_path(fr, fr_file, 's2')}/{asked['id']}", {"resolved": True})
    export = f"/api/sessions/{fr}/files/{fr_file}/export"

    x12 = await team.bob.call("GET", f"{export}?format=xliff12")
    assert x12.status_code == 200, x12.text
    ns12 = {"x": "urn:oasis:names:tc:xliff:document:1.2"}
    units = {u.get("id"): u for u in ElementTree.fromstring(x12.content).iterfind(".//x:trans-unit", ns12)}
    notes = [(n.get("from"), "".join(n.itertext())) for n in units["s2"].iterfind("x:note", ns12)]
    assert notes == [("bob", "Resolved: Formal or not?"), ("rita", "Formal <always> & polite.")]
    assert not list(units["s1"].iterfind("x:note", ns12)) and not list(units["s3"].iterfind("x:note", ns12))

    x2 = await team.bob.call("GET", f"{export}?format=xliff2")
    assert x2.status_code == 200, x2.text
    ns2 = {"x": "urn:oasis:names:tc:xliff:document:2.0"}
    units = {u.get("id"): u for u in ElementTree.fromstring(x2.content).iterfind(".//x:unit", ns2)}
    notes = [(n.get("category"), "".join(n.itertext())) for n in units["s2"].iterfind(".//x:note", ns2)]
    assert notes == [("comment", "bob: Resolved: Formal or not?"), ("comment", "rita: Formal <always> & polite.")]


PO = """msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"

#. A greeting
msgid "Hello world"
msgstr ""

# Keep it short
msgid "Save the file"
msgstr ""
"""


async def test_the_po_export_keeps_comments_as_translator_comments(team: Team) -> None:
    sid, _ = await team.session("fr")
    fid = (await team.alice.ok("POST", f"/api/sessions/{sid}/files", {"name": "m.po", "content": PO}))["fileId"]
    assert [s["id"] for s in (await team.bob.ok("GET", f"/api/sessions/{sid}/files/{fid}/segments"))["segments"]] == [
        "s1",
        "s2",
    ]
    done = await team.rita.ok("POST", thread_path(sid, fid, "s1"), {"text": "Informal?"})
    await team.rita.ok("PATCH", f"{thread_path(sid, fid, 's1')}/{done['id']}", {"resolved": True})
    await team.bob.ok("POST", thread_path(sid, fid, "s2"), {"text": "Which file?\nThe open one?"})
    await team.rita.ok("POST", thread_path(sid, fid, "s2"), {"text": "The open one."})
    exported = await team.bob.call("GET", f"/api/sessions/{sid}/files/{fid}/export?format=original")
    assert exported.status_code == 200, exported.text
    text = exported.text
    assert '# rita: Resolved: Informal?\n#. A greeting\nmsgid "Hello world"' in text, text  # gettext's order
    wanted = '# Keep it short\n# bob: Which file?\n# The open one?\n# rita: The open one.\nmsgid "Save the file"'
    assert wanted in text, text
    assert (await team.bob.call("GET", f"/api/sessions/{sid}/files/{fid}/translation")).text == text
