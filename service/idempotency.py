"""Idempotency keys on `POST /api/next`, the whole rule in one place.

A retry with the same key and the same body gets the first answer again and performs no second
step; the same key with another body is refused (422). Keys are scoped to the caller and kept for
24 hours. The answer is written in the step's own transaction (or alone, for a step that commits
nothing), so a crash between commit and answer still finds it. A request that would be accepted
without a key is accepted with one: an answer too large to keep is not kept (the backend drops it),
and the retry then runs as a new request against a session that has moved on, which the
position rules make harmless.
"""

from __future__ import annotations

import hashlib
import json
import time

from pydantic import BaseModel

from agent_core.effects import StoredAnswer
from agent_core.errors import InvalidRequestError
from storage.interface import SessionStorageInterface

from .blocking import blocking

TTL_SECONDS = 24 * 3600
"""How long the answer to a request with an Idempotency-Key is kept for its retries."""


class IdempotencyKey:
    """One request's key and the digest of its body."""

    def __init__(self, owner: str, key: str, body: BaseModel) -> None:
        if not 1 <= len(key) <= 255:
            raise InvalidRequestError("Idempotency-Key must be 1 to 255 characters.")
        self.owner = owner
        self.key = key
        canonical = json.dumps(body.model_dump(mode="json", exclude_none=True), sort_keys=True, separators=(",", ":"))
        self.request_hash = hashlib.sha256(canonical.encode()).hexdigest()

    def answer(self, body: str) -> StoredAnswer:
        """The answer to keep for this key."""
        return StoredAnswer(
            owner=self.owner,
            key=self.key,
            request_hash=self.request_hash,
            body=body,
            expires_at=int(time.time()) + TTL_SECONDS,
        )


async def replay(storage: SessionStorageInterface, key: IdempotencyKey) -> str | None:
    """The kept answer's body for this key; the same key with another body is refused."""
    kept = await blocking(storage.get_answer, key.owner, key.key, now=int(time.time()))
    if kept is None:
        return None
    if kept.request_hash != key.request_hash:
        raise InvalidRequestError("This Idempotency-Key was already used with a different body; use a new key.")
    return kept.body
