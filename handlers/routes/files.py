"""A session's files (API.md "Files"): upload (text, XLIFF), progress, downloads, exports, segments, revisions, QA."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal
from urllib.parse import quote

from fastapi import APIRouter, Header, Query, Response

from service.report_schemas import AnalysisWithPostEdit
from service.schemas import FileDetail, FileUpload, UploadedFile
from service.segment_schemas import (
    ApproveBody,
    ApproveResult,
    QaBody,
    QaResult,
    ReviseBody,
    RevisedSegment,
    SegmentPage,
    Unit,
    UnitList,
)
from service.string_context_schemas import StringContext

from ..deps import ActingDep, CallerDep, OwnerDep, ServicesDep, TimeLeftDep

if TYPE_CHECKING:  # the workbench and the formats are imported on first use (cold start)
    from service.exports import Download

router = APIRouter()


@router.post("/api/sessions/{session_id}/files", status_code=201)
def upload_file(session_id: str, body: FileUpload, owner: OwnerDep, services: ServicesDep) -> UploadedFile:
    """Add a document to translate."""
    state, segments = services.sessions.add_file(owner, session_id, body)
    return UploadedFile(fileId=state.file_id, name=state.name, chars=state.chars, segments=segments)


@router.get("/api/sessions/{session_id}/files/{file_id}/analysis")
async def analyse_file(
    session_id: str,
    file_id: str,
    owner: OwnerDep,
    services: ServicesDep,
    to: Annotated[str | None, Query(max_length=64, description="the target language (default: the session's)")] = None,
    min_estimate: Annotated[int | None, Query(alias="minEstimate", ge=0, le=100)] = None,
) -> AnalysisWithPostEdit:
    """Segments, words, repetitions, translation-memory match bands, the cost estimate, what an
    auto-approval threshold would do (`minEstimate`) and the post-edit distance."""
    from service.analysis import analyses_of
    from service.blocking import blocking
    from service.reviews import Reviews

    found = await analyses_of(services).analyse(owner, session_id, file_id, target=to, min_estimate=min_estimate)
    edits = await blocking(Reviews(services.sessions).post_edit, owner, session_id, file_id)
    return AnalysisWithPostEdit(**found.model_dump(), postEdit=edits)


@router.get("/api/sessions/{session_id}/files/{file_id}")
def get_file(session_id: str, file_id: str, owner: OwnerDep, services: ServicesDep) -> FileDetail:
    """A file, its progress and its translation so far."""
    from service.views import progress

    state = services.sessions.file(owner, session_id, file_id)
    return FileDetail(
        fileId=state.file_id,
        name=state.name,
        chars=state.chars,
        progress=progress(state),
        translation=services.sessions.translation(session_id, state),
    )


@router.get(
    "/api/sessions/{session_id}/files/{file_id}/translation",
    response_class=Response,
    responses={200: {"content": {"text/markdown": {}, "text/plain": {}}}},
)
async def download_translation(
    session_id: str,
    file_id: str,
    owner: OwnerDep,
    services: ServicesDep,
    fill: Annotated[Literal["source"] | None, Query(description="`source`: untranslated spans as the source")] = None,
) -> Response:
    """The assembled translation as a download; `X-Translation-Complete` says whether anything is missing."""
    from service.exports import Exports
    from service.offload import off_loop

    exports = Exports(services.workbench())
    found = await off_loop(lambda: exports.translation(owner, session_id, file_id, fill=fill == "source"))
    return attachment(found)


@router.get(
    "/api/sessions/{session_id}/files/{file_id}/export",
    response_class=Response,
    responses={200: {"content": {"application/xliff+xml": {}, "application/x-tmx+xml": {}, "text/markdown": {}}}},
)
async def export_file(
    session_id: str,
    file_id: str,
    owner: OwnerDep,
    services: ServicesDep,
    format: Annotated[str, Query(max_length=20, description="xliff2, xliff12, tmx, md, or xliff (XLIFF sources)")],
    srclang: Annotated[str | None, Query(max_length=40, description="the source language (default und)")] = None,
    reviewed: Annotated[
        bool, Query(description="only units past the second review (and those that need none)")
    ] = False,
) -> Response:
    """The file as XLIFF 2.0 or 1.2, TMX, Markdown, or (an XLIFF source) the original with its targets filled."""
    from service.exports import Exports
    from service.offload import off_loop

    exports = Exports(services.workbench())  # parsing and writing XML: off the server's loop
    found = await off_loop(
        lambda: exports.export(owner, session_id, file_id, format, srclang=srclang, reviewed=reviewed)
    )
    return attachment(found)


@router.get("/api/sessions/{session_id}/files/{file_id}/segments")
async def list_segments(
    session_id: str,
    file_id: str,
    owner: OwnerDep,
    services: ServicesDep,
    response: Response,
    status: Annotated[str | None, Query(max_length=200)] = None,
    q: Annotated[str | None, Query(max_length=500)] = None,
    cursor: Annotated[str | None, Query(max_length=100)] = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 200,
    min_estimate: Annotated[int | None, Query(alias="minEstimate", ge=0, le=100)] = None,
    max_estimate: Annotated[int | None, Query(alias="maxEstimate", ge=0, le=100)] = None,
    sort: Annotated[Literal["position", "estimate"], Query()] = "position",
    key: Annotated[str | None, Query(max_length=200)] = None,
) -> SegmentPage:
    """The whole file in order: written units, pending proposals and untranslated spans; filtered and paged."""
    from service.segments import SegmentQuery, parse_statuses

    query = SegmentQuery(
        statuses=parse_statuses(status),
        q=q or "",
        cursor=cursor,
        limit=limit,
        min_estimate=min_estimate,
        max_estimate=max_estimate,
        sort=sort,
        key=key or "",
    )
    found = await services.workbench().segments(owner, session_id, file_id, query)
    response.headers["ETag"] = f'"{found.version}"'
    return found


@router.get("/api/sessions/{session_id}/files/{file_id}/segments/{segment_id}/context")
async def string_context(
    session_id: str, file_id: str, segment_id: str, acting: ActingDep, caller: CallerDep, services: ServicesDep
) -> StringContext:
    """A string's key, note, refs, flags, codes and plural forms, its neighbours, and the same key written
    in the owner's (or the project's) other sessions of a file with the same name."""
    from service.string_context import StringContexts

    return await StringContexts(services.storage, services.runtime, services.sessions).context(
        acting, caller, session_id, file_id, segment_id[:40]
    )


@router.post("/api/sessions/{session_id}/files/{file_id}/approve", response_model=ApproveResult)
async def approve_shown(
    session_id: str,
    file_id: str,
    body: ApproveBody,
    acting: ActingDep,
    caller: CallerDep,
    services: ServicesDep,
    time_left: TimeLeftDep,
    if_match: Annotated[str | None, Header(max_length=100)] = None,
    idempotency_key: Annotated[str | None, Header(alias="Idempotency-Key")] = None,
) -> Response | ApproveResult:
    """Approve every pending proposal of the file that the filter shows with QA clean, as one verdict step
    (`"step": "review"`: the translated units, a reviewer's second review)."""
    from service.bulk import BulkApproval

    found = await BulkApproval(services.workbench(), services.steps).approve(
        acting.owner,
        session_id,
        file_id,
        body,
        if_match=if_match,
        idempotency_key=idempotency_key,
        time_left=time_left,
        by=caller,
        reviewer=acting.may("review"),
    )
    if isinstance(found, str):
        return Response(found, media_type="application/json", headers={"Idempotent-Replayed": "true"})
    return found


@router.put("/api/sessions/{session_id}/files/{file_id}/segments/{start}")
async def revise_segment(
    session_id: str,
    file_id: str,
    start: int,
    body: ReviseBody,
    acting: ActingDep,
    caller: CallerDep,
    services: ServicesDep,
    time_left: TimeLeftDep,
    response: Response,
    if_match: Annotated[str | None, Header(max_length=100)] = None,
) -> RevisedSegment:
    """The human revises the written unit that begins at `start`; the memory learns from it."""

    found = await services.workbench().revise(
        acting.owner,
        session_id,
        file_id,
        start,
        body,
        if_match=if_match,
        time_left=time_left,
        by=caller,
        reviewer=acting.may("review"),
    )
    response.headers["ETag"] = f'"{found.version}"'
    return found


@router.post("/api/sessions/{session_id}/files/{file_id}/qa")
async def check_text(session_id: str, file_id: str, body: QaBody, owner: OwnerDep, services: ServicesDep) -> QaResult:
    """QA on a human's text for a unit of this file, before it is sent (the session's glossary included)."""

    warnings = await services.workbench().qa(
        owner, session_id, file_id, body.source, body.translated_string, start=body.start
    )
    return QaResult(warnings=warnings)


@router.get(
    "/api/sessions/{session_id}/files/{file_id}/source",
    response_class=Response,
    responses={200: {"content": {"text/markdown": {}, "text/plain": {}}}},
)
def download_source(session_id: str, file_id: str, owner: OwnerDep, services: ServicesDep) -> Response:
    """The file's source text as it was uploaded."""
    state = services.sessions.file(owner, session_id, file_id)
    return Response(services.sessions.source(session_id, state), media_type=media_type(state.name))


@router.get("/api/sessions/{session_id}/files/{file_id}/units")
def list_units(session_id: str, file_id: str, owner: OwnerDep, services: ServicesDep) -> UnitList:
    """The written units in source order: where each lies in the source, and its final text."""
    state = services.sessions.file(owner, session_id, file_id)
    return UnitList(
        units=[
            Unit(start=u.start, end=u.end, text=u.text, status=u.status, callId=u.call_id)
            for u in services.sessions.units(session_id, state)
        ]
    )


def media_type(name: str) -> str:
    """The download's media type, by the file's extension."""
    from service.exports import text_type

    return text_type(name)


def attachment(found: Download) -> Response:
    """A download: its media type, `Content-Disposition`, `X-Translation-Complete` and `X-Export-Skipped`."""
    return Response(
        found.content,
        media_type=found.media_type,
        headers={
            "Content-Disposition": content_disposition(found.filename),
            "X-Translation-Complete": "true" if found.complete else "false",
            "X-Export-Skipped": str(found.skipped),
        },
    )


def content_disposition(filename: str) -> str:
    """`attachment` with an ASCII fallback name and the exact name as RFC 6266's `filename*` (UTF-8)."""
    fallback = "".join(ch if ch.isascii() and (ch.isalnum() or ch in "._- ") else "_" for ch in filename)
    return f"attachment; filename=\"{fallback}\"; filename*=UTF-8''{quote(filename, safe='')}"
