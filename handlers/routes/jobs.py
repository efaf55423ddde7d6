"""Jobs (API.md "Jobs"): one upload into several languages, a session each."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fastapi import APIRouter

from service.job_schemas import JobCreate, JobCreated, JobView

from ..deps import OwnerDep, ServicesDep

if TYPE_CHECKING:  # the analysis (and its segmenter) is imported on first use, not at cold start
    from service.jobs import Jobs

router = APIRouter()


def _jobs(services: ServicesDep) -> Jobs:
    from service.analysis import analyses_of
    from service.jobs import Jobs

    return Jobs(services.sessions, analyses_of(services), services.runtime.store, services.storage)


@router.post("/api/jobs", status_code=201)
async def create_job(body: JobCreate, owner: OwnerDep, services: ServicesDep) -> JobCreated:
    """A session per target language, each with the files and the task, ready to be driven."""
    return await _jobs(services).create(owner, body)


@router.get("/api/jobs/{job_id}")
async def get_job(job_id: str, owner: OwnerDep, services: ServicesDep) -> JobView:
    """Each language's session, progress, state, spending and estimate."""
    return await _jobs(services).view(owner, job_id)
