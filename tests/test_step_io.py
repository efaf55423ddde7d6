"""The step's I/O is one value (`agent_core.ports.StepIO`): AgentLoop driven by a fake of it alone, every read
shown where it happens; a translation-memory batch executed once; corrections distilled once a step."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from agent_core.context import Context
from agent_core.copilot import Refined, ToolRef, Verdict
from agent_core.distill import RuleDistiller
from agent_core.document import FileState
from agent_core.effects import Correction, UnitWrite
from agent_core.loop import AgentLoop, AgentLoopOptions
from agent_core.memory import Lessons, Memory
from agent_core.runtime import StepInput, default_tools
from agent_core.segment import Segment
from agent_core.tm import TmEntry, TmMatch
from agent_core.tools.base import ToolCall, ToolOutcome
from agent_core.tools.translate import TranslateTool
from tests.helpers import calls, harness, translate

TEXT = "Hello world.\n\nGood night.\n"
FILE = FileState(file_id="f_1", name="doc.md", chars=len(TEXT), covered=())
SEGMENTS = [Segment(0, 0, 12), Segment(1, 14, 25)]
LANGUAGES = "english>french"


@dataclass
class FakeIO:
    """Every read a step makes, answered from memory and logged."""

    recalled: ModelResponse | None = None
    log: list[str] = field(default_factory=list)

    async def read_text(self, file_id: str, start: int, end: int) -> str:
        self.log.append(f"read_text {start}-{end}")
        return TEXT[start:end]

    async def segments(self, file_id: str, start: int, end: int) -> Sequence[Segment]:
        self.log.append(f"segments {start}-{end}")
        return [s for s in SEGMENTS if s.start < end and start < s.end]

    async def units(self, file_id: str) -> Sequence[UnitWrite]:
        self.log.append("units")
        return []

    async def recall(self, files: Sequence[FileState]) -> ModelResponse | None:
        self.log.append("recall")
        return self.recalled

    async def similar(self, source: str) -> Sequence[TmMatch]:
        self.log.append(f"similar {source}")
        return [TmMatch(entry=TmEntry(source="Hello there.", target="Bonjour.", languages=LANGUAGES), score=80)]

    async def prefetch(self, sources: Sequence[str]) -> None:
        self.log.append(f"prefetch {list(sources)}")

    async def admit(self, units: Sequence[UnitWrite]) -> tuple[Sequence[TmEntry], int]:
        self.log.append("admit")
        return [], 0

    @property
    def distils(self) -> bool:
        return False

    async def distill(self, corrections: Sequence[Correction], *, languages: str) -> Lessons:
        raise AssertionError("no distiller")


@dataclass
class CountedTranslate:
    """Translate, counting its executions."""

    executed: list[str] = field(default_factory=list)
    tool: TranslateTool = field(default_factory=TranslateTool)

    @property
    def definition(self):  # type: ignore[no-untyped-def]
        return self.tool.definition

    async def execute(self, call: ToolCall, response: Verdict | None) -> ToolOutcome:
        self.executed.append(call.call_id)
        return await self.tool.execute(call, response)


def loop(io: FakeIO, model: FunctionModel, translate: CountedTranslate | None = None) -> AgentLoop:
    tools = {**default_tools(), **({"Translate": translate} if translate else {})}
    options = AgentLoopOptions(model=model, tools=tools, system_prompt="Translate.")
    context = Context([], complete=True)
    context.add_user_input("Translate doc.md into French.")
    return AgentLoop(options, context, io, files=[FILE], memory=Memory(), languages=LANGUAGES)


async def test_the_loop_reads_only_through_its_io_and_the_card_shows_its_references() -> None:
    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        args = {"file_id": "f1", "segments": ["s1"], "translate_string": "Bonjour le monde."}
        return ModelResponse(parts=[ToolCallPart("Translate", args, tool_call_id="c1")])

    io = FakeIO()
    result = await loop(io, FunctionModel(model)).next()
    (card,) = result.copilot_requests
    assert card.src_string == "Hello world." and [r.target for r in card.references] == ["Bonjour."]
    assert io.log[0] == "recall", "the memory is asked before the model"
    assert "similar Hello world." in io.log and "prefetch ['Hello world.']" in io.log
    assert io.log.count("prefetch ['Hello world.']") == 1, "one lookup for the batch's cards"


async def test_a_memory_batch_is_executed_once_and_no_model_is_asked() -> None:
    recalled = ModelResponse(
        parts=[
            ToolCallPart(
                "Translate",
                {"file_id": "f1", "segments": ["s1"], "translate_string": "Bonjour le monde."},
                tool_call_id="memory_1",
            )
        ],
        model_name="translation-memory",
    )

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        raise AssertionError("the memory proposed: no model request")

    translate = CountedTranslate()
    result = await loop(FakeIO(recalled=recalled), FunctionModel(model), translate).next()
    assert [r.origin for r in result.copilot_requests] == ["memory"] and not result.called_model
    assert translate.executed == ["memory_1"], "the recalled batch is executed once"


@dataclass
class CountingDistiller:
    calls: int = 0
    rules: RuleDistiller = field(default_factory=RuleDistiller)

    async def distill(self, corrections: Sequence[Correction], *, languages: str) -> Lessons:
        self.calls += 1
        return await self.rules.distill(corrections, languages=languages)


async def test_corrections_are_distilled_once_a_step_and_the_lessons_reach_the_memory() -> None:
    h = harness()
    fid = h.add_file("The tool exports files.\n\nThe tool imports files.\n")
    distiller = CountingDistiller()
    h.runtime.distiller = distiller
    h.script.replies.append(calls(translate(fid, "The tool exports files.", "Le tool exporte.", call_id="a")))
    await h.runtime.step(h.owner, h.session_id, StepInput(user_input="Translate into French"))
    call = ToolRef(name="Translate", call_id="a")
    edited = Refined(tool=call, status="refined", translated_string="Le outil exporte.")
    result = (await h.runtime.step(h.owner, h.session_id, StepInput(copilot_responses=[edited]))).result
    assert result.called_model, "the step went on to the model after learning"
    assert distiller.calls == 1, "distilled before the model request, the same lessons stored after the commit"
    assert [(e.source, e.text) for e in h.services.memory.entries("alice")] == [("tool", "outil")]
