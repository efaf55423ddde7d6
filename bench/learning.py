"""Learning measured: does the memory make a second, related document need fewer edits than the first?

Two parts of one document (the httpx CHANGELOG: part 1, then the text that follows it) are translated
in a row, each in a session of its own, through the public HTTP contract (the FastAPI app in-process
over httpx's ASGITransport, SQLite in memory). The model is `tests/fakes/glossary_translator.py`: a
scripted translator that renders words from a fixed lexicon unless the glossary the agent puts in its
request says otherwise, and keeps the reviewer's edits with `Remember`, as a real model is asked to.
The reviewer is scripted too: it has fixed preferences (`PREFERENCES`, e.g. «requête», never
«demande»), edits every proposal that does not follow them (an MQM Terminology issue, minor) and
approves the rest.

- memory on: both documents by one caller, so what document 1 taught (the glossary, the translation
  memory) is in the requests of document 2;
- memory off: each document in a store of its own (a caller whose memory is empty).

Prints, per mode and document: units reviewed, units edited (and per 100 units), the post-edit distance
of the file (`GET …/analysis` `postEdit`: chrF, TER), the memory's proposals and the model requests.
A benchmark, not a test: it asserts only that every document is translated to the end.

    .venv/bin/python bench/learning.py                     # two parts of 6,000 characters
    .venv/bin/python bench/learning.py --chars 2500 --json
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import os
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")

import httpx  # noqa: E402

from tests.fakes.glossary_translator import GlossaryTranslator, in_prose  # noqa: E402

SHARED = ROOT.parent / "shared" / "corpus" / "httpx-CHANGELOG.md"
CORPUS = SHARED if SHARED.exists() else ROOT / "tests" / "data" / "httpx-CHANGELOG.md"  # the same file, in a worktree
TASK = "Translate doc.md into French."
PREFERENCES = {
    "demande": "requête",
    "demandes": "requêtes",
    "retour": "réponse",
    "retours": "réponses",
    "temporisation": "délai",
    "temporisations": "délais",
    "entête": "en-tête",
    "entêtes": "en-têtes",
    "renvoi": "redirection",
    "renvois": "redirections",
    "relais": "proxy",
    "relayeurs": "proxys",
    "soutien": "prise en charge",
    "additionné": "ajouté",
    "réparé": "corrigé",
    "altéré": "modifié",
    "chaland": "client",
}
"""The reviewer's fixed preferences: a word they never accept, and the one they write instead."""


def reviewed(proposal: str) -> str:
    """The proposal as the reviewer wants it: every word they never accept replaced (code left alone)."""

    def one(match: Any) -> str:
        word = match.group()
        wanted = PREFERENCES.get(word.casefold())
        if wanted is None:
            return str(word)
        return wanted[:1].upper() + wanted[1:] if word[:1].isupper() else wanted

    return in_prose(proposal, one)


def parts(chars: int) -> tuple[str, str]:
    """Two consecutive parts of the corpus of about `chars` characters each, cut at blank lines."""
    text = CORPUS.read_text(encoding="utf-8")
    first = text.rfind("\n\n", 0, chars)
    second = text.rfind("\n\n", first + 2, first + 2 + chars)
    return text[:first].strip() + "\n", text[first:second].strip() + "\n"


@dataclass
class Figures:
    """What translating one document cost the reviewer."""

    units: int = 0
    edited: int = 0
    from_memory: int = 0
    model_requests: int = 0
    chrF: float | None = None
    ter: float | None = None

    @property
    def edits_per_100(self) -> float:
        """Edited units per 100 reviewed."""
        return round(100 * self.edited / self.units, 1) if self.units else 0.0


async def translate(app: Any, translator: GlossaryTranslator, source: str) -> Figures:
    """One document in a new session, reviewed to the end by the scripted reviewer."""
    figures = Figures()
    asked = translator.requests
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://bench", timeout=None) as client:
        sid = (await client.post("/api/sessions")).json()["id"]
        upload = await client.post(f"/api/sessions/{sid}/files", json={"name": "doc.md", "content": source})
        assert upload.status_code == 201, upload.text
        fid = upload.json()["fileId"]
        body: dict[str, Any] = {"userInput": TASK}
        for _ in range(2_000):
            answer = await client.post("/api/next", json={"sessionId": sid, **body})
            assert answer.status_code == 200, answer.text
            agent = answer.json()["agentResponse"]
            requests = agent["copilotRequests"]
            if agent["actor"] == "agent":
                body = {}
                continue
            if not requests:
                break
            body = {"copilotResponses": [verdict(r, figures) for r in requests]}
        else:
            raise RuntimeError("the document was never finished")
        state = (await client.get(f"/api/sessions/{sid}/files/{fid}")).json()
        assert state["progress"]["complete"], "the document is translated to the end"
        post_edit = (await client.get(f"/api/sessions/{sid}/files/{fid}/analysis")).json()["postEdit"]["file"]
    figures.chrF, figures.ter = post_edit["chrF"], post_edit["ter"]
    figures.model_requests = translator.requests - asked
    return figures


def verdict(request: dict[str, Any], figures: Figures) -> dict[str, Any]:
    """The scripted reviewer's verdict on one proposal."""
    figures.units += 1
    figures.from_memory += request["origin"] == "memory"
    tool = {"name": request["tool"]["name"], "callId": request["tool"]["callId"]}
    wanted = reviewed(request["translate_string"])
    if wanted == request["translate_string"]:
        return {"tool": tool, "status": "approve"}
    figures.edited += 1
    issue = {"category": "Terminology", "severity": "minor"}
    return {"tool": tool, "status": "refined", "translated_string": wanted, "issue": issue}


def app_over_a_new_store(translator: GlossaryTranslator) -> Any:
    """The app with its production services over a fresh SQLite store in memory, with the scripted model."""
    from handlers.app import create_app
    from service.container import build_services
    from storage.sqlite import SQLiteStorage

    return create_app(build_services(storage=SQLiteStorage(":memory:"), model=translator.model))


async def run(chars: int) -> dict[str, list[Figures]]:
    """Both documents with the memory on (one store) and off (a store each)."""
    first, second = parts(chars)
    translator = GlossaryTranslator()
    shared = app_over_a_new_store(translator)
    on = [await translate(shared, translator, first), await translate(shared, translator, second)]
    off = [await translate(app_over_a_new_store(translator), translator, doc) for doc in (first, second)]
    return {"on": on, "off": off}


def table(found: dict[str, list[Figures]], chars: int) -> str:
    """The figures as a Markdown table."""
    lines = [
        f"Two consecutive parts of {CORPUS.name}, about {chars:,} characters each.",
        "",
        "| memory | document | units | edited | edited per 100 units | chrF | TER | memory proposals | model requests"
        " |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for mode, figures in found.items():
        for k, f in enumerate(figures, start=1):
            cells = [mode, str(k), str(f.units), str(f.edited), f"{f.edits_per_100}", str(f.chrF), str(f.ter)]
            lines.append("| " + " | ".join([*cells, str(f.from_memory), str(f.model_requests)]) + " |")
    return "\n".join(lines)


def main() -> None:
    """Parse the options, run, print."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chars", type=int, default=6_000, help="the size of each part (default 6000)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    options = parser.parse_args()
    with contextlib.redirect_stdout(io.StringIO()):  # the app's metrics (EMF lines) are not the figures
        found = asyncio.run(run(options.chars))
    if options.json:
        print(json.dumps({mode: [asdict(f) for f in figures] for mode, figures in found.items()}, indent=1))
    else:
        print(table(found, options.chars))


if __name__ == "__main__":
    main()
