"""Concordance: the translation memory and the glossary searched for a word, in one target language, with
where it was found (docs/api.md "Concordance"); a project's members search the project's memory, nobody
else does. Over HTTP on both backends."""

from __future__ import annotations

from typing import Any

import pytest

from tests.test_interchange_api import TMX
from tests.test_projects_api import Team


@pytest.fixture(params=["sqlite", "dynamodb"])
async def team(request: pytest.FixtureRequest, tmp_path: Any) -> Team:
    return await Team.formed(request, tmp_path)


async def test_a_word_is_found_in_the_memory_and_the_glossary_of_its_language(team: Team) -> None:
    memory = f"{team.path}/memory"
    await team.alice.ok("POST", f"{memory}/import", {"format": "tmx", "content": TMX})
    term = {"source": "file", "target": "fichier", "languages": "en>fr"}
    await team.rita.ok("POST", f"{memory}/glossary", term)
    await team.rita.ok("POST", f"{memory}/glossary", {"source": "file", "target": "Datei", "languages": "en>de"})

    found = await team.bob.ok("GET", f"{memory}/concordance?q=FILE&language=French")
    assert (found["query"], found["language"], found["memoryTotal"]) == ("FILE", "fr", 1)
    [hit] = found["memory"]
    assert (hit["source"], hit["target"]) == ("Save the file.", "Enregistrez le fichier.")
    assert hit["sourceSpans"] == [[9, 13]] and hit["targetSpans"] == [], "where the query is, case ignored"
    assert [(g["source"], g["target"], g["sourceSpans"]) for g in found["glossary"]] == [("file", "fichier", [[0, 4]])]

    sentence = await team.bob.ok("GET", f"{memory}/concordance?q=Save%20the%20files.&language=fr")
    assert [(h["source"], h["score"] > 90) for h in sentence["similar"]] == [("Save the file.", True)]
    exact = await team.bob.ok("GET", f"{memory}/concordance?q=Hello%20%20world.&language=fr")
    assert [(h["target"], h["score"]) for h in exact["similar"]] == [("Bonjour le monde.", 100.0)]

    by_target = await team.bob.ok("GET", f"{memory}/concordance?q=monde&language=fr")
    assert [h["targetSpans"] for h in by_target["memory"]] == [[[11, 16]]]
    german = await team.gus.ok("GET", f"{memory}/concordance?q=file&language=de")
    assert [g["target"] for g in german["glossary"]] == ["Datei"], "a session's pair only"
    assert [h["target"] for h in german["memory"]] == ["Speichern Sie die Datei."]

    await team.carol.refused(404, "GET", f"{memory}/concordance?q=file&language=fr")
    mine = await team.carol.ok("GET", "/api/memory/concordance?q=file&language=fr")
    assert mine["memory"] == [] and mine["glossary"] == [], "her own memory holds none of the project's"
    for query, words in (
        ("q=%20&language=fr", "q is"),
        ("q=x&language=klingonese", "language"),
        ("q=x&language=fr&limit=0", "limit"),
    ):
        await team.bob.refused(422, "GET", f"{memory}/concordance?{query}", words=words)
