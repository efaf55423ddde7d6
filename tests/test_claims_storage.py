"""The claim on a session's one mutable record, on every backend (the `storage` fixture): taken when
free, renewed by its holder, refused while another's lasts (the refusal returns whose), free again
once it ends, taken over on demand, released by its holder; a commit keeps it and it keeps the version."""

from __future__ import annotations

import pytest

from storage.errors import NotFoundError
from storage.interface import Storage
from storage.records import SessionClaim
from tests.storage_cases import SID, create, step, user

NOON = "2026-12-06T12:00:00+00:00"
BOB = SessionClaim(by="bob", until="2026-12-06T12:05:00+00:00")
DAN = SessionClaim(by="dan", until="2026-12-06T12:06:00+00:00")


def test_a_claim_is_refused_while_another_lasts_and_keeps_the_version(storage: Storage) -> None:
    create(storage, messages=[user("hello")])
    version = storage.get_session(SID).version
    assert storage.claim_session(SID, BOB, now=NOON) == BOB
    assert storage.claim_session(SID, DAN, now=NOON) == BOB, "refused: the claim that lasts is answered"
    assert storage.claim_session(SID, DAN, now="2026-12-06T12:04:59+00:00") == BOB
    record = storage.get_session(SID)
    assert record.claim == BOB and record.version == version, "a claim leaves the version as it is"
    renewed = SessionClaim(by="bob", until="2026-12-06T12:09:00+00:00")
    assert storage.claim_session(SID, renewed, now="2026-12-06T12:04:00+00:00") == renewed, "the holder renews it"
    assert storage.claim_session(SID, DAN, now="2026-12-06T12:09:00+00:00") == DAN, "an ended claim is free"
    assert storage.claim_session(SID, BOB, now=NOON, take_over=True) == BOB, "taken over whatever holds it"


def test_a_commit_keeps_the_claim_and_the_holder_releases_it(storage: Storage) -> None:
    create(storage)
    storage.claim_session(SID, BOB, now=NOON)
    step(storage, messages=[user("again")])
    assert storage.get_session(SID).claim == BOB, "a commit leaves the claim as it is"
    assert storage.release_claim(SID, "dan") is False and storage.get_session(SID).claim == BOB
    assert storage.release_claim(SID, "bob") is True and storage.get_session(SID).claim is None
    assert storage.release_claim(SID, None) is False
    storage.claim_session(SID, DAN, now=NOON)
    assert storage.release_claim(SID, None) is True and storage.get_session(SID).claim is None
    assert storage.load_view(SID, window=10)[0].claim is None


def test_a_claim_needs_a_session(storage: Storage) -> None:
    with pytest.raises(NotFoundError):
        storage.claim_session(SID, BOB, now=NOON)
    with pytest.raises(NotFoundError):
        storage.release_claim(SID, "bob")
    with pytest.raises(NotFoundError):
        storage.release_claim(SID, None)
