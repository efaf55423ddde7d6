"""Memory that learns from the reviewer: distillation, the prompt, dedup, QA warnings, time bounds."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from agent_core.copilot import Approve, Refined, Reject, ToolRef
from agent_core.distill import RuleDistiller, distiller_for, is_prose, reads_like_rule, term_pairs
from agent_core.effects import Correction
from agent_core.languages import languages_match, normalize_languages, task_languages, task_target
from agent_core.learning import Learner
from agent_core.memory import GlossaryEntry, Lessons, Memory, StyleNote, changed_part, render_memory
from agent_core.models import resolve_model
from agent_core.pseudo_text import pseudo_translate
from agent_core.qa import proposal_warnings
from agent_core.runtime import StepInput
from agent_core.tools.remember import RememberArgs, check_lessons
from service import memory as owner_memory
from storage.sqlite import SQLiteStorage
from tests.helpers import Harness, calls, harness, translate

FRENCH = "Translate doc.md into French."
SOURCE = "Install the tool, then run the exporter."


def ref(call_id: str) -> ToolRef:
    return ToolRef(name="Translate", call_id=call_id)


async def step(h: Harness, **kw: Any) -> Any:
    outcome = await h.runtime.step(h.owner, h.session_id, StepInput(**kw))
    return outcome.result


def system_prompt(messages: list[ModelMessage]) -> str:
    """What the model was told besides the history: the system prompt and the state note at the end."""
    first, last = messages[0], messages[-1]
    assert isinstance(first, ModelRequest) and isinstance(first.parts[0], SystemPromptPart)
    assert isinstance(last, ModelRequest)
    state = [p.content for p in last.parts if isinstance(p, UserPromptPart) and isinstance(p.content, str)]
    return "\n\n".join([first.parts[0].content, *state])


def new_session(h: Harness, owner: str, content: str) -> Harness:
    """Another session on the same runtime and storage, for `owner`."""
    other = Harness(h.script, h.services, owner=owner)
    other.add_file(content)
    return other


async def told(h: Harness, task: str = FRENCH) -> str:
    """The system prompt the model gets when the user starts the session with `task`."""
    h.script.replies.append(ModelResponse(parts=[TextPart("Ready.")]))
    await step(h, user_input=task)
    return system_prompt(h.script.seen[-1])


def correction(final: str | None, *, reason: str | None = None, source: str = SOURCE) -> Correction:
    return Correction(
        file_id="f",
        status="refined" if final else "reject",
        source=source,
        proposal=pseudo_translate(source),
        final=final,
        reason=reason,
    )


# -- the scenario: a refinement in one session changes what the model is told in the next ------------


async def test_a_correction_the_outcome_shows_is_not_repeated_in_the_state_note() -> None:
    h = harness()
    fid = h.add_file(SOURCE + "\n\nThe exporter writes a file.\n")
    proposal = pseudo_translate(SOURCE)
    h.script.replies.append(calls(translate(fid, SOURCE, proposal, call_id="a")))
    await step(h, user_input=FRENCH)
    second = "The exporter writes a file."
    h.script.replies.append(calls(translate(fid, second, pseudo_translate(second), call_id="b")))
    edited = proposal.replace("ţóóĺ", "outil")
    await step(h, copilot_responses=[Refined(tool=ref("a"), status="refined", translated_string=edited)])
    h.script.replies.append(ModelResponse(parts=[TextPart("Done.")]))
    await step(h, copilot_responses=[Approve(tool=ref("b"), status="approve")])
    after_edit, later = h.script.seen[-2], h.script.seen[-1]  # asked after the edit was committed
    assert "outil" in system_prompt(after_edit) and "edited, «" in system_prompt(after_edit), "the outcome shows it"
    assert "Recent corrections" not in system_prompt(after_edit), "the state note does not repeat it"
    # Once the outcome no longer shows it (the next answer, another session), the memory teaches it.
    assert "Recent corrections" in system_prompt(later)
    assert "Recent corrections" in await told(new_session(h, "alice", "Open the tool settings.\n"))


async def test_a_refinement_teaches_later_sessions_of_the_same_owner_only() -> None:
    h = harness()
    fid = h.add_file(SOURCE + "\n")
    proposal = pseudo_translate(SOURCE)
    h.script.replies.append(calls(translate(fid, SOURCE, proposal, call_id="a")))
    await step(h, user_input=FRENCH)
    await step(h)
    assert "outil" not in system_prompt(h.script.seen[0])
    edited = proposal.replace("ţóóĺ", "outil")
    await step(h, copilot_responses=[Refined(tool=ref("a"), status="refined", translated_string=edited)])

    [entry] = [e for e in h.services.memory.entries("alice") if e.kind == "glossary"]
    assert (entry.source, entry.text, entry.languages, entry.origin) == ("tool", "outil", "auto>french", "learned")

    same_owner = await told(new_session(h, "alice", "Open the tool settings.\n"))
    assert "«tool» → «outil»" in same_owner
    assert same_owner.index("Recent corrections") < same_owner.index("Glossary"), "the lasting part first"
    other_owner = await told(new_session(h, "bob", "Open the tool settings.\n"))
    assert "outil" not in other_owner
    other_language = await told(new_session(h, "alice", "Open the tool settings.\n"), "Translate doc.md into German.")
    assert "«tool» → «outil»" not in other_language, "a French entry is not shown for German"
    unrelated = await told(new_session(h, "alice", "Nothing relevant here.\n"))
    assert "«tool» → «outil»" not in unrelated, "only entries whose term comes next are shown"


async def test_a_proposal_breaking_the_glossary_carries_a_warning_and_the_human_still_decides() -> None:
    h = harness()
    h.services.memory.add_glossary("alice", source="tool", target="outil", languages="auto>french")
    fid = h.add_file("Install the tool.\n\nSee https://example.com/x for {name}.\n")
    h.script.replies.append(
        calls(
            translate(fid, "Install the tool.", "Installez l'instrument.", call_id="a"),
            translate(fid, "See https://example.com/x for {name}.", "Voir pour {nom}.", call_id="b"),
        )
    )
    await step(h, user_input=FRENCH)
    result = await step(h)
    warnings = {r.tool.call_id: tuple(w.message for w in r.warnings) for r in result.copilot_requests}
    assert [w.code for w in result.copilot_requests[0].warnings] == ["glossary"]
    assert warnings["a"] == ("Glossary: «tool» should be translated as «outil».",)
    assert any("https://example.com/x" in w for w in warnings["b"]) and any("{name}" in w for w in warnings["b"])
    # The reviewer approves anyway: the warning informs, it does not decide.
    done = await step(h, copilot_responses=[Refined(tool=ref("a"), status="refined", translated_string="Installez.")])
    assert done.copilot_requests == [] or all(r.tool.call_id == "b" for r in done.copilot_requests)


async def test_corrections_are_kept_when_distillation_fails() -> None:
    class Broken:
        async def distill(self, corrections: Sequence[Correction], *, languages: str) -> Lessons:
            raise RuntimeError("boom")

    h = harness()
    h.runtime.distiller = Broken()
    fid = h.add_file(SOURCE + "\n")
    h.script.replies.append(calls(translate(fid, SOURCE, "x", call_id="a")))
    await step(h, user_input=FRENCH)
    await step(h)
    result = await step(h, copilot_responses=[Reject(tool=ref("a"), status="reject", reason="Use vous.")])
    assert result.messages and result.called_model, "the step answers normally"
    [kept] = h.storage.recent_corrections("alice", limit=5)
    assert (kept.status, kept.reason) == ("reject", "Use vous.")
    assert h.services.memory.entries("alice") == []


# -- the deterministic distiller -------------------------------------------------------------------------------


async def test_pseudo_distillation_learns_the_replaced_terms_from_the_human_text() -> None:
    edited = pseudo_translate(SOURCE).replace("ţóóĺ", "outil").replace("éẋṕóŕţéŕ", "exportateur")
    lessons = await RuleDistiller().distill([correction(edited)], languages="auto>french")
    assert lessons.glossary == (
        GlossaryEntry(source="tool", target="outil", languages="auto>french", origin="learned"),
        GlossaryEntry(source="exporter", target="exportateur", languages="auto>french", origin="learned"),
    )
    assert distiller_for(resolve_model("pseudo")).__class__ is RuleDistiller


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (lambda p: p.replace("ţóóĺ", "tool"), [("tool", "tool")]),  # keep the term untranslated
        (lambda p: p.replace("Íñšţáĺĺ ţĥé ţóóĺ", "Installez l'outil"), [("Install the tool", "Installez l'outil")]),
        (lambda p: p.replace("ţĥé ţóóĺ", "le outil"), [("tool", "outil")]),  # "the" → "le" is not a term
        (lambda p: p.replace("Íñšţáĺĺ ţĥé", "ţĥé Íñšţáĺĺ"), []),  # words moved, nothing new written
        (lambda p: "Installez l’outil, puis lancez l’exportateur.", []),  # a rewrite aligns nothing
        (lambda p: p, []),
    ],
)
def test_term_pairs_come_from_the_human_text_only(edit: Any, expected: list[tuple[str, str]]) -> None:
    proposal = pseudo_translate(SOURCE)
    assert term_pairs(SOURCE, proposal, edit(proposal)) == expected


URL_SOURCE = "Thanks to @tiangolo, see https://tiangolo.com/typer/ and the `typer run` command in docs/typer.md."


@pytest.mark.parametrize(
    "edit",
    [
        lambda p: p.replace("tiangolo.com", "example.com"),  # an edited URL: "tiangolo.com → example"
        lambda p: p.replace("@tiangolo", "@example"),
        lambda p: p.replace("`typer run`", "`runner run`"),
        lambda p: p.replace("docs/typer.md", "docs/runner.md"),
    ],
)
async def test_nothing_is_learned_from_urls_handles_code_or_paths(edit: Any) -> None:
    proposal = pseudo_translate(URL_SOURCE)
    final = edit(proposal)
    assert final != proposal
    assert term_pairs(URL_SOURCE, proposal, final) == []
    fix = Correction(file_id="f", status="refined", source=URL_SOURCE, proposal=proposal, final=final, reason=None)
    assert not (await RuleDistiller().distill([fix], languages="auto>french")).glossary


def test_nothing_is_learned_inside_a_code_block_or_from_numbers() -> None:
    source = "Run it:\n\n```console\n$ typer main.py run --help\n```"
    proposal = pseudo_translate(source)
    assert "$ typer main.py run --help" in proposal
    assert term_pairs(source, proposal, proposal.replace("typer main.py", "example main.py")) == []
    numbers = "Wait 5 minutes."
    assert term_pairs(numbers, pseudo_translate(numbers), pseudo_translate(numbers).replace("5", "10")) == []


@pytest.mark.parametrize(
    ("term", "prose"),
    [
        ("tool", True),
        ("command line", True),
        ("l’outil", True),
        ("tiangolo.com", False),
        ("https://x.org", False),
        ("@tiangolo", False),
        ("`make`", False),
        ("docs/ssl.md", False),
        ("app.command", False),
        ("verify=False", False),
        ("snake_case", False),
        ("1.5", False),
        ("42", False),
        ("", False),
    ],
)
def test_only_prose_can_be_a_glossary_term(term: str, prose: bool) -> None:
    assert is_prose(term) is prose


def test_remember_keeps_no_term_from_urls_and_code() -> None:
    proposal = pseudo_translate(URL_SOURCE)
    final = proposal.replace("tiangolo.com", "example.com").replace("`typer run`", "`runner run`")
    final = final.replace("çóḿḿáñď", "commande")
    fix = Correction(file_id="f", status="refined", source=URL_SOURCE, proposal=proposal, final=final, reason=None)
    terms = [("tiangolo", "example"), ("typer", "runner"), ("tiangolo.com", "example.com"), ("command", "commande")]
    args = RememberArgs(glossary=dict(terms))
    lessons, refused = check_lessons(args, [fix], languages="auto>french")
    assert [(g.source, g.target) for g in lessons.glossary] == [("command", "commande")]
    assert len(refused) == 3 and "«tiangolo» → «example» (the term is not in the source" in refused[0]
    assert "code, URLs" in refused[2]


@pytest.mark.parametrize(
    ("reason", "rule"),
    [
        ("Use vous, not tu.", True),
        ("Too literal: rephrase it naturally.", True),
        ("Product names should stay in English", True),
        ("Mistranslation", False),
        ("Wrong terminology", False),
        ("bad", False),
    ],
)
async def test_a_reason_that_reads_like_a_rule_becomes_a_style_note(reason: str, rule: bool) -> None:
    assert reads_like_rule(reason) is rule
    lessons = await RuleDistiller().distill([correction(None, reason=reason)], languages="auto>french")
    assert [n.text for n in lessons.style_notes] == ([reason] if rule else [])
    assert lessons.glossary == ()


# -- Remember: the model keeps lessons in the response it makes anyway ------------------------------------------


def remember(call_id: str, glossary: Sequence[tuple[str, str]] = (), notes: Sequence[str] = ()) -> ToolCallPart:
    args = {"glossary": dict(glossary), "style_notes": list(notes)}
    return ToolCallPart("Remember", args, tool_call_id=call_id)


def returned(messages: list[ModelMessage], call_id: str) -> Any:
    """The content of the tool return for `call_id` in a request's messages."""
    parts = [p for m in messages for p in m.parts if isinstance(p, ToolReturnPart)]
    [found] = [p.content for p in parts if p.tool_call_id == call_id]
    return found


