"""Sessions for the API: ownership, limits, files and the views the routes return.

Another caller's session is not found, like a missing one. Every method is blocking (storage is);
the routes run them in a worker thread, never on the event loop.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime

from pydantic_ai.messages import ModelRequest, UserPromptPart

from agent_core.catalog import ModelCatalog
from agent_core.document import FileState, assemble, initial_coverage
from agent_core.effects import Budget, StepEffects, StepToken, UnitWrite
from agent_core.errors import ConflictError, InvalidRequestError, NotFoundError, UnavailableError
from agent_core.ids import is_id, new_id
from agent_core.qa_profiles import profile_json
from agent_core.review_modes import ReviewMode
from agent_core.segment import Segment
from langfacts import bcp47
from storage.interface import CHUNK_CHARS, Storage
from storage.projects import ProjectRecord
from storage.records import Page, SessionRecord

from .access import decide, project_id, project_of, project_thing_id
from .language_detection import detect_language
from .schemas import BudgetBody, FileUpload, SessionSettings
from .store import TextCache
from .uploads import ReadFile, read_upload
from .verbatim import write_verbatim

log = logging.getLogger(__name__)

MAX_FILES = 20
"""A session holds at most this many files (checked atomically by the backend)."""


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def language_tag(value: str | None) -> str | None:
    """The BCP 47 tag of a language given by tag or name (`fr`, `French`, `pt_br`); None for None; 422 else."""
    if value is None:
        return None
    tag = bcp47(value)
    if tag is None:
        raise InvalidRequestError(f"{value[:40]!r} is not a language this server knows; use a BCP 47 tag such as en.")
    return tag


def session_id(value: str) -> str:
    """`value` if it can be a session id, else NotFoundError (nothing is looked up)."""
    if not is_id(value, "s"):
        raise NotFoundError(f"No session {value[:80]}.")
    return value


def file_id(value: str) -> str:
    """`value` if it can be a file id, else NotFoundError."""
    if not is_id(value, "f"):
        raise NotFoundError(f"No file {value[:80]}.")
    return value


def pick_file(files: Sequence[FileState], fid: str) -> FileState:
    """The file `fid` of `files`, else NotFoundError."""
    fid = file_id(fid)
    found = next((f for f in files if f.file_id == fid), None)
    if found is None:
        raise NotFoundError(f"No file {fid} in this session.")
    return found


def kept_profile(value: object) -> str | None:
    """A QA profile as a session or project keeps it (JSON), from a body's `qaProfile` (null: none);
    InvalidRequestError in words for one that is not a profile (API.md "QA profiles")."""
    if value is None:
        return None
    try:
        return profile_json(value)
    except ValueError as exc:
        raise InvalidRequestError(f"qaProfile: {exc}") from exc


DOUBLE_ALONE = '"review": "double" is for a project\'s session, where a reviewer can see it.'


class SessionService:
    """The caller's sessions and files."""

    def __init__(self, storage: Storage, cache: TextCache, *, models: ModelCatalog) -> None:
        self.storage = storage
        self.cache = cache
        self.models = models
        """The configured models: a session's is one of them, and a dollar budget needs its price."""

    def owned(self, owner: str, sid: str) -> SessionRecord:
        """The caller's session; another caller's is NotFound, like a missing one."""
        record = self.storage.get_session(session_id(sid))
        if record.owner != owner:
            raise NotFoundError(f"No session {sid}.")
        return record

    def owner_for_new(self, caller: str, project: str | None) -> tuple[str, ProjectRecord | None]:
        """Who a new session or job belongs to: the caller, or the project named, whose managers alone
        create them (404 for a non-member, 403 for another role)."""
        if project is None:
            return caller, None
        found = self.storage.get_project(project_id(project))
        return decide(found, caller, "manage").owner, found

    def create(
        self,
        owner: str,
        settings: SessionSettings | None = None,
        *,
        task: str | None = None,
        session_id: str | None = None,
        project: ProjectRecord | None = None,
    ) -> SessionRecord:
        """A new, empty session, in the languages given (BCP 47 tags or names; 422 for one unknown),
        with the budget and the model given (422 for a model not configured); with `task`, that is its
        first user input (a job's session: the next step goes on to the model). `session_id` (a new
        id) is the caller's, who can then remove it whether or not the creation answered. A session of
        a project (`settings.project`, or `project` for an owner found already: `owner_for_new`) belongs
        to it and takes the project's source language and auto-approval where the settings give none."""
        given = settings or SessionSettings()
        if given.project is not None:
            owner, project = self.owner_for_new(owner, given.project)
        source, target = language_tag(given.sourceLanguage), language_tag(given.targetLanguage)
        model = None if given.model is None else self.models.name(given.model)
        sid = session_id or (project_thing_id("s") if project is not None else new_id("s"))
        token = StepToken(session_id=sid, owner=owner, version=0, created_at=_now(), message_count=0)
        budget = self._budget(given.budget, model)
        auto = given.autoApprove.minEstimate if given.autoApprove is not None else None
        sample = given.autoApprove.sample if given.autoApprove is not None else 0.0
        review = given.review
        if project is not None and "autoApprove" not in given.model_fields_set:
            auto, sample = project.auto_approve, project.auto_sample
        profile = kept_profile(given.qaProfile)
        if project is not None and "qaProfile" not in given.model_fields_set:
            profile = project.qa_profile
        if project is not None:
            source = source or project.source_language
            review = review or project.review
        elif review == "double":
            raise InvalidRequestError(DOUBLE_ALONE)
        effects = StepEffects(
            source_language=source,
            target_language=target,
            budget=budget,
            model=model,
            auto_approve=auto,
            auto_sample=sample,
            review=review or "single",
            qa_profile=profile,
        )
        if task is not None:
            effects = replace(effects, messages=[ModelRequest(parts=[UserPromptPart(task)])], user_inputs=(task,))
        self.storage.commit(token, effects)
        return self.storage.get_session(token.session_id)

    def configure(self, owner: str, sid: str, settings: SessionSettings) -> None:
        """Change the languages, the budget and the model the body names (null clears one: the model
        then is the default); the others are left. The next step uses them."""
        record = self.owned(owner, sid)
        given = settings.model_fields_set
        if "project" in given:
            raise InvalidRequestError("A session's project is given when it is created; it cannot move.")
        if not given:
            return
        model = record.model
        if "model" in given:
            model = None if settings.model is None else self.models.name(settings.model)
        budget = self._budget(settings.budget, model) if "budget" in given else record.budget
        if "model" in given and budget is not None:
            self._budget(BudgetBody(tokens=budget.tokens, usd=budget.usd), model)  # still keepable
        self.storage.update_session(
            sid,
            source_language=language_tag(settings.sourceLanguage) if "sourceLanguage" in given else ...,
            target_language=language_tag(settings.targetLanguage) if "targetLanguage" in given else ...,
            budget=budget if "budget" in given else ...,
            model=model if "model" in given else ...,
            auto_approve=(settings.autoApprove.minEstimate if settings.autoApprove else None)
            if "autoApprove" in given
            else ...,
            auto_sample=(settings.autoApprove.sample if settings.autoApprove else 0.0)
            if "autoApprove" in given
            else ...,
            review=self._review(record, settings) if "review" in given else ...,
            qa_profile=kept_profile(settings.qaProfile) if "qaProfile" in given else ...,
        )

    @staticmethod
    def _review(record: SessionRecord, settings: SessionSettings) -> ReviewMode:
        """What a PATCH's `review` sets: never null; `double` for a project's session only."""
        if settings.review is None:
            raise InvalidRequestError('"review" is "single", "double" or "pretranslate", never null.')
        if settings.review == "double" and project_of(record.owner) is None:
            raise InvalidRequestError(DOUBLE_ALONE)
        return settings.review

    def _budget(self, body: BudgetBody | None, model: str | None) -> Budget | None:
        """The budget a body gives; a dollar budget for a model without a price is 422."""
        if body is None:
            return None
        if body.usd is not None and self.models.price(model) is None:
            raise InvalidRequestError(
                f"The model {self.models.name(model)} has no price, so a budget in dollars cannot be kept: "
                'give {"tokens": n}, or set MODEL_PRICES.'
            )
        return Budget(tokens=body.tokens, usd=body.usd)

    def page(self, owner: str, *, cursor: str | None, limit: int) -> Page[SessionRecord]:
        """The caller's sessions, newest first."""
        return self.storage.list_sessions(owner, cursor=cursor, limit=limit)

    def delete(self, owner: str, sid: str) -> None:
        """Delete the caller's session and all stored with it."""
        self.owned(owner, sid)
        self.storage.delete_session(sid)
        self.cache.forget(sid)

    def add_file(
        self, owner: str, sid: str, upload: FileUpload, read: tuple[ReadFile, str | None] | None = None
    ) -> tuple[FileState, int]:
        """Add a document to the caller's session; the first one tells its source language if none is set.
        Answers the file and the number of its segments. Every format takes one path
        (`service.uploads`); a file that cannot be read is 422 with the format's message, nothing stored.
        `read`: the upload as `read_file` read it already (a job stores one read in every language)."""
        record = self.owned(owner, sid)
        found, detected = read or self.read_file(upload)
        content, original = found.content, found.original
        state = FileState(
            file_id=new_id("f"),
            name=upload.name,
            chars=len(content),
            covered=initial_coverage(content),
            created_at=_now(),
        )
        segments = found.segments
        self.storage.add_file(sid, state, content, segments=segments, max_files=MAX_FILES, original=original)
        # Only Markdown: elsewhere a verbatim block (a fence with a blank line in it) could cross an entry's end.
        keep = upload.keepVerbatim and original is None
        written = write_verbatim(self.storage, sid, state, content) if keep else state
        if record.source_language is None:
            self._record_language(sid, detected)
        return written, len(segments)

    @staticmethod
    def read_file(upload: FileUpload) -> tuple[ReadFile, str | None]:
        """The upload read and segmented, and the language told from its own text (by which sentences are
        cut): CPU only, nothing stored; 422 for a file that cannot be read."""
        return read_upload(upload, detect_language)

    def _record_language(self, sid: str, detected: str | None) -> None:
        """Record the language detected in the first file as the session's, when it could be told. Best
        effort: the file is stored already, so a failure here is logged, never the upload's (the user sets it)."""
        if detected is None:
            return
        try:
            self.storage.update_session(sid, source_language=detected)
        except (ConflictError, NotFoundError, UnavailableError):
            log.warning("the detected source language %s was not recorded for %s", detected, sid)

    def files(self, owner: str, sid: str) -> list[FileState]:
        """The session's files with their progress."""
        self.owned(owner, sid)
        return list(self.storage.load_step(sid, window=0).files)

    def file(self, owner: str, sid: str, fid: str) -> FileState:
        """One of the caller's files."""
        return pick_file(self.files(owner, sid), fid)

    def source(self, sid: str, state: FileState) -> str:
        """The file's whole source text."""
        return self.storage.read_file(sid, state.file_id, 0, state.chars)

    def document(self, sid: str, state: FileState) -> tuple[str, tuple[Segment, ...]]:
        """The file's whole source text and its segments, in one read."""
        chunks = self.storage.read_chunks(sid, state.file_id, 0, max(state.chars - 1, 0) // CHUNK_CHARS)
        return "".join(c.text for c in chunks)[: state.chars], tuple(s for c in chunks for s in c.segments)

    def units(self, sid: str, state: FileState) -> list[UnitWrite]:
        """The file's written units in source order."""
        return self.storage.list_units(sid, state.file_id)

    def translation(self, sid: str, state: FileState) -> str:
        """The assembled translation: written units in source order, the source's whitespace between."""
        return assemble(self.source(sid, state), self.units(sid, state))
