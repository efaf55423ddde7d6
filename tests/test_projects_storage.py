"""The projects' storage contract (storage/projects.py) on every backend: the one record replaced over
its version, the members' index written with it, the caps."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import pytest

from storage.errors import ConflictError, InvalidRequestError, NotFoundError
from storage.interface import Storage
from storage.projects import MAX_MEMBER_CHANGES, MAX_MEMBERS, MAX_PROJECTS, ProjectMember, ProjectRecord

T0 = "2026-01-01T00:00:00.000+00:00"


def pid(k: int) -> str:
    return f"p_{k:032x}"


def manager(sub: str = "alice") -> ProjectMember:
    return ProjectMember(sub=sub, role="manager", languages=("*",))


def project(k: int = 1, *members: ProjectMember, name: str = "Docs") -> ProjectRecord:
    return ProjectRecord(
        project_id=pid(k),
        name=name,
        source_language="en",
        review="single",
        auto_approve=None,
        members=members or (manager(),),
        created_at=T0,
        updated_at=T0,
        version=0,
    )


def test_a_project_is_created_read_and_listed_for_its_members(storage: Storage) -> None:
    fr = ProjectMember(sub="bob", role="translator", languages=("fr", "de"))
    stored = storage.put_project(project(1, manager(), fr), previous=None)
    assert stored.version == 1
    assert storage.get_project(pid(1)) == stored
    assert storage.get_project(pid(1)).member("bob") == fr
    assert [p.project_id for p in storage.projects_of("bob")] == [pid(1)]
    assert storage.projects_of("carol") == []
    with pytest.raises(NotFoundError):
        storage.get_project(pid(2))


def test_creating_a_project_twice_conflicts(storage: Storage) -> None:
    storage.put_project(project(1), previous=None)
    with pytest.raises(ConflictError):
        storage.put_project(project(1, name="Other"), previous=None)
    assert storage.get_project(pid(1)).name == "Docs"


def test_a_write_over_a_stale_version_conflicts_and_changes_nothing(storage: Storage) -> None:
    first = storage.put_project(project(1), previous=None)
    second = storage.put_project(replace(first, name="Renamed"), previous=first)
    assert second.version == 2
    carol = ProjectMember(sub="carol", role="reviewer", languages=("fr",))
    with pytest.raises(ConflictError):
        storage.put_project(replace(first, members=(*first.members, carol)), previous=first)
    assert storage.get_project(pid(1)) == second
    assert storage.projects_of("carol") == []


def test_members_added_and_removed_move_the_index_with_the_record(storage: Storage) -> None:
    v1 = storage.put_project(project(1), previous=None)
    storage.put_project(project(2), previous=None)
    bob = ProjectMember(sub="bob", role="translator", languages=("fr",))
    v2 = storage.put_project(replace(v1, members=(*v1.members, bob)), previous=v1)
    assert [p.project_id for p in storage.projects_of("bob")] == [pid(1)]
    assert [p.project_id for p in storage.projects_of("alice")] == [pid(1), pid(2)]
    v3 = storage.put_project(replace(v2, members=(manager(), replace(bob, role="reviewer"))), previous=v2)
    assert storage.projects_of("bob")[0].member("bob") == replace(bob, role="reviewer")
    storage.put_project(replace(v3, members=(replace(bob, role="manager"),)), previous=v3)
    assert [p.project_id for p in storage.projects_of("alice")] == [pid(2)]
    assert [p.project_id for p in storage.projects_of("bob")] == [pid(1)]


@pytest.mark.parametrize(
    "members",
    [
        (),
        (ProjectMember(sub="bob", role="translator", languages=("fr",)),),
        (manager(), manager()),
        (manager(), ProjectMember(sub="bob", role="owner", languages=("fr",))),  # type: ignore[arg-type]
        (manager(), ProjectMember(sub="bob", role="translator", languages=())),
        (manager(" "),),
        (manager("x" * 257),),
    ],
)
def test_a_project_that_breaks_the_rules_is_refused_whole(storage: Storage, members: tuple[ProjectMember, ...]) -> None:
    with pytest.raises(InvalidRequestError):
        storage.put_project(replace(project(1), members=members), previous=None)
    with pytest.raises(NotFoundError):
        storage.get_project(pid(1))


def test_a_blank_name_is_refused(storage: Storage) -> None:
    with pytest.raises(InvalidRequestError):
        storage.put_project(project(1, name="  "), previous=None)


def test_the_member_cap(storage: Storage) -> None:
    crowd = tuple(ProjectMember(sub=f"m{k}", role="translator", languages=("*",)) for k in range(MAX_MEMBERS))
    first = storage.put_project(project(1), previous=None)
    batch = first
    for start in range(0, MAX_MEMBERS - 1, MAX_MEMBER_CHANGES):
        more = crowd[start : min(start + MAX_MEMBER_CHANGES, MAX_MEMBERS - 1)]
        batch = storage.put_project(replace(batch, members=(*batch.members, *more)), previous=batch)
    assert len(batch.members) == MAX_MEMBERS
    with pytest.raises(InvalidRequestError, match="at most"):
        storage.put_project(replace(batch, members=(*batch.members, crowd[-1])), previous=batch)
    with pytest.raises(InvalidRequestError, match="at a time"):
        storage.put_project(replace(first, members=(manager(), *crowd[: MAX_MEMBER_CHANGES + 1])), previous=first)


def test_the_cap_on_a_member_s_projects(storage: Storage) -> None:
    for k in range(MAX_PROJECTS):
        storage.put_project(project(k, manager("alice")), previous=None)
    with pytest.raises(InvalidRequestError, match="alice"):
        storage.put_project(project(MAX_PROJECTS, manager("alice")), previous=None)
    with pytest.raises(NotFoundError):
        storage.get_project(pid(MAX_PROJECTS))
    assert len(storage.projects_of("alice")) == MAX_PROJECTS
    other = storage.put_project(project(MAX_PROJECTS + 1, manager("bob")), previous=None)
    with pytest.raises(InvalidRequestError, match="alice"):
        storage.put_project(replace(other, members=(*other.members, manager("alice"))), previous=other)
    assert storage.get_project(pid(MAX_PROJECTS + 1)) == other
    leaving = storage.get_project(pid(0))
    storage.put_project(replace(leaving, members=(manager("bob"),)), previous=leaving)
    storage.put_project(replace(other, members=(*other.members, manager("alice"))), previous=other)
    assert len(storage.projects_of("alice")) == MAX_PROJECTS


def test_concurrent_member_changes_lose_nothing_silently(storage: Storage) -> None:
    base = storage.put_project(project(1), previous=None)

    def add(sub: str) -> bool:
        added = ProjectMember(sub=sub, role="translator", languages=("fr",))
        try:
            storage.put_project(replace(base, members=(*base.members, added)), previous=base)
        except ConflictError:
            return False
        return True

    with ThreadPoolExecutor(4) as pool:
        won = list(pool.map(add, ["b1", "b2", "b3", "b4"]))
    assert sum(won) == 1
    stored = storage.get_project(pid(1))
    (winner,) = [m.sub for m in stored.members if m.sub != "alice"]
    assert {s for s in ["b1", "b2", "b3", "b4"] if storage.projects_of(s)} == {winner}


def test_text_of_any_script_is_kept(storage: Storage) -> None:
    stored = storage.put_project(project(1, manager("ünï-çødé 用户"), name="Документы ✓"), previous=None)
    assert storage.get_project(pid(1)) == stored
    assert storage.projects_of("ünï-çødé 用户") == [stored]