async def test_remember_keeps_only_what_the_human_wrote_without_a_request_of_its_own() -> None:
    h = harness()
    h.runtime.distiller = None  # a real model's wiring: no distiller
    second = "The exporter writes a file."
    fid = h.add_file(f"{SOURCE}\n\n{second}\n\nOpen the tool settings.\n")
    proposal = pseudo_translate(SOURCE)
    h.script.replies.append(calls(translate(fid, SOURCE, proposal, call_id="a")))
    await step(h, user_input=FRENCH)
    await step(h)
    terms = [("tool", "outil"), ("exporter", "éẋṕóŕţéŕ"), ("widget", "outil")]  # the 2nd: the proposal's words
    h.script.replies.append(
        calls(translate(fid, second, pseudo_translate(second), call_id="b"), remember("r", terms, ["Keep it short."]))
    )
    edited = proposal.replace("ţóóĺ", "outil")
    asked = await step(h, copilot_responses=[Refined(tool=ref("a"), status="refined", translated_string=edited)])
    assert [r.tool.call_id for r in asked.copilot_requests] == ["b"], "Remember needs no review"
    assert h.services.memory.entries("alice") == [], "kept when the step answering the call commits"
    h.script.replies.append(calls(translate(fid, "Open the tool settings.", "Ouvrez les réglages.", call_id="c")))
    await step(h, copilot_responses=[Approve(tool=ref("b"), status="approve")])
    assert len(h.script.seen) == 3, "three proposing requests; learning made none"
    learned = {(e.kind, e.source, e.text, e.origin) for e in h.services.memory.entries("alice")}
    assert learned == {("glossary", "tool", "outil", "learned"), ("style", "", "Keep it short.", "learned")}
    result = returned(h.script.seen[-1], "r")
    assert result.startswith("Kept: «tool» → «outil»; 1 style note. Not kept: «exporter» → «éẋṕóŕţéŕ»")
    assert "(the term is not in the source of a corrected unit)" in result
    # The lesson reaches the very request the committing step makes: its state note shows the entry.
    assert "«tool» → «outil»" in system_prompt(h.script.seen[-1])


