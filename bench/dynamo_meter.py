"""What a benchmark's steps ask of DynamoDB, watched at a boto3 client's event hooks only (so it
measures any backend that uses the client): per call its operation, bytes, start and end, the
capacity DynamoDB reports and the capacity computed from item sizes (bench/dynamo_capacity.py).

- `provide-client-params`: `ReturnConsumedCapacity="TOTAL"` is added to every request that takes it
  (the replies grow by that figure's few bytes);
- `before-send` (first of its handlers, ahead of moto's, which answers there): the items a write is
  about to change are read for sizing, then the call's start is taken and `delay` slept, to model a
  real table's latency (calls made at the same time, from threads, overlap in their delays);
- `after-call` / `after-call-error`: the call's end, its bytes and capacity.

A step's calls that overlap in time are one sequential round trip. The step's storage latency is
given twice: whole (the time its calls cover: the delays, moto's work and botocore's), and the delays
alone (the delay once per round trip: what a real table's latency would make it, moto left out)."""

from __future__ import annotations

import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import boto3

from bench.dynamo_capacity import READS, WRITES, Sizer


@dataclass(frozen=True)
class Call:
    """One DynamoDB call as the client made it."""

    operation: str
    start: float
    slept: float
    """When the call's delay ended (moto's work and botocore's parsing follow)."""
    end: float
    sent: int
    received: int
    reported_read: float
    reported_write: float
    """Capacity units as the reply's ConsumedCapacity says (moto's fixed figures)."""
    read_units: float
    write_units: float
    """Capacity units as DynamoDB bills them, computed from item sizes."""


@dataclass(frozen=True)
class StepFigures:
    """One step's calls, summed."""

    requests: int
    round_trips: int
    latency_ms: float
    """The time the calls cover: their delays, moto's work and botocore's."""
    delay_ms: float
    """What a real table's latency alone makes the step wait: the delay once per round trip (the
    calls of one run at once there; here the mock's work, under one interpreter lock, staggers them
    and stretches their sleeps, which is not a table's latency)."""
    bytes: int
    read_units: float
    write_units: float
    reported_read: float
    reported_write: float

    @classmethod
    def of(cls, calls: list[Call], delay: float) -> StepFigures:
        spans = _merged([(c.start, c.end) for c in calls])
        return cls(
            requests=len(calls),
            round_trips=len(spans),
            latency_ms=1000 * sum(end - start for start, end in spans),
            delay_ms=1000 * delay * len(spans),
            bytes=sum(c.sent + c.received for c in calls),
            read_units=sum(c.read_units for c in calls),
            write_units=sum(c.write_units for c in calls),
            reported_read=sum(c.reported_read for c in calls),
            reported_write=sum(c.reported_write for c in calls),
        )


def _merged(spans: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Spans that overlap, merged into one."""
    merged: list[tuple[float, float]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


@dataclass
class DynamoMeter:
    """Records every call of the client it is attached to; `mark` closes a step."""

    delay: float = 0.0
    """Seconds slept in each call (each attempt), as a real table's latency."""
    capacity: bool = True
    """Ask for and compute capacity units (False: requests, bytes and time only, the replies unchanged)."""
    steps: list[StepFigures] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)
    """The calls since the last mark or reset."""
    operations: Counter[str] = field(default_factory=Counter)
    """The steps' requests by operation."""
    reported: dict[str, bool] = field(default_factory=dict)
    """Per operation that costs capacity: whether the replies carried a ConsumedCapacity figure."""
    sizer: Sizer | None = None
    """Set at `attach`: a client of its own, in the same region (the same moto)."""
    _local: threading.local = field(default_factory=threading.local)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def attach(self, client: Any) -> None:
        self.sizer = Sizer(boto3.client("dynamodb", region_name=client.meta.region_name))
        events = client.meta.events
        events.register("provide-client-params.dynamodb.*", self._params)
        events.register_first("before-send.dynamodb.*", self._send)
        events.register("after-call.dynamodb.*", self._done)
        events.register("after-call-error.dynamodb.*", self._failed)

    def _params(self, params: dict[str, Any], model: Any, **_: Any) -> None:
        if self.capacity and "ReturnConsumedCapacity" in model.input_shape.members:
            params["ReturnConsumedCapacity"] = "TOTAL"
        self._local.call = (model.name, params)
        self._local.start = None
        self._local.slept = 0.0
        self._local.sent = 0

    def _send(self, request: Any, **_: Any) -> None:
        operation, params = self._local.call
        assert self.sizer is not None
        if self._local.start is None:  # the first attempt; a retry's time counts from it
            sized = self.capacity and operation in WRITES
            self._local.before = self.sizer.before_write(operation, params) if sized else []
            self._local.start = time.perf_counter()
        self._local.sent += len(request.body or b"")
        time.sleep(self.delay)
        self._local.slept = time.perf_counter()

    def _done(self, http_response: Any, parsed: dict[str, Any], **_: Any) -> None:
        end = time.perf_counter()
        operation, params = self._local.call
        assert self.sizer is not None
        read_units = self.sizer.read(operation, params, parsed) if self.capacity and operation in READS else 0.0
        written = self.capacity and operation in WRITES
        write_units = self.sizer.written(operation, params, self._local.before) if written else 0
        reported = parsed.get("ConsumedCapacity", [])
        reported = reported if isinstance(reported, list) else [reported]
        units = sum(float(r.get("CapacityUnits", 0)) for r in reported)
        if self.capacity and operation in READS | WRITES and "Error" not in parsed:
            self.reported[operation] = self.reported.get(operation, False) or bool(reported)
        self._record(
            Call(
                operation,
                self._local.start or end,
                self._local.slept,
                end,
                self._local.sent,
                len(http_response.content or b""),
                units if operation in READS else 0.0,
                units if operation in WRITES else 0.0,
                read_units,
                float(write_units),
            )
        )

    def _failed(self, **_: Any) -> None:
        """A call that got no reply (a connection error): its time, without capacity."""
        operation, _params = self._local.call
        end = time.perf_counter()
        start = self._local.start or end
        self._record(Call(operation, start, max(start, self._local.slept), end, self._local.sent, 0, 0, 0, 0, 0))

    def _record(self, call: Call) -> None:
        with self._lock:
            self.calls.append(call)

    def mark(self) -> None:
        """One step's figures end here."""
        with self._lock:
            self.steps.append(StepFigures.of(self.calls, self.delay))
            self.operations.update(c.operation for c in self.calls)
            self.calls = []

    def reset(self) -> None:
        """What was recorded since the last mark is not a step's (setup: the table, the upload)."""
        with self._lock:
            self.calls = []
