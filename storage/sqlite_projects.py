"""The SQLite backend's projects: one row a project, one `project_members` row a member (the index)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .errors import ConflictError, NotFoundError
from .projects import MAX_PROJECTS, ProjectRecord, ProjectStore, oldest_first, too_many_projects
from .sqlite_db import SQLiteDatabase


class SQLiteProjectStorage(SQLiteDatabase, ProjectStore):
    """Projects in the SQLite file; a write is one transaction under the writer lock, so the version
    check and the caps' counts cannot interleave with another process's write."""

    def _put_project(self, project: ProjectRecord, *, added: Sequence[str], removed: Sequence[str]) -> None:
        """The row inserted (version 1) or updated where its version is the one read, and the index's rows."""
        with self._transaction(write=True) as db:
            if project.version == 1:
                written = db.execute(
                    "INSERT INTO projects (project_id, version, created_at, updated_at, data) VALUES (?, 1, ?, ?, ?) "
                    "ON CONFLICT (project_id) DO NOTHING",
                    (project.project_id, project.created_at, project.updated_at, project.dumps()),
                )
            else:
                written = db.execute(
                    "UPDATE projects SET version = ?, updated_at = ?, data = ? WHERE project_id = ? AND version = ?",
                    (project.version, project.updated_at, project.dumps(), project.project_id, project.version - 1),
                )
            if written.rowcount != 1:
                raise ConflictError("The project changed meanwhile; reload it and try again.")
            for sub in added:
                count = db.execute("SELECT COUNT(*) AS n FROM project_members WHERE sub = ?", (sub,)).fetchone()["n"]
                if count >= MAX_PROJECTS:
                    raise too_many_projects(sub)
                db.execute("INSERT INTO project_members (sub, project_id) VALUES (?, ?)", (sub, project.project_id))
            for sub in removed:
                db.execute("DELETE FROM project_members WHERE sub = ? AND project_id = ?", (sub, project.project_id))

    def get_project(self, project_id: str) -> ProjectRecord:
        """One SELECT of the row."""
        with self._transaction(write=False, one_statement=True) as db:
            row = db.execute("SELECT * FROM projects WHERE project_id = ?", (project_id,)).fetchone()
        if row is None:
            raise NotFoundError(f"No project {project_id[:80]}.")
        return _project(row)

    def projects_of(self, sub: str) -> list[ProjectRecord]:
        """One SELECT of the member's index rows joined to their projects."""
        sql = "SELECT p.* FROM project_members m JOIN projects p ON p.project_id = m.project_id WHERE m.sub = ? LIMIT ?"
        with self._transaction(write=False, one_statement=True) as db:
            rows = db.execute(sql, (sub, MAX_PROJECTS)).fetchall()
        return oldest_first([_project(r) for r in rows])


def _project(row: dict[str, Any]) -> ProjectRecord:
    return ProjectRecord.loads(
        row["project_id"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        version=row["version"],
        raw=row["data"],
    )