async def test_remember_with_invalid_arguments_keeps_nothing_and_says_why() -> None:
    h = harness()
    fid = h.add_file(SOURCE + "\n")
    h.script.replies.append(calls(ToolCallPart("Remember", {"glossary": "tool"}, tool_call_id="r")))
    await step(h, user_input=FRENCH)
    h.script.replies.append(calls(translate(fid, SOURCE, pseudo_translate(SOURCE), call_id="a")))
    await step(h)
    result = returned(h.script.seen[-1], "r")
    assert result.startswith("Nothing kept: glossary:") and h.services.memory.entries("alice") == []


# -- learning after the commit: bounded in time --------------------------------------------------------------


class _Recorder:
    def __init__(self) -> None:
        self.learned: list[Lessons] = []

    async def learn(self, owner: str, lessons: Lessons) -> None:
        self.learned.append(lessons)


class _Slow:
    async def distill(self, corrections: Sequence[Correction], *, languages: str) -> Lessons:
        await asyncio.sleep(5)
        return Lessons(style_notes=(StyleNote(text="late"),))


async def test_learning_is_skipped_when_little_invocation_time_remains() -> None:
    memory = _Recorder()
    learner, rules = Learner(memory=memory), RuleDistiller()
    edited = pseudo_translate(SOURCE).replace("ţóóĺ", "outil")
    fixes = [correction(edited)]
    assert not await learner.after_commit(rules, "alice", fixes, languages="auto>fr", time_left=lambda: 3.5)
    assert memory.learned == []
    assert await learner.after_commit(rules, "alice", fixes, languages="auto>fr", time_left=lambda: 60.0)
    assert len(memory.learned) == 1


