"""DynamoDB operations on projects: the record in its partition, each member's index in theirs.

    P#<project> / PROJECT        the project's one mutable item: `version`, `createdAt`, `updatedAt`,
                                 `data` (settings and members, compact JSON: storage.projects)
    U#<sub> / P#<project>        a member's index entry: the member is in the project (written and
                                 deleted with the PROJECT item that adds or removes them, never changed)
    U#<sub> / COUNT              how many index entries the member has (`projects`), kept within
                                 MAX_PROJECTS by the same transactions

A write is one TransactWriteItems: the PROJECT item conditional on its version, each added member's
entry and count, each removed member's. A member's projects are one consistent Query of their
partition and one BatchGetItem of the records it names: bounded by MAX_PROJECTS, never a scan, never
an index that lags.
"""

from __future__ import annotations

from collections.abc import Sequence

from . import dynamodb_items as di
from .dynamodb_items import Item, n, num, s
from .dynamodb_table import DynamoDBTable
from .errors import ConflictError, NotFoundError
from .projects import MAX_PROJECTS, ProjectRecord, ProjectStore, oldest_first, too_many_projects

# Conditions, each named for why it is there:
# A new project must not overwrite an existing one (two creations racing on one id).
PROJECT_IS_NEW = "attribute_not_exists(pk)"
# A project's record is replaced only over the version the write read (optimistic concurrency).
PROJECT_AT_VERSION = "version = :v"
# A member is in at most MAX_PROJECTS projects (the count rises with each index entry written).
ROOM_FOR_ONE = "attribute_not_exists(projects) OR projects < :cap"


def _project_key(project_id: str) -> Item:
    return {"pk": s(f"P#{project_id}"), "sk": s("PROJECT")}


def _entry_key(sub: str, project_id: str) -> Item:
    return {"pk": s(f"U#{sub}"), "sk": s(f"P#{project_id}")}


def _count_key(sub: str) -> Item:
    return {"pk": s(f"U#{sub}"), "sk": s("COUNT")}


def _count(sub: str, delta: int, *, condition: bool) -> Item:
    update: Item = {
        "Key": _count_key(sub),
        "UpdateExpression": "ADD projects :d",
        "ExpressionAttributeValues": {":d": n(delta)},
    }
    if condition:
        update["ConditionExpression"] = ROOM_FOR_ONE
        update["ExpressionAttributeValues"][":cap"] = n(MAX_PROJECTS)
    return {"Update": update}


def _project_of(item: Item) -> ProjectRecord:
    project_id = item["pk"]["S"].removeprefix("P#")
    return ProjectRecord.loads(
        project_id,
        created_at=item["createdAt"]["S"],
        updated_at=item["updatedAt"]["S"],
        version=num(item, "version"),
        raw=item["data"]["S"],
    )


class DynamoDBProjectStorage(DynamoDBTable, ProjectStore):
    """Projects in the table (partitions P#<project> and U#<sub>)."""

    def _put_project(self, project: ProjectRecord, *, added: Sequence[str], removed: Sequence[str]) -> None:
        """One transaction: the record over its version, the added members' entries and counts, the removed'."""
        item = {
            **_project_key(project.project_id),
            "version": n(project.version),
            "createdAt": s(project.created_at),
            "updatedAt": s(project.updated_at),
            "data": s(project.dumps()),
        }
        if project.version == 1:
            record = di.put(item, PROJECT_IS_NEW)
        else:
            record = di.put(item, PROJECT_AT_VERSION)
            record["Put"]["ExpressionAttributeValues"] = {":v": n(project.version - 1)}
        actions = [record]
        for sub in added:
            actions += [di.put(_entry_key(sub, project.project_id)), _count(sub, 1, condition=True)]
        for sub in removed:
            actions += [{"Delete": {"Key": _entry_key(sub, project.project_id)}}, _count(sub, -1, condition=False)]
        with di.storable():
            di.check_transaction(actions)
        try:
            self._transact(actions)
        except di.Refused as exc:
            if exc.failed(0):
                raise ConflictError("The project changed meanwhile; reload it and try again.") from exc
            full = next((sub for k, sub in enumerate(added) if exc.failed(2 + 2 * k)), None)
            if full is not None:
                raise too_many_projects(full) from exc
            raise

    def get_project(self, project_id: str) -> ProjectRecord:
        """One consistent GetItem."""
        item = self._get(_project_key(project_id))
        if item is None:
            raise NotFoundError(f"No project {project_id[:80]}.")
        return _project_of(item)

    def projects_of(self, sub: str) -> list[ProjectRecord]:
        """One consistent Query of the member's entries, one BatchGetItem of their projects."""
        entries, _ = self._query_page(f"U#{sub}", "begins_with(sk, :e)", {":e": s("P#")}, Limit=MAX_PROJECTS)
        keys = [_project_key(e["sk"]["S"].removeprefix("P#")) for e in entries]
        return oldest_first([_project_of(item) for item in self._batch_get(keys)]) if keys else []
