"""A session's files (API.md "Files"): upload, progress, the translation, the source, the units."""

from __future__ import annotations

from urllib.parse import quote

from fastapi import APIRouter, Response

from service.schemas import FileDetail, FileUpload, Unit, UnitList, UploadedFile

from ..deps import OwnerDep, ServicesDep

router = APIRouter()


@router.post("/api/sessions/{session_id}/files", status_code=201)
def upload_file(session_id: str, body: FileUpload, owner: OwnerDep, services: ServicesDep) -> UploadedFile:
    """Add a document to translate."""
    state = services.sessions.add_file(owner, session_id, body)
    return UploadedFile(fileId=state.file_id, name=state.name, chars=state.chars)


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
def download_translation(session_id: str, file_id: str, owner: OwnerDep, services: ServicesDep) -> Response:
    """The assembled translation as a download."""
    state = services.sessions.file(owner, session_id, file_id)
    stem, dot, ext = state.name.rpartition(".")
    filename = f"{stem}.translated.{ext}" if dot and stem else f"{state.name}.translated"
    return Response(
        services.sessions.translation(session_id, state),
        media_type=media_type(state.name),
        headers={"Content-Disposition": content_disposition(filename)},
    )


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
    markdown = name.lower().endswith((".md", ".markdown"))
    return "text/markdown; charset=utf-8" if markdown else "text/plain; charset=utf-8"


def content_disposition(filename: str) -> str:
    """`attachment` with an ASCII fallback name and the exact name as RFC 6266's `filename*` (UTF-8)."""
    fallback = "".join(ch if ch.isascii() and (ch.isalnum() or ch in "._- ") else "_" for ch in filename)
    return f"attachment; filename=\"{fallback}\"; filename*=UTF-8''{quote(filename, safe='')}"