async def test_learning_gives_up_after_its_timeout() -> None:
    memory = _Recorder()
    learner = Learner(memory=memory, timeout=0.05, min_seconds=0.01)
    assert not await learner.after_commit(_Slow(), "alice", [correction("x")], languages="auto>fr")
    assert memory.learned == []


# -- dedup and bounds in the owner's memory ------------------------------------------------------------------


def lesson(source: str, target: str, languages: str = "auto>french") -> Lessons:
    return Lessons(glossary=(GlossaryEntry(source=source, target=target, languages=languages, origin="learned"),))


async def test_the_newest_lesson_wins_but_never_over_the_owners_own_entry() -> None:
    memory = owner_memory.OwnerMemory(SQLiteStorage(":memory:"))
    await memory.learn("alice", lesson("tool", "outil"))
    await memory.learn("alice", lesson("Tool", "instrument"))
    await memory.learn("alice", lesson("tool", "Werkzeug", "auto>german"))
    pairs = sorted((e.source, e.text, e.languages) for e in memory.entries("alice"))
    assert pairs == [("tool", "Werkzeug", "auto>german"), ("tool", "instrument", "auto>french")]

    mine = memory.add_glossary("alice", source="exporter", target="exportateur", languages="auto>french")
    await memory.learn("alice", lesson("exporter", "exporteur"))
    assert next(e for e in memory.entries("alice") if e.source == "exporter") == mine
    updated = memory.add_glossary("alice", source="tool", target="outil", languages="auto>french")
    assert (updated.text, updated.origin) == ("outil", "user"), "adding by hand takes over a learned entry"
    assert len(memory.entries("alice")) == 3

    await memory.learn("alice", Lessons(style_notes=(StyleNote(text="Use vous."), StyleNote(text="use  VOUS."))))
    assert [e.text for e in memory.entries("alice") if e.kind == "style"] == ["Use vous."]


