"""What the runner needs of an implementation under test, whatever its transport."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ctxspec.conformance.protocol import OpError

__all__ = ["Implementation", "Reply"]


@dataclass(frozen=True, slots=True)
class Reply:
    """One answer: a `result`, or a typed `error` the implementation chose to give."""

    result: Any = None
    error: OpError | None = None

    def to_wire(self, request_id: object) -> dict[str, Any]:
        if self.error is not None:
            return {"id": request_id, "error": self.error.to_wire()}
        return {"id": request_id, "result": self.result}


class Implementation:
    """An implementation under test. `call` raises `AdapterError` when the protocol breaks."""

    name: str = "?"
    hello: Mapping[str, Any] = {}

    @property
    def ops(self) -> frozenset[str]:
        return frozenset(self.hello.get("ops", ()))

    def __repr__(self) -> str:  # stable: failure messages are part of the verdict
        return f"<implementation {self.name}>"

    def call(self, op: str, args: Mapping[str, Any]) -> Reply:
        raise NotImplementedError

    def close(self) -> None:
        """Release the implementation's process, if it has one."""