async def test_a_full_memory_evicts_the_stalest_learned_entry_and_refuses_hand_additions(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from agent_core.errors import InvalidRequestError

    monkeypatch.setattr(owner_memory, "MAX_GLOSSARY", 2)
    memory = owner_memory.OwnerMemory(SQLiteStorage(":memory:"))
    memory.add_glossary("alice", source="mine", target="à moi", languages="auto>french")
    await memory.learn("alice", lesson("one", "un"))
    await memory.learn("alice", lesson("two", "deux"))
    assert sorted(e.source for e in memory.entries("alice")) == ["mine", "two"]
    with pytest.raises(InvalidRequestError, match="at most 2 glossary entries"):
        memory.add_glossary("alice", source="three", target="trois", languages="auto>french")


# -- what the prompt shows -------------------------------------------------------------------------------------


def test_the_prompt_shows_notes_corrections_and_relevant_terms_and_spends_its_budget_on_terms_first() -> None:
    memory = Memory(
        glossary=(
            GlossaryEntry(source="exporter", target="exportateur"),
            GlossaryEntry(source="tool", target="outil"),
            GlossaryEntry(source="tool box", target="boîte à outils"),
        ),
        style_notes=(StyleNote(text="Use vous."),),
        corrections=tuple(
            Correction(file_id="f", status="refined", source="s", proposal=f"p{i}", final=f"f{i}", reason=None)
            for i in range(200)
        ),
    )
    text = render_memory(memory, text="Open the Tool\nbox now; the toolkit is elsewhere.")
    assert len(text) <= 2_000
    lines = text.splitlines()
    assert lines[:3] == ["Style:", "- Use vous.", "Recent corrections:"]
    assert "p0" in lines[3] and "p199" not in text, "the newest corrections, as many as fit"
    assert lines[-3:] == ["Glossary:", "- «tool» → «outil»", "- «tool box» → «boîte à outils»"]
    assert "exporter" not in text
    tight = render_memory(memory, text="the tool box", budget=60).splitlines()
    assert tight == ["Glossary:", "- «tool» → «outil»", "- «tool box» → «boîte à outils»"], "terms first"
    assert render_memory(Memory(), text="anything") == ""


@pytest.mark.parametrize(
    ("task", "target"),
    [
        ("Translate guide.md into French.", "french"),
        ("Translate guide.md into Portuguese (Brazil). Instructions: formal", "portuguese (brazil)"),
        ("please translate this into german and keep the code", "german"),
        ("Translate it to Japanese", "japanese"),
        ("hello", "unknown"),
    ],
)
def test_the_target_language_comes_from_the_task(task: str, target: str) -> None:
    assert task_target(task) == target
    assert task_languages(task) == f"auto>{target}"


def test_language_pairs() -> None:
    assert normalize_languages("en>French") == "en>french"
    assert normalize_languages(" German ") == "auto>german"
    for bad in ("a>b>c", ">fr", "x" * 41):
        with pytest.raises(ValueError):
            normalize_languages(bad)
    assert languages_match("auto>french", "auto>french")
    assert languages_match("auto>*", "auto>german") and languages_match("auto>french", "auto>unknown")
    assert not languages_match("auto>french", "auto>german")
    assert not languages_match("de>french", "en>french") and languages_match("de>french", "auto>french")


# -- quality checks ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "proposal", "expected"),
    [
        ("Run `make` now.", "Lancez make.", ["Missing inline code: «`make`»."]),
        ("See https://example.com/a.", "Voir le site.", ["Missing URL: «https://example.com/a»."]),
        ("Hi {name}, %s and {{count}}", "Salut {name}", ["Missing placeholder: «%s», «{{count}}»."]),
        ("It costs 1,000.50 dollars.", "Il coûte 1 000,50 dollars.", []),
        ("Wait 5 minutes, then 10.", "Attendez 5 minutes.", ["Missing number: «10»."]),
        ("Use v2 and utf8.", "Utilisez la version.", []),
        ("Install the tool.", "Installez l'outil.", []),
        ("Install the tool.", "Installez l'instrument.", ["Glossary: «tool» should be translated as «outil»."]),
        ("Install the toolkit.", "Installez le kit.", []),
    ],
)
def test_quality_checks(source: str, proposal: str, expected: list[str]) -> None:
    glossary = [GlossaryEntry(source="tool", target="outil")]
    assert list(proposal_warnings(source, proposal, glossary=glossary)) == expected


def test_pseudo_proposals_pass_the_format_checks() -> None:
    source = "Run `make` with {name} and %s, see https://example.com/x, wait 5 minutes."
    assert proposal_warnings(source, pseudo_translate(source)) == ()


def test_a_correction_shows_the_change_with_a_few_words_around_it() -> None:
    old = "Cliquez sur le bouton Enregistrer en haut de la fenêtre pour garder vos modifications."
    new = "Cliquez sur le bouton Sauvegarder en haut de la fenêtre pour garder vos modifications."
    expected = ("…sur le bouton Enregistrer en haut de…", "…sur le bouton Sauvegarder en haut de…")
    assert changed_part(old, new) == expected
    assert changed_part("Le outil.", "L’outil.") == ("Le outil.", "L’outil."), "short texts stay whole"
    assert changed_part("Bonjour.", "« Bonjour.") == ("Bonjour.", "« Bonjour.")
    assert changed_part("Même texte.", "Même texte.") == ("Même texte.", "Même texte.")
    chinese = ("客户端在收到响应后关闭连接，然后重新打开连接。", "客户端在收到响应后断开连接，然后重新打开连接。")
    assert changed_part(*chinese) == ("…响应后关闭连接，然…", "…响应后断开连接，然…"), "a character is a word there"
    first_and_last = changed_part("a b c d e f g h i j k l m n", "A b c d e f g h i j k l m N")
    assert first_and_last == ("a b c d e f g h i j k l m n", "A b c d e f g h i j k l m N"), "one span over both"
    memory = Memory(
        corrections=(Correction(file_id="f", status="refined", source="s", proposal=old, final=new, reason=None),)
    )
    rendered = render_memory(memory)
    assert "«…sur le bouton Enregistrer en haut de…»" in rendered and "Sauvegarder" in rendered
    assert "modifications" not in rendered, "the unchanged rest of the unit is left out"


def test_the_prompt_says_each_glossary_kind() -> None:
    memory = Memory(
        glossary=(
            GlossaryEntry(source="e-mail", target="courriel"),
            GlossaryEntry(source="e-mail", target="mél", kind="forbidden"),
            GlossaryEntry(source="Clippy", target="Clippy", kind="keep"),
        )
    )
    lines = render_memory(memory, text="Send Clippy an e-mail.").splitlines()
    assert lines[1:] == [
        "- «e-mail» → «courriel»",
        "- «e-mail»: never «mél»",
        "- «Clippy»: keep as is, do not translate",
    ]
